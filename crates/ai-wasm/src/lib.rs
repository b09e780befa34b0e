//! The AI for the browser: the shipped alpha-beta ([`ai::level::play_level`]) with the
//! learned leaf scores the server plays levels 3-6 with (`setLeaf`, given the same files
//! of `models/` the Worker serves; `leafFile` says which one a level plays; no tract in the
//! browser) behind a small `wasm-bindgen` API: at the default level it plays the server's
//! default move for move.
//! `public/ai-worker.js` runs it in a Web Worker, so a search never blocks the page.
//!
//! A module of its own rather than more of `engine-wasm`: the game page loads the rules
//! on every visit, the AI only when a player asks for a hint, so the rules' download
//! stays as it was (the AI module carries its own copy of the engine; its size is in
//! docs/client.md).
//!
//! Glue only, as `engine-wasm`: text in (IAPN start, IAMN moves), JSON out, the same
//! functions called natively by the tests. [`best_move`] calls [`ai::level::play_level`],
//! the function the server's shipped AI (levels 3-6) and `AlphaBetaAi` call, so they choose
//! the same move for the same game, level and seed (tests/same_move.rs).

use std::cell::RefCell;

use ai::leafnet::LeafNet;
use ai::level::{play_level, LeafFile, Leaves};
use ai::pvs::PvsResult;
use engine::{iapn, Game, Move, Outcome, Side};
use serde::Serialize;
use wasm_bindgen::prelude::*;

thread_local! {
    // The leaf scores set by `setLeaf` (a Web Worker is one thread): a level's search uses
    // its own once it is set, the heuristic before.
    static LEAVES: RefCell<Leaves> = RefCell::new(Leaves::none());
}

/// The leaf file (in `models/`) the AI at `level` plays (an unknown level: the default's):
/// what the page loads with `setLeaf` before it asks that level.
#[wasm_bindgen(js_name = leafFile)]
pub fn leaf_file(level: u8) -> String {
    ai::level::level_or_default(level).leaf.file().to_string()
}

/// Loads the learned leaf score `file` (its name, as [`leaf_file`] gives it, and its bytes,
/// the file the Worker serves and plays with): every later search of a level that plays it
/// scores its leaves with it, as the server's. An error names a file that is not one.
#[wasm_bindgen(js_name = setLeaf)]
pub fn set_leaf(file: &str, bytes: &[u8]) -> Result<(), String> {
    let which =
        LeafFile::from_file(file).ok_or_else(|| format!("{file} is not a leaf score the levels play"))?;
    let leaf = LeafNet::from_bytes(bytes).map_err(|e| format!("leaf score {file}: {e}"))?;
    LEAVES.with(|l| l.borrow_mut().set(which, leaf));
    Ok(())
}

/// Forgets the leaf scores: the searches use the heuristic again (tests, which may share a
/// thread).
pub fn unset_leaves() {
    LEAVES.with(|l| *l.borrow_mut() = Leaves::none());
}

/// A search's answer.
#[derive(Debug, Serialize)]
pub struct Suggestion {
    /// The move to play (IAMN), `null` when the game is over.
    #[serde(rename = "move")]
    pub mv: Option<String>,
    /// The search's score in pawns for the side to move (its best move's).
    pub score: f32,
    /// The side to move's chance to win, from the score ([`win_probability`]).
    pub win: f32,
    /// South's chance to win (for an evaluation graph drawn from one side).
    pub south: f32,
    /// The expected line, the move first (IAMN).
    pub line: Vec<String>,
    /// The deepest completed iteration and the positions visited.
    pub depth: u32,
    pub nodes: u64,
}

/// The chance to win of the side whose score is `score` (pawns): the logistic curve the
/// heuristic evaluator's value already uses (`tanh(score / 8)` in [-1, 1] is
/// `2 p - 1` for this `p`), so a pawn up is about 56% and a forced win 100%.
pub fn win_probability(score: f32) -> f32 {
    1.0 / (1.0 + (-score / 4.0).exp())
}

/// The move the AI at `level` (1-6; an unknown level plays the default, as on the server)
/// chooses after `moves` from `start`, with `seed` (the variety draw), as JSON
/// ([`Suggestion`]).
#[wasm_bindgen(js_name = bestMove)]
pub fn best_move(start: &str, moves: Vec<String>, level: u8, seed: u64) -> Result<String, String> {
    let game = replay(start, &moves)?;
    to_json(&suggest(&game, level, seed))
}

/// The position after `moves` from `start` evaluated by the AI at `level` (seed 0), as
/// JSON ([`Suggestion`]; an ended game scores its result: `win` 1, 0 or 0.5).
#[wasm_bindgen]
pub fn evaluate(start: &str, moves: Vec<String>, level: u8) -> Result<String, String> {
    let game = replay(start, &moves)?;
    to_json(&suggest(&game, level, 0))
}

/// The search's suggestion in `game` (the function both entry points share).
pub fn suggest(game: &Game, level: u8, seed: u64) -> Suggestion {
    let turn = game.position().turn();
    if let Some(o) = game.outcome() {
        return ended(o, turn);
    }
    let lv = ai::level::level_or_default(level);
    let r: PvsResult = LEAVES.with(|l| play_level(game, &lv, seed, &l.borrow()));
    let win = win_probability(r.score);
    Suggestion {
        mv: r.best.map(|m| m.to_string()),
        score: r.score,
        win,
        south: if turn == Side::South { win } else { 1.0 - win },
        line: r.line.iter().map(Move::to_string).collect(),
        depth: r.depth,
        nodes: r.nodes,
    }
}

fn ended(o: Outcome, turn: Side) -> Suggestion {
    let south = match o.winner() {
        Some(Side::South) => 1.0,
        Some(Side::North) => 0.0,
        None => 0.5,
    };
    Suggestion {
        mv: None,
        score: 0.0,
        win: if turn == Side::South { south } else { 1.0 - south },
        south,
        line: Vec::new(),
        depth: 0,
        nodes: 0,
    }
}

/// The game after `moves` from `start`, every move checked (repetition included).
pub fn replay(start: &str, moves: &[String]) -> Result<Game, String> {
    let start = iapn::parse(start).map_err(|e| format!("invalid position: {e}"))?;
    let mut game = Game::new(start);
    for text in moves {
        let mv = Move::parse(text).map_err(|e| format!("invalid move {text}: {e}"))?;
        game.play(mv).map_err(|e| format!("{text}: {e}"))?;
    }
    Ok(game)
}

fn to_json<T: Serialize>(value: &T) -> Result<String, String> {
    serde_json::to_string(value).map_err(|e| e.to_string())
}
