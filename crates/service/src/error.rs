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

    pub fn body(&self) -> Value {
        let mut v = json!({ "error": self.code, "message": self.message });
        if let Some(s) = &self.state {
            v["state"] = s.clone();
        }
        v
    }
}

impl core::fmt::Display for ApiError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} {}: {}", self.status, self.code, self.message)
    }
}

impl std::error::Error for ApiError {}
