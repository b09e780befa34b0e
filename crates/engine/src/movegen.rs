//! Legal move generation (docs/specification.md §3–5).
//!
//! Every generated move is legal: the only base moves that could destroy the mover's own
//! king-piece (a Phial detonating next to its Scientist, a Slash over the own Mistress)
//! are filtered here, and abilities are enumerated against the board as it stands after
//! the base move. A base move that ends the game (enemy king-piece taken, Timeout) gets
//! no ability variants.

use crate::geometry::{neighbor, sq, DIAGONAL, DIRS, NONE, ORTHOGONAL, SICKLE};
use crate::moves::{Ability, Move};
use crate::position::{side_occupancy, Position, CHARGED, NORTH, ROLE_MASK};
use crate::setup::START_MASKS;
use crate::types::{Role, Side};

const COG: u8 = Role::Cog as u8;
const GEAR: u8 = Role::Gear as u8;
const PENDULUM: u8 = Role::Pendulum as u8;
const SPRING: u8 = Role::Spring as u8;
const HANDS: u8 = Role::Hands as u8;
const DIAL: u8 = Role::Dial as u8;
const FATHER_TIME: u8 = Role::FatherTime as u8;
const DAGGER: u8 = Role::Dagger as u8;
const AXE: u8 = Role::Axe as u8;
const SICKLE_R: u8 = Role::Sickle as u8;
const SABRES: u8 = Role::Sabres as u8;
const SWORD: u8 = Role::Sword as u8;
const MISTRESS: u8 = Role::Mistress as u8;
const PHIAL: u8 = Role::Phial as u8;
const MAGNET: u8 = Role::Magnet as u8;
const TORCH: u8 = Role::Torch as u8;
const SCALES: u8 = Role::Scales as u8;
const TELESCOPE: u8 = Role::Telescope as u8;
const SCIENTIST: u8 = Role::Scientist as u8;

/// The rank that is the Electric Field (0-based: rank 5).
pub(crate) const FIELD_RANK: u8 = 4;

#[inline]
pub(crate) fn is_king_code(code: u8) -> bool {
    matches!(code, FATHER_TIME | MISTRESS | SCIENTIST)
}

/// The direction index of (df, forward) for a side: df = 0 straight forward, ±1 diagonally.
#[inline]
pub(crate) fn forward_dir(side: Side, df: i8) -> usize {
    match (side, df) {
        (Side::South, 0) => 0,
        (Side::South, 1) => 1,
        (Side::South, -1) => 7,
        (Side::North, 0) => 4,
        (Side::North, 1) => 3,
        (Side::North, _) => 5,
        (Side::South, _) => 7,
    }
}

/// Sideways directions: E and W.
const SIDEWAYS: [usize; 2] = [2, 6];

struct Gen<'a> {
    pos: &'a Position,
    board: &'a [u8; 81],
    side: Side,
    /// `NORTH` if North moves, else 0.
    us: u8,
    out: &'a mut Vec<Move>,
}

impl Gen<'_> {
    #[inline]
    fn is_friend(&self, cell: u8) -> bool {
        cell != 0 && cell & NORTH == self.us
    }

    #[inline]
    fn is_enemy(&self, cell: u8) -> bool {
        cell != 0 && cell & NORTH != self.us
    }

    #[inline]
    fn push(&mut self, from: u8, to: u8) {
        self.out.push(Move::new(sq(from), sq(to)));
    }

    #[inline]
    fn push_ab(&mut self, from: u8, to: u8, ability: Ability) {
        self.out.push(Move::with(sq(from), sq(to), ability));
    }

    /// The cell at `s` once the piece `mover` has gone from `from` to `to`.
    #[inline]
    fn after(&self, s: u8, from: u8, to: u8, mover: u8) -> u8 {
        if s == from {
            0
        } else if s == to {
            mover
        } else {
            self.board[s as usize]
        }
    }

    /// The destination does not hold a friendly piece.
    #[inline]
    fn open(&self, t: u8) -> bool {
        t != NONE && !self.is_friend(self.board[t as usize])
    }

    /// Whether moving onto `t` takes the enemy king-piece (a game-ending base move).
    #[inline]
    fn takes_king(&self, t: u8) -> bool {
        let c = self.board[t as usize];
        self.is_enemy(c) && is_king_code(c & ROLE_MASK)
    }

    fn steps(&mut self, from: u8, dirs: &[usize]) {
        for &d in dirs {
            let t = neighbor(from, d);
            if self.open(t) {
                self.push(from, t);
            }
        }
    }

    fn slides(&mut self, from: u8, dirs: &[usize], max: u8) {
        for &d in dirs {
            let mut t = from;
            for _ in 0..max {
                t = neighbor(t, d);
                if t == NONE {
                    break;
                }
                let c = self.board[t as usize];
                if c == 0 {
                    self.push(from, t);
                } else {
                    if self.is_enemy(c) {
                        self.push(from, t);
                    }
                    break;
                }
            }
        }
    }

    fn piece(&mut self, from: u8, cell: u8) {
        let charged = cell & CHARGED != 0;
        let side = self.side;
        match cell & ROLE_MASK {
            COG => {
                let mut dirs = [forward_dir(side, -1), forward_dir(side, 1), 0, 0];
                let n = if charged {
                    dirs[2] = (forward_dir(side, -1) + 4) % 8;
                    dirs[3] = (forward_dir(side, 1) + 4) % 8;
                    4
                } else {
                    2
                };
                for &d in &dirs[..n] {
                    let t = neighbor(from, d);
                    if t == NONE {
                        continue;
                    }
                    let c = self.board[t as usize];
                    // A friendly Cog is the one friendly piece a Cog may step onto (merge).
                    if !self.is_friend(c) || c & ROLE_MASK == COG {
                        self.push(from, t);
                    }
                }
            }
            GEAR => self.steps(from, &[0, 1, 2, 3, 4, 5, 6, 7]),
            PENDULUM => {
                self.steps(from, &[0, 1, 3, 4, 5, 7]);
                self.slides(from, &SIDEWAYS, 8);
            }
            SPRING => self.spring(from),
            HANDS => self.slides(from, &[0, 1, 2, 3, 4, 5, 6, 7], 4),
            DIAL => {
                for d in ORTHOGONAL {
                    let t = neighbor(from, d);
                    if self.open(t) {
                        self.push(from, t);
                        if !self.takes_king(t) {
                            self.recalls(from, t, cell);
                        }
                    }
                }
            }
            FATHER_TIME => {
                self.steps(from, &[forward_dir(side, -1), forward_dir(side, 1)]);
                let f1 = neighbor(from, forward_dir(side, 0));
                if f1 != NONE {
                    let c = self.board[f1 as usize];
                    if !self.is_friend(c) {
                        self.push(from, f1);
                    }
                    if c == 0 {
                        let f2 = neighbor(f1, forward_dir(side, 0));
                        if self.open(f2) {
                            self.push(from, f2);
                        }
                    }
                }
            }
            DAGGER => self.dagger(from, charged),
            AXE => {
                for d in ORTHOGONAL {
                    let t = neighbor(from, d);
                    if self.open(t) {
                        self.push(from, t);
                        if !self.takes_king(t) && self.can_slash(from, t, cell) {
                            self.push_ab(from, t, Ability::Slash);
                        }
                    }
                }
            }
            SICKLE_R => {
                for &t in &SICKLE[from as usize] {
                    if t == NONE {
                        break;
                    }
                    if !self.is_friend(self.board[t as usize]) {
                        self.push(from, t);
                    }
                }
            }
            SABRES => self.slides(from, &DIAGONAL, 5),
            SWORD => self.slides(from, &ORTHOGONAL, 5),
            MISTRESS => {
                for d in 0..8 {
                    let t = neighbor(from, d);
                    if !self.open(t) {
                        continue;
                    }
                    self.push(from, t);
                    // Sidestep needs the charge held at the start of the turn and a capture.
                    if charged && self.is_enemy(self.board[t as usize]) && !self.takes_king(t) {
                        for d2 in 0..8 {
                            let s = neighbor(t, d2);
                            if s != NONE && self.after(s, from, t, cell) == 0 {
                                self.push_ab(from, t, Ability::Sidestep { to: sq(s) });
                            }
                        }
                    }
                }
            }
            PHIAL => self.phial(from, charged),
            MAGNET => {
                for d in 0..8 {
                    let t = neighbor(from, d);
                    if self.open(t) {
                        self.push(from, t);
                        if !self.takes_king(t) {
                            self.attracts(from, t, cell);
                        }
                    }
                }
            }
            TORCH => {
                for d in 0..8 {
                    let t = neighbor(from, d);
                    if !self.open(t) {
                        continue;
                    }
                    self.push(from, t);
                    if self.takes_king(t) {
                        continue;
                    }
                    for d2 in 0..8 {
                        let s = neighbor(t, d2);
                        if s != NONE && self.is_enemy(self.after(s, from, t, cell)) {
                            self.push_ab(from, t, Ability::Burn { target: sq(s) });
                        }
                    }
                }
            }
            SCALES => self.scales(from),
            TELESCOPE => {
                for d in 0..8 {
                    let mut t = from;
                    let mut dist = 0;
                    loop {
                        t = neighbor(t, d);
                        if t == NONE {
                            break;
                        }
                        dist += 1;
                        let c = self.board[t as usize];
                        if dist < 3 {
                            if c != 0 {
                                break;
                            }
                            continue;
                        }
                        if c == 0 {
                            self.push(from, t);
                        } else {
                            if self.is_enemy(c) {
                                self.push(from, t);
                            }
                            break;
                        }
                    }
                }
            }
            SCIENTIST => {
                for d in ORTHOGONAL {
                    let t = neighbor(from, d);
                    if t != NONE && self.board[t as usize] == 0 {
                        self.push(from, t);
                    }
                }
            }
            _ => {}
        }
    }

    fn spring(&mut self, from: u8) {
        for d in 0..8 {
            let adj = neighbor(from, d);
            if adj == NONE {
                continue;
            }
            if !self.is_friend(self.board[adj as usize]) {
                self.push(from, adj);
            }
            // Recoil: the square behind must exist and be empty; then slide the maximum
            // distance. A recoil of one square is the step above, so only longer ones add.
            let back = neighbor(from, (d + 4) % 8);
            if back == NONE || self.board[back as usize] != 0 || self.board[adj as usize] != 0 {
                continue;
            }
            let mut last = adj;
            loop {
                let t = neighbor(last, d);
                if t == NONE {
                    break;
                }
                let c = self.board[t as usize];
                if c == 0 {
                    last = t;
                    continue;
                }
                if self.is_enemy(c) {
                    last = t;
                }
                break;
            }
            if last != adj {
                self.push(from, last);
            }
        }
    }

    fn dagger(&mut self, from: u8, charged: bool) {
        let side = self.side;
        let end = side.end_rank();
        let fwd = forward_dir(side, 0);
        // Quiet moves to empty squares.
        let f1 = neighbor(from, fwd);
        if f1 != NONE && self.board[f1 as usize] == 0 {
            self.dagger_quiet(from, f1, end);
            let f2 = neighbor(f1, fwd);
            if f2 != NONE && self.board[f2 as usize] == 0 {
                self.dagger_quiet(from, f2, end);
            }
        }
        for d in SIDEWAYS {
            let t = neighbor(from, d);
            if t != NONE && self.board[t as usize] == 0 {
                self.push(from, t); // stays on its rank: never arrives
            }
        }
        if charged {
            for df in [-1, 1] {
                let t = neighbor(from, forward_dir(side, df));
                if t != NONE && self.board[t as usize] == 0 {
                    self.dagger_quiet(from, t, end);
                }
            }
        }
        // Stabs: an enemy 1 or 2 away (the square between empty); no ability follows.
        let mut stab_dirs = [fwd, SIDEWAYS[0], SIDEWAYS[1], 0, 0];
        let n = if charged {
            stab_dirs[3] = forward_dir(side, -1);
            stab_dirs[4] = forward_dir(side, 1);
            5
        } else {
            3
        };
        for &d in &stab_dirs[..n] {
            let t1 = neighbor(from, d);
            if t1 == NONE {
                continue;
            }
            let c1 = self.board[t1 as usize];
            if self.is_enemy(c1) {
                self.push(from, t1);
            } else if c1 == 0 {
                let t2 = neighbor(t1, d);
                if t2 != NONE && self.is_enemy(self.board[t2 as usize]) {
                    self.push(from, t2);
                }
            }
        }
    }

    /// A Dagger's non-capturing move; arriving on the end row offers Assassinate.
    fn dagger_quiet(&mut self, from: u8, to: u8, end: u8) {
        self.push(from, to);
        if to / 9 != end || from / 9 == end {
            return;
        }
        let mut enemies = 0;
        let mut king = NONE;
        for s in 0..81u8 {
            let c = self.board[s as usize];
            if self.is_enemy(c) {
                enemies += 1;
                if is_king_code(c & ROLE_MASK) {
                    king = s;
                } else {
                    self.push_ab(from, to, Ability::Assassinate { target: sq(s) });
                }
            }
        }
        if enemies == 1 && king != NONE {
            self.push_ab(from, to, Ability::Assassinate { target: sq(king) });
        }
    }

    fn phial(&mut self, from: u8, charged: bool) {
        let side = self.side;
        let fwd = forward_dir(side, 0);
        let f1 = neighbor(from, fwd);
        if f1 != NONE {
            let c = self.board[f1 as usize];
            if !self.is_friend(c) {
                self.phial_to(from, f1);
            }
            if c == 0 {
                let f2 = neighbor(f1, fwd);
                if self.open(f2) {
                    self.phial_to(from, f2);
                }
            }
        }
        if charged {
            for d in SIDEWAYS {
                let t = neighbor(from, d);
                if self.open(t) {
                    self.phial_to(from, t);
                }
            }
        }
    }

    /// A Phial arriving on its end row detonates; illegal if that would destroy its own
    /// Scientist (within 3 squares of the explosion).
    fn phial_to(&mut self, from: u8, to: u8) {
        let end = self.side.end_rank();
        if to / 9 == end && from / 9 != end {
            let k = self.pos.kings[self.side.index()];
            if k != NONE && sq(k).distance(sq(to)) <= 3 {
                return;
            }
        }
        self.push(from, to);
    }

    fn scales(&mut self, from: u8) {
        for d in ORTHOGONAL {
            let mut t = neighbor(from, d);
            // Quiet slides to empty squares.
            while t != NONE && self.board[t as usize] == 0 {
                self.push(from, t);
                t = neighbor(t, d);
            }
            if t == NONE {
                continue;
            }
            // `t` is the screen (either side); leap to the first piece beyond it.
            let mut u = neighbor(t, d);
            while u != NONE && self.board[u as usize] == 0 {
                u = neighbor(u, d);
            }
            if u != NONE && self.is_enemy(self.board[u as usize]) {
                self.push(from, u);
            }
        }
    }

    fn can_slash(&self, from: u8, to: u8, axe: u8) -> bool {
        let mut any = false;
        for df in [-1, 0, 1] {
            let s = neighbor(to, forward_dir(self.side, df));
            if s == NONE {
                continue;
            }
            let c = self.after(s, from, to, axe);
            if c != 0 {
                if self.is_friend(c) && c & ROLE_MASK == MISTRESS {
                    return false;
                }
                any = true;
            }
        }
        any
    }

    fn recalls(&mut self, from: u8, to: u8, dial: u8) {
        let enemy = self.side.opponent();
        let enemy_faction = self.pos.factions[enemy.index()] as usize;
        for d in 0..8 {
            let mut s = neighbor(to, d);
            while s != NONE && self.after(s, from, to, dial) == 0 {
                s = neighbor(s, d);
            }
            if s == NONE {
                continue;
            }
            let c = self.board[s as usize];
            if !self.is_enemy(c) {
                continue;
            }
            let role = c & ROLE_MASK;
            if is_king_code(role) || role == DIAL || role == GEAR {
                continue;
            }
            let mut mask = START_MASKS[enemy_faction][enemy.index()][role as usize];
            while mask != 0 {
                let dest = mask.trailing_zeros() as u8;
                mask &= mask - 1;
                if self.after(dest, from, to, dial) == 0 {
                    self.push_ab(from, to, Ability::Recall { target: sq(s), dest: sq(dest) });
                }
            }
        }
    }

    fn attracts(&mut self, from: u8, to: u8, magnet: u8) {
        for d in 0..8 {
            let adj = neighbor(to, d);
            if adj == NONE || self.after(adj, from, to, magnet) != 0 {
                continue; // nothing at distance >= 2 in this line
            }
            let mut s = neighbor(adj, d);
            while s != NONE && self.after(s, from, to, magnet) == 0 {
                s = neighbor(s, d);
            }
            if s == NONE {
                continue;
            }
            let c = self.board[s as usize];
            if self.is_enemy(c) && is_king_code(c & ROLE_MASK) {
                continue;
            }
            self.push_ab(from, to, Ability::Attract { target: sq(s) });
        }
    }
}

impl Position {
    /// Every legal move (none when the position alone shows the game is over; repetition
    /// needs the history, see [`crate::Game::legal_moves`]).
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::with_capacity(64);
        self.legal_moves_into(&mut out);
        out
    }

    /// Like [`Position::legal_moves`], reusing `out` (cleared first).
    pub fn legal_moves_into(&self, out: &mut Vec<Move>) {
        out.clear();
        if self.ply >= crate::position::MAX_PLY || self.board_outcome().is_some() {
            return;
        }
        self.generate(out);
    }

    /// Raw generation for the side to move, without the game-over checks.
    pub(crate) fn generate(&self, out: &mut Vec<Move>) {
        let us = if self.turn == Side::North { NORTH } else { 0 };
        let mut g = Gen { pos: self, board: &self.board, side: self.turn, us, out };
        // The side's pieces in square order (the moves' order is part of the AI's
        // determinism), found eight squares at a time.
        let mut own = side_occupancy(&self.board, us == NORTH);
        while let Some(from) = own.pop() {
            g.piece(from, self.board[from as usize]);
        }
    }

    pub(crate) fn has_legal_move(&self) -> bool {
        // Positions without a legal move are rare; generating all of them is fine here.
        let mut out = Vec::with_capacity(64);
        self.generate(&mut out);
        !out.is_empty()
    }
}

/// The unit direction index from `a` towards `b`, when they share a line.
pub(crate) fn line_dir(a: u8, b: u8) -> Option<usize> {
    let df = (b % 9) as i8 - (a % 9) as i8;
    let dr = (b / 9) as i8 - (a / 9) as i8;
    if (df == 0 && dr == 0) || (df != 0 && dr != 0 && df.abs() != dr.abs()) {
        return None;
    }
    let u = (df.signum(), dr.signum());
    DIRS.iter().position(|&x| x == u)
}
