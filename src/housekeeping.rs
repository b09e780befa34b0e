//! The scheduled handler (Cron Trigger, hourly in wrangler.toml): deletes expired
//! sessions, sign-in states past their age, and empty guests — guest players (no Discord
//! account) with no session left and nothing that refers to them (no game, story
//! progress, badge or merge). Bound parameters only; each statement is bounded so one run
//! stays small, and the next run continues.
//!
//! Locally: `wrangler dev --test-scheduled`, then `GET /cdn-cgi/handler/scheduled?cron=0+*+*+*+*`.

use service::accounts::STATE_MAX_AGE_MS;
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, Env, Result};

/// Rows deleted per statement and run.
const BATCH: f64 = 5000.0;

/// What one run deleted.
#[derive(Debug, Default, serde::Deserialize)]
pub struct Swept {
    pub sessions: u64,
    pub oauth_states: u64,
    pub guests: u64,
}

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
             LIMIT ?2)",
        &[now, limit],
    )
    .await?;
    Ok(Swept { sessions, oauth_states, guests })
}

/// Runs a statement and returns how many rows it changed.
async fn changes(db: &D1Database, sql: &str, args: &[JsValue]) -> Result<u64> {
    let r = db.prepare(sql).bind(args)?.run().await?;
    Ok(r.meta()?.and_then(|m| m.changes).unwrap_or(0) as u64)
}
