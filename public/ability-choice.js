// The choice after a base move that can be followed by an ability (the game's board, the
// lessons' and the analysis board all offer it): which abilities, on which squares, what a
// square picked means, and the ability bar's content. The rules are the engine's
// (notation.js); the pages place the bar and play the move their own way.

import { applyMove, parseMove, previewBase, ABILITY_HELP, ABILITY_NAMES } from "./notation.js";
import { h } from "./ui.js";

/**
 * After base move `base` in `pos` (with `legal`, the position's legal moves): null when no
 * ability can follow it; else the selection to offer: the moved piece's squares, its
 * ability options (each with the squares it acts on) and whether the plain move is legal.
 */
export function abilityChoice(pos, legal, base) {
  const variants = legal.filter((m) => m.slice(0, 4) === base);
  const abil = variants.filter((m) => m.includes("/"));
  if (!abil.length) return null;
  const { effects } = previewBase(pos, base);
  const options = abil.map((m) => {
    const a = parseMove(m).ability;
    // The squares an ability acts on: its target, or for Slash what it would destroy.
    const squares = a.target ? [a.target] : applyMove(pos, m).effects.destroyed;
    return { move: m, kind: a.kind, target: a.target, dest: a.dest, squares };
  });
  return { stage: "ability", from: base.slice(0, 2), base, landed: effects.landed, options, plain: variants.includes(base) };
}

/** The ability bar's buttons for a selection's options: a move each, and a Recall whose
 * target has several destinations as one button that asks next (`recall`: its target). */
export function abilityButtons(options) {
  const buttons = [];
  const seen = new Set();
  for (const o of options) {
    if (o.kind === "recall") {
      if (seen.has(o.target)) continue;
      seen.add(o.target);
      const n = options.filter((x) => x.kind === "recall" && x.target === o.target).length;
      buttons.push(n === 1 ? { label: `Recall ${o.target} → ${o.dest}`, move: o.move } : { label: `Recall ${o.target}…`, recall: o.target });
    } else {
      buttons.push({ label: o.target ? `${ABILITY_NAMES[o.kind]} ${o.target}` : ABILITY_NAMES[o.kind], move: o.move });
    }
  }
  return buttons;
}

/**
 * What a square picked during an ability choice `sel` means: {move} (the ability on it),
 * {recall: square} (a Recall target with several destinations: ask where to next),
 * {cancel: true} (the moved piece itself: the base move is put back) or {miss: true}.
 */
export function pickAbilityTarget(sel, square) {
  const hits = sel.options.filter((o) => o.squares.includes(square));
  if (!hits.length) return square === sel.landed || square === sel.from ? { cancel: true } : { miss: true };
  if (hits.every((o) => o.kind === "recall") && hits.length > 1) return { recall: square };
  return { move: hits[0].move };
}

/** The selection's next step once Recall's target is chosen: where it may be sent. */
export function recallSelection(sel, target) {
  const dests = sel.options.filter((o) => o.kind === "recall" && o.target === target).map((o) => ({ square: o.dest, move: o.move }));
  return { ...sel, stage: "recall", target, dests };
}

/**
 * The ability bar's content for selection `sel` (the abilities to choose from, or Recall's
 * destinations): what it is, a button per choice, Skip ability (when the move may be made
 * without it) and Cancel move. `play(move)`, `recall(target)` (a Recall target with several
 * destinations) and `cancel()` are the page's. Returns [text, buttons].
 */
export function abilityBar(sel, { play, recall, cancel }) {
  let text;
  let buttons;
  if (sel.stage === "recall") {
    text = h("p", {}, h("strong", { text: `Recall ${sel.target}` }), ": choose where it goes (highlighted squares).");
    buttons = sel.dests.map((d) => ({ label: `to ${d.square}`, move: d.move }));
  } else {
    const kinds = [...new Set(sel.options.map((o) => o.kind))];
    text = h("p", {}, kinds.map((k) => [h("strong", { text: ABILITY_NAMES[k] }), `: ${ABILITY_HELP[k]} `]), "Choose a highlighted square or a button.");
    buttons = abilityButtons(sel.options);
  }
  const wrap = h("div", { class: "ability-options" });
  for (const b of buttons) {
    wrap.append(h("button", { type: "button", class: "primary ability-btn", dataset: { move: b.move || "" }, text: b.label,
      onclick: () => (b.recall ? recall(b.recall) : play(b.move)) }));
  }
  if (sel.plain) wrap.append(h("button", { type: "button", class: "skip", text: "Skip ability", onclick: () => play(sel.base) }));
  wrap.append(h("button", { type: "button", class: "cancel", text: "Cancel move", onclick: () => cancel() }));
  return [text, wrap];
}

/** What a screen reader hears when a base move opens an ability choice (`choice`, from
 * `abilityChoice`). */
export function abilityPrompt(choice) {
  const kinds = [...new Set(choice.options.map((o) => ABILITY_NAMES[o.kind]))].join(" or ");
  return `Ability available: ${kinds}. Choose a highlighted target${choice.plain ? ", or skip" : ""}.`;
}

/** Shows the ability bar element `bar` with `sel`'s buttons (`abilityBar`). */
export function fillAbilityBar(bar, sel, handlers) {
  bar.hidden = false;
  bar.replaceChildren(...abilityBar(sel, handlers));
}

/** Hides and empties `bar`; a keyboard focus inside it goes back to `board`'s square. */
export function clearAbilityBar(bar, board) {
  const focused = bar.contains(document.activeElement);
  bar.hidden = true;
  bar.replaceChildren();
  if (focused) board.setFocus(board.focusSq);
}
