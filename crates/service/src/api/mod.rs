//! The API's areas as handlers over a [`Host`] and an [`Incoming`] request: accounts and
//! sign-in, open challenges, players' pages and stories, notifications' settings, "My
//! games", game creation and the housekeeping. The Worker reads a request into
//! [`Incoming`] and writes the [`Answer`] back (`src/router.rs`); everything between is
//! here, tested natively (tests/api.rs). A game's own requests go to its object
//! ([`crate::game`], [`crate::object`]), not through here.

use crate::error::ApiError;
use crate::host::Host;
use crate::http::{ApiResponse, Method};
use crate::routes::Area;

mod accounts;
mod challenges;
mod create;
pub mod housekeeping;
mod me;
mod players;
mod session;

pub use me::{changed, forwarded, resolve_alias};
pub use session::current_player;

/// A request as the API reads it, before its body is read (a route, its limits and its
/// session are checked first: a refused client costs no parsing).
#[allow(async_fn_in_trait)]
pub trait Incoming {
    fn method(&self) -> Method;
    fn path(&self) -> String;
    /// The URL's query, without `?` (empty if none).
    fn query(&self) -> String;
    /// `https://host` of the request.
    fn origin(&self) -> Result<String, ApiError>;
    fn header(&self, name: &str) -> Option<String>;
    /// The client's address, only from where the platform puts it
    /// ([`crate::host::client_ip`]).
    fn client_ip(&self) -> Option<String> {
        crate::host::client_ip(&self.origin().unwrap_or_default(), self.header(crate::host::CLIENT_IP_HEADER))
    }
    /// The body, at most `crate::http::MAX_BODY_BYTES` (413 past it).
    async fn body(&mut self) -> Result<Vec<u8>, ApiError>;
}

/// An answer and the headers a handler adds to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    pub response: ApiResponse,
    /// `Set-Cookie` values, in order.
    pub cookies: Vec<String>,
    /// A redirect's target (the status is 302).
    pub location: Option<String>,
}

impl Answer {
    pub fn of<T: serde::Serialize + ?Sized>(status: u16, body: &T) -> Answer {
        Answer::from(ApiResponse::of(status, body))
    }

    /// 200 with `body`, setting the session cookie when the session is new.
    pub fn ok<T: serde::Serialize + ?Sized>(body: &T, cookie: Option<String>) -> Answer {
        Answer { cookies: cookie.into_iter().collect(), ..Answer::of(200, body) }
    }

    fn redirect(to: &str, cookie: Option<String>) -> Answer {
        Answer {
            response: ApiResponse::text(302, String::new()),
            cookies: cookie.into_iter().collect(),
            location: Some(to.to_owned()),
        }
    }
}

impl From<ApiResponse> for Answer {
    fn from(response: ApiResponse) -> Answer {
        Answer { response, cookies: Vec::new(), location: None }
    }
}

pub type Res = Result<Answer, ApiError>;

/// The answer of `area` (one the Worker does not answer itself: the OpenAPI document,
/// health, the benchmark, a game's own routes and the lobby's socket are its).
pub async fn handle(h: &impl Host, area: Area, req: &mut impl Incoming) -> Answer {
    let path = req.path();
    let answer = match area {
        Area::CreateGame => create::create(h, req).await,
        Area::MyGames => me::games(h, req).await,
        Area::Challenges => challenges::handle(h, req, &path).await,
        Area::DiscordDm => me::discord_dm(h, req).await,
        Area::Push => me::push(h, req, &path).await,
        Area::Lessons => me::lessons(h, req, &path).await,
        Area::Accounts => accounts::handle(h, req, &path).await,
        Area::Players => players::handle(h, req, &path).await,
        Area::OpenApi | Area::Health | Area::AiBench | Area::Game => {
            Err(ApiError::not_found(format!("no route {path}")))
        }
    };
    answer.unwrap_or_else(|e| ApiResponse::error(&e).into())
}

/// A body read and parsed as `T` (`deny_unknown_fields` types: 400 naming the problem).
async fn json<T: serde::de::DeserializeOwned>(req: &mut impl Incoming) -> Result<T, ApiError> {
    crate::http::parse_json(&req.body().await?)
}

/// The keyed hash of the request's client address bucket (`crate::host::ip_key`).
pub fn ip_key(h: &impl Host, req: &impl Incoming) -> String {
    crate::host::ip_key(h, req.client_ip().as_deref())
}

/// In the router, before a game's object is woken (`crate::admission::route_limits`).
pub async fn route_limits(h: &impl Host, req: &impl Incoming, path: &str) -> Result<(), ApiError> {
    let limits = crate::host::settings(h).limits;
    let limiter = crate::objects::Limiters(h);
    crate::admission::route_limits(&limiter, limits, &ip_key(h, req), req.method(), path).await
}

/// A move in an unfinished AI game costs the server a search (`crate::admission`): the
/// address bucket's move rate and cost budget are charged, then `f` (which may search)
/// runs under one of the bucket's search leases (`crate::objects::Limiters::search_begin`),
/// handed back after it. Anything else runs `f` as it is.
pub async fn ai_move<T>(
    h: &impl Host,
    req: &impl Incoming,
    rec: Option<&crate::model::GameRecord>,
    f: impl FnOnce() -> T,
) -> Result<T, ApiError> {
    let Some(rec) = rec.filter(|r| r.mode == crate::model::Mode::Ai && r.result.is_none()) else {
        return Ok(f());
    };
    let (limits, key) = (crate::host::settings(h).limits, ip_key(h, req));
    let limiter = crate::objects::Limiters(h);
    crate::admission::ai_move_limit(&limiter, limits, &key, Some(rec)).await?;
    searching(h, &key, &rec.id, limits.ai_searches_per_ip, f).await
}

/// A rematch of an AI game may open with an AI move (the sides swap): metered by cost
/// like a move, for address bucket `key`, and `f` (the rematch's saga) run under one of
/// the bucket's search leases, like any search.
pub async fn ai_rematch<T>(
    h: &impl Host,
    key: &str,
    rec: Option<&crate::model::GameRecord>,
    f: impl std::future::Future<Output = T>,
) -> Result<T, ApiError> {
    let Some(rec) = rec.filter(|r| r.mode == crate::model::Mode::Ai) else { return Ok(f.await) };
    metered_search(h, key, rec.level, &rec.id, f).await
}

/// A story stage whose AI side moves first opens with a search inside its creation:
/// metered by the stage's level like a new game's opening, and `f` (the stage's saga) run
/// under one of address bucket `key`'s search leases (named `lease`, unique to the call).
pub async fn ai_stage_opening<T>(
    h: &impl Host,
    key: &str,
    stage: &crate::story::Stage,
    lease: &str,
    f: impl std::future::Future<Output = T>,
) -> Result<T, ApiError> {
    if stage.position.turn() == stage.side {
        return Ok(f.await); // the player moves first
    }
    metered_search(h, key, Some(stage.level), lease, f).await
}

/// `f`, a saga whose AI search opens a game, charged to address bucket `key`'s AI budget
/// by `level`'s cost, then run under one of the bucket's search leases (named `lease`).
async fn metered_search<T>(
    h: &impl Host,
    key: &str,
    level: Option<u8>,
    lease: &str,
    f: impl std::future::Future<Output = T>,
) -> Result<T, ApiError> {
    let limits = crate::host::settings(h).limits;
    let limiter = crate::objects::Limiters(h);
    crate::admission::ai_cost_limit(&limiter, limits, key, level).await?;
    limiter.search_begin(key, lease, limits.ai_searches_per_ip).await?;
    let out = f.await;
    limiter.search_done(key, lease).await;
    Ok(out)
}

/// `f` under one of address bucket `key`'s AI search leases, for game `game`.
pub async fn searching<T>(
    h: &impl Host,
    key: &str,
    game: &str,
    cap: u32,
    f: impl FnOnce() -> T,
) -> Result<T, ApiError> {
    let limiter = crate::objects::Limiters(h);
    limiter.search_begin(key, game, cap).await?;
    let out = f();
    limiter.search_done(key, game).await;
    Ok(out)
}
