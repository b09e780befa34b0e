//! The API's one error type: a status, a stable machine code, a human message, and for
//! conflicts the current game state. Mapped once to JSON `{ "error", "message" }`.

use serde::Serialize;

use crate::model::GameView;

#[derive(Clone, Debug, PartialEq)]
pub struct ApiError {
    pub status: u16,
    pub code: &'static str,
    pub message: String,
    /// The current state, sent with 409s so a client can resynchronise at once.
    pub state: Option<Box<GameView>>,
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

    pub fn conflict(code: &'static str, message: impl Into<String>, state: GameView) -> ApiError {
        ApiError { state: Some(Box::new(state)), ..ApiError::new(409, code, message) }
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(404, "not_found", message)
    }

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(500, "internal", message)
    }

    /// The JSON body (`Error` in the OpenAPI document).
    pub fn body(&self) -> ErrorBody<'_> {
        ErrorBody { error: self.code, message: &self.message, state: self.state.as_deref() }
    }
}

/// Every error answer's body: `{"error": code, "message": text}`, and with a 409 about a
/// game its current `state`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ErrorBody<'a> {
    pub error: &'a str,
    pub message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<&'a GameView>,
}

/// 5xx codes whose messages are written for players and carry no internal detail.
const PUBLIC_5XX: [&str; 2] = ["server_busy", "discord_unconfigured"];

/// What a client is told of a server-side failure.
pub const GENERIC_MESSAGE: &str = "Something went wrong on the server; please try again.";

/// Whether an error answer with this status and code must lose its message (see
/// [`crate::http::ApiResponse::for_client`]).
pub fn needs_redaction(status: u16, code: &str) -> bool {
    status >= 500 && !PUBLIC_5XX.contains(&code)
}

impl core::fmt::Display for ApiError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} {}: {}", self.status, self.code, self.message)
    }
}

impl std::error::Error for ApiError {}
