// The felt AI reply, a benchmark (issue 34, not a test): in headless Chromium against the
// real runtime, the time from the click that completes the player's move to "Your turn"
// shown again (the AI's reply on the board, the board caught up), beside the API's own time
// for that move's request (which carries the AI's reply), for the same moves in one run.
// The ratio felt / API is the figure: what the client adds to the server's answer (the
// machine is shared and noisy, so absolute times vary from run to run).
//   node tests/e2e/bench-felt-reply.mjs [levels, default 1,2,4] [moves per level, default 8]
// (scripts/bench-felt-reply.sh runs it with the project's Node and the built module.)
import { api, launchBrowser, newPage, startAiGameFromHome, startServer } from "./support.mjs";

const levels = (process.argv[2] ?? "1,2,4").split(",").map(Number);
const perLevel = Number(process.argv[3] ?? 8);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
// Moves without a second choice (an ability's prompt) and without a promotion suffix.
const plainMoves = (s) => s.legal_moves.filter((m) => !s.legal_moves.some((x) => x !== m && x.startsWith(m.slice(0, 4))));

const server = await startServer();
const browser = await launchBrowser();
const rows = [];
try {
  for (const level of levels) {
    const page = await newPage(browser, server.base);
    const apiMs = [];
    page.on("requestfinished", (req) => {
      if (req.method() === "POST" && /\/api\/games\/[0-9a-f]{24}\/moves$/.test(req.url())) {
        apiMs.push(req.timing().responseEnd);
      }
    });
    const felt = [];
    const feltApi = [];
    // Games the AI wins early (a king-piece taken) end the sample: a new game goes on.
    for (let games = 0; felt.length < perLevel && games < 2 * perLevel; games++) {
      await startAiGameFromHome(page, level);
      const id = /\/g\/([0-9a-f]{24})/.exec(page.url())[1];
      for (let i = 0; felt.length < perLevel; i++) {
        const s = (await api(server.base, "GET", `/api/games/${id}`)).json;
        const moves = plainMoves(s);
        if (s.result || !moves.length) break;
        const mv = moves[(i * 7) % moves.length];
        const plies = s.moves.length;
        await page.waitForSelector(".my-turn .board .sq.pickable");
        await page.click(`.board [data-sq="${mv.slice(0, 2)}"]`);
        await page.waitForSelector(`.board [data-sq="${mv.slice(2, 4)}"].target`);
        const before = apiMs.length;
        const t0 = Date.now();
        await page.click(`.board [data-sq="${mv.slice(2, 4)}"]`);
        // The reply listed, the player's turn shown, and the board at rest; or the game over.
        let over = false;
        let stop = false;
        const ended = (async () => {
          while (!stop) {
            await new Promise((r) => setTimeout(r, 250));
            if ((await api(server.base, "GET", `/api/games/${id}`)).json.result) { over = true; return; }
          }
        })();
        await Promise.race([ended, page.waitForFunction((n) => document.querySelectorAll(".move-list .mv").length >= n &&
          document.querySelector(".my-turn") && /Your turn/.test(document.querySelector(".turn")?.textContent ?? "") &&
          document.querySelector(".game")?.dataset.animating !== "true", plies + 2, { timeout: 120_000 })]);
        stop = true;
        if (over) break;
        felt.push(Date.now() - t0);
        while (apiMs.length <= before) await new Promise((r) => setTimeout(r, 20));
        feltApi.push(apiMs[before]);
      }
    }
    const n = felt.length;
    const row = { level, moves: n, felt_ms: median(felt), api_ms: median(feltApi) };
    row.ratio = row.felt_ms / row.api_ms;
    row.added_ms = row.felt_ms - row.api_ms;
    rows.push(row);
    console.log(`level ${level}: ${n} moves, felt reply median ${row.felt_ms.toFixed(0)} ms, ` +
      `API ${row.api_ms.toFixed(0)} ms, felt/API ${row.ratio.toFixed(2)}, the client adds ${row.added_ms.toFixed(0)} ms`);
    await page.context().close();
  }
} finally {
  await browser.close();
  server.stop();
}
console.log(JSON.stringify(rows));
