// End-to-end checks of the game screen around a move, in headless Chromium against the
// real runtime: a line played after a take-back elsewhere (as many moves as the old one)
// replaces the board's; an ability choice gives the keyboard focus back to the board. No
// fixed sleeps: every wait is on a state the page exposes (data-ply, data-pending,
// data-animating, an element, the focus).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { api, launchBrowser, newPage, startServer, TEST_TIMEOUT, WAIT_MS } from "./support.mjs";

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

/** A game against the AI (level 1, South), its seat in the page's browser, opened there
 * and open to the first move. */
async function aiGame(page, { south = "axiom", north = "blades" } = {}) {
  const c = await api(server.base, "POST", "/api/games", { south, north, mode: "ai", seat: "south", level: 1 });
  assert.equal(c.status, 201, c.text);
  const { id, token } = c.json;
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

test("a line played after a take-back elsewhere replaces the board's, though it has as many moves", T, async () => {
  const c = await api(server.base, "POST", "/api/games", { south: "clockwork", north: "axiom", mode: "ai", seat: "south", level: 1 });
  const { id, token } = c.json;
  // A second tab of the game (a spectator here): its socket is dropped and kept down while
  // the player takes back and plays another move elsewhere.
  const page = await newPage(browser, server.base);
  const sockets = [];
  let allow = true;
  await page.routeWebSocket(/\/ws$/, (ws) => {
    sockets.push(ws);
    if (allow) ws.connectToServer();
    else ws.close();
  });
  await page.goto(`/g/${id}`);
  await page.waitForSelector(".conn.live");
  let s = await getState(id);
  const [m1, m2] = plainMoves(s);
  assert.equal((await api(server.base, "POST", `/api/games/${id}/moves`, { move: m1, ply: 0 }, token)).status, 200);
  await page.waitForFunction(() => document.querySelectorAll(".move-list .mv").length === 2, null, { timeout: WAIT_MS });
  const old = await listed(page);
  allow = false;
  await sockets.at(-1).close();
  await page.waitForSelector(".conn.offline");
  assert.equal((await api(server.base, "POST", `/api/games/${id}/takeback`, {}, token)).status, 200);
  assert.equal((await api(server.base, "POST", `/api/games/${id}/moves`, { move: m2, ply: 0 }, token)).status, 200);
  s = await getState(id);
  assert.equal(s.moves.length, old.length, "as many moves as before the take-back");
  assert.notDeepEqual(s.moves, old);
  // Back: the state the server sends at once is the new line, and it is drawn.
  allow = true;
  await page.waitForSelector(".conn.live");
  await page.waitForFunction((want) => JSON.stringify([...document.querySelectorAll(".move-list .mv")].map((e) => e.title)) === want,
    JSON.stringify(s.moves), { timeout: WAIT_MS });
  const dest = m2.slice(2, 4);
  assert.doesNotMatch(await page.getAttribute(`.board [data-sq="${dest}"]`, "aria-label"), /empty/, `the new move's piece on ${dest}`);
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
