//! Perft (docs/specification.md §9): leaf count of the move tree, the yardstick for move generation.
//!
//! Repetition is tracked along the path (the root counted once) by Zobrist hash; a node
//! whose game is over counts 0 below depth 0.

use crate::moves::Move;
use crate::position::{Position, MAX_PLY};

/// Perft with leaf bulk-counting (at depth 1 the number of legal moves is the count).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    Perft::new(depth, true).root(pos)
}

/// Perft that plays every leaf move (measures make-move speed as well).
pub fn perft_without_bulk(pos: &Position, depth: u32) -> u64 {
    Perft::new(depth, false).root(pos)
}

/// Per-move counts at the root, sorted by move text.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    let mut out = Vec::new();
    if depth == 0 || pos.outcome().is_some() {
        return out;
    }
    let mut p = Perft::new(depth, true);
    p.path.push(pos.hash());
    for mv in pos.legal_moves() {
        let mut child = *pos;
        child.play_unchecked(mv);
        out.push((mv, p.child(&child, depth - 1)));
    }
    out.sort_by_key(|(m, _)| m.to_string());
    out
}

struct Perft {
    bulk: bool,
    /// Hashes of the positions from the root to the current node.
    path: Vec<u64>,
    /// One move buffer per depth, so the search never allocates.
    buffers: Vec<Vec<Move>>,
}

impl Perft {
    fn new(depth: u32, bulk: bool) -> Perft {
        Perft {
            bulk,
            path: Vec::with_capacity(depth as usize + 1),
            buffers: (0..=depth).map(|_| Vec::with_capacity(128)).collect(),
        }
    }

    fn root(&mut self, pos: &Position) -> u64 {
        let depth = self.buffers.len() as u32 - 1;
        if depth == 0 {
            return 1;
        }
        if pos.outcome().is_some() {
            return 0;
        }
        self.path.push(pos.hash());
        self.node(pos, depth)
    }

    /// Count below a position that is known not to be over.
    fn node(&mut self, pos: &Position, depth: u32) -> u64 {
        let mut moves = core::mem::take(&mut self.buffers[depth as usize]);
        pos.generate(&mut moves);
        let count = if depth == 1 && self.bulk {
            moves.len() as u64
        } else {
            let mut sum = 0;
            for &mv in &moves {
                let mut child = *pos;
                child.play_unchecked(mv);
                sum += self.child(&child, depth - 1);
            }
            sum
        };
        moves.clear();
        self.buffers[depth as usize] = moves;
        count
    }

    fn child(&mut self, child: &Position, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let h = child.hash();
        if child.board_outcome().is_some()
            || self.path.iter().filter(|&&x| x == h).count() >= 2
            || child.ply >= MAX_PLY
        {
            return 0;
        }
        self.path.push(h);
        // No legal move: `node` counts 0 by itself.
        let n = self.node(child, depth);
        self.path.pop();
        n
    }
}
