//! Conversions between the `worker` runtime and the pure `service` types.

use service::http::{bearer, too_large, ApiRequest, ApiResponse, Method, MAX_BODY_BYTES};
use service::tokens::Random;
use service::{ApiError, ErrorCode};
use worker::{Headers, Request, Response, Result};

/// Randomness from the platform (crypto.getRandomValues through getrandom).
pub struct OsRandom;

impl Random for OsRandom {
    fn fill(&mut self, buf: &mut [u8]) -> std::result::Result<(), ApiError> {
        getrandom::fill(buf).map_err(|e| {
            ApiError::new(ErrorCode::NoRandomness, format!("secure randomness is unavailable: {e}"))
        })
    }
}

/// What the Worker's handlers return: a response, or the one error type, which
/// [`error`] maps to the answer (a 5xx logged with its detail, then redacted).
pub type Res<T> = std::result::Result<T, ApiError>;

/// A D1 (or other storage binding) failure: 503 `storage_unavailable`. Its detail (SQL,
/// binding text) goes to the log only: the client sees the generic message.
pub fn storage(e: worker::Error) -> ApiError {
    ApiError::new(ErrorCode::StorageUnavailable, e.to_string())
}

pub fn now_ms() -> i64 {
    worker::Date::now().as_millis() as i64
}

/// Reads a request into the service's form, refusing oversized bodies (413): before
/// reading where the length is declared, and while streaming otherwise (a chunked body
/// is never read whole first).
pub async fn api_request(req: &mut Request) -> std::result::Result<ApiRequest, ApiError> {
    let method = match req.method() {
        worker::Method::Get | worker::Method::Head => Method::Get,
        worker::Method::Post => Method::Post,
        _ => Method::Other,
    };
    let body = if method == Method::Post { read_body(req).await? } else { Vec::new() };
    let auth = req.headers().get("Authorization").ok().flatten();
    let url = req.url().map_err(|e| ApiError::new(ErrorCode::BadUrl, e.to_string()))?;
    Ok(ApiRequest {
        method,
        path: url.path().to_owned(),
        bearer: bearer(auth.as_deref()),
        body,
        origin: url.origin().ascii_serialization(),
        player: None,
    })
}

/// The request's body, at most [`MAX_BODY_BYTES`] (413 past it), read chunk by chunk.
pub async fn read_body(req: &mut Request) -> std::result::Result<Vec<u8>, ApiError> {
    use futures_util::StreamExt;
    let declared = req.headers().get("Content-Length").ok().flatten().and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > MAX_BODY_BYTES) {
        return Err(too_large());
    }
    // No body at all (a bodiless POST) reads as empty.
    let Ok(mut stream) = req.stream() else { return Ok(Vec::new()) };
    let mut body = service::guard::CappedBody::api();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| ApiError::new(ErrorCode::UnreadableBody, e.to_string()))?;
        body.push(&chunk)?;
    }
    Ok(body.into_bytes())
}

/// The header that carries the session's player from the Worker to a game's Durable
/// Object. The router removes it from every incoming request before setting it, so a
/// client can never claim a player this way.
pub const PLAYER_HEADER: &str = "X-Iron-Player";

/// Reads [`PLAYER_HEADER`] (`<id>` or `<id>;linked`), inside the Durable Object only.
pub fn forwarded_player(req: &Request) -> Option<service::http::PlayerRef> {
    let v = req.headers().get(PLAYER_HEADER).ok().flatten()?;
    let (id, linked) = match v.split_once(';') {
        Some((id, "linked")) => (id, true),
        Some(_) => return None,
        None => (v.as_str(), false),
    };
    service::game::valid_id(id).then(|| service::http::PlayerRef { id: id.to_owned(), linked })
}

pub fn player_header_value(p: &service::http::PlayerRef) -> String {
    if p.linked {
        format!("{};linked", p.id)
    } else {
        p.id.clone()
    }
}

/// The service's answer as a `worker` response (JSON errors everywhere; no caching of
/// game state).
pub fn response(r: &ApiResponse) -> Result<Response> {
    // 5xx detail to the log, a generic message to the client (`for_client`).
    let (r, log) = r.clone().for_client();
    if let Some(line) = log {
        worker::console_error!("{line}");
    }
    let (content_type, text) = r.content();
    let mut resp = Response::from_bytes(text.into_owned().into_bytes())?.with_status(r.status);
    let h: &mut Headers = resp.headers_mut();
    h.set("Content-Type", content_type)?;
    h.set("Cache-Control", "no-store")?;
    h.set("X-Content-Type-Options", "nosniff")?;
    if let Some(s) = r.retry_after {
        h.set("Retry-After", &s.to_string())?;
    }
    Ok(resp)
}

/// An error answer: the one mapping of [`ApiError`] to a response (through [`response`]:
/// 4xx with a JSON body naming the problem; 5xx logged with its detail and answered with
/// a generic message).
pub fn error(e: &ApiError) -> Result<Response> {
    response(&ApiResponse::error(e))
}
