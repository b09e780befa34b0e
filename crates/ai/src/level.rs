//! Difficulty levels: search budgets in leaf evaluations (a Worker's clock does not
//! advance without I/O, so CPU time is budgeted by counting evaluations; the CPU cost per
//! evaluation of each evaluator is measured by `iron-arena bench-ai`).

use crate::mcts::{RootPolicy, SearchConfig};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    pub number: u8,
    pub name: &'static str,
    pub evaluations: u32,
    /// The budget when the evaluator is the network (about 2 ms per evaluation in
    /// wasm with simd128, so level 4 stays near 0.3 s and level 6 near 1 s of CPU).
    pub network_evaluations: u32,
}

/// From "beginner" to the strongest level. Budgets were calibrated on the real runtime
/// (workerd, heuristic evaluator, ~50-90 thousand evaluations per second in wasm on this
/// 2-core machine, `tests/api.rs` prints the reply times): the default, level 4, spends
/// about 0.2 s per move, well under the ~300 ms target; level 6 about 1 s.
pub const LEVELS: [Level; 6] = [
    Level { number: 1, name: "beginner", evaluations: 16, network_evaluations: 4 },
    Level { number: 2, name: "novice", evaluations: 300, network_evaluations: 12 },
    Level { number: 3, name: "club", evaluations: 3000, network_evaluations: 32 },
    Level { number: 4, name: "expert", evaluations: 15000, network_evaluations: 80 },
    Level { number: 5, name: "master", evaluations: 25000, network_evaluations: 160 },
    Level { number: 6, name: "grandmaster", evaluations: 45000, network_evaluations: 220 },
];

pub const DEFAULT_LEVEL: u8 = 4;

pub fn level(number: u8) -> Option<Level> {
    LEVELS.iter().copied().find(|l| l.number == number)
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
}
