#![allow(clippy::unwrap_used)]
//! The network AI's decisions that need no tract (`service::net_assets`,
//! `service::net_bench`), natively: the SHA-256 check of the Worker's shipped files, the
//! learned leaf score built from them, and the benchmark route's request and answers.

use serde_json::json;
use service::net_assets;
use service::net_bench::{self, Bench, BenchAnswer, BenchSearch, EvaluateAnswer};
use service::ErrorCode;

const ABC_SHA256: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

fn repo(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

/// A `pub const NAME: &str = "…";` of the Worker's src/net.rs (as the build scripts read it).
fn worker_const(name: &str) -> String {
    let src = std::fs::read_to_string(repo("src/net.rs")).unwrap();
    let prefix = format!("pub const {name}: &str = \"");
    let line =
        src.lines().find_map(|l| l.strip_prefix(&prefix)).unwrap_or_else(|| panic!("{name} in src/net.rs"));
    line.strip_suffix("\";").unwrap().to_owned()
}

#[test]
fn bytes_pass_only_with_their_own_sha256() {
    assert_eq!(net_assets::verified("x.bin", b"abc", ABC_SHA256).unwrap(), b"abc");
    let e = net_assets::verified("x.bin", b"abd", ABC_SHA256).unwrap_err();
    assert_eq!((e.status(), e.code), (503, ErrorCode::AiUnavailable));
    assert!(e
        .message
        .starts_with("the AI's network did not load: x.bin from the assets (3 bytes) has SHA-256 "));
    assert!(e.message.ends_with(&format!(", not the module's {ABC_SHA256}")), "{}", e.message);
    // The hash is compared as written: uppercase hex is another hash, and so is none.
    assert!(net_assets::verified("x.bin", b"abc", &ABC_SHA256.to_uppercase()).is_err());
    assert!(net_assets::verified("x.bin", b"abc", "").is_err());
    // An empty asset (or the app's index.html) is refused like a damaged one.
    assert!(net_assets::verified("x.bin", b"", ABC_SHA256).is_err());
}

#[test]
fn only_a_200_from_the_assets_carries_the_file() {
    assert!(net_assets::answered("net.onnx", 200).is_ok());
    let e = net_assets::answered("net.onnx", 404).unwrap_err();
    assert_eq!((e.status(), e.code), (503, ErrorCode::AiUnavailable));
    assert_eq!(e.message, "the AI's network did not load: net.onnx: the assets answered 404");
}

/// The Worker's leaf files (src/net.rs `LEAF_V1_*`, `LEAF_V3_*`), each with its hash.
fn worker_leaves() -> Vec<(String, String)> {
    ["LEAF_V1", "LEAF_V3"]
        .iter()
        .map(|c| (worker_const(&format!("{c}_FILE")), worker_const(&format!("{c}_SHA256"))))
        .collect()
}

#[test]
fn the_worker_loads_every_leaf_file_a_level_plays_each_into_its_place() {
    let files: Vec<_> = worker_leaves().into_iter().map(|(f, _)| f).collect();
    let levels: Vec<_> = ai::level::LeafFile::ALL.iter().map(|l| l.file().to_owned()).collect();
    assert_eq!(files, levels, "src/net.rs's leaf files are the levels'");
    let mut leaves = ai::level::Leaves::none();
    for (file, sha) in worker_leaves() {
        let bytes = std::fs::read(repo("models").join(&file)).unwrap();
        net_assets::load_leaf(&mut leaves, &file, &bytes, &sha).unwrap();
    }
    // Each in its place: the two files differ, and each slot holds its own.
    let v1 = leaves.get(ai::level::LeafFile::V1).unwrap();
    let v3 = leaves.get(ai::level::LeafFile::V3).unwrap();
    let p = engine::Position::start(engine::Faction::Blades, engine::Faction::Clockwork);
    let mut features = Vec::new();
    ai::leafnet::features(&p, &mut features);
    let direct = |f: &str| {
        ai::leafnet::LeafNet::from_bytes(&std::fs::read(repo("models").join(f)).unwrap())
            .unwrap()
            .correction(&features)
    };
    assert_eq!(
        (v1.correction(&features), v3.correction(&features)),
        (direct("leaf-v1.bin"), direct("leaf-v3.bin"))
    );
    assert_ne!(direct("leaf-v1.bin"), direct("leaf-v3.bin"));
    // A file that is no level's is refused before its bytes are looked at.
    let e = net_assets::load_leaf(&mut leaves, "leaf-v2.bin", b"abc", ABC_SHA256).unwrap_err();
    assert_eq!((e.status(), e.message.as_str()), (500, "leaf-v2.bin is not a leaf score the levels play"));
}

#[test]
fn the_shipped_leaf_score_loads_and_a_damaged_one_is_refused_before_it_is_parsed() {
    for (file, sha) in worker_leaves() {
        let bytes = std::fs::read(repo("models").join(&file)).unwrap();
        assert!(net_assets::leaf(&file, &bytes, &sha).unwrap().hidden() > 0, "{file}");
    }
    let (file, sha) = worker_leaves().remove(0);
    let bytes = std::fs::read(repo("models").join(&file)).unwrap();

    let mut bad = bytes.clone();
    bad[bytes.len() / 2] ^= 0x5a;
    let e = net_assets::leaf(&file, &bad, &sha).unwrap_err();
    assert_eq!((e.status(), e.code), (503, ErrorCode::AiUnavailable));
    assert!(e.message.contains("has SHA-256"), "{}", e.message);

    // Bytes that hash right but are no leaf score (a module built with a wrong hash):
    // still 503, naming the file and the parser's complaint.
    let e = net_assets::leaf("leaf.bin", b"abc", ABC_SHA256).unwrap_err();
    assert_eq!((e.status(), e.code), (503, ErrorCode::AiUnavailable));
    assert_eq!(e.message, "the AI's network did not load: leaf.bin: not a leaf network (bad magic)");
}

#[test]
fn an_engine_run_without_its_files_loaded_is_an_internal_error() {
    let e = net_assets::network_not_prepared();
    assert_eq!((e.status(), e.code), (500, ErrorCode::Internal));
    assert_eq!(e.message, "the AI's network was not prepared for this request");
    assert_eq!(
        net_assets::leaf_not_prepared().message,
        "the AI's leaf score was not prepared for this request"
    );
}

fn err(body: &str) -> (u16, ErrorCode, String) {
    let e = net_bench::parse(body.as_bytes()).unwrap_err();
    (e.status(), e.code, e.message)
}

#[test]
fn a_bench_request_is_a_search_or_evaluations_never_both() {
    let level = |n| ai::level::level(n).unwrap();
    assert_eq!(
        net_bench::parse(br#"{"search": "leaf"}"#).unwrap(),
        Bench::Search { kind: BenchSearch::Leaf, level: level(ai::level::DEFAULT_LEVEL), position: None }
    );
    assert_eq!(
        net_bench::parse(br#"{"search": "mcts", "level": 2}"#).unwrap(),
        Bench::Search { kind: BenchSearch::Mcts, level: level(2), position: None }
    );
    assert_eq!(
        net_bench::parse(br#"{"search": "shipped"}"#).unwrap(),
        Bench::Search { kind: BenchSearch::Shipped, level: level(4), position: None }
    );
    assert_eq!(
        net_bench::parse(br#"{"search": "shipped", "level": 6, "position": 8}"#).unwrap(),
        Bench::Search { kind: BenchSearch::Shipped, level: level(6), position: Some(8) }
    );
    assert_eq!(
        net_bench::parse(b"{}").unwrap(),
        Bench::Evaluate { evaluations: 0, session: false, model: None }
    );
    assert_eq!(
        net_bench::parse(br#"{"evaluations": 2000, "session": true, "model": "net-64x6_v2.onnx"}"#).unwrap(),
        Bench::Evaluate { evaluations: 2000, session: true, model: Some("net-64x6_v2.onnx".into()) }
    );

    let invalid_bench = |m: &str| (422, ErrorCode::InvalidBench, m.to_owned());
    let mixed = invalid_bench("search goes without evaluations and model");
    assert_eq!(err(r#"{"search": "leaf", "evaluations": 1}"#), mixed);
    assert_eq!(err(r#"{"search": "leaf", "model": "a.onnx"}"#), mixed);
    let alone = invalid_bench("level and position go with search");
    assert_eq!(err(r#"{"evaluations": 1, "level": 3}"#), alone);
    assert_eq!(err(r#"{"position": 0}"#), alone);
    assert_eq!(
        err(r#"{"search": "leaf", "position": 9}"#),
        invalid_bench("position 9: the benchmark has positions 0 to 8")
    );
    assert_eq!(
        err(r#"{"search": "leaf", "level": 7}"#),
        (422, ErrorCode::InvalidLevel, "level 7: no such level".into())
    );
    assert_eq!(
        err(r#"{"evaluations": 2001}"#),
        (422, ErrorCode::InvalidEvaluations, "evaluations must be at most 2000".into())
    );
    // The evaluations are checked before the model's name.
    assert_eq!(err(r#"{"evaluations": 2001, "model": "../x"}"#).1, ErrorCode::InvalidEvaluations);
    for bad in ["x.bin", ".onnx", ".x.onnx", "../x.onnx", "a/b.onnx", "a b.onnx", "é.onnx", ""] {
        let body = json!({ "model": bad }).to_string();
        assert_eq!(
            err(&body),
            (422, ErrorCode::InvalidModel, "model must be a plain file name ending in .onnx".into()),
            "{bad}"
        );
    }
    // Not a request of either kind: 400 from the service's JSON reader.
    assert_eq!(err(r#"{"search": "alphabeta"}"#).0, 400);
    assert_eq!(err(r#"{"evaluations": 1, "extra": 1}"#).0, 400);
    assert_eq!(err("").1, ErrorCode::InvalidJson);
}

#[test]
fn the_bench_model_is_fetched_from_its_base_url() {
    assert_eq!(
        net_bench::model_url(Some("http://127.0.0.1:8799/".into()), "a.onnx").unwrap(),
        "http://127.0.0.1:8799/a.onnx"
    );
    assert_eq!(net_bench::model_url(Some("http://h/m".into()), "a.onnx").unwrap(), "http://h/m/a.onnx");
    let e = net_bench::model_url(None, "a.onnx").unwrap_err();
    assert_eq!((e.status(), e.code), (422, ErrorCode::InvalidModel));
    assert_eq!(e.message, "AI_BENCH_MODELS is not set: no models to fetch");
    assert!(net_bench::fetched("http://h/a.onnx", 200).is_ok());
    let e = net_bench::fetched("http://h/a.onnx", 404).unwrap_err();
    assert_eq!(
        (e.status(), e.code, e.message.as_str()),
        (502, ErrorCode::ModelFetchFailed, "http://h/a.onnx: status 404")
    );
    assert_eq!(net_bench::fetch_failed("u", "refused").message, "u: refused");
}

#[test]
fn the_search_bench_counts_every_positions_nodes_and_answers_as_before() {
    let (file, sha) = worker_leaves().remove(0);
    let bytes = std::fs::read(repo("models").join(&file)).unwrap();
    let leaf = net_assets::leaf(&file, &bytes, &sha).unwrap();
    let level = ai::level::level(1).unwrap();
    let positions = ai::bench::positions().len() as u64;
    let mut nodes = Vec::new();
    // The shipped level as the Worker's closure would play it at an alpha-beta level (its
    // network levels need tract, which native tests do not build): the leaf search at the
    // level's equal-time budget.
    let shipped = |game: &engine::Game, seed: u64| {
        let p = game.position();
        Ok(ai::pvs::search_with_leaf(p, &[p.hash()], Some(&leaf), &level.alphabeta_leaf_config(seed)).nodes)
    };
    for kind in [BenchSearch::Heuristic, BenchSearch::Leaf, BenchSearch::Shipped, BenchSearch::Mcts] {
        let Ok(BenchAnswer::Search(a)) = net_bench::search(kind, level, None, &leaf, true, &shipped) else {
            panic!("a search answer")
        };
        assert_eq!((a.level, a.loaded_now, a.positions as u64), (1, true, positions));
        assert!(a.nodes >= positions, "{kind:?}: {a:?}");
        // Seeded: the same search visits the same positions.
        assert_eq!(
            net_bench::search(kind, level, None, &leaf, false, &shipped),
            Ok(BenchAnswer::Search(a.clone().with_loaded(false)))
        );
        nodes.push(a.nodes);
        // Searched one at a time (`position`), the positions visit what they visit together.
        let alone: u64 = (0..a.positions)
            .map(|i| match net_bench::search(kind, level, Some(i), &leaf, true, &shipped) {
                Ok(BenchAnswer::Search(one)) => {
                    assert_eq!(one.positions, 1);
                    one.nodes
                }
                other => panic!("{other:?}"),
            })
            .sum();
        assert_eq!(alone, a.nodes, "{kind:?}");
        // The body the route sent before (a `json!` object, keys sorted).
        let v = serde_json::to_string(&BenchAnswer::Search(a.clone())).unwrap();
        let before =
            json!({"loaded_now": true, "level": 1, "positions": a.positions, "nodes": a.nodes}).to_string();
        assert_eq!(v, before);
    }
    // The heuristic and leaf searches share a budget; the shipped one's is divided by
    // the leaf's node cost; MCTS counts evaluations (at most the level's a position).
    assert!(nodes[2] < nodes[1], "{nodes:?}");
    assert!(nodes[3] <= u64::from(level.evaluations) * positions, "{nodes:?}");
}

trait WithLoaded {
    fn with_loaded(self, loaded_now: bool) -> Self;
}

impl WithLoaded for net_bench::SearchAnswer {
    fn with_loaded(self, loaded_now: bool) -> Self {
        net_bench::SearchAnswer { loaded_now, ..self }
    }
}

#[test]
fn the_evaluation_answer_is_the_body_sent_before() {
    let a = EvaluateAnswer {
        evaluations: 3,
        loaded_now: false,
        model: "net-v2.onnx".into(),
        session: true,
        value: f64::from(-0.1_f32),
    };
    let before = json!({
        "model": "net-v2.onnx",
        "loaded_now": false,
        "evaluations": 3,
        "session": true,
        "value": -0.1_f32,
    });
    assert_eq!(serde_json::to_string(&BenchAnswer::Evaluate(a)).unwrap(), before.to_string());
}

#[test]
fn the_evaluation_bench_plays_a_live_middlegame() {
    let p = net_bench::middlegame();
    assert!(!p.legal_moves().is_empty());
    assert_eq!(p.hash(), net_bench::middlegame().hash());
}
