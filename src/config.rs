//! Configuration from wrangler vars (wrangler.toml `[vars]`, overridable per run), read
//! by `service::config::Settings`; and the tests' injected faults.

use service::config::Settings;
use service::create::Limits;
use worker::Env;

pub use service::config::AiEngine;

fn settings(env: &Env) -> Settings {
    Settings::read(|name| env.var(name).ok().map(|v| v.to_string()), cfg!(feature = "net"))
}

/// Milliseconds in a correspondence "day".
pub fn day_ms(env: &Env) -> i64 {
    settings(env).day_ms
}

pub fn limits(env: &Env) -> Limits {
    settings(env).limits
}

/// Which AI plays the `ai` seat (`AI_ENGINE`).
pub fn ai_engine(env: &Env) -> AiEngine {
    settings(env).ai_engine
}

/// `AI_SEED` (tests only; unset in production).
pub fn ai_seed(env: &Env) -> Option<String> {
    settings(env).ai_seed
}

/// The idle ends and the D1 retry delay.
pub fn timers(env: &Env) -> service::upkeep::Timers {
    settings(env).timers
}

// The injected faults (`FAULT_*` vars) are test hooks: compiled in only with the
// `test-hooks` feature, the module the real-runtime suites run on (`scripts/build-worker.sh
// --test-hooks`). The deployed module (`scripts/build-worker.sh`) has none of them, nor
// the checks that call them (each is `#[cfg(feature = "test-hooks")]` too), and
// `scripts/check-deploy.sh` fails if a `FAULT_` string is left in the bundle it dry-runs.
// (`FAULT_REMATCH` is read in `service::objects`, behind the service's own `test-hooks`.)

/// A fault injected into a game's D1 writes (tests only; never set in wrangler.toml).
#[cfg(feature = "test-hooks")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum D1Fault {
    /// Write normally.
    None,
    /// Fail before writing anything.
    Before,
    /// Write everything, then report a failure (the retry must not apply it twice).
    After,
    /// Neither write nor record the attempt: as if the runtime died between the game's
    /// save and D1 (the test then kills the runtime for real).
    Crash,
}

/// `FAULT_PANIC = "<path suffix>"` (tests only, like `FAULT_D1`): a public request to a
/// game path ending in it panics inside the game's Durable Object, before anything is read
/// or written, so the wasm instance traps and src/shim.mjs must rebuild the objects.
#[cfg(feature = "test-hooks")]
pub fn fault_panic(env: &Env, path: &str) -> bool {
    env.var("FAULT_PANIC").is_ok_and(|v| {
        let suffix = v.to_string();
        !suffix.is_empty() && path.ends_with(&suffix)
    })
}

/// `FAULT_FETCH_TIMEOUT_MS` (tests only): the outgoing calls' timeout instead of
/// `crate::host::FETCH_TIMEOUT`, so a test can hold a stand-in's answer for longer than
/// its own HTTP client waits.
#[cfg(feature = "test-hooks")]
pub fn fetch_timeout(env: &Env) -> Option<std::time::Duration> {
    let ms: u64 = env.var("FAULT_FETCH_TIMEOUT_MS").ok()?.to_string().trim().parse().ok()?;
    Some(std::time::Duration::from_millis(ms))
}

/// `FAULT_D1 = "before,after"`: the fault for each game's attempt number `attempt`
/// (0-based; attempts past the list write normally).
#[cfg(feature = "test-hooks")]
pub fn d1_fault(env: &Env, attempt: u32) -> D1Fault {
    let Ok(v) = env.var("FAULT_D1") else { return D1Fault::None };
    match v.to_string().split(',').nth(attempt as usize).map(str::trim) {
        Some("before") => D1Fault::Before,
        Some("after") => D1Fault::After,
        Some("crash") => D1Fault::Crash,
        _ => D1Fault::None,
    }
}
