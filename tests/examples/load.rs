//! Load benchmark of many games at once (issue 30, item 4): hundreds of concurrent link
//! games, each with two clients (South and North, each its own seat token and its own HTTP
//! agent), and a share of `ai` games, on a local runtime at 127.0.0.1 only. Bounded in
//! count (games, plies per game) and in time (no move is sent after `--seconds`).
//!
//! Phases: create every game (and join every link game) on the pool; digest D1; play, the
//! pool's threads serving whichever seat is to move (the mover reads the game's state with
//! `GET /api/games/{id}`, picks a legal move with a seeded RNG, posts it with its own token,
//! then hands the turn to the other seat), while sampler threads time `GET /api/health`,
//! an empty request, under the same load; digest D1 again. Reports validated moves/s,
//! p50/p99 move latency, the errors, the health p50 and the ratio of the two (the figure
//! that means something on a shared, noisy machine). Then checks correctness:
//! - every acknowledged move (answered 200), and every AI reply in those answers, is in its
//!   game's final record (`GET /api/games/{id}/record`, and the state's `moves`) once, at
//!   its ply, and the record holds nothing else (nothing lost, nothing doubled);
//! - no answer was a 5xx;
//! - D1 saw no statement from a non-final move, which writes nothing to D1: its digest
//!   (every row of every table but `d1_migrations`, `_cf_*` and `sqlite*`) after the
//!   creations and joins equals the one after every move, and audit triggers, put on every
//!   one of those tables for the play (and removed after it), saw no row inserted, updated
//!   or deleted, not even one rewritten with the same values. A game that ended during the
//!   play wrote D1 with its final move: its rows are left out and reported, and so, when a
//!   game ended, are the rows that name no game of the run (counters of unfinished games).
//!
//! Prints `PASS` or `FAIL: ...` last and exits 1 on a failure. `scripts/load.sh` starts a
//! fresh local runtime with raised limits and runs this (`--smoke` for the CI smoke);
//! by hand: `cargo run --release -p runtime-tests --example load -- http://127.0.0.1:8787
//! [--games 200] [--ai-percent 10] [--plies 12] [--seconds 120] [--seed 1] [--threads 48]
//! [--samplers 2] [--persist <wrangler's --persist-to dir>]` (without `--persist`, no D1 check).

#![allow(clippy::unwrap_used)] // a load tool: a broken invariant of its own aborts with its message

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[derive(Debug, Clone)]
struct Opts {
    base: String,
    games: usize,
    ai_percent: f64,
    plies: u64,
    seconds: f64,
    seed: u64,
    threads: usize,
    samplers: usize,
    persist: Option<PathBuf>,
    d1_script: PathBuf,
}

fn usage() -> ! {
    eprintln!(
        "usage: load <http://127.0.0.1:PORT> [--games N] [--ai-percent P] [--plies N] [--seconds S] \
         [--seed N] [--threads N] [--samplers N] [--persist DIR] [--d1-script PATH]"
    );
    std::process::exit(2)
}

fn num<T: std::str::FromStr>(v: &str) -> T {
    v.parse().unwrap_or_else(|_| usage())
}

fn opts() -> Opts {
    let mut o = Opts {
        base: "http://127.0.0.1:8787".into(),
        games: 200,
        ai_percent: 10.0,
        plies: 12,
        seconds: 120.0,
        seed: 1,
        threads: 48,
        samplers: 2,
        persist: None,
        d1_script: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/support/d1.py")),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if !a.starts_with("--") {
            o.base = a.trim_end_matches('/').to_owned();
            continue;
        }
        let v = args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--games" => o.games = num(&v),
            "--ai-percent" => o.ai_percent = num(&v),
            "--plies" => o.plies = num(&v),
            "--seconds" => o.seconds = num(&v),
            "--seed" => o.seed = num(&v),
            "--threads" => o.threads = num(&v),
            "--samplers" => o.samplers = num(&v),
            "--persist" => o.persist = Some(PathBuf::from(v)),
            "--d1-script" => o.d1_script = PathBuf::from(v),
            _ => usage(),
        }
    }
    // A benchmark of this machine's runtime, never of a deployed one.
    let host = o.base.strip_prefix("http://").and_then(|r| r.split(['/', ':']).next()).unwrap_or("");
    if host != "127.0.0.1" {
        eprintln!("load: {} is not http://127.0.0.1:PORT (this benchmark runs on 127.0.0.1 only)", o.base);
        std::process::exit(2);
    }
    if o.threads == 0 || !(0.0..=100.0).contains(&o.ai_percent) {
        usage();
    }
    o
}

/// splitmix64: the move choice's RNG, one value per (seed, game, ply), so a game's moves do
/// not depend on how the threads interleave.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn rng(seed: u64, game: usize, ply: u64) -> u64 {
    mix(mix(mix(seed) ^ game as u64) ^ ply)
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

/// One answer: the status (0 when the request failed without one), its JSON, its latency.
#[derive(Debug)]
struct Reply {
    status: u16,
    body: Value,
    text: String,
    took: Duration,
}

fn request(a: &ureq::Agent, method: &str, url: &str, token: Option<&str>, body: Option<&Value>) -> Reply {
    let t = Instant::now();
    let sent = match method {
        "GET" => {
            let mut r = a.get(url);
            if let Some(t) = token {
                r = r.header("Authorization", &format!("Bearer {t}"));
            }
            r.call()
        }
        _ => {
            let mut r = a.post(url).header("Content-Type", "application/json");
            if let Some(t) = token {
                r = r.header("Authorization", &format!("Bearer {t}"));
            }
            r.send(body.map(Value::to_string).unwrap_or_default())
        }
    };
    match sent {
        Ok(mut resp) => {
            let status = resp.status().as_u16();
            let text = resp.body_mut().read_to_string().unwrap_or_default();
            let took = t.elapsed();
            Reply { status, body: serde_json::from_str(&text).unwrap_or(Value::Null), text, took }
        }
        Err(e) => Reply { status: 0, body: Value::Null, text: e.to_string(), took: t.elapsed() },
    }
}

/// What happened to the requests, by kind.
#[derive(Debug, Default)]
struct Tally {
    link_moves: Vec<Duration>,
    ai_moves: Vec<Duration>,
    reads: Vec<Duration>,
    creates: Vec<Duration>,
    joins: Vec<Duration>,
    health: Vec<Duration>,
    server_errors: usize,
    other_errors: usize,
    failed_requests: usize,
    /// A state that did not hold the acknowledged moves when its seat came to move.
    anomalies: usize,
    error_samples: Vec<String>,
}

impl Tally {
    fn error(&mut self, what: &str, r: &Reply) {
        match r.status {
            0 => self.failed_requests += 1,
            500.. => self.server_errors += 1,
            _ => self.other_errors += 1,
        }
        if self.error_samples.len() < 8 {
            let text: String = r.text.chars().take(200).collect();
            self.error_samples.push(format!("{what}: {} {text}", r.status));
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Plies,
    Time,
    Ended,
    Error,
}

/// One game as the run knows it.
#[derive(Debug)]
struct Game {
    index: usize,
    id: String,
    /// The AI's level in an `ai` game (the creator plays South); None for a link game.
    ai: Option<u8>,
    /// The seats' tokens and agents: [South, North] in a link game, [South] in an ai game.
    seats: Vec<(String, ureq::Agent)>,
    /// Every move an answer acknowledged (a player's, and the AI's reply), by ply.
    acked: Vec<(u64, String)>,
    /// Moves whose answer never came or was a 5xx: applied or not, nobody knows.
    unsure: Vec<(u64, String)>,
    stop: Option<Stop>,
}

/// The play phase's work: the seat of each game that is to move, waiting for a thread.
#[derive(Debug, Default)]
struct Queue {
    ready: VecDeque<usize>,
    /// Games with a seat to move queued or being served.
    live: usize,
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)].as_secs_f64() * 1000.0
}

fn summary(name: &str, v: &mut [Duration]) -> String {
    v.sort();
    format!(
        "{name}: n {}  p50 {:.1}  p90 {:.1}  p99 {:.1}  max {:.1} ms",
        v.len(),
        percentile(v, 0.5),
        percentile(v, 0.9),
        percentile(v, 0.99),
        percentile(v, 1.0)
    )
}

/// Runs `job(i)` for every i in 0..n on `threads` threads.
fn pool<T: Send>(threads: usize, n: usize, job: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = Mutex::new(0usize);
    let out: Mutex<Vec<Option<T>>> = Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads.min(n.max(1)) {
            s.spawn(|| loop {
                let i = {
                    let mut g = next.lock().unwrap();
                    let i = *g;
                    *g += 1;
                    i
                };
                if i >= n {
                    break;
                }
                let r = job(i);
                out.lock().unwrap()[i] = Some(r);
            });
        }
    });
    out.into_inner().unwrap().into_iter().map(Option::unwrap).collect()
}

const FACTIONS: [&str; 3] = ["blades", "clockwork", "axiom"];

/// Creates game `index` (joined by a second client when it is a link game).
fn setup(o: &Opts, index: usize, ai: Option<u8>, tally: &Mutex<Tally>) -> Option<Game> {
    let r = rng(o.seed, index, u64::MAX);
    let (south, north) = (FACTIONS[(r % 3) as usize], FACTIONS[((r >> 8) % 3) as usize]);
    let south_agent = agent();
    let body = match ai {
        Some(level) => json!({"south": south, "north": north, "mode": "ai", "seat": "south", "level": level}),
        None => json!({"south": south, "north": north, "mode": "link", "seat": "south"}),
    };
    let c = request(&south_agent, "POST", &format!("{}/api/games", o.base), None, Some(&body));
    if c.status != 201 {
        tally.lock().unwrap().error("create", &c);
        return None;
    }
    tally.lock().unwrap().creates.push(c.took);
    let id = c.body["id"].as_str().unwrap().to_owned();
    let mut seats = vec![(c.body["token"].as_str().unwrap().to_owned(), south_agent)];
    if ai.is_none() {
        let north_agent = agent();
        let invite = c.body["invite_url"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_owned();
        let j = request(
            &north_agent,
            "POST",
            &format!("{}/api/games/{id}/join", o.base),
            None,
            Some(&json!({ "invite": invite })),
        );
        if j.status != 200 {
            tally.lock().unwrap().error("join", &j);
            return None;
        }
        tally.lock().unwrap().joins.push(j.took);
        seats.push((j.body["token"].as_str().unwrap().to_owned(), north_agent));
    }
    Some(Game { index, id, ai, seats, acked: Vec::new(), unsure: Vec::new(), stop: None })
}

/// The seat to move in `g` reads the state, plays one seeded legal move and says whether
/// the game goes on (then the other seat, or the same one against the AI, is to move).
fn turn(o: &Opts, g: &mut Game, deadline: Instant, tally: &Mutex<Tally>) -> bool {
    let ply = g.acked.len() as u64;
    let seat = if g.ai.is_some() { 0 } else { (ply % 2) as usize };
    let (token, a) = (&g.seats[seat].0, &g.seats[seat].1);
    let url = format!("{}/api/games/{}", o.base, g.id);
    let st = request(a, "GET", &url, None, None);
    if st.status != 200 {
        tally.lock().unwrap().error("read", &st);
        g.stop = Some(Stop::Error);
        return false;
    }
    tally.lock().unwrap().reads.push(st.took);
    let state = &st.body;
    if state["status"] != "ongoing" {
        g.stop = Some(Stop::Ended);
        return false;
    }
    if state["ply"].as_u64() != Some(ply) {
        let mut t = tally.lock().unwrap();
        t.anomalies += 1;
        t.error_samples
            .push(format!("game {}: its state is at ply {} after {ply} acknowledged", g.id, state["ply"]));
        g.stop = Some(Stop::Error);
        return false;
    }
    if ply >= o.plies {
        g.stop = Some(Stop::Plies);
        return false;
    }
    if Instant::now() >= deadline {
        g.stop = Some(Stop::Time);
        return false;
    }
    let legal = state["legal_moves"].as_array().unwrap();
    let mv = legal[(rng(o.seed, g.index, ply) % legal.len() as u64) as usize].as_str().unwrap().to_owned();
    let r = request(a, "POST", &format!("{url}/moves"), Some(token), Some(&json!({"move": mv, "ply": ply})));
    if r.status != 200 {
        tally.lock().unwrap().error("move", &r);
        if r.status == 0 || r.status >= 500 {
            g.unsure.push((ply, mv));
        }
        g.stop = Some(Stop::Error);
        return false;
    }
    {
        let mut t = tally.lock().unwrap();
        if g.ai.is_some() {
            t.ai_moves.push(r.took)
        } else {
            t.link_moves.push(r.took)
        }
    }
    g.acked.push((ply, mv));
    if let Some(reply) = r.body["ai_move"].as_str() {
        g.acked.push((ply + 1, reply.to_owned()));
    }
    if r.body["state"]["status"] != "ongoing" {
        g.stop = Some(Stop::Ended);
        return false;
    }
    true
}

/// The play phase: `threads` threads serve the seats to move until every game has stopped.
fn play(o: &Opts, games: &[Mutex<Game>], deadline: Instant, tally: &Mutex<Tally>) {
    let q = Mutex::new(Queue { ready: (0..games.len()).collect(), live: games.len() });
    let wake = Condvar::new();
    std::thread::scope(|s| {
        for _ in 0..o.threads {
            s.spawn(|| loop {
                let i = {
                    let mut g = q.lock().unwrap();
                    loop {
                        if let Some(i) = g.ready.pop_front() {
                            break i;
                        }
                        if g.live == 0 {
                            return;
                        }
                        g = wake.wait(g).unwrap();
                    }
                };
                let more = turn(o, &mut games[i].lock().unwrap(), deadline, tally);
                let mut g = q.lock().unwrap();
                if more {
                    g.ready.push_back(i);
                } else {
                    g.live -= 1;
                }
                wake.notify_all();
            });
        }
    });
}

/// The checks of one game's final record: (lost, doubled or unexplained, unsure ones
/// applied, a description of the first problem).
fn check(o: &Opts, a: &ureq::Agent, g: &Game, tally: &Mutex<Tally>) -> (usize, usize, usize, Option<String>) {
    let st = request(a, "GET", &format!("{}/api/games/{}", o.base, g.id), None, None);
    let rec = request(a, "GET", &format!("{}/api/games/{}/record", o.base, g.id), None, None);
    if st.status != 200 || rec.status != 200 {
        let bad = if st.status != 200 { &st } else { &rec };
        tally.lock().unwrap().error("final read", bad);
        return (g.acked.len(), 0, 0, Some(format!("game {}: final read {}", g.id, bad.status)));
    }
    let record = match engine::record::Record::parse(&rec.text) {
        Ok(r) => r,
        Err(e) => return (g.acked.len(), 0, 0, Some(format!("game {}: record does not parse: {e:?}", g.id))),
    };
    let moves: Vec<String> = record.moves.iter().map(ToString::to_string).collect();
    let state_moves: Vec<String> =
        st.body["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_owned()).collect();
    let mut problem = None;
    if moves != state_moves {
        problem =
            Some(format!("game {}: the record's moves {moves:?} are not the state's {state_moves:?}", g.id));
    }
    let lost = g.acked.iter().filter(|(ply, mv)| moves.get(*ply as usize) != Some(mv)).count();
    let (mut extra, mut unsure_applied) = (0, 0);
    for (ply, mv) in moves.iter().enumerate().skip(g.acked.len()) {
        if g.unsure.iter().any(|(p, m)| *p == ply as u64 && m == mv) {
            unsure_applied += 1;
        } else if g.ai.is_some() && unsure_applied > 0 && ply == g.acked.len() + 1 {
            // The AI's reply to an unanswered move that was applied.
            unsure_applied += 1;
        } else {
            extra += 1;
        }
    }
    if (lost > 0 || extra > 0) && problem.is_none() {
        problem = Some(format!("game {}: acknowledged {:?}, record {moves:?}", g.id, g.acked));
    }
    (lost, extra, unsure_applied, problem)
}

fn d1(o: &Opts, dir: &std::path::Path, sql: &str) -> Vec<Value> {
    let out = std::process::Command::new("python3").arg(&o.d1_script).arg(dir).arg(sql).output().unwrap();
    assert!(out.status.success(), "d1.py: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every row of every table (not d1_migrations, _cf_*, sqlite*) as JSON, by table.
fn d1_digest(o: &Opts, dir: &std::path::Path) -> Vec<(String, Vec<String>)> {
    d1_tables(o, dir)
        .into_iter()
        .map(|name| {
            // Sorted here, not by rowid: a WITHOUT ROWID table has none.
            let mut rows: Vec<String> =
                d1(o, dir, &format!("SELECT * FROM \"{name}\"")).iter().map(Value::to_string).collect();
            rows.sort();
            (name, rows)
        })
        .collect()
}

/// The tables the digest reads.
fn d1_tables(o: &Opts, dir: &std::path::Path) -> Vec<String> {
    d1(
        o,
        dir,
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' \
         AND name NOT LIKE 'sqlite%' AND name != 'd1_migrations' ORDER BY name",
    )
    .iter()
    .map(|t| t["name"].as_str().unwrap().to_owned())
    .collect()
}

/// Triggers on every table of the digest that log each row a statement inserts, updates or
/// deletes into `_load_audit` (a name the digest skips): every write statement that
/// touches a row, even one that rewrites the same values (which a digest cannot see).
fn d1_audit_on(o: &Opts, dir: &std::path::Path) {
    let mut sql = String::from(
        "CREATE TABLE IF NOT EXISTS _load_audit (seq INTEGER PRIMARY KEY, tbl TEXT NOT NULL, op TEXT NOT NULL, row TEXT);",
    );
    for t in d1_tables(o, dir) {
        let cols: Vec<String> = d1(o, dir, &format!("PRAGMA table_info(\"{t}\")"))
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_owned())
            .collect();
        for (op, rec) in [("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD")] {
            let fields: Vec<String> = cols.iter().map(|c| format!("'{c}', {rec}.\"{c}\"")).collect();
            sql += &format!(
                "CREATE TRIGGER IF NOT EXISTS \"_load_audit_{t}_{op}\" AFTER {op} ON \"{t}\" BEGIN \
                 INSERT INTO _load_audit (tbl, op, row) VALUES ('{t}', '{op}', json_object({})); END;",
                fields.join(", ")
            );
        }
    }
    d1(o, dir, &sql);
}

/// The rows written since [`d1_audit_on`] ("table op row"), and the triggers removed.
fn d1_audit_off(o: &Opts, dir: &std::path::Path) -> Vec<String> {
    let rows = d1(o, dir, "SELECT tbl, op, row FROM _load_audit ORDER BY seq");
    let triggers = d1(o, dir, "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '\\_load\\_audit\\_%' ESCAPE '\\'");
    let mut sql = String::new();
    for t in &triggers {
        sql += &format!("DROP TRIGGER \"{}\";", t["name"].as_str().unwrap());
    }
    d1(o, dir, &(sql + "DROP TABLE _load_audit;"));
    rows.iter()
        .map(|r| {
            format!(
                "{} {} {}",
                r["tbl"].as_str().unwrap(),
                r["op"].as_str().unwrap(),
                r["row"].as_str().unwrap_or("")
            )
        })
        .collect()
}

/// The tables whose rows differ between two digests, with a count of rows each way.
fn d1_diff(a: &[(String, Vec<String>)], b: &[(String, Vec<String>)]) -> Vec<String> {
    let mut out = Vec::new();
    let names: std::collections::BTreeSet<&String> = a.iter().chain(b).map(|(n, _)| n).collect();
    for name in names {
        let rows = |d: &[(String, Vec<String>)]| {
            d.iter().find(|(n, _)| n == name).map(|(_, r)| r.clone()).unwrap_or_default()
        };
        let (ra, rb) = (rows(a), rows(b));
        if ra != rb {
            let gone = ra.iter().filter(|r| !rb.contains(r)).count();
            let new = rb.iter().filter(|r| !ra.contains(r)).count();
            let first = rb.iter().find(|r| !ra.contains(r)).or(ra.iter().find(|r| !rb.contains(r)));
            out.push(format!(
                "{name}: {gone} rows gone or changed, {new} new or changed (e.g. {})",
                first.map_or("", |r| r.as_str())
            ));
        }
    }
    out
}

fn main() {
    let o = opts();
    let tally = Mutex::new(Tally::default());
    let probe = agent();
    let h = request(&probe, "GET", &format!("{}/api/health", o.base), None, None);
    if h.status != 200 {
        eprintln!("load: {}/api/health answered {} {}", o.base, h.status, h.text);
        std::process::exit(1);
    }
    // The empty request on the idle runtime, for reference.
    let mut idle_health: Vec<Duration> =
        (0..20).map(|_| request(&probe, "GET", &format!("{}/api/health", o.base), None, None).took).collect();

    // Game i is an ai game when the share's running count steps at i (spread evenly).
    let ai_of = |i: usize| {
        let share = |n: usize| (n as f64 * o.ai_percent / 100.0).floor() as usize;
        (share(i + 1) > share(i)).then_some(1 + (i % 2) as u8)
    };
    let t0 = Instant::now();
    let games: Vec<Mutex<Game>> = pool(o.threads, o.games, |i| setup(&o, i, ai_of(i), &tally))
        .into_iter()
        .flatten()
        .map(Mutex::new)
        .collect();
    let setup_s = t0.elapsed().as_secs_f64();
    let ai_games = games.iter().filter(|g| g.lock().unwrap().ai.is_some()).count();
    println!(
        "setup: {} of {} games created ({} link games joined by a second client, {ai_games} ai games at levels 1-2) in {setup_s:.1} s",
        games.len(),
        o.games,
        games.len() - ai_games
    );

    // D1 after every creation and join, once it has settled (two equal digests 1 s apart).
    let before = o.persist.as_ref().map(|dir| {
        let mut d = d1_digest(&o, dir);
        for _ in 0..30 {
            std::thread::sleep(Duration::from_secs(1));
            let again = d1_digest(&o, dir);
            if again == d {
                break;
            }
            d = again;
        }
        d1_audit_on(&o, dir);
        d
    });

    // Play, with the health samplers running beside it.
    let stop_sampling = Arc::new(AtomicBool::new(false));
    let t1 = Instant::now();
    let deadline = t1 + Duration::from_secs_f64(o.seconds);
    std::thread::scope(|s| {
        for _ in 0..o.samplers {
            s.spawn(|| {
                let a = agent();
                while !stop_sampling.load(Ordering::Relaxed) {
                    let r = request(&a, "GET", &format!("{}/api/health", o.base), None, None);
                    let mut t = tally.lock().unwrap();
                    if r.status == 200 {
                        t.health.push(r.took)
                    } else {
                        t.error("health", &r)
                    }
                    drop(t);
                    std::thread::sleep(Duration::from_millis(20));
                }
            });
        }
        play(&o, &games, deadline, &tally);
        stop_sampling.store(true, Ordering::Relaxed);
    });
    let play_s = t1.elapsed().as_secs_f64();
    let games: Vec<Game> = games.into_iter().map(|g| g.into_inner().unwrap()).collect();
    let ended: Vec<String> =
        games.iter().filter(|g| g.stop == Some(Stop::Ended)).map(|g| g.id.clone()).collect();

    // D1 after every move (and again a moment later, for a write that came after its answer).
    let d1_checked: Option<(Vec<String>, usize)> = before.map(|before| {
        let dir = o.persist.as_ref().unwrap();
        // A game that ended wrote D1 (its index row, and what counts unfinished games):
        // its rows are left out, and so, when any game ended, are the rows that name no
        // game of the run (counters and the like, which its end also moves).
        let ids: Vec<&str> = games.iter().map(|g| g.id.as_str()).collect();
        let keep = |row: &String| {
            ended.is_empty()
                || (!ended.iter().any(|id| row.contains(id.as_str()))
                    && ids.iter().any(|id| row.contains(id)))
        };
        let kept = |d: Vec<(String, Vec<String>)>| -> Vec<(String, Vec<String>)> {
            d.into_iter().map(|(n, rows)| (n, rows.into_iter().filter(&keep).collect())).collect()
        };
        let before = kept(before);
        let mut problems = d1_diff(&before, &kept(d1_digest(&o, dir)));
        std::thread::sleep(Duration::from_secs(2));
        if problems.is_empty() {
            problems = d1_diff(&before, &kept(d1_digest(&o, dir)));
        }
        // Every row a statement wrote during the play, from the audit triggers.
        let writes = d1_audit_off(&o, dir);
        let stray: Vec<&String> = writes.iter().filter(|w| keep(w)).collect();
        if !stray.is_empty() {
            problems.push(format!(
                "{} rows written by statements during the play not from a final move (e.g. {})",
                stray.len(),
                stray[0]
            ));
        }
        (problems, writes.len())
    });

    // The final records.
    let checks = pool(o.threads.min(8), games.len(), |i| check(&o, &agent(), &games[i], &tally));
    let lost: usize = checks.iter().map(|c| c.0).sum();
    let doubled: usize = checks.iter().map(|c| c.1).sum();
    let unsure_applied: usize = checks.iter().map(|c| c.2).sum();
    let problems: Vec<&String> = checks.iter().filter_map(|c| c.3.as_ref()).collect();

    let mut t = tally.into_inner().unwrap();
    let stops = |s: Stop| games.iter().filter(|g| g.stop == Some(s)).count();
    let player_moves = t.link_moves.len() + t.ai_moves.len();
    let ai_replies: usize = games.iter().filter(|g| g.ai.is_some()).map(|g| g.acked.len() / 2).sum();
    println!(
        "play: {} threads, {} games, up to {} plies, bound {} s: {player_moves} validated moves \
         ({} in link games, {} in ai games, plus {ai_replies} AI replies) in {play_s:.1} s",
        o.threads,
        games.len(),
        o.plies,
        o.seconds,
        t.link_moves.len(),
        t.ai_moves.len()
    );
    println!(
        "games stopped: {} at the ply bound, {} at the time bound, {} ended by the rules ({} of them ai games; \
         left out of the D1 check), {} by an error",
        stops(Stop::Plies),
        stops(Stop::Time),
        stops(Stop::Ended),
        games.iter().filter(|g| g.stop == Some(Stop::Ended) && g.ai.is_some()).count(),
        stops(Stop::Error)
    );
    println!("validated moves/s: {:.1}", player_moves as f64 / play_s);
    println!(
        "requests/s during play (moves, state reads, health): {:.1}",
        (player_moves + t.reads.len() + t.health.len()) as f64 / play_s
    );
    println!("{}", summary("link move latency", &mut t.link_moves));
    println!("{}", summary("ai move latency (incl. the AI's reply)", &mut t.ai_moves));
    println!("{}", summary("state read latency", &mut t.reads));
    println!("{}", summary("create latency", &mut t.creates));
    println!("{}", summary("join latency", &mut t.joins));
    println!("{}", summary("health (idle runtime)", &mut idle_health));
    println!("{}", summary(&format!("health under load ({} samplers)", o.samplers), &mut t.health));
    let move_p50 = percentile(if t.link_moves.is_empty() { &t.ai_moves } else { &t.link_moves }, 0.5);
    let health_p50 = percentile(&t.health, 0.5);
    println!(
        "ratio move p50 (link games; ai ones when none) / health p50 under load: {:.1}",
        move_p50 / health_p50
    );
    println!(
        "errors: {} 5xx, {} other non-2xx, {} requests without an answer, {} states without the acknowledged moves",
        t.server_errors, t.other_errors, t.failed_requests, t.anomalies
    );
    for e in &t.error_samples {
        println!("  {e}");
    }
    println!("records: {lost} acknowledged moves lost, {doubled} doubled or unexplained, {unsure_applied} unanswered moves applied");
    for p in problems.iter().take(5) {
        println!("  {p}");
    }
    let d1_problems = d1_checked.as_ref().map(|c| &c.0);
    match &d1_checked {
        None => println!("D1: not checked (no --persist)"),
        Some((p, _)) if p.is_empty() && ended.is_empty() => println!(
            "D1: no row written during the play ({} non-final moves): the digest is unchanged and \
             the audit triggers saw no write",
            player_moves
        ),
        Some((p, writes)) if p.is_empty() => println!(
            "D1: {writes} rows written during the play, all by the {} final moves, none by the {} \
             non-final ones (the digest unchanged but for the ended games' rows and the rows that \
             name no game)",
            ended.len(),
            player_moves.saturating_sub(ended.len())
        ),
        Some((p, _)) => {
            println!("D1: written by non-final moves:");
            for line in p {
                println!("  {line}");
            }
        }
    }

    let mut fail = Vec::new();
    if lost > 0 || doubled > 0 || !problems.is_empty() || t.anomalies > 0 {
        fail.push(format!(
            "{lost} lost, {doubled} doubled moves, {} games with a bad record",
            problems.len()
        ));
    }
    if t.server_errors > 0 {
        fail.push(format!("{} 5xx answers", t.server_errors));
    }
    if d1_problems.as_ref().is_some_and(|p| !p.is_empty()) {
        fail.push("D1 written by non-final moves".into());
    }
    if player_moves == 0 {
        fail.push("no move was acknowledged".into());
    }
    if fail.is_empty() {
        println!(
            "PASS: nothing lost or doubled, no 5xx{}",
            if d1_problems.is_some() { ", no D1 write from a non-final move" } else { "" }
        );
    } else {
        println!("FAIL: {}", fail.join("; "));
        std::process::exit(1);
    }
}
