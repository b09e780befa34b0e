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
