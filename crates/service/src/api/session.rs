//! The session of a request: a guest session (HttpOnly cookie, stored by hash in D1) or a
//! signed-in one. Reads never create a session: a guest is made only by a write that
//! needs a player ([`player_or_guest`]), not by reads or crawlers.

use crate::accounts as acc;
use crate::create::MINUTE_MS;
use crate::error::ApiError;
use crate::guard::Rate;
use crate::host::{Host, HostRandom};
use crate::http::PlayerRef;
use crate::objects::Limiters;
use crate::player_store::PlayerStore;
use crate::players;
use crate::ports::Limiter;
use crate::sql_players::SqlPlayers;
use crate::tokens;

use super::Incoming;

/// The player store over the host's database.
pub fn store<H: Host>(h: &H) -> SqlPlayers<&H::Db> {
    SqlPlayers(h.db())
}

/// The player of this request's session.
pub struct Session {
    pub player: String,
    pub token_hash: String,
    /// `Set-Cookie` to send when the session is new.
    pub cookie: Option<String>,
}

/// The session token in the request's cookie, if any.
pub fn cookie_token(req: &impl Incoming) -> Option<String> {
    acc::session_from_cookie(req.header("Cookie").as_deref())
}

/// This request's live session, if any. Never creates one.
pub async fn session(h: &impl Host, req: &impl Incoming) -> Result<Option<Session>, ApiError> {
    let Some(token) = cookie_token(req) else { return Ok(None) };
    let found = players::session(&store(h), &token, h.now_ms()).await?;
    Ok(found.map(|(player, token_hash)| Session { player, token_hash, cookie: None }))
}

/// This request's session, or a new guest with its session (for writes that need one).
pub async fn session_or_guest(h: &impl Host, req: &impl Incoming) -> Result<Session, ApiError> {
    if let Some(s) = session(h, req).await? {
        return Ok(s);
    }
    // Counted where it is decided (the address bucket's limiter): a burst of cookieless
    // writes cannot mint players and sessions for the per-player limits to start afresh.
    let rate = Rate { limit: crate::host::settings(h).limits.guests_per_ip_per_minute, window_ms: MINUTE_MS };
    let bucket = format!("guest:ip:{}", super::ip_key(h, req));
    Limiters(h).hit(&bucket, rate, "too many new players from your address this minute").await?;
    let (player, token) = players::new_guest(&store(h), &mut HostRandom(h), h.now_ms()).await?;
    Ok(Session { player, token_hash: tokens::hash(&token), cookie: Some(acc::session_cookie(&token)) })
}

/// The session's player, if the request has a live session (never creates one), and
/// whether it is signed in with Discord.
pub async fn current_player(h: &impl Host, req: &impl Incoming) -> Result<Option<PlayerRef>, ApiError> {
    let Some(s) = session(h, req).await? else { return Ok(None) };
    let row = store(h).player(&s.player).await?;
    Ok(row.map(|p| PlayerRef { id: p.id, linked: p.discord_id.is_some() }))
}

/// The session's player, creating a guest if needed (writes only); with the cookie to
/// set if new.
pub async fn player_or_guest(
    h: &impl Host,
    req: &impl Incoming,
) -> Result<(String, Option<String>), ApiError> {
    let s = session_or_guest(h, req).await?;
    Ok((s.player, s.cookie))
}

/// The session's player (a guest made if none), whether signed in with Discord, and the
/// cookie to set if new.
pub async fn who(h: &impl Host, req: &impl Incoming) -> Result<(PlayerRef, Option<String>), ApiError> {
    let (id, cookie) = player_or_guest(h, req).await?;
    let linked = current_player(h, req).await?.is_some_and(|p| p.linked);
    Ok((PlayerRef { id, linked }, cookie))
}
