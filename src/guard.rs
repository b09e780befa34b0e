//! The API's outer guards (rules in `service::guard` and `service::admission`): what a
//! write must carry before any route reads it, the security headers on every API answer,
//! and the caps on an object's open WebSockets.

use service::admission;
use service::game::Route;
use service::objects::PLAYER_HEADER;
use service::ApiError;
use worker::{Headers, Method, Request, Response, Result, State};

use crate::host::header;

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
    let has_cookie = service::accounts::session_from_cookie(header(req, "Cookie").as_deref()).is_some();
    let (content_type, origin) = (header(req, "Content-Type"), header(req, "Origin"));
    service::guard::check_write(
        content_type.as_deref(),
        origin.as_deref(),
        &crate::host::origin(req)?,
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

/// A public request to a game's object, before its body is read (`service::admission`).
pub fn precheck(req: &Request, path: &str) -> std::result::Result<Route, ApiError> {
    let credential = header(req, "Authorization").is_some() || header(req, PLAYER_HEADER).is_some();
    admission::precheck(crate::host::method(req), path, credential)
}

/// The caps on an object's open WebSockets (`service::admission::socket_caps`); returns
/// the tag to accept the socket with (its address bucket).
pub fn socket_caps(
    state: &State,
    ip_key: &str,
    total: u32,
    per_ip: u32,
    what: &str,
) -> std::result::Result<String, ApiError> {
    let tag = admission::socket_tag(ip_key);
    let (open, mine) = (state.get_websockets().len(), state.get_websockets_with_tag(&tag).len());
    admission::socket_caps(open, mine, total, per_ip, what)?;
    Ok(tag)
}
