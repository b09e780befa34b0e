// Shared harness of the end-to-end tests: starts the real Workers runtime (`wrangler dev`'s
// dev environment) with fresh local state (as tests/support/mod.rs does for the Rust tests),
// launches Debian's Chromium through playwright-core, and offers small API helpers.
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach } from "node:test";
import { startRuntime } from "../support/runtime-host.mjs";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const OUT = join(ROOT, "test-output");
mkdirSync(OUT, { recursive: true });

/**
 * Guards, not measurements: every test waits on a state the page or the API exposes, and
 * these limits only stop one that hangs. They are generous because a CI machine can run at
 * a fraction of this one's speed (a clean-clone run once took 2.4 times its usual time, and
 * a 30 s test ran past the 120 s it was given) while the e2e files share two cores with the
 * real-runtime suites. `TEST_TIMEOUT` is a test's whole budget; `WAIT_MS` is one wait
 * (also every Playwright action's default, set in `newPage`).
 */
export const TEST_TIMEOUT = { timeout: 600_000 };
export const WAIT_MS = 120_000;

const ENV = {
  ...process.env,
  PATH: `${join(ROOT, "node_modules/.bin")}:${join(ROOT, ".tools/bin")}:${process.env.PATH}`,
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_SEND_ERROR_REPORTS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  DO_NOT_TRACK: "1",
  CI: "1",
};

/** Start a fresh runtime; `vars` override wrangler.toml [vars]. Returns {base, persist, stop()}:
 * `wrangler dev`'s own dev environment run in this process (tests/support/runtime-host.mjs,
 * as the Rust harness runs it), so wrangler is loaded once per test file, not per runtime. */
export async function startServer(vars = {}) {
  if (!existsSync(join(ROOT, "build/worker/shim.mjs"))) {
    throw new Error("the Worker is not built: run scripts/build-worker.sh first");
  }
  const persist = mkdtempSync(join(tmpdir(), "iron-arena-e2e-"));
  // The migrations applied: a copy of a template made once (as the Rust harness does).
  execFileSync("python3", [join(ROOT, "tests/support/d1.py"), "--fresh", persist], { cwd: ROOT, env: ENV, stdio: "pipe" });
  // AI_SEED: the AI's moves follow from the seed and the game so far (as in the Rust
  // harness), so a test that plays the AI sees the same game on every run.
  const all = { AI_SEED: "iron-arena-tests", LIMIT_PER_IP_PER_MINUTE: "1000", LIMIT_OPEN_GAMES_PER_CREATOR: "1000", LIMIT_OPEN_GAMES_PER_IP: "1000", LIMIT_AI_MOVES_PER_IP_PER_MINUTE: "1000", LIMIT_JOINS_PER_IP_PER_MINUTE: "1000", LIMIT_WS_PER_IP_PER_MINUTE: "1000", LIMIT_WS_PER_IP: "1000", LIMIT_WS_PER_IP_PER_GAME: "1000", LIMIT_GUESTS_PER_IP_PER_MINUTE: "1000", LIMIT_AI_COST_PER_IP_PER_MINUTE: "1000000", LIMIT_AI_SEARCHES_PER_IP: "1000", ...vars };
  const logFile = join(persist, "wrangler.log");
  let rt;
  try {
    rt = await startRuntime({ persist, vars: all, logFile, removeState: true });
  } catch (e) {
    throw new Error(`the runtime did not start: ${e?.stack ?? e}\n${existsSync(logFile) ? readFileSync(logFile, "utf8") : ""}`);
  }
  return { base: rt.url, persist, stop: rt.stop };
}

/**
 * Runs SQL on a runtime's local D1 (`persist` from startServer), as
 * tests/support/mod.rs does: tests/support/d1.py opens the real SQLite file (milliseconds;
 * `wrangler d1 execute` costs 1.7 s of CPU). Returns the rows of the last statement.
 */
export async function d1(persist, sql) {
  const r = await new Promise((res) => {
    execFile("python3", [join(ROOT, "tests/support/d1.py"), persist, sql], { cwd: ROOT, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => res({ error, stdout: String(stdout), stderr: String(stderr) }));
  });
  if (r.error) throw new Error(`d1 ${sql}: ${r.stderr || r.error.message}`);
  return JSON.parse(r.stdout);
}

export async function api(base, method, path, body, token) {
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* text */ }
  return { status: r.status, json, text };
}

export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** Launch Chromium with a fresh user-data-dir (a persistent context per call). Debian's
 * headless shell by default (scripts/setup.sh installs it): the same Blink and V8 as the
 * full browser, without its UI layers, for about two thirds of the CPU (the browser files:
 * 270-284 CPU-s against 437 with /usr/bin/chromium, same hour). `CHROMIUM` names another. */
export async function launchBrowser() {
  const { chromium } = await import("playwright-core");
  const executablePath = process.env.CHROMIUM || "/usr/bin/chromium-headless-shell";
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS, headless: true });
}

/**
 * The browser contexts opened by the running test, closed when it ends (a top-level hook of
 * every file that imports this module). A page left open keeps its timers (the game
 * clock's redraw each second), its WebSocket and its renderer process running, on the CPU
 * the later tests and the runtimes share, until the file's browser closes. A page one test
 * hands to the next is opened with `keep`.
 */
const openContexts = new Set();
afterEach(async () => {
  const contexts = [...openContexts];
  openContexts.clear();
  await Promise.all(contexts.map((c) => c.close().catch(() => { /* the browser is gone */ })));
});

/** A time zone where it is now between 12:00 and 13:00: a page in it says "today" of
 * anything done in the next eleven hours, whenever the test runs (a test that ran across
 * midnight saw yesterday's moves as "today"'s). `Etc/GMT-5` is UTC+5 (POSIX's sign). */
export function middayZone(now = new Date()) {
  const ahead = 12 - now.getUTCHours(); // hours east of UTC: -11 … 12
  return ahead === 0 ? "Etc/UTC" : `Etc/GMT${ahead > 0 ? "-" : "+"}${Math.abs(ahead)}`;
}

export async function newPage(browser, base, { width = 1280, height = 860, keep = false, timezoneId } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, baseURL: base, ...(timezoneId ? { timezoneId } : {}) });
  if (!keep) openContexts.add(context);
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base }).catch(() => {});
  context.setDefaultTimeout(WAIT_MS);
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") page.errors.push(m.text()); });
  // A page is loaded when the client's controls have their handlers (app.js sets
  // `data-app=ready`, and the module may run after the load event): every navigation
  // waits for it, so no test clicks a control that does nothing yet.
  for (const nav of ["goto", "reload"]) {
    const plain = page[nav].bind(page);
    page[nav] = async (...args) => {
      const response = await plain(...args);
      await page.waitForSelector("html[data-app=ready]", { state: "attached" });
      return response;
    };
  }
  return page;
}

/** From the home page, an AI game at `level` with the home page's factions; returns once
 * the board is open to the player's first move. */
export async function startAiGameFromHome(page, level) {
  await page.goto("/");
  await page.waitForSelector(".faction-card");
  await page.selectOption("select[name=level]", String(level));
  await page.click(".start-ai");
  await page.waitForURL(/\/g\/[0-9a-f]{24}$/);
  await page.waitForSelector(".my-turn .board .sq.pickable");
}

/** The page's live sockets behind a switch: `drop()` closes the open one and refuses
 * reconnects (the page goes offline), `restore()` lets the next reconnect through. */
export async function switchableSockets(page) {
  const sockets = [];
  let allow = true;
  await page.routeWebSocket(/\/ws$/, (ws) => {
    sockets.push(ws);
    if (allow) ws.connectToServer();
    else ws.close();
  });
  return {
    async drop() { allow = false; await sockets.at(-1).close(); },
    restore() { allow = true; },
    /** Sockets the page has opened so far (refused ones included). */
    get opened() { return sockets.length; },
  };
}

export function shot(page, name) {
  return page.screenshot({ path: join(OUT, `${name}.png`), fullPage: false });
}

/** The fixture of the browser suites: a runtime, a second one that refuses every new game
 * (`server_busy`), and a browser; started before the suite, stopped after it. */
export function useServersAndBrowser(before, after) {
  const ctx = {};
  before(async () => {
    [ctx.server, ctx.busy] = await Promise.all([startServer(), startServer({ LIMIT_PER_IP_PER_MINUTE: "0" })]);
    ctx.browser = await launchBrowser();
  });
  after(async () => {
    await ctx.browser?.close();
    ctx.server?.stop();
    ctx.busy?.stop();
  });
  return ctx;
}

/** The page at rest, instead of a fixed sleep: no move being animated (the game screen's
 * `data-animating`) and no finite CSS transition or animation still running. */
export function settled(page) {
  return page.waitForFunction(() => document.querySelector(".game")?.dataset.animating !== "true" &&
    document.getAnimations().every((a) => a.playState !== "running" || a.effect?.getTiming().iterations === Infinity),
  null, { timeout: WAIT_MS });
}
