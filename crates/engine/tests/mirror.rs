//! The rules are invariant under the left-right mirror (file a ↔ i, ranks unchanged):
//! over seeded random games from all nine match-ups, the mirrored position has exactly the
//! mirrored legal moves, playing commutes with mirroring, and outcomes agree. The mirror is
//! checked against an independent text transform of IAPN and IAMN, so the engine's
//! `mirrored_files` helpers are not their own oracle.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use std::collections::{BTreeMap, BTreeSet};

use engine::{iapn, Ability, Faction, Game, Move, Position, Role, Square};

fn match_up(i: usize) -> Position {
    Position::start(Faction::ALL[i / 3], Faction::ALL[i % 3])
}

fn mirror_file_char(c: char) -> char {
    (b'a' + b'i' - c as u8) as char
}

/// IAMN with every square it names mirrored (a square is a letter a–i then a digit 1–9;
/// no ability name has a letter a–i followed by a digit).
fn mirror_iamn(text: &str) -> String {
    let cs: Vec<char> = text.chars().collect();
    let mut out = String::new();
    for (i, &c) in cs.iter().enumerate() {
        let square = ('a'..='i').contains(&c) && cs.get(i + 1).is_some_and(|d| ('1'..='9').contains(d));
        out.push(if square { mirror_file_char(c) } else { c });
    }
    out
}

/// IAPN with each rank reversed and the charged squares mirrored (and re-sorted into board
/// order: rank 9 first, files a→i).
fn mirror_iapn(text: &str) -> String {
    let f: Vec<&str> = text.split(' ').collect();
    assert_eq!(f.len(), 6, "{text}");
    let ranks: Vec<String> = f[2]
        .split('/')
        .map(|rank| {
            let mut cells: Vec<char> = Vec::new();
            for c in rank.chars() {
                match c.to_digit(10) {
                    Some(n) => cells.extend(std::iter::repeat_n('.', n as usize)),
                    None => cells.push(c),
                }
            }
            assert_eq!(cells.len(), 9, "{text}");
            cells.reverse();
            let mut s = String::new();
            let mut empty = 0;
            for c in cells {
                if c == '.' {
                    empty += 1;
                } else {
                    if empty > 0 {
                        s.push_str(&empty.to_string());
                        empty = 0;
                    }
                    s.push(c);
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            s
        })
        .collect();
    let charged = if f[4] == "-" {
        "-".to_owned()
    } else {
        let mut sqs: Vec<Square> = f[4].split(',').map(|s| Square::parse(&mirror_iamn(s)).unwrap()).collect();
        sqs.sort_by_key(|s| s.board_order_key());
        sqs.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(",")
    };
    format!("{} {} {} {} {} {}", f[0], f[1], ranks.join("/"), f[3], charged, f[5])
}

fn move_set(moves: &[Move]) -> BTreeSet<String> {
    moves.iter().map(|m| m.to_string()).collect()
}

fn kind(pos: &Position, mv: &Move) -> &'static str {
    let role = pos.piece_at(mv.from).map(|p| p.role);
    let end = mv.to.rank() == pos.turn().end_rank() && mv.from.rank() != pos.turn().end_rank();
    match (mv.ability, role) {
        (Some(Ability::Recall { .. }), _) => "recall",
        (Some(Ability::Slash), _) => "slash",
        (Some(Ability::Attract { .. }), _) => "attract",
        (Some(Ability::Burn { .. }), _) => "burn",
        (Some(Ability::Sidestep { .. }), _) => "sidestep",
        (Some(Ability::Assassinate { .. }), _) => "assassinate",
        (None, Some(Role::Phial)) if end => "detonate",
        (None, Some(Role::Cog)) if end => "cog to gear",
        (None, Some(Role::Cog)) if pos.piece_at(mv.to).is_some_and(|p| p.role == Role::Cog) => "merge",
        (None, Some(Role::FatherTime)) if end => "timeout",
        (None, Some(Role::Spring)) if mv.from.distance(mv.to) > 1 => "recoil",
        (None, Some(Role::Dagger)) if pos.piece_at(mv.to).is_some() => "stab",
        (None, Some(Role::Scales)) if pos.piece_at(mv.to).is_some() => "scales leap",
        _ => "other",
    }
}

/// Checks one position against its mirror: the mirror helpers agree with the text
/// transforms, the legal move sets correspond, and (when `deep`) every move's successor
/// and its outcome correspond. Counts move kinds into `seen`.
fn check(pos: &Position, mpos: &Position, deep: bool, seen: &mut BTreeMap<&'static str, usize>) {
    let text = iapn::format(pos);
    assert_eq!(iapn::format(mpos), mirror_iapn(&text), "mirrored position of {text}");
    assert_eq!(pos.mirrored_files(), *mpos, "{text}");
    assert_eq!(mpos.mirrored_files(), *pos, "mirror is not an involution on {text}");
    assert_eq!(mpos.hash(), mpos.compute_hash());
    assert_eq!(pos.outcome(), mpos.outcome(), "outcome of {text}");

    let moves = pos.legal_moves();
    let mirrored: BTreeSet<String> = moves.iter().map(|m| mirror_iamn(&m.to_string())).collect();
    assert_eq!(mirrored, move_set(&mpos.legal_moves()), "legal moves of the mirror of {text}");
    for mv in &moves {
        assert_eq!(mv.mirrored_files().to_string(), mirror_iamn(&mv.to_string()));
        *seen.entry(kind(pos, mv)).or_insert(0) += 1;
        if !deep {
            continue;
        }
        let (mut a, mut b) = (*pos, *mpos);
        a.play_unchecked(*mv);
        b.play_unchecked(mv.mirrored_files());
        assert_eq!(iapn::format(&b), mirror_iapn(&iapn::format(&a)), "{text} then {mv}, mirrored");
        assert_eq!(a.outcome(), b.outcome(), "outcome after {mv} in {text}");
    }
}

fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

#[test]
fn starting_positions_are_their_own_mirror() {
    for mu in 0..9 {
        let p = match_up(mu);
        assert_eq!(p.mirrored_files(), p);
        assert_eq!(mirror_iapn(&iapn::format(&p)), iapn::format(&p));
    }
}

#[test]
fn mirror_text_transforms_on_examples() {
    assert_eq!(mirror_iamn("c1c2/recall:f8c9"), "g1g2/recall:d8g9");
    assert_eq!(mirror_iamn("d8d9/assassinate:b3"), "f8f9/assassinate:h3");
    assert_eq!(mirror_iamn("c3c4/attract:c8"), "g3g4/attract:g8");
    assert_eq!(mirror_iamn("d1d2/slash"), "f1f2/slash");
    assert_eq!(
        mirror_iapn("blades axiom b8/7l1/4s4/4p4/2pM1t1p1/4A1A2/2A3D2/9/W8 s d5,a1 0"),
        "blades axiom 8b/1l7/4s4/4p4/1p1t1Mp2/2A1A4/2D3A2/9/8W s f5,i1 0"
    );
}

/// The main property: random legal play from every match-up (fixed seeds), each position
/// compared with its mirror, which is played in a parallel game with the mirrored moves.
#[test]
fn rules_commute_with_the_left_right_mirror() {
    let mut next = xorshift(0x1234_5678_9ABC_DEF1);
    let mut seen = BTreeMap::new();
    let mut results = BTreeMap::new();
    let mut positions = 0;
    for game_no in 0..36 {
        let start = match_up(game_no % 9);
        let mut game = Game::new(start);
        let mut mgame = Game::new(start.mirrored_files());
        loop {
            let (pos, mpos) = (*game.position(), *mgame.position());
            // Every position's move sets; every third one's successors too.
            check(&pos, &mpos, pos.ply() % 3 == 0, &mut seen);
            positions += 1;
            let moves = game.legal_moves();
            assert_eq!(move_set(&mgame.legal_moves()).len(), moves.len());
            if moves.is_empty() {
                break;
            }
            let mv = moves[next() as usize % moves.len()];
            let o = game.play(mv).unwrap();
            let mo = mgame.play(mv.mirrored_files()).unwrap();
            assert_eq!(o, mo, "game outcome after {mv} in {pos:?}");
        }
        assert_eq!(game.outcome(), mgame.outcome());
        *results.entry(engine::result_text(game.outcome())).or_insert(0) += 1;
    }
    eprintln!("{positions} positions; move kinds {seen:?}; results {results:?}");
    assert!(positions > 500, "{positions}");
    let kinds = "recall slash attract burn sidestep assassinate detonate merge recoil stab timeout";
    for k in kinds.split(' ').chain(["cog to gear", "scales leap"]) {
        assert!(seen.contains_key(k), "no {k} move was checked: {seen:?}");
    }
}

/// Repetition (rare in random play) counts mirrored positions alike: the shuffle of
/// `game.rs`'s own test, mirrored, loses for the same side.
#[test]
fn repetition_commutes_with_the_mirror() {
    let start = iapn::parse("clockwork clockwork 4f3g/9/9/9/9/9/9/9/4F3G s - 0").unwrap();
    let mut game = Game::new(start);
    let mut mgame = Game::new(start.mirrored_files());
    assert_eq!(iapn::format(mgame.position()), "clockwork clockwork g3f4/9/9/9/9/9/9/9/G3F4 s - 0");
    let shuffle = ["i1h1", "i9h9", "h1i1", "h9i9"];
    let mut last = (None, None);
    for m in shuffle.iter().chain(shuffle.iter()).chain(shuffle.iter()) {
        let mv = Move::parse(m).unwrap();
        if game.outcome().is_some() {
            break;
        }
        last = (game.play(mv).unwrap(), mgame.play(mv.mirrored_files()).unwrap());
    }
    assert_eq!(last.0.map(|o| o.to_string()).as_deref(), Some("south wins: repetition"));
    assert_eq!(last.0, last.1);
}
