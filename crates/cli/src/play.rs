//! `iron-arena play <south> <north>`: a two-player game at one terminal, reading IAMN
//! moves from standard input. The local way to play until the browser client exists.

use std::io::{BufRead, Write};

use engine::{result_text, Faction, Game, Move, Position, Square};

/// Draws the board with rank and file labels; charged pieces are marked with `*`.
pub fn board(pos: &Position) -> String {
    let mut s = String::new();
    for rank in (0..9u8).rev() {
        s.push_str(&format!("{} ", rank + 1));
        for file in 0..9u8 {
            let cell = Square::from_coords(file, rank).and_then(|sq| pos.piece_at(sq));
            match cell {
                Some(p) => s.push_str(&format!(
                    " {}{}",
                    p.char(),
                    if p.charged { '*' } else { ' ' }
                )),
                None if rank == 4 => s.push_str(" ~ "),
                None => s.push_str(" . "),
            }
        }
        s.push('\n');
    }
    s.push_str("   a  b  c  d  e  f  g  h  i\n");
    s
}

pub fn run(
    south: Faction,
    north: Faction,
    input: impl BufRead,
    mut out: impl Write,
) -> std::io::Result<()> {
    let mut game = Game::new(Position::start(south, north));
    writeln!(
        out,
        "Iron Arena: {south} (South, uppercase) vs {north} (North, lowercase)."
    )?;
    writeln!(
        out,
        "Type a move in IAMN (e.g. e2d3), 'moves' for the legal moves, 'quit' to stop."
    )?;
    writeln!(out, "{}", board(game.position()))?;
    writeln!(out, "{} to move", game.position().turn())?;
    for line in input.lines() {
        let line = line?;
        let cmd = line.trim();
        match cmd {
            "" => continue,
            "quit" | "exit" => break,
            "moves" => {
                let mut moves: Vec<String> =
                    game.legal_moves().iter().map(Move::to_string).collect();
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
            Ok(outcome) => {
                writeln!(out, "{}", board(game.position()))?;
                match outcome {
                    Some(_) => {
                        writeln!(out, "{}", result_text(outcome))?;
                        break;
                    }
                    None => writeln!(out, "{} to move", game.position().turn())?,
                }
            }
        }
    }
    writeln!(out, "{}", game.position())?;
    Ok(())
}
