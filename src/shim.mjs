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
// build the object again from its constructor arguments (its state is in storage).
import { WorkerEntrypoint } from "cloudflare:workers";
import * as wasm from "../index.js";

// { criticalError, instanceId }: the `worker` crate's start function bumps instanceId
// each time an instance starts.
const init = wasm.__worker_init_state();

// Any call into the glue runs its guard, which performs a scheduled reset first; this one
// is the cheapest. Returns the id of the instance now running.
function currentInstance() {
  wasm.__worker_init_state();
  return init.instanceId;
}

export default class Worker extends WorkerEntrypoint {
  fetch(request) {
    return wasm.fetch(request, this.env, this.ctx);
  }

  scheduled(controller) {
    return wasm.scheduled(controller, this.env, this.ctx);
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
        return this[live]()[name](...args);
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
