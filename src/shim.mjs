// The Workers module's JavaScript entry (wrangler.toml `main`, copied to
// build/worker/shim.mjs by scripts/build-worker.sh): it hands the runtime's events to the
// Rust code, which wasm-bindgen exposes in build/index.js.
//
// What the runtime needs from a module: a default export for requests and the Cron
// Trigger, and one named export per Durable Object class of wrangler.toml.
//
// Recovery from a trap: the glue is generated with `--force-enable-abort-handler
// --experimental-reset-state-function`, so when the wasm traps (a panic aborts), the
// `worker` crate's abort hook schedules a reset and the glue builds a fresh wasm
// instance on its next call. Exported functions need nothing more. An object of an
// exported class (a Durable Object) holds a pointer into the old instance's memory, so
// before each call we let the glue do any pending reset, and if the instance changed we
// build the object again from its constructor arguments (its state is in storage). A call
// still pending when its instance traps is rejected (see `watched`).
import { WorkerEntrypoint } from "cloudflare:workers";
import * as wasm from "../index.js";

// { criticalError, instanceId }: the `worker` crate's start function bumps instanceId
// each time an instance starts; its panic hook sets criticalError just before the trap
// (and nothing clears it: this shim does, once a fresh instance runs).
const init = wasm.__worker_init_state();
let lastInstance = init.instanceId;

// Any call into the glue runs its guard, which performs a scheduled reset first; this one
// is the cheapest. Returns the id of the instance now running.
function currentInstance() {
  wasm.__worker_init_state();
  if (init.instanceId !== lastInstance) {
    lastInstance = init.instanceId;
    init.criticalError = false;
  }
  return init.instanceId;
}

// A call pending when its instance traps never settles by itself: its Rust future lived
// in the dead instance, and the trap is thrown where the future was polled (a microtask),
// not into the call's promise, so the runtime would wait on it until the client gave up.
// Each call is therefore watched while it is pending: once a panic has marked the
// instance, or another instance runs, the call is rejected with a Trapped error (a
// Durable Object's caller then sees an error; the Worker answers a JSON 500).
class Trapped extends Error {}
const WATCH_MS = 20;
function watched(startedOn, result) {
  if (typeof result?.then !== "function") return result;
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (init.criticalError || init.instanceId !== startedOn) {
        clearInterval(timer);
        reject(new Trapped("the Workers module trapped (a Rust panic) while this call was pending"));
      }
    }, WATCH_MS);
    result.then(
      (v) => { clearInterval(timer); resolve(v); },
      (e) => { clearInterval(timer); reject(e); },
    );
  });
}

// The Worker's answer to a request whose instance trapped: the API's internal-error body
// and headers (service::error's GENERIC_MESSAGE, src/guard.rs's API_HEADERS); the panic
// itself is in the log.
function trappedAnswer() {
  return new Response(JSON.stringify({
    error: "internal",
    message: "Something went wrong on the server; please try again.",
  }), {
    status: 500,
    headers: {
      "Content-Type": "application/json",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
      "Strict-Transport-Security": "max-age=31536000; includeSubDomains",
      "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
      "X-Frame-Options": "DENY",
    },
  });
}

export default class Worker extends WorkerEntrypoint {
  fetch(request) {
    const on = currentInstance();
    return watched(on, wasm.fetch(request, this.env, this.ctx)).catch((e) => {
      if (e instanceof Trapped) return trappedAnswer();
      throw e;
    });
  }

  scheduled(controller) {
    const on = currentInstance();
    return watched(on, wasm.scheduled(controller, this.env, this.ctx));
  }
}

// The wasm-bindgen class of a Durable Object, wrapped so that each handler call reaches a
// live object. The handlers are whatever methods the class has (fetch, alarm, the
// WebSocket hibernation handlers): the runtime looks them up by name.
const live = Symbol("live");
function durableObject(Inner) {
  class Recovering {
    #args;
    #inner;
    #instance;

    constructor(...args) {
      this.#args = args;
      this.#instance = currentInstance();
      this.#inner = new Inner(...args);
    }

    [live]() {
      const now = currentInstance();
      if (now !== this.#instance) {
        this.#instance = now;
        this.#inner = new Inner(...this.#args);
      }
      return this.#inner;
    }
  }
  const internal = new Set(["constructor", "free", "__destroy_into_raw"]);
  for (const name of Object.getOwnPropertyNames(Inner.prototype)) {
    if (internal.has(name) || typeof Inner.prototype[name] !== "function") continue;
    Object.defineProperty(Recovering.prototype, name, {
      value: function (...args) {
        const inner = this[live]();
        return watched(lastInstance, inner[name](...args));
      },
      writable: true,
      configurable: true,
    });
  }
  Object.defineProperty(Recovering, "name", { value: Inner.name });
  return Recovering;
}

// wrangler.toml's [[durable_objects.bindings]] class names (scripts/build-worker.sh
// checks that each is exported here).
export const GameObject = durableObject(wasm.GameObject);
export const Limiter = durableObject(wasm.Limiter);
export const Lobby = durableObject(wasm.Lobby);
