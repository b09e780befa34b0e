// The AI in a Web Worker (issue 31): crates/ai-wasm, the server's alpha-beta with the
// learned leaf score the server plays its default level with (models/leaf-v1.bin, the file
// the Worker serves), compiled to wasm (public/engine/ai_wasm*, built by
// scripts/build-web-engine.sh). A search takes a fraction of a second to a few seconds;
// here it never blocks the page. One request at a time, answered in order. Without the
// leaf file a request fails (no silently weaker analysis); the next one loads it again.
// Request: {id, fn: "bestMove" | "evaluate", start, moves, level, seed}.
// Answer: {id, result} (the search's JSON, plus `ms`: the search's own time) or {id, error}.
import init, { bestMove, evaluate, setLeaf } from "./engine/ai_wasm.js";

/** The leaf score the server's shipped AI uses (src/net.rs LEAF_FILE). */
const LEAF_FILE = "./models/leaf-v1.bin";

/** The wasm and the leaf score, loaded on the first request. A failed load (a network
 * error, a 5xx) is forgotten, so the next request tries again: this worker lives as long as
 * the page, and ai.js starts a new one only when it dies, so a failure kept would fail every
 * hint and analysis until a reload. (init loads the wasm once, and again only if it failed.) */
let loading = null;
function ready() {
  if (loading) return loading;
  loading = Promise.all([
    init({ module_or_path: new URL("./engine/ai_wasm_bg.wasm", import.meta.url) }),
    fetch(new URL(LEAF_FILE, import.meta.url)).then((r) => {
      if (!r.ok) throw new Error(`the AI's leaf score (${LEAF_FILE}): ${r.status}`);
      return r.arrayBuffer();
    }),
  ]).then(([, leaf]) => setLeaf(new Uint8Array(leaf)));
  // The first handler: forgotten before the requests waiting on it hear of the failure.
  loading.catch(() => { loading = null; });
  return loading;
}

self.onmessage = async ({ data }) => {
  const { id, fn, start, moves, level, seed = 0 } = data;
  try {
    await ready();
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
