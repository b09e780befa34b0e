// The harness's own promise: a browser file's runtimes leave nothing behind.
// Regression: every runtime of the browser files kept its state directory
// (/tmp/iron-arena-e2e-*: its Durable Objects and D1 file) for good; 486 had piled up here.
// A runtime started with `removeState` (as startServer starts them) now removes it when it
// stops, or when its process exits without stopping it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, TEST_TIMEOUT } from "./support.mjs";
import { startRuntime } from "../support/runtime-host.mjs";

const HOST = pathToFileURL(join(ROOT, "tests/support/runtime-host.mjs")).href;

test("a stopped runtime's state is removed, and so is the state of one its process left running", TEST_TIMEOUT, async () => {
  const stopped = mkdtempSync(join(tmpdir(), "iron-arena-e2e-"));
  const rt = await startRuntime({ persist: stopped, logFile: join(stopped, "wrangler.log"), removeState: true });
  assert.equal((await fetch(`${rt.url}/api/health`)).status, 200);
  await rt.stop();
  assert.ok(!existsSync(stopped), `${stopped} is left behind after stop()`);

  // A process that starts a runtime and exits without stopping it.
  const script = `
    import { mkdtempSync } from "node:fs";
    const { startRuntime } = await import(${JSON.stringify(HOST)});
    const persist = mkdtempSync(${JSON.stringify(join(tmpdir(), "iron-arena-e2e-"))});
    const rt = await startRuntime({ persist, logFile: persist + "/wrangler.log", removeState: true });
    console.log(JSON.stringify({ persist, url: rt.url }));
    process.exit(0);`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" });
  const { persist, url } = JSON.parse(out.trim().split("\n").pop());
  assert.ok(!existsSync(persist), `${persist} is left behind by a process that exited`);
  await assert.rejects(fetch(`${url}/api/health`), "its runtime still answers");
});
