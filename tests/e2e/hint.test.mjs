// Issue 31, the hint: in a casual game against the AI, "Hint" asks the AI compiled to wasm
// (crates/ai-wasm, in a Web Worker) and shows a legal move on the board (both squares and
// an arrow) and in words; in a game between humans there is no Hint, and the page never
// downloads the AI. Every wait is on a state the page exposes (no fixed sleeps).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { api, launchBrowser, newPage, shot, startServer, TEST_TIMEOUT } from "./support.mjs";
import { applyMove, parsePosition, threats } from "../../public/notation.js";

const T = TEST_TIMEOUT;
let server;
let browser;
before(async () => {
  // The server's AI plays random moves (fast): the hint is the browser's own search.
  server = await startServer({ AI_ENGINE: "random" });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  server?.stop();
});

/** Opens game `id` holding `seat` (as the client stores it), on the player's turn. */
async function openAsPlayer(page, id, token, mode, south, north) {
  await page.goto("/");
  await page.evaluate(([id, token, mode, south, north]) => {
    const all = JSON.parse(localStorage.getItem("ironarena.seats.v1") || "{}");
    all[id] = { seat: "south", token, mode, south, north, created: Date.now() };
    localStorage.setItem("ironarena.seats.v1", JSON.stringify(all));
  }, [id, token, mode, south, north]);
  await page.goto(`/g/${id}`);
  await page.waitForSelector(".my-turn .board .sq.pickable");
}

test("Hint shows a legal move from the browser's AI in a casual AI game", T, async () => {
  const page = await newPage(browser, server.base);
  const c = await api(server.base, "POST", "/api/games", { south: "blades", north: "clockwork", mode: "ai", seat: "south", level: 2 });
  assert.equal(c.status, 201);
  await openAsPlayer(page, c.json.id, c.json.token, "ai", "blades", "clockwork");
  await page.click(".ask-hint");
  const line = await page.waitForSelector(".hint-line[data-move]:not([hidden])");
  const move = await line.getAttribute("data-move");
  const s = (await api(server.base, "GET", `/api/games/${c.json.id}`)).json;
  assert.ok(s.legal_moves.includes(move), `${move} is legal`);
  assert.match(await line.textContent(), /^Hint: .+ to [a-i][1-9]|takes/);
  // On the board: both squares marked (and named for assistive technology), and an arrow.
  for (const sq of [move.slice(0, 2), move.slice(2, 4)]) {
    await page.waitForSelector(`.board [data-sq="${sq}"] .hint-mark`);
    assert.match(await page.getAttribute(`.board [data-sq="${sq}"]`, "aria-label"), /hint/);
  }
  assert.equal(await page.locator(".board .arrows .hint-arrow").count(), 1);
  await shot(page, "i31-hint");
  // The benchmark's figure: the search's own time in the worker (tests/e2e/bench-hint.mjs
  // sets it against the native search).
  console.log(`hint at level 4 in headless Chromium: ${await page.getAttribute(".game", "data-hint-ms")} ms`);
  assert.deepEqual(page.errors, []);
});

test("Hint: a failed download of the AI's leaf score is tried again on the next request", T, async () => {
  const page = await newPage(browser, server.base);
  // The leaf score's first request answers 503 (a passing server error); later ones pass.
  let leafRequests = 0;
  await page.route("**/models/leaf-v1.bin", (route) => {
    leafRequests++;
    return leafRequests === 1 ? route.fulfill({ status: 503, body: "busy" }) : route.fallback();
  });
  // The hint's level (4) plays leaf-v1: the top levels' leaf-v3 is never downloaded for it.
  let topLeafRequests = 0;
  await page.route("**/models/leaf-v3.bin", (route) => {
    topLeafRequests++;
    return route.fallback();
  });
  const c = await api(server.base, "POST", "/api/games", { south: "blades", north: "clockwork", mode: "ai", seat: "south", level: 2 });
  assert.equal(c.status, 201);
  await openAsPlayer(page, c.json.id, c.json.token, "ai", "blades", "clockwork");
  // Settled: the hint asked is answered (a hint or "No hint") and Hint may be asked again.
  const settled = () => page.waitForSelector(".ask-hint:not([disabled]):text-is('Hint')");
  await page.click(".ask-hint");
  await settled();
  assert.match(await page.textContent(".msg"), /^No hint: the AI's leaf score .*503/);
  assert.equal(await page.locator(".hint-line").isHidden(), true);
  // The page is not reloaded: the same worker fetches the leaf score again and hints.
  await page.click(".ask-hint");
  await settled();
  assert.equal(leafRequests, 2, "the leaf score fetched again");
  assert.equal(topLeafRequests, 0, "only the hint level's leaf file is fetched");
  assert.equal(await page.locator(".hint-line").isVisible(), true, await page.textContent(".msg"));
  const move = await page.getAttribute(".hint-line", "data-move");
  const s = (await api(server.base, "GET", `/api/games/${c.json.id}`)).json;
  assert.ok(s.legal_moves.includes(move), `${move} is legal`);
  // The browser logs the refused download itself; nothing else went wrong.
  assert.deepEqual(page.errors.filter((e) => !/503/.test(e)), []);
});

test("a game between humans has no Hint, and its page never loads the AI", T, async () => {
  const page = await newPage(browser, server.base);
  const fetched = [];
  page.on("request", (r) => fetched.push(r.url()));
  const c = await api(server.base, "POST", "/api/games", { south: "axiom", north: "blades", mode: "link", seat: "south" });
  const invite = new URL(c.json.invite_url).hash.slice("#invite=".length);
  assert.equal((await api(server.base, "POST", `/api/games/${c.json.id}/join`, { invite })).status, 200);
  await openAsPlayer(page, c.json.id, c.json.token, "link", "axiom", "blades");
  // The page is on the player's turn with its actions drawn (Offer draw shows): Hint is not.
  await page.waitForSelector(".actions .offer-draw:not([hidden])");
  assert.equal(await page.locator(".ask-hint").isHidden(), true);
  assert.equal(await page.locator(".hint-line").isHidden(), true);
  assert.equal(await page.locator(".actions .analyse").isHidden(), true, "no analysis during a game between humans");
  assert.equal(await page.locator(".actions .open-board").isHidden(), true, "no analysis board during a game between humans");
  assert.deepEqual(fetched.filter((u) => /ai-worker|ai_wasm/.test(u)), []);
  assert.deepEqual(page.errors, []);
});

/**
 * A link game with a known blunder: South walks its king-piece (the Mistress) forward (or
 * moves the piece in front of her away; else its first legal move), North plays its first
 * legal move, until South has a move after which North could destroy the Mistress (the
 * engine's `threats`); South plays it and North takes her. Returns {id, blunder: the blunder's ply, moves}.
 */
async function gameWithABlunder() {
  const c = await api(server.base, "POST", "/api/games", { south: "blades", north: "blades", mode: "link", seat: "south" });
  const invite = new URL(c.json.invite_url).hash.slice("#invite=".length);
  const j = await api(server.base, "POST", `/api/games/${c.json.id}/join`, { invite });
  const tokens = { south: c.json.token, north: j.json.token };
  let s = j.json.state;
  const play = async (move) => {
    const r = await api(server.base, "POST", `/api/games/${s.id}/moves`, { move, ply: s.ply }, tokens[s.turn]);
    assert.equal(r.status, 200, r.text);
    s = r.json.state;
  };
  while (s.status === "ongoing" && s.ply < 60) {
    const pos = parsePosition(s.position);
    if (s.turn === "north") { await play(s.legal_moves[0]); continue; }
    const losing = s.legal_moves.find((m) => threats(applyMove(pos, m).pos, "south").threats.some((t) => t.reason === "king destroyed"));
    if (losing) {
      const blunder = s.ply;
      await play(losing);
      const take = threats(parsePosition(s.position), "south").threats.find((t) => t.reason === "king destroyed");
      await play(take.move);
      assert.equal(s.status, "finished");
      return { id: s.id, blunder, moves: s.moves };
    }
    // The Mistress forward, else the piece in front of her out of the way.
    const king = pos.board.findIndex((p) => p?.side === "south" && p.king);
    const [file, rank] = ["abcdefghi"[king % 9], Math.floor(king / 9) + 1];
    const forward = s.legal_moves.find((m) => m.startsWith(`${file}${rank}`) && Number(m[3]) > rank);
    const ahead = s.legal_moves.find((m) => m.startsWith(`${file}${rank + 1}`));
    await play(forward ?? ahead ?? s.legal_moves[0]);
  }
  throw new Error("no blunder came up");
}

test("a finished game is analysed in the browser: a point per position, the blunder marked with the better move, a click moves the board", T, async () => {
  const g = await gameWithABlunder();
  const page = await newPage(browser, server.base);
  await page.goto(`/g/${g.id}`);
  await page.click(".actions .analyse");
  await page.waitForSelector(".analysis[data-done]");
  assert.equal(await page.locator(".eval-graph circle[data-ply]").count(), g.moves.length + 1, "one point per position");
  assert.equal(await page.locator(".actions .analyse").isHidden(), true);
  // The blunder's point (the position it was played from) is marked; a click shows that
  // position, says the blunder and the better move, and draws the better move.
  const pt = `.eval-graph circle[data-ply="${g.blunder}"]`;
  assert.match(await page.getAttribute(pt, "class"), /\bblunder\b/);
  // The move list marks it (??), and says so to a screen reader.
  const listed = `.move-list .mv[data-ply="${g.blunder + 1}"]`;
  assert.equal(await page.textContent(`${listed} .mv-mark.blunder`), "??");
  assert.match(await page.getAttribute(listed, "aria-label"), /, a blunder$/);
  await page.click(pt);
  await page.waitForSelector(`.game[data-ply="${g.blunder}"]`);
  const note = await page.textContent(".analysis-note");
  assert.match(note, new RegExp(`^After move ${g.blunder}: South's chance to win \\d+%\\. Then South played .+: a blunder \\(their chance \\d+% to \\d+%\\)\\. Better: `), note);
  assert.equal(await page.locator(".board .arrows .hint-arrow").count(), 1);
  await shot(page, "i31-analysis");
  assert.deepEqual(page.errors, []);
});
