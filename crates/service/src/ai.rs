//! The AI seat's move choice, behind a trait so the strong AI (issue 4) drops in.

use engine::{Game, Move};

use crate::error::ApiError;
use crate::tokens::Random;

pub trait Opponent {
    /// Shown in API responses, so a client knows what it plays against.
    fn name(&self) -> &'static str;
    /// True while this is the legal-move placeholder, not a real AI.
    fn is_placeholder(&self) -> bool;
    fn choose(&mut self, game: &Game, rng: &mut dyn Random) -> Result<Option<Move>, ApiError>;
}

/// PLACEHOLDER AI: plays a uniformly random legal move. Stands in until the MCTS AI of
/// issue 4 lands; responses say `"ai": {"engine": "placeholder-random", "placeholder": true}`.
#[derive(Debug, Default)]
pub struct PlaceholderAi;

impl Opponent for PlaceholderAi {
    fn name(&self) -> &'static str {
        "placeholder-random"
    }

    fn is_placeholder(&self) -> bool {
        true
    }

    fn choose(&mut self, game: &Game, rng: &mut dyn Random) -> Result<Option<Move>, ApiError> {
        let moves = game.legal_moves();
        if moves.is_empty() {
            return Ok(None);
        }
        Ok(Some(moves[rng.below(moves.len() as u32)? as usize]))
    }
}
