//! The scheduled handler (Cron Trigger, hourly in wrangler.toml): deletes expired
//! sessions, sign-in states past their age, and empty guests — guest players (no Discord
//! account) with no session left and nothing that refers to them (no game, story
//! progress, badge, merge, challenge or chosen name), with their push subscriptions.
//! Bound parameters only; each statement is bounded so one run stays small, and the next
//! run continues. As a safety net for the games' alarms, it also
//! wakes a sample of unfinished games older than an hour (each re-arms its alarm for its
//! deadline, idle end or D1 retry — a due one fires at once — and retries what it owes D1):
//! games made before idle ends existed, or whose alarm was lost, end all the same.
//!
//! It also backfills `player_names` (migration 0004) for names chosen before it existed:
//! the normalised key (`service::names::key`) of each such player without a row, where
//! no other player holds the key; a clash between two legacy names keeps both names as
//! they are and is logged.
//!
//! Locally: `wrangler dev --test-scheduled`, then `GET /cdn-cgi/handler/scheduled?cron=0+*+*+*+*`.

use service::accounts::STATE_MAX_AGE_MS;
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, Env, Result};

use crate::game_object::WAKE_PATH;
use crate::glue;

/// Rows deleted per statement and run.
const BATCH: f64 = 5000.0;

/// What one run deleted.
#[derive(Debug, Default)]
pub struct Swept {
    pub sessions: u64,
    pub oauth_states: u64,
    pub guests: u64,
    /// The push subscriptions of empty guests, deleted before them.
    pub guest_subscriptions: u64,
    pub woken: u64,
    /// Legacy chosen names given their `player_names` key, and those whose key another
    /// player holds (left as they are).
    pub names_keyed: u64,
    pub name_clashes: u64,
}

/// An empty guest (`p`, of `players`): no Discord account, no rating, made before `?1`,
/// no session, and nothing that refers to it but push subscriptions (deleted with it).
/// Only constants are spliced into the statements; the values are bound.
const EMPTY_GUEST: &str = "p.discord_id IS NULL AND p.rated_at IS NULL AND p.created_at < ?1 \
    AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.player_id = p.id) \
    AND NOT EXISTS (SELECT 1 FROM games g WHERE g.south_player = p.id OR g.north_player = p.id) \
    AND NOT EXISTS (SELECT 1 FROM story_progress sp WHERE sp.player_id = p.id) \
    AND NOT EXISTS (SELECT 1 FROM player_badges pb WHERE pb.player_id = p.id) \
    AND NOT EXISTS (SELECT 1 FROM player_merges m WHERE m.from_id = p.id OR m.into_id = p.id) \
    AND NOT EXISTS (SELECT 1 FROM challenges c WHERE c.poster_id = p.id OR c.accepted_by = p.id) \
    AND NOT EXISTS (SELECT 1 FROM player_names n WHERE n.player_id = p.id) \
    AND (p.display_name IS NULL OR p.display_name LIKE 'Guest-%')";

/// Unfinished games woken per run (a random sample: long correspondence games stay
/// unfinished legitimately and must not hide the others).
const WAKE_SAMPLE: f64 = 100.0;

pub async fn run(env: &Env, now_ms: i64) -> Result<Swept> {
    let db = env.d1("DB")?;
    let now = JsValue::from_f64(now_ms as f64);
    let state_cutoff = JsValue::from_f64((now_ms - STATE_MAX_AGE_MS) as f64);
    let limit = JsValue::from_f64(BATCH);
    let sessions = changes(
        &db,
        "DELETE FROM sessions WHERE token_hash IN \
             (SELECT token_hash FROM sessions WHERE expires_at <= ?1 LIMIT ?2)",
        &[now.clone(), limit.clone()],
    )
    .await?;
    let oauth_states = changes(
        &db,
        "DELETE FROM oauth_states WHERE state_hash IN \
             (SELECT state_hash FROM oauth_states WHERE created_at < ?1 LIMIT ?2)",
        &[state_cutoff, limit.clone()],
    )
    .await?;
    // Before the guest sweep: a legacy named guest has a name row by then.
    let (names_keyed, name_clashes) = backfill_name_keys(&db).await?;
    // An empty guest's push subscriptions go first: with no session nobody can act as
    // that guest again, and it has no game to be told about. D1 enforces the foreign key,
    // so a guest still holding one would fail the whole delete below (and this run).
    let guest_subscriptions = changes(
        &db,
        &format!(
            "DELETE FROM push_subscriptions WHERE player_id IN \
                 (SELECT p.id FROM players p WHERE {EMPTY_GUEST} LIMIT ?2)"
        ),
        &[now.clone(), limit.clone()],
    )
    .await?;
    // Guests whose subscriptions the statement above did not reach (its LIMIT) wait for
    // the next run.
    let guests = changes(
        &db,
        &format!(
            "DELETE FROM players WHERE id IN (SELECT p.id FROM players p WHERE {EMPTY_GUEST} \
                 AND NOT EXISTS (SELECT 1 FROM push_subscriptions ps WHERE ps.player_id = p.id) \
                 LIMIT ?2)"
        ),
        &[now, limit],
    )
    .await?;
    #[derive(serde::Deserialize)]
    struct Game {
        id: String,
    }
    let stale: Vec<Game> = glue::d1_rows(
        &db,
        "SELECT id FROM games WHERE result IS NULL AND created_at < ?1 ORDER BY random() LIMIT ?2",
        &[JsValue::from_f64((now_ms - 3_600_000) as f64), JsValue::from_f64(WAKE_SAMPLE)],
    )
    .await?;
    let mut woken = 0;
    for g in stale.iter().filter(|g| service::game::valid_id(&g.id)) {
        match crate::router::internal_call(env, &g.id, WAKE_PATH, &()).await {
            Ok(mut r) => {
                // Read the answer to the end: an unread body keeps the event open.
                let body = r.text().await.unwrap_or_default();
                if r.status_code() == 200 {
                    woken += 1;
                } else {
                    worker::console_error!("waking game {} answered {}: {body}", g.id, r.status_code());
                }
            }
            Err(e) => worker::console_error!("waking game {} failed: {e}", g.id),
        }
    }
    Ok(Swept { sessions, oauth_states, guests, guest_subscriptions, woken, names_keyed, name_clashes })
}

/// Legacy names keyed per run (in random order, so clashes left without a key cannot
/// hold the others back).
const NAME_BATCH: f64 = 500.0;

/// Gives chosen names from before `player_names` existed their normalised key: one
/// `INSERT OR IGNORE` per player in one batch (the key and the player are both unique,
/// so a key another player holds, or a name chosen meanwhile, is left alone). Returns
/// how many were keyed and how many clashed.
async fn backfill_name_keys(db: &D1Database) -> Result<(u64, u64)> {
    #[derive(serde::Deserialize)]
    struct Named {
        id: String,
        display_name: String,
    }
    let legacy: Vec<Named> = glue::d1_rows(
        db,
        "SELECT p.id, p.display_name FROM players p \
             WHERE p.display_name IS NOT NULL AND p.display_name NOT LIKE 'Guest-%' \
               AND NOT EXISTS (SELECT 1 FROM player_names n WHERE n.player_id = p.id) \
             ORDER BY random() LIMIT ?1",
        &[JsValue::from_f64(NAME_BATCH)],
    )
    .await?;
    let legacy: Vec<Named> =
        legacy.into_iter().filter(|p| service::names::is_chosen(&p.display_name)).collect();
    if legacy.is_empty() {
        return Ok((0, 0));
    }
    let mut inserts = Vec::with_capacity(legacy.len());
    for p in &legacy {
        let key = service::names::key(&p.display_name);
        inserts.push(
            db.prepare("INSERT OR IGNORE INTO player_names (name_key, player_id) VALUES (?1, ?2)")
                .bind(&[JsValue::from_str(&key), JsValue::from_str(&p.id)])?,
        );
    }
    let results = db.batch(inserts).await?;
    let (mut keyed, mut clashes) = (0, 0);
    for (p, r) in legacy.iter().zip(&results) {
        if r.meta()?.and_then(|m| m.changes).unwrap_or(0) > 0 {
            keyed += 1;
        } else {
            clashes += 1;
            worker::console_warn!(
                "legacy display name of player {} ({:?}) has a key another player holds: left as it is",
                p.id,
                p.display_name
            );
        }
    }
    Ok((keyed, clashes))
}

/// Runs a statement and returns how many rows it changed.
async fn changes(db: &D1Database, sql: &str, args: &[JsValue]) -> Result<u64> {
    let r = db.prepare(sql).bind(args)?.run().await?;
    Ok(r.meta()?.and_then(|m| m.changes).unwrap_or(0) as u64)
}
