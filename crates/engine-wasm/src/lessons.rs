//! The lessons' goals (issue 31, item 3: "Learn the pieces"). A lesson (public/lessons.json)
//! is a position and a goal per step; whether the player's move reaches that goal is
//! decided here, on what the engine says the move did ([`crate::effects`]) and on the
//! position and outcome after it, so that the browser and the native test over the same
//! file (tests/lessons.rs) judge a move alike and no rule is written twice.
//!
//! A goal is a line of facts about the move, every one of which must hold, e.g.
//! `from=e3 ability=slash capture=d5,e5,f5` (see [`Goal`]). A line, not JSON: a deserializer
//! would add 60 KB (26 KB gzip) to the browser's engine, this parser almost nothing.

use engine::{Move, Outcome, Square};
use wasm_bindgen::prelude::*;

use crate::{ability_name, effects, parse, traps::threats};

/// What a lesson step asks of the player's move, read from its line ([`Goal::parse`]).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Goal {
    /// `from=<sq>`: the move starts on this square (the lesson's piece, not another one).
    pub from: Option<Square>,
    /// `landed=<sq>`: the moving piece ends here (after a stab's retreat, a Sidestep).
    pub landed: Option<Square>,
    /// `capture=<sq>,<sq>…`: the pieces on these squares are gone (captured, or destroyed
    /// by an ability or a detonation).
    pub capture: Vec<Square>,
    /// `ability=<kind>`: the ability used (`recall`, `attract`, … as IAMN writes them).
    pub ability: Option<String>,
    /// `moved_from=<sq>`: the ability moved a piece away from this square (Attract, Recall).
    pub moved_from: Option<Square>,
    /// `charged`: the moving piece is charged where it ended.
    pub charged: bool,
    /// `merged`: two Cogs merged into a Gear.
    pub merged: bool,
    /// `promoted`: a Cog became a Gear on its end row.
    pub promoted: bool,
    /// `detonated`: a Phial detonated.
    pub detonated: bool,
    /// `safe`: afterwards the opponent could not win on its next move ([`threats`]: the
    /// engine's own answer, as the game page's warning uses it).
    pub safe: bool,
    /// `win=<reason>`: the mover's side has won, for this reason, its spaces written as
    /// `-` (`timeout`, `king-destroyed`).
    pub win: Option<String>,
}

impl Goal {
    /// Reads a goal's line. An unknown fact, a bad square or a missing value is an error,
    /// so that a typo in the lesson file fails its test instead of making a goal easier.
    pub fn parse(line: &str) -> Result<Goal, String> {
        let mut goal = Goal::default();
        let square = |s: &str| Square::parse(s).ok_or_else(|| format!("invalid square in goal: {s:?}"));
        for fact in line.split_whitespace() {
            let (key, value) = fact.split_once('=').unwrap_or((fact, ""));
            let needs_value = !matches!(key, "charged" | "merged" | "promoted" | "detonated" | "safe");
            if needs_value == value.is_empty() {
                return Err(format!("invalid goal fact: {fact:?}"));
            }
            match key {
                "from" => goal.from = Some(square(value)?),
                "landed" => goal.landed = Some(square(value)?),
                "capture" => goal.capture = value.split(',').map(square).collect::<Result<_, _>>()?,
                "ability" => goal.ability = Some(value.to_string()),
                "moved_from" => goal.moved_from = Some(square(value)?),
                "win" => goal.win = Some(value.replace('-', " ")),
                "charged" => goal.charged = true,
                "merged" => goal.merged = true,
                "promoted" => goal.promoted = true,
                "detonated" => goal.detonated = true,
                "safe" => goal.safe = true,
                _ => return Err(format!("unknown goal fact: {key:?}")),
            }
        }
        Ok(goal)
    }
}

/// Whether the move `mv` (IAMN) from `iapn` reaches `goal` (a [`Goal`]'s line). An illegal
/// move is an error (the engine's message), never a success.
#[wasm_bindgen(js_name = lessonGoal)]
pub fn lesson_goal(iapn: &str, mv: &str, goal: &str) -> Result<bool, String> {
    reaches(iapn, mv, &Goal::parse(goal)?)
}

/// [`lesson_goal`] with the goal already read.
pub fn reaches(iapn: &str, mv: &str, goal: &Goal) -> Result<bool, String> {
    let pos = parse(iapn)?;
    let mv = Move::parse(mv).map_err(|e| format!("invalid move: {e}"))?;
    let next = pos.play(mv).map_err(|e| e.to_string())?;
    let fx = effects(&pos, mv, &next);
    let is = |want: Option<Square>, got: &str| want.is_none_or(|w| w.to_string() == got);
    let gone = |s: &Square| {
        let s = s.to_string();
        fx.captured.contains(&s) || fx.destroyed.contains(&s)
    };
    let mut met = is(goal.from, &fx.from) && is(goal.landed, &fx.landed) && goal.capture.iter().all(gone);
    if let Some(a) = &goal.ability {
        met &= mv.ability.map(ability_name) == Some(a.as_str());
    }
    if let Some(a) = goal.moved_from {
        met &= fx.moved.iter().any(|m| m[0] == a.to_string());
    }
    if goal.charged {
        let landed = Square::parse(&fx.landed).and_then(|s| next.piece_at(s));
        met &= landed.is_some_and(|p| p.charged && p.side == pos.turn());
    }
    met &=
        (!goal.merged || fx.merged) && (!goal.promoted || fx.promoted) && (!goal.detonated || fx.detonated);
    if goal.safe {
        met &= threats(&next, pos.turn()).threats.is_empty();
    }
    if let Some(reason) = &goal.win {
        met &= matches!(next.outcome(), Some(Outcome::Win { winner, reason: r })
            if winner == pos.turn() && r.as_str() == reason);
    }
    Ok(met)
}
