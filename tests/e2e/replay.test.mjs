// The client's rules are the server's engine compiled to wasm (public/engine/, loaded by
// public/notation.js): here, loaded the way the Node side loads it, it must agree with
// the running server on every position, every legal move list and the result, in
// seeded random games through the API, steered so that every ability is played (and
// asserted to be). Which effects the engine reports is tested natively, exhaustively
// (crates/engine-wasm/tests/api.rs: every ability, the stab, merge, promotion and
// detonation); this checks the shipped build and its glue.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, api } from "./support.mjs";
import { parsePosition, formatPosition, applyMove, legalMoves, replay } from "../../public/notation.js";

let server;
const base = () => process.env.E2E_BASE || server.base;
before(async () => { if (!process.env.E2E_BASE) server = await startServer(); });
after(() => server?.stop());

// A small deterministic PRNG so failures can be reproduced.
function rng(seed) {
  return () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

// Every ability of the rules (IAMN's `/<ability>`): each must be played at least once.
const ABILITIES = ["assassinate", "attract", "burn", "recall", "sidestep", "slash"];
const abilityOf = (mv) => mv.split("/")[1]?.split(":")[0];

// How near the side to move's pieces are to the two abilities random play hardly reaches:
// Assassinate (a Dagger arriving on its end row without capturing) and Sidestep (a
// charged Mistress capturing). Moves are steered by it until both have been played.
function nearRareAbilities(pos, side, played) {
  let score = 0;
  pos.board.forEach((p, i) => {
    if (!p || p.side !== side) return;
    const rank = Math.floor(i / 9);
    const ahead = side === "south" ? rank : 8 - rank;
    if (p.type === "dagger" && !played.has("assassinate")) score = Math.max(score, ahead);
    if (p.type === "mistress" && !played.has("sidestep")) {
      const enemies = [-10, -9, -8, -1, 1, 8, 9, 10].filter((d) => pos.board[i + d] && pos.board[i + d].side !== side).length;
      score = Math.max(score, p.charged ? 10 + enemies : 4 - Math.abs(rank - 4));
    }
  });
  return score;
}

test("the client's wasm engine agrees with the server, ply by ply", async () => {
  let seed = 7;
  const played = new Set();
  for (const [south, north] of [["clockwork", "blades"], ["blades", "axiom"], ["axiom", "clockwork"]]) {
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
      assert.deepEqual(legalMoves(pos), [...state.legal_moves].sort(), `legal moves at ply ${state.ply}`);
      const legal = legalMoves(pos); // the server's list, sorted (checked just above)
      const withAbility = legal.filter((m) => m.includes("/"));
      // An ability not played yet whenever one is legal, so every ability is exercised;
      // otherwise, most of the time, a move nearest to a rare ability.
      const unplayed = withAbility.filter((m) => !played.has(abilityOf(m)));
      let pool = unplayed.length ? unplayed : withAbility.length && rand() < 0.7 ? withAbility : legal;
      if (!unplayed.length && !(played.has("assassinate") && played.has("sidestep")) && rand() < 0.7) {
        const scored = legal.map((m) => [m, nearRareAbilities(applyMove(pos, m).pos, state.turn, played)]);
        const best = Math.max(...scored.map(([, v]) => v));
        pool = scored.filter(([, v]) => v === best).map(([m]) => m);
      }
      const mv = pool[Math.floor(rand() * pool.length)];
      if (abilityOf(mv)) played.add(abilityOf(mv));
      const r = await api(base(), "POST", `/api/games/${state.id}/moves`, { move: mv, ply: state.ply }, tokens[state.turn]);
      assert.equal(r.status, 200, r.text);
      const was = formatPosition(pos);
      pos = applyMove(pos, mv).pos;
      state = r.json.state;
      assert.equal(formatPosition(pos), state.position, `after ${mv} from ${was}`);
    }
    // The whole game replayed at once (repetition counted) ends as the server says.
    const steps = replay(state.start, state.moves);
    assert.equal(steps.length, state.moves.length + 1);
    assert.equal(steps.at(-1).pos.outcome?.text, state.result.text);
  }
  assert.deepEqual([...played].sort(), ABILITIES, "every ability was played");
  assert.throws(() => applyMove(parsePosition(state0()), "e1e5"), /illegal move e1e5/);
});

function state0() {
  return "clockwork blades wkbamabkw/ddddddddd/9/9/9/9/9/CCCCCCCCC/PSDHFHDSP s - 0";
}
