//! Board geometry as compile-time tables, so move generation never does bounds arithmetic.

use crate::types::Square;

/// The 8 lines as (file step, rank step): N, NE, E, SE, S, SW, W, NW.
/// "N" is towards rank 9. Opposite directions are 4 apart.
pub(crate) const DIRS: [(i8, i8); 8] = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)];

pub(crate) const ORTHOGONAL: [usize; 4] = [0, 2, 4, 6];
pub(crate) const DIAGONAL: [usize; 4] = [1, 3, 5, 7];

/// Marks "off the board" in the neighbour table.
pub(crate) const NONE: u8 = 0xFF;

/// `NEIGHBOR[sq][dir]`: the adjacent square in `dir`, or [`NONE`].
pub(crate) static NEIGHBOR: [[u8; 8]; 81] = build_neighbors();

const fn build_neighbors() -> [[u8; 8]; 81] {
    let mut t = [[NONE; 8]; 81];
    let mut sq = 0;
    while sq < 81 {
        let f = (sq % 9) as i8;
        let r = (sq / 9) as i8;
        let mut d = 0;
        while d < 8 {
            let nf = f + DIRS[d].0;
            let nr = r + DIRS[d].1;
            if nf >= 0 && nf < 9 && nr >= 0 && nr < 9 {
                t[sq][d] = (nr * 9 + nf) as u8;
            }
            d += 1;
        }
        sq += 1;
    }
    t
}

#[inline]
pub(crate) fn neighbor(sq: u8, dir: usize) -> u8 {
    NEIGHBOR[sq as usize][dir]
}

/// Sickle leaps: one square orthogonally then two or three perpendicular.
pub(crate) const SICKLE_LEAPS: [(i8, i8); 16] = [
    (1, 2),
    (1, -2),
    (-1, 2),
    (-1, -2),
    (2, 1),
    (2, -1),
    (-2, 1),
    (-2, -1),
    (1, 3),
    (1, -3),
    (-1, 3),
    (-1, -3),
    (3, 1),
    (3, -1),
    (-3, 1),
    (-3, -1),
];

/// `SICKLE[sq]`: the on-board leap targets from `sq`, [`NONE`]-padded.
pub(crate) static SICKLE: [[u8; 16]; 81] = build_leaps();

const fn build_leaps() -> [[u8; 16]; 81] {
    let mut t = [[NONE; 16]; 81];
    let mut sq = 0;
    while sq < 81 {
        let f = (sq % 9) as i8;
        let r = (sq / 9) as i8;
        let mut i = 0;
        let mut n = 0;
        while i < 16 {
            let nf = f + SICKLE_LEAPS[i].0;
            let nr = r + SICKLE_LEAPS[i].1;
            if nf >= 0 && nf < 9 && nr >= 0 && nr < 9 {
                t[sq][n] = (nr * 9 + nf) as u8;
                n += 1;
            }
            i += 1;
        }
        sq += 1;
    }
    t
}

#[inline]
pub(crate) fn sq(i: u8) -> Square {
    Square::from_index_unchecked(i)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_match_offsets() {
        for s in 0..81u8 {
            for (d, &(df, dr)) in DIRS.iter().enumerate() {
                let want = sq(s).offset(df, dr).map(|x| x.index() as u8).unwrap_or(NONE);
                assert_eq!(NEIGHBOR[s as usize][d], want);
            }
        }
        for d in 0..8 {
            assert_eq!(DIRS[d].0, -DIRS[(d + 4) % 8].0);
            assert_eq!(DIRS[d].1, -DIRS[(d + 4) % 8].1);
        }
    }

    #[test]
    fn sickle_from_the_centre_has_sixteen_leaps() {
        let e5 = Square::parse("e5").unwrap().index();
        assert!(SICKLE[e5].iter().all(|&t| t != NONE));
        let a1 = Square::parse("a1").unwrap().index();
        // (1,2),(2,1),(1,3),(3,1)
        assert_eq!(SICKLE[a1].iter().filter(|&&t| t != NONE).count(), 4);
    }
}
