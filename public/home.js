// The home screen: the Story and Leaderboard entries, play the AI, create a link game
// (with a copyable invite, rated when signed in with Discord), join by link, and "My
// games" (the seats this browser holds, with whose turn it is).
import { api, seats } from "./api.js";
import { account, signInWithDiscord } from "./account.js";
import { ICONS } from "./icons.js";
import { FACTIONS, FACTION_NAMES, FACTION_TAGLINES, PIECES, PIECE_ORDER } from "./notation.js";
import { pieceSVG } from "./pieces.js";
import { showServerBusy } from "./modals.js";
import { el, navigate, toast } from "./ui.js";
import { mountReturning } from "./returning.js";

let pickerCount = 0;

/**
 * A faction picker: three compact radio cards (the king's picture and the name), the chosen
 * faction's one-line description, and its pieces (folded: open it to read them).
 */
function factionPicker(legend, name, initial, side) {
  const id = `fp${++pickerCount}`;
  const fs = el(`<fieldset class="faction-picker"><legend>${legend}</legend><div class="faction-cards"></div>
    <p class="fc-tagline muted small" id="${id}-tag"></p>
    <details class="piece-list-wrap"><summary>Pieces of <span class="fname"></span></summary><ul class="piece-list" id="${id}-pieces"></ul></details></fieldset>`);
  const cards = fs.querySelector(".faction-cards");
  for (const f of FACTIONS) {
    const king = Object.values(PIECES[f]).find((p) => p.king);
    const card = el(`<label class="faction-card"><input type="radio" name="${name}" value="${f}" aria-describedby="${id}-tag">
      <span class="glyph" aria-hidden="true">${pieceSVG({ ...king, side, charged: false }, { title: false })}</span>
      <span class="fc-text"><strong>${FACTION_NAMES[f]}</strong></span></label>`);
    card.querySelector("input").checked = f === initial;
    cards.append(card);
  }
  const list = fs.querySelector(".piece-list");
  const update = () => {
    const f = fs.querySelector("input:checked").value;
    fs.querySelector(".fname").textContent = FACTION_NAMES[f];
    fs.querySelector(".fc-tagline").textContent = FACTION_TAGLINES[f];
    list.innerHTML = PIECE_ORDER[f].map((l) => {
      const p = PIECES[f][l];
      return `<li><span class="glyph" aria-hidden="true">${pieceSVG({ ...p, side, charged: false }, { title: false })}</span><span><strong>${p.name}</strong> — ${p.desc}</span></li>`;
    }).join("");
  };
  fs.addEventListener("change", update);
  update();
  return fs;
}

const sideSelect = (name) => `<fieldset class="side-pick"><legend>Your side</legend>
  <label><input type="radio" name="${name}" value="south" checked> South (moves first)</label>
  <label><input type="radio" name="${name}" value="north"> North</label>
  <label><input type="radio" name="${name}" value="random"> Random</label></fieldset>`;

function pickSide(v) { return v === "random" ? (Math.random() < 0.5 ? "south" : "north") : v; }

async function create(body, btn) {
  btn.disabled = true;
  const label = btn.textContent;
  btn.textContent = "Creating…";
  try {
    await account.session(); // the session cookie first, so that the game is linked to the player
    const r = await api.create(body);
    seats.put(r.id, { seat: r.seat, token: r.token, mode: body.mode, south: body.south, north: body.north, invite_url: r.invite_url, rated: !!body.rated, created: Date.now() });
    navigate(`/g/${r.id}`);
  } catch (e) {
    if (e.code === "server_busy") showServerBusy(e.retryAfter);
    else if (e.code === "sign_in_required") toast("Rated games need you to be signed in with Discord.", "error");
    else toast(`The game could not be created: ${e.message}`, "error");
  } finally {
    btn.disabled = false;
    btn.textContent = label;
  }
}

export function showHome(main) {
  main.innerHTML = "";
  const root = el(`<div class="home">
    <section class="hero"><h1>Iron Arena <span class="version">— v2.3</span></h1><p>A chess-like battle on a 9×9 board. Three factions, six abilities, one Electric Field.</p></section>
    <section class="panel-card my-games" aria-labelledby="my-h" hidden><h2 id="my-h">My games</h2><ul class="game-list"></ul></section>
    <div class="home-grid">
      <section class="panel-card" aria-labelledby="ai-h"><h2 id="ai-h">Play the AI</h2><form class="ai-form"></form></section>
      <section class="panel-card" aria-labelledby="link-h"><h2 id="link-h">Play a friend</h2><form class="link-form"></form></section>
      <div class="home-side">
      <nav class="home-modes" aria-label="More ways to play">
        <a class="mode-card story-entry" href="/story" data-link><span class="mode-icon">${ICONS.story}</span><span><strong>Story</strong><small>Three stories, six stages each, against the AI. Finish one to earn its badge.</small></span></a>
        <a class="mode-card" href="/leaderboard" data-link><span class="mode-icon">${ICONS.trophy}</span><span><strong>Leaderboard</strong><small>The best rated players and the match-up statistics.</small></span></a>
      </nav>
      <section class="panel-card" aria-labelledby="join-h"><h2 id="join-h">Join by link</h2>
        <form class="join-form"><label for="join-url">Paste an invite or game link</label>
        <div class="copy-row"><input id="join-url" name="url" placeholder="https://…/g/…#invite=…" autocomplete="off"><button type="submit">Open</button></div>
        <p class="form-error" role="alert" hidden></p></form></section></div>
    </div></div>`);
  main.append(root);

  const ai = root.querySelector(".ai-form");
  ai.append(factionPicker("Your faction", "ai-you", "clockwork", "south"), factionPicker("AI's faction", "ai-them", "blades", "north"));
  const levels = ["Beginner", "Novice", "Club", "Expert", "Master", "Grandmaster"];
  ai.append(el(`<div class="ai-options"><label>Your side <select name="ai-side"><option value="south" selected>South (first)</option><option value="north">North</option><option value="random">Random</option></select></label>
    <label>Difficulty <select name="level" aria-describedby="diff-note">${levels
    .map((name, i) => `<option value="${i + 1}"${i + 1 === 4 ? " selected" : ""}>${i + 1} · ${name}</option>`)
    .join("")}</select></label></div>`));
  ai.append(el(`<p id="diff-note" class="muted small">Higher levels think longer (up to about 1 s a move).</p>`));
  ai.append(el(`<button type="submit" class="primary big start-ai">Start game vs AI</button>`));
  ai.addEventListener("submit", (e) => {
    e.preventDefault();
    const fd = new FormData(ai);
    const seat = pickSide(fd.get("ai-side"));
    const mine = fd.get("ai-you");
    const theirs = fd.get("ai-them");
    const level = Number(fd.get("level") || 4);
    create({ mode: "ai", seat, level, south: seat === "south" ? mine : theirs, north: seat === "south" ? theirs : mine }, ai.querySelector("button[type=submit]"));
  });

  const link = root.querySelector(".link-form");
  link.append(factionPicker("Your faction", "l-you", "blades", "south"), factionPicker("Opponent's faction", "l-them", "axiom", "north"));
  link.append(el(sideSelect("l-side")));
  link.append(el(`<label class="inline">Days per move <select name="days"><option value="">No time limit</option>
    ${[1, 2, 3, 5, 7, 14].map((d) => `<option value="${d}">${d} day${d > 1 ? "s" : ""}</option>`).join("")}</select></label>`));
  const rated = el(`<div class="rated-pick"><label class="check"><input type="checkbox" name="rated" value="1" disabled aria-describedby="rated-note"> Rated game</label>
    <p id="rated-note" class="muted small"></p></div>`);
  link.append(rated);
  const ratedBox = rated.querySelector("input");
  const ratedNote = rated.querySelector("#rated-note");
  account.follow(rated, (me) => {
    const linked = !!me?.discord_linked;
    ratedBox.disabled = !linked;
    if (!linked) ratedBox.checked = false;
    ratedNote.replaceChildren();
    if (linked) {
      ratedNote.textContent = "The result updates both players' ratings. Your opponent must be signed in with Discord to join.";
    } else if (!me?.discord_available) {
      // No Discord application on this server: no sign-in button that cannot work.
      ratedNote.textContent = "Rated games are for players signed in with Discord, which this server does not offer.";
    } else {
      const err = document.createElement("span");
      err.className = "form-error";
      err.setAttribute("role", "alert");
      err.hidden = true;
      const btn = el(`<button type="button" class="link">Sign in with Discord</button>`);
      btn.addEventListener("click", () => signInWithDiscord(err));
      ratedNote.append("Rated games are for players signed in with Discord (both of them). ", btn, " to play one.", err);
    }
  });
  if (!account.me) ratedNote.textContent = "Rated games are for players signed in with Discord.";
  link.append(el(`<button type="submit" class="primary big create-link">Create game and invite link</button>`));
  link.addEventListener("submit", (e) => {
    e.preventDefault();
    const fd = new FormData(link);
    const seat = pickSide(fd.get("l-side"));
    const mine = fd.get("l-you");
    const theirs = fd.get("l-them");
    const days = fd.get("days") ? Number(fd.get("days")) : null;
    const body = { mode: "link", seat, south: seat === "south" ? mine : theirs, north: seat === "south" ? theirs : mine, days_per_move: days };
    if (fd.get("rated")) body.rated = true;
    create(body, link.querySelector("button[type=submit]"));
  });

  const join = root.querySelector(".join-form");
  join.addEventListener("submit", (e) => {
    e.preventDefault();
    const v = join.querySelector("input").value.trim();
    const m = /(?:\/g\/)?([0-9a-f]{24})(#invite=[0-9a-f]+)?/.exec(v);
    const err = join.querySelector(".form-error");
    if (!m) { err.hidden = false; err.textContent = "That does not look like an Iron Arena game link."; return; }
    err.hidden = true;
    navigate(`/g/${m[1]}${m[2] || ""}`);
  });

  mountReturning(root, () => renderMyGames(root.querySelector(".game-list")));
}

/**
 * "My games", at the top of the page for a returning player (hidden when this browser holds
 * no game): games where it is your turn first, then the other games in progress, then the
 * finished ones.
 */
async function renderMyGames(ul) {
  const section = ul.closest(".my-games");
  const all = Object.entries(seats.all()).sort((a, b) => (b[1].created || 0) - (a[1].created || 0)).slice(0, 30);
  section.hidden = !all.length;
  if (!all.length) return;
  ul.innerHTML = "";
  const RANK = { yours: 0, ongoing: 1, waiting: 1, finished: 2, gone: 3 };
  const order = () => {
    const items = [...ul.querySelectorAll(".game-item")];
    items.sort((a, b) => (RANK[a.dataset.rank] ?? 1) - (RANK[b.dataset.rank] ?? 1) || Number(a.dataset.i) - Number(b.dataset.i));
    ul.append(...items);
  };
  let i = 0;
  for (const [id, seat] of all) {
    const li = el(`<li class="game-item" data-i="${i++}"><a href="/g/${id}" data-link class="game-link"><span class="gi-title"></span><span class="gi-status">…</span></a>
      <button type="button" class="icon forget" aria-label="Forget this game">×</button></li>`);
    const mine = seat.seat === "south" ? seat.south : seat.north;
    const theirs = seat.seat === "south" ? seat.north : seat.south;
    const what = seat.stage_title ? `Story: ${seat.stage_title} · ` : "";
    li.querySelector(".gi-title").textContent = `${what}${FACTION_NAMES[mine] || mine} vs ${FACTION_NAMES[theirs] || theirs}${seat.mode === "ai" ? " (AI)" : ""}${seat.rated ? " · rated" : ""} · you are ${seat.seat === "south" ? "South" : "North"}`;
    li.querySelector(".forget").addEventListener("click", () => {
      seats.remove(id);
      li.remove();
      if (!ul.children.length) section.hidden = true;
    });
    ul.append(li);
    api.state(id).then((s) => {
      const st = li.querySelector(".gi-status");
      let text;
      let cls = "";
      if (s.status === "waiting") text = "Waiting for opponent";
      else if (s.status === "finished") text = s.result.winner === seat.seat ? "Finished: you won" : s.result.winner ? "Finished: you lost" : "Finished: draw";
      else if (s.turn === seat.seat) { text = "Your turn"; cls = "yours"; }
      else text = s[s.turn].player === "ai" ? "AI's turn" : "Opponent's turn";
      st.textContent = s.status === "finished" ? `${text} · ${s.ply} moves` : `${text} · move ${s.ply + 1}`;
      st.className = `gi-status ${cls}`;
      li.dataset.rank = cls === "yours" ? "yours" : s.status;
      order();
    }).catch((e) => {
      li.querySelector(".gi-status").textContent = e.code === "not_found" ? "Game no longer exists" : "Status unavailable";
      li.dataset.rank = "gone";
      order();
    });
  }
}
