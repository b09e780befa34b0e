//! Per-piece and per-ability tests on hand-built positions (docs/specification.md is the authority).
//!
//! Every expectation below was counted by hand from docs/specification.md, never copied from the
//! engine's output. Each test says in a comment how its expected moves were derived.
//! Board strings are IAPN (docs/specification.md §7): ranks 9 down to 1, files a→i, uppercase South.

use std::collections::BTreeSet;

use engine::{iapn, result_text, Game, IllegalMove, Move, Position, Role, Side, Square};

// ---------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------

fn pos(text: &str) -> Position {
    iapn::parse(text).unwrap_or_else(|e| panic!("IAPN {text:?} rejected: {e}"))
}

fn sq(s: &str) -> Square {
    Square::parse(s).unwrap_or_else(|| panic!("bad square {s}"))
}

fn mv(s: &str) -> Move {
    Move::parse(s).unwrap_or_else(|e| panic!("bad IAMN {s}: {e}"))
}

/// All legal moves as IAMN, checking that the generator lists no move twice.
fn all_moves(p: &Position) -> BTreeSet<String> {
    let list = p.legal_moves();
    let set: BTreeSet<String> = list.iter().map(|m| m.to_string()).collect();
    assert_eq!(list.len(), set.len(), "duplicate moves in {list:?}");
    set
}

/// The IAMN strings of the legal moves starting on `from`.
fn moves_from(p: &Position, from: &str) -> BTreeSet<String> {
    let from = sq(from);
    let _ = all_moves(p);
    p.legal_moves().into_iter().filter(|m| m.from == from).map(|m| m.to_string()).collect()
}

/// The IAMN strings of the legal moves with base move `base` (e.g. `e4e5`), all abilities.
fn moves_with_base(p: &Position, base: &str) -> BTreeSet<String> {
    let m = mv(base);
    let _ = all_moves(p);
    p.legal_moves().into_iter().filter(|x| x.from == m.from && x.to == m.to).map(|x| x.to_string()).collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    let s: BTreeSet<String> = items.iter().map(|x| (*x).to_owned()).collect();
    assert_eq!(s.len(), items.len(), "expectation lists a move twice");
    s
}

/// Asserts the exact move set of the piece on `from`, and that each move plays.
fn assert_moves_from(p: &Position, from: &str, expected: &[&str]) {
    let got = moves_from(p, from);
    assert_eq!(got, set(expected), "moves from {from} in {}", iapn::format(p));
    for m in expected {
        assert!(p.play(mv(m)).is_ok(), "{m} should play in {}", iapn::format(p));
    }
}

fn assert_moves_with_base(p: &Position, base: &str, expected: &[&str]) {
    let got = moves_with_base(p, base);
    assert_eq!(got, set(expected), "moves with base {base} in {}", iapn::format(p));
}

fn play(p: &Position, m: &str) -> Position {
    p.play(mv(m)).unwrap_or_else(|e| panic!("{m} rejected in {}: {e}", iapn::format(p)))
}

/// (side, role, charged) of the piece on a square.
fn at(p: &Position, s: &str) -> Option<(Side, Role, bool)> {
    p.piece_at(sq(s)).map(|x| (x.side, x.role, x.charged))
}

fn result(p: &Position) -> String {
    result_text(p.outcome())
}

use Role::*;
use Side::{North, South};

// ---------------------------------------------------------------------------------------
// Cog
// ---------------------------------------------------------------------------------------

#[test]
fn cog_steps_diagonally_forward_only() {
    // South Cog e4 (uncharged), kings on e1/e9 out of the way.
    // §4 Cog: "step diagonally forward (2 directions)": d5, f5. No straight or backward
    // step.
    let p = pos("clockwork clockwork 4f4/9/9/9/9/4C4/9/9/4F4 s - 0");
    assert_moves_from(&p, "e4", &["e4d5", "e4f5"]);
}

#[test]
fn charged_cog_also_steps_diagonally_backwards() {
    // Same, but the Cog is charged: §4 "Charged: also step diagonally backwards":
    // d5, f5 + d3, f3 = 4.
    let p = pos("clockwork clockwork 4f4/9/9/9/9/4C4/9/9/4F4 s e4 0");
    assert_moves_from(&p, "e4", &["e4d5", "e4f5", "e4d3", "e4f3"]);
}

#[test]
fn cog_captures_diagonally_and_is_blocked_by_friends() {
    // Cog e4; North Cog d5 (capturable: diagonal forward), North Cog e5 (straight ahead:
    // a Cog never moves there), South Gear f5 (friendly non-Cog: no merge, blocked).
    // Only e4d5 remains.
    let p = pos("clockwork clockwork 4f4/9/9/9/3ccG3/4C4/9/9/4F4 s - 0");
    assert_moves_from(&p, "e4", &["e4d5"]);
    let q = play(&p, "e4d5");
    assert_eq!(at(&q, "d5"), Some((South, Cog, true)), "captured onto rank 5: charged");
    assert_eq!(at(&q, "e5"), Some((North, Cog, false)));
}

#[test]
fn cog_merges_forward_with_friendly_cog_into_a_gear() {
    // Cogs e4 and f5 (South). e4f5 steps onto the friendly Cog: merge (§4), one Gear on
    // f5, e4 empty. Moves from e4: d5 (empty) and f5 (merge) = 2.
    // The merge ends on rank 5, but a Gear cannot carry a charge (§3).
    let p = pos("clockwork clockwork 4f4/9/9/9/5C3/4C4/9/9/4F4 s - 0");
    assert_moves_from(&p, "e4", &["e4d5", "e4f5"]);
    let q = play(&p, "e4f5");
    assert_eq!(at(&q, "f5"), Some((South, Gear, false)));
    assert_eq!(at(&q, "e4"), None);
    assert_eq!(iapn::format(&q), "clockwork clockwork 4f4/9/9/9/5G3/9/9/9/4F4 n - 1");
}

#[test]
fn charged_cog_merges_backwards_uncharged_cog_cannot() {
    // Cogs e4 and d3 (South). Uncharged e4: d5, f5 only (d3 is backwards).
    // Charged e4: d5, f5, f3 (empty) and d3 (merge backwards) = 4; e4d3 gives a Gear on d3.
    let p = pos("clockwork clockwork 4f4/9/9/9/9/4C4/3C5/9/4F4 s - 0");
    assert_moves_from(&p, "e4", &["e4d5", "e4f5"]);
    let c = pos("clockwork clockwork 4f4/9/9/9/9/4C4/3C5/9/4F4 s e4 0");
    assert_moves_from(&c, "e4", &["e4d5", "e4f5", "e4d3", "e4f3"]);
    let q = play(&c, "e4d3");
    assert_eq!(at(&q, "d3"), Some((South, Gear, false)));
    assert_eq!(at(&q, "e4"), None);
}

#[test]
fn cog_is_charged_by_its_own_step_onto_the_field() {
    // Cog e4 steps to d5 (rank 5 = Electric Field): charged (§3). The IAPN charged field
    // then lists d5.
    let p = pos("clockwork clockwork 4f4/9/9/9/9/4C4/9/9/4F4 s - 0");
    let q = play(&p, "e4d5");
    assert_eq!(at(&q, "d5"), Some((South, Cog, true)));
    assert_eq!(iapn::format(&q), "clockwork clockwork 4f4/9/9/9/3C5/9/9/9/4F4 n d5 1");
    // A step off the field keeps the (permanent) charge.
    let c = pos("clockwork clockwork 4f4/9/9/9/4C4/9/9/9/4F4 s e5 0");
    let r = play(&c, "e5f6");
    assert_eq!(at(&r, "f6"), Some((South, Cog, true)));
}

#[test]
fn cog_arriving_on_end_row_becomes_gear_by_step_and_by_capture() {
    // South Cog e8; North Pendulum f9, North Father Time i9. Moves: d9 (empty), f9
    // (capture) = 2. Each arrives on rank 9 (South's end row): the Cog becomes a Gear.
    let p = pos("clockwork clockwork 5p2f/4C4/9/9/9/9/9/9/4F4 s - 0");
    assert_moves_from(&p, "e8", &["e8d9", "e8f9"]);
    assert_eq!(at(&play(&p, "e8d9"), "d9"), Some((South, Gear, false)));
    assert_eq!(at(&play(&p, "e8f9"), "f9"), Some((South, Gear, false)));
}

#[test]
fn cog_merging_on_end_row_gives_a_gear() {
    // South Cog e8 and a South Cog standing on d9 (placed there). e8d9 is a merge that
    // arrives on rank 9: one Gear on d9 either way (§4 "also when it arrives by merging").
    let p = pos("clockwork clockwork 3C4f/4C4/9/9/9/9/9/9/4F4 s - 0");
    let q = play(&p, "e8d9");
    assert_eq!(at(&q, "d9"), Some((South, Gear, false)));
    assert_eq!(at(&q, "e8"), None);
}

#[test]
fn north_cog_moves_down_and_promotes_on_rank_1() {
    // North Cog d2, North to move: forward is towards rank 1, so c1 and e1; rank 1 is
    // North's end row: it becomes a (North) Gear.
    let p = pos("clockwork clockwork 4f4/9/9/9/9/9/9/3c5/7F1 n - 0");
    assert_moves_from(&p, "d2", &["d2c1", "d2e1"]);
    assert_eq!(at(&play(&p, "d2c1"), "c1"), Some((North, Gear, false)));
}

#[test]
fn cog_pulled_along_its_end_row_is_not_promoted_and_keeps_charge() {
    // A pull can only put a piece on an end row by sliding it along that row (the square
    // next to the Magnet lies between the two). South Cog a9 (charged, placed there);
    // North Magnet e8 steps to d9 and attracts along rank 9: c9, b9 empty, a9 at
    // distance 3 -> lands on c9. From d9 nothing else is in sight (d-file, rank 9 east,
    // diagonals c8-b7-a6 and e8(vacated)-f7-... all empty), so base e8d9 has exactly
    // the plain move and attract:a9.
    // §3: pulled pieces get no arrival effect (no Gear) and keep their charge.
    let p = pos("clockwork axiom C8/4m4/9/9/8s/9/9/9/4F4 n a9 0");
    assert_moves_with_base(&p, "e8d9", &["e8d9", "e8d9/attract:a9"]);
    let q = play(&p, "e8d9/attract:a9");
    assert_eq!(at(&q, "c9"), Some((South, Cog, true)));
    assert_eq!(at(&q, "a9"), None);
    assert_eq!(at(&q, "d9"), Some((North, Magnet, false)));
}

// ---------------------------------------------------------------------------------------
// Gear, Pendulum, Spring, Hands
// ---------------------------------------------------------------------------------------

#[test]
fn gear_steps_in_all_eight_directions() {
    // Gear e4; South Cog e5 (friend: blocked; a Gear never merges), North Cog d5
    // (captured). 8 neighbours minus e5 = 7: d3 e3 f3 d4 f4 d5 f5.
    let p = pos("clockwork clockwork 4f4/9/9/9/3cC4/4G4/9/9/4F4 s - 0");
    assert_moves_from(&p, "e4", &["e4d3", "e4e3", "e4f3", "e4d4", "e4f4", "e4d5", "e4f5"]);
}

#[test]
fn pendulum_steps_and_slides_sideways() {
    // Pendulum e4; South Dial b4 (friend), North Axe g4 (enemy).
    // Steps: d3 e3 f3 d4 f4 d5 e5 f5 (8). Sideways slides: west d4, c4 (stop before b4);
    // east f4, g4 (capture, stop). New squares beyond the steps: c4, g4.
    // Total 10. No vertical slide (e6, e2 ...).
    let p = pos("clockwork blades 4m4/9/9/9/9/1D2P1a2/9/9/4F4 s - 0");
    assert_moves_from(
        &p,
        "e4",
        &["e4d3", "e4e3", "e4f3", "e4d4", "e4f4", "e4d5", "e4e5", "e4f5", "e4c4", "e4g4"],
    );
}

#[test]
fn spring_on_open_board_steps_and_recoils_to_every_edge() {
    // Spring e5, kings b1 (South FT) and h9 (North Mistress) are on none of e5's lines.
    // 8 steps; in each of the 8 directions the square behind is empty, so a recoil slides
    // the maximum distance to the edge: e9 e1 i5 a5 i9 a9 i1 a1. 16 moves.
    let p = pos("clockwork blades 7m1/9/9/9/4S4/9/9/9/1F7 s - 0");
    assert_moves_from(
        &p,
        "e5",
        &[
            "e5d4", "e5d5", "e5d6", "e5e4", "e5e6", "e5f4", "e5f5", "e5f6", "e5e9", "e5e1", "e5i5", "e5a5",
            "e5i9", "e5a9", "e5i1", "e5a1",
        ],
    );
}

#[test]
fn spring_recoil_rules() {
    // Spring e5. South: Hands d5, Gear c7, Cog e2, FT a2. North: Dagger d4, Axe e8,
    // Sickle g7, Mistress h9.
    // Steps: d4 (capture), d6, e4, e6, f4, f5, f6 (d5 is a friend) = 7.
    // Recoils (direction d needs the square at -d empty):
    //  N : behind e4 empty; e6, e7 empty, e8 enemy -> capture e8 (new).
    //  S : behind e6 empty; e4, e3 empty, e2 friend -> stop on e3 (new).
    //  E : behind d5 is a friend -> no recoil (f5 is only a step).
    //  W : behind f5 empty, but d5 friend right away -> no move.
    //  NE: behind d4 holds an enemy -> no recoil, so g7 is NOT captured.
    //  SW: behind f6 empty; d4 enemy at once -> capture d4 = the step (no duplicate).
    //  NW: behind f4 empty; d6 empty, c7 friend -> stop d6 = the step (no duplicate).
    //  SE: behind d6 empty; f4 g3 h2 i1 empty -> i1 (new).
    // 7 + 3 = 10, and e7/e6-style intermediate squares are not recoil targets.
    let p = pos("clockwork blades 7m1/4a4/2G3k2/9/3HS4/3d5/9/F3C4/9 s - 0");
    assert_moves_from(
        &p,
        "e5",
        &["e5d4", "e5d6", "e5e4", "e5e6", "e5f4", "e5f5", "e5f6", "e5e8", "e5e3", "e5i1"],
    );
}

#[test]
fn spring_recoil_needs_a_square_behind_on_the_board() {
    // Spring a5 on the a-file, kings on e1/e9. Steps: a4 a6 b4 b5 b6 (5).
    // Recoil N (behind a4 empty) -> a9; S (behind a6) -> a1. E, NE, SE need a square at
    // file "z": it does not exist -> no recoil. W, NW, SW leave the board at once.
    // Total 7.
    let p = pos("clockwork blades 4m4/9/9/9/S8/9/9/9/4F4 s - 0");
    assert_moves_from(&p, "a5", &["a5a4", "a5a6", "a5b4", "a5b5", "a5b6", "a5a9", "a5a1"]);
}

#[test]
fn hands_slide_one_to_four_squares() {
    // Hands a1 on an open board (FT i2, Scientist h9 off its lines).
    // N a2..a5, E b1..e1, NE b2..e5: 4 each, never 5+ (a6, f1, f6 excluded) = 12.
    let p = pos("clockwork axiom 7s1/9/9/9/9/9/9/8F/H8 s - 0");
    assert_moves_from(
        &p,
        "a1",
        &["a1a2", "a1a3", "a1a4", "a1a5", "a1b1", "a1c1", "a1d1", "a1e1", "a1b2", "a1c3", "a1d4", "a1e5"],
    );
}

#[test]
fn hands_are_blocked_and_capture() {
    // Hands b2; South Cog b4, North Torch d4, South FT h1, North Scientist h9.
    // N: b3 (b4 friend). S: b1. E: c2 d2 e2 f2 (limit 4). W: a2. NE: c3, d4 (capture).
    // NW: a3. SE: c1. SW: a1. Total 12.
    let p = pos("clockwork axiom 7s1/9/9/9/9/1C1t5/9/1H7/7F1 s - 0");
    assert_moves_from(
        &p,
        "b2",
        &["b2b3", "b2b1", "b2c2", "b2d2", "b2e2", "b2f2", "b2a2", "b2c3", "b2d4", "b2a3", "b2c1", "b2a1"],
    );
}

// ---------------------------------------------------------------------------------------
// Dial
// ---------------------------------------------------------------------------------------

#[test]
fn dial_steps_orthogonally_and_recalls_through_the_square_it_left() {
    // Dial e4; North Sickle e7, North Mistress a9; South FT i1.
    // Dial steps: e5, e3, d4, f4.
    //  from e5: N line e6, e7 = Sickle -> recall to an empty Sickle start (North Blades:
    //    b9, h9) = 2 variants. NW line ends on a9 Mistress: a king, no recall.
    //    SE line ends on the own FT. Others empty.
    //  from e3: N line e4 (just left: empty), e5, e6, e7 Sickle -> 2 variants.
    //  from d4: no enemy in any line. from f4: NW line ends on Mistress (king): none.
    // Total 3 + 3 + 1 + 1 = 8.
    let p = pos("clockwork blades m8/9/4k4/9/9/4D4/9/9/8F s - 0");
    assert_moves_from(
        &p,
        "e4",
        &[
            "e4e5",
            "e4e5/recall:e7b9",
            "e4e5/recall:e7h9",
            "e4e3",
            "e4e3/recall:e7b9",
            "e4e3/recall:e7h9",
            "e4d4",
            "e4f4",
        ],
    );
    let q = play(&p, "e4e3/recall:e7h9");
    assert_eq!(at(&q, "h9"), Some((North, Sickle, false)));
    assert_eq!(at(&q, "e7"), None);
    assert_eq!(at(&q, "e3"), Some((South, Dial, false)));
}

#[test]
fn dial_recall_may_use_the_square_the_dial_left_and_skips_occupied_starts() {
    // South Dial a9, South Gear i9, North Sword a6, North Mistress i5, South FT e1.
    // Sword starting squares (North): a9 and i9.
    //  a9a8: S line a7, a6 Sword. a9 is empty after the Dial left it -> recall:a6a9;
    //    i9 is occupied (South Gear) -> no. Nothing else in sight from a8.
    //  a9b9: rank 9 east ends on the own Gear, the b-file and c8-i2 diagonal are empty.
    // Total 3.
    let p = pos("clockwork blades D7G/9/9/w8/8m/9/9/9/4F4 s - 0");
    assert_moves_from(&p, "a9", &["a9a8", "a9a8/recall:a6a9", "a9b9"]);
    let q = play(&p, "a9a8/recall:a6a9");
    assert_eq!(at(&q, "a9"), Some((North, Sword, false)));
    assert_eq!(at(&q, "a8"), Some((South, Dial, false)));
    assert_eq!(at(&q, "a6"), None);
}

#[test]
fn dial_cannot_recall_king_dial_or_gear_and_clears_charge() {
    // Dial e4 -> e5. North: FT c7 (NW line), Gear e7 (N line), Dial g7 (NE line), charged
    // Cog f5 (E, adjacent), Cogs b8..h8. South FT e1.
    // Only the Cog may be recalled; Cog starts are a8..i8 (North), empty: a8, i8.
    // So base e4e5: plain + recall:f5a8 + recall:f5i8.
    let p = pos("clockwork clockwork 9/1ccccccc1/2f1g1d2/9/5c3/4D4/9/9/4F4 s f5 0");
    assert_moves_with_base(&p, "e4e5", &["e4e5", "e4e5/recall:f5a8", "e4e5/recall:f5i8"]);
    let q = play(&p, "e4e5/recall:f5i8");
    assert_eq!(at(&q, "i8"), Some((North, Cog, false)), "recall clears the charge");
    assert_eq!(at(&q, "f5"), None);
    for bad in ["e4e5/recall:e7a8", "e4e5/recall:g7a8", "e4e5/recall:c7a8", "e4e5/recall:f5e8"] {
        assert!(matches!(p.play(mv(bad)), Err(IllegalMove::BadAbility { role: Dial, .. })), "{bad}");
    }
}

#[test]
fn dial_capturing_the_king_has_no_recall_variants() {
    // Dial e4, North Mistress e5, North Sword e7, South FT i1.
    // e4e5 captures the king: the game ends, so no ability (§5) although the Sword would
    // be in sight from e5 with a9/i9 empty. From e3 the N line stops on the Mistress,
    // from d4/f4 the diagonals stop on her: no recall anywhere. Moves: e5 e3 d4 f4.
    let p = pos("clockwork blades 9/9/4w4/9/4m4/4D4/9/9/8F s - 0");
    assert_moves_from(&p, "e4", &["e4e5", "e4e3", "e4d4", "e4f4"]);
    assert!(matches!(p.play(mv("e4e5/recall:e7a9")), Err(IllegalMove::BadAbility { .. })));
    assert_eq!(result(&play(&p, "e4e5")), "south wins: king destroyed");
}

// ---------------------------------------------------------------------------------------
// Father Time
// ---------------------------------------------------------------------------------------

#[test]
fn father_time_moves_forward_and_diagonally_forward() {
    // FT e2, open board: d3, f3 (diagonal forward), e3, e4 (1 or 2 straight). No sideways
    // or backward steps.
    let p = pos("clockwork blades 4m4/9/9/9/9/9/9/4F4/9 s - 0");
    assert_moves_from(&p, "e2", &["e2d3", "e2f3", "e2e3", "e2e4"]);
}

#[test]
fn father_time_two_step_needs_the_first_square_empty() {
    // Enemy Dagger on e3: e2e3 captures it, e2e4 impossible (first square not empty).
    let p = pos("clockwork blades 4m4/9/9/9/9/9/4d4/4F4/9 s - 0");
    assert_moves_from(&p, "e2", &["e2d3", "e2f3", "e2e3"]);
    // Friendly Cog on e3, enemy Dagger on e4: neither e3 nor e4.
    let q = pos("clockwork blades 4m4/9/9/9/9/4d4/4C4/4F4/9 s - 0");
    assert_moves_from(&q, "e2", &["e2d3", "e2f3"]);
    // e3 empty, enemy on e4: the 2-square move captures it.
    let r = pos("clockwork blades 4m4/9/9/9/9/4d4/9/4F4/9 s - 0");
    assert_moves_from(&r, "e2", &["e2d3", "e2f3", "e2e3", "e2e4"]);
}

#[test]
fn father_time_timeout_wins_at_once() {
    // FT e8, North Mistress a5. d9, e9, f9 all arrive on rank 9: South wins by Timeout.
    let p = pos("clockwork blades 9/4F4/9/9/m8/9/9/9/9 s - 0");
    assert_moves_from(&p, "e8", &["e8d9", "e8e9", "e8f9"]);
    for m in ["e8d9", "e8e9", "e8f9"] {
        let q = play(&p, m);
        assert_eq!(result(&q), "south wins: timeout", "{m}");
        assert!(q.legal_moves().is_empty());
    }
    // The 2-square move reaches the end row too.
    let r = pos("clockwork blades 9/9/4F4/9/m8/9/9/9/9 s - 0");
    assert_eq!(result(&play(&r, "e7e9")), "south wins: timeout");
}

#[test]
fn north_father_time_times_out_on_rank_1() {
    // North FT e2 moves to e1 (its end row): North wins by Timeout.
    let p = pos("blades clockwork 9/9/9/9/M8/9/9/4f4/9 n - 0");
    assert_moves_from(&p, "e2", &["e2d1", "e2e1", "e2f1"]);
    assert_eq!(result(&play(&p, "e2e1")), "north wins: timeout");
}

#[test]
fn father_time_taking_the_king_on_the_end_row_is_king_destroyed() {
    // FT e8 takes the Mistress on e9: §6 checks "king destroyed" before Timeout.
    let p = pos("clockwork blades 4m4/4F4/9/9/9/9/9/9/9 s - 0");
    assert_eq!(result(&play(&p, "e8e9")), "south wins: king destroyed");
}

// ---------------------------------------------------------------------------------------
// Dagger
// ---------------------------------------------------------------------------------------

#[test]
fn dagger_quiet_moves() {
    // Dagger e3, open board: e4, e5 (1 or 2 forward), d3, f3 (sideways) = 4.
    let p = pos("blades clockwork 4f4/9/9/9/9/9/4D4/9/M8 s - 0");
    assert_moves_from(&p, "e3", &["e3e4", "e3e5", "e3d3", "e3f3"]);
    // Charged: also d4, f4 (diagonally forward) = 6.
    let c = pos("blades clockwork 4f4/9/9/9/9/9/4D4/9/M8 s e3 0");
    assert_moves_from(&c, "e3", &["e3e4", "e3e5", "e3d3", "e3f3", "e3d4", "e3f4"]);
}

#[test]
fn dagger_forward_blocked_by_a_friend() {
    // Dagger e3, South Axe e4, North Cog e5: no forward move (e4 taken), no stab at e5
    // (the square between is not empty). Sideways d3, f3 only.
    let p = pos("blades clockwork 4f4/9/9/9/4c4/4A4/4D4/9/M8 s - 0");
    assert_moves_from(&p, "e3", &["e3d3", "e3f3"]);
}

#[test]
fn dagger_stabs_uncharged() {
    // Dagger e4. North: Cog e6, Pendulum c4, Hands f4, Cog d5, Spring g6; FT i9.
    // Quiet: e5 (forward 1), d4 (sideways). e6 and f4 are occupied: no quiet move there.
    // Stabs: forward 2 -> e6 (e5 empty); sideways 2 -> c4 (d4 empty); sideways 1 -> f4.
    // Diagonal d5/g6: not without charge. Total 5.
    let p = pos("blades clockwork 8f/9/9/4c1s2/3c5/2p1Dh3/9/9/M8 s - 0");
    assert_moves_from(&p, "e4", &["e4e5", "e4d4", "e4e6", "e4c4", "e4f4"]);
}

#[test]
fn dagger_stabs_charged_add_diagonals() {
    // Same position, Dagger charged. Adds: quiet f5 (diagonal forward), stab d5 (diagonal,
    // distance 1), stab g6 (diagonal, distance 2, f5 empty). c6 is behind d5: no.
    // Total 8.
    let p = pos("blades clockwork 8f/9/9/4c1s2/3c5/2p1Dh3/9/9/M8 s e4 0");
    assert_moves_from(&p, "e4", &["e4e5", "e4d4", "e4e6", "e4c4", "e4f4", "e4d5", "e4f5", "e4g6"]);
}

#[test]
fn dagger_retreats_after_stabbing() {
    // §4: after a distance-1 stab it stays; after a distance-2 stab it ends on the square
    // between. Position as in dagger_stabs_uncharged.
    let p = pos("blades clockwork 8f/9/9/4c1s2/3c5/2p1Dh3/9/9/M8 s - 0");
    // e4e6: Cog e6 taken, Dagger ends on e5 -> its own move ended on the field: charged.
    let q = play(&p, "e4e6");
    assert_eq!(at(&q, "e6"), None);
    assert_eq!(at(&q, "e4"), None);
    assert_eq!(at(&q, "e5"), Some((South, Dagger, true)));
    // e4c4: Pendulum taken, Dagger on d4, not charged.
    let q = play(&p, "e4c4");
    assert_eq!(at(&q, "c4"), None);
    assert_eq!(at(&q, "e4"), None);
    assert_eq!(at(&q, "d4"), Some((South, Dagger, false)));
    // e4f4: Hands taken, Dagger stays on e4.
    let q = play(&p, "e4f4");
    assert_eq!(at(&q, "f4"), None);
    assert_eq!(at(&q, "e4"), Some((South, Dagger, false)));
    // Charged e4g6: Spring taken, Dagger on f5; charged e4d5: stays on e4.
    let c = pos("blades clockwork 8f/9/9/4c1s2/3c5/2p1Dh3/9/9/M8 s e4 0");
    let q = play(&c, "e4g6");
    assert_eq!(at(&q, "g6"), None);
    assert_eq!(at(&q, "f5"), Some((South, Dagger, true)));
    let q = play(&c, "e4d5");
    assert_eq!(at(&q, "d5"), None);
    assert_eq!(at(&q, "e4"), Some((South, Dagger, true)));
}

#[test]
fn dagger_charging_arrival_vs_passing_over_the_field() {
    // Dagger e3 -> e5 (two squares) ends on the field: charged.
    let p = pos("blades clockwork 4f4/9/9/9/9/9/4D4/9/M8 s - 0");
    assert_eq!(at(&play(&p, "e3e5"), "e5"), Some((South, Dagger, true)));
    // Dagger e4 -> e6 passes over e5: not charged (§3 "Passing over the field does not
    // charge").
    let q = pos("blades clockwork 4f4/9/9/9/9/4D4/9/9/M8 s - 0");
    assert_eq!(at(&play(&q, "e4e6"), "e6"), Some((South, Dagger, false)));
    // A distance-1 sideways stab from e5 "ends" on e5: the move ended on the field.
    let r = pos("blades clockwork 4f4/9/9/9/4Dc3/9/9/9/M8 s - 0");
    let s = play(&r, "e5f5");
    assert_eq!(at(&s, "f5"), None);
    assert_eq!(at(&s, "e5"), Some((South, Dagger, true)));
}

#[test]
fn north_dagger_moves_towards_rank_1() {
    // North Dagger e7: e6, e5 (forward = down), d7, f7. With a South Cog on e5 the
    // 2-forward becomes a stab, retreating to e6.
    let p = pos("clockwork blades 4m4/9/4d4/9/9/9/9/9/4F4 n - 0");
    assert_moves_from(&p, "e7", &["e7e6", "e7e5", "e7d7", "e7f7"]);
    let q = pos("clockwork blades 4m4/9/4d4/9/4C4/9/9/9/4F4 n - 0");
    assert_moves_from(&q, "e7", &["e7e6", "e7e5", "e7d7", "e7f7"]);
    let r = play(&q, "e7e5");
    assert_eq!(at(&r, "e5"), None);
    assert_eq!(at(&r, "e6"), Some((North, Dagger, false)));
}

#[test]
fn dagger_assassinates_after_quiet_arrival_on_end_row() {
    // Dagger e8; North FT a5, Cog c3, Pendulum h7. e8e9 is a non-capturing arrival on
    // rank 9: assassinate c3 or h7 (not the king: other enemy pieces remain).
    // Sideways d8, f8 (rank 8: no arrival). Total 5.
    let p = pos("blades clockwork 9/4D4/7p1/9/f8/9/2c6/9/M8 s - 0");
    assert_moves_from(&p, "e8", &["e8e9", "e8e9/assassinate:c3", "e8e9/assassinate:h7", "e8d8", "e8f8"]);
    let q = play(&p, "e8e9/assassinate:h7");
    assert_eq!(at(&q, "h7"), None);
    assert_eq!(at(&q, "e9"), Some((South, Dagger, false)));
    assert!(matches!(p.play(mv("e8e9/assassinate:a5")), Err(IllegalMove::BadAbility { role: Dagger, .. })));
}

#[test]
fn charged_dagger_assassinates_after_diagonal_arrival() {
    // Charged Dagger e8, North FT a5 and Cog c3: e9, d9, f9 each arrive on rank 9 without
    // capturing -> each with assassinate:c3. Plus d8, f8. Total 3*2 + 2 = 8.
    let p = pos("blades clockwork 9/4D4/9/9/f8/9/2c6/9/M8 s e8 0");
    assert_moves_from(
        &p,
        "e8",
        &[
            "e8e9",
            "e8e9/assassinate:c3",
            "e8d9",
            "e8d9/assassinate:c3",
            "e8f9",
            "e8f9/assassinate:c3",
            "e8d8",
            "e8f8",
        ],
    );
}

#[test]
fn dagger_may_assassinate_the_king_when_it_is_the_only_enemy_piece() {
    // North has only its FT (a5): e8e9/assassinate:a5 is allowed and wins.
    let p = pos("blades clockwork 9/4D4/9/9/f8/9/9/9/M8 s - 0");
    assert_moves_from(&p, "e8", &["e8e9", "e8e9/assassinate:a5", "e8d8", "e8f8"]);
    assert_eq!(result(&play(&p, "e8e9/assassinate:a5")), "south wins: king destroyed");
}

#[test]
fn dagger_stab_never_assassinates() {
    // Dagger e8, North Cog e9: e8e9 is a distance-1 stab (capture): no assassinate, and
    // the Dagger stays on e8. Sideways d8, f8. Total 3.
    let p = pos("blades clockwork 4c4/4D4/9/9/f8/9/9/9/M8 s - 0");
    assert_moves_from(&p, "e8", &["e8e9", "e8d8", "e8f8"]);
    let q = play(&p, "e8e9");
    assert_eq!(at(&q, "e9"), None);
    assert_eq!(at(&q, "e8"), Some((South, Dagger, false)));
}

#[test]
fn dagger_already_on_end_row_does_not_arrive_again() {
    // Dagger on e9 (placed there): forward leaves the board; d9, f9 sideways stay on the
    // end row without arriving (§3): no assassinate variants. Total 2.
    let p = pos("blades clockwork 4D4/9/9/9/f8/9/2c6/9/M8 s - 0");
    assert_moves_from(&p, "e9", &["e9d9", "e9f9"]);
}

// ---------------------------------------------------------------------------------------
// Axe
// ---------------------------------------------------------------------------------------

#[test]
fn axe_steps_orthogonally_and_slashes_both_sides() {
    // Axe e4; North Cog d6, South Dagger f6, South Mistress a1, North FT i9.
    // Steps e5, e3, d4, f4. Slash after e5: d6/e6/f6 hold two pieces, no own Mistress ->
    // allowed. After e3 (d4, e4 vacated, f4), d4 (c5 d5 e5), f4 (e5 f5 g5): nothing
    // ahead -> no slash. Total 5.
    let p = pos("blades clockwork 8f/9/9/3c1D3/9/4A4/9/9/M8 s - 0");
    assert_moves_from(&p, "e4", &["e4e5", "e4e5/slash", "e4e3", "e4d4", "e4f4"]);
    let q = play(&p, "e4e5/slash");
    assert_eq!(at(&q, "d6"), None, "enemy destroyed");
    assert_eq!(at(&q, "f6"), None, "own Dagger destroyed too");
    assert_eq!(at(&q, "e5"), Some((South, Axe, false)));
    assert!(matches!(p.play(mv("e4d4/slash")), Err(IllegalMove::BadAbility { role: Axe, .. })));
}

#[test]
fn axe_never_slashes_with_own_mistress_ahead() {
    // As above but the South Mistress stands on f6: no slash after e5 although the North
    // Cog on d6 is ahead too.
    let p = pos("blades clockwork 8f/9/9/3c1M3/9/4A4/9/9/9 s - 0");
    assert_moves_from(&p, "e4", &["e4e5", "e4e3", "e4d4", "e4f4"]);
    assert!(matches!(p.play(mv("e4e5/slash")), Err(IllegalMove::BadAbility { role: Axe, .. })));
}

#[test]
fn north_axe_slashes_towards_rank_1_and_can_kill_the_king() {
    // North Axe e6, North Mistress a9, South FT e4. Steps e7, e5, d6, f6.
    // After e5 the squares ahead (for North: rank 4) d4 e4 f4 hold the FT -> slash.
    // After e7: d6, e6 (vacated), f6 empty. After d6: c5 d5 e5. After f6: e5 f5 g5.
    let p = pos("clockwork blades m8/9/9/4a4/9/4F4/9/9/9 n - 0");
    assert_moves_from(&p, "e6", &["e6e7", "e6e5", "e6e5/slash", "e6d6", "e6f6"]);
    assert_eq!(result(&play(&p, "e6e5/slash")), "north wins: king destroyed");
}

// ---------------------------------------------------------------------------------------
// Sickle, Sabres, Sword
// ---------------------------------------------------------------------------------------

#[test]
fn sickle_leaps_sixteen_ways() {
    // Sickle e5 surrounded by South Swords on all 8 neighbours (a leap ignores them),
    // South Sword on f7 (blocks that target), North Torch b4 (captured).
    // Offsets (+-1,+-2): f7 f3 d7 d3; (+-2,+-1): g6 g4 c6 c4; (+-1,+-3): f8 f2 d8 d2;
    // (+-3,+-1): h6 h4 b6 b4. 16 minus f7 = 15.
    let p = pos("blades axiom 8s/9/5W3/3WWW3/3WKW3/1t1WWW3/9/9/M8 s - 0");
    assert_moves_from(
        &p,
        "e5",
        &[
            "e5f3", "e5d7", "e5d3", "e5g6", "e5g4", "e5c6", "e5c4", "e5f8", "e5f2", "e5d8", "e5d2", "e5h6",
            "e5h4", "e5b6", "e5b4",
        ],
    );
}

#[test]
fn sabres_slide_up_to_five_diagonally() {
    // Sabres b2, Mistress e1, Scientist e9. NE c3 d4 e5 f6 g7 (not h8, i9: > 5),
    // NW a3, SE c1, SW a1. Total 8.
    let p = pos("blades axiom 4s4/9/9/9/9/9/9/1B7/4M4 s - 0");
    assert_moves_from(&p, "b2", &["b2c3", "b2d4", "b2e5", "b2f6", "b2g7", "b2a3", "b2c1", "b2a1"]);
}

#[test]
fn sabres_blocked_and_capture() {
    // Sabres e5; South Axe g7, North Torch c3. NE f6 (g7 friend); NW d6 c7 b8 a9;
    // SE f4 g3 h2 i1; SW d4, c3 (capture). Total 1 + 4 + 4 + 2 = 11.
    let p = pos("blades axiom 4s4/9/6A2/9/4B4/9/2t6/9/4M4 s - 0");
    assert_moves_from(
        &p,
        "e5",
        &["e5f6", "e5d6", "e5c7", "e5b8", "e5a9", "e5f4", "e5g3", "e5h2", "e5i1", "e5d4", "e5c3"],
    );
}

#[test]
fn sword_slides_up_to_five_orthogonally() {
    // Sword a1, Mistress i1, Scientist i9. N a2..a6, E b1..f1 (g1, h1 are 6, 7 away).
    // Total 10.
    let p = pos("blades axiom 8s/9/9/9/9/9/9/9/W7M s - 0");
    assert_moves_from(
        &p,
        "a1",
        &["a1a2", "a1a3", "a1a4", "a1a5", "a1a6", "a1b1", "a1c1", "a1d1", "a1e1", "a1f1"],
    );
}

#[test]
fn sword_blocked_and_capture() {
    // Sword e5; North Torch e7, South Axe e2, Mistress a1, Scientist i9.
    // N e6, e7 (capture); S e4, e3; E f5 g5 h5 i5; W d5 c5 b5 a5. Total 12.
    let p = pos("blades axiom 8s/9/4t4/9/4W4/9/9/4A4/M8 s - 0");
    assert_moves_from(
        &p,
        "e5",
        &["e5e6", "e5e7", "e5e4", "e5e3", "e5f5", "e5g5", "e5h5", "e5i5", "e5d5", "e5c5", "e5b5", "e5a5"],
    );
}

// ---------------------------------------------------------------------------------------
// The Mistress
// ---------------------------------------------------------------------------------------

#[test]
fn charged_mistress_sidesteps_after_a_capture() {
    // Charged Mistress e4; North Cog e5 and f6, South Dagger d6, North FT i9.
    // Steps: d3 e3 f3 d4 f4 d5 f5 (empty) + e5 (capture) = 8.
    // After e4e5 (a capture) she may sidestep to an empty neighbour of e5:
    // d4 e4 (just left) f4 d5 f5 e6 -- not d6 (friend) nor f6 (enemy: must be empty).
    // Total 8 + 6 = 14. No sidestep after a non-capturing step.
    let p = pos("blades clockwork 8f/9/9/3D1c3/4c4/4M4/9/9/9 s e4 0");
    assert_moves_from(
        &p,
        "e4",
        &[
            "e4d3",
            "e4e3",
            "e4f3",
            "e4d4",
            "e4f4",
            "e4d5",
            "e4f5",
            "e4e5",
            "e4e5/sidestep:d4",
            "e4e5/sidestep:e4",
            "e4e5/sidestep:f4",
            "e4e5/sidestep:d5",
            "e4e5/sidestep:f5",
            "e4e5/sidestep:e6",
        ],
    );
    let q = play(&p, "e4e5/sidestep:e6");
    assert_eq!(at(&q, "e5"), None);
    assert_eq!(at(&q, "e6"), Some((South, Mistress, true)));
}

#[test]
fn mistress_charged_by_this_capture_cannot_sidestep() {
    // Same position, Mistress not charged. e4e5 captures onto the field and charges her,
    // but the charge held at the start of the turn counts (§3): no sidestep. 8 moves.
    let p = pos("blades clockwork 8f/9/9/3D1c3/4c4/4M4/9/9/9 s - 0");
    assert_moves_from(&p, "e4", &["e4d3", "e4e3", "e4f3", "e4d4", "e4f4", "e4d5", "e4f5", "e4e5"]);
    let q = play(&p, "e4e5");
    assert_eq!(at(&q, "e5"), Some((South, Mistress, true)));
    assert!(matches!(p.play(mv("e4e5/sidestep:e6")), Err(IllegalMove::BadAbility { role: Mistress, .. })));
}

#[test]
fn mistress_taking_the_king_has_no_sidestep() {
    // Charged Mistress e4 takes North FT e5: the game ends, no ability variants (§5).
    let p = pos("blades clockwork 9/9/9/9/4f4/4M4/9/9/9 s e4 0");
    assert_moves_from(&p, "e4", &["e4d3", "e4e3", "e4f3", "e4d4", "e4f4", "e4d5", "e4e5", "e4f5"]);
    assert_eq!(result(&play(&p, "e4e5")), "south wins: king destroyed");
}

// ---------------------------------------------------------------------------------------
// Phial
// ---------------------------------------------------------------------------------------

#[test]
fn phial_moves_forward_one_or_two() {
    // Phial e3, open e-file: e4, e5. Nothing sideways without charge.
    let p = pos("axiom blades 4m4/9/9/9/9/9/4P4/9/4S4 s - 0");
    assert_moves_from(&p, "e3", &["e3e4", "e3e5"]);
    // North Dagger on e4: capture e4; e5 impossible (first square not empty).
    let q = pos("axiom blades 4m4/9/9/9/9/4d4/4P4/9/4S4 s - 0");
    assert_moves_from(&q, "e3", &["e3e4"]);
}

#[test]
fn charged_phial_also_moves_sideways() {
    // Charged Phial e3; North Daggers e5 and d3, South Torch f3.
    // e4 (empty), e5 (2 forward, capture, e4 empty), d3 (sideways capture); f3 friend.
    let p = pos("axiom blades 4m4/9/9/9/4d4/9/3dPT3/9/4S4 s e3 0");
    assert_moves_from(&p, "e3", &["e3e4", "e3e5", "e3d3"]);
}

#[test]
fn phial_charging() {
    let p = pos("axiom blades 4m4/9/9/9/9/9/4P4/9/4S4 s - 0");
    // e3e5 ends on the field: charged.
    assert_eq!(at(&play(&p, "e3e5"), "e5"), Some((South, Phial, true)));
    // e4e6 passes over e5: not charged.
    let q = pos("axiom blades 4m4/9/9/9/9/4P4/9/9/4S4 s - 0");
    assert_eq!(at(&play(&q, "e4e6"), "e6"), Some((South, Phial, false)));
}

#[test]
fn phial_detonates_on_end_row_within_three_squares() {
    // Phial e8 -> e9 (its only move). Blast: every square within Chebyshev 3 of e9,
    // i.e. files b..h, ranks 6..9.
    //  destroyed: South Magnet c8 (2), North Axe b6 (3), North Sickle h6 (3), the Phial.
    //  survive : North Sword a9 (4), North Mistress i9 (4), North Dagger e5 (4),
    //            South Scientist h5 (4).
    let p = pos("axiom blades w7m/2M1P4/9/1a5k1/4d2S1/9/9/9/9 s - 0");
    assert_moves_from(&p, "e8", &["e8e9"]);
    let q = play(&p, "e8e9");
    for gone in ["e9", "e8", "c8", "b6", "h6"] {
        assert_eq!(at(&q, gone), None, "{gone}");
    }
    assert_eq!(at(&q, "a9"), Some((North, Sword, false)));
    assert_eq!(at(&q, "i9"), Some((North, Mistress, false)));
    assert_eq!(at(&q, "e5"), Some((North, Dagger, false)));
    assert_eq!(at(&q, "h5"), Some((South, Scientist, false)));
    assert_eq!(result(&q), "ongoing");
    assert_eq!(iapn::format(&q), "axiom blades w7m/9/9/9/4d2S1/9/9/9/9 n - 1");
}

#[test]
fn phial_detonates_when_capturing_onto_end_row() {
    // Phial e7: e8 (1 forward), e9 (2 forward, capturing the North Sword; e8 empty).
    // e7e9 arrives on rank 9 by capturing: it explodes; Mistress a5 is 4 away and
    // survives.
    let p = pos("axiom blades 4w4/9/4P4/9/m8/9/9/9/4S4 s - 0");
    assert_moves_from(&p, "e7", &["e7e8", "e7e9"]);
    let q = play(&p, "e7e9");
    assert_eq!(at(&q, "e9"), None);
    assert_eq!(at(&q, "a5"), Some((North, Mistress, false)));
}

#[test]
fn phial_detonation_kills_enemy_king() {
    // Mistress g9 is 2 from e9.
    let p = pos("axiom blades 6m2/4P4/9/9/9/9/9/9/4S4 s - 0");
    assert_eq!(result(&play(&p, "e8e9")), "south wins: king destroyed");
    // North Phial d2 -> d1: South Mistress a1 is 3 away.
    let q = pos("blades axiom 4s4/9/9/9/9/9/9/3p5/M8 n - 0");
    assert_moves_from(&q, "d2", &["d2d1"]);
    assert_eq!(result(&play(&q, "d2d1")), "north wins: king destroyed");
}

#[test]
fn phial_may_not_detonate_own_scientist() {
    // Phial e8, own Scientist b6: distance max(3, 3) = 3 -> e8e9 would destroy it: illegal.
    let p = pos("axiom blades 8m/4P4/9/1S7/9/9/9/9/9 s - 0");
    assert_moves_from(&p, "e8", &[]);
    assert!(matches!(p.play(mv("e8e9")), Err(IllegalMove::DestroysOwnKing { role: Phial, .. })));
}

/// Regression: any refused Phial move onto its end row near its own Scientist was
/// reported as "would destroy its own king-piece", even one its movement cannot make
/// (too far, or blocked by a friend), whose reason is the movement.
#[test]
fn an_impossible_phial_move_near_the_own_scientist_is_a_bad_base_move() {
    // Phial a2, Scientist d7 (3 from a9 and b9): neither square is a Phial move away.
    let p = pos("axiom blades 8m/9/3S5/9/9/9/9/P8/9 s - 0");
    for m in ["a2a9", "a2b9"] {
        assert!(matches!(p.play(mv(m)), Err(IllegalMove::BadBaseMove { role: Phial, .. })), "{m}");
    }
    // Phial c8 under its own Torch on c9 (Scientist d7): the step is blocked.
    let q = pos("axiom blades 2T6/2P6/3S5/9/9/9/9/9/8m s - 0");
    assert!(matches!(q.play(mv("c8c9")), Err(IllegalMove::BadBaseMove { role: Phial, .. })));
    // Phial c7 behind its own Torch on c8 (Scientist d6): no two-square step over it.
    let r = pos("axiom blades 9/2T6/2P6/3S5/9/9/9/9/8m s - 0");
    assert!(matches!(r.play(mv("c7c9")), Err(IllegalMove::BadBaseMove { role: Phial, .. })));
    // Two squares over an empty one onto the end row, 3 from the Scientist b6: detonation.
    let d = pos("axiom blades 9/9/2P6/1S7/9/9/9/9/8m s - 0");
    assert!(matches!(d.play(mv("c7c9")), Err(IllegalMove::DestroysOwnKing { role: Phial, .. })));
}

#[test]
fn phial_on_end_row_moving_along_it_does_not_detonate() {
    // Charged South Phial on e9 (placed there): forward leaves the board; sideways d9, f9.
    // It does not arrive again (§3), so no blast: the Mistress i9 (3 from f9) survives.
    let p = pos("axiom blades 4P3m/9/9/9/9/9/9/9/4S4 s e9 0");
    assert_moves_from(&p, "e9", &["e9d9", "e9f9"]);
    let q = play(&p, "e9f9");
    assert_eq!(at(&q, "f9"), Some((South, Phial, true)));
    assert_eq!(at(&q, "i9"), Some((North, Mistress, false)));
}

// ---------------------------------------------------------------------------------------
// Magnet
// ---------------------------------------------------------------------------------------

#[test]
fn magnet_attract_targets() {
    // Magnet e4 -> e5. Lines from e5:
    //  N : e6 empty, e7 North Dagger (charged), distance 2 -> yes
    //  NE: f6 North Axe, distance 1 -> no
    //  E : f5 g5 empty, h5 own Scientist, distance 3 -> yes (own Scientist included)
    //  SE: empty to i1
    //  S : e4 (vacated), e3 empty, e2 own Phial, distance 3 -> yes
    //  SW: d4 empty, c3 North Mistress (enemy king) -> no
    //  W : d5 empty, c5 North Dagger (uncharged), distance 2 -> yes
    //  NW: d6 empty, c7 own Torch, distance 2 -> yes
    let p = pos("axiom blades 9/9/2T1d4/5a3/2d4S1/4M4/2m6/4P4/9 s e7 0");
    assert_moves_with_base(
        &p,
        "e4e5",
        &[
            "e4e5",
            "e4e5/attract:e7",
            "e4e5/attract:h5",
            "e4e5/attract:e2",
            "e4e5/attract:c5",
            "e4e5/attract:c7",
        ],
    );
    for bad in ["e4e5/attract:f6", "e4e5/attract:c3", "e4e5/attract:i1"] {
        assert!(matches!(p.play(mv(bad)), Err(IllegalMove::BadAbility { role: Magnet, .. })), "{bad}");
    }
}

#[test]
fn magnet_pulled_pieces_keep_charge_and_get_no_arrival_effects() {
    let p = pos("axiom blades 9/9/2T1d4/5a3/2d4S1/4M4/2m6/4P4/9 s e7 0");
    // The charged Dagger slides from e7 to e6 and stays charged.
    let q = play(&p, "e4e5/attract:e7");
    assert_eq!(at(&q, "e7"), None);
    assert_eq!(at(&q, "e6"), Some((North, Dagger, true)));
    // The uncharged Dagger c5 lands on d5 (the field): being pulled does not charge.
    let q = play(&p, "e4e5/attract:c5");
    assert_eq!(at(&q, "c5"), None);
    assert_eq!(at(&q, "d5"), Some((North, Dagger, false)));
    // The own Scientist h5 is pulled to f5; the own Phial e2 to e4.
    let q = play(&p, "e4e5/attract:h5");
    assert_eq!(at(&q, "f5"), Some((South, Scientist, false)));
    assert_eq!(q.king(South), Some(sq("f5")));
    let q = play(&p, "e4e5/attract:e2");
    assert_eq!(at(&q, "e4"), Some((South, Phial, false)));
    assert_eq!(at(&q, "e2"), None);
}

#[test]
fn magnet_taking_the_king_has_no_attract() {
    // Magnet e4 takes the Mistress on e5; the Dagger on e7 would otherwise be pullable.
    let p = pos("axiom blades 9/9/4d4/9/4m4/4M4/9/9/S8 s - 0");
    assert_moves_with_base(&p, "e4e5", &["e4e5"]);
}

// ---------------------------------------------------------------------------------------
// Torch
// ---------------------------------------------------------------------------------------

#[test]
fn torch_burns_an_adjacent_enemy() {
    // Torch e4 -> e5. Neighbours of e5: d6 North Dagger (burnable), f6 North Mistress
    // (burnable: king included), f5 own Phial (no), the rest empty. North Dagger d3 is
    // adjacent to e4 but not to e5: not burnable after e4e5.
    let p = pos("axiom blades 9/9/9/3d1m3/5P3/4T4/3d5/9/S8 s - 0");
    assert_moves_with_base(&p, "e4e5", &["e4e5", "e4e5/burn:d6", "e4e5/burn:f6"]);
    let q = play(&p, "e4e5/burn:d6");
    assert_eq!(at(&q, "d6"), None);
    assert_eq!(result(&play(&p, "e4e5/burn:f6")), "south wins: king destroyed");
    assert!(matches!(p.play(mv("e4e5/burn:d3")), Err(IllegalMove::BadAbility { role: Torch, .. })));
    assert!(matches!(p.play(mv("e4e5/burn:f5")), Err(IllegalMove::BadAbility { role: Torch, .. })));
}

#[test]
fn torch_steps_in_eight_directions_and_capturing_the_king_has_no_burn() {
    // Torch e4, North Mistress e5, North Dagger d6. 8 neighbours of e4 are reachable
    // (e5 a capture). e4e5 ends the game: no burn:d6.
    let p = pos("axiom blades 9/9/9/3d5/4m4/4T4/9/9/S8 s - 0");
    assert_moves_with_base(&p, "e4e5", &["e4e5"]);
    let from = moves_from(&p, "e4");
    for t in ["d3", "e3", "f3", "d4", "f4", "d5", "e5", "f5"] {
        assert!(from.contains(&format!("e4{t}")), "e4{t}");
    }
}

// ---------------------------------------------------------------------------------------
// Scales
// ---------------------------------------------------------------------------------------

#[test]
fn scales_slide_quietly_and_capture_by_leaping_one_screen() {
    // Scales e5. South: Torch e7, Torch d5, Magnet c5, Scientist a1.
    // North: Pendulum e9, Cog e4, Hands e2, Gear g5, Cog b5, FT i8.
    //  N: e6 quiet; e7 (own) is the one screen, e8 empty, e9 enemy -> capture e9.
    //  S: e4 (enemy) adjacent: no slide; it is the screen, e3 empty, e2 enemy -> e2.
    //  E: f5 quiet; g5 enemy met by slide: no capture; g5 as screen, h5 i5 empty: none.
    //  W: d5 own adjacent; two pieces (d5, c5) before b5 -> no capture.
    // Total 4: e6, f5 quiet; e9, e2 captures.
    let p = pos("axiom clockwork 4p4/8f/4T4/9/1cMTB1g2/4c4/9/4h4/S8 s - 0");
    assert_moves_from(&p, "e5", &["e5e6", "e5e9", "e5e2", "e5f5"]);
    let q = play(&p, "e5e9");
    assert_eq!(at(&q, "e9"), Some((South, Scales, false)));
    assert_eq!(at(&q, "e7"), Some((South, Torch, false)), "the screen stays");
    assert_eq!(at(&q, "e5"), None);
    let q = play(&p, "e5e2");
    assert_eq!(at(&q, "e2"), Some((South, Scales, false)));
    assert_eq!(at(&q, "e4"), Some((North, Cog, false)), "an enemy screen stays");
    assert!(matches!(p.play(mv("e5g5")), Err(IllegalMove::BadBaseMove { role: Scales, .. })));
}

#[test]
fn scales_slide_any_distance_orthogonally() {
    // Scales a1 (Scientist i2, Mistress i9): a2..a9 and b1..i1 all empty = 16.
    // No diagonal moves.
    let p = pos("axiom blades 8m/9/9/9/9/9/9/8S/B8 s - 0");
    assert_moves_from(
        &p,
        "a1",
        &[
            "a1a2", "a1a3", "a1a4", "a1a5", "a1a6", "a1a7", "a1a8", "a1a9", "a1b1", "a1c1", "a1d1", "a1e1",
            "a1f1", "a1g1", "a1h1", "a1i1",
        ],
    );
}

// ---------------------------------------------------------------------------------------
// Telescope, Scientist
// ---------------------------------------------------------------------------------------

#[test]
fn telescope_slides_at_least_three() {
    // Telescope e5, Scientist b1, Mistress h9 (off its lines). Each of the 8 lines has 4
    // squares; distances 3 and 4 only: e8 e9 e2 e1 h5 i5 b5 a5 h8 i9 b8 a9 h2 i1 b2 a1.
    let p = pos("axiom blades 7m1/9/9/9/4L4/9/9/9/1S7 s - 0");
    assert_moves_from(
        &p,
        "e5",
        &[
            "e5e8", "e5e9", "e5e2", "e5e1", "e5h5", "e5i5", "e5b5", "e5a5", "e5h8", "e5i9", "e5b8", "e5a9",
            "e5h2", "e5i1", "e5b2", "e5a1",
        ],
    );
}

#[test]
fn telescope_blocked_and_capture() {
    // Telescope e5. North Dagger e7 (distance 2: blocks N entirely), North Axe h5
    // (distance 3: captured, i5 behind it unreachable), own Torch c3 (distance 2: blocks
    // SW), own Magnet b8 (distance 3: NW has no move). Scientist b1, Mistress h9.
    // S e2 e1; E h5; W b5 a5; NE h8 i9; SE h2 i1 = 9.
    let p = pos("axiom blades 7m1/1M7/4d4/9/4L2a1/9/2T6/9/1S7 s - 0");
    assert_moves_from(&p, "e5", &["e5e2", "e5e1", "e5h5", "e5b5", "e5a5", "e5h8", "e5i9", "e5h2", "e5i1"]);
}

#[test]
fn scientist_steps_orthogonally_and_never_captures() {
    // Scientist e5, North Dagger d5, own Torch f5: e6, e4 only (no diagonals, no capture).
    let p = pos("axiom blades 4m4/9/9/9/3dST3/9/9/9/9 s - 0");
    assert_moves_from(&p, "e5", &["e5e6", "e5e4"]);
    // Not even the enemy king next to it.
    let q = pos("axiom blades 9/9/9/9/3mST3/9/9/9/9 s - 0");
    assert_moves_from(&q, "e5", &["e5e6", "e5e4"]);
    assert!(matches!(q.play(mv("e5d5")), Err(IllegalMove::BadBaseMove { role: Scientist, .. })));
}

// ---------------------------------------------------------------------------------------
// End of the game
// ---------------------------------------------------------------------------------------

#[test]
fn capturing_the_king_wins_and_ends_the_game() {
    // Gear e4 takes the Mistress on e5.
    let p = pos("clockwork blades 9/9/9/9/4m4/4G4/9/9/4F4 s - 0");
    assert_eq!(result(&p), "ongoing");
    let q = play(&p, "e4e5");
    assert_eq!(result(&q), "south wins: king destroyed");
    assert!(q.legal_moves().is_empty());
    assert!(matches!(q.play(mv("e1e2")), Err(IllegalMove::GameOver(_))));
}

#[test]
fn spring_recoil_capture_of_the_king() {
    // Spring a1, North Mistress a8, South FT e1. Every recoil from a1 needs the square
    // behind it in the opposite direction (a0, z1 or z0 for N, E, NE): none exists, and
    // the other five directions leave the board at once. So steps only: a2, b1, b2.
    let p = pos("clockwork blades 9/m8/9/9/9/9/9/9/S3F4 s - 0");
    assert_moves_from(&p, "a1", &["a1a2", "a1b1", "a1b2"]);
    // Spring a2 (behind a1 empty) recoils north to the Mistress on a8 and wins.
    let q = pos("clockwork blades 9/m8/9/9/9/9/9/S8/4F4 s - 0");
    assert!(moves_from(&q, "a2").contains("a2a8"));
    assert_eq!(result(&play(&q, "a2a8")), "south wins: king destroyed");
}

#[test]
fn third_repetition_loses_for_the_mover() {
    // Mistresses shuffle e1-d1 / e9-d9. The start recurs after plies 4 and 8; ply 8 is
    // North's d9e9, the third occurrence: North (the mover) loses.
    let start = pos("blades blades 4m4/9/9/9/9/9/9/9/4M4 s - 0");
    let mut g = Game::new(start);
    let cycle = ["e1d1", "e9d9", "d1e1", "d9e9"];
    for m in cycle.iter().chain(cycle[..3].iter()) {
        assert_eq!(g.play(mv(m)).expect("legal"), None, "{m}");
    }
    let o = g.play(mv("d9e9")).expect("legal");
    assert_eq!(result_text(o), "south wins: repetition");
    assert!(g.legal_moves().is_empty());
    assert!(matches!(g.play(mv("e1d1")), Err(IllegalMove::GameOver(_))));
    // The position alone (no history) is not over.
    assert_eq!(result(g.position()), "ongoing");
}

#[test]
fn third_repetition_by_south_loses_for_south() {
    // North moves first; the start recurs after plies 4 and 8, ply 8 being South's d1e1.
    let start = pos("blades blades 4m4/9/9/9/9/9/9/9/4M4 n - 0");
    let mut g = Game::new(start);
    let cycle = ["e9d9", "e1d1", "d9e9", "d1e1"];
    for m in cycle.iter().chain(cycle[..3].iter()) {
        assert_eq!(g.play(mv(m)).expect("legal"), None, "{m}");
    }
    assert_eq!(result_text(g.play(mv("d1e1")).expect("legal")), "north wins: repetition");
}

#[test]
fn ply_160_is_a_draw() {
    // At ply 159 any quiet move makes 160 plies: draw.
    let p = pos("blades blades 4m4/9/9/9/9/9/9/9/4M4 s - 159");
    let q = play(&p, "e1d1");
    assert_eq!(q.ply(), 160);
    assert_eq!(result(&q), "draw: 160 plies");
    assert!(q.legal_moves().is_empty());
    // A king capture on the 160th ply is a win (checked first).
    let r = pos("blades blades 9/9/9/9/9/9/9/4m4/4M4 s - 159");
    assert_eq!(result(&play(&r, "e1e2")), "south wins: king destroyed");
    // A parsed ply-160 position is already drawn.
    let s = pos("blades blades 4m4/9/9/9/9/9/9/9/4M4 s - 160");
    assert_eq!(result(&s), "draw: 160 plies");
    assert!(s.legal_moves().is_empty());
}

#[test]
fn side_without_legal_moves_loses() {
    // South has only its Scientist on a1; a2 and b1 hold North Daggers (the Scientist
    // cannot capture): South, to move, has no legal move and loses.
    let p = pos("axiom blades 4m4/9/9/9/9/9/9/d8/Sd7 s - 0");
    assert!(p.legal_moves().is_empty());
    assert_eq!(result(&p), "north wins: no legal moves");
    // Reached by play: North Dagger a3 -> a2 shuts the Scientist in.
    let q = pos("axiom blades 4m4/9/9/9/9/9/d8/9/Sd7 n - 0");
    let r = play(&q, "a3a2");
    assert_eq!(result(&r), "north wins: no legal moves");
    let mut g = Game::new(q);
    assert_eq!(result_text(g.play(mv("a3a2")).expect("legal")), "north wins: no legal moves");
}

#[test]
fn finished_positions_list_no_moves() {
    // North has no king-piece: South has won.
    let a = pos("clockwork axiom 9/9/9/9/9/9/9/9/4F4 s - 0");
    assert_eq!(result(&a), "south wins: king destroyed");
    assert!(a.legal_moves().is_empty());
    assert!(matches!(a.play(mv("e1e2")), Err(IllegalMove::GameOver(_))));
    // Father Time on its end row: South has won by Timeout.
    let b = pos("clockwork blades 4F4/9/9/9/m8/9/9/9/9 n - 0");
    assert_eq!(result(&b), "south wins: timeout");
    assert!(b.legal_moves().is_empty());
    assert!(Game::new(b).legal_moves().is_empty());
}

// ---------------------------------------------------------------------------------------
// Errors of Position::play
// ---------------------------------------------------------------------------------------

#[test]
fn play_errors_are_typed() {
    // South: Cog e2, FT e1. North: Cog e8, FT e9. South to move.
    let p = pos("clockwork clockwork 4f4/4c4/9/9/9/9/9/4C4/4F4 s - 0");
    assert!(matches!(p.play(mv("e8d7")), Err(IllegalMove::NotYourPiece { .. })));
    assert!(matches!(p.play(mv("a5a6")), Err(IllegalMove::EmptySquare { .. })));
    // A Cog never moves straight ahead.
    assert!(matches!(p.play(mv("e2e3")), Err(IllegalMove::BadBaseMove { role: Cog, .. })));
    // Legal base move, ability the Cog does not have.
    assert!(matches!(p.play(mv("e2d3/slash")), Err(IllegalMove::BadAbility { role: Cog, .. })));
    assert!(matches!(p.play(mv("e2d3/burn:e8")), Err(IllegalMove::BadAbility { role: Cog, .. })));
    // The base move alone is fine.
    assert!(p.play(mv("e2d3")).is_ok());
}

#[test]
fn play_error_detonating_own_scientist() {
    // Phial d8 -> d9 with own Scientist on g7 (distance 3): illegal, typed.
    let p = pos("axiom blades m8/3P5/6S2/9/9/9/9/9/9 s - 0");
    assert!(matches!(p.play(mv("d8d9")), Err(IllegalMove::DestroysOwnKing { role: Phial, .. })));
    // Scientist h6 instead (distance 4): legal.
    let q = pos("axiom blades m8/3P5/9/7S1/9/9/9/9/9 s - 0");
    assert!(q.play(mv("d8d9")).is_ok());
}

#[test]
fn play_leaves_the_position_unchanged_on_error() {
    let p = pos("clockwork clockwork 4f4/4c4/9/9/9/9/9/4C4/4F4 s - 0");
    let before = iapn::format(&p);
    let _ = p.play(mv("e2e3"));
    assert_eq!(iapn::format(&p), before);
    // And a legal play increments the ply and passes the turn.
    let q = play(&p, "e2d3");
    assert_eq!(q.ply(), 1);
    assert_eq!(q.turn(), North);
}

// ---------------------------------------------------------------------------------------
// More edge cases
// ---------------------------------------------------------------------------------------

#[test]
fn dial_capturing_a_non_king_may_still_recall() {
    // Dial e4 takes the North Dagger on e5 (not a king: the game goes on), then the N
    // line from e5 (e6 empty) meets the Sickle on e7: recall to b9 or h9. The NW line
    // ends on the Mistress a9 (king, no), SE on the own FT i1. 3 moves with base e4e5.
    let p = pos("clockwork blades m8/9/4k4/9/4d4/4D4/9/9/8F s - 0");
    assert_moves_with_base(&p, "e4e5", &["e4e5", "e4e5/recall:e7b9", "e4e5/recall:e7h9"]);
    let q = play(&p, "e4e5/recall:e7b9");
    assert_eq!(at(&q, "e5"), Some((South, Dial, false)));
    assert_eq!(at(&q, "b9"), Some((North, Sickle, false)));
}

#[test]
fn axe_taking_the_king_has_no_slash() {
    // Axe e4 takes North FT e5; the North Cog on e6 would be ahead, but the base move
    // ends the game: no slash variant (§5).
    let p = pos("blades clockwork 9/9/9/4c4/4f4/4A4/9/9/M8 s - 0");
    assert_moves_with_base(&p, "e4e5", &["e4e5"]);
    assert_eq!(result(&play(&p, "e4e5")), "south wins: king destroyed");
}

#[test]
fn phial_may_not_detonate_when_both_kings_are_in_range() {
    // Phial e8: own Scientist b6 (3 away) and enemy Mistress g9 (2 away). Taking the enemy
    // king does not excuse destroying the own one: e8e9 is illegal.
    let p = pos("axiom blades 6m2/4P4/9/1S7/9/9/9/9/9 s - 0");
    assert_moves_from(&p, "e8", &[]);
    assert!(matches!(p.play(mv("e8e9")), Err(IllegalMove::DestroysOwnKing { .. })));
}

#[test]
fn dagger_two_step_arrival_on_end_row_assassinates() {
    // Dagger e7: e8 (1), e9 (2 forward, e8 empty: arrives on rank 9 without capturing ->
    // assassinate the Cog c3; the FT a5 is not alone), d7, f7. Total 5.
    let p = pos("blades clockwork 9/9/4D4/9/f8/9/2c6/9/M8 s - 0");
    assert_moves_from(&p, "e7", &["e7e8", "e7e9", "e7e9/assassinate:c3", "e7d7", "e7f7"]);
}

#[test]
fn father_time_capturing_onto_end_row_times_out() {
    // FT e8 takes the North Cog on d9 (diagonal forward): it arrives on rank 9 -> Timeout.
    let p = pos("clockwork clockwork 3c1f3/4F4/9/9/9/9/9/9/9 s - 0");
    assert_eq!(result(&play(&p, "e8d9")), "south wins: timeout");
}

#[test]
fn third_repetition_is_checked_before_the_ply_limit() {
    // The shuffle of third_repetition_loses_for_the_mover started at ply 152: the 8th
    // move is both the 160th ply and the third occurrence. §6 checks repetition (3)
    // before the 160-ply draw (4): North, the mover, loses.
    let start = pos("blades blades 4m4/9/9/9/9/9/9/9/4M4 s - 152");
    let mut g = Game::new(start);
    let cycle = ["e1d1", "e9d9", "d1e1", "d9e9"];
    for m in cycle.iter().chain(cycle[..3].iter()) {
        assert_eq!(g.play(mv(m)).expect("legal"), None, "{m}");
    }
    assert_eq!(result_text(g.play(mv("d9e9")).expect("legal")), "south wins: repetition");
    assert_eq!(g.position().ply(), 160);
}

#[test]
fn ply_limit_is_checked_before_no_legal_moves() {
    // As in side_without_legal_moves_loses, but a3a2 is the 160th ply: draw (§6: 4 before 5).
    let p = pos("axiom blades 4m4/9/9/9/9/9/d8/9/Sd7 n - 159");
    assert_eq!(result(&play(&p, "a3a2")), "draw: 160 plies");
}

#[test]
fn torch_may_capture_then_burn() {
    // Torch e4 takes the North Dagger d5; of d5's neighbours only e6 holds an enemy (the
    // other North Dagger): base e4d5 has the plain move and burn:e6. Mistress i9.
    let p = pos("axiom blades 8m/9/9/4d4/3d5/4T4/9/9/S8 s - 0");
    assert_moves_with_base(&p, "e4d5", &["e4d5", "e4d5/burn:e6"]);
    let q = play(&p, "e4d5/burn:e6");
    assert_eq!(at(&q, "d5"), Some((South, Torch, false)));
    assert_eq!(at(&q, "e6"), None);
}
