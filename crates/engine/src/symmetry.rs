//! The left-right mirror: file a ↔ i, b ↔ h, c ↔ g, d ↔ f (e stays), ranks unchanged.
//!
//! The rules are invariant under it (the one board symmetry they have): every setup is
//! file-symmetric, every move, leap and ability is defined by directions that come in
//! left/right pairs (Slash covers forward-left and forward-right alike), distances are
//! Chebyshev, Recall's destinations are a type's starting squares (a file-symmetric set)
//! and the player picks among them, and no rule breaks a tie by file. So a position's
//! mirror has exactly the mirrored legal moves, and playing commutes with mirroring.
//! `tests/mirror.rs` checks this over random games; the trainer uses it to augment data.
//! Colour or rank flips are not symmetries (South moves first; forward matters).

use crate::moves::{Ability, Move};
use crate::position::{Position, NO_SQUARE};
use crate::types::Square;

impl Square {
    /// The square in the same rank on the mirrored file (a ↔ i, …, e stays).
    #[inline]
    pub const fn mirrored_files(self) -> Square {
        Square::from_index_unchecked(self.rank() * 9 + (8 - self.file()))
    }
}

impl Ability {
    /// The same ability with every square it names mirrored ([`Square::mirrored_files`]).
    pub const fn mirrored_files(self) -> Ability {
        match self {
            Ability::Recall { target, dest } => {
                Ability::Recall { target: target.mirrored_files(), dest: dest.mirrored_files() }
            }
            Ability::Slash => Ability::Slash,
            Ability::Attract { target } => Ability::Attract { target: target.mirrored_files() },
            Ability::Burn { target } => Ability::Burn { target: target.mirrored_files() },
            Ability::Sidestep { to } => Ability::Sidestep { to: to.mirrored_files() },
            Ability::Assassinate { target } => Ability::Assassinate { target: target.mirrored_files() },
        }
    }
}

impl Move {
    /// The same move with every square it names mirrored: the legal move of the mirrored
    /// position ([`Position::mirrored_files`]) that does what this one does.
    pub const fn mirrored_files(self) -> Move {
        Move {
            from: self.from.mirrored_files(),
            to: self.to.mirrored_files(),
            ability: match self.ability {
                Some(a) => Some(a.mirrored_files()),
                None => None,
            },
        }
    }
}

impl Position {
    /// The left-right mirror of this position: every piece (with its charge) moved to the
    /// mirrored file of its rank; factions, side to move and ply unchanged. An involution.
    pub fn mirrored_files(&self) -> Position {
        let mut next = *self;
        for i in 0..81u8 {
            let m = Square::from_index_unchecked(i).mirrored_files().index();
            next.board[m] = self.board[i as usize];
        }
        for k in &mut next.kings {
            if *k != NO_SQUARE {
                *k = Square::from_index_unchecked(*k).mirrored_files().index() as u8;
            }
        }
        next.hash = next.compute_hash();
        next
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::types::Square;

    #[test]
    fn square_mirror_swaps_files_and_keeps_ranks() {
        assert_eq!(Square::parse("a1").unwrap().mirrored_files(), Square::parse("i1").unwrap());
        assert_eq!(Square::parse("c7").unwrap().mirrored_files(), Square::parse("g7").unwrap());
        assert_eq!(Square::parse("e5").unwrap().mirrored_files(), Square::parse("e5").unwrap());
        for i in 0..81 {
            let s = Square::new(i).unwrap();
            assert_eq!(s.mirrored_files().mirrored_files(), s);
            assert_eq!(s.mirrored_files().rank(), s.rank());
        }
    }
}
