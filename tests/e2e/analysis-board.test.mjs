// Issue 31, the analysis board: from a position of a game, other moves are tried on a board
// of their own (the browser's engine, never the server's game) and the browser's AI says
// the chance to win and its best line (arrows, words); "Back to game" returns to the game.
// Offered for a finished game, for one's own game against the AI before it ends, and for
// an imported record; never during a game with a human in it (hint.test.mjs checks the
// players' side of that, this file the spectators'). The phone layout holds the graph and
// the board without sideways scrolling. Every wait is on a state the page exposes.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { api, launchBrowser, newPage, shot, startServer, TEST_TIMEOUT } from "./support.mjs";
import { applyMove, idx, legalMoves, parsePosition, replay } from "../../public/notation.js";

const T = TEST_TIMEOUT;
let server;
let browser;
let finished; // {id, start, moves}: a short game between humans, ended by resignation
before(async () => {
  // The server's AI plays random moves (fast): the analysis is the browser's own search.
  server = await startServer({ AI_ENGINE: "random" });
  browser = await launchBrowser();
  finished = await linkGame(4, true);
});
after(async () => {
  await browser?.close();
  server?.stop();
});

/** A link game between two players: `plies` moves (each side's first legal move: the same
 * game on every run), then South resigns if `resign`. Returns {id, start, moves, tokens}. */
async function linkGame(plies, resign) {
  const c = await api(server.base, "POST", "/api/games", { south: "blades", north: "clockwork", mode: "link", seat: "south" });
  const invite = new URL(c.json.invite_url).hash.slice("#invite=".length);
  const j = await api(server.base, "POST", `/api/games/${c.json.id}/join`, { invite });
  const tokens = { south: c.json.token, north: j.json.token };
  let s = j.json.state;
  while (s.ply < plies) {
    const r = await api(server.base, "POST", `/api/games/${s.id}/moves`, { move: s.legal_moves[0], ply: s.ply }, tokens[s.turn]);
    assert.equal(r.status, 200, r.text);
    s = r.json.state;
  }
  if (resign) {
    const r = await api(server.base, "POST", `/api/games/${s.id}/resign`, {}, tokens.south);
    assert.equal(r.status, 200, r.text);
    s = r.json.state;
    assert.equal(s.status, "finished");
  }
  return { id: s.id, start: s.start, moves: s.moves, tokens };
}

/** The label the board gives square `sq` of `pos` (board.js): its piece or "empty". */
const occupant = (pos, sq) => {
  const p = pos.board[idx(sq)];
  return p ? `${p.side === "south" ? "South" : "North"} ${p.name}` : "empty";
};

/** Plays `from`-`to` on the analysis board by the keyboard: the piece's square, then its
 * destination, Enter on each. */
async function keyMove(page, from, to) {
  const ab = ".analysis-board";
  await page.focus(`${ab} .board [data-sq="${from}"]`);
  await page.keyboard.press("Enter");
  await page.waitForSelector(`${ab} .board [data-sq="${to}"].target`);
  await page.focus(`${ab} .board [data-sq="${to}"]`);
  await page.keyboard.press("Enter");
}

test("a finished game: a move tried on the analysis board, the engine's line as arrows and words, Back to game; the phone layout holds", T, async () => {
  const g = finished;
  const page = await newPage(browser, server.base);
  await page.goto(`/g/${g.id}`);
  await page.click(".actions .analyse");
  await page.waitForSelector(".analysis[data-done]");
  // From the position after move 2 (chosen in the move list): a move the game did not play.
  await page.click('.move-list .mv[data-ply="2"]');
  await page.waitForSelector('.game[data-ply="2"]');
  await page.click(".actions .open-board");
  const ab = ".analysis-board";
  await page.waitForSelector(`${ab}[data-ply="2"] .ab-eval[data-state="done"]`);
  assert.equal(await page.locator(".actions .open-board").isHidden(), true);
  const pos = replay(g.start, g.moves)[2].pos;
  const bases = legalMoves(pos);
  const move = bases.find((m) => m !== g.moves[2] && !bases.some((x) => x.startsWith(m) && x.includes("/")));
  const [from, to] = [move.slice(0, 2), move.slice(2, 4)];
  // By the keyboard: the piece's square, then its destination (Enter on each).
  await keyMove(page, from, to);
  await page.waitForSelector(`${ab}[data-variation="${move}"] .ab-eval[data-state="done"]`);
  const after = applyMove(pos, move).pos;
  assert.equal(await page.getAttribute(`${ab}`, "data-position"), after.text);
  assert.match(await page.getAttribute(`${ab} .board [data-sq="${to}"]`, "aria-label"), new RegExp(`^${to}, ${occupant(after, to)}`));
  assert.match(await page.getAttribute(`${ab} .board [data-sq="${from}"]`, "aria-label"), new RegExp(`^${from}, empty`));
  // The engine's line: an arrow per move (at least the first three plies), fainter each,
  // and the same line in words.
  const line = (await page.getAttribute(`${ab} .ab-eval`, "data-line")).split(" ");
  assert.ok(line.length >= 3, `the engine's line: ${line}`);
  assert.equal(await page.locator(`${ab} .arrows .line-arrow`).count(), line.length);
  assert.equal(await page.locator(`${ab} .arrows .line-arrow.step-0`).count(), 1);
  const words = await page.textContent(`${ab} .ab-eval`);
  assert.match(words, /^South's chance to win: \d+%\. Best line: .+ (to|takes) .+, then .+; .+\.$/, words);
  assert.equal(await page.locator(`${ab} .ab-variation li`).count(), 1);
  await shot(page, "i31-analysis-board");
  // A phone: the graph and the analysis board, with no sideways scrolling.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForFunction(() => window.innerWidth === 390);
  const widths = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    graph: document.querySelector(".eval-graph").getBoundingClientRect().right,
    board: document.querySelector(".analysis-board").getBoundingClientRect().right,
    grid: document.querySelector(".analysis-board .board").getBoundingClientRect().right,
  }));
  for (const [what, w] of Object.entries(widths)) assert.ok(w <= 390, `${what} reaches ${w} px on a 390 px screen`);
  assert.equal(await page.locator(".eval-graph").isVisible(), true);
  await shot(page, "i31-analysis-board-390");
  // Back to game: the board goes, the game's own board shows the game's position again.
  await page.click(`${ab} .ab-back`);
  await page.waitForSelector(ab, { state: "detached" });
  await page.waitForSelector('.game[data-ply="2"] .board-host .board');
  for (const sq of [from, to]) {
    assert.match(await page.getAttribute(`.board-host [data-sq="${sq}"]`, "aria-label"), new RegExp(`^${sq}, ${occupant(pos, sq)}`));
  }
  assert.equal(await page.locator(".actions .open-board").isVisible(), true);
  assert.deepEqual(page.errors, []);
});

test("one's own game against the AI has analysis before it ends; a spectator of an unfinished game has none", T, async () => {
  const c = await api(server.base, "POST", "/api/games", { south: "blades", north: "clockwork", mode: "ai", seat: "south", level: 1 });
  assert.equal(c.status, 201);
  const page = await newPage(browser, server.base);
  await page.goto("/");
  await page.evaluate(([id, token]) => {
    const all = JSON.parse(localStorage.getItem("ironarena.seats.v1") || "{}");
    all[id] = { seat: "south", token, mode: "ai", south: "blades", north: "clockwork", created: Date.now() };
    localStorage.setItem("ironarena.seats.v1", JSON.stringify(all));
  }, [c.json.id, c.json.token]);
  await page.goto(`/g/${c.json.id}`);
  await page.waitForSelector(".my-turn .board .sq.pickable");
  assert.equal(await page.locator(".actions .analyse").isVisible(), true, "Analyse game in one's own AI game");
  await page.click(".actions .open-board");
  await page.waitForSelector('.analysis-board[data-ply="0"] .ab-eval[data-state="done"]');
  assert.ok(await page.locator(".analysis-board .arrows .line-arrow").count() >= 2);
  await page.click(".analysis-board .ab-back");
  await page.waitForSelector(".analysis-board", { state: "detached" });
  // Spectators: neither of an unfinished game between humans nor of someone's AI game.
  const human = await linkGame(2, false);
  for (const id of [human.id, c.json.id]) {
    const watcher = await newPage(browser, server.base);
    await watcher.goto(`/g/${id}`);
    await watcher.waitForFunction(() => /You are watching/.test(document.querySelector(".turn")?.textContent || ""));
    assert.equal(await watcher.locator(".actions .analyse").isHidden(), true, `no Analyse game for a spectator of ${id}`);
    assert.equal(await watcher.locator(".actions .open-board").isHidden(), true, `no analysis board for a spectator of ${id}`);
    assert.deepEqual(watcher.errors, []);
  }
  assert.deepEqual(page.errors, []);
});

test("an imported record: refused while a game between humans goes on, else analysed and opened on the analysis board", T, async () => {
  const page = await newPage(browser, server.base);
  await page.goto("/");
  await page.click(".record-entry");
  await page.waitForSelector("#record-text");
  // A record of a game between humans still being played: refused.
  const ongoing = await linkGame(2, false);
  const live = await api(server.base, "GET", `/api/games/${ongoing.id}/record`);
  assert.match(live.text, /result: ongoing/);
  await page.fill("#record-text", live.text);
  await page.click(".record-form button[type=submit]");
  await page.waitForSelector(".record-form .form-error:not([hidden])");
  assert.match(await page.textContent(".record-form .form-error"), /still being played/);
  assert.equal(await page.locator(".record-analysis").isHidden(), true);
  // The finished game's record: every position on the graph, the final one on the board.
  const g = finished;
  const rec = await api(server.base, "GET", `/api/games/${g.id}/record`);
  await page.fill("#record-text", rec.text);
  await page.click(".record-form button[type=submit]");
  await page.waitForSelector(".record-page .analysis[data-done]");
  assert.equal(await page.locator(".record-page .eval-graph circle[data-ply]").count(), g.moves.length + 1);
  const n = g.moves.length;
  await page.waitForSelector(`.record-page .analysis-board[data-ply="${n}"] .ab-eval[data-state="done"]`);
  // A step back through the game, on the board and on the graph.
  await page.click('.record-page .ab-nav [data-nav="prev"]');
  await page.waitForSelector(`.record-page .analysis-board[data-ply="${n - 1}"] .ab-eval[data-state="done"]`);
  assert.equal(await page.locator(`.record-page .eval-graph circle.shown[data-ply="${n - 1}"]`).count(), 1);
  assert.equal(await page.getAttribute(".record-page .analysis-board", "data-position"), replay(g.start, g.moves)[n - 1].pos.text);
  assert.match(await page.textContent(".record-page .analysis-note"), new RegExp(`^After move ${n - 1}: South's chance to win \\d+%\\.`));
  await shot(page, "i31-record-analysis");
  // On a phone, the record's graph and board without sideways scrolling.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForFunction(() => window.innerWidth === 390);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390 &&
    [".eval-graph", ".analysis-board .board", "#record-text"].every((s) => document.querySelector(s).getBoundingClientRect().right <= 390)),
  "the record's page fits 390 px");
  await shot(page, "i31-record-analysis-390");
  assert.deepEqual(page.errors, []);
});

test("analysis board: a tried move that repeats a position for the third time loses, and no move is offered after it", T, async () => {
  // A clockwork mirror match South resigns at once: the analysis board opens on its start.
  const c = await api(server.base, "POST", "/api/games", { south: "clockwork", north: "clockwork", mode: "link", seat: "south" });
  const invite = new URL(c.json.invite_url).hash.slice("#invite=".length);
  assert.equal((await api(server.base, "POST", `/api/games/${c.json.id}/join`, { invite })).status, 200);
  assert.equal((await api(server.base, "POST", `/api/games/${c.json.id}/resign`, {}, c.json.token)).status, 200);
  const page = await newPage(browser, server.base);
  await page.goto(`/g/${c.json.id}`);
  await page.click(".actions .open-board");
  const ab = ".analysis-board";
  await page.waitForSelector(`${ab}[data-ply="0"] .ab-eval[data-state="done"]`);
  // Each side's Hands step out and back twice: North's last move makes the position after the
  // first two moves a third time (the CLI: "south wins: repetition"). The position alone
  // says nothing of it: the board must count the line.
  const moves = "e2d3 e8d7 d1e2 d9e8 e2d1 e8d9 d1e2 d9e8 e2d1 e8d9".split(" ");
  const start = (await api(server.base, "GET", `/api/games/${c.json.id}`)).json.start;
  assert.equal(replay(start, moves).at(-1).pos.outcome?.reason, "repetition");
  for (const [i, move] of moves.entries()) {
    await keyMove(page, move.slice(0, 2), move.slice(2, 4));
    await page.waitForSelector(`${ab}[data-variation="${moves.slice(0, i + 1).join(" ")}"]`);
  }
  // Settled: the engine's answer (the old board's) or the game-over note, never "thinking".
  const evalBox = `${ab} .ab-eval:is([data-state="over"], [data-state="done"], [data-state="error"])`;
  await page.waitForSelector(evalBox);
  assert.equal(await page.getAttribute(`${ab} .ab-eval`, "data-state"), "over", await page.textContent(`${ab} .ab-eval`));
  assert.equal(await page.textContent(`${ab} .ab-eval`), "The game is over here: south wins: repetition.");
  assert.equal(await page.locator(`${ab} .board .sq.pickable`).count(), 0, "no move offered once the game is over");
  assert.equal(await page.locator(`${ab} .ab-variation li`).count(), moves.length);
  // Taking the losing move back offers moves again.
  await page.click(`${ab} .ab-undo`);
  await page.waitForSelector(`${ab}[data-variation="${moves.slice(0, -1).join(" ")}"] .board .sq.pickable`);
  assert.deepEqual(page.errors, []);
});
