//! The statistics counters (`player_totals`, `matchup_totals`: triggers on `games` in
//! migrations/0010_stats_counters.sql) on real SQLite made by the real migrations: after
//! any sequence of writes they equal what the scans they replace counted, by the rules
//! in Rust (`FinishReason::is_abort`, a game against oneself, a played link game); a
//! trigger with any of its clauses removed is caught by the same walk; the backfill
//! counts what was there before; and the reads touch no `games` row beyond a page.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use std::collections::BTreeMap;

use engine::{Faction, Position, Side};
use serde_json::Value;
use service::db::index;
use service::model::{Controller, Finish, FinishReason, GameRecord, Mode, Seat};
use service::sql::{Sql, Stmt};
use service::sql_players::{FINISHED_GAMES, FINISHED_GAMES_BEFORE, MATCHUP_COUNTS, PLAYER_TOTALS};
use service::sqlite::{block_on, migration_files, migrations_dir, Sqlite};

const T0: i64 = 1_700_000_000_000;
const PLAYERS: [&str; 4] = ["p0", "p1", "p2", "p3"];
const THIS: &str = "0010_stats_counters.sql";

fn query(db: &Sqlite, sql: &str) -> Vec<Value> {
    block_on(db.all(Stmt::new(sql.to_owned()))).unwrap().into_iter().map(Value::Object).collect()
}

/// A database made by the migrations, this one's text replaced by `this` (a mutant), or
/// stopped before it (`None`).
fn migrated_with(this: Option<&str>) -> Sqlite {
    let db = Sqlite::empty().unwrap();
    for file in migration_files(&migrations_dir()).unwrap() {
        if file.file_name().is_some_and(|n| n == THIS) {
            if let Some(sql) = this {
                db.conn().execute_batch(sql).unwrap();
            }
        } else {
            db.execute_file(&file).unwrap();
        }
    }
    for p in PLAYERS {
        db.conn().execute("INSERT INTO players (id, created_at) VALUES (?1, 0)", [p]).unwrap();
    }
    db
}

fn migration() -> String {
    std::fs::read_to_string(migrations_dir().join(THIS)).unwrap()
}

/// A seeded xorshift: the same walk every run.
struct Walk(u64);

impl Walk {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    /// One of three players, or none (an open seat): a game against oneself is common.
    fn player(&mut self) -> Option<&'static str> {
        PLAYERS.get(self.next(4) as usize + 1).copied()
    }

    /// Clockwork half the time: match-ups repeat, so a row is counted and uncounted often.
    fn faction(&mut self) -> Faction {
        Faction::ALL.get(self.next(6) as usize).copied().unwrap_or(Faction::Clockwork)
    }

    fn reason(&mut self) -> FinishReason {
        FinishReason::ALL[self.next(FinishReason::ALL.len() as u64) as usize]
    }
}

fn record(w: &mut Walk, id: &str) -> GameRecord {
    let (south, north) = (w.faction(), w.faction());
    let start = Position::start(south, north);
    let mode = if w.next(4) == 0 { Mode::Ai } else { Mode::Link };
    let seat = |p: Option<&str>| Seat {
        controller: Controller::Human,
        token_hash: Some("h".into()),
        player: p.map(str::to_owned),
    };
    let north_seat = match mode {
        Mode::Ai => Seat { controller: Controller::Ai, token_hash: None, player: None },
        Mode::Link => seat(w.player()),
    };
    let mut rec = GameRecord::new(id, south, north, mode, [seat(w.player()), north_seat], T0);
    // Plies as the index counts them: 0 to 2.
    let mv = engine::Game::new(start).legal_moves()[0];
    let plies = w.next(3) as usize;
    rec.moves =
        (0..plies).map(|i| service::model::MoveEntry { mv, by: Side::South, at: T0 + i as i64 }).collect();
    rec
}

fn finish(w: &mut Walk, rec: &mut GameRecord, at: i64) {
    let reason = w.reason();
    rec.result = Some(if reason.is_abort() {
        Finish::aborted(reason, at)
    } else {
        match w.next(3) {
            0 => Finish::draw(reason, at),
            1 => Finish::win(Side::South, reason, at),
            _ => Finish::win(Side::North, reason, at),
        }
    });
}

/// What the counters must hold, computed from every games row by the rules in Rust (the
/// scans they replace): `player_totals` as `(player, south, north, side) -> (played,
/// won)` and `matchup_totals` as `(south, north) -> (games, south wins, north wins,
/// draws)`, no zero entries.
type Totals = BTreeMap<(String, String, String, String), (i64, i64)>;
type Matchups = BTreeMap<(String, String), (i64, i64, i64, i64)>;

fn scanned(db: &Sqlite) -> (Totals, Matchups) {
    let (mut totals, mut matchups) = (Totals::new(), Matchups::new());
    let text = |v: &Value| v.as_str().map(str::to_owned);
    for g in query(db, "SELECT * FROM games WHERE result IS NOT NULL") {
        let reason: Option<FinishReason> =
            g["reason"].as_str().and_then(|r| serde_json::from_value(r.into()).ok());
        if reason.is_some_and(FinishReason::is_abort) {
            continue;
        }
        let (south, north) = (text(&g["south_player"]), text(&g["north_player"]));
        if south.is_some() && south == north {
            continue; // against oneself
        }
        let (sf, nf) = (text(&g["south_faction"]).unwrap(), text(&g["north_faction"]).unwrap());
        let winner = text(&g["winner"]);
        for (player, side) in [(south, "south"), (north, "north")] {
            let Some(player) = player else { continue };
            let t = totals.entry((player, sf.clone(), nf.clone(), side.to_owned())).or_default();
            t.0 += 1;
            t.1 += i64::from(winner.as_deref() == Some(side));
        }
        if g["mode"] == "link" && g["plies"].as_i64().unwrap() > 0 {
            let m = matchups.entry((sf, nf)).or_default();
            m.0 += 1;
            match winner.as_deref() {
                Some("south") => m.1 += 1,
                Some("north") => m.2 += 1,
                _ => m.3 += 1,
            }
        }
    }
    (totals, matchups)
}

fn counted(db: &Sqlite) -> (Totals, Matchups) {
    let s = |v: &Value| v.as_str().unwrap().to_owned();
    let n = |v: &Value| v.as_i64().unwrap();
    let totals = query(db, "SELECT * FROM player_totals")
        .iter()
        .map(|r| {
            (
                (s(&r["player_id"]), s(&r["south_faction"]), s(&r["north_faction"]), s(&r["side"])),
                (n(&r["played"]), n(&r["won"])),
            )
        })
        .collect();
    // A match-up's row stays at zero (nine rows at most).
    let matchups = query(db, "SELECT * FROM matchup_totals WHERE games != 0")
        .iter()
        .map(|r| {
            (
                (s(&r["south_faction"]), s(&r["north_faction"])),
                (n(&r["games"]), n(&r["south_wins"]), n(&r["north_wins"]), n(&r["draws"])),
            )
        })
        .collect();
    (totals, matchups)
}

/// The walks' seeds: each a different sequence, all of them run.
const SEEDS: [u64; 4] = [0x9e37_79b9_7f4a_7c15, 7, 0x2545_f491_4f6c_dd1d, 1_000_003];
const STEPS: i64 = 1500;

/// Seeded random writes of every kind the games rows see, the counters compared with the
/// scan after each: the first difference, if any, else the most rows the two counters
/// held at once (how much the walk exercised them).
fn walk(db: &Sqlite, seed: u64) -> Result<(usize, usize), String> {
    let mut w = Walk(seed);
    let mut most = (0, 0);
    // A write the triggers make fail (a mutant's) is a difference too.
    let run = |stmt: Stmt| block_on(db.run(stmt)).map(drop).map_err(|e| e.0);
    let text = |sql: &str, args: &[&str]| args.iter().fold(Stmt::new(sql.to_owned()), |s, a| s.bind(*a));
    for step in 0..STEPS {
        let id = format!("{:024x}", w.next(40) + 1);
        let wrote = match w.next(16) {
            // Created, or moved on (the upsert keeps a finished row as it is).
            0..=2 => run(index::upsert_stmt(&record(&mut w, &id), Some("ip"))),
            // Ended: the upsert of the game's end (a row first seen finished is an insert).
            3..=7 => {
                let mut rec = record(&mut w, &id);
                finish(&mut w, &mut rec, T0 + step * 1000);
                run(index::upsert_stmt(&rec, None))
            }
            // A guest merged into an account: every seat of the one rewritten.
            8 => {
                let (a, g) = (PLAYERS[w.next(4) as usize], PLAYERS[w.next(4) as usize]);
                run(text("UPDATE games SET south_player = ?1 WHERE south_player = ?2", &[a, g])).and_then(
                    |()| run(text("UPDATE games SET north_player = ?1 WHERE north_player = ?2", &[a, g])),
                )
            }
            9..=11 => run(text("DELETE FROM games WHERE id = ?1", &[&id])),
            // Any other change to a row, even one never made today (a finished row is final).
            12 => run(text("UPDATE games SET result = NULL WHERE id = ?1", &[&id])),
            13 => {
                let reason = match w.next(4) {
                    0 => None,
                    1 => Some("meteor"),
                    _ => Some(w.reason().as_str()),
                };
                run(Stmt::new("UPDATE games SET reason = ?1 WHERE id = ?2").bind(reason).bind(id.as_str()))
            }
            _ => {
                let winner = ["south", "north", "draw"][w.next(3) as usize];
                run(Stmt::new("UPDATE games SET winner = ?1, plies = ?2 WHERE id = ?3")
                    .bind((winner != "draw").then_some(winner))
                    .bind(w.next(3) as i64)
                    .bind(id.as_str()))
            }
        };
        wrote.map_err(|e| format!("step {step}: {e}"))?;
        let (want, got) = (scanned(db), counted(db));
        if want != got {
            return Err(format!("seed {seed}, after step {step}: scanned {want:?}, counted {got:?}"));
        }
        most = (most.0.max(got.0.len()), most.1.max(got.1.len()));
    }
    Ok(most)
}

#[test]
fn the_counters_equal_the_scans_they_replace_after_any_sequence_of_writes() {
    for seed in SEEDS {
        let (totals, matchups) = walk(&migrated_with(Some(&migration())), seed).unwrap();
        assert!(totals > 10 && matchups > 3, "seed {seed} counted little: {totals}, {matchups} rows at most");
    }
}

/// The walks above notice any clause of the triggers gone: each mutant of the migration
/// (one clause removed or changed) fails it. `(trigger, text, replacement)`.
#[test]
fn a_trigger_with_a_clause_removed_is_caught_by_the_walk() {
    const ABORT: &str = "AND COALESCE(NEW.reason, '') NOT IN ('by a player', 'never joined')";
    const OLD_ABORT: &str = "AND COALESCE(OLD.reason, '') NOT IN ('by a player', 'never joined')";
    const SELF: &str = "AND COALESCE(NEW.south_player = NEW.north_player, 0) = 0";
    const OLD_SELF: &str = "AND COALESCE(OLD.south_player = OLD.north_player, 0) = 0";
    let mutants: &[(&str, &str, &str)] = &[
        ("totals_on_insert", ABORT, ""),
        ("totals_on_insert", SELF, ""),
        ("totals_on_insert", "won = won + excluded.won", "won = won"),
        ("totals_on_insert", "NEW.winner IS 'south'", "0"),
        ("totals_on_insert", "NEW.winner IS 'north'", "0"),
        ("totals_on_insert", "NEW.south_player IS NOT NULL AND", ""),
        ("totals_on_insert", "NEW.north_player IS NOT NULL AND", ""),
        ("totals_on_insert", "WHERE NEW.mode = 'link' AND", "WHERE"),
        ("totals_on_insert", "AND NEW.plies > 0", ""),
        ("totals_on_delete", OLD_ABORT, ""),
        ("totals_on_delete", OLD_SELF, ""),
        ("totals_on_delete", "AND OLD.plies > 0", ""),
        ("totals_on_delete", "DELETE FROM player_totals", "SELECT 1 FROM player_totals"),
        ("totals_on_update", "AND OLD.result IS NOT NULL", ""),
        ("totals_on_update", "AND NEW.result IS NOT NULL", ""),
        ("totals_on_update", OLD_ABORT, ""),
        ("totals_on_update", ABORT, ""),
        ("totals_on_update", OLD_SELF, ""),
        ("totals_on_update", SELF, ""),
        ("totals_on_update", "OR OLD.reason IS NOT NEW.reason", ""),
        ("totals_on_update", "OR OLD.south_player IS NOT NEW.south_player", ""),
        ("totals_on_update", "OR OLD.plies IS NOT NEW.plies", ""),
        ("totals_on_update", "draws = draws - (OLD.winner IS NULL)", "draws = draws"),
        ("totals_on_update", "won = won - (OLD.winner IS 'south')", "won = won"),
        ("totals_on_update", "won = won - (OLD.winner IS 'north')", "won = won"),
        ("totals_on_update", "south_wins = south_wins + excluded.south_wins", "south_wins = south_wins"),
        ("totals_on_update", "OR OLD.north_player IS NOT NEW.north_player", ""),
        ("totals_on_update", "OR OLD.winner IS NOT NEW.winner", ""),
        ("totals_on_update", "OLD.result IS NOT NEW.result OR", ""),
        ("totals_on_update", "DELETE FROM player_totals", "SELECT 1 FROM player_totals"),
    ];
    let original = migration();
    let mut tried = 0;
    for (trigger, text, replacement) in mutants {
        let start = original.find(&format!("CREATE TRIGGER IF NOT EXISTS {trigger} ")).unwrap();
        let end = start + original[start..].find("END;").unwrap();
        let body = &original[start..end];
        assert!(body.contains(text), "{trigger} has no '{text}'");
        // Each place the clause is written (the south seat's statement, the north's, …).
        for (at, _) in body.match_indices(text) {
            let at = start + at;
            let mutant = format!("{}{replacement}{}", &original[..at], &original[at + text.len()..]);
            let caught = SEEDS.iter().any(|&seed| walk(&migrated_with(Some(&mutant)), seed).is_err());
            assert!(caught, "{trigger} without its '{text}' at byte {at} went unnoticed");
            tried += 1;
        }
    }
    assert!(tried > 40, "{tried}");
}

/// Every abort list in the migration and in the page's query is the reasons
/// `FinishReason::is_abort` names (a reason added to it must be added there).
#[test]
fn the_sql_abort_lists_are_finish_reason_is_abort() {
    let aborts: Vec<String> =
        FinishReason::ALL.iter().filter(|r| r.is_abort()).map(|r| format!("'{}'", r.as_str())).collect();
    let want = format!("NOT IN ({})", aborts.join(", "));
    for (what, text) in [("the migration", migration()), ("the page", FINISHED_GAMES_BEFORE.to_owned())] {
        let lists: Vec<&str> = text
            .match_indices("NOT IN (")
            .map(|(i, _)| &text[i..i + text[i..].find(')').unwrap() + 1])
            .collect();
        assert!(lists.len() >= 2, "{what}");
        for l in lists {
            assert_eq!(l, want, "{what}");
        }
    }
}

/// A database with games before the migration gets counters that count them.
#[test]
fn the_migration_counts_the_games_already_there() {
    let db = migrated_with(None);
    let mut w = Walk(7);
    for i in 0..60 {
        let mut rec = record(&mut w, &format!("{:024x}", i + 1));
        if w.next(4) != 0 {
            finish(&mut w, &mut rec, T0 + i);
        }
        block_on(index::upsert(&db, &rec, None)).unwrap();
    }
    db.conn().execute_batch(&migration()).unwrap();
    let (want, got) = (scanned(&db), counted(&db));
    assert_eq!(got, want);
    assert!(want.0.len() > 5 && want.1.len() > 2, "{want:?}");
}

/// The reads: the counters by key, never the games; a page of games by the seats'
/// indexes, from the cursor on, never a scan of the games.
#[test]
fn the_reads_scan_no_games() {
    let db = migrated_with(Some(&migration()));
    let plan = |sql: &str, args: &[&str]| -> Vec<String> {
        let stmt = args.iter().fold(Stmt::new(format!("EXPLAIN QUERY PLAN {sql}")), |s, a| s.bind(*a));
        block_on(db.all(stmt))
            .unwrap()
            .into_iter()
            .map(|r| r["detail"].as_str().unwrap().to_owned())
            .collect()
    };
    let counters = [plan(MATCHUP_COUNTS, &[]), plan(PLAYER_TOTALS, &["p0"])];
    for p in &counters {
        assert!(p.iter().all(|d| !d.contains("games")), "{p:?}");
    }
    assert!(
        counters[1].iter().any(|d| d.contains("SEARCH player_totals USING PRIMARY KEY (player_id=?)")),
        "{:?}",
        counters[1]
    );
    for (sql, args, seek) in [
        (FINISHED_GAMES, &["p0", "10"][..], "_player=?)"),
        (FINISHED_GAMES_BEFORE, &["p0", "10", "5", "0a"][..], "_player=? AND <expr><?)"),
    ] {
        let p = plan(sql, args);
        let games: Vec<&String> = p
            .iter()
            .filter(|d| d.contains(" games ") || d.ends_with(" games") || d.contains(" g "))
            .collect();
        assert!(!games.is_empty() && games.iter().all(|d| d.starts_with("SEARCH ")), "{p:?}");
        for seat in ["south", "north"] {
            let walk = format!("SEARCH games USING INDEX games_finished_by_{seat} ({seat}{seek}");
            assert!(p.contains(&walk), "{walk} in {p:?}");
        }
    }
}
