//! What the service needs of the runtime beyond SQL ([`crate::sql::Sql`]): calls into
//! the games' Durable Objects, the rate limiters, and notifications. The Worker binds
//! them to Durable Object stubs and `fetch` (`crate::objects` over the `crate::host::Host` port); the
//! native tests bind them to games made in memory, so every step of a saga that spans
//! several objects (a challenge's accept, a stage's start, a rematch) is tested
//! natively, failures between the steps included.

use serde::{Deserialize, Serialize};

use crate::create::CreateGame;
use crate::error::ApiError;
use crate::game::{Created, Joined};
use crate::guard::Rate;
use crate::http::{ApiResponse, PlayerRef};
use crate::model::StageRef;
use crate::rematch::RematchCall;

/// The internal paths of a game object's calls from the Worker (never forwarded from a
/// client: the router forwards only `/api/games/{id}/…`).
pub mod paths {
    /// Creation.
    pub const CREATE: &str = "/_internal/create";
    /// Ends a story stage game ("Exit Stage").
    pub const ABANDON: &str = "/_internal/abandon";
    /// Withdraws a stage game the Worker made and never handed out.
    pub const WITHDRAW: &str = "/_internal/withdraw";
    /// Creates an agreed rematch's game in its new object.
    pub const REMATCH: &str = "/_internal/rematch";
    /// The housekeeping's safety net: re-arm the alarm, retry what the game owes D1.
    pub const WAKE: &str = "/_internal/wake";
    /// Where an unfinished game stands (`crate::me_games::GameStatus`), for My games.
    pub const STATUS: &str = "/_internal/status";
}

/// The creation a fresh game object is asked for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CreateCall {
    pub id: String,
    pub game: CreateGame,
    pub origin: String,
    pub ip_hash: String,
    pub creator: Option<PlayerRef>,
    /// Story stages: the stage's position and the stage.
    pub start: Option<engine::Position>,
    pub stage: Option<StageRef>,
}

/// Ends a story stage game ("Exit Stage") for its player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AbandonCall {
    pub player: String,
    /// Guests merged into the player (their stage games name them).
    #[serde(default)]
    pub aliases: Vec<String>,
}

/// A call into a game object that did not succeed.
#[derive(Clone, Debug, PartialEq)]
pub enum CallError {
    /// The object answered with a refusal: its answer, to pass on or to read.
    Refused(ApiResponse),
    /// No answer (the object threw, was evicted, the call failed): whether it did what
    /// it was asked is unknown.
    NoAnswer(String),
}

pub type CallResult<T> = Result<T, CallError>;

/// The games' Durable Objects, one per game id.
#[allow(async_fn_in_trait)] // single-threaded wasm: callers never need the futures to be Send
pub trait Games {
    /// Makes the game `call.id` (201 and the creator's seat).
    async fn create(&self, call: &CreateCall) -> CallResult<Created>;
    /// Makes a creation's answer as it is, to pass on (a stage's start answers with it).
    async fn create_answer(&self, call: &CreateCall) -> CallResult<ApiResponse>;
    /// Joins `game` with its invite, for `player` (the joiner's seat).
    async fn join(&self, game: &str, invite: &str, player: &PlayerRef) -> CallResult<Joined>;
    /// Ends a stage game for its player (200, or 404: there is none); a refusal is `Refused`.
    async fn abandon(&self, game: &str, call: &AbandonCall) -> CallResult<()>;
    /// Withdraws a game made and never handed out.
    async fn withdraw(&self, game: &str) -> CallResult<()>;
    /// Makes an agreed rematch's game (idempotent for the same call).
    async fn create_rematch(&self, call: &RematchCall) -> CallResult<()>;
    /// Where `game` stands (`Refused` with 404 when there is no such game).
    async fn status(&self, game: &str) -> CallResult<crate::me_games::GameStatus> {
        Err(CallError::NoAnswer(format!("{game}: status is not offered here")))
    }
}

/// The rate limiters (Durable Objects, one per bucket name): counted atomically where
/// the limit is decided.
#[allow(async_fn_in_trait)]
pub trait Limiter {
    /// One more hit on bucket `name`; refused (429 / 503, `why` as the message) past its rate.
    async fn hit(&self, name: &str, rate: Rate, why: &str) -> Result<(), ApiError>;
    /// A hit of weight `cost`, admitted whole or not at all (the bindings to a limiter
    /// object do it in one call; this default, for stand-ins, hits `cost` times).
    async fn hit_cost(&self, name: &str, rate: Rate, cost: u32, why: &str) -> Result<(), ApiError> {
        for _ in 0..cost.max(1) {
            self.hit(name, rate, why).await?;
        }
        Ok(())
    }
}

/// Best-effort notifications (Web Push, Discord DM, the lobby's live list): a failure is
/// logged by the adapter and never changes an answer.
#[allow(async_fn_in_trait)]
pub trait Notifier {
    /// The poster of a challenge: it was accepted, and `game` has begun.
    async fn challenge_accepted(&self, poster: &str, game: &str);
    /// The open-challenge list changed.
    async fn lobby_changed(&self);
}

/// The capacity check every creation passes before anything is made: the rates per
/// address bucket and overall (the limiters), then a place among the unfinished games
/// overall and of the creator, reserved for game `game` in the check itself (so parallel
/// creations cannot pass on the same counts). The address bucket's keyed hash (what the
/// index stores) when admitted.
#[allow(async_fn_in_trait)]
pub trait Capacity {
    async fn admit(&self, game: &str, creator: Option<&str>) -> Result<String, ApiError>;
    /// Gives back game `game`'s place: its creation was refused, nothing was made (best
    /// effort: a place not given back is swept after `crate::db::index::RESERVATION_MS`).
    async fn release(&self, game: &str);
}
