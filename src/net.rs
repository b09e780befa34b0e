//! The network AI in the Worker (cargo feature `net`): the runtime side of
//! `service::net_ai` (the shipped AI, `AI_ENGINE` unset, `"auto"` or `"shipped"`), the
//! shipped ONNX model run by tract in wasm.
//!
//! The model is not in the module: it ships beside it as a static asset
//! (`public/models/`, copied there by `scripts/build-worker.sh`), fetched through the
//! `ASSETS` binding on an isolate's first AI move ([`prepare`], before the synchronous
//! search runs), checked against [`MODEL_SHA256`] so the module plays exactly the
//! network it was built and tested with (`service::net_assets`), then parsed and optimised
//! once (about 0.3 s; never in global scope, which has a 1 s startup limit) and kept for
//! the isolate's life. Out of the module, its weights (985 KB) do not count against the
//! Workers script size limit (64 MiB uncompressed on every plan since the compressed 3 MB /
//! 10 MB limits went; issue 10, lever 4, kept the module under Free's 3 MB then). Without
//! the feature the Worker plays the heuristic AI and carries no tract code (9 MB of wasm).

use std::cell::OnceCell;
#[cfg(feature = "test-hooks")]
use std::cell::RefCell;
use std::rc::Rc;

use ai::level::Leaves;
use ai::network::Network;
use service::net_assets::unavailable;
#[cfg(feature = "test-hooks")]
use service::net_bench::{self, Bench, BenchAnswer};
use service::ApiError;

/// The model the Worker plays with (the `worker_network` of models/manifest.json; the
/// build checks that this name and hash are the manifest's and the file's).
pub const MODEL_FILE: &str = "net-v8.onnx";
/// The SHA-256 of [`MODEL_FILE`], in hex: what arrives from the assets must be this file
/// (a missing asset would otherwise come back as the single-page app's index.html).
pub const MODEL_SHA256: &str = "6307f12c1a8a24cca4c845e4a128c30a255daf489fb99c0e09c6a9ab78254826";

/// The learned leaf scores the alpha-beta levels use at every leaf (`ai::leafnet`; which
/// level plays which: `ai::level::Level::leaf`), the `worker_leaf` entries of
/// models/manifest.json, shipped and checked like the model: leaf-v1 at levels 1-4.
pub const LEAF_V1_FILE: &str = "leaf-v1.bin";
/// The SHA-256 of [`LEAF_V1_FILE`], in hex.
pub const LEAF_V1_SHA256: &str = "3325491445b7d1accd5937c21906a2fe50b2f44978c4785e9dea2d3aa9fca91c";
/// leaf-v3, at levels 5-6.
pub const LEAF_V3_FILE: &str = "leaf-v3.bin";
/// The SHA-256 of [`LEAF_V3_FILE`], in hex.
pub const LEAF_V3_SHA256: &str = "b04e1ecd6bc48bea44d016ada4f5de65be8879e9d3e98a87c47abed997a7c063";
/// Every leaf file the module loads, with its hash.
pub const LEAF_FILES: [(&str, &str); 2] = [(LEAF_V1_FILE, LEAF_V1_SHA256), (LEAF_V3_FILE, LEAF_V3_SHA256)];

thread_local! {
    // wasm32 Workers are single-threaded: one network per isolate, set by `prepare`. A
    // failed load is not kept: the next AI move tries again.
    static NETWORK: OnceCell<Network> = const { OnceCell::new() };
    static LEAVES: OnceCell<Rc<Leaves>> = const { OnceCell::new() };
    // The benchmark's last fetched model (by name), so its rounds reuse the loaded plan.
    #[cfg(feature = "test-hooks")]
    static BENCH_NETWORK: RefCell<Option<(String, Network)>> = const { RefCell::new(None) };
}

/// The isolate's network and leaf scores, loaded by [`prepare`]: what the engines of
/// `service::net_ai` play with.
#[derive(Clone, Copy, Debug, Default)]
pub struct Isolate;

impl service::net_ai::Loaded for Isolate {
    fn network(&self) -> Option<Network> {
        NETWORK.with(|cell| cell.get().cloned())
    }

    fn leaves(&self) -> Option<Rc<Leaves>> {
        LEAVES.with(|cell| cell.get().cloned())
    }
}

/// Loads the isolate's network and leaf scores if they are not loaded yet: fetches
/// [`MODEL_FILE`] and the [`LEAF_FILES`] from the static assets, has the service check their
/// hashes and build them. Returns whether this call loaded anything. Called before a
/// request that may make an AI move: the search itself is synchronous and cannot wait for
/// a fetch.
pub async fn prepare(env: &worker::Env) -> Result<bool, ApiError> {
    let mut loaded = false;
    if NETWORK.with(|cell| cell.get().is_none()) {
        let bytes = fetch_asset(env, MODEL_FILE).await?;
        let net = service::net_ai::model(MODEL_FILE, &bytes, MODEL_SHA256)?;
        // Another request of this isolate may have loaded it meanwhile: either copy will do.
        NETWORK.with(|cell| {
            let _ = cell.set(net);
        });
        loaded = true;
    }
    if LEAVES.with(|cell| cell.get().is_none()) {
        // All of them or none: a level never finds its leaf score missing.
        let mut leaves = Leaves::none();
        for (file, sha256) in LEAF_FILES {
            let bytes = fetch_asset(env, file).await?;
            service::net_assets::load_leaf(&mut leaves, file, &bytes, sha256)?;
        }
        LEAVES.with(|cell| {
            let _ = cell.set(Rc::new(leaves));
        });
        loaded = true;
    }
    Ok(loaded)
}

/// One of the module's static assets (`public/models/`), unchecked.
async fn fetch_asset(env: &worker::Env, file: &str) -> Result<Vec<u8>, ApiError> {
    let assets = env.assets("ASSETS").map_err(|e| unavailable(format!("no ASSETS binding: {e}")))?;
    // Where the assets serve it (`public/models/`); an assets binding ignores the host.
    let url = format!("https://assets.local/models/{file}");
    let mut resp = assets.fetch(url, None).await.map_err(|e| unavailable(format!("{file}: {e}")))?;
    service::net_assets::answered(file, resp.status_code())?;
    resp.bytes().await.map_err(|e| unavailable(format!("{file}: {e}")))
}

/// The module's own tract checked against a trainer's reference outputs
/// (`service::net_ai::check_model`). No route calls it: it is an export of the module,
/// which `scripts/check-model.sh` runs in workerd.
#[wasm_bindgen::prelude::wasm_bindgen(js_name = checkModel)]
pub fn check_model(onnx: &[u8], reference: &str, name: &str) -> Result<String, String> {
    service::net_ai::check_model(onnx, reference, name)
}

/// `POST /api/ai/bench` (`service::net_bench`): loads what the request benchmarks (this
/// isolate's network and leaf scores, or a `model` from `AI_BENCH_MODELS`), then runs it.
/// A measuring route, not a product one: only in the test module (feature `test-hooks`).
#[cfg(feature = "test-hooks")]
pub async fn bench(body: &[u8], env: &worker::Env) -> Result<BenchAnswer, ApiError> {
    match net_bench::parse(body)? {
        Bench::Search { kind, level, position } => {
            let loaded_now = prepare(env).await?;
            let (net, leaves) = (service::net_ai::network(&Isolate)?, service::net_ai::leaves(&Isolate)?);
            // The level's own leaf score for the searches that are not the shipped AI's.
            let leaf = leaves.get(level.leaf).ok_or_else(service::net_assets::leaf_not_prepared)?;
            let ai = ai::shipped::ShippedAi::new(&net, &leaves);
            let shipped = |game: &engine::Game, seed: u64| {
                ai.choose(game, &level, seed).map(|c| c.work).map_err(service::net_assets::unavailable)
            };
            net_bench::search(kind, level, position, leaf, loaded_now, &shipped)
        }
        Bench::Evaluate { evaluations, session, model } => {
            let (net, loaded_now, model) = match model {
                None => {
                    let loaded_now = prepare(env).await?;
                    (service::net_ai::network(&Isolate)?, loaded_now, MODEL_FILE.to_string())
                }
                Some(name) => {
                    let (net, loaded_now) = bench_model(&name, env).await?;
                    (net, loaded_now, name)
                }
            };
            net_bench::evaluate(&net, model, loaded_now, evaluations, session)
        }
    }
}

/// The benchmark's `model`: fetched from `AI_BENCH_MODELS` and loaded once per isolate.
#[cfg(feature = "test-hooks")]
async fn bench_model(name: &str, env: &worker::Env) -> Result<(Network, bool), ApiError> {
    if let Some(net) =
        BENCH_NETWORK.with(|b| b.borrow().as_ref().filter(|(n, _)| n == name).map(|(_, net)| net.clone()))
    {
        return Ok((net, false));
    }
    let url = net_bench::model_url(env.var("AI_BENCH_MODELS").ok().map(|v| v.to_string()), name)?;
    let bad = |e: worker::Error| net_bench::fetch_failed(&url, e);
    let parsed = worker::Url::parse(&url).map_err(|e| net_bench::fetch_failed(&url, e))?;
    let mut resp = worker::Fetch::Url(parsed).send().await.map_err(bad)?;
    net_bench::fetched(&url, resp.status_code())?;
    let bytes = resp.bytes().await.map_err(bad)?;
    let net = net_bench::load_model(&bytes, name)?;
    BENCH_NETWORK.with(|b| *b.borrow_mut() = Some((name.to_string(), net.clone())));
    Ok((net, true))
}
