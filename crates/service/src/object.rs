//! A game's Durable Object, less the runtime: what it does after a request (arm the one
//! alarm, push the state, write what it owes D1), the outbox's flush, the answer to an
//! Exit Stage, the alarm and the housekeeping's wake-up. The Worker's object
//! (`src/game_object.rs`) binds [`Runtime`] (its alarm, its sockets, the notifications)
//! and [`Owed`] (D1), and runs these; the native tests bind memory and SQLite.

use crate::error::{ApiError, ErrorCode};
use crate::game::{self, Ctx, Effects, Handled};
use crate::http::{ApiResponse, Method};
use crate::model::{GameRecord, Mode, StateMessage};
use crate::ports::{paths, AbandonCall, CreateCall};
use crate::rematch::RematchCall;
use crate::sql::{Sql, StoreError};
use crate::store::GameStore;
use crate::upkeep::{self, Timers};

/// The object's own runtime.
#[allow(async_fn_in_trait)] // single-threaded wasm: callers never need the futures to be Send
pub trait Runtime {
    /// Sets the one alarm at `at` (ms since the epoch), or deletes it (`None`). A failure
    /// is the runtime's to log: the next change or wake-up sets it again.
    async fn set_alarm(&self, at: Option<i64>);
    /// Sends a message to every open socket of the game.
    fn broadcast(&self, msg: &str);
    /// After a change: "My games" and the notifications (best effort: never undoes it).
    async fn changed(&self, rec: &GameRecord, indexed: bool);
    fn log(&self, line: &str);
}

/// Why the owed writes did not happen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteError {
    /// A write failed: the mark stays, the failure is counted, the alarm retries.
    Failed(String),
    /// The request died before the writes (tests: `FAULT_D1 = "crash"`): nothing after.
    Died,
}

impl From<StoreError> for WriteError {
    fn from(e: StoreError) -> WriteError {
        WriteError::Failed(e.0)
    }
}

/// Where a game's owed writes go (D1).
#[allow(async_fn_in_trait)]
pub trait Owed {
    /// Writes what `rec` owes (idempotent: a retry applies nothing twice).
    async fn write(&self, rec: &GameRecord, ip_hash: Option<&str>) -> Result<(), WriteError>;
}

/// What a game owes D1: its index row; once finished, its stage's progress and badge and
/// its players' ratings (each exactly once, see [`crate::players`]).
pub async fn write_owed(
    db: &impl Sql,
    rec: &GameRecord,
    ip_hash: Option<&str>,
    now: i64,
) -> Result<(), StoreError> {
    crate::db::index::upsert(db, rec, ip_hash).await?;
    if rec.result.is_some() {
        let players = crate::sql_players::SqlPlayers(db);
        if rec.stage.is_some() {
            let won = rec
                .replay()
                .ok()
                .and_then(|g| rec.stage_verdict(&g))
                .is_some_and(|v| v == crate::story::Verdict::Won);
            crate::players::record_stage(&players, rec, won, now).await?;
        }
        if rec.rated {
            crate::players::apply_rating(&players, rec, now).await?;
        }
    }
    Ok(())
}

/// `{"type":"state","state":<view>}`, what every socket is sent.
pub fn state_message(rec: &GameRecord) -> Option<String> {
    let game = rec.replay().ok()?;
    serde_json::to_string(&StateMessage { state: rec.view(&game) }).ok()
}

/// The game's state message kept in memory between the object's events, so a socket's
/// `state` frame (a client asking again) is answered without a replay of the game. The
/// record changes only inside a request or an alarm: the memory is dropped as one begins
/// ([`StateMemory::begin`]) and kept only when made while none is under way.
#[derive(Debug, Default)]
pub struct StateMemory {
    busy: u32,
    msg: Option<String>,
}

impl StateMemory {
    /// A request or an alarm begins: it may change the record.
    pub fn begin(&mut self) {
        self.busy += 1;
        self.msg = None;
    }

    pub fn end(&mut self) {
        self.busy = self.busy.saturating_sub(1);
    }

    pub fn get(&self) -> Option<&str> {
        self.msg.as_deref()
    }

    /// Keeps `msg`, made from the record as stored, unless an event is under way.
    pub fn keep(&mut self, msg: &str) {
        if self.busy == 0 {
            self.msg = Some(msg.to_owned());
        }
    }
}

/// A call from the Worker to a game's object, by its internal path.
#[derive(Clone, Debug, PartialEq)]
pub enum Internal {
    Create(Box<CreateCall>),
    Rematch(Box<RematchCall>),
    Abandon(AbandonCall),
    Withdraw,
    Status,
}

/// An internal call's body: the Worker wrote it, but it is read as strictly as a client's
/// (no repeated key, `crate::http::unique_json`).
fn body<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    let invalid = |e: serde_json::Error| ApiError::new(ErrorCode::InvalidBody, e.to_string());
    serde_json::from_value(crate::http::unique_json(body).map_err(invalid)?).map_err(invalid)
}

/// The internal call at `path` with `body`; `Ok(None)` for any other path (a public
/// route of the game).
pub fn internal(path: &str, body_bytes: &[u8]) -> Result<Option<Internal>, ApiError> {
    Ok(Some(match path {
        paths::CREATE => Internal::Create(Box::new(body(body_bytes)?)),
        paths::REMATCH => Internal::Rematch(Box::new(body(body_bytes)?)),
        paths::ABANDON => Internal::Abandon(body(body_bytes)?),
        paths::WITHDRAW => Internal::Withdraw,
        paths::STATUS => Internal::Status,
        _ => return Ok(None),
    }))
}

/// Whether this request can make an AI move, so the network must be loaded first: a
/// creation of an AI game (the AI opens when the creator takes North), a rematch's
/// creation, and a move in an AI game (`stored` reads the game's mode, only then).
pub fn may_move_ai(
    call: Option<&Internal>,
    method: Method,
    path: &str,
    stored: impl FnOnce() -> Option<Mode>,
) -> bool {
    match call {
        Some(Internal::Create(c)) => c.game.mode == Mode::Ai,
        Some(Internal::Rematch(_)) => true,
        Some(_) => false,
        None => {
            matches!(game::route(method, path), Ok((_, game::Route::Moves))) && stored() == Some(Mode::Ai)
        }
    }
}

/// One game's object, for the length of a request or an alarm.
#[allow(missing_debug_implementations)] // holds the runtime's handles, which are not Debug
pub struct Object<'a, R, O> {
    pub store: &'a mut dyn GameStore,
    pub runtime: &'a R,
    pub owed: &'a O,
    pub timers: Timers,
    pub now: i64,
}

impl<R: Runtime, O: Owed> Object<'_, R, O> {
    /// Carries out a handled request's effects (the record is saved already: nothing
    /// here can lose a move), then gives its answer.
    pub async fn after(&mut self, handled: Handled) -> ApiResponse {
        let Handled { response, effects, record } = handled;
        if let Some(rec) = &record {
            self.apply(&effects, rec, false).await;
        }
        response
    }

    /// After a change (or any alarm or wake-up, `woken`): arms the one alarm, pushes the
    /// state, and writes what the game owes D1. The alarm is armed *before* D1 is
    /// written, so a crash in between leaves the retry scheduled. It is armed too after
    /// a request that changed nothing while the game owes D1: the request that marked the
    /// outbox may have died before it armed anything (an AI move awaits the limiter
    /// between its save and this), and its client's retry, answered from the kept reply,
    /// is what comes next.
    pub async fn apply(&mut self, fx: &Effects, rec: &GameRecord, woken: bool) {
        if fx.changed || woken || rec.outbox.is_some() {
            self.arm(rec).await;
        }
        if fx.changed {
            if let Some(msg) = state_message(rec) {
                self.runtime.broadcast(&msg);
            }
        }
        // What the outbox owes includes the index row (a creation, a join, an end): the
        // change's own sync need not write it again.
        let owed = rec.outbox.is_some();
        let flushed = owed && (fx.changed || woken);
        if flushed {
            self.flush(rec).await;
        }
        if fx.changed {
            // After a flush, the freshest record: the flush awaited D1, and a request
            // handled meanwhile may have changed the game and told its players; notices
            // worked out from this request's older record would store an older "seen" and
            // tell them again. Without one (a move owes D1 nothing) nothing ran in between,
            // so the record is not read again.
            let fresh = if flushed { self.store.load().ok().flatten() } else { None };
            let rec = fresh.as_ref().unwrap_or(rec);
            self.runtime.changed(rec, fx.created || fx.finished || owed).await;
        }
    }

    /// Sets the alarm for the earliest timer of `rec` (deadline, idle end, D1 retry), or
    /// deletes it when none is left.
    async fn arm(&self, rec: &GameRecord) {
        self.runtime.set_alarm(upkeep::next_alarm(rec, &self.timers)).await;
    }

    /// Writes what the game owes D1, then clears the outbox mark it wrote — on the
    /// freshest record, as another request may have marked it again while D1 was
    /// awaited — or counts the failure, and re-arms the alarm.
    pub async fn flush(&mut self, rec: &GameRecord) {
        let Some(ob) = rec.outbox.clone() else { return };
        let written = self.owed.write(rec, ob.ip_hash.as_deref()).await;
        if written == Err(WriteError::Died) {
            return;
        }
        let mut fresh = match self.store.load() {
            Ok(Some(r)) => r,
            _ => return, // the alarm stays armed for the retry
        };
        match written {
            Ok(()) => {
                upkeep::flushed(&mut fresh, ob.seq);
            }
            Err(e) => {
                let why = match e {
                    WriteError::Failed(why) => why,
                    WriteError::Died => String::new(),
                };
                self.runtime.log(&format!(
                    "D1 write failed for {} (attempt {}): {why}",
                    rec.id,
                    ob.attempts + 1
                ));
                upkeep::failed(&mut fresh, ob.seq, self.now);
            }
        }
        if let Err(e) = self.store.save_next(&mut fresh) {
            self.runtime.log(&format!("saving the outbox failed for {}: {e}", rec.id));
        }
        self.arm(&fresh).await;
    }

    /// Runs an internal call from the Worker, its effects carried out.
    pub async fn internal(&mut self, call: Internal, ctx: &mut Ctx<'_>) -> ApiResponse {
        match call {
            Internal::Create(c) => {
                let extra = game::Extra {
                    creator: c.creator,
                    start: c.start,
                    stage: c.stage,
                    ip_hash: Some(c.ip_hash),
                };
                let handled = game::create_with(self.store, &c.id, &c.game, &extra, &c.origin, ctx);
                self.after(handled).await
            }
            Internal::Rematch(c) => {
                let handled = crate::rematch::create(self.store, &c, ctx);
                self.after(handled).await
            }
            Internal::Abandon(c) => {
                let mut ids = vec![c.player.as_str()];
                ids.extend(c.aliases.iter().map(String::as_str));
                let handled = game::abandon_as(self.store, &ids, ctx);
                self.after_abandon(handled).await
            }
            Internal::Withdraw => {
                let handled = game::withdraw(self.store, ctx);
                self.after(handled).await
            }
            // A read: no effects.
            Internal::Status => match self.store.load() {
                Ok(Some(rec)) => ApiResponse::of(200, &crate::me_games::GameStatus::of(&rec)),
                Ok(None) => ApiResponse::error(&ApiError::not_found("no such game")),
                Err(e) => ApiResponse::error(&ApiError::new(ErrorCode::StorageUnavailable, e)),
            },
        }
    }

    /// The answer to an Exit Stage. The caller forgets its stage game once this answers
    /// 200, and only the current stage game's result counts
    /// ([`crate::players::record_stage`]), so a game that still owes D1 its result (a
    /// failed write awaiting its retry, or this request's own) writes it first; if that
    /// fails the answer is 503, and the stage stays current for the alarm's retry.
    pub async fn after_abandon(&mut self, handled: Handled) -> ApiResponse {
        let Handled { response, effects, record } = handled;
        let Some(rec) = &record else { return response };
        self.apply(&effects, rec, false).await;
        if response.status != 200 {
            return response;
        }
        let mut owed = match self.store.load() {
            Ok(Some(r)) => r,
            _ => rec.clone(),
        };
        if owed.outbox.is_some() && !effects.changed {
            self.flush(&owed).await;
            owed = self.store.load().ok().flatten().unwrap_or(owed);
        }
        if owed.outbox.is_some() {
            return ApiResponse::error(&ApiError::new(
                ErrorCode::ResultNotRecorded,
                "the stage game's result is not recorded yet; it will be retried",
            ));
        }
        response
    }

    /// The one alarm: the deadline, the idle end, the D1 retry.
    pub async fn alarm(&mut self, ctx: &mut Ctx<'_>) -> ApiResponse {
        let Handled { response, effects, record } = game::alarm_with(self.store, ctx, &self.timers);
        if let Some(rec) = &record {
            self.apply(&effects, rec, true).await;
        }
        response
    }

    /// The housekeeping's wake-up: arms the one alarm for the game's timers (a due one
    /// fires at once) and writes what it owes D1. 404 for a game that does not exist.
    pub async fn wake(&mut self) -> ApiResponse {
        #[derive(serde::Serialize)]
        struct Woken {
            woken: bool,
        }
        match self.store.load() {
            Ok(Some(rec)) => {
                self.apply(&Effects::default(), &rec, true).await;
                ApiResponse::of(200, &Woken { woken: true })
            }
            Ok(None) => ApiResponse::error(&ApiError::not_found("no such game")),
            Err(e) => ApiResponse::error(&ApiError::internal(format!("storage: {e}"))),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn internal_calls_are_read_strictly_too() {
        let call = internal(paths::ABANDON, br#"{"player":"p","aliases":["g"]}"#).unwrap();
        assert!(matches!(call, Some(Internal::Abandon(AbandonCall { ref player, .. })) if player == "p"));
        let e = internal(paths::ABANDON, br#"{"player":"p","player":"q"}"#).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidBody);
        assert!(e.message.contains("duplicate key \"player\""), "{}", e.message);
        assert_eq!(internal("/api/games/x", b"").unwrap(), None, "a public route");
    }
}
