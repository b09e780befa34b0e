//! The capacity model's measurements (`docs/capacity.md`): for each operation, what it
//! costs the platform, counted while the service's real code runs it natively.
//!
//! ```text
//! cargo run --release -p service --example capacity --features sqlite [-- --runs 21 --ai-runs 7]
//! ```
//!
//! Every request goes through `service::api::handle` (the Worker's areas) or, for a
//! game's own routes, through a copy of the router's forwarding (`src/router.rs`) into a
//! copy of the game's Durable Object (`src/game_object.rs`): `service::object::Object`
//! over the game's own storage (`service::local::LocalGameStore` on its own SQLite), its
//! owed writes (`service::object::write_owed`) and the index sync and notifications after
//! a change (`service::api::changed`) going to the D1 database, which is
//! `Sqlite::migrated()` (the real migrations). The limiters run
//! `service::local::limiter_call` over their own SQLite as `src/limiter.rs` does, and
//! the lobby reads its list as `src/lobby.rs` does.
//!
//! What is counted, per operation: Worker requests; Durable Object requests by class
//! (game, limiter, lobby) and incoming WebSocket messages; D1 statements (the delta of
//! `Sqlite::statements()`), its writes and the rows they changed (triggers included); the game
//! object's and the limiters' own storage statements; alarm calls; the state pushes to a
//! game's sockets. The time is the median wall time of the service's code natively
//! (`std::time::Instant`, this machine's CPU, not workerd's wasm), split by where it ran:
//! the Worker, the game object, the other objects, SQLite (D1's share runs in D1, not in
//! the Worker, on the platform).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

use engine::{Game, Move};
use serde_json::{json, Value};
use service::ai::{AlphaBetaAi, MctsAi, Opponent, PlaceholderAi};
use service::api::{self, Incoming};
use service::error::ApiError;
use service::game::{self, Ctx, Route};
use service::host::{self, Host, Namespace, Outgoing, Reply};
use service::http::{ApiRequest, ApiResponse, Method};
use service::local::{LocalGameStore, LocalSql};
use service::model::GameRecord;
use service::object::{self, Object, Owed, Runtime, StateMemory, WriteError};
use service::objects::{self as calls, Limiters, ALIASES_HEADER, LOBBY_CHANGED, PLAYER_HEADER};
use service::ports::paths;
use service::routes::{self, Area};
use service::sockets::SocketHost;
use service::sql::{Param, Row, Sql, Stmt, StoreResult};
use service::sqlite::{block_on, Sqlite};
use service::store::GameStore;
use service::tokens::Random;

const ORIGIN: &str = "https://arena.example";
/// The clock starts here and moves 61 s before every run, so no per-minute limit is hit.
const T0: i64 = 1_795_999_200_000;

// ---------------------------------------------------------------------------------------
// What is counted, and where the time goes

/// Counters over the whole run; an operation's cost is the difference across it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    worker: u32,
    game: u32,
    limiter: u32,
    lobby: u32,
    ws_in: u32,
    d1: u32,
    d1_writes: u32,
    d1_rows: u64,
    local: u32,
    local_writes: u32,
    limiter_sql: u32,
    limiter_writes: u32,
    alarms: u32,
    pushes: u32,
    lobby_pushes: u32,
}

impl Counts {
    fn minus(self, b: Counts) -> Counts {
        Counts {
            worker: self.worker - b.worker,
            game: self.game - b.game,
            limiter: self.limiter - b.limiter,
            lobby: self.lobby - b.lobby,
            ws_in: self.ws_in - b.ws_in,
            d1: self.d1 - b.d1,
            d1_writes: self.d1_writes - b.d1_writes,
            d1_rows: self.d1_rows - b.d1_rows,
            local: self.local - b.local,
            local_writes: self.local_writes - b.local_writes,
            limiter_sql: self.limiter_sql - b.limiter_sql,
            limiter_writes: self.limiter_writes - b.limiter_writes,
            alarms: self.alarms - b.alarms,
            pushes: self.pushes - b.pushes,
            lobby_pushes: self.lobby_pushes - b.lobby_pushes,
        }
    }
}

/// Where code runs: its own time is charged there (a nested call's time to the callee).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Worker = 0,
    Game = 1,
    OtherObject = 2,
    Sqlite = 3,
}

thread_local! {
    static COUNTS: Cell<Counts> = Cell::new(Counts::default());
    static STACK: RefCell<Vec<(Place, Instant)>> = const { RefCell::new(Vec::new()) };
    static SPENT: Cell<[Duration; 4]> = const { Cell::new([Duration::ZERO; 4]) };
    /// The statements run, while one operation is traced.
    static TRACE: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// Notes `sql` as run by `store`, if tracing.
fn trace(store: &str, sql: &str) {
    TRACE.with(|t| {
        if let Some(v) = t.borrow_mut().as_mut() {
            let flat: String = sql.split_whitespace().collect::<Vec<_>>().join(" ");
            let head: String = flat.chars().take(96).collect();
            let more = if flat.chars().count() > 96 { "…" } else { "" };
            v.push(format!("{store}: {head}{more}"));
        }
    });
}

fn tally(f: impl FnOnce(&mut Counts)) {
    COUNTS.with(|c| {
        let mut v = c.get();
        f(&mut v);
        c.set(v);
    });
}

fn counts() -> Counts {
    COUNTS.with(Cell::get)
}

fn spent() -> [Duration; 4] {
    SPENT.with(Cell::get)
}

fn charge(place: Place, d: Duration) {
    SPENT.with(|s| {
        let mut v = s.get();
        v[place as usize] += d;
        s.set(v);
    });
}

/// Time from now on is `place`'s until the guard drops.
struct Within;

fn within(place: Place) -> Within {
    let now = Instant::now();
    STACK.with(|s| {
        let mut s = s.borrow_mut();
        if let Some(top) = s.last_mut() {
            charge(top.0, now - top.1);
        }
        s.push((place, now));
    });
    Within
}

impl Drop for Within {
    fn drop(&mut self) {
        let now = Instant::now();
        STACK.with(|s| {
            let mut s = s.borrow_mut();
            if let Some((place, at)) = s.pop() {
                charge(place, now - at);
            }
            if let Some(top) = s.last_mut() {
                top.1 = now;
            }
        });
    }
}

fn is_write(sql: &str) -> bool {
    let head = sql.trim_start().get(..7).unwrap_or_default().to_ascii_uppercase();
    ["INSERT", "UPDATE", "DELETE", "REPLACE"].iter().any(|w| head.starts_with(w))
}

// ---------------------------------------------------------------------------------------
// The storage: D1, and each object's own

/// D1: the real migrations on SQLite, each statement counted.
struct D1(Sqlite);

impl D1 {
    /// Runs `sql` (one statement, or a batch) through `run`: the writes among them, and
    /// the rows they changed, the triggers' included (SQLite's `total_changes`).
    fn counted<T>(&self, sql: &[&str], run: impl FnOnce() -> StoreResult<T>) -> StoreResult<T> {
        let _t = within(Place::Sqlite);
        let before = self.0.conn().total_changes();
        let out = run();
        let changed = self.0.conn().total_changes() - before;
        for stmt in sql {
            trace(if sql.len() > 1 { "D1 (batch)" } else { "D1" }, stmt);
        }
        let writes = sql.iter().filter(|s| is_write(s)).count() as u32;
        tally(|c| {
            c.d1_writes += writes;
            c.d1_rows += changed;
        });
        out
    }
}

impl Sql for D1 {
    async fn all(&self, stmt: Stmt) -> StoreResult<Vec<Row>> {
        let sql = stmt.sql.to_string();
        self.counted(&[&sql], || block_on(Sql::all(&self.0, stmt)))
    }

    async fn run(&self, stmt: Stmt) -> StoreResult<u64> {
        let sql = stmt.sql.to_string();
        self.counted(&[&sql], || block_on(Sql::run(&self.0, stmt)))
    }

    async fn batch(&self, stmts: Vec<Stmt>) -> StoreResult<Vec<u64>> {
        let sql: Vec<String> = stmts.iter().map(|s| s.sql.to_string()).collect();
        let sql: Vec<&str> = sql.iter().map(String::as_str).collect();
        self.counted(&sql, || block_on(Sql::batch(&self.0, stmts)))
    }
}

/// An object's own SQLite storage (a game's, `limiter` false; a limiter's, true), each
/// statement counted.
struct Local {
    db: Sqlite,
    limiter: bool,
}

impl Local {
    fn new(limiter: bool) -> Local {
        Local { db: Sqlite::empty().expect("an object's storage"), limiter }
    }

    fn count(&self, sql: &str) -> Within {
        trace(if self.limiter { "limiter DO" } else { "game DO" }, sql);
        tally(|c| {
            if self.limiter {
                c.limiter_sql += 1;
                c.limiter_writes += u32::from(is_write(sql));
            } else {
                c.local += 1;
                c.local_writes += u32::from(is_write(sql));
            }
        });
        within(Place::Sqlite)
    }
}

impl LocalSql for Local {
    fn all(&self, sql: &str, params: Vec<Param>) -> StoreResult<Vec<Row>> {
        let _t = self.count(sql);
        LocalSql::all(&self.db, sql, params)
    }

    fn run(&self, sql: &str, params: Vec<Param>) -> StoreResult<()> {
        let _t = self.count(sql);
        LocalSql::run(&self.db, sql, params)
    }
}

// ---------------------------------------------------------------------------------------
// The platform

/// xorshift64*: the platform's randomness, seeded (ids, tokens, search seeds).
struct Rng(u64);

impl Random for Rng {
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), ApiError> {
        for chunk in buf.chunks_mut(8) {
            let mut x = self.0;
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            self.0 = x;
            chunk.copy_from_slice(&x.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes()[..chunk.len()]);
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    Random,
    Mcts,
    Hybrid,
}

/// One game's Durable Object: its storage and its state message between events.
struct GameDo {
    storage: Local,
    memory: RefCell<StateMemory>,
}

struct Bench {
    d1: D1,
    vars: BTreeMap<&'static str, String>,
    rng: RefCell<Rng>,
    seeds: Cell<u64>,
    now: Cell<i64>,
    ips: Cell<u32>,
    engine: Cell<Engine>,
    games: RefCell<BTreeMap<String, Rc<GameDo>>>,
    limiters: RefCell<BTreeMap<String, Rc<Local>>>,
    /// When each limiter's forget alarm fires (src/limiter.rs sets one only when none is
    /// pending; a fired one found nothing left to count and forgot the bucket).
    limiter_alarms: RefCell<BTreeMap<String, i64>>,
    lobby: RefCell<service::lobby::Reads>,
    log: RefCell<Vec<String>>,
}

impl Bench {
    fn new(vars: &[(&'static str, &str)]) -> Bench {
        Bench {
            d1: D1(Sqlite::migrated().expect("the migrations apply")),
            vars: [("IP_HASH_KEY", "capacity")]
                .iter()
                .chain(vars)
                .map(|(k, v)| (*k, (*v).to_owned()))
                .collect(),
            rng: RefCell::new(Rng(0x5eed)),
            seeds: Cell::new(1),
            now: Cell::new(T0),
            ips: Cell::new(0),
            engine: Cell::new(Engine::Random),
            games: RefCell::default(),
            limiters: RefCell::default(),
            limiter_alarms: RefCell::default(),
            lobby: RefCell::default(),
            log: RefCell::default(),
        }
    }

    /// A fresh client address (each its own rate buckets).
    fn ip(&self) -> String {
        let n = self.ips.get() + 1;
        self.ips.set(n);
        format!("10.{}.{}.{}", (n >> 16) & 255, (n >> 8) & 255, n & 255)
    }

    fn tick(&self) {
        self.now.set(self.now.get() + 61_000);
    }

    fn object_of(&self, id: &str) -> Rc<GameDo> {
        let mut games = self.games.borrow_mut();
        let made = || GameDo { storage: Local::new(false), memory: RefCell::default() };
        games.entry(id.to_owned()).or_insert_with(|| Rc::new(made())).clone()
    }

    fn record(&self, id: &str) -> GameRecord {
        let obj = self.object_of(id);
        let rec = LocalGameStore(&obj.storage).load().expect("the record loads");
        rec.expect("the game exists")
    }

    fn opponent(&self) -> Box<dyn Opponent> {
        match self.engine.get() {
            Engine::Random => Box::new(PlaceholderAi),
            Engine::Mcts => Box::new(MctsAi),
            Engine::Hybrid => Box::new(AlphaBetaAi),
        }
    }

    // ---- the Worker

    /// A request as the Worker's fetch handler takes it (`src/router.rs`).
    fn send(&self, mut req: Req) -> (u16, Value) {
        tally(|c| c.worker += 1);
        let _t = within(Place::Worker);
        if let Err(e) = host::check_configured(self, "arena.example") {
            return reply(&ApiResponse::error(&e));
        }
        let area = match routes::area(req.method, &req.path) {
            Ok(a) => a,
            Err(e) => return reply(&ApiResponse::error(&e)),
        };
        if area == Area::Game {
            let (status, text) = block_on(self.forward(&mut req));
            return (status, serde_json::from_str(&text).unwrap_or(Value::String(text)));
        }
        let answer = block_on(api::handle(self, area, &mut req));
        let (status, mut body) = reply(&answer.response);
        if let (Some(cookie), Value::Object(map)) = (answer.cookies.first(), &mut body) {
            let pair = cookie.split(';').next().unwrap_or_default().to_owned();
            map.insert("_cookie".into(), Value::String(pair));
        }
        (status, body)
    }

    /// `src/router.rs`'s `forward`: the route's limits, the session's player, then the
    /// game's object.
    async fn forward(&self, req: &mut Req) -> (u16, String) {
        let p = req.path.clone();
        let id = p["/api/games/".len()..].split('/').next().unwrap_or_default().to_owned();
        if let Err(e) = api::route_limits(self, req, &p).await {
            return text(&ApiResponse::error(&e));
        }
        let player = match api::forwarded(self, req, p.ends_with("/join")).await {
            Ok(p) => p,
            Err(e) => return text(&ApiResponse::error(&e)),
        };
        let mut headers: Vec<(&str, String)> = req
            .headers
            .iter()
            .filter(|(k, _)| {
                !k.eq_ignore_ascii_case(PLAYER_HEADER) && !k.eq_ignore_ascii_case(ALIASES_HEADER)
            })
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        if let Some((player, aliases)) = player {
            headers.push((PLAYER_HEADER, calls::player_header_value(&player)));
            headers.push((ALIASES_HEADER, aliases.join(",")));
        }
        let body = req.body.take().unwrap_or_default();
        self.game_fetch(&id, req.method, &p, body, &headers).await
    }

    // ---- the game's Durable Object (`src/game_object.rs`)

    async fn game_fetch(
        &self,
        id: &str,
        method: Method,
        path: &str,
        body: Vec<u8>,
        headers: &[(&str, String)],
    ) -> (u16, String) {
        tally(|c| c.game += 1);
        let _t = within(Place::Game);
        let obj = self.object_of(id);
        obj.memory.borrow_mut().begin();
        let served = self.serve(&obj, id, method, path, body, headers).await;
        obj.memory.borrow_mut().end();
        text(&served.unwrap_or_else(|e| ApiResponse::error(&e)))
    }

    async fn serve(
        &self,
        obj: &GameDo,
        id: &str,
        method: Method,
        path: &str,
        body: Vec<u8>,
        headers: &[(&str, String)],
    ) -> Result<ApiResponse, ApiError> {
        let rt = Rt { bench: self, game: obj };
        let settings = host::settings(self);
        let now = self.now_ms();
        let mut store = LocalGameStore(&obj.storage);
        if path == paths::WAKE {
            let mut o = Object { store: &mut store, runtime: &rt, owed: &rt, timers: settings.timers, now };
            return Ok(o.wake().await);
        }
        let header =
            |name: &str| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str());
        let bearer = service::http::bearer(header("Authorization"));
        if !path.starts_with("/_internal/") {
            let credential = bearer.is_some() || header(PLAYER_HEADER).is_some();
            service::admission::precheck(method, path, credential)?;
        }
        let mut api =
            ApiRequest { method, path: path.to_owned(), bearer, body, origin: ORIGIN.into(), player: None };
        let call = object::internal(&api.path, &api.body)?;
        // As the object does before a move: whether the network must be loaded (a read).
        let stored_mode = || store.load().ok().flatten().map(|r| r.mode);
        let _ = object::may_move_ai(call.as_ref(), api.method, &api.path, stored_mode);
        let (mut rng, mut ai) = (self.object_rng(), self.opponent());
        let mut ctx = Ctx { now, rng: &mut rng, ai: ai.as_mut(), day_ms: settings.day_ms };
        if let Some(call) = call {
            let mut o = Object { store: &mut store, runtime: &rt, owed: &rt, timers: settings.timers, now };
            return Ok(o.internal(call, &mut ctx).await);
        }
        api.player = calls::forwarded_player(header(PLAYER_HEADER));
        api::resolve_alias(&mut api.player, header(ALIASES_HEADER), &store);
        let (_, route) = game::route(api.method, &api.path)?;
        let incoming = Req { method, path: path.to_owned(), headers: owned(headers), body: None };
        let handled = match route {
            Route::WebSocket => {
                // The upgrade (`upgrade`: `service::sockets::admit`), less the socket
                // itself: the game's existence, the address bucket's lease on one more open
                // socket, the accept and the first state message, each counted.
                let ip_key = api::ip_key(self, &incoming);
                let sockets = BenchSockets { bench: self, game: id };
                service::sockets::admit(&sockets, &store, &ip_key, &settings.limits, &mut rng).await?;
                return Ok(ApiResponse::text(101, String::new()));
            }
            Route::Rematch => return Err(ApiError::internal("rematches are not measured here")),
            // A move in an AI game: metered, and searched under a lease (`api::ai_move`).
            Route::Moves => {
                let rec = store.load().ok().flatten();
                api::ai_move(self, &incoming, rec.as_ref(), || {
                    game::handle(&mut store, route, &api, &mut ctx)
                })
                .await?
            }
            _ => game::handle(&mut store, route, &api, &mut ctx),
        };
        let mut o = Object { store: &mut store, runtime: &rt, owed: &rt, timers: settings.timers, now };
        Ok(o.after(handled).await)
    }

    /// A socket's `state` frame (`websocket_message`): from memory between events, else
    /// from storage.
    fn state_frame(&self, id: &str) -> bool {
        tally(|c| c.ws_in += 1);
        let _t = within(Place::Game);
        let obj = self.object_of(id);
        let kept = obj.memory.borrow().get().map(str::to_owned);
        let msg = kept.or_else(|| {
            let msg = object::state_message(&LocalGameStore(&obj.storage).load().ok().flatten()?)?;
            obj.memory.borrow_mut().keep(&msg);
            Some(msg)
        });
        msg.is_some()
    }

    fn object_rng(&self) -> Rng {
        let n = self.seeds.get() + 1;
        self.seeds.set(n);
        Rng(0x9e37_79b9_7f4a_7c15 ^ n.wrapping_mul(0x2545_f491_4f6c_dd1d))
    }

    // ---- the lobby (`src/lobby.rs`)

    async fn lobby_message(&self, seq: u64) -> Result<String, ApiError> {
        let now = self.now_ms();
        let challenges = service::sagas::challenges::list(self.db(), now).await?;
        let until = challenges.iter().map(|c| c.expires_at).fold(now + 60_000, i64::min);
        let msg = serde_json::to_string(&service::challenge::ChallengesMessage { challenges })
            .map_err(|e| ApiError::internal(e.to_string()))?;
        self.lobby.borrow_mut().remember(seq, &msg, until);
        Ok(msg)
    }

    /// A change announced: the list read and pushed to every socket.
    async fn lobby_changed(&self) -> (u16, String) {
        let seq = self.lobby.borrow_mut().begin_push();
        match self.lobby_message(seq).await {
            Ok(_) => {
                if self.lobby.borrow_mut().end_push(seq) == service::lobby::Deliver::All {
                    tally(|c| c.lobby_pushes += 1);
                }
                (200, String::new())
            }
            Err(e) => {
                self.lobby.borrow_mut().abandon_push(seq);
                text(&ApiResponse::error(&e))
            }
        }
    }

    /// A socket's `list` frame: from memory while no change was announced, else from D1.
    fn list_frame(&self) {
        tally(|c| c.ws_in += 1);
        let _t = within(Place::OtherObject);
        if self.lobby.borrow().cached(self.now_ms()).is_some() {
            return;
        }
        let seq = self.lobby.borrow_mut().begin_one();
        let _ = block_on(self.lobby_message(seq));
        let _ = self.lobby.borrow_mut().end_one(seq);
    }
}

/// The game object's sockets at an upgrade (`src/game_object.rs`'s): none open before, the
/// lease taken from the address bucket's limiter, the accepted socket's first message a push.
struct BenchSockets<'a> {
    bench: &'a Bench,
    game: &'a str,
}

impl SocketHost for BenchSockets<'_> {
    type Socket = ();

    fn open(&self, _tag: &str) -> (usize, usize) {
        (0, 0)
    }

    async fn lease(&self, tag: &str, have: u32, cap: u32) -> Result<(), ApiError> {
        Limiters(self.bench).ws_acquire(tag, self.game, have, cap).await
    }

    async fn unlease(&self, tag: &str, have: u32) {
        Limiters(self.bench).ws_report(tag, self.game, have).await;
    }

    fn accept(&self, _tags: &[&str]) -> Result<(), ApiError> {
        Ok(())
    }

    fn send(&self, _socket: &(), _msg: &str) {
        tally(|c| c.pushes += 1);
    }
}

/// The game object's runtime: its alarm, its sockets, D1 after a change, its owed writes.
struct Rt<'a> {
    bench: &'a Bench,
    game: &'a GameDo,
}

impl Runtime for Rt<'_> {
    async fn set_alarm(&self, _at: Option<i64>) {
        tally(|c| c.alarms += 1);
    }

    fn broadcast(&self, _msg: &str) {
        tally(|c| c.pushes += 1);
    }

    async fn changed(&self, rec: &GameRecord, indexed: bool) {
        let notices = api::changed(self.bench, &self.game.storage, rec, indexed).await;
        service::notify::send_all(self.bench, &notices, &rec.id).await;
    }

    fn log(&self, line: &str) {
        self.bench.log.borrow_mut().push(line.to_owned());
    }
}

impl Owed for Rt<'_> {
    async fn write(&self, rec: &GameRecord, ip_hash: Option<&str>) -> Result<(), WriteError> {
        object::write_owed(self.bench.db(), rec, ip_hash, self.bench.now_ms()).await?;
        Ok(())
    }
}

impl Host for Bench {
    type Db = D1;

    fn db(&self) -> &D1 {
        &self.d1
    }

    fn var(&self, name: &str) -> Option<String> {
        self.vars.get(name).cloned()
    }

    fn now_ms(&self) -> i64 {
        self.now.get()
    }

    fn random(&self, buf: &mut [u8]) -> Result<(), ApiError> {
        self.rng.borrow_mut().fill(buf)
    }

    fn log(&self, line: &str) {
        self.log.borrow_mut().push(line.to_owned());
    }

    async fn object(
        &self,
        ns: Namespace,
        name: &str,
        path: &str,
        body: String,
        headers: &[(&str, String)],
    ) -> Result<(u16, String), String> {
        match ns {
            // Driven to its end here (the Worker awaits a stub's fetch): a game's object
            // calls limiters through this method in turn.
            Namespace::Games => {
                Ok(block_on(Box::pin(self.game_fetch(name, Method::Post, path, body.into_bytes(), headers))))
            }
            Namespace::Limiter => {
                tally(|c| c.limiter += 1);
                let _t = within(Place::OtherObject);
                let now = self.now_ms();
                // A pending alarm that has come due fired: it found nothing still counting
                // (every call here is at least a window after the last one of the bucket's
                // earlier operations) and forgot the bucket.
                if self.limiter_alarms.borrow().get(name).is_some_and(|&at| at <= now) {
                    self.limiter_alarms.borrow_mut().remove(name);
                    self.limiters.borrow_mut().remove(name);
                }
                let db = {
                    let mut limiters = self.limiters.borrow_mut();
                    limiters.entry(name.to_owned()).or_insert_with(|| Rc::new(Local::new(true))).clone()
                };
                let (p, q) = path.split_once('?').map_or((path, None), |(p, q)| (p, Some(q)));
                let decided = service::local::limiter_call(&*db, p, q, now);
                match decided {
                    Ok((d, forget_in_ms)) => {
                        // The forget alarm, set only when none is pending (src/limiter.rs).
                        if !self.limiter_alarms.borrow().contains_key(name) {
                            tally(|c| c.alarms += 1);
                            self.limiter_alarms.borrow_mut().insert(name.to_owned(), now + forget_in_ms);
                        }
                        Ok((200, serde_json::to_string(&d).map_err(|e| e.to_string())?))
                    }
                    Err(e) => Ok((e.status(), e.to_string())),
                }
            }
            Namespace::Lobby => {
                tally(|c| c.lobby += 1);
                let _t = within(Place::OtherObject);
                if path == LOBBY_CHANGED {
                    Ok(self.lobby_changed().await)
                } else {
                    Ok((404, String::new()))
                }
            }
        }
    }

    async fn fetch(&self, _req: Outgoing) -> Result<Reply, String> {
        // Discord and push services: a DM channel answer, nothing sent anywhere.
        Ok((200, br#"{"id":"1"}"#.to_vec()))
    }
}

fn owned(headers: &[(&str, String)]) -> Vec<(&'static str, String)> {
    headers
        .iter()
        .filter_map(|(k, v)| {
            ["CF-Connecting-IP", "Authorization", "Cookie"]
                .into_iter()
                .find(|n| n.eq_ignore_ascii_case(k))
                .map(|n| (n, v.clone()))
        })
        .collect()
}

fn text(r: &ApiResponse) -> (u16, String) {
    (r.status, r.content().1.into_owned())
}

fn reply(r: &ApiResponse) -> (u16, Value) {
    let (status, body) = text(r);
    (status, serde_json::from_str(&body).unwrap_or(Value::String(body)))
}

/// A request as a browser sends it.
struct Req {
    method: Method,
    path: String,
    headers: Vec<(&'static str, String)>,
    body: Option<Vec<u8>>,
}

impl Req {
    fn new(method: Method, path: &str, ip: &str) -> Req {
        Req { method, path: path.into(), headers: vec![("CF-Connecting-IP", ip.to_owned())], body: None }
    }

    fn get(path: &str, ip: &str) -> Req {
        Req::new(Method::Get, path, ip)
    }

    fn post(path: &str, ip: &str, body: &Value) -> Req {
        Req { body: Some(body.to_string().into_bytes()), ..Req::new(Method::Post, path, ip) }
    }

    fn with(mut self, name: &'static str, value: &str) -> Req {
        self.headers.push((name, value.to_owned()));
        self
    }

    fn cookie(self, cookie: &str) -> Req {
        self.with("Cookie", cookie)
    }

    fn token(self, token: &str) -> Req {
        self.with("Authorization", &format!("Bearer {token}"))
    }
}

impl Incoming for Req {
    fn method(&self) -> Method {
        self.method
    }

    fn path(&self) -> String {
        self.path.clone()
    }

    fn query(&self) -> String {
        String::new()
    }

    fn origin(&self) -> Result<String, ApiError> {
        Ok(ORIGIN.into())
    }

    fn header(&self, name: &str) -> Option<String> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone())
    }

    async fn body(&mut self) -> Result<Vec<u8>, ApiError> {
        Ok(self.body.take().unwrap_or_default())
    }
}

// ---------------------------------------------------------------------------------------
// Arranging games through the API (not measured)

fn ok(what: &str, (status, body): (u16, Value), want: u16) -> Value {
    assert_eq!(status, want, "{what}: {body}");
    body
}

fn str_of(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap_or_else(|| panic!("no {key} in {v}")).to_owned()
}

/// A link game between two guests, joined.
struct Live {
    id: String,
    /// South's and North's seat tokens.
    tokens: [String; 2],
}

impl Bench {
    fn guest(&self) -> String {
        let body = ok("a guest", self.send(Req::post("/api/me", &self.ip(), &json!({}))), 200);
        str_of(&body, "_cookie")
    }

    fn player_id(&self, cookie: &str) -> String {
        str_of(&ok("me", self.send(Req::get("/api/me", &self.ip()).cookie(cookie)), 200), "id")
    }

    fn create(&self, cookie: &str, spec: &Value) -> Value {
        ok("a creation", self.send(Req::post("/api/games", &self.ip(), spec).cookie(cookie)), 201)
    }

    fn link(&self, days: Option<u32>, rated: bool) -> Live {
        let (a, b) = (self.guest(), self.guest());
        if rated {
            for (n, c) in [&a, &b].into_iter().enumerate() {
                let id = self.player_id(c);
                let discord = format!("{}{n}", self.seeds.get());
                self.d1
                    .0
                    .conn()
                    .execute("UPDATE players SET discord_id = ?1 WHERE id = ?2", [discord, id])
                    .expect("a Discord link");
            }
        }
        let spec = json!({ "south": "clockwork", "north": "blades", "mode": "link", "seat": "south",
                           "days_per_move": days, "rated": rated });
        let made = self.create(&a, &spec);
        let id = str_of(&made, "id");
        let url = str_of(&made, "invite_url");
        let invite = url.split("#invite=").nth(1).expect("an invite").to_owned();
        let path = format!("/api/games/{id}/join");
        let joined = ok(
            "a join",
            self.send(Req::post(&path, &self.ip(), &json!({ "invite": invite })).cookie(&b)),
            200,
        );
        Live { id, tokens: [str_of(&made, "token"), str_of(&joined, "token")] }
    }

    fn game_now(&self, id: &str) -> Game {
        self.record(id).replay().expect("the game replays")
    }

    /// The `k`-th legal move that does not end the game (or any, if all do).
    fn quiet_move(&self, game: &Game, k: usize) -> Move {
        let moves = game.legal_moves();
        let quiet: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|m| {
                let mut g = game.clone();
                matches!(g.play(*m), Ok(None))
            })
            .collect();
        let pool = if quiet.is_empty() { &moves } else { &quiet };
        pool[k % pool.len()]
    }

    fn move_req(&self, g: &Live, mv: Move, ply: u16) -> Req {
        let side = usize::from(ply % 2);
        let body = json!({ "move": mv.to_string(), "ply": ply });
        Req::post(&format!("/api/games/{}/moves", g.id), &self.ip(), &body).token(&g.tokens[side])
    }

    /// Plays `plies` quiet moves in a live link game.
    fn play(&self, g: &Live, plies: u16) {
        for _ in 0..plies {
            let game = self.game_now(&g.id);
            let ply = game.position().ply();
            let mv = self.quiet_move(&game, usize::from(ply) * 7 + 3);
            ok("a move", self.send(self.move_req(g, mv, ply)), 200);
        }
    }

    /// Plays until some move would end the game: that move, and its ply.
    fn to_the_end(&self, g: &Live) -> (Move, u16) {
        loop {
            let game = self.game_now(&g.id);
            let ply = game.position().ply();
            let ending = game.legal_moves().into_iter().find(|m| {
                let mut c = game.clone();
                matches!(c.play(*m), Ok(Some(_)))
            });
            if let Some(mv) = ending {
                return (mv, ply);
            }
            let mv = self.quiet_move(&game, usize::from(ply) * 5 + 1);
            ok("a move", self.send(self.move_req(g, mv, ply)), 200);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Measuring

struct Measured {
    name: String,
    counts: Counts,
    /// Medians, ms: Worker, game object, other objects, SQLite, total.
    ms: [f64; 5],
    runs: usize,
    varied: bool,
    /// The statements of the last run.
    trace: Vec<String>,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Runs `op` `runs` times, each after its own `setup` (neither counted nor timed).
fn measure<S>(
    b: &Bench,
    name: &str,
    runs: usize,
    mut setup: impl FnMut(&Bench) -> S,
    mut op: impl FnMut(&Bench, S),
) -> Measured {
    let mut times: [Vec<f64>; 5] = Default::default();
    let mut seen: Option<Counts> = None;
    let mut varied = false;
    let mut traced = Vec::new();
    for run in 0..runs {
        b.tick();
        let s = setup(b);
        if run + 1 == runs {
            TRACE.with(|t| *t.borrow_mut() = Some(Vec::new()));
        }
        let (c0, t0, d0) = (counts(), spent(), b.d1.0.statements());
        let start = Instant::now();
        op(b, s);
        let total = start.elapsed();
        if let Some(t) = TRACE.with(|t| t.borrow_mut().take()) {
            traced = t;
        }
        let c = counts().minus(c0);
        let statements = (b.d1.0.statements() - d0) as u32;
        let c = Counts { d1: statements, ..c };
        let t = spent();
        for (i, slot) in times.iter_mut().take(4).enumerate() {
            slot.push((t[i] - t0[i]).as_secs_f64() * 1e3);
        }
        times[4].push(total.as_secs_f64() * 1e3);
        match seen {
            Some(s) if s != c => varied = true,
            _ => {}
        }
        seen = Some(c);
    }
    let ms = times.map(median);
    Measured { name: name.to_owned(), counts: seen.unwrap_or_default(), ms, runs, varied, trace: traced }
}

fn want(status: u16) -> impl Fn((u16, Value)) {
    move |(got, body)| assert_eq!(got, status, "{body}")
}

fn operations(b: &Bench, runs: usize, ai_runs: usize) -> Vec<Measured> {
    let mut out = Vec::new();
    out.push(measure(
        b,
        "new guest (POST /api/me: a player and its session)",
        runs,
        |_| (),
        |b, ()| {
            want(200)(b.send(Req::post("/api/me", &b.ip(), &json!({}))));
        },
    ));
    let link_spec = json!({ "south": "clockwork", "north": "blades", "mode": "link", "seat": "south" });
    out.push(measure(
        b,
        "create: link game",
        runs,
        |b| b.guest(),
        |b, cookie| {
            want(201)(b.send(Req::post("/api/games", &b.ip(), &link_spec).cookie(&cookie)));
        },
    ));
    let ai_spec = json!({ "south": "axiom", "north": "blades", "mode": "ai", "seat": "south", "level": 4 });
    out.push(measure(
        b,
        "create: AI game (creator South, the AI waits)",
        runs,
        |b| b.guest(),
        |b, cookie| {
            want(201)(b.send(Req::post("/api/games", &b.ip(), &ai_spec).cookie(&cookie)));
        },
    ));
    out.push(measure(
        b,
        "join a link game",
        runs,
        |b| {
            let made = b.create(&b.guest(), &link_spec);
            let url = str_of(&made, "invite_url");
            let invite = url.split("#invite=").nth(1).expect("an invite").to_owned();
            (str_of(&made, "id"), invite, b.guest())
        },
        |b, (id, invite, cookie)| {
            let req = Req::post(&format!("/api/games/{id}/join"), &b.ip(), &json!({ "invite": invite }));
            want(200)(b.send(req.cookie(&cookie)));
        },
    ));
    for (name, days, plies) in [
        ("human move, live link game, ply 1", None, 0),
        ("human move, live link game, ply 41", None, 40),
        ("human move, correspondence game (3 days), ply 41", Some(3), 40),
    ] {
        out.push(measure(
            b,
            name,
            runs,
            |b| {
                let g = b.link(days, false);
                b.play(&g, plies);
                let game = b.game_now(&g.id);
                let mv = b.quiet_move(&game, 11);
                b.move_req(&g, mv, game.position().ply())
            },
            |b, req| want(200)(b.send(req)),
        ));
    }
    out.push(measure(
        b,
        "draw offer, live link game",
        runs,
        |b| {
            let g = b.link(None, false);
            b.play(&g, 4);
            let body = json!({ "action": "offer" });
            Req::post(&format!("/api/games/{}/draw", g.id), &b.ip(), &body).token(&g.tokens[0])
        },
        |b, req| want(200)(b.send(req)),
    ));
    out.push(measure(
        b,
        "finishing move, live link game (ends it by the rules)",
        runs,
        |b| {
            let g = b.link(None, false);
            let (mv, ply) = b.to_the_end(&g);
            b.move_req(&g, mv, ply)
        },
        |b, req| want(200)(b.send(req)),
    ));
    for (name, rated) in [("resign, link game, ply 10", false), ("resign, rated link game, ply 10", true)] {
        out.push(measure(
            b,
            name,
            runs,
            |b| {
                let g = b.link(None, rated);
                b.play(&g, 10);
                Req::post(&format!("/api/games/{}/resign", g.id), &b.ip(), &json!({})).token(&g.tokens[0])
            },
            |b, req| want(200)(b.send(req)),
        ));
    }
    out.push(measure(
        b,
        "resign, AI game",
        runs,
        |b| {
            let made = b.create(&b.guest(), &ai_spec);
            let path = format!("/api/games/{}/resign", str_of(&made, "id"));
            Req::post(&path, &b.ip(), &json!({})).token(&str_of(&made, "token"))
        },
        |b, req| want(200)(b.send(req)),
    ));
    for engine in [Engine::Mcts, Engine::Hybrid] {
        for level in 1..=6u8 {
            let label = match engine {
                Engine::Mcts => "mcts-heuristic",
                Engine::Hybrid => "alphabeta-heuristic",
                Engine::Random => "placeholder-random",
            };
            let spec =
                json!({ "south": "axiom", "north": "blades", "mode": "ai", "seat": "south", "level": level });
            let mut k = 0;
            let name = format!("AI move, level {level} ({label}): a move and the reply, ply 1");
            out.push(measure(
                b,
                &name,
                ai_runs,
                |b| {
                    let made = b.create(&b.guest(), &spec);
                    let id = str_of(&made, "id");
                    k += 1;
                    let mv = b.quiet_move(&b.game_now(&id), k * 3);
                    let body = json!({ "move": mv.to_string(), "ply": 0 });
                    b.engine.set(engine);
                    Req::post(&format!("/api/games/{id}/moves"), &b.ip(), &body)
                        .token(&str_of(&made, "token"))
                },
                |b, req| want(200)(b.send(req)),
            ));
            b.engine.set(Engine::Random);
        }
    }
    // A player with ten unfinished link games, each joined.
    let mine = b.guest();
    for _ in 0..10 {
        let made = b.create(&mine, &link_spec);
        let invite = str_of(&made, "invite_url").split("#invite=").nth(1).expect("an invite").to_owned();
        let path = format!("/api/games/{}/join", str_of(&made, "id"));
        ok("a join", b.send(Req::post(&path, &b.ip(), &json!({ "invite": invite })).cookie(&b.guest())), 200);
    }
    out.push(measure(
        b,
        "My games: 10 unfinished link games",
        runs,
        |_| (),
        |b, ()| {
            want(200)(b.send(Req::get("/api/me/games", &b.ip()).cookie(&mine)));
        },
    ));
    // A player with 20 finished games (Player Info reads its counters and one page of them).
    let veteran = b.guest();
    for n in 0..20 {
        b.tick();
        let made = b.create(&veteran, &link_spec);
        let id = str_of(&made, "id");
        let invite = str_of(&made, "invite_url").split("#invite=").nth(1).expect("an invite").to_owned();
        let path = format!("/api/games/{id}/join");
        let joined = ok(
            "a join",
            b.send(Req::post(&path, &b.ip(), &json!({ "invite": invite })).cookie(&b.guest())),
            200,
        );
        let g = Live { id, tokens: [str_of(&made, "token"), str_of(&joined, "token")] };
        b.play(&g, 2);
        let side = n % 2;
        ok(
            "a resignation",
            b.send(
                Req::post(&format!("/api/games/{}/resign", g.id), &b.ip(), &json!({})).token(&g.tokens[side]),
            ),
            200,
        );
    }
    let veteran_id = b.player_id(&veteran);
    out.push(measure(
        b,
        "Player Info: a player with 20 finished games",
        runs,
        |_| (),
        |b, ()| {
            want(200)(b.send(Req::get(&format!("/api/players/{veteran_id}"), &b.ip())));
        },
    ));
    seed_rated_players(b, 1000);
    out.push(measure(
        b,
        "leaderboard (1,000 rated players)",
        runs,
        |_| (),
        |b, ()| {
            want(200)(b.send(Req::get("/api/leaderboard", &b.ip())));
        },
    ));
    let challenge = json!({ "south": "axiom", "north": "blades" });
    out.push(measure(
        b,
        "lobby: post a challenge (the lobby reads and pushes the list)",
        runs,
        |b| b.guest(),
        |b, cookie| {
            want(201)(b.send(Req::post("/api/challenges", &b.ip(), &challenge).cookie(&cookie)));
        },
    ));
    out.push(measure(
        b,
        "lobby: the challenge list (GET)",
        runs,
        |_| (),
        |b, ()| {
            want(200)(b.send(Req::get("/api/challenges", &b.ip())));
        },
    ));
    out.push(measure(
        b,
        "lobby: accept a challenge (a game made and joined)",
        runs,
        |b| {
            let posted = ok(
                "a post",
                b.send(Req::post("/api/challenges", &b.ip(), &challenge).cookie(&b.guest())),
                201,
            );
            (posted["challenge"]["id"].as_str().expect("a challenge id").to_owned(), b.guest())
        },
        |b, (id, cookie)| {
            let path = format!("/api/challenges/{id}/accept");
            want(200)(b.send(Req::post(&path, &b.ip(), &json!({})).cookie(&cookie)));
        },
    ));
    out.push(measure(
        b,
        "WebSocket: open a game's socket (the upgrade emulated)",
        runs,
        |b| b.link(None, false).id,
        |b, id| want(101)(b.send(Req::get(&format!("/api/games/{id}/ws"), &b.ip()))),
    ));
    out.push(measure(
        b,
        "WebSocket: a game socket's `state` frame, first after a move",
        runs,
        |b| {
            let g = b.link(None, false);
            b.play(&g, 10);
            g.id
        },
        |b, id| assert!(b.state_frame(&id)),
    ));
    out.push(measure(
        b,
        "WebSocket: a game socket's `state` frame, again (from memory)",
        runs,
        |b| {
            let g = b.link(None, false);
            b.play(&g, 10);
            assert!(b.state_frame(&g.id));
            g.id
        },
        |b, id| assert!(b.state_frame(&id)),
    ));
    // A listed list is kept until its first challenge expires, at most a minute: each
    // run comes 61 s after the last, so the first frame reads D1.
    out.push(measure(
        b,
        "WebSocket: a lobby socket's `list` frame, nothing in memory",
        runs,
        |_| (),
        |b, ()| {
            b.list_frame();
        },
    ));
    out.push(measure(
        b,
        "WebSocket: a lobby socket's `list` frame, again (from memory)",
        runs,
        |b| b.list_frame(),
        |b, ()| b.list_frame(),
    ));
    out
}

/// Operations whose cost depends on the notifications being configured.
fn with_notifications(b: &Bench, runs: usize) -> Vec<Measured> {
    let mut out = Vec::new();
    out.push(measure(
        b,
        "human move, correspondence game, notifications on",
        runs,
        |b| {
            let g = b.link(Some(3), false);
            b.play(&g, 10);
            let game = b.game_now(&g.id);
            let mv = b.quiet_move(&game, 11);
            b.move_req(&g, mv, game.position().ply())
        },
        |b, req| want(200)(b.send(req)),
    ));
    out.push(measure(
        b,
        "resign, link game, notifications on",
        runs,
        |b| {
            let g = b.link(None, false);
            b.play(&g, 10);
            Req::post(&format!("/api/games/{}/resign", g.id), &b.ip(), &json!({})).token(&g.tokens[0])
        },
        |b, req| want(200)(b.send(req)),
    ));
    out
}

fn seed_rated_players(b: &Bench, n: u32) {
    let conn = b.d1.0.conn();
    for i in 0..n {
        let id = format!("{:024x}", 0xabc0_0000_u64 + u64::from(i));
        conn.execute(
            "INSERT INTO players (id, display_name, created_at, rating, rating_dev, volatility, rated_at) \
             VALUES (?1, ?2, 0, ?3, 80.0, 0.06, 1)",
            (&id, format!("Rated {i}"), 1200.0 + f64::from(i % 700)),
        )
        .expect("a rated player");
    }
}

/// The creation capacity check (`service::db::index::load`, `LOAD`) at `active`
/// unfinished link games in the index (between 1,000 players): its median time, its
/// query plan, and the bytes a games row takes with its indexes.
fn capacity_check(active: u32, runs: usize) -> (f64, Vec<String>, f64) {
    let db = Sqlite::migrated().expect("the migrations apply");
    let conn = db.conn();
    let player = |i: u32| format!("{:024x}", 0xfeed_0000_u64 + u64::from(i % 1000));
    for i in 0..1000 {
        conn.execute("INSERT INTO players (id, display_name, created_at) VALUES (?1, ?1, 0)", [player(i)])
            .expect("a player");
    }
    let bytes = || -> i64 {
        let pages: i64 = conn.query_row("PRAGMA page_count", [], |r| r.get(0)).expect("pages");
        let size: i64 = conn.query_row("PRAGMA page_size", [], |r| r.get(0)).expect("page size");
        pages * size
    };
    let before = bytes();
    conn.execute_batch("BEGIN").expect("a transaction");
    for i in 0..active {
        conn.execute(
            "INSERT INTO games (id, south_faction, north_faction, mode, creator_ip_hash, created_at, plies, \
                                south_player, north_player) \
             VALUES (?1, 'axiom', 'blades', 'link', ?2, ?3, 0, ?4, ?5)",
            (format!("{i:024x}"), format!("{:064x}", i % 5000), T0 + i64::from(i), player(i), player(i + 1)),
        )
        .expect("an index row");
    }
    conn.execute_batch("COMMIT").expect("the rows");
    let per_row = (bytes() - before) as f64 / f64::from(active);
    let ip = format!("{:064x}", 7);
    let mut times = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        let load = block_on(service::db::index::load(&db, &ip, None)).expect("the counts");
        times.push(start.elapsed().as_secs_f64() * 1e3);
        assert_eq!(load.active_games, active);
    }
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {}", service::db::index::LOAD)).expect("a plan");
    let plan = stmt
        .query_map((ip.as_str(), None::<String>), |r| r.get::<_, String>(3))
        .expect("the plan")
        .filter_map(Result::ok)
        .collect();
    (median(times), plan, per_row)
}

/// A game's record in its object's storage (one JSON row), by ply.
fn record_sizes(b: &Bench) -> Vec<(u16, usize)> {
    let g = b.link(None, false);
    let mut out = Vec::new();
    for step in [0, 40, 40, 40] {
        b.play(&g, step);
        let rec = b.record(&g.id);
        out.push((rec.position.ply(), serde_json::to_string(&rec).map_or(0, |j| j.len())));
    }
    out
}

// ---------------------------------------------------------------------------------------
// The report

fn row(m: &Measured) -> String {
    let c = m.counts;
    let ms = |x: f64| if x < 0.005 { "0".to_owned() } else { format!("{x:.2}") };
    format!(
        "| {}{} | {} | {} / {} / {} | {} | {} ({}) | {} | {} ({}) | {} ({}) | {} | {} | {} | {} | {} | {} | {} |",
        m.name,
        if m.varied { " ¹" } else { "" },
        c.worker,
        c.game,
        c.limiter,
        c.lobby,
        c.ws_in,
        c.d1,
        c.d1_writes,
        c.d1_rows,
        c.local,
        c.local_writes,
        c.limiter_sql,
        c.limiter_writes,
        c.alarms,
        c.pushes + c.lobby_pushes,
        ms(m.ms[0]),
        ms(m.ms[1]),
        ms(m.ms[2]),
        ms(m.ms[3]),
        ms(m.ms[4]),
    )
}

const HEADER: &str = "| operation | Worker requests | DO requests game / limiter / lobby | WS messages in | D1 statements (writes) | D1 rows changed, triggers included | game DO storage statements (writes) | limiter storage statements (writes) | alarm calls | socket pushes | ms Worker | ms game DO | ms other DOs | ms SQLite | ms total |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|";

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let runs = arg("--runs", 21).max(1);
    let ai_runs = arg("--ai-runs", 7).max(1);
    let bench = Bench::new(&[]);
    let measured = operations(&bench, runs, ai_runs);
    // A valid P-256 scalar (the VAPID key) and a bot token: every notice is looked up.
    let key = "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE";
    let notifying = Bench::new(&[("VAPID_PRIVATE_KEY", key), ("DISCORD_BOT_TOKEN", "bot")]);
    let notified = with_notifications(&notifying, runs);

    println!("### Per operation\n");
    println!(
        "Counted per request (identical in every run unless marked ¹); times are medians of {runs} runs \
         ({ai_runs} for AI moves), native `--release` on this machine, not workerd.\n"
    );
    println!("{HEADER}");
    for m in &measured {
        println!("{}", row(m));
    }
    println!("\nWith notifications configured (a VAPID key and a Discord bot token; the players have no subscription and no DM opt-in):\n");
    println!("{HEADER}");
    for m in &notified {
        println!("{}", row(m));
    }
    if measured.iter().chain(&notified).any(|m| m.varied) {
        println!("\n¹ the counts differed between runs; the last run's are shown.");
    }
    let n = measured.first().map_or(0, |m| m.runs);
    println!("\n({n} runs per operation.)\n");

    println!("### The statements, one run of each\n");
    let traced = [
        "create: link game",
        "join a link game",
        "human move, live link game, ply 41",
        "finishing move, live link game (ends it by the rules)",
        "resign, rated link game, ply 10",
        "AI move, level 4 (mcts-heuristic): a move and the reply, ply 1",
        "My games: 10 unfinished link games",
        "lobby: post a challenge (the lobby reads and pushes the list)",
        "human move, correspondence game, notifications on",
    ];
    for m in measured.iter().chain(&notified).filter(|m| traced.contains(&m.name.as_str())) {
        println!("**{}** ({} statements):\n\n```text", m.name, m.trace.len());
        for line in &m.trace {
            println!("{line}");
        }
        println!("```\n");
    }

    println!("### The creation capacity check at scale\n");
    println!("`service::db::index::LOAD` (the counters every creation, accepted challenge, stage and rematch reads: its reservation, `RESERVE`, reads the same three by key as it writes; `LOAD` itself names the cap of a refusal), median of 15, native SQLite:\n");
    println!("| unfinished games in the index | ms | D1 bytes per games row (its indexes and counter rows included) | query plan |\n|---|---|---|---|");
    for active in [1_000, 10_000, 100_000] {
        let (ms, plan, per_row) = capacity_check(active, 15);
        println!("| {active} | {ms:.3} | {per_row:.0} | {} |", plan.join("; "));
    }
    println!("\n### A game's record in its object's storage\n");
    println!("| ply | bytes (one JSON row) |\n|---|---|");
    for (ply, bytes) in record_sizes(&bench) {
        println!("| {ply} | {bytes} |");
    }
    let mut logged: Vec<String> =
        bench.log.borrow().iter().chain(notifying.log.borrow().iter()).cloned().collect();
    logged.sort();
    logged.dedup();
    println!("\n(lines logged by the service during the runs: {})", logged.len());
    for line in logged.iter().take(20) {
        println!("    {line}");
    }
}
