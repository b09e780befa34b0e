//! Every machine code an error answer can carry, with its HTTP status and what it means:
//! one table, so a code cannot be answered with two statuses, and the OpenAPI document's
//! `Error.error` enum is checked against [`ErrorCode::ALL`] (`tests/openapi.rs`).
//!
//! This module depends on nothing else in the crate (only serde): it sits at the bottom
//! of the module graph, under [`crate::error::ApiError`] which carries a code.

use serde::{Deserialize, Serialize};

/// Writes [`ErrorCode`] and its table from one list of
/// `Variant = "wire_code", status, "description";` rows.
macro_rules! error_codes {
    ($($variant:ident = $wire:literal, $status:literal, $description:literal;)+) => {
        /// An error answer's machine code (`error` in the `Error` body), as the wire spells it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum ErrorCode {
            $(
                #[doc = $description]
                #[serde(rename = $wire)]
                $variant,
            )+
        }

        impl ErrorCode {
            /// Every code, in the table's order (the OpenAPI document's enum lists them so).
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),+];

            /// The code as the wire spells it (`"not_your_turn"`).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $wire,)+
                }
            }

            /// The HTTP status every answer with this code has.
            pub const fn status(self) -> u16 {
                match self {
                    $(ErrorCode::$variant => $status,)+
                }
            }

            /// What the code means, in one line.
            pub const fn description(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $description,)+
                }
            }
        }
    };
}

error_codes! {
    NotFound = "not_found", 404, "No such route, game, player, stage, lesson or challenge.";
    MethodNotAllowed = "method_not_allowed", 405, "The route does not take this method.";
    InvalidJson = "invalid_json", 400, "The request needs a JSON body and this one is missing or not JSON.";
    InvalidBody = "invalid_body", 400, "The JSON body does not have the request's shape (a field missing, unknown or mistyped, or a key repeated).";
    UnreadableBody = "unreadable_body", 400, "The request body could not be read.";
    BadUrl = "bad_url", 400, "The request URL could not be parsed.";
    InvalidPage = "invalid_page", 400, "The page's cursor (`before`) is not one the API gave, or its size (`limit`) is out of range.";
    BodyTooLarge = "body_too_large", 413, "The request body is over the size limit (refused before it is parsed).";
    BadMoveNotation = "bad_move_notation", 400, "The move is not valid IAMN.";
    Unauthorized = "unauthorized", 401, "The request needs a seat token or a session and carries neither.";
    Forbidden = "forbidden", 403, "The token or session holds no seat in this game, or the resource is another player's.";
    BadInvite = "bad_invite", 403, "The invite token is not this game's.";
    NotALinkGame = "not_a_link_game", 409, "Only link games have a seat to join.";
    SeatTaken = "seat_taken", 409, "The invited seat has already been claimed.";
    Exists = "exists", 409, "A game with this id already exists.";
    GameOver = "game_over", 409, "The game is over.";
    WaitingForOpponent = "waiting_for_opponent", 409, "The invited player has not joined yet.";
    NotYourTurn = "not_your_turn", 409, "It is the other side's turn.";
    StalePly = "stale_ply", 409, "The move was sent for another ply than the game's.";
    DrawAlreadyOffered = "draw_already_offered", 409, "This side has already offered a draw.";
    NoDrawOffer = "no_draw_offer", 409, "The opponent has not offered a draw.";
    IllegalMove = "illegal_move", 422, "The move is not legal in the position.";
    DrawUnavailable = "draw_unavailable", 422, "Draws cannot be offered in this game (against the AI).";
    TakebackUnavailable = "takeback_unavailable", 422, "Take-backs are only for casual games against the AI: not rated, story or human games.";
    NothingToTakeBack = "nothing_to_take_back", 409, "There is no move of yours answered by the AI to take back.";
    InvalidTimeControl = "invalid_time_control", 422, "The time control is out of range or does not go with the mode.";
    InvalidLevel = "invalid_level", 422, "The AI level is out of range or does not go with the mode.";
    RatedNeedsLink = "rated_needs_link", 422, "Only link games can be rated.";
    SignInRequired = "sign_in_required", 403, "Rated games (and this action) need a player signed in with Discord.";
    SamePlayer = "same_player", 422, "A player cannot play a rated game against themselves.";
    InvalidName = "invalid_name", 422, "The display name is not allowed (length, characters, or a guest's prefix).";
    StageLocked = "stage_locked", 403, "The story stage is not unlocked for this player yet.";
    ConfirmationRequired = "confirmation_required", 422, "The reset needs an explicit confirmation.";
    UpgradeRequired = "upgrade_required", 426, "The route speaks WebSocket only.";
    ServerBusy = "server_busy", 503, "Too many requests from this client or on this server; try again after Retry-After.";
    IndexUnavailable = "index_unavailable", 503, "The games index (D1) could not be reached.";
    StorageUnavailable = "storage_unavailable", 503, "Storage could not be read or written; nothing changed.";
    StageNotEnded = "stage_not_ended", 503, "The story stage being played could not be ended.";
    NoRandomness = "no_randomness", 503, "Secure randomness was unavailable.";
    UnsupportedMediaType = "unsupported_media_type", 415, "A write was not sent as Content-Type: application/json.";
    BadOrigin = "bad_origin", 403, "A write with the session cookie came without this site's Origin.";
    NotAbortable = "not_abortable", 409, "A story stage is left with Exit Stage, not aborted.";
    TooLateToAbort = "too_late_to_abort", 409, "Either side has played its second move: resign instead.";
    GameNotOver = "game_not_over", 409, "A rematch comes after the game.";
    RematchAlreadyOffered = "rematch_already_offered", 409, "This side has already offered a rematch.";
    NoRematchOffer = "no_rematch_offer", 409, "The opponent has not offered a rematch.";
    CannotDeclineAi = "cannot_decline_ai", 422, "The AI offers no rematch, so there is none to decline.";
    RematchUnavailable = "rematch_unavailable", 422, "This game has no rematch (a story stage, or no one joined).";
    RematchFailed = "rematch_failed", 503, "The rematch game could not be created; try again.";
    NameTaken = "name_taken", 409, "Another player already shows this display name.";
    NotAStage = "not_a_stage", 409, "This game is not a story stage.";
    BadState = "bad_state", 403, "The sign-in state is unknown, used, another browser's or expired.";
    NoState = "no_state", 400, "The sign-in callback carries no state at all.";
    TooManyChallenges = "too_many_challenges", 409, "This player already has the most open challenges allowed.";
    RateLimited = "rate_limited", 429, "Too many challenges posted lately; try again after Retry-After.";
    OwnChallenge = "own_challenge", 422, "A player cannot accept their own challenge.";
    ChallengeGone = "challenge_gone", 409, "The challenge was accepted, cancelled or has expired.";
    ChallengeFailed = "challenge_failed", 503, "The challenge's game could not be created or joined; try again.";
    InvalidSubscription = "invalid_subscription", 422, "The push subscription is malformed.";
    PushFailed = "push_failed", 502, "The push service could not be reached.";
    NoCode = "no_code", 400, "Discord returned no authorisation code.";
    DiscordDenied = "discord_denied", 403, "The Discord sign-in was not granted.";
    DiscordCodeRejected = "discord_code_rejected", 403, "Discord refused the authorisation code.";
    DiscordFailed = "discord_failed", 502, "Discord could not be reached or answered badly.";
    DiscordUnconfigured = "discord_unconfigured", 503, "Sign in with Discord is not configured on this server.";
    AiUnavailable = "ai_unavailable", 503, "The AI's network did not load.";
    InvalidEvaluations = "invalid_evaluations", 422, "The AI benchmark's evaluation count is out of range.";
    InvalidBench = "invalid_bench", 422, "The AI benchmark's options do not go together.";
    InvalidModel = "invalid_model", 422, "The AI benchmark's model is not a plain .onnx file name, not configured, or does not load.";
    ModelFetchFailed = "model_fetch_failed", 502, "The AI benchmark's model could not be fetched.";
    ResultNotRecorded = "result_not_recorded", 503, "The game's result could not be recorded.";
    NotConfigured = "not_configured", 503, "This deployment lacks a required secret (IP_HASH_KEY): it answers nothing until it is set.";
    Internal = "internal", 500, "An unexpected server error.";
}

impl ErrorCode {
    /// Whether a client may read an answer's message: every 4xx, and the two 5xx written
    /// for players. Any other server-side failure answers a generic message instead, its
    /// detail (storage, network or internal text) logged ([`crate::http::ApiResponse::for_client`]).
    pub const fn message_is_public(self) -> bool {
        self.status() < 500 || matches!(self, ErrorCode::ServerBusy | ErrorCode::DiscordUnconfigured)
    }
}

impl core::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_snake_case_and_serialise_as_written() {
        let mut seen = std::collections::BTreeSet::new();
        for &code in ErrorCode::ALL {
            let wire = code.as_str();
            assert!(seen.insert(wire), "{wire} twice");
            assert!(!wire.is_empty() && wire.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{wire}");
            assert_eq!(serde_json::to_string(&code).unwrap(), format!("\"{wire}\""));
            assert_eq!(serde_json::from_str::<ErrorCode>(&format!("\"{wire}\"")).unwrap(), code);
            assert_eq!(code.to_string(), wire);
            assert!((400..600).contains(&code.status()), "{wire}");
            let d = code.description();
            assert!(d.ends_with('.') && !d.contains('\n'), "{wire}: one line, a sentence");
        }
        assert_eq!(ErrorCode::ALL.len(), 73);
    }

    #[test]
    fn only_client_errors_and_the_two_written_for_players_show_their_message() {
        let public: Vec<&str> = ErrorCode::ALL
            .iter()
            .filter(|c| c.status() >= 500 && c.message_is_public())
            .map(|c| c.as_str())
            .collect();
        assert_eq!(public, ["server_busy", "discord_unconfigured"]);
        assert!(ErrorCode::ALL.iter().filter(|c| c.status() < 500).all(|c| c.message_is_public()));
    }
}
