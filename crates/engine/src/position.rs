//! The validated position: board, factions, side to move, ply, and its Zobrist hash.
//!
//! A [`Setup`] is anything-goes data (what a parser produces); a [`Position`] is only made
//! through [`Position::from_setup`], which checks every invariant the rules need.

use core::fmt;

use crate::outcome::{DrawReason, Outcome, WinReason};
use crate::types::{Faction, Piece, Role, Side, Square};
use crate::zobrist;

/// Cell encoding: bits 0–4 role code (1..=19, 0 = empty), bit 5 North, bit 6 charged.
pub(crate) const ROLE_MASK: u8 = 0x1F;
pub(crate) const NORTH: u8 = 0x20;
pub(crate) const CHARGED: u8 = 0x40;
pub(crate) const NO_SQUARE: u8 = 0xFF;

/// The last ply: a position at this ply is a draw.
pub const MAX_PLY: u16 = 160;

#[inline]
pub(crate) const fn side_bits(side: Side) -> u8 {
    match side {
        Side::South => 0,
        Side::North => NORTH,
    }
}

#[inline]
pub(crate) const fn encode(piece: Piece) -> u8 {
    (piece.role as u8) | side_bits(piece.side) | if piece.charged { CHARGED } else { 0 }
}

#[inline]
pub(crate) fn decode(cell: u8) -> Option<Piece> {
    if cell == 0 {
        return None;
    }
    Some(Piece {
        side: if cell & NORTH != 0 { Side::North } else { Side::South },
        role: Role::from_code(cell & ROLE_MASK),
        charged: cell & CHARGED != 0,
    })
}

/// Gathers the lowest bit of each of the eight bytes of `x` (each 0 or 1) into one byte,
/// the first byte's bit lowest.
#[inline]
const fn gather_bytes(x: u64) -> u64 {
    x.wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// A set of squares, one bit each: squares 0-63 in the first word, 64-80 in the second
/// (two 64-bit words rather than a `u128`: wasm has no 128-bit integers, and the Worker's
/// search walks these at every node).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SquareSet([u64; 2]);

impl SquareSet {
    #[inline]
    pub(crate) fn and(self, other: SquareSet) -> SquareSet {
        SquareSet([self.0[0] & other.0[0], self.0[1] & other.0[1]])
    }

    #[inline]
    pub(crate) fn and_not(self, other: SquareSet) -> SquareSet {
        SquareSet([self.0[0] & !other.0[0], self.0[1] & !other.0[1]])
    }

    /// Removes and returns the lowest square.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<u8> {
        if self.0[0] != 0 {
            let i = self.0[0].trailing_zeros() as u8;
            self.0[0] &= self.0[0] - 1;
            Some(i)
        } else if self.0[1] != 0 {
            let i = self.0[1].trailing_zeros() as u8;
            self.0[1] &= self.0[1] - 1;
            Some(64 + i)
        } else {
            None
        }
    }

    #[cfg(test)]
    fn bits(self) -> u128 {
        u128::from(self.0[0]) | u128::from(self.0[1]) << 64
    }
}

/// The cells of `board` as eleven little-endian words of eight (the last holds one cell).
#[inline]
fn words(board: &[u8; 81]) -> [u64; 11] {
    let mut out = [0u64; 11];
    for (w, chunk) in out.iter_mut().zip(board.chunks(8)) {
        let mut bytes = [0u8; 8];
        bytes[..chunk.len()].copy_from_slice(chunk);
        *w = u64::from_le_bytes(bytes);
    }
    out
}

/// One bit per cell, gathered from one flag bit (0 or 1 in each byte's lowest bit) per
/// byte of each word.
#[inline]
fn gather(words: &[u64; 11], flag: impl Fn(u64) -> u64) -> SquareSet {
    let mut set = [0u64; 2];
    for (w, &x) in words.iter().enumerate() {
        set[w / 8] |= gather_bytes(flag(x)) << (8 * (w % 8));
    }
    SquareSet(set)
}

/// Per byte of `x`: 1 in its lowest bit where the byte is not zero, else 0. (A byte's high
/// bit, after adding 0x7f to its low seven bits and or-ing the byte itself, is set exactly
/// when the byte is not zero.)
#[inline]
const fn nonzero_bytes(x: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    ((((x & LOW7) + LOW7) | x) & !LOW7) >> 7
}

/// The cells of `board` that are not empty, eight at a time without a branch.
#[inline]
pub(crate) fn occupancy(board: &[u8; 81]) -> SquareSet {
    gather(&words(board), nonzero_bytes)
}

/// The cells of `board` holding a piece of North (`north`) or of South.
#[inline]
pub(crate) fn side_occupancy(board: &[u8; 81], north: bool) -> SquareSet {
    let w = words(board);
    let occupied = gather(&w, nonzero_bytes);
    // NORTH is bit 5 of a cell.
    let flagged = gather(&w, |x| (x >> 5) & 0x0101_0101_0101_0101);
    if north {
        occupied.and(flagged)
    } else {
        occupied.and_not(flagged)
    }
}

/// The pieces of a position in square order ([`Position::pieces`]).
#[derive(Clone, Debug)]
pub struct Pieces<'a> {
    board: &'a [u8; 81],
    /// The occupied squares not yet given.
    left: SquareSet,
}

impl Iterator for Pieces<'_> {
    type Item = (Square, Piece);

    #[inline]
    fn next(&mut self) -> Option<(Square, Piece)> {
        let i = self.left.pop()?;
        Some((Square::new(i)?, decode(self.board[usize::from(i)])?))
    }
}

/// An unvalidated position: public fields, anything goes. Turn it into a [`Position`] with
/// [`Position::from_setup`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// Factions of South and North, in that order.
    pub factions: [Faction; 2],
    /// Indexed by [`Square::index`].
    pub board: [Option<Piece>; 81],
    pub turn: Side,
    pub ply: u16,
}

impl Setup {
    /// The starting setup of a match-up.
    pub fn start(south: Faction, north: Faction) -> Setup {
        let mut board = [None; 81];
        for (side, faction) in [(Side::South, south), (Side::North, north)] {
            let setup = faction.setup();
            for file in 0..9u8 {
                let back = Square::from_coords(file, side.back_rank());
                let front = Square::from_coords(file, side.front_rank());
                if let (Some(b), Some(f)) = (back, front) {
                    board[b.index()] =
                        Some(Piece { side, role: setup.back_rank[file as usize], charged: false });
                    board[f.index()] = Some(Piece { side, role: setup.front_rank, charged: false });
                }
            }
        }
        Setup { factions: [south, north], board, turn: Side::South, ply: 0 }
    }
}

/// Why a [`Setup`] is not a valid position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// A piece whose role does not belong to its side's faction.
    WrongFaction { square: Square, side: Side, role: Role, faction: Faction },
    /// More than one king-piece for a side.
    TooManyKings { side: Side },
    /// Neither side has a king-piece: no result can be given.
    NoKings,
    /// Both Fathers Time stand on their end rows: both sides would have won.
    BothTimedOut,
    /// A charged flag on a piece type that cannot carry it.
    NotChargeable { square: Square, role: Role },
    /// Ply beyond the 160-ply limit.
    PlyTooLarge { ply: u16 },
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::WrongFaction { square, side, role, faction } => {
                write!(f, "{square}: {side} plays {faction}, which has no {}", role.name())
            }
            PositionError::TooManyKings { side } => {
                write!(f, "{side} has more than one king-piece")
            }
            PositionError::NoKings => f.write_str("neither side has a king-piece"),
            PositionError::BothTimedOut => f.write_str("both Fathers Time stand on their end rows"),
            PositionError::NotChargeable { square, role } => {
                write!(f, "{square}: a {} cannot be charged", role.name())
            }
            PositionError::PlyTooLarge { ply } => write!(f, "ply {ply} is over 160"),
        }
    }
}

impl std::error::Error for PositionError {}

/// A position that satisfies every invariant the rules need. Cheap to copy (copy-make).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub(crate) board: [u8; 81],
    pub(crate) factions: [Faction; 2],
    pub(crate) turn: Side,
    pub(crate) ply: u16,
    pub(crate) hash: u64,
    /// Square index of each side's king-piece, or [`NO_SQUARE`].
    pub(crate) kings: [u8; 2],
}

/// A cell's hash contribution (`zobrist::cell_key` over this module's cell encoding).
#[inline]
fn cell_key(sq: usize, cell: u8) -> u64 {
    zobrist::cell_key(sq, cell & !CHARGED, cell & CHARGED != 0)
}

impl Position {
    /// The starting position of a match-up.
    pub fn start(south: Faction, north: Faction) -> Position {
        match Position::from_setup(&Setup::start(south, north)) {
            Ok(p) => p,
            // The setup table is checked by a unit test; this cannot fail.
            Err(e) => unreachable!("starting setup is invalid: {e}"),
        }
    }

    /// Checks every invariant and builds the position (with its hash).
    pub fn from_setup(setup: &Setup) -> Result<Position, PositionError> {
        if setup.ply > MAX_PLY {
            return Err(PositionError::PlyTooLarge { ply: setup.ply });
        }
        let mut board = [0u8; 81];
        let mut kings = [NO_SQUARE; 2];
        for (i, cell) in setup.board.iter().enumerate() {
            let Some(piece) = *cell else { continue };
            let square = Square::from_index_unchecked(i as u8);
            let faction = setup.factions[piece.side.index()];
            if piece.role.faction() != faction {
                return Err(PositionError::WrongFaction {
                    square,
                    side: piece.side,
                    role: piece.role,
                    faction,
                });
            }
            if piece.charged && !piece.role.is_chargeable() {
                return Err(PositionError::NotChargeable { square, role: piece.role });
            }
            if piece.role.is_king() {
                if kings[piece.side.index()] != NO_SQUARE {
                    return Err(PositionError::TooManyKings { side: piece.side });
                }
                kings[piece.side.index()] = i as u8;
            }
            board[i] = encode(piece);
        }
        if kings == [NO_SQUARE; 2] {
            return Err(PositionError::NoKings);
        }
        let mut pos =
            Position { board, factions: setup.factions, turn: setup.turn, ply: setup.ply, hash: 0, kings };
        if pos.timed_out(Side::South) && pos.timed_out(Side::North) {
            return Err(PositionError::BothTimedOut);
        }
        pos.hash = pos.compute_hash();
        Ok(pos)
    }

    /// The unvalidated form of this position.
    pub fn to_setup(&self) -> Setup {
        let mut board = [None; 81];
        for (i, &c) in self.board.iter().enumerate() {
            board[i] = decode(c);
        }
        Setup { factions: self.factions, board, turn: self.turn, ply: self.ply }
    }

    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        decode(self.board[sq.index()])
    }

    /// The pieces on the board with their squares, in square order (a1, b1, … i9): what
    /// `piece_at` over every square gives, without a branch per empty square (the search's
    /// evaluators scan the board at every leaf).
    #[inline]
    pub fn pieces(&self) -> Pieces<'_> {
        Pieces { board: &self.board, left: occupancy(&self.board) }
    }

    #[inline]
    pub fn turn(&self) -> Side {
        self.turn
    }

    #[inline]
    pub fn ply(&self) -> u16 {
        self.ply
    }

    #[inline]
    pub fn faction(&self, side: Side) -> Faction {
        self.factions[side.index()]
    }

    /// Zobrist hash of (board, charged flags, side to move), kept incrementally.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The square of a side's king-piece, if it is still on the board.
    pub fn king(&self, side: Side) -> Option<Square> {
        let k = self.kings[side.index()];
        (k != NO_SQUARE).then(|| Square::from_index_unchecked(k))
    }

    /// The hash recomputed from scratch (tests compare it with the incremental one).
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for (i, &c) in self.board.iter().enumerate() {
            h ^= cell_key(i, c);
        }
        if self.turn == Side::North {
            h ^= zobrist::NORTH_TO_MOVE;
        }
        h
    }

    /// Same board, charged flags and side to move: the identity used for repetition.
    pub fn same_position(&self, other: &Position) -> bool {
        self.hash == other.hash && self.turn == other.turn && self.board == other.board
    }

    /// Father Time of `side` stands on its end row (it can only get there by arriving:
    /// no ability moves an enemy king-piece, and Clockwork has no Magnet).
    pub(crate) fn timed_out(&self, side: Side) -> bool {
        let k = self.kings[side.index()];
        k != NO_SQUARE
            && self.board[k as usize] & ROLE_MASK == Role::FatherTime as u8
            && k / 9 == side.end_rank()
    }

    /// The outcome visible on the board alone, in docs/specification.md §6 order, before repetition:
    /// a side without its king-piece has lost; Father Time on its end row has won. Cheap (no
    /// move generation): searches use it to look one move ahead for a win.
    pub fn board_outcome(&self) -> Option<Outcome> {
        for side in [self.turn, self.turn.opponent()] {
            if self.kings[side.index()] == NO_SQUARE {
                return Some(Outcome::Win { winner: side.opponent(), reason: WinReason::KingDestroyed });
            }
        }
        for side in [self.turn.opponent(), self.turn] {
            if self.timed_out(side) {
                return Some(Outcome::Win { winner: side, reason: WinReason::Timeout });
            }
        }
        None
    }

    /// The outcome checks that follow repetition: the ply limit, then no legal move.
    pub(crate) fn late_outcome(&self) -> Option<Outcome> {
        if self.ply >= MAX_PLY {
            return Some(Outcome::Draw { reason: DrawReason::PlyLimit });
        }
        if !self.has_legal_move() {
            return Some(Outcome::Win { winner: self.turn.opponent(), reason: WinReason::NoLegalMoves });
        }
        None
    }

    /// The outcome of this position just reached by a move, given how many times it had
    /// occurred before (docs/specification.md §6 in order: king destroyed, Timeout, third repetition
    /// — the mover loses —, 160 plies, no legal move). For searches that keep their own
    /// history; [`crate::Game`] uses it too.
    pub fn outcome_after_move(&self, earlier_occurrences: usize) -> Option<Outcome> {
        self.board_outcome().or_else(|| {
            if earlier_occurrences >= 2 {
                Some(Outcome::Win { winner: self.turn, reason: WinReason::Repetition })
            } else {
                self.late_outcome()
            }
        })
    }

    /// The outcome of this position taken alone (no history): king destroyed, Timeout,
    /// 160 plies, no legal move. [`crate::Game`] adds repetition between the second and third.
    pub fn outcome(&self) -> Option<Outcome> {
        self.board_outcome().or_else(|| self.late_outcome())
    }

    pub fn is_over(&self) -> bool {
        self.outcome().is_some()
    }

    // --- board primitives: every change goes through these, so the hash and the king
    // squares stay right ---

    #[inline]
    pub(crate) fn put(&mut self, sq: u8, cell: u8) {
        debug_assert_eq!(self.board[sq as usize], 0);
        self.board[sq as usize] = cell;
        self.hash ^= cell_key(sq as usize, cell);
        if Role::from_code(cell & ROLE_MASK).is_king() {
            self.kings[(cell & NORTH != 0) as usize] = sq;
        }
    }

    #[inline]
    pub(crate) fn remove(&mut self, sq: u8) -> u8 {
        let cell = self.board[sq as usize];
        if cell != 0 {
            self.board[sq as usize] = 0;
            self.hash ^= cell_key(sq as usize, cell);
            if Role::from_code(cell & ROLE_MASK).is_king() {
                self.kings[(cell & NORTH != 0) as usize] = NO_SQUARE;
            }
        }
        cell
    }

    #[inline]
    pub(crate) fn set_charged(&mut self, sq: u8) {
        let cell = self.board[sq as usize];
        if cell & CHARGED == 0 {
            self.board[sq as usize] = cell | CHARGED;
            self.hash ^= zobrist::CHARGED_KEYS[sq as usize];
        }
    }

    /// Passes the turn: the other side to move, the ply advanced, nothing on the board
    /// changed. Not a move of the game (the rules have no pass); a search's null move
    /// (`ai::pvs`'s null-move pruning) asks what the opponent could do if the side to move
    /// did nothing. The caller must not pass in a position that has ended.
    pub fn pass_unchecked(&mut self) {
        self.flip_turn();
    }

    #[inline]
    pub(crate) fn flip_turn(&mut self) {
        self.turn = self.turn.opponent();
        self.hash ^= zobrist::NORTH_TO_MOVE;
        self.ply += 1;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_match_up_starts_valid_and_ongoing() {
        for s in Faction::ALL {
            for n in Faction::ALL {
                let p = Position::start(s, n);
                assert_eq!(p.turn(), Side::South);
                assert_eq!(p.ply(), 0);
                assert_eq!(p.outcome(), None);
                assert_eq!(p.hash(), p.compute_hash());
                assert!(p.king(Side::South).is_some() && p.king(Side::North).is_some());
            }
        }
    }

    /// A pass is the same position with the other side to move, one ply on: the hash is
    /// the one the position would have if written that way (the search's repetition and
    /// table keys depend on it).
    #[test]
    fn a_pass_is_the_position_with_the_other_side_to_move() {
        let mut p =
            crate::iapn::parse("axiom blades 9/4m1P2/9/9/9/9/9/9/S8 s - 6").unwrap_or_else(|e| panic!("{e}"));
        p.pass_unchecked();
        let q =
            crate::iapn::parse("axiom blades 9/4m1P2/9/9/9/9/9/9/S8 n - 7").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p, q);
        assert_eq!(p.hash(), p.compute_hash());
        assert_eq!(p.turn(), Side::North);
        // Two passes: the first position again (its hash too), two plies on.
        p.pass_unchecked();
        let r =
            crate::iapn::parse("axiom blades 9/4m1P2/9/9/9/9/9/9/S8 s - 8").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p, r);
        assert_eq!(p.hash(), r.hash());
    }

    /// `pieces` and the side masks give what a scan of every square gives, on boards with
    /// every kind of cell (all 128 codes, including the charged and North bits) at every
    /// square, so the word-at-a-time masks have no blind byte.
    #[test]
    fn the_piece_masks_equal_a_scan_of_every_square() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..2_000 {
            let mut board = [0u8; 81];
            for (i, cell) in board.iter_mut().enumerate() {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                // Half the boards sparse, half dense; codes 0-127 in any bit pattern.
                let empty = if round % 2 == 0 { state >> 61 != 0 } else { state >> 62 == 0 };
                *cell = if empty { 0 } else { ((state >> 33) as u8 | (i == 80) as u8) & 0x7f };
            }
            let scan: u128 = (0..81).filter(|&i| board[i] != 0).map(|i| 1u128 << i).sum();
            assert_eq!(occupancy(&board).bits(), scan, "{board:?}");
            for north in [false, true] {
                let side: u128 = (0..81)
                    .filter(|&i| board[i] != 0 && (board[i] & NORTH != 0) == north)
                    .map(|i| 1u128 << i)
                    .sum();
                assert_eq!(side_occupancy(&board, north).bits(), side, "{board:?}");
            }
        }
        let p = Position::start(Faction::Clockwork, Faction::Axiom);
        let scan: Vec<(Square, Piece)> =
            (0..81).filter_map(Square::new).filter_map(|s| p.piece_at(s).map(|x| (s, x))).collect();
        assert_eq!(p.pieces().collect::<Vec<_>>(), scan);
    }

    #[test]
    fn setup_round_trips() {
        let p = Position::start(Faction::Axiom, Faction::Blades);
        assert_eq!(Position::from_setup(&p.to_setup()), Ok(p));
    }
}
