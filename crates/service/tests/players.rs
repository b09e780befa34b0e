//! The players' rules (`service::players`) over the real store (`SqlPlayers`, the SQL
//! the Worker runs on D1) on real SQLite made by the real migrations, foreign keys on:
//! stage unlocking and progress, the badge and stage results applied exactly once,
//! ratings with their compare-and-set and rating periods, Player Info totals, the batched
//! leaderboard, the match-up statistics, names and their clashes, and the Discord
//! sign-in's merge rules. Rows are arranged and read back with plain SQL (`support`).

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

mod support;

use std::cell::RefCell;

use engine::{Faction, Position, Side};
use rusqlite::Connection;
use serde_json::{json, Value};
use service::model::{GameRecord, Mode};
use service::player_store::{PlayerRow, PlayerStore, Progress, SessionRow};
use service::players::{self, RATING_PERIOD_MS};
use service::rating::Rating;
use service::sql::{Row, Sql, Stmt, StoreResult};
use service::sql_players::SqlPlayers;
use service::sqlite::Sqlite;
use service::story::{self, Badge};
use service::tokens::Random;
use service::{ApiError, ErrorCode};
use support::*;

/// A deterministic id source for the sign-in's new players.
struct Counter(u8);

impl Random for Counter {
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), ApiError> {
        self.0 += 1;
        buf.fill(self.0);
        Ok(())
    }
}

/// SQLite whose every batch (a write transaction: commit_rating's compare-and-set is
/// its only one) first lets `before_batch` write on the connection, as another Worker
/// committing between this one's reads and its write would.
struct Racing<'a, F> {
    db: &'a Sqlite,
    before_batch: RefCell<F>,
}

impl<'a, F: FnMut(&Connection)> Racing<'a, F> {
    fn new(db: &'a Sqlite, before_batch: F) -> Self {
        Racing { db, before_batch: RefCell::new(before_batch) }
    }
}

impl<F: FnMut(&Connection)> Sql for Racing<'_, F> {
    async fn all(&self, stmt: Stmt) -> StoreResult<Vec<Row>> {
        self.db.all(stmt).await
    }

    async fn run(&self, stmt: Stmt) -> StoreResult<u64> {
        self.db.run(stmt).await
    }

    async fn batch(&self, stmts: Vec<Stmt>) -> StoreResult<Vec<u64>> {
        (self.before_batch.borrow_mut())(self.db.conn());
        self.db.batch(stmts).await
    }
}

/// Player Info's page for a URL query.
fn page(query: &str) -> service::player_store::GamesPage {
    players::games_page(query).unwrap()
}

fn first_story() -> &'static story::Story {
    &story::embedded().all()[0]
}

/// A finished game record (built from its JSON form, so these tests follow the record's
/// wire shape, not its Rust constructor).
fn record(id: &str, extra: Value) -> GameRecord {
    let start = Position::start(Faction::Clockwork, Faction::Blades);
    let seat = |p: Value| json!({ "controller": "human", "token_hash": "h", "player": p });
    let mut v = json!({
        "id": id, "south": "clockwork", "north": "blades", "mode": "link",
        "start": start, "seats": [seat(Value::Null), seat(Value::Null)],
        "invite_hash": null, "days_per_move": 1, "created_at": 0, "moves": [],
        "result": null, "deadline": null, "draw_offer": null, "last_replies": [null, null],
        "position": start, "repetitions": 1,
    });
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    serde_json::from_value(v).unwrap()
}

fn finish(winner: Option<&str>, reason: &str) -> Value {
    let text = match winner {
        Some(w) => format!("{w} wins: {reason}"),
        None if reason == "never joined" || reason == "by a player" => format!("aborted: {reason}"),
        None => format!("draw: {reason}"),
    };
    json!({ "text": text, "winner": winner, "reason": reason, "at": 1 })
}

/// The stage game `game` of `player` at `stage` of the first story, finished.
fn stage_record(game: &str, player: &str, stage: usize) -> GameRecord {
    let st = first_story();
    let s = &st.stages[stage];
    let mut seats = [Value::Null, Value::Null];
    seats[usize::from(s.side == Side::North)] = json!(player);
    record(
        game,
        json!({
            "mode": "ai",
            "seats": seats.map(|p| json!({ "controller": "human", "token_hash": "h", "player": p })),
            "stage": { "story": st.id, "stage": stage, "title": s.title, "player": s.side, "goal": s.goal },
            "result": finish(Some(s.side.name()), "resignation"),
        }),
    )
}

/// Starts stage `stage` as the Worker does: unlocked check, then the current game set.
fn start(store: &impl PlayerStore, player: &str, stage: usize, game: &str) -> Result<(), ApiError> {
    let st = first_story();
    let (i, _) = players::find_stage(st, &stage.to_string())?;
    run(players::check_unlocked(store, st, i, player))?;
    run(store.set_current_stage(player, &st.id, game, i, 10)).unwrap();
    Ok(())
}

fn progress(store: &impl PlayerStore, player: &str) -> Progress {
    run(store.progress(player, &first_story().id)).unwrap()
}

#[test]
fn stages_unlock_in_order_and_missing_stages_are_404() {
    let (a, st) = (pid(1), first_story());
    let db = db_with(&[(&a, "Guest-000000")]);
    let store = SqlPlayers(&db);
    let v = run(players::story_view(&store, st, Some(&a))).unwrap();
    assert_eq!(v.completed, 0);
    assert!(v.stages[0].unlocked && !v.stages[0].completed);
    assert!(v.stages[1..].iter().all(|s| !s.unlocked && !s.completed));
    let e = start(&store, &a, 1, &pid(100)).unwrap_err();
    assert_eq!((e.status(), e.code), (403, ErrorCode::StageLocked));
    assert!(e.message.contains("stage 2 unlocks when stage 1 is completed"), "{}", e.message);
    assert_eq!(players::find_stage(st, "x").unwrap_err().status(), 404);
    assert_eq!(players::find_stage(st, &st.stages.len().to_string()).unwrap_err().status(), 404);

    start(&store, &a, 0, &pid(100)).unwrap();
    run(players::record_stage(&store, &stage_record(&pid(100), &a, 0), true, 20)).unwrap();
    let v = run(players::story_view(&store, st, Some(&a))).unwrap();
    assert_eq!((v.completed, v.current_game.as_deref()), (1, None));
    assert!(v.stages[0].completed && v.stages[1].unlocked && !v.stages[1].completed);
    assert!(v.stages[2..].iter().all(|s| !s.unlocked));
    start(&store, &a, 1, &pid(101)).unwrap();
    let v = run(players::story_view(&store, st, Some(&a))).unwrap();
    assert_eq!((v.current_game, v.current_stage), (Some(pid(101)), Some(1)));

    // The stage's game: an unrated ai game from its position, the player in its seat,
    // the AI at its level.
    for (i, stage) in st.stages.iter().enumerate() {
        let (g, r) = players::stage_game(st, i, stage);
        let seat = serde_json::to_value(g.seat).unwrap();
        assert_eq!(seat, json!(stage.side.name()));
        assert_eq!((g.mode, g.level, g.rated, g.days_per_move), (Mode::Ai, Some(stage.level), false, None));
        assert_eq!(
            (g.south, g.north),
            (stage.position.faction(Side::South), stage.position.faction(Side::North))
        );
        assert_eq!(
            (r.story.as_str(), r.stage, r.player, &r.title),
            (st.id.as_str(), i, stage.side, &stage.title)
        );
    }

    // The list: each story as story_view shows it, in two queries for all of them.
    let before = db.statements();
    let all = run(players::stories(&store, Some(&a))).unwrap();
    assert_eq!(db.statements() - before, 2);
    assert_eq!(all.stories.len(), story::embedded().all().len());
    for listed in &all.stories {
        let one =
            run(players::story_view(&store, story::embedded().get(&listed.id).unwrap(), Some(&a))).unwrap();
        assert_eq!(serde_json::to_value(listed).unwrap(), serde_json::to_value(one).unwrap());
    }
    assert_eq!(all.stories[0].completed, 1);

    // Without a session: a new player's view, no store row read for anyone.
    let before = db.statements();
    assert!(run(players::stories(&store, None)).unwrap().stories.iter().all(|s| s.completed == 0));
    assert_eq!(db.statements() - before, 0);
    let anon = run(players::story_view(&store, st, None)).unwrap();
    assert_eq!(anon.completed, 0);
    assert!(!anon.badge_earned && anon.stages[0].unlocked && !anon.stages[1].unlocked);
    let json = serde_json::to_value(&anon).unwrap();
    assert_eq!(json["stages"][0]["side"], json!(st.stages[0].side.name()));
    assert_eq!(json["faction"], json!(st.faction.name()));
}

#[test]
fn only_the_current_stage_game_counts_and_a_retry_changes_nothing() {
    let a = pid(1);
    let db = db_with(&[(&a, "Guest-000000")]);
    let store = SqlPlayers(&db);
    start(&store, &a, 0, &pid(100)).unwrap();
    // Another game than the current one (an old stage game finishing late): ignored.
    run(players::record_stage(&store, &stage_record(&pid(99), &a, 0), true, 20)).unwrap();
    assert_eq!(
        progress(&store, &a),
        Progress { completed: 0, current_game: Some(pid(100)), current_stage: Some(0) }
    );
    // A loss clears the game, completes nothing.
    run(players::record_stage(&store, &stage_record(&pid(100), &a, 0), false, 20)).unwrap();
    assert_eq!(progress(&store, &a), Progress::default());
    // A win, then its retry (an alarm firing again) and a late repeat of the loss.
    start(&store, &a, 0, &pid(102)).unwrap();
    let won = stage_record(&pid(102), &a, 0);
    run(players::record_stage(&store, &won, true, 30)).unwrap();
    run(players::record_stage(&store, &won, true, 31)).unwrap();
    assert_eq!(progress(&store, &a).completed, 1);
    // Winning stage 0 again after stage 1 never moves progress back.
    start(&store, &a, 1, &pid(103)).unwrap();
    run(players::record_stage(&store, &stage_record(&pid(103), &a, 1), true, 40)).unwrap();
    start(&store, &a, 0, &pid(104)).unwrap();
    run(players::record_stage(&store, &stage_record(&pid(104), &a, 0), true, 50)).unwrap();
    assert_eq!(progress(&store, &a).completed, 2);
    // Exit: the current game is forgotten only if it is still the one ended.
    start(&store, &a, 0, &pid(105)).unwrap();
    run(store.clear_current_game(&a, &first_story().id, &pid(999))).unwrap();
    assert_eq!(progress(&store, &a).current_game, Some(pid(105)));
    let cur = run(players::current_stage(&store, &first_story().id, &a)).unwrap().unwrap();
    assert!(cur.valid && cur.game == pid(105) && cur.aliases.is_empty());
    run(store.clear_current_game(&a, &first_story().id, &pid(105))).unwrap();
    assert_eq!(progress(&store, &a).current_game, None);
    // Reset: back to the first stage.
    run(store.reset_story(&a, &first_story().id, 60)).unwrap();
    assert_eq!(start(&store, &a, 1, &pid(106)).unwrap_err().code, ErrorCode::StageLocked);
}

#[test]
fn completing_a_story_awards_its_badge_exactly_once() {
    let (a, st) = (pid(1), first_story());
    let db = db_with(&[(&a, "Guest-000000")]);
    let store = SqlPlayers(&db);
    let last = st.stages.len() - 1;
    for i in 0..last {
        start(&store, &a, i, &pid(100 + i as u32)).unwrap();
        run(players::record_stage(&store, &stage_record(&pid(100 + i as u32), &a, i), true, 10)).unwrap();
        assert!(run(players::badges(&store, &a)).unwrap().is_empty(), "no badge before the last stage");
    }
    start(&store, &a, last, &pid(200)).unwrap();
    let fin = stage_record(&pid(200), &a, last);
    run(players::record_stage(&store, &fin, true, 1000)).unwrap();
    run(players::record_stage(&store, &fin, true, 2000)).unwrap(); // the retry
                                                                   // Completed again later: still one badge, awarded when first earned.
    start(&store, &a, last, &pid(201)).unwrap();
    run(players::record_stage(&store, &stage_record(&pid(201), &a, last), true, 3000)).unwrap();
    assert_eq!(run(players::badges(&store, &a)).unwrap(), vec![st.badge.clone()]);
    assert_eq!(awarded_at(&db, &a, &st.badge.id), Some(1000));
    let v = run(players::story_view(&store, st, Some(&a))).unwrap();
    assert!(v.badge_earned && v.completed == st.stages.len() && v.stages.iter().all(|s| s.completed));
    let listed: Vec<(String, bool)> = run(players::stories(&store, Some(&a)))
        .unwrap()
        .stories
        .into_iter()
        .map(|s| (s.id, s.badge_earned))
        .collect();
    assert!(listed.iter().all(|(id, earned)| *earned == (*id == st.id)), "{listed:?}");
    // A loss of the last stage awards nothing.
    let b = pid(2);
    insert_player(&db, &b, "Guest-bbbbbb");
    insert_progress(&db, &b, &st.id, &Progress { completed: last, ..Progress::default() });
    start(&store, &b, last, &pid(300)).unwrap();
    run(players::record_stage(&store, &stage_record(&pid(300), &b, last), false, 10)).unwrap();
    assert!(run(players::badges(&store, &b)).unwrap().is_empty());
}

#[test]
fn a_stage_game_of_a_merged_guest_counts_for_its_account() {
    let (guest, account) = (pid(1), pid(2));
    let db = db_with(&[(&guest, "Guest-000000"), (&account, "Ann")]);
    set_discord(&db, &account, "d1");
    let store = SqlPlayers(&db);
    start(&store, &guest, 0, &pid(100)).unwrap();
    // The guest signs in with Discord while the stage is played.
    let who = run(players::link(&store, &mut Counter(0), Some(&guest), "d1", "Ann", 5)).unwrap();
    assert_eq!(who, account);
    assert_eq!(progress(&store, &account).current_game, Some(pid(100)));
    let cur = run(players::current_stage(&store, &first_story().id, &account)).unwrap().unwrap();
    assert_eq!(cur.aliases, vec![guest.clone()], "the guest's stage game names the guest");
    run(players::record_stage(&store, &stage_record(&pid(100), &guest, 0), true, 20)).unwrap();
    assert_eq!(
        progress(&store, &account),
        Progress { completed: 1, current_game: None, current_stage: None }
    );
}

fn rated_record(game: &str, south: &str, north: &str, fin: Value) -> GameRecord {
    let seat = |p: &str| json!({ "controller": "human", "token_hash": "h", "player": p });
    record(game, json!({ "rated": true, "seats": [seat(south), seat(north)], "result": fin }))
}

/// Ann and Bob, never rated.
fn rated_pair() -> (Sqlite, String, String) {
    let (a, b) = (pid(1), pid(2));
    (db_with(&[(&a, "Ann"), (&b, "Bob")]), a, b)
}

fn rated_games(db: &Sqlite) -> i64 {
    number(db, "SELECT COUNT(*) FROM rated_games", &[])
}

#[test]
fn a_rated_result_is_applied_once_and_ratings_move_by_glicko2() {
    let (db, a, b) = rated_pair();
    let store = SqlPlayers(&db);
    let rec = rated_record(&pid(100), &a, &b, finish(Some("south"), "resignation"));
    run(players::apply_rating(&store, &rec, 1_000)).unwrap();
    let (after_a, after_b) = (player(&db, &a).unwrap(), player(&db, &b).unwrap());
    let (ra, rb) = (after_a.rating, after_b.rating);
    let expect_a =
        Rating::default().update(&[service::rating::Game { opponent: Rating::default(), score: 1.0 }]);
    assert_eq!(ra, expect_a);
    assert!(ra.rating > 1500.0 && rb.rating < 1500.0);
    assert_eq!((after_a.rated_at, after_a.rating_version), (Some(1_000), 1));
    // The retry (the outbox flushed again): nothing moves.
    run(players::apply_rating(&store, &rec, 2_000)).unwrap();
    assert_eq!(player(&db, &a).unwrap(), after_a);
    assert_eq!(player(&db, &b).unwrap(), after_b);
    // Unrated, aborted and unseated games rate nothing.
    let mut unrated = rated_record(&pid(101), &a, &b, finish(Some("north"), "resignation"));
    unrated.rated = false;
    let aborted = rated_record(&pid(102), &a, &b, finish(None, "never joined"));
    let mut open = rated_record(&pid(103), &a, &b, finish(Some("north"), "resignation"));
    open.seats[1].player = None;
    for r in [&unrated, &aborted, &open] {
        run(players::apply_rating(&store, r, 3_000)).unwrap();
    }
    assert_eq!(player(&db, &a).unwrap(), after_a);
    assert_eq!(rated_games(&db), 1);
    // A draw between equals leaves the ratings where they are.
    let (db, a, b) = rated_pair();
    let store = SqlPlayers(&db);
    run(players::apply_rating(&store, &rated_record(&pid(104), &a, &b, finish(None, "agreement")), 1))
        .unwrap();
    assert!((player(&db, &a).unwrap().rating.rating - 1500.0).abs() < 1e-9);
}

#[test]
fn a_concurrent_rating_update_makes_the_game_read_the_ratings_again() {
    let (db, a, b) = rated_pair();
    // Another game of Ann's commits between this one's read and its write, once.
    let mut fired = false;
    let racing = Racing::new(&db, |conn: &Connection| {
        if !fired {
            fired = true;
            conn.execute(
                "UPDATE players SET rating = 1700, rating_dev = 200, volatility = 0.06, rated_at = 500, \
                     rating_version = rating_version + 1 WHERE id = ?1",
                [&a],
            )
            .unwrap();
        }
    });
    let store = SqlPlayers(&racing);
    run(players::apply_rating(
        &store,
        &rated_record(&pid(100), &a, &b, finish(Some("north"), "resignation")),
        1_000,
    ))
    .unwrap();
    let (pa, pb) = (player(&db, &a).unwrap(), player(&db, &b).unwrap());
    // Computed from the 1700 it read the second time, not from the stale 1500.
    let base = Rating { rating: 1700.0, deviation: 200.0, volatility: 0.06 };
    let expect = base.update(&[service::rating::Game { opponent: Rating::default(), score: 0.0 }]);
    assert_eq!(pa.rating, expect);
    assert_eq!(pa.rating_version, 2);
    assert_eq!(pb.rating_version, 1);

    // A conflict on every try: an error (the outbox retries later), nothing applied.
    let (db, a, b) = rated_pair();
    let racing = Racing::new(&db, |conn: &Connection| {
        conn.execute("UPDATE players SET rating_version = rating_version + 1 WHERE id = ?1", [&a]).unwrap();
    });
    let store = SqlPlayers(&racing);
    let e =
        run(players::apply_rating(&store, &rated_record(&pid(100), &a, &b, finish(None, "agreement")), 1))
            .unwrap_err();
    assert!(e.0.contains("kept conflicting"), "{e:?}");
    assert_eq!(rated_games(&db), 0);
    assert_eq!(player(&db, &b).unwrap().rating_version, 0);
}

#[test]
fn rating_periods_without_games_grow_the_deviation() {
    let r = Rating { rating: 1600.0, deviation: 60.0, volatility: 0.06 };
    assert_eq!(players::current_rating(r, None, 10 * RATING_PERIOD_MS), r, "never rated: no periods");
    assert_eq!(players::current_rating(r, Some(0), RATING_PERIOD_MS - 1), r, "less than one period");
    let one = players::current_rating(r, Some(0), RATING_PERIOD_MS);
    assert_eq!(one, r.after_inactivity(1));
    assert!(one.deviation > r.deviation && one.rating == r.rating);
    assert_eq!(players::current_rating(r, Some(0), 5 * RATING_PERIOD_MS + 7), r.after_inactivity(5));
    assert_eq!(
        players::current_rating(r, Some(0), 1000 * RATING_PERIOD_MS),
        r.after_inactivity(100),
        "capped"
    );
    assert_eq!(players::current_rating(r, Some(100), 0), r, "a clock behind rated_at counts no period");

    // Applied: the idle player's deviation grew before the game's update.
    let (db, a, b) = rated_pair();
    let store = SqlPlayers(&db);
    for id in [&a, &b] {
        set_rating(&db, id, r, Some(0));
    }
    let now = 3 * RATING_PERIOD_MS;
    run(players::apply_rating(
        &store,
        &rated_record(&pid(100), &a, &b, finish(Some("south"), "resignation")),
        now,
    ))
    .unwrap();
    let idle = r.after_inactivity(3);
    let expect = idle.update(&[service::rating::Game { opponent: idle, score: 1.0 }]);
    assert_eq!(player(&db, &a).unwrap().rating, expect);
}

#[test]
fn player_info_counts_games_by_faction_and_matchup_without_self_play_or_aborts() {
    let (a, b) = (pid(1), pid(2));
    // Cy: Bob's opponent below (a game's players exist: foreign keys).
    let db = db_with(&[(&a, "Ann"), (&b, "Bob"), (&pid(3), "Cy")]);
    let store = SqlPlayers(&db);
    insert_game(&db, &game(10, &a, &b, Some(Side::South), "south wins: resignation", 100));
    insert_game(
        &db,
        &GameRow {
            north: Faction::Axiom,
            ..game(11, &b, &a, Some(Side::South), "south wins: king destroyed", 200)
        },
    );
    insert_game(&db, &game(12, &a, &b, None, "draw: agreement", 300));
    insert_game(&db, &game(13, &a, &a, Some(Side::North), "north wins: resignation", 400)); // self-play
    insert_game(&db, &game(14, &a, &b, None, "aborted: never joined", 500));
    insert_game(&db, &GameRow { result: None, finished_at: None, ..game(15, &a, &b, None, "", 0) }); // ongoing
    mark_rated(&db, &pid(10), 100);
    let info = run(players::player_info(&store, &a, &page(""))).unwrap();
    assert_eq!((info.games.played, info.games.won), (3, 1));
    let by_faction: Vec<(Faction, u32, u32)> =
        info.by_faction.iter().map(|f| (f.faction, f.played, f.won)).collect();
    // Listed by faction name: axiom, blades, clockwork.
    assert_eq!(by_faction, vec![(Faction::Axiom, 1, 0), (Faction::Clockwork, 2, 1)]);
    let by_matchup: Vec<(Faction, Faction, Side, u32, u32)> =
        info.by_matchup.iter().map(|m| (m.south, m.north, m.side, m.played, m.won)).collect();
    assert_eq!(
        by_matchup,
        vec![
            (Faction::Clockwork, Faction::Axiom, Side::North, 1, 0),
            (Faction::Clockwork, Faction::Blades, Side::South, 2, 1)
        ]
    );
    let recent: Vec<(String, bool, bool, bool)> =
        info.recent.iter().map(|g| (g.id.clone(), g.won, g.self_play, g.rated)).collect();
    assert_eq!(
        recent,
        vec![
            (pid(13), false, true, false), // listed, not counted; a self-play game is South's for the page
            (pid(12), false, false, false),
            (pid(11), false, false, false),
            (pid(10), true, false, true),
        ]
    );
    assert_eq!(info.recent[3].record, format!("/api/games/{}/record", pid(10)));
    assert_eq!(info.recent[2].side, Side::North);
    assert_eq!(info.rating, players::RatingView { rating: 1500.0, deviation: 350.0, rated: false });
    let v = serde_json::to_value(&info).unwrap();
    assert_eq!(v["recent"][0]["mode"], "link");
    assert_eq!(v["rating"]["rating"], json!(1500.0));

    // Only the 10 latest are listed; all are counted.
    for i in 0..12 {
        insert_game(
            &db,
            &game(100 + i, &b, &pid(3), Some(Side::South), "south wins: resignation", 1000 + i64::from(i)),
        );
    }
    let bob = run(players::player_info(&store, &b, &page(""))).unwrap();
    assert_eq!(bob.recent.len(), 10);
    assert_eq!(bob.recent[0].id, pid(111));
    assert_eq!(bob.games.played, 3 + 12);
    assert_eq!(info.next, None, "Ann's 4 fit in a page");
    let next = bob.next.clone().unwrap();
    assert_eq!(next.to_string(), format!("1002_{}", pid(102)), "the last game listed");
    assert_eq!(serde_json::to_value(&bob).unwrap()["next"], next.to_string());

    // Pages of 4 from there: the older games in order, each once; the last has no next.
    let mut pages = vec![bob.recent.iter().map(|g| g.id.clone()).collect::<Vec<_>>()];
    let mut before = bob.next;
    while let Some(c) = before {
        let p = run(players::player_info(&store, &b, &page(&format!("before={c}&limit=4")))).unwrap();
        assert!(p.recent.len() <= 4);
        assert_eq!(p.games, bob.games, "the totals on every page");
        pages.push(p.recent.iter().map(|g| g.id.clone()).collect());
        before = p.next;
    }
    let listed: Vec<String> = pages.concat();
    let mut all: Vec<String> = (0..12).rev().map(|i| pid(100 + i)).collect();
    all.extend([pid(12), pid(11), pid(10)]);
    assert_eq!(listed, all);
    assert_eq!(pages.iter().map(Vec::len).collect::<Vec<_>>(), [10, 4, 1]);

    // A game that ends meanwhile is on the first page, and shifts no later one.
    let c = run(players::player_info(&store, &b, &page("limit=5"))).unwrap().next.unwrap();
    insert_game(&db, &game(200, &b, &pid(3), None, "draw: agreement", 5000));
    let later = run(players::player_info(&store, &b, &page(&format!("before={c}&limit=5")))).unwrap();
    assert_eq!(later.recent.iter().map(|g| g.id.clone()).collect::<Vec<_>>(), all[5..10]);
    assert_eq!(run(players::player_info(&store, &b, &page("limit=1"))).unwrap().recent[0].id, pid(200));

    // Ties on the end time are broken by the id, so no game falls between two pages.
    for i in 0..5 {
        insert_game(&db, &game(300 + i, &pid(3), &b, Some(Side::North), "north wins: resignation", 7000));
    }
    let (mut seen, mut before) = (Vec::new(), None::<String>);
    loop {
        let q = before.as_ref().map_or("limit=2".to_owned(), |c| format!("limit=2&before={c}"));
        let p = run(players::player_info(&store, &b, &page(&q))).unwrap();
        seen.extend(p.recent.into_iter().map(|g| g.id));
        match p.next {
            Some(c) => before = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(seen.len(), 15 + 1 + 5);
    assert_eq!(seen[..5], (0..5).rev().map(|i| pid(300 + i)).collect::<Vec<_>>()[..]);

    // The totals and a page are read in four statements, however long the history.
    let before = db.statements();
    run(players::player_info(&store, &b, &page("limit=3"))).unwrap();
    assert_eq!(db.statements() - before, 4, "the player, its counters, one page, its badges");

    for bad in ["nope", &pid(77)] {
        let e = run(players::player_info(&store, bad, &page(""))).unwrap_err();
        assert_eq!((e.status(), e.message.as_str()), (404, "no such player"));
    }
}

#[test]
fn the_leaderboard_is_rated_players_best_first_with_badges_in_two_queries() {
    let db = db();
    let store = SqlPlayers(&db);
    let badge = |id: &str| Badge { id: id.into(), name: id.to_uppercase(), description: "d".into() };
    for i in 0..60u32 {
        insert_player(&db, &pid(i), &format!("P{i}"));
        let rating = Rating { rating: 1400.0 + f64::from(i % 30) * 10.4, ..Rating::default() };
        set_rating(&db, &pid(i), rating, (i % 10 != 0).then_some(5)); // every tenth never played a rated game
    }
    for b in ["b1", "b2"] {
        insert_badge(&db, &badge(b));
    }
    award(&db, &pid(29), "b2", 1);
    award(&db, &pid(29), "b1", 2);
    award(&db, &pid(59), "b1", 3);
    let before = db.statements();
    let board = run(players::leaderboard(&store)).unwrap();
    assert_eq!(db.statements() - before, 2, "one query for the players, one for all their badges");
    assert_eq!(board.players.len(), 50);
    assert!(board.players.iter().enumerate().all(|(i, p)| p.rank == i + 1));
    assert!(board
        .players
        .windows(2)
        .all(|w| w[0].rating > w[1].rating || (w[0].rating == w[1].rating && w[0].id < w[1].id)));
    assert!(
        board.players.iter().all(|p| p.id != pid(0) && p.id != pid(10)),
        "unrated players are not listed"
    );
    // 1400 + 29 × 10.4 = 1701.6, rounded.
    assert_eq!((board.players[0].id.as_str(), board.players[0].rating), (pid(29).as_str(), 1702.0));
    assert_eq!(board.players[0].badges, vec![badge("b2"), badge("b1")], "in the order earned");
    assert_eq!(board.players[1].badges, vec![badge("b1")]);
    assert!(board.players[2..].iter().all(|p| p.badges.is_empty()));
    // Nobody rated: one query, an empty page.
    let empty = support::db();
    assert!(run(players::leaderboard(&SqlPlayers(&empty))).unwrap().players.is_empty());
    assert_eq!(empty.statements(), 1);
}

#[test]
fn matchup_statistics_count_only_played_link_games_between_two_players() {
    let (a, b) = (pid(1), pid(2));
    let db = db_with(&[(&a, "Ann"), (&b, "Bob")]); // the games' players (foreign keys)
    let store = SqlPlayers(&db);
    for g in [
        game(1, &a, &b, Some(Side::South), "south wins: resignation", 1),
        game(2, &a, &b, Some(Side::North), "north wins: time forfeit", 1),
        game(3, &b, &a, None, "draw: agreement", 1),
        game(4, &b, &a, Some(Side::South), "south wins: resignation", 1),
        GameRow { mode: Mode::Ai, ..game(5, &a, &b, Some(Side::South), "south wins: resignation", 1) },
        GameRow { plies: 0, ..game(6, &a, &b, Some(Side::South), "south wins: resignation", 1) },
        game(7, &a, &a, Some(Side::South), "south wins: resignation", 1),
        game(8, &a, &b, None, "aborted: by a player", 1),
        GameRow { result: None, ..game(9, &a, &b, None, "", 1) },
        GameRow {
            south: Faction::Axiom,
            north: Faction::Axiom,
            ..game(10, &a, &b, Some(Side::North), "north wins: king destroyed", 1)
        },
    ] {
        insert_game(&db, &g);
    }
    let m = run(players::matchups(&store)).unwrap();
    assert_eq!(m.matchups.len(), 9);
    let get = |s: Faction, n: Faction| m.matchups.iter().find(|x| x.south == s && x.north == n).unwrap();
    let cb = get(Faction::Clockwork, Faction::Blades);
    assert_eq!((cb.games, cb.south_wins, cb.north_wins, cb.draws), (4, 2, 1, 1));
    let aa = get(Faction::Axiom, Faction::Axiom);
    assert_eq!((aa.games, aa.north_wins), (1, 1));
    assert_eq!(m.matchups.iter().map(|x| x.games).sum::<u64>(), 5);
    assert_eq!((m.matchups[0].south, m.matchups[0].north), (Faction::Clockwork, Faction::Clockwork));
}

#[test]
fn names_are_unique_by_their_nfkc_lowercase_key() {
    let (a, b, c) = (pid(1), pid(2), pid(3));
    let db = db_with(&[(&a, "Guest-000001"), (&b, "Guest-000002"), (&c, "Legacy")]);
    let store = SqlPlayers(&db);
    let me = run(players::choose_name(&store, &a, "Alice")).unwrap();
    assert_eq!((me.id.as_deref(), me.name.as_deref()), (Some(a.as_str()), Some("Alice")));
    for look_alike in ["alice", "ALICE", "ＡＬＩＣＥ"] {
        let e = run(players::choose_name(&store, &b, look_alike)).unwrap_err();
        assert_eq!((e.status(), e.code), (409, ErrorCode::NameTaken), "{look_alike}");
    }
    // A name set before keys existed (no key row) still clashes, ASCII case ignored.
    assert_eq!(run(players::choose_name(&store, &b, "legacy")).unwrap_err().code, ErrorCode::NameTaken);
    // One's own name, in another case: allowed; the old key is released.
    assert_eq!(run(players::choose_name(&store, &a, "ALICE")).unwrap().name.as_deref(), Some("ALICE"));
    run(players::choose_name(&store, &a, "Alicia")).unwrap();
    assert_eq!(run(players::choose_name(&store, &b, "alice")).unwrap().name.as_deref(), Some("alice"));
    assert_eq!(names(&db).len(), 2);
    // Invalid names and guests' names: 422, nothing stored.
    for bad in ["x", "Guest-123456", "a\u{200B}b", "<b>"] {
        let e = run(players::choose_name(&store, &c, bad)).unwrap_err();
        assert_eq!((e.status(), e.code), (422, ErrorCode::InvalidName), "{bad:?}");
    }
    assert_eq!(display_name(&db, &c).as_deref(), Some("Legacy"));
    // Two players choosing look-alikes at once: the store's key decides (the race the
    // earlier check cannot see); the loser gets 409 and keeps its name.
    assert!(!run(store
        .claim_name(&c, &service::player_store::NameClaim { name: "Alicia".into(), key: "alicia".into() }))
    .unwrap());
}

#[test]
fn discord_sign_in_merges_only_guests_and_never_rebinds() {
    let st = first_story();
    let (guest, account, other) = (pid(1), pid(2), pid(3));
    let db = db_with(&[(&guest, "Guest-000001")]);
    discord_player(&db, &account, "Ann", "d-ann");
    discord_player(&db, &other, "Olga", "d-olga");
    let store = SqlPlayers(&db);
    insert_badge(&db, &st.badge);
    award(&db, &guest, &st.badge.id, 7);
    insert_progress(
        &db,
        &guest,
        &st.id,
        &Progress { completed: 1, current_game: Some(pid(50)), current_stage: Some(1) },
    );
    insert_progress(
        &db,
        &account,
        &st.id,
        &Progress { completed: 2, current_game: Some(pid(51)), current_stage: Some(2) },
    );
    insert_progress(&db, &guest, "other", &Progress { completed: 3, ..Progress::default() });
    insert_game(&db, &game(60, &guest, &other, None, "draw: agreement", 1));
    insert_session(
        &db,
        &SessionRow { token_hash: "s1".into(), player: guest.clone(), created_at: 0, expires_at: 9 },
    );
    insert_name(&db, "x", &guest);
    insert_merge(&db, &pid(9), &guest); // a guest merged into this guest earlier
                                        // Linked to another Discord account: never re-bound, never merged; the sign-in
                                        // switches to the Discord id's player.
    let before = player(&db, &other).unwrap();
    assert_eq!(
        run(players::link(&store, &mut Counter(0), Some(&other), "d-ann", "Ann", 1)).unwrap(),
        account
    );
    assert_eq!(player(&db, &other).unwrap(), before);
    // Already this Discord id: itself.
    assert_eq!(
        run(players::link(&store, &mut Counter(0), Some(&account), "d-ann", "Ann", 1)).unwrap(),
        account
    );

    // A guest with an account elsewhere: merged into it.
    assert_eq!(
        run(players::link(&store, &mut Counter(0), Some(&guest), "d-ann", "Ann", 2)).unwrap(),
        account
    );
    assert!(player(&db, &guest).is_none(), "the guest is gone");
    assert_eq!(awarded_at(&db, &account, &st.badge.id), Some(7));
    assert_eq!(
        run(store.progress(&account, &st.id)).unwrap(),
        Progress { completed: 2, current_game: Some(pid(50)), current_stage: Some(1) },
        "the furthest progress, the guest's stage in play"
    );
    assert_eq!(run(store.progress(&account, "other")).unwrap().completed, 3);
    assert_eq!(number(&db, "SELECT COUNT(*) FROM story_progress WHERE player_id = ?1", &[&guest]), 0);
    assert_eq!(seats(&db, &pid(60)).0.as_deref(), Some(account.as_str()));
    assert_eq!(sessions(&db)[0].player, account);
    assert_eq!(merges(&db), vec![(pid(1), account.clone()), (pid(9), account.clone())]);
    assert!(names(&db).is_empty());

    // A linked player signing in with a new Discord account while signed in: a new
    // player, the session's one untouched.
    let new = run(players::link(&store, &mut Counter(0), Some(&account), "d-new", "Ann", 3)).unwrap();
    assert_eq!(new, "01".repeat(12));
    assert_eq!(player(&db, &account).unwrap().discord_id.as_deref(), Some("d-ann"));
    assert_eq!(player(&db, &new).unwrap().discord_id.as_deref(), Some("d-new"));
    // "Ann" is shown by the account: the new player's name is tagged with its id.
    assert_eq!(display_name(&db, &new).as_deref(), Some("Ann-0101"));
}

#[test]
fn a_guest_signing_in_first_becomes_the_account_and_takes_the_discord_name() {
    let (g1, g2, g3) = (pid(1), pid(2), pid(3));
    let db = db_with(&[(&g1, "Guest-000001"), (&g2, "Chosen"), (&g3, "Guest-000003")]);
    let store = SqlPlayers(&db);
    assert_eq!(run(players::link(&store, &mut Counter(0), Some(&g1), "d1", "Zed", 1)).unwrap(), g1);
    assert_eq!(run(players::link(&store, &mut Counter(0), Some(&g2), "d2", "Yan", 1)).unwrap(), g2);
    // An invalid Discord name becomes "Discord player".
    assert_eq!(run(players::link(&store, &mut Counter(0), Some(&g3), "d3", "<script>", 1)).unwrap(), g3);
    let p1 = player(&db, &g1).unwrap();
    assert_eq!((p1.display_name.as_deref(), p1.discord_id.as_deref()), (Some("Zed"), Some("d1")));
    assert_eq!(display_name(&db, &g2).as_deref(), Some("Chosen"), "a chosen name is kept");
    assert_eq!(display_name(&db, &g3).as_deref(), Some("Discord player"));
    // No session: a new player, or the existing one.
    let id = run(players::link(&store, &mut Counter(4), None, "d9", "zed", 1)).unwrap();
    assert_eq!(id, "05".repeat(12));
    assert_eq!(display_name(&db, &id).as_deref(), Some("zed-0505"), "Zed is taken, any case");
    assert_eq!(run(players::link(&store, &mut Counter(0), None, "d1", "Zed", 1)).unwrap(), g1);
    assert_eq!(players::guest_name(&id), "Guest-050505");
}

#[test]
fn me_shows_the_player_and_its_badges() {
    let a = pid(1);
    let db = db_with(&[(&a, "Ann")]);
    let store = SqlPlayers(&db);
    let st = first_story();
    insert_badge(&db, &st.badge);
    award(&db, &a, &st.badge.id, 1);
    let me = run(players::me(&store, &a)).unwrap();
    let v = serde_json::to_value(&me).unwrap();
    assert_eq!(v, json!({ "id": a, "name": "Ann", "discord_linked": false, "badges": [st.badge] }));
    assert_eq!(run(players::me(&store, &pid(2))).unwrap_err().status(), 404);
    let anon = players::Me { discord_available: Some(true), ..players::Me::default() };
    assert_eq!(
        serde_json::to_value(&anon).unwrap(),
        json!({ "id": null, "name": null, "discord_linked": false, "badges": [], "discord_available": true })
    );
    assert!(players::check_reset_confirmation(br#"{"confirm": true}"#).is_ok());
    assert_eq!(
        players::check_reset_confirmation(br#"{"confirm": false}"#).unwrap_err().code,
        ErrorCode::ConfirmationRequired
    );
    assert_eq!(players::check_reset_confirmation(br#"{"confirm": true, "x": 1}"#).unwrap_err().status(), 400);
}

#[test]
fn guests_sessions_expire_are_replaced_at_sign_in_and_end_on_sign_out() {
    let db = db();
    let store = SqlPlayers(&db);
    let day = 86_400_000;
    let (guest, token) = run(players::new_guest(&store, &mut Counter(0), 1_000)).unwrap();
    assert_eq!(guest, "01".repeat(12));
    let row = player(&db, &guest).unwrap();
    assert_eq!(row, PlayerRow::new(&guest, "Guest-010101"), "a guest: its name, the default rating");
    let all = sessions(&db);
    assert_eq!(all.len(), 1);
    let stored = all[0].clone();
    assert_eq!(stored.token_hash, service::tokens::hash(&token), "only the token's hash is stored");
    assert_ne!(stored.token_hash, token);
    assert_eq!(stored.expires_at, 1_000 + 180 * day);
    let hash = stored.token_hash.clone();
    assert_eq!(run(players::session(&store, &token, 2_000)).unwrap(), Some((guest.clone(), hash.clone())));
    assert_eq!(run(players::session(&store, &token, 1_000 + 180 * day)).unwrap(), None, "expired");
    assert_eq!(run(players::session(&store, "nope", 2_000)).unwrap(), None);
    // Sign-in: a fresh token; the old one ends.
    let fresh = run(players::fresh_session(&store, &mut Counter(7), &guest, &hash, 3_000)).unwrap();
    assert_ne!(fresh, token);
    assert_eq!(run(players::session(&store, &token, 3_000)).unwrap(), None);
    assert_eq!(run(players::session(&store, &fresh, 3_000)).unwrap().unwrap().0, guest);
    // Sign out here, then everywhere.
    let other = run(players::fresh_session(&store, &mut Counter(9), &guest, "none", 3_000)).unwrap();
    let third = run(players::fresh_session(&store, &mut Counter(11), &guest, "none", 3_000)).unwrap();
    let fresh_hash = service::tokens::hash(&fresh);
    let out = run(players::sign_out(&store, Some((&guest, &fresh_hash)), false)).unwrap();
    assert_eq!(out, players::SignedOut { signed_out: true, sessions_ended: 1 });
    assert_eq!(run(players::session(&store, &other, 3_000)).unwrap().unwrap().0, guest);
    let other_hash = service::tokens::hash(&other);
    let out = run(players::sign_out(&store, Some((&guest, &other_hash)), true)).unwrap();
    assert_eq!(out.sessions_ended, 2);
    assert_eq!(run(players::session(&store, &third, 3_000)).unwrap(), None);
    assert_eq!(run(players::sign_out(&store, None, true)).unwrap().sessions_ended, 0);
    assert_eq!(serde_json::to_value(out).unwrap(), json!({ "signed_out": true, "sessions_ended": 2 }));
}
