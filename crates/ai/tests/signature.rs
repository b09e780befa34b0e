//! The alpha-beta searches as it did when the levels' ladder was measured
//! (`models/README.md`): its signature ([`ai::bench::search_signature`]) at small budgets
//! is pinned here, as perft counts pin the rules. A change meant to make the search faster
//! must leave it as it is (`iron-arena bench-leaf` prints the full signature at the levels'
//! own budgets, so it moves when a budget does: with the quiescence's delta pruning
//! efc934e0cdf3dda5 (11,860,619 positions) at the budgets before 2026-12-05 20:00,
//! ae8468e5e5f26010 (26,519,365) until level 3 went to 8,000 positions at 23:30,
//! 001f7f5dc7cd4c5c (26,577,365) until the search fix of 2026-12-06, 63b71c4cd4bed4ab (26,577,365)
//! until level 4's new search the same day (15:30), a77edbd43c6f82f3 (26,490,366) until
//! levels 5 and 6 took level 4's options (17:48), 0aa687a762586e30 (26,490,368) until they took
//! leaf-v3 (late 2026-12-06; each level with its own leaf file since), 6985ae4b6600478f
//! (26,490,236) since;
//! e43306d7de8c0be5 before delta pruning). A change
//! meant to make the search different updates these values in the same commit and
//! re-measures the ladder it affects.

#![allow(clippy::unwrap_used)]

use ai::leafnet::LeafNet;
use ai::level::level;
use ai::pvs::PvsConfig;

#[test]
fn the_search_plays_the_moves_the_ladder_was_measured_with() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/leaf-v1.bin");
    let leaf = LeafNet::from_bytes(&std::fs::read(path).unwrap()).unwrap();
    // Level 3's search (its margin) at 533 positions, its budget until 2026-12-05 20:00, and
    // level 4's (margin, quiescence, reductions, null moves, trading when ahead, the
    // opponent's Dials; since 2026-12-06 15:30, 8d31f12b37559f54 before) at 2,000: every
    // part of the search, at budgets a debug build runs in seconds. The levels' budgets are not pinned here: the
    // ladder's files say which each game was played with.
    let searches = [
        (&leaf, PvsConfig { nodes: 533, ..level(3).unwrap().alphabeta_leaf_config(0) }),
        (&leaf, PvsConfig { nodes: 2_000, ..level(4).unwrap().alphabeta_leaf_config(0) }),
    ];
    let (hash, nodes) = ai::bench::search_signature(&searches);
    assert_eq!((format!("{hash:016x}"), nodes), ("0a56c05b1bd24795".to_owned(), 75_111));
}
