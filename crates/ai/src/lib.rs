//! Iron Arena's AI: pure Rust, no I/O, builds for native and wasm32.
//!
//! - [`evaluator`]: the [`Evaluator`] trait (position → value and priors), with the
//!   [`Uniform`] prior and the [`Heuristic`] evaluator; the network evaluator wraps a
//!   model behind the same trait.
//! - [`mcts`]: the search (arena tree, PUCT, Gumbel root, batching, exact terminals).
//! - [`encoding`]: the network's input planes and policy layout, exported for training.
//! - [`level`]: difficulty levels as search budgets.
//! - [`bench`]: the fixed positions of the AI benchmarks (native and in workerd).
//! - [`alphabeta`]: a small fixed-depth alpha-beta player (a sparring partner).
//! - [`pvs`]: iterative-deepening alpha-beta (principal-variation search with late-move
//!   reductions) over the heuristic or the leaf score, with a node budget: the upper
//!   levels' engine and the browser's AI (once "the hybrid", when a network ran at its
//!   root).
//! - [`shipped`] (`onnx`): the shipped AI, one constructor: each level's engine
//!   (network MCTS at the lower levels, alpha-beta over the leaf score above).
//! - [`searched_value`]: an evaluator whose value blends another's with a small alpha-beta
//!   over the leaf score (an experiment for the network MCTS of the lower levels).
//! - [`leafnet`]: the learned leaf score the shipped alpha-beta uses at every leaf: the
//!   heuristic plus a small network over piece-square features.

pub mod alphabeta;
pub mod bench;
pub mod encoding;
pub mod evaluator;
pub mod heuristic;
pub mod leafnet;
pub mod level;
pub mod mcts;
#[cfg(feature = "onnx")]
pub mod network;
pub mod pvs;
pub mod rng;
pub mod searched_value;
#[cfg(feature = "onnx")]
pub mod shipped;

pub use evaluator::{Evaluation, Evaluator, FirstThen, Leaf, Uniform};
pub use heuristic::Heuristic;
pub use mcts::{search, RootPolicy, SearchConfig, SearchResult};
