// A browser benchmark of the client's pace (issue 34, item 7), not a test: headless
// Chromium against a fresh local runtime (the deployed module of build/, the real AI).
//   node tests/e2e/bench-client.mjs
// Times are taken in the page: from the click event to the first frame that shows the end.
// 1. Felt AI reply: from the click that drops the player's piece to "Your turn" with the
//    board open and still, beside the move request's own time (sent to answered), at
//    levels 1 and 4 (a new game whenever one ends).
// 2. Create to game page: the home page with 30 games in My games (as after an hour of
//    play), "Create game and invite link" until the invite is shown.
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
  let sent = 0;
  let answered = 0;
  page.on("request", (r) => { if (/\/moves$/.test(r.url())) sent = Date.now(); });
  page.on("response", (r) => { if (/\/moves$/.test(r.url())) answered = Date.now(); });
  for (const level of [1, 4]) {
    const felt = [];
    const request = [];
    while (felt.length < ROUNDS) {
      await page.goto("/");
      await page.selectOption("select[name=level]", String(level));
      await page.click(".start-ai");
      await page.waitForSelector(".my-turn .board .sq.pickable");
      for (let i = 0; felt.length < ROUNDS; i++) {
        const id = /\/g\/([0-9a-f]{24})/.exec(page.url())[1];
        const s = await (await fetch(`${server.base}/api/games/${id}`)).json();
        const plain = s.legal_moves.filter((m) => !s.legal_moves.some((x) => x !== m && x.startsWith(m.slice(0, 4))));
        const mv = plain[i % plain.length];
        await page.click(`.board [data-sq="${mv.slice(0, 2)}"]`);
        await page.waitForSelector(`.board [data-sq="${mv.slice(2, 4)}"].target`);
        await clickAt(page, `.board [data-sq="${mv.slice(2, 4)}"]`);
        const ms = await until(page, () => {
          const g = document.querySelector(".game");
          const turn = g.querySelector(".turn").textContent;
          const yes = /Game over/.test(turn) || (g.classList.contains("my-turn") && /Your turn/.test(turn) && g.dataset.animating !== "true");
          if (yes) window.doneAt = performance.now();
          return yes;
        });
        if (/Game over/.test(await page.textContent(".turn"))) break;
        felt.push(ms);
        request.push(answered - sent);
      }
    }
    console.log(`felt AI reply, level ${level}: ${summary(felt)}; the move request: ${summary(request)}`);
  }
  await page.goto("/");
  await page.evaluate(async () => {
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
