//! The AI seat's move choice, behind a trait: the engines a module can play (MCTS over the
//! heuristic, the levels' alpha-beta without the networks, the random mover here; the
//! shipped AI with the networks in `net_ai`, which needs tract), chosen by `AI_ENGINE`.

use engine::{Game, Move};

use crate::error::ApiError;
use crate::tokens::Random;

pub trait Opponent {
    /// Shown in API responses, so a client knows what it plays against: the engine that
    /// plays `level` (the shipped AI's engine differs by level).
    fn name(&self, level: u8) -> &'static str;
    /// True for the legal-move placeholder (tests), false for a real AI.
    fn is_placeholder(&self) -> bool;
    /// Chooses the AI's move at difficulty `level` (see `ai::level::LEVELS`).
    fn choose(&mut self, game: &Game, level: u8, rng: &mut dyn Random) -> Result<Option<Move>, ApiError>;
}

/// MCTS (PUCT) over the hand-written heuristic evaluator, with a budget of leaf
/// evaluations set by the level: the default of a module built without the network. With
/// decisive moves, as the network's MCTS: a win on the board at once is taken, and a move
/// that lets the opponent win at once is a proven loss (without them it walked into
/// one-move losses in ~1.5% of its searches).
#[derive(Debug, Default)]
pub struct MctsAi;

impl Opponent for MctsAi {
    fn name(&self, _level: u8) -> &'static str {
        "mcts-heuristic"
    }

    fn is_placeholder(&self) -> bool {
        false
    }

    fn choose(&mut self, game: &Game, level: u8, rng: &mut dyn Random) -> Result<Option<Move>, ApiError> {
        let (lv, seed) = level_and_seed(level, rng)?;
        let cfg = ai::SearchConfig { decisive: true, ..lv.config(seed) };
        let r = ai::search(game.position(), &history(game), &mut ai::Heuristic, &cfg);
        Ok(r.best)
    }
}

/// The levels' alpha-beta without the networks (`AI_ENGINE = "shipped"` in a module built
/// without the `net` feature): iterative-deepening alpha-beta over the heuristic with the
/// level's node budget (`ai::level::play_level`, the browser's AI too). The `net` build's
/// shipped AI plays the same search over the learned leaf scores at levels 3-6
/// (`net_ai::ShippedNetAi`).
#[derive(Debug, Default)]
pub struct AlphaBetaAi;

impl Opponent for AlphaBetaAi {
    fn name(&self, _level: u8) -> &'static str {
        "alphabeta-heuristic"
    }

    fn is_placeholder(&self) -> bool {
        false
    }

    fn choose(&mut self, game: &Game, level: u8, rng: &mut dyn Random) -> Result<Option<Move>, ApiError> {
        let (lv, seed) = level_and_seed(level, rng)?;
        Ok(ai::level::play_level(game, &lv, seed, &ai::level::Leaves::none()).best)
    }
}

/// The level to play (an unknown one falls back to the default) and a fresh search seed.
pub fn level_and_seed(level: u8, rng: &mut dyn Random) -> Result<(ai::level::Level, u64), ApiError> {
    let lv = ai::level::level_or_default(level);
    let mut seed = [0u8; 8];
    rng.fill(&mut seed)?;
    Ok((lv, u64::from_le_bytes(seed)))
}

/// The hashes of every position of the game so far (the search's repetition history).
pub fn history(game: &Game) -> Vec<u64> {
    game.history().iter().map(|p| p.hash()).collect()
}

/// A random mover: plays a uniformly random legal move (tests, and the weakest opponent
/// in matches); responses say `"placeholder": true`.
#[derive(Debug, Default)]
pub struct PlaceholderAi;

impl Opponent for PlaceholderAi {
    fn name(&self, _level: u8) -> &'static str {
        "placeholder-random"
    }

    fn is_placeholder(&self) -> bool {
        true
    }

    fn choose(&mut self, game: &Game, _level: u8, rng: &mut dyn Random) -> Result<Option<Move>, ApiError> {
        let moves = game.legal_moves();
        if moves.is_empty() {
            return Ok(None);
        }
        Ok(Some(moves[rng.below(moves.len() as u32)? as usize]))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A fixed byte stream: the search seed is the same on every call.
    struct Fixed(u8);
    impl Random for Fixed {
        fn fill(&mut self, out: &mut [u8]) -> Result<(), ApiError> {
            out.fill(self.0);
            Ok(())
        }
    }

    #[test]
    fn the_alphabeta_plays_a_legal_move_at_every_level_reproducibly() {
        let mut game = Game::new(engine::Position::start(engine::Faction::Axiom, engine::Faction::Blades));
        game.play(game.legal_moves()[2]).unwrap();
        for level in 1..=3 {
            let a = AlphaBetaAi.choose(&game, level, &mut Fixed(7)).unwrap().unwrap();
            assert!(game.legal_moves().contains(&a), "level {level}");
            assert_eq!(AlphaBetaAi.choose(&game, level, &mut Fixed(7)).unwrap(), Some(a), "level {level}");
        }
        assert_eq!(AlphaBetaAi.name(4), "alphabeta-heuristic");
        assert!(!AlphaBetaAi.is_placeholder());
    }

    /// Whether the side to move in `pos` can win on the board at once.
    fn wins_at_once(pos: &engine::Position) -> bool {
        let side = pos.turn();
        pos.legal_moves().iter().any(|&m| {
            let mut p = *pos;
            p.play_unchecked(m);
            p.board_outcome().is_some_and(|o| o.winner() == Some(side))
        })
    }

    /// Regression (stop 48, found by an audit): the MCTS over the heuristic (the module's
    /// AI without the networks) searched without decisive moves and walked into one-move
    /// losses (30 in 2,000 searches at 100-300 evaluations) where a safe move existed.
    /// Over seeded positions where some moves lose at once and some do not, level 1 never
    /// plays one that does. (Fails without `decisive: true`.)
    #[test]
    fn the_heuristic_mcts_never_walks_into_a_one_move_loss_it_could_avoid() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let (mut checked, mut walked_in) = (0, Vec::new());
        while checked < 200 {
            let f = engine::Faction::ALL;
            let mut game = Game::new(engine::Position::start(f[next(3)], f[next(3)]));
            for _ in 0..10 + next(50) {
                let moves = game.legal_moves();
                if moves.is_empty() || game.outcome().is_some() {
                    break;
                }
                let _ = game.play(moves[next(moves.len())]);
            }
            if game.outcome().is_some() {
                continue;
            }
            let after = |m: Move| {
                let mut p = *game.position();
                p.play_unchecked(m);
                p
            };
            let moves = game.legal_moves();
            let losing = |m: &Move| wins_at_once(&after(*m));
            if !moves.iter().any(losing) || moves.iter().all(losing) {
                continue;
            }
            checked += 1;
            let m = MctsAi.choose(&game, 1, &mut Fixed(checked as u8)).unwrap().unwrap();
            if losing(&m) {
                walked_in.push(format!("{} {m}", engine::iapn::format(game.position())));
            }
        }
        assert!(walked_in.is_empty(), "{walked_in:?}");
    }
}
