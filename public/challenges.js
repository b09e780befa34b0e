// Open challenges on the home page, live: the list comes over the lobby's WebSocket
// (/api/challenges/ws, shared with the watch over our own challenges: lobby.js), at once
// and then after every post, accept and cancel; only while the socket is down is it
// polled (GET /api/challenges, every 15 s). Expired entries go at their list's earliest
// expires_at (one GET then). Accept one (a link game begins: this browser keeps its seat
// token), post one (factions or random, your side, days per move; watched until it is
// accepted, which takes the poster into the game: app.js), cancel your own.

import { api, fresh, seats } from "./api.js";
import { account } from "./account.js";
import { lobby } from "./lobby.js";
import { FACTION_NAMES } from "./notation.js";
import { el, navigate, toast } from "./ui.js";

const name = (f) => (f === "random" ? "Random" : FACTION_NAMES[f] || f);
const opts = (sel) => ["random", "clockwork", "blades", "axiom"]
  .map((f) => `<option value="${f}"${f === sel ? " selected" : ""}>${name(f)}</option>`).join("");

function item(c, me, refresh) {
  const li = el(`<li class="challenge-item"><span class="ch-what"></span> <button type="button"></button></li>`);
  const days = c.days_per_move ? `${c.days_per_move} day${c.days_per_move > 1 ? "s" : ""} per move` : "no time limit";
  const side = c.seat === "random" ? "" : ` (plays ${c.seat === "south" ? "South" : "North"})`;
  li.querySelector(".ch-what").textContent =
    `${c.poster.name || "A player"}${side}: ${name(c.south)} vs ${name(c.north)}, ${days}${c.rated ? ", rated" : ""}`;
  const btn = li.querySelector("button");
  const mine = me && c.poster.id === me;
  btn.textContent = mine ? "Cancel" : "Accept";
  btn.className = mine ? "cancel-challenge" : "primary accept-challenge";
  btn.addEventListener("click", async () => {
    btn.disabled = true;
    try {
      if (mine) {
        lobby.forget(c.id); // its leaving the list is no acceptance
        await api.cancelChallenge(c.id);
        refresh();
        return;
      }
      const r = await api.acceptChallenge(c.id);
      seats.put(r.game, { seat: r.seat, token: r.token, mode: "link", south: r.state.south.faction, north: r.state.north.faction, rated: !!c.rated, created: Date.now() });
      fresh.put(r.game, r.state);
      navigate(`/g/${r.game}`);
    } catch (e) {
      toast(e.message, "error");
      btn.disabled = false;
      refresh();
    }
  });
  return li;
}

/** The "Open challenges" section, appended to `host`. */
export function mountChallenges(host) {
  const section = el(`<section class="panel-card challenges" aria-labelledby="ch-h"><h2 id="ch-h">Open challenges</h2>
    <ul class="challenge-list" aria-live="polite"></ul><p class="muted small ch-empty">No open challenges right now: post one.</p>
    <form class="challenge-form"><div class="ai-options">
      <label>South <select name="south">${opts("random")}</select></label>
      <label>North <select name="north">${opts("random")}</select></label>
      <label>You play <select name="seat"><option value="random">Random side</option><option value="south">South</option><option value="north">North</option></select></label>
      <label>Days per move <select name="days"><option value="">No limit</option>${[1, 2, 3, 5, 7, 14].map((d) => `<option value="${d}"${d === 3 ? " selected" : ""}>${d}</option>`).join("")}</select></label>
    </div><button type="submit" class="post-challenge">Post a challenge</button></form></section>`);
  host.append(section);
  const ul = section.querySelector(".challenge-list");
  let expiry = null;
  let off = () => {};
  const render = (challenges) => {
    if (!section.isConnected) { off(); clearTimeout(expiry); return; } // the page has left
    const me = account.me?.id || null;
    ul.replaceChildren(...challenges.map((c) => item(c, me, refresh)));
    section.querySelector(".ch-empty").hidden = challenges.length > 0;
    // The server pushes no expiry: ask again when the first one expires.
    clearTimeout(expiry);
    const next = Math.min(...challenges.map((c) => c.expires_at));
    if (Number.isFinite(next)) expiry = setTimeout(refresh, Math.min(Math.max(next - Date.now(), 0) + 1000, 2 ** 31 - 1));
  };
  const refresh = () => { if (section.isConnected) lobby.refresh(); };
  const form = section.querySelector(".challenge-form");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const fd = new FormData(form);
    const btn = form.querySelector("button");
    btn.disabled = true;
    try {
      await account.session?.();
      const posted = await api.postChallenge({ south: fd.get("south"), north: fd.get("north"), seat: fd.get("seat"), days_per_move: fd.get("days") ? Number(fd.get("days")) : null });
      lobby.watch(posted.challenge);
      toast("Challenge posted. When someone accepts it, you are taken to the game.");
      await account.reload?.();
      refresh();
    } catch (err) {
      toast(err.message, "error");
    } finally {
      btn.disabled = false;
    }
  });
  // The lobby's socket (lobby.js; live-socket.js reconnects it, 1 s doubling to 30 s).
  off = lobby.subscribe(render);
  // While shown: poll only while the socket is down; once the page leaves, unsubscribe.
  const timer = setInterval(() => {
    if (!section.isConnected) {
      clearInterval(timer);
      clearTimeout(expiry);
      off();
    } else if (!lobby.isOpen()) refresh();
  }, 15_000);
}
