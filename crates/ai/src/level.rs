//! Difficulty levels: search budgets in leaf evaluations (a Worker's clock does not
//! advance without I/O, so CPU time is budgeted by counting evaluations; the CPU cost per
//! evaluation of each evaluator is measured by `iron-arena bench-ai`).

use crate::mcts::{RootPolicy, SearchConfig};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    pub number: u8,
    pub name: &'static str,
    pub evaluations: u32,
}

/// From "beginner" to the strongest level. Budgets were calibrated on the real runtime
/// (workerd, heuristic evaluator, ~50-90 thousand evaluations per second in wasm on this
/// 2-core machine, `tests/api.rs` prints the reply times): the default, level 4, spends
/// about 0.2 s per move, well under the ~300 ms target; level 6 about 1 s.
pub const LEVELS: [Level; 6] = [
    Level { number: 1, name: "beginner", evaluations: 16 },
    Level { number: 2, name: "novice", evaluations: 300 },
    Level { number: 3, name: "club", evaluations: 3000 },
    Level { number: 4, name: "expert", evaluations: 15000 },
    Level { number: 5, name: "master", evaluations: 25000 },
    Level { number: 6, name: "grandmaster", evaluations: 45000 },
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
}
