//! The API's outer guards (rules in `service::guard`): what a write must carry before
//! any route reads it, and the security headers on every API answer.

use service::admission;
use service::game::Route;
use service::model::GameRecord;
use service::{ApiError, ErrorCode};
use worker::{Env, Headers, Method, Request, Response, Result, State};

use crate::limiter::Limiters;

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
        .map_err(|e| ApiError::new(ErrorCode::BadUrl, e.to_string()))?
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

/// The request's method in the service's form.
pub fn method(req: &Request) -> service::http::Method {
    match req.method() {
        Method::Get | Method::Head => service::http::Method::Get,
        Method::Post => service::http::Method::Post,
        _ => service::http::Method::Other,
    }
}

/// A public request to a game's object, before its body is read (`service::admission`).
pub fn precheck(req: &Request, path: &str) -> std::result::Result<Route, ApiError> {
    let h = req.headers();
    let credential = h.get("Authorization").ok().flatten().is_some()
        || h.get(crate::glue::PLAYER_HEADER).ok().flatten().is_some();
    admission::precheck(method(req), path, credential)
}

/// A move in an unfinished AI game costs the server a search (`service::admission`).
pub async fn ai_move_limit(
    env: &Env,
    req: &Request,
    rec: Option<&GameRecord>,
) -> std::result::Result<(), ApiError> {
    let key = crate::limiter::ip_key(req, env);
    admission::ai_move_limit(&Limiters(env), crate::config::limits(env), &key, rec).await
}

/// The caps on a game's open WebSockets, in total and per address bucket; returns the
/// tag to accept the socket with (its bucket).
pub fn websocket_caps(state: &State, env: &Env, req: &Request) -> std::result::Result<String, ApiError> {
    let limits = crate::config::limits(env);
    socket_caps(state, env, req, limits.ws_per_game, limits.ws_per_ip_per_game, "this game")
}

/// The caps on an object's open WebSockets (`service::admission::socket_caps`); returns
/// the tag to accept the socket with.
pub fn socket_caps(
    state: &State,
    env: &Env,
    req: &Request,
    total: u32,
    per_ip: u32,
    what: &str,
) -> std::result::Result<String, ApiError> {
    let tag = admission::socket_tag(&crate::limiter::ip_key(req, env));
    let (open, mine) = (state.get_websockets().len(), state.get_websockets_with_tag(&tag).len());
    admission::socket_caps(open, mine, total, per_ip, what)?;
    Ok(tag)
}

/// In the router, before a game's object is woken (`service::admission::route_limits`).
pub async fn route_limits(req: &Request, env: &Env, path: &str) -> std::result::Result<(), ApiError> {
    let key = crate::limiter::ip_key(req, env);
    admission::route_limits(&Limiters(env), crate::config::limits(env), &key, method(req), path).await
}
