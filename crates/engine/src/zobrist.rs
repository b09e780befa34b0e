//! Zobrist keys, generated at compile time (no global mutable state, no RNG at run time).
//!
//! The position identity for repetition is (board, charged flags, side to move): the ply
//! and the factions are not hashed (factions never change within a game).

/// splitmix64: a tiny, well-distributed generator, good enough for hash keys.
const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

/// Keys per (square, side×role): index `sq * 64 + (cell & 0x3F)`; the charged bit has
/// its own key per square.
pub(crate) static PIECE_KEYS: [u64; 81 * 64] = build_piece_keys();
pub(crate) static CHARGED_KEYS: [u64; 81] = build_charged_keys();
pub(crate) const NORTH_TO_MOVE: u64 = 0x6A09_E667_F3BC_C908;

const fn build_piece_keys() -> [u64; 81 * 64] {
    let mut t = [0u64; 81 * 64];
    let mut state = 0x1234_5678_9ABC_DEF0u64;
    let mut i = 0;
    while i < 81 * 64 {
        let (s, v) = splitmix(state);
        state = s;
        t[i] = v;
        i += 1;
    }
    t
}

const fn build_charged_keys() -> [u64; 81] {
    let mut t = [0u64; 81];
    let mut state = 0x0FED_CBA9_8765_4321u64;
    let mut i = 0;
    while i < 81 {
        let (s, v) = splitmix(state);
        state = s;
        t[i] = v;
        i += 1;
    }
    t
}

/// The hash contribution of one piece on `sq` (`piece`: its cell code without the charge,
/// 0 for an empty square; `charged` as the position's cell says: the encoding is
/// `crate::position`'s, which this module does not read).
#[inline]
pub(crate) fn cell_key(sq: usize, piece: u8, charged: bool) -> u64 {
    if piece == 0 {
        return 0;
    }
    let mut k = PIECE_KEYS[sq * 64 + (piece & 0x3F) as usize];
    if charged {
        k ^= CHARGED_KEYS[sq];
    }
    k
}
