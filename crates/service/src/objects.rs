//! The service's ports ([`crate::ports`]) over a [`Host`]: calls into the games' Durable
//! Objects (one per game id) on internal paths with typed bodies, the rate limiters' and
//! the socket leases' objects, the creation capacity check, and the notifications.

use serde::de::DeserializeOwned;

use crate::error::ApiError;
use crate::game::{Created, Joined};
use crate::guard::{self, Decision, Rate};
use crate::host::{Host, Namespace};
use crate::http::{ApiResponse, PlayerRef};
use crate::ports::{
    paths, AbandonCall, CallError, CallResult, Capacity, CreateCall, Games, Limiter, Notifier,
};
use crate::rematch::RematchCall;

/// The header that carries the session's player from the Worker to a game's Durable
/// Object. The router removes it from every incoming request before setting it, so a
/// client can never claim a player this way.
pub const PLAYER_HEADER: &str = "X-Iron-Player";

/// Carries the ids of guests merged into the session's player (comma-separated), from the
/// Worker to a game's Durable Object. Stripped from every incoming request by the router.
pub const ALIASES_HEADER: &str = "X-Iron-Player-Aliases";

/// [`PLAYER_HEADER`]'s value: `<id>` or `<id>;linked`.
pub fn player_header_value(p: &PlayerRef) -> String {
    if p.linked {
        format!("{};linked", p.id)
    } else {
        p.id.clone()
    }
}

/// Reads [`PLAYER_HEADER`], inside the Durable Object only.
pub fn forwarded_player(value: Option<&str>) -> Option<PlayerRef> {
    let v = value?;
    let (id, linked) = match v.split_once(';') {
        Some((id, "linked")) => (id, true),
        Some(_) => return None,
        None => (v, false),
    };
    crate::game::valid_id(id).then(|| PlayerRef { id: id.to_owned(), linked })
}

/// The games' objects, as the [`Games`] port.
#[derive(Debug)]
pub struct GameObjects<'a, H>(pub &'a H);

fn no_answer(e: impl std::fmt::Display) -> CallError {
    CallError::NoAnswer(e.to_string())
}

impl<H: Host> GameObjects<'_, H> {
    /// Sends `body` to game `id`'s object at `path` (with `player` as the session's
    /// player, for a join); its status and text. Every failed call is logged here, once,
    /// with what it was: the sagas that make them only decide what it means.
    pub async fn send(
        &self,
        id: &str,
        path: &str,
        body: String,
        player: Option<&PlayerRef>,
    ) -> CallResult<(u16, String)> {
        let headers: Vec<(&str, String)> =
            player.map(|p| (PLAYER_HEADER, player_header_value(p))).into_iter().collect();
        match self.0.object(Namespace::Games, id, path, body, &headers).await {
            Ok((status, text)) => {
                if status >= 400 {
                    self.0.log(&format!("game {id} {path}: refused with {status}"));
                }
                Ok((status, text))
            }
            Err(why) => {
                self.0.log(&format!("game {id} {path}: no answer: {why}"));
                Err(CallError::NoAnswer(why))
            }
        }
    }

    pub async fn call(
        &self,
        id: &str,
        path: &str,
        body: &impl serde::Serialize,
    ) -> CallResult<(u16, String)> {
        let body = serde_json::to_string(body).map_err(no_answer)?;
        self.send(id, path, body, None).await
    }
}

/// An answer in the service's form, to pass on.
pub fn answer((status, body): (u16, String)) -> CallResult<ApiResponse> {
    ApiResponse::relayed(status, body).map_err(no_answer)
}

/// An answer whose status is `ok`: its body as `T`; any other: refused, as it answered.
fn typed<T: DeserializeOwned>(reply: (u16, String), ok: u16) -> CallResult<T> {
    if reply.0 != ok {
        return Err(CallError::Refused(answer(reply)?));
    }
    serde_json::from_str(&reply.1).map_err(no_answer)
}

/// Refused unless the status is one of `ok`.
fn status_in(reply: (u16, String), ok: &[u16]) -> CallResult<()> {
    if ok.contains(&reply.0) {
        Ok(())
    } else {
        Err(CallError::Refused(answer(reply)?))
    }
}

impl<H: Host> Games for GameObjects<'_, H> {
    async fn create(&self, call: &CreateCall) -> CallResult<Created> {
        typed(self.call(&call.id, paths::CREATE, call).await?, 201)
    }

    async fn create_answer(&self, call: &CreateCall) -> CallResult<ApiResponse> {
        answer(self.call(&call.id, paths::CREATE, call).await?)
    }

    async fn join(&self, game: &str, invite: &str, player: &PlayerRef) -> CallResult<Joined> {
        #[derive(serde::Serialize)]
        struct Join<'a> {
            invite: &'a str,
        }
        let body = serde_json::to_string(&Join { invite }).map_err(no_answer)?;
        typed(self.send(game, &format!("/api/games/{game}/join"), body, Some(player)).await?, 200)
    }

    async fn abandon(&self, game: &str, call: &AbandonCall) -> CallResult<()> {
        status_in(self.call(game, paths::ABANDON, call).await?, &[200, 404])
    }

    async fn withdraw(&self, game: &str) -> CallResult<()> {
        status_in(self.call(game, paths::WITHDRAW, &crate::http::Empty {}).await?, &[200])
    }

    async fn status(&self, game: &str) -> CallResult<crate::me_games::GameStatus> {
        typed(self.call(game, paths::STATUS, &crate::http::Empty {}).await?, 200)
    }

    async fn create_rematch(&self, call: &RematchCall) -> CallResult<()> {
        // Tests only (`test-hooks`, never in the deployed module): as if this request died
        // between the reservation and the creation.
        #[cfg(feature = "test-hooks")]
        if self.0.var("FAULT_REMATCH").as_deref() == Some("crash") {
            return Err(no_answer("injected crash (FAULT_REMATCH)"));
        }
        status_in(self.call(&call.id, paths::REMATCH, call).await?, &[201])
    }
}

/// The rate limiters' objects, as the [`Limiter`] port, and the socket leases.
#[derive(Debug)]
pub struct Limiters<'a, H>(pub &'a H);

use crate::local::limiter_paths;

/// How long an AI search's lease holds if its end is never reported (a search is at most
/// a few seconds).
pub const SEARCH_LEASE_MS: i64 = 30_000;

impl<H: Host> Limiters<'_, H> {
    async fn decide(&self, name: &str, path: &str) -> Result<Decision, String> {
        let (status, text) = self.0.object(Namespace::Limiter, name, path, String::new(), &[]).await?;
        if status != 200 {
            return Err(format!("limiter answered {status}"));
        }
        serde_json::from_str(&text).map_err(|e| e.to_string())
    }

    /// Asks the address bucket `tag`'s limiter for one more open socket in game `game`
    /// (which holds `have` from the bucket now): `Ok`, or 503 `server_busy` with
    /// `Retry-After` over `cap` (also when the limiter cannot be reached).
    pub async fn ws_acquire(&self, tag: &str, game: &str, have: u32, cap: u32) -> Result<(), ApiError> {
        let q = format!("{}?game={game}&count={have}&cap={cap}", limiter_paths::WS_ACQUIRE);
        match self.decide(&format!("wsopen:{tag}"), &q).await {
            Ok(d) if d.allowed => Ok(()),
            Ok(d) => Err(guard::busy("too many live connections open from your address", d.retry_after_s)),
            Err(e) => {
                self.0.log(&format!("socket limiter for {tag} unavailable: {e}"));
                Err(guard::busy("the limiter is unavailable", 5))
            }
        }
    }

    /// One AI search at a time per game, at most `cap` at once per address bucket
    /// (`ip_key`): a lease of [`SEARCH_LEASE_MS`] in the bucket's `aisearch:` limiter,
    /// handed back by [`Limiters::search_done`] (or lapsing, if that report is lost).
    pub async fn search_begin(&self, ip_key: &str, game: &str, cap: u32) -> Result<(), ApiError> {
        let q =
            format!("{}?game={game}&count=0&cap={cap}&lease_ms={SEARCH_LEASE_MS}", limiter_paths::WS_ACQUIRE);
        match self.decide(&format!("aisearch:{ip_key}"), &q).await {
            Ok(d) if d.allowed => Ok(()),
            Ok(d) => {
                Err(guard::busy("too many AI moves being computed for your address at once", d.retry_after_s))
            }
            Err(e) => {
                self.0.log(&format!("search limiter unavailable: {e}"));
                Err(guard::busy("the limiter is unavailable", 5))
            }
        }
    }

    pub async fn search_done(&self, ip_key: &str, game: &str) {
        let q = format!("{}?game={game}&count=0&lease_ms={SEARCH_LEASE_MS}", limiter_paths::WS_REPORT);
        if let Err(e) = self.decide(&format!("aisearch:{ip_key}"), &q).await {
            self.0.log(&format!("search limiter: report failed: {e}"));
        }
    }

    /// Tells the address bucket `tag`'s limiter how many sockets game `game` holds open
    /// from it (after a close); a failure is logged (the lease lapses on its own).
    pub async fn ws_report(&self, tag: &str, game: &str, count: u32) {
        let q = format!("{}?game={game}&count={count}", limiter_paths::WS_REPORT);
        if let Err(e) = self.decide(&format!("wsopen:{tag}"), &q).await {
            self.0.log(&format!("socket limiter for {tag}: report failed: {e}"));
        }
    }
}

impl<H: Host> Limiter for Limiters<'_, H> {
    /// `Ok` if allowed, 503 `server_busy` with `Retry-After` otherwise (also when the
    /// limiter cannot be reached: refusing is the safe side).
    async fn hit(&self, name: &str, rate: Rate, why: &str) -> Result<(), ApiError> {
        self.hit_cost(name, rate, 1, why).await
    }

    async fn hit_cost(&self, name: &str, rate: Rate, cost: u32, why: &str) -> Result<(), ApiError> {
        let q =
            format!("{}?limit={}&window_ms={}&cost={cost}", limiter_paths::HIT, rate.limit, rate.window_ms);
        match self.decide(name, &q).await {
            Ok(d) if d.allowed => Ok(()),
            Ok(d) => Err(guard::busy(why, d.retry_after_s)),
            Err(e) => {
                self.0.log(&format!("limiter {name} unavailable: {e}"));
                Err(guard::busy("the limiter is unavailable", 5))
            }
        }
    }
}

/// The creation capacity of one client address (`crate::sagas::capacity::admit`).
#[derive(Debug)]
pub struct AddressCapacity<'a, H> {
    pub host: &'a H,
    /// The address bucket's keyed hash ([`crate::host::ip_key`]).
    pub ip_hash: String,
    /// The keyed hashes of its wider buckets (IPv6 /56 and /48, [`crate::host::wider_keys`]).
    pub wider: Vec<String>,
}

impl<'a, H: Host> AddressCapacity<'a, H> {
    /// The capacity of client address `ip` (as the platform reports it).
    pub fn of(host: &'a H, ip: Option<&str>) -> Self {
        AddressCapacity {
            host,
            ip_hash: crate::host::ip_key(host, ip),
            wider: crate::host::wider_keys(host, ip),
        }
    }
}

impl<H: Host> Capacity for AddressCapacity<'_, H> {
    async fn admit(&self, game: &str, creator: Option<&str>) -> Result<String, ApiError> {
        let limits = crate::host::settings(self.host).limits;
        let who =
            crate::sagas::capacity::Creator { ip_hash: &self.ip_hash, wider: &self.wider, player: creator };
        let now = self.host.now_ms();
        crate::sagas::capacity::admit(&Limiters(self.host), self.host.db(), limits, who, game, now).await?;
        Ok(self.ip_hash.clone())
    }

    async fn release(&self, game: &str) {
        if let Err(e) = crate::db::index::release(self.host.db(), game).await {
            self.host.log(&format!("releasing the reservation of {game} failed: {e}"));
        }
    }
}

/// The lobby object's internal path of a change notification (never forwarded from a
/// client).
pub const LOBBY_CHANGED: &str = "/_internal/changed";
/// The lobby's name: there is one.
pub const LOBBY: &str = "lobby";

/// Web Push, Discord DMs and the lobby as the [`Notifier`] port.
#[derive(Debug)]
pub struct Notifications<'a, H>(pub &'a H);

impl<H: Host> Notifier for Notifications<'_, H> {
    async fn challenge_accepted(&self, poster: &str, game: &str) {
        let payload = crate::push::message(
            "challenge_accepted",
            game,
            "Challenge accepted",
            "Your open challenge was accepted: the game has begun",
        );
        let notice = crate::push::Notice { player: poster.to_owned(), kind: "challenge_accepted", payload };
        crate::notify::send(self.0, &notice, game).await;
    }

    /// A failure is logged, never the caller's: the challenge write it follows has succeeded.
    async fn lobby_changed(&self) {
        match self.0.object(Namespace::Lobby, LOBBY, LOBBY_CHANGED, String::new(), &[]).await {
            Ok((200, _)) => {}
            Ok((status, _)) => self.0.log(&format!("lobby notification failed: status {status}")),
            Err(e) => self.0.log(&format!("lobby notification failed: {e}")),
        }
    }
}
