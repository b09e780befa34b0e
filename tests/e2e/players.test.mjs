// End-to-end tests of the players' screens in headless Chromium against the real runtime:
// story mode (stages locked and unlocked, the intro modal, a stage game with Exit Stage,
// a won and a failed stage, Reset Story Progress), badges next to the player's name
// (header, Player Info, game panel), the display name, Sign in with Discord on a server
// without Discord, rated link games, and the leaderboard with the match-up statistics.
// The AI plays random legal moves here (AI_ENGINE=random), so stages are quick to play.
// Screenshots go to test-output/ (look at them).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { api, d1, launchBrowser, newPage, settled, shot, startServer, TEST_TIMEOUT } from "./support.mjs";

const T = TEST_TIMEOUT;
let server;
let browser;
before(async () => {
  server = await startServer({ AI_ENGINE: "random" });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  server?.stop();
});

const getState = async (id) => (await api(server.base, "GET", `/api/games/${id}`)).json;
const gameId = (page) => /\/g\/([0-9a-f]{24})/.exec(page.url())[1];
/** This page's player (its session cookie). */
const meOf = (page) => page.evaluate(async () => (await fetch("/api/me")).json());
/**
 * Starts this page's player the way a person does without playing: opening Player Info
 * (the account panel) makes the guest; the header's "My profile" link then shows it.
 */
async function startSession(page) {
  await page.waitForSelector("html[data-app=ready]");
  await page.click("#btn-player");
  await page.waitForSelector("#player-dialog[open] .account-panel");
  await page.keyboard.press("Escape");
  await page.waitForSelector("#player-dialog", { state: "detached" });
  await page.waitForSelector("#me-link:not([hidden])");
}
const story = (page, id) => page.locator(`.story-card[data-story="${id}"]`);
const stage = (page, id, i) => story(page, id).locator(`.stage[data-stage="${i}"]`);

async function noHorizontalScroll(page, where) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no horizontal scrolling on ${where} (overflow ${overflow})`);
}

async function openStories(page) {
  await page.goto("/");
  await page.click(".story-entry");
  await page.waitForURL(/\/story$/);
  await page.waitForSelector(".story-card .stage");
}

/** Play on the story screen, then Start in the intro modal; waits for the stage's game. */
async function startStage(page, storyId, i) {
  await stage(page, storyId, i).locator(".stage-play").click();
  await page.waitForSelector("#stage-dialog[open]");
  await page.click("#stage-dialog .primary");
  await page.waitForURL(/\/g\/[0-9a-f]{24}$/);
  await page.waitForSelector(".my-turn .board .sq.pickable");
}

test("story: three stories, locked stages, intro modal, stage game, Exit Stage, a won stage, Reset Story Progress", T, async () => {
  const page = await newPage(browser, server.base);
  await openStories(page);
  // Three stories, each with its faction, summary, progress, badge and six stages:
  // stage 1 unlocked, stage 2 locked (and not startable).
  assert.equal(await page.locator(".story-card").count(), 3);
  for (const id of ["clockwork", "blades", "axiom"]) {
    const card = story(page, id);
    assert.equal(await card.locator(".progress-text").textContent(), "0 / 6");
    assert.equal(await card.locator(".stage").count(), 6);
    assert.match(await card.locator(".story-badge").textContent(), /Not earned yet/);
    assert.equal(await card.locator(".story-badge .badge").getAttribute("data-badge"), `${id}-story`);
    assert.ok(await stage(page, id, 0).locator(".stage-play").isEnabled(), `${id}: stage 1 can be played`);
    assert.match(await stage(page, id, 0).getAttribute("class"), /\bunlocked\b/);
    assert.ok(await stage(page, id, 1).locator(".stage-play").isDisabled(), `${id}: stage 2 is locked`);
    assert.match(await stage(page, id, 1).getAttribute("class"), /\blocked\b/);
    assert.match(await stage(page, id, 1).textContent(), /Locked/);
  }
  assert.match(await story(page, "clockwork").textContent(), /The Clockmaker's Hour/);
  await shot(page, "story-1280");

  // The intro modal: title, intro and goal; Cancel starts nothing.
  await stage(page, "clockwork", 0).locator(".stage-play").click();
  await page.waitForSelector("#stage-dialog[open]");
  assert.equal(await page.textContent("#stage-dialog h2"), "The First Tick");
  const intro = await page.textContent("#stage-dialog .modal-body");
  assert.match(intro, /The workshop wakes/);
  assert.match(intro, /Goal: Win the game/);
  assert.deepEqual(await page.locator("#stage-dialog .modal-actions button").allTextContents(), ["Cancel", "Start"]);
  await shot(page, "story-intro-1280");
  await page.click("#stage-dialog .modal-actions button:text('Cancel')");
  await page.waitForSelector("#stage-dialog", { state: "detached" });
  assert.match(page.url(), /\/story$/);

  // Start: the game screen shows the stage title and goal, and Exit Stage (no Resign).
  await startStage(page, "clockwork", 0);
  const id = gameId(page);
  await page.waitForSelector(".stage-card:not([hidden])");
  assert.equal(await page.textContent(".stage-card .stage-title"), "The First Tick");
  assert.equal(await page.textContent(".stage-card .goal-text"), "Win the game");
  assert.ok(await page.locator(".exit-stage").isVisible());
  assert.ok(!(await page.locator(".actions .resign").isVisible()), "Exit Stage replaces Resign");
  const me = await meOf(page);
  let s = await getState(id);
  assert.equal(s.stage.story, "clockwork");
  assert.equal(s.stage.verdict, "pending");
  assert.equal(s.south.player_id, me.id, "the stage game is the browser's player's");
  // The player's name is in the game panel.
  assert.equal(await page.textContent(".player-bar.bottom .pname"), me.name);
  await shot(page, "story-stage-game-1280");
  // The seat is kept like an AI game's: a reload finds the game playable.
  await page.reload();
  await page.waitForSelector(".my-turn .board .sq.pickable");
  await page.waitForSelector(".stage-card:not([hidden])");

  // Exit Stage asks first; cancel keeps the game going.
  await page.click(".exit-stage");
  await page.waitForSelector("#confirm-dialog[open]");
  assert.equal(await page.textContent("#confirm-dialog h2"), "Exit Stage?");
  assert.equal(await page.textContent("#confirm-dialog .modal-body"), "This will reset the progress made during this stage of the story. Are you sure?");
  await page.click("#confirm-dialog .modal-actions button:text('Cancel')");
  assert.equal((await getState(id)).status, "ongoing");
  // Confirmed: the game ends as a loss (abandoned), back on the story screen, not completed.
  await page.click(".exit-stage");
  await page.waitForSelector("#confirm-dialog[open]");
  await page.click("#confirm-dialog .danger");
  await page.waitForURL(/\/story$/);
  await page.waitForSelector(".story-card .stage");
  s = await getState(id);
  assert.equal(s.result.reason, "abandoned");
  assert.equal(s.stage.verdict, "lost");
  assert.equal(await story(page, "clockwork").locator(".progress-text").textContent(), "0 / 6");
  assert.doesNotMatch(await stage(page, "clockwork", 0).getAttribute("class"), /completed/);
  assert.ok(await stage(page, "clockwork", 1).locator(".stage-play").isDisabled());
  assert.equal(await page.locator("#stage-end-dialog").count(), 0, "no Stage failed modal after Exit Stage");

  // Win stage 1 (the Hands take the Mistress: d3-d7): "Stage complete!", stage 2 unlocks.
  // A spectator watches: its result banner (and the player's one dialog) come only once
  // the board shows the winning move, at rest.
  await startStage(page, "clockwork", 0);
  const watcher = await newPage(browser, server.base);
  await watcher.goto(`/g/${gameId(page)}`);
  await watcher.waitForSelector(".board .sq");
  /** Records what the board showed when `selector` first came into view (a dialog
   * opened, the banner unhidden). */
  const whenShown = (p, selector) => p.evaluate((sel) => {
    const g = document.querySelector(".game");
    window.endSeen = null;
    new MutationObserver(() => {
      const e = document.querySelector(sel);
      if (window.endSeen || !e || (e.tagName === "DIALOG" ? !e.open : e.hidden)) return;
      window.endSeen = { ply: g.dataset.ply, animating: g.dataset.animating, d7: g.querySelector('[data-sq="d7"]').getAttribute("aria-label"),
        banner: !document.querySelector(".result-banner").hidden };
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  }, selector);
  await whenShown(page, "#stage-end-dialog");
  await whenShown(watcher, ".result-banner");
  await page.click('.board [data-sq="d3"]');
  await page.waitForSelector('.board [data-sq="d7"].target');
  await page.click('.board [data-sq="d7"]');
  await page.waitForSelector("#stage-end-dialog[open]");
  await watcher.waitForSelector(".result-banner:not([hidden])");
  for (const [p, who] of [[page, "the player's dialog"], [watcher, "the spectator's banner"]]) {
    const seen = await p.evaluate(() => window.endSeen);
    assert.ok(seen, `${who} was seen opening`);
    assert.deepEqual([seen.ply, seen.animating], ["1", "false"], `${who} opened on the board after the winning move: ${JSON.stringify(seen)}`);
    assert.match(seen.d7, /^d7, South Hands/, `${who}: the Hands are on d7`);
  }
  assert.equal((await page.evaluate(() => window.endSeen)).banner, false, "one dialog: no result banner under it");
  assert.ok(await page.locator(".result-banner").isHidden());
  await watcher.context().close();
  assert.equal(await page.textContent("#stage-end-dialog h2"), "Stage complete!");
  assert.match(await page.textContent("#stage-end-dialog"), /Father Time's March.*is now unlocked/);
  assert.equal((await getState(gameId(page))).stage.verdict, "won");
  await shot(page, "story-stage-complete-1280");
  // The stage's result reaches D1 in the flush after the finished state was pushed, and
  // the stories page reads it once: the test waits for it there, as a player coming back
  // a moment later would find it (a slow flush showed 0 / 6).
  await page.waitForFunction(async () => {
    const r = await fetch("/api/stories");
    return (await r.json()).stories.find((s) => s.id === "clockwork")?.completed === 1;
  }, null, { polling: 200 });
  await page.click("#stage-end-dialog .modal-actions button:text('Back to stories')");
  await page.waitForURL(/\/story$/);
  await page.waitForSelector(".story-card .stage");
  assert.equal(await story(page, "clockwork").locator(".progress-text").textContent(), "1 / 6");
  assert.match(await stage(page, "clockwork", 0).getAttribute("class"), /\bcompleted\b/);
  assert.ok(await stage(page, "clockwork", 1).locator(".stage-play").isEnabled(), "stage 2 unlocked");
  await shot(page, "story-progress-1280");

  // Reset Story Progress asks first: cancel keeps the progress ...
  await story(page, "clockwork").locator(".reset-story").click();
  await page.waitForSelector("#confirm-dialog[open]");
  assert.equal(await page.textContent("#confirm-dialog h2"), "Reset Story Progress?");
  await page.click("#confirm-dialog .modal-actions button:text('Cancel')");
  await page.reload();
  await page.waitForSelector(".story-card .stage");
  assert.equal(await story(page, "clockwork").locator(".progress-text").textContent(), "1 / 6");
  // ... confirmed, the story starts again from stage 1.
  await story(page, "clockwork").locator(".reset-story").click();
  await page.waitForSelector("#confirm-dialog[open]");
  await page.click("#confirm-dialog .danger");
  await page.waitForFunction(() => document.querySelector('.story-card[data-story="clockwork"] .progress-text')?.textContent === "0 / 6");
  assert.ok(await stage(page, "clockwork", 1).locator(".stage-play").isDisabled());
  const stories = await page.evaluate(async () => (await fetch("/api/stories")).json());
  assert.equal(stories.stories.find((x) => x.id === "clockwork").completed, 0);

  await page.setViewportSize({ width: 390, height: 844 });
  await settled(page);
  await noHorizontalScroll(page, "the story screen at 390 px");
  await shot(page, "story-390");
  assert.deepEqual(page.errors, []);
});

test("story: a failed stage shows Stage failed, and Try again starts it anew", T, async () => {
  const page = await newPage(browser, server.base, { width: 390, height: 844 });
  await openStories(page);
  await startStage(page, "blades", 0);
  const id = gameId(page);
  await shot(page, "story-stage-game-390");
  await noHorizontalScroll(page, "a stage game at 390 px");
  // The stage is lost (the seat resigns, as another tab could): the server's verdict.
  const token = await page.evaluate((g) => JSON.parse(localStorage.getItem("ironarena.seats.v1"))[g].token, id);
  assert.equal((await api(server.base, "POST", `/api/games/${id}/resign`, undefined, token)).status, 200);
  await page.waitForSelector("#stage-end-dialog[open]");
  assert.equal(await page.textContent("#stage-end-dialog h2"), "Stage failed");
  assert.match(await page.textContent("#stage-end-dialog"), /Goal: Win the game/);
  await shot(page, "story-stage-failed-390");
  await page.click("#stage-end-dialog .modal-actions button:text('Try again')");
  await page.waitForURL((u) => /\/g\/[0-9a-f]{24}$/.test(u.pathname) && !u.pathname.includes(id));
  await page.waitForSelector(".stage-card:not([hidden]) .exit-stage");
  const s = await getState(gameId(page));
  assert.equal(s.stage.story, "blades");
  assert.equal(s.stage.stage, 0);
  assert.equal(s.status, "ongoing");
  assert.deepEqual(page.errors, []);
});

// Regression (stop 48): every stage whose goal counts plies ("Win within 12 plies",
// "Survive 24 plies without losing") opened on an empty board: the game panel's local
// `plyNote` (the page's ply-note element) hid story.js's plyNote, called on the element.
test("story: a stage whose goal counts plies opens on its board, with the ply note", T, async () => {
  const page = await newPage(browser, server.base);
  await page.goto("/");
  await startSession(page);
  const me = await meOf(page);
  // Blades' first stage done, as if won: its second stage, a win within 12 plies, is next.
  await d1(server.persist, `INSERT INTO story_progress (player_id, story_id, completed, updated_at) VALUES ('${me.id}', 'blades', 1, 0)`);
  await openStories(page);
  await startStage(page, "blades", 1);
  assert.equal(await page.textContent(".stage-card .goal-text"), "Win within 12 plies");
  const s = await getState(gameId(page));
  assert.deepEqual([s.stage.story, s.stage.stage], ["blades", 1]);
  assert.equal(await page.textContent(".stage-card .ply-note"),
    `A ply is one move by either player: 12 plies are 6 of your moves and 6 of the AI's. Plies played so far: ${s.moves.length}.`);
  assert.equal(await page.locator(".board .sq").count(), 81, "the board is drawn");
  assert.deepEqual(page.errors, []);
});

test("story: the last stage's Stage complete! modal announces the badge", T, async () => {
  // Winning all six stages in the browser takes too long: the modal is shown here for a
  // won last stage (state.stage.verdict "won"), through the client's own stageFinished.
  const page = await newPage(browser, server.base);
  await page.goto("/story");
  await page.waitForSelector(".story-card .stage");
  const stories = await page.evaluate(async () => (await fetch("/api/stories")).json());
  const cw = stories.stories.find((x) => x.id === "clockwork");
  const last = cw.stages.length - 1;
  await page.evaluate(async ([i, title]) => {
    const { stageFinished } = await import("/story.js");
    stageFinished({ result: { text: "north wins: king destroyed", winner: "north", reason: "king destroyed" },
      stage: { story: "clockwork", stage: i, title, player: "north", goal: "Win the game", verdict: "won" } });
  }, [last, cw.stages[last].title]);
  await page.waitForSelector("#stage-end-dialog[open]");
  assert.equal(await page.textContent("#stage-end-dialog h2"), "Stage complete!");
  const text = await page.textContent("#stage-end-dialog .modal-body");
  assert.match(text, /the story is complete/);
  // (The "Congratulations!" modal itself opens when the server's award shows in the account:
  // player-view.test.mjs checks it.)
  const badge = page.locator('#stage-end-dialog [data-badge="clockwork-story"]');
  assert.equal(await badge.getAttribute("aria-label"), "Master Clockmaker");
  assert.deepEqual(await page.locator("#stage-end-dialog .modal-actions button").allTextContents(), ["Back to stories"]);
  await shot(page, "story-badge-earned-1280");
  await page.click("#stage-end-dialog .modal-actions button");
  await page.waitForSelector("#stage-end-dialog", { state: "detached" });
  assert.deepEqual(page.errors, []);
});

test("a badge is shown next to the player's name: header, Player Info, game panel (own and opponent's)", T, async () => {
  const a = await newPage(browser, server.base);
  await a.goto("/");
  await startSession(a);
  const me = await meOf(a);
  assert.equal(await a.textContent("#me-link .me-name"), me.name);
  assert.equal(await a.locator("#me-link .badge").count(), 0);
  // The badge, given on the server side.
  await d1(server.persist, "INSERT OR IGNORE INTO badges (id, name, description) VALUES ('clockwork-story', 'Master Clockmaker', 'Finished every stage of the Clockwork story, The Clockmaker''s Hour.')");
  await d1(server.persist, `INSERT INTO player_badges (player_id, badge_id, awarded_at) VALUES ('${me.id}', 'clockwork-story', 0)`);
  await a.reload();
  // Newly earned: the original's "Congratulations!" modal comes first (once).
  await a.waitForSelector("#badge-dialog[open]");
  assert.equal(await a.textContent("#badge-dialog h2"), "Congratulations!");
  await a.click("#badge-dialog .modal-actions button");
  await a.waitForSelector("#badge-dialog", { state: "detached" });
  const headerBadge = a.locator('#me-link .me-name + .badges [data-badge="clockwork-story"]');
  await headerBadge.waitFor();
  assert.equal(await headerBadge.getAttribute("aria-label"), "Master Clockmaker");
  assert.equal(await headerBadge.getAttribute("title"), "Master Clockmaker");
  assert.equal(await headerBadge.getAttribute("role"), "img");
  assert.match(await headerBadge.getAttribute("class"), /\bbadge\b/);
  assert.equal(await a.getAttribute("#me-link", "href"), `/p/${me.id}`);
  await shot(a, "badge-header-1280");

  // Player Info ("My profile" in the header).
  await a.click("#me-link");
  await a.waitForURL(new RegExp(`/p/${me.id}$`));
  const infoBadge = a.locator('.profile-name .pname + .badges [data-badge="clockwork-story"]');
  await infoBadge.waitFor();
  assert.equal(await infoBadge.getAttribute("aria-label"), "Master Clockmaker");
  assert.equal(await a.textContent(".profile-name .pname"), me.name);
  assert.match(await a.textContent(".badge-list"), /Master Clockmaker/);
  assert.match(await a.textContent(".profile-head .rating"), /Unrated/);

  // A link game: the creator's bar shows the name with the badge; the invited player's
  // page shows it too (from Player Info), and the name links to Player Info.
  await a.goto("/");
  await a.waitForSelector(".link-form");
  await a.check('.link-form input[name="l-side"][value="south"]');
  await a.click(".create-link");
  await a.waitForSelector(".invite:not([hidden]) .invite-url");
  const id = gameId(a);
  const own = a.locator(".player-bar.bottom .who");
  await own.locator('.pname + .badges [data-badge="clockwork-story"]').waitFor();
  assert.equal(await own.locator(".pname").textContent(), me.name);
  assert.match(await own.textContent(), /\(you\)/);
  const invite = await a.inputValue(".invite-url");
  const b = await newPage(browser, server.base);
  await b.goto(invite.replace(/^https?:\/\/[^/]+/, ""));
  await b.waitForSelector("#join-dialog[open]");
  await b.click("#join-dialog .primary");
  await b.waitForSelector(".board .sq");
  const bMe = await meOf(b);
  const s = await getState(id);
  assert.equal(s.south.player_id, me.id);
  assert.equal(s.north.player_id, bMe.id, "the join is linked to the joining player");
  const theirs = b.locator(".player-bar.top .who"); // North's board is flipped: South at the top
  await theirs.locator('[data-badge="clockwork-story"]').waitFor();
  assert.equal(await theirs.locator(".pname").textContent(), me.name);
  assert.equal(await theirs.locator(".badge").getAttribute("aria-label"), "Master Clockmaker");
  await b.waitForFunction((n) => document.querySelector(".player-bar.bottom .who .pname")?.textContent === n, bMe.name);
  await a.waitForFunction((n) => document.querySelector(".player-bar.top .who .pname")?.textContent === n, bMe.name);
  assert.equal(await a.locator(".player-bar.top .badge").count(), 0, "no badge for the guest");
  await shot(a, "badge-game-1280");
  await b.setViewportSize({ width: 390, height: 844 });
  await shot(b, "badge-game-390");
  // Clicking the name opens Player Info.
  await theirs.locator(".pname").click();
  await b.waitForURL(new RegExp(`/p/${me.id}$`));
  await b.waitForSelector('.profile-name [data-badge="clockwork-story"]');
  assert.equal(await b.locator(".account-panel").count(), 0, "no account panel on another player's page");
  await noHorizontalScroll(b, "Player Info at 390 px");
  await shot(b, "player-info-390");

  // An AI game: the panel shows the name with the badge, and the AI.
  await a.goto("/");
  await a.waitForSelector(".faction-card");
  await a.selectOption("select[name=level]", "1");
  await a.click(".start-ai");
  await a.waitForURL(/\/g\/[0-9a-f]{24}$/);
  await a.waitForSelector('.player-bar.bottom .who [data-badge="clockwork-story"]');
  assert.match(await a.textContent(".player-bar.top .who"), /^AI/);
  assert.equal((await getState(gameId(a))).south.player_id, me.id);
  for (const p of [a, b]) assert.deepEqual(p.errors, []);
});

test("display name: HTML is refused with the server's message and never inserted; a good name is saved", T, async () => {
  const page = await newPage(browser, server.base);
  await page.goto("/");
  await startSession(page);
  await page.click("#me-link");
  await page.waitForSelector(".account-panel .name-form");
  const input = page.locator(".account-panel .name-form input");
  const error = page.locator(".account-panel .name-form .form-error");
  await input.fill("<b>x</b>");
  await page.click(".account-panel .name-form button[type=submit]");
  await error.waitFor({ state: "visible" });
  assert.match(await error.textContent(), /cannot be used: .*'<'/);
  assert.equal(await page.locator("b").count(), 0, "no <b> element anywhere");
  assert.match((await meOf(page)).name, /^Guest-/);
  await shot(page, "name-refused-1280");
  // A good name: saved, shown in the header and on the page (and kept after a reload).
  await input.fill("Ada Lovelace");
  await input.press("Enter");
  await page.waitForFunction(() => document.querySelector("#me-link .me-name").textContent === "Ada Lovelace");
  assert.ok(await error.isHidden());
  assert.equal(await page.textContent(".profile-name .pname"), "Ada Lovelace");
  assert.equal((await meOf(page)).name, "Ada Lovelace");
  await page.reload();
  await page.waitForFunction(() => document.querySelector("#me-link .me-name")?.textContent === "Ada Lovelace");
  // Sign in with Discord on a server without a Discord application: not offered.
  await page.waitForSelector(".account-panel .guest-note");
  assert.equal(await page.locator(".account-panel .sign-in").count(), 0);
  assert.match(page.url(), /\/p\/[0-9a-f]{24}$/, "still on the page");
  await shot(page, "player-info-1280");
  // The footer's Player Info modal has the same account panel.
  await page.click("#btn-player");
  await page.waitForSelector("#player-dialog[open] .account-panel");
  assert.equal(await page.textContent("#player-dialog .pi-name .pname"), "Ada Lovelace");
  await page.keyboard.press("Escape");
  // A refused sign-in comes back as /?signin_error=<code>: the reason is shown, the URL cleaned.
  await page.goto("/?signin_error=discord_denied");
  await page.waitForSelector("#toasts .toast.error");
  assert.match(await page.textContent("#toasts .toast.error"), /cancelled/);
  assert.equal(new URL(page.url()).search, "");
  // Chromium logs the refused name (422) and the unconfigured sign-in (503): expected.
  assert.deepEqual(page.errors.filter((e) => !/Failed to load resource: .* (422|503) /.test(e)), []);
});

test("rated link games: the checkbox needs Discord; signed in, a rated game is created; sign out", T, async () => {
  const page = await newPage(browser, server.base);
  await page.goto("/");
  await startSession(page);
  const rated = page.locator('.link-form input[name="rated"]');
  // Issue 34: this server has no Discord sign-in, so a guest is offered no rated game at all.
  await page.waitForFunction(() => document.querySelector(".rated-pick")?.hidden === true);
  assert.ok(await rated.isDisabled(), "disabled for a guest");
  // Signed in with Discord (the link is made on the server side: no Discord here).
  const me = await meOf(page);
  await d1(server.persist, `UPDATE players SET discord_id = 'e2e-${me.id}' WHERE id = '${me.id}'`);
  await page.reload();
  await page.waitForFunction(() => document.querySelector('.link-form input[name="rated"]')?.disabled === false);
  await rated.check();
  await page.click(".create-link");
  await page.waitForURL(/\/g\/[0-9a-f]{24}$/);
  await page.waitForSelector(".rated-line:not([hidden])");
  assert.equal((await getState(gameId(page))).rated, true);
  // A guest cannot join it: the reason is given.
  const invite = await page.inputValue(".invite-url");
  const guest = await newPage(browser, server.base);
  await guest.goto(invite.replace(/^https?:\/\/[^/]+/, ""));
  await guest.waitForSelector("#join-dialog[open]");
  assert.match(await guest.textContent("#join-dialog"), /rated/);
  await guest.click("#join-dialog .primary");
  await guest.waitForSelector(".toast");
  assert.match(await guest.textContent("#toasts"), /signed in with Discord/);
  // Sign out: no player on this browser until its next write; the checkbox is disabled again.
  await page.click("#me-link");
  await page.waitForSelector(".account-panel .sign-out");
  await page.click(".account-panel .sign-out");
  await page.waitForSelector(".account-panel .guest-note");
  assert.equal((await meOf(page)).id, null);
  await page.waitForSelector("#me-link", { state: "hidden" });
  await page.goto("/");
  await page.waitForSelector("html[data-app=ready]");
  await page.waitForFunction(() => document.querySelector(".rated-pick")?.hidden === true);
  assert.ok(await rated.isDisabled());
  assert.deepEqual(page.errors, []);
});

test("leaderboard: empty state without rated players, and the match-up table", T, async () => {
  const page = await newPage(browser, server.base);
  await page.goto("/");
  await startSession(page);
  await page.click(".site-footer a[href='/leaderboard']");
  await page.waitForURL(/\/leaderboard$/);
  await page.waitForSelector(".mu-table");
  assert.match(await page.textContent(".lb-players .empty-state"), /No rated players yet/);
  assert.equal(await page.locator(".mu-table tbody tr").count(), 9);
  assert.match(await page.textContent(".mu-table tbody tr:first-child"), /Clockwork\s*vs Clockwork/);
  await shot(page, "leaderboard-1280");
  await page.setViewportSize({ width: 390, height: 844 });
  await settled(page);
  await noHorizontalScroll(page, "the leaderboard at 390 px");
  await shot(page, "leaderboard-390");
  // A rated player appears, with a link to Player Info.
  const me = await meOf(page);
  await d1(server.persist, `UPDATE players SET rated_at = 1, rating = 1612, rating_dev = 140 WHERE id = '${me.id}'`);
  await page.reload();
  await page.waitForSelector(".lb-table");
  assert.equal(await page.textContent(".lb-table tbody tr:first-child .pname"), me.name);
  assert.match(await page.textContent(".lb-table tbody tr:first-child"), /1612 ± 140/);
  await shot(page, "leaderboard-rated-390");
  await page.click(".lb-table .pname");
  await page.waitForURL(new RegExp(`/p/${me.id}$`));
  await page.waitForSelector(".profile-head .rating");
  assert.equal(await page.textContent(".profile-head .rating"), "1612 ± 140");
  assert.deepEqual(page.errors, []);
});

// Issue 30: Player Info read every finished game; it lists a page and "Show more games"
// asks for the next one from where the list ends.
test("Player Info lists finished games a page at a time: Show more games", T, async () => {
  const page = await newPage(browser, server.base);
  await page.goto("/");
  await startSession(page);
  const me = await meOf(page);
  // 13 finished ai games, the newest last (written as the index writes them).
  const rows = Array.from({ length: 13 }, (_, i) => {
    const id = (0xe2e000 + i).toString(16).padStart(24, "0");
    return `('${id}', 'clockwork', 'axiom', 'ai', '${me.id}', 1, ${1_700_000_000_000 + i * 60_000}, 'south wins: resignation', 'south', 'resignation', 4)`;
  });
  await d1(server.persist, "INSERT INTO games (id, south_faction, north_faction, mode, south_player, created_at, finished_at, result, winner, reason, plies) VALUES " + rows.join(", "));
  await page.goto(`/p/${me.id}`);
  await page.waitForSelector(".recent-list .recent");
  assert.equal(await page.locator(".recent-list .recent").count(), 10);
  assert.equal(await page.textContent(".profile-head .played"), "13", "the totals count them all");
  const newest = (0xe2e000 + 12).toString(16).padStart(24, "0");
  assert.equal(await page.getAttribute(".recent-list .recent:first-child a[data-link]", "href"), `/g/${newest}`);
  await page.click(".show-more");
  await page.waitForFunction(() => document.querySelectorAll(".recent-list .recent").length === 13);
  assert.ok(await page.locator(".show-more").isHidden(), "no more pages");
  const oldest = (0xe2e000).toString(16).padStart(24, "0");
  assert.equal(await page.getAttribute(".recent-list .recent:last-child a[data-link]", "href"), `/g/${oldest}`);
  await shot(page, "player-info-more");
  assert.deepEqual(page.errors, []);
});

// Regression (issue 11, item 4): the client started a guest on every page load, so a
// visit that only looked (or a crawler running scripts) left a player behind.
test("a visit that only looks makes no player; the first game does", T, async () => {
  const page = await newPage(browser, server.base);
  await page.goto("/");
  await page.waitForSelector("html[data-app=ready]");
  await page.goto("/leaderboard");
  await page.waitForSelector(".lb-grid, .data-table, .empty-state");
  await page.goto("/story");
  await page.waitForSelector(".story-card");
  const before = await meOf(page);
  assert.equal(before.id, null, "no player after looking at home, leaderboard and stories");
  assert.equal(await page.locator("#me-link").isHidden(), true);
  assert.equal((await page.context().cookies()).filter((c) => c.name.includes("session")).length, 0, "no session cookie");
  await page.goto("/");
  await page.waitForSelector("html[data-app=ready]");
  await page.click(".start-ai");
  await page.waitForURL(/\/g\/[0-9a-f]{24}$/);
  await page.waitForSelector("#me-link:not([hidden])");
  const after = await meOf(page);
  assert.ok(after.id, "the first game starts the player");
  assert.deepEqual(page.errors, []);
});
