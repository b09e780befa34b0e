//! Test harness for the real runtime: starts runtimes with `wrangler dev`'s own dev
//! environment (workerd; in one Node process per test binary, tests/support/runtime-host.mjs)
//! with their own local Durable Object and D1 state, the D1 migrations applied, and speaks
//! HTTP and WebSocket to them. The runtimes end (and their state is removed) when the test
//! process ends.
//!
//! Each test binary shares one runtime ([`shared`]): starting one costs about a second,
//! so its tests isolate themselves instead (their own games, players, names, Discord
//! users), never relying on global state such as an empty leaderboard. A test starts a
//! fresh runtime ([`Server::start`]) only when it needs one: a restart, a fault injected,
//! limits of its own, or a property of the whole database (what a cron sweep deletes,
//! "no player was created").

// A test harness: a failed expectation panics in the test that called it, as the tests
// themselves do; its types are handles, not values to print.
#![allow(clippy::unwrap_used, missing_debug_implementations)]

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub mod discord;
pub mod openapi;
pub mod push;

/// The repository's root (this crate is tests/support/).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn path_env() -> String {
    let r = root();
    format!(
        "{}:{}:{}",
        r.join("node_modules/.bin").display(),
        r.join(".tools/bin").display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

fn wrangler(args: &[&str]) -> Command {
    let mut c = Command::new(root().join("node_modules/.bin/wrangler"));
    c.args(args)
        .current_dir(root())
        .env("PATH", path_env())
        .env("WRANGLER_SEND_METRICS", "false")
        .env("WRANGLER_SEND_ERROR_REPORTS", "false")
        .env("CLOUDFLARE_CF_FETCH_ENABLED", "false")
        .env("DO_NOT_TRACK", "1")
        .env("CI", "1");
    if let Some(config) = test_config() {
        c.args(["--config", &config]);
    }
    c
}

/// `IRON_ARENA_TEST_CONFIG=<wrangler.toml>`: run the tests on another configuration, e.g.
/// one whose assets point at a copy of `public/`, so that a rebuild meanwhile does not
/// change the assets a long test's runtime serves (the runtime host reads the same
/// variable; `wrangler d1` here gets it as `--config`). Its `main` is not used: the
/// module is [`module_dir`]'s.
fn test_config() -> Option<String> {
    std::env::var("IRON_ARENA_TEST_CONFIG").ok().filter(|c| !c.is_empty())
}

/// The module the suites run on: the test build with the fault switches (`FAULT_D1`,
/// `FAULT_PANIC`, `FAULT_REMATCH`), `scripts/build-worker.sh --test-hooks`, in
/// build/test-hooks/ (the deployed module, build/, does not carry them); or
/// `IRON_ARENA_TEST_MODULE=<dir>`, e.g. a copy of it.
pub fn module_dir() -> PathBuf {
    match std::env::var("IRON_ARENA_TEST_MODULE") {
        Ok(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => root().join("build/test-hooks"),
    }
}

/// `wrangler d1 execute DB --local` on a runtime's persisted state; panics on failure.
fn d1_execute(persist: &std::path::Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["d1", "execute", "DB", "--local", "--persist-to", persist.to_str().unwrap()];
    all.extend_from_slice(args);
    // The running runtime may hold the SQLite file for a moment (SQLITE_BUSY): retry.
    for _ in 0..20 {
        let out = wrangler(&all).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() && err.contains("SQLITE_BUSY") {
            std::thread::sleep(Duration::from_millis(250));
            continue;
        }
        assert!(out.status.success(), "d1 {args:?}: {err}");
        return out;
    }
    panic!("d1 {args:?}: the database stayed locked");
}

/// `wrangler d1 migrations apply DB --local` (migrations/, in order) on a state directory.
pub fn apply_migrations(persist: &std::path::Path) {
    let out =
        wrangler(&["d1", "migrations", "apply", "DB", "--local", "--persist-to", persist.to_str().unwrap()])
            .output()
            .unwrap();
    assert!(out.status.success(), "d1 migrations apply: {}", String::from_utf8_lossy(&out.stderr));
}

/// Fills `persist` (empty) with the state of a fresh runtime, the migrations applied: a copy
/// of a template made once (`tests/support/d1.py --fresh`, shared with the browser tests).
pub fn fresh_state(persist: &std::path::Path) {
    let mut c = Command::new("python3");
    c.arg(root().join("tests/support/d1.py")).arg("--fresh").arg(persist).current_dir(root());
    for (k, v) in wrangler(&[]).get_envs() {
        if let Some(v) = v {
            c.env(k, v);
        }
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "a fresh D1: {}", String::from_utf8_lossy(&out.stderr));
}

/// [`Server::d1`] on a state directory, with or without its runtime: the rows of the last
/// statement, read by `tests/support/d1.py` from the SQLite file.
pub fn d1_file(persist: &std::path::Path, sql: &str) -> Vec<Value> {
    let out = Command::new("python3")
        .arg(root().join("tests/support/d1.py"))
        .arg(persist)
        .arg(sql)
        .output()
        .unwrap();
    assert!(out.status.success(), "d1 {sql}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `wrangler d1 execute DB --local --json` on a state directory (no runtime needed).
pub fn d1_at(persist: &std::path::Path, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = d1_execute(persist, &all);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v[0]["results"].as_array().cloned().unwrap_or_default()
}

/// Calls `f` every 200 ms until it gives a value (a state the program exposes, never a
/// fixed sleep); panics, naming `what`, after `secs` seconds.
pub fn poll<T>(what: &str, secs: u64, f: impl FnMut() -> Option<T>) -> T {
    poll_every(Duration::from_millis(200), what, secs, f)
}

/// [`poll`] every `interval`: for a wait known to be long, where each try costs the runtime
/// a request's work (`reliability.rs`: the abandoned-games test took 27 CPU-s, then 18).
pub fn poll_every<T>(interval: Duration, what: &str, secs: u64, mut f: impl FnMut() -> Option<T>) -> T {
    let t = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(t.elapsed() < Duration::from_secs(secs), "timed out after {secs} s waiting for {what}");
        std::thread::sleep(interval);
    }
}

pub struct Server {
    pub base: String,
    pub persist: PathBuf,
    vars: Vec<(String, String)>,
    /// The static assets it serves instead of wrangler.toml's `public/` (`--assets`).
    assets: Option<PathBuf>,
    /// Its id in this process's runtime host, while it runs.
    runtime: Option<u64>,
}

/// This process's runtime host (`tests/support/runtime-host.mjs`, started by the first
/// runtime): one Node process loads wrangler once and runs every runtime of the test binary
/// with `wrangler dev`'s own dev environment. It ends, stopping its runtimes and removing
/// their state, when its stdin closes: when this process ends, however it ends.
struct Host {
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
    next: u64,
    log: PathBuf,
    _child: Child,
}

static HOST: std::sync::OnceLock<std::sync::Mutex<Host>> = std::sync::OnceLock::new();

/// The runtime host's command, its stdin and stdout piped, its stderr into `log` (which it
/// removes when it ends with its stdin).
pub fn runtime_host_command(log: &std::path::Path) -> Command {
    let mut c = Command::new("node");
    c.arg(root().join("tests/support/runtime-host.mjs"))
        .current_dir(root())
        .env("NODE_COMPILE_CACHE", root().join("target/node-compile-cache"))
        .env("RUNTIME_HOST_LOG", log)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).unwrap());
    for (k, v) in wrangler(&[]).get_envs() {
        if let Some(v) = v {
            c.env(k, v);
        }
    }
    c
}

fn start_host() -> Host {
    let log = std::env::temp_dir().join(format!("iron-arena-runtime-host-{}.log", std::process::id()));
    let mut child = runtime_host_command(&log).spawn().expect("starting node tests/support/runtime-host.mjs");
    Host {
        stdin: child.stdin.take().unwrap(),
        stdout: std::io::BufReader::new(child.stdout.take().unwrap()),
        next: 0,
        log,
        _child: child,
    }
}

/// Sends one request to the runtime host and returns its reply (with the request's `id`).
/// One request at a time: a start takes about a second.
fn try_host_call(mut req: Value) -> Result<Value, String> {
    use std::io::{BufRead, Write};
    let mut h =
        HOST.get_or_init(|| std::sync::Mutex::new(start_host())).lock().unwrap_or_else(|e| e.into_inner());
    h.next += 1;
    let id = h.next;
    req["id"] = json!(id);
    let host_log = |h: &Host| std::fs::read_to_string(&h.log).unwrap_or_default();
    writeln!(h.stdin, "{req}").map_err(|e| format!("the runtime host is gone ({e}): {}", host_log(&h)))?;
    loop {
        let mut line = String::new();
        if h.stdout.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
            return Err(format!("the runtime host ended: {}", host_log(&h)));
        }
        if let Ok(reply) = serde_json::from_str::<Value>(&line) {
            if reply["id"] == json!(id) {
                return Ok(reply);
            }
        }
    }
}

fn host_call(req: Value) -> Value {
    try_host_call(req).unwrap_or_else(|e| panic!("{e}"))
}

static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The AI seed every test runtime gets (`AI_SEED`): the AI's moves follow from it and the
/// game so far, so a test that plays the AI sees the same game on every run.
pub const AI_SEED: &str = "iron-arena-tests";

/// The address-hash key of shared runtimes, so a test can find the games created from an
/// address of its own (`CF-Connecting-IP`) with [`service::guard::keyed_hash`].
pub const IP_HASH_KEY: &str = "iron-arena-test-ip-key";

/// Vars of every test runtime; a test's own vars override them.
/// Every test comes from 127.0.0.1 (one address bucket) and makes guests freely: the
/// guest rate, the AI cost budget and the AI searches at once are lifted but in the tests
/// of them (`abuse.rs`).
const BASE_VARS: &[(&str, &str)] = &[
    ("AI_SEED", AI_SEED),
    ("LIMIT_GUESTS_PER_IP_PER_MINUTE", "1000000"),
    ("LIMIT_AI_COST_PER_IP_PER_MINUTE", "1000000"),
    ("LIMIT_AI_SEARCHES_PER_IP", "1000"),
];

/// Vars of shared runtimes: every test of a binary comes from 127.0.0.1, one address
/// bucket, so the per-address limits (tested on fresh runtimes of their own) are lifted.
const SHARED_VARS: &[(&str, &str)] = &[
    ("IP_HASH_KEY", IP_HASH_KEY),
    ("LIMIT_PER_IP_PER_MINUTE", "1000000"),
    ("LIMIT_PER_MINUTE", "1000000"),
    ("LIMIT_OPEN_GAMES_PER_CREATOR", "1000000"),
    ("LIMIT_OPEN_GAMES_PER_IP", "1000000"),
    ("LIMIT_JOINS_PER_IP_PER_MINUTE", "1000000"),
    ("LIMIT_AI_MOVES_PER_IP_PER_MINUTE", "1000000"),
    ("LIMIT_WS_PER_IP_PER_MINUTE", "1000000"),
    ("LIMIT_WS_PER_IP", "1000000"),
    ("LIMIT_WS_PER_IP_PER_GAME", "1000000"),
];

/// `base` with `over`'s values replacing those of the same names.
fn merge(base: &[(&str, &str)], over: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut all: Vec<(String, String)> = Vec::new();
    for (k, v) in base.iter().chain(over) {
        all.retain(|(name, _)| name != k);
        all.push((k.to_string(), v.to_string()));
    }
    all
}

static SHARED: std::sync::OnceLock<(Vec<(String, String)>, Server)> = std::sync::OnceLock::new();

/// This test binary's shared runtime, started by the first test that asks (with
/// [`SHARED_VARS`] and `vars`); it lives until the process ends (then the runtime host
/// stops it). Every call in a binary must pass the same `vars`.
pub fn shared(vars: &[(&str, &str)]) -> &'static Server {
    let (started_with, server) = SHARED.get_or_init(|| {
        let all = merge(SHARED_VARS, vars);
        let borrowed: Vec<(&str, &str)> = all.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        (merge(&[], vars), Server::start(&borrowed))
    });
    assert_eq!(started_with, &merge(&[], vars), "one shared runtime per binary: pass the same vars");
    server
}

impl Server {
    /// A fresh runtime with its own state; `vars` override wrangler.toml `[vars]` (and
    /// the harness's [`AI_SEED`]).
    pub fn start(vars: &[(&str, &str)]) -> Server {
        Server::start_with_assets(vars, None)
    }

    /// [`Server::start`], serving the static assets of `assets` (a copy of `public/` with
    /// something changed) when given.
    pub fn start_with_assets(vars: &[(&str, &str)], assets: Option<&std::path::Path>) -> Server {
        assert!(
            module_dir().join("worker/shim.mjs").exists(),
            "the test module is not built: run scripts/build-worker.sh --test-hooks \
             (scripts/runtime-tests.sh does)"
        );
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let persist = std::env::temp_dir().join(format!("iron-arena-test-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&persist);
        std::fs::create_dir_all(&persist).unwrap();
        fresh_state(&persist);
        let mut s = Server {
            base: String::new(),
            persist,
            vars: merge(BASE_VARS, vars),
            assets: assets.map(std::path::Path::to_path_buf),
            runtime: None,
        };
        s.launch();
        s
    }

    /// Starts the runtime on its state (in this process's runtime host) and waits until it
    /// answers.
    fn launch(&mut self) {
        let vars: serde_json::Map<String, Value> =
            self.vars.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        let r = host_call(json!({
            "op": "start",
            "persist": self.persist,
            "vars": vars,
            "assets": self.assets,
            "module": module_dir().join("worker/shim.mjs"),
        }));
        let (Some(url), Some(id)) = (r["url"].as_str(), r["id"].as_u64()) else {
            panic!("the runtime did not start: {}\n{}", r["error"].as_str().unwrap_or_default(), self.log());
        };
        self.base = url.to_owned();
        self.runtime = Some(id);
        // The runtime answers once workerd is up; its first request also loads the module.
        poll("the runtime to answer", 90, || {
            agent()
                .get(&format!("{}/api/health", self.base))
                .call()
                .ok()
                .filter(|r| r.status() == 200)
                .map(drop)
        });
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.persist.join("wrangler.log")).unwrap_or_default()
    }

    /// Stops the runtime (the whole process group) and waits for it.
    /// Kills the runtime's workerd (SIGKILL, as a crash would) and waits until it is gone;
    /// its state stays for a [`Server::restart`].
    pub fn stop(&mut self) {
        if let Some(id) = self.runtime.take() {
            let r = host_call(json!({ "op": "stop", "runtime": id }));
            assert_eq!(r["stopped"], true, "stopping the runtime: {r}");
        }
    }

    /// Sets (`Some`) or removes (`None`) a var for the next [`Server::restart`].
    pub fn set_var(&mut self, name: &str, value: Option<&str>) {
        self.vars.retain(|(k, _)| k != name);
        if let Some(v) = value {
            self.vars.push((name.to_owned(), v.to_owned()));
        }
    }

    /// Stops and starts again on the same persisted state (a new port).
    pub fn restart(&mut self) {
        self.stop();
        self.launch();
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn get(&self, path: &str) -> Reply {
        send("GET", &self.url(path), agent().get(&self.url(path)).call())
    }

    pub fn post(&self, path: &str, token: Option<&str>, body: &Value) -> Reply {
        self.post_raw(path, token, body.to_string().as_bytes())
    }

    pub fn post_raw(&self, path: &str, token: Option<&str>, body: &[u8]) -> Reply {
        let mut r = agent().post(&self.url(path)).header("Content-Type", "application/json");
        if let Some(t) = token {
            r = r.header("Authorization", &format!("Bearer {t}"));
        }
        send("POST", &self.url(path), r.send(body))
    }

    /// Runs SQL (statements applied together) against this runtime's local D1 (the real SQLite file, opened
    /// by `tests/support/d1.py`: milliseconds, where `wrangler d1 execute` costs 1.7 s of
    /// CPU); the rows of its last statement.
    pub fn d1(&self, sql: &str) -> Vec<Value> {
        d1_file(&self.persist, sql)
    }

    // --- game helpers ---

    pub fn create(&self, body: Value) -> Value {
        let r = self.post("/api/games", None, &body);
        assert_eq!(r.status, 201, "create: {}", r.text);
        r.json()
    }

    /// A link game joined by a second player: (id, south token, north token).
    pub fn link_game(&self, south: &str, north: &str, days: Option<u32>) -> (String, String, String) {
        let c = self.create(
            json!({"south": south, "north": north, "mode": "link", "seat": "south", "days_per_move": days}),
        );
        let id = c["id"].as_str().unwrap().to_owned();
        let invite = c["invite_url"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_owned();
        let j = self.post(&format!("/api/games/{id}/join"), None, &json!({ "invite": invite }));
        assert_eq!(j.status, 200, "join: {}", j.text);
        (id, c["token"].as_str().unwrap().to_owned(), j.json()["token"].as_str().unwrap().to_owned())
    }

    pub fn state(&self, id: &str) -> Value {
        let r = self.get(&format!("/api/games/{id}"));
        assert_eq!(r.status, 200, "state: {}", r.text);
        r.json()
    }

    /// Waits until game `id` owes D1 nothing (its state's `synced`): what it wrote in the
    /// request that changed it, or, when that write failed, its outbox's retry (set
    /// `D1_RETRY_SECONDS` low on a runtime where that can happen). Returns the state.
    pub fn synced(&self, id: &str) -> Value {
        poll(&format!("game {id} to owe D1 nothing"), 60, || {
            let st = self.state(id);
            (st["synced"] == true).then_some(st)
        })
    }

    pub fn play(&self, id: &str, token: &str, mv: &str, ply: u64) -> Reply {
        self.post(&format!("/api/games/{id}/moves"), Some(token), &json!({ "move": mv, "ply": ply }))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Never a panic here (a test may be unwinding already).
        if let Some(id) = self.runtime.take() {
            let _ = try_host_call(json!({ "op": "stop", "runtime": id }));
        }
        let _ = std::fs::remove_dir_all(&self.persist);
    }
}

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub text: String,
    pub retry_after: Option<String>,
    pub content_type: Option<String>,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }

    pub fn error(&self) -> String {
        self.json()["error"].as_str().unwrap_or_default().to_owned()
    }
}

fn send(method: &str, url: &str, r: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Reply {
    let mut r = r.unwrap();
    let header = |r: &ureq::http::Response<ureq::Body>, h: &str| {
        r.headers().get(h).and_then(|v| v.to_str().ok()).map(str::to_owned)
    };
    let retry_after = header(&r, "retry-after");
    let content_type = header(&r, "content-type");
    let reply = Reply {
        status: r.status().as_u16(),
        text: r.body_mut().read_to_string().unwrap_or_default(),
        retry_after,
        content_type,
    };
    openapi::check(method, url, reply.status, reply.content_type.as_deref(), &reply.text);
    reply
}

/// Sorted legal moves of a state.
pub fn legal(state: &Value) -> Vec<String> {
    state["legal_moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_owned()).collect()
}

/// The game a state answer describes, replayed from its start position and moves.
pub fn replay(state: &Value) -> engine::Game {
    let start = engine::iapn::parse(state["start"].as_str().unwrap()).unwrap();
    let mut g = engine::Game::new(start);
    for m in state["moves"].as_array().unwrap() {
        g.play(engine::Move::parse(m.as_str().unwrap()).unwrap()).unwrap();
    }
    g
}

/// Plays the human seat of a just-created `ai` game (its create answer) to the end with a
/// heuristic search of 600 evaluations seeded by the ply, so with the harness's `AI_SEED`
/// it is the same game every run; returns the last state (panics after 200 moves).
pub fn play_out(s: &Server, created: &Value) -> Value {
    let (id, token) = (created["id"].as_str().unwrap(), created["token"].as_str().unwrap());
    let mut state = created["state"].clone();
    for _ in 0..200 {
        if state["status"] == "finished" {
            return state;
        }
        let game = replay(&state);
        let history: Vec<u64> = game.history().iter().map(|p| p.hash()).collect();
        let ply = state["ply"].as_u64().unwrap();
        let cfg = ai::SearchConfig { evaluations: 600, seed: ply, ..ai::SearchConfig::default() };
        let mv = ai::search(game.position(), &history, &mut ai::Heuristic, &cfg).best.unwrap();
        let r = s.play(id, token, &mv.to_string(), ply);
        assert_eq!(r.status, 200, "{}", r.text);
        state = r.json()["state"].clone();
    }
    panic!("game {id} did not finish in 200 moves: {state}");
}
