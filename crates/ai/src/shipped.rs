//! The shipped AI: what plays the `ai` seat at each level, assembled in one place so the
//! Worker (`service::net_ai::ShippedNetAi`), the command line's `level:N` players (arena,
//! ladder) and the benchmarks all play exactly the same thing.
//!
//! Each level names its [`Engine`] (`ai::level::LEVELS`): the lower levels are MCTS with
//! the policy/value network at every leaf (tract; net-v8, distilled from level 4's
//! search), the upper ones alpha-beta over the learned leaf score. Why this split: with a
//! few evaluations a network MCTS plays the moves a policy finds plausible and climbs
//! with its budget (level 2 scores 85% against level 1 in `models/README.md`'s ladder),
//! but one network run costs as much as ~1,000 leaf-scored positions, so at the strong
//! levels the alpha-beta is far stronger per CPU-millisecond. Each alpha-beta level plays
//! its own learned leaf score ([`crate::level::Level::leaf`]: leaf-v1 at levels 3-4,
//! leaf-v3 at 5-6).
//!
//! A network that fails at run time is an error here, never a silent fallback: the
//! evaluator would otherwise answer a uniform prior and a zero value, and the level would
//! quietly play a much weaker game than the one its rating says.

use engine::{Game, Move, Position};

use crate::heuristic::Heuristic;
use crate::level::{Engine, Leaves, Level};
use crate::network::{Network, NetworkEvaluator};
use crate::{FirstThen, RootPolicy, SearchConfig};

/// The shipped AI over its models: the policy/value network and the leaf scores.
#[derive(Clone, Copy, Debug)]
pub struct ShippedAi<'a> {
    network: &'a Network,
    leaves: &'a Leaves,
}

/// A move chosen by the shipped AI, and what chose it.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// None only when the position has no legal move.
    pub mv: Option<Move>,
    pub engine: Engine,
    /// The work done: network evaluations (MCTS) or positions visited (alpha-beta).
    pub work: u64,
}

impl<'a> ShippedAi<'a> {
    /// The one constructor of the shipped AI.
    pub fn new(network: &'a Network, leaves: &'a Leaves) -> ShippedAi<'a> {
        ShippedAi { network, leaves }
    }

    /// Chooses the move in `game` at `level` (the game's positions are the repetition
    /// history), deterministically for a given `seed`. An error if the network failed
    /// during the search, or if the level's leaf score is not among the leaves (the
    /// alpha-beta would otherwise play the heuristic: another, weaker level).
    pub fn choose(&self, game: &Game, level: &Level, seed: u64) -> Result<Choice, String> {
        match level.engine {
            Engine::NetworkMcts { evaluations, heuristic } => {
                let history: Vec<u64> = game.history().iter().map(Position::hash).collect();
                let mut eval = FirstThen {
                    a: NetworkEvaluator::new(self.network.clone()),
                    b: Heuristic,
                    first: evaluations,
                };
                // Decisive moves: never walk into a loss on the spot for want of visits (at 16
                // evaluations, 25% against alphabeta:2 where the same search without them
                // scored 6-17%; models/README.md).
                let cfg = SearchConfig {
                    evaluations: evaluations.saturating_add(heuristic),
                    root: RootPolicy::Puct,
                    seed,
                    decisive: true,
                    ..SearchConfig::default()
                };
                let r = crate::search(game.position(), &history, &mut eval, &cfg);
                if eval.a.failures > 0 {
                    return Err(format!(
                        "the network {} failed in {} of its evaluations",
                        self.network.name(),
                        eval.a.failures
                    ));
                }
                Ok(Choice { mv: r.best, engine: level.engine, work: u64::from(r.evaluations) })
            }
            Engine::AlphaBetaLeaf => {
                if self.leaves.get(level.leaf).is_none() {
                    return Err(format!("the leaf score {} is not loaded", level.leaf.file()));
                }
                // The browser's AI plays the same function with the same leaf file.
                let r = crate::level::play_level(game, level, seed, self.leaves);
                Ok(Choice { mv: r.best, engine: level.engine, work: r.nodes })
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::level::{LeafFile, LEVELS};

    fn models() -> (Network, Leaves) {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/");
        let net =
            Network::load(&std::fs::read(format!("{root}net-v8.onnx")).unwrap(), "net-v8.onnx").unwrap();
        let leaves =
            Leaves::load_all(|f| std::fs::read(format!("{root}{f}")).map_err(|e| e.to_string())).unwrap();
        (net, leaves)
    }

    #[test]
    fn every_level_plays_a_legal_move_with_its_engine_reproducibly() {
        let (net, leaves) = models();
        let ai = ShippedAi::new(&net, &leaves);
        let mut game = Game::new(Position::start(engine::Faction::Axiom, engine::Faction::Clockwork));
        game.play(game.legal_moves()[3]).unwrap();
        for level in &LEVELS[..4] {
            let c = ai.choose(&game, level, 11).unwrap();
            let mv = c.mv.unwrap();
            assert!(game.legal_moves().contains(&mv), "level {}", level.number);
            assert_eq!(c.engine, level.engine);
            assert!(c.work > 0);
            assert_eq!(ai.choose(&game, level, 11).unwrap(), c, "level {} is reproducible", level.number);
        }
        assert_eq!(LEVELS[0].engine.name(), "mcts-network-heuristic");
        assert_eq!(LEVELS[1].engine.name(), "mcts-network-heuristic");
        assert_eq!(LEVELS[3].engine.name(), "alphabeta-leaf");
    }

    #[test]
    fn an_alpha_beta_level_without_its_leaf_score_is_an_error_not_the_heuristic() {
        let (net, leaves) = models();
        let game = Game::new(Position::start(engine::Faction::Clockwork, engine::Faction::Blades));
        let top = &LEVELS[5];
        let only_v1 = Leaves::none().with(LeafFile::V1, leaves.get(LeafFile::V1).unwrap().clone());
        let e = ShippedAi::new(&net, &only_v1).choose(&game, top, 1).unwrap_err();
        assert_eq!(e, format!("the leaf score {} is not loaded", top.leaf.file()));
        // The level below plays leaf-v1 and is unaffected.
        assert!(ShippedAi::new(&net, &only_v1).choose(&game, &LEVELS[3], 1).is_ok());
    }

    #[test]
    fn the_network_levels_spend_exactly_their_evaluations() {
        let (net, leaves) = models();
        let game = Game::new(Position::start(engine::Faction::Blades, engine::Faction::Axiom));
        for level in LEVELS.iter().filter(|l| matches!(l.engine, Engine::NetworkMcts { .. })) {
            let Engine::NetworkMcts { evaluations, heuristic } = level.engine else { unreachable!() };
            let c = ShippedAi::new(&net, &leaves).choose(&game, level, 5).unwrap();
            assert_eq!(c.work, u64::from(evaluations + heuristic), "level {}", level.number);
        }
    }
}
