// An imported game record (issue 31): the page "Analyse a record" (/analyse) takes a
// record as the server exports it (GET /api/games/{id}/record, "Copy game record" on a
// game's page; the format is crates/engine/src/record.rs's), replays it with the browser's
// engine, analyses every position (analysis.js: the graph, the moves that lost ground) and
// opens it on the analysis board (analysis-board.js).
import { analyse, classify, graphSVG, GRAPH_VIEWBOX } from "./analysis.js";
import { AnalysisBoard } from "./analysis-board.js";
import { parsePosition, replay } from "./notation.js";
import { el } from "./ui.js";

export const HEADER = "[Iron Arena game record]";

/**
 * The record's parts: {tags: {name: value} (id, south, north, mode, …), start (IAPN),
 * moves (IAMN), result}. Syntax only, as the engine's Record::parse; `checkRecord` replays
 * it. Throws an Error that says which line is wrong.
 */
export function parseRecord(text) {
  const lines = String(text).split(/\r?\n/).map((l, i) => [i + 1, l.trim()]).filter(([, l]) => l);
  if (lines[0]?.[1] !== HEADER) throw new Error(`not a game record: the first line must be '${HEADER}'`);
  const tags = {};
  let start = null;
  let moves = null;
  let result = null;
  for (const [n, line] of lines.slice(1)) {
    const at = line.indexOf(":");
    if (at < 0) throw new Error(`record line ${n}: expected '<tag>: <value>'`);
    const key = line.slice(0, at).trim();
    const value = line.slice(at + 1).trim();
    if (key === "start") start = value;
    else if (key === "moves") moves = value.split(/\s+/).filter(Boolean);
    else if (key === "result") result = value;
    else tags[key] = value;
  }
  for (const [name, v] of [["start", start], ["moves", moves], ["result", result]]) {
    if (v === null) throw new Error(`the record has no '${name}:' line`);
  }
  return { tags, start, moves, result };
}

/**
 * Replays a parsed record with the engine: throws when its start or a move is not legal.
 * Refuses a game between humans that is still being played: analysis is never help in a
 * game against a person (game.js's rule; an edited record can get round it, as can any
 * engine off the site, but the site does not offer it).
 */
export function checkRecord(rec) {
  try { parsePosition(rec.start); } catch (e) { throw new Error(`the record's start position: ${e.message}`); }
  const steps = replay(rec.start, rec.moves);
  if (steps.length !== rec.moves.length + 1) {
    const k = steps.length; // the first move that could not be played, 1-based
    throw new Error(`move ${k} of the record (${rec.moves[k - 1]}) cannot be played there`);
  }
  const ai = [rec.tags.south, rec.tags.north].some((t) => /\(ai\)/.test(t || ""));
  if (rec.result === "ongoing" && !ai) {
    throw new Error("this game between players is still being played: it can be analysed once it is over");
  }
  return steps;
}

/** The page: a field for the record, then its analysis and the analysis board. */
export function showRecord(main) {
  const root = el(`<div class="record-page">
    <section class="panel-card" aria-labelledby="rec-h"><h1 id="rec-h">Analyse a record</h1>
      <form class="record-form">
        <label for="record-text">Paste a game record ("Copy game record" on a game's page)</label>
        <textarea id="record-text" name="record" rows="7" spellcheck="false" autocomplete="off" placeholder="${HEADER}"></textarea>
        <div class="row"><button type="submit" class="primary">Analyse</button></div>
        <p class="form-error" role="alert" hidden></p>
      </form>
    </section>
    <section class="panel-card record-analysis" aria-labelledby="rec-a-h" hidden>
      <h2 id="rec-a-h">The record</h2>
      <p class="record-summary"></p>
      <div class="analysis" role="region" aria-label="Analysis">
        <progress class="analysis-progress" max="1" value="0" aria-label="Analysis progress"></progress>
        <svg class="eval-graph" viewBox="${GRAPH_VIEWBOX}" role="img" aria-label="Evaluation graph: South's chance to win at each position (the board's buttons step through the same positions)"></svg>
        <p class="analysis-note" aria-live="polite"></p>
      </div>
      <div class="analysis-board-host"></div>
    </section>
  </div>`);
  main.replaceChildren(root);
  const $ = (s) => root.querySelector(s);
  let board = null;
  let run = 0;
  let shown = null; // {evals, verdicts} once analysed
  const drawGraph = (ply) => {
    if (!shown) return;
    $(".eval-graph").innerHTML = graphSVG(shown.evals, shown.verdicts, ply);
    const v = shown.verdicts[ply];
    $(".analysis-note").textContent = `${ply ? `After move ${ply}` : "At the start"}: South's chance to win ${Math.round(shown.evals[ply].south * 100)}%.` +
      (v?.cls ? ` The next move was ${v.cls === "inaccuracy" ? "an" : "a"} ${v.cls}.` : "");
  };
  $(".eval-graph").addEventListener("click", (e) => {
    const pt = e.target.closest?.("circle[data-ply]");
    if (pt && board) board.setBase(Number(pt.dataset.ply));
  });
  $(".record-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const err = $(".form-error");
    err.hidden = true;
    let rec;
    let steps;
    try {
      rec = parseRecord($("#record-text").value);
      steps = checkRecord(rec);
    } catch (x) {
      err.textContent = `This record cannot be analysed: ${x.message}.`;
      err.hidden = false;
      return;
    }
    const mine = ++run;
    shown = null;
    board?.destroy();
    const box = $(".record-analysis");
    box.hidden = false;
    const who = (side) => rec.tags[side] || side;
    $(".record-summary").textContent = `South: ${who("south")}; North: ${who("north")}; ${rec.moves.length} moves; result: ${rec.result}.`;
    board = new AnalysisBoard($(".analysis-board-host"), {
      game: { start: rec.start, moves: rec.moves },
      ply: rec.moves.length,
      nav: true,
      onBase: (ply) => drawGraph(ply),
    });
    const a = $(".analysis");
    delete a.dataset.done;
    const bar = $(".analysis-progress");
    bar.hidden = false;
    $(".eval-graph").replaceChildren();
    $(".analysis-note").textContent = "Analysing…";
    box.scrollIntoView({ block: "start" });
    try {
      const evals = await analyse(rec.start, rec.moves, (done, total) => { bar.max = total; bar.value = done; });
      if (mine !== run || !root.isConnected) return;
      const turns = rec.moves.map((_, k) => steps[k].pos.turn);
      shown = { evals, verdicts: classify(evals, rec.moves, turns) };
      bar.hidden = true;
      a.dataset.done = "true";
      drawGraph(board.ply);
    } catch (x) {
      if (mine !== run) return;
      $(".analysis-note").textContent = `The analysis failed: ${x.message}`;
    }
  });
  return () => { run++; board?.destroy(); };
}
