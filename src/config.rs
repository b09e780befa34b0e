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
    }
}

/// The AI's evaluator: `AI_ENGINE = "network"` plays MCTS over the ONNX network (only in
/// a Worker built with the `net` feature); anything else, the heuristic.
#[cfg_attr(not(feature = "net"), allow(dead_code))]
pub fn network_ai(env: &Env) -> bool {
    cfg!(feature = "net") && env.var("AI_ENGINE").is_ok_and(|v| v.to_string().trim() == "network")
}

/// `AI_ENGINE = "random"`: the AI plays uniformly random legal moves (tests that need to
/// win games against the real runtime; responses say `"placeholder": true`).
pub fn random_ai(env: &Env) -> bool {
    env.var("AI_ENGINE").is_ok_and(|v| v.to_string().trim() == "random")
}
