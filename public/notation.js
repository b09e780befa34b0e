// Iron Arena notation for the browser: IAPN positions (spec §7), IAMN moves (spec §8),
// the piece tables (names and descriptions for the screens), and the rules themselves
// from the engine the server runs: crates/engine compiled to wasm (crates/engine-wasm,
// built into public/engine/ by scripts/build-web-engine.sh). Positions, legal moves,
// move application with what each move changed (captures, abilities, detonations) and
// outcomes all come from there; this module holds no rule of its own. The client still
// never decides: what it shows after a move is the server's state.
// No DOM; also imported by the Node tests (which load the wasm from disk).
import init, * as engine from "./engine/engine_wasm.js";

const WASM = new URL("./engine/engine_wasm_bg.wasm", import.meta.url);
if (WASM.protocol === "file:") {
  const { readFileSync } = await import("node:fs");
  engine.initSync({ module: readFileSync(WASM) });
} else {
  await init({ module_or_path: WASM });
}

/** Calls the engine; its errors (plain strings) become Errors. */
function call(fn, ...args) {
  try {
    return fn(...args);
  } catch (e) {
    throw e instanceof Error ? e : new Error(String(e));
  }
}

export const FILES = "abcdefghi";
export const FACTIONS = ["clockwork", "blades", "axiom"];
export const FACTION_NAMES = { clockwork: "Clockwork", blades: "Blades", axiom: "Axiom" };

// Piece types per faction, keyed by the (uppercase) IAPN letter: every text about a piece
// lives here (the home page's lists, the rules' pictures, the piece tips on the board).
// desc: how it moves and its special, in one or two sentences; ability: the kind (IAMN)
// of the ability it may use after moving; charge: what a charge gives it (the four
// chargeable types). What a piece can do where it stands is the engine's (pieceFacts).
export const PIECES = {
  clockwork: {
    C: { type: "cog", name: "Cog", desc: "Steps diagonally forward; charged, also diagonally back. Merges with a Cog into a Gear; becomes a Gear on the end row.",
      charge: "Charged, it may also step diagonally backwards." },
    G: { type: "gear", name: "Gear", desc: "Steps one square in any direction. Made from Cogs." },
    P: { type: "pendulum", name: "Pendulum", desc: "Steps in any direction, or slides any distance sideways." },
    S: { type: "spring", name: "Spring", desc: "Steps in any direction. Recoil: slides as far as possible away from an empty square behind it." },
    H: { type: "hands", name: "Hands", desc: "Slides 1 to 4 squares along any line." },
    D: { type: "dial", name: "Dial", desc: "Steps orthogonally. Recall: then sends an enemy in its line of sight back to its starting square.", ability: "recall" },
    F: { type: "fathertime", name: "Father Time", desc: "King. Steps diagonally forward or 1–2 squares forward. Timeout: wins on reaching the end row.", king: true },
  },
  blades: {
    D: { type: "dagger", name: "Dagger", desc: "Moves 1–2 forward or 1 sideways. Stab: captures 1–2 away, then retreats. Assassinate on the end row.", ability: "assassinate",
      charge: "Charged, it may also move and stab 1 square diagonally forward." },
    A: { type: "axe", name: "Axe", desc: "Steps orthogonally. Slash: then destroys every piece on the three squares ahead.", ability: "slash" },
    K: { type: "sickle", name: "Sickle", desc: "Leaps 1 square then 2 or 3 at a right angle, over anything." },
    B: { type: "sabres", name: "Sabres", desc: "Slides 1 to 5 squares diagonally." },
    W: { type: "sword", name: "Sword", desc: "Slides 1 to 5 squares orthogonally." },
    M: { type: "mistress", name: "The Mistress", desc: "King. Steps in any direction. Charged: may Sidestep one more square after a capture.", king: true, ability: "sidestep",
      charge: "Charged, she may Sidestep one more square after a capture." },
  },
  axiom: {
    P: { type: "phial", name: "Phial", desc: "Moves 1–2 forward; charged, also 1 sideways. Detonates on the end row, destroying all within 3 squares.",
      charge: "Charged, it may also move 1 square sideways." },
    M: { type: "magnet", name: "Magnet", desc: "Steps in any direction. Attract: then pulls a piece in its line of sight next to it.", ability: "attract" },
    T: { type: "torch", name: "Torch", desc: "Steps in any direction. Burn: then destroys one adjacent enemy.", ability: "burn" },
    B: { type: "scales", name: "Scales", desc: "Slides orthogonally to empty squares. Captures only by leaping over exactly one piece." },
    L: { type: "telescope", name: "Telescope", desc: "Slides 3 or more squares along any line." },
    S: { type: "scientist", name: "The Scientist", desc: "King. Steps orthogonally to an empty square. Never captures.", king: true },
  },
};

/** How a piece gets its charge (docs/rules.md §5), for the pieces that can carry one. */
export const CHARGE_HELP = "Its own move ending on the Electric Field (rank 5) charges it, for good.";

/** What each ability does, after its name ("Burn: destroys …"), for the ability choice. */
export const ABILITY_HELP = {
  slash: "destroys every piece on the three squares ahead of the Axe (yours too).",
  burn: "destroys one enemy piece next to the Torch.",
  attract: "pulls a piece in the Magnet's line of sight next to it.",
  recall: "sends an enemy piece in the Dial's line of sight back to a starting square.",
  sidestep: "one more step to an empty square.",
  assassinate: "destroys any one enemy piece (the king-piece only when it is the last one left).",
};

export const FACTION_TAGLINES = {
  clockwork: "Patient machinery: Cogs merge into Gears, the Dial recalls, Father Time can win by reaching the far row.",
  blades: "Close-quarters killers: Daggers stab and assassinate, Axes slash, The Mistress sidesteps.",
  axiom: "Science at range: Magnets pull, Torches burn, Phials detonate on the far row.",
};

// Setup order used for listings (the king last, the Gear after the Cog).
export const PIECE_ORDER = {
  clockwork: ["C", "G", "P", "S", "H", "D", "F"],
  blades: ["D", "A", "K", "B", "W", "M"],
  axiom: ["P", "M", "T", "B", "L", "S"],
};

export function sq(name) {
  // "e4" -> {f: 4, r: 3} (0-based file and rank)
  return { f: FILES.indexOf(name[0]), r: Number(name[1]) - 1 };
}
export function sqName(f, r) {
  return FILES[f] + (r + 1);
}
export function idx(name) {
  const s = sq(name);
  return s.r * 9 + s.f;
}
export function nameOf(i) {
  return sqName(i % 9, Math.floor(i / 9));
}

/**
 * Parse IAPN into {text (canonical IAPN), south, north, board[81] (index r*9+f, rank 1
 * first; a piece is {side, letter (uppercase), type, name, king, charged}), turn, ply,
 * outcome (null or {winner, reason, text})}. Throws on invalid IAPN.
 */
export function parsePosition(text) {
  return JSON.parse(call(engine.position, text.trim()));
}

/** Serialise back to IAPN. */
export function formatPosition(pos) {
  return pos.text;
}

/** Every legal move of a position in IAMN (none once the game is over). */
export function legalMoves(pos) {
  return call(engine.legalMoves, pos.text);
}

/** Split IAMN into {text, from, to, base, ability: null|{kind, target, dest}} (syntax only). */
export function parseMove(text) {
  return JSON.parse(call(engine.parseMove, text));
}

export const ABILITY_NAMES = {
  recall: "Recall", slash: "Slash", attract: "Attract", burn: "Burn", sidestep: "Sidestep", assassinate: "Assassinate",
};

/**
 * Apply a legal move (the engine checks it and throws if it is not). Returns {pos,
 * effects}: effects say what happened, for highlighting, animation and sounds: {from,
 * to, landed (where the mover ended), captured: [sq], destroyed: [sq] (abilities,
 * detonation), moved: [[from, to]] (attracted or recalled pieces), ability, merged,
 * promoted, detonated}. The outcome on `pos` ignores repetition (`replay` counts it).
 */
export function applyMove(position, moveText) {
  const r = JSON.parse(call(engine.applyMove, position.text, moveText));
  return { pos: r.position, effects: r.effects };
}

/** The position after a base move ("e4e5") alone, before its ability is chosen: {pos, effects}. */
export function previewBase(position, base) {
  const r = JSON.parse(call(engine.previewBase, position.text, base));
  return { pos: r.position, effects: r.effects };
}

/** Positions after each ply: [start, after move 1, ...] as {pos, effects}; stops (returns partial) on error. */
export function replay(startText, moves) {
  const r = JSON.parse(call(engine.replay, startText.trim(), moves));
  if (r.error) console.warn("replay stopped:", r.error);
  return r.steps.map((s) => ({ pos: s.position, effects: s.effects }));
}

/**
 * How the opponent of `side` could win on its next move, from the position as if it
 * were its turn: {king: square|null, threats: [{move, from, piece, ability, reason}]}
 * (reason: "king destroyed", "timeout" or "no legal moves"). The engine's legal moves.
 */
export function threats(position, side) {
  return JSON.parse(call(engine.threats, position.text, side));
}

/** The legal moves of the game (`moves` from `startText`) that would lose by a third repetition. */
export function repetitionLosses(startText, moves) {
  return call(engine.repetitionLosses, startText.trim(), moves);
}

/** The ply at which the game is drawn (160). */
export const PLY_LIMIT = engine.plyLimit();

/**
 * What the piece on `square` can do, as if its side were to move: {square, piece, to_move,
 * chargeable, moves, destinations, captures, abilities: [{kind, targets}], charges, merges,
 * promotes, detonates, wins (IAMN), blocked (null, "game_over", "own_king", "own_pieces",
 * "pieces", "movement"), blockers}.
 */
export function pieceFacts(position, square) {
  return JSON.parse(call(engine.pieceFacts, position.text, square));
}

/** Describe a move in words, for screen readers and the move list's titles. */
export function describeMove(pos, moveText) {
  const mv = parseMove(moveText);
  const p = pos.board[idx(mv.from)];
  const t = pos.board[idx(mv.to)];
  let s = `${p ? p.name : "piece"} ${mv.from} to ${mv.to}`;
  if (t && p && t.side !== p.side) s = `${p.name} ${mv.from} takes ${t.name} on ${mv.to}`;
  if (mv.ability) {
    const a = ABILITY_NAMES[mv.ability.kind] || mv.ability.kind;
    if (mv.ability.kind === "recall") s += `, ${a} ${mv.ability.target} to ${mv.ability.dest}`;
    else if (mv.ability.target) s += `, ${a} ${mv.ability.target}`;
    else s += `, ${a}`;
  }
  return s;
}

/**
 * Whether `moveText` from `position` reaches a lesson step's goal, `check` (lessons.json: a
 * line of facts such as "from=e3 ability=slash capture=d5,e5,f5", judged by the engine:
 * crates/engine-wasm/src/lessons.rs). Throws when the move is not legal there.
 */
export function lessonGoal(position, moveText, check) {
  return call(engine.lessonGoal, position.text, moveText, check);
}
