//! Engine-vs-engine matches (`arena`), the balance table (`balance`), self-play records
//! for training (`selfplay`), and AI speed (`bench-ai`). Games run on every core, each
//! seeded by its number, so results do not depend on the number of threads.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use base64::Engine as _;
use engine::{Faction, Game, Outcome, Position, Side};

use crate::engines::Spec;

pub fn matchups(arg: &str) -> Result<Vec<(Faction, Faction)>, String> {
    if arg == "all" {
        return Ok(Faction::ALL.iter().flat_map(|&s| Faction::ALL.iter().map(move |&n| (s, n))).collect());
    }
    let (s, n) =
        arg.split_once('-').ok_or_else(|| format!("match-up '{arg}': use all or <south>-<north>"))?;
    let f = |x: &str| Faction::from_name(x).ok_or_else(|| format!("unknown faction '{x}'"));
    Ok(vec![(f(s)?, f(n)?)])
}

/// Plays one game; returns the outcome and the moves' search results (for self-play).
/// How a game varies from one seed to the next: searches are deterministic, so without
/// this every game of a match-up between the same players would be the same game.
#[derive(Clone, Copy, Debug)]
pub struct Variety {
    /// Uniformly random moves for the first plies (a random opening, both players).
    pub random_plies: u32,
    /// Then, for searching players, moves sampled by visit count up to this ply
    /// (AlphaZero's temperature 1 for self-play); the best move afterwards.
    pub sample_until: u32,
}

pub const MATCH: Variety = Variety { random_plies: 4, sample_until: 0 };
pub const SELFPLAY: Variety = Variety { random_plies: 2, sample_until: 30 };

/// The game's random opening: `plies` uniformly random moves from the match-up's start,
/// drawn again (from the same generator, so an opening kept on the first draw is the one
/// the rule before this check drew) while they reach a [`decided`] position. A random
/// opening that hands one side the enemy king-piece measures nothing of the players: in
/// the ladder of 2026-12-07 level 4 lost two games to level 1 whose four random plies left
/// level 1's Sickle a king capture on its first move (models/ladder/2026-12-07-openings/).
pub fn random_opening(mu: (Faction, Faction), plies: u32, rng: &mut ai::rng::Rng) -> Game {
    let mut g = draw_opening(mu, plies, rng);
    // Past this many draws the last stands (about one opening in sixty is decided: 45 of
    // the 2,700 games of models/ladder/2026-12-07-bottom-up/ladder-c.jsonl).
    for _ in 1..OPENING_DRAWS {
        if plies == 0 || !decided(&g) {
            break;
        }
        g = draw_opening(mu, plies, rng);
    }
    g
}

/// One draw of `plies` uniformly random moves from the match-up's start (the whole random
/// opening before 2026-12-07's check; fewer if the game ends).
pub fn draw_opening(mu: (Faction, Faction), plies: u32, rng: &mut ai::rng::Rng) -> Game {
    let mut g = Game::new(Position::start(mu.0, mu.1));
    for _ in 0..plies {
        let moves = g.legal_moves();
        if moves.is_empty() {
            break;
        }
        if g.play(moves[rng.below(moves.len())]).is_err() {
            break;
        }
    }
    g
}

const OPENING_DRAWS: usize = 64;

/// Whether `game` is over, or its result is forced within the next three plies: the side
/// to move wins by force within its next two moves, or loses after every move it has
/// (the opponent then has a win at once).
pub fn decided(game: &Game) -> bool {
    let mover = game.position().turn();
    game.outcome().is_some() || forced_win(game, mover, 3) || forced_win(game, mover.opponent(), 2)
}

/// Whether `winner` wins by force within `plies` plies of `game` (whichever side moves).
fn forced_win(game: &Game, winner: Side, plies: u32) -> bool {
    if let Some(o) = game.outcome() {
        return o.winner() == Some(winner);
    }
    if plies == 0 {
        return false;
    }
    let after = |mv: &engine::Move| {
        let mut g = game.clone();
        g.play(*mv).is_ok() && forced_win(&g, winner, plies - 1)
    };
    let moves = game.legal_moves();
    if game.position().turn() == winner {
        moves.iter().any(after)
    } else {
        moves.iter().all(after)
    }
}

/// Plays one game; calls `on_move` with every search result (for self-play records).
pub fn play_game(
    south: &Spec,
    north: &Spec,
    mu: (Faction, Faction),
    seed: u64,
    variety: Variety,
    mut on_move: impl FnMut(&Game, &ai::SearchResult),
) -> Option<Outcome> {
    play_capped(south, north, None, mu, seed, variety, |g, r, _| on_move(g, r)).game.outcome()
}

/// `play_game`'s game itself (its moves and outcome), for a record of it: `ladder --moves`.
pub fn play_recorded(
    south: &Spec,
    north: &Spec,
    mu: (Faction, Faction),
    seed: u64,
    variety: Variety,
) -> Played {
    play_capped(south, north, None, mu, seed, variety, |_, _, _| {})
}

/// A game as played: the engine's game (its position, history and outcome) and its moves.
pub struct Played {
    pub game: Game,
    pub moves: Vec<engine::Move>,
}

/// KataGo's playout-cap randomisation for self-play: each move is a full search with
/// probability `full_prob`, else a fast one (`fast`, a smaller budget of the same player).
/// Only full searches make training records (their visit counts are a useful policy
/// target; a fast search's are not), while fast ones let the game go on at a fraction of
/// the cost, so more games (and more game results) fit in the same CPU time.
pub struct PlayoutCap {
    pub fast: Spec,
    pub full_prob: f64,
}

/// `play_game` with an optional playout cap; `on_move` also says whether the move was a
/// full search. The cap's coin has its own generator, so the game's other random choices
/// do not depend on whether a cap is used.
fn play_capped(
    south: &Spec,
    north: &Spec,
    cap: Option<&PlayoutCap>,
    mu: (Faction, Faction),
    seed: u64,
    variety: Variety,
    mut on_move: impl FnMut(&Game, &ai::SearchResult, bool),
) -> Played {
    let mut rng = ai::rng::Rng::new(seed);
    let mut coin = ai::rng::Rng::new(seed ^ 0x9E37_79B9_7F4A_7C15);
    let mut g = random_opening(mu, variety.random_plies, &mut rng);
    while g.outcome().is_none() {
        let mut spec = if g.position().turn() == Side::South { south } else { north };
        let mut full = true;
        if let Some(c) = cap {
            full = coin.unit() < c.full_prob;
            if !full {
                spec = &c.fast;
            }
        }
        let (best, res) = spec.choose(&g, rng.next_u64());
        // The game's moves so far (the opening's included) are its ply.
        let ply = g.moves().len() as u32;
        let mv = match &res {
            Some(r) if ply < variety.sample_until && !r.visits.is_empty() => {
                on_move(&g, r, full);
                let total: u32 = r.visits.iter().sum();
                let mut x = rng.below(total.max(1) as usize) as u32;
                let i = r.visits.iter().position(|&v| {
                    if x < v {
                        true
                    } else {
                        x -= v;
                        false
                    }
                });
                i.map(|i| r.moves[i]).or(best)
            }
            Some(r) => {
                on_move(&g, r, full);
                best
            }
            None => best,
        };
        let Some(mv) = mv else { break };
        if g.play(mv).is_err() {
            break;
        }
    }
    Played { moves: g.moves().to_vec(), game: g }
}

pub(crate) fn parallel<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism().map_or(2, |t| t.get()).min(n.max(1));
    let next = AtomicUsize::new(0);
    let mut out: Vec<(usize, T)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        if i >= n {
                            break mine;
                        }
                        mine.push((i, f(i)));
                    }
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    });
    out.sort_by_key(|x| x.0);
    out.into_iter().map(|x| x.1).collect()
}

#[derive(Default, Clone, Copy)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Tally {
    pub fn n(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Score, its 95% interval, and the Elo difference with its interval.
    pub fn summary(&self) -> String {
        let n = self.n().max(1) as f64;
        let s = (self.wins as f64 + 0.5 * self.draws as f64) / n;
        let var = (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n;
        let half = 1.96 * (var / n).sqrt();
        let elo = |p: f64| {
            let p = p.clamp(0.001, 0.999);
            -400.0 * (1.0 / p - 1.0).log10()
        };
        format!(
            "+{} ={} -{} ({} games): score {:.1}% ± {:.1}% (95%), Elo {:+.0} [{:+.0}, {:+.0}]",
            self.wins,
            self.draws,
            self.losses,
            self.n(),
            100.0 * s,
            100.0 * half,
            elo(s),
            elo(s - half),
            elo(s + half)
        )
    }
}

/// `arena A B --games N --matchups all`: A plays both colours against B.
pub fn arena(a: &Spec, b: &Spec, games_per_matchup: usize, mus: &[(Faction, Faction)], seed: u64) -> String {
    let total = games_per_matchup * mus.len();
    let t = Instant::now();
    let results = parallel(total, |i| {
        let mu = mus[i % mus.len()];
        let a_south = (i / mus.len()).is_multiple_of(2);
        let (s, n) = if a_south { (a, b) } else { (b, a) };
        let o = play_game(s, n, mu, seed ^ (i as u64).wrapping_mul(0x9E37_79B9), MATCH, |_, _| {});
        let a_side = if a_south { Side::South } else { Side::North };
        (mu, o.and_then(|o| o.winner()).map(|w| w == a_side))
    });
    let mut all = Tally::default();
    let mut per: Vec<((Faction, Faction), Tally)> = mus.iter().map(|&m| (m, Tally::default())).collect();
    for (mu, r) in results {
        let slot = per.iter_mut().find(|(m, _)| *m == mu).map(|(_, t)| t);
        for tally in [Some(&mut all), slot].into_iter().flatten() {
            match r {
                Some(true) => tally.wins += 1,
                Some(false) => tally.losses += 1,
                None => tally.draws += 1,
            }
        }
    }
    let mut out = format!("{} vs {}: {}\n", a.label(), b.label(), all.summary());
    if mus.len() > 1 {
        for (mu, t) in per {
            out.push_str(&format!("  {:>9}-{:<9} {}\n", mu.0.name(), mu.1.name(), t.summary()));
        }
    }
    out.push_str(&format!("({:.1} s)\n", t.elapsed().as_secs_f64()));
    out
}

/// `balance --engine E --games N`: E against itself on all nine match-ups.
pub fn balance(spec: &Spec, games_per_matchup: usize, seed: u64) -> String {
    let mus = matchups("all").unwrap_or_default();
    let results = parallel(games_per_matchup * mus.len(), |i| {
        let mu = mus[i % mus.len()];
        (mu, play_game(spec, spec, mu, seed ^ (i as u64).wrapping_mul(0x51_7CC1), MATCH, |_, _| {}))
    });
    let mut out = format!("balance, {} vs itself, {games_per_matchup} games per match-up\n", spec.label());
    out.push_str("south      north      south wins  north wins  draws\n");
    for mu in &mus {
        let (mut s, mut n, mut d) = (0, 0, 0);
        for (m, o) in &results {
            if m == mu {
                match o.and_then(|o| o.winner()) {
                    Some(Side::South) => s += 1,
                    Some(Side::North) => n += 1,
                    None => d += 1,
                }
            }
        }
        let g = (s + n + d).max(1) as f64;
        out.push_str(&format!(
            "{:<10} {:<10} {:>5.1}%      {:>5.1}%      {:>5.1}%\n",
            mu.0.name(),
            mu.1.name(),
            100.0 * s as f64 / g,
            100.0 * n as f64 / g,
            100.0 * d as f64 / g
        ));
    }
    out
}

/// `selfplay --games N --engine E --out FILE [--fast-engine F --full-prob P]`: JSON-lines
/// training records (the format of `ai::encoding::layout_json()["record_format"]`), one
/// per full search. Returns (games, positions).
pub fn selfplay(
    spec: &Spec,
    cap: Option<&PlayoutCap>,
    games: usize,
    seed: u64,
    out: &mut dyn std::io::Write,
) -> std::io::Result<(usize, usize)> {
    let mus = matchups("all").unwrap_or_default();
    let lines = parallel(games, |i| {
        let mu = mus[i % mus.len()];
        let mut samples: Vec<(Side, serde_json::Value)> = Vec::new();
        let o = play_capped(
            spec,
            spec,
            cap,
            mu,
            seed ^ (i as u64).wrapping_mul(0x2545_F491),
            SELFPLAY,
            |g, r, full| {
                if !full {
                    return;
                }
                let pos = g.position();
                let planes: Vec<u8> = ai::encoding::encode(pos).iter().map(|&x| x as u8).collect();
                let policy = ai::encoding::policy_target(&r.moves, &r.policy, pos.turn());
                samples.push((
                    pos.turn(),
                    serde_json::json!({
                        "planes": base64::engine::general_purpose::STANDARD.encode(&planes),
                        "policy": policy.iter().map(|(k, w)| serde_json::json!([k, w])).collect::<Vec<_>>(),
                        "search_value": r.value,
                        "iapn": engine::iapn::format(pos),
                        "matchup": format!("{}-{}", mu.0.name(), mu.1.name()),
                    }),
                ));
            },
        )
        .game
        .outcome();
        let winner = o.and_then(|o| o.winner());
        samples
            .into_iter()
            .map(|(side, mut v)| {
                v["value"] = serde_json::json!(match winner {
                    Some(w) if w == side => 1.0,
                    Some(_) => -1.0,
                    None => 0.0,
                });
                v.to_string()
            })
            .collect::<Vec<_>>()
    });
    let mut n = 0;
    for game in &lines {
        for l in game {
            writeln!(out, "{l}")?;
            n += 1;
        }
    }
    Ok((games, n))
}

/// `leaf-data <records.jsonl>... --out FILE`: the learned leaf score's training data
/// (`ai::leafnet`) from self-play records. Per record, little-endian: the heuristic score
/// (f32, pawns, side to move), the result and the search value (f32 each, side to move),
/// the number of active features (u8) and the features (u16 each).
pub fn leaf_data(inputs: &[&str], out_path: &str) -> Result<String, String> {
    use std::io::{BufRead, Write};
    let file = std::fs::File::create(out_path).map_err(|e| format!("{out_path}: {e}"))?;
    let mut w = std::io::BufWriter::new(file);
    let mut feats = Vec::new();
    let mut n = 0usize;
    for &input in inputs {
        let f = std::fs::File::open(input).map_err(|e| format!("{input}: {e}"))?;
        for (i, line) in std::io::BufReader::new(f).lines().enumerate() {
            let line = line.map_err(|e| format!("{input}: {e}"))?;
            let at = |what: &str| format!("{input}:{}: {what}", i + 1);
            let r: serde_json::Value = serde_json::from_str(&line).map_err(|e| at(&e.to_string()))?;
            let text = r["iapn"].as_str().ok_or_else(|| at("no \"iapn\" (records older than leaf-data)"))?;
            let pos = engine::iapn::parse(text).map_err(|e| at(&e.to_string()))?;
            let num = |k: &str| r[k].as_f64().map(|x| x as f32).ok_or_else(|| at(&format!("no \"{k}\"")));
            let (value, search_value) = (num("value")?, num("search_value")?);
            let moves = pos.legal_moves();
            ai::leafnet::features(&pos, &mut feats);
            let mut rec = Vec::with_capacity(13 + 2 * feats.len());
            rec.extend(ai::Heuristic::score(&pos, &moves).to_le_bytes());
            rec.extend(value.to_le_bytes());
            rec.extend(search_value.to_le_bytes());
            rec.push(feats.len() as u8);
            for f in &feats {
                rec.extend(f.to_le_bytes());
            }
            w.write_all(&rec).map_err(|e| format!("{out_path}: {e}"))?;
            n += 1;
        }
    }
    w.flush().map_err(|e| format!("{out_path}: {e}"))?;
    Ok(format!("{n} positions written to {out_path}\n"))
}

/// `bench-leaf <leaf.bin>`: the alpha-beta at level 4 with the learned leaf score against the
/// same search with the heuristic's, at the same node budget, on the positions of
/// `bench-ai`, run alternately (three rounds each) so machine noise falls on both: ms per
/// move, nodes per ms and the ratio; then the leaf search at the level's own budget (its
/// nodes divided by `LEAF_NODE_COST`), the time per move of the level as it ships.
pub fn bench_leaf(path: &str) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let net = ai::leafnet::LeafNet::from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))?;
    let positions = ai::bench::positions();
    let level = ai::level::level(ai::level::DEFAULT_LEVEL).ok_or("no default level")?;
    let mut secs = [0.0f64; 3];
    let mut nodes = [0u64; 3];
    for _round in 0..3 {
        for (k, leaf) in [None, Some(&net), Some(&net)].into_iter().enumerate() {
            let t = Instant::now();
            for (i, p) in positions.iter().enumerate() {
                let cfg = if k == 2 {
                    level.alphabeta_leaf_config(i as u64)
                } else {
                    level.alphabeta_config(i as u64)
                };
                nodes[k] += ai::pvs::search_with_leaf(p, &[p.hash()], leaf, &cfg).nodes;
            }
            secs[k] += t.elapsed().as_secs_f64();
        }
    }
    let moves = 3.0 * positions.len().max(1) as f64;
    let mut out = String::new();
    for (k, name) in ["heuristic leaves", "leaf network"].iter().enumerate() {
        out.push_str(&format!(
            "alpha-beta level {}, {name:<16}: {:>7.2} ms per move (native), {:>6.0} nodes/ms\n",
            level.number,
            1000.0 * secs[k] / moves,
            nodes[k] as f64 / (1000.0 * secs[k]).max(1e-9)
        ));
    }
    out.push_str(&format!(
        "level {} as shipped (leaf network, {} nodes): {:.2} ms per move (native)\n",
        level.number,
        level.alphabeta_leaf_config(0).nodes,
        1000.0 * secs[2] / moves
    ));
    // The static scores alone, on the same positions.
    let mut scratch = Vec::new();
    let reps = 20_000;
    let legal: Vec<_> = positions.iter().map(|p| (p, p.legal_moves())).collect();
    let t = Instant::now();
    let mut sum = 0.0f32;
    for _ in 0..reps {
        for (p, m) in &legal {
            sum += ai::Heuristic::score(p, m);
        }
    }
    let heur_ns = 1e9 * t.elapsed().as_secs_f64() / (reps * legal.len().max(1)) as f64;
    let t = Instant::now();
    for _ in 0..reps {
        for (p, _) in &legal {
            ai::leafnet::features(p, &mut scratch);
            sum += net.correction(&scratch);
        }
    }
    let net_ns = 1e9 * t.elapsed().as_secs_f64() / (reps * legal.len().max(1)) as f64;
    let mut feats: Vec<Vec<u16>> = Vec::new();
    for (p, _) in &legal {
        ai::leafnet::features(p, &mut scratch);
        feats.push(scratch.clone());
    }
    let t = Instant::now();
    for _ in 0..reps {
        for f in &feats {
            sum += net.correction(f);
        }
    }
    let corr_ns = 1e9 * t.elapsed().as_secs_f64() / (reps * legal.len().max(1)) as f64;
    out.push_str(&format!(
        "correction alone {corr_ns:.0} ns, {} features on average\n",
        feats.iter().map(Vec::len).sum::<usize>() / feats.len().max(1)
    ));
    let t = Instant::now();
    for _ in 0..reps {
        for (p, _) in &legal {
            sum += p.legal_moves().len() as f32;
        }
    }
    let gen_ns = 1e9 * t.elapsed().as_secs_f64() / (reps * legal.len().max(1)) as f64;
    out.push_str(&format!(
        "per position: heuristic score {heur_ns:.0} ns, leaf network's features and correction {net_ns:.0} ns, \
         legal move generation {gen_ns:.0} ns (checksum {sum:.1})\n"
    ));
    out.push_str(&search_signature(path)?);
    let per_node = |k: usize| secs[k] / nodes[k].max(1) as f64;
    out.push_str(&format!(
        "time per node, leaf network / heuristic: {:.3} (hidden {})\n",
        per_node(1) / per_node(0),
        net.hidden()
    ));
    Ok(out)
}

/// The search's signature at levels 3-6 as they ship ([`ai::bench::search_signature`]), each
/// level with its own leaf file ([`ai::level::Level::leaf`]) from the folder of `path` (the
/// shipped ones: `models/`).
fn search_signature(path: &str) -> Result<String, String> {
    let dir = std::path::Path::new(path).parent().unwrap_or(std::path::Path::new("."));
    let leaves = ai::level::Leaves::load_all(|f| {
        std::fs::read(dir.join(f)).map_err(|e| format!("{}: {e}", dir.join(f).display()))
    })?;
    let mut searches = Vec::new();
    for l in (3..=6).filter_map(ai::level::level) {
        let leaf = leaves.get(l.leaf).ok_or_else(|| format!("{} is not loaded", l.leaf.file()))?;
        searches.push((leaf, l.alphabeta_leaf_config(0)));
    }
    let (hash, nodes) = ai::bench::search_signature(&searches);
    Ok(format!("search signature (levels 3-6 as they ship, each with its leaf file, 33 positions): {hash:016x}, {nodes} nodes\n"))
}

/// `bench-ai`: leaf evaluations per second of the heuristic and uniform MCTS (one
/// thread), and the time per move at each level, from a few opening and middlegame
/// positions.
pub fn bench_ai() -> String {
    let positions = ai::bench::positions();
    let mut out =
        String::from("AI speed, one thread, over 9 positions (20 random plies into each match-up)\n");
    for (label, kind) in [("heuristic", "heuristic"), ("uniform", "uniform")] {
        for evals in [64u32, 512, 15_000] {
            let Ok(spec) = Spec::parse(&format!("{kind}:{evals}")) else {
                continue;
            };
            let t = Instant::now();
            let mut total = 0u64;
            for (i, p) in positions.iter().enumerate() {
                let g = Game::new(*p);
                if let (_, Some(r)) = spec.choose(&g, i as u64) {
                    total += u64::from(r.evaluations);
                }
            }
            let secs = t.elapsed().as_secs_f64();
            out.push_str(&format!(
                "{label:<10} budget {evals:>4}: {:>8.0} evaluations/s, {:>7.2} ms per move\n",
                total as f64 / secs,
                1000.0 * secs / positions.len() as f64
            ));
        }
    }
    for l in ai::level::LEVELS {
        let Ok(spec) = Spec::parse(&format!("level:{}", l.number)) else {
            continue;
        };
        let t = Instant::now();
        for (i, p) in positions.iter().enumerate() {
            let _ = spec.choose(&Game::new(*p), i as u64);
        }
        out.push_str(&format!(
            "level {} {:<12} ({:>5} evaluations): {:>7.2} ms per move (native)\n",
            l.number,
            l.name,
            l.evaluations,
            1000.0 * t.elapsed().as_secs_f64() / positions.len() as f64
        ));
    }
    // The alpha-beta at each level, without the network (one network run per move adds
    // `bench-net`'s time per evaluation).
    for l in ai::level::LEVELS {
        let t = Instant::now();
        let (mut nodes, mut depth) = (0u64, 0u32);
        for (i, p) in positions.iter().enumerate() {
            let r = ai::pvs::search(p, &[p.hash()], &l.alphabeta_config(i as u64));
            nodes += r.nodes;
            depth += r.depth;
        }
        let n = positions.len().max(1);
        out.push_str(&format!(
            "alpha-beta level {} ({:>7} nodes): {:>7.2} ms per move (native), mean depth {:.1}, {:.0} nodes/ms\n",
            l.number,
            l.alphabeta_nodes,
            1000.0 * t.elapsed().as_secs_f64() / n as f64,
            f64::from(depth) / n as f64,
            nodes as f64 / (1000.0 * t.elapsed().as_secs_f64()).max(1e-9)
        ));
    }
    for depth in [2u32, 3, 4] {
        let t = Instant::now();
        let mut nodes = 0;
        for p in &positions {
            nodes += ai::alphabeta::alphabeta(p, &[p.hash()], depth).nodes;
        }
        out.push_str(&format!(
            "alphabeta:{depth} ({:>7} positions per move): {:>7.2} ms per move (native)\n",
            nodes / positions.len() as u64,
            1000.0 * t.elapsed().as_secs_f64() / positions.len() as f64
        ));
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn moves(g: &Game) -> String {
        g.moves().iter().map(ToString::to_string).collect::<Vec<_>>().join(" ")
    }

    const BLADES_CLOCKWORK: (Faction, Faction) = (Faction::Blades, Faction::Clockwork);

    /// Regression (2026-12-07): the ladder's game with this seed opened b1c4 f8e7 c4d6
    /// f9f5 at random, and level 1's Sickle took level 4's Father Time on its first move.
    /// The opening is drawn again; the new one is not decided.
    #[test]
    fn regression_a_random_opening_that_hands_over_the_king_is_drawn_again() {
        let seed = 17_747_530_224_521_461_566;
        let first = draw_opening(BLADES_CLOCKWORK, 4, &mut ai::rng::Rng::new(seed));
        assert_eq!(moves(&first), "b1c4 f8e7 c4d6 f9f5");
        assert!(decided(&first));
        let kept = random_opening(BLADES_CLOCKWORK, 4, &mut ai::rng::Rng::new(seed));
        assert_eq!(kept.moves().len(), 4);
        assert_ne!(moves(&kept), moves(&first));
        assert!(!decided(&kept));
    }

    /// An opening that is not decided is the one the first draw gave (the games of every
    /// such seed are the games played before the check).
    #[test]
    fn an_undecided_opening_is_the_first_draw() {
        let mut kept = 0;
        for seed in 0..40u64 {
            let first = draw_opening(BLADES_CLOCKWORK, 4, &mut ai::rng::Rng::new(seed));
            let opening = random_opening(BLADES_CLOCKWORK, 4, &mut ai::rng::Rng::new(seed));
            if !decided(&first) {
                assert_eq!(moves(&opening), moves(&first), "seed {seed}");
                kept += 1;
            }
        }
        assert!(kept > 30, "{kept}");
    }

    #[test]
    fn decided_sees_a_win_in_two_and_a_loss_after_every_move() {
        let start = Game::new(Position::start(Faction::Blades, Faction::Clockwork));
        assert!(!decided(&start));
        let after = |ms: &str| {
            let mut g = start.clone();
            for m in ms.split(' ') {
                g.play(engine::Move::parse(m).unwrap()).unwrap();
            }
            g
        };
        // South's Sickle on d6 takes Father Time on e9 next: North to move escapes (e9f8),
        // so not decided for North...
        assert!(!decided(&after("b1c4 f8e7 c4d6")));
        // ...but after North's f9f5, South to move wins at once.
        assert!(decided(&after("b1c4 f8e7 c4d6 f9f5")));
        // South to move, its Sickle on c4: c4d6 threatens e9, but e9f8 escapes.
        assert!(!decided(&after("b1c4 f8e7")));
    }

    /// Clockwork's Father Time on e1 behind its Cogs cannot step away from a Sickle that
    /// reached f4 (offset (1, 3)): whatever South plays, North takes it (seed 9's opening).
    #[test]
    fn decided_sees_a_side_lost_after_every_move() {
        let mu = (Faction::Clockwork, Faction::Blades);
        let g = draw_opening(mu, 4, &mut ai::rng::Rng::new(9));
        assert_eq!(moves(&g), "i2h3 h9g6 b2c3 g6f4");
        assert!(!forced_win(&g, Side::South, 3));
        assert!(forced_win(&g, Side::North, 2));
        assert!(decided(&g));
    }
}
