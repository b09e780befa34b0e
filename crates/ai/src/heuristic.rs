//! A hand-written evaluator: material, mobility, king danger, Father Time's advance and
//! charged pieces for the value; captures, king captures, promotions and abilities that
//! destroy for the prior. The fallback when no network is loaded, and a test opponent.

use engine::{Ability, Move, Piece, Position, Role, Side, Square};

use crate::evaluator::{Evaluation, Evaluator, Leaf};

/// Material values in pawn-type units (the king-piece's loss is the game's loss and is
/// handled by the search, so it is scored only for danger).
pub const fn material(role: Role) -> f32 {
    match role {
        Role::Cog | Role::Dagger | Role::Phial => 1.0,
        Role::Gear => 2.5,
        Role::Pendulum => 3.0,
        Role::Spring => 3.0,
        Role::Hands => 5.0,
        Role::Dial => 3.5,
        Role::Axe => 3.0,
        Role::Sickle => 3.5,
        Role::Sabres => 4.0,
        Role::Sword => 4.5,
        Role::Magnet => 3.0,
        Role::Torch => 3.5,
        Role::Scales => 4.0,
        Role::Telescope => 4.0,
        Role::FatherTime | Role::Mistress | Role::Scientist => 0.0,
    }
}

#[derive(Debug, Default, Clone)]
pub struct Heuristic;

/// Per role code (the board's encoding, 1..=19; 0 unused): the material value, and the
/// advance terms' coefficients: `0.08 × advance` for the pawn-types, `0.25 × advance² / 8`
/// for Father Time. A table, not a `match` per piece: the role changes from one piece to
/// the next, and the score runs at every leaf of the search.
struct RoleTerms {
    material: [f32; 20],
    linear: [f32; 20],
    square: [f32; 20],
}

const ROLE_TERMS: RoleTerms = {
    let mut t = RoleTerms { material: [0.0; 20], linear: [0.0; 20], square: [0.0; 20] };
    let mut i = 0;
    while i < Role::ALL.len() {
        let role = Role::ALL[i];
        let code = role as usize;
        t.material[code] = material(role);
        match role {
            Role::Cog | Role::Dagger | Role::Phial => t.linear[code] = 0.08,
            Role::FatherTime => t.square[code] = 0.25,
            _ => {}
        }
        i += 1;
    }
    t
};

/// The heuristic score accumulated piece by piece in square order ([`Heuristic::score`];
/// the leaf score adds its features in the same pass, [`crate::leafnet`]). Bit for bit the
/// score as first written (the tests below): the browser's and the server's moves depend on
/// it.
pub(crate) struct ScoreScan {
    me: Side,
    kings: [Option<Square>; 2],
    near: [u32; 2],
    s: f32,
    totals: ScanTotals,
}

/// What the scan counts besides the score, for the search's extra leaf terms
/// (`crate::pvs`'s trading when ahead and Dial values): summed in the same pass, in the
/// same order as a separate pass over the pieces would (so bit for bit the same sums).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ScanTotals {
    /// Material (the heuristic's values) of the side to move, then of the other side.
    pub(crate) material: [f32; 2],
    /// Dials of each side, by [`Side::index`].
    pub(crate) dials: [f32; 2],
}

impl ScoreScan {
    #[inline]
    pub(crate) fn new(pos: &Position) -> ScoreScan {
        ScoreScan {
            me: pos.turn(),
            kings: [pos.king(Side::South), pos.king(Side::North)],
            near: [0; 2],
            s: 0.0,
            totals: ScanTotals::default(),
        }
    }

    #[inline]
    pub(crate) fn add(&mut self, sq: Square, p: Piece) {
        let code = p.role as usize;
        let mut v = ROLE_TERMS.material[code];
        if p.charged {
            v += 0.4;
        }
        // Advance of pawn-types (end-row effects) and Father Time (Timeout). Adding the
        // other roles' zero terms leaves `v` unchanged (it is never -0.0).
        let adv = match p.side {
            Side::South => sq.rank() as f32,
            Side::North => (8 - sq.rank()) as f32,
        };
        v += ROLE_TERMS.linear[code] * adv;
        v += ROLE_TERMS.square[code] * adv * adv / 8.0;
        // `±1 × v` is exact: the same sum as the sign's product.
        self.s += if p.side == self.me { v } else { -v };
        self.totals.material[usize::from(p.side != self.me)] += ROLE_TERMS.material[code];
        if p.role == Role::Dial {
            self.totals.dials[p.side.index()] += 1.0;
        }
        // Enemy pieces within two squares of each side's king.
        let enemy = p.side.opponent().index();
        if self.kings[enemy].is_some_and(|k| sq.distance(k) <= 2) {
            self.near[enemy] += 1;
        }
    }

    /// The totals counted so far (read before [`ScoreScan::finish`]).
    #[inline]
    pub(crate) fn totals(&self) -> ScanTotals {
        self.totals
    }

    #[inline]
    pub(crate) fn finish(self, moves: &[Move]) -> f32 {
        let mut s = self.s;
        // King danger: enemy pieces near each king (South's term first, then North's).
        for side in Side::ALL {
            if self.kings[side.index()].is_some() {
                let n = self.near[side.index()] as f32;
                s += if side == self.me { -0.5 * n } else { 0.5 * n };
            }
        }
        // Mobility of the side to move (the opponent's is not generated: too costly).
        s + 0.03 * moves.len() as f32
    }
}

impl Heuristic {
    /// Score for the side to move, in pawn units: material, charged pieces, the advance of
    /// pawn-types and Father Time, king danger and the mover's mobility (one pass over the
    /// pieces: this runs at every leaf of the search).
    pub fn score(pos: &Position, moves: &[Move]) -> f32 {
        Heuristic::score_and_totals(pos, moves).0
    }

    /// [`Heuristic::score`] and the scan's totals ([`ScanTotals`]).
    pub(crate) fn score_and_totals(pos: &Position, moves: &[Move]) -> (f32, ScanTotals) {
        let mut scan = ScoreScan::new(pos);
        for (sq, p) in pos.pieces() {
            scan.add(sq, p);
        }
        let totals = scan.totals();
        (scan.finish(moves), totals)
    }

    /// How promising a move looks before search (a logit).
    pub fn move_logit(pos: &Position, mv: &Move) -> f32 {
        let me = pos.turn();
        let mut l = 0.0;
        if let Some(t) = pos.piece_at(mv.to) {
            if t.side != me {
                l += if t.role.is_king() { 20.0 } else { 1.0 + 0.4 * material(t.role) };
            }
        }
        let Some(p) = pos.piece_at(mv.from) else {
            return l;
        };
        if p.role == Role::FatherTime && mv.to.rank() == me.end_rank() {
            l += 20.0;
        }
        if matches!(p.role, Role::Cog | Role::Dagger | Role::Phial) && mv.to.rank() == me.end_rank() {
            l += 1.5;
        }
        match mv.ability {
            None => {}
            Some(Ability::Burn { target }) | Some(Ability::Assassinate { target }) => {
                if let Some(t) = pos.piece_at(target) {
                    l += if t.role.is_king() { 20.0 } else { 1.0 + 0.4 * material(t.role) };
                }
            }
            Some(Ability::Slash) => l += 0.5,
            Some(Ability::Recall { .. }) | Some(Ability::Attract { .. }) => l += 0.3,
            Some(Ability::Sidestep { .. }) => l += 0.1,
        }
        l
    }
}

impl Evaluator for Heuristic {
    fn evaluate(&mut self, leaves: &[Leaf<'_>]) -> Vec<Evaluation> {
        leaves
            .iter()
            .map(|l| {
                let value = (Heuristic::score(l.position, l.moves) / 8.0).tanh();
                let logits: Vec<f32> = l.moves.iter().map(|m| Heuristic::move_logit(l.position, m)).collect();
                let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let exp: Vec<f32> = logits.iter().map(|x| (x - max).exp()).collect();
                let z: f32 = exp.iter().sum::<f32>().max(1e-9);
                Evaluation { value, priors: exp.into_iter().map(|e| e / z).collect() }
            })
            .collect()
    }

    fn name(&self) -> String {
        "heuristic".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use engine::{Faction, Game};

    /// The score as first written: material in square order, then a second and third pass
    /// over the board counting the enemy pieces near each king. The one-pass score must
    /// equal it bit for bit (the browser's and the server's moves depend on it).
    fn two_pass_score(pos: &Position, moves: &[Move]) -> f32 {
        let me = pos.turn();
        let mut s = 0.0;
        for i in 0..81u8 {
            let Some(sq) = Square::new(i) else { continue };
            let Some(p) = pos.piece_at(sq) else { continue };
            let sign = if p.side == me { 1.0 } else { -1.0 };
            let mut v = material(p.role);
            if p.charged {
                v += 0.4;
            }
            let adv = match p.side {
                Side::South => sq.rank() as f32,
                Side::North => (8 - sq.rank()) as f32,
            };
            match p.role {
                Role::Cog | Role::Dagger | Role::Phial => v += 0.08 * adv,
                Role::FatherTime => v += 0.25 * adv * adv / 8.0,
                _ => {}
            }
            s += sign * v;
        }
        for side in Side::ALL {
            if let Some(k) = pos.king(side) {
                let mut near = 0.0;
                for i in 0..81u8 {
                    let Some(sq) = Square::new(i) else { continue };
                    if let Some(p) = pos.piece_at(sq) {
                        if p.side != side && sq.distance(k) <= 2 {
                            near += 1.0;
                        }
                    }
                }
                s += if side == me { -0.5 * near } else { 0.5 * near };
            }
        }
        s + 0.03 * moves.len() as f32
    }

    #[test]
    fn the_one_pass_score_equals_the_two_pass_definition() {
        let mut rng = Rng::new(32);
        let mut checked = 0;
        for _ in 0..60 {
            let mut g = Game::new(Position::start(Faction::ALL[rng.below(3)], Faction::ALL[rng.below(3)]));
            for _ in 0..80 {
                let moves = g.legal_moves();
                let pos = *g.position();
                assert_eq!(Heuristic::score(&pos, &moves).to_bits(), two_pass_score(&pos, &moves).to_bits());
                checked += 1;
                if moves.is_empty() || g.outcome().is_some() {
                    break;
                }
                let _ = g.play(moves[rng.below(moves.len())]);
            }
        }
        assert!(checked > 1_000, "{checked} positions");
    }
}
