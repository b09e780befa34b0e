//! `POST /api/ai/bench` (net builds with `AI_BENCH = "on"` only; the Worker's route fetches
//! what the benchmark needs and runs it here). Timed by the caller (a Worker's clock does
//! not advance during computation): `scripts/bench-net.sh`.
//!
//! `{"evaluations": N, "session": bool, "model": "x.onnx"}`: N network evaluations of a
//! fixed middlegame ([`evaluate`]); with `session` one tract run state serves all N (as
//! the AI's evaluator does), else each run builds its own. `model` (optional) benchmarks
//! another network instead of the shipped one, fetched from `AI_BENCH_MODELS` (a base URL:
//! `scripts/bench-net-ab.sh` serves candidate ONNX files locally), so one module measures
//! every candidate size in workerd (issue 10, lever 2) instead of one fat-LTO module build
//! per network.
//!
//! `{"search": "heuristic" | "leaf" | "shipped" | "mcts", "level": N, "position": I}` instead
//! runs a level's alpha-beta (the default level unless `level` says) over `ai::bench::positions`
//! (only the `I`th, counted from 0, with `position`: timing each apart gives the median time
//! per move, the measure of a level's budget) as
//! `iron-arena bench-leaf` does natively ([`search`]): with heuristic leaves or the learned
//! leaf score at the level's heuristic node budget, the leaf search at its own budget (the
//! level as it plays), or MCTS over the heuristic at the level's budget; it answers the
//! positions visited (evaluated, for MCTS), so `scripts/bench-net.sh` divides the two leaf
//! scores' time per node in workerd, measured alternately in one run.

use ai::leafnet::LeafNet;
use ai::level::Level;
use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ErrorCode};

/// The most evaluations one request may ask for.
pub const MAX_EVALUATIONS: u32 = 2000;

/// A benchmark request, checked.
#[derive(Clone, Debug, PartialEq)]
pub enum Bench {
    /// A level's search on every benchmark position, or on the one numbered `position`.
    Search { kind: BenchSearch, level: Level, position: Option<usize> },
    /// Network evaluations: of the shipped model, or of `model` (a plain `.onnx` file name)
    /// fetched from `AI_BENCH_MODELS`.
    Evaluate { evaluations: u32, session: bool, model: Option<String> },
}

/// What `POST /api/ai/bench {"search": …}` searches with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BenchSearch {
    /// The level's alpha-beta with heuristic leaves, at its heuristic node budget.
    Heuristic,
    /// The same search and budget with the learned leaf score.
    Leaf,
    /// The level as it plays (`ai::shipped`): MCTS over the network at levels 1-2, the
    /// alpha-beta over the leaf score at its equal-time budget above.
    Shipped,
    /// MCTS over the heuristic at the level's budget (`AI_ENGINE = "heuristic"`): the
    /// opponent of issue 10's gate, timed in the same run.
    Mcts,
}

/// Reads and checks a benchmark request's body: 422 `invalid_bench` for fields that do not
/// go together, `invalid_level`, `invalid_evaluations` (over [`MAX_EVALUATIONS`]),
/// `invalid_model` (not a plain file name ending in `.onnx`); 400 for a body that is not
/// one.
pub fn parse(body: &[u8]) -> Result<Bench, ApiError> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Body {
        #[serde(default)]
        evaluations: u32,
        #[serde(default)]
        session: bool,
        #[serde(default)]
        model: Option<String>,
        #[serde(default)]
        search: Option<BenchSearch>,
        #[serde(default)]
        level: Option<u8>,
        #[serde(default)]
        position: Option<usize>,
    }
    let b: Body = crate::http::parse_json(body)?;
    if let Some(kind) = b.search {
        if b.evaluations > 0 || b.model.is_some() {
            return Err(ApiError::new(ErrorCode::InvalidBench, "search goes without evaluations and model"));
        }
        let number = b.level.unwrap_or(ai::level::DEFAULT_LEVEL);
        let level = ai::level::level(number).ok_or_else(|| {
            ApiError::new(ErrorCode::InvalidLevel, format!("level {number}: no such level"))
        })?;
        let count = ai::bench::positions().len();
        if let Some(i) = b.position.filter(|&i| i >= count) {
            return Err(ApiError::new(
                ErrorCode::InvalidBench,
                format!("position {i}: the benchmark has positions 0 to {}", count - 1),
            ));
        }
        return Ok(Bench::Search { kind, level, position: b.position });
    }
    if b.level.is_some() || b.position.is_some() {
        return Err(ApiError::new(ErrorCode::InvalidBench, "level and position go with search"));
    }
    if b.evaluations > MAX_EVALUATIONS {
        return Err(ApiError::new(ErrorCode::InvalidEvaluations, "evaluations must be at most 2000"));
    }
    if let Some(name) = &b.model {
        let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_');
        if !name.ends_with(".onnx") || name.starts_with('.') || !name.chars().all(plain) {
            return Err(ApiError::new(
                ErrorCode::InvalidModel,
                "model must be a plain file name ending in .onnx",
            ));
        }
    }
    Ok(Bench::Evaluate { evaluations: b.evaluations, session: b.session, model: b.model })
}

/// The answer of either benchmark (the route's JSON body).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum BenchAnswer {
    Search(SearchAnswer),
    Evaluate(EvaluateAnswer),
}

/// `{"search": …}`'s answer. (Fields in the order the earlier `json!` object wrote them.)
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SearchAnswer {
    /// The level searched at.
    pub level: u8,
    /// Whether this request loaded the isolate's network and leaf score.
    pub loaded_now: bool,
    /// Positions the searches visited (evaluated, for MCTS).
    pub nodes: u64,
    /// How many benchmark positions were searched.
    pub positions: usize,
}

/// `{"evaluations": …}`'s answer. (Fields in the order the earlier `json!` object wrote them.)
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EvaluateAnswer {
    pub evaluations: u32,
    /// Whether this request loaded the network it ran.
    pub loaded_now: bool,
    /// The model's file name.
    pub model: String,
    pub session: bool,
    /// The last run's value (what `json!` made of the network's f32).
    pub value: f64,
}

/// A level's search (`kind`) on every benchmark position, as `iron-arena bench-leaf`, with
/// the isolate's leaf score (`loaded_now`: whether this request loaded it). `shipped` plays
/// the level as it ships (the Worker passes `ai::shipped::ShippedAi`, the one constructor:
/// MCTS over the network at the lower levels) on a game and seed and answers its work
/// (evaluations or positions); a failure (a network that failed) is the answer.
pub fn search(
    kind: BenchSearch,
    level: Level,
    position: Option<usize>,
    leaf: &LeafNet,
    loaded_now: bool,
    shipped: &dyn Fn(&engine::Game, u64) -> Result<u64, ApiError>,
) -> Result<BenchAnswer, ApiError> {
    let positions = ai::bench::positions();
    let mut nodes = 0;
    let mut searched = 0;
    // Each position keeps its number as its seed, searched alone or with the others.
    for (i, p) in positions.iter().enumerate().filter(|(i, _)| position.is_none_or(|n| n == *i)) {
        searched += 1;
        let seed = i as u64;
        let (cfg, leaf) = match kind {
            BenchSearch::Heuristic => (level.alphabeta_config(seed), None),
            BenchSearch::Leaf => (level.alphabeta_config(seed), Some(leaf)),
            BenchSearch::Shipped => {
                nodes += shipped(&engine::Game::new(*p), seed)?;
                continue;
            }
            BenchSearch::Mcts => {
                // Positions evaluated, MCTS's counterpart of the alpha-beta's nodes.
                let r = ai::search(p, &[p.hash()], &mut ai::Heuristic, &level.config(seed));
                nodes += u64::from(r.evaluations);
                continue;
            }
        };
        nodes += ai::pvs::search_with_leaf(p, &[p.hash()], leaf, &cfg).nodes;
    }
    Ok(BenchAnswer::Search(SearchAnswer { level: level.number, loaded_now, nodes, positions: searched }))
}

/// Where the benchmark's `model` is fetched: `AI_BENCH_MODELS` (`base`, unset: 422
/// `invalid_model`) and the file name.
pub fn model_url(base: Option<String>, name: &str) -> Result<String, ApiError> {
    let base = base.ok_or_else(|| {
        ApiError::new(ErrorCode::InvalidModel, "AI_BENCH_MODELS is not set: no models to fetch")
    })?;
    Ok(format!("{}/{name}", base.trim_end_matches('/')))
}

/// 502 `model_fetch_failed`: fetching the benchmark's model from `url` failed (`why`).
pub fn fetch_failed(url: &str, why: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::ModelFetchFailed, format!("{url}: {why}"))
}

/// The model server's answer for `url` (`status`): only a 200 carries the model.
pub fn fetched(url: &str, status: u16) -> Result<(), ApiError> {
    if status != 200 {
        return Err(fetch_failed(url, format!("status {status}")));
    }
    Ok(())
}

/// The benchmark's fetched `model` (`name`), built by tract: 422 `invalid_model` if it is
/// not a model tract can run.
#[cfg(feature = "net")]
pub fn load_model(bytes: &[u8], name: &str) -> Result<ai::network::Network, ApiError> {
    ai::network::Network::load(bytes, name).map_err(|e| ApiError::new(ErrorCode::InvalidModel, e))
}

/// `evaluations` runs of `net` (the model `model`; `loaded_now`: whether this request
/// loaded it) on a fixed middlegame, in one tract session or each in its own.
#[cfg(feature = "net")]
pub fn evaluate(
    net: &ai::network::Network,
    model: String,
    loaded_now: bool,
    evaluations: u32,
    session: bool,
) -> Result<BenchAnswer, ApiError> {
    let planes = ai::encoding::encode(&middlegame());
    let mut value = 0.0;
    if session {
        let mut s = net.session().map_err(ApiError::internal)?;
        for _ in 0..evaluations {
            value = s.run(&planes).map_err(ApiError::internal)?.1;
        }
    } else {
        for _ in 0..evaluations {
            value = net.run(&planes).map_err(ApiError::internal)?.1;
        }
    }
    Ok(BenchAnswer::Evaluate(EvaluateAnswer {
        evaluations,
        loaded_now,
        model,
        session,
        value: f64::from(value),
    }))
}

/// The evaluation benchmark's position: 12 seeded random plies of Clockwork against Axiom.
pub fn middlegame() -> engine::Position {
    let mut game =
        engine::Game::new(engine::Position::start(engine::Faction::Clockwork, engine::Faction::Axiom));
    let mut rng = ai::rng::Rng::new(5);
    for _ in 0..12 {
        let moves = game.legal_moves();
        if moves.is_empty() {
            break;
        }
        let _ = game.play(moves[rng.below(moves.len())]);
    }
    *game.position()
}
