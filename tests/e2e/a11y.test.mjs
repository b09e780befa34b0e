// Automated accessibility check of the browser client with axe-core (issue 5: "contrast
// that passes WCAG AA", ARIA labels on squares and pieces). axe runs inside the page on the
// main screens: home, a game against the AI at 1280 px and at 390 px (a piece's tip open
// too, the analysis board, then its record analysed), the Game Rules modal,
// the Server Busy modal, and the players' screens (story, stage intro and stage game,
// Player Info with the account panel, the Player Info modal, the leaderboard), and Learn the
// pieces (the lessons, a lesson with its hint and its ability choice). No colour-contrast
// violations are allowed at all, and no serious or critical violation of any WCAG 2 A/AA rule.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { newPage, settled, shot, startAiGameFromHome, useServersAndBrowser, TEST_TIMEOUT, WAIT_MS } from "./support.mjs";

const require = createRequire(import.meta.url);
const AXE = require.resolve("axe-core/axe.min.js");

const T = TEST_TIMEOUT;
const suite = useServersAndBrowser(before, after);

// The page background is a radial gradient, on which axe cannot compute contrast (it reports
// those texts as "incomplete"). So contrast is checked a second time with the gradient
// replaced by each of its two end colours, solid: the lighter one is the worst case for the
// light text of the theme, the darker one for any dark text. Short texts (the board's
// coordinates, "×") are checked too (axe skips texts under three characters by default).
const GRADIENT_STOPS = ["#2a2f3a", "#15171c"];

const A11Y_TAGS = ["wcag2a", "wcag2aa"];

/** Load axe into the page once; contrast of short texts included. */
async function loadAxe(page) {
  // axe's own functions, not an element named by its id (the rules' Axe row is `#axe`,
  // which a window's named properties make `window.axe`).
  if (await page.evaluate(() => typeof window.axe?.run === "function")) return;
  // Evaluated, not added as a <script>: the client's Content-Security-Policy (public/_headers)
  // refuses inline scripts, and the test must see the page as served.
  await page.evaluate(readFileSync(AXE, "utf8"));
  // configure() replaces a check's options as a whole: axe's defaults, with ignoreLength on.
  await page.evaluate(() => window.axe.configure({
    checks: [{
      id: "color-contrast",
      options: {
        ignoreUnicode: true, ignoreLength: true, ignorePseudo: false, boldValue: 700, boldTextPt: 14, largeTextPt: 18,
        contrastRatio: { normal: { expected: 4.5 }, large: { expected: 3 } },
        pseudoSizeThreshold: 0.25, shadowOutlineEmMax: 0.2, textStrokeEmMin: 0.03,
      },
    }],
  }));
}

/** Run axe in the page; returns {violations, incomplete} in a printable shape. */
async function runAxe(page, runOnly) {
  return page.evaluate(async (only) => {
    const r = await window.axe.run(document, { runOnly: only, resultTypes: ["violations", "incomplete"] });
    const shape = (v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => {
        const checks = n.any.concat(n.all, n.none);
        return {
          target: n.target.join(" "), impact: n.impact,
          data: checks.map((c) => c.data).find((d) => d && d.contrastRatio !== undefined) || null,
          message: checks.map((c) => c.message).filter(Boolean).join("; "),
        };
      }),
    });
    return { violations: r.violations.map(shape), incomplete: r.incomplete.map(shape) };
  }, runOnly);
}

function describe(violations) {
  const lines = [];
  for (const v of violations) {
    lines.push(`- ${v.id} (${v.impact}): ${v.help}`);
    for (const n of v.nodes.slice(0, 25)) {
      const d = n.data;
      const c = d && d.fgColor ? ` — ${d.fgColor} on ${d.bgColor}, ratio ${d.contrastRatio} (needs ${d.expectedContrastRatio}), ${d.fontSize} ${d.fontWeight}` : "";
      lines.push(`    ${n.target}${c}${d && !d.fgColor && n.message ? ` — ${n.message}` : ""}`);
    }
    if (v.nodes.length > 25) lines.push(`    … and ${v.nodes.length - 25} more`);
  }
  return lines.join("\n");
}

/**
 * The check: no colour-contrast violation (also with the page gradient made solid), and no
 * serious or critical violation of any WCAG 2 A/AA rule. Contrast results axe could not
 * decide are printed for a look.
 */
async function check(page, where) {
  await loadAxe(page);
  const all = await runAxe(page, { type: "tag", values: A11Y_TAGS });
  const fatal = (v) => v.id === "color-contrast" || v.impact === "serious" || v.impact === "critical";
  const bad = all.violations.filter(fatal);
  const minor = all.violations.filter((v) => !fatal(v));
  if (minor.length) console.log(`axe on ${where}, moderate/minor (allowed):\n${describe(minor)}`);
  const seen = new Set(bad.filter((v) => v.id === "color-contrast").flatMap((v) => v.nodes.map((n) => n.target)));
  const contrast = [];
  const undecided = new Map();
  for (const bg of GRADIENT_STOPS) {
    // Through the CSSOM: the Content-Security-Policy refuses an added <style>.
    await page.evaluate((c) => document.body.style.setProperty("background", c, "important"), bg);
    const r = await runAxe(page, { type: "rule", values: ["color-contrast"] });
    await page.evaluate(() => document.body.style.removeProperty("background"));
    for (const v of r.violations) {
      const nodes = v.nodes.filter((n) => !seen.has(n.target));
      nodes.forEach((n) => seen.add(n.target));
      if (nodes.length) contrast.push({ ...v, nodes, help: `${v.help} (with the page background solid ${bg})` });
    }
    for (const v of r.incomplete) for (const n of v.nodes) undecided.set(n.target, n.message);
  }
  if (undecided.size) console.log(`axe could not decide the contrast of, on ${where}:\n${[...undecided].map(([t, m]) => `    ${t} — ${m}`).join("\n")}`);
  assert.equal(bad.length + contrast.length, 0, `accessibility violations on ${where}:\n${describe(bad.concat(contrast))}`);
}

test("axe: home page", T, async () => {
  const page = await newPage(suite.browser, suite.server.base);
  await page.goto("/");
  await page.waitForSelector(".faction-card");
  await check(page, "home (1280 px)");
  await page.setViewportSize({ width: 390, height: 844 });
  await check(page, "home (390 px)");
  assert.deepEqual(page.errors, []);
});

test("axe: a game against the AI at 1280 and 390 px: selection, in progress, replay, resign, result", T, async () => {
  const page = await newPage(suite.browser, suite.server.base);
  await startAiGameFromHome(page, 1);
  // One move (so the move list, last-move marks and the AI's reply are shown) ...
  const from = await page.$eval(".board .sq.pickable", (e) => e.dataset.sq);
  await page.click(`.board [data-sq="${from}"]`);
  await page.waitForSelector(".board .sq.target");
  // ... checked once with a piece selected and its destinations marked ...
  await check(page, "game with a piece selected (1280 px)");
  await page.click(".board .sq.target");
  await page.waitForFunction(() => document.querySelectorAll(".move-list .mv").length >= 2, null, { timeout: WAIT_MS });
  await page.waitForSelector(".my-turn");
  await settled(page);
  await check(page, "game in progress (1280 px)");
  // Every square is named (coordinates, piece, marks) and every piece is a named image.
  const unnamed = await page.$$eval(".board .sq", (els) => els.filter((e) => !(e.getAttribute("aria-label") || "").trim()).map((e) => e.dataset.sq));
  assert.deepEqual(unnamed, [], "squares without an aria-label");
  const pieces = await page.$$eval(".board .piece", (els) => els.map((e) => [e.getAttribute("role"), e.getAttribute("aria-label")]));
  assert.ok(pieces.length >= 30, `pieces on the board (${pieces.length})`);
  for (const [role, label] of pieces) assert.ok(role === "img" && /^(South|North) \S/.test(label || ""), `piece role=${role} label=${label}`);
  await shot(page, "a11y-game-1280");
  // The hint (issue 31): its framed squares, arrow and line in words.
  await page.click(".actions .ask-hint");
  await page.waitForSelector(".hint-line[data-move]:not([hidden])");
  await check(page, "game with a hint shown (1280 px)");
  // The analysis board (one's own game against the AI): a move tried, the engine's line.
  await page.click(".actions .open-board");
  await page.waitForSelector(".analysis-board .ab-eval[data-state=done]");
  const [tryFrom, tryTo] = await page.$eval(".analysis-board .ab-eval", (e) => [e.dataset.line.slice(0, 2), e.dataset.line.slice(2, 4)]);
  await page.click(`.analysis-board .board [data-sq="${tryFrom}"]`);
  await page.click(`.analysis-board .board [data-sq="${tryTo}"]`);
  // A move that may take an ability asks which first (the bar's first choice).
  await page.waitForSelector(".analysis-board .ab-variation li, .analysis-board .ability-bar:not([hidden])");
  if (await page.locator(".analysis-board .ability-bar:not([hidden])").count()) await page.click(".analysis-board .ability-bar button");
  await page.waitForSelector(".analysis-board .ab-variation li");
  await page.waitForSelector(".analysis-board .ab-eval[data-state=done]");
  await check(page, "analysis board with a move tried (1280 px)");
  await page.click(".analysis-board .ab-back");
  await page.waitForSelector(".analysis-board", { state: "detached" });
  // A piece's tip, opened by the keyboard: the focused square is described by it.
  await page.focus('.board [data-sq="e1"]');
  await page.keyboard.press("ArrowRight");
  await page.waitForSelector('.board [data-sq="f1"][aria-describedby]');
  await check(page, "game with a piece's tip open (1280 px)");
  await page.keyboard.press("Escape");
  await page.waitForSelector(".piece-tip", { state: "hidden" });
  await page.setViewportSize({ width: 390, height: 844 });
  await settled(page);
  await check(page, "game in progress (390 px)");
  await shot(page, "a11y-game-390");
  // Replay mode (a past move selected in the move list).
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.click('.move-list .mv[data-ply="1"]');
  await page.waitForSelector(".replay-note:not([hidden])");
  await check(page, "game in replay (1280 px)");
  await page.click('.replay-nav [data-nav="live"]');
  // The confirmation modal, then the result banner.
  await page.click(".actions .resign");
  await page.waitForSelector("#confirm-dialog[open]");
  await check(page, "resign confirmation modal");
  await page.click("#confirm-dialog .danger");
  await page.waitForSelector(".result-banner:not([hidden])");
  await settled(page);
  await check(page, "game over, result banner (1280 px)");
  await page.setViewportSize({ width: 390, height: 844 });
  await settled(page);
  await check(page, "game over, result banner (390 px)");
  // Its record, pasted into Analyse a record: the graph and the analysis board (390 px).
  const record = await page.evaluate(async () => (await fetch(`/api/games/${location.pathname.split("/")[2]}/record`)).text());
  await page.goto("/analyse");
  await page.fill("#record-text", record);
  await page.click(".record-form button[type=submit]");
  await page.waitForSelector(".record-page .analysis[data-done]");
  await page.waitForSelector(".record-page .ab-eval[data-state]:not([data-state=thinking])");
  await check(page, "Analyse a record, analysed (390 px)");
  assert.deepEqual(page.errors, []);
});

test("axe: Game Rules modal, the rules page (/rules#sickle) and the API page", T, async () => {
  const page = await newPage(suite.browser, suite.server.base);
  await page.goto("/");
  await page.waitForSelector("html[data-app=ready]"); // the buttons' handlers are attached
  await page.click("#btn-rules");
  await page.waitForSelector("#rules-dialog pre.diagram");
  await check(page, "Game Rules modal (1280 px)");
  await page.setViewportSize({ width: 390, height: 844 });
  await check(page, "Game Rules modal (390 px)");
  await shot(page, "a11y-rules-390");
  // Issue 34, item 5: the rules as a page, a URL per section; its summary first; board
  // diagrams drawn with the board's squares and pieces; nothing wider than its container
  // on a phone (the piece tables are cards there).
  for (const [width, height] of [[390, 844], [1280, 800]]) {
    await page.setViewportSize({ width, height });
    await page.goto("/rules");
    await page.waitForSelector(".rules-page[data-ready]");
    assert.equal(await page.locator(".rules h3").first().textContent(), "In short");
    await shot(page, `i34-rules-summary-${width}`);
  }
  assert.ok(await page.locator(".rules .board-diagram .mini-board .sq .piece").count() > 100, "diagrams drawn with the pieces");
  assert.equal(await page.locator(".rules pre.diagram:not(.notation)").count(), 0, "no letter grid left");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/rules#sickle");
  await page.waitForSelector(".rules-page[data-ready]");
  const top = await page.$eval("#sickle", (e) => e.getBoundingClientRect().top);
  assert.ok(top > -1 && top < 100, `#sickle scrolled to the top (at ${top})`);
  assert.equal(await page.evaluate(() => document.activeElement?.id), "sickle");
  const wider = await page.$$eval(".rules-page *", (els) => els.filter((e) => {
    // What is only for screen readers (the cards' column headers, clipped to 1 px) aside.
    for (let a = e; a; a = a.parentElement) if (a.getBoundingClientRect().width <= 1) return false;
    const r = e.getBoundingClientRect();
    const box = e.parentElement.getBoundingClientRect();
    return r.width > 0 && (r.right > box.right + 1 || e.scrollWidth > e.clientWidth + 1) && getComputedStyle(e).display !== "inline";
  }).map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().width)}`));
  assert.deepEqual(wider, [], "elements wider than their container at 390 px");
  await check(page, "rules page (390 px)");
  await page.goto("/api-docs");
  await page.waitForSelector(".api-doc table");
  await check(page, "API page (390 px)");
  assert.deepEqual(page.errors, []);
});

test("axe: Learn the pieces: the lessons, a lesson with its hint and its ability choice, at 1280 and 390 px", T, async () => {
  const page = await newPage(suite.browser, suite.server.base);
  await page.goto("/learn");
  await page.waitForSelector(".learn-page[data-ready]");
  await check(page, "lessons (1280 px)");
  await page.goto("/learn/axe");
  await page.waitForSelector(".lesson[data-state=ready].my-turn");
  // A wrong move (the Axe sideways): the hint.
  await page.click('.lesson .board [data-sq="e3"]');
  await page.click('.lesson .board [data-sq="d3"]');
  await page.waitForSelector(".lesson-feedback.wrong");
  await check(page, "lesson with a hint (1280 px)");
  // The right base move: the ability choice.
  await page.click('.lesson .board [data-sq="e3"]');
  await page.click('.lesson .board [data-sq="e4"]');
  await page.waitForSelector(".lesson .ability-bar:not([hidden])");
  await check(page, "lesson with the ability choice (1280 px)");
  await page.setViewportSize({ width: 390, height: 844 });
  await check(page, "lesson with the ability choice (390 px)");
  await page.click('.lesson .ability-btn[data-move="e3e4/slash"]');
  await page.waitForSelector(".lesson[data-state=done]");
  await check(page, "lesson done (390 px)");
  await page.goto("/learn");
  await page.waitForSelector(".learn-page[data-ready]");
  await check(page, "lessons (390 px)");
  assert.deepEqual(page.errors, []);
});

test("axe: Server Busy modal", T, async () => {
  const page = await newPage(suite.browser, suite.busy.base);
  await page.goto("/");
  await page.waitForSelector(".faction-card");
  await page.click(".start-ai");
  await page.waitForSelector("#busy-dialog[open]");
  await check(page, "Server Busy modal (1280 px)");
  await shot(page, "a11y-busy-1280");
  await page.setViewportSize({ width: 390, height: 844 });
  await check(page, "Server Busy modal (390 px)");
});

test("axe: story screen, stage intro, stage game, Player Info and the leaderboard", T, async () => {
  const page = await newPage(suite.browser, suite.server.base);
  await page.goto("/story");
  await page.waitForSelector(".story-card .stage");
  await check(page, "story screen (1280 px)");
  await page.click('.story-card[data-story="axiom"] .stage[data-stage="0"] .stage-play');
  await page.waitForSelector("#stage-dialog[open]");
  await check(page, "stage intro modal");
  await page.click("#stage-dialog .primary");
  await page.waitForSelector(".my-turn .board .sq.pickable");
  await page.waitForSelector(".stage-card:not([hidden])");
  await check(page, "stage game (1280 px)");
  // A story stage tests the player: no engine help before it ends (issue 31).
  for (const help of [".actions .analyse", ".actions .open-board", ".actions .ask-hint"]) {
    assert.equal(await page.locator(help).isHidden(), true, `${help} hidden in a stage game`);
  }
  await page.setViewportSize({ width: 390, height: 844 });
  await settled(page);
  await check(page, "stage game (390 px)");
  await page.goto("/story");
  await page.waitForSelector(".story-card .stage.playing");
  await check(page, "story screen with a stage in progress (390 px)");
  await page.click("#me-link");
  await page.waitForSelector(".profile .account-panel");
  await check(page, "Player Info with the account panel (390 px)");
  await page.setViewportSize({ width: 1280, height: 860 });
  await check(page, "Player Info with the account panel (1280 px)");
  await page.click("#btn-player");
  await page.waitForSelector("#player-dialog[open] .account-panel");
  await check(page, "Player Info modal");
  await page.keyboard.press("Escape");
  await page.goto("/leaderboard");
  await page.waitForSelector(".mu-table");
  await check(page, "leaderboard (1280 px)");
  await page.setViewportSize({ width: 390, height: 844 });
  await settled(page);
  await check(page, "leaderboard (390 px)");
  assert.deepEqual(page.errors, []);
});
