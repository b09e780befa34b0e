// Iron Arena notation for the browser: IAPN positions (spec §7), IAMN moves (spec §8),
// the piece tables, and `applyMove`, which applies a move the SERVER already accepted to a
// position so the client can draw every earlier position (replay) and animate moves.
// It never decides legality: legal moves always come from the server's `legal_moves`.
// Pure module (no DOM), also imported by the Node tests.

export const FILES = "abcdefghi";
export const FACTIONS = ["clockwork", "blades", "axiom"];
export const FACTION_NAMES = { clockwork: "Clockwork", blades: "Blades", axiom: "Axiom" };

// Piece types per faction, keyed by the (uppercase) IAPN letter.
export const PIECES = {
  clockwork: {
    C: { type: "cog", name: "Cog", desc: "Steps diagonally forward; charged, also diagonally back. Merges with a Cog into a Gear; becomes a Gear on the end row." },
    G: { type: "gear", name: "Gear", desc: "Steps one square in any direction. Made from Cogs." },
    P: { type: "pendulum", name: "Pendulum", desc: "Steps in any direction, or slides any distance sideways." },
    S: { type: "spring", name: "Spring", desc: "Steps in any direction. Recoil: slides as far as possible away from an empty square behind it." },
    H: { type: "hands", name: "Hands", desc: "Slides 1 to 4 squares along any line." },
    D: { type: "dial", name: "Dial", desc: "Steps orthogonally. Recall: then sends an enemy in its line of sight back to its starting square." },
    F: { type: "fathertime", name: "Father Time", desc: "King. Steps diagonally forward or 1–2 squares forward. Timeout: wins on reaching the end row.", king: true },
  },
  blades: {
    D: { type: "dagger", name: "Dagger", desc: "Moves 1–2 forward or 1 sideways. Stab: captures 1–2 away, then retreats. Assassinate on the end row." },
    A: { type: "axe", name: "Axe", desc: "Steps orthogonally. Slash: then destroys every piece on the three squares ahead." },
    K: { type: "sickle", name: "Sickle", desc: "Leaps 1 square then 2 or 3 at a right angle, over anything." },
    B: { type: "sabres", name: "Sabres", desc: "Slides 1 to 5 squares diagonally." },
    W: { type: "sword", name: "Sword", desc: "Slides 1 to 5 squares orthogonally." },
    M: { type: "mistress", name: "The Mistress", desc: "King. Steps in any direction. Charged: may Sidestep one more square after a capture.", king: true },
  },
  axiom: {
    P: { type: "phial", name: "Phial", desc: "Moves 1–2 forward; charged, also 1 sideways. Detonates on the end row, destroying all within 3 squares." },
    M: { type: "magnet", name: "Magnet", desc: "Steps in any direction. Attract: then pulls a piece in its line of sight next to it." },
    T: { type: "torch", name: "Torch", desc: "Steps in any direction. Burn: then destroys one adjacent enemy." },
    B: { type: "scales", name: "Scales", desc: "Slides orthogonally to empty squares. Captures only by leaping over exactly one piece." },
    L: { type: "telescope", name: "Telescope", desc: "Slides 3 or more squares along any line." },
    S: { type: "scientist", name: "The Scientist", desc: "King. Steps orthogonally to an empty square. Never captures.", king: true },
  },
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

const CHARGEABLE = new Set(["cog", "dagger", "phial", "mistress"]);

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

// A piece on the board: {side: "south"|"north", letter: "C" (uppercase), type, name, king, charged}
function makePiece(faction, side, letter, charged = false) {
  const info = PIECES[faction][letter];
  if (!info) throw new Error(`unknown piece letter ${letter} for ${faction}`);
  return { side, letter, type: info.type, name: info.name, king: !!info.king, charged };
}

/** Parse IAPN into {south, north, board[81] (index r*9+f, rank 1 first), turn, ply}. */
export function parsePosition(text) {
  const parts = text.trim().split(" ");
  if (parts.length !== 6) throw new Error("IAPN needs six fields");
  const [south, north, boardText, stm, charged, ply] = parts;
  if (!PIECES[south] || !PIECES[north]) throw new Error("unknown faction");
  const ranks = boardText.split("/");
  if (ranks.length !== 9) throw new Error("IAPN board needs 9 ranks");
  const board = new Array(81).fill(null);
  ranks.forEach((row, i) => {
    const r = 8 - i;
    let f = 0;
    for (const ch of row) {
      if (/[1-9]/.test(ch)) { f += Number(ch); continue; }
      const isSouth = ch === ch.toUpperCase();
      const faction = isSouth ? south : north;
      board[r * 9 + f] = makePiece(faction, isSouth ? "south" : "north", ch.toUpperCase());
      f += 1;
    }
    if (f !== 9) throw new Error(`rank ${r + 1} is not 9 squares wide`);
  });
  if (charged !== "-") {
    for (const s of charged.split(",")) {
      const p = board[idx(s)];
      if (p) p.charged = true;
    }
  }
  return { south, north, board, turn: stm === "s" ? "south" : "north", ply: Number(ply) };
}

/** Serialise back to IAPN (used to check the client's replay against the server). */
export function formatPosition(pos) {
  const rows = [];
  const charged = [];
  for (let r = 8; r >= 0; r--) {
    let row = "";
    let empty = 0;
    for (let f = 0; f < 9; f++) {
      const p = pos.board[r * 9 + f];
      if (!p) { empty++; continue; }
      if (empty) { row += empty; empty = 0; }
      row += p.side === "south" ? p.letter : p.letter.toLowerCase();
      if (p.charged) charged.push(sqName(f, r));
    }
    if (empty) row += empty;
    rows.push(row);
  }
  return [pos.south, pos.north, rows.join("/"), pos.turn === "south" ? "s" : "n",
    charged.length ? charged.join(",") : "-", pos.ply].join(" ");
}

/** Parse IAMN: {from, to, base, ability: null|{kind, target?, dest?}} */
export function parseMove(text) {
  const m = /^([a-i][1-9])([a-i][1-9])(?:\/([a-z]+)(?::([a-i][1-9])([a-i][1-9])?)?)?$/.exec(text);
  if (!m) throw new Error(`bad move ${text}`);
  const [, from, to, kind, target, dest] = m;
  return {
    text, from, to, base: from + to,
    ability: kind ? { kind, target: target || null, dest: dest || null } : null,
  };
}

export const ABILITY_NAMES = {
  recall: "Recall", slash: "Slash", attract: "Attract", burn: "Burn", sidestep: "Sidestep", assassinate: "Assassinate",
};

function clonePos(pos) {
  return { ...pos, board: pos.board.map((p) => (p ? { ...p } : null)) };
}

const forward = (side) => (side === "south" ? 1 : -1);
const endRank = (side) => (side === "south" ? 8 : 0);
const FIELD = 4; // rank 5, 0-based

/**
 * Apply an accepted move. Returns {pos, effects} where effects lists what happened, for
 * highlighting and sounds: {from, to, landed, captured: [sq], destroyed: [sq] (by
 * abilities/detonation), moved: [[from, to]] (pulled or recalled pieces), ability}.
 */
export function applyMove(position, moveText) {
  const pos = clonePos(position);
  const mv = parseMove(moveText);
  const b = pos.board;
  const fi = idx(mv.from);
  const ti = idx(mv.to);
  const piece = b[fi];
  if (!piece) throw new Error(`no piece on ${mv.from} for ${moveText}`);
  const side = piece.side;
  const effects = { from: mv.from, to: mv.to, landed: mv.to, captured: [], destroyed: [], moved: [], ability: mv.ability?.kind || null };
  const target = b[ti];
  const fromSq = sq(mv.from);
  let land = ti;

  if (piece.type === "dagger" && target && target.side !== side) {
    // Stab: capture, then retreat one square back towards the origin.
    b[ti] = null;
    effects.captured.push(mv.to);
    const toSq = sq(mv.to);
    const df = Math.sign(toSq.f - fromSq.f);
    const dr = Math.sign(toSq.r - fromSq.r);
    land = (toSq.r - dr) * 9 + (toSq.f - df);
    b[fi] = null;
    b[land] = piece;
  } else if (piece.type === "cog" && target && target.side === side && target.type === "cog") {
    // Merge into a Gear on the other Cog's square.
    b[fi] = null;
    b[ti] = makePiece(pos[side], side, "G");
  } else {
    if (target) effects.captured.push(mv.to);
    b[fi] = null;
    b[ti] = piece;
  }
  effects.landed = nameOf(land);

  const landR = Math.floor(land / 9);
  const arrived = landR === endRank(side) && fromSq.r !== endRank(side);
  // Arrival effects of the moving piece.
  if (b[land] === piece) {
    if (CHARGEABLE.has(piece.type) && landR === FIELD) piece.charged = true;
    if (piece.type === "cog" && arrived) b[land] = makePiece(pos[side], side, "G");
    if (piece.type === "phial" && arrived) {
      const lf = land % 9;
      for (let i = 0; i < 81; i++) {
        if (!b[i]) continue;
        if (Math.max(Math.abs(i % 9 - lf), Math.abs(Math.floor(i / 9) - landR)) <= 3) {
          b[i] = null;
          if (i !== land) effects.destroyed.push(nameOf(i));
        }
      }
    }
  }

  const ab = mv.ability;
  if (ab) {
    const here = sq(nameOf(land));
    switch (ab.kind) {
      case "slash": {
        const r = here.r + forward(side);
        for (const df of [-1, 0, 1]) {
          const f = here.f + df;
          if (f < 0 || f > 8 || r < 0 || r > 8) continue;
          if (b[r * 9 + f]) { b[r * 9 + f] = null; effects.destroyed.push(sqName(f, r)); }
        }
        break;
      }
      case "burn":
      case "assassinate":
        b[idx(ab.target)] = null;
        effects.destroyed.push(ab.target);
        break;
      case "attract": {
        const t = sq(ab.target);
        const df = Math.sign(t.f - here.f);
        const dr = Math.sign(t.r - here.r);
        const dest = sqName(here.f + df, here.r + dr);
        b[idx(dest)] = b[idx(ab.target)];
        b[idx(ab.target)] = null;
        effects.moved.push([ab.target, dest]);
        break;
      }
      case "recall": {
        const p = b[idx(ab.target)];
        b[idx(ab.target)] = null;
        if (p) p.charged = false;
        b[idx(ab.dest)] = p;
        effects.moved.push([ab.target, ab.dest]);
        break;
      }
      case "sidestep": {
        b[land] = null;
        b[idx(ab.target)] = piece;
        if (sq(ab.target).r === FIELD) piece.charged = true;
        effects.landed = ab.target;
        break;
      }
      default:
        throw new Error(`unknown ability ${ab.kind}`);
    }
  }
  pos.turn = side === "south" ? "north" : "south";
  pos.ply += 1;
  return { pos, effects };
}

/** Positions after each ply: [start, after move 1, ...]; stops (returns partial) on error. */
export function replay(startText, moves) {
  const out = [{ pos: parsePosition(startText), effects: null }];
  for (const m of moves) {
    try {
      out.push(applyMove(out[out.length - 1].pos, m));
    } catch (e) {
      console.warn("replay stopped:", e);
      break;
    }
  }
  return out;
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
