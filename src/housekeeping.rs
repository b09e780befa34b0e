//! The scheduled handler (Cron Trigger, hourly in wrangler.toml): deletes expired
//! sessions, sign-in states past their age, and empty guests — guest players (no Discord
//! account) with no session left and nothing that refers to them (no game, story
//! progress, badge, merge, challenge or chosen name). Bound parameters only; each statement is bounded so one run
//! stays small, and the next run continues. As a safety net for the games' alarms, it also
//! wakes a sample of unfinished games older than an hour (each re-arms its alarm for its
//! deadline, idle end or D1 retry — a due one fires at once — and retries what it owes D1):
//! games made before idle ends existed, or whose alarm was lost, end all the same.
//!
//! Locally: `wrangler dev --test-scheduled`, then `GET /cdn-cgi/handler/scheduled?cron=0+*+*+*+*`.

use service::accounts::STATE_MAX_AGE_MS;
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, Env, Result};

use crate::game_object::WAKE_PATH;

/// Rows deleted per statement and run.
const BATCH: f64 = 5000.0;

/// What one run deleted.
#[derive(Debug, Default)]
pub struct Swept {
    pub sessions: u64,
    pub oauth_states: u64,
    pub guests: u64,
    pub woken: u64,
}

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
    let guests = changes(
        &db,
        "DELETE FROM players WHERE id IN (SELECT p.id FROM players p \
             WHERE p.discord_id IS NULL AND p.rated_at IS NULL AND p.created_at < ?1 \
               AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.player_id = p.id) \
               AND NOT EXISTS (SELECT 1 FROM games g WHERE g.south_player = p.id OR g.north_player = p.id) \
               AND NOT EXISTS (SELECT 1 FROM story_progress sp WHERE sp.player_id = p.id) \
               AND NOT EXISTS (SELECT 1 FROM player_badges pb WHERE pb.player_id = p.id) \
               AND NOT EXISTS (SELECT 1 FROM player_merges m WHERE m.from_id = p.id OR m.into_id = p.id) \
               AND NOT EXISTS (SELECT 1 FROM challenges c WHERE c.poster_id = p.id OR c.accepted_by = p.id) \
               AND NOT EXISTS (SELECT 1 FROM player_names n WHERE n.player_id = p.id) \
             LIMIT ?2)",
        &[now, limit],
    )
    .await?;
    #[derive(serde::Deserialize)]
    struct Game {
        id: String,
    }
    let stale: Vec<Game> = db
        .prepare("SELECT id FROM games WHERE result IS NULL AND created_at < ?1 ORDER BY random() LIMIT ?2")
        .bind(&[JsValue::from_f64((now_ms - 3_600_000) as f64), JsValue::from_f64(WAKE_SAMPLE)])?
        .all()
        .await?
        .results()?;
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
    Ok(Swept { sessions, oauth_states, guests, woken })
}

/// Runs a statement and returns how many rows it changed.
async fn changes(db: &D1Database, sql: &str, args: &[JsValue]) -> Result<u64> {
    let r = db.prepare(sql).bind(args)?.run().await?;
    Ok(r.meta()?.and_then(|m| m.changes).unwrap_or(0) as u64)
}
