//! The game's Durable Object: the only writer of its game. It keeps the record in its
//! SQLite storage (written before any reply), runs the service's rules for every
//! request, pushes each new state to WebSockets (Hibernation API), ends correspondence
//! games by alarm, and mirrors the game into the D1 index.

use service::ai::{MctsAi, Opponent};
use service::game::{self, Ctx, Effects, Handled, Route};
use service::model::{GameRecord, Mode};
use service::store::GameStore;
use service::upkeep::{self, Timers};
use service::ApiError;
use worker::{
    durable_object, DurableObject, Env, Request, Response, Result, SqlStorage, State, WebSocket,
    WebSocketIncomingMessage, WebSocketPair,
};

use crate::glue::{self, OsRandom};
use crate::{config, index};

/// The record is one JSON document in one row: a save is a single atomic statement.
struct SqlStore<'a>(&'a SqlStorage);

impl GameStore for SqlStore<'_> {
    fn load(&self) -> std::result::Result<Option<GameRecord>, String> {
        #[derive(serde::Deserialize)]
        struct Row {
            record: String,
        }
        // A request for a game that does not exist must not create storage for it, so
        // the table is made by the first save only.
        let tables: Vec<serde_json::Value> = self
            .0
            .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'game'", None)
            .and_then(|c| c.to_array())
            .map_err(|e| e.to_string())?;
        if tables.is_empty() {
            return Ok(None);
        }
        let rows: Vec<Row> = self
            .0
            .exec("SELECT record FROM game WHERE id = 1", None)
            .and_then(|c| c.to_array())
            .map_err(|e| e.to_string())?;
        match rows.first() {
            None => Ok(None),
            Some(r) => serde_json::from_str(&r.record)
                .map(Some)
                .map_err(|e| format!("stored record unreadable: {e}")),
        }
    }

    fn save(&mut self, record: &GameRecord) -> std::result::Result<(), String> {
        let json = serde_json::to_string(record).map_err(|e| e.to_string())?;
        self.0
            .exec("CREATE TABLE IF NOT EXISTS game (id INTEGER PRIMARY KEY CHECK (id = 1), record TEXT NOT NULL)", None)
            .map_err(|e| e.to_string())?;
        self.0
            .exec(
                "INSERT INTO game (id, record) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET record = excluded.record",
                vec![json.into()],
            )
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

pub use crate::games_client::WAKE_PATH;
use crate::games_client::{ABANDON_PATH, CREATE_PATH, REMATCH_PATH, WITHDRAW_PATH};
use service::ports::{AbandonCall, CreateCall};

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
            return self.wake().await;
        }
        // A public request's route and credential are checked before its body is read
        // (internal calls from the Worker have `/_internal/` paths, which the router never
        // forwards from a client).
        let path = req.path();
        if !path.starts_with("/_internal/") {
            if let Err(e) = crate::guard::precheck(&req, &path) {
                return glue::error(&e);
            }
            assert!(!config::fault_panic(&self.env, &path), "injected panic (FAULT_PANIC) on {path}");
        }
        let mut api = match glue::api_request(&mut req).await {
            Ok(a) => a,
            Err(e) => return glue::error(&e),
        };
        // The Worker's creation call, parsed once: it says whether the network is needed
        // and is then the creation itself.
        let create_call = (api.path == CREATE_PATH).then(|| serde_json::from_slice::<CreateCall>(&api.body));
        // Only a creation (the AI opens when the creator takes North), a rematch's creation
        // and a move can make an AI move; the network is loaded for those alone.
        let may_move_ai = match api.path.as_str() {
            CREATE_PATH => matches!(&create_call, Some(Ok(c)) if c.game.mode == Mode::Ai),
            REMATCH_PATH => true,
            _ => {
                matches!(game::route(api.method, &api.path), Ok((_, Route::Moves)))
                    && SqlStore(&self.sql).load().ok().flatten().is_some_and(|r| r.mode == Mode::Ai)
            }
        };
        if may_move_ai {
            if let Err(e) = self.prepare_ai().await {
                return glue::error(&e);
            }
        }
        let mut rng = OsRandom;
        let mut ai = self.opponent();
        let mut ctx =
            Ctx { now: glue::now_ms(), rng: &mut rng, ai: ai.as_mut(), day_ms: config::day_ms(&self.env) };
        let mut store = SqlStore(&self.sql);

        if let Some(call) = create_call {
            let call = match call {
                Ok(c) => c,
                Err(e) => return glue::error(&ApiError::bad_request("invalid_body", e.to_string())),
            };
            let extra = game::Extra {
                creator: call.creator,
                start: call.start,
                stage: call.stage,
                ip_hash: Some(call.ip_hash),
            };
            let handled = game::create_with(&mut store, &call.id, &call.game, &extra, &call.origin, &mut ctx);
            return self.after(handled).await;
        }
        if api.path == REMATCH_PATH {
            let handled = crate::rematch::create(&mut store, &api.body, &mut ctx);
            return self.after(handled).await;
        }
        if api.path == ABANDON_PATH {
            let call: AbandonCall = match serde_json::from_slice(&api.body) {
                Ok(c) => c,
                Err(e) => return glue::error(&ApiError::bad_request("invalid_body", e.to_string())),
            };
            let mut ids = vec![call.player.as_str()];
            ids.extend(call.aliases.iter().map(String::as_str));
            let handled = game::abandon_as(&mut store, &ids, &mut ctx);
            return self.after_abandon(handled).await;
        }
        if api.path == WITHDRAW_PATH {
            let handled = game::withdraw(&mut store, &mut ctx);
            return self.after(handled).await;
        }
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
            let handled = crate::rematch::handle(&self.env, &req, &api, &mut store, &mut ctx).await;
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
        // One alarm for every timer: the deadline, the idle end, the D1 retry.
        let handled = game::alarm_with(&mut SqlStore(&self.sql), &mut ctx, &config::timers(&self.env));
        let Handled { response, effects, record } = handled;
        if let Some(rec) = &record {
            self.apply(&effects, rec, true).await;
        }
        glue::response(&response)
    }

    async fn websocket_message(&self, ws: WebSocket, message: WebSocketIncomingMessage) -> Result<()> {
        // Clients may ask for the state again ("state"); anything else is ignored.
        if matches!(message, WebSocketIncomingMessage::String(ref s) if s.trim() == "state") {
            if let Ok(Some(rec)) = SqlStore(&self.sql).load() {
                if let Some(msg) = state_message(&rec) {
                    let _ = ws.send_with_str(msg);
                }
            }
        }
        Ok(())
    }

    async fn websocket_close(&self, ws: WebSocket, code: usize, reason: String, _clean: bool) -> Result<()> {
        let code =
            if (1000..5000).contains(&code) && code != 1005 && code != 1006 { code as u16 } else { 1000 };
        let _ = ws.close(Some(code), Some(reason));
        self.socket_gone(&ws).await;
        Ok(())
    }

    async fn websocket_error(&self, ws: WebSocket, _error: worker::Error) -> Result<()> {
        self.socket_gone(&ws).await;
        Ok(())
    }
}

/// `{"type":"state","state":<view>}` for WebSockets.
fn state_message(rec: &GameRecord) -> Option<String> {
    let game = rec.replay().ok()?;
    serde_json::to_string(&service::model::StateMessage { state: rec.view(&game) }).ok()
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
            config::AiEngine::Network => Box::new(crate::net::NetAi),
            #[cfg(feature = "net")]
            config::AiEngine::Hybrid => Box::new(crate::net::HybridNetAi),
            #[cfg(not(feature = "net"))]
            config::AiEngine::Hybrid => Box::new(service::ai::HybridAi),
            _ => Box::new(MctsAi),
        }
    }

    async fn upgrade(&self, req: &Request, store: &mut SqlStore<'_>, ctx: &mut Ctx<'_>) -> Result<Response> {
        let is_ws =
            req.headers().get("Upgrade").ok().flatten().is_some_and(|u| u.eq_ignore_ascii_case("websocket"));
        if !is_ws {
            return glue::error(&ApiError::new(426, "upgrade_required", "this route speaks WebSocket only"));
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
                return glue::error(&ApiError::new(503, "no_randomness", format!("{e}")));
            }
        };
        let pair = WebSocketPair::new()?;
        self.state.accept_websocket_with_tags(&pair.server, &[&tag, &sock]);
        // A (re)connecting client gets the current state at once.
        if let Some(msg) = state_message(&rec) {
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

    /// Carries out the effects of a handled request, then answers it. The record is
    /// already saved; what follows (alarm, pushes, D1) cannot lose a move.
    async fn after(&self, handled: Handled) -> Result<Response> {
        let Handled { response, effects, record } = handled;
        if let Some(rec) = &record {
            self.apply(&effects, rec, false).await;
        }
        glue::response(&response)
    }

    /// [`ABANDON_PATH`]'s answer. The caller forgets its stage game once this answers
    /// 200, and only the current stage game's result counts
    /// (`service::players::record_stage`), so a game that still owes D1 its result (a
    /// failed write awaiting its retry, or this request's own) writes it first; if that
    /// fails the answer is 503, and the stage stays current for the alarm's retry.
    async fn after_abandon(&self, handled: Handled) -> Result<Response> {
        let Handled { response, effects, record } = handled;
        let Some(rec) = &record else { return glue::response(&response) };
        self.apply(&effects, rec, false).await;
        if response.status != 200 {
            return glue::response(&response);
        }
        let mut owed = match SqlStore(&self.sql).load() {
            Ok(Some(r)) => r,
            _ => rec.clone(),
        };
        if owed.outbox.is_some() && !effects.changed {
            self.flush(&owed, &config::timers(&self.env)).await;
            owed = SqlStore(&self.sql).load().ok().flatten().unwrap_or(owed);
        }
        if owed.outbox.is_some() {
            return glue::error(&ApiError::new(
                503,
                "result_not_recorded",
                "the stage game's result is not recorded yet; it will be retried",
            ));
        }
        glue::response(&response)
    }

    /// After a change (or any alarm, `woken`): arms the one alarm, pushes the state, and
    /// writes what the game owes D1 (its outbox). The alarm is armed *before* D1 is
    /// written, so a crash in between leaves the retry scheduled.
    async fn apply(&self, fx: &Effects, rec: &GameRecord, woken: bool) {
        let timers = config::timers(&self.env);
        if fx.changed || woken {
            self.arm(rec, &timers).await;
        }
        if fx.changed {
            if let Some(msg) = state_message(rec) {
                for ws in self.state.get_websockets() {
                    let _ = ws.send_with_str(&msg);
                }
            }
        }
        if rec.outbox.is_some() && (fx.changed || woken) {
            self.flush(rec, &timers).await;
        }
        if fx.changed {
            crate::me_games::sync(&self.env, rec, fx.created || fx.finished).await;
            crate::push::after_change(&self.env, &self.sql, rec).await;
        }
    }

    /// The game's D1 row; once finished, its story progress and ratings (each idempotent).
    async fn write_index(db: &worker::D1Database, rec: &GameRecord, ip_hash: Option<&str>) -> Result<()> {
        index::upsert(db, rec, ip_hash).await?;
        if rec.result.is_some() {
            if rec.stage.is_some() {
                let won = rec
                    .replay()
                    .ok()
                    .and_then(|g| rec.stage_verdict(&g))
                    .is_some_and(|v| v == service::story::Verdict::Won);
                index::record_stage(db, rec, won, glue::now_ms()).await?;
            }
            if rec.rated {
                index::apply_rating(db, rec, glue::now_ms()).await?;
            }
        }
        Ok(())
    }

    /// [`WAKE_PATH`]: arms the one alarm for the game's timers (a due one fires at once)
    /// and writes what it owes D1. 404 for a game that does not exist.
    async fn wake(&self) -> Result<Response> {
        match SqlStore(&self.sql).load() {
            Ok(Some(rec)) => {
                self.apply(&Effects::default(), &rec, true).await;
                Response::from_json(&serde_json::json!({ "woken": true }))
            }
            Ok(None) => glue::error(&ApiError::not_found("no such game")),
            Err(e) => glue::error(&ApiError::internal(format!("storage: {e}"))),
        }
    }

    /// Sets the alarm for the earliest timer of `rec` (deadline, idle end, D1 retry), or
    /// deletes it when none is left.
    async fn arm(&self, rec: &GameRecord, timers: &Timers) {
        let storage = self.state.storage();
        let done = match upkeep::next_alarm(rec, timers) {
            Some(at) => storage.set_alarm((at - glue::now_ms()).max(0)).await,
            None => storage.delete_alarm().await,
        };
        if let Err(e) = done {
            worker::console_error!("setting the alarm failed for {}: {e}", rec.id);
        }
    }

    /// Writes what the game owes D1 (idempotent writes), then clears the outbox mark it
    /// wrote — on the freshest record, as another request may have marked it again while
    /// D1 was awaited — or counts the failure, and re-arms the alarm.
    async fn flush(&self, rec: &GameRecord, timers: &Timers) {
        let Some(ob) = rec.outbox.clone() else { return };
        let injected =
            |when: &str| Err(worker::Error::RustError(format!("injected D1 fault ({when} writing)")));
        let written = match config::d1_fault(&self.env, ob.attempts) {
            config::D1Fault::Crash => return,
            config::D1Fault::Before => injected("before"),
            fault => {
                let done = match self.env.d1("DB") {
                    Ok(db) => Self::write_index(&db, rec, ob.ip_hash.as_deref()).await,
                    Err(e) => Err(e),
                };
                if fault == config::D1Fault::After && done.is_ok() {
                    injected("after")
                } else {
                    done
                }
            }
        };
        let mut store = SqlStore(&self.sql);
        let mut fresh = match store.load() {
            Ok(Some(r)) => r,
            _ => return, // the alarm stays armed for the retry
        };
        match written {
            Ok(()) => {
                upkeep::flushed(&mut fresh, ob.seq);
            }
            Err(e) => {
                worker::console_error!("D1 write failed for {} (attempt {}): {e}", rec.id, ob.attempts + 1);
                upkeep::failed(&mut fresh, ob.seq, glue::now_ms());
            }
        }
        if let Err(e) = store.save(&fresh) {
            worker::console_error!("saving the outbox failed for {}: {e}", rec.id);
        }
        self.arm(&fresh, timers).await;
    }
}
