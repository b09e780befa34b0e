//! The game's Durable Object: the only writer of its game. It keeps the record in its
//! SQLite storage (written before any reply), runs the service's rules for every
//! request, pushes each new state to WebSockets (Hibernation API), ends correspondence
//! games by alarm, and mirrors the game into the D1 index.

use service::ai::{MctsAi, Opponent};
use service::game::{self, Ctx, Handled, Route};
use service::model::GameRecord;
use service::store::GameStore;
use service::{ApiError, ErrorCode};
use worker::{
    durable_object, DurableObject, Env, Request, Response, Result, SqlStorage, State, WebSocket,
    WebSocketIncomingMessage, WebSocketPair,
};

use crate::config;
use crate::d1::D1;
use crate::do_sql::DoSql;
use crate::games_client::{GameObjects, RequestCapacity};
use crate::glue::{self, OsRandom};
use service::local::LocalGameStore;
use service::object::{self, Object, Owed, Runtime, WriteError};

/// The game's record in this object's storage (`service::local`).
fn record_store(sql: &SqlStorage) -> LocalGameStore<DoSql<'_>> {
    LocalGameStore(DoSql(sql))
}

pub use crate::games_client::WAKE_PATH;

/// The prefix of each WebSocket's own tag (beside its address bucket's `ip:` tag).
const SOCK_TAG: &str = "sock:";

// Holds runtime handles only (State, Env, SqlStorage), none of which is Debug.
#[allow(missing_debug_implementations)]
#[durable_object]
pub struct GameObject {
    state: State,
    env: Env,
    sql: SqlStorage,
}

impl DurableObject for GameObject {
    fn new(state: State, env: Env) -> Self {
        let sql = state.storage().sql();
        Self { state, env, sql }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        if req.path() == WAKE_PATH {
            let answer = self.run(async |o| o.wake().await).await;
            return glue::response(&answer);
        }
        // A public request's route and credential are checked before its body is read
        // (internal calls from the Worker have `/_internal/` paths, which the router never
        // forwards from a client).
        let path = req.path();
        if !path.starts_with("/_internal/") {
            if let Err(e) = crate::guard::precheck(&req, &path) {
                return glue::error(&e);
            }
            #[cfg(feature = "test-hooks")]
            assert!(!config::fault_panic(&self.env, &path), "injected panic (FAULT_PANIC) on {path}");
        }
        let mut api = match glue::api_request(&mut req).await {
            Ok(a) => a,
            Err(e) => return glue::error(&e),
        };
        // An internal call from the Worker, parsed once: it says whether the network is
        // needed, and is then the call itself.
        let call = match object::internal(&api.path, &api.body) {
            Ok(c) => c,
            Err(e) => return glue::error(&e),
        };
        let stored_mode = || record_store(&self.sql).load().ok().flatten().map(|r| r.mode);
        if object::may_move_ai(call.as_ref(), api.method, &api.path, stored_mode) {
            if let Err(e) = self.prepare_ai().await {
                return glue::error(&e);
            }
        }
        let mut rng = OsRandom;
        let mut ai = self.opponent();
        let mut ctx =
            Ctx { now: glue::now_ms(), rng: &mut rng, ai: ai.as_mut(), day_ms: config::day_ms(&self.env) };
        if let Some(call) = call {
            let answer = self.run(async |o| o.internal(call, &mut ctx).await).await;
            return glue::response(&answer);
        }
        let mut store = record_store(&self.sql);
        api.player = glue::forwarded_player(&req);
        crate::me_games::resolve_alias(&req, &mut api, &store);

        let route = match game::route(api.method, &api.path) {
            Ok((_, r)) => r,
            Err(e) => return glue::error(&e),
        };
        if route == Route::WebSocket {
            return self.upgrade(&req, &mut store, &mut ctx).await;
        }
        if route == Route::Rematch {
            // The saga (`service::sagas::rematch`): the new game made by its own object.
            let capacity = RequestCapacity { env: &self.env, req: &req };
            let games = GameObjects(&self.env);
            let handled =
                service::sagas::rematch::request(&mut store, &api, &mut ctx, &games, &capacity).await;
            return self.after(handled).await;
        }
        if route == Route::Moves {
            if let Err(e) =
                crate::guard::ai_move_limit(&self.env, &req, store.load().ok().flatten().as_ref()).await
            {
                return glue::error(&e);
            }
        }
        let handled = game::handle(&mut store, route, &api, &mut ctx);
        self.after(handled).await
    }

    async fn alarm(&self) -> Result<Response> {
        let mut rng = OsRandom;
        let mut ai = self.opponent();
        let mut ctx =
            Ctx { now: glue::now_ms(), rng: &mut rng, ai: ai.as_mut(), day_ms: config::day_ms(&self.env) };
        let answer = self.run(async |o| o.alarm(&mut ctx).await).await;
        glue::response(&answer)
    }

    async fn websocket_message(&self, ws: WebSocket, message: WebSocketIncomingMessage) -> Result<()> {
        // Clients may ask for the state again ("state"); anything else is ignored.
        if matches!(message, WebSocketIncomingMessage::String(ref s) if s.trim() == "state") {
            if let Ok(Some(rec)) = record_store(&self.sql).load() {
                if let Some(msg) = object::state_message(&rec) {
                    let _ = ws.send_with_str(msg);
                }
            }
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
        if matches!(config::ai_engine(&self.env), config::AiEngine::Network | config::AiEngine::Hybrid) {
            crate::net::prepare(&self.env).await?;
        }
        Ok(())
    }

    fn engine(&self) -> Box<dyn Opponent> {
        match config::ai_engine(&self.env) {
            config::AiEngine::Random => Box::new(service::ai::PlaceholderAi),
            #[cfg(feature = "net")]
            config::AiEngine::Network => Box::new(service::net_ai::NetAi(crate::net::Isolate)),
            #[cfg(feature = "net")]
            config::AiEngine::Hybrid => Box::new(service::net_ai::HybridNetAi(crate::net::Isolate)),
            #[cfg(not(feature = "net"))]
            config::AiEngine::Hybrid => Box::new(service::ai::HybridAi),
            _ => Box::new(MctsAi),
        }
    }

    async fn upgrade(
        &self,
        req: &Request,
        store: &mut LocalGameStore<DoSql<'_>>,
        ctx: &mut Ctx<'_>,
    ) -> Result<Response> {
        let is_ws =
            req.headers().get("Upgrade").ok().flatten().is_some_and(|u| u.eq_ignore_ascii_case("websocket"));
        if !is_ws {
            return glue::error(&ApiError::new(
                ErrorCode::UpgradeRequired,
                "this route speaks WebSocket only",
            ));
        }
        // 404 for a game that does not exist, before accepting anything.
        let handled = game::handle(
            store,
            Route::State,
            &service::http::ApiRequest {
                method: service::http::Method::Get,
                path: String::new(),
                bearer: None,
                body: Vec::new(),
                origin: String::new(),
                player: None,
            },
            ctx,
        );
        let Some(rec) = handled.record else {
            return glue::response(&handled.response);
        };
        let tag = match crate::guard::websocket_caps(&self.state, &self.env, req) {
            Ok(t) => t,
            Err(e) => return glue::error(&e),
        };
        // The cap over all games: the address bucket's limiter counts this game's sockets
        // from it as a lease (reported again at every close, see `socket_gone`).
        let have = self.state.get_websockets_with_tag(&tag).len() as u32;
        let cap = config::limits(&self.env).ws_per_ip;
        if let Err(e) = crate::limiter::ws_acquire(&self.env, &tag, &self.game_key(), have, cap).await {
            return glue::error(&e);
        }
        // Each socket carries its own tag too, so a close can count the others.
        let mut id = [0u8; 12];
        let sock = match getrandom::fill(&mut id) {
            Ok(()) => format!("{SOCK_TAG}{}", service::tokens::hex(&id)),
            Err(e) => {
                // Nothing accepted: hand the slot back.
                crate::limiter::ws_report(&self.env, &tag, &self.game_key(), have).await;
                return glue::error(&ApiError::new(ErrorCode::NoRandomness, format!("{e}")));
            }
        };
        let pair = WebSocketPair::new()?;
        self.state.accept_websocket_with_tags(&pair.server, &[&tag, &sock]);
        // A (re)connecting client gets the current state at once.
        if let Some(msg) = object::state_message(&rec) {
            let _ = pair.server.send_with_str(msg);
        }
        Response::from_websocket(pair.client)
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
        let rest = self
            .state
            .get_websockets_with_tag(ip)
            .iter()
            .filter(|w| !self.state.get_tags(w).contains(sock))
            .count() as u32;
        crate::limiter::ws_report(&self.env, ip, &self.game_key(), rest).await;
    }

    /// The service's object over this one's storage, alarm, sockets and D1.
    async fn run<T>(&self, f: impl AsyncFnOnce(&mut Object<'_, Self, Self>) -> T) -> T {
        let mut store = record_store(&self.sql);
        let mut object = Object {
            store: &mut store,
            runtime: self,
            owed: self,
            timers: config::timers(&self.env),
            now: glue::now_ms(),
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
            Some(at) => storage.set_alarm((at - glue::now_ms()).max(0)).await,
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
        crate::me_games::sync(&self.env, rec, indexed).await;
        crate::push::after_change(&self.env, &self.sql, rec).await;
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
        let db = self.env.d1("DB").map_err(|e| WriteError::Failed(e.to_string()))?;
        object::write_owed(&D1(&db), rec, ip_hash, glue::now_ms()).await?;
        #[cfg(feature = "test-hooks")]
        if fault == config::D1Fault::After {
            return injected("after");
        }
        Ok(())
    }
}
