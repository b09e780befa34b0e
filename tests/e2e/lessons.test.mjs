// "Learn the pieces" (issue 31, item 3) in headless Chromium against the real runtime: the
// home page's entry, a wrong move answered with the step's hint (and not played), a
// two-step lesson (charge a Dagger, the scripted reply, then stab) completed by clicks, the
// progress kept over a reload, one lesson by the keyboard alone, every other lesson of
// public/lessons.json completed by its scripted moves through clicks (abilities through the
// ability bar), and the "Try it" links of the rules page; with a session, a completed
// lesson kept on the account (shown done after the browser's copy is cleared). Screenshots of a lesson at 1280 and 390 px. No fixed sleeps:
// every wait is on a state the page exposes (the lesson's data-state and data-step).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { launchBrowser, newPage, shot, startServer, ROOT, TEST_TIMEOUT } from "./support.mjs";

const LESSONS = JSON.parse(readFileSync(join(ROOT, "public/lessons.json"), "utf8")).lessons;

let server;
let browser;
before(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
});
after(async () => {
  await browser?.close();
  server?.stop();
});

const sq = (s) => `.lesson .board [data-sq="${s}"]`;

/** Plays `move` (IAMN) by clicks: the piece, its destination, then the ability's button
 * (a Recall with several destinations: its target first, then the destination). */
async function clickMove(page, move) {
  await page.click(`.lesson.my-turn ${sq(move.slice(0, 2)).slice(8)}`);
  await page.waitForSelector(`${sq(move.slice(2, 4))}.target`);
  await page.click(sq(move.slice(2, 4)));
  if (!move.includes("/")) return;
  const button = `.lesson .ability-bar .ability-btn[data-move="${move}"]`;
  await page.waitForSelector(".lesson .ability-bar:not([hidden])");
  if (!(await page.$(button))) await page.click(`.lesson .ability-bar .ability-btn:has-text("${move.split(":")[1].slice(0, 2)}")`);
  await page.click(button);
}

/** Completes `lesson` by its scripted solution, step by step. */
async function solve(page, lesson) {
  for (const [i, step] of lesson.steps.entries()) {
    await page.waitForSelector(`.lesson[data-lesson="${lesson.id}"][data-step="${i}"][data-state=ready].my-turn`);
    await clickMove(page, step.solution);
  }
  await page.waitForSelector(`.lesson[data-lesson="${lesson.id}"][data-state=done]`);
}

test("lessons: a hint after a wrong move, completed by clicks, progress kept, every lesson solvable, Try it from the rules", TEST_TIMEOUT, async () => {
  const page = await newPage(browser, server.base, { width: 1280, height: 800 });
  await page.goto("/");
  await page.click(".learn-entry");
  await page.waitForSelector(".learn-page[data-ready]");
  assert.equal(await page.locator(".lesson-card").count(), LESSONS.length);
  assert.equal(await page.locator(".lesson-card.done").count(), 0);
  await page.click('.lesson-card[data-lesson="dagger-charge"]');
  await page.waitForURL(/\/learn\/dagger-charge$/);
  await page.waitForSelector('.lesson[data-step="0"][data-state=ready].my-turn');
  // Goal squares are marked, and named for screen readers.
  assert.match(await page.getAttribute(sq("e5"), "aria-label"), /goal/);
  await page.mouse.move(1, 1); // no piece tip under the pointer in the picture
  await shot(page, "lesson-1280");

  // A legal move that misses the goal: not played, the hint instead.
  await page.click(sq("e4"));
  await page.waitForSelector(`${sq("d4")}.target`);
  await page.click(sq("d4"));
  await page.waitForSelector('.lesson[data-tries="1"] .lesson-feedback.wrong');
  assert.match(await page.textContent(".lesson-feedback"), /Not quite\. One square straight forward/);
  assert.equal(await page.getAttribute(sq("e4"), "data-piece"), "South Dagger");
  assert.equal(await page.getAttribute(sq("d4"), "data-piece"), null);
  await shot(page, "lesson-hint-1280");

  // The scripted moves: the Dagger charged on e5, North's reply, then the stab on f6.
  await clickMove(page, "e4e5");
  await page.waitForSelector('.lesson[data-step="1"][data-state=ready]');
  assert.equal(await page.getAttribute(sq("e5"), "data-piece"), "South Dagger (charged)");
  assert.equal(await page.getAttribute(sq("a8"), "data-piece"), "North The Scientist");
  await clickMove(page, "e5f6");
  await page.waitForSelector(".lesson[data-state=done] .lesson-done-line");
  assert.equal(await page.getAttribute(sq("f6"), "data-piece"), null, "the Torch stabbed");

  // The progress survives a reload (this browser's localStorage).
  await page.reload();
  await page.waitForSelector('.lesson[data-lesson="dagger-charge"][data-state=ready]');
  assert.equal(await page.locator('.lesson-strip a[aria-current="page"].done').count(), 1);
  await page.goto("/learn");
  await page.waitForSelector(".learn-page[data-ready]");
  assert.deepEqual(await page.$$eval(".lesson-card.done", (els) => els.map((e) => e.dataset.lesson)), ["dagger-charge"]);
  await shot(page, "learn-1280");

  // A phone: the lessons on the first screen of the home page (a first visit); in a lesson
  // the goal above the board, the whole board on the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  const entry = await page.locator(".first-steps .learn-pieces").boundingBox();
  assert.ok(entry && entry.y + entry.height <= 844, `"Learn the pieces" on the phone's first screen (${JSON.stringify(entry)})`);
  await page.goto("/learn/sickle");
  await page.waitForSelector('.lesson[data-lesson="sickle"][data-state=ready]');
  const board = await page.$eval(".lesson .board", (e) => e.getBoundingClientRect().toJSON());
  assert.ok(board.right <= 390 && board.width > 300, `the board fits the phone (${JSON.stringify(board)})`);
  await shot(page, "lesson-390");
  // A phone on its side: the board beside the goal, whole.
  await page.setViewportSize({ width: 844, height: 390 });
  const side = await page.$eval(".lesson .board", (e) => e.getBoundingClientRect().toJSON());
  assert.ok(side.bottom <= 390 && side.right <= 844, `the board fits 844×390 (${JSON.stringify(side)})`);
  await page.setViewportSize({ width: 390, height: 844 });
  // An ability on the phone: the Dial's Recall, its choice under the board's goal.
  await page.goto("/learn/dial");
  await page.waitForSelector('.lesson[data-lesson="dial"][data-state=ready].my-turn');
  await page.click(sq("d2"));
  await page.click(sq("d3"));
  await page.waitForSelector(".lesson .ability-bar:not([hidden])");
  await shot(page, "lesson-ability-390");
  await page.click('.lesson .ability-btn:has-text("Recall d6")');
  await page.click('.lesson .ability-btn[data-move="d2d3/recall:d6h9"]');
  await page.waitForSelector('.lesson[data-lesson="dial"][data-state=done]');
  assert.equal(await page.getAttribute(sq("h9"), "data-piece"), "North Sickle");
  await shot(page, "lesson-done-390");

  // "Try it" on the rules page's Sickle row opens its lesson.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/rules#sickle");
  await page.waitForSelector(".rules-page[data-ready]");
  // Every section a lesson names exists; a link on every piece's row.
  const missing = await page.evaluate((all) => all.flatMap((l) => l.rules.filter((id) => !document.getElementById(id))), LESSONS);
  assert.deepEqual(missing, [], "rules sections the lessons name");
  const rows = await page.$$eval("tr[id]", (els) => els.filter((e) => !e.querySelector(".try-it")).map((e) => e.id));
  assert.deepEqual(rows, [], "pieces without a Try it link");
  await page.click("#sickle .try-it");
  await page.waitForURL(/\/learn\/sickle$/);
  // From the Game Rules window too: the lesson opens and the window closes.
  await page.click("#btn-rules");
  await page.waitForSelector("#rules-dialog #dial .try-it");
  await page.click("#rules-dialog #dial .try-it");
  await page.waitForURL(/\/learn\/dial$/);
  await page.waitForSelector("#rules-dialog", { state: "detached" });
  await page.waitForSelector('.lesson[data-lesson="dial"][data-state=ready]');

  // The keyboard alone: the Sword from a2 up the file to a7 (arrow keys, Enter).
  await page.goto("/learn/sword");
  await page.waitForSelector('.lesson[data-lesson="sword"][data-state=ready].my-turn');
  await page.focus(sq("a2"));
  await page.keyboard.press("Enter");
  await page.waitForSelector(`${sq("a7")}.target`);
  for (let i = 0; i < 5; i++) await page.keyboard.press("ArrowUp");
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.sq), "a7");
  await page.keyboard.press("Enter");
  await page.waitForSelector('.lesson[data-lesson="sword"][data-state=done]');
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains("next-lesson")), true, "the focus on Next");

  // Every other lesson, by its scripted moves (the engine judges each against its goal),
  // each opened as a link in the page is (no reload) and with reduced motion (no slides):
  // a fraction of the time.
  await page.emulateMedia({ reducedMotion: "reduce" });
  const t0 = Date.now();
  for (const lesson of LESSONS) {
    if (lesson.id === "dagger-charge" || lesson.id === "sword") continue;
    await page.evaluate((id) => {
      history.pushState(null, "", `/learn/${id}`);
      dispatchEvent(new PopStateEvent("popstate"));
    }, lesson.id);
    await solve(page, lesson);
  }
  console.log(`every lesson solved in ${Date.now() - t0} ms`);
  await page.goto("/learn");
  await page.waitForSelector(".learn-page[data-ready]");
  assert.equal(await page.locator(".lesson-card.done").count(), LESSONS.length);
  assert.deepEqual(page.errors, []);
});

test("lessons: with a session, a completed lesson is kept on the account and shown after localStorage is cleared", TEST_TIMEOUT, async () => {
  const page = await newPage(browser, server.base, { width: 1280, height: 800 });
  await page.goto("/");
  // A session, as the client starts one before its first write (a guest: the account a
  // Discord sign-in keeps). The lessons themselves never make one.
  await page.evaluate(() => fetch("/api/me", { method: "POST", headers: { "content-type": "application/json" } }));
  await page.goto("/learn/cog");
  const recorded = page.waitForResponse((r) => r.request().method() === "PUT" && r.url().endsWith("/api/me/lessons/cog"));
  await solve(page, LESSONS.find((l) => l.id === "cog"));
  assert.equal((await recorded).status(), 200);
  // This browser forgets; the account remembers.
  await page.evaluate(() => localStorage.clear());
  await page.goto("/learn");
  await page.waitForSelector(".learn-page[data-ready]");
  assert.deepEqual(await page.$$eval(".lesson-card.done", (els) => els.map((e) => e.dataset.lesson)), ["cog"]);
  assert.deepEqual(page.errors, []);
});
