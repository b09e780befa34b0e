//! The network AI (feature `net`: tract, through `ai/onnx`): the shipped AI of a module
//! built with the networks (`AI_ENGINE` unset, `"auto"`, `"shipped"`), over the shipped
//! ONNX model and learned leaf scores. The Worker (`src/net.rs`) fetches them from its static assets and keeps
//! them for the isolate's life; these engines find them through [`Loaded`].

use std::rc::Rc;

use ai::level::Leaves;
use ai::network::Network;
use ai::shipped::ShippedAi;
use engine::{Game, Move};

use crate::ai::{level_and_seed, Opponent};
use crate::error::ApiError;
use crate::net_assets::{leaf_not_prepared, network_not_prepared, unavailable, verified};
use crate::tokens::Random;

/// Where the network engines find the loaded network and leaf scores (the Worker: its
/// isolate's, loaded before a request that may make an AI move, since `choose` is
/// synchronous and cannot wait for a fetch).
pub trait Loaded {
    /// The network, if it is loaded.
    fn network(&self) -> Option<Network>;
    /// The learned leaf scores, if they are loaded (all of them: the Worker loads every
    /// shipped one before it answers with any).
    fn leaves(&self) -> Option<Rc<Leaves>>;
}

/// `loaded`'s network, or 500: the request did not load it.
pub fn network(loaded: &dyn Loaded) -> Result<Network, ApiError> {
    loaded.network().ok_or_else(network_not_prepared)
}

/// `loaded`'s leaf scores, or 500: the request did not load them.
pub fn leaves(loaded: &dyn Loaded) -> Result<Rc<Leaves>, ApiError> {
    loaded.leaves().ok_or_else(leaf_not_prepared)
}

/// The model from the asset `file`, checked against `sha256`, then parsed and optimised
/// (about 0.3 s in wasm: never in a Worker's global scope, which has a 1 s startup limit).
pub fn model(file: &str, bytes: &[u8], sha256: &str) -> Result<Network, ApiError> {
    Network::load(verified(file, bytes, sha256)?, file).map_err(unavailable)
}

/// The AI of a `net` build (`AI_ENGINE` unset, `"auto"` or `"shipped"`): the
/// shipped AI (`ai::shipped`, the one constructor the command line's `level:N` players and
/// the benchmarks use too): MCTS with the network at every leaf at the lower levels,
/// alpha-beta over the learned leaf scores above; the reply's `engine` names the level's.
/// A network that fails during the search is a 503, never a silently weaker move.
#[derive(Debug, Default)]
pub struct ShippedNetAi<L>(pub L);

impl<L: Loaded> Opponent for ShippedNetAi<L> {
    fn name(&self, level: u8) -> &'static str {
        ai::level::level_or_default(level).engine.name()
    }

    fn is_placeholder(&self) -> bool {
        false
    }

    fn choose(&mut self, game: &Game, level: u8, rng: &mut dyn Random) -> Result<Option<Move>, ApiError> {
        let (lv, seed) = level_and_seed(level, rng)?;
        let (net, leaves) = (network(&self.0)?, leaves(&self.0)?);
        let choice = ShippedAi::new(&net, &leaves).choose(game, &lv, seed).map_err(unavailable)?;
        Ok(choice.mv)
    }
}

/// A model checked against a trainer's reference outputs (`Network::check_reference`),
/// loaded as the Worker loads its own: the Workers module exports this (`checkModel`,
/// `scripts/check-model.sh` runs it in workerd), so CI checks every shipped model with the
/// wasm (simd128) build of tract that plays. Returns a one-line report.
pub fn check_model(onnx: &[u8], reference: &str, name: &str) -> Result<String, String> {
    let net = Network::load(onnx, name)?;
    let c = net.check_reference(reference).map_err(|e| format!("{name}: {e}"))?;
    Ok(format!(
        "{name}: tract (wasm32, in workerd) matches the reference on {} samples (max abs difference {:.2e})",
        c.samples, c.max_difference
    ))
}
