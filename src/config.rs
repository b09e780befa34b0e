//! Configuration from wrangler vars (wrangler.toml `[vars]`, overridable per run).

use service::create::Limits;
use worker::Env;

fn number(env: &Env, name: &str, default: u64) -> u64 {
    env.var(name).ok().and_then(|v| v.to_string().trim().parse().ok()).unwrap_or(default)
}

/// Milliseconds in a correspondence "day" (86 400 000 in production; tests shorten it).
pub fn day_ms(env: &Env) -> i64 {
    number(env, "DAY_SECONDS", 86_400).saturating_mul(1000).min(i64::MAX as u64) as i64
}

pub fn limits(env: &Env) -> Limits {
    let d = Limits::default();
    let n = |name: &str, def: u32| number(env, name, u64::from(def)).min(u64::from(u32::MAX)) as u32;
    Limits {
        per_ip_per_minute: n("LIMIT_PER_IP_PER_MINUTE", d.per_ip_per_minute),
        overall_per_minute: n("LIMIT_PER_MINUTE", d.overall_per_minute),
        max_active_games: n("LIMIT_ACTIVE_GAMES", d.max_active_games),
        open_per_creator: n("LIMIT_OPEN_GAMES_PER_CREATOR", d.open_per_creator),
        joins_per_ip_per_minute: n("LIMIT_JOINS_PER_IP_PER_MINUTE", d.joins_per_ip_per_minute),
        ai_moves_per_ip_per_minute: n("LIMIT_AI_MOVES_PER_IP_PER_MINUTE", d.ai_moves_per_ip_per_minute),
        ws_per_ip_per_minute: n("LIMIT_WS_PER_IP_PER_MINUTE", d.ws_per_ip_per_minute),
        ws_per_game: n("LIMIT_WS_PER_GAME", d.ws_per_game),
        ws_per_ip_per_game: n("LIMIT_WS_PER_IP_PER_GAME", d.ws_per_ip_per_game),
        ws_per_ip: n("LIMIT_WS_PER_IP", d.ws_per_ip),
    }
}

/// Which AI plays the `ai` seat (`AI_ENGINE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AiEngine {
    /// `"random"`: uniformly random legal moves (tests that must win games; responses say
    /// `"placeholder": true`).
    Random,
    /// `"heuristic"`: MCTS over the hand-written evaluator (`service::ai::MctsAi`).
    Heuristic,
    /// `"network"` (`net` builds only): MCTS over the ONNX network (`net::NetAi`).
    #[cfg_attr(not(feature = "net"), allow(dead_code))]
    Network,
    /// `"hybrid"`: alpha-beta with the level's node budget; in `net` builds its leaves are
    /// scored by the learned leaf network and the policy network runs once per move at the
    /// root (`net::HybridNetAi`, engine `"hybrid-network"`), otherwise it is alpha-beta
    /// over the heuristic alone (`service::ai::HybridAi`).
    Hybrid,
}

/// `AI_ENGINE`: unset, `"auto"` or a name this build cannot play means the hybrid with
/// the network in a `net` build (measured the strongest per CPU-millisecond,
/// `models/README.md`) and MCTS over the heuristic in a build without the network.
pub fn ai_engine(env: &Env) -> AiEngine {
    let v = env.var("AI_ENGINE").map(|v| v.to_string().trim().to_owned()).unwrap_or_default();
    match v.as_str() {
        "random" => AiEngine::Random,
        "heuristic" => AiEngine::Heuristic,
        "network" if cfg!(feature = "net") => AiEngine::Network,
        "hybrid" => AiEngine::Hybrid,
        _ if cfg!(feature = "net") => AiEngine::Hybrid,
        _ => AiEngine::Heuristic,
    }
}

/// `AI_SEED` (tests only; unset in production): when set and not empty, the AI's moves are
/// derived from it and the game so far instead of fresh randomness
/// (`service::seeded_ai`), so a test's AI games replay identically.
pub fn ai_seed(env: &Env) -> Option<String> {
    env.var("AI_SEED").ok().map(|v| v.to_string().trim().to_owned()).filter(|v| !v.is_empty())
}

/// The idle ends and the D1 retry delay (seconds in wrangler vars; tests use a few).
pub fn timers(env: &Env) -> service::upkeep::Timers {
    let d = service::upkeep::Timers::default();
    let ms = |name: &str, def: i64| {
        number(env, name, (def / 1000) as u64).saturating_mul(1000).min(i64::MAX as u64) as i64
    };
    service::upkeep::Timers {
        idle_ai_ms: ms("IDLE_AI_GAME_SECONDS", d.idle_ai_ms),
        open_invite_ms: ms("OPEN_INVITE_SECONDS", d.open_invite_ms),
        idle_untimed_ms: ms("IDLE_UNTIMED_GAME_SECONDS", d.idle_untimed_ms),
        retry_ms: ms("D1_RETRY_SECONDS", d.retry_ms),
    }
}

/// A fault injected into a game's D1 writes (tests only; never set in wrangler.toml).
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
pub fn fault_panic(env: &Env, path: &str) -> bool {
    env.var("FAULT_PANIC").is_ok_and(|v| {
        let suffix = v.to_string();
        !suffix.is_empty() && path.ends_with(&suffix)
    })
}

/// `FAULT_REMATCH = "crash"` (tests only, like `FAULT_D1`): a rematch request stops right
/// after saving its reservation, before the new game is made, as a request that dies
/// there would.
pub fn fault_rematch(env: &Env) -> bool {
    env.var("FAULT_REMATCH").is_ok_and(|v| v.to_string() == "crash")
}

/// `FAULT_D1 = "before,after"`: the fault for each game's attempt number `attempt`
/// (0-based; attempts past the list write normally).
pub fn d1_fault(env: &Env, attempt: u32) -> D1Fault {
    let Ok(v) = env.var("FAULT_D1") else { return D1Fault::None };
    match v.to_string().split(',').nth(attempt as usize).map(str::trim) {
        Some("before") => D1Fault::Before,
        Some("after") => D1Fault::After,
        Some("crash") => D1Fault::Crash,
        _ => D1Fault::None,
    }
}
