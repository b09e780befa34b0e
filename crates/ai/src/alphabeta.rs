//! A small alpha-beta player: the sparring partner that checks the AI does not fall for
//! shallow tactics (issue 10). Negamax with alpha-beta pruning to a fixed depth in plies,
//! the hand-written [`Heuristic`] score at the leaves, no quiescence, no transposition
//! table. Deterministic: moves are ordered by the heuristic's move logit (a stable sort,
//! so ties keep the move generator's order) and the first of equally scored root moves is
//! played.
//!
//! Terminals are exact and as the engine reports them (`Position::outcome_after_move`):
//! king destroyed, Timeout, third repetition (the mover loses; counted over the game's
//! history and the search path), 160 plies (draw), no legal move. A win found nearer the
//! root scores higher, so the player takes the quickest win and delays a loss.

use engine::{Move, Outcome, Position};

use crate::heuristic::Heuristic;

/// A won position, in the heuristic's pawn units (far above any material score).
pub const WIN: f32 = 10_000.0;

#[derive(Clone, Debug, PartialEq)]
pub struct AlphaBetaResult {
    /// The move to play (None only when the root has no legal move).
    pub best: Option<Move>,
    /// The root's score for the side to move, in pawn units (±[`WIN`] minus the plies to
    /// a forced result).
    pub score: f32,
    /// Positions visited (the root's children and below).
    pub nodes: u64,
}

/// Searches `root` to `depth` plies (at least 1); `history` holds the hashes of every
/// position of the game so far, the root included (`&[root.hash()]` for a fresh one).
pub fn alphabeta(root: &Position, history: &[u64], depth: u32) -> AlphaBetaResult {
    let mut hashes = history.to_vec();
    if hashes.last() != Some(&root.hash()) {
        hashes.push(root.hash());
    }
    let mut s = Searcher { hashes, nodes: 0 };
    let moves = ordered(root, root.legal_moves());
    if moves.is_empty() || root.outcome().is_some() {
        return AlphaBetaResult { best: None, score: 0.0, nodes: 0 };
    }
    let depth = depth.max(1);
    let (mut alpha, beta) = (f32::NEG_INFINITY, f32::INFINITY);
    let mut best = moves[0];
    for mv in moves {
        let v = -s.child(root, mv, depth - 1, 1, -beta, -alpha);
        if v > alpha {
            alpha = v;
            best = mv;
        }
    }
    AlphaBetaResult { best: Some(best), score: alpha, nodes: s.nodes }
}

struct Searcher {
    /// The game's positions and the current search path (for repetition).
    hashes: Vec<u64>,
    nodes: u64,
}

/// The score of `o` for the side to move in the position it ended, `ply` plies from
/// the root.
fn terminal_score(o: Outcome, to_move: engine::Side, ply: u32) -> f32 {
    match o.winner() {
        Some(w) if w == to_move => WIN - ply as f32,
        Some(_) => -(WIN - ply as f32),
        None => 0.0,
    }
}

/// `moves` sorted by the heuristic's move logit, best first (stable: ties keep order).
fn ordered(pos: &Position, moves: Vec<Move>) -> Vec<Move> {
    let mut keyed: Vec<(f32, Move)> =
        moves.into_iter().map(|m| (Heuristic::move_logit(pos, &m), m)).collect();
    keyed.sort_by(|a, b| b.0.total_cmp(&a.0));
    keyed.into_iter().map(|(_, m)| m).collect()
}

impl Searcher {
    /// Plays `mv` in `parent` and returns the score of the resulting position for its
    /// side to move, searched `depth` more plies.
    fn child(&mut self, parent: &Position, mv: Move, depth: u32, ply: u32, alpha: f32, beta: f32) -> f32 {
        self.nodes += 1;
        let mut pos = *parent;
        pos.play_unchecked(mv);
        let earlier = self.hashes.iter().filter(|&&h| h == pos.hash()).count();
        let moves = pos.legal_moves();
        if moves.is_empty() || earlier >= 2 {
            if let Some(o) = pos.outcome_after_move(earlier) {
                return terminal_score(o, pos.turn(), ply);
            }
        }
        if depth == 0 {
            return Heuristic::score(&pos, &moves);
        }
        self.hashes.push(pos.hash());
        let mut alpha = alpha;
        let mut best = f32::NEG_INFINITY;
        for m in ordered(&pos, moves) {
            let v = -self.child(&pos, m, depth - 1, ply + 1, -beta, -alpha);
            if v > best {
                best = v;
            }
            if v > alpha {
                alpha = v;
            }
            if alpha >= beta {
                break;
            }
        }
        self.hashes.pop();
        best
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use engine::iapn;

    fn pos(s: &str) -> Position {
        iapn::parse(s).unwrap()
    }

    fn best(p: &Position, depth: u32) -> String {
        alphabeta(p, &[p.hash()], depth).best.unwrap().to_string()
    }

    #[test]
    fn captures_the_king_in_one() {
        // The Sword on a5 takes the Mistress on e5 along the rank (the toy of tests/search.rs).
        let p = pos("blades blades 3d5/9/2d6/9/W3m4/9/3D1D3/9/4M4 s - 0");
        for depth in 1..=3 {
            assert_eq!(best(&p, depth), "a5e5", "depth {depth}");
            let r = alphabeta(&p, &[p.hash()], depth);
            assert_eq!(r.score, WIN - 1.0, "depth {depth}");
        }
    }

    #[test]
    fn times_out_and_detonates_in_one() {
        // Father Time reaches the end row; a Phial's blast destroys the Mistress.
        let p = pos("clockwork axiom 1s7/4F4/3t5/9/9/9/9/9/9 s - 0");
        for depth in 1..=3 {
            assert!(["e8d9", "e8e9", "e8f9"].contains(&best(&p, depth).as_str()), "depth {depth}");
        }
        let p = pos("axiom blades 9/4m1P2/9/9/9/9/9/9/S8 s - 0");
        for depth in 1..=3 {
            assert_eq!(best(&p, depth), "g8g9", "depth {depth}");
        }
    }

    #[test]
    fn avoids_a_third_repetition() {
        // North to move after the Gear shuffle: h9i9 would make the start position's third
        // occurrence and lose (the same setup as tests/search.rs).
        let start = pos("clockwork clockwork 4f3g/9/9/9/9/9/9/9/4F3G s - 0");
        let mut history = vec![start.hash()];
        let mut p = start;
        for m in ["i1h1", "i9h9", "h1i1", "h9i9", "i1h1", "i9h9", "h1i1"] {
            p = p.play(Move::parse(m).unwrap()).unwrap();
            history.push(p.hash());
        }
        for depth in 1..=3 {
            let r = alphabeta(&p, &history, depth);
            assert_ne!(r.best.unwrap().to_string(), "h9i9", "depth {depth}");
        }
    }

    #[test]
    fn deterministic_and_pruned() {
        let p = Position::start(engine::Faction::Blades, engine::Faction::Axiom);
        let a = alphabeta(&p, &[p.hash()], 3);
        let b = alphabeta(&p, &[p.hash()], 3);
        assert_eq!(a, b);
        assert!(a.best.is_some());
        // Alpha-beta cuts: fewer than half the positions of the full 3-ply tree (at least
        // moves^3 leaves).
        let n = p.legal_moves().len() as u64;
        assert!(a.nodes < n * n * n / 2, "{} nodes, {n} moves", a.nodes);
    }

    #[test]
    fn a_finished_position_has_no_best_move() {
        let p = pos("clockwork blades 9/9/9/9/9/9/9/9/4F4 n - 3");
        assert_eq!(alphabeta(&p, &[p.hash()], 2).best, None);
    }
}
