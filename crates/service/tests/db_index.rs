//! The games index (`service::db::index`) and My games (`service::db::me_games`) on
//! real SQLite made by the real migrations, foreign keys on: the statements the Worker
//! runs on D1, with the rules that go with them.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use engine::{Faction, Game, Side};
use serde_json::{json, Value};
use service::create::Load;
use service::db::{index, me_games};
use service::me_games::{GameStatus, Opponent, Standing, MAX_GAMES, RECENT_MS};
use service::model::{Controller, Finish, FinishReason, GameRecord, Mode, MoveEntry, Seat};
use service::sql::{Sql, Stmt};
use service::sqlite::{block_on, Sqlite};

const T0: i64 = 1_700_000_000_000;
const DAY: i64 = 86_400_000;

fn db() -> Sqlite {
    Sqlite::migrated().unwrap()
}

fn player(db: &Sqlite, id: &str, name: Option<&str>) {
    db.conn()
        .execute(
            "INSERT INTO players (id, display_name, created_at) VALUES (?1, ?2, ?3)",
            rusqlite::params![id, name, T0],
        )
        .unwrap();
}

fn merge(db: &Sqlite, from: &str, into: &str) {
    db.conn().execute("INSERT INTO player_merges (from_id, into_id) VALUES (?1, ?2)", [from, into]).unwrap();
}

/// A game id of the form the Worker makes (24 hex digits).
fn gid(n: u32) -> String {
    format!("{n:024x}")
}

fn seat(player: Option<&str>) -> Seat {
    Seat { controller: Controller::Human, token_hash: Some("h".into()), player: player.map(str::to_owned) }
}

fn record(id: &str, mode: Mode, south: Option<&str>, north: Option<&str>) -> GameRecord {
    let north_seat = match mode {
        Mode::Ai => Seat { controller: Controller::Ai, token_hash: None, player: None },
        Mode::Link => seat(north),
    };
    GameRecord {
        days_per_move: Some(3),
        ..GameRecord::new(id, Faction::Clockwork, Faction::Blades, mode, [seat(south), north_seat], T0)
    }
}

/// `rec` after `n` plies (the index stores only their count).
fn at_plies(rec: &GameRecord, n: usize) -> GameRecord {
    let mut rec = rec.clone();
    let mv = Game::new(rec.start).legal_moves()[0];
    rec.moves = (0..n).map(|i| MoveEntry { mv, by: Side::South, at: T0 + i as i64 }).collect();
    rec
}

fn finished(rec: &GameRecord, winner: Side, reason: FinishReason, at: i64) -> GameRecord {
    let mut rec = rec.clone();
    rec.result = Some(Finish::win(winner, reason, at));
    rec
}

fn query(db: &Sqlite, sql: &str) -> Vec<Value> {
    block_on(db.all(Stmt::new(sql.to_owned()))).unwrap().into_iter().map(Value::Object).collect()
}

fn game_row(db: &Sqlite, id: &str) -> Value {
    let rows = query(
        db,
        &format!(
            "SELECT south_faction, north_faction, mode, days_per_move, creator_ip_hash, created_at, \
             finished_at, result, winner, reason, plies, south_player, north_player FROM games WHERE id = '{id}'"
        ),
    );
    assert_eq!(rows.len(), 1, "{id}: {rows:?}");
    rows[0].clone()
}

#[test]
fn the_index_row_holds_the_game_and_its_seats_players_resolved_through_merges() {
    let db = db();
    player(&db, "acct", Some("Ada"));
    player(&db, "guest", None);
    merge(&db, "guest", "acct");
    let id = gid(1);
    // South sat as a guest since merged into an account; North's player is unknown.
    let rec = record(&id, Mode::Link, Some("guest"), Some("nobody"));
    block_on(index::upsert(&db, &rec, Some("iphash"))).unwrap();
    assert_eq!(
        game_row(&db, &id),
        json!({"south_faction": "clockwork", "north_faction": "blades", "mode": "link", "days_per_move": 3,
               "creator_ip_hash": "iphash", "created_at": T0, "finished_at": null, "result": null,
               "winner": null, "reason": null, "plies": 0, "south_player": "acct", "north_player": null})
    );
    // A later snapshot without South's player (a flush after the seat was reset) keeps it;
    // North's, once known, is bound.
    player(&db, "nobody", None);
    let mut later = at_plies(&rec, 2);
    later.seats[0].player = None;
    block_on(index::upsert(&db, &later, None)).unwrap();
    let row = game_row(&db, &id);
    assert_eq!(
        (&row["south_player"], &row["north_player"], &row["plies"]),
        (&json!("acct"), &json!("nobody"), &json!(2))
    );
    assert_eq!(row["creator_ip_hash"], "iphash", "the creation's address hash stays");
    // The end.
    let end = finished(&later, Side::North, FinishReason::Resignation, T0 + DAY);
    block_on(index::upsert(&db, &end, None)).unwrap();
    let row = game_row(&db, &id);
    assert_eq!(
        (&row["result"], &row["winner"], &row["reason"], &row["finished_at"]),
        (&json!("north wins: resignation"), &json!("north"), &json!("resignation"), &json!(T0 + DAY))
    );
    // An AI game: its mode, no second player.
    let ai = record(&gid(2), Mode::Ai, Some("acct"), None);
    block_on(index::upsert(&db, &ai, None)).unwrap();
    let row = game_row(&db, &gid(2));
    assert_eq!((&row["mode"], &row["north_player"]), (&json!("ai"), &Value::Null));
}

/// Regression (c25e628): the upsert took whichever snapshot landed last, and two flushes
/// of one game can be in flight at once (its Durable Object takes requests while D1 is
/// awaited) and land out of order. A finished row is final, and an unfinished one only
/// moves forward in plies. Fails on the old upsert, without its `WHERE games.result IS
/// NULL AND excluded.plies >= games.plies` (checked: the row went back to 3 plies), and
/// without either half (checked: without the plies the row went back to 3 plies; without
/// the result it lost its result to an 8-ply unfinished snapshot).
#[test]
fn an_older_snapshot_of_a_game_never_overwrites_a_newer_index_row() {
    let db = db();
    player(&db, "s", None);
    player(&db, "n", None);
    let id = gid(7);
    let rec = record(&id, Mode::Link, Some("s"), Some("n"));
    let upsert = |r: &GameRecord| block_on(index::upsert(&db, r, None)).unwrap();
    let plies = || game_row(&db, &id)["plies"].clone();
    upsert(&rec);
    upsert(&at_plies(&rec, 5));
    assert_eq!(plies(), 5);
    upsert(&at_plies(&rec, 3));
    assert_eq!(plies(), 5, "an older unfinished snapshot changes nothing");
    upsert(&at_plies(&rec, 5));
    assert_eq!(plies(), 5, "the same one again is harmless");
    let end = finished(&at_plies(&rec, 6), Side::South, FinishReason::KingDestroyed, T0 + 9);
    upsert(&end);
    let done = game_row(&db, &id);
    assert_eq!((&done["plies"], &done["result"]), (&json!(6), &json!("south wins: king destroyed")));
    // Snapshots from before the end land afterwards: the finished row stays as it is.
    upsert(&at_plies(&rec, 5));
    upsert(&at_plies(&rec, 8));
    assert_eq!(game_row(&db, &id), done, "a finished row is final");
    // Even a finished snapshot with another result (never both, but a row is final).
    upsert(&finished(&at_plies(&rec, 9), Side::North, FinishReason::Resignation, T0 + 10));
    assert_eq!(game_row(&db, &id), done);
}

/// Regression (stop 48): the finished snapshot was skipped when an unfinished one with more
/// plies had been written first — after a take-back (an AI game's row written at ply 6 by a
/// retried flush, the player takes back to ply 4 and resigns) — and the flush that skipped
/// it still cleared the outbox: the game stayed unfinished in D1 for good.
#[test]
fn a_finished_snapshot_lands_even_with_fewer_plies_than_the_row_after_a_takeback() {
    let db = db();
    player(&db, "s", None);
    let id = gid(8);
    let rec = record(&id, Mode::Ai, Some("s"), None);
    let upsert = |r: &GameRecord| block_on(index::upsert(&db, r, None)).unwrap();
    upsert(&at_plies(&rec, 6));
    assert_eq!(game_row(&db, &id)["plies"], 6);
    upsert(&finished(&at_plies(&rec, 4), Side::North, FinishReason::Resignation, T0 + 9));
    let done = game_row(&db, &id);
    assert_eq!((&done["plies"], &done["result"]), (&json!(4), &json!("north wins: resignation")));
    // Still final: a later unfinished snapshot with more plies changes nothing.
    upsert(&at_plies(&rec, 6));
    assert_eq!(game_row(&db, &id), done);
}

#[test]
fn capacity_counts_unfinished_games_overall_by_address_and_by_player() {
    let db = db();
    for p in ["me", "other"] {
        player(&db, p, None);
    }
    let load = |ip: &str, creator: Option<&str>| block_on(index::load(&db, ip, creator)).unwrap();
    let l = |active_games, open_by_address, open_by_player| Load {
        active_games,
        open_by_address,
        open_by_player,
    };
    assert_eq!(load("ip", None), l(0, 0, None));
    let games = [
        (gid(1), Some("me"), Some("ip-a"), false),
        (gid(2), Some("other"), Some("ip-a"), false),
        (gid(3), Some("me"), Some("ip-b"), false),
        (gid(4), Some("me"), Some("ip-a"), true),
        (gid(5), None, Some("ip-a"), false),
    ];
    for (id, p, ip, done) in &games {
        let mut rec = record(id, Mode::Link, *p, None);
        if *done {
            rec = finished(&rec, Side::South, FinishReason::Resignation, T0 + 1);
        }
        block_on(index::upsert(&db, &rec, *ip)).unwrap();
    }
    // The address bucket's unfinished games, and the player's wherever they were made.
    assert_eq!(load("ip-a", None), l(4, 3, None));
    assert_eq!(load("ip-a", Some("me")), l(4, 3, Some(2)));
    assert_eq!(load("ip-c", Some("other")), l(4, 0, Some(1)));
    // The end frees them: game 1 finishes.
    let done = finished(
        &record(&gid(1), Mode::Link, Some("me"), None),
        Side::North,
        FinishReason::Resignation,
        T0 + 2,
    );
    block_on(index::upsert(&db, &done, None)).unwrap();
    assert_eq!(load("ip-a", Some("me")), l(3, 2, Some(1)));
    // The counters are read by key: the statement scans no games.
    let plan = query(
        &db,
        &format!("EXPLAIN QUERY PLAN {}", index::LOAD.replace("?1", "'ip-a'").replace("?2", "'me'")),
    );
    assert!(plan.iter().all(|r| !r["detail"].as_str().unwrap_or_default().contains("games")), "{plan:?}");
}

/// The load counters are kept by triggers (migrations/0008_load_counters.sql, 0009's
/// reservations) whatever writes the games rows: after any sequence of reservations,
/// releases, creations, joins, ends, merges and removals, each counter equals the count it
/// replaces, unfinished games plus open reservations (a seeded random walk).
#[test]
fn the_load_counters_equal_the_counts_they_replace_after_any_sequence_of_writes() {
    let db = db();
    let players = ["p0", "p1", "p2", "p3"];
    for p in players {
        player(&db, p, None);
    }
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let scan = |key: &str| -> i64 {
        let (games, reserved) = match key.split_once(':') {
            None => ("SELECT COUNT(*) AS n FROM games WHERE result IS NULL".to_owned(),
                "SELECT COUNT(*) AS n FROM creation_reservations".to_owned()),
            Some(("ip", h)) => (format!("SELECT COUNT(*) AS n FROM games WHERE result IS NULL AND creator_ip_hash = '{h}'"),
                format!("SELECT COUNT(*) AS n FROM creation_reservations WHERE ip_hash = '{h}'")),
            Some((_, p)) => (format!("SELECT COUNT(*) AS n FROM games WHERE result IS NULL AND (south_player = '{p}' OR north_player = '{p}')"),
                format!("SELECT COUNT(*) AS n FROM creation_reservations WHERE player_id = '{p}'")),
        };
        query(&db, &games)[0]["n"].as_i64().unwrap() + query(&db, &reserved)[0]["n"].as_i64().unwrap()
    };
    let unbounded = index::Caps { active: u32::MAX, by_address: u32::MAX, by_player: u32::MAX };
    let counter = |key: &str| -> i64 {
        query(&db, &format!("SELECT n FROM load_counters WHERE key = '{key}'"))
            .first()
            .map_or(0, |r| r["n"].as_i64().unwrap())
    };
    let pick = |r: u64| (r < 4).then(|| players[r as usize]);
    for step in 0..400 {
        let id = gid(next(40) as u32 + 1);
        match next(7) {
            // Create (or re-upsert) a game: players may be absent, one player on both seats.
            0 | 1 => {
                let rec = record(&id, Mode::Link, pick(next(6)), pick(next(6)));
                let ip = format!("ip-{}", next(3));
                block_on(index::upsert(&db, &rec, Some(&ip))).unwrap();
            }
            2 => {
                let rec = finished(
                    &record(&id, Mode::Link, pick(next(6)), pick(next(6))),
                    Side::South,
                    FinishReason::Resignation,
                    T0 + step,
                );
                block_on(index::upsert(&db, &rec, None)).unwrap();
            }
            3 => {
                let (a, g) = (players[next(4) as usize], players[next(4) as usize]);
                for seat in ["south_player", "north_player"] {
                    block_on(db.run(
                        Stmt::new(format!("UPDATE games SET {seat} = ?1 WHERE {seat} = ?2")).bind(a).bind(g),
                    ))
                    .unwrap();
                }
            }
            4 => {
                block_on(db.run(Stmt::new("DELETE FROM games WHERE id = ?1").bind(id.as_str()))).unwrap();
            }
            // A creation's reservation (replaced by its game's row when that is inserted).
            5 => {
                let ip = format!("ip-{}", next(3));
                let p = pick(next(6));
                block_on(index::reserve(&db, &id, &ip, p, unbounded, T0 + step)).unwrap_or(false);
            }
            _ => block_on(index::release(&db, &id)).unwrap(),
        }
        let mut keys = vec!["active".to_owned()];
        keys.extend((0..3).map(|i| format!("ip:ip-{i}")));
        keys.extend(players.iter().map(|p| format!("player:{p}")));
        for k in &keys {
            assert_eq!(counter(k), scan(k), "{k} after step {step}");
        }
    }
}

/// Regression (issue 30): the capacity check read the counters and the game's row came
/// later, so parallel creations all passed the caps. A reservation reads and counts in
/// one statement: exactly as many as the caps allow are admitted, the game's row replaces
/// its reservation (counted once), a release or the sweep of a crashed creation's
/// reservation frees its place.
#[test]
fn a_reservation_counts_at_once_and_holds_the_caps_exactly() {
    let db = db();
    player(&db, "me", None);
    let caps = index::Caps { active: 10, by_address: 3, by_player: 2 };
    let reserve = |id: u32, ip: &str, p: Option<&str>, at: i64| {
        block_on(index::reserve(&db, &gid(id), ip, p, caps, at)).unwrap()
    };
    let load = |ip: &str, p: Option<&str>| block_on(index::load(&db, ip, p)).unwrap();
    // The player's cap: two, the third refused however the address differs.
    assert!(reserve(1, "ip-a", Some("me"), T0));
    assert!(reserve(2, "ip-b", Some("me"), T0));
    assert!(!reserve(3, "ip-c", Some("me"), T0));
    assert_eq!(
        load("ip-a", Some("me")),
        Load { active_games: 2, open_by_address: 1, open_by_player: Some(2) }
    );
    // The address's cap: fresh guests (no player) from ip-a share it.
    assert!(reserve(4, "ip-a", None, T0));
    assert!(reserve(5, "ip-a", None, T0));
    assert!(!reserve(6, "ip-a", None, T0));
    // The game's row replaces its reservation: counted once.
    block_on(index::upsert(&db, &record(&gid(1), Mode::Link, Some("me"), None), Some("ip-a"))).unwrap();
    assert_eq!(
        load("ip-a", Some("me")),
        Load { active_games: 4, open_by_address: 3, open_by_player: Some(2) }
    );
    assert_eq!(query(&db, "SELECT COUNT(*) AS n FROM creation_reservations")[0]["n"], 3);
    // A release frees its place.
    block_on(index::release(&db, &gid(5))).unwrap();
    assert!(reserve(6, "ip-a", None, T0));
    // A crashed creation's reservation holds its place for ten minutes, then a refused
    // reservation sweeps it and is admitted.
    assert!(!reserve(7, "ip-z", Some("me"), T0 + index::RESERVATION_MS - 1));
    assert!(reserve(7, "ip-z", Some("me"), T0 + index::RESERVATION_MS + 1));
    assert_eq!(
        load("ip-b", Some("me")),
        Load { active_games: 2, open_by_address: 0, open_by_player: Some(2) }
    );
    // The overall cap.
    let small = index::Caps { active: 2, ..caps };
    assert!(
        !block_on(index::reserve(&db, &gid(8), "ip-y", None, small, T0 + index::RESERVATION_MS + 2)).unwrap()
    );
    // The reservation reads the counters by key: it scans no games.
    let bound =
        [("?1", "'g'"), ("?2", "'ip-a'"), ("?3", "'me'"), ("?4", "0"), ("?5", "1"), ("?6", "1"), ("?7", "1")];
    let sql = bound.iter().fold(index::RESERVE.to_owned(), |q, (k, v)| q.replace(k, v));
    let plan = query(&db, &format!("EXPLAIN QUERY PLAN {sql}"));
    assert!(plan.iter().all(|r| !r["detail"].as_str().unwrap_or_default().contains("games")), "{plan:?}");
}

/// What the API does for My games (`service::api::me::games`): the index rows, each
/// unfinished link game's status from its object (here, from its record).
fn my_games(
    db: &Sqlite,
    player: Option<&str>,
    now: i64,
    objects: &[&GameRecord],
) -> service::me_games::MyGames {
    let rows = block_on(me_games::rows(db, player, now)).unwrap();
    let live = rows
        .into_iter()
        .map(|row| match objects.iter().find(|r| r.id == row.id) {
            Some(rec) if row.mode == "link" && row.result.is_none() => row.with_status(&GameStatus::of(rec)),
            _ => row,
        })
        .collect();
    player.map(|p| service::me_games::list(live, p)).unwrap_or_default()
}

/// A game object's own storage, for the index sync's memory.
fn object() -> Sqlite {
    Sqlite::empty().unwrap()
}

#[test]
fn my_games_lists_the_players_link_and_ai_games_with_status_and_names_most_urgent_first() {
    let db = db();
    player(&db, "me", Some("Ada"));
    player(&db, "you", Some("Bob"));
    let now = T0 + 30 * DAY;
    // A link game, me South, after a move: Bob's turn (indexed by sync at its join).
    let mut theirs = at_plies(&record(&gid(1), Mode::Link, Some("me"), Some("you")), 1);
    theirs.position = {
        let mut g = Game::new(theirs.start);
        g.play(theirs.moves[0].mv).unwrap();
        *g.position()
    };
    theirs.created_at = now - 2 * DAY;
    theirs.moves[0].at = now - DAY;
    block_on(me_games::sync(&db, &object(), &theirs, false)).unwrap();
    // A link game at the start, me South: my turn.
    let mut mine = record(&gid(2), Mode::Link, Some("me"), Some("you"));
    mine.created_at = now - 3 * DAY;
    block_on(me_games::sync(&db, &object(), &mine, false)).unwrap();
    // An invite not yet accepted.
    let mut waiting = record(&gid(3), Mode::Link, Some("me"), None);
    waiting.seats[1].token_hash = None;
    block_on(me_games::sync(&db, &object(), &waiting, false)).unwrap();
    // An AI game: indexed by its outbox (sync writes nothing for it).
    let ai = record(&gid(4), Mode::Ai, Some("me"), None);
    block_on(index::upsert(&db, &ai, None)).unwrap();
    block_on(me_games::sync(&db, &object(), &ai, false)).unwrap();
    // Finished recently, and long ago.
    let recent = finished(
        &record(&gid(5), Mode::Link, Some("me"), Some("you")),
        Side::North,
        FinishReason::Resignation,
        now - DAY,
    );
    block_on(index::upsert(&db, &recent, None)).unwrap();
    let old = finished(
        &record(&gid(6), Mode::Link, Some("me"), Some("you")),
        Side::North,
        FinishReason::Resignation,
        now - RECENT_MS - 1,
    );
    block_on(index::upsert(&db, &old, None)).unwrap();
    // Someone else's game.
    let elses = record(&gid(7), Mode::Link, Some("you"), None);
    block_on(me_games::sync(&db, &object(), &elses, false)).unwrap();

    let objects = [&theirs, &mine, &waiting, &ai, &recent, &elses];
    assert!(my_games(&db, None, now, &objects).games.is_empty(), "no session, no games");
    // Both my turns untimed: the most recently active first (the AI game has no status).
    let games = my_games(&db, Some("me"), now, &objects).games;
    let ids: Vec<(&str, Standing)> = games.iter().map(|g| (&g.id[22..], g.standing)).collect();
    assert_eq!(
        ids,
        [
            ("02", Standing::YourTurn),
            ("04", Standing::YourTurn),
            ("01", Standing::TheirTurn),
            ("03", Standing::Waiting),
            ("05", Standing::Finished),
        ]
    );
    let g1 = games.iter().find(|g| g.id == gid(1)).unwrap();
    assert_eq!(g1.opponent, Opponent::Player { player_id: Some("you".into()), name: Some("Bob".into()) });
    assert_eq!((g1.side, g1.turn, g1.days_per_move), (Side::South, Some(Side::North), Some(3)));
    assert_eq!(games[1].opponent, Opponent::Ai { ai: true });
    // Bob sees game 1 as his turn, from North.
    let bob = my_games(&db, Some("you"), now, &objects).games;
    let g1 = bob.iter().find(|g| g.id == gid(1)).unwrap();
    assert_eq!((g1.side, g1.standing), (Side::North, Standing::YourTurn));
}

#[test]
fn my_games_lists_at_most_max_games() {
    let db = db();
    player(&db, "me", None);
    for n in 0..=MAX_GAMES {
        block_on(index::upsert(&db, &record(&gid(n + 1), Mode::Ai, Some("me"), None), None)).unwrap();
    }
    let games = my_games(&db, Some("me"), T0, &[]).games;
    assert_eq!(games.len(), MAX_GAMES as usize);
}

/// The D1 index changes rarely: a link game writes it after a change only when its
/// players or its seats changed (a join), never for a move, a draw offer or its answer
/// (issue 30: every move wrote D1, the whole service's one writer).
#[test]
fn a_move_writes_no_index_row_a_join_writes_it_once_and_a_failed_write_is_retried() {
    let db = db();
    player(&db, "s", None);
    player(&db, "n", None);
    let id = gid(9);
    let local = object();
    let digest =
        || query(&db, "SELECT * FROM games").iter().map(Value::to_string).collect::<Vec<_>>().join("\n");
    // Created by the outbox (indexed): sync writes nothing, and remembers it.
    let mut rec = record(&id, Mode::Link, Some("s"), None);
    rec.seats[1].token_hash = None;
    block_on(index::upsert(&db, &rec, None)).unwrap();
    block_on(me_games::sync(&db, &local, &rec, true)).unwrap();
    let created = digest();
    // The join binds North's player: written.
    let mut joined = record(&id, Mode::Link, Some("s"), Some("n"));
    joined.seats[1].token_hash = Some("h".into());
    block_on(me_games::sync(&db, &local, &joined, false)).unwrap();
    let after_join = digest();
    assert_ne!(after_join, created, "the join is indexed");
    assert!(after_join.contains("\"north_player\":\"n\""), "{after_join}");
    // Moves, a draw offer and its decline: nothing.
    for plies in 1..=4 {
        let mut moved = at_plies(&joined, plies);
        moved.draw_offer = (plies == 3).then_some(Side::North);
        block_on(me_games::sync(&db, &local, &moved, false)).unwrap();
    }
    assert_eq!(digest(), after_join, "no D1 write for a move");
    // A join whose write failed (the index row missing) is written by the next change.
    let retried = object();
    let other = gid(10);
    let mut rec = record(&other, Mode::Link, Some("s"), Some("n"));
    rec.seats[1].token_hash = Some("h".into());
    let broken = Sqlite::empty().unwrap(); // no tables: the write fails
    assert!(block_on(me_games::sync(&broken, &retried, &rec, false)).is_err());
    assert!(query(&db, &format!("SELECT id FROM games WHERE id = '{other}'")).is_empty());
    block_on(me_games::sync(&db, &retried, &at_plies(&rec, 1), false)).unwrap();
    assert_eq!(query(&db, &format!("SELECT id FROM games WHERE id = '{other}'")).len(), 1, "retried");
}

#[test]
fn a_games_status_says_whose_turn_the_seats_the_deadline_and_the_offer() {
    let mut rec = record(&gid(11), Mode::Link, Some("s"), None);
    rec.seats[1].token_hash = None;
    let st = GameStatus::of(&rec);
    assert_eq!((st.turn, st.seated, st.plies, st.updated_at), (Some(Side::South), false, 0, rec.created_at));
    let mut moved = at_plies(&rec, 4);
    moved.seats[1].token_hash = Some("h".into());
    moved.deadline = Some(T0 + DAY);
    moved.draw_offer = Some(Side::North);
    let st = GameStatus::of(&moved);
    let last = moved.moves.last().unwrap().at;
    assert_eq!(
        (st.seated, st.deadline, st.draw_offer, st.plies, st.updated_at),
        (true, Some(T0 + DAY), Some(Side::North), 4, last)
    );
    let end = finished(&moved, Side::South, FinishReason::Agreement, T0 + 7);
    assert_eq!(GameStatus::of(&end).turn, None, "no side to move once over");
}

#[test]
fn a_players_aliases_are_the_guests_merged_into_it_forwarded_except_for_a_join() {
    let db = db();
    for n in 0..60 {
        merge(&db, &format!("guest{n:02}"), "acct");
    }
    merge(&db, "elsewhere", "other");
    let aliases = block_on(me_games::aliases(&db, "acct")).unwrap();
    assert_eq!(aliases.len(), 50, "at most 50");
    assert!(aliases.iter().all(|a| a.starts_with("guest")));
    assert!(block_on(me_games::aliases(&db, "nobody")).unwrap().is_empty());
    assert_eq!(block_on(me_games::forwarded_aliases(&db, "other", false)).unwrap(), ["elsewhere"]);
    assert!(block_on(me_games::forwarded_aliases(&db, "other", true)).unwrap().is_empty(), "a join: none");
    // Forwarded for a POST: a join always, another write only without a seat token.
    assert!(me_games::forwards(true, false, false));
    assert!(me_games::forwards(true, true, true));
    assert!(me_games::forwards(true, false, true));
    assert!(!me_games::forwards(true, true, false));
    assert!(!me_games::forwards(false, false, false));
    assert!(!me_games::forwards(false, false, true));
}

#[test]
fn a_request_acts_as_the_merged_guest_holding_a_seat_unless_the_player_holds_one() {
    let (g1, g2) = (gid(1), gid(2));
    let header = format!("{g1},not-an-id,{g2}");
    let aliases = me_games::parse_aliases(&header);
    assert_eq!(aliases, [g1.as_str(), g2.as_str()], "only ids of the form");
    let rec = record(&gid(3), Mode::Link, Some(&g2), None);
    assert_eq!(me_games::acting_alias(&rec, "acct", &aliases), Some(g2.as_str()));
    let own = record(&gid(3), Mode::Link, Some(&g2), Some("acct"));
    assert_eq!(me_games::acting_alias(&own, "acct", &aliases), None, "the player's own seat first");
    let none = record(&gid(3), Mode::Link, Some("someone"), None);
    assert_eq!(me_games::acting_alias(&none, "acct", &aliases), None);
}
