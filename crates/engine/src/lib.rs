//! Iron Arena's rules engine (docs/specification.md): pure, no I/O, no global state, no clock.
//!
//! - [`Position`]: a validated position (board, factions, side to move, ply, hash), made
//!   from IAPN text ([`iapn::parse`]) or an unvalidated [`Setup`].
//! - [`Move`]: a base move and at most one [`Ability`], written in IAMN.
//! - [`Position::legal_moves`], [`Position::play`] (checked, typed [`IllegalMove`]) and
//!   [`Position::play_unchecked`] (the fast path for search).
//! - [`Game`]: a position with its history for the third-repetition rule.
//! - [`perft`]: the move-generator yardstick.
//! - [`Position::mirrored_files`], [`Move::mirrored_files`]: the left-right mirror, the
//!   rules' one board symmetry (for data augmentation; `tests/mirror.rs` checks it).

mod game;
mod geometry;
pub mod iapn;
mod movegen;
mod moves;
mod outcome;
pub mod perft;
mod play;
mod position;
pub mod record;
#[cfg(feature = "serde")]
mod serde_impls;
mod setup;
mod symmetry;
mod types;
mod zobrist;

pub use game::Game;
pub use iapn::ParsePositionError;
pub use moves::{Ability, Move, MoveParseError};
pub use outcome::{result_text, DrawReason, Outcome, WinReason};
pub use play::IllegalMove;
pub use position::{Pieces, Position, PositionError, Setup, MAX_PLY};
pub use setup::{starting_squares, FactionSetup, SETUPS};
pub use types::{Faction, Piece, Role, Side, Square};

use core::fmt;

/// Any engine error, for adapters that want one type and `?`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    Position(ParsePositionError),
    MoveSyntax(MoveParseError),
    Illegal(IllegalMove),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Position(e) => write!(f, "invalid position: {e}"),
            Error::MoveSyntax(e) => write!(f, "invalid move: {e}"),
            Error::Illegal(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ParsePositionError> for Error {
    fn from(e: ParsePositionError) -> Self {
        Error::Position(e)
    }
}

impl From<MoveParseError> for Error {
    fn from(e: MoveParseError) -> Self {
        Error::MoveSyntax(e)
    }
}

impl From<IllegalMove> for Error {
    fn from(e: IllegalMove) -> Self {
        Error::Illegal(e)
    }
}
