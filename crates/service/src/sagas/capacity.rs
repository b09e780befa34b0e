//! The capacity check every creation passes before anything is made (a new game, an
//! accepted challenge, a stage, a rematch).

use crate::create::{check_capacity, Limits, MINUTE_MS};
use crate::db::index;
use crate::error::{ApiError, ErrorCode};
use crate::guard::Rate;
use crate::ports::Limiter;
use crate::sql::Sql;

/// Who creates: the address bucket's keyed hash, those of its wider buckets (IPv6 /56 and
/// /48), and the session's player if any.
#[derive(Clone, Copy, Debug)]
pub struct Creator<'a> {
    pub ip_hash: &'a str,
    pub wider: &'a [String],
    pub player: Option<&'a str>,
}

/// The share of the overall rate a creation without a session may use: when the budget
/// runs low, players with a session keep the rest (a flood of cookieless requests cannot
/// refuse everyone).
pub const SESSIONLESS_SHARE_PERCENT: u32 = 80;

/// Admits the creation of game `game` by `who`, in order: the address bucket's rate, its
/// /56's (twice it) and its /48's (four times it: one allocation cannot take the overall
/// budget), the overall rate (atomic, in the limiters; cookieless creations only up to
/// [`SESSIONLESS_SHARE_PERCENT`] of it), then a place among the unfinished games overall,
/// of the address and of the player, reserved in D1 by one conditional statement
/// ([`crate::db::index::reserve`]): each cap is counted where it is decided. The first
/// refusal is the answer.
pub async fn admit(
    limiter: &impl Limiter,
    db: &impl Sql,
    limits: Limits,
    who: Creator<'_>,
    game: &str,
    now: i64,
) -> Result<(), ApiError> {
    let minute = |limit| Rate { limit, window_ms: MINUTE_MS };
    let why = "too many new games from your address this minute";
    limiter.hit(&format!("create:ip:{}", who.ip_hash), minute(limits.per_ip_per_minute), why).await?;
    for (wider, times) in who.wider.iter().zip([2, 4]) {
        let rate = minute(limits.per_ip_per_minute.saturating_mul(times));
        limiter
            .hit(&format!("create:net:{wider}"), rate, "too many new games from your network this minute")
            .await?;
    }
    let overall = match who.player {
        Some(_) => limits.overall_per_minute,
        // Rounded up: a budget of one still admits one.
        None => {
            (u64::from(limits.overall_per_minute) * u64::from(SESSIONLESS_SHARE_PERCENT)).div_ceil(100) as u32
        }
    };
    limiter.hit("create:all", minute(overall), "too many new games this minute").await?;
    let (ip_hash, creator) = (who.ip_hash, who.player);
    let unavailable = |e: crate::sql::StoreError| ApiError::new(ErrorCode::IndexUnavailable, e.to_string());
    let caps = caps(limits, creator.is_some());
    if index::reserve(db, game, ip_hash, creator, caps, now).await.map_err(unavailable)? {
        return Ok(());
    }
    // Refused: the counts say which cap, for the message (a place freed in between still
    // refuses this creation, as the reservation did).
    let load = index::load(db, ip_hash, creator).await.map_err(unavailable)?;
    check_capacity(load, limits)?;
    Err(crate::guard::busy("too many games in progress", 300))
}

/// The caps of [`check_capacity`] as a reservation's bounds: without a session the
/// address is the creator, with the creator's cap.
pub fn caps(limits: Limits, with_player: bool) -> index::Caps {
    let by_address = if with_player {
        limits.open_per_address
    } else {
        limits.open_per_address.min(limits.open_per_creator)
    };
    index::Caps { active: limits.max_active_games, by_address, by_player: limits.open_per_creator }
}
