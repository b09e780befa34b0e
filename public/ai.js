// The browser's AI (issue 31): asks public/ai-worker.js, started on the first request, so
// a page that never asks downloads none of the AI. No DOM.

let worker = null;
let next = 1;
const waiting = new Map();

function start() {
  worker = new Worker(new URL("./ai-worker.js", import.meta.url), { type: "module" });
  worker.onmessage = ({ data }) => {
    const w = waiting.get(data.id);
    if (!w) return;
    waiting.delete(data.id);
    if (data.error) w.reject(new Error(data.error)); else w.resolve(data.result);
  };
  // A worker that fails to load (or dies) fails every request waiting on it; the next
  // request starts a new one.
  worker.onerror = (e) => {
    e.preventDefault?.();
    for (const w of waiting.values()) w.reject(new Error(e.message || "the AI could not start"));
    waiting.clear();
    worker.terminate();
    worker = null;
  };
}

function ask(request) {
  if (!worker) start();
  const id = next++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, ...request });
  });
}

/** The move the AI at `level` would play after `moves` (IAMN) from `start` (IAPN):
 * {move, score (pawns, side to move), win and south (chances to win), line (IAMN, the move
 * first), depth, nodes, ms}. The same search and choice as the server's AI at that level
 * and seed. */
export const bestMove = (start, moves, level, seed = 0) => ask({ fn: "bestMove", start, moves, level, seed });

/** The position after `moves` evaluated at `level`: the same answer as bestMove's, seed 0. */
export const evaluate = (start, moves, level) => ask({ fn: "evaluate", start, moves, level });
