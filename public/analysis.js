// The analysis of a finished game (issue 31): every position evaluated by the browser's AI
// (public/ai.js: the server's search in a Web Worker), each move classed by how much it
// lowered its player's chance to win, and the evaluation graph. No DOM but the graph's
// markup.
import * as ai from "./ai.js";

/** The analysis's strength per position: the server's default level. */
export const ANALYSIS_LEVEL = 4;

/** A move's class by the drop in its player's chance to win (0-1), the worst first: the
 * bands of Lichess's winning chances (0.1, 0.2, 0.3 on its -1..1 scale) on ours. */
export const CLASSES = [["blunder", 0.15, "??"], ["mistake", 0.10, "?"], ["inaccuracy", 0.05, "?!"]];

/** Evaluates every position of the game (`moves.length + 1` of them), one search after
 * another, calling `progress(done, total)` after each. Returns [{south, move, line}]:
 * South's chance to win there, and the engine's best move and line (none at the end). */
export async function analyse(start, moves, progress = () => {}) {
  const out = [];
  for (let k = 0; k <= moves.length; k++) {
    const r = await ai.evaluate(start, moves.slice(0, k), ANALYSIS_LEVEL);
    out.push({ south: r.south, move: r.move, line: r.line });
    progress(k + 1, moves.length + 1);
  }
  return out;
}

/** Each move's verdict: {cls, mark, drop, before, after} (its player's chances before and
 * after it), `cls` null for a move within the bands or the engine's own choice.
 * `turns[k]`: the side that played move k. */
export function classify(evals, moves, turns) {
  return moves.map((mv, k) => {
    const mine = (e) => (turns[k] === "south" ? e.south : 1 - e.south);
    const before = mine(evals[k]);
    const after = mine(evals[k + 1]);
    const drop = before - after;
    const band = mv !== evals[k].move ? CLASSES.find(([, t]) => drop >= t) : null;
    return { cls: band ? band[0] : null, mark: band ? band[2] : "", drop, before, after };
  });
}

const W = 600;
const H = 80;

/** The graph's markup: South's chance per position (top: South wins), a point per position
 * (`data-ply`), coloured by the class of the move played from it (where the better move
 * was to be found), the shown position marked. */
export function graphSVG(evals, verdicts, shown) {
  const n = Math.max(evals.length - 1, 1);
  const x = (i) => 4 + (i * (W - 8)) / n;
  const y = (p) => 4 + (1 - p) * (H - 8);
  const pts = evals.map((e, i) => `${x(i).toFixed(1)},${y(e.south).toFixed(1)}`).join(" ");
  const area = `M${x(0)},${y(0.5)} L${pts.split(" ").join(" L")} L${x(evals.length - 1)},${y(0.5)} Z`;
  const dots = evals.map((e, i) => {
    const v = verdicts[i] ?? null;
    const cls = ["pt", v?.cls, i === shown ? "shown" : ""].filter(Boolean).join(" ");
    return `<circle class="${cls}" data-ply="${i}" cx="${x(i).toFixed(1)}" cy="${y(e.south).toFixed(1)}" r="${v?.cls ? 4 : 2.6}"><title>${i ? `After move ${i}` : "Start"}: South ${Math.round(e.south * 100)}%${v?.cls ? `; the next move, a ${v.cls}` : ""}</title></circle>`;
  }).join("");
  return `<line class="mid" x1="0" x2="${W}" y1="${y(0.5)}" y2="${y(0.5)}"/>` +
    `<line class="now" x1="${x(shown)}" x2="${x(shown)}" y1="0" y2="${H}"/>` +
    `<path class="area" d="${area}"/><polyline class="curve" points="${pts}"/>${dots}`;
}

export const GRAPH_VIEWBOX = `0 0 ${W} ${H}`;
