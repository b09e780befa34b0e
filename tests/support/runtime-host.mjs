// Runs the test runtimes: `wrangler dev`'s own dev environment (wrangler's
// `unstable_startWorker`: the same config reading, bundling, Miniflare and workerd as the
// command), several in one Node process. A `wrangler dev` process per runtime spent ~2.7 s
// of CPU starting, most of it loading wrangler's 15 MB bundle, and the suites start ~50
// runtimes; here wrangler is loaded once per process and a runtime starts in ~0.5 s of
// Node's CPU (README.md, section Tests, has the measurement). The browser tests import
// `startRuntime`; the Rust suites (tests/support/mod.rs) run this file as a process and
// speak JSON lines on its stdin and stdout:
//   {"id": 1, "op": "start", "persist": DIR, "vars": {..}, "assets": DIR|null, "module": FILE|null}
//     -> {"id": 1, "url": "http://127.0.0.1:PORT"} or {"id": 1, "error": "..."}
//   {"id": 2, "op": "stop", "runtime": 1}   -> {"id": 2, "stopped": true}
// When its stdin ends (the test process is gone, however it ended) it stops every runtime
// still running, removes their state directories (and its log, RUNTIME_HOST_LOG) and exits.
import { appendFileSync, rmSync } from "node:fs";
import { createInterface } from "node:readline";
import { format } from "node:util";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");

let wrangler;
async function loadWrangler() {
  // Offline and quiet, as scripts/env.sh keeps the command (the Rust harness sets the same):
  // no metrics, no error reports, no fetch of the `cf` object from Cloudflare.
  const offline = { WRANGLER_SEND_METRICS: "false", WRANGLER_SEND_ERROR_REPORTS: "false",
    CLOUDFLARE_CF_FETCH_ENABLED: "false", DO_NOT_TRACK: "1", CI: "1" };
  for (const [k, v] of Object.entries(offline)) process.env[k] ??= v;
  wrangler ??= await import(join(ROOT, "node_modules/wrangler/wrangler-dist/cli.js"));
  return wrangler;
}

/** State directories to remove when this process exits (`removeState`). */
const removeAtExit = new Set();
process.on("exit", () => {
  for (const dir of removeAtExit) rmSync(dir, { recursive: true, force: true });
});

/**
 * Starts a runtime on `persist` (its local Durable Object and D1 state), on a port of the
 * kernel's choosing (no port to race for), with `vars` overriding wrangler.toml's [vars],
 * serving `assets` instead of public/ when given, running the module whose entry is
 * `module` instead of wrangler.toml's `main` (the deployed module, build/) when given: the
 * Rust suites run the test module, build/test-hooks/. What the Worker logs goes to `logFile`,
 * one line per entry. As `wrangler dev --test-scheduled --log-level warn`, without the
 * inspector, the dev registry or the file watcher (a test restarts a runtime itself; a
 * reload under a running test dropped its requests). Returns `{ url, stop() }`: `stop`
 * kills its workerd (Miniflare's dispose: SIGKILL, as a crash would) and waits for it.
 * `removeState`: `persist` is removed when the runtime stops or, at the latest, when this
 * process exits (the browser files; the Rust harness removes its own).
 */
export async function startRuntime({ persist, vars = {}, assets = null, module = null, logFile, removeState = false }) {
  if (removeState) removeAtExit.add(persist);
  const { unstable_startWorker } = await loadWrangler();
  const config = process.env.IRON_ARENA_TEST_CONFIG || join(ROOT, "wrangler.toml");
  const bindings = {};
  for (const [name, value] of Object.entries(vars)) bindings[name] = { type: "plain_text", value: String(value) };
  const worker = await unstable_startWorker({
    config,
    bindings,
    ...(module ? { entrypoint: module } : {}),
    ...(assets ? { assets } : {}),
    dev: {
      server: { hostname: "127.0.0.1", port: 0 },
      inspector: false,
      persist,
      testScheduled: true,
      logLevel: "warn",
      watch: false,
      structuredLogsHandler: ({ level, message }) => appendFileSync(logFile, `[${level}] ${message}\n`),
    },
  });
  try {
    // A start that never finishes would hold every test of its binary (the Rust harness
    // sends one request at a time): it fails after 3 minutes, a loaded machine's worst.
    let timer;
    const timeout = new Promise((_, fail) => {
      timer = setTimeout(() => fail(new Error("the runtime did not start within 180 s")), 180_000);
    });
    const url = await Promise.race([worker.ready.then(() => worker.url), timeout]).finally(() => clearTimeout(timer));
    const stop = async () => {
      await worker.dispose();
      if (removeState) {
        rmSync(persist, { recursive: true, force: true });
        removeAtExit.delete(persist);
      }
    };
    return { url: url.origin, stop };
  } catch (e) {
    await worker.dispose().catch(() => {});
    throw e;
  }
}

/** The JSON-lines server of the Rust harness (see the top of this file). */
async function serve() {
  const running = new Map(); // id -> { persist, stop }
  // stdout carries only the replies: wrangler's own messages go to stderr.
  const toStderr = (...args) => process.stderr.write(`${format(...args)}\n`);
  Object.assign(console, { log: toStderr, info: toStderr, warn: toStderr, debug: toStderr });
  const reply = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);
  const lines = createInterface({ input: process.stdin });
  const pending = [];
  lines.on("line", (line) => {
    pending.push((async () => {
      let req = { id: null };
      try {
        req = JSON.parse(line);
        if (req.op === "start") {
          const rt = await startRuntime({ persist: req.persist, vars: req.vars, assets: req.assets,
            module: req.module, logFile: join(req.persist, "wrangler.log") });
          running.set(req.id, { persist: req.persist, stop: rt.stop });
          reply({ id: req.id, url: rt.url });
        } else if (req.op === "stop") {
          const rt = running.get(req.runtime);
          running.delete(req.runtime);
          if (rt) await rt.stop();
          reply({ id: req.id, stopped: true });
        } else {
          reply({ id: req.id, error: `unknown op ${req.op}` });
        }
      } catch (e) {
        reply({ id: req.id, error: String(e?.stack ?? e) });
      }
    })());
  });
  lines.on("close", async () => {
    await Promise.allSettled(pending);
    // The state of the runtimes still running goes at exit, as `removeState`'s does.
    for (const rt of running.values()) removeAtExit.add(rt.persist);
    // Stopping is SIGKILL and a wait: give it 10 s, then leave anyway.
    setTimeout(() => process.exit(0), 10_000).unref();
    await Promise.allSettled([...running.values()].map((rt) => rt.stop()));
    // Its own log (stderr, the harness's file): kept only when it ended otherwise.
    if (process.env.RUNTIME_HOST_LOG) rmSync(process.env.RUNTIME_HOST_LOG, { force: true });
    process.exit(0);
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await serve();
