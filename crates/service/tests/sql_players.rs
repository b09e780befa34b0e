//! The player store's SQL itself (`service::sql_players`, the statements the Worker runs
//! on D1) on real SQLite made by the real migrations, foreign keys on: what an in-memory
//! fake could not show. Every write is one transaction that re-checks its precondition,
//! so these check both what a write changes and what a refused or repeated one leaves
//! alone; and the schema's keys, which D1 enforces, hold at every step.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

mod support;

use engine::{Faction, Side};
use rusqlite::params;
use service::model::Mode;
use service::player_store::{
    GamesCursor, GamesPage, MatchupCount, Merge, NameClaim, PlayerRow, PlayerStore, RatingCommit, SessionRow,
    SideTotals, StageDone,
};
use service::rating::Rating;
use service::sql_players::SqlPlayers;
use service::story::Badge;
use support::*;

fn claim(name: &str) -> NameClaim {
    NameClaim { name: name.to_owned(), key: service::names::key(name) }
}

fn badge(id: &str) -> Badge {
    Badge { id: id.into(), name: id.to_uppercase(), description: format!("the {id} badge") }
}

fn session(token_hash: &str, player: &str) -> SessionRow {
    SessionRow { token_hash: token_hash.into(), player: player.into(), created_at: 1, expires_at: 100 }
}

#[test]
fn the_migrated_schema_enforces_its_foreign_keys_as_d1_does() {
    let db = db();
    let on: i64 = db.conn().query_row("PRAGMA foreign_keys", [], |r| r.get(0)).unwrap();
    assert_eq!(on, 1);
    let e = db
        .conn()
        .execute("INSERT INTO sessions (token_hash, player_id, created_at, expires_at) VALUES ('t', 'nobody', 0, 1)", [])
        .unwrap_err();
    assert!(e.to_string().contains("FOREIGN KEY constraint failed"), "{e}");
}

/// Regression test for commit c25e628 ("Sign-in with Discord into an existing account
/// failed ... when the guest had a push subscription or had posted a challenge"):
/// `merge_guest` deleted the guest while `push_subscriptions` and `challenges` rows still
/// referenced it, and D1 enforces foreign keys, so the whole batch failed (503
/// `storage_unavailable` at every sign-in of that browser). The merge now moves them to
/// the account in the same batch. Without those three statements this test fails with
/// `FOREIGN KEY constraint failed`.
#[test]
fn regression_c25e628_a_guest_with_push_subscriptions_and_challenges_merges_into_the_account() {
    let (guest, account, other) = (pid(1), pid(2), pid(3));
    let db = db_with(&[(&guest, "Guest-000001"), (&other, "Olga")]);
    discord_player(&db, &account, "Ann", "d-ann");
    let store = SqlPlayers(&db);
    let c = db.conn();
    c.execute(
        "INSERT INTO push_subscriptions (endpoint, player_id, p256dh, auth, created_at) \
         VALUES ('https://push.example/guest', ?1, 'key', 'auth', 1)",
        [&guest],
    )
    .unwrap();
    // One challenge the guest posted, still open; one it accepted (Olga's).
    c.execute(
        "INSERT INTO challenges (id, poster_id, spec, ip_hash, created_at, expires_at) \
         VALUES ('posted', ?1, '{}', 'h', 1, 100)",
        [&guest],
    )
    .unwrap();
    c.execute(
        "INSERT INTO challenges (id, poster_id, spec, ip_hash, created_at, expires_at, game_id, accepted_by) \
         VALUES ('accepted', ?1, '{}', 'h', 1, 100, ?2, ?3)",
        params![other, pid(70), guest],
    )
    .unwrap();

    run(store.merge_guest(&Merge {
        guest: guest.clone(),
        account: account.clone(),
        progress: Vec::new(),
        at: 5,
    }))
    .unwrap();

    assert!(player(&db, &guest).is_none(), "the guest is gone");
    assert_eq!(run(store.resolve(&guest)).unwrap(), account);
    let sub: String = c
        .query_row(
            "SELECT player_id FROM push_subscriptions WHERE endpoint = 'https://push.example/guest'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(sub, account, "the subscription is the account's");
    let challenge = |id: &str| -> (String, Option<String>) {
        c.query_row("SELECT poster_id, accepted_by FROM challenges WHERE id = ?1", [id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap()
    };
    assert_eq!(challenge("posted"), (account.clone(), None));
    assert_eq!(challenge("accepted"), (other.clone(), Some(account.clone())));
}

#[test]
fn a_merge_keeps_the_accounts_own_award_of_a_badge_both_earned() {
    let (guest, account) = (pid(1), pid(2));
    let db = db_with(&[(&guest, "Guest-000001")]);
    discord_player(&db, &account, "Ann", "d-ann");
    let store = SqlPlayers(&db);
    for b in ["both", "guest-only"] {
        insert_badge(&db, &badge(b));
    }
    award(&db, &account, "both", 50);
    award(&db, &guest, "both", 10);
    award(&db, &guest, "guest-only", 20);
    run(store.merge_guest(&Merge {
        guest: guest.clone(),
        account: account.clone(),
        progress: Vec::new(),
        at: 60,
    }))
    .unwrap();
    assert_eq!(awarded_at(&db, &account, "both"), Some(50));
    assert_eq!(awarded_at(&db, &account, "guest-only"), Some(20));
    assert_eq!(number(&db, "SELECT COUNT(*) FROM player_badges WHERE player_id = ?1", &[&guest]), 0);
}

#[test]
fn a_batch_is_all_or_nothing_a_guest_whose_session_is_refused_is_not_created() {
    let (a, b) = (pid(1), pid(2));
    let db = db_with(&[(&a, "Guest-000001")]);
    insert_session(&db, &session("taken", &a));
    let store = SqlPlayers(&db);
    let e = run(store.create_guest(&PlayerRow::new(&b, "Guest-000002"), &session("taken", &b))).unwrap_err();
    assert!(e.is_unique_violation(), "{e}");
    assert!(player(&db, &b).is_none(), "the player insert rolled back with the session's");
    assert_eq!(sessions(&db), vec![session("taken", &a)]);
}

#[test]
fn claim_name_loses_a_race_for_the_key_as_ok_false_and_keeps_the_old_name_and_key() {
    let (a, c) = (pid(1), pid(3));
    let db = db_with(&[(&a, "Alicia"), (&c, "Carol")]);
    insert_name(&db, "alicia", &a);
    insert_name(&db, "carol", &c);
    let store = SqlPlayers(&db);
    // The check before it (name_taken) saw the key free; meanwhile Alicia took it. The
    // key's primary key refuses the insert, and the whole batch rolls back: Carol's old
    // key (deleted first in the batch) and name stay.
    assert!(!run(store.claim_name(&c, &claim("ＡＬＩＣＩＡ"))).unwrap());
    assert_eq!(names(&db), vec![("alicia".into(), a.clone()), ("carol".into(), c.clone())]);
    assert_eq!(display_name(&db, &c).as_deref(), Some("Carol"));
    // A free key: claimed, the old one released.
    assert!(run(store.claim_name(&c, &claim("Cora"))).unwrap());
    assert_eq!(names(&db), vec![("alicia".into(), a.clone()), ("cora".into(), c.clone())]);
    assert_eq!(display_name(&db, &c).as_deref(), Some("Cora"));
    // Another failure (no such player: the key's foreign key) is an error, not a lost race.
    let e = run(store.claim_name(&pid(9), &claim("Nobody"))).unwrap_err();
    assert!(e.0.contains("FOREIGN KEY constraint failed"), "{e}");
}

#[test]
fn name_taken_sees_other_players_keys_and_legacy_names_ignoring_ascii_case_only() {
    let (a, b, c) = (pid(1), pid(2), pid(3));
    let db = db_with(&[(&a, "Alicia"), (&b, "Émile"), (&c, "Guest-000003")]);
    insert_name(&db, "alicia", &a);
    let store = SqlPlayers(&db);
    assert!(run(store.name_taken(&claim("ALICIA"), &c)).unwrap(), "by key");
    assert!(!run(store.name_taken(&claim("ALICIA"), &a)).unwrap(), "one's own key");
    // Émile has no key row (a name set before keys existed): SQLite's lower() folds
    // ASCII only, so a legacy name clashes in ASCII case only (the key catches the rest).
    assert!(run(store.name_taken(&NameClaim { name: "Émile".into(), key: "x".into() }, &c)).unwrap());
    assert!(!run(store.name_taken(&NameClaim { name: "émile".into(), key: "x".into() }, &c)).unwrap());
    assert!(!run(store.name_taken(&claim("Émile"), &b)).unwrap(), "one's own legacy name");
}

#[test]
fn bind_discord_links_once_and_replaces_only_a_guest_name_whose_key_is_free() {
    let (g1, g2, g3, g4, z) = (pid(1), pid(2), pid(3), pid(4), pid(26));
    let db = db_with(&[
        (&g1, "Guest-000001"),
        (&g2, "Guest-000002"),
        (&g3, "Chosen"),
        (&g4, "Guest-000004"),
        (&z, "Zed"),
    ]);
    insert_name(&db, "zed", &z);
    let store = SqlPlayers(&db);
    // The key is held meanwhile: linked, the guest name kept, no key row.
    run(store.bind_discord(&g1, "d1", Some(&claim("Zed")))).unwrap();
    let p1 = player(&db, &g1).unwrap();
    assert_eq!((p1.discord_id.as_deref(), p1.display_name.as_deref()), (Some("d1"), Some("Guest-000001")));
    // Free: the guest name replaced, the key taken.
    run(store.bind_discord(&g2, "d2", Some(&claim("Yan")))).unwrap();
    let p2 = player(&db, &g2).unwrap();
    assert_eq!((p2.discord_id.as_deref(), p2.display_name.as_deref()), (Some("d2"), Some("Yan")));
    // A chosen name is never replaced, and takes no key.
    run(store.bind_discord(&g3, "d3", Some(&claim("Xi")))).unwrap();
    assert_eq!(display_name(&db, &g3).as_deref(), Some("Chosen"));
    assert_eq!(names(&db), vec![("yan".into(), g2.clone()), ("zed".into(), z.clone())]);
    // Already linked: never re-bound.
    run(store.bind_discord(&g2, "d-other", None)).unwrap();
    assert_eq!(player(&db, &g2).unwrap().discord_id.as_deref(), Some("d2"));
    // A Discord id linked elsewhere: the schema's UNIQUE refuses it, nothing of the
    // batch applies (the name and its key neither).
    let e = run(store.bind_discord(&g4, "d1", Some(&claim("Wren")))).unwrap_err();
    assert!(e.is_unique_violation(), "{e}");
    let p4 = player(&db, &g4).unwrap();
    assert_eq!((p4.discord_id, p4.display_name.as_deref()), (None, Some("Guest-000004")));
    assert!(names(&db).iter().all(|(k, _)| k != "wren"));
}

#[test]
fn create_discord_player_takes_the_name_only_if_its_key_is_free() {
    let (p1, p2, p3) = (pid(1), pid(2), pid(3));
    let db = db();
    let store = SqlPlayers(&db);
    run(store.create_discord_player(&p1, "Guest-010101", "d1", &claim("Ann"), 7)).unwrap();
    let mut expect = PlayerRow::new(&p1, "Ann");
    expect.discord_id = Some("d1".into());
    assert_eq!(player(&db, &p1).unwrap(), expect, "the schema's default rating");
    assert_eq!(number(&db, "SELECT created_at FROM players WHERE id = ?1", &[&p1]), 7);
    // "ann" is Ann's key: the new player shows its guest name and takes no key.
    run(store.create_discord_player(&p2, "Guest-020202", "d2", &claim("ANN"), 8)).unwrap();
    assert_eq!(display_name(&db, &p2).as_deref(), Some("Guest-020202"));
    assert_eq!(names(&db), vec![("ann".into(), p1.clone())]);
    assert_eq!(player(&db, &p2).unwrap().discord_id.as_deref(), Some("d2"));
    // The Discord id is already a player's: refused, nothing inserted.
    let e = run(store.create_discord_player(&p3, "Guest-030303", "d1", &claim("Bea"), 9)).unwrap_err();
    assert!(e.is_unique_violation(), "{e}");
    assert!(player(&db, &p3).is_none());
    assert_eq!(names(&db), vec![("ann".into(), p1.clone())]);
}

#[test]
fn finish_stage_applies_only_to_the_current_stage_game_and_a_retry_changes_nothing() {
    let a = pid(1);
    let db = db_with(&[(&a, "Ann")]);
    let store = SqlPlayers(&db);
    let updated_at = || number(&db, "SELECT updated_at FROM story_progress WHERE player_id = ?1", &[&a]);
    run(store.set_current_stage(&a, "s", &pid(100), 2, 10)).unwrap();
    let done = StageDone {
        player: a.clone(),
        story: "s".into(),
        game: pid(100),
        completed: 3,
        badge: Some(badge("s-badge")),
        at: 20,
    };
    run(store.finish_stage(&done)).unwrap();
    let after = run(store.progress(&a, "s")).unwrap();
    assert_eq!((after.completed, after.current_game.as_deref(), after.current_stage), (3, None, None));
    assert_eq!((awarded_at(&db, &a, "s-badge"), updated_at()), (Some(20), 20));
    assert!(run(store.has_badge(&a, "s-badge")).unwrap());
    // The retry (the alarm firing again), later: the game is no longer current, nothing moves.
    run(store.finish_stage(&StageDone { at: 30, ..done.clone() })).unwrap();
    assert_eq!(run(store.progress(&a, "s")).unwrap(), after);
    assert_eq!((awarded_at(&db, &a, "s-badge"), updated_at()), (Some(20), 20));
    // Another game than the current one: nothing, not even a badge.
    run(store.set_current_stage(&a, "s", &pid(101), 0, 40)).unwrap();
    run(store.finish_stage(&StageDone { badge: Some(badge("other")), at: 50, ..done.clone() })).unwrap();
    assert_eq!(awarded_at(&db, &a, "other"), None);
    assert_eq!(run(store.progress(&a, "s")).unwrap().current_game, Some(pid(101)));
    // Progress never moves back: stage 0 won again after 3.
    run(store.finish_stage(&StageDone { game: pid(101), completed: 1, badge: None, at: 60, ..done }))
        .unwrap();
    assert_eq!(run(store.progress(&a, "s")).unwrap().completed, 3);
}

#[test]
fn commit_rating_applies_once_and_only_to_the_versions_read() {
    let (a, b) = (pid(1), pid(2));
    let db = db_with(&[(&a, "Ann"), (&b, "Bob")]);
    let store = SqlPlayers(&db);
    let (ra, rb) = (
        Rating { rating: 1600.0, deviation: 300.0, volatility: 0.061 },
        Rating { rating: 1400.0, deviation: 300.0, volatility: 0.059 },
    );
    let commit =
        RatingCommit { game: pid(100), at: 1_000, players: [(a.clone(), 0, ra), (b.clone(), 0, rb)] };
    assert!(!run(store.rating_applied(&pid(100))).unwrap());
    assert!(run(store.commit_rating(&commit)).unwrap());
    let (pa, pb) = (player(&db, &a).unwrap(), player(&db, &b).unwrap());
    assert_eq!((pa.rating, pa.rated_at, pa.rating_version), (ra, Some(1_000), 1));
    assert_eq!((pb.rating, pb.rated_at, pb.rating_version), (rb, Some(1_000), 1));
    assert_eq!(number(&db, "SELECT applied_at FROM rated_games WHERE game_id = ?1", &[&pid(100)]), 1_000);
    // The same commit again (a retry): applied already, so true, and nothing moves.
    assert!(run(store.commit_rating(&commit)).unwrap());
    assert_eq!((player(&db, &a).unwrap(), player(&db, &b).unwrap()), (pa.clone(), pb.clone()));
    // A retry that read the versions after the first commit: the marker's primary key
    // refuses it (an error the outbox retries; its next try sees the game rated).
    let late =
        RatingCommit { at: 2_000, players: [(a.clone(), 1, rb), (b.clone(), 1, ra)], ..commit.clone() };
    assert!(run(store.commit_rating(&late)).unwrap_err().is_unique_violation());
    assert_eq!((player(&db, &a).unwrap(), player(&db, &b).unwrap()), (pa.clone(), pb.clone()));
    // Another game whose read is stale (Bob moved meanwhile): false, nothing applied.
    let stale = RatingCommit { game: pid(101), at: 3_000, players: [(a.clone(), 1, rb), (b.clone(), 0, ra)] };
    assert!(!run(store.commit_rating(&stale)).unwrap());
    assert!(!run(store.rating_applied(&pid(101))).unwrap());
    assert_eq!((player(&db, &a).unwrap(), player(&db, &b).unwrap()), (pa, pb));
}

#[test]
fn badges_of_many_players_takes_one_query_per_hundred() {
    let db = db();
    let store = SqlPlayers(&db);
    for i in 0..=250 {
        insert_player(&db, &pid(i), &format!("P{i}"));
    }
    for b in ["b1", "b2", "b3"] {
        insert_badge(&db, &badge(b));
    }
    award(&db, &pid(0), "b1", 1);
    award(&db, &pid(99), "b2", 2);
    award(&db, &pid(100), "b1", 3);
    award(&db, &pid(100), "b2", 0);
    award(&db, &pid(249), "b3", 5);
    award(&db, &pid(250), "b3", 6); // not asked for
    let ids: Vec<String> = (0..250).map(pid).collect();
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let before = db.statements();
    let got = run(store.badges_of(&ids)).unwrap();
    assert_eq!(db.statements() - before, 3, "250 players: three queries of at most 100 parameters");
    let want = [(0, "b1"), (99, "b2"), (100, "b2"), (100, "b1"), (249, "b3")];
    assert_eq!(got, want.map(|(p, b)| (pid(p), badge(b))).to_vec(), "each player's in the order earned");
    for (n, queries) in [(0, 0), (100, 1), (101, 2)] {
        let before = db.statements();
        run(store.badges_of(&ids[..n])).unwrap();
        assert_eq!(db.statements() - before, queries, "{n} players");
    }
}

#[test]
fn the_counters_count_finished_games_by_their_columns() {
    let (a, b) = (pid(1), pid(2));
    let db = db_with(&[(&a, "Ann"), (&b, "Bob")]);
    let store = SqlPlayers(&db);
    let won = |id| game(id, &a, &b, Some(Side::South), "south wins: resignation", i64::from(id));
    for g in [
        won(1),
        won(2),
        // An open seat is not self-play (NULL = NULL is not true): counted with the two.
        GameRow { north_player: None, ..won(3) },
        // No move: counted for the players, not in the match-up statistics.
        GameRow { plies: 0, ..won(4) },
        // Against oneself: counted nowhere.
        GameRow { north_player: Some(a.clone()), ..won(5) },
        // An ai game: the player's, not the statistics'.
        GameRow {
            mode: Mode::Ai,
            south: Faction::Axiom,
            winner: None,
            result: Some("draw: meteor".into()),
            reason: None,
            ..won(6)
        },
        GameRow { result: None, finished_at: None, ..won(7) }, // unfinished: not counted
        game(8, &a, &b, None, "aborted: never joined", 8),     // aborted: not counted
    ] {
        insert_game(&db, &g);
    }
    // A reason this version does not know counts as none (an old row must not fail a page).
    db.conn().execute("UPDATE games SET reason = 'meteor' WHERE id = ?1", [pid(6)]).unwrap();
    let mut matchups = run(store.matchup_counts()).unwrap();
    matchups.retain(|m| m.games > 0);
    let (cw, bl) = (Faction::Clockwork, Faction::Blades);
    let m = MatchupCount { south: cw, north: bl, games: 3, south_wins: 3, north_wins: 0, draws: 0 };
    assert_eq!(matchups, [m], "games 1, 2 and 3");
    let t = |south, side, played, won| SideTotals { south, north: bl, side, played, won };
    let mut ann = run(store.player_totals(&a)).unwrap();
    ann.sort_by_key(|t| t.south.name());
    assert_eq!(ann, [t(Faction::Axiom, Side::South, 1, 0), t(cw, Side::South, 4, 4)]);
    let mut bob = run(store.player_totals(&b)).unwrap();
    bob.sort_by_key(|t| t.south.name());
    assert_eq!(bob, [t(Faction::Axiom, Side::North, 1, 0), t(cw, Side::North, 3, 0)], "games 6; 1, 2 and 4");
    // The same unknown reason on the player's page: none, the game still listed; the
    // aborted game and the unfinished one are not.
    let first = GamesPage { before: None, limit: 10 };
    let mine = run(store.finished_games(&b, &first)).unwrap();
    let ids: Vec<String> = mine.iter().map(|g| g.id.clone()).collect();
    assert_eq!(ids, [pid(6), pid(4), pid(2), pid(1)], "Bob's seat, latest first");
    assert!(mine[0].reason.is_none() && mine[0].result == "draw: meteor");
    // Ann's: the game against herself once.
    let ann: Vec<String> = run(store.finished_games(&a, &first)).unwrap().into_iter().map(|g| g.id).collect();
    assert_eq!(ann, [pid(6), pid(5), pid(4), pid(3), pid(2), pid(1)]);
    let page = GamesPage { before: Some(GamesCursor { at: 5, id: pid(5) }), limit: 2 };
    let older: Vec<String> =
        run(store.finished_games(&a, &page)).unwrap().into_iter().map(|g| g.id).collect();
    assert_eq!(older, [pid(4), pid(3)]);
}

#[test]
fn sessions_expire_and_end_by_token_or_by_player() {
    let (a, b) = (pid(1), pid(2));
    let db = db_with(&[(&a, "Ann"), (&b, "Bob")]);
    let store = SqlPlayers(&db);
    for (t, p) in [("t1", &a), ("t2", &a), ("t3", &b)] {
        insert_session(&db, &session(t, p));
    }
    assert_eq!(run(store.session_player("t1", 99)).unwrap(), Some(a.clone()));
    assert_eq!(run(store.session_player("t1", 100)).unwrap(), None, "expired at expires_at");
    // A new session replacing one, in one transaction.
    run(store.start_session(&session("t4", &a), "t1")).unwrap();
    assert_eq!(run(store.end_session("t1")).unwrap(), 0, "already replaced");
    assert_eq!(run(store.end_sessions_of(&a)).unwrap(), 2);
    assert_eq!(sessions(&db), vec![session("t3", &b)]);
}
