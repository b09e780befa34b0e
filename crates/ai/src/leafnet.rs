//! A small learned evaluation for the alpha-beta's leaves ([`crate::pvs`]; issue 10): a one-hidden-layer
//! network over piece-square features, added to the hand-written [`Heuristic`](crate::Heuristic) score.
//!
//! Why this shape: the convolutional network costs as much as ~1,000 heuristic positions
//! per run, so the alpha-beta could only afford it once per move, and there it adds nothing
//! measurable. A network that can run at every leaf of a 60,000-node search must cost
//! about what the heuristic costs: its first layer is a sum of one weight column per
//! piece (~40 columns of `hidden` floats, the sparse input of NNUE-style evaluators),
//! then a clipped ReLU and one output.
//!
//! Features, seen from the side to move (ranks mirrored for North, as
//! [`crate::encoding::view_index`]): `(own or enemy) × role × square` for every piece,
//! and `(own or enemy) × square` for every charged piece. The left-right mirror of the
//! rules maps each feature to the one on the mirrored square (training uses it).
//!
//! The score in pawns is `heuristic_weight × Heuristic::score + correction`, so the pawn
//! scale of the search's margins and windows is kept: training fits the heuristic's
//! pawn-to-result scale first and keeps it fixed.

use engine::{Move, Piece, Position, Role, Side, Square};

use crate::encoding::view_index;
use crate::heuristic::{ScanTotals, ScoreScan};

const ROLES: usize = Role::ALL.len();
/// The size of the sparse input.
pub const FEATURES: usize = 2 * ROLES * 81 + 2 * 81;
/// The most features a position can have (every square a charged piece).
pub const MAX_ACTIVE: usize = 2 * 81;
const MAGIC: &[u8; 8] = b"IALEAF01";

/// The active features of `pos` (indices below [`FEATURES`]), in square order.
pub fn features(pos: &Position, out: &mut Vec<u16>) {
    out.clear();
    let me = pos.turn();
    for (sq, p) in pos.pieces() {
        push_features(me, sq, p, out);
    }
}

#[inline]
fn push_features(me: Side, sq: Square, p: Piece, out: &mut Vec<u16>) {
    let enemy = usize::from(p.side != me);
    let v = view_index(sq, me);
    let role = p.role as usize - 1;
    out.push(((enemy * ROLES + role) * 81 + v) as u16);
    if p.charged {
        out.push((2 * ROLES * 81 + enemy * 81 + v) as u16);
    }
}

/// [`crate::Heuristic::score`] and [`features`] in one pass over the pieces (the leaf score's
/// inputs, at every leaf of the search).
fn score_and_features(pos: &Position, moves: &[Move], out: &mut Vec<u16>) -> (f32, ScanTotals) {
    out.clear();
    let me = pos.turn();
    let mut scan = ScoreScan::new(pos);
    for (sq, p) in pos.pieces() {
        scan.add(sq, p);
        push_features(me, sq, p, out);
    }
    let totals = scan.totals();
    (scan.finish(moves), totals)
}

/// The feature of the left-right mirrored position (file a ↔ i).
pub fn mirror_feature(f: u16) -> u16 {
    let f = usize::from(f);
    (f - f % 81 + crate::encoding::mirror_view_index(f % 81)) as u16
}

/// `acc += col`. Not inlined on purpose: inlined into a fixed-size accumulator, LLVM
/// split the array into scalars and added them one by one (`bench-leaf`: ~2x slower);
/// over two slices it emits vector adds (SSE natively, simd128 in the Worker).
#[inline(never)]
fn add_column(acc: &mut [f32], col: &[f32]) {
    for (a, w) in acc.iter_mut().zip(col) {
        *a += w;
    }
}

#[derive(Clone, Debug)]
pub struct LeafNet {
    hidden: usize,
    heuristic_weight: f32,
    b2: f32,
    b1: Vec<f32>,
    w2: Vec<f32>,
    /// Feature-major: the column of feature `f` is `w1[f * hidden..(f + 1) * hidden]`.
    w1: Vec<f32>,
}

impl LeafNet {
    /// Reads the trainer's export: `IALEAF01`, the hidden size (u32), then f32s, all
    /// little-endian: heuristic weight, output bias, hidden biases, output weights, and
    /// the first layer feature-major.
    pub fn from_bytes(bytes: &[u8]) -> Result<LeafNet, String> {
        let rest = bytes.strip_prefix(MAGIC.as_slice()).ok_or("not a leaf network (bad magic)")?;
        let (h, rest) = rest.split_at_checked(4).ok_or("leaf network: truncated header")?;
        let hidden = u32::from_le_bytes([h[0], h[1], h[2], h[3]]) as usize;
        if hidden == 0 || hidden > 1024 {
            return Err(format!("leaf network: hidden size {hidden} out of range"));
        }
        let want = 2 + 2 * hidden + FEATURES * hidden;
        if rest.len() != want * 4 {
            return Err(format!("leaf network: {} bytes of weights, expected {}", rest.len(), want * 4));
        }
        let f: Vec<f32> =
            rest.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        if f.iter().any(|x| !x.is_finite()) {
            return Err("leaf network: a weight is not finite".into());
        }
        Ok(LeafNet {
            hidden,
            heuristic_weight: f[0],
            b2: f[1],
            b1: f[2..2 + hidden].to_vec(),
            w2: f[2 + hidden..2 + 2 * hidden].to_vec(),
            w1: f[2 + 2 * hidden..].to_vec(),
        })
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// The learned correction (pawns, side to move) of a position with these features.
    pub fn correction(&self, active: &[u16]) -> f32 {
        let h = self.hidden;
        let mut stack = [0.0f32; 64];
        let mut heap = Vec::new();
        let acc = if h <= stack.len() {
            &mut stack[..h]
        } else {
            heap.resize(h, 0.0);
            &mut heap[..]
        };
        acc.copy_from_slice(&self.b1);
        for &f in active {
            let at = usize::from(f) * h;
            if let Some(col) = self.w1.get(at..at + h) {
                add_column(acc, col);
            }
        }
        self.b2 + acc.iter().zip(&self.w2).map(|(a, w)| a.clamp(0.0, 1.0) * w).sum::<f32>()
    }

    /// The score of `pos` (with its legal `moves`) in pawns for the side to move.
    pub fn score(&self, pos: &Position, moves: &[Move], scratch: &mut Vec<u16>) -> f32 {
        self.score_and_totals(pos, moves, scratch).0
    }

    /// [`LeafNet::score`] and the heuristic scan's totals ([`ScanTotals`]), from one pass.
    pub(crate) fn score_and_totals(
        &self,
        pos: &Position,
        moves: &[Move],
        scratch: &mut Vec<u16>,
    ) -> (f32, ScanTotals) {
        let (heuristic, totals) = score_and_features(pos, moves, scratch);
        (self.pawns(heuristic, scratch), totals)
    }

    /// The score in pawns of a position with this heuristic score and these features
    /// (what the trainer computes: its reference samples are checked with this).
    pub fn pawns(&self, heuristic: f32, active: &[u16]) -> f32 {
        self.heuristic_weight * heuristic + self.correction(active)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::Heuristic;
    use engine::Faction;

    /// The one-pass leaf inputs are the heuristic score and the features computed apart,
    /// bit for bit, over seeded random games of every match-up.
    #[test]
    fn the_one_pass_inputs_equal_the_score_and_the_features_apart() {
        let mut rng = crate::rng::Rng::new(33);
        let (mut one, mut apart) = (Vec::new(), Vec::new());
        let mut checked = 0;
        for _ in 0..40 {
            let f = Faction::ALL;
            let mut g = engine::Game::new(Position::start(f[rng.below(3)], f[rng.below(3)]));
            for _ in 0..100 {
                let moves = g.legal_moves();
                let p = *g.position();
                let h = score_and_features(&p, &moves, &mut one).0;
                features(&p, &mut apart);
                assert_eq!(h.to_bits(), Heuristic::score(&p, &moves).to_bits());
                assert_eq!(one, apart);
                checked += 1;
                if moves.is_empty() {
                    break;
                }
                let _ = g.play(moves[rng.below(moves.len())]);
            }
        }
        assert!(checked > 1_000, "{checked} positions");
    }

    fn export(hidden: usize, weights: impl Fn(usize) -> f32) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend((hidden as u32).to_le_bytes());
        for i in 0..2 + 2 * hidden + FEATURES * hidden {
            b.extend(weights(i).to_le_bytes());
        }
        b
    }

    #[test]
    fn features_count_every_piece_once_and_stay_in_range() {
        let p = Position::start(Faction::Clockwork, Faction::Blades);
        let mut f = Vec::new();
        features(&p, &mut f);
        let pieces = (0..81u8).filter_map(engine::Square::new).filter(|&s| p.piece_at(s).is_some()).count();
        assert_eq!(f.len(), pieces);
        assert!(f.iter().all(|&x| usize::from(x) < FEATURES));
    }

    #[test]
    fn mirrored_positions_have_mirrored_features() {
        let p = Position::start(Faction::Axiom, Faction::Clockwork);
        let mut g = engine::Game::new(p);
        let mut r = crate::rng::Rng::new(3);
        for _ in 0..25 {
            let m = g.legal_moves();
            if m.is_empty() {
                break;
            }
            let _ = g.play(m[r.below(m.len())]);
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        features(g.position(), &mut a);
        features(&g.position().mirrored_files(), &mut b);
        let mut a: Vec<u16> = a.into_iter().map(mirror_feature).collect();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
    }

    #[test]
    fn a_zero_network_with_weight_one_is_the_heuristic() {
        let net = LeafNet::from_bytes(&export(8, |i| if i == 0 { 1.0 } else { 0.0 })).unwrap();
        let p = Position::start(Faction::Blades, Faction::Axiom);
        let moves = p.legal_moves();
        assert_eq!(net.score(&p, &moves, &mut Vec::new()), Heuristic::score(&p, &moves));
    }

    #[test]
    fn the_correction_is_the_clipped_sum_of_the_active_columns() {
        // hidden 2: b1 = [0.5, -1], w2 = [2, 3], b2 = 0.25, every column [0.25, 0.25].
        let net = LeafNet::from_bytes(&export(2, |i| match i {
            0 => 0.0,
            1 => 0.25,
            2 => 0.5,
            3 => -1.0,
            4 => 2.0,
            5 => 3.0,
            _ => 0.25,
        }))
        .unwrap();
        // Two features: [1.0, -0.5] → clipped [1.0, 0.0] → 0.25 + 2.0.
        assert_eq!(net.correction(&[0, 5]), 2.25);
        // Six: [2.0, 0.5] → [1.0, 0.5] → 0.25 + 2.0 + 1.5.
        assert_eq!(net.correction(&[0, 1, 2, 3, 4, 5]), 3.75);
    }

    #[test]
    fn damaged_exports_are_refused() {
        let good = export(4, |_| 0.0);
        assert!(LeafNet::from_bytes(&good).is_ok());
        assert!(LeafNet::from_bytes(&good[..good.len() - 4]).is_err());
        assert!(LeafNet::from_bytes(&good[1..]).is_err());
        let mut nan = good.clone();
        let n = nan.len();
        nan[n - 4..].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(LeafNet::from_bytes(&nan).is_err());
    }
}
