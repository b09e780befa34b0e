//! `iron-arena`: the engine on the command line. Glue only: parse arguments, call the
//! engine, print. Other tools depend on this exact interface (see README).

use std::process::ExitCode;

mod bench;
mod play;

use engine::{iapn, perft, result_text, Faction, Game, Move, Position};

const USAGE: &str = "usage: iron-arena start <south> <north> | moves '<IAPN>' | perft '<IAPN>' <depth> | divide '<IAPN>' <depth> | apply '<IAPN>' <move>... | replay <record-file|-> | bench [--quick] | play <south> <north>";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(msg) => {
            // Exactly one line on stderr.
            eprintln!("error: {}", msg.replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<String, String> {
    let (cmd, rest) = args.split_first().ok_or_else(|| USAGE.to_owned())?;
    let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
    match (cmd.as_str(), rest.as_slice()) {
        ("start", [south, north]) => {
            let pos = Position::start(faction(south)?, faction(north)?);
            Ok(format!("{pos}\n"))
        }
        ("moves", [text]) => {
            let mut moves: Vec<String> = position(text)?
                .legal_moves()
                .iter()
                .map(Move::to_string)
                .collect();
            moves.sort();
            Ok(moves.iter().map(|m| format!("{m}\n")).collect())
        }
        ("perft", [text, d]) => Ok(format!("{}\n", perft::perft(&position(text)?, depth(d)?))),
        ("divide", [text, d]) => {
            let pos = position(text)?;
            let rows = perft::divide(&pos, depth(d)?);
            let total: u64 = rows.iter().map(|(_, n)| n).sum();
            let mut out: String = rows.iter().map(|(m, n)| format!("{m} {n}\n")).collect();
            out.push_str(&format!("total {total}\n"));
            Ok(out)
        }
        ("apply", [text, moves @ ..]) => {
            let mut game = Game::new(position(text)?);
            for (i, m) in moves.iter().enumerate() {
                let mv = Move::parse(m).map_err(|e| format!("move {} '{m}': {e}", i + 1))?;
                game.play(mv)
                    .map_err(|e| format!("move {} '{m}': {e}", i + 1))?;
            }
            Ok(format!(
                "{}\n{}\n",
                game.position(),
                result_text(game.outcome())
            ))
        }
        ("play", [south, north]) => {
            let stdin = std::io::stdin();
            play::run(
                faction(south)?,
                faction(north)?,
                stdin.lock(),
                std::io::stdout(),
            )
            .map_err(|e| format!("terminal: {e}"))?;
            Ok(String::new())
        }
        ("replay", [file]) => {
            let text = if *file == "-" {
                std::io::read_to_string(std::io::stdin()).map_err(|e| format!("stdin: {e}"))?
            } else {
                std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?
            };
            let record = engine::record::Record::parse(&text).map_err(|e| e.to_string())?;
            let game = record.replay().map_err(|e| e.to_string())?;
            Ok(format!("{}\n{}\n", game.position(), record.result))
        }
        ("bench", []) => Ok(bench::run(false)),
        ("bench", ["--quick"]) => Ok(bench::run(true)),
        ("start" | "moves" | "perft" | "divide" | "apply" | "replay" | "bench" | "play", _) => {
            Err(format!("wrong arguments for '{cmd}'; {USAGE}"))
        }
        _ => Err(format!("unknown command '{cmd}'; {USAGE}")),
    }
}

fn faction(s: &str) -> Result<Faction, String> {
    Faction::from_name(s)
        .ok_or_else(|| format!("unknown faction '{s}' (expected clockwork, blades or axiom)"))
}

fn position(s: &str) -> Result<Position, String> {
    iapn::parse(s).map_err(|e| format!("invalid position: {e}"))
}

fn depth(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(d) if d <= 12 => Ok(d),
        _ => Err(format!("depth '{s}' must be a whole number 0-12")),
    }
}
