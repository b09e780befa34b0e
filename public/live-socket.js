// The client's one reconnecting WebSocket. The game screen (/api/games/{id}/ws, through
// LiveGame in api.js) and the lobby's open challenges (/api/challenges/ws, challenges.js)
// each had their own copy of this: the URL, the JSON messages, the backoff, the reconnect
// on `online`, the clean-up. One module is one reconnect policy to reason about and one
// place to fix it; each user keeps only what is its own (what a message means, what it
// does while the socket is down).
//
// The server sends `{"type": TYPE, ...}` text frames; a well-formed one of the expected
// type goes to onMessage, anything else is ignored. A poke is the text frame that asks the
// server for its current message again ("state" for a game, "list" for the lobby). After
// an unexpected close it reconnects after a delay that starts at backoff[0], doubles up to
// backoff[1], and starts over once a connection opens; the server sends its current message
// on every (re)connect, so nothing pushed meanwhile is missed.

export class LiveSocket {
  /**
   * @param {string} path  the socket's path on this origin, e.g. "/api/challenges/ws"
   * @param {object} opts
   * @param {string} opts.type  the message type handled
   * @param {(msg: object) => void} opts.onMessage  each well-formed message of that type
   * @param {(status: "connecting"|"live"|"offline") => void} [opts.onStatus]  "offline" on
   *   every unexpected close, before the reconnect is scheduled
   * @param {[number, number]} [opts.backoff]  the first reconnect delay and its cap, in ms
   * @param {string} [opts.poke]  the text frame that asks the server again
   * @param {boolean} [opts.pokeOnVisible]  poke when the page becomes visible again
   * @param {() => boolean} [opts.alive]  while false the socket closes itself for good
   *   (asked before each connect and on each message and close): a socket that belongs to
   *   a piece of the page ends with it
   */
  constructor(path, { type, onMessage, onStatus = () => {}, backoff = [1000, 30_000], poke = null, pokeOnVisible = false, alive = () => true }) {
    this.path = path;
    this.type = type;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    [this.first, this.cap] = backoff;
    this.delay = this.first;
    this.pokeText = poke;
    this.alive = alive;
    this.ws = null;
    this.timer = null;
    this.closed = false;
    this.onOnline = () => this.reconnectNow();
    window.addEventListener("online", this.onOnline);
    if (pokeOnVisible) {
      this.onVisible = () => { if (document.visibilityState === "visible") this.poke(); };
      document.addEventListener("visibilitychange", this.onVisible);
    }
    this.connect();
  }

  /** Whether the socket is open now (pushes arrive; a poke is sent). */
  isOpen() {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  /** Closed for good (by close() or because `alive` said so). */
  ended() {
    if (!this.closed && !this.alive()) this.close();
    return this.closed;
  }

  connect() {
    if (this.ended()) return;
    this.onStatus("connecting");
    if (this.ended()) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    let ws;
    try {
      ws = new WebSocket(`${proto}//${location.host}${this.path}`);
    } catch {
      this.ws = null;
      this.lost();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.delay = this.first;
      this.onStatus("live");
    };
    ws.onmessage = (ev) => {
      if (this.ws !== ws || this.ended()) return;
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; /* ignore a malformed message */ }
      if (msg?.type === this.type) this.onMessage(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.lost();
    };
    ws.onerror = () => ws.close();
  }

  /** After an unexpected close (or a socket that could not be made): reconnect later. */
  lost() {
    if (this.ended()) return;
    this.onStatus("offline");
    if (this.ended()) return; // onStatus may have closed it
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), this.delay);
    this.delay = Math.min(this.delay * 2, this.cap);
  }

  /** Reconnects at once, the backoff started over (an open socket is poked instead). */
  reconnectNow() {
    if (this.ended()) return;
    if (this.isOpen()) return this.poke();
    clearTimeout(this.timer);
    this.delay = this.first;
    const old = this.ws;
    this.ws = null; // its close event, when it comes, is no longer ours
    try { old?.close(); } catch { /* ignore */ }
    this.connect();
  }

  /** Asks the server for its current message again: sent when open, else reconnectNow(). */
  poke() {
    if (this.ended()) return;
    if (this.isOpen()) {
      if (this.pokeText !== null) this.ws.send(this.pokeText);
    } else this.reconnectNow();
  }

  /** Ends it for good: the socket, its timer and every listener. */
  close() {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    window.removeEventListener("online", this.onOnline);
    if (this.onVisible) document.removeEventListener("visibilitychange", this.onVisible);
    const ws = this.ws;
    this.ws = null;
    try { ws?.close(); } catch { /* ignore */ }
  }
}
