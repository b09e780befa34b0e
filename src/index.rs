//! The D1 index of games (its statements and rules: `service::db::index`): capacity
//! counts, the game's row, and what a finished game owes the players (story progress,
//! ratings: rules in `service::players`), each run on D1 through `crate::d1`.

use service::create::Load;
use service::db::index;
use service::model::GameRecord;
use worker::{D1Database, Result};

use crate::d1::D1;

fn stored(e: service::sql::StoreError) -> worker::Error {
    worker::Error::RustError(e.0)
}

/// Counts for the capacity check (`service::db::index::load`). The per-minute rates are
/// the limiter's (`crate::limiter`).
pub async fn load(db: &D1Database, ip_hash: &str, creator: Option<&str>) -> Result<Load> {
    index::load(&D1(db), ip_hash, creator).await.map_err(stored)
}

/// Writes the game's row (`service::db::index::upsert`: idempotent, and an older
/// snapshot never overwrites a newer row).
pub async fn upsert(db: &D1Database, rec: &GameRecord, ip_hash: Option<&str>) -> Result<()> {
    index::upsert(&D1(db), rec, ip_hash).await.map_err(stored)
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
