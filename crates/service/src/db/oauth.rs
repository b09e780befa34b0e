//! Pending "Sign in with Discord" states in D1 (`oauth_states`): one row per sign-in
//! started, by the SHA-256 of its `state`, bound to the hash of the browser's session
//! token, with its PKCE verifier. Single-use: the callback deletes the row as it reads it.
//! Rows never taken are swept hourly once past [`crate::accounts::STATE_MAX_AGE_MS`]
//! ([`crate::db::housekeeping`]).

use serde::Deserialize;

use crate::accounts::check_pending;
use crate::error::ApiError;
use crate::sql::{self, int, Sql, Stmt, StoreResult};
use crate::tokens;

/// A sign-in started: `?1` the state's hash, `?2` the session token's, `?3` the
/// verifier, `?4` when.
pub const INSERT: &str =
    "INSERT INTO oauth_states (state_hash, session_hash, verifier, created_at) VALUES (?1, ?2, ?3, ?4)";

/// The state of `?1` taken: deleted, and what it held.
pub const TAKE: &str =
    "DELETE FROM oauth_states WHERE state_hash = ?1 RETURNING session_hash, verifier, created_at";

/// A pending sign-in as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pending {
    pub session_hash: String,
    pub verifier: String,
    pub created_at: i64,
}

/// Stores a sign-in started at `now_ms` by the browser holding session `token`, with its
/// `state` and PKCE `verifier` (both tokens stored by hash only).
pub async fn remember(
    db: &impl Sql,
    state: &str,
    token: &str,
    verifier: &str,
    now_ms: i64,
) -> StoreResult<()> {
    db.run(Stmt::new(INSERT).bind(tokens::hash(state)).bind(tokens::hash(token)).bind(verifier).bind(now_ms))
        .await?;
    Ok(())
}

/// Takes (deletes and returns) the pending sign-in of `state_hash`, if any.
pub async fn take(db: &impl Sql, state_hash: &str) -> StoreResult<Option<Pending>> {
    #[derive(Deserialize)]
    struct Row {
        session_hash: String,
        verifier: String,
        created_at: f64,
    }
    let row: Option<Row> = sql::first(db, Stmt::new(TAKE).bind(state_hash)).await?;
    Ok(row.map(|r| Pending {
        session_hash: r.session_hash,
        verifier: r.verifier,
        created_at: int(r.created_at),
    }))
}

/// At the callback: takes the sign-in of `state` (single-use, whatever the outcome) and
/// checks it ([`check_pending`]: it exists, this browser's session `token_hash` started
/// it, within the age limit); its PKCE verifier, or 403 `bad_state`.
pub async fn take_checked(
    db: &impl Sql,
    state: &str,
    token_hash: &str,
    now_ms: i64,
) -> Result<String, ApiError> {
    let pending = take(db, &tokens::hash(state)).await?;
    check_pending(pending.as_ref().map(|p| (p.session_hash.as_str(), p.created_at)), token_hash, now_ms)?;
    Ok(pending.map(|p| p.verifier).unwrap_or_default()) // Some: checked
}
