//! The open challenges' statements (table `challenges`, migration 0005). The rules of
//! posting and accepting are [`crate::challenge`]; the saga that turns an acceptance
//! into a game is [`crate::sagas::challenges`].

use serde::Deserialize;

use crate::challenge::{ChallengeView, PostChallenge, Poster};
use crate::sql::{self, int, Sql, Stmt, StoreResult};

/// An open challenge as stored.
#[derive(Clone, Debug, Deserialize)]
pub struct ChallengeRow {
    pub id: String,
    pub poster_id: String,
    pub poster_name: Option<String>,
    /// The posted [`PostChallenge`], as JSON.
    pub spec: String,
    pub created_at: f64,
    pub expires_at: f64,
}

impl ChallengeRow {
    /// The row as listed; `None` for a spec this version cannot read.
    pub fn view(&self) -> Option<ChallengeView> {
        let spec: PostChallenge = serde_json::from_str(&self.spec).ok()?;
        Some(ChallengeView {
            id: self.id.clone(),
            poster: Poster { id: self.poster_id.clone(), name: self.poster_name.clone() },
            south: spec.south,
            north: spec.north,
            seat: spec.seat,
            days_per_move: spec.days_per_move,
            rated: spec.rated,
            created_at: int(self.created_at),
            expires_at: int(self.expires_at),
        })
    }
}

/// The open challenges at `now`, newest first (at most 50).
pub async fn open(db: &impl Sql, now: i64) -> StoreResult<Vec<ChallengeRow>> {
    sql::rows(
        db,
        Stmt::new(
            "SELECT c.id, c.poster_id, p.display_name AS poster_name, c.spec, c.created_at, c.expires_at \
             FROM challenges c LEFT JOIN players p ON p.id = c.poster_id \
             WHERE c.game_id IS NULL AND c.expires_at > ?1 ORDER BY c.created_at DESC LIMIT 50",
        )
        .bind(now),
    )
    .await
}

/// A player's and an address's challenges, as the posting limits count them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct PostCounts {
    /// The player's open challenges.
    pub open: u32,
    /// The player's posts since `since`.
    pub posted: u32,
    /// The address bucket's posts since `since`.
    pub by_address: u32,
    /// The address bucket's open challenges.
    #[serde(default)]
    pub open_by_address: u32,
}

pub async fn post_counts(
    db: &impl Sql,
    player: &str,
    ip_hash: &str,
    now: i64,
    since: i64,
) -> StoreResult<PostCounts> {
    let stmt = Stmt::new(
        "SELECT (SELECT COUNT(*) FROM challenges WHERE poster_id = ?1 AND game_id IS NULL AND expires_at > ?2) AS open, \
                (SELECT COUNT(*) FROM challenges WHERE poster_id = ?1 AND created_at > ?3) AS posted, \
                (SELECT COUNT(*) FROM challenges WHERE ip_hash = ?4 AND created_at > ?3) AS by_address, \
                (SELECT COUNT(*) FROM challenges WHERE ip_hash = ?4 AND game_id IS NULL AND expires_at > ?2) AS open_by_address",
    )
    .bind(player)
    .bind(now)
    .bind(since)
    .bind(ip_hash);
    Ok(sql::first(db, stmt).await?.unwrap_or_default())
}

/// A new challenge.
#[derive(Clone, Debug, PartialEq)]
pub struct NewChallenge<'a> {
    pub id: &'a str,
    pub poster: &'a str,
    pub spec_json: &'a str,
    pub ip_hash: &'a str,
    pub created_at: i64,
    pub expires_at: i64,
}

/// The caps a post must stay under, checked by the insert itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PostCaps {
    /// Open challenges of the poster.
    pub open_per_player: u32,
    /// Open challenges from the poster's address bucket.
    pub open_per_address: u32,
    /// Posts of the poster since `since`.
    pub posts_per_player: u32,
    /// Posts from the address bucket since `since`.
    pub posts_per_address: u32,
    pub since: i64,
}

/// Inserts the challenge only if the poster and the address are under every cap: the
/// counts and the insert are one statement, which D1 (one writer) runs as a whole, so
/// parallel posts cannot all pass on the same counts. Whether it was inserted.
pub async fn insert_under(db: &impl Sql, c: &NewChallenge<'_>, caps: PostCaps) -> StoreResult<bool> {
    let stmt = Stmt::new(
        "INSERT INTO challenges (id, poster_id, spec, ip_hash, created_at, expires_at) \
         SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE \
           (SELECT COUNT(*) FROM challenges WHERE poster_id = ?2 AND game_id IS NULL AND expires_at > ?5) < ?7 \
           AND (SELECT COUNT(*) FROM challenges WHERE ip_hash = ?4 AND game_id IS NULL AND expires_at > ?5) < ?8 \
           AND (SELECT COUNT(*) FROM challenges WHERE poster_id = ?2 AND created_at > ?9) < ?10 \
           AND (SELECT COUNT(*) FROM challenges WHERE ip_hash = ?4 AND created_at > ?9) < ?11",
    )
    .bind(c.id)
    .bind(c.poster)
    .bind(c.spec_json)
    .bind(c.ip_hash)
    .bind(c.created_at)
    .bind(c.expires_at)
    .bind(i64::from(caps.open_per_player))
    .bind(i64::from(caps.open_per_address))
    .bind(caps.since)
    .bind(i64::from(caps.posts_per_player))
    .bind(i64::from(caps.posts_per_address));
    Ok(db.run(stmt).await? == 1)
}

/// An open challenge's poster and spec.
#[derive(Clone, Debug, Deserialize)]
pub struct OpenChallenge {
    pub poster_id: String,
    pub spec: String,
}

/// Challenge `id` if it is still open at `now`.
pub async fn find_open(db: &impl Sql, id: &str, now: i64) -> StoreResult<Option<OpenChallenge>> {
    let stmt = Stmt::new(
        "SELECT poster_id, spec FROM challenges WHERE id = ?1 AND game_id IS NULL AND expires_at > ?2",
    )
    .bind(id)
    .bind(now);
    sql::first(db, stmt).await
}

/// Claims challenge `id` for `game`, atomically: of two accepters, one wins (`true`).
pub async fn claim(db: &impl Sql, id: &str, game: &str, accepter: &str, now: i64) -> StoreResult<bool> {
    let stmt = Stmt::new(
        "UPDATE challenges SET game_id = ?1, accepted_by = ?2 WHERE id = ?3 AND game_id IS NULL AND expires_at > ?4",
    )
    .bind(game)
    .bind(accepter)
    .bind(id)
    .bind(now);
    Ok(db.run(stmt).await? == 1)
}

/// Releases a claim whose game was not made, so that someone can accept it again.
pub async fn release(db: &impl Sql, id: &str, game: &str) -> StoreResult<()> {
    let stmt =
        Stmt::new("UPDATE challenges SET game_id = NULL, accepted_by = NULL WHERE id = ?1 AND game_id = ?2")
            .bind(id)
            .bind(game);
    db.run(stmt).await?;
    Ok(())
}

/// A claim whose accept died before its game was made (`challenge`, `game`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct StaleClaim {
    pub id: String,
    pub game_id: String,
}

/// The claims of unexpired challenges whose accept died between the claim and the game
/// (the Worker stopped mid-request; a failure it saw released its claim at once), at most
/// `limit`: no index row for the game, and no reservation for it younger than
/// [`crate::db::index::RESERVATION_MS`]. The accept reserved the game's place before the
/// claim and the game's index row replaces the reservation, so a claim with neither has no
/// creation under way: an accept lasts one request, well under a reservation's age.
pub async fn stale_claims(db: &impl Sql, now: i64, limit: i64) -> StoreResult<Vec<StaleClaim>> {
    let stmt = Stmt::new(
        "SELECT c.id, c.game_id FROM challenges c \
         WHERE c.game_id IS NOT NULL AND c.expires_at > ?1 \
           AND NOT EXISTS (SELECT 1 FROM games g WHERE g.id = c.game_id) \
           AND NOT EXISTS (SELECT 1 FROM creation_reservations r WHERE r.game_id = c.game_id AND r.created_at >= ?2) \
         ORDER BY c.created_at LIMIT ?3",
    )
    .bind(now)
    .bind(now - crate::db::index::RESERVATION_MS)
    .bind(limit);
    sql::rows(db, stmt).await
}

/// Deletes the poster's own open challenge `id`; whether there was one.
pub async fn cancel(db: &impl Sql, id: &str, poster: &str) -> StoreResult<bool> {
    let stmt = Stmt::new("DELETE FROM challenges WHERE id = ?1 AND poster_id = ?2 AND game_id IS NULL")
        .bind(id)
        .bind(poster);
    Ok(db.run(stmt).await? == 1)
}
