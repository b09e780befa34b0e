// End-to-end checks of issue 14 in headless Chromium against the real runtime: the rematch
// button after an AI game (one click: a new game with the sides swapped, the same seat
// token); "My games" from the server (a game this browser has no token for is listed and
// played by the session); the turn-notification toggle (the browser's PushManager is
// stubbed, as headless Chromium reaches no push service: the subscription goes to the
// server and comes off again). No fixed sleeps: every wait is on a state the page exposes.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { api, d1, launchBrowser, middayZone, newPage, shot, startServer, TEST_TIMEOUT, WAIT_MS } from "./support.mjs";

const T = TEST_TIMEOUT;
let server;
let browser;
before(async () => {
  // A VAPID key made for this run only (never a real secret).
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const vapid = privateKey.export({ format: "jwk" }).d;
  server = await startServer({ AI_ENGINE: "random", VAPID_PRIVATE_KEY: vapid });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  server?.stop();
});

/** A request from the page (its session cookie goes with it). */
const fetchIn = (page, method, path, body, token) => page.evaluate(async ([m, p, b, t]) => {
  const headers = { "content-type": "application/json" };
  if (t) headers.authorization = `Bearer ${t}`;
  const r = await fetch(p, { method: m, headers, body: b === null ? undefined : JSON.stringify(b) });
  return { status: r.status, json: await r.json().catch(() => null) };
}, [method, path, body ?? null, token ?? null]);

/**
 * Plays the server's first legal move by clicking (skipping any ability offered) on a page
 * whose player has the move, and waits until the page and the server both show `ply`.
 */
async function playFirstLegal(page, id, ply) {
  await page.waitForSelector(".my-turn .board .sq.pickable");
  const s = (await api(server.base, "GET", `/api/games/${id}`)).json;
  const mv = s.legal_moves[0];
  await page.click(`.board [data-sq="${mv.slice(0, 2)}"]`);
  await page.waitForSelector(`.board [data-sq="${mv.slice(2, 4)}"].target`);
  await page.click(`.board [data-sq="${mv.slice(2, 4)}"]`);
  const ask = page.locator(".ability-choice button, .skip-ability").first();
  if (await ask.isVisible().catch(() => false)) await ask.click();
  await page.waitForFunction((n) => document.querySelector(".game")?.dataset.ply === String(n), ply, { timeout: WAIT_MS });
  assert.equal((await api(server.base, "GET", `/api/games/${id}`)).json.ply, ply);
}

test("the rematch button starts a new AI game with the sides swapped", T, async () => {
  const page = await newPage(browser, server.base);
  await page.goto("/");
  const c = await fetchIn(page, "POST", "/api/games", { south: "axiom", north: "blades", mode: "ai", seat: "south", level: 1 });
  assert.equal(c.status, 201);
  const { id, token } = c.json;
  await page.evaluate(([id, token]) => {
    const all = JSON.parse(localStorage.getItem("ironarena.seats.v1") || "{}");
    all[id] = { seat: "south", token, mode: "ai", south: "axiom", north: "blades", created: Date.now() };
    localStorage.setItem("ironarena.seats.v1", JSON.stringify(all));
  }, [id, token]);
  assert.equal((await api(server.base, "POST", `/api/games/${id}/resign`, {}, token)).status, 200);
  await page.goto(`/g/${id}`);
  await page.waitForSelector(".result-banner:not([hidden]) button.rematch");
  await shot(page, "i14-rematch-button");
  await page.click(".result-banner button.rematch");
  await page.waitForURL((u) => /\/g\/[0-9a-f]{24}$/.test(u.pathname) && !u.pathname.endsWith(id));
  const newId = /\/g\/([0-9a-f]{24})/.exec(page.url())[1];
  const s = (await api(server.base, "GET", `/api/games/${newId}`)).json;
  assert.equal(s.north.player, "human");
  assert.equal(s.south.player, "ai");
  assert.equal(s.ply, 1, "the AI, now South, opened");
  // The swap is said: the player now has North and the AI's old faction.
  await page.waitForSelector(".toast:has-text('Rematch: you now play North with Blades')");
  const seat = await page.evaluate((n) => JSON.parse(localStorage.getItem("ironarena.seats.v1"))[n], newId);
  assert.equal(seat.seat, "north");
  assert.equal(seat.token, token, "the seat token carried over");
  await page.waitForSelector(".my-turn .board .sq.pickable");
  // Issue 34: an AI rematch can keep the player's faction (Blades), still changing side.
  assert.equal((await api(server.base, "POST", `/api/games/${newId}/resign`, {}, token)).status, 200);
  await page.waitForSelector(".result-banner:not([hidden]) button.rematch-keep:has-text('Rematch with Blades')");
  await page.click(".result-banner button.rematch-keep");
  await page.waitForURL((u) => /\/g\/[0-9a-f]{24}$/.test(u.pathname) && !u.pathname.endsWith(newId));
  const keptId = /\/g\/([0-9a-f]{24})/.exec(page.url())[1];
  const k = (await api(server.base, "GET", `/api/games/${keptId}`)).json;
  assert.deepEqual([k.south.player, k.south.faction, k.north.faction], ["human", "blades", "axiom"]);
  await page.waitForSelector(".toast:has-text('Rematch: you keep Blades, now playing South')");
  await page.waitForSelector(".my-turn .board .sq.pickable");
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// Issue 31: "Take back" in a casual game against the AI undoes the player's last move and
// the AI's answer on the server; the page shows the earlier position, and the game says
// it was assisted.
test("take back against the AI: the board, the list and the server go back one move each", T, async () => {
  const page = await newPage(browser, server.base);
  await page.goto("/");
  const c = await fetchIn(page, "POST", "/api/games", { south: "clockwork", north: "axiom", mode: "ai", seat: "south", level: 1 });
  assert.equal(c.status, 201);
  const { id, token } = c.json;
  await page.evaluate(([id, token]) => {
    const all = JSON.parse(localStorage.getItem("ironarena.seats.v1") || "{}");
    all[id] = { seat: "south", token, mode: "ai", south: "clockwork", north: "axiom", created: Date.now() };
    localStorage.setItem("ironarena.seats.v1", JSON.stringify(all));
  }, [id, token]);
  await page.goto(`/g/${id}`);
  assert.equal(await page.locator(".actions .takeback").isHidden(), true, "nothing to take back yet");
  await playFirstLegal(page, id, 2); // the move and the AI's answer
  await page.waitForSelector(".actions .takeback:not([hidden])");
  await page.click(".actions .takeback");
  await page.waitForFunction(() => document.querySelector(".game")?.dataset.ply === "0" &&
    document.querySelectorAll(".move-list .mv").length === 0, null, { timeout: WAIT_MS });
  const s = (await api(server.base, "GET", `/api/games/${id}`)).json;
  assert.deepEqual([s.ply, s.moves.length, s.assisted], [0, 0, true]);
  await page.waitForSelector(".my-turn .board .sq.pickable");
  assert.equal(await page.locator(".actions .takeback").isHidden(), true);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test("My games lists a game from the server and the session plays it without a token", T, async () => {
  const page = await newPage(browser, server.base);
  await page.goto("/");
  await fetchIn(page, "POST", "/api/me", {}); // this browser's session (a guest)
  // Made in this browser's session but not kept in its localStorage (as on another device).
  const c = await fetchIn(page, "POST", "/api/games", { south: "clockwork", north: "axiom", mode: "link", seat: "south", days_per_move: 3 });
  assert.equal(c.status, 201);
  const id = c.json.id;
  const invite = c.json.invite_url.split("#invite=")[1];
  assert.equal((await api(server.base, "POST", `/api/games/${id}/join`, { invite })).status, 200);
  await page.goto("/");
  const item = page.locator(`.my-games .game-item:has(a[href="/g/${id}"])`);
  await item.locator(".gi-status.yours").waitFor();
  await shot(page, "i14-my-games");
  await item.locator("a").click();
  await playFirstLegal(page, id, 1);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// Issue 34, items 8 and 9: a correspondence game shows its time control on the waiting
// page, a clock on each player bar and "You must move by…" on one's own turn; My games lists
// the unfinished games first, names the opponent, the time control and the last move's
// date, counts moves, and keeps older finished games behind "Show more".
test("correspondence in view (clocks, 'You must move by'); My games: unfinished first, opponent, time control, date, show more", T, async () => {
  // Around noon in the page's zone: "today" holds until the test ends, whenever it runs.
  const page = await newPage(browser, server.base, { timezoneId: middayZone() });
  await page.goto("/");
  await fetchIn(page, "POST", "/api/me", {});
  const keep = (id, seat) => page.evaluate(([i, v]) => {
    const all = JSON.parse(localStorage.getItem("ironarena.seats.v1") || "{}");
    all[i] = v;
    localStorage.setItem("ironarena.seats.v1", JSON.stringify(all));
  }, [id, seat]);
  const make = async (body) => {
    const r = await fetchIn(page, "POST", "/api/games", body);
    assert.equal(r.status, 201);
    await keep(r.json.id, { seat: r.json.seat, token: r.json.token, mode: body.mode, south: body.south, north: body.north, invite_url: r.json.invite_url, created: Date.now() });
    return r.json;
  };
  // Four AI games ended at once, one going on, and a correspondence game.
  for (let k = 0; k < 4; k++) {
    const g = await make({ mode: "ai", level: 1, seat: "south", south: "axiom", north: "blades" });
    assert.equal((await fetchIn(page, "POST", `/api/games/${g.id}/resign`, {}, g.token)).status, 200);
  }
  await make({ mode: "ai", level: 1, seat: "south", south: "clockwork", north: "axiom" });
  const c = await make({ mode: "link", seat: "south", south: "blades", north: "axiom", days_per_move: 3 });
  // The waiting page names the time control.
  await page.goto(`/g/${c.id}`);
  await page.waitForSelector(".invite:not([hidden]) .invite-terms");
  assert.match(await page.textContent(".invite-terms"), /^3 days per move · Blades \(South\) vs Axiom \(North\)/);
  const joined = await api(server.base, "POST", `/api/games/${c.id}/join`, { invite: c.invite_url.split("#invite=")[1] });
  assert.equal(joined.status, 200);
  // South (this page) moves; North's clock runs, South's shows the allowance.
  await playFirstLegal(page, c.id, 1);
  await page.waitForSelector(".player-bar.top .clock.running");
  assert.match(await page.textContent(".player-bar.top .clock"), /^2 d 23 h$/);
  assert.equal(await page.textContent(".player-bar.bottom .clock"), "3 d");
  assert.match(await page.getAttribute(".player-bar.top .clock", "aria-label"), /^North: 2 d 23 h left to move$/);
  assert.match(await page.textContent(".deadline"), /^North must move by /);
  // North answers: now it is this player's move, said to them.
  const s = (await api(server.base, "GET", `/api/games/${c.id}`)).json;
  assert.equal((await api(server.base, "POST", `/api/games/${c.id}/moves`, { move: s.legal_moves[0], ply: 1 }, joined.json.token)).status, 200);
  await page.waitForFunction(() => /^You must move by /.test(document.querySelector(".deadline")?.textContent || ""));
  await page.waitForSelector(".player-bar.bottom .clock.running");
  await shot(page, "i34-correspondence-clocks-1280");
  // My games.
  await page.goto("/");
  await page.waitForFunction(() => document.querySelectorAll(".my-games .game-item").length === 6 &&
    !document.querySelector(".my-games .game-item:not([data-rank])") && !/…/.test(document.querySelector(".my-games .game-list").textContent));
  const items = await page.$$eval(".my-games .game-item", (els) => els.map((e) => ({ rank: e.dataset.rank, hidden: e.hidden, text: e.textContent.replace(/\s+/g, " ").trim() })));
  assert.deepEqual(items.map((x) => x.rank), ["yours", "yours", "finished", "finished", "finished", "finished"], JSON.stringify(items));
  assert.deepEqual(items.map((x) => x.hidden), [false, false, false, false, false, true]);
  const link = items.find((x) => x.text.includes("3 days per move"));
  assert.match(link.text, /vs a guest/);
  assert.match(link.text, /Your turn · move 2 · move by .* · last move today \d/);
  assert.match(items.find((x) => x.text.includes("Clockwork vs Axiom")).text, /vs the AI \(level 1\).*no time limit/);
  assert.match(items[2].text, /Finished: you lost · 0 moves · started today/);
  assert.equal(await page.textContent(".my-games .show-more"), "Show 1 more finished game");
  await shot(page, "i34-my-games-1280");
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, "i34-my-games-390");
  await page.click(".my-games .show-more");
  await page.waitForSelector(".my-games .show-more", { state: "hidden" });
  assert.equal(await page.locator(".my-games .game-item:visible").count(), 6);
  assert.deepEqual(page.errors, []);
});

// Regression: a game opened by its address on a device that holds no token for it (made on
// another device) was only watched until the home page had listed it in My games.
test("a game opened by its address is played by the session that holds its seat, without the home page first", T, async () => {
  const page = await newPage(browser, server.base);
  await page.goto("/");
  await fetchIn(page, "POST", "/api/me", {}); // this browser's session (a guest)
  const c = await fetchIn(page, "POST", "/api/games", { south: "blades", north: "clockwork", mode: "link", seat: "north", days_per_move: 2 });
  assert.equal(c.status, 201);
  const id = c.json.id;
  const invite = c.json.invite_url.split("#invite=")[1];
  const south = await api(server.base, "POST", `/api/games/${id}/join`, { invite });
  assert.equal(south.status, 200);
  const s0 = (await api(server.base, "GET", `/api/games/${id}`)).json;
  const first = s0.legal_moves[0];
  assert.equal((await api(server.base, "POST", `/api/games/${id}/moves`, { move: first, ply: 0 }, south.json.token)).status, 200);
  await page.goto(`/g/${id}`); // straight to the game: no home page, no token in this browser
  await playFirstLegal(page, id, 2);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test("the notification toggle subscribes this browser and unsubscribes it", T, async () => {
  const page = await newPage(browser, server.base);
  // Headless Chromium reaches no push service: a stand-in PushManager hands out a
  // subscription with a real P-256 key (RFC 8291's example) for the server to validate.
  await page.addInitScript(() => {
    let sub = null;
    const make = () => ({
      endpoint: "https://push.example/e2e-subscription",
      toJSON() {
        return { endpoint: this.endpoint, keys: { p256dh: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4", auth: "BTBZMqHH6r4Tts7J_aSIgg" } };
      },
      async unsubscribe() { sub = null; return true; },
    });
    PushManager.prototype.subscribe = async () => (sub = make());
    PushManager.prototype.getSubscription = async () => sub;
    Object.defineProperty(Notification, "permission", { get: () => "granted" });
    Notification.requestPermission = async () => "granted";
  });
  await page.goto("/");
  const btn = page.locator(".push-toggle");
  await btn.waitFor();
  assert.equal(await btn.getAttribute("aria-pressed"), "false");
  await shot(page, "i14-push-toggle");
  await btn.click();
  await page.waitForSelector('.push-toggle[aria-pressed="true"]');
  const rows = await d1(server.persist, "SELECT endpoint FROM push_subscriptions");
  assert.deepEqual(rows.map((r) => r.endpoint), ["https://push.example/e2e-subscription"]);
  await btn.click();
  await page.waitForSelector('.push-toggle[aria-pressed="false"]');
  assert.deepEqual(await d1(server.persist, "SELECT endpoint FROM push_subscriptions"), []);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test("a challenge accepted: the accepter's page and the poster's open the game; elsewhere the poster gets a notice", T, async () => {
  // The poster (a second browser context) posts from the form on the home page.
  const poster = await newPage(browser, server.base);
  await poster.goto("/");
  const post = async (south, days) => {
    await poster.selectOption(".challenge-form select[name=south]", south);
    await poster.selectOption(".challenge-form select[name=seat]", "south");
    await poster.selectOption(".challenge-form select[name=days]", days);
    await poster.click(".challenge-form .post-challenge");
    const mine = poster.locator(".challenge-list .challenge-item", { hasText: `${south[0].toUpperCase()}${south.slice(1)} vs Random` });
    // Once (a clean-clone CI run beside two AI matches) this wait timed out and nothing said
    // why: a failure now says what the poster's page showed (toasts, each item's button).
    await mine.locator("button.cancel-challenge").waitFor().catch(async (e) => {
      await shot(poster, "i14-challenge-post-failed");
      throw new Error(`${e.message}\nthe poster's page showed:\n${await poster.locator("body").innerText()}\n` +
        `its buttons: ${JSON.stringify(await poster.locator(".challenge-item button").evaluateAll((b) => b.map((x) => x.className)))}`);
    });
    return mine;
  };
  await post("blades", "2");
  const id = (await api(server.base, "GET", "/api/challenges")).json.challenges[0].id;
  const page = await newPage(browser, server.base);
  /** The accepter accepts the poster's `south` challenge: the game's id, and when the
   * accept's answer came (ms). */
  const accept = async (south) => {
    await page.goto("/");
    const row = page.locator(".challenge-list .challenge-item", { hasText: `${south} vs Random` });
    await row.waitFor();
    const answered = page.waitForResponse((r) => /\/api\/challenges\/[0-9a-f]{24}\/accept$/.test(r.url()));
    await row.locator("button.accept-challenge").click();
    await answered;
    const at = Date.now();
    await page.waitForURL(/\/g\/[0-9a-f]{24}$/);
    return { game: /\/g\/([0-9a-f]{24})/.exec(page.url())[1], at };
  };
  await page.goto("/");
  await page.locator(".challenge-list .challenge-item", { hasText: "Blades vs Random" }).waitFor();
  await shot(page, "i14-challenges");
  // When the poster's page reached a game, timed as it happens: the checks below take
  // their own time, which a loaded machine would have added to it.
  const posterAt = poster.waitForURL(/\/g\/[0-9a-f]{24}$/).then(() => Date.now());
  const first = await accept("Blades");
  const s = (await api(server.base, "GET", `/api/games/${first.game}`)).json;
  assert.equal(s.status, "ongoing");
  assert.equal(s.south.faction, "blades");
  assert.equal(s.days_per_move, 2);
  const seat = await page.evaluate((g) => JSON.parse(localStorage.getItem("ironarena.seats.v1"))[g], first.game);
  assert.equal(seat.seat, "north");
  assert.ok(seat.token);
  const list = (await api(server.base, "GET", "/api/challenges")).json.challenges;
  assert.ok(!list.some((c) => c.id === id), "accepted: off the list");
  // The poster, still on the home page, is taken into the game without a reload (the
  // lobby's push, then its own "My games"), and can move there: South, played by session.
  const taken = (await posterAt) - first.at;
  assert.equal(new URL(poster.url()).pathname, `/g/${first.game}`);
  console.log(`the poster was in the game ${taken} ms after the accept answered`);
  // 200-300 ms on this machine (issue 34 asks for a second); the bound is looser for a
  // slow CI machine, and still tells the lobby's push from the 15 s poll or a reload.
  assert.ok(taken < 3000, `the poster was in the game ${taken} ms after the accept answered`);
  await poster.waitForSelector(".my-turn .board .sq.pickable");
  assert.match(await poster.textContent(".turn"), /Your turn\. You play South \(Blades\)/);
  // A second challenge, accepted while the poster is on another page: a notice with the
  // game's link, and the page stays where it was.
  await poster.goto("/");
  await post("axiom", "");
  await poster.click("a.mode-card[href='/leaderboard']");
  await poster.waitForURL("**/leaderboard");
  const second = await accept("Axiom");
  const link = poster.locator(`.toast.notice a[href="/g/${second.game}"]`);
  await link.waitFor();
  assert.match(await poster.textContent(".toast.notice"), /Your challenge was accepted: you play South \(Axiom\)/);
  assert.match(poster.url(), /\/leaderboard$/);
  await shot(poster, "i34-challenge-accepted-notice");
  await link.click();
  await poster.waitForURL(`**/g/${second.game}`);
  await poster.waitForSelector(".my-turn .board .sq.pickable");
  assert.equal(await poster.locator(".toast.notice").count(), 0, "the notice went with its link");
  // A challenge the poster cancels is no acceptance: the watch forgets it.
  await poster.goto("/");
  const mine = await post("clockwork", "");
  await mine.locator("button.cancel-challenge").click();
  // Once (a clean-clone CI run on a machine loaded by other jobs) the cancelled challenge
  // stayed listed for the whole wait and nothing said why: a failure now says what the
  // poster's page showed (a toast names a refused cancel) and what the server lists.
  await mine.waitFor({ state: "detached" }).catch(async (e) => {
    await shot(poster, "i14-challenge-cancel-failed");
    const listed = (await api(server.base, "GET", "/api/challenges")).json;
    throw new Error(`${e.message}\nthe poster's page showed:\n${await poster.locator("body").innerText()}\n` +
      `GET /api/challenges: ${JSON.stringify(listed)}`);
  });
  assert.equal(await poster.evaluate(() => localStorage.getItem("ironarena.challenges.mine.v1")), "{}");
  assert.match(poster.url(), /\/$/);
  assert.deepEqual(page.errors, []);
  assert.deepEqual(poster.errors, []);
  await page.context().close();
  await poster.context().close();
});

test("the challenge list is live: another player's challenge appears on an open home page without reload", T, async () => {
  const page = await newPage(browser, server.base);
  const gets = [];
  page.on("request", (r) => { if (r.method() === "GET" && new URL(r.url()).pathname === "/api/challenges") gets.push(r.url()); });
  const socket = page.waitForEvent("websocket", (ws) => ws.url().endsWith("/api/challenges/ws"));
  await page.goto("/");
  await socket;
  await page.locator(".challenge-list").waitFor({ state: "attached" });
  // Another player (a second browser context) posts, and then cancels.
  const poster = await newPage(browser, server.base);
  await poster.goto("/");
  await fetchIn(poster, "POST", "/api/me", {});
  const posted = await fetchIn(poster, "POST", "/api/challenges", { south: "clockwork", north: "clockwork", seat: "north", days_per_move: 7 });
  assert.equal(posted.status, 201);
  // Within 10 s (the fallback poll is every 15 s and only while the socket is down).
  const row = page.locator(".challenge-list .challenge-item", { hasText: "Clockwork vs Clockwork" });
  await row.waitFor({ timeout: WAIT_MS });
  await shot(page, "i14-challenges-live");
  assert.equal((await fetchIn(poster, "POST", `/api/challenges/${posted.json.challenge.id}/cancel`, {})).status, 200);
  await row.waitFor({ state: "detached", timeout: WAIT_MS });
  assert.deepEqual(gets, [], "the list came over the socket, not by polling");
  assert.deepEqual(page.errors, []);
  assert.deepEqual(poster.errors, []);
  await page.context().close();
  await poster.context().close();
});
