//! The API's request and response in plain Rust: what the Worker glue converts from and
//! to `worker::Request` / `worker::Response`.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use crate::error::{ApiError, ErrorCode};

/// Bodies above this are refused with 413 before parsing.
pub const MAX_BODY_BYTES: usize = 8 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Other,
}

#[derive(Clone, Debug)]
pub struct ApiRequest {
    pub method: Method,
    /// The URL path, e.g. `/api/games/abc/moves`.
    pub path: String,
    /// The `Authorization: Bearer` token, if any.
    pub bearer: Option<String>,
    pub body: Vec<u8>,
    /// `https://host` of the request, for invite links.
    pub origin: String,
    /// The player of the request's session, as the Worker resolved it (never taken from
    /// the client: the Worker strips and sets the header that carries it).
    pub player: Option<PlayerRef>,
}

/// A player as a request's session identifies it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlayerRef {
    pub id: String,
    /// Signed in with Discord (needed for rated games).
    pub linked: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    Json(Value),
    Text(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ApiResponse {
    pub status: u16,
    pub body: Body,
    pub retry_after: Option<u32>,
}

impl ApiResponse {
    pub fn json(status: u16, v: Value) -> ApiResponse {
        ApiResponse { status, body: Body::Json(v), retry_after: None }
    }

    pub fn text(status: u16, s: String) -> ApiResponse {
        ApiResponse { status, body: Body::Text(s), retry_after: None }
    }

    /// A typed body, serialised (a body that cannot be is a 500, never a panic).
    pub fn of<T: serde::Serialize>(status: u16, body: &T) -> ApiResponse {
        match serde_json::to_value(body) {
            Ok(v) => ApiResponse::json(status, v),
            Err(e) => ApiResponse::error(&ApiError::internal(format!("response not serialisable: {e}"))),
        }
    }

    pub fn error(e: &ApiError) -> ApiResponse {
        let body = serde_json::to_value(e.body())
            .unwrap_or_else(|_| serde_json::json!({ "error": e.code, "message": e.message }));
        ApiResponse { status: e.status(), body: Body::Json(body), retry_after: e.retry_after }
    }

    /// The answer as a client may see it, and the line to log. A server-side failure (5xx,
    /// see [`crate::ErrorCode::message_is_public`]) keeps its status and code but its message,
    /// which can carry storage, network or internal text, is logged and replaced by
    /// [`crate::error::GENERIC_MESSAGE`] (and a state is dropped). Everything else passes
    /// unchanged. The Worker calls this on every answer, its own and its objects'.
    pub fn for_client(self) -> (ApiResponse, Option<String>) {
        let Body::Json(v) = &self.body else { return (self, None) };
        let Some(code) = v.get("error").and_then(|c| ErrorCode::deserialize(c).ok()) else {
            return (self, None);
        };
        if code.message_is_public() {
            return (self, None);
        }
        let message = v.get("message").and_then(Value::as_str).unwrap_or_default();
        let log = format!("{} {code}: {message}", self.status);
        let body = serde_json::json!({ "error": code, "message": crate::error::GENERIC_MESSAGE });
        (ApiResponse { body: Body::Json(body), ..self }, Some(log))
    }

    pub fn json_body(&self) -> Option<&Value> {
        match &self.body {
            Body::Json(v) => Some(v),
            Body::Text(_) => None,
        }
    }
}

impl From<Result<ApiResponse, ApiError>> for ApiResponse {
    fn from(r: Result<ApiResponse, ApiError>) -> ApiResponse {
        r.unwrap_or_else(|e| ApiResponse::error(&e))
    }
}

/// `GET /api/health` (`Health`): the Worker is up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Health {
    pub ok: bool,
}

/// Parses a JSON body into `T`, with errors that name the problem.
pub fn parse_json<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(too_large());
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::new(ErrorCode::InvalidJson, "the request needs a JSON body"));
    }
    // Two steps so the error says which is wrong: the JSON itself, or its shape. (serde
    // alone would also read a struct from an array, and calls some type errors syntax.)
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::new(ErrorCode::InvalidJson, format!("request body is not JSON: {e}")))?;
    if !value.is_object() {
        return Err(ApiError::new(ErrorCode::InvalidBody, "request body must be a JSON object"));
    }
    serde_json::from_value(value)
        .map_err(|e| ApiError::new(ErrorCode::InvalidBody, format!("request body: {e}")))
}

pub fn too_large() -> ApiError {
    ApiError::new(ErrorCode::BodyTooLarge, format!("request bodies are limited to {MAX_BODY_BYTES} bytes"))
}

/// The bearer token of an `Authorization` header value.
pub fn bearer(header: Option<&str>) -> Option<String> {
    let h = header?.trim();
    let (scheme, token) = h.split_once(' ')?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty()).then(|| token.trim().to_owned())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn server_failures_lose_their_detail_but_keep_their_code() {
        let e = ApiError::new(ErrorCode::StorageUnavailable, "D1_ERROR: no such table: players at line 3");
        let (r, log) = ApiResponse::error(&e).for_client();
        let body = r.json_body().unwrap();
        assert_eq!((r.status, body["error"].as_str()), (503, Some("storage_unavailable")));
        assert_eq!(body["message"], crate::error::GENERIC_MESSAGE);
        assert!(!body.to_string().contains("D1") && !body.to_string().contains("players"));
        assert!(log.unwrap().contains("no such table: players"), "the detail is logged");
        let (r, _) = ApiResponse::error(&ApiError::internal("stored record unreadable: x")).for_client();
        assert_eq!(r.json_body().unwrap()["message"], crate::error::GENERIC_MESSAGE);
        // Written for players: unchanged, Retry-After kept.
        let busy = ApiError::new(ErrorCode::ServerBusy, "too many").with_retry_after(60);
        let (r, log) = ApiResponse::error(&busy).for_client();
        assert_eq!(
            (r.json_body().unwrap()["message"].as_str(), r.retry_after, log),
            (Some("too many"), Some(60), None)
        );
        // A 4xx names the problem.
        let bad = ApiError::new(ErrorCode::InvalidJson, "expected value at line 1");
        assert_eq!(ApiResponse::error(&bad).for_client().0, ApiResponse::error(&bad));
        // Text bodies and successes pass.
        let ok = ApiResponse::text(200, "record".into());
        assert_eq!(ok.clone().for_client(), (ok, None));
    }
}
