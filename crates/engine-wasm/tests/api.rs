//! The browser engine's exported API, natively: every ability, the Dagger's stab, the
//! Cog's merge and promotion and the Phial's detonation with exactly what they change,
//! then seeded random games in all nine match-ups that must exercise every one of them
//! with effects that account for every piece that left the board.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;

use engine::{iapn, Faction, Game, Move, Position};
use engine_wasm::{apply_move, legal_moves, parse_move, position_json, preview_base, replay};
use serde_json::{json, Value};

fn apply(pos: &str, mv: &str) -> Value {
    serde_json::from_str(&apply_move(pos, mv).unwrap()).unwrap()
}

/// The effects of `mv` without the square names the case does not care about.
fn effects(pos: &str, mv: &str) -> Value {
    apply(pos, mv)["effects"].clone()
}

#[test]
fn slash_destroys_what_stands_ahead_of_the_axe() {
    let e = effects("blades clockwork 8f/9/9/3c1D3/9/4A4/9/9/M8 s - 0", "e4e5/slash");
    assert_eq!(e["ability"], "slash");
    assert_eq!(e["landed"], "e5");
    assert_eq!(e["destroyed"], json!(["d6", "f6"]), "the enemy Cog and the own Dagger");
    assert_eq!(e["captured"], json!([]));
}

#[test]
fn burn_destroys_the_adjacent_enemy() {
    let e = effects("axiom blades 9/9/9/3d1m3/5P3/4T4/3d5/9/S8 s - 0", "e4e5/burn:d6");
    assert_eq!((e["ability"].clone(), e["destroyed"].clone()), (json!("burn"), json!(["d6"])));
    // Burning the king ends the game.
    let s = apply("axiom blades 9/9/9/3d1m3/5P3/4T4/3d5/9/S8 s - 0", "e4e5/burn:f6");
    assert_eq!(s["position"]["outcome"]["text"], "south wins: king destroyed");
    assert_eq!(s["position"]["outcome"]["winner"], "south");
}

#[test]
fn attract_pulls_the_piece_next_to_the_magnet() {
    let s = apply("clockwork axiom C8/4m4/9/9/8s/9/9/9/4F4 n a9 0", "e8d9/attract:a9");
    assert_eq!(s["effects"]["moved"], json!([["a9", "c9"]]));
    assert_eq!(s["effects"]["destroyed"], json!([]));
    let c9 = &s["position"]["board"][8 * 9 + 2];
    assert_eq!(
        (c9["type"].clone(), c9["charged"].clone()),
        (json!("cog"), json!(true)),
        "pulled, still charged"
    );
}

#[test]
fn recall_sends_the_enemy_to_a_starting_square() {
    let e = effects("clockwork blades m8/9/4k4/9/9/4D4/9/9/8F s - 0", "e4e3/recall:e7h9");
    assert_eq!((e["ability"].clone(), e["moved"].clone()), (json!("recall"), json!([["e7", "h9"]])));
    assert_eq!(e["landed"], "e3");
}

#[test]
fn sidestep_moves_the_mistress_on_after_her_capture() {
    let s = apply("blades clockwork 8f/9/9/3D1c3/4c4/4M4/9/9/9 s e4 0", "e4e5/sidestep:e6");
    let e = &s["effects"];
    assert_eq!((e["captured"].clone(), e["landed"].clone()), (json!(["e5"]), json!("e6")));
    assert_eq!(s["position"]["board"][5 * 9 + 4]["name"], "The Mistress");
}

#[test]
fn assassinate_destroys_any_enemy_after_the_daggers_arrival() {
    let e = effects("blades clockwork 9/4D4/7p1/9/f8/9/2c6/9/M8 s - 0", "e8e9/assassinate:h7");
    assert_eq!((e["destroyed"].clone(), e["landed"].clone()), (json!(["h7"]), json!("e9")));
}

#[test]
fn the_dagger_stabs_and_retreats() {
    let p = "blades clockwork 8f/9/9/4c1s2/3c5/2p1Dh3/9/9/M8 s - 0";
    let far = effects(p, "e4e6");
    assert_eq!((far["captured"].clone(), far["landed"].clone()), (json!(["e6"]), json!("e5")));
    let near = effects(p, "e4f4");
    assert_eq!((near["captured"].clone(), near["landed"].clone()), (json!(["f4"]), json!("e4")));
}

#[test]
fn cogs_merge_and_promote() {
    let m = apply("clockwork clockwork 4f4/9/9/9/5C3/4C4/9/9/4F4 s - 0", "e4f5");
    assert_eq!((m["effects"]["merged"].clone(), m["effects"]["captured"].clone()), (json!(true), json!([])));
    assert_eq!(m["position"]["board"][4 * 9 + 5]["type"], "gear");
    let p = effects("clockwork clockwork 4f4/9/9/9/9/9/9/3c5/7F1 n - 0", "d2c1");
    assert_eq!((p["promoted"].clone(), p["merged"].clone()), (json!(true), json!(false)));
}

#[test]
fn the_phial_detonates_on_its_end_row() {
    let s = apply("axiom blades w7m/2M1P4/9/1a5k1/4d2S1/9/9/9/9 s - 0", "e8e9");
    let e = &s["effects"];
    assert_eq!(e["detonated"], true);
    assert_eq!(e["landed"], "e9");
    assert_eq!(e["destroyed"], json!(["b6", "h6", "c8"]));
    assert_eq!(s["position"]["text"], "axiom blades w7m/9/9/9/4d2S1/9/9/9/9 n - 1");
}

#[test]
fn positions_legal_moves_and_errors() {
    let start = iapn::format(&Position::start(Faction::Clockwork, Faction::Blades));
    let p: Value = serde_json::from_str(&position_json(&start).unwrap()).unwrap();
    assert_eq!(
        (p["text"].as_str(), p["turn"].as_str(), p["ply"].as_u64()),
        (Some(start.as_str()), Some("south"), Some(0))
    );
    assert_eq!(p["board"].as_array().unwrap().len(), 81);
    assert_eq!(
        p["board"][4],
        json!({"side": "south", "letter": "F", "type": "fathertime", "name": "Father Time", "king": true, "charged": false})
    );
    assert_eq!(p["outcome"], Value::Null);
    let moves = legal_moves(&start).unwrap();
    let mut engine: Vec<String> = Position::start(Faction::Clockwork, Faction::Blades)
        .legal_moves()
        .iter()
        .map(Move::to_string)
        .collect();
    engine.sort();
    assert_eq!(moves, engine);
    assert!(apply_move(&start, "e1e5").unwrap_err().starts_with("illegal move e1e5"));
    assert!(apply_move(&start, "e1").unwrap_err().starts_with("invalid move"));
    assert!(position_json("clockwork blades").unwrap_err().starts_with("invalid position"));
    // The ability picker's preview: the Axe's step without its Slash.
    let axe = "blades clockwork 8f/9/9/3c1D3/9/4A4/9/9/M8 s - 0";
    let pv: Value = serde_json::from_str(&preview_base(axe, "e4e5").unwrap()).unwrap();
    assert_eq!(
        (pv["effects"]["destroyed"].clone(), pv["effects"]["landed"].clone()),
        (json!([]), json!("e5"))
    );
    assert!(preview_base(axe, "e4e6").is_err());
    // A replay stops at the first move that cannot be played, and says why.
    let r: Value =
        serde_json::from_str(&replay(&start, vec!["e2d3".into(), "e2e3".into()]).unwrap()).unwrap();
    assert_eq!(r["steps"].as_array().unwrap().len(), 2);
    assert!(r["error"].as_str().unwrap().starts_with("illegal move e2e3"));
}

/// xorshift64*: a fixed seed per game, so a failure names a reproducible game.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

#[test]
fn seeded_random_games_exercise_every_ability_and_account_for_every_piece() {
    let mut seen = BTreeSet::new();
    let mut seed = 1u64;
    for south in Faction::ALL {
        for north in Faction::ALL {
            for _ in 0..12 {
                seed += 1;
                let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let start = Position::start(south, north);
                let mut game = Game::new(start);
                let mut moves = Vec::new();
                while game.outcome().is_none() {
                    let legal = game.legal_moves();
                    let special: Vec<Move> = legal.iter().copied().filter(|m| m.ability.is_some()).collect();
                    let pool = if !special.is_empty() && rng.below(10) < 7 { &special } else { &legal };
                    let mv = pool[rng.below(pool.len())];
                    game.play(mv).unwrap();
                    moves.push(mv.to_string());
                }
                let r: Value =
                    serde_json::from_str(&replay(&iapn::format(&start), moves.clone()).unwrap()).unwrap();
                assert_eq!(r["error"], Value::Null, "seed {seed}");
                let steps = r["steps"].as_array().unwrap();
                assert_eq!(steps.len(), moves.len() + 1);
                for (i, pos) in game.history().iter().enumerate() {
                    assert_eq!(steps[i]["position"]["text"], iapn::format(pos), "seed {seed} ply {i}");
                }
                let last = &steps[moves.len()]["position"]["outcome"]["text"];
                assert_eq!(last.as_str(), game.outcome().map(|o| o.to_string()).as_deref(), "seed {seed}");
                for (i, mv) in moves.iter().enumerate() {
                    let (b, a, e) = (
                        &steps[i]["position"]["board"],
                        &steps[i + 1]["position"]["board"],
                        &steps[i + 1]["effects"],
                    );
                    check_accounted(b, a, e, &format!("seed {seed} ply {} {mv}", i + 1));
                    if let Some(k) = e["ability"].as_str() {
                        seen.insert(k.to_owned());
                    }
                    for flag in ["merged", "promoted", "detonated"] {
                        if e[flag] == true {
                            seen.insert(flag.to_owned());
                        }
                    }
                    if e["landed"] != e["to"]
                        && e["ability"].is_null()
                        && !e["captured"].as_array().unwrap().is_empty()
                    {
                        seen.insert("stab retreat".to_owned());
                    }
                }
            }
        }
    }
    let all = [
        "assassinate",
        "attract",
        "burn",
        "detonated",
        "merged",
        "promoted",
        "recall",
        "sidestep",
        "slash",
        "stab retreat",
    ];
    assert_eq!(seen, all.iter().map(|s| s.to_string()).collect(), "what the seeded games exercised");
}

/// Every piece that left its square is the mover, the captured piece, a destroyed one or
/// an ability's moved piece; the moving piece stands on `landed` unless it detonated.
fn check_accounted(before: &Value, after: &Value, e: &Value, what: &str) {
    let idx = |s: &Value| {
        let b = s.as_str().unwrap().as_bytes();
        usize::from(b[1] - b'1') * 9 + usize::from(b[0] - b'a')
    };
    let mut explained: BTreeSet<usize> = [idx(&e["from"])].into();
    for k in ["captured", "destroyed"] {
        explained.extend(e[k].as_array().unwrap().iter().map(idx));
    }
    explained.extend(e["moved"].as_array().unwrap().iter().map(|m| idx(&m[0])));
    if e["detonated"] == true {
        explained.insert(idx(&e["landed"]));
    } else {
        assert!(!after[idx(&e["landed"])].is_null(), "{what}: the mover is on {}", e["landed"]);
    }
    for s in 0..81 {
        if !before[s].is_null() && after[s].is_null() {
            assert!(explained.contains(&s), "{what}: square {s} emptied without an effect: {e}");
        }
    }
    for m in e["moved"].as_array().unwrap() {
        assert_eq!(after[idx(&m[1])]["side"], before[idx(&m[0])]["side"], "{what}: {m}");
    }
}

#[test]
fn moves_are_split_into_their_parts() {
    let m = |t: &str| serde_json::from_str::<Value>(&parse_move(t).unwrap()).unwrap();
    assert_eq!(m("e2e3"), json!({"text": "e2e3", "from": "e2", "to": "e3", "base": "e2e3", "ability": null}));
    assert_eq!(m("c1c2/recall:f8c9")["ability"], json!({"kind": "recall", "target": "f8", "dest": "c9"}));
    assert_eq!(m("d1d2/slash")["ability"], json!({"kind": "slash", "target": null, "dest": null}));
    assert_eq!(m("e5f6/sidestep:g6")["ability"], json!({"kind": "sidestep", "target": "g6", "dest": null}));
    assert_eq!(m("a8a9/assassinate:e1")["ability"]["target"], "e1");
    assert!(parse_move("e2e3/fly").unwrap_err().starts_with("invalid move: unknown ability"));
}
