// End-to-end checks of the game screen around a move, in headless Chromium against the
// real runtime: an ability choice gives the keyboard focus back to the board. No fixed
// sleeps: every wait is on a state the page exposes (data-ply, data-pending,
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
