//! Who may reach a game, and how often, decided before any work is done: the route and
//! the credential before a body is read, the per-address rates of joins, socket opens
//! and AI moves (each a search on the server), and the caps on open sockets.

use crate::create::{Limits, MINUTE_MS};
use crate::error::{ApiError, ErrorCode};
use crate::game::{self, Route};
use crate::guard::Rate;
use crate::http::Method;
use crate::model::{GameRecord, Mode};
use crate::ports::Limiter;

/// A public request to a game's object, before its body is read: the route must exist,
/// and a write that needs a seat must carry a credential (a seat token, or the session's
/// player that the router set). The token itself is checked against the seat before the
/// body is parsed ([`crate::game::handle`]).
pub fn precheck(method: Method, path: &str, has_credential: bool) -> Result<Route, ApiError> {
    let (_, route) = game::route(method, path)?;
    let needs_seat = matches!(route, Route::Moves | Route::Resign | Route::Draw | Route::Abort);
    if needs_seat && !has_credential {
        return Err(ApiError::new(
            ErrorCode::Unauthorized,
            "this request needs the seat token as 'Authorization: Bearer <token>'",
        ));
    }
    Ok(route)
}

/// In the router, before a game's object is woken: the route must exist (404/405), and
/// joins and socket opens count against the address bucket's per-minute rates.
pub async fn route_limits(
    limiter: &impl Limiter,
    limits: Limits,
    ip_key: &str,
    method: Method,
    path: &str,
) -> Result<(), ApiError> {
    let (_, route) = game::route(method, path)?;
    let (kind, limit, why) = match route {
        Route::Join => {
            ("join", limits.joins_per_ip_per_minute, "too many joins from your address this minute")
        }
        Route::WebSocket => (
            "ws",
            limits.ws_per_ip_per_minute,
            "too many live connections opened from your address this minute",
        ),
        _ => return Ok(()),
    };
    limiter.hit(&format!("{kind}:ip:{ip_key}"), Rate { limit, window_ms: MINUTE_MS }, why).await
}

/// The meter's unit, in alpha-beta positions over the heuristic: a tenth of level 4's search
/// when the meter was set (issue 30: 112,500). Fixed, so that a level's new budget changes
/// that level's cost and not every limit's meaning (it was "a tenth of a level-4 move",
/// which a new level-4 budget would have rescaled for every level).
pub const AI_COST_UNIT_NODES: u32 = 11_250;

/// What one AI move at `level` costs, in [`AI_COST_UNIT_NODES`]: its search budget in
/// positions (the shipped engine's, [`ai::level::Level::cost_nodes`]: a network evaluation
/// counts as the positions it costs the time of), rounded up, at least 1. Levels 1-6 cost
/// 7, 15, 2, 10, 32, 80.
pub fn ai_cost(level: Option<u8>) -> u32 {
    let nodes = ai::level::level(level.unwrap_or(ai::level::DEFAULT_LEVEL)).map_or(1, |l| l.cost_nodes());
    nodes.div_ceil(AI_COST_UNIT_NODES).max(1)
}

/// An AI move at `level` costs the server a search: metered per address bucket by its
/// cost ([`ai_cost`]), as every search is (a move, an opening, a rematch's opening).
pub async fn ai_cost_limit(
    limiter: &impl Limiter,
    limits: Limits,
    ip_key: &str,
    level: Option<u8>,
) -> Result<(), ApiError> {
    let rate = Rate { limit: limits.ai_cost_per_ip_per_minute, window_ms: MINUTE_MS };
    let why = "too much AI thinking asked from your address this minute";
    limiter.hit_cost(&format!("aicost:ip:{ip_key}"), rate, ai_cost(level), why).await
}

/// A move in an unfinished AI game costs the server a search: limited per address bucket
/// in moves and in cost.
pub async fn ai_move_limit(
    limiter: &impl Limiter,
    limits: Limits,
    ip_key: &str,
    rec: Option<&GameRecord>,
) -> Result<(), ApiError> {
    let Some(rec) = rec.filter(|r| r.mode == Mode::Ai && r.result.is_none()) else { return Ok(()) };
    let rate = Rate { limit: limits.ai_moves_per_ip_per_minute, window_ms: MINUTE_MS };
    limiter
        .hit(&format!("ai:ip:{ip_key}"), rate, "too many moves against the AI from your address this minute")
        .await?;
    ai_cost_limit(limiter, limits, ip_key, rec.level).await
}

/// The tag an object accepts a socket from address bucket `ip_key` with (the bucket's
/// prefix: what the caps below count).
pub fn socket_tag(ip_key: &str) -> String {
    format!("ip:{}", ip_key.get(..32).unwrap_or(ip_key))
}

/// The caps on an object's open sockets (`what`: "this game", "the lobby"): `total` in
/// all, `per_ip` from one address bucket, given how many are open of each.
pub fn socket_caps(
    open: usize,
    open_from_ip: usize,
    total: u32,
    per_ip: u32,
    what: &str,
) -> Result<(), ApiError> {
    if open >= total as usize {
        return Err(crate::guard::busy(&format!("too many connections to {what}"), 30));
    }
    if open_from_ip >= per_ip as usize {
        return Err(crate::guard::busy(&format!("too many connections to {what} from your address"), 30));
    }
    Ok(())
}

/// The code to echo when a client closes a socket: its own if a socket may send it (1000
/// to 4999, but not 1005 "no status" nor 1006 "abnormal", which are never sent), else 1000.
pub fn close_code(code: usize) -> u16 {
    match u16::try_from(code) {
        Ok(c) if (1000..5000).contains(&c) && c != 1005 && c != 1006 => c,
        _ => 1000,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn an_ai_move_costs_its_levels_search_budget() {
        let costs: Vec<u32> = (1..=6).map(|l| ai_cost(Some(l))).collect();
        assert_eq!(costs, [7, 15, 2, 10, 32, 80]);
        assert_eq!(ai_cost(None), 10, "the default level");
        assert_eq!(ai_cost(Some(9)), 1, "an unknown level costs the least, never nothing");
    }

    const GAME: &str = "/api/games/0123456789abcdef01234567";

    #[test]
    fn writes_that_need_a_seat_need_a_credential_and_unknown_routes_are_refused() {
        for tail in ["/moves", "/resign", "/draw", "/abort"] {
            let path = format!("{GAME}{tail}");
            assert_eq!(
                precheck(Method::Post, &path, false).unwrap_err().code,
                ErrorCode::Unauthorized,
                "{tail}"
            );
            assert!(precheck(Method::Post, &path, true).is_ok(), "{tail}");
        }
        assert_eq!(precheck(Method::Get, GAME, false).unwrap(), Route::State);
        assert_eq!(precheck(Method::Post, &format!("{GAME}/join"), false).unwrap(), Route::Join);
        assert!(precheck(Method::Post, &format!("{GAME}/nope"), true).is_err());
    }

    #[test]
    fn a_close_is_echoed_with_a_code_a_socket_may_send() {
        assert_eq!(
            [1000, 4001, 1005, 1006, 999, 5000, 70_000].map(close_code),
            [1000, 4001, 1000, 1000, 1000, 1000, 1000]
        );
    }

    #[test]
    fn socket_caps_count_all_then_the_address() {
        assert!(socket_caps(9, 2, 10, 3, "this game").is_ok());
        assert!(socket_caps(10, 0, 10, 3, "this game").unwrap_err().message.contains("to this game"));
        assert!(socket_caps(1, 3, 10, 3, "the lobby").unwrap_err().message.contains("from your address"));
        assert_eq!(socket_tag(&"a".repeat(64)).len(), 3 + 32);
    }
}
