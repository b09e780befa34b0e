//! `iron-arena play <south> <north>`: a two-player game at one terminal, reading IAMN
//! moves from standard input. The local way to play until the browser client exists.

use std::io::{BufRead, Write};

use engine::{result_text, Faction, Game, Move, Position, Side, Square};

use crate::engines::Spec;

/// Draws the board with rank and file labels; charged pieces are marked with `*`.
pub fn board(pos: &Position) -> String {
    let mut s = String::new();
    for rank in (0..9u8).rev() {
        s.push_str(&format!("{} ", rank + 1));
        for file in 0..9u8 {
            let cell = Square::from_coords(file, rank).and_then(|sq| pos.piece_at(sq));
            match cell {
                Some(p) => s.push_str(&format!(" {}{}", p.char(), if p.charged { '*' } else { ' ' })),
                None if rank == 4 => s.push_str(" ~ "),
                None => s.push_str(" . "),
            }
        }
        s.push('\n');
    }
    s.push_str("   a  b  c  d  e  f  g  h  i\n");
    s
}

/// A terminal game; `ai` plays one side (at its level) if given.
pub fn run(
    south: Faction,
    north: Faction,
    ai: Option<(Side, Spec)>,
    input: impl BufRead,
    mut out: impl Write,
) -> std::io::Result<()> {
    let mut game = Game::new(Position::start(south, north));
    writeln!(out, "Iron Arena: {south} (South, uppercase) vs {north} (North, lowercase).")?;
    if let Some((side, spec)) = &ai {
        writeln!(out, "The AI ({}) plays {side}.", spec.describe())?;
    }
    writeln!(out, "Type a move in IAMN (e.g. e2d3), 'moves' for the legal moves, 'quit' to stop.")?;
    writeln!(out, "{}", board(game.position()))?;
    ai_moves(&mut game, ai.as_ref(), &mut out)?;
    if game.outcome().is_none() {
        writeln!(out, "{} to move", game.position().turn())?;
    }
    for line in input.lines() {
        if game.outcome().is_some() {
            break;
        }
        let line = line?;
        let cmd = line.trim();
        match cmd {
            "" => continue,
            "quit" | "exit" => break,
            "moves" => {
                let mut moves: Vec<String> = game.legal_moves().iter().map(Move::to_string).collect();
                moves.sort();
                writeln!(out, "{}", moves.join(" "))?;
                continue;
            }
            _ => {}
        }
        let played = Move::parse(cmd)
            .map_err(|e| e.to_string())
            .and_then(|mv| game.play(mv).map_err(|e| e.to_string()));
        match played {
            Err(e) => writeln!(out, "error: {e}")?,
            Ok(_) => {
                writeln!(out, "{}", board(game.position()))?;
                ai_moves(&mut game, ai.as_ref(), &mut out)?;
                if game.outcome().is_none() {
                    writeln!(out, "{} to move", game.position().turn())?;
                }
            }
        }
    }
    if game.outcome().is_some() {
        writeln!(out, "{}", result_text(game.outcome()))?;
    }
    writeln!(out, "{}", game.position())?;
    Ok(())
}

/// The AI's moves while it is its turn.
fn ai_moves(game: &mut Game, ai: Option<&(Side, Spec)>, out: &mut impl Write) -> std::io::Result<()> {
    let Some((side, spec)) = ai else {
        return Ok(());
    };
    while game.outcome().is_none() && game.position().turn() == *side {
        let (Some(mv), _) = spec.choose(game, game.position().ply().into()) else {
            break;
        };
        if game.play(mv).is_err() {
            break;
        }
        writeln!(out, "AI plays {mv}")?;
        writeln!(out, "{}", board(game.position()))?;
    }
    Ok(())
}
