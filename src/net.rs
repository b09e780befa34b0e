//! The network AIs in the Worker (cargo feature `net`): the default hybrid (alpha-beta
//! over the heuristic with the network at the root, `AI_ENGINE` unset, `"auto"` or
//! `"hybrid"`) and MCTS over the network alone (`AI_ENGINE = "network"`), the shipped ONNX
//! model run by tract in wasm.
//!
//! The model is not in the module: it ships beside it as a static asset
//! (`public/models/`, copied there by `scripts/build-worker.sh`), fetched through the
//! `ASSETS` binding on an isolate's first AI move ([`prepare`], before the synchronous
//! search runs), checked against [`MODEL_SHA256`] so the module plays exactly the
//! network it was built and tested with, then parsed and optimised once (about 0.3 s; never
//! in global scope, which has a 1 s startup limit) and kept for the isolate's life. Out of
//! the module, its 0.9 MB (gzip) of weights no longer count against the Workers script
//! size limit: the module fits the Free plan's 3 MB (issue 10, lever 4). Without the
//! feature the Worker plays the heuristic AI and carries no tract code (9 MB of wasm).

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use ai::leafnet::LeafNet;
use ai::network::{Network, NetworkEvaluator};
use engine::{Game, Move};
use service::ai::Opponent;
use service::tokens::Random;
use service::ApiError;
use sha2::{Digest, Sha256};

/// The model the Worker plays with (the `worker_network` of models/manifest.json; the
/// build checks that this name and hash are the manifest's and the file's).
pub const MODEL_FILE: &str = "net-v2.onnx";
/// The SHA-256 of [`MODEL_FILE`], in hex: what arrives from the assets must be this file
/// (a missing asset would otherwise come back as the single-page app's index.html).
pub const MODEL_SHA256: &str = "289f9ab04d8981ba01dbc4974193b03573cc67ea19d674c4a99863b1fb2c0435";

/// The learned leaf score the hybrid's alpha-beta uses at every leaf (`ai::leafnet`, the
/// `worker_leaf` of models/manifest.json), shipped and checked like the model.
pub const LEAF_FILE: &str = "leaf-v1.bin";
/// The SHA-256 of [`LEAF_FILE`], in hex.
pub const LEAF_SHA256: &str = "3325491445b7d1accd5937c21906a2fe50b2f44978c4785e9dea2d3aa9fca91c";

thread_local! {
    // wasm32 Workers are single-threaded: one network per isolate, set by `prepare`. A
    // failed load is not kept: the next AI move tries again.
    static NETWORK: OnceCell<Network> = const { OnceCell::new() };
    static LEAF: OnceCell<Rc<LeafNet>> = const { OnceCell::new() };
    // The benchmark's last fetched model (by name), so its rounds reuse the loaded plan.
    static BENCH_NETWORK: RefCell<Option<(String, Network)>> = const { RefCell::new(None) };
}

fn unavailable(why: String) -> ApiError {
    ApiError::new(503, "ai_unavailable", format!("the AI's network did not load: {why}"))
}

/// Loads the isolate's network and leaf score if they are not loaded yet: fetches
/// [`MODEL_FILE`] and [`LEAF_FILE`] from the static assets, checks their hashes, parses
/// (and optimises) them. Returns whether this call loaded anything. Called before a
/// request that may make an AI move: the search itself is synchronous and cannot wait for
/// a fetch.
pub async fn prepare(env: &worker::Env) -> Result<bool, ApiError> {
    let mut loaded = false;
    if NETWORK.with(|cell| cell.get().is_none()) {
        let bytes = fetch_asset(env, MODEL_FILE, MODEL_SHA256).await?;
        let net = Network::load(&bytes, MODEL_FILE).map_err(unavailable)?;
        // Another request of this isolate may have loaded it meanwhile: either copy will do.
        NETWORK.with(|cell| {
            let _ = cell.set(net);
        });
        loaded = true;
    }
    if LEAF.with(|cell| cell.get().is_none()) {
        let bytes = fetch_asset(env, LEAF_FILE, LEAF_SHA256).await?;
        let leaf = LeafNet::from_bytes(&bytes).map_err(|e| unavailable(format!("{LEAF_FILE}: {e}")))?;
        LEAF.with(|cell| {
            let _ = cell.set(Rc::new(leaf));
        });
        loaded = true;
    }
    Ok(loaded)
}

/// One of the module's static assets (`public/models/`), which must hash to `sha256`.
async fn fetch_asset(env: &worker::Env, file: &str, sha256: &str) -> Result<Vec<u8>, ApiError> {
    let assets = env.assets("ASSETS").map_err(|e| unavailable(format!("no ASSETS binding: {e}")))?;
    // Where the assets serve it (`public/models/`); an assets binding ignores the host.
    let url = format!("https://assets.local/models/{file}");
    let mut resp = assets.fetch(url, None).await.map_err(|e| unavailable(format!("{file}: {e}")))?;
    if resp.status_code() != 200 {
        return Err(unavailable(format!("{file}: the assets answered {}", resp.status_code())));
    }
    let bytes = resp.bytes().await.map_err(|e| unavailable(format!("{file}: {e}")))?;
    let hash: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    if hash != sha256 {
        return Err(unavailable(format!(
            "{file} from the assets ({} bytes) has SHA-256 {hash}, not the module's {sha256}",
            bytes.len()
        )));
    }
    Ok(bytes)
}

/// The isolate's leaf score, loaded by [`prepare`].
fn leaf() -> Result<Rc<LeafNet>, ApiError> {
    LEAF.with(|cell| cell.get().cloned())
        .ok_or_else(|| ApiError::internal("the AI's leaf score was not prepared for this request"))
}

/// The isolate's network, loaded by [`prepare`].
pub fn network() -> Result<Network, ApiError> {
    // A request that can make an AI move prepares the network first (game_object.rs).
    NETWORK
        .with(|cell| cell.get().cloned())
        .ok_or_else(|| ApiError::internal("the AI's network was not prepared for this request"))
}

/// The module's own tract checked against a trainer's reference outputs: loads `onnx`
/// as [`prepare`] does and runs [`Network::check_reference`]. No route calls it: it is an
/// export of the module, which `scripts/check-model.sh` runs in workerd, so CI checks every
/// shipped model with the wasm (simd128) build of tract that plays, and no native tract is
/// built for the check. Returns a one-line report.
#[wasm_bindgen::prelude::wasm_bindgen(js_name = checkModel)]
pub fn check_model(onnx: &[u8], reference: &str, name: &str) -> Result<String, String> {
    let net = Network::load(onnx, name)?;
    let c = net.check_reference(reference).map_err(|e| format!("{name}: {e}"))?;
    Ok(format!(
        "{name}: tract (wasm32, in workerd) matches the reference on {} samples (max abs difference {:.2e})",
        c.samples, c.max_difference
    ))
}

/// The network AI at a level's network budget.
#[derive(Debug, Default)]
pub struct NetAi;

impl Opponent for NetAi {
    fn name(&self) -> &'static str {
        "mcts-network"
    }

    fn is_placeholder(&self) -> bool {
        false
    }

    fn choose(&mut self, game: &Game, level: u8, rng: &mut dyn Random) -> Result<Option<Move>, ApiError> {
        let (lv, seed) = service::ai::level_and_seed(level, rng)?;
        let mut eval = NetworkEvaluator::new(network()?);
        let r = ai::search(game.position(), &service::ai::history(game), &mut eval, &lv.network_config(seed));
        Ok(r.best)
    }
}

/// The default AI of a `net` build (`AI_ENGINE` unset, `"auto"` or `"hybrid"`): the
/// hybrid search (`ai::hybrid`: iterative-deepening alpha-beta, the level's equal-time
/// node budget) whose leaves are scored by the learned leaf network (`ai::leafnet`: the
/// heuristic plus a small network over piece-square features), with the policy network
/// run once per move at the root by tract, where its policy orders the root's moves and
/// weighs the choice among nearly equal ones. Measured stronger than the same search over
/// the heuristic alone at equal time (`models/README.md`).
#[derive(Debug, Default)]
pub struct HybridNetAi;

impl Opponent for HybridNetAi {
    fn name(&self) -> &'static str {
        "hybrid-network"
    }

    fn is_placeholder(&self) -> bool {
        false
    }

    fn choose(&mut self, game: &Game, level: u8, rng: &mut dyn Random) -> Result<Option<Move>, ApiError> {
        let (lv, seed) = service::ai::level_and_seed(level, rng)?;
        let mut eval = NetworkEvaluator::new(network()?);
        let leaf = leaf()?;
        let cfg = lv.hybrid_leaf_config(seed, true);
        let history = service::ai::history(game);
        let r = ai::hybrid::search_with_leaf(game.position(), &history, Some(&mut eval), Some(&leaf), &cfg);
        Ok(r.best)
    }
}

/// `POST /api/ai/bench {"evaluations": N, "session": bool, "model": "x.onnx"}` (net builds
/// with `AI_BENCH = "on"` only): N network evaluations of a fixed middlegame, loading the
/// network first if this isolate has not; with `session` one tract run state serves all N
/// (as the AI's evaluator does), else each run builds its own. Timed by the caller (a
/// Worker's clock does not advance during computation): `scripts/bench-net.sh`.
/// `model` (optional) benchmarks another network instead of the embedded one, fetched from
/// `AI_BENCH_MODELS` (a base URL: `scripts/bench-net-ab.sh` serves candidate ONNX files
/// locally), so one module measures every candidate size in workerd (issue 10, lever 2)
/// instead of one fat-LTO module build per network.
/// `POST /api/ai/bench {"search": "heuristic" | "leaf" | "shipped" | "mcts", "level": N}` instead
/// runs a level's hybrid (the default level unless `level` says) over
/// `ai::bench::positions` as `iron-arena bench-leaf` does natively: with heuristic leaves
/// or the learned leaf score at the level's heuristic node budget, the leaf search at its
/// own budget (the level as it plays), or MCTS over the heuristic at the level's budget;
/// it answers the positions visited (evaluated, for MCTS), so
/// `scripts/bench-net.sh` divides the two leaf scores' time per node in workerd, measured
/// alternately in one run.
pub async fn bench(body: &[u8], env: &worker::Env) -> Result<serde_json::Value, ApiError> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Bench {
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
    }
    let b: Bench = service::http::parse_json(body)?;
    if let Some(kind) = b.search {
        if b.evaluations > 0 || b.model.is_some() {
            return Err(ApiError::new(422, "invalid_bench", "search goes without evaluations and model"));
        }
        let number = b.level.unwrap_or(ai::level::DEFAULT_LEVEL);
        let level = ai::level::level(number)
            .ok_or_else(|| ApiError::new(422, "invalid_level", format!("level {number}: no such level")))?;
        return bench_search(kind, level, env).await;
    }
    if b.level.is_some() {
        return Err(ApiError::new(422, "invalid_bench", "level goes with search"));
    }
    if b.evaluations > 2000 {
        return Err(ApiError::new(422, "invalid_evaluations", "evaluations must be at most 2000"));
    }
    let (net, loaded_now, model) = match &b.model {
        None => {
            let loaded_now = prepare(env).await?;
            (network()?, loaded_now, MODEL_FILE.to_string())
        }
        Some(name) => {
            let (net, loaded_now) = bench_model(name, env).await?;
            (net, loaded_now, name.clone())
        }
    };
    let mut game = Game::new(engine::Position::start(engine::Faction::Clockwork, engine::Faction::Axiom));
    let mut rng = ai::rng::Rng::new(5);
    for _ in 0..12 {
        let moves = game.legal_moves();
        if moves.is_empty() {
            break;
        }
        let _ = game.play(moves[rng.below(moves.len())]);
    }
    let planes = ai::encoding::encode(game.position());
    let mut value = 0.0;
    if b.session {
        let mut s = net.session().map_err(ApiError::internal)?;
        for _ in 0..b.evaluations {
            value = s.run(&planes).map_err(ApiError::internal)?.1;
        }
    } else {
        for _ in 0..b.evaluations {
            value = net.run(&planes).map_err(ApiError::internal)?.1;
        }
    }
    Ok(serde_json::json!({
        "model": model,
        "loaded_now": loaded_now,
        "evaluations": b.evaluations,
        "session": b.session,
        "value": value,
    }))
}

/// What `POST /api/ai/bench {"search": …}` searches with.
#[derive(Clone, Copy, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum BenchSearch {
    /// The level's hybrid with heuristic leaves, at its heuristic node budget.
    Heuristic,
    /// The same search and budget with the learned leaf score.
    Leaf,
    /// The leaf search at the level's leaf budget: the level as it plays (without the root
    /// network, whose one run per move `bench-net.sh` measures).
    Shipped,
    /// MCTS over the heuristic at the level's budget (`AI_ENGINE = "heuristic"`): the
    /// opponent of issue 10's gate, timed in the same run.
    Mcts,
}

/// A level's search (`kind`) on every benchmark position, as `iron-arena bench-leaf`.
async fn bench_search(
    kind: BenchSearch,
    level: ai::level::Level,
    env: &worker::Env,
) -> Result<serde_json::Value, ApiError> {
    let loaded_now = prepare(env).await?;
    let leaf = leaf()?;
    let positions = ai::bench::positions();
    let mut nodes = 0;
    for (i, p) in positions.iter().enumerate() {
        let seed = i as u64;
        let (cfg, leaf) = match kind {
            BenchSearch::Heuristic => (level.hybrid_config(seed, false), None),
            BenchSearch::Leaf => (level.hybrid_config(seed, false), Some(&*leaf)),
            BenchSearch::Shipped => (level.hybrid_leaf_config(seed, false), Some(&*leaf)),
            BenchSearch::Mcts => {
                // Positions evaluated, MCTS's counterpart of the hybrid's nodes.
                let r = ai::search(p, &[p.hash()], &mut ai::Heuristic, &level.config(seed));
                nodes += u64::from(r.evaluations);
                continue;
            }
        };
        nodes += ai::hybrid::search_with_leaf(p, &[p.hash()], None, leaf, &cfg).nodes;
    }
    Ok(serde_json::json!({
        "loaded_now": loaded_now,
        "level": level.number,
        "positions": positions.len(),
        "nodes": nodes,
    }))
}

/// The benchmark's `model`: fetched from `AI_BENCH_MODELS` and loaded once per isolate.
async fn bench_model(name: &str, env: &worker::Env) -> Result<(Network, bool), ApiError> {
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_');
    if !name.ends_with(".onnx") || name.starts_with('.') || !name.chars().all(plain) {
        return Err(ApiError::new(422, "invalid_model", "model must be a plain file name ending in .onnx"));
    }
    if let Some(net) =
        BENCH_NETWORK.with(|b| b.borrow().as_ref().filter(|(n, _)| n == name).map(|(_, net)| net.clone()))
    {
        return Ok((net, false));
    }
    let base = env
        .var("AI_BENCH_MODELS")
        .map(|v| v.to_string())
        .map_err(|_| ApiError::new(422, "invalid_model", "AI_BENCH_MODELS is not set: no models to fetch"))?;
    let url = format!("{}/{name}", base.trim_end_matches('/'));
    let bad = |e: String| ApiError::new(502, "model_fetch_failed", format!("{url}: {e}"));
    let mut resp = worker::Fetch::Url(worker::Url::parse(&url).map_err(|e| bad(e.to_string()))?)
        .send()
        .await
        .map_err(|e| bad(e.to_string()))?;
    if resp.status_code() != 200 {
        return Err(bad(format!("status {}", resp.status_code())));
    }
    let bytes = resp.bytes().await.map_err(|e| bad(e.to_string()))?;
    let net = Network::load(&bytes, name).map_err(|e| ApiError::new(422, "invalid_model", e))?;
    BENCH_NETWORK.with(|b| *b.borrow_mut() = Some((name.to_string(), net.clone())));
    Ok((net, true))
}
