//! The alpha-beta searches as it did when the levels' ladder was measured
//! (`models/README.md`): its signature ([`ai::bench::search_signature`]) at small budgets
//! is pinned here, as perft counts pin the rules. A change meant to make the search faster
//! must leave it as it is (`iron-arena bench-leaf` prints the full signature at the levels'
//! own budgets: efc934e0cdf3dda5, 11,860,619 positions, since the quiescence's delta pruning;
//! e43306d7de8c0be5 before it). A change meant to make the search
//! different updates these values in the same commit and re-measures the ladder it affects.

#![allow(clippy::unwrap_used)]

use ai::leafnet::LeafNet;
use ai::level::level;
use ai::pvs::PvsConfig;

#[test]
fn the_search_plays_the_moves_the_ladder_was_measured_with() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/leaf-v1.bin");
    let leaf = LeafNet::from_bytes(&std::fs::read(path).unwrap()).unwrap();
    // Level 3 as it ships, and level 4's search (margin, quiescence, reductions) at 2,000
    // positions: every part of the search, at a budget a debug build runs in seconds.
    let configs = [
        level(3).unwrap().alphabeta_leaf_config(0),
        PvsConfig { nodes: 2_000, ..level(4).unwrap().alphabeta_leaf_config(0) },
    ];
    let (hash, nodes) = ai::bench::search_signature(&leaf, &configs);
    assert_eq!((format!("{hash:016x}"), nodes), ("c6a665192f2b2b02".to_owned(), 75_110));
}
