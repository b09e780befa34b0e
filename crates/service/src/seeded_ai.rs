//! `AI_SEED` (tests only): the AI's randomness derived from a fixed seed and the game so
//! far instead of the platform's, so a test's AI games are reproducible.
//!
//! The seed covers the game's whole history (every position's hash, so the ply too),
//! not its id: ids are random, so a seed over the id would make two games with the same
//! moves play differently, and a test could never replay what it saw. With the same
//! `AI_SEED`, the same start and the same moves, any runtime gives the same AI reply.
//! Production leaves `AI_SEED` unset: the search seed then comes from getrandom.

use engine::Game;
use sha2::{Digest, Sha256};

use crate::ai::Opponent;
use crate::error::ApiError;
use crate::tokens::Random;
use engine::Move;

/// A deterministic byte stream: SHA-256(key ‖ block counter), block after block.
#[derive(Debug, Clone)]
pub struct SeededRandom {
    key: [u8; 32],
    block: u64,
    buf: [u8; 32],
    used: usize,
}

impl SeededRandom {
    /// The stream for `seed` at this point of `game`.
    pub fn for_game(seed: &str, game: &Game) -> SeededRandom {
        let mut h = Sha256::new();
        h.update(b"iron-arena AI_SEED v1\0");
        h.update((seed.len() as u64).to_le_bytes());
        h.update(seed.as_bytes());
        for p in game.history() {
            h.update(p.hash().to_le_bytes());
        }
        SeededRandom { key: h.finalize().into(), block: 0, buf: [0; 32], used: 32 }
    }
}

impl Random for SeededRandom {
    fn fill(&mut self, out: &mut [u8]) -> Result<(), ApiError> {
        for b in out {
            if self.used == self.buf.len() {
                let mut h = Sha256::new();
                h.update(self.key);
                h.update(self.block.to_le_bytes());
                self.buf = h.finalize().into();
                self.block += 1;
                self.used = 0;
            }
            *b = self.buf[self.used];
            self.used += 1;
        }
        Ok(())
    }
}

/// Any opponent, given [`SeededRandom`] for its move instead of the request's randomness.
pub struct Seeded {
    inner: Box<dyn Opponent>,
    seed: String,
}

impl std::fmt::Debug for Seeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seeded")
            .field("ai", &self.inner.name(ai::level::DEFAULT_LEVEL))
            .field("seed", &self.seed)
            .finish()
    }
}

impl Seeded {
    pub fn new(inner: Box<dyn Opponent>, seed: impl Into<String>) -> Seeded {
        Seeded { inner, seed: seed.into() }
    }
}

impl Opponent for Seeded {
    fn name(&self, level: u8) -> &'static str {
        self.inner.name(level)
    }

    fn is_placeholder(&self) -> bool {
        self.inner.is_placeholder()
    }

    fn choose(&mut self, game: &Game, level: u8, _rng: &mut dyn Random) -> Result<Option<Move>, ApiError> {
        self.inner.choose(game, level, &mut SeededRandom::for_game(&self.seed, game))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod tests {
    use super::*;
    use crate::ai::{MctsAi, PlaceholderAi};

    /// Fresh bytes on every call: a source that would make an unseeded AI vary.
    struct Counter(u8);
    impl Random for Counter {
        fn fill(&mut self, buf: &mut [u8]) -> Result<(), ApiError> {
            for b in buf {
                self.0 = self.0.wrapping_add(97);
                *b = self.0;
            }
            Ok(())
        }
    }

    fn game_after(moves: usize) -> Game {
        let mut g = Game::new(engine::Position::start(engine::Faction::Clockwork, engine::Faction::Blades));
        for _ in 0..moves {
            let m = g.legal_moves()[0];
            g.play(m).unwrap();
        }
        g
    }

    fn bytes(seed: &str, g: &Game) -> [u8; 48] {
        let mut b = [0u8; 48];
        SeededRandom::for_game(seed, g).fill(&mut b).unwrap();
        b
    }

    #[test]
    fn the_stream_depends_on_the_seed_and_the_game_so_far_only() {
        let g = game_after(3);
        assert_eq!(bytes("7", &g), bytes("7", &game_after(3)), "same seed, same game");
        assert_ne!(bytes("7", &g), bytes("8", &g), "another seed");
        assert_ne!(bytes("7", &g), bytes("7", &game_after(4)), "another ply");
        // Two fills continue the stream (past one SHA-256 block) rather than repeat it.
        let mut r = SeededRandom::for_game("7", &g);
        let (mut a, mut b) = ([0u8; 40], [0u8; 8]);
        r.fill(&mut a).unwrap();
        r.fill(&mut b).unwrap();
        assert_eq!([&a[..], &b[..]].concat(), bytes("7", &g));
    }

    #[test]
    fn a_seeded_ai_ignores_the_requests_randomness_and_repeats_its_move() {
        for make in
            [|| Box::new(PlaceholderAi) as Box<dyn Opponent>, || Box::new(MctsAi) as Box<dyn Opponent>]
        {
            let g = game_after(2);
            let first = Seeded::new(make(), "42").choose(&g, 1, &mut Counter(0)).unwrap();
            let again = Seeded::new(make(), "42").choose(&g, 1, &mut Counter(200)).unwrap();
            assert!(first.is_some());
            assert_eq!(first, again);
        }
        // The placeholder's choice does change with the seed (over a few seeds: a random
        // mover may pick the same move twice by chance).
        let g = game_after(2);
        let picks: std::collections::BTreeSet<String> = (0..8)
            .map(|s| {
                Seeded::new(Box::new(PlaceholderAi), s.to_string())
                    .choose(&g, 1, &mut Counter(0))
                    .unwrap()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert!(picks.len() > 1, "{picks:?}");
    }
}
