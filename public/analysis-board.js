// The analysis board (issue 31): from a position of a game, the player tries other moves
// (a variation) and sees, for the position reached, the engine's evaluation (South's
// chance to win) and its best line, as arrows on the board (the first move strongest) and
// in words. It never touches the server's game: the legal moves and their effects are the
// browser's engine (notation.js, the server's rules compiled to wasm), the evaluation the
// browser's AI (ai.js, in a Web Worker). Used by the game screen (game.js: a finished
// game, or one's own game against the AI) and the imported record's page (record.js);
// which games may have it is theirs to decide, never this module's.
import { BoardView } from "./board.js";
import { applyMove, describeMove, idx, legalMoves, parseMove, previewBase, replay } from "./notation.js";
import { abilityChoice, pickAbilityTarget, recallSelection, abilityPrompt, fillAbilityBar, clearAbilityBar } from "./ability-choice.js";
import { pieceTip } from "./piece-tip.js";
import * as ai from "./ai.js";
import { ANALYSIS_LEVEL } from "./analysis.js";
import { announce, h } from "./ui.js";

/** Moves of the engine's line drawn as arrows, and said in words (the move first). */
const LINE_PLIES = 4;
const SIDE = { south: "South", north: "North" };
const pct = (p) => `${Math.round(p * 100)}%`;

let boards = 0;

export class AnalysisBoard {
  /**
   * host: the element it fills. game: {start (IAPN), moves (IAMN)}, the game's own line;
   * ply: the game's position it starts from; flipped: North at the bottom; viewer: the
   * side whose pieces' tips speak as "yours" (null for none); nav: its own buttons to step
   * through the game's positions (the record's page; the game screen has its move list);
   * onBack: what "Back to game" does besides dropping the variation (the game screen
   * closes the board); onBase(ply): told when the game's position shown changes.
   */
  constructor(host, { game, ply, flipped = false, viewer = null, nav = false, onBack = null, onBase = null }) {
    this.host = host;
    this.onBack = onBack;
    this.onBase = onBase;
    this.viewer = viewer;
    this.variation = []; // [{move, pos, effects}] played from the game's position `ply`
    this.sel = null;
    this.token = 0; // the evaluation asked last: older answers are dropped
    const n = ++boards;
    this.root = h("section", { class: "analysis-board", "aria-labelledby": `ab-h-${n}` },
      h("div", { class: "ab-head" },
        h("h2", { id: `ab-h-${n}`, text: "Analysis board" }),
        nav ? h("div", { class: "ab-nav", role: "group", "aria-label": "Game positions" },
          ...[["first", "«", "First position of the game"], ["prev", "‹", "Previous move of the game"],
            ["next", "›", "Next move of the game"], ["last", "»", "Last position of the game"]]
            .map(([k, t, label]) => h("button", { type: "button", class: "icon", dataset: { nav: k }, "aria-label": label, text: t }))) : null),
      h("p", { class: "ab-where muted small" }),
      h("div", { class: "ab-board-host" }),
      h("div", { class: "ability-bar", role: "region", "aria-label": "Ability choice", hidden: true }),
      h("p", { class: "ab-eval", "aria-live": "polite" }),
      h("ol", { class: "ab-variation", "aria-label": "Moves tried" }),
      h("div", { class: "row ab-actions" },
        h("button", { type: "button", class: "ab-undo", text: "Take back tried move" }),
        h("button", { type: "button", class: "primary ab-back", text: "Back to game" })));
    host.replaceChildren(this.root);
    this.$ = (s) => this.root.querySelector(s);
    this.board = new BoardView(this.$(".ab-board-host"), {
      onActivate: (sq, how) => this.activate(sq, how),
      onDrop: (a, b) => this.drop(a, b),
      onCancel: () => this.cancel(),
      describe: (sq) => pieceTip(this.board.pos, sq, this.viewer),
    });
    // Its own name: the game's board may be on the page too.
    this.board.grid.setAttribute("aria-label", "Analysis board");
    this.board.setFlipped(flipped);
    this.$(".ab-undo").addEventListener("click", () => this.undo());
    this.$(".ab-back").addEventListener("click", () => this.back());
    this.$(".ab-nav")?.addEventListener("click", (e) => {
      const b = e.target.closest("button");
      if (!b) return;
      const last = this.game.moves.length;
      this.setBase({ first: 0, prev: this.ply - 1, next: this.ply + 1, last }[b.dataset.nav]);
    });
    this.setGame(game, ply);
  }

  destroy() {
    this.destroyed = true;
    this.board.destroy();
    this.root.remove();
  }

  /** The game's line (again: the game may have moved on) and the position to start from;
   * a variation is kept while its starting position is still the game's. */
  setGame(game, ply = this.ply) {
    const same = this.game && this.game.start === game.start && game.moves.slice(0, ply).join(" ") === this.game.moves.slice(0, ply).join(" ");
    this.game = { start: game.start, moves: [...game.moves] };
    this.history = replay(game.start, game.moves);
    if (same && ply === this.ply) { this.update(false); return; }
    this.setBase(ply);
  }

  /** Shows the game's position `ply` (the variation dropped). */
  setBase(ply) {
    this.ply = Math.max(0, Math.min(this.history.length - 1, ply));
    this.variation = [];
    this.sel = null;
    this.hideAbilityBar();
    this.update();
    this.onBase?.(this.ply);
  }

  /** The position on the board: the game's at `ply`, then the moves tried. */
  get pos() { return (this.variation.at(-1) ?? this.history[this.ply]).pos; }
  get legal() { return this.pos.outcome ? [] : legalMoves(this.pos); }

  /** Every move from the game's start to the position shown (the AI judges repetitions by them). */
  allMoves() { return [...this.game.moves.slice(0, this.ply), ...this.variation.map((v) => v.move)]; }

  /** Redraws, and asks the engine about the position shown (unless `evaluate` is false). */
  update(evaluate = true) {
    const r = this.root;
    r.dataset.ply = String(this.ply);
    r.dataset.variation = this.variation.map((v) => v.move).join(" ");
    r.dataset.position = this.pos.text;
    const n = this.game.moves.length;
    const where = this.ply === 0 ? "the game's starting position" : `the position after move ${this.ply} of ${n}`;
    this.$(".ab-where").textContent = this.variation.length
      ? `Moves tried from ${where}. ${SIDE[this.pos.turn]} to move.`
      : `Showing ${where}: ${SIDE[this.pos.turn]} to move. Play any legal move for either side to try it.`;
    const list = this.$(".ab-variation");
    list.replaceChildren(...this.variation.map((v, i) => h("li", { text: describeMove(i ? this.variation[i - 1].pos : this.history[this.ply].pos, v.move) })));
    list.hidden = !this.variation.length;
    this.$(".ab-undo").hidden = !this.variation.length;
    for (const b of this.root.querySelectorAll(".ab-nav button")) {
      b.disabled = b.dataset.nav === "first" || b.dataset.nav === "prev" ? this.ply === 0 : this.ply === n;
    }
    if (evaluate) this.evaluate();
    this.draw();
  }

  /** The engine's verdict on the position shown: asked once per position (a new position
   * makes an answer still on its way stale). */
  async evaluate() {
    const token = ++this.token;
    const box = this.$(".ab-eval");
    this.eval = null;
    const pos = this.pos;
    if (pos.outcome) {
      box.dataset.state = "over";
      box.textContent = `The game is over here: ${pos.outcome.text}.`;
      return;
    }
    box.dataset.state = "thinking";
    box.textContent = "The engine is thinking…";
    try {
      const r = await ai.evaluate(this.game.start, this.allMoves(), ANALYSIS_LEVEL);
      if (token !== this.token || this.destroyed) return;
      const line = (r.line || []).slice(0, LINE_PLIES);
      const words = [];
      let p = pos;
      for (const mv of line) { words.push(describeMove(p, mv)); p = applyMove(p, mv).pos; }
      this.eval = { south: r.south, line };
      box.dataset.line = line.join(" ");
      box.dataset.state = "done";
      box.textContent = `South's chance to win: ${pct(r.south)}.` +
        (words.length ? ` Best line: ${words[0]}${words.length > 1 ? `, then ${words.slice(1).join("; ")}` : ""}.` : "");
      this.draw();
    } catch (e) {
      if (token !== this.token || this.destroyed) return;
      box.dataset.state = "error";
      box.textContent = `The engine could not evaluate this position: ${e.message}`;
    }
  }

  draw() {
    let pos = this.pos;
    const last = this.variation.at(-1)?.effects ?? (this.variation.length ? null : this.history[this.ply].effects);
    const marks = { canPick: new Set(this.legal.map((m) => m.slice(0, 2))) };
    if (last) {
      marks.last = [last.from, last.landed];
      marks.destroyed = new Set([...(last.destroyed || []), ...(last.captured || []).filter((c) => c !== last.landed)]);
      marks.moved = new Set((last.moved || []).map((m) => m[1]));
      marks.movedFrom = new Set((last.moved || []).map((m) => m[0]));
    }
    const sel = this.sel;
    if (sel?.stage === "piece") {
      marks.selected = sel.from;
      marks.targets = new Set(this.legal.filter((m) => m.startsWith(sel.from)).map((m) => m.slice(2, 4)));
    } else if (sel) {
      pos = previewBase(pos, sel.base).pos;
      marks.selected = sel.landed;
      marks.preview = new Set([sel.landed]);
      marks.last = [sel.from, sel.landed];
      marks.destroyed = new Set();
      marks.moved = new Set();
      marks.abilityTargets = new Set(sel.stage === "recall" ? sel.dests.map((d) => d.square) : sel.options.flatMap((o) => o.squares));
    }
    // The engine's line, while nothing is being picked (its arrows would hide the choice).
    if (this.eval && !sel) marks.line = this.eval.line.map((mv) => { const m = parseMove(mv); return [m.from, m.to]; });
    this.board.render(pos, marks);
    this.root.dataset.arrows = String(marks.line?.length ?? 0);
  }

  // --- input: any side's legal move (the player explores both); an ability in two steps

  activate(square, how) {
    const sel = this.sel;
    if (sel?.stage === "ability") {
      const pick = pickAbilityTarget(sel, square);
      if (pick.move) this.play(pick.move);
      else if (pick.recall) this.startRecall(pick.recall);
      else if (pick.cancel) this.cancel();
      else announce("Choose a highlighted square, Skip, or Cancel.");
      return;
    }
    if (sel?.stage === "recall") {
      const d = sel.dests.find((o) => o.square === square);
      if (d) this.play(d.move); else announce("Choose one of the highlighted starting squares.");
      return;
    }
    const legal = this.legal;
    if (sel?.stage === "piece") {
      if (square === sel.from && how !== "drag") { this.cancel(); return; }
      if (legal.some((m) => m.startsWith(sel.from + square))) { this.chooseBase(sel.from + square); return; }
    }
    const from = legal.filter((m) => m.startsWith(square));
    if (!from.length) {
      this.sel = null;
      this.draw();
      if (how !== "drag") this.board.showTipFor(square);
      return;
    }
    this.sel = { stage: "piece", from: square };
    const n = new Set(from.map((m) => m.slice(2, 4))).size;
    announce(`${this.pos.board[idx(square)].name} selected: ${n} destination${n === 1 ? "" : "s"}.`);
    this.draw();
  }

  drop(from, to) {
    if (this.legal.some((m) => m.startsWith(from + to))) this.chooseBase(from + to);
    else { this.sel = { stage: "piece", from }; this.draw(); }
  }

  cancel() {
    if (!this.sel) return;
    this.sel = null;
    this.hideAbilityBar();
    this.draw();
    announce("Selection cleared.");
  }

  chooseBase(base) {
    const choice = abilityChoice(this.pos, this.legal, base);
    if (!choice) { this.play(base); return; }
    this.sel = choice;
    this.showAbilityBar();
    this.draw();
    announce(abilityPrompt(choice));
  }

  startRecall(target) {
    this.sel = recallSelection(this.sel, target);
    this.showAbilityBar();
    this.draw();
    announce(`Recall ${target}: choose its destination.`);
  }

  showAbilityBar() {
    const bar = this.$(".ability-bar");
    fillAbilityBar(bar, this.sel, { play: (m) => this.play(m), recall: (t) => this.startRecall(t), cancel: () => this.cancel() });
    bar.querySelector("button")?.focus({ preventScroll: true });
  }

  hideAbilityBar() {
    // The keyboard's place is not lost with the buttons: back to the board.
    clearAbilityBar(this.$(".ability-bar"), this.board);
  }

  /** Plays a legal move of the position shown on the board only. The position reached is
   * the game's whole line replayed (the game's moves to `ply`, the moves tried, this one):
   * applyMove knows the position alone, so it would miss a third repetition, which loses
   * for the side that made it (RULES), and offer moves in a game that is over. */
  play(move) {
    const before = this.pos;
    const line = [...this.allMoves(), move];
    const steps = replay(this.game.start, line);
    // A replay stops short only at a move that is not legal: applyMove says why.
    const { pos, effects } = steps.length === line.length + 1 ? steps.at(-1) : applyMove(before, move);
    this.sel = null;
    this.hideAbilityBar();
    this.variation.push({ move, pos, effects });
    announce(`Tried: ${describeMove(before, move)}.`);
    this.update();
  }

  undo() {
    if (!this.variation.length) return;
    this.variation.pop();
    this.sel = null;
    this.hideAbilityBar();
    this.update();
    if (!this.variation.length) this.board.setFocus(this.board.focusSq);
  }

  /** "Back to game": the moves tried are dropped; the page decides what else happens. */
  back() {
    this.variation = [];
    this.sel = null;
    this.hideAbilityBar();
    if (this.onBack) { this.onBack(); return; }
    this.update();
    announce("Back to the game's position.");
  }

  /** The keyboard's place: the board's focused square. */
  focus() { this.board.setFocus(this.board.focusSq); }
}
