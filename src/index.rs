//! The D1 index of games: one row per game (match-up, mode, timestamps, result), used
//! for capacity counts, statistics, player pages and ratings, and what a finished game
//! owes the players (story progress, ratings: rules in `service::players`). Only bound
//! parameters reach SQL.

use service::create::Load;
use service::model::GameRecord;
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, Result};

/// Counts for the capacity check: unfinished games overall, and those of this creator
/// (the games its player sits in; without a session, those created from its address
/// bucket). The per-minute rates are the limiter's (`crate::limiter`).
pub async fn load(db: &D1Database, ip_hash: &str, creator: Option<&str>) -> Result<Load> {
    #[derive(serde::Deserialize)]
    struct Row {
        mine: u32,
        active: u32,
    }
    let row: Option<Row> = db
        .prepare(
            "SELECT (SELECT COUNT(*) FROM games WHERE result IS NULL AND CASE WHEN ?2 IS NULL \
                       THEN creator_ip_hash = ?1 ELSE (south_player = ?2 OR north_player = ?2) END) AS mine, \
                    (SELECT COUNT(*) FROM games WHERE result IS NULL) AS active",
        )
        .bind(&[JsValue::from_str(ip_hash), opt_str(creator)])?
        .first(None)
        .await?;
    Ok(row.map_or_else(Load::default, |r| Load { active_games: r.active, open_by_creator: r.mine }))
}

fn opt_str(s: Option<&str>) -> JsValue {
    s.map_or(JsValue::NULL, JsValue::from_str)
}

/// Writes the game's row (idempotent: safe to repeat after a failure). Two flushes of a
/// game can be in flight at once (its Durable Object takes requests while D1 is awaited)
/// and land in either order, so an older snapshot never overwrites a newer row: a
/// finished row is final, and an unfinished one only moves forward in plies.
pub async fn upsert(db: &D1Database, rec: &GameRecord, ip_hash: Option<&str>) -> Result<()> {
    let result = rec.result.as_ref();
    db.prepare(
        "INSERT INTO games (id, south_faction, north_faction, mode, days_per_move, creator_ip_hash, \
                            created_at, finished_at, result, winner, reason, plies, south_player, north_player) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, \
                 (SELECT id FROM players WHERE id = COALESCE((SELECT into_id FROM player_merges WHERE from_id = ?13), ?13)), \
                 (SELECT id FROM players WHERE id = COALESCE((SELECT into_id FROM player_merges WHERE from_id = ?14), ?14))) \
         ON CONFLICT(id) DO UPDATE SET finished_at = excluded.finished_at, result = excluded.result, \
             winner = excluded.winner, reason = excluded.reason, plies = excluded.plies, \
             south_player = COALESCE(excluded.south_player, south_player), \
             north_player = COALESCE(excluded.north_player, north_player) \
         WHERE games.result IS NULL AND excluded.plies >= games.plies",
    )
    .bind(&[
        JsValue::from_str(&rec.id),
        JsValue::from_str(rec.south.name()),
        JsValue::from_str(rec.north.name()),
        JsValue::from_str(match rec.mode {
            service::model::Mode::Ai => "ai",
            service::model::Mode::Link => "link",
        }),
        rec.days_per_move.map_or(JsValue::NULL, |d| JsValue::from_f64(f64::from(d))),
        opt_str(ip_hash),
        JsValue::from_f64(rec.created_at as f64),
        result.map_or(JsValue::NULL, |f| JsValue::from_f64(f.at as f64)),
        opt_str(result.map(|f| f.text.as_str())),
        opt_str(result.and_then(|f| f.winner).map(|w| w.name())),
        opt_str(result.map(|f| f.reason.as_str())),
        JsValue::from_f64(rec.moves.len() as f64),
        opt_str(rec.seats[0].player.as_deref()),
        opt_str(rec.seats[1].player.as_deref()),
    ])?
    .run()
    .await?;
    Ok(())
}

fn stored(e: service::player_store::StoreError) -> worker::Error {
    worker::Error::RustError(e.0)
}

/// A finished story stage: progress and the badge, exactly once
/// (`service::players::record_stage` over the D1 store).
pub async fn record_stage(db: &D1Database, rec: &GameRecord, won: bool, now_ms: i64) -> Result<()> {
    service::players::record_stage(&crate::d1::players(db), rec, won, now_ms).await.map_err(stored)
}

/// A finished rated game: both players' ratings, exactly once, with the compare-and-set
/// on `players.rating_version` (`service::players::apply_rating` over the D1 store). An
/// error (conflicts that outlast the retries, D1 down) leaves it to the outbox's retry.
pub async fn apply_rating(db: &D1Database, rec: &GameRecord, now_ms: i64) -> Result<()> {
    service::players::apply_rating(&crate::d1::players(db), rec, now_ms).await.map_err(stored)
}
