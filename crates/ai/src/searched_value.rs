//! A leaf value backed by a small alpha-beta (issue 32, an experiment for the lower levels):
//! an [`Evaluator`] that keeps its inner evaluator's priors and blends its value with the
//! score of a few hundred positions of [`crate::pvs`] over the learned leaf score.
//!
//! Why: the network MCTS of the lower levels spends a few dozen evaluations a move, and the
//! network's value misjudges tactics a two-ply search sees (its held-out MSE against the
//! result is 0.41). In workerd one network evaluation costs as much as ~3,000 alpha-beta
//! positions ([`crate::level::NETWORK_EVALUATION_NODES`]), so a search of a few hundred
//! positions per leaf adds ~10% to the move's time. The moves stay the policy's plausible
//! ones: the prior, which decides what the tree looks at, is the network's alone.

use crate::evaluator::{Evaluation, Evaluator, Leaf};
use crate::leafnet::LeafNet;
use crate::pvs::{search_with_leaf, PvsConfig};

/// The alpha-beta's pawns to a value in [-1, 1]: the scale the distilled networks learned
/// their value from (`tanh(pawns / 8)`, the search value of `selfplay`'s records).
pub fn pawns_to_value(pawns: f32) -> f32 {
    (pawns / 8.0).tanh()
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchedValueConfig {
    /// Positions of the alpha-beta per leaf.
    pub nodes: u64,
    /// The searched score's share of the value (0: the inner evaluator's value alone,
    /// 1: the search's alone).
    pub weight: f32,
}

/// `inner`'s priors; `(1 − weight) × inner value + weight × tanh(search score / 8)`.
#[derive(Debug)]
pub struct SearchedValue<'a, E> {
    pub inner: E,
    pub leaf: &'a LeafNet,
    pub config: SearchedValueConfig,
}

impl<E: Evaluator> SearchedValue<'_, E> {
    fn search_config(&self) -> PvsConfig {
        PvsConfig {
            nodes: self.config.nodes.max(1),
            // A small table: a few hundred positions, allocated once per leaf.
            tt_bits: 10,
            quiescence: crate::level::QUIESCENCE_PLIES,
            reductions: true,
            delta: crate::level::QUIESCENCE_DELTA,
            margin: 0.0,
            seed: 0,
            ..PvsConfig::default()
        }
    }
}

impl<E: Evaluator> Evaluator for SearchedValue<'_, E> {
    fn evaluate(&mut self, leaves: &[Leaf<'_>]) -> Vec<Evaluation> {
        let mut out = self.inner.evaluate(leaves);
        let (w, cfg) = (self.config.weight.clamp(0.0, 1.0), self.search_config());
        if w == 0.0 {
            return out;
        }
        for (e, l) in out.iter_mut().zip(leaves) {
            // The leaf's own hash only: the tree's path is not known here, so a repetition
            // inside the small search is scored as the position itself.
            let r = search_with_leaf(l.position, &[l.position.hash()], Some(self.leaf), &cfg);
            if r.best.is_some() {
                e.value = (1.0 - w) * e.value + w * pawns_to_value(r.score);
            }
        }
        out
    }

    fn name(&self) -> String {
        format!("{}+ab{}w{:.2}", self.inner.name(), self.config.nodes, self.config.weight)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::Uniform;
    use engine::{Faction, Game, Position};

    fn leaf() -> LeafNet {
        let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/leaf-v1.bin")).unwrap();
        LeafNet::from_bytes(&bytes).unwrap()
    }

    /// A position where the side to move can take the enemy's king-piece at once: the
    /// searched value says it wins, the inner uniform evaluator (value 0) cannot.
    #[test]
    fn the_searched_value_sees_a_win_the_inner_value_does_not() {
        let leaf = leaf();
        let mut rng = crate::rng::Rng::new(7);
        let mut found = 0;
        for _ in 0..200 {
            let mut g = Game::new(Position::start(Faction::ALL[rng.below(3)], Faction::ALL[rng.below(3)]));
            for _ in 0..120 {
                let moves = g.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let p = *g.position();
                let wins_now = moves.iter().any(|&m| {
                    let mut h = Game::new(p);
                    h.play(m).is_ok() && h.position().outcome().is_some_and(|o| o.winner() == Some(p.turn()))
                });
                if wins_now {
                    let leaves = [Leaf { position: &p, moves: &moves }];
                    let mut e = SearchedValue {
                        inner: Uniform,
                        leaf: &leaf,
                        config: SearchedValueConfig { nodes: 200, weight: 1.0 },
                    };
                    let v = e.evaluate(&leaves)[0].value;
                    assert!(v > 0.9, "a win at once valued {v}");
                    // The priors are the inner evaluator's, untouched.
                    assert_eq!(e.evaluate(&leaves)[0].priors, Uniform.evaluate(&leaves)[0].priors);
                    let mut half = SearchedValue {
                        inner: Uniform,
                        leaf: &leaf,
                        config: SearchedValueConfig { nodes: 200, weight: 0.5 },
                    };
                    assert!((half.evaluate(&leaves)[0].value - v / 2.0).abs() < 1e-6);
                    found += 1;
                    break;
                }
                let _ = g.play(moves[rng.below(moves.len())]);
            }
            if found >= 5 {
                break;
            }
        }
        assert!(found >= 5, "{found} positions with a win at once");
    }

    #[test]
    fn weight_zero_is_the_inner_evaluator() {
        let leaf = leaf();
        let p = Position::start(Faction::Clockwork, Faction::Axiom);
        let moves = p.legal_moves();
        let leaves = [Leaf { position: &p, moves: &moves }];
        let mut e = SearchedValue {
            inner: crate::Heuristic,
            leaf: &leaf,
            config: SearchedValueConfig { nodes: 300, weight: 0.0 },
        };
        assert_eq!(e.evaluate(&leaves), crate::Heuristic.evaluate(&leaves));
    }
}
