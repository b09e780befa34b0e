//! The encoder and the policy mapping round-trip for every legal move of positions from
//! random playouts of all nine match-ups.

#![allow(clippy::unwrap_used)]

use std::collections::HashSet;

use ai::encoding::{
    ability_key, base_key, decode_key, encode, policy_target, priors_from_logits, PLANES, POLICY, SQUARES,
};
use engine::{Faction, Game, Position};

#[test]
fn every_legal_move_has_its_own_policy_entries() {
    let mut state = 12345u64;
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut checked = 0;
    for mu in 0..9 {
        for _ in 0..6 {
            let mut g = Game::new(Position::start(Faction::ALL[mu / 3], Faction::ALL[mu % 3]));
            for _ in 0..(rnd() % 120) {
                let moves = g.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let pos = *g.position();
                let side = pos.turn();
                // Planes: exactly one piece plane per piece, faction planes constant.
                let x = encode(&pos);
                assert_eq!(x.len(), PLANES * SQUARES);
                let pieces =
                    (0..81).filter(|&i| pos.piece_at(engine::Square::new(i).unwrap()).is_some()).count();
                assert_eq!(x[..14 * SQUARES].iter().sum::<f32>() as usize, pieces);
                // Keys: (base, ability) identifies the move; keys decode to its squares.
                let mut seen = HashSet::new();
                for m in &moves {
                    let (b, a) = (base_key(m, side), ability_key(m, side));
                    assert!(b < POLICY && a < POLICY);
                    assert!(seen.insert((b, a)), "two moves share keys: {m} in {pos}");
                    assert_eq!(decode_key(b, side), Some((m.from, m.to)), "{m}");
                    checked += 1;
                }
                // Priors are a distribution; the target puts all its mass on legal entries.
                let logits = vec![0.0; POLICY];
                let pr = priors_from_logits(&logits, &moves, side);
                assert!((pr.iter().sum::<f32>() - 1.0).abs() < 1e-3);
                let t = policy_target(&moves, &vec![1.0; moves.len()], side);
                assert!((t.iter().map(|x| x.1).sum::<f32>() - 1.0).abs() < 1e-3);
                g.play(moves[(rnd() % moves.len() as u64) as usize]).unwrap();
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}
