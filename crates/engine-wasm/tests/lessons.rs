//! The lessons of "Learn the pieces" (public/lessons.json, issue 31, item 3), played by the
//! engine as the browser plays them: every start position parses, every scripted solution
//! is legal move by move and reaches its step's goal, the scripted reply is legal after any
//! move that reaches the goal and the lesson can still be completed after it (so the page
//! never gets stuck), and a wrong move is either refused by the engine or not counted as
//! success.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use engine_wasm::lessons::{lesson_goal, reaches, Goal};
use engine_wasm::{apply_move, legal_moves, position_json};
use serde::Deserialize;
use std::collections::HashSet;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    lessons: Vec<Lesson>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Lesson {
    id: String,
    faction: String,
    piece: String,
    rules: Vec<String>,
    title: String,
    goal: String,
    start: String,
    steps: Vec<Step>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Step {
    task: String,
    /// The step's goal as a line of facts (engine_wasm::lessons::Goal).
    check: String,
    solution: String,
    hint: String,
    marks: Vec<String>,
    reply: Option<String>,
}

fn lessons() -> Vec<Lesson> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/lessons.json");
    let text = std::fs::read_to_string(path).expect("public/lessons.json");
    serde_json::from_str::<File>(&text).expect("the lesson file's shape").lessons
}

/// The position after `mv`, in IAPN.
fn after(pos: &str, mv: &str) -> String {
    let step: serde_json::Value = serde_json::from_str(&apply_move(pos, mv).unwrap()).unwrap();
    step["position"]["text"].as_str().unwrap().to_string()
}

/// Whether `steps` can still be completed from `pos`: some legal move reaches the first
/// step's goal and, after its reply, the rest can be completed too (from every such move,
/// not only the scripted one: a player who reaches a goal another way never meets a dead end).
fn completable(pos: &str, steps: &[Step]) -> bool {
    let Some((s, rest)) = steps.split_first() else { return true };
    let goal = Goal::parse(&s.check).unwrap();
    let right: Vec<String> =
        legal_moves(pos).unwrap().into_iter().filter(|m| reaches(pos, m, &goal).unwrap()).collect();
    !right.is_empty()
        && right.iter().all(|m| {
            let next = after(pos, m);
            rest.is_empty() || s.reply.as_ref().is_some_and(|r| completable(&after(&next, r), rest))
        })
}

fn field(pos: &str, i: usize) -> &str {
    pos.split(' ').nth(i).unwrap()
}

#[test]
fn every_lesson_is_solved_by_its_script_and_judged_by_the_engine() {
    let all = lessons();
    assert!(all.len() >= 18, "a lesson per piece and ability ({} lessons)", all.len());
    let mut ids = HashSet::new();
    for l in &all {
        let at = |what: &str| format!("lesson {}: {what}", l.id);
        assert!(ids.insert(l.id.clone()), "{}", at("id used twice"));
        assert!(["clockwork", "blades", "axiom"].contains(&l.faction.as_str()), "{}", at("faction"));
        assert!(
            !l.title.is_empty() && !l.goal.is_empty() && !l.rules.is_empty() && !l.steps.is_empty(),
            "{}",
            at("texts")
        );
        let start: serde_json::Value =
            serde_json::from_str(&position_json(&l.start).unwrap_or_else(|e| panic!("{}", at(&e)))).unwrap();
        // The player is South and plays the lesson's faction; the game is not over yet.
        assert_eq!(start["south"], l.faction.as_str(), "{}", at("the player's faction"));
        assert_eq!(start["turn"], "south", "{}", at("South to move"));
        assert!(start["outcome"].is_null(), "{}", at("the start is not finished"));
        assert!(completable(&l.start, &l.steps), "{}", at("completable whichever right moves are played"));
        let mut pos = l.start.clone();
        for (n, s) in l.steps.iter().enumerate() {
            let at = |what: &str| format!("lesson {} step {}: {what}", l.id, n + 1);
            assert!(!s.task.is_empty() && !s.hint.is_empty(), "{}", at("texts"));
            let goal = Goal::parse(&s.check).unwrap_or_else(|e| panic!("{}", at(&e)));
            assert!(s.marks.iter().all(|m| engine::Square::parse(m).is_some()), "{}", at("marks"));
            // The piece the lesson is about makes the move.
            if let Some(sq) = goal.from {
                let view: serde_json::Value = serde_json::from_str(&position_json(&pos).unwrap()).unwrap();
                let i = usize::from(sq.rank()) * 9 + usize::from(sq.file());
                let p = &view["board"][i];
                assert_eq!(p["side"], "south", "{}", at("the goal's piece is the player's"));
                if n == 0 {
                    assert!(
                        l.piece == p["type"] || l.piece == "gear",
                        "{}",
                        at(&format!("the lesson's piece ({})", p["type"]))
                    );
                }
            }
            // The solution, through the browser's entry point (the goal's line).
            assert_eq!(
                lesson_goal(&pos, &s.solution, &s.check),
                Ok(true),
                "{}",
                at("the solution reaches the goal")
            );
            // Every legal move is judged; at least one is wrong, and a reply follows any right one.
            let legal = legal_moves(&pos).unwrap();
            assert!(legal.contains(&s.solution), "{}", at("the solution is legal"));
            let mut wrong = 0;
            for mv in &legal {
                if reaches(&pos, mv, &goal).unwrap() {
                    let next = after(&pos, mv);
                    match &s.reply {
                        Some(r) => assert!(
                            legal_moves(&next).unwrap().contains(r),
                            "{}",
                            at(&format!("reply {r} legal after {mv}"))
                        ),
                        None => {
                            assert_eq!(n + 1, l.steps.len(), "{}", at("a step before the last has a reply"))
                        }
                    }
                } else {
                    wrong += 1;
                }
            }
            assert!(wrong > 0, "{}", at("some legal move is wrong (a hint to show)"));
            // A move the engine does not allow is refused, never a success.
            let from = &s.solution[..2];
            let illegal = ["a1", "i9", "e5", "a9", "i1"]
                .iter()
                .map(|to| format!("{from}{to}"))
                .find(|m| !legal.contains(m));
            let illegal = illegal.expect("some illegal destination");
            assert!(lesson_goal(&pos, &illegal, &s.check).is_err(), "{}", at(&format!("{illegal} refused")));
            pos = after(&pos, &s.solution);
            if let Some(r) = &s.reply {
                pos = after(&pos, r);
                assert_eq!(field(&pos, 3), "s", "{}", at("South to move after the reply"));
            }
        }
    }
}

#[test]
fn a_goal_with_an_unknown_or_malformed_fact_is_refused() {
    let pos = "clockwork blades m8/9/9/9/3ad4/4C4/9/9/4F4 s - 0";
    for bad in ["captur=d5", "capture=d10", "capture=", "from", "merged=yes", "capture=d5,,e5"] {
        assert!(lesson_goal(pos, "e4d5", bad).is_err(), "{bad}");
    }
    assert_eq!(lesson_goal(pos, "e4d5", "capture=d5"), Ok(true));
    assert_eq!(
        lesson_goal(pos, "e4d5", "from=e4 capture=d5 charged"),
        Ok(true),
        "a Cog charged on the Electric Field"
    );
    assert_eq!(lesson_goal(pos, "e4f5", "capture=d5"), Ok(false));
    assert_eq!(lesson_goal(pos, "e4d5", ""), Ok(true), "no fact: any legal move");
    assert!(lesson_goal(pos, "e4e5", "").is_err(), "an illegal move is never a success");
    assert_eq!(
        Goal::parse("from=e7 win=king-destroyed detonated").map(|g| g.win),
        Ok(Some("king destroyed".to_string()))
    );
}
