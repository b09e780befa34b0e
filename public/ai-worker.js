// The AI in a Web Worker (issue 31): crates/ai-wasm, the server's alpha-beta with the
// learned leaf scores the server plays its alpha-beta levels with (models/leaf-v1.bin up to
// the default level, models/leaf-v3.bin above: the files the Worker serves), compiled to
// wasm (public/engine/ai_wasm*, built by scripts/build-web-engine.sh). A search takes a
// fraction of a second to a few seconds; here it never blocks the page. One request at a
// time, answered in order. Without the level's leaf file a request fails (no silently
// weaker analysis); the next one loads it again. Each file is fetched when a level that
// plays it is first asked (hints and analysis ask one level: one file).
// Request: {id, fn: "bestMove" | "evaluate", start, moves, level, seed}.
// Answer: {id, result} (the search's JSON, plus `ms`: the search's own time) or {id, error}.
import init, { bestMove, evaluate, leafFile, setLeaf } from "./engine/ai_wasm.js";

/** The wasm, loaded on the first request; then each leaf file (by name) on the first
 * request of a level that plays it. A failed load (a network error, a 5xx) is forgotten, so
 * the next request tries again: this worker lives as long as the page, and ai.js starts a
 * new one only when it dies, so a failure kept would fail every hint and analysis until a
 * reload. (init loads the wasm once, and again only if it failed.) */
let wasm = null;
const leaves = new Map();

function once(load, forget) {
  const p = load();
  // The first handler: forgotten before the requests waiting on it hear of the failure.
  p.catch(forget);
  return p;
}

async function ready(level) {
  wasm ??= once(
    () => init({ module_or_path: new URL("./engine/ai_wasm_bg.wasm", import.meta.url) }),
    () => { wasm = null; },
  );
  await wasm;
  // The leaf score the server's shipped AI plays this level with (ai::level::Level::leaf).
  const file = leafFile(level);
  if (!leaves.has(file)) {
    leaves.set(file, once(
      () => fetch(new URL(`./models/${file}`, import.meta.url)).then((r) => {
        if (!r.ok) throw new Error(`the AI's leaf score (${file}): ${r.status}`);
        return r.arrayBuffer();
      }).then((bytes) => setLeaf(file, new Uint8Array(bytes))),
      () => leaves.delete(file),
    ));
  }
  await leaves.get(file);
}

self.onmessage = async ({ data }) => {
  const { id, fn, start, moves, level, seed = 0 } = data;
  try {
    await ready(level);
    const t0 = performance.now();
    // The seed is a u64 on the Rust side (a BigInt here), as the server's.
    const json = fn === "evaluate" ? evaluate(start, moves, level) : bestMove(start, moves, level, BigInt(seed));
    const result = JSON.parse(json);
    result.ms = performance.now() - t0;
    self.postMessage({ id, result });
  } catch (e) {
    self.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
};
