//! The game's Durable Object: the only writer of its game. It keeps the record in its
//! SQLite storage (written before any reply), runs the service's rules for every
//! request, pushes each new state to WebSockets (Hibernation API), ends correspondence
//! games by alarm, and mirrors the game into the D1 index.

use std::cell::RefCell;

use service::ai::{MctsAi, Opponent};
use service::api;
use service::game::{self, Ctx, Handled, Route};
use service::local::LocalGameStore;
use service::model::GameRecord;
use service::object::{self, Object, Owed, Runtime, StateMemory, WriteError};
use service::objects::{self as calls, AddressCapacity, GameObjects, Limiters};
use service::sockets::{SocketHost, SOCK_TAG};
use service::store::GameStore;
use service::{ApiError, ErrorCode};
use worker::{
    durable_object, DurableObject, Env, Request, Response, Result, SqlStorage, State, WebSocket,
    WebSocketIncomingMessage, WebSocketPair,
};

use crate::config;
use crate::do_sql::DoSql;
use crate::glue;
use crate::host::OsRandom;
use crate::host::{header, In, WorkerHost};

/// The game's record in this object's storage (`service::local`).
fn record_store(sql: &SqlStorage) -> LocalGameStore<DoSql<'_>> {
    LocalGameStore(DoSql(sql))
}

/// This object's sockets as the service admits them (`service::sockets`): the
/// Hibernation API's, leased from the address bucket's limiter.
struct Sockets<'a> {
    state: &'a State,
    host: &'a WorkerHost<'a>,
    game: String,
}

impl SocketHost for Sockets<'_> {
    type Socket = WebSocketPair;

    fn open(&self, tag: &str) -> (usize, usize) {
        (self.state.get_websockets().len(), self.state.get_websockets_with_tag(tag).len())
    }

    async fn lease(&self, tag: &str, have: u32, cap: u32) -> std::result::Result<(), ApiError> {
        Limiters(self.host).ws_acquire(tag, &self.game, have, cap).await
    }

    async fn unlease(&self, tag: &str, have: u32) {
        Limiters(self.host).ws_report(tag, &self.game, have).await;
    }

    fn accept(&self, tags: &[&str]) -> std::result::Result<WebSocketPair, ApiError> {
        let pair = WebSocketPair::new().map_err(|e| ApiError::internal(e.to_string()))?;
        self.state.accept_websocket_with_tags(&pair.server, tags);
        Ok(pair)
    }

    fn send(&self, pair: &WebSocketPair, msg: &str) {
        let _ = pair.server.send_with_str(msg);
    }
}

// Holds runtime handles only (State, Env, SqlStorage), none of which is Debug.
#[allow(missing_debug_implementations)]
#[durable_object]
pub struct GameObject {
    state: State,
    env: Env,
    sql: SqlStorage,
    /// The state message between events (`service::object::StateMemory`).
    memory: RefCell<StateMemory>,
}

impl DurableObject for GameObject {
    fn new(state: State, env: Env) -> Self {
        let sql = state.storage().sql();
        Self { state, env, sql, memory: RefCell::default() }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        self.memory.borrow_mut().begin();
        let served = self.serve(&mut req).await;
        self.memory.borrow_mut().end();
        served.or_else(|e| glue::error(&e))
    }

    async fn alarm(&self) -> Result<Response> {
        self.memory.borrow_mut().begin();
        let (mut rng, mut ai) = (OsRandom, self.opponent());
        let now = crate::host::now_ms();
        let mut ctx = Ctx { now, rng: &mut rng, ai: ai.as_mut(), day_ms: config::day_ms(&self.env) };
        let answer = self.run(async |o| o.alarm(&mut ctx).await).await;
        self.memory.borrow_mut().end();
        glue::response(&answer)
    }

    async fn websocket_message(&self, ws: WebSocket, message: WebSocketIncomingMessage) -> Result<()> {
        // Clients may ask for the state again ("state"): answered from memory between
        // events; anything else is ignored.
        if !matches!(message, WebSocketIncomingMessage::String(ref s) if s.trim() == "state") {
            return Ok(());
        }
        let kept = self.memory.borrow().get().map(str::to_owned);
        let msg = kept.or_else(|| {
            let rec = record_store(&self.sql).load().ok().flatten()?;
            // What the real-runtime suites count (api.rs: the frames served from memory).
            #[cfg(feature = "test-hooks")]
            worker::console_log!(
                "test-hooks: a state frame replayed game {} at ply {}",
                rec.id,
                rec.moves.len()
            );
            let msg = object::state_message(&rec)?;
            self.memory.borrow_mut().keep(&msg);
            Some(msg)
        });
        if let Some(msg) = msg {
            let _ = ws.send_with_str(&msg);
        }
        Ok(())
    }

    async fn websocket_close(&self, ws: WebSocket, code: usize, reason: String, _clean: bool) -> Result<()> {
        let _ = ws.close(Some(service::admission::close_code(code)), Some(reason));
        self.socket_gone(&ws).await;
        Ok(())
    }

    async fn websocket_error(&self, ws: WebSocket, _error: worker::Error) -> Result<()> {
        self.socket_gone(&ws).await;
        Ok(())
    }
}

impl GameObject {
    async fn serve(&self, req: &mut Request) -> std::result::Result<Response, ApiError> {
        let internal = |e: worker::Error| ApiError::internal(e.to_string());
        let path = req.path();
        if path == service::ports::paths::WAKE {
            return glue::response(&self.run(async |o| o.wake().await).await).map_err(internal);
        }
        // A public request's route and credential are checked before its body is read
        // (internal calls from the Worker have `/_internal/` paths, which the router never
        // forwards from a client).
        if !path.starts_with("/_internal/") {
            crate::guard::precheck(req, &path)?;
            #[cfg(feature = "test-hooks")]
            assert!(!config::fault_panic(&self.env, &path), "injected panic (FAULT_PANIC) on {path}");
        }
        let mut api = glue::api_request(req).await?;
        // An internal call from the Worker, parsed once: it says whether the network is
        // needed, and is then the call itself.
        let call = object::internal(&api.path, &api.body)?;
        let stored_mode = || record_store(&self.sql).load().ok().flatten().map(|r| r.mode);
        if object::may_move_ai(call.as_ref(), api.method, &api.path, stored_mode) {
            self.prepare_ai().await?;
        }
        let (mut rng, mut ai) = (OsRandom, self.opponent());
        let mut ctx = Ctx {
            now: crate::host::now_ms(),
            rng: &mut rng,
            ai: ai.as_mut(),
            day_ms: config::day_ms(&self.env),
        };
        if let Some(call) = call {
            return glue::response(&self.run(async |o| o.internal(call, &mut ctx).await).await)
                .map_err(internal);
        }
        let mut store = record_store(&self.sql);
        api.player = calls::forwarded_player(header(req, calls::PLAYER_HEADER).as_deref());
        api::resolve_alias(&mut api.player, header(req, calls::ALIASES_HEADER).as_deref(), &store);
        let (_, route) = game::route(api.method, &api.path)?;
        let host = WorkerHost::new(&self.env)?;
        let handled = match route {
            Route::WebSocket => return self.upgrade(req, &host, &store).await,
            // The saga (`service::sagas::rematch`): the new game made by its own object.
            Route::Rematch => {
                let capacity = AddressCapacity::of(&host, crate::host::client_ip(req).as_deref());
                let (rec, games) = (store.load().ok().flatten(), GameObjects(&host));
                let saga = service::sagas::rematch::request(&mut store, &api, &mut ctx, &games, &capacity);
                api::ai_rematch(&host, &capacity.ip_hash, rec.as_ref(), saga).await?
            }
            // A move in an AI game: metered, and searched under a lease (`api::ai_move`).
            Route::Moves => {
                let rec = store.load().ok().flatten();
                api::ai_move(&host, &In(req), rec.as_ref(), || {
                    game::handle(&mut store, route, &api, &mut ctx)
                })
                .await?
            }
            _ => game::handle(&mut store, route, &api, &mut ctx),
        };
        self.after(handled).await.map_err(internal)
    }

    /// The configured AI (see [`config::ai_engine`]), seeded by `AI_SEED` when set
    /// (tests: see [`config::ai_seed`]).
    fn opponent(&self) -> Box<dyn Opponent> {
        let ai = self.engine();
        match config::ai_seed(&self.env) {
            Some(seed) => Box::new(service::seeded_ai::Seeded::new(ai, seed)),
            None => ai,
        }
    }

    /// Loads the network of the configured engine into this isolate, once (`net` builds:
    /// it is a static asset, fetched asynchronously, and the engines' `choose` is
    /// synchronous); nothing for the engines without one.
    async fn prepare_ai(&self) -> std::result::Result<(), ApiError> {
        #[cfg(feature = "net")]
        if config::ai_engine(&self.env) == config::AiEngine::Shipped {
            crate::net::prepare(&self.env).await?;
        }
        Ok(())
    }

    fn engine(&self) -> Box<dyn Opponent> {
        match config::ai_engine(&self.env) {
            config::AiEngine::Random => Box::new(service::ai::PlaceholderAi),
            #[cfg(feature = "net")]
            config::AiEngine::Shipped => Box::new(service::net_ai::ShippedNetAi(crate::net::Isolate)),
            #[cfg(not(feature = "net"))]
            config::AiEngine::Shipped => Box::new(service::ai::AlphaBetaAi),
            _ => Box::new(MctsAi),
        }
    }

    async fn upgrade(
        &self,
        req: &Request,
        host: &WorkerHost<'_>,
        store: &LocalGameStore<DoSql<'_>>,
    ) -> std::result::Result<Response, ApiError> {
        let internal = |e: worker::Error| ApiError::internal(e.to_string());
        if !header(req, "Upgrade").is_some_and(|u| u.eq_ignore_ascii_case("websocket")) {
            return Err(ApiError::new(ErrorCode::UpgradeRequired, "this route speaks WebSocket only"));
        }
        let limits = config::limits(&self.env);
        let key = crate::host::ip_key(host, req);
        let sockets = Sockets { state: &self.state, host, game: self.game_key() };
        let pair = service::sockets::admit(&sockets, store, &key, &limits, &mut OsRandom).await?;
        Response::from_websocket(pair.client).map_err(internal)
    }

    /// This object's id: the key of its leases in the address buckets' limiters.
    fn game_key(&self) -> String {
        self.state.id().to_string()
    }

    /// A socket closed or failed: reports to its address bucket's limiter how many this
    /// game still holds open from it (an absolute count: a repeated report is harmless).
    async fn socket_gone(&self, ws: &WebSocket) {
        let tags = self.state.get_tags(ws);
        let (Some(ip), Some(sock)) =
            (tags.iter().find(|t| t.starts_with("ip:")), tags.iter().find(|t| t.starts_with(SOCK_TAG)))
        else {
            return;
        };
        let others = self.state.get_websockets_with_tag(ip);
        let rest = others.iter().filter(|w| !self.state.get_tags(w).contains(sock)).count() as u32;
        match WorkerHost::new(&self.env) {
            Ok(host) => Limiters(&host).ws_report(ip, &self.game_key(), rest).await,
            Err(e) => worker::console_error!("socket limiter for {ip}: {e}"),
        }
    }

    /// The service's object over this one's storage, alarm, sockets and D1.
    async fn run<T>(&self, f: impl AsyncFnOnce(&mut Object<'_, Self, Self>) -> T) -> T {
        let mut store = record_store(&self.sql);
        let mut object = Object {
            store: &mut store,
            runtime: self,
            owed: self,
            timers: config::timers(&self.env),
            now: crate::host::now_ms(),
        };
        f(&mut object).await
    }

    /// Carries out the effects of a handled request, then answers it.
    async fn after(&self, handled: Handled) -> Result<Response> {
        let answer = self.run(async |o| o.after(handled).await).await;
        glue::response(&answer)
    }
}

impl Runtime for GameObject {
    async fn set_alarm(&self, at: Option<i64>) {
        let storage = self.state.storage();
        let done = match at {
            Some(at) => storage.set_alarm((at - crate::host::now_ms()).max(0)).await,
            None => storage.delete_alarm().await,
        };
        if let Err(e) = done {
            worker::console_error!("setting the alarm failed: {e}");
        }
    }

    fn broadcast(&self, msg: &str) {
        for ws in self.state.get_websockets() {
            let _ = ws.send_with_str(msg);
        }
    }

    async fn changed(&self, rec: &GameRecord, indexed: bool) {
        let notices = match WorkerHost::new(&self.env) {
            Ok(host) => api::changed(&host, &DoSql(&self.sql), rec, indexed).await,
            Err(e) => {
                worker::console_error!("game {}: no D1 after a change: {e}", rec.id);
                return;
            }
        };
        if notices.is_empty() {
            return;
        }
        // Sent after the answer (`service::notify::send_all`): a push service or Discord,
        // however slow, never holds up the request that made the change.
        let (env, game) = (self.env.clone(), rec.id.clone());
        self.state.wait_until(async move {
            match WorkerHost::new(&env) {
                Ok(host) => service::notify::send_all(&host, &notices, &game).await,
                Err(e) => worker::console_error!("game {game}: notices not sent: {e}"),
            }
        });
    }

    fn log(&self, line: &str) {
        worker::console_error!("{line}");
    }
}

impl Owed for GameObject {
    async fn write(&self, rec: &GameRecord, ip_hash: Option<&str>) -> std::result::Result<(), WriteError> {
        // The tests' injected D1 faults (`FAULT_D1`; only in the test module, src/config.rs).
        #[cfg(feature = "test-hooks")]
        let (fault, injected) = {
            let attempt = rec.outbox.as_ref().map_or(0, |ob| ob.attempts);
            let injected =
                |when: &str| Err(WriteError::Failed(format!("injected D1 fault ({when} writing)")));
            let fault = config::d1_fault(&self.env, attempt);
            match fault {
                config::D1Fault::Crash => return Err(WriteError::Died),
                config::D1Fault::Before => return injected("before"),
                _ => {}
            }
            (fault, injected)
        };
        let host = WorkerHost::new(&self.env).map_err(|e| WriteError::Failed(e.to_string()))?;
        object::write_owed(service::host::Host::db(&host), rec, ip_hash, crate::host::now_ms()).await?;
        #[cfg(feature = "test-hooks")]
        if fault == config::D1Fault::After {
            return injected("after");
        }
        Ok(())
    }
}
