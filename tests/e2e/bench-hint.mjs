// The hint's search, a benchmark (issue 31, not a test): crates/ai-wasm's bestMove at the
// hint's level in headless Chromium (in the Web Worker, public/ai.js, the search's own time
// as the worker measures it) against the same function natively (the release build,
// crates/ai-wasm/examples/bench-hint.rs, a process kept open), on the AI benchmarks' nine
// positions, alternated call by call so that both see the same load on a shared machine;
// and what the AI adds to the browser's download. The ratio wasm / native is the figure.
// Both must choose the same move (one search, two targets).
//   node tests/e2e/bench-hint.mjs [level, default 4] [rounds, default 5]
import { execFileSync, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { join } from "node:path";
import { launchBrowser, newPage, ROOT, startServer } from "./support.mjs";

const level = Number(process.argv[2] ?? 4);
const rounds = Number(process.argv[3] ?? 5);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

execFileSync("cargo", ["build", "--release", "--locked", "-q", "-p", "ai-wasm", "--example", "bench-hint"], { cwd: ROOT, stdio: "inherit" });
const child = spawn(join(process.env.CARGO_TARGET_DIR || join(ROOT, "target"), "release/examples/bench-hint"), [], { stdio: ["pipe", "pipe", "inherit"] });
const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
const readLine = async () => (await lines.next()).value;
const starts = [];
for (let l = await readLine(); l; l = await readLine()) starts.push(l);
const nativeCall = async (i) => { child.stdin.write(`${i} ${level}\n`); return JSON.parse(await readLine()); };

const server = await startServer();
const browser = await launchBrowser();
let failed = false;
try {
  const page = await newPage(browser, server.base);
  await page.goto("/");
  await page.evaluate(async () => { window.ai = await import("/ai.js"); });
  const wasmCall = (i) => page.evaluate(([start, level]) => window.ai.bestMove(start, [], level, 0), [starts[i], level]);
  const native = starts.map(() => ({ ms: [] }));
  const wasm = starts.map(() => ({ ms: [] }));
  // A warm-up round each (the wasm's optimising tier), then the timed rounds alternated.
  for (let i = 0; i < starts.length; i++) { await nativeCall(i); await wasmCall(i); }
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < starts.length; i++) {
      const n = await nativeCall(i);
      const w = await wasmCall(i);
      native[i].ms.push(n.ms);
      native[i].move = n.move;
      wasm[i].ms.push(w.ms);
      wasm[i].move = w.move;
      wasm[i].nodes = w.nodes;
    }
  }
  let sumN = 0;
  let sumW = 0;
  console.log(`level ${level}, ${rounds} rounds after a warm-up; median ms per position`);
  native.forEach((n, i) => {
    const w = wasm[i];
    const [mn, mw] = [median(n.ms), median(w.ms)];
    sumN += mn;
    sumW += mw;
    const same = n.move === w.move;
    if (!same) failed = true;
    console.log(`  position ${i + 1}: native ${mn.toFixed(1)} ms, Chromium ${mw.toFixed(1)} ms (x${(mw / mn).toFixed(2)}), ${w.nodes} nodes, move ${w.move}${same ? "" : ` DIFFERS from native ${n.move}`}`);
  });
  console.log(`all nine: native ${sumN.toFixed(0)} ms, Chromium ${sumW.toFixed(0)} ms: wasm / native = ${(sumW / sumN).toFixed(2)}`);
  const size = (f) => readFileSync(join(ROOT, "public", f));
  const files = ["engine/ai_wasm_bg.wasm", "engine/ai_wasm.js", "ai-worker.js", "models/leaf-v1.bin"];
  let raw = 0;
  let gz = 0;
  for (const f of files) {
    const b = size(f);
    raw += b.length;
    gz += gzipSync(b, { level: 9 }).length;
    console.log(`  ${f}: ${b.length} B raw, ${gzipSync(b, { level: 9 }).length} B gzip`);
  }
  console.log(`the AI's download (on the first hint): ${raw} B raw, ${gz} B gzip; always loaded: public/ai.js ${size("ai.js").length} B raw, ${gzipSync(size("ai.js"), { level: 9 }).length} B gzip`);
} finally {
  child.stdin.end();
  await browser.close();
  server.stop();
}
if (failed) process.exit(1);
