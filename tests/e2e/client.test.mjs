// End-to-end tests of the browser client in headless Chromium against the real runtime.
// Screenshots of the main screens go to test-output/ (look at them).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, api, newPage, settled, shot, startAiGameFromHome, switchableSockets, useServersAndBrowser, TEST_TIMEOUT, WAIT_MS } from "./support.mjs";
import { parsePosition, sqName } from "../../public/notation.js";
import { plural } from "../../public/ui.js";

const T = TEST_TIMEOUT;
const suite = useServersAndBrowser(before, after);

const getState = async (id) => (await api(suite.server.base, "GET", `/api/games/${id}`)).json;
const gameId = (page) => /\/g\/([0-9a-f]{24})/.exec(page.url())[1];

/** The board's squares must show exactly the server's position (labels name every piece). */
async function assertBoardShows(page, position) {
  const pos = parsePosition(position);
  const labels = await page.$$eval(".board .sq", (els) => Object.fromEntries(els.map((e) => [e.dataset.sq, e.getAttribute("aria-label")])));
  for (let i = 0; i < 81; i++) {
    const name = sqName(i % 9, Math.floor(i / 9));
    const p = pos.board[i];
    const want = p ? `${name}, ${p.side === "south" ? "South" : "North"} ${p.name}${p.charged ? ", charged" : ""}` : `${name}, empty`;
    assert.ok(labels[name].startsWith(want), `square ${name}: want "${want}", got "${labels[name]}"`);
  }
}

async function waitPlies(page, n) {
  await page.waitForFunction((k) => document.querySelectorAll(".move-list .mv").length >= k, n, { timeout: WAIT_MS });
}

async function clickMove(page, move) {
  await page.click(`.board [data-sq="${move.slice(0, 2)}"]`);
  await page.waitForSelector(`.board [data-sq="${move.slice(2, 4)}"].target`);
  await page.click(`.board [data-sq="${move.slice(2, 4)}"]`);
}

/** Keyboard play: focus the board, walk with arrow keys, Enter to pick and to drop. */
async function keyboardMove(page, move, flipped = false) {
  await page.focus(".board .sq[tabindex='0']");
  const walk = async (to) => {
    for (;;) {
      const at = await page.evaluate(() => document.activeElement.dataset.sq);
      if (at === to) return;
      const df = to.charCodeAt(0) - at.charCodeAt(0);
      const dr = Number(to[1]) - Number(at[1]);
      const s = flipped ? -1 : 1;
      if (df) await page.keyboard.press(df * s > 0 ? "ArrowRight" : "ArrowLeft");
      else await page.keyboard.press(dr * s > 0 ? "ArrowUp" : "ArrowDown");
    }
  };
  await walk(move.slice(0, 2));
  await page.keyboard.press("Enter");
  await walk(move.slice(2, 4));
  await page.keyboard.press("Enter");
}

const plainMoves = (s) => s.legal_moves.filter((m) => !s.legal_moves.some((x) => x !== m && x.startsWith(m.slice(0, 4))));

let aiPage;

test("home, then a game against the AI played by clicking and by keyboard", T, async () => {
  const page = await newPage(suite.browser, suite.server.base, { keep: true }); // the next tests go on with it
  aiPage = page;
  await page.goto("/");
  await page.waitForSelector(".faction-card");
  // Difficulty 1-6; a player with no finished game starts at 1 (issue 34; at 2 until
  // 2026-12-07). This test plays level 1, whose seeded replies leave the game going for the
  // moves below (level 3 at 6,000 positions, 2026-12-05, ended the game by ply 6 after them);
  // chosen explicitly, so the test holds whatever the start is.
  assert.equal(await page.inputValue("select[name=level]"), "1");
  assert.equal(await page.locator("select[name=level] option").count(), 6);
  await page.selectOption("select[name=level]", "1");
  await shot(page, "home-1280");
  await page.click(".start-ai");
  await page.waitForURL(/\/g\/[0-9a-f]{24}$/);
  await page.waitForSelector(".my-turn .board .sq.pickable");
  const id = gameId(page);
  let s = await getState(id);
  assert.equal(s.mode, "ai");
  assert.equal(s.level, 1);
  assert.equal(s.south.faction, "clockwork");
  assert.equal(s.north.faction, "blades");
  await assertBoardShows(page, s.position);
  // First move by mouse.
  const first = plainMoves(s)[0];
  await clickMove(page, first);
  await waitPlies(page, 2); // our move and the AI's answer
  s = await getState(id);
  assert.equal(s.moves[0], first);
  assert.equal(s.moves.length, 2);
  await page.waitForSelector(".my-turn");
  await assertBoardShows(page, s.position);
  // Second move by keyboard.
  const second = plainMoves(s).at(-1);
  await keyboardMove(page, second);
  await waitPlies(page, 4);
  s = await getState(id);
  assert.equal(s.moves[2], second);
  await page.waitForSelector(".my-turn");
  await settled(page);
  await assertBoardShows(page, s.position);
  assert.match(await page.textContent(".turn"), /Your turn/);
  // Third move by dragging the piece.
  const third = plainMoves(s)[Math.floor(plainMoves(s).length / 2)];
  const box = async (q) => { const b = await page.locator(`.board [data-sq="${q}"]`).boundingBox(); return [b.x + b.width / 2, b.y + b.height / 2]; };
  const [fx, fy] = await box(third.slice(0, 2));
  const [tx, ty] = await box(third.slice(2, 4));
  await page.mouse.move(fx, fy);
  await page.mouse.down();
  await page.mouse.move(fx + 10, fy + 10, { steps: 3 });
  await page.waitForSelector(".board .sq.target");
  await page.mouse.move(tx, ty, { steps: 8 });
  await page.mouse.up();
  await waitPlies(page, 6);
  s = await getState(id);
  assert.equal(s.moves[4], third);
  await page.waitForSelector(".my-turn");
  await settled(page);
  await assertBoardShows(page, s.position);
  await shot(page, "game-1280");
  await page.setViewportSize({ width: 390, height: 844 });
  await settled(page);
  await shot(page, "game-390");
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no horizontal scrolling at 390 px (overflow ${overflow})`);
  await page.setViewportSize({ width: 360, height: 740 });
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360), "fits 360 px");
  await page.setViewportSize({ width: 1280, height: 860 });
  // Replay: clicking the first move shows the position after it.
  await page.click('.move-list .mv[data-ply="1"]');
  await page.waitForSelector(".replay-note:not([hidden])");
  assert.equal(await page.getAttribute(".board", "aria-disabled"), "true");
  await page.click('.replay-nav [data-nav="live"]');
  await page.waitForSelector(".replay-note[hidden]", { state: "attached" });
  assert.deepEqual(page.errors, []);
});

// Regression: when the AI's reply came over the live connection before the move's own
// answer, and that answer arrived while the reply was still sliding in, the board never
// opened for the next move (no "my-turn"), until a reload. The answer is held here until
// the reply's last ply is on the board.
test("the board opens for the next move when the AI's reply comes live before the move's answer", T, async () => {
  const page = await newPage(suite.browser, suite.server.base);
  await startAiGameFromHome(page, 1);
  const s = await getState(gameId(page));
  let delivered;
  const answered = new Promise((resolve) => { delivered = resolve; });
  await page.route("**/api/games/*/moves", async (route) => {
    const response = await route.fetch();
    // Held until the live update has put the reply on the board (usually while it still
    // slides in; on a loaded machine the slide may be over, and waiting for it to be under
    // way would wait for good). Let through in any case, so the test never hangs.
    try {
      await page.waitForFunction(() => document.querySelector(".game")?.dataset.ply === "2",
        null, { timeout: WAIT_MS, polling: 5 });
    } finally {
      await route.fulfill({ response });
      delivered();
    }
  });
  await clickMove(page, plainMoves(s)[0]);
  // Since 9650790 a live state holding the sent move opens the board itself, possibly
  // before the held answer is let through: the board must be open once the answer has
  // come too (the answer, arriving mid-slide or after it, must not leave it shut).
  await answered;
  await page.waitForSelector(".my-turn .board .sq.pickable");
  assert.equal((await getState(gameId(page))).moves.length, 2);
  assert.deepEqual(page.errors, []);
});

test("reload mid-game finds it intact; my games lists it with whose turn", T, async () => {
  const page = aiPage;
  const id = gameId(page);
  const s = await getState(id);
  await page.reload();
  await page.waitForSelector(".my-turn .board .sq.pickable");
  await assertBoardShows(page, s.position);
  assert.equal(await page.locator(".move-list .mv").count(), s.moves.length);
  await page.goto("/");
  await page.waitForSelector(".game-item .gi-status.yours");
  assert.match(await page.textContent(".game-item"), /Your turn/);
  await page.click(".game-item .game-link");
  await page.waitForSelector(".my-turn .board .sq.pickable");
  assert.equal(gameId(page), id);
});

test("resign with confirmation shows the result", T, async () => {
  const page = aiPage;
  await page.click(".actions .resign");
  await page.waitForSelector("#confirm-dialog[open]");
  await page.click("#confirm-dialog .danger");
  await page.waitForSelector(".result-banner:not([hidden])");
  assert.match(await page.textContent(".result-banner"), /You lose/);
  assert.match(await page.textContent(".result-banner"), /resignation/i);
  const s = await getState(gameId(page));
  assert.equal(s.result.reason, "resignation");
  await shot(page, "result-1280");
  // The result takes the place of "● Live"; after "View board", Rematch and New game stay
  // in the side panel (and the keyboard lands on them).
  assert.ok(await page.locator(".conn").isHidden());
  assert.match(await page.textContent(".result-line"), /Result: .*resignation/i);
  await page.click(".result-banner .dismiss");
  await page.waitForSelector(".result-banner[hidden]", { state: "attached" });
  await page.waitForSelector(".end-actions:not([hidden]) button.rematch");
  assert.ok(await page.locator(".end-actions a.new-game[href='/']").isVisible());
  assert.equal(await page.evaluate(() => document.activeElement?.closest(".end-actions") !== null), true);
  await shot(page, "i34-view-board-1280");
  // Copy game record.
  await page.click(".copy-record");
  await page.waitForSelector(".toast");
  const clip = await page.evaluate(() => navigator.clipboard.readText()).catch(() => null);
  if (clip !== null) assert.match(clip, /^\[Iron Arena game record\]/);
});

test("an ability through the UI (with cancel, then the ability)", T, async () => {
  // Play a link game through the API until South has a move with ability variants.
  let found = null;
  for (let attempt = 0; attempt < 10 && !found; attempt++) {
    const c = await api(suite.server.base, "POST", "/api/games", { south: ["axiom", "blades", "clockwork"][attempt % 3], north: "blades", mode: "link", seat: "south" });
    const invite = new URL(c.json.invite_url).hash.slice("#invite=".length);
    const j = await api(suite.server.base, "POST", `/api/games/${c.json.id}/join`, { invite });
    const tokens = { south: c.json.token, north: j.json.token };
    let s = j.json.state;
    let seed = attempt + 1;
    const rand = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    while (s.status === "ongoing" && s.ply < 120) {
      if (s.turn === "south") {
        const ab = s.legal_moves.filter((m) => m.includes("/") && s.legal_moves.includes(m.slice(0, 4)));
        if (ab.length) { found = { id: s.id, token: tokens.south, state: s, move: ab[0] }; break; }
      }
      const pool = s.legal_moves.filter((m) => !m.includes("/"));
      const mv = pool[Math.floor(rand() * pool.length)];
      s = (await api(suite.server.base, "POST", `/api/games/${s.id}/moves`, { move: mv, ply: s.ply }, tokens[s.turn])).json.state;
    }
  }
  assert.ok(found, "an ability became available");
  const page = await newPage(suite.browser, suite.server.base);
  await page.goto("/");
  await page.evaluate(([id, token, st]) => {
    localStorage.setItem("ironarena.seats.v1", JSON.stringify({ [id]: { seat: "south", token, mode: "link", south: st.south.faction, north: st.north.faction, created: Date.now() } }));
  }, [found.id, found.token, found.state]);
  await page.goto(`/g/${found.id}`);
  await page.waitForSelector(".my-turn .board .sq.pickable");
  const base = found.move.slice(0, 4);
  await clickMove(page, base);
  await page.waitForSelector(".ability-bar:not([hidden])");
  await shot(page, "ability-choice-1280");
  // Each ability named once: "Slash: destroys…", not "Slash: Slash destroys…".
  const barText = await page.textContent(".ability-bar p");
  assert.doesNotMatch(barText, /\b(\w+): \1\b/i, barText);
  // Nothing was sent yet: cancel, then choose again.
  assert.equal((await getState(found.id)).ply, found.state.ply);
  await page.click(".ability-bar .cancel");
  await page.waitForSelector(".ability-bar[hidden]", { state: "attached" });
  await clickMove(page, base);
  await page.waitForSelector(".ability-bar:not([hidden])");
  assert.ok(await page.locator(".ability-bar .skip").count(), "a Skip button");
  const ab = found.move.split("/")[1];
  const [kind, arg] = ab.split(":");
  if (kind === "slash") {
    await page.click(`.ability-bar .ability-btn[data-move="${found.move}"]`);
  } else {
    const target = arg.slice(0, 2);
    await page.click(`.board [data-sq="${target}"].ability-target`);
    if (kind === "recall" && (await page.locator(".ability-bar:not([hidden])").count())) {
      await page.click(`.board [data-sq="${arg.slice(2, 4)}"].ability-target`);
    }
  }
  await waitPlies(page, found.state.ply + 1);
  const s = await getState(found.id);
  assert.equal(s.moves.at(-1), found.move, `played ${found.move}`);
  await settled(page);
  await assertBoardShows(page, s.position);
  await shot(page, "ability-done-1280");
  assert.deepEqual(page.errors, []);
});

test("a link game: create, join in a second suite.browser, moves live in both and for a spectator; draw", T, async () => {
  const a = await newPage(suite.browser, suite.server.base);
  await a.goto("/");
  await a.waitForSelector(".link-form");
  const reads = [];
  a.on("request", (r) => { if (r.method() === "GET") reads.push(new URL(r.url()).pathname); });
  await a.check('.link-form input[name="l-side"][value="south"]');
  await a.selectOption(".link-form select[name=days]", "3");
  await a.click(".create-link");
  await a.waitForSelector(".invite:not([hidden]) .invite-url");
  const invite = await a.inputValue(".invite-url");
  assert.match(invite, /\/g\/[0-9a-f]{24}#invite=[0-9a-f]{64}$/);
  await a.click(".copy-invite");
  await shot(a, "link-waiting-1280");
  const id = gameId(a);
  // The game page opened on the state the create answered with: no read of its own.
  assert.ok(!reads.includes(`/api/games/${id}`), `no GET of the new game: ${reads.join(" ")}`);
  const spectator = await newPage(suite.browser, suite.server.base, { width: 390, height: 844 });
  await spectator.goto(`/g/${id}`);
  await spectator.waitForSelector(".board .sq");
  const b = await newPage(suite.browser, suite.server.base);
  await b.goto(invite.replace(/^https?:\/\/[^/]+/, ""));
  await b.waitForSelector("#join-dialog[open]");
  await b.click("#join-dialog .primary");
  await b.waitForSelector(".board .sq");
  await a.waitForSelector(".invite[hidden]", { state: "attached" });
  // North's board is flipped: rank 1 is at the top... so a1 comes last.
  assert.equal(await b.$eval(".board .sq", (e) => e.dataset.sq), "i1");
  let s = await getState(id);
  assert.equal(s.status, "ongoing");
  assert.ok(s.deadline > Date.now());
  await a.waitForSelector(".deadline:not([hidden])");
  // South moves in A.
  await a.waitForSelector(".my-turn");
  const m1 = plainMoves(s)[0];
  await clickMove(a, m1);
  for (const p of [a, b, spectator]) await waitPlies(p, 1);
  s = await getState(id);
  for (const p of [b, spectator]) { await settled(p); await assertBoardShows(p, s.position); }
  // North moves in B.
  await b.waitForSelector(".my-turn");
  const m2 = plainMoves(s)[0];
  await clickMove(b, m2);
  for (const p of [a, b, spectator]) await waitPlies(p, 2);
  s = await getState(id);
  assert.deepEqual(s.moves, [m1, m2]);
  await settled(a);
  await assertBoardShows(a, s.position);
  await shot(spectator, "spectator-390");
  // Draw: A offers, B declines with one click (no confirmation), and A is told. Regression:
  // A's answer to the offer is held until B's decline has reached A by push. An answer that
  // late has the same moves as the decline and an older version: it must not put the offer
  // back (a state had no version, and it did).
  let release;
  const held = new Promise((r) => { release = r; });
  await a.route("**/api/games/*/draw", async (route) => {
    const answer = await route.fetch();
    await held;
    await route.fulfill({ response: answer });
  });
  await a.click(".offer-draw");
  await a.click("#confirm-dialog .primary");
  await a.waitForSelector(".draw-offer:not([hidden]):has-text('You offered a draw')"); // by push
  await b.waitForSelector(".draw-offer .decline-draw");
  await b.click(".draw-offer .decline-draw");
  await a.waitForSelector(".msg.draw-declined:not([hidden])");
  release();
  await a.waitForSelector(".toast:has-text('Draw offered.')"); // the late answer was read
  await a.unroute("**/api/games/*/draw");
  assert.ok(await a.isHidden(".draw-offer"), "the late answer put the offer back");
  assert.ok(await a.isVisible(".offer-draw"), "A may offer again");
  assert.match(await a.textContent(".msg"), /declined the draw/);
  assert.equal(await b.locator("#confirm-dialog").count(), 0);
  assert.equal((await getState(id)).draw_offer, null);
  // A offers again, B accepts.
  const offeredAgain = a.waitForResponse((r) => r.url().endsWith("/draw"));
  await a.click(".offer-draw");
  await a.click("#confirm-dialog .primary");
  await offeredAgain;
  await a.waitForSelector(".draw-offer:not([hidden]):has-text('You offered a draw')");
  await b.waitForSelector(".draw-offer .accept-draw");
  await b.click(".draw-offer .accept-draw");
  await b.click("#confirm-dialog .primary");
  for (const p of [a, b, spectator]) await p.waitForSelector(".result-banner:not([hidden])");
  assert.match(await spectator.textContent(".result-banner"), /Draw/);
  assert.equal((await getState(id)).result.reason, "agreement");
  for (const p of [a, b, spectator]) assert.deepEqual(p.errors, []);
});

test("a move refused by the server is not shown and the reason is given", T, async () => {
  // Two tabs hold the same seat; the second gets no live updates, so it is stale.
  const c = await api(suite.server.base, "POST", "/api/games", { south: "axiom", north: "clockwork", mode: "link", seat: "south" });
  const invite = new URL(c.json.invite_url).hash.slice("#invite=".length);
  await api(suite.server.base, "POST", `/api/games/${c.json.id}/join`, { invite });
  const page = await newPage(suite.browser, suite.server.base);
  await page.routeWebSocket(/\/ws$/, () => { /* swallow: no live updates in this tab */ });
  await page.goto("/");
  await page.evaluate(([id, token]) => {
    localStorage.setItem("ironarena.seats.v1", JSON.stringify({ [id]: { seat: "south", token, mode: "link", south: "axiom", north: "clockwork", created: Date.now() } }));
  }, [c.json.id, c.json.token]);
  await page.goto(`/g/${c.json.id}`);
  await page.waitForSelector(".my-turn .board .sq.pickable");
  let s = await getState(c.json.id);
  const [m1, m2] = plainMoves(s);
  // The "other tab" plays first, through the API.
  assert.equal((await api(suite.server.base, "POST", `/api/games/${c.json.id}/moves`, { move: m1, ply: 0 }, c.json.token)).status, 200);
  await clickMove(page, m2);
  await page.waitForSelector(".msg:not([hidden])");
  assert.match(await page.textContent(".msg"), /Move refused: .+/);
  s = await getState(c.json.id);
  assert.deepEqual(s.moves, [m1]);
  await assertBoardShows(page, s.position); // the server's position, not the refused move
});

test("the live connection reconnects on its own and catches up", T, async () => {
  const c = await api(suite.server.base, "POST", "/api/games", { south: "clockwork", north: "axiom", mode: "link", seat: "south" });
  const invite = new URL(c.json.invite_url).hash.slice("#invite=".length);
  const j = await api(suite.server.base, "POST", `/api/games/${c.json.id}/join`, { invite });
  const page = await newPage(suite.browser, suite.server.base);
  const live = await switchableSockets(page);
  await page.goto(`/g/${c.json.id}`);
  await page.waitForSelector(".conn.live");
  // Drop the connection and refuse reconnects for a while; a move happens meanwhile.
  await live.drop();
  await page.waitForSelector(".conn.offline");
  let s = await getState(c.json.id);
  const m = plainMoves(s)[0];
  assert.equal((await api(suite.server.base, "POST", `/api/games/${c.json.id}/moves`, { move: m, ply: 0 }, c.json.token)).status, 200);
  live.restore();
  await page.waitForSelector(".conn.live", { timeout: WAIT_MS });
  await waitPlies(page, 1);
  s = await getState(c.json.id);
  await settled(page);
  await assertBoardShows(page, s.position);
  assert.ok(live.opened >= 2, "reconnected");
  void j;
});

test("Server Busy modal when creation is refused", T, async () => {
  const page = await newPage(suite.browser, suite.busy.base);
  await page.goto("/");
  await page.click(".start-ai");
  await page.waitForSelector("#busy-dialog[open]");
  assert.match(await page.textContent("#busy-dialog"), /too busy to set up new games/);
  await shot(page, "server-busy-1280");
  await page.click("#busy-dialog .close");
  await page.waitForSelector("#busy-dialog", { state: "detached" }); // removed on its close event
});

test("rules, dev notes, support, player info modals and the sound toggles", T, async () => {
  const page = await newPage(suite.browser, suite.server.base, { width: 390, height: 844 });
  await page.goto("/");
  await page.waitForSelector("html[data-app=ready]"); // the buttons' handlers are attached
  await page.click("#btn-rules");
  await page.waitForSelector("#rules-dialog pre.diagram");
  assert.match(await page.textContent("#rules-dialog"), /Slash/);
  await shot(page, "rules-390");
  await page.keyboard.press("Escape");
  for (const [btn, dlg] of [["#btn-devnotes", "#devnotes-dialog"], ["#btn-support", "#support-dialog"], ["#btn-player", "#player-dialog"]]) {
    await page.click(btn);
    await page.waitForSelector(`${dlg}[open]`);
    await page.keyboard.press("Escape");
  }
  assert.match(await page.textContent("#btn-music"), /off/, "music is off by default");
  await page.click("#btn-music");
  await page.waitForSelector("#music-dialog[open]");
  await page.check("#music-on");
  assert.match(await page.textContent("#btn-music"), /on/);
  await page.uncheck("#music-on");
  await page.keyboard.press("Escape");
  // Sounds is a toggle: its name stays, aria-pressed and the icon follow the state.
  const soundsOn = await page.innerHTML("#btn-sounds .state-icon");
  await page.click("#btn-sounds");
  assert.equal(await page.getAttribute("#btn-sounds", "aria-pressed"), "false");
  assert.equal((await page.textContent("#btn-sounds")).trim(), "Sounds");
  assert.notEqual(await page.innerHTML("#btn-sounds .state-icon"), soundsOn, "the icon changed");
  assert.deepEqual(page.errors, []);
});

test("counts read as English: 1 piece, 2 pieces", () => {
  assert.deepEqual([plural(1, "piece"), plural(2, "move"), plural(0, "day")], ["1 piece", "2 moves", "0 days"]);
});

test("public/rules.md is the current docs/rules.md", () => {
  assert.equal(readFileSync(join(ROOT, "public/rules.md"), "utf8"), readFileSync(join(ROOT, "docs/rules.md"), "utf8"));
});
