//! The network's input planes and policy layout: the one place that defines both. The
//! training code reads the same definition from `layout_json()` (printed by `iron-arena
//! layout`, which `training/train.py` runs and checks against), so the two cannot drift.
//!
//! Everything is seen from the side to move: for North the ranks are mirrored, so
//! "forward" is always towards the top (row 8) and the end row is row 8.

use engine::{Ability, Faction, Move, Position, Side, Square};
use serde_json::json;

pub const LAYOUT_VERSION: u32 = 1;
pub const PLANES: usize = 22;
pub const SQUARES: usize = 81;
/// Policy size: a from-square × to-square map (81 × 81).
pub const POLICY: usize = SQUARES * SQUARES;

/// What each input plane holds (1.0 where true, else 0.0).
pub const PLANE_NAMES: [&str; PLANES] = [
    "own piece, faction slot 0 (Cog / Dagger / Phial)",
    "own piece, faction slot 1 (Gear / Axe / Magnet)",
    "own piece, faction slot 2 (Pendulum / Sickle / Torch)",
    "own piece, faction slot 3 (Spring / Sabres / Scales)",
    "own piece, faction slot 4 (Hands / Sword / Telescope)",
    "own piece, faction slot 5 (Dial / Mistress / Scientist)",
    "own piece, faction slot 6 (Father Time / - / -)",
    "enemy piece, faction slot 0",
    "enemy piece, faction slot 1",
    "enemy piece, faction slot 2",
    "enemy piece, faction slot 3",
    "enemy piece, faction slot 4",
    "enemy piece, faction slot 5",
    "enemy piece, faction slot 6",
    "own charged piece",
    "enemy charged piece",
    "own faction is clockwork (constant plane)",
    "own faction is blades (constant plane)",
    "own faction is axiom (constant plane)",
    "enemy faction is clockwork (constant plane)",
    "enemy faction is blades (constant plane)",
    "enemy faction is axiom (constant plane)",
];

/// The square's index in the side-to-move's view (ranks mirrored for North).
#[inline]
pub fn view_index(sq: Square, side: Side) -> usize {
    let rank = match side {
        Side::South => sq.rank(),
        Side::North => 8 - sq.rank(),
    };
    rank as usize * 9 + sq.file() as usize
}

/// Slot of a role within its faction (the order of `Faction::roles`).
fn slot(faction: Faction, role: engine::Role) -> usize {
    faction.roles().iter().position(|&r| r == role).unwrap_or(0)
}

/// Writes the 22 × 81 planes (plane-major, row-major within a plane) into `out`.
pub fn encode_into(pos: &Position, out: &mut [f32]) {
    debug_assert_eq!(out.len(), PLANES * SQUARES);
    out.fill(0.0);
    let me = pos.turn();
    for i in 0..81u8 {
        let Some(sq) = Square::new(i) else { continue };
        let Some(p) = pos.piece_at(sq) else { continue };
        let own = p.side == me;
        let s = slot(pos.faction(p.side), p.role);
        let v = view_index(sq, me);
        out[(if own { 0 } else { 7 } + s) * SQUARES + v] = 1.0;
        if p.charged {
            out[(if own { 14 } else { 15 }) * SQUARES + v] = 1.0;
        }
    }
    let fac = |f: Faction| Faction::ALL.iter().position(|&x| x == f).unwrap_or(0);
    for plane in [16 + fac(pos.faction(me)), 19 + fac(pos.faction(me.opponent()))] {
        out[plane * SQUARES..(plane + 1) * SQUARES].fill(1.0);
    }
}

pub fn encode(pos: &Position) -> Vec<f32> {
    let mut v = vec![0.0; PLANES * SQUARES];
    encode_into(pos, &mut v);
    v
}

/// The square at a view index, for the side to move (inverse of [`view_index`]).
pub fn view_square(index: usize, side: Side) -> Option<Square> {
    if index >= SQUARES {
        return None;
    }
    let (r, f) = ((index / 9) as u8, (index % 9) as u8);
    let rank = match side {
        Side::South => r,
        Side::North => 8 - r,
    };
    Square::from_coords(f, rank)
}

/// The two squares of a policy entry (inverse of the keys below).
pub fn decode_key(key: usize, side: Side) -> Option<(Square, Square)> {
    Some((view_square(key / SQUARES, side)?, view_square(key % SQUARES, side)?))
}

/// The view index of the left-right mirrored square (file a ↔ i, row unchanged): the
/// rules' one board symmetry (`Position::mirrored_files`) acts on the view of either side
/// as `row * 9 + file -> row * 9 + (8 - file)`, i.e. a flip of each plane's last axis.
#[inline]
pub fn mirror_view_index(index: usize) -> usize {
    index - index % 9 + (8 - index % 9)
}

/// A policy entry of the mirrored position: both of its squares mirrored. With
/// [`mirror_view_index`], `encode(p.mirrored_files())` is `encode(p)` with every plane
/// flipped along the file axis, and every key of `p`'s moves maps to the mirrored move's.
#[inline]
pub fn mirror_key(key: usize) -> usize {
    mirror_view_index(key / SQUARES) * SQUARES + mirror_view_index(key % SQUARES)
}

#[inline]
fn key(a: Square, b: Square, side: Side) -> usize {
    view_index(a, side) * SQUARES + view_index(b, side)
}

/// The policy entry of a move's base (from → to), for the side to move.
pub fn base_key(mv: &Move, side: Side) -> usize {
    key(mv.from, mv.to, side)
}

/// The policy entry of a move's ability choice, the second decision of the same player:
/// "skip" is (to → to) (base moves never map a square to itself), Recall is
/// (target → destination), Attract (target → the Magnet's square), Slash (to → the
/// square ahead), Burn / Sidestep / Assassinate (to → the chosen square).
pub fn ability_key(mv: &Move, side: Side) -> usize {
    match mv.ability {
        None => key(mv.to, mv.to, side),
        Some(Ability::Recall { target, dest }) => key(target, dest, side),
        Some(Ability::Attract { target }) => key(target, mv.to, side),
        Some(Ability::Slash) => {
            let ahead = mv.to.offset(0, side.forward()).unwrap_or(mv.to);
            key(mv.to, ahead, side)
        }
        Some(Ability::Burn { target }) | Some(Ability::Assassinate { target }) => key(mv.to, target, side),
        Some(Ability::Sidestep { to }) => key(mv.to, to, side),
    }
}

/// Priors over `moves` from the network's 6561 policy logits: P(base) × P(ability | base),
/// each a softmax restricted to the legal choices.
pub fn priors_from_logits(logits: &[f32], moves: &[Move], side: Side) -> Vec<f32> {
    let n = moves.len();
    if n == 0 {
        return Vec::new();
    }
    let base: Vec<usize> = moves.iter().map(|m| base_key(m, side)).collect();
    let abil: Vec<usize> = moves.iter().map(|m| ability_key(m, side)).collect();
    // Softmax over distinct bases.
    let mut distinct: Vec<usize> = base.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let max_b = distinct.iter().map(|&k| logits[k]).fold(f32::NEG_INFINITY, f32::max);
    let z_b: f32 = distinct.iter().map(|&k| (logits[k] - max_b).exp()).sum();
    let mut out = vec![0.0; n];
    for i in 0..n {
        let group: Vec<usize> = (0..n).filter(|&j| base[j] == base[i]).collect();
        let max_a = group.iter().map(|&j| logits[abil[j]]).fold(f32::NEG_INFINITY, f32::max);
        let z_a: f32 = group.iter().map(|&j| (logits[abil[j]] - max_a).exp()).sum();
        let p_base = (logits[base[i]] - max_b).exp() / z_b;
        let p_ab = (logits[abil[i]] - max_a).exp() / z_a;
        out[i] = p_base * p_ab;
    }
    out
}

/// The training target over the 6561 entries for a visit distribution over `moves`:
/// each move's share goes to its base entry and to its ability entry (the trainer's one
/// softmax then learns both decisions; restricted softmaxes recover each conditional).
pub fn policy_target(moves: &[Move], weights: &[f32], side: Side) -> Vec<(u16, f32)> {
    let mut acc: std::collections::BTreeMap<usize, f32> = std::collections::BTreeMap::new();
    let total: f32 = weights.iter().sum::<f32>().max(1e-9);
    for (m, &w) in moves.iter().zip(weights) {
        let w = w / total;
        *acc.entry(base_key(m, side)).or_default() += w;
        *acc.entry(ability_key(m, side)).or_default() += w;
    }
    acc.into_iter().map(|(k, w)| (k as u16, w * 0.5)).collect()
}

/// The layout as JSON, for the trainer and the model manifest.
pub fn layout_json() -> serde_json::Value {
    json!({
        "layout_version": LAYOUT_VERSION,
        "planes": PLANES,
        "squares": SQUARES,
        "board": "9x9, rank-major from the side to move's own back rank (North mirrored), files a..i",
        "plane_names": PLANE_NAMES,
        "input_shape": [PLANES, 9, 9],
        "policy_size": POLICY,
        "policy": "logits[from_view_index * 81 + to_view_index]; base move = (from, to); ability choice = a second decision over the same map: skip (to,to), recall (target,dest), attract (target,to), slash (to, square ahead), burn/sidestep/assassinate (to, chosen square)",
        "value": "tanh output in [-1, 1] for the side to move",
        "record_format": "JSON lines: {\"planes\": base64 of PLANES*81 bytes (0/1), \"policy\": [[key, weight], ...] summing to 1, \"value\": -1..1 from the side to move (the game result), \"search_value\": the search's root value for the side to move, \"iapn\": the position (IAPN), \"matchup\": \"south-north\"}"
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn encoding_marks_every_piece_once_and_flips_for_north() {
        let p = Position::start(Faction::Clockwork, Faction::Axiom);
        let x = encode(&p);
        let pieces: f32 = x[..14 * SQUARES].iter().sum();
        assert_eq!(pieces, 36.0);
        // South to move: own Cogs on view row 1.
        assert_eq!(x[9 + 4], 1.0);
        let after = p.play(Move::parse("e2d3").unwrap()).unwrap();
        let y = encode(&after);
        // North to move: its Phials (slot 0) are on its own row 1 in view.
        assert_eq!(y[9 + 4], 1.0);
        assert_eq!(y[18 * SQUARES], 1.0, "own faction axiom");
        assert_eq!(y[19 * SQUARES], 1.0, "enemy faction clockwork");
    }

    #[test]
    fn priors_sum_to_one() {
        let p = iapn("blades axiom b8/7l1/4s4/4p4/2pM1t1p1/4A1A2/2A3D2/9/W8 s d5 0");
        let moves = p.legal_moves();
        let logits: Vec<f32> = (0..POLICY).map(|i| ((i * 7919) % 13) as f32 * 0.1).collect();
        let pr = priors_from_logits(&logits, &moves, p.turn());
        assert!((pr.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        assert!(pr.iter().all(|&x| x > 0.0));
    }

    /// The left-right mirror acts on the input as a flip of every plane's file axis and
    /// on policy keys through `mirror_key`, for either side to move (what the trainer's
    /// `--mirror` augmentation relies on).
    #[test]
    fn mirroring_the_position_flips_the_planes_and_maps_the_keys() {
        let mut rng = crate::rng::Rng::new(11);
        let mut checked = 0;
        for mu in 0..9 {
            let mut p = Position::start(Faction::ALL[mu / 3], Faction::ALL[mu % 3]);
            for ply in 0..60 {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                if ply % 7 == 3 {
                    let m = p.mirrored_files();
                    let side = p.turn();
                    let (x, y) = (encode(&p), encode(&m));
                    for plane in 0..PLANES {
                        for v in 0..SQUARES {
                            assert_eq!(
                                y[plane * SQUARES + mirror_view_index(v)],
                                x[plane * SQUARES + v],
                                "{p:?} plane {plane}"
                            );
                        }
                    }
                    let weights: Vec<f32> = (0..moves.len()).map(|i| (i % 5 + 1) as f32).collect();
                    for mv in &moves {
                        let mm = mv.mirrored_files();
                        assert_eq!(base_key(&mm, side), mirror_key(base_key(mv, side)), "{mv} in {p:?}");
                        assert_eq!(
                            ability_key(&mm, side),
                            mirror_key(ability_key(mv, side)),
                            "{mv} in {p:?}"
                        );
                    }
                    let mirrored: Vec<Move> = moves.iter().map(|mv| mv.mirrored_files()).collect();
                    let mut want: Vec<(usize, u32)> = policy_target(&moves, &weights, side)
                        .into_iter()
                        .map(|(k, w)| (mirror_key(k as usize), w.to_bits()))
                        .collect();
                    want.sort_unstable();
                    let got: Vec<(usize, u32)> = policy_target(&mirrored, &weights, side)
                        .into_iter()
                        .map(|(k, w)| (k as usize, w.to_bits()))
                        .collect();
                    assert_eq!(got, want, "{p:?}");
                    checked += 1;
                }
                p = p.play(moves[rng.below(moves.len())]).unwrap();
            }
        }
        assert!(checked >= 60, "{checked}");
        for k in 0..POLICY {
            assert_eq!(mirror_key(mirror_key(k)), k);
        }
    }

    fn iapn(s: &str) -> Position {
        engine::iapn::parse(s).unwrap()
    }
}
