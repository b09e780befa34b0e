// The client's replay (public/notation.js applyMove) must reproduce the server's positions:
// random games in all nine match-ups through the API, every ply compared with the server.
// Abilities are preferred when available so that every rule path is exercised.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, api } from "./support.mjs";
import { parsePosition, formatPosition, applyMove, FACTIONS } from "../../public/notation.js";

let server;
const base = () => process.env.E2E_BASE || server.base;
before(async () => { if (!process.env.E2E_BASE) server = await startServer(); });
after(() => server?.stop());

// A small deterministic PRNG so failures can be reproduced.
function rng(seed) {
  return () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

test("client replay matches the server in random games of every match-up", async () => {
  const seen = new Set();
  let seed = 7;
  for (const south of FACTIONS) {
    for (const north of FACTIONS) {
      for (let g = 0; g < 1; g++) {
        const rand = rng(seed++);
        const c = await api(base(), "POST", "/api/games", { south, north, mode: "link", seat: "south" });
        assert.equal(c.status, 201, c.text);
        const invite = new URL(c.json.invite_url).hash.replace("#invite=", "");
        const j = await api(base(), "POST", `/api/games/${c.json.id}/join`, { invite });
        assert.equal(j.status, 200, j.text);
        const tokens = { south: c.json.token, north: j.json.token };
        let state = j.json.state;
        let pos = parsePosition(state.position);
        while (state.status === "ongoing") {
          const legal = state.legal_moves;
          const withAbility = legal.filter((m) => m.includes("/"));
          const pool = withAbility.length && rand() < 0.7 ? withAbility : legal;
          const mv = pool[Math.floor(rand() * pool.length)];
          if (mv.includes("/")) seen.add(mv.split("/")[1].split(":")[0]);
          const r = await api(base(), "POST", `/api/games/${state.id}/moves`, { move: mv, ply: state.ply }, tokens[state.turn]);
          assert.equal(r.status, 200, r.text);
          const before = formatPosition(pos);
          pos = applyMove(pos, mv).pos;
          state = r.json.state;
          assert.equal(formatPosition(pos), state.position, `after ${mv} from ${before}`);
        }
      }
    }
  }
  console.log("abilities exercised:", [...seen].sort().join(", "));
});
