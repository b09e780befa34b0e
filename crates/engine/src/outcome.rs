//! How a game ends.

use core::fmt;

use crate::types::Side;

/// Why a side won.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WinReason {
    /// The loser's king-piece was captured, burnt, slashed, detonated or assassinated.
    KingDestroyed,
    /// Father Time arrived on its end row.
    Timeout,
    /// The loser made a position occur for the third time.
    Repetition,
    /// The loser had no legal move.
    NoLegalMoves,
}

/// Why a game was drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawReason {
    /// 160 plies were played.
    PlyLimit,
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win { winner: Side, reason: WinReason },
    Draw { reason: DrawReason },
}

impl Outcome {
    pub fn winner(self) -> Option<Side> {
        match self {
            Outcome::Win { winner, .. } => Some(winner),
            Outcome::Draw { .. } => None,
        }
    }
}

impl WinReason {
    pub const fn as_str(self) -> &'static str {
        match self {
            WinReason::KingDestroyed => "king destroyed",
            WinReason::Timeout => "timeout",
            WinReason::Repetition => "repetition",
            WinReason::NoLegalMoves => "no legal moves",
        }
    }
}

impl DrawReason {
    pub const fn as_str(self) -> &'static str {
        match self {
            DrawReason::PlyLimit => "160 plies",
        }
    }
}

impl fmt::Display for Outcome {
    /// `south wins: <reason>`, `north wins: <reason>` or `draw: <reason>` (docs/specification.md §7).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win { winner, reason } => write!(f, "{winner} wins: {}", reason.as_str()),
            Outcome::Draw { reason } => write!(f, "draw: {}", reason.as_str()),
        }
    }
}

/// `ongoing` or the outcome, as the CLI and the API print it.
pub fn result_text(outcome: Option<Outcome>) -> String {
    outcome.map_or_else(|| "ongoing".to_owned(), |o| o.to_string())
}
