//! What the client warns about and explains (issue 34): the rules' traps before they bite
//! (a king-piece the opponent could take next move, a move that would repeat a position
//! for the third time, the ply limit) and what one piece can do where it stands.
//!
//! Every answer is the engine's own: the opponent's threats are its legal moves from the
//! position as if it were its turn, a repetition is [`Position::outcome_after_move`] over
//! the game's history, and why a piece cannot move is found by asking the move generator
//! again on the same board with pieces taken away, never by a rule written here.

use engine::{Game, IllegalMove, Move, Outcome, Piece, Position, Side, Square, WinReason, MAX_PLY};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::{ability_name, ability_target, effects, parse, piece_view, to_json, PieceView};

/// One way the opponent could win on its next move.
#[derive(Debug, Serialize)]
pub struct Threat {
    /// The opponent's move, in IAMN.
    #[serde(rename = "move")]
    pub mv: String,
    /// The square of the piece that would make it.
    pub from: String,
    /// That piece's name (`Sickle`).
    pub piece: &'static str,
    /// The ability that does it (`burn`, `slash`, …), if the base move alone does not.
    pub ability: Option<&'static str>,
    /// `king destroyed`, `timeout` or `no legal moves`, as results are written.
    pub reason: &'static str,
}

/// What threatens `side`: where its king-piece stands and how the opponent could win next.
#[derive(Debug, Serialize)]
pub struct Threats {
    pub king: Option<String>,
    /// One per attacking square and reason, in the move generator's order.
    pub threats: Vec<Threat>,
}

/// The opponent's moves, from the position as if it were the opponent's turn, after which
/// the opponent has won (`side`'s king-piece destroyed, Father Time's Timeout, `side` left
/// without a legal move), as JSON ([`Threats`]). `side` is `south` or `north`. Nothing once
/// the game is over.
#[wasm_bindgen(js_name = threats)]
pub fn threats_json(iapn: &str, side: &str) -> Result<String, String> {
    let pos = parse(iapn)?;
    let side = parse_side(side)?;
    to_json(&threats(&pos, side))
}

pub fn threats(pos: &Position, side: Side) -> Threats {
    let enemy = side.opponent();
    let mut found: Vec<Threat> = Vec::new();
    if let Some(p) = as_turn(pos, enemy) {
        // In the move generator's order (deterministic; a sort here would cost the browser
        // 13 KB of wasm).
        for mv in p.legal_moves() {
            let mut next = p;
            next.play_unchecked(mv);
            let Some(Outcome::Win { winner, reason }) = next.outcome() else { continue };
            if winner != enemy
                || found.iter().any(|t| t.from == mv.from.to_string() && t.reason == reason.as_str())
            {
                continue;
            }
            // The ability only when the base move alone would not have won.
            let mut base = p;
            base.play_unchecked(Move::new(mv.from, mv.to));
            let by_base = matches!(base.outcome(), Some(Outcome::Win { winner, .. }) if winner == enemy);
            found.push(Threat {
                mv: mv.to_string(),
                from: mv.from.to_string(),
                piece: p.piece_at(mv.from).map_or("piece", |q| q.role.name()),
                ability: if by_base { None } else { mv.ability.map(ability_name) },
                reason: reason.as_str(),
            });
        }
    }
    Threats { king: pos.king(side).map(|s| s.to_string()), threats: found }
}

/// The legal moves of the game's current position (`moves` replayed from `start`) that
/// would make a position occur for the third time, which loses the game for the mover
/// (docs/specification.md §6.3), in byte order. None once the game is over.
#[wasm_bindgen(js_name = repetitionLosses)]
pub fn repetition_losses(start: &str, moves: Vec<String>) -> Result<Vec<String>, String> {
    let mut game = Game::new(parse(start)?);
    for text in &moves {
        let mv = Move::parse(text).map_err(|e| format!("invalid move {text}: {e}"))?;
        game.play(mv).map_err(|e| e.to_string())?;
    }
    Ok(losing_repetitions(&game))
}

pub fn losing_repetitions(game: &Game) -> Vec<String> {
    let pos = *game.position();
    let mut out: Vec<String> = game
        .legal_moves()
        .into_iter()
        .filter(|&mv| {
            let mut next = pos;
            next.play_unchecked(mv);
            let earlier = game.history().iter().filter(|p| p.same_position(&next)).count();
            matches!(
                next.outcome_after_move(earlier),
                Some(Outcome::Win { reason: WinReason::Repetition, .. })
            )
        })
        .map(|mv| mv.to_string())
        .collect();
    out.sort_unstable();
    out
}

/// The ply at which the game ends in a draw (docs/specification.md §6.4).
#[wasm_bindgen(js_name = plyLimit)]
pub fn ply_limit() -> u16 {
    MAX_PLY
}

/// Squares in square order (a1, b1, …, i9), each once, written as their names.
#[derive(Debug, Default)]
pub struct Squares(Vec<Square>);

impl Squares {
    fn add(&mut self, s: Square) {
        if let Err(i) = self.0.binary_search(&s) {
            self.0.insert(i, s);
        }
    }
}

impl Serialize for Squares {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ser.collect_seq(self.0.iter().map(|s| s.to_string()))
    }
}

/// An ability a piece can use this turn, and on what.
#[derive(Debug, Serialize)]
pub struct AbilityUse {
    pub kind: &'static str,
    /// Its targets (a Sidestep's square; for Slash, what it would destroy).
    pub targets: Squares,
}

/// What the piece on a square can do, as if its side were to move (see [`piece_facts`]).
#[derive(Debug, Serialize)]
pub struct PieceFacts {
    pub square: String,
    pub piece: PieceView,
    /// Its side is the side to move; otherwise every fact is for its side's next turn.
    pub to_move: bool,
    /// It can ever be charged (Cog, Dagger, Phial, The Mistress).
    pub chargeable: bool,
    /// Its legal moves (ability variants included).
    pub moves: usize,
    /// The squares its base moves go to.
    pub destinations: Squares,
    /// The squares of the enemy pieces its base moves take.
    pub captures: Squares,
    pub abilities: Vec<AbilityUse>,
    /// Destinations where its move would charge it (its own move ending on the Field).
    pub charges: Squares,
    /// Destinations where it would merge with a friendly Cog, become a Gear, detonate.
    pub merges: Squares,
    pub promotes: Squares,
    pub detonates: Squares,
    /// Its moves that would win the game at once, in IAMN (in the move generator's order).
    pub wins: Vec<String>,
    /// Why it has no legal move, when it has none: `game_over`; `own_king` (every move its
    /// movement allows would destroy its own king-piece); `own_pieces` (it could move if
    /// its own pieces, the king-piece apart, were not there: `blockers` says which);
    /// `pieces` (other pieces are in its way, `blockers`); `movement` (from this square
    /// its movement allows no move even on an empty board).
    pub blocked: Option<&'static str>,
    pub blockers: Squares,
}

/// What the piece on `square` can do, as JSON ([`PieceFacts`]): its moves, captures,
/// abilities with their targets, moves that charge it or win, and why it cannot move if it
/// cannot, all from the engine's legal moves as if its side were to move.
#[wasm_bindgen(js_name = pieceFacts)]
pub fn piece_facts_json(iapn: &str, square: &str) -> Result<String, String> {
    let pos = parse(iapn)?;
    let sq = Square::parse(square).ok_or_else(|| format!("invalid square: {square}"))?;
    to_json(&piece_facts(&pos, sq)?)
}

pub fn piece_facts(pos: &Position, sq: Square) -> Result<PieceFacts, String> {
    let piece = pos.piece_at(sq).ok_or_else(|| format!("no piece on {sq}"))?;
    let mut f = PieceFacts {
        square: sq.to_string(),
        piece: piece_view(piece),
        to_move: pos.turn() == piece.side,
        chargeable: piece.role.is_chargeable(),
        moves: 0,
        destinations: Squares::default(),
        captures: Squares::default(),
        abilities: Vec::new(),
        charges: Squares::default(),
        merges: Squares::default(),
        promotes: Squares::default(),
        detonates: Squares::default(),
        wins: Vec::new(),
        blocked: None,
        blockers: Squares::default(),
    };
    let Some(p) = as_turn(pos, piece.side) else {
        f.blocked = Some("game_over");
        return Ok(f);
    };
    let moves: Vec<Move> = p.legal_moves().into_iter().filter(|m| m.from == sq).collect();
    f.moves = moves.len();
    for &mv in &moves {
        let mut next = p;
        next.play_unchecked(mv);
        let e = effects(&p, mv, &next);
        f.destinations.add(mv.to);
        if p.piece_at(mv.to).is_some_and(|t| t.side != piece.side) {
            f.captures.add(mv.to);
        }
        if let Some(a) = mv.ability {
            let kind = ability_name(a);
            let i = match f.abilities.iter().position(|u| u.kind == kind) {
                Some(i) => i,
                None => {
                    f.abilities.push(AbilityUse { kind, targets: Squares::default() });
                    f.abilities.len() - 1
                }
            };
            match ability_target(a) {
                Some(t) => f.abilities[i].targets.add(t),
                None => e
                    .destroyed
                    .iter()
                    .filter_map(|s| Square::parse(s))
                    .for_each(|t| f.abilities[i].targets.add(t)),
            }
        }
        let now = Square::parse(&e.landed).and_then(|s| next.piece_at(s));
        if !piece.charged && now.is_some_and(|q| q.side == piece.side && q.charged) {
            f.charges.add(mv.to);
        }
        for (yes, list) in
            [(e.merged, &mut f.merges), (e.promoted, &mut f.promotes), (e.detonated, &mut f.detonates)]
        {
            if yes {
                list.add(mv.to);
            }
        }
        if matches!(next.outcome(), Some(Outcome::Win { winner, .. }) if winner == piece.side) {
            f.wins.push(mv.to_string());
        }
    }
    if moves.is_empty() {
        let (why, blockers) = why_blocked(&p, sq, piece);
        f.blocked = Some(why);
        f.blockers = blockers;
    }
    Ok(f)
}

/// Why the piece on `sq` (whose side is to move in `p`) has no legal move: asked of the
/// move generator on the same board with pieces taken away.
fn why_blocked(p: &Position, sq: Square, piece: Piece) -> (&'static str, Squares) {
    let refused_for_own_king = (0..Square::COUNT as u8)
        .filter_map(Square::new)
        .any(|to| matches!(p.play(Move::new(sq, to)), Err(IllegalMove::DestroysOwnKing { .. })));
    if refused_for_own_king {
        return ("own_king", Squares::default());
    }
    let king = p.king(piece.side);
    // Without its own pieces (the king-piece stays: without it the game would be over),
    // then without every other piece but the two king-pieces.
    let own_removed = without(p, |s, q| s != sq && Some(s) != king && q.side == piece.side);
    let all_removed = without(p, |s, q| s != sq && !q.role.is_king());
    for (why, board, own) in [("own_pieces", own_removed, true), ("pieces", all_removed, false)] {
        let Some(b) = board else { continue };
        // In its way: the pieces standing on squares it could then reach.
        let mut blockers = Squares::default();
        let mut reach = false;
        for m in b.legal_moves().iter().filter(|m| m.from == sq) {
            reach = true;
            if p.piece_at(m.to).is_some_and(|q| !own || q.side == piece.side) {
                blockers.add(m.to);
            }
        }
        if reach {
            return (why, blockers);
        }
    }
    ("movement", Squares::default())
}

/// `p` with the pieces for which `remove(square, piece)` holds taken away, if that is a
/// valid position.
fn without(p: &Position, remove: impl Fn(Square, Piece) -> bool) -> Option<Position> {
    let mut setup = p.to_setup();
    for (i, cell) in setup.board.iter_mut().enumerate() {
        if let (Some(s), Some(q)) = (Square::new(i as u8), *cell) {
            if remove(s, q) {
                *cell = None;
            }
        }
    }
    Position::from_setup(&setup).ok()
}

/// `pos` with `side` to move (the same position when it already is), unless the game is over.
fn as_turn(pos: &Position, side: Side) -> Option<Position> {
    if pos.is_over() {
        return None;
    }
    if pos.turn() == side {
        return Some(*pos);
    }
    let mut setup = pos.to_setup();
    setup.turn = side;
    Position::from_setup(&setup).ok()
}

fn parse_side(side: &str) -> Result<Side, String> {
    match side {
        "south" => Ok(Side::South),
        "north" => Ok(Side::North),
        _ => Err(format!("invalid side: {side} (south or north)")),
    }
}
