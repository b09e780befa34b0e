//! The `iron-arena` command-line interface, exactly as other tools call it.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use std::process::{Command, Output};

const CW_BL: &str = "clockwork blades wkbamabkw/ddddddddd/9/9/9/9/9/CCCCCCCCC/PSDHFHDSP s - 0";

/// The shipped models, for an `onnx` build's `level:N` (its `play` loads them).
const MODELS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models");

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iron-arena")).args(args).output().expect("run iron-arena")
}

fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty());
    String::from_utf8(out.stdout).unwrap()
}

/// An error: non-zero status, nothing on stdout, exactly one line on stderr.
fn err(args: &[&str]) -> String {
    let out = run(args);
    assert!(!out.status.success(), "{args:?} should fail");
    assert!(out.stdout.is_empty(), "{args:?} printed to stdout");
    let e = String::from_utf8(out.stderr).unwrap();
    assert_eq!(e.lines().count(), 1, "{args:?}: stderr is not one line: {e:?}");
    e
}

#[test]
fn start_prints_the_starting_iapn() {
    assert_eq!(ok(&["start", "clockwork", "blades"]), format!("{CW_BL}\n"));
    assert_eq!(
        ok(&["start", "axiom", "axiom"]),
        "axiom axiom blmtstmlb/ppppppppp/9/9/9/9/9/PPPPPPPPP/BLMTSTMLB s - 0\n"
    );
    assert!(err(&["start", "clockwork", "robots"]).contains("unknown faction 'robots'"));
    assert!(err(&["start", "clockwork"]).contains("wrong arguments"));
}

#[test]
fn moves_are_listed_one_per_line_in_byte_order() {
    let out = ok(&["moves", CW_BL]);
    let lines: Vec<&str> = out.lines().collect();
    // 9 Cogs, two diagonal steps each, minus the two that leave the board at a2/i2.
    assert_eq!(lines.len(), 16);
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted);
    assert_eq!(lines[0], "a2b3");
    assert!(lines.contains(&"e2d3"));
}

#[test]
fn perft_prints_the_count_last() {
    let out = ok(&["perft", CW_BL, "2"]);
    assert_eq!(out.lines().last(), Some("416"));
    assert!(err(&["perft", CW_BL, "x"]).contains("depth 'x'"));
}

#[test]
fn divide_lists_sorted_moves_with_counts() {
    let out = ok(&["divide", CW_BL, "2"]);
    let rows: Vec<(String, u64)> = out
        .lines()
        .filter(|l| !l.starts_with("total"))
        .map(|l| {
            let (m, n) = l.split_once(' ').unwrap();
            (m.to_owned(), n.parse().unwrap())
        })
        .collect();
    assert_eq!(rows.len(), 16);
    assert_eq!(rows.iter().map(|r| r.1).sum::<u64>(), 416);
    let names: Vec<&String> = rows.iter().map(|r| &r.0).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
}

#[test]
fn apply_prints_position_and_result() {
    let out = ok(&["apply", CW_BL, "e2d3", "e8e7"]);
    assert_eq!(
        out,
        "clockwork blades wkbamabkw/dddd1dddd/4d4/9/9/9/3C5/CCCC1CCCC/PSDHFHDSP s - 2\nongoing\n"
    );
    // No moves: the position and its result as given.
    assert_eq!(ok(&["apply", CW_BL]), format!("{CW_BL}\nongoing\n"));
    // A Torch burns Father Time: the game ends.
    let out = ok(&["apply", "axiom clockwork 8p/9/9/9/4f4/3T5/9/9/S8 s - 0", "d4d5/burn:e5"]);
    assert_eq!(out.lines().nth(1), Some("south wins: king destroyed"));
}

#[test]
fn apply_counts_repetition_over_the_sequence() {
    // Two Gears shuffle; the start recurs after 4 and 8 plies: North's 8th move loses.
    let start = "clockwork clockwork 4f3g/9/9/9/9/9/9/9/4F3G s - 0";
    let cycle = ["i1h1", "i9h9", "h1i1", "h9i9"];
    let mut args = vec!["apply", start];
    args.extend(cycle);
    args.extend(cycle);
    let out = ok(&args);
    assert_eq!(out, format!("{start}\nsouth wins: repetition\n").replace(" s - 0", " s - 8"));
}

#[test]
fn errors_name_the_problem_on_one_line() {
    assert!(err(&["moves", "clockwork blades 9/9 s - 0"]).contains("invalid position"));
    let e = err(&["apply", CW_BL, "e2e3"]);
    assert!(e.contains("e2e3") && e.contains("Cog on e2 cannot move to e3"), "{e}");
    let e = err(&["apply", CW_BL, "e2d3", "zz"]);
    assert!(e.contains("move 2 'zz'"), "{e}");
    assert!(err(&["apply", CW_BL, "e8e7"]).contains("it is south's turn"));
    assert!(err(&["fly"]).contains("unknown command 'fly'"));
    assert!(err(&[]).contains("usage"));
    // A move after the game ended.
    let e = err(&["apply", "clockwork blades 4F4/9/9/9/9/9/9/9/4m4 n - 3", "e1e2"]);
    assert!(e.contains("north wins") || e.contains("south wins: timeout"), "{e}");
    assert!(e.contains("game is over"), "{e}");
    // --moves records the games in the --out file: none given, nothing is played.
    let e = err(&["ladder", "random", "random", "--games", "1", "--moves"]);
    assert!(e.contains("--moves") && e.contains("--out"), "{e}");
}

#[test]
fn bench_quick_reports_both_speeds() {
    let out = ok(&["bench", "--quick"]);
    assert!(out.contains("bulk") && out.contains("no-bulk"), "{out}");
    assert!(out.contains("9 start positions"));
}

#[test]
fn play_reads_moves_from_stdin_and_reports_errors() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_iron-arena"))
        .args(["play", "clockwork", "blades", "--ai", "none"])
        .env("IRON_ARENA_MODELS", MODELS)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"e2e3\ne2d3\nmoves\nquit\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("error: illegal move e2e3"), "{text}");
    assert!(text.contains("north to move"), "{text}");
    assert!(text.contains("e8e6"), "North's legal moves listed: {text}");
    assert!(
        text.trim_end()
            .ends_with("clockwork blades wkbamabkw/ddddddddd/9/9/9/9/3C5/CCCC1CCCC/PSDHFHDSP n - 1"),
        "{text}"
    );
}

#[test]
fn replay_checks_a_record_against_the_rules() {
    let dir = std::env::temp_dir().join(format!("ia-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.txt");
    std::fs::write(
        &good,
        format!("[Iron Arena game record]\nid: x\nstart: {CW_BL}\nresult: north wins: resignation\nmoves: e2d3 e8e7\n"),
    )
    .unwrap();
    let out = ok(&["replay", good.to_str().unwrap()]);
    assert_eq!(out.lines().nth(1), Some("north wins: resignation"));
    let bad = dir.join("bad.txt");
    std::fs::write(
        &bad,
        format!("[Iron Arena game record]\nstart: {CW_BL}\nresult: south wins: timeout\nmoves: e2d3\n"),
    )
    .unwrap();
    assert!(err(&["replay", bad.to_str().unwrap()]).contains("the moves give 'ongoing'"));
    assert!(err(&["replay", "/nonexistent/record"]).contains("/nonexistent/record"));
}

#[test]
fn play_against_the_ai_answers_each_move() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_iron-arena"))
        .args(["play", "clockwork", "blades", "--level", "2"])
        .env("IRON_ARENA_MODELS", MODELS)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"e2d3\nquit\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // The level by its name and engine (a build without the networks: the levels'
    // alpha-beta over the heuristic; with them, the shipped AI's engine), not the matches'
    // label (`hybridqr:300`).
    let engine = if cfg!(feature = "onnx") { "mcts-network-heuristic" } else { "alphabeta-heuristic" };
    assert!(text.contains(&format!("The AI (level 2 novice, {engine}) plays north")), "{text}");
    assert!(text.contains("AI plays "), "{text}");
    // Two plies played: South's and the AI's.
    assert!(text.trim_end().ends_with(" s - 2"), "{text}");
}

#[test]
fn arena_and_balance_report_results() {
    let out = ok(&["arena", "heuristic:32", "random", "--games", "2", "--matchups", "blades-axiom"]);
    assert!(out.starts_with("heuristic:32 vs random: +"), "{out}");
    assert!(out.contains("(2 games)") && out.contains("Elo"), "{out}");
    let out = ok(&["balance", "--engine", "random", "--games", "1"]);
    assert_eq!(out.lines().filter(|l| l.contains('%')).count(), 9, "{out}");
    assert!(err(&["arena", "heuristic:x", "random"]).contains("expected a number"));
    assert!(err(&["arena", "heuristic:8", "random", "--games"]).contains("--games needs a value"));
}

#[test]
fn the_alpha_beta_partner_plays_in_arena() {
    let out = ok(&["arena", "alphabeta:2", "random", "--games", "2", "--matchups", "blades-axiom"]);
    assert!(out.starts_with("alphabeta:2 vs random: +2 =0 -0 (2 games)"), "{out}");
    assert!(err(&["arena", "alphabeta:9", "random"]).contains("depths are 1-6"));
}

#[test]
fn selfplay_writes_training_records_in_the_layout_format() {
    let path = std::env::temp_dir().join(format!("ia-selfplay-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let out = ok(&["selfplay", "--games", "2", "--engine", "heuristic:8", "--out", path.to_str().unwrap()]);
    assert!(out.starts_with("2 games, "), "{out}");
    let text = std::fs::read_to_string(&path).unwrap();
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert!(first["planes"].as_str().unwrap().len() >= 22 * 81 * 4 / 3);
    let total: f64 = first["policy"].as_array().unwrap().iter().map(|p| p[1].as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-3, "{total}");
    assert!([-1.0, 0.0, 1.0].contains(&first["value"].as_f64().unwrap()));
    let searched = first["search_value"].as_f64().unwrap();
    assert!((-1.0..=1.0).contains(&searched), "{searched}");
    let layout: serde_json::Value = serde_json::from_str(&ok(&["layout"])).unwrap();
    assert_eq!(layout["planes"], 22);
    let _ = std::fs::remove_file(&path);
}

/// An alpha-beta player's self-play (data for the learned leaf score from the levels' own
/// search): one record per searched move, its best move as the whole policy, its score as
/// the search value; `leaf-data` reads them.
#[test]
fn selfplay_of_an_alpha_beta_level_records_its_best_move_and_score() {
    let leaf = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/leaf-v1.bin");
    let dir = std::env::temp_dir();
    let path = dir.join(format!("ia-selfplay-ab-{}.jsonl", std::process::id()));
    let bin = dir.join(format!("ia-selfplay-ab-{}.bin", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let engine = format!("hleaf:{leaf}:3");
    let out = ok(&[
        "selfplay",
        "--games",
        "1",
        "--seed",
        "7",
        "--engine",
        &engine,
        "--out",
        path.to_str().unwrap(),
    ]);
    assert!(out.starts_with("1 games, "), "{out}");
    let text = std::fs::read_to_string(&path).unwrap();
    let records: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(records.len() > 10, "{} records", records.len());
    let (mut won, mut lost) = (0, 0);
    for r in &records {
        // One move (its weight split where its encoding has two indices).
        let policy = r["policy"].as_array().unwrap();
        assert!((1..=2).contains(&policy.len()), "{r}");
        let total: f64 = policy.iter().map(|p| p[1].as_f64().unwrap()).sum();
        assert!((total - 1.0).abs() < 1e-6, "{total}");
        let v = r["search_value"].as_f64().unwrap();
        assert!((-1.0..=1.0).contains(&v), "{v}");
        let result = r["value"].as_f64().unwrap();
        assert!([-1.0, 0.0, 1.0].contains(&result), "{result}");
        won += usize::from(result > 0.0);
        lost += usize::from(result < 0.0);
        assert!(r["iapn"].is_string());
    }
    // Both sides' moves are recorded, each with its own side's result.
    assert!(won + lost == 0 || (won > 0 && lost > 0), "{won} won, {lost} lost");
    let out = ok(&["leaf-data", path.to_str().unwrap(), "--out", bin.to_str().unwrap()]);
    assert!(out.contains(&records.len().to_string()), "{out}");
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&bin);
}

/// The playout cap records only full searches: with P = 1 every move is one (the same
/// records as without a cap: the cap's coin does not disturb the game's own random
/// choices), with P = 0 none is, and in between a part of them.
#[test]
fn selfplay_playout_cap_records_only_full_searches() {
    let dir = std::env::temp_dir();
    let run = |name: &str, extra: &[&str]| -> Vec<String> {
        let path = dir.join(format!("ia-cap-{name}-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let mut args = vec!["selfplay", "--games", "3", "--seed", "5", "--engine", "heuristic:16"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--out", path.to_str().unwrap()]);
        ok(&args);
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let _ = std::fs::remove_file(&path);
        text.lines().map(String::from).collect()
    };
    let plain = run("plain", &[]);
    assert!(!plain.is_empty());
    assert_eq!(run("all", &["--fast-engine", "heuristic:4", "--full-prob", "1"]), plain);
    assert!(run("none", &["--fast-engine", "heuristic:4", "--full-prob", "0"]).is_empty());
    let some = run("some", &["--fast-engine", "heuristic:4", "--full-prob", "0.3"]);
    assert!(!some.is_empty() && some.len() < plain.len(), "{} of {}", some.len(), plain.len());
    let e = err(&["selfplay", "--out", "x", "--full-prob", "0.5"]);
    assert!(e.contains("go together"), "{e}");
    let e = err(&["selfplay", "--out", "x", "--fast-engine", "heuristic:4", "--full-prob", "2"]);
    assert!(e.contains("0..1"), "{e}");
}

/// Regression: searches are deterministic, so matches and self-play once replayed the
/// same game for every seed of a match-up (a balance table of only 0% and 100%, and
/// self-play data of nine distinct games). Random openings and visit sampling vary them.
#[test]
fn regression_games_of_one_match_up_differ() {
    let out = ok(&["balance", "--engine", "heuristic:16", "--games", "6"]);
    let mixed = out
        .lines()
        .filter(|l| l.contains('%'))
        .filter(|l| {
            let p: Vec<&str> = l.split_whitespace().filter(|w| w.ends_with('%')).collect();
            p.len() == 3 && p[0] != "0.0%" && p[0] != "100.0%"
        })
        .count();
    assert!(mixed >= 3, "too little variety:\n{out}");
}

#[test]
fn options_are_read_anywhere_in_either_form() {
    let a = ok(&["arena", "--games=2", "random", "--matchups", "blades-axiom", "random", "--seed", "3"]);
    assert!(a.contains("(2 games)"), "{a}");
    assert!(err(&["arena", "random", "random", "--fast"]).contains("unexpected argument '--fast'"));
    assert!(err(&["arena", "random", "random", "-g", "2"]).contains("unexpected argument '-g'"));
    assert!(err(&["arena", "random", "random", "--games", "x"]).contains("--games 'x' is not a number"));
    assert!(err(&["bench", "--slow"]).contains("unexpected argument '--slow'"));
    assert!(err(&["balance", "extra"]).contains("wrong arguments for 'balance'"));
    assert!(err(&["fly", "--x"]).contains("unknown command 'fly'"));
}

/// `ladder-redo` plays again exactly the games that opened on a decided position (here
/// the one whose random plies left South's Sickle a king capture: models/ladder/
/// 2026-12-07-openings/), keeps the others as they are, and a second run plays nothing.
#[test]
fn ladder_redo_replays_only_the_games_that_opened_decided() {
    let dir = std::env::temp_dir().join(format!("ia-redo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, out, all) = (dir.join("in.jsonl"), dir.join("out.jsonl"), dir.join("all.jsonl"));
    let decided = r#"{"a":"random","a_side":"south","b":"alphabeta:1","matchup":"blades-clockwork","ms":1,"score":1.0,"seed":17747530224521461566}"#;
    let kept = r#"{"a":"random","a_side":"south","b":"alphabeta:1","matchup":"blades-clockwork","ms":1,"score":0.5,"seed":5}"#;
    std::fs::write(&input, format!("{decided}\n{kept}\n")).unwrap();
    let args = |_: ()| {
        vec![
            "ladder-redo".to_string(),
            input.display().to_string(),
            "--out".into(),
            out.display().to_string(),
            "--ladder".into(),
            all.display().to_string(),
            "--moves".into(),
        ]
    };
    let a = args(());
    let r = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let text = String::from_utf8(r.stdout).unwrap();
    assert!(text.starts_with("1 of 2 games opened on a decided position"), "{text}");
    let rows: Vec<serde_json::Value> =
        std::fs::read_to_string(&all).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 2);
    // The replayed game: the same players, side, match-up and seed, another opening.
    assert_eq!(rows[0]["seed"], 17747530224521461566u64);
    assert_eq!(rows[0]["a"], "random");
    let moves = rows[0]["moves"].as_str().unwrap();
    assert!(!moves.starts_with("b1c4 f8e7 c4d6 f9f5"), "{moves}");
    // The other row is the input's, untouched (a hand-written result no game gave).
    assert_eq!(rows[1], serde_json::from_str::<serde_json::Value>(kept).unwrap());
    // Run again: the replayed game is read back from --out, none is played.
    let r = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("0 to play (1 already in --out)"));
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}
