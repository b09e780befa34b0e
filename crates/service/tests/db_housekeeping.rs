//! The hourly sweep (`service::db::housekeeping`) and the pending sign-ins it sweeps
//! (`service::db::oauth`) on real SQLite made by the real migrations, foreign keys on
//! as D1 enforces them.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use serde_json::Value;
use service::accounts::STATE_MAX_AGE_MS;
use service::db::housekeeping::{self, BATCH, NAME_BATCH, WAKE_SAMPLE};
use service::db::oauth;
use service::sql::{Sql, Stmt};
use service::sqlite::{block_on, Sqlite};
use service::tokens;
use service::ErrorCode;

const NOW: i64 = 1_700_000_000_000;
const HOUR: i64 = 3_600_000;

fn db() -> Sqlite {
    Sqlite::migrated().unwrap()
}

fn exec(db: &Sqlite, sql: &str) {
    db.conn().execute_batch(sql).unwrap();
}

/// A player made a day ago: a guest named `Guest-…` unless `name` says otherwise.
fn player(db: &Sqlite, id: &str, name: Option<&str>) {
    db.conn()
        .execute(
            "INSERT INTO players (id, display_name, created_at) VALUES (?1, ?2, ?3)",
            rusqlite::params![id, name, NOW - 24 * HOUR],
        )
        .unwrap();
}

fn column(db: &Sqlite, sql: &str) -> Vec<String> {
    block_on(db.all(Stmt::new(sql.to_owned())))
        .unwrap()
        .into_iter()
        .map(|r| match r.values().next().unwrap() {
            Value::String(s) => s.clone(),
            v => v.to_string(),
        })
        .collect()
}

fn ids(db: &Sqlite) -> Vec<String> {
    column(db, "SELECT id FROM players ORDER BY id")
}

/// Every kind of guest the sweep must keep, and the empty ones it deletes.
fn arrange(db: &Sqlite) {
    for id in [
        "empty",
        "empty-named-guest",
        "empty-with-push",
        "empty-with-two-pushes",
        "ended-session",
        "live-session",
        "live-session-with-push",
        "in-game-south",
        "in-game-north",
        "with-story",
        "with-badge",
        "merged-from",
        "merged-into",
        "posted-challenge",
        "accepted-challenge",
        "with-name-row",
    ] {
        player(db, id, None);
    }
    exec(
        db,
        &format!(
            "UPDATE players SET display_name = 'Guest-4821' WHERE id = 'empty-named-guest';
             INSERT INTO players (id, display_name, created_at) VALUES ('chosen-name', 'Ada', {old});
             INSERT INTO players (id, discord_id, created_at) VALUES ('discord', '1001', {old});
             INSERT INTO players (id, created_at, rated_at) VALUES ('rated', {old}, {old});
             INSERT INTO players (id, created_at) VALUES ('brand-new', {now});
             INSERT INTO sessions (token_hash, player_id, created_at, expires_at) VALUES
                 ('s-ended', 'ended-session', {old}, {now}),
                 ('s-live', 'live-session', {old}, {later}),
                 ('s-live-2', 'live-session-with-push', {old}, {later});
             INSERT INTO push_subscriptions (endpoint, player_id, p256dh, auth, created_at) VALUES
                 ('https://push.example/empty', 'empty-with-push', 'p', 'a', {old}),
                 ('https://push.example/two-1', 'empty-with-two-pushes', 'p', 'a', {old}),
                 ('https://push.example/two-2', 'empty-with-two-pushes', 'p', 'a', {old}),
                 ('https://push.example/live', 'live-session-with-push', 'p', 'a', {old});
             INSERT INTO games (id, south_faction, north_faction, mode, created_at, south_player, north_player) VALUES
                 ('g1', 'clockwork', 'blades', 'link', {now}, 'in-game-south', NULL),
                 ('g2', 'clockwork', 'blades', 'link', {now}, NULL, 'in-game-north');
             INSERT INTO story_progress (player_id, story_id, updated_at) VALUES ('with-story', 'iron', {old});
             INSERT INTO badges (id, name, description) VALUES ('b', 'B', 'a badge');
             INSERT INTO player_badges (player_id, badge_id, awarded_at) VALUES ('with-badge', 'b', {old});
             INSERT INTO player_merges (from_id, into_id) VALUES ('merged-from', 'discord'), ('x', 'merged-into');
             INSERT INTO challenges (id, poster_id, spec, ip_hash, created_at, expires_at, game_id, accepted_by) VALUES
                 ('c1', 'posted-challenge', '{{}}', 'h', {old}, {later}, NULL, NULL),
                 ('c2', 'discord', '{{}}', 'h', {old}, {later}, 'g1', 'accepted-challenge');
             INSERT INTO player_names (name_key, player_id) VALUES ('someone', 'with-name-row');",
            old = NOW - 24 * HOUR,
            now = NOW,
            later = NOW + HOUR,
        ),
    );
}

/// Regression (c25e628): an empty guest that had subscribed to notifications failed the
/// whole guest delete (D1 enforces the foreign key from `push_subscriptions`), so no
/// empty guest went and the run stopped before waking games, every hour. Its
/// subscriptions now go first, in the same run, and every guest holding anything else is
/// kept. Fails (checked) when the subscriptions' delete is removed from the sweep or run
/// after the guests' (the guests with subscriptions stay), and on the old guest delete
/// without its `NOT EXISTS (… push_subscriptions …)` (the sweep fails: `FOREIGN KEY
/// constraint failed`).
#[test]
fn an_empty_guest_with_a_push_subscription_is_deleted_subscriptions_first_and_a_guest_holding_anything_else_is_kept(
) {
    let db = db();
    arrange(&db);
    let swept = block_on(housekeeping::sweep(&db, NOW)).unwrap();
    assert_eq!(
        ids(&db),
        [
            "accepted-challenge",
            "brand-new",
            "chosen-name",
            "discord",
            "in-game-north",
            "in-game-south",
            "live-session",
            "live-session-with-push",
            "merged-from",
            "merged-into",
            "posted-challenge",
            "rated",
            "with-badge",
            "with-name-row",
            "with-story",
        ],
        "{swept:?}"
    );
    assert_eq!(
        column(&db, "SELECT endpoint FROM push_subscriptions"),
        ["https://push.example/live"],
        "a guest still signed in keeps its own"
    );
    assert_eq!((swept.sessions, swept.guest_subscriptions, swept.guests), (1, 3, 5), "{swept:?}");
    // The guest with a chosen name was given its key before the guest sweep.
    assert_eq!((swept.names_keyed, swept.name_clashes), (1, 0));
    assert_eq!(column(&db, "SELECT player_id FROM player_names WHERE name_key = 'ada'"), ["chosen-name"]);
    // A second run finds nothing more.
    let again = block_on(housekeeping::sweep(&db, NOW)).unwrap();
    assert_eq!((again.sessions, again.guest_subscriptions, again.guests, again.names_keyed), (0, 0, 0, 0));
}

#[test]
fn expired_sessions_and_stale_sign_in_states_go_at_most_batch_per_run() {
    let db = db();
    player(&db, "p", Some("Ada"));
    exec(
        &db,
        &format!(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {count})
             INSERT INTO sessions (token_hash, player_id, created_at, expires_at)
                 SELECT 'expired-' || i, 'p', 0, {now} - i FROM n;
             INSERT INTO sessions (token_hash, player_id, created_at, expires_at) VALUES ('live', 'p', 0, {later});
             INSERT INTO oauth_states (state_hash, session_hash, verifier, created_at) VALUES
                 ('old', 'x', 'v', {old}), ('edge', 'x', 'v', {edge}), ('new', 'x', 'v', {now});",
            count = BATCH + 1,
            now = NOW,
            later = NOW + 1,
            old = NOW - STATE_MAX_AGE_MS - 1,
            edge = NOW - STATE_MAX_AGE_MS,
        ),
    );
    let first = block_on(housekeeping::sweep(&db, NOW)).unwrap();
    assert_eq!((first.sessions, first.oauth_states), (BATCH as u64, 1));
    let second = block_on(housekeeping::sweep(&db, NOW)).unwrap();
    assert_eq!((second.sessions, second.oauth_states), (1, 0));
    assert_eq!(column(&db, "SELECT token_hash FROM sessions"), ["live"]);
    assert_eq!(column(&db, "SELECT state_hash FROM oauth_states ORDER BY 1"), ["edge", "new"]);
}

#[test]
fn legacy_names_get_their_key_and_a_clash_keeps_both_names_and_is_reported() {
    let db = db();
    player(&db, "a", Some("Ada"));
    player(&db, "b", Some("ＡＤＡ")); // fullwidth: the same key
    player(&db, "c", Some("Bob"));
    player(&db, "holder", Some("Cleo"));
    player(&db, "g", Some("guest-77")); // a guest's name in another case has no key
    exec(&db, "INSERT INTO player_names (name_key, player_id) VALUES ('cleo', 'holder')");
    let keyed = block_on(housekeeping::backfill_name_keys(&db)).unwrap();
    assert_eq!(keyed.keyed, 2);
    assert_eq!(keyed.clashes.len(), 1);
    let (loser, name) = &keyed.clashes[0];
    let winner = column(&db, "SELECT player_id FROM player_names WHERE name_key = 'ada'");
    assert_eq!(winner.len(), 1);
    assert_ne!(loser, &winner[0]);
    assert!(name == "Ada" || name == "ＡＤＡ");
    assert_eq!(column(&db, "SELECT player_id FROM player_names WHERE name_key = 'bob'"), ["c"]);
    assert_eq!(
        column(&db, "SELECT display_name FROM players WHERE id IN ('a', 'b') ORDER BY id"),
        ["Ada", "ＡＤＡ"]
    );
    // The loser is tried again each run (and clashes again); nothing else is left.
    let again = block_on(housekeeping::backfill_name_keys(&db)).unwrap();
    assert_eq!((again.keyed, again.clashes.len()), (0, 1));
    // At most NAME_BATCH a run.
    exec(
        &db,
        &format!(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {})
             INSERT INTO players (id, display_name, created_at) SELECT 'n' || i, 'Name ' || i, 0 FROM n",
            NAME_BATCH + 10
        ),
    );
    let many = block_on(housekeeping::backfill_name_keys(&db)).unwrap();
    assert_eq!(many.keyed + many.clashes.len() as u64, NAME_BATCH as u64);
}

#[test]
fn the_sweep_picks_a_sample_of_unfinished_games_older_than_an_hour_to_wake() {
    let db = db();
    let id = |n: u32| format!("{n:024x}");
    exec(
        &db,
        &format!(
            "INSERT INTO games (id, south_faction, north_faction, mode, created_at, result) VALUES
                 ('{old}', 'clockwork', 'blades', 'ai', {two_hours_ago}, NULL),
                 ('{done}', 'clockwork', 'blades', 'ai', {two_hours_ago}, 'draw: agreement'),
                 ('{young}', 'clockwork', 'blades', 'ai', {now}, NULL),
                 ('not-a-game-id', 'clockwork', 'blades', 'ai', {two_hours_ago}, NULL);",
            old = id(1),
            done = id(2),
            young = id(3),
            two_hours_ago = NOW - 2 * HOUR,
            now = NOW - HOUR + 1,
        ),
    );
    assert_eq!(block_on(housekeeping::sweep(&db, NOW)).unwrap().stale, [id(1)], "ids of a game's form only");
    // At most WAKE_SAMPLE (the filter above applies to the sample, as the Worker's did).
    exec(
        &db,
        &format!(
            "DELETE FROM games WHERE id = 'not-a-game-id';
             WITH RECURSIVE n(i) AS (SELECT 10 UNION ALL SELECT i + 1 FROM n WHERE i < {})
             INSERT INTO games (id, south_faction, north_faction, mode, created_at)
                 SELECT printf('%024x', i), 'clockwork', 'blades', 'ai', 0 FROM n",
            WAKE_SAMPLE + 20
        ),
    );
    assert_eq!(block_on(housekeeping::stale_games(&db, NOW)).unwrap().len(), WAKE_SAMPLE as usize);
}

#[test]
fn a_sign_in_state_is_stored_by_hash_single_use_bound_to_its_browser_and_its_age() {
    let db = db();
    let (state, token, verifier) = ("state-1", "cookie-token", "pkce-verifier");
    block_on(oauth::remember(&db, state, token, verifier, NOW)).unwrap();
    let row = block_on(
        db.all(Stmt::new("SELECT state_hash, session_hash, verifier, created_at FROM oauth_states")),
    )
    .unwrap();
    assert_eq!(row.len(), 1);
    assert_eq!(row[0]["state_hash"], tokens::hash(state).as_str(), "only hashes stored");
    assert_eq!(row[0]["session_hash"], tokens::hash(token).as_str());
    assert_eq!((row[0]["verifier"].as_str(), row[0]["created_at"].as_i64()), (Some(verifier), Some(NOW)));
    // Another browser: refused, and the state is spent all the same.
    let other = block_on(oauth::take_checked(&db, state, &tokens::hash("another"), NOW + 1)).unwrap_err();
    assert_eq!((other.status(), other.code), (403, ErrorCode::BadState));
    let spent = block_on(oauth::take_checked(&db, state, &tokens::hash(token), NOW + 1)).unwrap_err();
    assert_eq!((spent.status(), spent.code), (403, ErrorCode::BadState));
    // The right browser in time: the verifier, once.
    block_on(oauth::remember(&db, "state-2", token, verifier, NOW)).unwrap();
    let v =
        block_on(oauth::take_checked(&db, "state-2", &tokens::hash(token), NOW + STATE_MAX_AGE_MS)).unwrap();
    assert_eq!(v, verifier);
    assert!(block_on(oauth::take(&db, &tokens::hash("state-2"))).unwrap().is_none(), "taken");
    // Too late.
    block_on(oauth::remember(&db, "state-3", token, verifier, NOW)).unwrap();
    let late =
        block_on(oauth::take_checked(&db, "state-3", &tokens::hash(token), NOW + STATE_MAX_AGE_MS + 1));
    assert_eq!(late.unwrap_err().code, ErrorCode::BadState);
    assert!(column(&db, "SELECT state_hash FROM oauth_states").is_empty());
    // The same state twice is a key clash, never two pending sign-ins.
    block_on(oauth::remember(&db, "state-4", token, verifier, NOW)).unwrap();
    assert!(block_on(oauth::remember(&db, "state-4", "t", "v", NOW)).unwrap_err().is_unique_violation());
}
