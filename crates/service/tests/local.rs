#![allow(clippy::unwrap_used)]
//! A Durable Object's own storage, natively: the statements of `service::local` (a
//! game's record, a rate bucket, a bucket's socket leases) on real SQLite, each object
//! its own empty database as a fresh Durable Object's storage is.

use service::guard::{Rate, WS_LEASE_MS};
use service::local::{self, LocalGameStore};
use service::sqlite::Sqlite;
use service::store::GameStore;

const T0: i64 = 1_795_999_200_000;

#[test]
fn a_game_that_does_not_exist_makes_no_storage_and_a_saved_record_reads_back() {
    let db = Sqlite::empty().unwrap();
    let mut store = LocalGameStore(&db);
    assert_eq!(store.load(), Ok(None));
    let tables: i64 = db.conn().query_row("SELECT COUNT(*) FROM sqlite_master", [], |r| r.get(0)).unwrap();
    assert_eq!(tables, 0, "a read of a missing game created storage");
    // A real record, as a creation makes it.
    let mut mem = service::store::MemoryStore::default();
    let (mut rng, mut ai) = (
        service::seeded_ai::SeededRandom::for_game(
            "local",
            &engine::Game::new(engine::Position::start(engine::Faction::Axiom, engine::Faction::Blades)),
        ),
        service::ai::PlaceholderAi,
    );
    let mut ctx = service::game::Ctx { now: T0, rng: &mut rng, ai: &mut ai, day_ms: 86_400_000 };
    let req = service::create::CreateGame::parse(br#"{"south": "axiom", "north": "blades", "mode": "link"}"#)
        .unwrap();
    let _ = service::game::create(&mut mem, "0123456789abcdef01234567", &req, "https://a.example", &mut ctx);
    let rec = mem.record.unwrap();
    store.save(&rec).unwrap();
    store.save(&rec).unwrap(); // an upsert: still one row
    assert_eq!(store.load().unwrap().as_ref(), Some(&rec));
    let rows: i64 = db.conn().query_row("SELECT COUNT(*) FROM game", [], |r| r.get(0)).unwrap();
    assert_eq!(rows, 1);
    db.conn().execute("UPDATE game SET record = '{'", []).unwrap();
    assert!(store.load().unwrap_err().contains("unreadable"));
}

#[test]
fn a_bucket_allows_its_rate_per_window_and_forgets_hits_outside_it() {
    let db = Sqlite::empty().unwrap();
    let rate = Rate { limit: 3, window_ms: 60_000 };
    let allowed: Vec<bool> = (0..5).map(|i| local::hit(&db, T0 + i, rate).unwrap().allowed).collect();
    assert_eq!(allowed, [true, true, true, false, false]);
    let refused = local::hit(&db, T0 + 10, rate).unwrap();
    assert!(refused.retry_after_s >= 1 && refused.retry_after_s <= 60, "{refused:?}");
    // Refusals are not counted: a window later, the bucket is open again.
    assert!(local::hit(&db, T0 + 60_001, rate).unwrap().allowed);
    let kept: i64 = db.conn().query_row("SELECT COUNT(*) FROM rate_hits", [], |r| r.get(0)).unwrap();
    assert_eq!(kept, 2, "the hits at or before the window went (T0, T0 + 1); T0 + 2 and the new one stay");
}

#[test]
fn socket_leases_cap_a_bucket_over_all_games_and_a_report_frees_them() {
    let db = Sqlite::empty().unwrap();
    let acquire =
        |game: &str, have: u32| local::sockets(&db, game, have, Some(3), T0, WS_LEASE_MS).unwrap().allowed;
    assert!(acquire("g1", 0));
    assert!(acquire("g1", 1));
    assert!(acquire("g2", 0));
    assert!(!acquire("g3", 0), "three open over all games");
    // g1 reports one socket closed: room again.
    assert!(local::sockets(&db, "g1", 1, None, T0, WS_LEASE_MS).unwrap().allowed);
    assert!(acquire("g3", 0));
}

/// A weighted hit is one stored row, whatever its weight (docs/capacity.md: a row per
/// unit made a level-6 AI move 65 storage writes), and still counts its whole weight.
#[test]
fn a_weighted_hit_is_stored_as_one_row_and_counts_its_weight() {
    let db = service::sqlite::Sqlite::empty().unwrap();
    let rate = service::guard::Rate { limit: 100, window_ms: 60_000 };
    let before = db.statements();
    assert!(service::local::hit_n(&db, 1_000, rate, 59).unwrap().allowed);
    let writes = db.statements() - before;
    assert!(writes <= 4, "create, delete, select, one insert: {writes} statements");
    let rows: i64 = db.conn().query_row("SELECT COUNT(*) FROM rate_hits", [], |r| r.get(0)).unwrap();
    assert_eq!(rows, 1);
    assert!(!service::local::hit_n(&db, 2_000, rate, 59).unwrap().allowed, "59 + 59 > 100");
    assert!(service::local::hit_n(&db, 2_000, rate, 41).unwrap().allowed, "59 + 41 = 100");
    assert!(service::local::hit_n(&db, 61_001, rate, 59).unwrap().allowed, "the window passed");
}

/// A limiter's alarm forgets its bucket only once nothing in it counts (the calls set
/// the alarm only when none is set, so the alarm finds out itself): the latest hit's
/// window end, the latest lease's expiry; nothing at all in a fresh object.
#[test]
fn a_limiter_may_forget_its_bucket_only_after_the_last_window_and_lease() {
    let db = Sqlite::empty().unwrap();
    assert_eq!(local::limiter_forget_at(&db).unwrap(), None, "a fresh object holds nothing");
    let minute = Rate { limit: 10, window_ms: 60_000 };
    local::hit(&db, T0, minute).unwrap();
    local::hit(&db, T0 + 5_000, minute).unwrap();
    assert_eq!(local::limiter_forget_at(&db).unwrap(), Some(T0 + 65_000));
    // A hit with a longer window counts until its own window ends.
    local::hit(&db, T0 + 6_000, Rate { limit: 10, window_ms: 120_000 }).unwrap();
    local::hit(&db, T0 + 7_000, minute).unwrap();
    assert_eq!(local::limiter_forget_at(&db).unwrap(), Some(T0 + 126_000));
    // A refused hit records nothing.
    let full = Rate { limit: 0, window_ms: 600_000 };
    assert!(!local::hit(&db, T0 + 8_000, full).unwrap().allowed);
    assert_eq!(local::limiter_forget_at(&db).unwrap(), Some(T0 + 126_000));
    // A socket lease outlasts the hits.
    local::sockets(&db, "game-1", 1, Some(5), T0 + 9_000, WS_LEASE_MS).unwrap();
    assert_eq!(local::limiter_forget_at(&db).unwrap(), Some(T0 + 9_000 + WS_LEASE_MS));
}
