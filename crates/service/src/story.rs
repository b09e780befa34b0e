//! Story mode: the data and the pure rules (no I/O, no HTTP, no storage).
//!
//! One story per faction, shipped as JSON files in `stories/` at the repository root and
//! embedded at compile time ([`embedded`]). A story is a sequence of stages; each stage is
//! a starting position (IAPN), the side the player takes, the AI level of the opponent and
//! a [`Goal`]. [`Stories::parse`] validates everything once, so callers get positions that
//! are already parsed ([`Stage::position`]) and never re-parse. [`judge`] says whether a
//! stage's game, replayed from the stage's start, is won, lost or still going.
//!
//! File format (every object rejects unknown fields):
//!
//! ```json
//! { "id": "clockwork", "title": "…", "faction": "clockwork", "summary": "…",
//!   "badge": { "id": "clockwork-story", "name": "…", "description": "…" },
//!   "stages": [ { "title": "…", "intro": "…", "position": "<IAPN>", "side": "south",
//!                 "level": 1, "goal": { "kind": "win_within", "plies": 20 } } ] }
//! ```

use std::sync::OnceLock;

use engine::{iapn, Faction, Game, Position, Side, MAX_PLY};
use serde::{Deserialize, Serialize};

use crate::finish::FinishReason;

/// Fewest stages a story may have.
pub const MIN_STAGES: usize = 5;

/// What the player must do in a stage. Plies are counted from the stage's start (the
/// moves of both sides played since the stage's position), not from the position's ply
/// field.
///
/// How [`judge`] rules, with `plies` the plies played in the stage and "finished" meaning
/// the game has a result (by the rules or recorded by the server: resignation, deadline…):
///
/// - [`Goal::Win`]: won iff finished with the player the winner; lost if finished any
///   other way (a loss or a draw); pending otherwise.
/// - [`Goal::WinWithin`]: won iff finished with the player the winner and `plies <= N`;
///   lost if finished any other way (a win after N plies included), or if `plies >= N`
///   and the player has not won; pending otherwise.
/// - [`Goal::Survive`]: won if finished with the player the winner (at any ply), or if
///   `plies >= N` unless the game finished with the player losing at exactly N plies (a
///   draw at N plies, or an unfinished game at N plies or more, is a success); lost if
///   finished with the player not winning before N plies (a draw before N is lost);
///   pending otherwise.
/// - [`Goal::Timeout`]: won iff finished with the player the winner by Timeout (reason
///   [`FinishReason::Timeout`], not a correspondence time forfeit); lost if finished any other way; pending otherwise.
///
/// In JSON: `{"kind": "win"}`, `{"kind": "win_within", "plies": N}`, `{"kind": "survive",
/// "plies": N}`, `{"kind": "timeout"}`; other fields are rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "GoalFile", into = "GoalFile")]
pub enum Goal {
    /// Win the game, any way.
    Win,
    /// Win within `plies` plies of the stage's start.
    WinWithin { plies: u16 },
    /// Do not lose during the first `plies` plies of the stage.
    Survive { plies: u16 },
    /// Win by Father Time's Timeout.
    Timeout,
}

/// A goal as written (serde's internally tagged enums accept stray fields on unit
/// variants; this form rejects them).
#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct GoalFile {
    kind: GoalKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    plies: Option<u16>,
}

#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum GoalKind {
    Win,
    WinWithin,
    Survive,
    Timeout,
}

impl TryFrom<GoalFile> for Goal {
    type Error = String;

    fn try_from(g: GoalFile) -> Result<Goal, String> {
        match (g.kind, g.plies) {
            (GoalKind::Win, None) => Ok(Goal::Win),
            (GoalKind::Timeout, None) => Ok(Goal::Timeout),
            (GoalKind::WinWithin, Some(plies)) => Ok(Goal::WinWithin { plies }),
            (GoalKind::Survive, Some(plies)) => Ok(Goal::Survive { plies }),
            (GoalKind::Win | GoalKind::Timeout, Some(_)) => {
                Err("goals 'win' and 'timeout' take no plies".to_owned())
            }
            (GoalKind::WinWithin | GoalKind::Survive, None) => {
                Err("goals 'win_within' and 'survive' need plies".to_owned())
            }
        }
    }
}

impl From<Goal> for GoalFile {
    fn from(g: Goal) -> GoalFile {
        let kind = match g {
            Goal::Win => GoalKind::Win,
            Goal::WinWithin { .. } => GoalKind::WinWithin,
            Goal::Survive { .. } => GoalKind::Survive,
            Goal::Timeout => GoalKind::Timeout,
        };
        GoalFile { kind, plies: g.plies() }
    }
}

impl Goal {
    /// The goal's ply count, for the goals that have one.
    pub fn plies(&self) -> Option<u16> {
        match *self {
            Goal::WinWithin { plies } | Goal::Survive { plies } => Some(plies),
            Goal::Win | Goal::Timeout => None,
        }
    }
}

/// The badge a player earns by finishing every stage of a story.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Badge {
    pub id: String,
    pub name: String,
    pub description: String,
}

/// One stage: a position to play from, against the AI at `level`, with a goal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stage {
    pub title: String,
    /// Story text that also says what the stage teaches.
    pub intro: String,
    /// The starting position, validated: it parses, is not over, and the player's side
    /// plays the story's faction. Serialized as IAPN text.
    pub position: Position,
    /// The side the player takes; the AI plays the other.
    pub side: Side,
    /// The AI's level (`ai::level::level`).
    pub level: u8,
    pub goal: Goal,
}

impl Stage {
    /// A fresh game from the stage's starting position.
    pub fn game(&self) -> Game {
        Game::new(self.position)
    }

    /// The goal in words ([`goal_text`]).
    pub fn goal_text(&self) -> String {
        goal_text(&self.goal)
    }
}

/// A story: the player plays `faction` through every stage.
///
/// Deserializing a `Story` directly checks only the shape and the positions' IAPN syntax
/// (the engine's serde); [`Stories::parse`] runs every check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Story {
    pub id: String,
    pub title: String,
    pub faction: Faction,
    /// One sentence.
    pub summary: String,
    pub badge: Badge,
    pub stages: Vec<Stage>,
}

impl Story {
    /// The stage at `index` (0-based).
    pub fn stage(&self, index: usize) -> Option<&Stage> {
        self.stages.get(index)
    }
}

/// Every story, validated, in the order given to [`Stories::parse`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stories {
    stories: Vec<Story>,
}

/// The file format: like [`Story`] / [`Stage`] but with the position as text, so that a
/// bad position is reported with the file, the stage and the parser's own message.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StoryFile {
    id: String,
    title: String,
    faction: Faction,
    summary: String,
    badge: Badge,
    stages: Vec<StageFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StageFile {
    title: String,
    intro: String,
    position: String,
    side: Side,
    level: u8,
    goal: Goal,
}

/// `dir/clockwork.json` → `clockwork`.
fn file_stem(file: &str) -> &str {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    base.strip_suffix(".json").unwrap_or(base)
}

fn check_text(what: &str, text: &str) -> Result<(), String> {
    if text.trim().is_empty() {
        Err(format!("{what} is empty"))
    } else {
        Ok(())
    }
}

fn check_stage(faction: Faction, raw: StageFile) -> Result<Stage, String> {
    check_text("title", &raw.title)?;
    check_text("intro", &raw.intro)?;
    let position = iapn::parse(&raw.position).map_err(|e| format!("invalid position: {e}"))?;
    if let Some(outcome) = position.outcome() {
        return Err(format!("the position is already over ({outcome})"));
    }
    let held = position.faction(raw.side);
    if held != faction {
        return Err(format!("the player's side ({}) plays {held}, but the story is for {faction}", raw.side));
    }
    if ai::level::level(raw.level).is_none() {
        let known: Vec<String> = ai::level::LEVELS.iter().map(|l| l.number.to_string()).collect();
        return Err(format!("AI level {} does not exist (levels: {})", raw.level, known.join(", ")));
    }
    if let Some(plies) = raw.goal.plies() {
        if !(1..=MAX_PLY).contains(&plies) {
            return Err(format!("goal plies {plies} must be 1-{MAX_PLY}"));
        }
        if position.ply() + plies > MAX_PLY {
            return Err(format!(
                "goal plies {plies} from the position's ply {} pass the {MAX_PLY}-ply limit",
                position.ply()
            ));
        }
    }
    Ok(Stage {
        title: raw.title,
        intro: raw.intro,
        position,
        side: raw.side,
        level: raw.level,
        goal: raw.goal,
    })
}

fn check_story(file: &str, text: &str) -> Result<Story, String> {
    let raw: StoryFile =
        serde_json::from_str(text).map_err(|e| format!("{file}: invalid story JSON: {e}"))?;
    let stem = file_stem(file);
    if raw.id != stem {
        return Err(format!("{file}: story id '{}' does not match the file name '{stem}'", raw.id));
    }
    for (what, t) in [
        ("title", &raw.title),
        ("summary", &raw.summary),
        ("badge id", &raw.badge.id),
        ("badge name", &raw.badge.name),
        ("badge description", &raw.badge.description),
    ] {
        check_text(what, t).map_err(|e| format!("{file}: {e}"))?;
    }
    if raw.stages.len() < MIN_STAGES {
        return Err(format!(
            "{file}: the story has {} stages, at least {MIN_STAGES} are needed",
            raw.stages.len()
        ));
    }
    let mut stages = Vec::with_capacity(raw.stages.len());
    for (index, stage) in raw.stages.into_iter().enumerate() {
        let title = stage.title.clone();
        stages.push(
            check_stage(raw.faction, stage)
                .map_err(|e| format!("{file}: stage {index} (\"{title}\", 0-based): {e}"))?,
        );
    }
    Ok(Story {
        id: raw.id,
        title: raw.title,
        faction: raw.faction,
        summary: raw.summary,
        badge: raw.badge,
        stages,
    })
}

impl Stories {
    /// Parses and validates story files, given as `(file name, JSON text)`; the file name's
    /// last component without `.json` must be the story's id. Checks: the JSON shape (no
    /// unknown fields), non-empty texts, at least [`MIN_STAGES`] stages, every position
    /// parses and is not over, the player's side plays the story's faction, the AI level
    /// exists, goal plies are 1-160 (and fit before the 160-ply limit), story ids and
    /// badge ids are unique. The first error is returned, naming the file and stage.
    pub fn parse(files: &[(&str, &str)]) -> Result<Stories, String> {
        let mut stories: Vec<Story> = Vec::with_capacity(files.len());
        for (file, text) in files {
            let story = check_story(file, text)?;
            if let Some(other) = stories.iter().find(|s| s.id == story.id) {
                return Err(format!("{file}: story id '{}' is used twice", other.id));
            }
            if let Some(other) = stories.iter().find(|s| s.badge.id == story.badge.id) {
                return Err(format!(
                    "{file}: badge id '{}' is already used by story '{}'",
                    story.badge.id, other.id
                ));
            }
            stories.push(story);
        }
        Ok(Stories { stories })
    }

    /// The story with this id.
    pub fn get(&self, id: &str) -> Option<&Story> {
        self.stories.iter().find(|s| s.id == id)
    }

    /// Every story, in file order.
    pub fn all(&self) -> &[Story] {
        &self.stories
    }
}

/// The story files built into the binary, in the order of [`embedded`].
pub const EMBEDDED_FILES: [(&str, &str); 3] = [
    ("clockwork.json", include_str!("../../../stories/clockwork.json")),
    ("blades.json", include_str!("../../../stories/blades.json")),
    ("axiom.json", include_str!("../../../stories/axiom.json")),
];

/// The built-in stories (Clockwork, Blades, Axiom), parsed and validated once. The unit
/// tests validate the same files, so this cannot fail in a tested build.
pub fn embedded() -> &'static Stories {
    static STORIES: OnceLock<Stories> = OnceLock::new();
    STORIES.get_or_init(|| match Stories::parse(&EMBEDDED_FILES) {
        Ok(s) => s,
        Err(e) => panic!("the embedded stories are invalid: {e}"),
    })
}

/// The outcome of a stage's game so far, under the stage's [`Goal`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Not decided yet: play on.
    Pending,
    /// The goal is met.
    Won,
    /// The goal can no longer be met.
    Lost,
}

/// Judges a stage's game (see [`Goal`] for each rule). `game` is the game replayed from
/// the stage's start, so `game.moves().len()` is the plies played in the stage. `finish`
/// is the result recorded by the server once the game has ended: the winner (None for a
/// draw) and the [`FinishReason`]. When `finish` is None but the game is over by the
/// rules, the engine's outcome is used.
pub fn judge(
    goal: &Goal,
    player: Side,
    game: &Game,
    finish: Option<(Option<Side>, FinishReason)>,
) -> Verdict {
    let plies = game.moves().len();
    let finish = finish.or_else(|| {
        game.outcome().map(|o| {
            let reason = match o {
                engine::Outcome::Win { reason, .. } => reason.into(),
                engine::Outcome::Draw { reason } => reason.into(),
            };
            (o.winner(), reason)
        })
    });
    let won = finish.is_some_and(|(winner, _)| winner == Some(player));
    match *goal {
        Goal::Win => match finish {
            Some(_) if won => Verdict::Won,
            Some(_) => Verdict::Lost,
            None => Verdict::Pending,
        },
        Goal::WinWithin { plies: n } => {
            let n = usize::from(n);
            match finish {
                Some(_) if won && plies <= n => Verdict::Won,
                Some(_) => Verdict::Lost,
                None if plies >= n => Verdict::Lost,
                None => Verdict::Pending,
            }
        }
        Goal::Survive { plies: n } => {
            let n = usize::from(n);
            let lost_by_player = finish.is_some_and(|(winner, _)| winner == Some(player.opponent()));
            match finish {
                Some(_) if won => Verdict::Won,
                Some(_) if plies < n => Verdict::Lost,
                Some(_) if plies == n && lost_by_player => Verdict::Lost,
                _ if plies >= n => Verdict::Won,
                _ => Verdict::Pending,
            }
        }
        Goal::Timeout => match finish {
            Some((_, FinishReason::Timeout)) if won => Verdict::Won,
            Some(_) => Verdict::Lost,
            None => Verdict::Pending,
        },
    }
}

/// The goal in words, for the client: "Win the game", "Win within 20 plies", "Survive 30
/// plies", "Win by Timeout".
pub fn goal_text(goal: &Goal) -> String {
    let plies = |n: u16| if n == 1 { "1 ply".to_owned() } else { format!("{n} plies") };
    match *goal {
        Goal::Win => "Win the game".to_owned(),
        Goal::WinWithin { plies: n } => format!("Win within {}", plies(n)),
        Goal::Survive { plies: n } => format!("Survive {} without losing", plies(n)),
        Goal::Timeout => "Win by Timeout: bring Father Time to his end row".to_owned(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use engine::{Move, Role, Square};
    use serde_json::json;

    // --- helpers ---

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    fn game(iapn_text: &str, moves: &[&str]) -> Game {
        let mut g = Game::new(iapn::parse(iapn_text).unwrap());
        for m in moves {
            g.play(Move::parse(m).unwrap()).unwrap();
        }
        g
    }

    fn count(pos: &Position, side: Side, role: Role) -> usize {
        Square::board_order()
            .filter(|&s| pos.piece_at(s).is_some_and(|p| p.side == side && p.role == role))
            .count()
    }

    fn stage_json(position: &str, side: &str, level: u8, goal: serde_json::Value) -> serde_json::Value {
        json!({"title": "A stage", "intro": "Some text.", "position": position, "side": side,
               "level": level, "goal": goal})
    }

    const CB_START: &str = "clockwork blades wkbamabkw/ddddddddd/9/9/9/9/9/CCCCCCCCC/PSDHFHDSP s - 0";

    fn story_json(id: &str, badge: &str, stages: Vec<serde_json::Value>) -> String {
        json!({"id": id, "title": "A story", "faction": "clockwork", "summary": "One sentence.",
               "badge": {"id": badge, "name": "Badge", "description": "Earned."}, "stages": stages})
        .to_string()
    }

    fn five(stage: serde_json::Value) -> Vec<serde_json::Value> {
        let mut v = vec![stage_json(CB_START, "south", 1, json!({"kind": "win"})); 4];
        v.insert(2, stage);
        v
    }

    fn parse_one(file: &str, text: &str) -> Result<Stories, String> {
        Stories::parse(&[(file, text)])
    }

    // --- the embedded data ---

    #[test]
    fn embedded_stories_validate() {
        let stories = embedded();
        assert_eq!(stories.all().len(), 3);
        let factions: Vec<Faction> = stories.all().iter().map(|s| s.faction).collect();
        assert_eq!(factions, [Faction::Clockwork, Faction::Blades, Faction::Axiom]);
        for story in stories.all() {
            assert_eq!(stories.get(&story.id).unwrap().id, story.id);
            assert_eq!(story.id, story.faction.name());
            assert!(story.stages.len() >= MIN_STAGES, "{}", story.id);
            assert!(story.stage(0).is_some() && story.stage(story.stages.len()).is_none());
            let mut last_level = 0;
            for stage in &story.stages {
                assert_eq!(stage.position.faction(stage.side), story.faction);
                assert!(!stage.position.is_over());
                // Rising difficulty.
                assert!(stage.level >= last_level, "{}: {}", story.id, stage.title);
                last_level = stage.level;
                assert!(!stage.goal_text().is_empty());
            }
            // Custom positions first, the full armies at the end.
            let last = story.stages.last().unwrap();
            assert_eq!(last.position.ply(), 0);
            assert!(story.stages.iter().any(|s| s.position.to_setup()
                == engine::Setup::start(s.position.faction(Side::South), s.position.faction(Side::North))));
        }
        assert!(stories.get("robots").is_none());
        // Every goal kind is used somewhere.
        let goals: Vec<Goal> = stories.all().iter().flat_map(|s| s.stages.iter().map(|st| st.goal)).collect();
        assert!(goals.contains(&Goal::Win) && goals.contains(&Goal::Timeout));
        assert!(goals.iter().any(|g| matches!(g, Goal::WinWithin { .. })));
        assert!(goals.iter().any(|g| matches!(g, Goal::Survive { .. })));
        // Timeout is a Clockwork-only win.
        for story in stories.all() {
            for stage in &story.stages {
                if stage.goal == Goal::Timeout {
                    assert_eq!(story.faction, Faction::Clockwork);
                }
            }
        }
    }

    #[test]
    fn stages_serialize_with_iapn_positions_and_round_trip() {
        let story = embedded().get("axiom").unwrap();
        let v = serde_json::to_value(story).unwrap();
        assert_eq!(v["stages"][0]["position"], json!(iapn::format(&story.stages[0].position)));
        assert_eq!(v["stages"][1]["goal"], json!({"kind": "win_within", "plies": 8}));
        let back: Story = serde_json::from_value(v).unwrap();
        assert_eq!(&back, story);
        assert_eq!(serde_json::to_value(Verdict::Won).unwrap(), json!("won"));
    }

    // --- validation errors ---

    #[test]
    fn a_valid_story_parses() {
        let text =
            story_json("x", "x-badge", five(stage_json(CB_START, "south", 6, json!({"kind": "timeout"}))));
        let s = parse_one("stories/x.json", &text).unwrap();
        assert_eq!(s.get("x").unwrap().stages.len(), 5);
        assert_eq!(s.get("x").unwrap().stage(2).unwrap().goal, Goal::Timeout);
    }

    #[test]
    fn bad_iapn_is_reported_with_file_and_stage() {
        let bad = "clockwork blades wkbamabkw/ddddddddd/9/9/9/9/8/CCCCCCCCC/PSDHFHDSP s - 0";
        let e = parse_one(
            "x.json",
            &story_json("x", "b", five(stage_json(bad, "south", 1, json!({"kind": "win"})))),
        )
        .unwrap_err();
        assert!(e.starts_with("x.json: stage 2 (\"A stage\", 0-based): invalid position: rank 3"), "{e}");
    }

    #[test]
    fn a_finished_position_is_rejected() {
        // North has no king-piece: South has already won.
        let over = "clockwork blades 8w/9/9/9/9/9/9/9/4F4 s - 0";
        let e = parse_one(
            "x.json",
            &story_json("x", "b", five(stage_json(over, "south", 1, json!({"kind": "win"})))),
        )
        .unwrap_err();
        assert!(e.contains("stage 2") && e.contains("already over (south wins: king destroyed)"), "{e}");
    }

    #[test]
    fn an_unknown_level_is_rejected() {
        for level in [0, 7] {
            let text =
                story_json("x", "b", five(stage_json(CB_START, "south", level, json!({"kind": "win"}))));
            let e = parse_one("x.json", &text).unwrap_err();
            assert!(
                e.contains(&format!("stage 2 (\"A stage\", 0-based): AI level {level} does not exist")),
                "{e}"
            );
        }
    }

    #[test]
    fn too_few_stages_are_rejected() {
        let mut stages = five(stage_json(CB_START, "south", 1, json!({"kind": "win"})));
        stages.pop();
        let e = parse_one("x.json", &story_json("x", "b", stages)).unwrap_err();
        assert_eq!(e, "x.json: the story has 4 stages, at least 5 are needed");
    }

    #[test]
    fn the_players_side_must_hold_the_storys_faction() {
        let e = parse_one(
            "x.json",
            &story_json("x", "b", five(stage_json(CB_START, "north", 1, json!({"kind": "win"})))),
        )
        .unwrap_err();
        assert!(
            e.contains("stage 2") && e.contains("(north) plays blades, but the story is for clockwork"),
            "{e}"
        );
    }

    #[test]
    fn duplicate_ids_and_mismatched_file_names_are_rejected() {
        let a = story_json("x", "badge-a", five(stage_json(CB_START, "south", 1, json!({"kind": "win"}))));
        let b = story_json("x", "badge-b", five(stage_json(CB_START, "south", 1, json!({"kind": "win"}))));
        let e = Stories::parse(&[("one/x.json", &a), ("two/x.json", &b)]).unwrap_err();
        assert_eq!(e, "two/x.json: story id 'x' is used twice");

        let c = story_json("y", "badge-a", five(stage_json(CB_START, "south", 1, json!({"kind": "win"}))));
        let e = Stories::parse(&[("x.json", &a), ("y.json", &c)]).unwrap_err();
        assert_eq!(e, "y.json: badge id 'badge-a' is already used by story 'x'");

        let e = parse_one("stories/z.json", &a).unwrap_err();
        assert_eq!(e, "stories/z.json: story id 'x' does not match the file name 'z'");
    }

    #[test]
    fn the_json_shape_is_checked() {
        let stage = |goal| five(stage_json(CB_START, "south", 1, goal));
        let mut v: serde_json::Value =
            serde_json::from_str(&story_json("x", "b", stage(json!({"kind": "win"})))).unwrap();
        v["colour"] = json!("red");
        let e = parse_one("x.json", &v.to_string()).unwrap_err();
        assert!(e.starts_with("x.json: invalid story JSON: unknown field `colour`"), "{e}");

        for (goal, needle) in [
            (json!({"kind": "checkmate"}), "unknown variant `checkmate`"),
            (json!({"kind": "survive"}), "need plies"),
            (json!({"kind": "win", "plies": 3}), "take no plies"),
            (json!({"kind": "win_within", "plies": 3, "turns": 2}), "unknown field `turns`"),
            (json!({"kind": "win_within", "plies": -3}), "invalid value"),
        ] {
            let e = parse_one("x.json", &story_json("x", "b", stage(goal))).unwrap_err();
            assert!(e.contains("invalid story JSON") && e.contains(needle), "{e}");
        }
        let e = parse_one("x.json", "{").unwrap_err();
        assert!(e.starts_with("x.json: invalid story JSON: EOF"), "{e}");
        let mut v: serde_json::Value =
            serde_json::from_str(&story_json("x", "b", stage(json!({"kind": "win"})))).unwrap();
        v["title"] = json!(" ");
        assert_eq!(parse_one("x.json", &v.to_string()).unwrap_err(), "x.json: title is empty");
    }

    #[test]
    fn goal_plies_must_fit() {
        for plies in [0, 161] {
            let text = story_json(
                "x",
                "b",
                five(stage_json(CB_START, "south", 1, json!({"kind": "survive", "plies": plies}))),
            );
            let e = parse_one("x.json", &text).unwrap_err();
            assert!(e.contains(&format!("goal plies {plies} must be 1-160")), "{e}");
        }
        let late = "clockwork blades wkbamabkw/ddddddddd/9/9/9/9/9/CCCCCCCCC/PSDHFHDSP s - 150";
        let text = story_json(
            "x",
            "b",
            five(stage_json(late, "south", 1, json!({"kind": "win_within", "plies": 11}))),
        );
        let e = parse_one("x.json", &text).unwrap_err();
        assert!(e.contains("goal plies 11 from the position's ply 150 pass the 160-ply limit"), "{e}");
        let text = story_json(
            "x",
            "b",
            five(stage_json(late, "south", 1, json!({"kind": "win_within", "plies": 10}))),
        );
        assert!(parse_one("x.json", &text).is_ok());
    }

    // --- judging, on real games ---

    /// South's Hands on d3 can take the Mistress on d7; both sides have spare moves.
    const HANDS: &str = "clockwork blades 8w/9/1d1m2d2/9/9/9/3H5/2C2CC2/P3F4 s - 0";
    /// North's Sword on e5 can take Father Time on e1 whenever South does not prevent it.
    const SWORD: &str = "clockwork blades 4m4/9/9/9/4w4/9/9/9/4F3G s - 0";
    /// Father Time on e7 with e8 and e9 empty: one move (e7e9) or two from Timeout.
    const CLOCK: &str = "clockwork blades m8/9/w3F4/9/9/9/9/9/8G s - 0";
    /// Two Gears shuffle two plies before the 160-ply limit.
    const LATE: &str = "clockwork clockwork 4f3g/9/9/9/9/9/9/9/4F3G s - 158";

    fn j(goal: Goal, player: Side, g: &Game) -> Verdict {
        judge(&goal, player, g, None)
    }

    #[test]
    fn the_scenario_games_end_as_the_tests_assume() {
        let won = game(HANDS, &["a1a2", "i9i8", "d3d7"]);
        assert_eq!(won.outcome().unwrap().to_string(), "south wins: king destroyed");
        let lost = game(SWORD, &["i1h1", "e5e1"]);
        assert_eq!(lost.outcome().unwrap().to_string(), "north wins: king destroyed");
        let timeout = game(CLOCK, &["e7e9"]);
        assert_eq!(timeout.outcome().unwrap().to_string(), "south wins: timeout");
        let drawn = game(LATE, &["i1h1", "i9h9"]);
        assert_eq!(drawn.outcome().unwrap().to_string(), "draw: 160 plies");
    }

    #[test]
    fn judging_win() {
        let goal = Goal::Win;
        assert_eq!(j(goal, Side::South, &game(HANDS, &[])), Verdict::Pending);
        assert_eq!(j(goal, Side::South, &game(HANDS, &["a1a2", "i9i8"])), Verdict::Pending);
        assert_eq!(j(goal, Side::South, &game(HANDS, &["d3d7"])), Verdict::Won);
        assert_eq!(j(goal, Side::North, &game(HANDS, &["d3d7"])), Verdict::Lost);
        assert_eq!(j(goal, Side::South, &game(SWORD, &["i1h1", "e5e1"])), Verdict::Lost);
        assert_eq!(j(goal, Side::South, &game(CLOCK, &["e7e9"])), Verdict::Won);
        assert_eq!(j(goal, Side::South, &game(LATE, &["i1h1", "i9h9"])), Verdict::Lost);
        // Results recorded by the server.
        let g = game(HANDS, &["a1a2"]);
        assert_eq!(
            judge(&goal, Side::South, &g, Some((Some(Side::South), FinishReason::Resignation))),
            Verdict::Won
        );
        assert_eq!(
            judge(&goal, Side::South, &g, Some((Some(Side::North), FinishReason::TimeForfeit))),
            Verdict::Lost
        );
        assert_eq!(judge(&goal, Side::South, &g, Some((None, FinishReason::PlyLimit))), Verdict::Lost);
    }

    #[test]
    fn judging_win_within() {
        let within = |n| Goal::WinWithin { plies: n };
        let won3 = game(HANDS, &["a1a2", "i9i8", "d3d7"]);
        assert_eq!(j(within(3), Side::South, &won3), Verdict::Won, "a win on exactly N plies counts");
        assert_eq!(j(within(4), Side::South, &won3), Verdict::Won);
        assert_eq!(j(within(2), Side::South, &won3), Verdict::Lost, "a win after N plies does not");
        assert_eq!(j(within(1), Side::South, &game(HANDS, &["d3d7"])), Verdict::Won);
        // Not won yet: pending before N plies, lost at N.
        let two = game(HANDS, &["a1a2", "i9i8"]);
        assert_eq!(j(within(3), Side::South, &two), Verdict::Pending);
        assert_eq!(j(within(2), Side::South, &two), Verdict::Lost);
        assert_eq!(j(within(1), Side::South, &two), Verdict::Lost);
        assert_eq!(j(within(5), Side::South, &game(HANDS, &[])), Verdict::Pending);
        // Losses and draws.
        assert_eq!(j(within(10), Side::South, &game(SWORD, &["i1h1", "e5e1"])), Verdict::Lost);
        assert_eq!(j(within(10), Side::South, &game(LATE, &["i1h1", "i9h9"])), Verdict::Lost);
        assert_eq!(j(within(10), Side::North, &game(SWORD, &["i1h1", "e5e1"])), Verdict::Won);
        // A win recorded by the server (the opponent resigned) within N.
        assert_eq!(
            judge(&within(3), Side::South, &two, Some((Some(Side::South), FinishReason::Resignation))),
            Verdict::Won
        );
        assert_eq!(
            judge(&within(1), Side::South, &two, Some((Some(Side::South), FinishReason::Resignation))),
            Verdict::Lost
        );
    }

    #[test]
    fn judging_survive() {
        let survive = |n| Goal::Survive { plies: n };
        let lost2 = game(SWORD, &["i1h1", "e5e1"]);
        assert_eq!(j(survive(3), Side::South, &lost2), Verdict::Lost, "lost before N");
        assert_eq!(j(survive(2), Side::South, &lost2), Verdict::Lost, "lost on exactly the N-th ply");
        assert_eq!(j(survive(1), Side::South, &lost2), Verdict::Won, "lost only after N plies");
        assert_eq!(j(survive(2), Side::North, &lost2), Verdict::Won, "winning counts");
        // Unfinished: pending before N, won at N and later.
        let one = game(SWORD, &["i1h1"]);
        assert_eq!(j(survive(2), Side::South, &one), Verdict::Pending);
        assert_eq!(j(survive(1), Side::South, &one), Verdict::Won);
        assert_eq!(j(survive(1), Side::South, &game(SWORD, &["i1h1", "e5e4"])), Verdict::Won);
        assert_eq!(j(survive(1), Side::South, &game(SWORD, &[])), Verdict::Pending);
        // Winning early is a success.
        assert_eq!(j(survive(30), Side::South, &game(HANDS, &["d3d7"])), Verdict::Won);
        // A draw before N is lost; a draw at N is not.
        let drawn = game(LATE, &["i1h1", "i9h9"]);
        assert_eq!(j(survive(3), Side::South, &drawn), Verdict::Lost);
        assert_eq!(j(survive(2), Side::South, &drawn), Verdict::Won);
        // Results recorded by the server.
        assert_eq!(
            judge(&survive(2), Side::South, &one, Some((Some(Side::North), FinishReason::Resignation))),
            Verdict::Lost
        );
        assert_eq!(
            judge(&survive(1), Side::South, &one, Some((Some(Side::North), FinishReason::TimeForfeit))),
            Verdict::Lost
        );
        assert_eq!(
            judge(&survive(9), Side::South, &one, Some((Some(Side::South), FinishReason::TimeForfeit))),
            Verdict::Won
        );
    }

    #[test]
    fn judging_timeout() {
        let goal = Goal::Timeout;
        assert_eq!(j(goal, Side::South, &game(CLOCK, &[])), Verdict::Pending);
        assert_eq!(j(goal, Side::South, &game(CLOCK, &["e7e8", "a9b9"])), Verdict::Pending);
        assert_eq!(j(goal, Side::South, &game(CLOCK, &["e7e9"])), Verdict::Won);
        assert_eq!(j(goal, Side::South, &game(CLOCK, &["e7e8", "a7a8", "e8e9"])), Verdict::Won);
        // Another way of winning does not count.
        assert_eq!(j(goal, Side::South, &game(HANDS, &["d3d7"])), Verdict::Lost);
        assert_eq!(j(goal, Side::South, &game(SWORD, &["i1h1", "e5e1"])), Verdict::Lost);
        assert_eq!(j(goal, Side::South, &game(LATE, &["i1h1", "i9h9"])), Verdict::Lost);
        let g = game(CLOCK, &[]);
        assert_eq!(
            judge(&goal, Side::South, &g, Some((Some(Side::South), FinishReason::Resignation))),
            Verdict::Lost
        );
        assert_eq!(
            judge(&goal, Side::South, &g, Some((Some(Side::South), FinishReason::Timeout))),
            Verdict::Won
        );
        // A correspondence time forfeit is not Father Time's Timeout.
        assert_eq!(
            judge(&goal, Side::South, &g, Some((Some(Side::South), FinishReason::TimeForfeit))),
            Verdict::Lost
        );
    }

    #[test]
    fn goal_texts() {
        assert_eq!(goal_text(&Goal::Win), "Win the game");
        assert_eq!(goal_text(&Goal::WinWithin { plies: 20 }), "Win within 20 plies");
        assert_eq!(goal_text(&Goal::WinWithin { plies: 1 }), "Win within 1 ply");
        assert_eq!(goal_text(&Goal::Survive { plies: 30 }), "Survive 30 plies without losing");
        assert!(goal_text(&Goal::Timeout).starts_with("Win by Timeout"));
    }

    // --- the scenarios are as their intros describe ---

    fn stage(story: &str, index: usize) -> &'static Stage {
        embedded().get(story).unwrap().stage(index).unwrap()
    }

    /// The legal moves of the stage's start that win at once.
    fn winning_moves(st: &Stage) -> Vec<String> {
        st.position
            .legal_moves()
            .into_iter()
            .filter(|m| {
                let mut g = st.game();
                g.play(*m).unwrap().and_then(|o| o.winner()) == Some(st.side)
            })
            .map(|m| m.to_string())
            .collect()
    }

    #[test]
    fn every_first_stage_can_be_won_in_one_move() {
        for story in embedded().all() {
            let st = story.stage(0).unwrap();
            assert_eq!(st.position.turn(), st.side, "{}", story.id);
            assert_eq!(st.level, 1);
            assert!(!winning_moves(st).is_empty(), "{}", story.id);
        }
        // The moves the intros describe.
        assert_eq!(winning_moves(stage("clockwork", 0)), ["d3d7"]);
        assert_eq!(winning_moves(stage("blades", 0)), ["d4d6"]);
        let mut burns = winning_moves(stage("axiom", 0));
        burns.sort();
        assert_eq!(burns, ["d6d7/burn:e8", "d6e7/burn:e8"]);
    }

    #[test]
    fn father_times_march_is_three_moves_up_an_open_file() {
        let st = stage("clockwork", 1);
        assert_eq!(st.goal, Goal::Timeout);
        let p = st.position;
        assert_eq!(p.piece_at(sq("e4")).map(|x| (x.side, x.role)), Some((Side::South, Role::FatherTime)));
        for s in ["e5", "e6", "e7", "e8", "e9"] {
            assert!(p.piece_at(sq(s)).is_none(), "{s}");
        }
        assert_eq!(count(&p, Side::North, Role::Torch), 1);
        assert_eq!(count(&p, Side::North, Role::Phial), 2);
        // e4e6, e6e8, e8e9 while North shuffles its Scientist far away.
        let g = game(&iapn::format(&p), &["e4e6", "b9a9", "e6e8", "a9b9", "e8e9"]);
        assert_eq!(judge(&st.goal, st.side, &g, None), Verdict::Won);
    }

    #[test]
    fn the_last_enemy_daggers_reach_rank_9_and_assassinate() {
        let st = stage("blades", 1);
        let moves: Vec<String> = st.position.legal_moves().iter().map(|m| m.to_string()).collect();
        for m in ["c7c9/assassinate:c6", "c7c9/assassinate:g6", "g7g9/assassinate:c6", "g7g9/assassinate:g6"]
        {
            assert!(moves.iter().any(|x| x == m), "{m}");
        }
        // Not the Scientist yet: he is not the last enemy piece.
        assert!(!moves.iter().any(|x| x.ends_with("assassinate:e9")));
        assert_eq!(count(&st.position, Side::North, Role::Phial), 2);
        assert_eq!(st.position.piece_at(sq("e9")).unwrap().role, Role::Scientist);
    }

    #[test]
    fn the_phials_fury_two_square_advance_cannot_be_stopped() {
        let st = stage("axiom", 1);
        let start = iapn::format(&st.position);
        for (first, second) in [("c6c8", "c8c9"), ("g6g8", "g8g9")] {
            let g = game(&start, &[first]);
            for reply in g.legal_moves() {
                let mut g = g.clone();
                g.play(reply).unwrap();
                let mut g2 = g.clone();
                g2.play(Move::parse(second).unwrap()).unwrap();
                assert_eq!(judge(&st.goal, st.side, &g2, None), Verdict::Won, "{first} {reply} {second}");
            }
        }
        // The one-square advances are guarded: some reply captures the Phial.
        for (first, square) in [("c6c7", "c7"), ("g6g7", "g7")] {
            let g = game(&start, &[first]);
            let taken = g.legal_moves().into_iter().any(|reply| {
                let mut g = g.clone();
                g.play(reply).unwrap();
                g.position().piece_at(sq(square)).is_none_or(|p| p.side == Side::North)
            });
            assert!(taken, "{first}");
        }
    }

    #[test]
    fn piece_counts_in_the_intros_are_right() {
        // Hold the Hour: two Swords, a Sabres, a Sickle and three Daggers against Father
        // Time, a Dial, a Pendulum, a Spring, a Gear and two Cogs.
        let p = stage("clockwork", 3).position;
        let n = |role| count(&p, Side::North, role);
        let s = |role| count(&p, Side::South, role);
        assert_eq!((n(Role::Sword), n(Role::Sabres), n(Role::Sickle), n(Role::Dagger)), (2, 1, 1, 3));
        let own = [Role::Dial, Role::Pendulum, Role::Spring, Role::Gear, Role::Cog, Role::Hands];
        assert_eq!(own.map(s), [1, 1, 1, 1, 2, 0]);
        // Stop the Clock: a Sword, an Axe and three Daggers.
        let p = stage("blades", 2).position;
        assert_eq!(
            [Role::Sword, Role::Axe, Role::Dagger, Role::Sabres, Role::Sickle].map(|r| count(
                &p,
                Side::South,
                r
            )),
            [1, 1, 3, 0, 0]
        );
        // Magnetism: three Cogs in front of Father Time.
        let p = stage("axiom", 2).position;
        for s in ["d8", "e8", "f8"] {
            assert_eq!(p.piece_at(sq(s)).unwrap().role, Role::Cog);
        }
        assert_eq!(p.piece_at(sq("e9")).unwrap().role, Role::FatherTime);
        // The Scientist Endures: two Swords, two Sickles and three Daggers.
        let p = stage("axiom", 3).position;
        let n = |role| count(&p, Side::North, role);
        assert_eq!((n(Role::Sword), n(Role::Sickle), n(Role::Dagger), n(Role::Sabres)), (2, 2, 3, 0));
        // Springs and Gears: two Daggers and a Sword guard the Mistress; each Spring can
        // recoil (the square behind it is empty).
        let p = stage("clockwork", 2).position;
        assert_eq!((count(&p, Side::North, Role::Dagger), count(&p, Side::North, Role::Sword)), (2, 1));
        assert!(p.legal_moves().iter().any(|m| m.to_string() == "b2b9"));
    }
}
