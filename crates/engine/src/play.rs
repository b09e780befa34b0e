//! Applying a move: the base move's effect (capture, stab-and-retreat, leap, merge),
//! arrival effects, charging, then the ability; and the checked `play` with typed errors.

use core::fmt;

use crate::geometry::{neighbor, sq};
use crate::movegen::{forward_dir, line_dir, FIELD_RANK};
use crate::moves::{Ability, Move};
use crate::outcome::Outcome;
use crate::position::{Position, CHARGED, NORTH, ROLE_MASK};
use crate::types::{Role, Side, Square};

const COG: u8 = Role::Cog as u8;
const DAGGER: u8 = Role::Dagger as u8;
const PHIAL: u8 = Role::Phial as u8;
const GEAR: u8 = Role::Gear as u8;
const MISTRESS: u8 = Role::Mistress as u8;

/// Why a move cannot be played in a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IllegalMove {
    /// The game is already over.
    GameOver(Outcome),
    /// No piece stands on the origin square.
    EmptySquare { mv: Move },
    /// The piece on the origin square belongs to the side not to move.
    NotYourPiece { mv: Move, side: Side },
    /// The piece cannot make this base move.
    BadBaseMove { mv: Move, role: Role },
    /// The base move is playable but would destroy the mover's own king-piece.
    DestroysOwnKing { mv: Move, role: Role },
    /// The base move is legal, the ability is not (not this piece's, no such target, or
    /// the base move already ends the game).
    BadAbility { mv: Move, role: Role },
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalMove::GameOver(o) => write!(f, "the game is over ({o})"),
            IllegalMove::EmptySquare { mv } => {
                write!(f, "illegal move {mv}: no piece on {}", mv.from)
            }
            IllegalMove::NotYourPiece { mv, side } => write!(
                f,
                "illegal move {mv}: the piece on {} is {}'s, and it is {}'s turn",
                mv.from,
                side.opponent(),
                side
            ),
            IllegalMove::BadBaseMove { mv, role } => {
                write!(f, "illegal move {mv}: {} on {} cannot move to {}", role.name(), mv.from, mv.to)
            }
            IllegalMove::DestroysOwnKing { mv, role } => {
                write!(f, "illegal move {mv}: {} would destroy its own king-piece", role.name())
            }
            IllegalMove::BadAbility { mv, role } => match mv.ability {
                Some(a) => {
                    write!(f, "illegal move {mv}: after {}{} {} cannot use {a}", mv.from, mv.to, role.name())
                }
                None => write!(f, "illegal move {mv}"),
            },
        }
    }
}

impl std::error::Error for IllegalMove {}

impl Position {
    /// Plays a legal move, or says why it is not legal and leaves `self` unchanged.
    /// Checks the position alone (see [`crate::Game::play`] for repetition).
    pub fn play(&self, mv: Move) -> Result<Position, IllegalMove> {
        if let Some(o) = self.outcome() {
            return Err(IllegalMove::GameOver(o));
        }
        let Some(piece) = self.piece_at(mv.from) else {
            return Err(IllegalMove::EmptySquare { mv });
        };
        if piece.side != self.turn {
            return Err(IllegalMove::NotYourPiece { mv, side: self.turn });
        }
        let moves = self.legal_moves();
        if moves.contains(&mv) {
            let mut next = *self;
            next.play_unchecked(mv);
            return Ok(next);
        }
        let role = piece.role;
        if moves.iter().any(|m| m.from == mv.from && m.to == mv.to) {
            return Err(IllegalMove::BadAbility { mv, role });
        }
        if role == Role::Phial && self.phial_would_detonate_own_king(mv) {
            return Err(IllegalMove::DestroysOwnKing { mv, role });
        }
        Err(IllegalMove::BadBaseMove { mv, role })
    }

    /// Finds the legal move written `text` (IAMN) — the usual entry point for adapters.
    pub fn parse_move(&self, text: &str) -> Result<Move, crate::Error> {
        let mv = Move::parse(text)?;
        self.play(mv)?;
        Ok(mv)
    }

    /// Whether the Phial's move `mv` is one its movement allows, onto its end row (only a
    /// forward step of one or two squares reaches it from another rank), refused only
    /// because the detonation would destroy the own king-piece.
    fn phial_would_detonate_own_king(&self, mv: Move) -> bool {
        let end = self.turn.end_rank();
        let Some(k) = self.king(self.turn) else {
            return false;
        };
        if mv.to.rank() != end || mv.from.rank() == end || k.distance(mv.to) > 3 {
            return false;
        }
        let friend = |s: Square| self.piece_at(s).is_some_and(|p| p.side == self.turn);
        let fwd = self.turn.forward();
        let Some(f1) = mv.from.offset(0, fwd) else {
            return false;
        };
        if mv.to == f1 {
            return !friend(f1);
        }
        mv.from.offset(0, 2 * fwd) == Some(mv.to) && self.piece_at(f1).is_none() && !friend(mv.to)
    }

    /// Applies a move known to be legal (from [`Position::legal_moves`]). The fast path
    /// for search and perft: an illegal move here leaves a nonsensical position.
    pub fn play_unchecked(&mut self, mv: Move) {
        let from = mv.from.index() as u8;
        let to = mv.to.index() as u8;
        let cell = self.board[from as usize];
        let us = cell & NORTH;
        let side = if us != 0 { Side::North } else { Side::South };
        let end = side.end_rank();
        let role = cell & ROLE_MASK;
        let target = self.board[to as usize];
        let mut fin = to;

        if role == DAGGER && target != 0 {
            // Stab: take the piece, then retreat one square back towards the origin.
            self.remove(to);
            if sq(from).distance(sq(to)) == 2 {
                let mid = ((from as u16 + to as u16) / 2) as u8;
                self.remove(from);
                self.put(mid, cell);
                fin = mid;
            } else {
                fin = from;
            }
        } else if role == COG && target != 0 && target & NORTH == us {
            // Merge: both Cogs become one Gear.
            self.remove(from);
            self.remove(to);
            self.put(to, GEAR | us);
        } else {
            self.remove(to);
            self.remove(from);
            self.put(to, cell);
        }

        // Arrival effects: only for a piece that reaches its end row by its own move.
        let arrived = fin / 9 == end && from / 9 != end;
        if arrived && role == COG && self.board[fin as usize] & ROLE_MASK == COG {
            self.remove(fin);
            self.put(fin, GEAR | us);
        }
        if arrived && role == PHIAL {
            self.detonate(fin);
        }

        match mv.ability {
            None => {}
            Some(Ability::Recall { target, dest }) => {
                let c = self.remove(target.index() as u8);
                self.put(dest.index() as u8, c & !CHARGED);
            }
            Some(Ability::Slash) => {
                for df in [-1i8, 0, 1] {
                    let s = neighbor(fin, forward_dir(side, df));
                    if s != crate::geometry::NONE {
                        self.remove(s);
                    }
                }
            }
            Some(Ability::Attract { target }) => {
                let t = target.index() as u8;
                if let Some(d) = line_dir(fin, t) {
                    let c = self.remove(t);
                    self.put(neighbor(fin, d), c);
                }
            }
            Some(Ability::Burn { target }) | Some(Ability::Assassinate { target }) => {
                self.remove(target.index() as u8);
            }
            Some(Ability::Sidestep { to: s }) => {
                let c = self.remove(fin);
                fin = s.index() as u8;
                self.put(fin, c);
            }
        }

        // Charging: the piece's own move ended on the Electric Field (a merged Cog is a
        // Gear by now, a detonated Phial is gone: neither is charged).
        let now = self.board[fin as usize];
        if fin / 9 == FIELD_RANK
            && now != 0
            && now & NORTH == us
            && now & ROLE_MASK == role
            && matches!(role, COG | DAGGER | PHIAL | MISTRESS)
        {
            self.set_charged(fin);
        }
        self.flip_turn();
    }

    fn detonate(&mut self, centre: u8) {
        let c = sq(centre);
        for s in 0..81u8 {
            if sq(s).distance(c) <= 3 {
                self.remove(s);
            }
        }
    }

    /// Whether the side to move has lost its king-piece (helper for callers that inspect
    /// a position after [`Position::play_unchecked`]).
    pub fn king_destroyed(&self, side: Side) -> bool {
        self.kings[side.index()] == crate::position::NO_SQUARE
    }
}
