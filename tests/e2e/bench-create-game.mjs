// Create to game page, a benchmark (issue 34, item 7; not a test): headless Chromium against
// a fresh local runtime (the deployed module of build/). The home page holds 30 games in My
// games (as after an hour of play); the time runs from the click on "Create game and invite
// link" to the first frame that shows the invite on the game page, both taken in the page.
// (The felt AI reply has its own benchmark: tests/e2e/bench-felt-reply.mjs.)
//   node tests/e2e/bench-create-game.mjs        (ROUNDS=n, default 6)
import { startServer, launchBrowser, newPage } from "./support.mjs";

const ROUNDS = Number(process.env.ROUNDS || 6);
const server = await startServer({});
const browser = await launchBrowser();
/** Clicks `selector`, the page noting when the click reached it (after Playwright's own
 * checks, which under load take longer than what is measured). */
async function clickAt(page, selector) {
  await page.evaluate(() => document.addEventListener("click", () => { window.clickedAt = performance.now(); }, { capture: true, once: true }));
  await page.click(selector);
}
/** Ms from that click until `done()` holds, checked every frame in the page (`done`
 * notes when: `window.doneAt`). */
async function until(page, done) {
  await page.waitForFunction(done, null, { polling: "raf" });
  return Math.round(await page.evaluate(() => window.doneAt - window.clickedAt));
}
const summary = (xs) => { const s = [...xs].sort((a, b) => a - b); return `median ${s[s.length >> 1]} ms (${s[0]}-${s.at(-1)}, n=${s.length})`; };
try {
  const page = await newPage(browser, server.base);
  await page.goto("/");
  await page.evaluate(async () => {
    await fetch("/api/me", { method: "POST", headers: { "content-type": "application/json" } }); // the session
    const all = {};
    for (let i = 0; i < 30; i++) {
      const r = await (await fetch("/api/games", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ mode: "link", seat: "south", south: "blades", north: "axiom" }) })).json();
      all[r.id] = { seat: "south", token: r.token, mode: "link", south: "blades", north: "axiom", created: Date.now() };
    }
    localStorage.setItem("ironarena.seats.v1", JSON.stringify(all));
  });
  const created = [];
  for (let i = 0; i < ROUNDS; i++) {
    await page.goto("/");
    await clickAt(page, ".create-link");
    created.push(await until(page, () => !!document.querySelector(".invite:not([hidden]) .invite-url") && (window.doneAt = performance.now())));
    // Back to the same 30 (the game just made is not kept).
    await page.evaluate(() => {
      const a = JSON.parse(localStorage.getItem("ironarena.seats.v1"));
      for (const [k, v] of Object.entries(a)) if (v.invite_url) delete a[k];
      localStorage.setItem("ironarena.seats.v1", JSON.stringify(a));
    });
  }
  console.log(`create to game page (invite shown), 30 games in My games: ${summary(created)}`);
} finally {
  await browser.close();
  server.stop();
}
