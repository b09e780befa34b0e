// The game screen: board + side panel, live over the WebSocket. The server is the only
// authority: a move is drawn as made only once the server accepted it (from the move
// response or a pushed state); a refused move leaves the board as it was and says why.
// Seats held by players show their names and badges (Player Info); a story stage's game
// shows the stage and its goal, Exit Stage, and the server's verdict when it ends.
import { api, fresh, LiveGame, seats } from "./api.js";
import { account, playerName } from "./account.js";
import { stageFinished, plyNote } from "./story.js";
import { BoardView } from "./board.js";
import { parsePosition, parseMove, replay, applyMove, previewBase, describeMove, ABILITY_NAMES, FACTION_NAMES, idx } from "./notation.js";
import { pieceSVG } from "./pieces.js";
import { confirmDialog, openModal, showServerBusy } from "./modals.js";
import { sfx } from "./audio.js";
import { copyText, toast, announce, el, navigate, plural } from "./ui.js";
import { rematchControls } from "./rematch.js";
import { abilityChoice, pickAbilityTarget, recallSelection, abilityPrompt, fillAbilityBar, clearAbilityBar } from "./ability-choice.js";
import { pieceTip } from "./piece-tip.js";
import { kingThreat, drawNotice, RepetitionGuard, warnings, warningsToggle } from "./traps.js";
import * as ai from "./ai.js";
import { analyse, classify, graphSVG, GRAPH_VIEWBOX } from "./analysis.js";
import { AnalysisBoard } from "./analysis-board.js";

/** The hint's strength: the server's default level (60,000 positions, a few tenths of a
 * second in the browser), whatever level the game is played at (a beginner's level strays
 * from its best move by design; a hint should not). */
const HINT_LEVEL = 4;
/** Moves of the engine's expected line said in words after the hinted one. */
const HINT_LINE = 3;

/** How long a move's request (and the read that checks its outcome) may take before it is
 * given up: a request that never ends would hold the board closed for good. The slowest
 * AI level answers in about a second. */
const REQUEST_TIMEOUT_MS = 30_000;

const SIDE = { south: "South", north: "North" };
const other = (s) => (s === "south" ? "north" : "south");

/**
 * Opens game `id` in `main`. Returns `{ stop, ready }` at once: `stop` ends the view (its
 * socket, its timers, an open join dialog) even while it is still loading, and `ready`
 * resolves once it is shown (or has given up). The router holds `stop` from the start, so
 * leaving during "Loading the game…" or with the join dialog open ends this view: it
 * checks after each await that it is still wanted, and never replaces the page the player
 * went to or opens a socket for a game no longer shown.
 */
export function showGame(main, id, inviteToken, { badInvite = false } = {}) {
  const view = new GameView(main, id);
  return { stop: () => view.destroy(), ready: view.start(inviteToken, badInvite) };
}

class GameView {
  constructor(main, id) {
    this.main = main;
    this.id = id;
    this.state = null;
    this.history = []; // [{pos, effects}] per ply, from start + moves
    this.viewPly = null; // null = live
    this.sel = null; // {stage: "piece"|"ability"|"recall", from, base, options, target}
    this.pending = false;
    this.flip = null; // spectator's manual flip
    this.seat = seats.get(id);
    this.players = new Map(); // player id -> Player Info (or null while loading / failed)
    this.repetition = new RepetitionGuard(); // the moves that would lose by repetition
  }

  destroy() {
    this.destroyed = true;
    // The join dialog belongs to this game: left open, it would stand over the next page.
    document.getElementById("join-dialog")?.close();
    this.offAccount?.();
    this.live?.close();
    this.board?.destroy();
    this.analysisBoard?.destroy();
    clearInterval(this.clock);
    document.removeEventListener("keydown", this.globalKey);
  }

  async start(inviteToken, badInvite = false) {
    // The invite this viewer holds: kept (and in the address, so that a reload offers it
    // again) until a join succeeds or the server says it cannot seat them. A viewer who
    // chose to watch, or whose join failed on the way, can still join (the panel's Join).
    this.invite = inviteToken || null;
    this.main.innerHTML = `<section class="game" aria-label="Game"><p class="loading">Loading the game…</p></section>`;
    let state;
    try {
      state = fresh.take(this.id) ?? await api.state(this.id);
    } catch (e) {
      if (this.destroyed) return; // the player has gone elsewhere meanwhile
      this.loadFailed(e, inviteToken, badInvite);
      return;
    }
    if (this.destroyed) return;
    if (badInvite) history.replaceState(null, "", `/g/${this.id}`);
    // A seat this browser holds no token for but whose player is this session's (the game
    // was made or joined on another device, or before a sign-in): played by the session.
    // The server decides; this only says which side to offer.
    if (!this.seat && !inviteToken) {
      const me = await account.ready();
      if (this.destroyed) return;
      const side = me?.id ? ["south", "north"].find((k) => state[k]?.player_id === me.id) : null;
      if (side) {
        this.seat = { seat: side, token: null, session: true, mode: state.mode, south: state.south.faction, north: state.north.faction, created: Date.now() };
        seats.put(this.id, this.seat);
      }
    }
    if (inviteToken && !this.seat) {
      const joined = await this.offerJoin(state);
      if (this.destroyed) return;
      if (joined) state = joined;
    } else if (inviteToken) {
      this.dropInvite(); // this browser already holds a seat here
    }
    this.layout();
    this.setState(state, { initial: true });
    if (badInvite && !this.seat) this.msg("This invite link is cut short or damaged, so it cannot seat you: ask your friend to send the whole link again. Meanwhile you are watching the game.");
    this.live = new LiveGame(this.id, {
      onState: (s) => this.setState(s),
      onStatus: (s) => this.setConn(s),
    });
    this.clock = setInterval(() => this.renderDeadline(), 1000);
    this.globalKey = (e) => {
      if (e.key === "Escape" && this.sel && !document.querySelector("dialog[open]")) this.cancel();
    };
    document.addEventListener("keydown", this.globalKey);
  }

  /** The game could not be read. Only a 404 means there is no such game; a network failure
   * or a server error says so and offers Retry (the game is most likely there). */
  loadFailed(e, inviteToken, badInvite) {
    this.main.innerHTML = "";
    if (e.code === "not_found") {
      this.main.append(el(`<section class="panel-card notfound"><h1>Game not found</h1><p></p><p><a href="/" data-link>Back to the home page</a></p></section>`));
      this.main.querySelector("p").textContent = `There is no game at this address${badInvite || inviteToken ? " (the invite link may be cut short or mistyped: ask for it again)" : ""}. Check the link, or start a new game.`;
      return;
    }
    const box = el(`<section class="panel-card notfound load-failed"><h1>The game could not be loaded</h1><p role="alert"></p>
      <p class="row"><button type="button" class="primary retry-load">Retry</button><a class="button" href="/" data-link>Back to the home page</a></p></section>`);
    box.querySelector("p").textContent = e.code === "network" || e.code === "timeout"
      ? "The server could not be reached. Check your connection, then try again."
      : `The server had a problem (${e.status ? `HTTP ${e.status}` : e.code}). Please try again in a moment.`;
    box.querySelector(".retry-load").addEventListener("click", () => { if (!this.destroyed) this.start(inviteToken, badInvite); });
    this.main.append(box);
    box.querySelector(".retry-load").focus();
  }

  /** The invite is spent or no longer needed: forgotten, and taken off the address. */
  dropInvite() {
    this.invite = null;
    if (!this.destroyed && location.pathname === `/g/${this.id}` && /^#invite/.test(location.hash)) {
      history.replaceState(null, "", `/g/${this.id}`);
    }
  }

  /** The "You are invited" dialog. Watching (or closing it) keeps the invite: the panel's
   * Join still offers the seat. Resolves with the joined game's state, or null. */
  async offerJoin(state) {
    const openSide = !state.south.claimed ? "south" : !state.north.claimed ? "north" : null;
    if (!openSide) {
      this.dropInvite();
      toast("This invitation has already been used: you are watching the game.");
      return null;
    }
    const mine = state[openSide].faction;
    const theirs = state[other(openSide)].faction;
    const me = state.rated ? await account.ready() : null;
    if (this.destroyed) return null;
    const ratedNote = !state.rated ? "" : me?.discord_linked
      ? `<p>This is a <strong>rated</strong> game: the result updates both players' ratings.</p>`
      : `<p>This is a <strong>rated</strong> game: joining it needs you to be signed in with Discord (Player Info, at the bottom of the page).</p>`;
    const ok = await openModal({
      title: "You are invited",
      id: "join-dialog",
      body: `<p>Play <strong>${FACTION_NAMES[mine]}</strong> as <strong>${SIDE[openSide]}</strong> against
        ${FACTION_NAMES[theirs]}${state.days_per_move ? `, ${plural(state.days_per_move, "day")} per move` : ""}.</p>${ratedNote}`,
      actions: [{ label: "Just watch", value: false }, { label: "Join the game", value: true, kind: "primary" }],
    });
    if (!ok || this.destroyed) return null;
    return this.join();
  }

  /**
   * Takes the open seat with the held invite. The invite goes (from the address too) once
   * the seat is ours, or when the server says it cannot seat this viewer (taken, not this
   * game's, a rated game against oneself, over); after a failure on the way (the network,
   * a busy server) or a refusal that a sign-in cures, it stays for the panel's Join.
   * Resolves with the state to show, or null.
   */
  async join() {
    if (this.joining || !this.invite) return null;
    this.joining = true;
    const btn = this.$?.(".join-game");
    if (btn) btn.disabled = true;
    try {
      await account.session(); // the session, so that the seat is linked to this player
      const r = await api.join(this.id, this.invite);
      // Kept even if the player has left meanwhile: the seat is theirs on the server.
      this.seat = { seat: r.seat, token: r.token, mode: "link", south: r.state.south.faction, north: r.state.north.faction, created: Date.now() };
      seats.put(this.id, this.seat);
      this.dropInvite();
      if (this.destroyed) return null;
      toast(`You joined as ${SIDE[r.seat]}.`);
      return r.state;
    } catch (e) {
      if (["seat_taken", "same_player", "bad_invite", "game_over"].includes(e.code)) this.dropInvite();
      if (this.destroyed) return null;
      const why = {
        seat_taken: "Someone has already taken this seat: you are watching.",
        sign_in_required: "This rated game is for players signed in with Discord: sign in (Player Info), then join again. You are watching.",
        same_player: "You cannot play both seats of a rated game: you are watching.",
        bad_invite: "This invite link is not valid (it may be cut short or mistyped): ask for the whole link again. You are watching.",
      }[e.code];
      toast(why || `You could not join: ${e.message} You are watching; Join is still offered.`, "error");
      return e.state || null;
    } finally {
      this.joining = false;
      if (btn) btn.disabled = false;
    }
  }

  /** The panel's Join (the invited viewer watching the game). */
  async joinFromPanel() {
    const s = await this.join();
    if (this.destroyed) return;
    // A new state draws the panel and the board from the new seat; otherwise the panel
    // still says whether Join is offered.
    if (!s || !this.setState(s)) this.renderPanel();
    if (this.seat) this.board.grid.querySelector(".sq[tabindex='0']")?.focus();
  }

  /** Cancels a link game nobody has joined yet (POST …/abort): it ends "aborted: by a
   * player", counts for nothing, and the invite stops working. */
  async cancelGame() {
    if (!(await confirmDialog("Cancel this game?", "Nobody has joined yet. Cancelling ends the game and the invite link stops working; it counts for nothing.", "Cancel game", { danger: true, cancelLabel: "Keep waiting" }))) return;
    if (this.destroyed) return;
    const btn = this.$(".cancel-game");
    btn.disabled = true;
    try {
      // The friend may have joined while the dialog was open: their game is not ended.
      if (this.state.status !== "waiting") {
        this.msg("Your opponent joined meanwhile: the game was not cancelled.");
        return;
      }
      const r = await api.abort(this.id, this.seat.token);
      if (!this.destroyed) this.setState(r.state);
    } catch (e) {
      if (this.destroyed) return;
      if (e.state) this.setState(e.state);
      this.msg(`The game could not be cancelled: ${e.message}`);
    } finally {
      btn.disabled = false;
    }
  }

  layout() {
    this.main.innerHTML = "";
    const root = el(`<section class="game" aria-label="Game">
      <div class="board-col">
        <div class="player-bar top"></div>
        <div class="board-wrap"><div class="board-host"></div><div class="result-banner" hidden role="status"></div></div>
        <div class="player-bar bottom"></div>
        <div class="analysis-board-host" hidden></div>
        <div class="analysis" role="region" aria-label="Analysis" hidden>
          <progress class="analysis-progress" max="1" value="0" aria-label="Analysis progress"></progress>
          <svg class="eval-graph" viewBox="${GRAPH_VIEWBOX}" role="img" aria-label="Evaluation graph: South's chance to win at each position (the move list steps through the same positions)"></svg>
          <p class="analysis-note" aria-live="polite"></p>
        </div>
        <p class="legend"><span class="key"><span class="key-field"></span> Electric Field (rank 5)</span> <span class="key"><span class="key-end"></span> end rows</span>
          <span class="key"><span class="key-charged"><svg class="piece" viewBox="66 2 32 32" aria-hidden="true"><g class="charge"><circle cx="82" cy="18" r="15"/><path d="M85 5l-11 16h8l-5 13 12-17h-8z"/></g></svg></span> charged piece</span></p>
      </div>
      <aside class="side-panel" aria-label="Game panel">
        <div class="ability-bar" hidden role="region" aria-label="Ability choice"></div>
        <div class="stage-card" hidden role="region" aria-label="Story stage">
          <p class="eyebrow">Story stage</p>
          <h2 class="stage-title"></h2>
          <p class="stage-goal"><strong>Goal:</strong> <span class="goal-text"></span></p>
          <p class="muted small ply-note" hidden></p>
          <p class="stage-verdict" hidden></p>
          <div class="row stage-actions"><button type="button" class="exit-stage danger">Exit Stage</button></div>
        </div>
        <div class="status-card">
          <p class="turn" aria-live="polite"></p>
          <div class="trap-lines" aria-live="polite"></div>
          <p class="rated-line" hidden>Rated game</p>
          <p class="result-line" hidden></p>
          <div class="row end-actions" hidden></div>
          <p class="conn" title="Live connection"></p>
          <p class="deadline" hidden></p>
          <p class="msg" role="alert" hidden></p>
          <p class="hint-line" aria-live="polite" hidden></p>
        </div>
        <div class="invite" hidden>
          <p><strong>Invite your opponent</strong>: send them this link. It works once.</p>
          <p class="invite-terms muted small"></p>
          <div class="copy-row"><input class="invite-url" readonly aria-label="Invite link"><button type="button" class="copy-invite primary">Copy invite link</button></div>
        </div>
        <div class="join-offer" hidden>
          <p><strong>You are invited</strong>: <span class="join-terms"></span></p>
          <div class="row"><button type="button" class="join-game primary">Join the game</button></div>
        </div>
        <div class="draw-offer" hidden role="status"></div>
        <div class="moves-card">
          <div class="moves-head"><h2>Moves</h2>
            <div class="replay-nav" role="group" aria-label="Replay">
              <button type="button" class="icon" data-nav="first" aria-label="First position">«</button>
              <button type="button" class="icon" data-nav="prev" aria-label="Previous move">‹</button>
              <button type="button" class="icon" data-nav="next" aria-label="Next move">›</button>
              <button type="button" class="icon" data-nav="live" aria-label="Latest position">»</button>
            </div>
          </div>
          <p class="replay-note" hidden></p>
          <ol class="move-list" aria-label="Move list"></ol>
        </div>
        <div class="actions">
          <button type="button" class="ask-hint" hidden>Hint</button>
          <button type="button" class="analyse" hidden>Analyse game</button>
          <button type="button" class="open-board" hidden>Analysis board</button>
          <button type="button" class="takeback" hidden>Take back</button>
          <button type="button" class="resign danger">Resign</button>
          <button type="button" class="cancel-game danger" hidden>Cancel game</button>
          <button type="button" class="offer-draw">Offer draw</button>
          <button type="button" class="copy-record">Copy game record</button>
          <button type="button" class="copy-spectate">Copy spectator link</button>
          <button type="button" class="flip">Flip board</button>
        </div>
        <div class="game-settings"></div>
      </aside>
    </section>`);
    this.main.append(root);
    this.root = root;
    this.$ = (s) => root.querySelector(s);
    this.board = new BoardView(this.$(".board-host"), {
      onActivate: (s, how) => this.activate(s, how),
      onDrop: (a, b) => this.drop(a, b),
      onCancel: () => this.cancel(),
      describe: (sq) => pieceTip(this.board.pos, sq, this.mySide),
    });
    this.$(".game-settings").append(warningsToggle(() => this.draw()));
    this.$(".copy-invite").addEventListener("click", () => copyText(this.$(".invite-url").value, "Invite link copied"));
    this.$(".copy-spectate").addEventListener("click", () => copyText(`${location.origin}/g/${this.id}`, "Spectator link copied"));
    this.$(".copy-record").addEventListener("click", () => this.copyRecord());
    this.$(".resign").addEventListener("click", () => this.resign());
    this.$(".cancel-game").addEventListener("click", () => this.cancelGame());
    this.$(".join-game").addEventListener("click", () => this.joinFromPanel());
    this.$(".takeback").addEventListener("click", () => this.takeback());
    this.$(".ask-hint").addEventListener("click", () => this.showHint());
    this.$(".analyse").addEventListener("click", () => this.analyseGame());
    this.$(".open-board").addEventListener("click", () => this.openBoard());
    this.$(".eval-graph").addEventListener("click", (e) => {
      const pt = e.target.closest?.("circle[data-ply]");
      if (pt) this.showPly(Number(pt.dataset.ply));
    });
    this.$(".exit-stage").addEventListener("click", () => this.exitStage());
    // My own name and badges follow the account (a new name, a badge just earned).
    this.offAccount = account.subscribe(() => { if (this.lastPos) this.renderBars(this.lastPos); });
    this.$(".offer-draw").addEventListener("click", () => this.drawAction("offer"));
    this.$(".flip").addEventListener("click", () => { this.flip = !this.isFlipped(); this.draw(); });
    this.$(".replay-nav").addEventListener("click", (e) => {
      const b = e.target.closest("button");
      if (!b) return;
      const n = this.state.moves.length;
      const cur = this.viewPly ?? n;
      const to = { first: 0, prev: cur - 1, next: cur + 1, live: n }[b.dataset.nav];
      this.showPly(to);
    });
  }

  get mySide() { return this.seat?.seat || null; }
  get myTurn() {
    const s = this.state;
    return !!s && s.status === "ongoing" && this.mySide === s.turn && !!(this.seat?.token || this.seat?.session);
  }
  isFlipped() { return this.flip ?? this.mySide === "north"; }

  // --- state

  setState(s, { initial = false } = {}) {
    const prev = this.state;
    // The server's version orders two states of one game: the greater is newer, an equal
    // one is the same state. An answer overtaken by a live update (a draw offer's answer
    // after the decline's push: the same moves) is older, and ignored.
    if (prev && s.version <= prev.version) return false;
    // The moves say how the new state follows ours: it extends them (new moves, played on
    // the board), is the start of them (a take-back, drawn as it is now, with no slide), or
    // parts from them (our line was taken back elsewhere, another tab or a reconnect that
    // missed the take-back's push, and played on differently).
    const oldLen = prev ? prev.moves.length : s.moves.length;
    const common = prev ? commonStart(prev.moves, s.moves) : oldLen;
    const same = !!prev && common === oldLen && common === s.moves.length;
    const extends_ = !!prev && common === oldLen && s.moves.length > oldLen;
    const takenBack = !!prev && common === s.moves.length && s.moves.length < oldLen && s.assisted;
    const parted = !!prev && common < oldLen && common < s.moves.length && s.assisted;
    // Nothing to show: the same moves, status, offers, seats, deadline and rematch (a newer
    // version may change only `synced`, once the game's side effects reached D1). The state
    // is kept, the board not drawn again: a redraw would cancel a long press under way.
    const nothingNew = same && s.status === prev.status && s.draw_offer === prev.draw_offer &&
      s.south.claimed === prev.south.claimed && s.north.claimed === prev.north.claimed && s.deadline === prev.deadline &&
      JSON.stringify(s.rematch ?? null) === JSON.stringify(prev.rematch ?? null);
    if (nothingNew) {
      this.state = s;
      return false;
    }
    // The player's own move is in this state: it was made, whether or not its answer comes
    // (a live update came first, or the answer is lost or late). The board opens.
    const sent = this.moveReq ?? this.unsure;
    if (sent && madeIn(s, sent)) this.moveSettled(sent);
    // The server has moved on from the position the pending move was drawn on.
    if (this.pendingMove && prev && !same) this.pendingMove = null;
    this.state = s;
    this.history = replay(s.start, s.moves);
    const last = this.history[this.history.length - 1];
    this.replayExact = this.history.length === s.moves.length + 1 && formatOk(last.pos, s.position);
    if (prev && !same) { this.sel = null; this.hideAbilityBar(); }
    if (this.viewPly !== null && this.viewPly > common) this.viewPly = null;
    // New moves are played on the board one after the other; until the last has finished
    // sliding, the panel keeps saying what it said (no "Your turn", no result yet).
    const play = !initial && extends_ && this.viewPly === null;
    if (play) this.catchingUp = true;
    // Our draw offer gone while the game goes on: declined (by the button, or by the
    // opponent's move, which declines it too).
    if (prev && this.mySide && prev.draw_offer === this.mySide && !s.draw_offer && s.status === "ongoing") {
      this.msg("Your opponent declined the draw. The game goes on.");
      this.$(".msg").classList.add("draw-declined");
      toast("Draw declined.");
    }
    if (prev && !prev.result && s.result) this.ended = s; // told once the board shows the end
    if (takenBack || parted) {
      // The slides of moves now taken back stop (a reply may still be sliding in).
      this.animToken = {};
      this.catchingUp = false;
      this.shownMove = null;
      this.root.dataset.animating = "false";
    }
    this.renderPanel();
    // The analysis board follows the game (an AI game goes on: the AI's reply comes in).
    if (this.analysisBoard) this.analysisBoard.setGame({ start: s.start, moves: s.moves });
    if (play) {
      this.playNewMoves(oldLen);
    } else {
      this.draw();
      this.tellEnd();
    }
    return true;
  }

  /** The game has just ended (seen live): the sound, and a story stage's verdict dialog,
   * once the board shows the final move. */
  tellEnd() {
    const s = this.ended;
    if (!s || this.catchingUp) return;
    this.ended = null;
    this.clearMsg();
    sfx.end();
    const st = s.stage;
    if (st && st.verdict !== "pending" && this.mySide === st.player && (this.seat?.token || this.seat?.session) && !this.exiting) {
      // The stage's dialog is the one dialog at the end (not the result banner too); once
      // it closes, the result and what comes next stay in the side panel.
      this.stageDialog = true;
      this.showEnd();
      stageFinished(s).finally(() => {
        if (this.destroyed) return;
        this.stageDialog = false;
        this.bannerDismissed = true;
        this.showEnd();
      });
    }
  }

  /**
   * Plays the new plies from `from` on the board, each once the one before has finished
   * sliding (the player's own move, drawn when it was sent, included): the AI's reply
   * starts as soon as the own move has landed, with no fixed pause. Then the panel says
   * whose turn it is, and the board opens.
   */
  async playNewMoves(from) {
    const token = (this.animToken = {});
    this.root.dataset.animating = "true";
    for (let ply = from + 1; ply < this.history.length; ply++) {
      await this.board.idle();
      if (this.animToken !== token || this.destroyed) return;
      if (this.viewPly !== null) break; // an earlier position is shown: no more slides
      const h = this.history[ply];
      const mv = this.state.moves[ply - 1];
      const who = this.history[ply - 1].pos.turn;
      // The player's own move was drawn when it was sent (and made its sound then), whether
      // its answer or the live update brings it.
      const shown = who === this.mySide && this.shownMove === mv;
      this.draw(ply, !shown);
      const e = h.effects;
      if (!shown) {
        if (e?.ability) sfx.ability(); else if (e?.captured.length || e?.destroyed.length) sfx.capture(); else sfx.move();
        announce(`${SIDE[who]}: ${describeMove(this.history[ply - 1].pos, mv)}`);
      }
    }
    this.shownMove = null;
    await this.board.idle(); // the last slide, so that "animating" ends when the board is still
    if (this.animToken !== token || this.destroyed) return;
    this.catchingUp = false;
    this.root.dataset.animating = "false";
    // Drawn once more as things are now: the last ply was drawn while the player's own move
    // could still be waiting for its answer (the live update came first), and an answer that
    // came during the slide did not draw (it leaves that to the animation), so the board
    // stayed closed to the player's next move.
    this.renderPanel();
    this.draw();
    this.tellEnd();
  }

  // --- drawing

  draw(upTo = null, anim = false) {
    const s = this.state;
    this.board.setFlipped(this.isFlipped());
    const live = this.viewPly === null;
    // While new moves are being played, the board shows the one being played.
    const ply = upTo ?? (live ? (this.catchingUp ? this.drawnPly ?? s.moves.length : s.moves.length) : this.viewPly);
    if (live) this.drawnPly = ply;
    let pos;
    let effects = null;
    if (ply < this.history.length && (ply !== s.moves.length || this.replayExact)) {
      pos = this.history[ply].pos;
      effects = this.history[ply].effects;
    } else {
      pos = parsePosition(s.position);
      const lastMove = s.moves[s.moves.length - 1];
      if (lastMove) { const m = parseMove(lastMove); effects = { from: m.from, to: m.to, landed: m.to, destroyed: [], moved: [] }; }
    }
    // The player's own move, shown at once while the server (and the AI) answer.
    const optimistic = live && ply === s.moves.length && this.pendingMove;
    if (optimistic) ({ pos, effects } = this.pendingMove);
    const marks = {
      last: effects ? [effects.from, effects.landed] : null,
      destroyed: new Set(effects?.destroyed || []),
      moved: new Set((effects?.moved || []).map((x) => x[1])),
      movedFrom: new Set((effects?.moved || []).map((x) => x[0])),
    };
    for (const c of effects?.captured || []) if (c !== effects.landed) marks.destroyed.add(c);
    // The effect of the player's own ability stays marked while the opponent's reply is shown.
    const prev = !optimistic && ply >= 2 && ply < this.history.length ? this.history[ply - 1] : null;
    if (prev?.effects && this.mySide && this.history[ply - 2].pos.turn === this.mySide && (prev.effects.ability || prev.effects.destroyed.length)) {
      const busy = new Set(marks.last || []);
      for (const d of prev.effects.destroyed) if (!busy.has(d)) marks.destroyed.add(d);
      for (const [a, b] of prev.effects.moved) { if (!busy.has(b)) marks.moved.add(b); if (!busy.has(a)) marks.movedFrom.add(a); }
    }
    const canAct = live && ply === s.moves.length && this.myTurn && !this.pending && !this.catchingUp;
    const hint = canAct ? this.currentHint() : null;
    if (hint) marks.hint = [hint.from, hint.to];
    // The traps, on the position as it stands (the player's own move included while the
    // server answers): the king-piece the opponent could take next move, the draw ahead.
    const current = live && ply === s.moves.length && s.status === "ongoing";
    const threat = current && warnings.on ? kingThreat(pos, this.mySide) : null;
    if (threat) { marks.threatened = threat.king; marks.threatFrom = threat.from; }
    this.renderTraps(threat?.line || "", current && warnings.on ? drawNotice(pos) : "");
    if (canAct) {
      marks.canPick = new Set(s.legal_moves.map((m) => m.slice(0, 2)));
      if (this.sel) Object.assign(marks, this.selectionMarks());
    }
    if (this.sel && (this.sel.stage === "ability" || this.sel.stage === "recall") && canAct) {
      pos = previewBase(pos, this.sel.base).pos; // preview of the chosen base move
      marks.preview = new Set([this.sel.landed]);
      marks.last = [this.sel.from, this.sel.landed];
      marks.destroyed = new Set();
      marks.moved = new Set();
    }
    // The analysis: where a move lost ground, the better one drawn on the position it was
    // played from.
    const verdict = this.analysisFor(ply);
    if (verdict?.better) { const b = parseMove(verdict.better); marks.hint = [b.from, b.to]; }
    this.board.render(pos, marks, anim && effects ? { from: effects.from, to: effects.landed, moved: effects.moved } : null);
    this.root.classList.toggle("my-turn", canAct);
    this.root.dataset.ply = String(ply);
    this.root.dataset.pending = optimistic ? "true" : "false";
    this.board.grid.setAttribute("aria-disabled", canAct ? "false" : "true");
    // The list as far as the board shows, the player's own move as soon as it is drawn.
    this.renderMoveList(live ? ply : null, optimistic ? this.shownMove : null);
    this.renderBars(pos);
    this.renderAnalysis(ply, verdict);
  }

  /** The trap lines of the status card (changed only when their text does, so that the
   * live region speaks once). */
  renderTraps(threatLine, drawLine) {
    const box = this.$(".trap-lines");
    const key = `${threatLine}|${drawLine}`;
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    const lines = [[threatLine, "king-threat"], [drawLine, "draw-notice"]].filter(([t]) => t);
    box.replaceChildren(...lines.map(([t, cls]) => { const p = document.createElement("p"); p.className = `trap-line ${cls}`; p.textContent = t; return p; }));
  }

  selectionMarks() {
    const s = this.state;
    const sel = this.sel;
    if (sel.stage === "piece") {
      const moves = s.legal_moves.filter((m) => m.startsWith(sel.from));
      const targets = new Set(moves.map((m) => m.slice(2, 4)));
      // A destination where every move (with or without its ability) repeats a position for
      // the third time, and so loses, is marked as such.
      const losses = warnings.on ? this.repetition.losses(s) : new Set();
      const losing = new Set([...targets].filter((t) => moves.filter((m) => m.slice(2, 4) === t).every((m) => losses.has(m))));
      return { selected: sel.from, targets, losing };
    }
    if (sel.stage === "ability") return { selected: sel.landed, abilityTargets: new Set(sel.options.flatMap((o) => o.squares)) };
    if (sel.stage === "recall") return { selected: sel.landed, abilityTargets: new Set(sel.dests.map((o) => o.square)) };
    return {};
  }

  renderBars(pos) {
    const s = this.state;
    if (!s || !this.root) return;
    this.lastPos = pos;
    const top = this.isFlipped() ? "south" : "north";
    for (const [cls, side] of [[".player-bar.top", top], [".player-bar.bottom", other(top)]]) {
      const seat = s[side];
      const who = seat.player === "ai" ? `AI${this.state && this.state.level ? ` (level ${this.state.level})` : ""}` : side === this.mySide ? "You" : !seat.claimed ? "Waiting for opponent…" : this.mySide ? "Opponent" : "Player";
      const count = pos.board.filter((p) => p && p.side === side).length;
      const bar = this.$(cls);
      bar.className = `player-bar ${cls.includes("top") ? "top" : "bottom"} ${s.status === "ongoing" && s.turn === side ? "to-move" : ""}`;
      bar.innerHTML = `<span class="dot side-${side}" aria-hidden="true"></span><strong>${SIDE[side]}</strong> · ${FACTION_NAMES[seat.faction]} · <span class="who"></span><span class="count">${plural(count, "piece")}</span>`;
      const whoEl = bar.querySelector(".who");
      const info = seat.player !== "ai" && seat.player_id ? this.playerInfo(seat.player_id) : null;
      if (info) whoEl.replaceChildren(playerName(info, { suffix: side === this.mySide ? " (you)" : "" }));
      else whoEl.textContent = who;
      this.renderClock(bar, side);
    }
  }

  /** The name and badges of a seat's player: this browser's own from the account, others
   * from Player Info (fetched once per game view; the bars are drawn again when it comes). */
  playerInfo(id) {
    const me = account.me;
    if (me && me.id === id) return me;
    if (this.players.has(id)) return this.players.get(id);
    this.players.set(id, null);
    api.player(id).then((p) => {
      this.players.set(id, p);
      if (!this.destroyed && this.lastPos) this.renderBars(this.lastPos);
    }, () => { /* keep the plain label */ });
    return null;
  }

  renderPanel() {
    const s = this.state;
    const me = this.mySide;
    let turn;
    if (s.status === "waiting") turn = me ? "Waiting for your opponent to join." : "Waiting for the invited player to join.";
    else if (s.status === "finished") turn = "Game over.";
    else if (me) turn = s.turn === me ? "Your turn." : s[s.turn].player === "ai" ? "The AI is thinking…" : "Your opponent's turn.";
    else turn = `${SIDE[s.turn]} to move. You are watching.`;
    if (me && s.status !== "finished") turn += ` You play ${SIDE[me]} (${FACTION_NAMES[s[me].faction]}).`;
    // Held while the board catches up with new moves, and while the player's own move is
    // on its way ("The AI is thinking…"): the turn changes once the board shows it.
    if (!this.catchingUp && !this.pending) this.$(".turn").textContent = turn;
    // Invite (creator of a waiting link game).
    const inv = this.$(".invite");
    const showInvite = s.status === "waiting" && this.seat?.invite_url;
    inv.hidden = !showInvite;
    if (showInvite) {
      this.$(".invite-url").value = this.seat.invite_url;
      // The terms the friend is invited to, time control first (it binds them for days).
      const f = (side) => FACTION_NAMES[s[side].faction];
      this.$(".invite-terms").textContent = `${s.days_per_move ? `${s.days_per_move} day${s.days_per_move === 1 ? "" : "s"} per move` : "No time limit"}` +
        ` · ${f("south")} (South) vs ${f("north")} (North)${s.rated ? " · rated" : ""}.`;
    }
    // Join: the invited viewer who chose to watch, or whose join failed on the way, is
    // still offered the seat while it is open. Once it is taken the invite is spent.
    const openSide = s.status === "waiting" ? (!s.south.claimed ? "south" : !s.north.claimed ? "north" : null) : null;
    if (this.invite && !me && !openSide) this.dropInvite();
    const join = this.$(".join-offer");
    join.hidden = !(this.invite && !me);
    if (!join.hidden) {
      this.$(".join-terms").textContent = `play ${FACTION_NAMES[s[openSide].faction]} as ${SIDE[openSide]} against ${FACTION_NAMES[s[other(openSide)].faction]}` +
        `${s.days_per_move ? `, ${plural(s.days_per_move, "day")} per move` : ""}${s.rated ? " (rated)" : ""}.`;
    }
    // Draw offer.
    const d = this.$(".draw-offer");
    d.hidden = !(s.status === "ongoing" && s.draw_offer);
    if (!d.hidden) {
      if (me && s.draw_offer !== me) {
        d.innerHTML = `<p>Your opponent offers a draw.</p><div class="row"><button type="button" class="accept-draw primary">Accept draw</button><button type="button" class="decline-draw">Decline</button></div>`;
        d.querySelector(".accept-draw").addEventListener("click", () => this.drawAction("accept"));
        d.querySelector(".decline-draw").addEventListener("click", () => this.drawAction("decline"));
      } else {
        d.innerHTML = `<p>${me && s.draw_offer === me ? "You offered a draw; waiting for an answer." : `${SIDE[s.draw_offer]} offers a draw.`}</p>`;
      }
    }
    // Story stage.
    const st = s.stage;
    const stageCard = this.$(".stage-card");
    stageCard.hidden = !st;
    if (st) {
      this.$(".stage-title").textContent = st.title;
      this.$(".goal-text").textContent = st.goal;
      const note = this.$(".ply-note");
      note.hidden = !/\bpl(y|ies)\b/.test(st.goal);
      note.textContent = note.hidden ? "" : `${plyNote(st.goal)} Plies played so far: ${s.moves.length}.`;
      const v = this.$(".stage-verdict");
      v.hidden = st.verdict === "pending";
      v.className = `stage-verdict ${st.verdict}`;
      v.textContent = st.verdict === "won" ? "Stage complete!" : st.verdict === "lost" ? "Stage failed." : "";
      const mine = !!me && me === st.player && !!(this.seat?.token || this.seat?.session);
      this.$(".exit-stage").hidden = !mine || s.status === "finished";
      this.$(".stage-actions").hidden = this.$(".exit-stage").hidden;
    }
    this.$(".rated-line").hidden = !s.rated;
    // Actions (in a story stage, Exit Stage takes the place of Resign).
    const playing = !!me && s.status !== "finished";
    this.$(".resign").hidden = !playing || s.status === "waiting" || !!st;
    // While nobody has joined, the creator may call the game off (abort): Resign is hidden
    // then, and the game would otherwise wait for good.
    this.$(".cancel-game").hidden = !playing || s.status !== "waiting" || s.mode !== "link" || !(this.seat?.token || this.seat?.session);
    // Take back (issue 31): a casual game against the AI, a move of ours answered.
    const answered = s.moves.length >= (me === "south" ? 2 : 3);
    this.$(".takeback").hidden = !playing || s.mode !== "ai" || s.rated || !!st || !answered || s.turn !== me;
    // Analysis (issue 31): where analysisAllowed says (never engine help during a game
    // against a human); offered again once an analysis is out of date.
    const a = this.analysis;
    const analysed = !!a && (!a.done || a.key === s.moves.join(" "));
    this.$(".analyse").hidden = !this.analysisAllowed() || analysed;
    this.$(".open-board").hidden = !this.analysisAllowed() || !!this.analysisBoard;
    // Hint (issue 31): the same games only (never against a human), on the player's turn.
    this.$(".ask-hint").hidden = !this.hintAllowed();
    this.renderBusy();
    const hint = this.currentHint();
    const hintLine = this.$(".hint-line");
    hintLine.hidden = !hint;
    hintLine.textContent = hint ? hint.text : "";
    if (hint) hintLine.dataset.move = hint.move; else delete hintLine.dataset.move;
    this.$(".offer-draw").hidden = !playing || s.mode !== "link" || s.status !== "ongoing" || s.draw_offer === me;
    this.$(".flip").hidden = false;
    // Result: the banner's content; whether it shows, showEnd.
    const banner = this.$(".result-banner");
    if (s.result) {
      const r = s.result;
      // An aborted game ("aborted: by a player", "aborted: never joined") has no winner and
      // is no draw: it never began.
      const aborted = /^aborted\b/.test(r.text);
      let head = aborted ? "Game cancelled" : r.winner ? `${SIDE[r.winner]} wins` : "Draw";
      if (me && !aborted) head = r.winner === me ? "You win!" : r.winner ? "You lose" : "Draw";
      let kind = me && !aborted ? (r.winner === me ? "win" : r.winner ? "loss" : "draw") : "neutral";
      if (st && st.verdict !== "pending" && me === st.player) {
        head = st.verdict === "won" ? "Stage complete!" : "Stage failed";
        kind = st.verdict === "won" ? "win" : "loss";
      }
      banner.className = `result-banner ${kind}`;
      banner.innerHTML = `<p class="result-head"></p><p class="result-text"></p><div class="row"><button type="button" class="dismiss">View board</button></div>`;
      banner.querySelector(".result-head").textContent = head;
      banner.querySelector(".result-text").textContent = `${r.text.replace(/^./, (c) => c.toUpperCase())}`;
      banner.querySelector(".row").prepend(rematchControls(this), this.nextLink());
      banner.querySelector(".dismiss").addEventListener("click", () => {
        this.bannerDismissed = true;
        this.showEnd();
        // Keyboard users land on what the banner offered, now in the side panel.
        this.$(".end-actions button, .end-actions a")?.focus();
      });
    }
    this.showEnd();
    this.renderDeadline();
  }

  /** Where to go after the game: a new game from the home page, or back to the stories. */
  nextLink() {
    return this.state.stage
      ? el(`<a class="button primary" href="/story" data-link>Stories</a>`)
      : el(`<a class="button primary new-game" href="/" data-link>New game</a>`);
  }

  /**
   * The end of the game, once the board shows the final move: the banner over the board
   * (unless dismissed, replaced by a story stage's dialog, or an earlier position is
   * shown), else the same Rematch and New game in the side panel; the result line in place
   * of "● Live".
   */
  showEnd() {
    const r = this.state?.result;
    const over = !!r && !this.catchingUp;
    const banner = this.$(".result-banner");
    banner.hidden = !over || this.viewPly !== null || !!this.bannerDismissed || !!this.stageDialog;
    const line = this.$(".result-line");
    line.hidden = !over;
    if (over) line.textContent = `Result: ${r.text.replace(/^./, (c) => c.toUpperCase())}.`;
    this.$(".conn").hidden = over;
    const end = this.$(".end-actions");
    end.hidden = !over || !banner.hidden || !!this.stageDialog;
    end.replaceChildren();
    if (!end.hidden) end.append(rematchControls(this), this.nextLink());
  }

  renderDeadline() {
    const s = this.state;
    const d = this.$(".deadline");
    if (!s || !d) return;
    d.hidden = !s.deadline;
    for (const bar of this.root?.querySelectorAll(".player-bar") || []) if (bar.dataset.side) this.renderClock(bar, bar.dataset.side);
    if (!s.deadline) return;
    const left = s.deadline - Date.now();
    const when = new Date(s.deadline).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
    // Addressed to the player whose move it is ("You", not "South"), when that is this seat.
    const who = this.mySide === s.turn && (this.seat?.token || this.seat?.session) ? "You" : SIDE[s.turn];
    d.textContent = `${who} must move by ${when} (${left > 0 ? fmtLeft(left) + " left" : "time is up"}).`;
    d.classList.toggle("urgent", left < 3600_000);
  }

  /**
   * A correspondence game's clock on a player bar: the time left to the side to move
   * (counting down, from the server's deadline), the whole allowance to the other (it
   * starts again at each move). Nothing for an untimed game or once it is over.
   */
  renderClock(bar, side) {
    const s = this.state;
    bar.dataset.side = side;
    let clock = bar.querySelector(".clock");
    if (!s?.days_per_move || s.status === "finished") { clock?.remove(); return; }
    if (!clock) {
      clock = document.createElement("span");
      clock.className = "clock";
      clock.setAttribute("role", "timer");
      // A drawn clock face (an emoji clock is missing from some fonts).
      clock.innerHTML = `<svg class="icon-svg" viewBox="0 0 24 24" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"><circle cx="12" cy="13" r="8"/><path d="M12 9v4l2.5 2.5M9.5 2.5h5"/></svg><span class="left"></span>`;
      bar.append(clock);
    }
    const running = s.status === "ongoing" && s.turn === side && !!s.deadline;
    const left = running ? Math.max(0, s.deadline - Date.now()) : s.days_per_move * 86_400_000;
    const text = running ? fmtLeft(left) : `${s.days_per_move} d`;
    const shown = clock.querySelector(".left");
    if (shown.textContent !== text) shown.textContent = text;
    clock.classList.toggle("running", running);
    clock.classList.toggle("urgent", running && left < 3600_000);
    const label = running ? `${SIDE[side]}: ${fmtLeft(left)} left to move` : `${SIDE[side]}: ${s.days_per_move} day${s.days_per_move === 1 ? "" : "s"} for each move`;
    if (clock.getAttribute("aria-label") !== label) clock.setAttribute("aria-label", label);
  }

  /**
   * The move list: the moves up to `upTo` (all while earlier positions are shown), and
   * `pending`, the player's own move drawn while the server answers, after them.
   */
  renderMoveList(upTo = null, pending = null) {
    const s = this.state;
    const ol = this.$(".move-list");
    const n = Math.min(upTo ?? s.moves.length, s.moves.length);
    const cur = this.viewPly ?? n;
    // One row per move (a move is one player's turn, as the rules count them to 160), in
    // words with the piece's picture; the IAMN is in the tooltip. After an analysis of these
    // very moves, a move that lost ground carries its mark (?!, ?, ??).
    const items = [];
    const a = this.analysis;
    const verdicts = a?.done && a.key === s.moves.join(" ") ? a.verdicts : null;
    const row = (k, move, cls, attrs, note = "") => {
      const v = verdicts && !cls.startsWith("mv-pending") ? verdicts[k] : null;
      const mark = v?.cls ? `<span class="mv-mark ${v.cls}" aria-hidden="true">${v.mark}</span>` : "";
      if (v?.cls) note += `, a ${v.cls}`;
      const before = this.history[k]?.pos ?? (k === s.moves.length ? this.livePos() : null);
      const w = before ? moveWords(before, move) : { icon: "", text: move, side: null };
      const desc = before ? describeMove(before, move) : move;
      const tag = cls.startsWith("mv-pending") ? "span" : "button";
      return `<li><span class="num">${k + 1}.</span><${tag}${tag === "button" ? ' type="button"' : ""} class="${cls}" ${attrs} title="${esc(move)}" aria-label="Move ${k + 1}${w.side ? `, ${SIDE[w.side]}` : ""}: ${esc(desc)}${note}">` +
        `${w.side ? `<span class="dot side-${w.side}" aria-hidden="true"></span>` : ""}<span class="mv-icon" aria-hidden="true">${w.icon}</span><span class="mv-text">${esc(w.text)}</span>${mark}</${tag}></li>`;
    };
    for (let k = 0; k < n; k++) items.push(row(k, s.moves[k], `mv${cur === k + 1 ? " current" : ""}`, `data-ply="${k + 1}"`));
    if (pending && n === s.moves.length) items.push(row(n, pending, "mv-pending", "", " (sent, not confirmed yet)"));
    ol.innerHTML = items.join("") || `<li class="empty">No moves yet.</li>`;
    ol.querySelectorAll(".mv").forEach((b) => b.addEventListener("click", () => this.showPly(Number(b.dataset.ply))));
    const current = ol.querySelector(".current");
    if (current && this.viewPly === null) ol.scrollTop = ol.scrollHeight;
    else current?.scrollIntoView({ block: "nearest" });
    const note = this.$(".replay-note");
    note.hidden = this.viewPly === null;
    if (!note.hidden) {
      note.innerHTML = `Showing the position after move ${this.viewPly} of ${s.moves.length}. <button type="button" class="link back-live">Back to the game</button>`;
      if (this.viewPly === 0) note.firstChild.textContent = "Showing the starting position. ";
      note.querySelector(".back-live").addEventListener("click", () => this.showPly(s.moves.length));
    }
  }

  showPly(ply) {
    const n = this.state.moves.length;
    ply = Math.max(0, Math.min(n, ply));
    if (ply < n && ply >= this.history.length) {
      this.msg("This earlier position cannot be shown.");
      return;
    }
    this.viewPly = ply === n ? null : ply;
    this.sel = null;
    this.hideAbilityBar();
    // The move list and the graph choose the analysis board's position too.
    this.analysisBoard?.setBase(ply);
    this.draw();
    // The result banner never covers the board while earlier positions are shown.
    this.showEnd();
  }

  // --- input

  activate(square, how) {
    // A piece that is not for moving now explains itself (its tip): an enemy piece, one
    // with no legal move, any piece while it is not the player's turn.
    const explain = () => { if (how !== "drag") this.board.showTipFor(square); };
    if (this.viewPly !== null) { this.msg("You are looking at an earlier position: press » to return to the game."); explain(); return; }
    if (!this.myTurn || this.pending) {
      if (this.state.status === "ongoing" && this.mySide && this.state.turn !== this.mySide && how !== "drag") this.msg("It is not your turn.");
      if (!this.pending) explain();
      return;
    }
    this.clearMsg();
    const s = this.state;
    const sel = this.sel;
    if (sel?.stage === "ability") return this.pickAbilityTarget(square);
    if (sel?.stage === "recall") return this.pickRecallDest(square);
    const movesFrom = s.legal_moves.filter((m) => m.startsWith(square));
    if (sel?.stage === "piece") {
      if (square === sel.from && how !== "drag") { this.cancel(); return; }
      const bases = s.legal_moves.filter((m) => m.startsWith(sel.from + square));
      if (bases.length) { this.chooseBase(sel.from + square); return; }
    }
    if (movesFrom.length) {
      this.sel = { stage: "piece", from: square };
      const n = new Set(movesFrom.map((m) => m.slice(2, 4))).size;
      announce(`${this.pieceName(square)} selected: ${n} destination${n === 1 ? "" : "s"}.`);
    } else {
      this.sel = null;
      const p = this.livePos().board[idx(square)];
      if (p && p.side === this.mySide) this.msg(`The ${p.name} on ${square} has no legal move.`);
      this.draw();
      explain();
      return;
    }
    this.draw();
  }

  drop(from, to) {
    if (!this.myTurn || this.pending || this.viewPly !== null) return;
    if (this.state.legal_moves.some((m) => m.startsWith(from + to))) this.chooseBase(from + to);
    else { this.sel = { stage: "piece", from }; this.draw(); }
  }

  cancel() {
    if (!this.sel) return;
    this.sel = null;
    this.hideAbilityBar();
    this.draw();
    announce("Selection cleared.");
  }

  livePos() { return parsePosition(this.state.position); }
  pieceName(square) { const p = this.livePos().board[idx(square)]; return p ? p.name : "Piece"; }

  chooseBase(base) {
    const choice = abilityChoice(this.livePos(), this.state.legal_moves, base);
    if (!choice) { this.submit(base); return; }
    this.sel = choice;
    this.showAbilityBar();
    this.draw();
    announce(abilityPrompt(choice));
  }

  showAbilityBar() {
    const bar = this.$(".ability-bar");
    fillAbilityBar(bar, this.sel, { play: (m) => this.submit(m), recall: (t) => this.startRecall(t), cancel: () => this.cancel() });
    if (window.innerWidth < 900) bar.scrollIntoView({ block: "nearest", behavior: "smooth" });
    bar.querySelector("button")?.focus({ preventScroll: true });
  }

  hideAbilityBar() {
    // The keyboard's place is not lost with the buttons (Slash, Skip, Cancel, Escape): back
    // to the board, as in the lessons and on the analysis board.
    const bar = this.$?.(".ability-bar");
    if (bar) clearAbilityBar(bar, this.board);
  }

  pickAbilityTarget(square) {
    const pick = pickAbilityTarget(this.sel, square);
    if (pick.move) this.submit(pick.move);
    else if (pick.recall) this.startRecall(pick.recall);
    else if (pick.cancel) this.cancel();
    else this.msg("Choose a highlighted square, Skip, or Cancel.");
  }

  startRecall(target) {
    this.sel = recallSelection(this.sel, target);
    this.showAbilityBar();
    this.draw();
    announce(`Recall ${target}: choose its destination.`);
  }

  pickRecallDest(square) {
    const d = this.sel.dests.find((o) => o.square === square);
    if (d) this.submit(d.move);
    else this.msg("Choose one of the highlighted starting squares.");
  }

  /**
   * Sends a move. It is one of the server's legal moves, so it is drawn at once (with the
   * client's replay of it) while the server — and in an AI game the AI — answers; the
   * server still decides: a refusal puts the board back and says why.
   */
  async submit(move) {
    const s = this.state;
    // A move that repeats a position for the third time loses: asked first; declined,
    // nothing is sent and the board is as it was before the piece was picked.
    if (!(await this.repetition.confirm(s, move))) {
      this.sel = null;
      this.hideAbilityBar();
      this.draw();
      announce("Move not played.");
      return;
    }
    if (this.pending || !this.myTurn || this.state.moves.join(" ") !== s.moves.join(" ")) return; // the game moved on meanwhile
    // The request, until its outcome is known: from its answer, from a state that holds
    // the move (moveSettled), or from the game's state read after a lost answer (settleMove).
    const req = { move, before: s.moves.slice() };
    this.moveReq = req;
    this.pending = true;
    this.unsure = null;
    this.sel = null;
    this.hideAbilityBar();
    this.clearMsg();
    this.renderBusy();
    try {
      this.pendingMove = applyMove(this.livePos(), move);
      this.shownMove = move;
    } catch {
      this.pendingMove = null; // cannot be drawn here: the board waits for the server
    }
    this.draw(null, !!this.pendingMove);
    if (this.pendingMove) {
      const e = this.pendingMove.effects;
      if (e.ability) sfx.ability(); else if (e.captured.length || e.destroyed.length) sfx.capture(); else sfx.move();
    }
    const ai = s[other(s.turn)].player === "ai";
    this.$(".turn").textContent = ai ? "The AI is thinking…" : "Sending your move…";
    let r;
    try {
      r = await bounded((signal) => api.move(this.id, this.seat.token, move, s.ply, signal));
      // A success whose body is not a game (something between us and the server answered)
      // says nothing about the move.
      if (!r?.state) throw Object.assign(new Error("no state"), { code: "unreadable" });
    } catch (e) {
      if (this.moveReq !== req || this.destroyed) { if (e.state && !this.destroyed) this.setState(e.state); return; } // settled meanwhile
      // No answer (the network failed, or none came in time), the server's own failure, or
      // an answer that is not the API's: the move may have been made all the same. The
      // game's state says (its answer may be all that was lost).
      if (["network", "timeout", "unreadable"].includes(e.code) || (e.status >= 500 && e.code !== "server_busy")) {
        this.settleMove(req, e);
        return;
      }
      this.moveReq = null;
      this.rollBack(e.state);
      if (e.code === "server_busy") {
        // Refused before it was looked at (the limits): nothing was played.
        this.msg("Your move was not played: the server is busy. Play it again in a moment.");
        showServerBusy(e.retryAfter, "to take your move");
      } else {
        // An answer that is not the API's (a proxy's error page) is not shown as it is.
        this.msg(e.unreadable ? `Your move was not played: the server answered with an error (HTTP ${e.status}).` : `Move refused: ${e.message}`);
      }
      return;
    }
    if (this.moveReq === req) this.moveSettled(req);
    const changed = this.setState(r.state);
    // Already shown from the live update: the panel and the board once more, now that
    // input is open again (during a slide, its end does that).
    if (!changed && !this.catchingUp) { this.renderPanel(); this.draw(); }
  }

  /** The player's move `req` is known to be made: the board opens again (the move stays
   * as drawn: the state that holds it slides only what came after it). */
  moveSettled(req) {
    if (this.moveReq === req) {
      this.moveReq = null;
      this.pending = false;
      this.pendingMove = null;
      this.renderBusy();
    }
    // Its answer was lost: the message that said so (checking, or not played) is over.
    if (this.unsure === req) {
      this.unsure = null;
      this.notSent = false;
      this.clearMsg();
      announce("Your move was played.");
    }
  }

  /** A refused (or not made) move is taken off the board: the server's position, `state`
   * when the refusal brought one, is shown and the board opens again. */
  rollBack(state) {
    this.pending = false;
    this.pendingMove = null;
    this.shownMove = null;
    this.board.finish(); // the refused move's slide: the server's position follows at once
    sfx.error();
    if (state) this.setState(state);
    this.renderPanel();
    this.draw();
  }

  /**
   * The answer to move `req` was lost (`error`: no answer, a failure on the server's side,
   * or an answer that was not the API's): the server may have made the move. The board
   * keeps it drawn and closed while the game's state is read; the move is in it (played:
   * the board goes on from there) or not (taken off the board, to be played again).
   * Meanwhile a pushed state that holds the move settles it as well.
   */
  async settleMove(req, error) {
    const lost = error.code === "network" || error.code === "timeout";
    this.unsure = req;
    this.$(".turn").textContent = "Checking whether your move was played…";
    this.msg(lost
      ? "The server's answer did not arrive: checking whether your move was played…"
      : "The server had a problem with your move: checking whether it was played…");
    let s = null;
    try { s = await bounded((signal) => api.state(this.id, signal)); } catch { /* unreachable: said below */ }
    if (this.destroyed || this.moveReq !== req) return; // a pushed state settled it
    if (s && madeIn(s, req)) {
      this.moveSettled(req);
      const changed = this.setState(s);
      if (!changed && !this.catchingUp) { this.renderPanel(); this.draw(); }
      return;
    }
    // Not made (as far as the server says now: a move it was still working on when the
    // request was given up may come after all, and then clears this message).
    this.moveReq = null;
    this.rollBack(s);
    if (s) {
      // The server's own words when it answered with them (its 5xx messages are generic).
      const why = error.code === "network" ? "it did not reach the server" : error.code === "timeout" ? "the server did not answer in time"
        : error.status >= 500 && !error.unreadable ? error.message.replace(/\.?$/, "") : "the server had a problem";
      this.msg(`Your move was not played: ${why}. The board shows the server's position: play it again.`);
    } else {
      // Still unknown: the live connection brings the server's state when it can (and a
      // state that holds the move clears this message: madeIn in setState).
      this.msg("Your move was not sent, or its answer was lost: the server cannot be reached. The board shows the last position the server confirmed, and follows the server's once it can be reached again.");
      this.notSent = true;
      this.live?.reconnectNow();
    }
  }

  // --- actions

  async resign() {
    if (!(await confirmDialog("Resign?", "Resigning ends the game: your opponent wins. Are you sure?", "Resign", { danger: true }))) return;
    try {
      const r = await api.resign(this.id, this.seat.token);
      this.setState(r.state);
    } catch (e) {
      if (e.state) this.setState(e.state);
      this.msg(e.message);
    }
  }

  /** Take back and Hint wait while the player's move is on its way: a take-back sent then
   * would race the move (the server could undo the moves before it, and the move then be
   * refused or played on the position taken back to), and a hint would be for a position
   * about to change. Each is disabled during its own request too. */
  renderBusy() {
    const tb = this.$?.(".takeback");
    if (!tb) return;
    tb.disabled = this.pending || !!this.takingBack;
    this.$(".ask-hint").disabled = this.pending || !!this.hinting;
  }

  /** Whether this player may ask for a hint now: their turn in their own casual game
   * against the AI (not rated, not a story stage). Never in a game against a human. */
  hintAllowed() {
    const s = this.state;
    return !!s && this.myTurn && s.mode === "ai" && !s.rated && !s.stage;
  }

  /** The hint asked for the position on the board, if any (a hint is for the moves it was
   * asked after: a move or a take-back makes it stale). */
  currentHint() {
    const h = this.hint;
    return h && this.hintAllowed() && h.after === this.state.moves.join(" ") ? h : null;
  }

  /** Asks the browser's AI (a Web Worker: the page stays responsive) for a move, then
   * draws it on the board (both squares and an arrow) and says it, with the line the
   * engine expects after it. */
  async showHint() {
    const s = this.state;
    if (!this.hintAllowed() || this.pending || this.hinting) return;
    const btn = this.$(".ask-hint");
    const after = s.moves.join(" ");
    this.hinting = true;
    this.renderBusy();
    btn.textContent = "Thinking…";
    try {
      // Seed 0: the same position always gets the same hint.
      const r = await ai.bestMove(s.start, s.moves, HINT_LEVEL, 0);
      if (this.destroyed || this.state.moves.join(" ") !== after || !r.move) return;
      const m = parseMove(r.move);
      let pos = parsePosition(s.position);
      const words = [];
      for (const mv of r.line.slice(0, HINT_LINE + 1)) {
        words.push(describeMove(pos, mv));
        pos = applyMove(pos, mv).pos;
      }
      const [first, ...rest] = words;
      const chance = Math.round(r.win * 100);
      const text = `Hint: ${first}.` + (rest.length ? ` Expected line: ${rest.join("; ")}.` : "") + ` Your chances: about ${chance}%.`;
      this.hint = { after, move: r.move, from: m.from, to: m.to, line: r.line, text, ms: r.ms };
      this.root.dataset.hintMs = String(Math.round(r.ms));
      this.renderPanel();
      this.draw();
    } catch (e) {
      this.msg(`No hint: ${e.message}`);
    } finally {
      this.hinting = false;
      this.renderBusy();
      btn.textContent = "Hint";
    }
  }

  /**
   * Whether the engine's analysis (Analyse game, the analysis board) is offered: for anyone
   * once the game is finished; before that only to the player of their own game against
   * the AI (they are only playing a machine). Never during a game with a human in it, to
   * its players or to its spectators (a spectator could pass it on).
   */
  analysisAllowed() {
    const s = this.state;
    if (!s) return false;
    if (s.status === "finished") return true;
    // Before the end only in the player's own casual AI game, where hints are allowed
    // too: a rated or story game is a test of the player, not of the browser's engine.
    const me = this.mySide;
    return !!me && !!(this.seat?.token || this.seat?.session) && s[other(me)].player === "ai" && s.mode === "ai" && !s.rated && !s.stage;
  }

  /** The analysis board in place of the game's board, from the position shown. */
  openBoard() {
    if (!this.analysisAllowed() || this.analysisBoard) return;
    const s = this.state;
    const host = this.$(".analysis-board-host");
    host.hidden = false;
    this.root.classList.add("analysing");
    this.sel = null;
    this.hideAbilityBar();
    this.analysisBoard = new AnalysisBoard(host, {
      game: { start: s.start, moves: s.moves },
      ply: this.viewPly ?? s.moves.length,
      flipped: this.isFlipped(),
      viewer: this.mySide,
      onBack: () => this.closeBoard(),
    });
    this.renderPanel();
    this.analysisBoard.focus();
  }

  /** "Back to game": the analysis board goes, the game's board shows the game again. */
  closeBoard() {
    this.analysisBoard?.destroy();
    this.analysisBoard = null;
    this.$(".analysis-board-host").hidden = true;
    this.root.classList.remove("analysing");
    this.renderPanel();
    this.draw();
    this.$(".open-board").focus();
    announce("Back to the game.");
  }

  /** Evaluates every position of the finished game with the browser's AI (a Web Worker:
   * the page stays responsive, a progress bar meanwhile), then draws the graph and classes
   * the moves. */
  async analyseGame() {
    const s = this.state;
    if (!this.analysisAllowed() || (this.analysis && !this.analysis.done)) return;
    const key = s.moves.join(" ");
    this.analysis = { key, done: false };
    this.renderPanel();
    const box = this.$(".analysis");
    const bar = this.$(".analysis-progress");
    box.hidden = false;
    bar.hidden = false;
    this.$(".analysis-note").textContent = "Analysing…";
    try {
      const evals = await analyse(s.start, s.moves, (done, total) => { bar.max = total; bar.value = done; });
      if (this.destroyed) return;
      if (this.state.moves.join(" ") !== key) {
        // A game against the AI moved on meanwhile: this analysis is of a past position,
        // dropped (Analyse game is offered again).
        this.analysis = null;
        box.hidden = true;
        this.renderPanel();
        return;
      }
      const turns = s.moves.map((_, k) => (this.history[k]?.pos.turn ?? (k % 2 ? "north" : "south")));
      this.analysis = { key, done: true, evals, verdicts: classify(evals, s.moves, turns) };
      bar.hidden = true;
      box.dataset.done = "true";
      this.draw();
    } catch (e) {
      this.analysis = null;
      box.hidden = true;
      this.renderPanel();
      this.msg(`The analysis failed: ${e.message}`);
    }
  }

  /** The analysis at position `ply`: South's chance there, and the verdict on the move
   * played from it with the engine's better move (null before an analysis). */
  analysisFor(ply) {
    const a = this.analysis;
    if (!a?.done || a.key !== this.state.moves.join(" ") || !a.evals[ply]) return null;
    const v = a.verdicts[ply];
    return { south: a.evals[ply].south, verdict: v, played: this.state.moves[ply], better: v?.cls ? a.evals[ply].move : null, line: a.evals[ply].line };
  }

  renderAnalysis(ply, at) {
    const a = this.analysis;
    if (!a?.done) return;
    // An analysis of fewer moves than the game now has (a game against the AI goes on):
    // its graph is put away; Analyse game is offered again.
    const stale = a.key !== this.state.moves.join(" ");
    this.$(".analysis").hidden = stale;
    if (stale) return;
    const g = this.$(".eval-graph");
    g.innerHTML = graphSVG(a.evals, a.verdicts, ply);
    if (!at) return;
    const pct = (p) => `${Math.round(p * 100)}%`;
    let text = `${ply ? `After move ${ply}` : "At the start"}: South's chance to win ${pct(at.south)}.`;
    if (at.better) {
      const pos = this.history[ply]?.pos;
      const v = at.verdict;
      const words = [];
      let p = pos;
      for (const mv of at.line.slice(0, 4)) { words.push(describeMove(p, mv)); p = applyMove(p, mv).pos; }
      text += ` Then ${SIDE[pos.turn]} played ${describeMove(pos, at.played)}: ${v.cls === "inaccuracy" ? "an" : "a"} ${v.cls} ` +
        `(their chance ${pct(v.before)} to ${pct(v.after)}). Better: ${words[0]}` + (words.length > 1 ? `, then ${words.slice(1).join("; ")}.` : ".");
    }
    const note = this.$(".analysis-note");
    note.textContent = text;
    note.dataset.ply = String(ply);
  }

  /** Undoes the player's last move and the AI's answer (the server replays the game without
   * them); the game is marked assisted. */
  async takeback() {
    if (this.pending || this.takingBack) return; // the move on its way first (renderBusy)
    this.takingBack = true;
    this.renderBusy();
    try {
      const r = await api.takeback(this.id, this.seat.token);
      this.setState(r.state);
      announce("Your last move and the AI's answer were taken back.");
    } catch (e) {
      if (e.state) this.setState(e.state);
      this.msg(e.message);
    } finally {
      this.takingBack = false;
      this.renderBusy();
    }
  }

  async exitStage() {
    const st = this.state.stage;
    if (!st) return;
    if (!(await confirmDialog("Exit Stage?", "This will reset the progress made during this stage of the story. Are you sure?", "Exit Stage", { danger: true }))) return;
    this.exiting = true; // the game now ends as a loss: no "Stage failed" modal for that
    const btn = this.$(".exit-stage");
    btn.disabled = true;
    try {
      await api.exitStage(st.story);
      navigate("/story");
    } catch (e) {
      this.exiting = false;
      btn.disabled = false;
      this.msg(`The stage could not be exited: ${e.message}`);
    }
  }

  async drawAction(action) {
    const texts = {
      offer: ["Offer a draw?", "Your opponent can accept or decline. Making a move declines their offer.", "Offer draw"],
      accept: ["Accept the draw?", "The game ends as a draw by agreement.", "Accept draw"],
    }[action];
    // Declining ends nothing (the game goes on; either side may offer again): one click,
    // no confirmation. Offering and accepting still ask.
    if (action !== "decline" && !(await confirmDialog(...texts))) return;
    try {
      const r = await api.draw(this.id, this.seat.token, action);
      this.setState(r.state);
      if (action === "offer" && r.state.status === "ongoing") toast("Draw offered.");
    } catch (e) {
      if (e.state) this.setState(e.state);
      this.msg(e.message);
    }
  }

  async copyRecord() {
    try {
      const text = await api.record(this.id);
      await copyText(text, "Game record copied");
    } catch (e) {
      this.msg(`The record could not be fetched: ${e.message}`);
    }
  }

  setConn(status) {
    const c = this.$?.(".conn");
    if (!c) return;
    c.className = `conn ${status}`;
    // Back online: the "not sent" message is out of date (the board shows the server's state).
    if (status === "live" && this.notSent) { this.notSent = false; this.clearMsg(); }
    c.textContent = { live: "● Live", connecting: "○ Connecting…", offline: "○ Offline: reconnecting…" }[status];
  }

  msg(text) {
    const m = this.$(".msg");
    m.hidden = false;
    m.textContent = text;
  }
  clearMsg() { const m = this.$(".msg"); if (m) { m.hidden = true; m.textContent = ""; m.className = "msg"; } }
}

const esc = (t) => String(t).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

/**
 * A move in plain words for the move list: the piece's picture and e.g. "Axe g9–g8, Slash",
 * "Dial c1–c2, Recall Sword g2 → c2", "Sabres c3–f6 takes Cog".
 */
export function moveWords(pos, moveText) {
  const mv = parseMove(moveText);
  const p = pos.board[idx(mv.from)];
  const t = pos.board[idx(mv.to)];
  const at = (s) => pos.board[idx(s)];
  let text = `${p ? p.name : "Piece"} ${mv.from}–${mv.to}`;
  if (t && p && t.side !== p.side) text += ` takes ${t.name}`;
  const a = mv.ability;
  if (a) {
    const name = ABILITY_NAMES[a.kind] || a.kind;
    const tp = a.target ? at(a.target) : null;
    if (a.kind === "recall") text += `, ${name} ${tp ? tp.name + " " : ""}${a.target} → ${a.dest}`;
    else if (a.kind === "sidestep") text += `, ${name} to ${a.target}`;
    else if (a.target) text += `, ${name} ${tp && a.kind !== "sidestep" ? tp.name + " " : ""}${a.target}`;
    else text += `, ${name}`;
  }
  return { side: p?.side || null, text, icon: p ? pieceSVG({ ...p, charged: false }, { title: false }).replace('role="img"', 'aria-hidden="true"').replace(/ aria-label="[^"]*"/, "") : "" };
}

/** How many moves `a` and `b` share from the start. */
function commonStart(a, b) {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/** Whether game state `s` holds the move request `req` (its move, played after its moves). */
function madeIn(s, req) {
  const n = req.before.length;
  return s.moves.length > n && s.moves[n] === req.move && commonStart(s.moves, req.before) === n;
}

/** `request(signal)`, given up after REQUEST_TIMEOUT_MS (an ApiError "timeout"). */
async function bounded(request) {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(new DOMException("The server did not answer in time.", "TimeoutError")), REQUEST_TIMEOUT_MS);
  try {
    return await request(ctrl.signal);
  } finally {
    clearTimeout(timer);
  }
}

function formatOk(pos, text) {
  try {
    const a = parsePosition(text);
    return a.board.every((p, i) => {
      const q = pos.board[i];
      return (!p && !q) || (p && q && p.side === q.side && p.letter === q.letter && p.charged === q.charged);
    });
  } catch { return false; }
}

function fmtLeft(ms) {
  const m = Math.floor(ms / 60000);
  const d = Math.floor(m / 1440);
  const h = Math.floor((m % 1440) / 60);
  if (d) return `${d} d ${h} h`;
  if (h) return `${h} h ${m % 60} min`;
  if (m) return `${m} min`;
  return `${Math.ceil(ms / 1000)} s`;
}

