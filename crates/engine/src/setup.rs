//! The starting setups: one data table, so that balance changes touch one place.

use crate::types::{Faction, Role, Side, Square};

/// A faction's setup as South sees it: back rank a→i, and the role filling the front rank.
/// North's setup is the mirror across the middle row (same files).
#[derive(Clone, Copy, Debug)]
pub struct FactionSetup {
    pub back_rank: [Role; 9],
    pub front_rank: Role,
}

use Role::*;

/// The one table of starting setups, indexed by faction.
pub const SETUPS: [FactionSetup; 3] = [
    // Clockwork
    FactionSetup {
        back_rank: [Pendulum, Spring, Dial, Hands, FatherTime, Hands, Dial, Spring, Pendulum],
        front_rank: Cog,
    },
    // Blades
    FactionSetup {
        back_rank: [Sword, Sickle, Sabres, Axe, Mistress, Axe, Sabres, Sickle, Sword],
        front_rank: Dagger,
    },
    // Axiom
    FactionSetup {
        back_rank: [Scales, Telescope, Magnet, Torch, Scientist, Torch, Magnet, Telescope, Scales],
        front_rank: Phial,
    },
];

impl Faction {
    pub const fn setup(self) -> &'static FactionSetup {
        &SETUPS[self as usize]
    }
}

/// The starting squares of `role` in `side`'s setup when that side plays `faction`
/// (empty for the Gear, which is never in a setup). Used by the Dial's Recall.
pub fn starting_squares(faction: Faction, side: Side, role: Role) -> impl Iterator<Item = Square> {
    let setup = faction.setup();
    (0..9u8).flat_map(move |file| {
        let back = (setup.back_rank[file as usize] == role)
            .then(|| Square::from_coords(file, side.back_rank()))
            .flatten();
        let front =
            (setup.front_rank == role).then(|| Square::from_coords(file, side.front_rank())).flatten();
        back.into_iter().chain(front)
    })
}

/// Starting squares as a bit set over square indices, per (faction, side, role), built once
/// at compile time for the move generator.
pub(crate) static START_MASKS: [[[u128; 20]; 2]; 3] = build_start_masks();

const fn build_start_masks() -> [[[u128; 20]; 2]; 3] {
    let mut t = [[[0u128; 20]; 2]; 3];
    let mut f = 0;
    while f < 3 {
        let setup = &SETUPS[f];
        let mut s = 0;
        while s < 2 {
            let (back, front) = if s == 0 { (0u32, 1u32) } else { (8u32, 7u32) };
            let mut file = 0;
            while file < 9 {
                let b = setup.back_rank[file] as usize;
                t[f][s][b] |= 1u128 << (back * 9 + file as u32);
                let p = setup.front_rank as usize;
                t[f][s][p] |= 1u128 << (front * 9 + file as u32);
                file += 1;
            }
            s += 1;
        }
        f += 1;
    }
    t
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_setup_has_one_king_and_eighteen_pieces() {
        for f in Faction::ALL {
            let s = f.setup();
            assert_eq!(s.back_rank.iter().filter(|r| r.is_king()).count(), 1);
            assert_eq!(s.back_rank[4], f.king());
            assert!(s.back_rank.iter().all(|r| r.faction() == f));
            assert_eq!(s.front_rank.faction(), f);
        }
    }

    #[test]
    fn starting_squares_of_a_north_dial_are_c9_and_g9() {
        let sqs: Vec<String> =
            starting_squares(Faction::Clockwork, Side::North, Role::Dial).map(|s| s.to_string()).collect();
        assert_eq!(sqs, ["c9", "g9"]);
        assert_eq!(starting_squares(Faction::Clockwork, Side::South, Role::Gear).count(), 0);
        assert_eq!(starting_squares(Faction::Blades, Side::South, Role::Dagger).count(), 9);
    }

    #[test]
    fn masks_agree_with_the_table() {
        for f in Faction::ALL {
            for side in Side::ALL {
                for &r in f.roles() {
                    let mask = START_MASKS[f as usize][side.index()][r as usize];
                    let from_iter: u128 = starting_squares(f, side, r).fold(0, |m, s| m | 1u128 << s.index());
                    assert_eq!(mask, from_iter, "{f} {side} {r}");
                }
            }
        }
    }
}
