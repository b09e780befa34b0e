//! Conversions between the `worker` runtime and the pure `service` types.

use service::api::{Answer, Incoming};
use service::http::{bearer, ApiRequest, ApiResponse};
use service::ApiError;
use worker::{Headers, Request, Response, Result};

use crate::host::In;

/// Reads a request into the service's form (its body capped: see `crate::host`).
pub async fn api_request(req: &mut Request) -> std::result::Result<ApiRequest, ApiError> {
    let method = crate::host::method(req);
    let body = if method == service::http::Method::Post { In(req).body().await? } else { Vec::new() };
    Ok(ApiRequest {
        method,
        path: req.path(),
        bearer: bearer(crate::host::header(req, "Authorization").as_deref()),
        body,
        origin: crate::host::origin(req)?,
        player: None,
    })
}

/// The service's answer as a `worker` response (JSON errors everywhere; no caching of
/// game state), with the cookies and the redirect the answer carries.
pub fn answer(a: &Answer) -> Result<Response> {
    // 5xx detail to the log, a generic message to the client (`for_client`).
    let (r, log) = a.response.clone().for_client();
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
    for c in &a.cookies {
        h.append("Set-Cookie", c)?;
    }
    if let Some(to) = &a.location {
        h.set("Location", to)?;
    }
    Ok(resp)
}

pub fn response(r: &ApiResponse) -> Result<Response> {
    answer(&Answer::from(r.clone()))
}

/// An error answer: the one mapping of [`ApiError`] to a response (4xx with a JSON body
/// naming the problem; 5xx logged with its detail and answered with a generic message).
pub fn error(e: &ApiError) -> Result<Response> {
    response(&ApiResponse::error(e))
}
