//! The API's one error type: a status, a stable machine code, a human message, and for
//! conflicts the current game state. Mapped once to JSON `{ "error", "message" }`.

use serde_json::{json, Value};

#[derive(Clone, Debug, PartialEq)]
pub struct ApiError {
    pub status: u16,
    pub code: &'static str,
    pub message: String,
    /// The current state, sent with 409s so a client can resynchronise at once.
    pub state: Option<Value>,
    /// Seconds, for `Retry-After` (503 server_busy).
    pub retry_after: Option<u32>,
}

impl ApiError {
    pub fn new(status: u16, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { status, code, message: message.into(), state: None, retry_after: None }
    }

    pub fn bad_request(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(400, code, message)
    }

    pub fn conflict(code: &'static str, message: impl Into<String>, state: Value) -> ApiError {
        ApiError { state: Some(state), ..ApiError::new(409, code, message) }
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(404, "not_found", message)
    }

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(500, "internal", message)
    }

    /// The error as a client may see it. Server-side failures (5xx) keep their status and
    /// code but lose their detail, which can carry storage, network or internal text
    /// (the glue logs the original); deliberate 5xx answers whose message is written for
    /// players (`server_busy`, `discord_unconfigured`) pass unchanged. `None`: unchanged.
    pub fn redacted(&self) -> Option<ApiError> {
        if !needs_redaction(self.status, self.code) {
            return None;
        }
        Some(ApiError { message: GENERIC_MESSAGE.to_owned(), state: None, ..self.clone() })
    }

    pub fn body(&self) -> Value {
        let mut v = json!({ "error": self.code, "message": self.message });
        if let Some(s) = &self.state {
            v["state"] = s.clone();
        }
        v
    }
}

/// 5xx codes whose messages are written for players and carry no internal detail.
const PUBLIC_5XX: [&str; 2] = ["server_busy", "discord_unconfigured"];

/// What a client is told of a server-side failure.
pub const GENERIC_MESSAGE: &str = "Something went wrong on the server; please try again.";

/// Whether an error answer with this status and code must lose its message (see
/// [`ApiError::redacted`]).
pub fn needs_redaction(status: u16, code: &str) -> bool {
    status >= 500 && !PUBLIC_5XX.contains(&code)
}

impl core::fmt::Display for ApiError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} {}: {}", self.status, self.code, self.message)
    }
}

impl std::error::Error for ApiError {}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn server_failures_lose_their_detail_but_keep_their_code() {
        let e = ApiError::new(503, "storage_unavailable", "D1_ERROR: no such table: players at line 3");
        let r = e.redacted().unwrap();
        assert_eq!((r.status, r.code), (503, "storage_unavailable"));
        assert!(!r.message.contains("D1") && !r.message.contains("players"));
        assert!(ApiError::internal("stored record unreadable: x").redacted().is_some());
        assert!(ApiError::new(502, "discord_failed", "fetch failed: ECONNREFUSED").redacted().is_some());
        let busy = ApiError { retry_after: Some(60), ..ApiError::new(503, "server_busy", "too many") };
        assert_eq!(busy.redacted(), None);
        assert_eq!(ApiError::bad_request("invalid_json", "expected value at line 1").redacted(), None);
    }
}
