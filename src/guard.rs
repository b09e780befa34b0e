//! The API's outer guards (rules in `service::guard`): what a write must carry before
//! any route reads it, and the security headers on every API answer.

use service::create::MINUTE_MS;
use service::game::Route;
use service::guard::Rate;
use service::model::{GameRecord, Mode};
use service::ApiError;
use worker::{Env, Headers, Method, Request, Response, Result, State};

/// Headers on every API answer: no sniffing, no framing, no referrer, HTTPS only, and a
/// policy that lets an API answer run nothing if it is ever opened as a page.
const API_HEADERS: [(&str, &str); 5] = [
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Strict-Transport-Security", "max-age=31536000; includeSubDomains"),
    ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"),
    ("X-Frame-Options", "DENY"),
];

/// Writes (every method but GET/HEAD) need `Content-Type: application/json`, and when
/// they carry the session cookie, this site's `Origin` (see `service::guard::check_write`).
pub fn check_write(req: &Request) -> std::result::Result<(), ApiError> {
    if matches!(req.method(), Method::Get | Method::Head) {
        return Ok(());
    }
    let h = req.headers();
    let header = |name: &str| h.get(name).ok().flatten();
    let own = req
        .url()
        .map_err(|e| ApiError::bad_request("bad_url", e.to_string()))?
        .origin()
        .ascii_serialization();
    let has_cookie = service::accounts::session_from_cookie(header("Cookie").as_deref()).is_some();
    service::guard::check_write(
        header("Content-Type").as_deref(),
        header("Origin").as_deref(),
        &own,
        has_cookie,
    )
}

/// The answer with [`API_HEADERS`] (and `Cache-Control: no-store` unless it has one). A
/// WebSocket upgrade (101) passes as it is.
pub fn secure(resp: Response) -> Result<Response> {
    if resp.status_code() == 101 {
        return Ok(resp);
    }
    // A response from a Durable Object has immutable headers: copy them.
    let headers = Headers::new();
    for (k, v) in resp.headers().entries() {
        headers.append(&k, &v)?;
    }
    for (k, v) in API_HEADERS {
        headers.set(k, v)?;
    }
    if !headers.has("Cache-Control")? {
        headers.set("Cache-Control", "no-store")?;
    }
    Ok(resp.with_headers(headers))
}

/// A public request to a game's Durable Object, before its body is read: the route must
/// exist, and a write that needs a seat must carry a credential (a seat token, or the
/// session's player that the router set). The token itself is checked against the seat
/// before the body is parsed (`service::game::handle`).
pub fn precheck(req: &Request, path: &str) -> std::result::Result<Route, ApiError> {
    let method = match req.method() {
        Method::Get | Method::Head => service::http::Method::Get,
        Method::Post => service::http::Method::Post,
        _ => service::http::Method::Other,
    };
    let (_, route) = service::game::route(method, path)?;
    let needs_seat = matches!(route, Route::Moves | Route::Resign | Route::Draw | Route::Abort);
    let h = req.headers();
    let credential = h.get("Authorization").ok().flatten().is_some()
        || h.get(crate::glue::PLAYER_HEADER).ok().flatten().is_some();
    if needs_seat && !credential {
        return Err(ApiError::new(
            401,
            "unauthorized",
            "this request needs the seat token as 'Authorization: Bearer <token>'",
        ));
    }
    Ok(route)
}

/// A move in an AI game costs the server a search: limited per address bucket.
pub async fn ai_move_limit(
    env: &Env,
    req: &Request,
    rec: Option<&GameRecord>,
) -> std::result::Result<(), ApiError> {
    if !rec.is_some_and(|r| r.mode == Mode::Ai && r.result.is_none()) {
        return Ok(());
    }
    let rate = Rate { limit: crate::config::limits(env).ai_moves_per_ip_per_minute, window_ms: MINUTE_MS };
    let key = crate::limiter::ip_key(req, env);
    crate::limiter::hit(
        env,
        &format!("ai:ip:{key}"),
        rate,
        "too many moves against the AI from your address this minute",
    )
    .await
}

/// The caps on a game's open WebSockets, in total and per address bucket; returns the
/// tag to accept the socket with (its bucket).
pub fn websocket_caps(state: &State, env: &Env, req: &Request) -> std::result::Result<String, ApiError> {
    let limits = crate::config::limits(env);
    socket_caps(state, env, req, limits.ws_per_game, limits.ws_per_ip_per_game, "this game")
}

/// The caps on an object's open WebSockets (`what`: "this game", "the lobby"): `total`
/// in all, `per_ip` per address bucket; returns the tag to accept the socket with.
pub fn socket_caps(
    state: &State,
    env: &Env,
    req: &Request,
    total: u32,
    per_ip: u32,
    what: &str,
) -> std::result::Result<String, ApiError> {
    let key = crate::limiter::ip_key(req, env);
    let tag = format!("ip:{}", &key[..32]);
    if state.get_websockets().len() >= total as usize {
        return Err(service::guard::busy(&format!("too many connections to {what}"), 30));
    }
    if state.get_websockets_with_tag(&tag).len() >= per_ip as usize {
        return Err(service::guard::busy(&format!("too many connections to {what} from your address"), 30));
    }
    Ok(tag)
}

/// In the router, before a game's object is woken: the route must exist (404/405), and
/// joins and WebSocket opens count against the address bucket's per-minute rates.
pub async fn route_limits(req: &Request, env: &Env, path: &str) -> std::result::Result<(), ApiError> {
    let method = match req.method() {
        Method::Get | Method::Head => service::http::Method::Get,
        Method::Post => service::http::Method::Post,
        _ => service::http::Method::Other,
    };
    let (_, route) = service::game::route(method, path)?;
    let limits = crate::config::limits(env);
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
    let key = crate::limiter::ip_key(req, env);
    crate::limiter::hit(env, &format!("{kind}:ip:{key}"), Rate { limit, window_ms: MINUTE_MS }, why).await
}
