//! A game: a position plus the history that repetition needs, and the result.

use crate::moves::Move;
use crate::outcome::Outcome;
use crate::play::IllegalMove;
use crate::position::Position;

/// A game from a given position: every position seen (for the third-repetition rule),
/// the moves played, and the outcome once the game is over.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    position: Position,
    /// Every position that has occurred, the start included.
    seen: Vec<Position>,
    moves: Vec<Move>,
    outcome: Option<Outcome>,
}

impl Game {
    /// Starts a game at `start`, which counts as seen once.
    pub fn new(start: Position) -> Game {
        Game { start, position: start, seen: vec![start], moves: Vec::new(), outcome: start.outcome() }
    }

    pub fn start(&self) -> &Position {
        &self.start
    }

    pub fn position(&self) -> &Position {
        &self.position
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Legal moves in the current position: none once the game is over.
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        self.position.legal_moves()
    }

    /// Every position that has occurred, the start included, in order.
    pub fn history(&self) -> &[Position] {
        &self.seen
    }

    /// How often the current position (board, charges, side to move) has occurred.
    pub fn repetitions(&self) -> usize {
        self.seen.iter().filter(|p| p.same_position(&self.position)).count()
    }

    /// Plays a move; on error nothing changes. Returns the outcome after the move.
    pub fn play(&mut self, mv: Move) -> Result<Option<Outcome>, IllegalMove> {
        if let Some(o) = self.outcome {
            return Err(IllegalMove::GameOver(o));
        }
        let next = self.position.play(mv)?;
        let earlier = self.seen.iter().filter(|p| p.same_position(&next)).count();
        let outcome = next.outcome_after_move(earlier);
        self.position = next;
        self.seen.push(next);
        self.moves.push(mv);
        self.outcome = outcome;
        Ok(outcome)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::iapn;

    fn play_all(game: &mut Game, moves: &[&str]) -> Option<Outcome> {
        let mut last = None;
        for m in moves {
            last = game.play(Move::parse(m).unwrap()).unwrap();
        }
        last
    }

    #[test]
    fn third_occurrence_loses_for_the_mover() {
        // Two Gears shuffle; the start position recurs after 4 and 8 plies.
        let start = iapn::parse("clockwork clockwork 4f3g/9/9/9/9/9/9/9/4F3G s - 0").unwrap();
        let mut g = Game::new(start);
        let shuffle = ["i1h1", "i9h9", "h1i1", "h9i9"];
        assert_eq!(play_all(&mut g, &shuffle), None);
        assert_eq!(g.repetitions(), 2);
        // South's h1i1 of the second cycle makes its position's second occurrence...
        assert_eq!(play_all(&mut g, &shuffle[..3]), None);
        // ...North's h9i9 recreates the start position for the third time: North loses.
        let o = g.play(Move::parse("h9i9").unwrap()).unwrap();
        assert_eq!(o.map(|o| o.to_string()).as_deref(), Some("south wins: repetition"));
        assert!(g.legal_moves().is_empty());
        assert!(matches!(g.play(Move::parse("i1h1").unwrap()), Err(IllegalMove::GameOver(_))));
    }

    #[test]
    fn an_illegal_move_changes_nothing() {
        let start = Position::start(crate::Faction::Axiom, crate::Faction::Blades);
        let mut g = Game::new(start);
        assert!(g.play(Move::parse("e1e3").unwrap()).is_err());
        assert_eq!(g.position(), &start);
        assert!(g.moves().is_empty());
    }
}
