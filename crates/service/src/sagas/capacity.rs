//! The capacity check every creation passes before anything is made (a new game, an
//! accepted challenge, a stage, a rematch).

use crate::create::{check_capacity, Limits, MINUTE_MS};
use crate::error::{ApiError, ErrorCode};
use crate::guard::Rate;
use crate::ports::Limiter;
use crate::sql::Sql;

/// Admits one creation by address bucket `ip_hash` for `creator`, in order: the
/// bucket's rate and the overall rate (atomic, in the limiters), then the unfinished
/// games overall and of this creator (D1). The first refusal is the answer.
pub async fn admit(
    limiter: &impl Limiter,
    db: &impl Sql,
    limits: Limits,
    ip_hash: &str,
    creator: Option<&str>,
) -> Result<(), ApiError> {
    let minute = |limit| Rate { limit, window_ms: MINUTE_MS };
    limiter
        .hit(
            &format!("create:ip:{ip_hash}"),
            minute(limits.per_ip_per_minute),
            "too many new games from your address this minute",
        )
        .await?;
    limiter.hit("create:all", minute(limits.overall_per_minute), "too many new games this minute").await?;
    let load = crate::db::index::load(db, ip_hash, creator)
        .await
        .map_err(|e| ApiError::new(ErrorCode::IndexUnavailable, e.to_string()))?;
    check_capacity(load, limits)
}
