//! Difficulty levels: search budgets in leaf evaluations (a Worker's clock does not
//! advance without I/O, so CPU time is budgeted by counting evaluations; the CPU cost per
//! evaluation of each evaluator is measured by `iron-arena bench-ai`).

use engine::{Game, Position};

use crate::hybrid::{HybridConfig, HybridResult};
use crate::mcts::{RootPolicy, SearchConfig};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    pub number: u8,
    pub name: &'static str,
    pub evaluations: u32,
    /// The budget when the evaluator is the network (about 2 ms per evaluation in
    /// wasm with simd128, so level 4 stays near 0.3 s and level 6 near 1 s of CPU).
    pub network_evaluations: u32,
    /// The hybrid engine's budget: positions its alpha-beta visits
    /// ([`crate::hybrid`]; the network runs once at the root whatever the level).
    pub hybrid_nodes: u32,
    /// The hybrid's variety: it plays a move drawn among those within this many
    /// hundredths of a pawn of the best (wider at the low levels, which also makes them
    /// weaker).
    pub hybrid_margin_cp: u32,
}

/// The hybrid's root prior bonus in pawns (the network's policy, in [0, 1], times this
/// is added to the searched score of each root move within reach of the best).
pub const HYBRID_PRIOR_WEIGHT: f32 = 0.1;
/// Capture-only quiescence plies at the hybrid's horizon, at every level: at equal nodes it
/// beat the same search without it 83% (18 games), and at level 4's budget it scored 73.6%
/// against MCTS level 4 over 72 games (models/README.md).
pub const HYBRID_QUIESCENCE: u32 = 4;
/// The time a hybrid node costs with the learned leaf score ([`crate::leafnet`]) relative
/// to the heuristic's: `iron-arena bench-leaf` measured 1.42-1.55 natively (models/README.md);
/// rounded up, so the leaf levels, which divide their node budgets by it, take no more
/// time per move than the heuristic's.
pub const LEAF_NODE_COST: f32 = 1.5;

/// From "beginner" to the strongest level. Budgets were calibrated on the real runtime
/// (workerd, heuristic evaluator, ~50-90 thousand evaluations per second in wasm on this
/// 2-core machine, `tests/api.rs` prints the reply times): the default, level 4, spends
/// about 0.2 s per move, well under the ~300 ms target; level 6 about 1 s.
pub const LEVELS: [Level; 6] = [
    Level {
        number: 1,
        name: "beginner",
        evaluations: 16,
        network_evaluations: 4,
        hybrid_nodes: 150,
        hybrid_margin_cp: 150,
    },
    Level {
        number: 2,
        name: "novice",
        evaluations: 300,
        network_evaluations: 12,
        hybrid_nodes: 800,
        hybrid_margin_cp: 60,
    },
    Level {
        number: 3,
        name: "club",
        evaluations: 3000,
        network_evaluations: 32,
        hybrid_nodes: 6_000,
        hybrid_margin_cp: 20,
    },
    Level {
        number: 4,
        name: "expert",
        evaluations: 15000,
        network_evaluations: 80,
        hybrid_nodes: 60_000,
        hybrid_margin_cp: 5,
    },
    Level {
        number: 5,
        name: "master",
        evaluations: 25000,
        network_evaluations: 160,
        hybrid_nodes: 150_000,
        hybrid_margin_cp: 5,
    },
    Level {
        number: 6,
        name: "grandmaster",
        evaluations: 45000,
        network_evaluations: 220,
        hybrid_nodes: 350_000,
        hybrid_margin_cp: 2,
    },
];

pub const DEFAULT_LEVEL: u8 = 4;

pub fn level(number: u8) -> Option<Level> {
    LEVELS.iter().copied().find(|l| l.number == number)
}

/// The heuristic hybrid's move in `game` at `level` (no network, the game's positions as
/// the repetition history): the one function behind the server's `HybridAi`
/// (crates/service/src/ai.rs) and the browser's `bestMove` (crates/ai-wasm), so that for
/// the same game, level and seed both choose the same move. (Here, not in `hybrid`: the
/// levels use the search, the search knows nothing of levels.)
pub fn play_level(game: &Game, level: &Level, seed: u64) -> HybridResult {
    let history: Vec<u64> = game.history().iter().map(Position::hash).collect();
    crate::hybrid::search(game.position(), &history, None, &level.hybrid_config(seed, false))
}

/// The level numbered `number`, or the default level for an unknown number (what the
/// server plays, and the browser's engine, for any level they are given).
pub fn level_or_default(number: u8) -> Level {
    level(number).or_else(|| level(DEFAULT_LEVEL)).unwrap_or(LEVELS[0])
}

impl Level {
    pub fn config(&self, seed: u64) -> SearchConfig {
        SearchConfig {
            evaluations: self.evaluations,
            root: RootPolicy::Puct,
            seed,
            ..SearchConfig::default()
        }
    }

    /// The search at this level when the network evaluates the leaves.
    pub fn network_config(&self, seed: u64) -> SearchConfig {
        SearchConfig {
            evaluations: self.network_evaluations,
            root: RootPolicy::Puct,
            seed,
            ..SearchConfig::default()
        }
    }

    /// The hybrid engine at this level with the learned leaf score: the level's budget
    /// divided by [`LEAF_NODE_COST`] (equal time), the network's prior at the root.
    pub fn hybrid_leaf_config(&self, seed: u64, with_network: bool) -> HybridConfig {
        let nodes = (self.hybrid_nodes as f32 / LEAF_NODE_COST) as u64;
        HybridConfig { nodes: nodes.max(1), ..self.hybrid_config(seed, with_network) }
    }

    /// The hybrid engine at this level (`with_network`: whether a root evaluator's prior
    /// weighs the choice).
    pub fn hybrid_config(&self, seed: u64, with_network: bool) -> HybridConfig {
        HybridConfig {
            nodes: u64::from(self.hybrid_nodes),
            margin: self.hybrid_margin_cp as f32 / 100.0,
            prior_weight: if with_network { HYBRID_PRIOR_WEIGHT } else { 0.0 },
            quiescence: HYBRID_QUIESCENCE,
            seed,
            ..HybridConfig::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hybrid_levels_span_a_wide_range() {
        for pair in LEVELS.windows(2) {
            assert!(pair[1].hybrid_nodes > pair[0].hybrid_nodes);
            assert!(pair[1].hybrid_margin_cp <= pair[0].hybrid_margin_cp);
        }
        assert!(LEVELS[5].hybrid_nodes >= 1000 * LEVELS[0].hybrid_nodes);
        let l = level(DEFAULT_LEVEL).map(|l| l.hybrid_config(3, true));
        assert!(l.is_some_and(|c| c.prior_weight > 0.0 && c.seed == 3));
    }
}
