//! The API's one error type: a machine code (whose table gives the status, see
//! [`ErrorCode`]), a human message, and for conflicts the current game state. Mapped
//! once to JSON `{ "error", "message" }`.

use serde::Serialize;

pub use crate::error_code::ErrorCode;
use crate::model::GameView;

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{} {code}: {message}", code.status())]
pub struct ApiError {
    /// The machine code; the answer's status is its [`ErrorCode::status`].
    pub code: ErrorCode,
    pub message: String,
    /// The current state, sent with 409s so a client can resynchronise at once.
    pub state: Option<Box<GameView>>,
    /// Seconds, for `Retry-After` (503 server_busy, 429 rate_limited).
    pub retry_after: Option<u32>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError { code, message: message.into(), state: None, retry_after: None }
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::NotFound, message)
    }

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::Internal, message)
    }

    /// A conflict over a game's state (a 409 code), answered with the current `state`
    /// so the client can resynchronise at once.
    pub fn conflict(code: ErrorCode, message: impl Into<String>, state: GameView) -> ApiError {
        debug_assert_eq!(code.status(), 409, "{code} is not a conflict");
        ApiError { state: Some(Box::new(state)), ..ApiError::new(code, message) }
    }

    /// With a `Retry-After` of `seconds`.
    pub fn with_retry_after(self, seconds: u32) -> ApiError {
        ApiError { retry_after: Some(seconds), ..self }
    }

    /// The answer's HTTP status: the code's.
    pub fn status(&self) -> u16 {
        self.code.status()
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
    pub error: ErrorCode,
    pub message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<&'a GameView>,
}

/// What a client is told of a server-side failure.
pub const GENERIC_MESSAGE: &str = "Something went wrong on the server; please try again.";
