//! The lessons completed (`service::db::lessons`, migration 0011) on real SQLite made by
//! the real migrations, foreign keys on as D1 enforces them: recorded once, listed in the
//! lessons' order, refused for an unknown lesson or without a session; moved to the
//! account when a guest is merged into it, and gone with an empty guest the sweep deletes.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

mod support;

use service::db::{housekeeping, lessons};
use service::player_store::{Merge, PlayerStore};
use service::sql_players::SqlPlayers;
use service::ErrorCode;
use support::{db_with, discord_player, number, pid, run};

const T0: i64 = 1_700_000_000_000;

fn rows(db: &service::sqlite::Sqlite, player: &str) -> Vec<(String, i64)> {
    let mut stmt = db
        .conn()
        .prepare(
            "SELECT lesson_id, completed_at FROM lesson_progress WHERE player_id = ?1 ORDER BY lesson_id",
        )
        .unwrap();
    stmt.query_map([player], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
}

#[test]
fn a_completion_is_recorded_once_with_its_first_time_and_listed_in_the_lessons_order() {
    let p = pid(1);
    let db = db_with(&[(&p, "Guest-000001")]);
    assert_eq!(run(lessons::get(&db, Some(&p))).unwrap().completed, Vec::<String>::new());
    let after = run(lessons::put(&db, Some(&p), "sickle", T0)).unwrap();
    assert_eq!(after.completed, ["sickle"], "the answer is the list as it now stands");
    run(lessons::put(&db, Some(&p), "cog", T0 + 1)).unwrap();
    let again = run(lessons::put(&db, Some(&p), "sickle", T0 + 2)).unwrap();
    assert_eq!(again.completed, ["cog", "sickle"], "public/lessons.json's order, not the order played");
    assert_eq!(rows(&db, &p), [("cog".to_owned(), T0 + 1), ("sickle".to_owned(), T0)]);
}

#[test]
fn an_unknown_lesson_or_no_session_is_refused_and_nothing_is_written() {
    let p = pid(1);
    let db = db_with(&[(&p, "Guest-000001")]);
    let e = run(lessons::put(&db, Some(&p), "queen", T0)).unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (ErrorCode::NotFound, "no lesson 'queen'"));
    for e in [run(lessons::put(&db, None, "cog", T0)).unwrap_err(), run(lessons::get(&db, None)).unwrap_err()]
    {
        assert_eq!((e.code, e.status()), (ErrorCode::Unauthorized, 401));
    }
    assert_eq!(number(&db, "SELECT COUNT(*) FROM lesson_progress", &[]), 0);
}

#[test]
fn a_row_a_lesson_no_longer_has_is_not_listed() {
    let p = pid(1);
    let db = db_with(&[(&p, "Guest-000001")]);
    db.conn().execute("INSERT INTO lesson_progress VALUES (?1, 'retired-lesson', 1)", [&p]).unwrap();
    run(lessons::put(&db, Some(&p), "axe", T0)).unwrap();
    assert_eq!(run(lessons::get(&db, Some(&p))).unwrap().completed, ["axe"]);
}

/// Signing in with Discord on a second browser merges that browser's guest into the
/// account: the guest's lessons are the account's from then on, and where both did a
/// lesson the account's own time stays.
#[test]
fn a_merged_guests_lessons_are_the_accounts() {
    let (guest, account) = (pid(1), pid(2));
    let db = db_with(&[(&guest, "Guest-000001")]);
    discord_player(&db, &account, "Ann", "d-ann");
    run(lessons::put(&db, Some(&account), "cog", T0)).unwrap();
    run(lessons::put(&db, Some(&guest), "cog", T0 + 5)).unwrap();
    run(lessons::put(&db, Some(&guest), "axe", T0 + 6)).unwrap();
    let merge = Merge { guest: guest.clone(), account: account.clone(), progress: Vec::new(), at: T0 + 9 };
    run(SqlPlayers(&db).merge_guest(&merge)).unwrap();
    assert_eq!(rows(&db, &account), [("axe".to_owned(), T0 + 6), ("cog".to_owned(), T0)]);
    assert!(rows(&db, &guest).is_empty());
    assert_eq!(run(lessons::get(&db, Some(&account))).unwrap().completed, ["cog", "axe"]);
}

/// An empty guest (no session left: nobody can be it again) is deleted by the sweep with
/// its lessons; D1 enforces the foreign key, so rows left behind would fail the sweep.
#[test]
fn the_sweep_deletes_an_empty_guest_with_its_lessons() {
    let (gone, kept) = (pid(1), pid(2));
    let db = db_with(&[(&gone, "Guest-000001"), (&kept, "Guest-000002")]);
    db.conn().execute("UPDATE players SET created_at = 0", []).unwrap();
    support::insert_session(
        &db,
        &service::player_store::SessionRow {
            token_hash: "h".into(),
            player: kept.clone(),
            created_at: T0,
            expires_at: T0 * 2,
        },
    );
    for p in [&gone, &kept] {
        run(lessons::put(&db, Some(p), "cog", T0)).unwrap();
    }
    let swept = run(housekeeping::sweep(&db, T0)).unwrap();
    assert_eq!(swept.guests, 1);
    assert!(support::player(&db, &gone).is_none());
    assert!(rows(&db, &gone).is_empty(), "its lessons went with it");
    assert_eq!(rows(&db, &kept).len(), 1, "a guest with a session keeps its lessons");
}
