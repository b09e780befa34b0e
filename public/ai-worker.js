// The AI in a Web Worker (issue 31): crates/ai-wasm, the server's hybrid search over the
// hand-written heuristic, compiled to wasm (public/engine/ai_wasm*, built by
// scripts/build-web-engine.sh). A search takes a fraction of a second to a few seconds;
// here it never blocks the page. One request at a time, answered in order.
// Request: {id, fn: "bestMove" | "evaluate", start, moves, level, seed}.
// Answer: {id, result} (the search's JSON, plus `ms`: the search's own time) or {id, error}.
import init, { bestMove, evaluate } from "./engine/ai_wasm.js";

const ready = init({ module_or_path: new URL("./engine/ai_wasm_bg.wasm", import.meta.url) });

self.onmessage = async ({ data }) => {
  const { id, fn, start, moves, level, seed = 0 } = data;
  try {
    await ready;
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
