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

/// From "beginner" to the strongest level. Level 3 is the default.
pub const LEVELS: [Level; 6] = [
    Level {
        number: 1,
        name: "beginner",
        evaluations: 4,
    },
    Level {
        number: 2,
        name: "novice",
        evaluations: 24,
    },
    Level {
        number: 3,
        name: "club",
        evaluations: 96,
    },
    Level {
        number: 4,
        name: "expert",
        evaluations: 200,
    },
    Level {
        number: 5,
        name: "master",
        evaluations: 400,
    },
    Level {
        number: 6,
        name: "grandmaster",
        evaluations: 800,
    },
];

pub const DEFAULT_LEVEL: u8 = 3;

pub fn level(number: u8) -> Option<Level> {
    LEVELS.iter().copied().find(|l| l.number == number)
}

impl Level {
    pub fn config(&self, seed: u64) -> SearchConfig {
        SearchConfig {
            evaluations: self.evaluations,
            root: RootPolicy::Gumbel { m: 16 },
            seed,
            ..SearchConfig::default()
        }
    }
}
