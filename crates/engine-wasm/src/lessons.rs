//! The lessons' goals (issue 31, item 3: "Learn the pieces"). A lesson (public/lessons.json)
//! is a position and a goal per step; whether the player's move reaches that goal is
//! decided here, on what the engine says the move did ([`crate::effects`]) and on the
//! position and outcome after it, so that the browser and the native test over the same
//! file (tests/lessons.rs) judge a move alike and no rule is written twice.
//!
//! A goal is data: a few named facts about the move, every one of which must hold.

use engine::{Move, Outcome, Square};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use crate::{ability_name, effects, parse, traps::threats};

/// What a lesson step asks of the player's move. Unknown fields are refused, so that a
/// typo in the lesson file fails its test instead of making a goal easier.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Goal {
    /// The move starts on this square (the lesson's piece, not another one).
    pub from: Option<String>,
    /// The moving piece ends here (after a stab's retreat, a Sidestep).
    pub landed: Option<String>,
    /// The pieces on these squares are gone (captured, or destroyed by an ability or a
    /// detonation).
    #[serde(default)]
    pub capture: Vec<String>,
    /// The ability used (`recall`, `attract`, …).
    pub ability: Option<String>,
    /// A piece was moved away from this square by the ability (Attract, Recall).
    pub moved_from: Option<String>,
    /// The moving piece is charged where it ended.
    #[serde(default)]
    pub charged: bool,
    /// Two Cogs merged into a Gear.
    #[serde(default)]
    pub merged: bool,
    /// A Cog became a Gear on its end row.
    #[serde(default)]
    pub promoted: bool,
    /// A Phial detonated.
    #[serde(default)]
    pub detonated: bool,
    /// Afterwards the opponent could not win on its next move ([`threats`]: the engine's
    /// own answer, as the game page's warning uses it).
    #[serde(default)]
    pub safe: bool,
    /// The mover's side has won, for this reason (`king destroyed`, `timeout`).
    pub win: Option<String>,
}

/// Whether the move `mv` (IAMN) from `iapn` reaches `goal` (a [`Goal`] as JSON). An
/// illegal move is an error (the engine's message), never a success.
#[wasm_bindgen(js_name = lessonGoal)]
pub fn lesson_goal(iapn: &str, mv: &str, goal: &str) -> Result<bool, String> {
    let goal: Goal = serde_json::from_str(goal).map_err(|e| format!("invalid goal: {e}"))?;
    reaches(iapn, mv, &goal)
}

/// [`lesson_goal`] with the goal already read.
pub fn reaches(iapn: &str, mv: &str, goal: &Goal) -> Result<bool, String> {
    let pos = parse(iapn)?;
    let mv = Move::parse(mv).map_err(|e| format!("invalid move: {e}"))?;
    let next = pos.play(mv).map_err(|e| e.to_string())?;
    let fx = effects(&pos, mv, &next);
    let square = |s: &str| {
        Square::parse(s).map(|s| s.to_string()).ok_or_else(|| format!("invalid square in goal: {s}"))
    };
    let same = |want: &Option<String>, got: &str| -> Result<bool, String> {
        Ok(match want {
            Some(w) => square(w)? == got,
            None => true,
        })
    };
    let mut met = same(&goal.from, &fx.from)? && same(&goal.landed, &fx.landed)?;
    for c in &goal.capture {
        let c = square(c)?;
        met &= fx.captured.contains(&c) || fx.destroyed.contains(&c);
    }
    if let Some(a) = &goal.ability {
        met &= mv.ability.map(ability_name) == Some(a.as_str());
    }
    if let Some(a) = &goal.moved_from {
        let a = square(a)?;
        met &= fx.moved.iter().any(|m| m[0] == a);
    }
    if goal.charged {
        let landed = Square::parse(&fx.landed);
        met &= landed.and_then(|s| next.piece_at(s)).is_some_and(|p| p.charged && p.side == pos.turn());
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
