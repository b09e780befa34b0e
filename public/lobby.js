// The lobby's live list, and the watch over this player's own open challenges, on one
// WebSocket (/api/challenges/ws) for the whole page.
//
// The home page's "Open challenges" subscribes to the list. The poster of a challenge must
// also learn that it was accepted, on whatever page it is, so the socket stays open on
// every page while this browser holds an open challenge of its own. The lobby pushes the
// same public list to every socket: it never names the game a challenge became (anyone
// could watch it). A challenge of ours that leaves the list before it expires, and that
// this page did not cancel, was taken; the page then asks "My games" (GET /api/me/games,
// authenticated by the session cookie), where only the poster finds the new game, and
// picks the one the challenge describes (link game, factions, side and days per move as
// posted, created after the post). The server writes the game's index row before the
// accept answers and tells the lobby after that, so the game is listed by then.

import { api, seats } from "./api.js";
import { account } from "./account.js";
import { LiveSocket } from "./live-socket.js";

/** Our open challenges (as the list shows them), kept across pages and reloads. */
const KEY = "ironarena.challenges.mine.v1";

function load() {
  let all = {};
  try { all = JSON.parse(localStorage.getItem(KEY)) || {}; } catch { all = {}; }
  const now = Date.now();
  return new Map(Object.entries(all).filter(([, c]) => c && c.expires_at > now));
}

/** The game challenge `c` became, among My games `games` (none: null). */
export function gameOf(c, games, claimed = new Set()) {
  const fits = (want, got) => want === "random" || want === got;
  return games
    .filter((g) => g.mode === "link" && !g.result && !claimed.has(g.id) && g.created_at >= c.created_at &&
      (c.days_per_move ?? null) === (g.days_per_move ?? null) &&
      fits(c.south, g.south) && fits(c.north, g.north) && fits(c.seat, g.side))
    .sort((a, b) => b.created_at - a.created_at)[0] || null;
}

class Lobby {
  constructor() {
    this.lists = new Set(); // list subscribers: fn(challenges)
    this.accepted = new Set(); // fn({game, challenge})
    this.mine = load();
    this.last = null;
    this.socket = null;
  }

  /** fn(challenges) on every list (now, if one came already); returns the unsubscribe. */
  subscribe(fn) {
    this.lists.add(fn);
    this.ensure();
    if (this.last) fn(this.last);
    return () => { this.lists.delete(fn); this.release(); };
  }

  /** fn({game, challenge}) when a challenge of ours is accepted. */
  onAccepted(fn) { this.accepted.add(fn); this.ensure(); }

  /** Whether the socket is open (pushes arrive). */
  isOpen() { return !!this.socket?.isOpen(); }

  wanted() { return this.lists.size > 0 || this.mine.size > 0; }

  /** The socket open while someone listens or a challenge of ours is open. */
  ensure() {
    if (!this.wanted() || (this.socket && !this.socket.closed)) return;
    this.socket = new LiveSocket("/api/challenges/ws", {
      type: "challenges",
      onMessage: (m) => { if (Array.isArray(m.challenges)) this.got(m.challenges); },
      // After every close the list is read once, so that it is current while the socket
      // is down (and a challenge taken meanwhile is noticed).
      onStatus: (status) => { if (status === "offline") this.refresh(); },
      backoff: [1000, 30_000],
      poke: "list",
      alive: () => this.wanted(),
    });
  }

  /** Closes the socket once nothing needs it. */
  release() {
    if (this.wanted()) return;
    this.socket?.close();
    this.last = null; // no longer kept current: the next subscriber waits for a fresh one
  }

  /** Reads the list once (GET /api/challenges), as the socket would push it. */
  async refresh() {
    try {
      this.got((await api.challenges()).challenges);
    } catch { /* keep the last list */ }
  }

  /** A challenge this browser just posted: watched from now on. */
  watch(c) {
    this.mine.set(c.id, c);
    this.save();
    this.ensure();
  }

  /** A challenge this page cancelled: its leaving the list is no acceptance. */
  forget(id) {
    this.mine.delete(id);
    this.save();
    this.release();
  }

  save() {
    localStorage.setItem(KEY, JSON.stringify(Object.fromEntries(this.mine)));
  }

  got(list) {
    this.last = list;
    for (const fn of [...this.lists]) {
      try { fn(list); } catch (e) { console.error(e); }
    }
    const now = Date.now();
    const listed = new Set(list.map((c) => c.id));
    // Ours posted elsewhere (another tab or device) are watched too.
    const me = account.me?.id;
    if (me) for (const c of list) if (c.poster?.id === me && !this.mine.has(c.id)) this.mine.set(c.id, c);
    const taken = [];
    for (const [id, c] of this.mine) {
      if (listed.has(id)) continue;
      this.mine.delete(id);
      if (c.expires_at > now) taken.push(c);
    }
    this.save();
    this.release();
    if (taken.length) this.resolve(taken);
  }

  /** Finds, in My games, the games our taken challenges became; retried once a second
   * later (the list of a lobby push can come before a slow index read sees the row). */
  async resolve(taken, retry = true) {
    let games = [];
    try { games = (await api.myGames()).games || []; } catch { /* retried below */ }
    const claimed = new Set();
    const left = [];
    for (const c of taken) {
      const g = gameOf(c, games, claimed);
      if (!g) { left.push(c); continue; }
      claimed.add(g.id);
      if (!seats.get(g.id)) {
        seats.put(g.id, { seat: g.side, token: null, session: true, mode: "link", south: g.south, north: g.north, created: g.created_at });
      }
      for (const fn of [...this.accepted]) {
        try { fn({ game: g, challenge: c }); } catch (e) { console.error(e); }
      }
    }
    if (left.length && retry) setTimeout(() => this.resolve(left, false), 1000);
  }
}

export const lobby = new Lobby();
