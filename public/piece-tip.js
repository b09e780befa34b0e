// What a piece on the board says about itself (issue 34): how it moves and its ability
// (the texts of PIECES, notation.js), what it can do from where it stands now or on its
// side's next move (captures, the ability's targets, a move that charges it or wins) and,
// when it cannot move, why — all from the engine (pieceFacts), never from a rule written
// here — with a link to its section of the rules (/rules#<type>, e.g. /rules#sickle).
import { PIECES, ABILITY_NAMES, CHARGE_HELP, pieceFacts, describeMove, idx } from "./notation.js";
import { h } from "./ui.js";

const SIDE = { south: "South", north: "North" };
const plain = (name) => name.replace(/^The /, "");

/** "a1, b2 and c3" */
function list(items, max = 5) {
  const shown = items.length > max ? [...items.slice(0, max - 1), `${items.length - max + 1} more`] : items;
  return shown.length < 2 ? shown.join("") : `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}`;
}

/**
 * The tip's content for the piece on `square` of `pos` (a position from notation.js), for
 * a player of `mySide` (null for a spectator): an element with a title, lines and the
 * rules link, or null for an empty square.
 */
export function pieceTip(pos, square, mySide = null) {
  const p = pos.board[idx(square)];
  if (!p) return null;
  let facts = null;
  try { facts = pieceFacts(pos, square); } catch { /* the texts alone */ }
  const text = PIECES[pos[p.side]]?.[p.letter] || { desc: "" };
  const mine = mySide ? p.side === mySide : null;
  const whose = mine === null ? `${SIDE[p.side]}'s` : mine ? "your" : "their";
  const lines = [];
  lines.push(h("p", { class: "tip-desc", text: text.desc }));
  if (facts) lines.push(...now(pos, p, facts, text, { mine, whose }));
  const box = h("div", { class: "tip-body" },
    h("p", { class: "tip-title" }, h("strong", { text: `${SIDE[p.side]} ${p.name}` }), p.charged ? " ⚡ charged" : "", h("span", { class: "tip-sq", text: ` · ${square}` })),
    lines,
    h("p", { class: "tip-link" }, h("a", { href: `/rules#${p.type}`, target: "_blank", rel: "noopener", text: `Rules: ${plain(p.name)} ›` })));
  return box;
}

/** What it can do now (or on its side's next move), or why it cannot move. */
function now(pos, p, f, text, { mine, whose }) {
  const out = [];
  const when = f.to_move ? "Now" : mine === false ? `On ${SIDE[p.side]}'s next move` : mine ? "On your next move" : `On ${SIDE[p.side]}'s next move`;
  const say = (cls, ...kids) => out.push(h("p", { class: cls }, ...kids));
  if (f.blocked === "game_over") return out;
  if (f.blocked) {
    const why = {
      own_pieces: `${whose === "your" ? "your own" : "its own"} pieces on ${list(f.blockers)} are in its way`,
      pieces: `the pieces on ${list(f.blockers)} are in its way`,
      own_king: `every move it has would destroy ${whose === "your" ? "your" : "its own"} king-piece, which no move may do`,
      movement: "from this square its moves lead nowhere",
    }[f.blocked];
    say("tip-now tip-blocked", h("strong", { text: `${when}: it cannot move` }), `: ${why}.`);
    if (f.chargeable && !p.charged && text.charge) say("tip-charge", `Not charged. ${text.charge} ${CHARGE_HELP}`);
    return out;
  }
  const winning = new Set(f.wins.map((m) => m.slice(2, 4)));
  const n = f.destinations.length;
  const parts = [`${n} square${n === 1 ? "" : "s"} to go to.`];
  if (f.wins.length) parts.push(`It can win at once: ${f.wins.slice(0, 2).map((m) => describeMove(pos, m)).join("; ")}!`);
  const takes = f.captures.filter((s) => !winning.has(s)).map((s) => `${pos.board[idx(s)]?.name || "piece"} ${s}`);
  if (takes.length) parts.push(`It can take ${list(takes, 4)}.`);
  for (const a of f.abilities) parts.push(`${ABILITY_NAMES[a.kind]} after its move: ${list(a.targets, 4)}${a.kind === "slash" ? " destroyed" : ""}.`);
  if (f.merges.length) parts.push(`It can merge into a Gear on ${list(f.merges)}.`);
  if (f.promotes.length) parts.push(`It becomes a Gear on ${list(f.promotes)}.`);
  if (f.detonates.length) parts.push(`It detonates on ${list(f.detonates)}.`);
  if (f.charges.length) parts.push(`A move to ${list(f.charges, 3).replace(/ and /, " or ")} charges it.`);
  say("tip-now", h("strong", { text: `${when}:` }), ` ${parts.join(" ")}`);
  if (text.ability && !f.abilities.some((a) => a.kind === text.ability)) {
    const why = text.ability === "sidestep" && !p.charged ? " (she is not charged)" : "";
    say("tip-ability-now", `${ABILITY_NAMES[text.ability]}: none of its moves allows it ${f.to_move ? "now" : "then"}${why}.`);
  }
  if (f.chargeable && !p.charged && text.charge) say("tip-charge", `Not charged. ${text.charge} ${CHARGE_HELP}`);
  return out;
}
