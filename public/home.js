// The home screen: the Story and Leaderboard entries, play the AI, create a link game
// (with a copyable invite, rated when signed in with Discord), join by link, and "My
// games" (the seats this browser holds, with whose turn it is).
import { api, fresh, seats } from "./api.js";
import { account, signInWithDiscord } from "./account.js";
import { ICONS } from "./icons.js";
import { FACTIONS, FACTION_NAMES, FACTION_TAGLINES, PIECES, PIECE_ORDER } from "./notation.js";
import { pieceSVG } from "./pieces.js";
import { showServerBusy } from "./modals.js";
import { el, navigate, plural, toast } from "./ui.js";
import { mountReturning, serverGames } from "./returning.js";
import { stageIntro } from "./story.js";

/**
 * The AI's levels in a line each (crates/ai/src/level.rs: level 1 plays the moves a
 * network finds natural, level 2 the same after a short look ahead, 3-6 search deeper and deeper). Each
 * level's measured rating and think time come from /levels.json (the ladder in
 * models/README.md; a native test checks its ratings are the fit of the committed games).
 */
export const LEVELS = [
  ["Beginner", "Looks a move ahead: a gentle start."],
  ["Novice", "Looks a little further; takes loose pieces."],
  ["Club", "Sees tactics a few moves deep."],
  ["Expert", "A real fight: looks several moves ahead."],
  ["Master", "Strong, and thinks longer."],
  ["Grandmaster", "The strongest: about 1 s a move."],
];
/** The level for a player who has finished no game: the lowest that still plays sensibly
 * (issue 34). Level 1 since 2026-12-07: it now looks ahead (the network's candidates, then a
 * short search) and scores half its games against two-ply alpha-beta, where level 2 when
 * this was set at 2 was rated 628 and is now 1,044, above three-ply alpha-beta
 * (models/README.md). Once chosen, a level is remembered for the next game. */
export const FIRST_LEVEL = 1;
const LEVEL_KEY = "ironarena.level.v1";

/** Level `n`'s option: "n · Name", with its rating from /levels.json (`m`) where
 * measured: "4 · Expert (1489)". */
export function levelLabel(m, n) {
  const l = m?.levels.find((x) => x.level === n);
  return `${n} · ${LEVELS[n - 1][0]}${l?.elo != null ? ` (${l.elo})` : ""}`;
}

/** " ~0.1 s a move." for level `n` from /levels.json (`m`), or "". */
export function thinkWords(m, n) {
  const l = m?.levels.find((x) => x.level === n);
  if (!l) return "";
  return ` ${l.think_ms < 50 ? "Under 0.1" : `~${(l.think_ms / 1000).toFixed(1)}`} s a move.`;
}

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

async function create(body, btn, reads) {
  // My games' status reads still under way stop: the create and the game page come first
  // (for a free connection, and for the server's time).
  reads?.stop();
  btn.disabled = true;
  const label = btn.textContent;
  btn.textContent = "Creating…";
  try {
    await account.session(); // the session cookie first, so that the game is linked to the player
    const r = await api.create(body);
    seats.put(r.id, { seat: r.seat, token: r.token, mode: body.mode, south: body.south, north: body.north, invite_url: r.invite_url, rated: !!body.rated, created: Date.now() });
    fresh.put(r.id, r.state);
    navigate(`/g/${r.id}`);
  } catch (e) {
    if (e.code === "server_busy") showServerBusy(e.retryAfter);
    else if (e.code === "sign_in_required") toast("Rated games need you to be signed in with Discord.", "error");
    else toast(`The game could not be created: ${e.message}`, "error");
    reads?.again(); // still on the home page: its statuses are read after all
  } finally {
    btn.disabled = false;
    btn.textContent = label;
  }
}

export function showHome(main) {
  main.innerHTML = "";
  // My games' status reads, stopped when the page is left or a game is being created.
  let leaving = new AbortController();
  const myGames = () => renderMyGames(root.querySelector(".game-list"), leaving.signal);
  const reads = { stop: () => leaving.abort(), again: () => { leaving = new AbortController(); myGames(); } };
  const root = el(`<div class="home">
    <section class="hero"><h1>Iron Arena <span class="version">— v2.3</span></h1><p>A chess-like battle on a 9×9 board. Three factions, six abilities, one Electric Field.</p>
      <div class="first-steps" hidden><button type="button" class="primary play-now">Play</button><button type="button" class="learn">New here? Learn in two minutes</button><a class="button learn-pieces" href="/learn" data-link>Learn the pieces</a></div></section>
    <section class="panel-card my-games" aria-labelledby="my-h" hidden><h2 id="my-h">My games</h2><ul class="game-list"></ul></section>
    <div class="home-grid">
      <section class="panel-card" aria-labelledby="ai-h"><h2 id="ai-h">Play the AI</h2><form class="ai-form"></form></section>
      <section class="panel-card" aria-labelledby="link-h"><h2 id="link-h">Play a friend</h2><form class="link-form"></form></section>
      <div class="home-side">
      <nav class="home-modes" aria-label="More ways to play">
        <a class="mode-card learn-entry" href="/learn" data-link><span class="mode-icon">${ICONS.learn}</span><span><strong>Learn the pieces</strong><small>A small board per piece and ability, with a goal: see what each one can do.</small></span></a>
        <a class="mode-card story-entry" href="/story" data-link><span class="mode-icon">${ICONS.story}</span><span><strong>Story</strong><small>Three stories, six stages each, against the AI. Finish one to earn its badge.</small></span></a>
        <a class="mode-card record-entry" href="/analyse" data-link><span class="mode-icon">${ICONS.graph}</span><span><strong>Analyse a record</strong><small>Paste a game's record: the engine's view of every move, and a board to try others.</small></span></a>
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
  const remembered = Number(localStorage.getItem(LEVEL_KEY)) || null;
  ai.append(el(`<div class="ai-options"><label>Your side <select name="ai-side"><option value="south" selected>South (first)</option><option value="north">North</option><option value="random">Random</option></select></label>
    <label>Difficulty <select name="level" aria-describedby="diff-note">${LEVELS
    .map(([name], i) => `<option value="${i + 1}"${i + 1 === (remembered || FIRST_LEVEL) ? " selected" : ""}>${i + 1} · ${name}</option>`)
    .join("")}</select></label></div>`));
  ai.append(el(`<p id="diff-note" class="muted small" aria-live="polite"></p>`));
  const levelSelect = ai.querySelector("select[name=level]");
  let measured = null;
  const levelNote = () => {
    const n = Number(levelSelect.value);
    ai.querySelector("#diff-note").textContent = `${LEVELS[n - 1][1]}${thinkWords(measured, n)}`;
  };
  levelSelect.addEventListener("change", () => { localStorage.setItem(LEVEL_KEY, levelSelect.value); levelNote(); });
  levelNote();
  // Each level's measured rating (in its option) and think time (in the note), where
  // measured; the picker works without them.
  fetch("/levels.json").then((r) => (r.ok ? r.json() : null)).then((m) => {
    if (!m || !levelSelect.isConnected) return;
    measured = m;
    levelSelect.title = `Ratings: ${m.scale}`;
    for (const o of levelSelect.options) o.textContent = levelLabel(m, Number(o.value));
    levelNote();
    levelSelect.dataset.measured = "true";
  }).catch(() => {});
  // A player who has finished games and never chose a level gets the server's default (4).
  if (!remembered) {
    account.ready().then(async (me) => {
      if (!me?.id || localStorage.getItem(LEVEL_KEY)) return;
      const p = await api.player(me.id).catch(() => null);
      if (p && (p.games.played > 0 || p.recent.length > 0) && !localStorage.getItem(LEVEL_KEY) && levelSelect.isConnected) {
        levelSelect.value = "4";
        levelNote();
      }
    }).catch(() => {});
  }
  ai.append(el(`<button type="submit" class="primary big start-ai">Start game vs AI</button>`));
  ai.addEventListener("submit", (e) => {
    e.preventDefault();
    const fd = new FormData(ai);
    const seat = pickSide(fd.get("ai-side"));
    const mine = fd.get("ai-you");
    const theirs = fd.get("ai-them");
    const level = Number(fd.get("level") || FIRST_LEVEL);
    create({ mode: "ai", seat, level, south: seat === "south" ? mine : theirs, north: seat === "south" ? theirs : mine }, ai.querySelector("button[type=submit]"), reads);
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
  // Shown only where rated games are possible: a server without Discord sign-in has no
  // rated games for anyone not signed in already, so no box that can never be ticked.
  rated.hidden = true;
  account.follow(rated, (me) => {
    const linked = !!me?.discord_linked;
    rated.hidden = !linked && !me?.discord_available;
    ratedBox.disabled = !linked;
    if (!linked) ratedBox.checked = false;
    ratedNote.replaceChildren();
    if (linked) {
      ratedNote.textContent = "The result updates both players' ratings. Your opponent must be signed in with Discord to join.";
    } else if (!me?.discord_available) {
      ratedNote.textContent = "";
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
    create(body, link.querySelector("button[type=submit]"), reads);
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

  // A first visit (this browser holds no game): "Play", the first story stage (a two-minute
  // lesson) and the pieces' lessons (learn.js), side by side at the top.
  const steps = root.querySelector(".first-steps");
  steps.hidden = Object.keys(seats.all()).length > 0;
  steps.querySelector(".play-now").addEventListener("click", () => {
    root.querySelector("#ai-h").scrollIntoView({ block: "start", behavior: "smooth" });
    ai.querySelector(".start-ai").focus({ preventScroll: true });
  });
  steps.querySelector(".learn").addEventListener("click", async (e) => {
    const btn = e.currentTarget;
    btn.disabled = true;
    try {
      const { stories } = await api.stories();
      const story = stories.find((x) => x.id === "clockwork") || stories[0];
      await stageIntro(story, 0, btn);
    } catch (err) {
      toast(`The lesson could not be opened: ${err.message}`, "error");
    } finally {
      btn.disabled = false;
    }
  });

  mountReturning(root, myGames);
  return reads.stop;
}

/** Finished games shown before "Show more". */
const FINISHED_SHOWN = 3;
const SIDE_NAME = { south: "South", north: "North" };

/** A date in a few words: the time today, the day otherwise. */
function when(ms) {
  const d = new Date(ms);
  return d.toDateString() === new Date().toDateString()
    ? `today ${d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`
    : d.toLocaleDateString([], { day: "numeric", month: "short", year: d.getFullYear() === new Date().getFullYear() ? undefined : "numeric" });
}

/** Moves as players count them: both sides' turns together (a ply is one side's). */
const movesOf = (plies) => Math.ceil(plies / 2);
export const timeControl = (days) => (days ? `${days} day${days === 1 ? "" : "s"} per move` : "no time limit");

/** Who the other seat is: the AI (its level), the player's name, or a seat still open. */
async function opponentName(s, mySide, known) {
  const theirs = s[mySide === "south" ? "north" : "south"];
  if (theirs.player === "ai") return `the AI (level ${s.level ?? "?"})`;
  if (!theirs.claimed) return "an invited player (not joined yet)";
  if (known?.opponent?.name) return known.opponent.name;
  if (theirs.player_id) {
    const p = await api.player(theirs.player_id).catch(() => null);
    if (p?.name) return p.name;
  }
  return "a guest";
}

/**
 * "My games", at the top of the page for a returning player (hidden when this browser holds
 * no game): the unfinished games first (your turn, then the others, then invites not yet
 * accepted), then the last few finished ones, the rest behind "Show more". Each entry names
 * the opponent, the factions and sides, the time control, and dates its last move.
 */
async function renderMyGames(ul, signal) {
  if (signal?.aborted) return;
  const section = ul.closest(".my-games");
  const all = Object.entries(seats.all()).sort((a, b) => (b[1].created || 0) - (a[1].created || 0)).slice(0, 30);
  section.hidden = !all.length;
  if (!all.length) return;
  ul.innerHTML = "";
  let more = section.querySelector(".show-more");
  if (!more) {
    more = el(`<button type="button" class="link show-more" hidden></button>`);
    more.addEventListener("click", () => { section.dataset.expanded = "true"; order(); });
    ul.after(more);
  }
  const RANK = { yours: 0, ongoing: 1, waiting: 2, finished: 3, gone: 4 };
  function order() {
    const items = [...ul.querySelectorAll(".game-item")];
    const rank = (x) => RANK[x.dataset.rank] ?? 1;
    // Finished games most recent first; the others as they came (newest first).
    items.sort((a, b) => rank(a) - rank(b) || (rank(a) >= 3 ? Number(b.dataset.when || 0) - Number(a.dataset.when || 0) : 0) ||
      Number(a.dataset.i) - Number(b.dataset.i));
    ul.append(...items);
    const done = items.filter((x) => rank(x) >= 3);
    const open = section.dataset.expanded === "true";
    done.forEach((x, k) => { x.hidden = !open && k >= FINISHED_SHOWN; });
    const hiddenCount = done.filter((x) => x.hidden).length;
    more.hidden = hiddenCount === 0;
    more.textContent = `Show ${hiddenCount} more finished game${hiddenCount === 1 ? "" : "s"}`;
  }
  // The status reads, at most READS at once: over HTTP/1.1 a browser opens six connections
  // to a host, and with all thirty under way a Create (or an Accept) queued behind them.
  const reads = [];
  let i = 0;
  for (const [id, seat] of all) {
    const li = el(`<li class="game-item" data-i="${i++}"><a href="/g/${id}" data-link class="game-link"><span class="gi-title"></span><span class="gi-meta"></span><span class="gi-status">…</span></a>
      <button type="button" class="icon forget" aria-label="Forget this game">×</button></li>`);
    const mine = seat.seat === "south" ? seat.south : seat.north;
    const theirs = seat.seat === "south" ? seat.north : seat.south;
    const known = serverGames.get(id);
    const what = seat.stage_title ? `Story: ${seat.stage_title}` : seat.mode === "ai" ? "Against the AI" : "Against a friend";
    li.querySelector(".gi-title").textContent = what;
    const meta = `${FACTION_NAMES[mine] || mine} vs ${FACTION_NAMES[theirs] || theirs} · you are ${SIDE_NAME[seat.seat] || seat.seat}${seat.rated ? " · rated" : ""}`;
    li.querySelector(".gi-meta").textContent = meta;
    li.dataset.when = String(known?.last_move_at ?? seat.created ?? 0);
    li.querySelector(".forget").addEventListener("click", () => {
      seats.forget(id); // kept forgotten: the server's list would bring it back otherwise
      li.remove();
      if (!ul.children.length) section.hidden = true;
      order();
    });
    ul.append(li);
    reads.push(() => api.state(id, signal).then(async (s) => {
      const st = li.querySelector(".gi-status");
      let text;
      let cls = "";
      if (s.status === "waiting") text = "Waiting for your opponent to join";
      else if (s.status === "finished" && /^aborted\b/.test(s.result.text)) text = "Cancelled before it began"; // no draw: it never began
      else if (s.status === "finished") text = s.result.winner === seat.seat ? "Finished: you won" : s.result.winner ? "Finished: you lost" : "Finished: draw";
      else if (s.turn === seat.seat) { text = "Your turn"; cls = "yours"; }
      else text = s[s.turn].player === "ai" ? "AI's turn" : "Opponent's turn";
      const moves = movesOf(s.moves.length);
      const count = s.status === "finished" ? plural(moves, "move") : s.status === "ongoing" ? `move ${Math.floor(s.moves.length / 2) + 1}` : "";
      const last = known?.last_move_at && s.moves.length ? `last move ${when(known.last_move_at)}` : `started ${when(known?.created_at ?? s.created_at)}`;
      const due = s.status === "ongoing" && s.deadline && s.turn === seat.seat ? `move by ${when(s.deadline)}` : "";
      st.textContent = [text, count, due, last].filter(Boolean).join(" · ");
      st.className = `gi-status ${cls}`;
      li.dataset.rank = cls === "yours" ? "yours" : s.status;
      if (s.status === "finished") li.dataset.when = String(known?.last_move_at ?? known?.finished_at ?? s.created_at);
      const who = await opponentName(s, seat.seat, known);
      li.querySelector(".gi-title").textContent = `${seat.stage_title ? `Story: ${seat.stage_title} · ` : ""}vs ${who}`;
      li.querySelector(".gi-meta").textContent = `${meta} · ${timeControl(s.days_per_move)}`;
      order();
    }).catch((e) => {
      if (e.code === "aborted") return; // the page has left
      li.querySelector(".gi-status").textContent = e.code === "not_found" ? "Game no longer exists" : "Status unavailable";
      li.dataset.rank = "gone";
      order();
    }));
  }
  order();
  const next = () => (signal?.aborted ? null : reads.shift()?.().then(next));
  for (let k = 0; k < READS; k++) next();
}

/** My games' status reads under way at once (of six connections per host). */
const READS = 3;
