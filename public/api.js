// The API client (see /api/openapi.json) and the live WebSocket with auto-reconnect,
// plus the seats this browser holds (localStorage).

import { LiveSocket } from "./live-socket.js";

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message || `HTTP ${status}`);
    this.status = status;
    this.code = body?.error || (status === 0 ? "network" : "http_" + status);
    this.state = body?.state || null;
    this.retryAfter = null; // seconds, from Retry-After (503 server_busy)
  }
}

async function call(method, path, { body, token, signal } = {}) {
  const headers = {};
  // Every write is JSON (the server answers 415 otherwise, so that no cross-site form can
  // post); the browser adds Origin, which cookie-authenticated writes need.
  if (body !== undefined || method !== "GET") headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  let r;
  try {
    r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store", signal });
  } catch (e) {
    // A request given up by its caller's time limit (its signal aborted with a TimeoutError):
    // the server may still have done it, unlike a cancelled one.
    if (e?.name === "TimeoutError") throw new ApiError(0, { error: "timeout", message: "The server did not answer in time." });
    if (e?.name === "AbortError") throw new ApiError(0, { error: "aborted", message: "The request was cancelled." });
    throw new ApiError(0, { error: "network", message: "Could not reach the server. Check your connection and try again." });
  }
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  if (!r.ok) {
    // An answer that is not the API's JSON (a proxy's or the platform's error page) is
    // never shown as it is: its text may be a whole HTML page.
    const err = new ApiError(r.status, json || { message: `The server answered with an error (HTTP ${r.status}).` });
    err.unreadable = !json;
    const ra = r.headers.get("retry-after");
    if (ra && /^\d+$/.test(ra.trim())) err.retryAfter = Number(ra);
    else if (ra && !Number.isNaN(Date.parse(ra))) err.retryAfter = Math.max(0, Math.round((Date.parse(ra) - Date.now()) / 1000));
    throw err;
  }
  return json ?? text;
}

export const api = {
  create: (req) => call("POST", "/api/games", { body: req }),
  join: (id, invite) => call("POST", `/api/games/${id}/join`, { body: { invite } }),
  state: (id, signal) => call("GET", `/api/games/${id}`, { signal }),
  move: (id, token, move, ply, signal) => call("POST", `/api/games/${id}/moves`, { token, body: { move, ply }, signal }),
  resign: (id, token) => call("POST", `/api/games/${id}/resign`, { token }),
  // Ends a game before it began (here: a link game nobody has joined), counting for nothing.
  abort: (id, token) => call("POST", `/api/games/${id}/abort`, { token }),
  // Issue 31: a casual game against the AI, the player's last move and the AI's answer undone.
  takeback: (id, token) => call("POST", `/api/games/${id}/takeback`, { token }),
  draw: (id, token, action) => call("POST", `/api/games/${id}/draw`, { token, body: { action } }),
  record: (id) => call("GET", `/api/games/${id}/record`),
  // Issue 14: rematch, this player's games on every device, turn notifications.
  // keepFaction: against the AI, the rematch keeps the player's faction (the factions
  // change sides with the seats).
  rematch: (id, token, action, keepFaction = false) =>
    call("POST", `/api/games/${id}/rematch`, { token, body: keepFaction ? { action, keep_faction: true } : { action } }),
  myGames: () => call("GET", "/api/me/games"),
  pushKey: () => call("GET", "/api/push/key"),
  pushSubscribe: (subscription) => call("POST", "/api/me/push", { body: { subscription } }),
  pushUnsubscribe: (endpoint) => call("POST", "/api/me/push/unsubscribe", { body: { endpoint } }),
  challenges: () => call("GET", "/api/challenges"),
  postChallenge: (body) => call("POST", "/api/challenges", { body }),
  acceptChallenge: (id) => call("POST", `/api/challenges/${id}/accept`, { body: {} }),
  cancelChallenge: (id) => call("POST", `/api/challenges/${id}/cancel`, { body: {} }),
  discordDm: () => call("GET", "/api/me/discord-dm"),
  setDiscordDm: (enabled) => call("POST", "/api/me/discord-dm", { body: { enabled } }),
  // Players and accounts (the session cookie goes with every same-origin request).
  me: () => call("GET", "/api/me"),
  // Starts this browser's session (a guest) when it has none; reads never create one.
  session: () => call("POST", "/api/me"),
  logoutEverywhere: () => call("POST", "/api/auth/logout/all"),
  setName: (name) => call("POST", "/api/me/name", { body: { name } }),
  logout: () => call("POST", "/api/auth/logout"),
  // Player Info; `before`: the `next` of the page before (older finished games).
  player: (id, before) => call("GET", `/api/players/${encodeURIComponent(id)}${before ? `?before=${encodeURIComponent(before)}` : ""}`),
  leaderboard: () => call("GET", "/api/leaderboard"),
  matchups: () => call("GET", "/api/stats/matchups"),
  // Learn the pieces: the lessons completed, on the account (issue 31, item 3). The PUT
  // has no body (the path names the lesson); it is sent as JSON like every write.
  lessons: () => call("GET", "/api/me/lessons"),
  completeLesson: (id) => call("PUT", `/api/me/lessons/${encodeURIComponent(id)}`),
  // Story mode.
  stories: () => call("GET", "/api/stories"),
  startStage: (story, index) => call("POST", `/api/stories/${encodeURIComponent(story)}/stages/${index}`),
  exitStage: (story) => call("POST", `/api/stories/${encodeURIComponent(story)}/exit`),
  resetStory: (story) => call("POST", `/api/stories/${encodeURIComponent(story)}/reset`, { body: { confirm: true } }),
};

export const DISCORD_LOGIN = "/api/auth/discord/login";

/**
 * Sign in with Discord. `GET /api/me` says whether the server offers it
 * (`discord_available`); when it does, the browser goes to the login route, which
 * redirects to Discord. Otherwise the caller shows why (no request that would leave an
 * unused sign-in state behind).
 */
export async function discordSignIn() {
  const me = await api.me();
  if (!me.discord_available) {
    throw new ApiError(503, { error: "discord_unconfigured", message: "Sign in with Discord is not configured on this server" });
  }
  location.assign(DISCORD_LOGIN);
}

/**
 * The live game: a self-healing WebSocket to /api/games/{id}/ws (live-socket.js). Calls
 * onState(state) for every push and onStatus("connecting"|"live"|"offline"). Reconnects
 * with backoff (500 ms doubling to 10 s), at once when the browser is back online, and
 * asks again ("state") when the page is shown again; on reconnect the server sends the
 * current state at once, so nothing is missed.
 */
export class LiveGame {
  constructor(id, { onState, onStatus }) {
    this.id = id;
    this.socket = new LiveSocket(`/api/games/${id}/ws`, {
      type: "state",
      onMessage: (msg) => { if (msg.state) onState(msg.state); },
      onStatus,
      backoff: [500, 10_000],
      poke: "state",
      pokeOnVisible: true,
    });
  }
  reconnectNow() { this.socket.reconnectNow(); }
  close() { this.socket.close(); }
}

/**
 * A game's state as the write that made or joined it answered (create, accept, a story
 * stage), handed to the game page that opens next: it needs no GET of its own, which on
 * the home page had to wait for a free connection behind My games' status reads (HTTP/1.1
 * allows six at once). The socket sends the current state as soon as it connects.
 */
const handed = new Map();
export const fresh = {
  put(id, state) { if (state) handed.set(id, { state, at: Date.now() }); },
  /** The handed state of game `id` (once; none after 10 s). */
  take(id) {
    const h = handed.get(id);
    handed.delete(id);
    return h && Date.now() - h.at < 10_000 ? h.state : null;
  },
};

// Seats held by this browser: {id: {seat, token, mode, south, north, invite_url?, created}}
const KEY = "ironarena.seats.v1";
// The games "My games" was told to forget (its ×), newest last: the server's list of the
// session's games (GET /api/me/games) still holds them, and would bring them back on the
// next visit. Kept to the last FORGOTTEN_MAX (the server lists a game for 14 days after
// its end, and ongoing ones).
const FORGOTTEN = "ironarena.forgotten.v1";
const FORGOTTEN_MAX = 500;
export const seats = {
  all() {
    try { return JSON.parse(localStorage.getItem(KEY)) || {}; } catch { return {}; }
  },
  get(id) { return this.all()[id] || null; },
  /** Holds a seat; a forgotten game taken up again (opened, played) is no longer forgotten. */
  put(id, seat) {
    const all = this.all();
    all[id] = { ...(all[id] || {}), ...seat };
    localStorage.setItem(KEY, JSON.stringify(all));
    if (this.forgotten().has(id)) localStorage.setItem(FORGOTTEN, JSON.stringify([...this.forgotten()].filter((x) => x !== id)));
  },
  remove(id) {
    const all = this.all();
    delete all[id];
    localStorage.setItem(KEY, JSON.stringify(all));
  },
  /** "Forget this game": its seat goes, and the server's list does not bring it back. */
  forget(id) {
    this.remove(id);
    const ids = [...this.forgotten()].filter((x) => x !== id);
    ids.push(id);
    localStorage.setItem(FORGOTTEN, JSON.stringify(ids.slice(-FORGOTTEN_MAX)));
  },
  /** The ids of the games forgotten in this browser. */
  forgotten() {
    try {
      const ids = JSON.parse(localStorage.getItem(FORGOTTEN));
      return new Set(Array.isArray(ids) ? ids : []);
    } catch { return new Set(); }
  },
};
