// End-to-end checks of how a game's page is reached and left, in headless Chromium against
// the real runtime: an invite that stays until its seat is taken (watching first, or a
// join that failed on the way), Cancel game for a link game nobody joined, leaving a game
// while it loads or while its join dialog is open, a game that cannot be read for a reason
// other than "there is none" (Retry), and "Forget this game" in My games. Failures are
// injected with page.route while the real server runs. No fixed sleeps: every wait is on a
// state the page or the API exposes.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { api, launchBrowser, newPage, startServer, TEST_TIMEOUT } from "./support.mjs";

const T = TEST_TIMEOUT;
let server;
let browser;
before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  server?.stop();
});

const getState = async (id) => (await api(server.base, "GET", `/api/games/${id}`)).json;

/** A fresh page at home, and the addresses of the sockets it opens from now on. */
async function homePage() {
  const page = await newPage(browser, server.base);
  const sockets = [];
  page.on("websocket", (ws) => sockets.push(ws.url()));
  await page.goto("/");
  await page.waitForSelector(".home .hero");
  return { page, sockets };
}

/** A link game made by someone else (no browser): its id and the invite's path. */
async function linkGame() {
  const c = await api(server.base, "POST", "/api/games", { south: "clockwork", north: "axiom", mode: "link", seat: "south" });
  assert.equal(c.status, 201);
  const u = new URL(c.json.invite_url);
  return { id: c.json.id, token: c.json.token, invitePath: u.pathname + u.hash, invite_url: c.json.invite_url };
}

/** A request from the page (its session cookie goes with it). */
const fetchIn = (page, method, path, body) => page.evaluate(async ([m, p, b]) => {
  const r = await fetch(p, { method: m, headers: { "content-type": "application/json" }, body: b === null ? undefined : JSON.stringify(b) });
  return { status: r.status, json: await r.json().catch(() => null) };
}, [method, path, body ?? null]);

/** Navigates inside the app (no reload), as a link does. */
const goInApp = (page, path) => page.evaluate(async (p) => (await import("/ui.js")).navigate(p), path);

test("an invited friend who watches, or whose join fails, is still offered the seat: the invite stays until it is taken", T, async () => {
  const g = await linkGame();
  const page = await newPage(browser, server.base);
  await page.goto(g.invitePath);
  await page.waitForSelector("#join-dialog[open]");
  // A tap outside the dialog counts as "Just watch".
  await page.mouse.click(4, 4);
  await page.waitForSelector("#join-dialog", { state: "detached" });
  await page.waitForSelector(".game .board .sq");
  assert.match(new URL(page.url()).hash, /^#invite=[0-9a-f]{64}$/, "the invite stays in the address: a reload offers it again");
  await page.waitForSelector(".join-offer:not([hidden]) .join-game");
  assert.match(await page.textContent(".join-offer"), /You are invited: play Axiom as North against Clockwork/);

  // A reload offers it again; this time the join's request fails on the way.
  await page.reload();
  await page.waitForSelector("#join-dialog[open]");
  await page.route("**/api/games/*/join", (route) => route.abort("internetdisconnected"));
  await page.click("#join-dialog .primary");
  await page.waitForSelector(".toast:has-text('You could not join')");
  await page.waitForSelector(".join-offer:not([hidden]) .join-game:not([disabled])");
  assert.match(new URL(page.url()).hash, /^#invite=/);
  assert.equal((await getState(g.id)).north.claimed, false);

  // The panel's Join takes the seat; then the invite goes from the address.
  await page.unroute("**/api/games/*/join");
  await page.click(".join-game");
  await page.waitForSelector(".join-offer[hidden]", { state: "attached" });
  await page.waitForFunction(() => location.hash === "");
  assert.equal((await getState(g.id)).north.claimed, true);
  const seat = await page.evaluate((id) => JSON.parse(localStorage.getItem("ironarena.seats.v1"))[id], g.id);
  assert.equal(seat.seat, "north");
  await page.waitForSelector(".turn:has-text('You play North')");
  assert.deepEqual(page.errors.filter((e) => !/Failed to load resource/.test(e)), []);
});

test("the creator can cancel a link game nobody joined, after a confirmation", T, async () => {
  const g = await linkGame();
  const page = await newPage(browser, server.base);
  await page.goto("/");
  await page.evaluate(([id, token, url]) => {
    const all = JSON.parse(localStorage.getItem("ironarena.seats.v1") || "{}");
    all[id] = { seat: "south", token, mode: "link", south: "clockwork", north: "axiom", invite_url: url, created: Date.now() };
    localStorage.setItem("ironarena.seats.v1", JSON.stringify(all));
  }, [g.id, g.token, g.invite_url]);
  await page.goto(`/g/${g.id}`);
  await page.waitForSelector(".invite:not([hidden]) .invite-url");
  assert.equal(await page.locator(".actions .resign").isHidden(), true, "nothing to resign: nobody has joined");
  assert.equal(await page.locator(".actions .cancel-game:visible").count(), 1, "Cancel game is offered while the game waits");
  // "Keep waiting" changes nothing.
  await page.click(".actions .cancel-game");
  await page.waitForSelector("#confirm-dialog[open]");
  await page.click("#confirm-dialog button:has-text('Keep waiting')");
  await page.waitForSelector("#confirm-dialog", { state: "detached" });
  assert.equal((await getState(g.id)).status, "waiting");
  // Confirmed, the game is aborted on the server and the page says so.
  await page.click(".actions .cancel-game");
  await page.waitForSelector("#confirm-dialog[open]");
  await page.click("#confirm-dialog button.danger:has-text('Cancel game')");
  await page.waitForSelector(".result-banner:not([hidden]) .result-head:has-text('Game cancelled')");
  const s = await getState(g.id);
  assert.equal(s.status, "finished");
  assert.equal(s.result.text, "aborted: by a player");
  assert.equal(await page.locator(".invite").isHidden(), true);
  assert.equal(await page.locator(".actions .cancel-game").isHidden(), true);
  assert.equal(await page.locator(".result-banner .rematch").count(), 0, "nobody to play again");
  // The invite no longer seats anyone.
  const inv = g.invite_url.split("#invite=")[1];
  assert.equal((await api(server.base, "POST", `/api/games/${g.id}/join`, { invite: inv })).status, 409);
  assert.deepEqual(page.errors, []);
});

test("leaving a game while it loads: the game left never replaces the page the player went to", T, async () => {
  const { page, sockets } = await homePage();
  // "Loading the game…": the game's state is held until the player has gone back home.
  const g = await linkGame();
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route(`**/api/games/${g.id}`, async (route) => { await held; await route.continue(); });
  await goInApp(page, `/g/${g.id}`);
  await page.waitForSelector(".game .loading");
  await page.evaluate(() => history.back());
  await page.waitForSelector(".home .hero");
  const done = page.waitForEvent("requestfinished", (r) => new URL(r.url()).pathname === `/api/games/${g.id}`);
  release();
  await done;
  // A round trip from the page after the held answer: the old view has had its turn.
  assert.equal(await page.evaluate(async (id) => (await fetch(`/api/games/${id}`)).status, g.id), 200);
  assert.equal(await page.locator(".game").count(), 0, "the game left while loading replaced the home page");
  assert.equal(await page.locator(".home .hero").count(), 1);
  assert.deepEqual(sockets.filter((u) => u.includes(`/api/games/${g.id}/ws`)), [], "no socket for a game no longer shown");
  assert.equal(await page.evaluate(() => location.pathname), "/");
  assert.deepEqual(page.errors, []);
});

test("leaving a game while its join dialog is open: the dialog goes with it", T, async () => {
  const { page, sockets } = await homePage();
  const g = await linkGame();
  await goInApp(page, g.invitePath);
  await page.waitForSelector("#join-dialog[open]");
  await page.evaluate(() => history.back());
  await page.waitForSelector(".home .hero");
  // Closed with the game's view, it is removed in its close event, a frame later: waited
  // for (a dialog left over the home page fails here, at the wait's limit).
  await page.locator("#join-dialog").waitFor({ state: "detached" });
  assert.equal(await page.locator("#join-dialog").count(), 0, "the join dialog was left over the home page");
  assert.equal(await page.locator(".game").count(), 0);
  assert.deepEqual(sockets.filter((u) => u.includes(`/api/games/${g.id}/ws`)), [], "no socket for a game no longer shown");
  assert.equal((await getState(g.id)).north.claimed, false);
  assert.deepEqual(page.errors, []);
});

test("a game that cannot be read for a network or server failure is not 'not found', and Retry loads it", T, async () => {
  const g = await linkGame();
  const page = await newPage(browser, server.base);
  let mode = "502";
  await page.route(`**/api/games/${g.id}`, (route) => (mode === "502"
    ? route.fulfill({ status: 502, contentType: "text/html", body: "<html><body><h1>502 Bad Gateway</h1></body></html>" })
    : mode === "network" ? route.abort("internetdisconnected") : route.continue()));
  await page.goto(`/g/${g.id}`);
  await page.waitForSelector(".notfound h1");
  assert.equal((await page.textContent(".notfound h1")).trim(), "The game could not be loaded");
  assert.equal(await page.locator("h1:has-text('Game not found')").count(), 0);
  const text = await page.textContent(".load-failed");
  assert.match(text, /server had a problem \(HTTP 502\)/);
  assert.doesNotMatch(text, /Bad Gateway|<html/, "an error page's text is never shown");
  // Retry, with the network down: it says so.
  mode = "network";
  await page.click(".retry-load");
  await page.waitForSelector(".load-failed p:has-text('could not be reached')");
  // Retry once the server answers: the game.
  mode = "pass";
  await page.click(".retry-load");
  await page.waitForSelector(".game .board .sq");
  await page.waitForSelector(".turn:has-text('Waiting for the invited player')");
  // An unknown game is still "Game not found" (a 404), with no Retry.
  await page.goto("/g/0123456789abcdef01234567");
  await page.waitForSelector("h1:has-text('Game not found')");
  assert.equal(await page.locator(".retry-load").count(), 0);
});

test("a game forgotten in My games stays forgotten though the server still lists it", T, async () => {
  const page = await newPage(browser, server.base);
  await page.goto("/");
  assert.equal((await fetchIn(page, "POST", "/api/me", {})).status < 300, true);
  // Two games of this session, kept in no localStorage (as if made on another device).
  const ids = [];
  for (let k = 0; k < 2; k++) {
    const c = await fetchIn(page, "POST", "/api/games", { south: "clockwork", north: "axiom", mode: "link", seat: "south" });
    assert.equal(c.status, 201);
    ids.push(c.json.id);
  }
  const [kept, forgotten] = ids;
  await page.goto("/");
  await page.waitForSelector(`.game-item a[href="/g/${forgotten}"]`);
  await page.waitForSelector(`.game-item a[href="/g/${kept}"]`);
  await page.click(`.game-item:has(a[href="/g/${forgotten}"]) .forget`);
  await page.waitForSelector(`.game-item a[href="/g/${forgotten}"]`, { state: "detached" });
  // The next visit: the server still lists both; My games (drawn once the list is read)
  // shows the kept one only.
  await page.goto("/");
  await page.waitForSelector(`.game-item a[href="/g/${kept}"]`);
  assert.equal(await page.locator(`.game-item a[href="/g/${forgotten}"]`).count(), 0, "the forgotten game came back");
  const listed = (await fetchIn(page, "GET", "/api/me/games")).json.games.map((x) => x.id);
  assert.ok(listed.includes(forgotten), "the server still lists it");
  // Opened again, it is the player's game again.
  await page.goto(`/g/${forgotten}`);
  await page.waitForSelector(".turn:has-text('You play South')");
  await page.goto("/");
  await page.waitForSelector(`.game-item a[href="/g/${forgotten}"]`);
  assert.deepEqual(page.errors, []);
});
