//! The rules engine for the browser: [`engine`] behind a small `wasm-bindgen` API, so
//! the client draws positions, legal moves, replays and every ability's effects with the
//! same code the server judges moves with. Built by `scripts/build-web-engine.sh`
//! (`wasm-bindgen --target web`) into `public/engine/`; `public/notation.js` wraps it.
//!
//! Glue only: parse the text forms (IAPN, IAMN), ask the engine, answer JSON (one
//! `JSON.parse` on the JavaScript side, and the same functions are testable natively).
//! Errors are the engine's messages. The client still never trusts itself: what it
//! shows after a move is the server's state.
//!
//! What a move changed ([`Effects`]) is read off the positions before and after, with
//! the notation's own conventions for where the moving piece ends (a Dagger's stab
//! retreat, a Sidestep): nothing here re-implements a rule.
//!
//! [`traps`] answers what the client warns about and explains: a king-piece the opponent
//! could take next move, the moves that would lose by a third repetition, the ply limit,
//! and what one piece can do where it stands (or why it cannot move).
//!
//! [`lessons`] judges a lesson's move against its goal ("Learn the pieces").

use engine::{iapn, Ability, Game, Move, Outcome, Piece, Position, Role, Side, Square};
use serde::Serialize;
use wasm_bindgen::prelude::*;

pub mod lessons;
pub mod traps;
pub use traps::{
    piece_facts, piece_facts_json, ply_limit, repetition_losses, threats, threats_json, AbilityUse,
    PieceFacts, Threat, Threats,
};

/// A piece as the client draws it.
#[derive(Debug, Serialize)]
pub struct PieceView {
    pub side: &'static str,
    /// The IAPN letter, uppercase (North's are written in lowercase in IAPN).
    pub letter: char,
    /// The role as one lowercase word (`cog`, `fathertime`, `mistress`): the drawing's key.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub name: &'static str,
    pub king: bool,
    pub charged: bool,
}

/// How a game ended.
#[derive(Debug, Serialize)]
pub struct OutcomeView {
    /// `south`, `north`, or `null` for a draw.
    pub winner: Option<&'static str>,
    pub reason: &'static str,
    /// `south wins: king destroyed`, as the server and the CLI write it.
    pub text: String,
}

/// A position: `board[rank * 9 + file]` (rank 1 first), `null` for an empty square.
#[derive(Debug, Serialize)]
pub struct PositionView {
    /// The canonical IAPN.
    pub text: String,
    pub south: &'static str,
    pub north: &'static str,
    pub turn: &'static str,
    pub ply: u16,
    pub board: Vec<Option<PieceView>>,
    /// The outcome visible on this position (a replay adds repetition, see [`replay`]).
    pub outcome: Option<OutcomeView>,
}

/// What a move changed, for highlighting, animation and sounds.
#[derive(Debug, Default, PartialEq, Eq, Serialize)]
pub struct Effects {
    pub from: String,
    /// The destination as written in IAMN (for a stab or a merge, the other piece's square).
    pub to: String,
    /// Where the moving piece ended: `to`, or the Dagger's square after a stab, or the
    /// Mistress's after a Sidestep (`to` too when a Phial detonated there).
    pub landed: String,
    /// The piece the base move took (on `to`).
    pub captured: Vec<String>,
    /// Pieces destroyed otherwise: Slash, Burn, Assassinate, a Phial's detonation
    /// (in square order a1, b1, … i9).
    pub destroyed: Vec<String>,
    /// Pieces moved by an ability: `[from, to]` for Attract and Recall.
    pub moved: Vec<[String; 2]>,
    /// The ability used: `recall`, `slash`, `attract`, `burn`, `sidestep`, `assassinate`.
    pub ability: Option<&'static str>,
    /// Two Cogs merged into a Gear.
    pub merged: bool,
    /// A Cog became a Gear on its end row.
    pub promoted: bool,
    /// A Phial detonated on its end row.
    pub detonated: bool,
}

/// One position of a game and the move that led to it (`None` for the start).
#[derive(Debug, Serialize)]
pub struct Step {
    pub position: PositionView,
    pub effects: Option<Effects>,
}

/// A replayed game: the start, then one step per move, stopping at the first move
/// that cannot be played (`error` says why).
#[derive(Debug, Serialize)]
pub struct Replay {
    pub steps: Vec<Step>,
    pub error: Option<String>,
}

/// A move in IAMN split into its parts ([`MoveView`]).
#[derive(Debug, Serialize)]
pub struct MoveView {
    /// The canonical IAMN.
    pub text: String,
    pub from: String,
    pub to: String,
    /// `<from><to>`: the base move without its ability.
    pub base: String,
    pub ability: Option<AbilityView>,
}

/// An ability as written: its kind, its square (the target; a Sidestep's square) and a
/// Recall's destination.
#[derive(Debug, Serialize)]
pub struct AbilityView {
    pub kind: &'static str,
    pub target: Option<String>,
    pub dest: Option<String>,
}

/// The move written `text` (IAMN) split into its parts, as JSON ([`MoveView`]). Syntax
/// only: whether it is legal is a position's question.
#[wasm_bindgen(js_name = parseMove)]
pub fn parse_move(text: &str) -> Result<String, String> {
    let mv = Move::parse(text).map_err(|e| format!("invalid move: {e}"))?;
    let target = mv.ability.and_then(ability_target).map(|s| s.to_string());
    let dest = match mv.ability {
        Some(Ability::Recall { dest, .. }) => Some(dest.to_string()),
        _ => None,
    };
    to_json(&MoveView {
        text: mv.to_string(),
        from: mv.from.to_string(),
        to: mv.to.to_string(),
        base: format!("{}{}", mv.from, mv.to),
        ability: mv.ability.map(|a| AbilityView { kind: ability_name(a), target, dest }),
    })
}

/// The position written `iapn`, as JSON ([`PositionView`]).
#[wasm_bindgen(js_name = position)]
pub fn position_json(iapn: &str) -> Result<String, String> {
    let pos = parse(iapn)?;
    to_json(&view(&pos, pos.outcome()))
}

/// Every legal move in IAMN, in byte order (none once the game is over).
#[wasm_bindgen(js_name = legalMoves)]
pub fn legal_moves(iapn: &str) -> Result<Vec<String>, String> {
    let pos = parse(iapn)?;
    if pos.is_over() {
        return Ok(Vec::new());
    }
    let mut moves: Vec<String> = pos.legal_moves().iter().map(Move::to_string).collect();
    moves.sort_unstable();
    Ok(moves)
}

/// Plays a legal move (checked; the error says why a move is not legal), as JSON
/// ([`Step`]). The outcome is the position's alone: [`replay`] adds repetition.
#[wasm_bindgen(js_name = applyMove)]
pub fn apply_move(iapn: &str, mv: &str) -> Result<String, String> {
    let pos = parse(iapn)?;
    let mv = Move::parse(mv).map_err(|e| format!("invalid move: {e}"))?;
    let next = pos.play(mv).map_err(|e| e.to_string())?;
    to_json(&step(&pos, mv, &next, next.outcome()))
}

/// The position after a base move `<from><to>` alone, before its ability is chosen (for
/// the ability picker), as JSON ([`Step`]). Some legal move must start with this base.
#[wasm_bindgen(js_name = previewBase)]
pub fn preview_base(iapn: &str, base: &str) -> Result<String, String> {
    let pos = parse(iapn)?;
    let mv = Move::parse(base).map_err(|e| format!("invalid move: {e}"))?;
    if mv.ability.is_some()
        || pos.is_over()
        || !pos.legal_moves().iter().any(|m| m.from == mv.from && m.to == mv.to)
    {
        return Err(format!("no legal move starts with {}{}", mv.from, mv.to));
    }
    let mut next = pos;
    next.play_unchecked(mv);
    to_json(&step(&pos, mv, &next, None))
}

/// Replays `moves` from `start` with the full rules (repetition included), as JSON
/// ([`Replay`]): every position with what each move changed.
#[wasm_bindgen]
pub fn replay(start: &str, moves: Vec<String>) -> Result<String, String> {
    let start = parse(start)?;
    let mut game = Game::new(start);
    let mut steps = vec![Step { position: view(&start, game.outcome()), effects: None }];
    let mut error = None;
    for text in &moves {
        let before = *game.position();
        let played = Move::parse(text)
            .map_err(|e| format!("invalid move {text}: {e}"))
            .and_then(|mv| game.play(mv).map(|_| mv).map_err(|e| e.to_string()));
        match played {
            Ok(mv) => steps.push(step(&before, mv, game.position(), game.outcome())),
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    to_json(&Replay { steps, error })
}

fn parse(iapn: &str) -> Result<Position, String> {
    iapn::parse(iapn).map_err(|e| format!("invalid position: {e}"))
}

fn to_json<T: Serialize>(value: &T) -> Result<String, String> {
    serde_json::to_string(value).map_err(|e| e.to_string())
}

fn step(before: &Position, mv: Move, after: &Position, outcome: Option<Outcome>) -> Step {
    Step { position: view(after, outcome), effects: Some(effects(before, mv, after)) }
}

/// What `mv` changed from `before` to `after` (`mv` was played on `before`).
pub fn effects(before: &Position, mv: Move, after: &Position) -> Effects {
    let name = |s: Square| s.to_string();
    let Some(mover) = before.piece_at(mv.from) else {
        return Effects { from: name(mv.from), to: name(mv.to), landed: name(mv.to), ..Effects::default() };
    };
    let target = before.piece_at(mv.to);
    let merged = mover.role == Role::Cog && target.is_some_and(|t| t.side == mover.side);
    let stab = mover.role == Role::Dagger && target.is_some();
    let landed = match mv.ability {
        Some(Ability::Sidestep { to }) => to,
        _ if stab && mv.from.distance(mv.to) == 2 => {
            Square::from_coords((mv.from.file() + mv.to.file()) / 2, (mv.from.rank() + mv.to.rank()) / 2)
                .unwrap_or(mv.from)
        }
        _ if stab => mv.from,
        _ => mv.to,
    };
    let captured: Vec<Square> = target.filter(|t| t.side != mover.side).map(|_| mv.to).into_iter().collect();
    let moved: Vec<(Square, Square)> = match mv.ability {
        Some(Ability::Recall { target, dest }) => vec![(target, dest)],
        Some(Ability::Attract { target }) => {
            let step = |a: u8, b: u8| (b as i8 - a as i8).signum();
            let df = step(mv.to.file(), target.file());
            let dr = step(mv.to.rank(), target.rank());
            mv.to.offset(df, dr).map(|d| (target, d)).into_iter().collect()
        }
        _ => Vec::new(),
    };
    let destroyed = (0..Square::COUNT as u8)
        .filter_map(Square::new)
        .filter(|&s| before.piece_at(s).is_some() && after.piece_at(s).is_none())
        .filter(|&s| s != mv.from && s != landed && !captured.contains(&s) && !moved.iter().any(|m| m.0 == s))
        .collect::<Vec<_>>();
    let now = after.piece_at(landed);
    Effects {
        from: name(mv.from),
        to: name(mv.to),
        landed: name(landed),
        captured: captured.into_iter().map(name).collect(),
        destroyed: destroyed.into_iter().map(name).collect(),
        moved: moved.into_iter().map(|(a, b)| [name(a), name(b)]).collect(),
        ability: mv.ability.map(ability_name),
        merged,
        promoted: mover.role == Role::Cog && !merged && now.is_some_and(|p| p.role == Role::Gear),
        detonated: mover.role == Role::Phial && now.is_none(),
    }
}

pub fn ability_name(a: Ability) -> &'static str {
    match a {
        Ability::Recall { .. } => "recall",
        Ability::Slash => "slash",
        Ability::Attract { .. } => "attract",
        Ability::Burn { .. } => "burn",
        Ability::Sidestep { .. } => "sidestep",
        Ability::Assassinate { .. } => "assassinate",
    }
}

/// The square an ability acts on: its target, a Sidestep's square; none for Slash.
pub fn ability_target(a: Ability) -> Option<Square> {
    match a {
        Ability::Slash => None,
        Ability::Recall { target, .. }
        | Ability::Attract { target }
        | Ability::Burn { target }
        | Ability::Assassinate { target } => Some(target),
        Ability::Sidestep { to } => Some(to),
    }
}

fn piece_view(p: Piece) -> PieceView {
    PieceView {
        side: side_name(p.side),
        letter: p.role.letter(),
        kind: role_type(p.role),
        name: p.role.name(),
        king: p.role.is_king(),
        charged: p.charged,
    }
}

fn view(pos: &Position, outcome: Option<Outcome>) -> PositionView {
    let board = (0..Square::COUNT as u8)
        .map(|i| Square::new(i).and_then(|s| pos.piece_at(s)).map(piece_view))
        .collect();
    PositionView {
        text: iapn::format(pos),
        south: pos.faction(Side::South).name(),
        north: pos.faction(Side::North).name(),
        turn: side_name(pos.turn()),
        ply: pos.ply(),
        board,
        outcome: outcome.map(|o| OutcomeView {
            winner: o.winner().map(side_name),
            reason: match o {
                Outcome::Win { reason, .. } => reason.as_str(),
                Outcome::Draw { reason } => reason.as_str(),
            },
            text: o.to_string(),
        }),
    }
}

fn side_name(side: Side) -> &'static str {
    side.name()
}

fn role_type(role: Role) -> &'static str {
    match role {
        Role::Cog => "cog",
        Role::Gear => "gear",
        Role::Pendulum => "pendulum",
        Role::Spring => "spring",
        Role::Hands => "hands",
        Role::Dial => "dial",
        Role::FatherTime => "fathertime",
        Role::Dagger => "dagger",
        Role::Axe => "axe",
        Role::Sickle => "sickle",
        Role::Sabres => "sabres",
        Role::Sword => "sword",
        Role::Mistress => "mistress",
        Role::Phial => "phial",
        Role::Magnet => "magnet",
        Role::Torch => "torch",
        Role::Scales => "scales",
        Role::Telescope => "telescope",
        Role::Scientist => "scientist",
    }
}
