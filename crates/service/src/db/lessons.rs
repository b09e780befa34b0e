//! The lessons a player has completed (`lesson_progress`, migration 0011): the answers
//! of `GET /api/me/lessons` and `PUT /api/me/lessons/{id}`, for the session's player.
//! Which lessons exist is `crate::lessons` (a path's id is checked there before any
//! statement runs, so a player has at most one row per lesson).

use serde::Deserialize;

use crate::error::{ApiError, ErrorCode};
use crate::lessons::{self, Lessons};
use crate::sql::{self, Sql, Stmt, StoreResult};

/// The lessons `?1` completed.
pub const COMPLETED: &str = "SELECT lesson_id FROM lesson_progress WHERE player_id = ?1";

/// `?2` completed by `?1` at `?3`: once (a repeat keeps the first time).
pub const RECORD: &str =
    "INSERT INTO lesson_progress (player_id, lesson_id, completed_at) VALUES (?1, ?2, ?3) \
     ON CONFLICT (player_id, lesson_id) DO NOTHING";

/// Progress is the session's player's: without a session there is nobody to keep it for
/// (the client keeps it in the browser only). Reading never makes a guest, and neither
/// does this write: a lesson played signed out is no reason for a player row.
fn signed_in(player: Option<&str>) -> Result<&str, ApiError> {
    player.ok_or_else(|| {
        ApiError::new(ErrorCode::Unauthorized, "lesson progress is kept for a session's player: none here")
    })
}

/// The lessons `player` completed, in the lessons' order.
pub async fn completed(db: &impl Sql, player: &str) -> StoreResult<Lessons> {
    #[derive(Deserialize)]
    struct Row {
        lesson_id: String,
    }
    let rows: Vec<Row> = sql::rows(db, Stmt::new(COMPLETED).bind(player)).await?;
    let stored: Vec<String> = rows.into_iter().map(|r| r.lesson_id).collect();
    Ok(Lessons::from_stored(&stored))
}

/// `GET /api/me/lessons` for the session's `player` (`None`: no session, 401).
pub async fn get(db: &impl Sql, player: Option<&str>) -> Result<Lessons, ApiError> {
    Ok(completed(db, signed_in(player)?).await?)
}

/// `PUT /api/me/lessons/{lesson}`: 404 for a lesson that does not exist (checked first:
/// nothing is stored for it), 401 without a session; then the completion recorded at
/// `now_ms` unless it already was, and the player's list as it now stands.
pub async fn put(
    db: &impl Sql,
    player: Option<&str>,
    lesson: &str,
    now_ms: i64,
) -> Result<Lessons, ApiError> {
    let lesson = lessons::find(lesson)?;
    let player = signed_in(player)?;
    db.run(Stmt::new(RECORD).bind(player).bind(lesson).bind(now_ms)).await?;
    Ok(completed(db, player).await?)
}
