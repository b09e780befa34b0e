// The home page's part of issue 14: the player's games from the server (GET /api/me/games:
// signed in, the same list on every device) merged into "My games" — a game this browser
// has no token for is played by the session —, the open challenges and the turn-notification
// toggle.

import { api, seats } from "./api.js";
import { discordToggle, pushToggle } from "./push.js";
import { mountChallenges } from "./challenges.js";

/** The server's view of the player's games by id (opponent, last move's time, plies), as
 * last read: what "My games" names and dates its entries by. */
export const serverGames = new Map();

/** Adds the server's games this browser does not hold yet (session seats), except those
 * the player told "My games" to forget. */
export async function syncServerGames() {
  let list;
  try { list = (await api.myGames()).games || []; } catch { return; }
  serverGames.clear();
  for (const g of list) serverGames.set(g.id, g);
  const mine = seats.all();
  const forgotten = seats.forgotten();
  for (const g of list) {
    if (mine[g.id] || forgotten.has(g.id)) continue;
    seats.put(g.id, { seat: g.side, token: null, session: true, mode: g.mode, south: g.south, north: g.north, created: g.created_at });
  }
}

/** Syncs "My games", then renders it (`render`); adds the open challenges and the
 * notification toggle. */
export function mountReturning(root, render) {
  syncServerGames().finally(render);
  mountChallenges(root.querySelector(".home-side") || root);
  for (const make of [pushToggle, discordToggle]) {
    make().then((btn) => {
      if (!btn) return;
      const p = document.createElement("p");
      p.className = "push-row";
      p.append(btn);
      root.querySelector(".hero")?.append(p);
    }).catch(() => {});
  }
}
