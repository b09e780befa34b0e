//! The shipped leaf scores (`models/`, the manifest's `worker_leaf` entries) compute what their
//! trainer computed: `training/train_leaf.py` writes held-out samples (features, heuristic
//! score, its model's pawns) beside the export, and the Rust evaluator must reproduce them.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use ai::leafnet::{LeafNet, FEATURES};

fn models() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models")
}

/// The manifest's leaf scores: their file names.
fn shipped_leaves() -> Vec<String> {
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(models().join("manifest.json")).unwrap()).unwrap();
    let leaf: Vec<_> = manifest["models"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["worker_leaf"] == true)
        .map(|m| m["file"].as_str().unwrap().to_owned())
        .collect();
    let levels: Vec<_> = ai::level::LeafFile::ALL.iter().map(|l| l.file().to_owned()).collect();
    assert_eq!(leaf, levels, "models/manifest.json's worker_leaf entries are the levels' leaf files");
    leaf
}

#[test]
fn the_shipped_leaf_scores_reproduce_their_trainers_reference_samples() {
    for file in shipped_leaves() {
        reproduces_its_reference_samples(&file);
    }
}

fn reproduces_its_reference_samples(file: &str) {
    let net = LeafNet::from_bytes(&std::fs::read(models().join(file)).unwrap()).unwrap();
    let stem = file.strip_suffix(".bin").unwrap();
    let reference: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(models().join(format!("{stem}.reference.json"))).unwrap(),
    )
    .unwrap();
    let samples = reference.as_array().unwrap();
    assert!(samples.len() >= 4, "{} samples", samples.len());
    let mut corrections = 0;
    for s in samples {
        let active: Vec<u16> = s["features"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| u16::try_from(f.as_u64().unwrap()).unwrap())
            .collect();
        assert!(active.iter().all(|&f| usize::from(f) < FEATURES));
        let heuristic = s["heuristic"].as_f64().unwrap() as f32;
        let want = s["pawns"].as_f64().unwrap() as f32;
        let got = net.pawns(heuristic, &active);
        assert!((got - want).abs() <= 1e-3 * (1.0 + want.abs()), "{got} against the trainer's {want}: {s}");
        if (got - heuristic).abs() > 0.05 {
            corrections += 1;
        }
    }
    // The samples exercise the network, not only the heuristic's term.
    assert!(corrections > 0, "no sample's score differs from its heuristic score");
}

/// The default level's leaf score.
fn shipped() -> LeafNet {
    let file = ai::level::level(ai::level::DEFAULT_LEVEL).unwrap().leaf.file();
    assert!(shipped_leaves().iter().any(|f| f == file));
    LeafNet::from_bytes(&std::fs::read(models().join(file)).unwrap()).unwrap()
}

fn best(p: &engine::Position, leaf: &LeafNet, cfg: &ai::pvs::PvsConfig) -> (String, f32) {
    let r = ai::pvs::search_with_leaf(p, &[p.hash()], Some(leaf), cfg);
    assert!(r.nodes <= cfg.nodes, "{} nodes over the budget {}", r.nodes, cfg.nodes);
    (r.best.unwrap().to_string(), r.score)
}

/// The toy tactics of `pvs.rs`, with the shipped leaf score at the default level's
/// equal-time budget (what the Worker plays).
#[test]
fn the_default_level_with_the_shipped_leaf_score_finds_the_toy_tactics() {
    let leaf = shipped();
    let level = ai::level::level(ai::level::DEFAULT_LEVEL).unwrap();
    let cfg = level.alphabeta_leaf_config(9);
    assert!(cfg.nodes < u64::from(level.alphabeta_nodes), "the leaf budget pays for the leaf's cost");
    let pos = |s: &str| engine::iapn::parse(s).unwrap();
    // The Sword on a5 takes the Mistress on e5 along the rank.
    assert_eq!(best(&pos("blades blades 3d5/9/2d6/9/W3m4/9/3D1D3/9/4M4 s - 0"), &leaf, &cfg).0, "a5e5");
    // Father Time reaches the end row.
    let (mv, _) = best(&pos("clockwork axiom 1s7/4F4/3t5/9/9/9/9/9/9 s - 0"), &leaf, &cfg);
    assert!(["e8d9", "e8e9", "e8f9"].contains(&mv.as_str()), "{mv}");
    // A Phial's blast destroys the Mistress: a win in one, scored as one.
    let (mv, score) = best(&pos("axiom blades 9/4m1P2/9/9/9/9/9/9/S8 s - 0"), &leaf, &cfg);
    assert_eq!(mv, "g8g9");
    assert_eq!(score, ai::alphabeta::WIN - 1.0);
}

#[test]
fn a_search_with_the_leaf_score_is_deterministic_and_differs_from_the_heuristics() {
    let leaf = shipped();
    let mut differs = 0;
    for mu in [
        (engine::Faction::Clockwork, engine::Faction::Blades),
        (engine::Faction::Axiom, engine::Faction::Axiom),
    ] {
        let mut g = engine::Game::new(engine::Position::start(mu.0, mu.1));
        let mut r = ai::rng::Rng::new(11);
        for _ in 0..16 {
            let m = g.legal_moves();
            let _ = g.play(m[r.below(m.len())]);
        }
        let p = *g.position();
        let cfg = ai::pvs::PvsConfig { nodes: 3_000, quiescence: 4, ..ai::pvs::PvsConfig::default() };
        let a = ai::pvs::search_with_leaf(&p, &[p.hash()], Some(&leaf), &cfg);
        let b = ai::pvs::search_with_leaf(&p, &[p.hash()], Some(&leaf), &cfg);
        assert_eq!(a, b);
        let plain = ai::pvs::search(&p, &[p.hash()], &cfg);
        if (a.score - plain.score).abs() > 1e-3 {
            differs += 1;
        }
    }
    assert!(differs > 0, "the leaf score changed no search's score");
}
