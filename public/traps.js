// The rules' traps shown before they bite (issue 34): there is no check in this game, a
// third repetition loses for the player who makes it, and ply 160 ends the game in a draw.
// So the board marks the player's king-piece when the opponent could take it (or win
// otherwise) on its next move, with a line in the status; a move that would repeat a
// position for the third time asks first; the draw is announced ten moves ahead.
// The engine decides each of them (notation.js: threats, repetitionLosses, PLY_LIMIT);
// this module only words and shows them. One setting hides them all (remembered in this
// browser), as Lichess lets players hide the legal-move dots.
import { threats, repetitionLosses, PLY_LIMIT, idx } from "./notation.js";
import { confirmDialog } from "./modals.js";
import { h } from "./ui.js";

const KEY = "ironarena.warnings.v1";
const SIDE = { south: "South", north: "North" };
const other = (s) => (s === "south" ? "north" : "south");
const plain = (name) => name.replace(/^The /, "");
/** How many moves (plies) ahead the draw at the ply limit is announced. */
export const DRAW_NOTICE = 10;

export const warnings = {
  get on() {
    try { return localStorage.getItem(KEY) !== "off"; } catch { return true; }
  },
  set on(v) {
    try { localStorage.setItem(KEY, v ? "on" : "off"); } catch { /* private mode: this page only */ }
  },
};

/** The setting's checkbox; `onChange` redraws the game. */
export function warningsToggle(onChange) {
  const input = h("input", { type: "checkbox", class: "warnings-toggle" });
  input.checked = warnings.on;
  input.addEventListener("change", () => { warnings.on = input.checked; onChange(); });
  return h("label", { class: "warnings-setting" }, input, ` Show warnings: king-piece in danger, losing repetition, draw at move ${PLY_LIMIT}`);
}

let memo = { key: null, value: null };

/**
 * The threats to `mySide` on the position `pos` (the board as shown): {king, from: Set of
 * the attackers' squares, line: the status text or ""}; null when there is none.
 */
export function kingThreat(pos, mySide) {
  if (!mySide || pos.outcome) return null;
  const key = `${pos.text}|${mySide}`;
  if (memo.key !== key) {
    let t = null;
    try { t = threats(pos, mySide); } catch { t = null; }
    memo = { key, value: t && t.threats.length ? t : null };
  }
  const t = memo.value;
  if (!t) return null;
  const byReason = (r) => t.threats.filter((x) => x.reason === r);
  const who = (x) => `${x.piece} ${x.from}${x.ability ? ` (${x.ability[0].toUpperCase()}${x.ability.slice(1)})` : ""}`;
  const king = t.king ? pos.board[idx(t.king)] : null;
  const lines = [];
  const taken = byReason("king destroyed");
  if (taken.length && king) lines.push(`Your ${plain(king.name)} can be taken: ${taken.map(who).join(", ")}.`);
  const timeout = byReason("timeout");
  if (timeout.length) lines.push(`${SIDE[other(mySide)]} can win next move with Timeout: ${timeout.map(who).join(", ")} reaches its end row.`);
  const stuck = byReason("no legal moves");
  if (stuck.length) lines.push(`A move of ${stuck.map(who).join(", ")} would leave you without a legal move, which loses.`);
  return { king: taken.length ? t.king : null, from: new Set(t.threats.map((x) => x.from)), line: lines.join(" ") };
}

/** "Ply 160 ends the game in a draw: 7 plies left, …" from ten plies before; else "". */
export function drawNotice(pos) {
  const left = PLY_LIMIT - pos.ply;
  if (pos.outcome || left <= 0 || left > DRAW_NOTICE) return "";
  // In plies, as the rules count them and the move list numbers them (My games counts full
  // moves, so "moves" here would say a different number for the same game).
  return `Ply ${PLY_LIMIT} ends the game in a draw: ${left} ${left === 1 ? "ply" : "plies"} left, counting both players' moves.`;
}

/** The moves of the game's current position that would lose by a third repetition. */
export class RepetitionGuard {
  constructor() { this.key = null; this.set = new Set(); }

  /** The losing moves of `state` (the server's game state), computed once per position. */
  losses(state) {
    const key = `${state.id}|${state.moves.length}|${state.status}`;
    if (this.key !== key) {
      this.key = key;
      try { this.set = state.status === "ongoing" ? new Set(repetitionLosses(state.start, state.moves)) : new Set(); } catch { this.set = new Set(); }
    }
    return this.set;
  }

  /** Asks before `move` when it loses by repetition; true when it may be sent. */
  async confirm(state, move) {
    if (!warnings.on || !this.losses(state).has(move)) return true;
    return confirmDialog("This move loses the game",
      "It repeats a position for the third time. In Iron Arena a third repetition is not a draw: the player who makes it loses.",
      "Play it and lose", { danger: true });
  }
}
