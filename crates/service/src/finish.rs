//! How a game ended: the reason as a closed enum with its wire spelling, and the
//! [`Finish`] the game's record stores. Nothing re-parses display text to find a reason.

use engine::{DrawReason, Outcome, Side, WinReason};
use serde::{Deserialize, Serialize};

/// Why a game ended. Serialised as the exact text the API has always sent in
/// `result.reason` (and D1 stores in `games.reason`), so clients see no change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FinishReason {
    // By the rules (the engine's outcome).
    /// A king-piece was destroyed.
    #[serde(rename = "king destroyed")]
    KingDestroyed,
    /// Father Time arrived on its end row (a rules win; not the clock).
    #[serde(rename = "timeout")]
    Timeout,
    /// A position occurred for the third time.
    #[serde(rename = "repetition")]
    Repetition,
    /// The side to move had no legal move.
    #[serde(rename = "no legal moves")]
    NoLegalMoves,
    /// 160 plies were played (a draw).
    #[serde(rename = "160 plies")]
    PlyLimit,
    // Off the board.
    #[serde(rename = "resignation")]
    Resignation,
    /// Both players agreed to a draw.
    #[serde(rename = "agreement")]
    Agreement,
    /// The side to move let its correspondence deadline pass. Written as `time forfeit`
    /// (what the game has always recorded); `deadline`, a spelling that drifted into the
    /// story docs and tests but was never written by the game, is accepted on read.
    #[serde(rename = "time forfeit", alias = "deadline")]
    TimeForfeit,
    /// Left: Exit Stage, or an idle game whose side to move never came back.
    #[serde(rename = "abandoned")]
    Abandoned,
    /// A story stage decided by its plies alone (survived, or ran out of plies).
    #[serde(rename = "stage goal")]
    StageGoal,
    /// Aborted by a player before it really began (`aborted: by a player`).
    #[serde(rename = "by a player")]
    ByAPlayer,
    /// Aborted: nobody claimed the invite (`aborted: never joined`).
    #[serde(rename = "never joined")]
    NeverJoined,
}

impl FinishReason {
    /// The wire text (`"time forfeit"`, `"king destroyed"`, …).
    pub const fn as_str(self) -> &'static str {
        match self {
            FinishReason::KingDestroyed => WinReason::KingDestroyed.as_str(),
            FinishReason::Timeout => WinReason::Timeout.as_str(),
            FinishReason::Repetition => WinReason::Repetition.as_str(),
            FinishReason::NoLegalMoves => WinReason::NoLegalMoves.as_str(),
            FinishReason::PlyLimit => DrawReason::PlyLimit.as_str(),
            FinishReason::Resignation => "resignation",
            FinishReason::Agreement => "agreement",
            FinishReason::TimeForfeit => "time forfeit",
            FinishReason::Abandoned => "abandoned",
            FinishReason::StageGoal => "stage goal",
            FinishReason::ByAPlayer => "by a player",
            FinishReason::NeverJoined => "never joined",
        }
    }

    /// Every reason, for tests and documentation.
    pub const ALL: [FinishReason; 12] = [
        FinishReason::KingDestroyed,
        FinishReason::Timeout,
        FinishReason::Repetition,
        FinishReason::NoLegalMoves,
        FinishReason::PlyLimit,
        FinishReason::Resignation,
        FinishReason::Agreement,
        FinishReason::TimeForfeit,
        FinishReason::Abandoned,
        FinishReason::StageGoal,
        FinishReason::ByAPlayer,
        FinishReason::NeverJoined,
    ];

    /// The game ended before it began: no winner, counts for nothing (no statistics,
    /// rating or game played).
    pub const fn is_abort(self) -> bool {
        matches!(self, FinishReason::ByAPlayer | FinishReason::NeverJoined)
    }
}

impl From<WinReason> for FinishReason {
    fn from(r: WinReason) -> FinishReason {
        match r {
            WinReason::KingDestroyed => FinishReason::KingDestroyed,
            WinReason::Timeout => FinishReason::Timeout,
            WinReason::Repetition => FinishReason::Repetition,
            WinReason::NoLegalMoves => FinishReason::NoLegalMoves,
        }
    }
}

impl From<DrawReason> for FinishReason {
    fn from(r: DrawReason) -> FinishReason {
        match r {
            DrawReason::PlyLimit => FinishReason::PlyLimit,
        }
    }
}

impl core::fmt::Display for FinishReason {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a game ended: by the rules, or off the board.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finish {
    /// `south wins: timeout`, `draw: agreement`, `aborted: never joined` (the record's
    /// result line; always [`Finish::text_of`] the other fields, stored for readers).
    pub text: String,
    pub winner: Option<Side>,
    pub reason: FinishReason,
    pub at: i64,
}

impl Finish {
    pub fn from_outcome(o: Outcome, at: i64) -> Finish {
        match o {
            Outcome::Win { winner, reason } => Finish::win(winner, reason.into(), at),
            Outcome::Draw { reason } => Finish::draw(reason.into(), at),
        }
    }

    pub fn win(winner: Side, reason: FinishReason, at: i64) -> Finish {
        Finish { text: Finish::text_of(Some(winner), reason), winner: Some(winner), reason, at }
    }

    pub fn draw(reason: FinishReason, at: i64) -> Finish {
        Finish { text: Finish::text_of(None, reason), winner: None, reason, at }
    }

    /// A game that ended before it began (no winner, not a draw): `aborted: <reason>`.
    pub fn aborted(reason: FinishReason, at: i64) -> Finish {
        debug_assert!(reason.is_abort());
        Finish { text: Finish::text_of(None, reason), winner: None, reason, at }
    }

    /// The result line: `<side> wins: <reason>`, `draw: <reason>` or `aborted: <reason>`.
    pub fn text_of(winner: Option<Side>, reason: FinishReason) -> String {
        match winner {
            Some(w) => format!("{w} wins: {reason}"),
            None if reason.is_abort() => format!("aborted: {reason}"),
            None => format!("draw: {reason}"),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn reasons_keep_their_wire_spelling_and_round_trip() {
        for r in FinishReason::ALL {
            let wire = serde_json::to_value(r).unwrap();
            assert_eq!(wire, serde_json::Value::String(r.as_str().to_owned()));
            assert_eq!(serde_json::from_value::<FinishReason>(wire).unwrap(), r);
        }
        // The drifted spelling is read as the one the game writes, and written back so.
        let old: FinishReason = serde_json::from_str("\"deadline\"").unwrap();
        assert_eq!((old, old.as_str()), (FinishReason::TimeForfeit, "time forfeit"));
        assert!(serde_json::from_str::<FinishReason>("\"bored\"").is_err());
    }

    #[test]
    fn engine_outcomes_map_without_parsing_text() {
        let o = Outcome::Win { winner: Side::North, reason: WinReason::Timeout };
        let f = Finish::from_outcome(o, 5);
        assert_eq!((f.text.as_str(), f.reason), ("north wins: timeout", FinishReason::Timeout));
        assert_eq!(f.text, o.to_string());
        let d = Finish::from_outcome(Outcome::Draw { reason: DrawReason::PlyLimit }, 5);
        assert_eq!((d.text.as_str(), d.winner), ("draw: 160 plies", None));
        assert_eq!(Finish::aborted(FinishReason::NeverJoined, 1).text, "aborted: never joined");
    }
}
