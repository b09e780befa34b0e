//! The game record: a small text format for finished or ongoing games, written by the
//! server (`GET /api/games/{id}/record`) and replayed by `iron-arena replay`.
//!
//! ```text
//! [Iron Arena game record]
//! id: 3f9c2a
//! date: 2026-11-30T06:40:00Z
//! south: clockwork (human)
//! north: blades (ai)
//! start: clockwork blades wkbamabkw/ddddddddd/9/9/9/9/9/CCCCCCCCC/PSDHFHDSP s - 0
//! result: north wins: resignation
//! moves: e2d3 e8e7
//! ```
//!
//! Tags other than `start`, `result` and `moves` are informational and kept in order.
//! `result` is `ongoing`, a rules result (docs/specification.md §7), or one decided off the board:
//! `<side> wins: resignation`, `<side> wins: time forfeit`, `draw: agreement`,
//! `<side> wins: abandoned` (an idle game, or a story stage exited), `<side> wins: stage
//! goal` (a story stage decided by its goal), `aborted: never joined` (an invite nobody
//! claimed), `aborted: by a player` (before either side's second move).

use core::fmt;

use crate::{iapn, result_text, Game, Move, Position};

pub const HEADER: &str = "[Iron Arena game record]";

/// Results decided off the board (the game is still ongoing on it).
pub const OFF_BOARD_REASONS: [&str; 8] = [
    "resignation",
    "time forfeit",
    "agreement",
    "abandoned",
    "stage goal",
    "never joined",
    "aborted",
    "by a player",
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Informational tags (`id`, `date`, `south`, `north`, …) in order.
    pub tags: Vec<(String, String)>,
    pub start: Position,
    pub moves: Vec<Move>,
    pub result: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordError {
    MissingHeader,
    /// Line number (1-based) and what is wrong with it.
    BadLine(usize, String),
    Missing(&'static str),
    Start(iapn::ParsePositionError),
    /// The move's number (1-based) and why it cannot be played.
    Move(usize, String),
    /// The recorded result does not follow from the moves.
    ResultMismatch {
        recorded: String,
        replayed: String,
    },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::MissingHeader => {
                write!(f, "not a game record: the first line must be '{HEADER}'")
            }
            RecordError::BadLine(n, why) => write!(f, "record line {n}: {why}"),
            RecordError::Missing(tag) => write!(f, "record has no '{tag}:' line"),
            RecordError::Start(e) => write!(f, "record start position: {e}"),
            RecordError::Move(n, why) => write!(f, "record move {n}: {why}"),
            RecordError::ResultMismatch { recorded, replayed } => {
                write!(f, "record says '{recorded}' but the moves give '{replayed}'")
            }
        }
    }
}

impl std::error::Error for RecordError {}

impl Record {
    /// Parses the text form (syntax, start position and move notation).
    pub fn parse(text: &str) -> Result<Record, RecordError> {
        let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
        match lines.next() {
            Some((_, l)) if l.trim() == HEADER => {}
            _ => return Err(RecordError::MissingHeader),
        }
        let (mut tags, mut start, mut moves, mut result) = (Vec::new(), None, None, None);
        for (i, line) in lines {
            let (key, value) = line
                .split_once(':')
                .ok_or_else(|| RecordError::BadLine(i + 1, "expected '<tag>: <value>'".into()))?;
            let value = value.trim();
            match key.trim() {
                "start" => start = Some(iapn::parse(value).map_err(RecordError::Start)?),
                "result" => result = Some(value.to_owned()),
                "moves" => {
                    let parsed: Result<Vec<Move>, RecordError> = value
                        .split_whitespace()
                        .enumerate()
                        .map(|(n, m)| Move::parse(m).map_err(|e| RecordError::Move(n + 1, e.to_string())))
                        .collect();
                    moves = Some(parsed?);
                }
                other => tags.push((other.to_owned(), value.to_owned())),
            }
        }
        Ok(Record {
            tags,
            start: start.ok_or(RecordError::Missing("start"))?,
            moves: moves.ok_or(RecordError::Missing("moves"))?,
            result: result.ok_or(RecordError::Missing("result"))?,
        })
    }

    /// Replays the moves and checks the recorded result against the rules: a rules result
    /// must be exactly what the moves give; an off-board result (resignation, time
    /// forfeit, agreement) or `ongoing` needs a game the moves leave ongoing.
    pub fn replay(&self) -> Result<Game, RecordError> {
        let mut game = Game::new(self.start);
        for (n, mv) in self.moves.iter().enumerate() {
            game.play(*mv).map_err(|e| RecordError::Move(n + 1, e.to_string()))?;
        }
        let replayed = result_text(game.outcome());
        let off_board = OFF_BOARD_REASONS.iter().any(|r| self.result.ends_with(&format!(": {r}")));
        let consistent = if off_board { game.outcome().is_none() } else { replayed == self.result };
        if !consistent {
            return Err(RecordError::ResultMismatch { recorded: self.result.clone(), replayed });
        }
        Ok(game)
    }
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{HEADER}")?;
        for (k, v) in &self.tags {
            writeln!(f, "{k}: {v}")?;
        }
        writeln!(f, "start: {}", self.start)?;
        writeln!(f, "result: {}", self.result)?;
        let moves: Vec<String> = self.moves.iter().map(Move::to_string).collect();
        writeln!(f, "moves: {}", moves.join(" "))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::Faction;

    fn sample(result: &str, moves: &[&str]) -> Record {
        Record {
            tags: vec![("id".into(), "g1".into()), ("south".into(), "clockwork (human)".into())],
            start: Position::start(Faction::Clockwork, Faction::Blades),
            moves: moves.iter().map(|m| Move::parse(m).unwrap()).collect(),
            result: result.into(),
        }
    }

    #[test]
    fn round_trips_and_replays() {
        let r = sample("north wins: resignation", &["e2d3", "e8e7"]);
        let text = r.to_string();
        let back = Record::parse(&text).unwrap();
        assert_eq!(back, r);
        let game = back.replay().unwrap();
        assert_eq!(game.moves().len(), 2);
    }

    #[test]
    fn a_result_the_moves_do_not_give_is_refused() {
        let r = sample("south wins: king destroyed", &["e2d3"]);
        assert!(matches!(r.replay(), Err(RecordError::ResultMismatch { .. })));
        let r = sample("ongoing", &["e2d3", "e2d3"]);
        assert!(matches!(r.replay(), Err(RecordError::Move(2, _))));
        assert_eq!(Record::parse("hello"), Err(RecordError::MissingHeader));
        assert!(matches!(Record::parse(&format!("{HEADER}\nstart: x")), Err(RecordError::Start(_))));
    }
}
