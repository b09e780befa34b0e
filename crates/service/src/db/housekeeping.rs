//! The hourly sweep of D1 (the Worker's Cron Trigger): expired sessions, sign-in states
//! past their age, and empty guests — guest players (no Discord account) with no session
//! left and nothing that refers to them (no game, story progress, badge, merge, challenge
//! or chosen name) — with their push subscriptions first (the lessons they completed go
//! with them: the schema's ON DELETE CASCADE). Each statement is bounded
//! ([`BATCH`] rows) so one run stays small, and the next run continues.
//!
//! Before the guests it gives names chosen before `player_names` existed (migration
//! 0004) their normalised key ([`crate::names::key`]), [`NAME_BATCH`] per run, where no
//! other player holds the key; a clash between two legacy names keeps both names as they
//! are and is reported for the log.
//!
//! Last, it picks a sample of unfinished games older than an hour ([`WAKE_SAMPLE`]) for
//! the Worker to wake (each re-arms its alarm and retries what it owes D1): a safety net
//! for the games' alarms.

use serde::Deserialize;

use crate::accounts::STATE_MAX_AGE_MS;
use crate::sql::{self, Sql, Stmt, StoreResult};

/// Rows deleted per statement and run.
pub const BATCH: i64 = 5000;

/// Unfinished games woken per run (a random sample: long correspondence games stay
/// unfinished legitimately and must not hide the others).
pub const WAKE_SAMPLE: i64 = 100;

/// How old an unfinished game is before the sweep wakes it.
pub const WAKE_AFTER_MS: i64 = 3_600_000;

/// Legacy names keyed per run (in random order, so clashes left without a key cannot
/// hold the others back).
pub const NAME_BATCH: i64 = 500;

/// An empty guest (`p`, of `players`): no Discord account, no rating, made before `?1`,
/// no session, and nothing that refers to it but push subscriptions (deleted with it) and
/// the lessons it completed (whose rows the schema deletes with it: ON DELETE CASCADE).
/// Written once, for both of the statements that use it; only constants are spliced into
/// the statements, the values are bound.
pub const EMPTY_GUEST: &str = "p.discord_id IS NULL AND p.rated_at IS NULL AND p.created_at < ?1 \
    AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.player_id = p.id) \
    AND NOT EXISTS (SELECT 1 FROM games g WHERE g.south_player = p.id OR g.north_player = p.id) \
    AND NOT EXISTS (SELECT 1 FROM story_progress sp WHERE sp.player_id = p.id) \
    AND NOT EXISTS (SELECT 1 FROM player_badges pb WHERE pb.player_id = p.id) \
    AND NOT EXISTS (SELECT 1 FROM player_merges m WHERE m.from_id = p.id OR m.into_id = p.id) \
    AND NOT EXISTS (SELECT 1 FROM challenges c WHERE c.poster_id = p.id OR c.accepted_by = p.id) \
    AND NOT EXISTS (SELECT 1 FROM player_names n WHERE n.player_id = p.id) \
    AND (p.display_name IS NULL OR p.display_name LIKE 'Guest-%')";

/// Sessions expired by `?1`, at most `?2`.
pub const EXPIRED_SESSIONS: &str = "DELETE FROM sessions WHERE token_hash IN \
             (SELECT token_hash FROM sessions WHERE expires_at <= ?1 LIMIT ?2)";

/// Sign-in states made before `?1`, at most `?2`.
pub const STALE_STATES: &str = "DELETE FROM oauth_states WHERE state_hash IN \
             (SELECT state_hash FROM oauth_states WHERE created_at < ?1 LIMIT ?2)";

/// The push subscriptions of (at most `?2`) empty guests.
pub fn guest_subscriptions_stmt() -> String {
    format!(
        "DELETE FROM push_subscriptions WHERE player_id IN \
                 (SELECT p.id FROM players p WHERE {EMPTY_GUEST} LIMIT ?2)"
    )
}

/// Empty guests without a push subscription left, at most `?2`.
pub fn guests_stmt() -> String {
    format!(
        "DELETE FROM players WHERE id IN (SELECT p.id FROM players p WHERE {EMPTY_GUEST} \
                 AND NOT EXISTS (SELECT 1 FROM push_subscriptions ps WHERE ps.player_id = p.id) \
                 LIMIT ?2)"
    )
}

/// Unfinished games made before `?1`, a random sample of `?2`.
pub const STALE_GAMES: &str =
    "SELECT id FROM games WHERE result IS NULL AND created_at < ?1 ORDER BY random() LIMIT ?2";

/// Chosen names without a `player_names` row, a random `?1` of them.
pub const LEGACY_NAMES: &str = "SELECT p.id, p.display_name FROM players p \
             WHERE p.display_name IS NOT NULL AND p.display_name NOT LIKE 'Guest-%' \
               AND NOT EXISTS (SELECT 1 FROM player_names n WHERE n.player_id = p.id) \
             ORDER BY random() LIMIT ?1";

/// A legacy name's key, unless the key or the player already has one.
pub const KEY_NAME: &str = "INSERT OR IGNORE INTO player_names (name_key, player_id) VALUES (?1, ?2)";

/// What one run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Swept {
    pub sessions: u64,
    pub oauth_states: u64,
    pub guests: u64,
    /// The push subscriptions of empty guests, deleted before them.
    pub guest_subscriptions: u64,
    /// Games woken (by the Worker, from [`Swept::stale`]).
    pub woken: u64,
    /// Legacy chosen names given their `player_names` key, and those whose key another
    /// player holds (left as they are).
    pub names_keyed: u64,
    pub name_clashes: u64,
    /// The clashes, `(player, display name)`, for the log.
    pub clashes: Vec<(String, String)>,
    /// Unfinished games to wake (ids of a game's form only).
    pub stale: Vec<String>,
    /// Challenges offered again whose accept died before the game (by the Worker:
    /// `crate::sagas::challenges::release_stale_claims`).
    pub claims_released: u64,
}

/// One run at `now_ms`, in this order: expired sessions, stale sign-in states, legacy
/// names keyed, empty guests' push subscriptions, then those guests, then the games to
/// wake. A failing statement ends the run with its error; the next run starts over.
pub async fn sweep(db: &impl Sql, now_ms: i64) -> StoreResult<Swept> {
    let sessions = db.run(Stmt::new(EXPIRED_SESSIONS).bind(now_ms).bind(BATCH)).await?;
    let oauth_states = db.run(Stmt::new(STALE_STATES).bind(now_ms - STATE_MAX_AGE_MS).bind(BATCH)).await?;
    // Before the guest sweep: a legacy named guest has a name row by then.
    let clashes = backfill_name_keys(db).await?;
    // An empty guest's push subscriptions go first: with no session nobody can act as
    // that guest again, and it has no game to be told about. D1 enforces the foreign key,
    // so a guest still holding one would fail the whole delete below (and this run).
    let guest_subscriptions = db.run(Stmt::new(guest_subscriptions_stmt()).bind(now_ms).bind(BATCH)).await?;
    // Guests whose subscriptions the statement above did not reach (its LIMIT) wait for
    // the next run.
    let guests = db.run(Stmt::new(guests_stmt()).bind(now_ms).bind(BATCH)).await?;
    let stale = stale_games(db, now_ms).await?;
    Ok(Swept {
        sessions,
        oauth_states,
        guests,
        guest_subscriptions,
        woken: 0,
        names_keyed: clashes.keyed,
        name_clashes: clashes.clashes.len() as u64,
        clashes: clashes.clashes,
        stale,
        claims_released: 0,
    })
}

/// The sample of unfinished games older than [`WAKE_AFTER_MS`] to wake.
pub async fn stale_games(db: &impl Sql, now_ms: i64) -> StoreResult<Vec<String>> {
    #[derive(Deserialize)]
    struct Game {
        id: String,
    }
    let rows: Vec<Game> =
        sql::rows(db, Stmt::new(STALE_GAMES).bind(now_ms - WAKE_AFTER_MS).bind(WAKE_SAMPLE)).await?;
    Ok(rows.into_iter().map(|g| g.id).filter(|id| crate::game::valid_id(id)).collect())
}

/// What [`backfill_name_keys`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Keyed {
    pub keyed: u64,
    /// `(player, display name)` of those whose key another player holds.
    pub clashes: Vec<(String, String)>,
}

/// Gives chosen names from before `player_names` existed their normalised key: one
/// `INSERT OR IGNORE` per player in one batch (the key and the player are both unique,
/// so a key another player holds, or a name chosen meanwhile, is left alone).
pub async fn backfill_name_keys(db: &impl Sql) -> StoreResult<Keyed> {
    #[derive(Deserialize)]
    struct Named {
        id: String,
        display_name: String,
    }
    let legacy: Vec<Named> = sql::rows(db, Stmt::new(LEGACY_NAMES).bind(NAME_BATCH)).await?;
    let legacy: Vec<Named> =
        legacy.into_iter().filter(|p| crate::names::is_chosen(&p.display_name)).collect();
    if legacy.is_empty() {
        return Ok(Keyed::default());
    }
    let inserts = legacy
        .iter()
        .map(|p| Stmt::new(KEY_NAME).bind(crate::names::key(&p.display_name)).bind(p.id.as_str()))
        .collect();
    let changes = db.batch(inserts).await?;
    let mut out = Keyed::default();
    for (p, n) in legacy.into_iter().zip(changes) {
        if n > 0 {
            out.keyed += 1;
        } else {
            out.clashes.push((p.id, p.display_name));
        }
    }
    Ok(out)
}
