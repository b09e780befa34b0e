//! `ladder`: a round robin of engines (issue 32: the AI levels, the alpha-beta sparring
//! partner, a random mover) and a maximum-likelihood Elo fit with confidence intervals.
//!
//! Every pair plays the same number of games, both colours and all nine match-ups in
//! turn; the games of all pairs share one pool of threads, interleaved by pair, so a run
//! cut short by `--seconds` still covers every pair about equally. Each game is written as
//! a JSON line when it ends (`--out`), and `ladder-fit` fits a file again. A run cut short
//! (a session's end) and started again with the same arguments and `--out` file plays only
//! the games that file does not hold.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use engine::{Faction, Side};
use serde_json::{json, Value};

use crate::engines::Spec;
use crate::matches::{play_recorded, MATCH};

/// One game's result: `score` is `a`'s (1 a win, 0.5 a draw, 0 a loss).
#[derive(Clone, Debug, PartialEq)]
pub struct GameResult {
    pub a: String,
    pub b: String,
    pub a_side: String,
    pub matchup: String,
    pub seed: u64,
    pub score: f64,
    pub ms: u64,
    /// How the game ended (`south wins: <reason>`, `draw: <reason>`; `ongoing` if a player
    /// had no move to give) and its length in plies. Absent in files written before them.
    pub end: Option<String>,
    pub plies: Option<u32>,
    /// Its moves in IAMN, space-separated (`ladder --moves`), to replay or study it.
    pub moves: Option<String>,
}

impl GameResult {
    pub fn to_json(&self) -> Value {
        let mut v = json!({"a": self.a, "b": self.b, "a_side": self.a_side, "matchup": self.matchup,
               "seed": self.seed, "score": self.score, "ms": self.ms});
        if let Some(end) = &self.end {
            v["end"] = json!(end);
        }
        if let Some(plies) = self.plies {
            v["plies"] = json!(plies);
        }
        if let Some(moves) = &self.moves {
            v["moves"] = json!(moves);
        }
        v
    }

    pub fn from_json(v: &Value) -> Result<GameResult, String> {
        let text = |k: &str| v[k].as_str().map(str::to_owned).ok_or_else(|| format!("'{k}' missing in {v}"));
        Ok(GameResult {
            a: text("a")?,
            b: text("b")?,
            a_side: text("a_side")?,
            matchup: text("matchup")?,
            seed: v["seed"].as_u64().ok_or_else(|| format!("'seed' missing in {v}"))?,
            score: v["score"]
                .as_f64()
                .filter(|s| [0.0, 0.5, 1.0].contains(s))
                .ok_or_else(|| format!("'score' not 0, 0.5 or 1 in {v}"))?,
            ms: v["ms"].as_u64().unwrap_or(0),
            end: v["end"].as_str().map(str::to_owned),
            plies: v["plies"].as_u64().and_then(|p| u32::try_from(p).ok()),
            moves: v["moves"].as_str().map(str::to_owned),
        })
    }
}

/// Where a run writes its games (`--out`): a line each, with its moves if `moves`
/// (`--moves`).
pub struct Out<'a> {
    pub file: &'a mut (dyn Write + Send),
    pub moves: bool,
}

/// The results of a `--out` file (one JSON object per line).
pub fn read(text: &str) -> Result<Vec<GameResult>, String> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str::<Value>(l)
                .map_err(|e| e.to_string())
                .and_then(|v| GameResult::from_json(&v))
        })
        .collect()
}

/// The pairs (indices into `labels`) of a round robin: every pair, or with `with` not
/// empty only those with one of the players it names.
pub fn pairs(labels: &[String], with: &[&str]) -> Vec<(usize, usize)> {
    let wanted = |i: usize| with.is_empty() || with.contains(&labels[i].as_str());
    (0..labels.len())
        .flat_map(|a| (a + 1..labels.len()).map(move |b| (a, b)))
        .filter(|&(a, b)| wanted(a) || wanted(b))
        .collect()
}

/// Plays `games` games for each of `pairs` (indices into `specs`), on every core; stops
/// starting games after `seconds` (if given). Each result goes to `out` as it ends.
/// The games of `done` (a run cut short, read back from its `--out` file) are not played
/// again: a game is the same game when its players and seed are (the seed is drawn from
/// the run's seed, the pair and the game's number), so a run resumed with the same
/// arguments plays exactly the games the first one did not finish. They are returned
/// with the new ones.
pub fn run(
    specs: &[Spec],
    pairs: &[(usize, usize)],
    games: usize,
    seed: u64,
    seconds: Option<f64>,
    done: &[GameResult],
    out: Option<Out<'_>>,
) -> Vec<GameResult> {
    let record_moves = out.as_ref().is_some_and(|o| o.moves);
    let out = out.map(|o| o.file);
    let total = pairs.len() * games;
    let mus: Vec<(Faction, Faction)> =
        Faction::ALL.iter().flat_map(|&s| Faction::ALL.iter().map(move |&n| (s, n))).collect();
    let started = Instant::now();
    let (next, stop) = (AtomicUsize::new(0), AtomicBool::new(false));
    let results = Mutex::new(Vec::new());
    let out = Mutex::new(out);
    let labels: Vec<String> = specs.iter().map(Spec::label).collect();
    let game_seed =
        |p: usize, k: usize| seed ^ ((p as u64) << 32 | k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    // The games of `done` that are games of this run.
    let this_run: std::collections::HashSet<(&str, &str, u64)> = (0..total)
        .map(|i| {
            let (p, k) = (i % pairs.len(), i / pairs.len());
            (labels[pairs[p].0].as_str(), labels[pairs[p].1].as_str(), game_seed(p, k))
        })
        .collect();
    let kept: Vec<GameResult> =
        done.iter().filter(|r| this_run.contains(&(r.a.as_str(), r.b.as_str(), r.seed))).cloned().collect();
    let finished: std::collections::HashSet<(&str, &str, u64)> =
        kept.iter().map(|r| (r.a.as_str(), r.b.as_str(), r.seed)).collect();
    let threads = std::thread::available_parallelism().map_or(2, |t| t.get()).min(total.max(1));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= total {
                    break;
                }
                if seconds.is_some_and(|limit| started.elapsed().as_secs_f64() > limit) {
                    stop.store(true, Ordering::SeqCst);
                    break;
                }
                // Interleaved by pair: game k of pair p is number k * pairs + p.
                let (p, k) = (i % pairs.len(), i / pairs.len());
                let (a, b) = pairs[p];
                let mu = mus[k % mus.len()];
                let a_south = (k / mus.len()).is_multiple_of(2);
                let game_seed = game_seed(p, k);
                if finished.contains(&(labels[a].as_str(), labels[b].as_str(), game_seed)) {
                    continue;
                }
                let r = play_one(
                    (&specs[a], &labels[a]),
                    (&specs[b], &labels[b]),
                    a_south,
                    mu,
                    game_seed,
                    record_moves,
                );
                if let Ok(mut o) = out.lock() {
                    if let Some(w) = o.as_mut() {
                        let _ = writeln!(w, "{}", r.to_json());
                        let _ = w.flush();
                    }
                }
                if let Ok(mut all) = results.lock() {
                    all.push(r);
                }
            });
        }
    });
    let mut all = kept.clone();
    all.extend(results.into_inner().unwrap_or_default());
    all
}

/// One ladder game: `a` (its spec and label) against `b`, `a` South if `a_south`, on the
/// match-up `mu`, everything drawn from `seed` (the same arguments play the same game).
fn play_one(
    a: (&Spec, &str),
    b: (&Spec, &str),
    a_south: bool,
    mu: (Faction, Faction),
    seed: u64,
    record_moves: bool,
) -> GameResult {
    let (south, north) = if a_south { (a.0, b.0) } else { (b.0, a.0) };
    let t = Instant::now();
    let played = play_recorded(south, north, mu, seed, MATCH);
    let outcome = played.game.outcome();
    let a_side = if a_south { Side::South } else { Side::North };
    let score = match outcome.and_then(|o| o.winner()) {
        Some(w) if w == a_side => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    };
    GameResult {
        a: a.1.to_owned(),
        b: b.1.to_owned(),
        a_side: a_side.to_string(),
        matchup: format!("{}-{}", mu.0.name(), mu.1.name()),
        seed,
        score,
        ms: t.elapsed().as_millis() as u64,
        end: Some(engine::result_text(outcome)),
        plies: u32::try_from(played.moves.len()).ok(),
        moves: record_moves
            .then(|| played.moves.iter().map(ToString::to_string).collect::<Vec<_>>().join(" ")),
    }
}

/// Whether the game of `r` opened, under the rule before 2026-12-07's check, on a
/// [`crate::matches::decided`] position: its first draw of random plies from its seed is
/// the opening it was played from, and the one the current rule draws again.
pub fn opened_decided(r: &GameResult) -> Result<bool, String> {
    let mu = crate::matches::matchups(&r.matchup)?
        .first()
        .copied()
        .ok_or_else(|| format!("match-up '{}'", r.matchup))?;
    let mut rng = ai::rng::Rng::new(r.seed);
    let g = crate::matches::draw_opening(mu, MATCH.random_plies, &mut rng);
    Ok(crate::matches::decided(&g))
}

/// `ladder-redo`: the games of `rows` that opened on a decided position
/// ([`opened_decided`]) played again as the ladder plays them now (the same players, sides,
/// match-up and seed; a fresh opening), the others kept. `done` holds games already
/// replayed (a run cut short); each new one goes to `out` as it ends. Returns every row,
/// in `rows`' order, and how many were replayed. Every replayed row's players must be
/// player specs (a label such as `net:24+decisive+cheap250` is not one: relabel first).
pub fn redo(
    rows: &[GameResult],
    done: &[GameResult],
    out: Out<'_>,
) -> Result<(Vec<GameResult>, usize), String> {
    let mut again = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        if r.a_side != "south" && r.a_side != "north" {
            return Err(format!(
                "game {} (seed {}): a_side '{}' is neither south nor north",
                i + 1,
                r.seed,
                r.a_side
            ));
        }
        if opened_decided(r)? {
            again.push(i);
        }
    }
    let mut specs = std::collections::HashMap::new();
    for &i in &again {
        for label in [&rows[i].a, &rows[i].b] {
            if !specs.contains_key(label) {
                let spec = Spec::parse(label).map_err(|e| format!("player '{label}': {e}"))?;
                if spec.label() != *label {
                    return Err(format!(
                        "'{label}' is not a player's label (it plays as '{}')",
                        spec.label()
                    ));
                }
                specs.insert(label.clone(), spec);
            }
        }
    }
    // Games of `done` stand in only for games that are played again here (a stale --out
    // from another ladder file replaces nothing else).
    let key = |r: &GameResult| (r.a.clone(), r.b.clone(), r.seed);
    let wanted: std::collections::HashSet<_> = again.iter().map(|&i| key(&rows[i])).collect();
    let replayed: std::collections::HashMap<_, GameResult> =
        done.iter().filter(|r| wanted.contains(&key(r))).map(|r| (key(r), r.clone())).collect();
    let todo: Vec<usize> =
        again.iter().copied().filter(|&i| !replayed.contains_key(&key(&rows[i]))).collect();
    eprintln!(
        "{} of {} games opened on a decided position; {} to play ({} already in --out)",
        again.len(),
        rows.len(),
        todo.len(),
        again.len() - todo.len()
    );
    let record_moves = out.moves;
    let file = Mutex::new(out.file);
    let fresh = crate::matches::parallel(todo.len(), |k| {
        let r = &rows[todo[k]];
        let mu = crate::matches::matchups(&r.matchup).ok().and_then(|m| m.first().copied());
        let (Some(mu), Some(a), Some(b)) = (mu, specs.get(&r.a), specs.get(&r.b)) else {
            return None;
        };
        let g = play_one((a, &r.a), (b, &r.b), r.a_side == "south", mu, r.seed, record_moves);
        if let Ok(mut w) = file.lock() {
            let _ = writeln!(w, "{}", g.to_json());
            let _ = w.flush();
        }
        Some(g)
    });
    let mut replayed = replayed;
    for g in fresh.into_iter().flatten() {
        replayed.insert(key(&g), g);
    }
    let all = rows.iter().map(|r| replayed.get(&key(r)).cloned().unwrap_or_else(|| r.clone())).collect();
    Ok((all, again.len()))
}

/// Elo ratings by maximum likelihood, `anchor` at 0: the Bradley–Terry model on the Elo
/// scale (the expected score of i against j is 1 / (1 + 10^((R_j - R_i) / 400))), a draw
/// counting half a win each way, solved by the MM iteration (Hunter 2004) on strengths
/// γ = 10^(R/400). `prior` virtual draws are added between every pair that met, so that a
/// player who lost (or won) every game still has a finite rating (BayesElo's default is 2).
pub fn fit(players: usize, games: &[(usize, usize, f64)], anchor: usize, prior: f64) -> Vec<f64> {
    let mut wins = vec![0.0f64; players];
    let mut met = vec![vec![0.0f64; players]; players];
    for &(a, b, s) in games {
        wins[a] += s;
        wins[b] += 1.0 - s;
        met[a][b] += 1.0;
        met[b][a] += 1.0;
    }
    for (a, row) in met.iter_mut().enumerate() {
        for (b, n) in row.iter_mut().enumerate() {
            if a != b && *n > 0.0 {
                *n += prior;
                wins[a] += prior / 2.0;
            }
        }
    }
    let mut gamma = vec![1.0f64; players];
    for _ in 0..10_000 {
        let mut change = 0.0f64;
        for i in 0..players {
            let denom: f64 =
                (0..players).filter(|&j| j != i).map(|j| met[i][j] / (gamma[i] + gamma[j])).sum();
            if denom > 0.0 && wins[i] > 0.0 {
                let new = wins[i] / denom;
                change = change.max((new / gamma[i]).ln().abs());
                gamma[i] = new;
            }
        }
        // Normalised each round (the likelihood does not change with a common factor).
        let g0 = gamma[anchor];
        gamma.iter_mut().for_each(|g| *g /= g0);
        if change < 1e-10 {
            break;
        }
    }
    gamma.iter().map(|g| 400.0 * g.log10()).collect()
}

/// 95% intervals by the bootstrap: the games of each pair resampled with replacement
/// (`rounds` times, seeded), refitted; the 2.5th and 97.5th percentiles of each rating.
pub fn intervals(
    players: usize,
    games: &[(usize, usize, f64)],
    anchor: usize,
    prior: f64,
    rounds: usize,
    seed: u64,
) -> Vec<(f64, f64)> {
    let mut by_pair: std::collections::BTreeMap<(usize, usize), Vec<f64>> = Default::default();
    for &(a, b, s) in games {
        by_pair.entry((a, b)).or_default().push(s);
    }
    let mut rng = ai::rng::Rng::new(seed);
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); players];
    for _ in 0..rounds {
        let mut resampled = Vec::with_capacity(games.len());
        for (&(a, b), scores) in &by_pair {
            for _ in 0..scores.len() {
                resampled.push((a, b, scores[rng.below(scores.len())]));
            }
        }
        for (i, r) in fit(players, &resampled, anchor, prior).into_iter().enumerate() {
            samples[i].push(r);
        }
    }
    samples
        .into_iter()
        .map(|mut v| {
            v.sort_by(f64::total_cmp);
            let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
            if v.is_empty() {
                (f64::NAN, f64::NAN)
            } else {
                (at(0.025), at(0.975))
            }
        })
        .collect()
}

/// The fitted ratings of a set of games: the players (in order of appearance), each one's
/// Elo and 95% interval, and the players weakest first.
pub struct Ratings {
    pub names: Vec<String>,
    pub elo: Vec<f64>,
    pub ci: Vec<(f64, f64)>,
    pub order: Vec<usize>,
    pub anchor: usize,
}

/// The virtual draws per pair that met ([`fit`]).
const PRIOR: f64 = 1.0;

/// Fits `results` (None without games), anchored at `anchor` (the first player if absent).
pub fn ratings(results: &[GameResult], anchor: Option<&str>) -> Option<Ratings> {
    let mut names: Vec<String> = Vec::new();
    for r in results {
        for n in [&r.a, &r.b] {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
    }
    if names.is_empty() {
        return None;
    }
    let idx = |n: &str| names.iter().position(|x| x == n).unwrap_or(0);
    let anchor = anchor.map_or(0, idx);
    let games: Vec<(usize, usize, f64)> = results.iter().map(|r| (idx(&r.a), idx(&r.b), r.score)).collect();
    let elo = fit(names.len(), &games, anchor, PRIOR);
    let ci = intervals(names.len(), &games, anchor, PRIOR, 300, 7);
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&a, &b| elo[a].total_cmp(&elo[b]));
    Some(Ratings { names, elo, ci, order, anchor })
}

/// The ratings as a picture (SVG): one row per player, weakest at the bottom, its Elo as
/// a dot and its 95% interval as a bar; the shipped levels (`level:N`) in colour, the
/// sparring partners in grey.
pub fn svg(r: &Ratings, title: &str) -> String {
    let (lo, hi) = r.ci.iter().fold((0.0f64, 0.0f64), |(lo, hi), &(a, b)| (lo.min(a), hi.max(b)));
    let (lo, hi) = ((lo / 200.0).floor() * 200.0, (hi / 200.0).ceil() * 200.0);
    let (left, width, row, top) = (130.0, 560.0, 28.0, 48.0);
    let x = |e: f64| left + (e - lo) / (hi - lo).max(1.0) * width;
    let n = r.order.len();
    let height = top + row * n as f64 + 44.0;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {height}\" width=\"{w}\" height=\"{height}\" \
         font-family=\"system-ui, sans-serif\" font-size=\"13\" role=\"img\" aria-label=\"{title}\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n\
         <text x=\"{left}\" y=\"24\" font-size=\"15\" font-weight=\"600\">{title}</text>\n",
        w = left + width + 70.0
    );
    let mut tick = lo;
    while tick <= hi {
        let tx = x(tick);
        let axis = top + row * n as f64;
        out.push_str(&format!(
            "<line x1=\"{tx:.1}\" y1=\"{top}\" x2=\"{tx:.1}\" y2=\"{axis}\" stroke=\"#e4e4e4\"/>\n\
             <text x=\"{tx:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555\">{tick:.0}</text>\n",
            axis + 18.0
        ));
        tick += 200.0;
    }
    out.push_str(&format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555\">Elo ({} = 0), 95% intervals</text>\n",
        left + width / 2.0,
        height - 6.0,
        r.names[r.anchor]
    ));
    for (k, &i) in r.order.iter().rev().enumerate() {
        let y = top + row * k as f64 + row / 2.0;
        let colour = if r.names[i].starts_with("level:") { "#b5472f" } else { "#8a8a8a" };
        out.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n\
             <line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{colour}\" stroke-width=\"4\" stroke-linecap=\"round\" opacity=\"0.45\"/>\n\
             <circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"5\" fill=\"{colour}\"/>\n\
             <text x=\"{:.1}\" y=\"{:.1}\" fill=\"#333\">{:.0}</text>\n",
            left - 10.0,
            y + 4.5,
            r.names[i],
            x(r.ci[i].0),
            x(r.ci[i].1),
            x(r.elo[i]),
            x(r.ci[i].1) + 6.0,
            y + 4.5,
            r.elo[i]
        ));
    }
    out.push_str("</svg>\n");
    out
}

/// The difficulty picker's file (public/levels.json, `text`) with each level's `elo` set to
/// `r`'s rating of `level:N` (rounded; null for a level not in the games), `source` to
/// `files` and `anchor` to `r`'s anchor; everything else (think times, the scale's words)
/// kept.
pub fn picker_levels(text: &str, r: &Ratings, files: &[&str]) -> Result<String, String> {
    let mut v: Value = serde_json::from_str(text).map_err(|e| format!("levels: {e}"))?;
    v["source"] = json!(files);
    v["anchor"] = json!(r.names[r.anchor]);
    let levels = v["levels"].as_array_mut().ok_or("levels: no \"levels\" list")?;
    for l in levels {
        let name = format!("level:{}", l["level"]);
        l["elo"] = match r.names.iter().position(|n| *n == name) {
            Some(i) => json!(r.elo[i].round() as i64),
            None => Value::Null,
        };
    }
    serde_json::to_string_pretty(&v).map(|t| t + "\n").map_err(|e| e.to_string())
}

/// The report: each player's rating (anchored at `anchor`, the first player if absent)
/// with its interval, games and score; then every pair's score, row against column.
pub fn report(results: &[GameResult], anchor: Option<&str>) -> String {
    let Some(Ratings { names, elo, ci, order, anchor: anchor_i }) = ratings(results, anchor) else {
        return "no games\n".into();
    };
    let mut out = format!(
        "Elo by maximum likelihood (Bradley-Terry, draws half a win each way, {PRIOR} virtual draw per pair that met), \
         anchored at {} = 0; 95% intervals by bootstrap over each pair's games (300 rounds). {} games.\n\n",
        names[anchor_i],
        results.len()
    );
    out.push_str(
        "| player | Elo | 95% interval | games | score | mean ms per game |\n|---|---|---|---|---|---|\n",
    );
    for &i in &order {
        let mine: Vec<&GameResult> = results.iter().filter(|r| r.a == names[i] || r.b == names[i]).collect();
        let score: f64 = mine.iter().map(|r| if r.a == names[i] { r.score } else { 1.0 - r.score }).sum();
        let ms = mine.iter().map(|r| r.ms).sum::<u64>() as f64 / mine.len().max(1) as f64;
        out.push_str(&format!(
            "| {} | {:.0} | [{:.0}, {:.0}] | {} | {:.1}% | {:.0} |\n",
            names[i],
            elo[i],
            ci[i].0,
            ci[i].1,
            mine.len(),
            100.0 * score / mine.len().max(1) as f64,
            ms
        ));
    }
    out.push_str("\nScore of the row's player against the column's (games):\n\n| |");
    for &j in &order {
        out.push_str(&format!(" {} |", names[j]));
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(order.len()));
    out.push('\n');
    for &i in &order {
        out.push_str(&format!("| {} |", names[i]));
        for &j in &order {
            let between: Vec<f64> = results
                .iter()
                .filter_map(|r| {
                    if r.a == names[i] && r.b == names[j] {
                        Some(r.score)
                    } else if r.a == names[j] && r.b == names[i] {
                        Some(1.0 - r.score)
                    } else {
                        None
                    }
                })
                .collect();
            if between.is_empty() {
                out.push_str(" |");
            } else {
                let s: f64 = between.iter().sum();
                out.push_str(&format!(" {:.0}% ({}) |", 100.0 * s / between.len() as f64, between.len()));
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// `ladder-redo` takes a game of its --out file only for a game it plays again: a stale
    /// file (of another ladder) replaces nothing else; a row with no side is an error.
    #[test]
    fn redo_takes_from_out_only_the_games_it_plays_again() {
        let row = |seed: u64, score: f64| GameResult {
            a: "random".into(),
            b: "random".into(),
            a_side: "south".into(),
            matchup: "blades-clockwork".into(),
            seed,
            score,
            ms: 0,
            end: None,
            plies: None,
            moves: None,
        };
        // Seed 5's opening is not decided; 17747530224521461566's is (b1c4 f8e7 c4d6 f9f5).
        let decided_seed = 17_747_530_224_521_461_566;
        assert!(!opened_decided(&row(5, 0.5)).unwrap());
        assert!(opened_decided(&row(decided_seed, 1.0)).unwrap());
        let rows = [row(5, 0.5), row(decided_seed, 1.0)];
        let stale = [row(5, 0.0), row(decided_seed, 0.25)];
        let mut sink = std::io::sink();
        let (all, again) = redo(&rows, &stale, Out { file: &mut sink, moves: false }).unwrap();
        assert_eq!(again, 1);
        assert_eq!(all[0], rows[0], "the undecided game is kept, whatever --out holds");
        assert_eq!(all[1], stale[1], "the decided one is taken from --out, not played again");
        let mut bad = row(5, 0.5);
        bad.a_side = "South".into();
        let e = redo(&[bad], &[], Out { file: &mut sink, moves: false }).unwrap_err();
        assert!(e.contains("a_side 'South'"), "{e}");
    }

    /// The difficulty picker's ratings (public/levels.json) are the Elo fit of the games it
    /// names (committed under models/ladder/), rounded: a rating shown to players is a
    /// measured one, and a new run cannot leave the picker behind.
    #[test]
    fn the_pickers_ratings_are_the_fit_of_the_committed_ladder() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
        let levels: Value =
            serde_json::from_str(&std::fs::read_to_string(format!("{root}public/levels.json")).unwrap())
                .unwrap();
        let mut results = Vec::new();
        for f in levels["source"].as_array().unwrap() {
            results.extend(
                read(&std::fs::read_to_string(format!("{root}{}", f.as_str().unwrap())).unwrap()).unwrap(),
            );
        }
        let mut names: Vec<String> = Vec::new();
        for r in &results {
            for n in [&r.a, &r.b] {
                if !names.contains(n) {
                    names.push(n.clone());
                }
            }
        }
        let idx = |n: &str| names.iter().position(|x| x == n).unwrap();
        let games: Vec<(usize, usize, f64)> =
            results.iter().map(|r| (idx(&r.a), idx(&r.b), r.score)).collect();
        let elo = if names.is_empty() {
            Vec::new() // no ladder yet: every rating is null
        } else {
            fit(names.len(), &games, idx(levels["anchor"].as_str().unwrap()), PRIOR)
        };
        let shown = levels["levels"].as_array().unwrap();
        assert_eq!(shown.len(), 6);
        for l in shown {
            let name = format!("level:{}", l["level"]);
            match l["elo"].as_f64() {
                Some(e) => assert_eq!(e, elo[idx(&name)].round(), "{name}"),
                None => assert!(!names.contains(&name), "{name} was measured: show its rating"),
            }
            assert!(l["think_ms"].as_f64().is_some_and(|t| t > 0.0), "{name}: a think time");
        }
    }

    /// Each game's line says how it ended and how long it was, and with `--moves` its moves,
    /// which replay to that end from the match-up's start; a line written before these
    /// fields existed still reads.
    #[test]
    fn a_games_line_carries_its_end_its_length_and_on_request_its_moves() {
        let specs: Vec<Spec> = ["alphabeta:1", "random"].iter().map(|s| Spec::parse(s).unwrap()).collect();
        let mut out: Vec<u8> = Vec::new();
        run(&specs, &[(0, 1)], 9, 3, None, &[], Some(Out { file: &mut out, moves: true }));
        let lines = read(&String::from_utf8(out).unwrap()).unwrap();
        assert_eq!(lines.len(), 9);
        for r in &lines {
            let (south, north) = r.matchup.split_once('-').unwrap();
            let faction = |n: &str| *Faction::ALL.iter().find(|f| f.name() == n).unwrap();
            let mut g = engine::Game::new(engine::Position::start(faction(south), faction(north)));
            let moves = r.moves.as_deref().unwrap();
            for m in moves.split(' ') {
                g.play(m.parse().unwrap()).unwrap();
            }
            assert_eq!(r.plies, Some(moves.split(' ').count() as u32));
            assert_eq!(r.end.as_deref(), Some(engine::result_text(g.outcome()).as_str()));
            let winner = g.outcome().and_then(|o| o.winner());
            let a_side = if r.a_side == "south" { Side::South } else { Side::North };
            let score = winner.map_or(0.5, |w| if w == a_side { 1.0 } else { 0.0 });
            assert_eq!(r.score, score, "{r:?}");
        }
        // Without --moves: the end and the length, no moves.
        let mut out: Vec<u8> = Vec::new();
        run(&specs, &[(0, 1)], 1, 3, None, &[], Some(Out { file: &mut out, moves: false }));
        let line = read(&String::from_utf8(out).unwrap()).unwrap().remove(0);
        assert!(line.moves.is_none() && line.end.is_some() && line.plies.is_some());
        // A line of a file written before.
        let old = read(r#"{"a":"level:4","a_side":"south","b":"alphabeta:4","matchup":"clockwork-axiom","ms":1197,"score":1.0,"seed":5}"#)
            .unwrap()
            .remove(0);
        assert_eq!((old.end, old.plies, old.moves), (None, None, None));
    }

    /// A run cut short and resumed from its `--out` file plays the games it had not
    /// finished, and only those: the two together are the uninterrupted run.
    #[test]
    fn a_resumed_run_plays_only_the_games_not_yet_finished() {
        let specs: Vec<Spec> =
            ["random", "alphabeta:1", "random"].iter().map(|s| Spec::parse(s).unwrap()).collect();
        let pairs = [(0, 1), (1, 2)];
        let mut full = run(&specs, &pairs, 4, 7, None, &[], None);
        assert_eq!(full.len(), 8);
        let key = |r: &GameResult| (r.a.clone(), r.b.clone(), r.seed);
        full.sort_by_key(key);
        let first_part: Vec<GameResult> = full.iter().step_by(2).cloned().collect();
        let mut out: Vec<u8> = Vec::new();
        let mut resumed =
            run(&specs, &pairs, 4, 7, None, &first_part, Some(Out { file: &mut out, moves: false }));
        // Only the four missing games were played (and written).
        assert_eq!(String::from_utf8(out).unwrap().lines().count(), 4);
        resumed.sort_by_key(key);
        let games = |rs: &[GameResult]| {
            rs.iter().map(|r| (key(r), r.a_side.clone(), r.matchup.clone(), r.score)).collect::<Vec<_>>()
        };
        assert_eq!(games(&resumed), games(&full));
    }

    #[test]
    fn a_split_round_robin_covers_every_pair_once() {
        let labels: Vec<String> = ["a", "b", "c", "d"].iter().map(|s| s.to_string()).collect();
        assert_eq!(pairs(&labels, &[]).len(), 6);
        let with_d = pairs(&labels, &["d"]);
        assert_eq!(with_d, vec![(0, 3), (1, 3), (2, 3)]);
        let without_d = pairs(&labels[..3], &[]);
        // The pairs without d (a run of the first three) and those with d (another run)
        // are the whole round robin, no pair twice.
        let mut all: Vec<_> = without_d.into_iter().chain(with_d).collect();
        all.sort();
        assert_eq!(all, pairs(&labels, &[]));
    }

    /// Games drawn from known ratings (seeded): the fit without virtual draws finds them
    /// again within its intervals, anchored at the first player; the virtual draws pull the
    /// extremes a little towards the middle, never past the truth.
    #[test]
    fn the_fit_recovers_known_ratings() {
        let truth = [0.0, 300.0, 500.0, 1200.0];
        let mut rng = ai::rng::Rng::new(42);
        let mut games = Vec::new();
        for a in 0..truth.len() {
            for b in a + 1..truth.len() {
                let p = 1.0 / (1.0 + 10f64.powf((truth[b] - truth[a]) / 400.0));
                for _ in 0..400 {
                    let s = if rng.unit() < p { 1.0 } else { 0.0 };
                    games.push((a, b, s));
                }
            }
        }
        let elo = fit(truth.len(), &games, 0, 0.0);
        let ci = intervals(truth.len(), &games, 0, 0.0, 200, 1);
        assert_eq!(elo[0], 0.0);
        for i in 1..truth.len() {
            assert!((elo[i] - truth[i]).abs() < 60.0, "player {i}: {:.0} for {}", elo[i], truth[i]);
            assert!(ci[i].0 <= elo[i] && elo[i] <= ci[i].1, "{:?} around {}", ci[i], elo[i]);
            assert!(ci[i].0 - 80.0 < truth[i] && truth[i] < ci[i].1 + 80.0, "{:?} vs {}", ci[i], truth[i]);
        }
        let shrunk = fit(truth.len(), &games, 0, 1.0);
        assert!(shrunk[3] < elo[3] && shrunk[3] > elo[3] - 150.0, "{shrunk:?} against {elo:?}");
    }

    /// A player who lost every game still gets a finite rating (the virtual draws), below
    /// everyone it met.
    #[test]
    fn a_player_who_lost_every_game_is_rated_finitely_and_last() {
        let games: Vec<(usize, usize, f64)> =
            (0..20).map(|_| (0, 1, 0.0)).chain((0..20).map(|_| (1, 2, 0.5))).collect();
        let elo = fit(3, &games, 1, 1.0);
        assert!(elo[0].is_finite() && elo[0] < -300.0, "{elo:?}");
        assert!((elo[2] - elo[1]).abs() < 1.0, "{elo:?}");
    }
}
