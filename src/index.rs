//! The D1 index of games: one row per game (match-up, mode, timestamps, result), used
//! for capacity counts now and for statistics, player pages and ratings later. Only
//! bound parameters reach SQL.

use service::create::Load;
use service::model::GameRecord;
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, Result};

/// Counts for the capacity check: games created in the last minute (by this address
/// and overall) and games not yet finished.
pub async fn load(db: &D1Database, ip_hash: &str, now_ms: i64) -> Result<Load> {
    #[derive(serde::Deserialize)]
    struct Row {
        by_ip: u32,
        overall: u32,
        active: u32,
    }
    let since = JsValue::from_f64((now_ms - 60_000) as f64);
    let row: Option<Row> = db
        .prepare(
            "SELECT \
               (SELECT COUNT(*) FROM games WHERE created_at > ?1 AND creator_ip_hash = ?2) AS by_ip, \
               (SELECT COUNT(*) FROM games WHERE created_at > ?1) AS overall, \
               (SELECT COUNT(*) FROM games WHERE result IS NULL) AS active",
        )
        .bind(&[since, JsValue::from_str(ip_hash)])?
        .first(None)
        .await?;
    Ok(row.map_or_else(Load::default, |r| Load {
        created_last_minute_by_ip: r.by_ip,
        created_last_minute: r.overall,
        active_games: r.active,
    }))
}

fn opt_str(s: Option<&str>) -> JsValue {
    s.map_or(JsValue::NULL, JsValue::from_str)
}

/// Writes the game's row (idempotent: safe to repeat after a failure).
pub async fn upsert(db: &D1Database, rec: &GameRecord, ip_hash: Option<&str>) -> Result<()> {
    let result = rec.result.as_ref();
    db.prepare(
        "INSERT INTO games (id, south_faction, north_faction, mode, days_per_move, creator_ip_hash, \
                            created_at, finished_at, result, winner, reason, plies) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) \
         ON CONFLICT(id) DO UPDATE SET finished_at = excluded.finished_at, result = excluded.result, \
             winner = excluded.winner, reason = excluded.reason, plies = excluded.plies",
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
    ])?
    .run()
    .await?;
    Ok(())
}
