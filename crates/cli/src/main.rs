//! `iron-arena`: the engine on the command line. Glue only: parse arguments (lexopt),
//! call the engine, print. Other tools depend on this exact interface (see README).

use std::process::ExitCode;

mod bench;
mod engines;
mod ladder;
mod matches;
#[cfg(feature = "onnx")]
mod net;
mod play;

use engine::{iapn, perft, result_text, Faction, Game, Move, Position};

const USAGE: &str = "usage: iron-arena start <south> <north> | moves '<IAPN>' | perft '<IAPN>' <depth> | divide '<IAPN>' <depth> | apply '<IAPN>' <move>... | replay <record-file|-> | bench [--quick] | play <south> <north> [--ai north|south|none] [--level 1-6] | arena <player> <player> [--games N] [--matchups all|<south>-<north>] [--seed S] | balance [--engine <player>] [--games N] [--seed S] | ladder <player> <player>... [--games N] [--seed S] [--seconds S] [--out FILE] [--anchor <player>] [--with <player>[,<player>]] [--moves] | ladder-fit <results.jsonl>... [--anchor <player>] [--svg FILE] [--title T] [--levels public/levels.json] | ladder-redo <results.jsonl> --out FILE --ladder FILE [--moves] [--anchor <player>] | selfplay --games N --out FILE [--engine <player>] [--seed S] [--fast-engine <player> --full-prob P] | bench-ai | bench-leaf <leaf.bin> | leaf-data <records.jsonl>... --out FILE | layout | check-model <onnx> <reference.json> | bench-net <onnx> (players: random, uniform:N, heuristic:N, level:N, alphabeta:D, hybrid:N, hybridq:N, hlevel:N, hleaf:<leaf.bin>:N, net:<onnx>:N[+decisive][+ab=N[+w=PCT]][+cheap=M]; add @gumbel for a Gumbel root instead of PUCT)";

/// What each command accepts besides its positional arguments: `--name value` options and
/// `--name` flags. `None`: no such command.
fn accepts(cmd: &str) -> Option<(&'static [&'static str], &'static [&'static str])> {
    Some(match cmd {
        "start" | "moves" | "perft" | "divide" | "apply" | "replay" | "bench-ai" | "bench-leaf"
        | "layout" | "check-model" | "bench-net" => (&[], &[]),
        "bench" => (&[], &["--quick"]),
        "play" => (&["--ai", "--level"], &[]),
        "arena" => (&["--games", "--matchups", "--seed"], &[]),
        "balance" => (&["--engine", "--games", "--seed"], &[]),
        "ladder" => (&["--games", "--seed", "--seconds", "--out", "--anchor", "--with"], &["--moves"]),
        "ladder-fit" => (&["--anchor", "--svg", "--title", "--levels"], &[]),
        "ladder-redo" => (&["--out", "--ladder", "--anchor"], &["--moves"]),
        "leaf-data" => (&["--out"], &[]),
        "selfplay" => (&["--engine", "--games", "--seed", "--out", "--fast-engine", "--full-prob"], &[]),
        _ => return None,
    })
}

/// A command's arguments, read by lexopt: the positional ones in order, the options it
/// accepts (`--games 4` or `--games=4`; the last one given wins) and its flags; `--` ends
/// the options. Anything else is an error that names it.
#[derive(Debug)]
struct Args {
    positional: Vec<String>,
    options: Vec<(&'static str, String)>,
    flags: Vec<&'static str>,
}

impl Args {
    fn parse(args: &[String], options: &[&'static str], flags: &[&'static str]) -> Result<Args, String> {
        use lexopt::Arg;
        let utf8 =
            |v: std::ffi::OsString| v.into_string().map_err(|v| format!("argument {v:?} is not UTF-8"));
        let mut parser = lexopt::Parser::from_args(args);
        let mut out = Args { positional: Vec::new(), options: Vec::new(), flags: Vec::new() };
        while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
            match arg {
                Arg::Long(name) => {
                    let known = |list: &[&'static str]| list.iter().copied().find(|o| o[2..] == *name);
                    if let Some(o) = known(options) {
                        let v = parser.value().map_err(|_| format!("{o} needs a value"))?;
                        out.options.push((o, utf8(v)?));
                    } else if let Some(f) = known(flags) {
                        out.flags.push(f);
                    } else {
                        return Err(format!("unexpected argument '--{name}'"));
                    }
                }
                Arg::Short(c) => return Err(format!("unexpected argument '-{c}'")),
                Arg::Value(v) => out.positional.push(utf8(v)?),
            }
        }
        Ok(out)
    }

    fn option(&self, name: &str) -> Option<&str> {
        self.options.iter().rev().find(|(o, _)| *o == name).map(|(_, v)| v.as_str())
    }

    fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.option(name) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| format!("{name} '{v}' is not a number")),
        }
    }

    fn flag(&self, name: &str) -> bool {
        self.flags.contains(&name)
    }
}

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
    let (options, flags) = accepts(cmd).ok_or_else(|| format!("unknown command '{cmd}'; {USAGE}"))?;
    let opts = Args::parse(rest, options, flags)?;
    let positional: Vec<&str> = opts.positional.iter().map(String::as_str).collect();
    match (cmd.as_str(), positional.as_slice()) {
        ("start", [south, north]) => {
            let pos = Position::start(faction(south)?, faction(north)?);
            Ok(format!("{pos}\n"))
        }
        ("moves", [text]) => {
            let mut moves: Vec<String> = position(text)?.legal_moves().iter().map(Move::to_string).collect();
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
                game.play(mv).map_err(|e| format!("move {} '{m}': {e}", i + 1))?;
            }
            Ok(format!("{}\n{}\n", game.position(), result_text(game.outcome())))
        }
        ("play", [south, north]) => {
            let ai_side = match opts.option("--ai").unwrap_or("north") {
                "north" => Some(engine::Side::North),
                "south" => Some(engine::Side::South),
                "none" => None,
                other => return Err(format!("--ai '{other}': north, south or none")),
            };
            let level: u8 = opts.number("--level", ai::level::DEFAULT_LEVEL)?;
            let spec = engines::Spec::parse(&format!("level:{level}"))?;
            let stdin = std::io::stdin();
            let ai = ai_side.map(|s| (s, spec));
            play::run(faction(south)?, faction(north)?, ai, stdin.lock(), std::io::stdout())
                .map_err(|e| format!("terminal: {e}"))?;
            Ok(String::new())
        }
        ("arena", [a, b]) => {
            let (a, b) = (engines::Spec::parse(a)?, engines::Spec::parse(b)?);
            let mus = matches::matchups(opts.option("--matchups").unwrap_or("all"))?;
            let games = opts.number("--games", 2)?;
            Ok(matches::arena(&a, &b, games, &mus, opts.number("--seed", 1)?))
        }
        ("ladder", specs) if specs.len() >= 2 => {
            let specs = specs.iter().map(|s| engines::Spec::parse(s)).collect::<Result<Vec<_>, _>>()?;
            let seconds = match opts.option("--seconds") {
                Some(v) => Some(v.parse::<f64>().map_err(|_| format!("--seconds '{v}' is not a number"))?),
                None => None,
            };
            // `--out` of a run cut short (a session's end): its games are kept and not
            // played again, the new ones appended.
            let mut done = Vec::new();
            let mut file = match opts.option("--out") {
                Some(p) => {
                    if let Ok(text) = std::fs::read_to_string(p) {
                        done = ladder::read(&text).map_err(|e| format!("{p}: {e}"))?;
                    }
                    let f = std::fs::OpenOptions::new().create(true).append(true).open(p);
                    Some(f.map_err(|e| format!("{p}: {e}"))?)
                }
                None => None,
            };
            if opts.flag("--moves") && file.is_none() {
                return Err("--moves records the games' moves in the --out file: give one".into());
            }
            let out = file.as_mut().map(|f| ladder::Out {
                file: f as &mut (dyn std::io::Write + Send),
                moves: opts.flag("--moves"),
            });
            // `--with a,b`: only the pairs with one of these players (a round robin split
            // across runs or machines; `ladder-fit` fits the files together).
            let with: Vec<&str> = opts.option("--with").map(|w| w.split(',').collect()).unwrap_or_default();
            let labels: Vec<String> = specs.iter().map(engines::Spec::label).collect();
            if let Some(w) = with.iter().find(|w| !labels.iter().any(|l| l == *w)) {
                return Err(format!("--with '{w}' is none of the players ({})", labels.join(", ")));
            }
            let pairs = ladder::pairs(&labels, &with);
            let results = ladder::run(
                &specs,
                &pairs,
                opts.number("--games", 36)?,
                opts.number("--seed", 1)?,
                seconds,
                &done,
                out,
            );
            Ok(ladder::report(&results, opts.option("--anchor")))
        }
        ("ladder-fit", files) if !files.is_empty() => {
            let mut results = Vec::new();
            for file in files {
                let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
                results.extend(ladder::read(&text)?);
            }
            if let (Some(path), Some(r)) =
                (opts.option("--svg"), ladder::ratings(&results, opts.option("--anchor")))
            {
                let title = opts.option("--title").unwrap_or("The AI ladder");
                std::fs::write(path, ladder::svg(&r, title)).map_err(|e| format!("{path}: {e}"))?;
            }
            // --levels public/levels.json: the difficulty picker's ratings set to this fit
            // (the files fitted become its `source`; its think times are kept).
            if let (Some(path), Some(r)) =
                (opts.option("--levels"), ladder::ratings(&results, opts.option("--anchor")))
            {
                let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
                let updated = ladder::picker_levels(&text, &r, files)?;
                std::fs::write(path, updated).map_err(|e| format!("{path}: {e}"))?;
            }
            Ok(ladder::report(&results, opts.option("--anchor")))
        }
        ("ladder-redo", [file]) => {
            // The games of a ladder file that opened on a decided position, played again
            // (`--out`: those games, appended as they end, so a run cut short resumes);
            // `--ladder`: the whole file with them replaced, written once all are played.
            let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
            let rows = ladder::read(&text).map_err(|e| format!("{file}: {e}"))?;
            let (Some(out_path), Some(ladder_path)) = (opts.option("--out"), opts.option("--ladder")) else {
                return Err(
                    "ladder-redo needs --out FILE (the replayed games) and --ladder FILE (the whole ladder)"
                        .into(),
                );
            };
            let done = match std::fs::read_to_string(out_path) {
                Ok(t) => ladder::read(&t).map_err(|e| format!("{out_path}: {e}"))?,
                Err(_) => Vec::new(),
            };
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(out_path)
                .map_err(|e| format!("{out_path}: {e}"))?;
            let out =
                ladder::Out { file: &mut f as &mut (dyn std::io::Write + Send), moves: opts.flag("--moves") };
            let (all, again) = ladder::redo(&rows, &done, out)?;
            let lines: String = all.iter().map(|r| format!("{}\n", r.to_json())).collect();
            std::fs::write(ladder_path, lines).map_err(|e| format!("{ladder_path}: {e}"))?;
            Ok(format!(
                "{again} of {} games opened on a decided position and were played again ({out_path}); the ladder with them: {ladder_path}\n{}",
                rows.len(),
                ladder::report(&all, opts.option("--anchor"))
            ))
        }
        ("balance", []) => {
            let spec = engines::Spec::parse(opts.option("--engine").unwrap_or("level:2"))?;
            Ok(matches::balance(&spec, opts.number("--games", 10)?, opts.number("--seed", 1)?))
        }
        ("selfplay", []) => {
            let spec = engines::Spec::parse(opts.option("--engine").unwrap_or("heuristic:64"))?;
            let cap = match (opts.option("--fast-engine"), opts.option("--full-prob")) {
                (None, None) => None,
                (Some(fast), Some(p)) => {
                    let full_prob: f64 =
                        p.parse().map_err(|_| format!("--full-prob '{p}': expected a number in 0..1"))?;
                    if !(0.0..=1.0).contains(&full_prob) {
                        return Err(format!("--full-prob '{p}': expected a number in 0..1"));
                    }
                    Some(matches::PlayoutCap { fast: engines::Spec::parse(fast)?, full_prob })
                }
                _ => return Err("--fast-engine and --full-prob go together (a playout cap)".into()),
            };
            let path = opts.option("--out").ok_or("selfplay needs --out FILE")?;
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("{path}: {e}"))?;
            let mut w = std::io::BufWriter::new(file);
            let games = opts.number("--games", 10)?;
            let (g, n) = matches::selfplay(&spec, cap.as_ref(), games, opts.number("--seed", 1)?, &mut w)
                .map_err(|e| format!("{path}: {e}"))?;
            std::io::Write::flush(&mut w).map_err(|e| format!("{path}: {e}"))?;
            Ok(format!("{g} games, {n} positions appended to {path}\n"))
        }
        ("leaf-data", inputs) if !inputs.is_empty() => {
            let path = opts.option("--out").ok_or("leaf-data needs --out FILE")?;
            matches::leaf_data(inputs, path)
        }
        ("bench-ai", []) => Ok(matches::bench_ai()),
        ("bench-leaf", [path]) => matches::bench_leaf(path),
        #[cfg(feature = "onnx")]
        ("check-model", [model, reference]) => net::check(model, reference),
        #[cfg(feature = "onnx")]
        ("bench-net", [model]) => net::bench(model),
        #[cfg(not(feature = "onnx"))]
        ("check-model" | "bench-net", _) => {
            Err("this build has no network support: build with --features onnx".into())
        }
        ("layout", []) => Ok(format!("{:#}\n", ai::encoding::layout_json())),
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
        ("bench", []) => Ok(bench::run(opts.flag("--quick"))),
        _ => Err(format!("wrong arguments for '{cmd}'; {USAGE}")),
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
