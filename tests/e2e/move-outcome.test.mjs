// End-to-end checks of the game screen when a move's request goes wrong, in headless
// Chromium against the real runtime: a line played after a take-back elsewhere (as many
// moves as the old one) replaces the board's; a move whose answer is lost, a 5xx, a page
// that is not the API's JSON, a busy server and a request that never ends are each settled
// against the game's state (the move is shown as played when the server made it, never
// "not sent" or a raw HTML page); Take back and Hint wait while a move is on its way; an
// ability choice gives the keyboard focus back to the board. The failures are injected
// with page.route on the move endpoint while the real server still runs (route.fetch()
// then route.abort() is "the server made the move, its answer was lost"). No fixed sleeps:
// every wait is on a state the page exposes (data-ply, data-pending, data-animating, an
// element, the focus); the 30 s limit on a request is passed with Playwright's clock.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { api, launchBrowser, newPage, startServer, switchableSockets, TEST_TIMEOUT, WAIT_MS } from "./support.mjs";

const T = TEST_TIMEOUT;
let server;
let browser;
before(async () => {
  // The AI plays random legal moves (seeded: the same game on every run).
  server = await startServer({ AI_ENGINE: "random" });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  server?.stop();
});

const getState = async (id) => (await api(server.base, "GET", `/api/games/${id}`)).json;
const MOVES = "**/api/games/*/moves";
/** A promise that never settles: a request held for good. */
const never = () => new Promise(() => {});

/** A game against the AI (level 1, South), its seat in the page's browser, opened there
 * and open to the first move. `live: false`: the page's socket is answered by nobody (no
 * pushes: only the page's own requests tell it anything). */
async function aiGame(page, { south = "axiom", north = "blades", live = true } = {}) {
  const c = await api(server.base, "POST", "/api/games", { south, north, mode: "ai", seat: "south", level: 1 });
  assert.equal(c.status, 201, c.text);
  const { id, token } = c.json;
  if (!live) await page.routeWebSocket(/\/ws$/, () => { /* mocked: open, silent */ });
  await page.goto("/");
  await page.evaluate(([id, token, south, north]) => {
    localStorage.setItem("ironarena.seats.v1", JSON.stringify({ [id]: { seat: "south", token, mode: "ai", south, north, created: Date.now() } }));
  }, [id, token, south, north]);
  await page.goto(`/g/${id}`);
  await page.waitForSelector(".my-turn .board .sq.pickable");
  return { id, token };
}

/** The board at the live position after `n` moves, nothing on its way or moving, open to
 * the player. */
async function openAt(page, n) {
  await page.waitForFunction((k) => {
    const g = document.querySelector(".game");
    return g && g.dataset.ply === String(k) && g.dataset.pending === "false" && g.dataset.animating !== "true" &&
      g.classList.contains("my-turn");
  }, n, { timeout: WAIT_MS });
}

async function clickMove(page, move) {
  await page.click(`.board [data-sq="${move.slice(0, 2)}"]`);
  await page.waitForSelector(`.board [data-sq="${move.slice(2, 4)}"].target`);
  await page.click(`.board [data-sq="${move.slice(2, 4)}"]`);
}

const plainMoves = (s) => s.legal_moves.filter((m) => !s.legal_moves.some((x) => x !== m && x.startsWith(m.slice(0, 4))));
const listed = (page) => page.$$eval(".move-list .mv", (els) => els.map((e) => e.title));
const message = (page) => page.$eval(".msg", (m) => (m.hidden ? "" : m.textContent));

test("a line played after a take-back elsewhere replaces the board's, though it has as many moves", T, async () => {
  const c = await api(server.base, "POST", "/api/games", { south: "clockwork", north: "axiom", mode: "ai", seat: "south", level: 1 });
  const { id, token } = c.json;
  // A second tab of the game (a spectator here): its socket is dropped and kept down while
  // the player takes back and plays another move elsewhere.
  const page = await newPage(browser, server.base);
  const live = await switchableSockets(page);
  await page.goto(`/g/${id}`);
  await page.waitForSelector(".conn.live");
  let s = await getState(id);
  const [m1, m2] = plainMoves(s);
  assert.equal((await api(server.base, "POST", `/api/games/${id}/moves`, { move: m1, ply: 0 }, token)).status, 200);
  await page.waitForFunction(() => document.querySelectorAll(".move-list .mv").length === 2, null, { timeout: WAIT_MS });
  const old = await listed(page);
  await live.drop();
  await page.waitForSelector(".conn.offline");
  assert.equal((await api(server.base, "POST", `/api/games/${id}/takeback`, {}, token)).status, 200);
  assert.equal((await api(server.base, "POST", `/api/games/${id}/moves`, { move: m2, ply: 0 }, token)).status, 200);
  s = await getState(id);
  assert.equal(s.moves.length, old.length, "as many moves as before the take-back");
  assert.notDeepEqual(s.moves, old);
  // Back: the state the server sends at once is the new line, and it is drawn.
  live.restore();
  await page.waitForSelector(".conn.live");
  await page.waitForFunction((want) => JSON.stringify([...document.querySelectorAll(".move-list .mv")].map((e) => e.title)) === want,
    JSON.stringify(s.moves), { timeout: WAIT_MS });
  const dest = m2.slice(2, 4);
  assert.doesNotMatch(await page.getAttribute(`.board [data-sq="${dest}"]`, "aria-label"), /empty/, `the new move's piece on ${dest}`);
  assert.deepEqual(page.errors, []);
});

test("a move whose answer is lost or is a 5xx page is checked against the game: shown as played when the server made it; a busy server's dialog", T, async () => {
  const page = await newPage(browser, server.base);
  const { id } = await aiGame(page, { live: false });
  // 1. The server made the move; its answer was lost on the way (the network failed).
  let s = await getState(id);
  await page.route(MOVES, async (route) => { await route.fetch(); await route.abort("failed"); });
  const checked = page.waitForRequest((r) => r.method() === "GET" && r.url().endsWith(`/api/games/${id}`));
  await clickMove(page, plainMoves(s)[0]);
  await checked; // the game's state, read to settle the move
  await openAt(page, 2);
  assert.equal(await message(page), "", "no 'not sent' message: the move was played");
  assert.deepEqual(await listed(page), (await getState(id)).moves);
  await page.unroute(MOVES);
  // 2. The server made the move; something in between answered 502 with an HTML page.
  s = await getState(id);
  await page.route(MOVES, async (route) => {
    await route.fetch();
    await route.fulfill({ status: 502, contentType: "text/html", body: "<html><body><h1>502 Bad Gateway</h1></body></html>" });
  });
  await clickMove(page, plainMoves(s)[0]);
  await openAt(page, 4);
  assert.equal(await message(page), "");
  assert.deepEqual(await listed(page), (await getState(id)).moves);
  await page.unroute(MOVES);
  // 3. A 500 page and the server never saw the move: taken back, in plain words.
  s = await getState(id);
  const m3 = plainMoves(s)[0];
  await page.route(MOVES, (route) => route.fulfill({ status: 500, contentType: "text/html", body: "<html><body>Internal Server Error</body></html>" }));
  await clickMove(page, m3);
  await page.waitForFunction(() => /not played/.test(document.querySelector(".msg").textContent), null, { timeout: WAIT_MS });
  await openAt(page, 4);
  const said = await message(page);
  assert.match(said, /^Your move was not played: the server had a problem\./);
  assert.doesNotMatch(said, /[<>]|html/i);
  assert.match(await page.getAttribute(`.board [data-sq="${m3.slice(2, 4)}"]`, "aria-label"), /empty/);
  assert.equal((await getState(id)).moves.length, 4);
  await page.unroute(MOVES);
  // 4. A refusal that is not the API's JSON: a plain message, not the page.
  await page.route(MOVES, (route) => route.fulfill({ status: 400, contentType: "text/html", body: "<html><body>Bad Request</body></html>" }));
  await clickMove(page, m3);
  await page.waitForFunction(() => /not played/.test(document.querySelector(".msg").textContent), null, { timeout: WAIT_MS });
  await openAt(page, 4);
  assert.equal(await message(page), "Your move was not played: the server answered with an error (HTTP 400).");
  await page.unroute(MOVES);
  // 5. The server is busy (its limits): the Server Busy dialog with the wait.
  await page.route(MOVES, (route) => route.fulfill({
    status: 503, contentType: "application/json", headers: { "retry-after": "30" },
    body: JSON.stringify({ error: "server_busy", message: "The server is busy" }),
  }));
  await clickMove(page, m3);
  await page.waitForSelector("#busy-dialog[open]");
  assert.match(await page.textContent("#busy-dialog"), /too busy to take your move/);
  assert.match(await page.textContent("#busy-dialog .busy-wait"), /about 30 seconds/);
  await page.keyboard.press("Escape");
  await page.waitForSelector("#busy-dialog[open]", { state: "detached" });
  await openAt(page, 4);
  assert.match(await message(page), /^Your move was not played: the server is busy/);
  await page.unroute(MOVES);
  assert.deepEqual(page.errors.filter((e) => !/\b(500|502|400|503)\b|Failed to load resource/.test(e)), []);
});

test("a move request that never ends: a live update with the move opens the board; without one, the request is given up after 30 s and checked", T, async () => {
  // 1. The server made the move and the live update says so; its answer never comes.
  const page = await newPage(browser, server.base);
  const { id } = await aiGame(page);
  let s = await getState(id);
  await page.route(MOVES, async (route) => { await route.fetch(); await never(); });
  await clickMove(page, plainMoves(s)[0]);
  await openAt(page, 2);
  assert.deepEqual(await listed(page), (await getState(id)).moves);
  assert.deepEqual(page.errors, []);

  // 2. No live updates; the page's clock is Playwright's, moved on past the limit.
  const quiet = await newPage(browser, server.base);
  await quiet.clock.install();
  const g = await aiGame(quiet, { live: false });
  s = await getState(g.id);
  // Made (the server has answered the route), never answered to the page.
  let made;
  const madeNow = new Promise((r) => { made = r; });
  await quiet.route(MOVES, async (route) => { await route.fetch(); made(); await never(); });
  await clickMove(quiet, plainMoves(s)[0]);
  await quiet.waitForSelector('.game[data-pending="true"]');
  await madeNow;
  await quiet.clock.fastForward(31_000);
  await openAt(quiet, 2);
  assert.equal(await message(quiet), "");
  assert.deepEqual(await listed(quiet), (await getState(g.id)).moves);
  await quiet.unroute(MOVES);
  // 3. The server never saw the move, and no answer comes: given up, taken back, said.
  s = await getState(g.id);
  const m = plainMoves(s)[0];
  let out;
  const outNow = new Promise((r) => { out = r; });
  await quiet.route(MOVES, async () => { out(); await never(); });
  await clickMove(quiet, m);
  await quiet.waitForSelector('.game[data-pending="true"]');
  await outNow;
  await quiet.clock.fastForward(31_000);
  await quiet.waitForFunction(() => /not played/.test(document.querySelector(".msg").textContent), null, { timeout: WAIT_MS });
  await openAt(quiet, 2);
  assert.match(await message(quiet), /^Your move was not played: the server did not answer in time\./);
  assert.equal((await getState(g.id)).moves.length, 2);
  assert.deepEqual(quiet.errors, []);
});

test("Take back and Hint are disabled while the player's move is on its way", T, async () => {
  const page = await newPage(browser, server.base);
  const { id } = await aiGame(page);
  let s = await getState(id);
  await clickMove(page, plainMoves(s)[0]);
  await openAt(page, 2);
  await page.waitForSelector(".actions .takeback:not([hidden]):not([disabled])");
  await page.waitForSelector(".actions .ask-hint:not([hidden]):not([disabled])");
  s = await getState(id);
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route(MOVES, async (route) => { await held; await route.continue(); });
  await clickMove(page, plainMoves(s)[0]);
  await page.waitForSelector('.game[data-pending="true"]');
  assert.equal(await page.isDisabled(".actions .takeback"), true, "Take back waits for the move");
  assert.equal(await page.isDisabled(".actions .ask-hint"), true, "Hint waits for the move");
  release();
  await openAt(page, 4);
  await page.waitForSelector(".actions .takeback:not([hidden]):not([disabled])");
  assert.equal(await page.isDisabled(".actions .ask-hint"), false);
  await page.unroute(MOVES);
  assert.deepEqual(page.errors, []);
});

test("after an ability choice (Escape, Cancel, Skip) the keyboard focus is back on the board", T, async () => {
  const page = await newPage(browser, server.base);
  const { id } = await aiGame(page, { south: "axiom", north: "blades" });
  await clickMove(page, "c2c4");
  await openAt(page, 2);
  const s = await getState(id);
  assert.ok(s.legal_moves.some((m) => m.startsWith("c1c2/attract:")), "the Magnet has an ability on c2");
  assert.ok(s.legal_moves.includes("c1c2"), "and may skip it");
  const onBoard = () => page.evaluate(() => !!document.activeElement?.matches(".board .sq"));
  const choose = async () => {
    await clickMove(page, "c1c2");
    await page.waitForSelector(".ability-bar:not([hidden]) button");
    assert.equal(await page.evaluate(() => !!document.activeElement?.closest(".ability-bar")), true, "the bar has the focus");
  };
  await choose();
  await page.keyboard.press("Escape");
  await page.waitForSelector(".ability-bar[hidden]", { state: "attached" });
  assert.equal(await onBoard(), true, "after Escape");
  await choose();
  await page.focus(".ability-bar .cancel");
  await page.keyboard.press("Enter");
  await page.waitForSelector(".ability-bar[hidden]", { state: "attached" });
  assert.equal(await onBoard(), true, "after Cancel");
  await choose();
  await page.focus(".ability-bar .skip");
  await page.keyboard.press("Enter");
  await page.waitForSelector(".ability-bar[hidden]", { state: "attached" });
  await page.waitForFunction(() => !!document.activeElement?.matches(".board .sq"), null, { timeout: WAIT_MS });
  await openAt(page, 4);
  assert.equal((await getState(id)).moves[2], "c1c2");
  assert.deepEqual(page.errors, []);
});
