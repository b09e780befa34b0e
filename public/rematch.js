// Rematch after a game (POST /api/games/{id}/rematch): offer, accept or decline; against
// the AI one click, with a second button that keeps the player's faction. The rematch
// swaps the seats; this browser's seat token (or session) carries over, so the new game
// is stored as ours with the new side and opened.

import { api, seats } from "./api.js";
import { FACTION_NAMES } from "./notation.js";
import { el, navigate, toast } from "./ui.js";

const SIDE = { south: "South", north: "North" };

const open = (view, r) => {
  const old = view.seat || {};
  const s = r.state || {};
  let south = s.south?.faction || old.south;
  let north = s.north?.faction || old.north;
  // Kept faction (an AI rematch asked so): the factions changed sides with the seats.
  const kept = Boolean((r.rematch || s.rematch)?.keep_faction);
  if (kept) [south, north] = [north, south];
  seats.put(r.game, {
    ...old,
    seat: r.seat,
    south,
    north,
    created: Date.now(),
    invite_url: undefined,
    stage_title: undefined,
  });
  navigate(`/g/${r.game}`);
  // The seats swap; each faction stays with its seat unless the player kept theirs: say
  // what the player now has.
  const mine = r.seat === "south" ? south : north;
  toast(kept
    ? `Rematch: you keep ${FACTION_NAMES[mine] || mine}, now playing ${SIDE[r.seat]} (the sides are swapped).`
    : `Rematch: you now play ${SIDE[r.seat]} with ${FACTION_NAMES[mine] || mine} (the sides are swapped).`);
};

async function act(view, action, btn, keepFaction = false) {
  btn.disabled = true;
  try {
    const r = await api.rematch(view.id, view.seat?.token || null, action, keepFaction);
    if (r.game) open(view, r);
    else if (action === "offer") toast("Rematch offered. Your opponent will see it.");
  } catch (e) {
    toast(e.message, "error");
    btn.disabled = false;
  }
}

/**
 * The rematch buttons for a finished game this browser plays in (empty for spectators and
 * story stages): Rematch / Rematch offered / Accept + Decline / Go to the rematch.
 */
export function rematchControls(view) {
  const s = view.state;
  const me = view.mySide;
  const frag = document.createDocumentFragment();
  if (!s?.result || !me || s.stage || !view.seat) return frag;
  // A link game that ended before anyone joined (cancelled): there is nobody to play again.
  const them = s[me === "south" ? "north" : "south"];
  if (them && them.player !== "ai" && !them.claimed) return frag;
  const r = s.rematch || {};
  const button = (text, cls, action, keepFaction = false) => {
    const b = el(`<button type="button" class="${cls}"></button>`);
    b.textContent = text;
    b.addEventListener("click", () => act(view, action, b, keepFaction));
    return b;
  };
  if (r.game) {
    const b = el(`<button type="button" class="primary rematch-open">Go to the rematch</button>`);
    b.addEventListener("click", () => open(view, { game: r.game, seat: me === "south" ? "north" : "south", rematch: r, state: null }));
    frag.append(b);
  } else if (r.offered_by && r.offered_by !== me) {
    frag.append(button("Accept rematch", "primary rematch-accept", "accept"), button("Decline", "rematch-decline", "decline"));
  } else if (r.offered_by === me) {
    frag.append(el(`<span class="muted rematch-waiting">Rematch offered…</span>`));
  } else {
    frag.append(button("Rematch", "primary rematch", "offer"));
    // Against the AI the player may keep their faction (and still change side).
    if (s.mode === "ai") {
      const mine = FACTION_NAMES[s[me]?.faction] || s[me]?.faction;
      frag.append(button(`Rematch with ${mine}`, "rematch-keep", "offer", true));
    }
  }
  return frag;
}
