//! The fixed positions every AI benchmark searches (`iron-arena bench-ai`, `bench-leaf`,
//! and the Worker's `POST /api/ai/bench` in workerd), so native and wasm figures measured
//! on them can be divided by each other.

use engine::{Faction, Game, Position};

use crate::leafnet::LeafNet;
use crate::pvs::{search_with_leaf, PvsConfig};
use crate::rng::Rng;

/// One position per match-up (all nine, South's faction first), 20 seeded random plies
/// into the game; a game that ended within them is left out.
pub fn positions() -> Vec<Position> {
    let mut positions = Vec::new();
    for south in Faction::ALL {
        for north in Faction::ALL {
            let g = random_game(south, north, 20, &mut Rng::new(7));
            if g.outcome().is_none() {
                positions.push(*g.position());
            }
        }
    }
    positions
}

/// `count` positions of seeded random games, 20-79 plies in, of random match-ups (games that
/// ended are skipped): deeper into the game than [`positions`].
pub fn deeper_positions(count: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let f = Faction::ALL;
        let (south, north) = (f[rng.below(3)], f[rng.below(3)]);
        let plies = 20 + rng.below(60);
        let g = random_game(south, north, plies, &mut rng);
        if g.outcome().is_none() {
            out.push(*g.position());
        }
    }
    out
}

/// The search's signature, as a chess engine's `bench` node count: the alpha-beta with each
/// of `searches`' leaf score and config (its seed set to the position's index) on the
/// benchmark positions and 24 deeper ones, every result (move, score bits, depth,
/// positions) folded into one FNV-1a hash, and the positions searched in all. A change
/// meant to make the search faster, not different, must leave it unchanged: the levels'
/// ladder was measured with the moves it stands for.
pub fn search_signature(searches: &[(&LeafNet, PvsConfig)]) -> (u64, u64) {
    let mut positions = positions();
    positions.extend(deeper_positions(24, 32));
    let (mut hash, mut nodes) = (0xcbf2_9ce4_8422_2325u64, 0u64);
    let mut fold = |bytes: &[u8]| {
        for &b in bytes {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for &(leaf, cfg) in searches {
        for (i, p) in positions.iter().enumerate() {
            let cfg = PvsConfig { seed: i as u64, ..cfg };
            let r = search_with_leaf(p, &[p.hash()], Some(leaf), &cfg);
            let best = r.best.map(|m| m.to_string()).unwrap_or_default();
            fold(best.as_bytes());
            fold(&r.score.to_bits().to_le_bytes());
            fold(&r.depth.to_le_bytes());
            fold(&r.nodes.to_le_bytes());
            nodes += r.nodes;
        }
    }
    (hash, nodes)
}

/// A game of `plies` random moves (fewer if it ends).
fn random_game(south: Faction, north: Faction, plies: usize, rng: &mut Rng) -> Game {
    let mut g = Game::new(Position::start(south, north));
    for _ in 0..plies {
        let moves = g.legal_moves();
        if moves.is_empty() {
            break;
        }
        let _ = g.play(moves[rng.below(moves.len())]);
    }
    g
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_benchmark_positions_are_nine_live_games_and_always_the_same() {
        let a = super::positions();
        assert_eq!(a.len(), 9);
        assert!(a.iter().all(|p| !p.legal_moves().is_empty()));
        let hashes: Vec<u64> = a.iter().map(|p| p.hash()).collect();
        assert_eq!(hashes, super::positions().iter().map(|p| p.hash()).collect::<Vec<_>>());
    }
}
