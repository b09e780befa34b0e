//! The traps and piece facts the client shows (issue 34), natively: the opponent's threats
//! to a king-piece (capture, an ability, Timeout), the moves that would lose by a third
//! repetition, and what a piece can do or why it cannot move.
#![allow(clippy::unwrap_used)]

use engine_wasm::{piece_facts_json, ply_limit, repetition_losses, threats_json};
use serde_json::{json, Value};

fn threats(pos: &str, side: &str) -> Value {
    serde_json::from_str(&threats_json(pos, side).unwrap()).unwrap()
}

fn facts(pos: &str, square: &str) -> Value {
    serde_json::from_str(&piece_facts_json(pos, square).unwrap()).unwrap()
}

fn strings(moves: &[&str]) -> Vec<String> {
    moves.iter().map(|m| m.to_string()).collect()
}

/// Axiom (South) vs Blades: North's Sickle leaps b9–c6–d4, from where it can take the
/// Scientist on e1 (the browser tests play this game too).
const SICKLE_GAME: [&str; 4] = ["e2e3", "b9c6", "e3e4", "c6d4"];

fn after(moves: &[&str]) -> String {
    let start = "axiom blades bltmstmlb/ppppppppp/9/9/9/9/9/PPPPPPPPP/BLMTSTMLB s - 0";
    let start = start.replace("ppppppppp", "ddddddddd").replace("bltmstmlb", "wkbamabkw");
    let r: Value = serde_json::from_str(&engine_wasm::replay(&start, strings(moves)).unwrap()).unwrap();
    assert!(r["error"].is_null(), "{}", r["error"]);
    r["steps"].as_array().unwrap().last().unwrap()["position"]["text"].as_str().unwrap().to_string()
}

#[test]
fn a_leaping_sickle_threatens_the_scientist_whoever_is_to_move() {
    let start = after(&[]);
    assert_eq!(threats(&start, "south")["threats"], json!([]), "nothing at the start");
    let pos = after(&SICKLE_GAME);
    let t = threats(&pos, "south");
    assert_eq!(t["king"], "e1");
    assert_eq!(
        t["threats"],
        json!([{"move": "d4e1", "from": "d4", "piece": "Sickle", "ability": null, "reason": "king destroyed"}])
    );
    // The same threat one ply earlier would not exist, and North's king is safe.
    assert_eq!(threats(&after(&SICKLE_GAME[..3]), "south")["threats"], json!([]));
    assert_eq!(threats(&pos, "north")["threats"], json!([]));
    // With North to move (South passed the move with a Phial), the threat is direct.
    let later = after(&[&SICKLE_GAME[..], &["a2a3"]].concat());
    assert_eq!(threats(&later, "south")["threats"][0]["from"], "d4");
}

#[test]
fn threats_by_an_ability_and_by_timeout() {
    // North's Torch on e3 steps next to The Mistress and burns her.
    let t = threats("blades axiom 4s4/9/9/9/9/9/4t4/9/4M4 s - 0", "south");
    assert_eq!(t["threats"].as_array().unwrap().len(), 1, "{t}");
    assert_eq!((&t["threats"][0]["piece"], &t["threats"][0]["ability"]), (&json!("Torch"), &json!("burn")));
    // North's Father Time on e3 reaches rank 1 in one move: Timeout.
    let t = threats("blades clockwork 9/9/9/9/9/9/4f4/9/M8 s - 0", "south");
    assert_eq!(t["threats"][0]["reason"], "timeout");
    assert_eq!(t["threats"][0]["piece"], "Father Time");
    // Nothing once the game is over.
    assert_eq!(threats("blades clockwork 9/9/9/9/9/9/4f4/9/M8 s - 160", "south")["threats"], json!([]));
    assert!(threats_json("blades clockwork 9/9/9/9/9/9/4f4/9/M8 s - 0", "east").is_err());
}

#[test]
fn the_move_that_makes_a_third_repetition_is_named() {
    let start = "clockwork clockwork 4f3g/9/9/9/9/9/9/9/4F3G s - 0";
    let cycle = ["i1h1", "i9h9", "h1i1", "h9i9"];
    assert_eq!(repetition_losses(start, strings(&cycle[..3])).unwrap(), Vec::<String>::new());
    // The start position has occurred twice; North's h9i9 would make it three times.
    let moves = [&cycle[..], &cycle[..3]].concat();
    assert_eq!(repetition_losses(start, strings(&moves)).unwrap(), vec!["h9i9".to_string()]);
    assert!(repetition_losses(start, strings(&["i1i3"])).is_err(), "an illegal move is an error");
}

#[test]
fn the_browser_tests_repetition_falls_to_south() {
    // The browser test's game: after the Sickle's threat South plays a2a3 (a move that
    // cannot be undone), then Scales and Sickle shuffle; South's a2a1 at ply 13 repeats.
    let mut moves: Vec<&str> = SICKLE_GAME.to_vec();
    moves.extend(["a2a3", "d4c6", "a1a2", "c6d4", "a2a1", "d4c6", "a1a2", "c6d4"]);
    let start = after(&[]);
    assert_eq!(repetition_losses(&start, strings(&moves)).unwrap(), vec!["a2a1".to_string()]);
    assert_eq!(repetition_losses(&start, strings(&moves[..moves.len() - 4])).unwrap(), Vec::<String>::new());
}

#[test]
fn ply_limit_is_the_rules_160() {
    assert_eq!(ply_limit(), 160);
}

#[test]
fn a_piece_with_moves_names_its_captures_abilities_and_charges() {
    // South's Torch on e3, a North Dagger on d4.
    let f = facts("axiom blades 4m4/9/9/9/9/3d5/4T4/9/4S4 s - 0", "e3");
    assert_eq!(f["piece"]["name"], "Torch");
    assert_eq!(f["to_move"], true);
    assert_eq!(f["captures"], json!(["d4"]));
    assert_eq!(f["abilities"], json!([{"kind": "burn", "targets": ["d4"]}]));
    assert!(f["blocked"].is_null());
    assert_eq!(f["chargeable"], false);
    // The Mistress on e4, not charged: a step onto rank 5 charges her.
    let f = facts("blades axiom 4s4/9/9/9/9/4M4/9/9/9 s - 0", "e4");
    assert_eq!((f["chargeable"].clone(), f["charges"].clone()), (json!(true), json!(["d5", "e5", "f5"])));
    // The Sickle of the seeded game, seen on South's turn: its next move would win.
    let f = facts(&after(&SICKLE_GAME), "d4");
    assert_eq!((f["to_move"].clone(), f["wins"].clone()), (json!(false), json!(["d4e1"])));
    // An Axe whose step puts pieces ahead of it can Slash them.
    let f = facts("blades axiom 4s4/9/9/3p5/9/4A4/9/9/M8 s - 0", "e4");
    assert_eq!(f["abilities"], json!([{"kind": "slash", "targets": ["d6"]}]));
}

#[test]
fn why_a_piece_cannot_move() {
    // At the start the Magnet is hemmed in by its own pieces (the Scales beside it is not:
    // it can leap over its Phial onto the Dagger on a8).
    let f = facts(&after(&[]), "c1");
    assert_eq!((f["moves"].clone(), f["blocked"].clone()), (json!(0), json!("own_pieces")));
    assert_eq!(f["blockers"], json!(["b1", "d1", "b2", "c2", "d2"]));
    assert_eq!(facts(&after(&[]), "a1")["captures"], json!(["a8"]));
    // The Scientist between enemy Daggers (it never captures).
    let f = facts("axiom blades 4m4/9/9/9/9/9/4d4/P2dSd3/4d4 s - 0", "e2");
    assert_eq!(
        (f["blocked"].clone(), f["blockers"].clone()),
        (json!("pieces"), json!(["e1", "d2", "f2", "e3"]))
    );
    // A Phial whose arrival would blow up its own Scientist.
    let f = facts("axiom blades 4m4/3P5/4S4/9/9/9/9/9/9 s - 0", "d8");
    assert_eq!(f["blocked"], "own_king");
    // A Cog pulled onto its end row has no move from there, whatever stands around.
    let f = facts("clockwork axiom 4C4/9/9/9/9/9/9/9/4F3s s - 0", "e9");
    assert_eq!(f["blocked"], "movement");
    // Once the game is over nothing moves.
    let f = facts("clockwork axiom 4C4/9/9/9/9/9/9/9/4F3s s - 160", "e1");
    assert_eq!(f["blocked"], "game_over");
    assert!(piece_facts_json("clockwork axiom 4C4/9/9/9/9/9/9/9/4F3s s - 0", "a5").is_err());
}
