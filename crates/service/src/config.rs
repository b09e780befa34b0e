//! The deployment's settings, read from its variables (wrangler.toml `[vars]`,
//! overridable per run): the limits, the correspondence day, the timers, the AI engine
//! and the tests' AI seed. A variable that is absent or does not parse keeps its default.

use crate::create::Limits;
use crate::upkeep::Timers;

/// Which AI plays the `ai` seat (`AI_ENGINE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AiEngine {
    /// `"random"`: uniformly random legal moves (tests that must win games; responses say
    /// `"placeholder": true`).
    Random,
    /// `"heuristic"`: MCTS over the hand-written evaluator ([`crate::ai::MctsAi`]).
    Heuristic,
    /// `"shipped"` (or its old name `"hybrid"`): in a module built with the networks the
    /// shipped AI (`ai::shipped`: MCTS over the network at levels 1-2, alpha-beta over the
    /// learned leaf score above; `crate::net_ai::ShippedNetAi`), otherwise the levels'
    /// alpha-beta over the heuristic alone ([`crate::ai::AlphaBetaAi`], the browser's AI).
    Shipped,
}

/// The settings, from a variable lookup (`var(name)`: the value, if set).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub limits: Limits,
    /// Milliseconds in a correspondence "day" (86 400 000 in production; tests shorten it).
    pub day_ms: i64,
    pub timers: Timers,
    pub ai_engine: AiEngine,
    /// `AI_SEED` (tests only; unset in production): when set and not empty, the AI's
    /// moves are derived from it and the game so far ([`crate::seeded_ai`]).
    pub ai_seed: Option<String>,
}

impl Settings {
    /// `with_network`: whether this build carries the network AI. `AI_ENGINE` unset,
    /// `"auto"` or any other name means the shipped AI in such a build (models/README.md)
    /// and MCTS over the heuristic without it. (`"network"`, MCTS over the network at
    /// every level, was a second network AI: removed, so a module with the networks plays
    /// one AI, the shipped one.)
    pub fn read(var: impl Fn(&str) -> Option<String>, with_network: bool) -> Settings {
        let number = |name: &str, default: u64| -> u64 {
            var(name).and_then(|v| v.trim().parse().ok()).unwrap_or(default)
        };
        let ms = |name: &str, default_ms: i64| {
            number(name, (default_ms / 1000) as u64).saturating_mul(1000).min(i64::MAX as u64) as i64
        };
        let d = Limits::default();
        let n = |name: &str, def: u32| number(name, u64::from(def)).min(u64::from(u32::MAX)) as u32;
        let limits = Limits {
            per_ip_per_minute: n("LIMIT_PER_IP_PER_MINUTE", d.per_ip_per_minute),
            overall_per_minute: n("LIMIT_PER_MINUTE", d.overall_per_minute),
            max_active_games: n("LIMIT_ACTIVE_GAMES", d.max_active_games),
            open_per_creator: n("LIMIT_OPEN_GAMES_PER_CREATOR", d.open_per_creator),
            open_per_address: n("LIMIT_OPEN_GAMES_PER_IP", d.open_per_address),
            joins_per_ip_per_minute: n("LIMIT_JOINS_PER_IP_PER_MINUTE", d.joins_per_ip_per_minute),
            ai_moves_per_ip_per_minute: n("LIMIT_AI_MOVES_PER_IP_PER_MINUTE", d.ai_moves_per_ip_per_minute),
            ws_per_ip_per_minute: n("LIMIT_WS_PER_IP_PER_MINUTE", d.ws_per_ip_per_minute),
            guests_per_ip_per_minute: n("LIMIT_GUESTS_PER_IP_PER_MINUTE", d.guests_per_ip_per_minute),
            ai_cost_per_ip_per_minute: n("LIMIT_AI_COST_PER_IP_PER_MINUTE", d.ai_cost_per_ip_per_minute),
            ai_searches_per_ip: n("LIMIT_AI_SEARCHES_PER_IP", d.ai_searches_per_ip),
            ws_per_game: n("LIMIT_WS_PER_GAME", d.ws_per_game),
            ws_per_ip_per_game: n("LIMIT_WS_PER_IP_PER_GAME", d.ws_per_ip_per_game),
            ws_per_ip: n("LIMIT_WS_PER_IP", d.ws_per_ip),
        };
        let t = Timers::default();
        let timers = Timers {
            idle_ai_ms: ms("IDLE_AI_GAME_SECONDS", t.idle_ai_ms),
            open_invite_ms: ms("OPEN_INVITE_SECONDS", t.open_invite_ms),
            idle_untimed_ms: ms("IDLE_UNTIMED_GAME_SECONDS", t.idle_untimed_ms),
            retry_ms: ms("D1_RETRY_SECONDS", t.retry_ms),
        };
        let ai_engine = match var("AI_ENGINE").unwrap_or_default().trim() {
            "random" => AiEngine::Random,
            "heuristic" => AiEngine::Heuristic,
            "shipped" | "hybrid" => AiEngine::Shipped,
            _ if with_network => AiEngine::Shipped,
            _ => AiEngine::Heuristic,
        };
        Settings {
            limits,
            day_ms: ms("DAY_SECONDS", 86_400_000),
            timers,
            ai_engine,
            ai_seed: var("AI_SEED").map(|v| v.trim().to_owned()).filter(|v| !v.is_empty()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn read(vars: &[(&str, &str)], net: bool) -> Settings {
        Settings::read(|n| vars.iter().find(|(k, _)| *k == n).map(|(_, v)| (*v).to_owned()), net)
    }

    #[test]
    fn defaults_overrides_and_values_that_do_not_parse() {
        let d = read(&[], true);
        assert_eq!(
            (d.limits, d.day_ms, d.timers, d.ai_seed.clone()),
            (Limits::default(), 86_400_000, Timers::default(), None)
        );
        let s = read(
            &[
                ("LIMIT_ACTIVE_GAMES", " 7 "),
                ("DAY_SECONDS", "2"),
                ("D1_RETRY_SECONDS", "x"),
                ("AI_SEED", " s "),
            ],
            true,
        );
        assert_eq!(
            (s.limits.max_active_games, s.day_ms, s.timers.retry_ms),
            (7, 2000, Timers::default().retry_ms)
        );
        assert_eq!(s.ai_seed.as_deref(), Some("s"));
        assert_eq!(read(&[("AI_SEED", "  ")], true).ai_seed, None);
        assert_eq!(read(&[("LIMIT_WS_PER_IP", "99999999999")], true).limits.ws_per_ip, u32::MAX);
    }

    #[test]
    fn the_engine_is_one_this_build_can_play() {
        assert_eq!(d(&[], true), AiEngine::Shipped);
        assert_eq!(d(&[], false), AiEngine::Heuristic);
        // The removed second network AI is the shipped one where the networks are.
        assert_eq!(d(&[("AI_ENGINE", "network")], false), AiEngine::Heuristic);
        assert_eq!(d(&[("AI_ENGINE", "network")], true), AiEngine::Shipped);
        assert_eq!(d(&[("AI_ENGINE", "random")], true), AiEngine::Random);
        assert_eq!(d(&[("AI_ENGINE", "shipped")], false), AiEngine::Shipped);
        assert_eq!(d(&[("AI_ENGINE", "hybrid")], false), AiEngine::Shipped);
        assert_eq!(d(&[("AI_ENGINE", "auto")], true), AiEngine::Shipped);
    }

    fn d(vars: &[(&str, &str)], net: bool) -> AiEngine {
        read(vars, net).ai_engine
    }
}
