//! The D1 index of games: one row per game (match-up, mode, timestamps, result), used
//! for capacity counts, statistics, player pages and ratings. Written by the game's
//! Durable Object at its creation, after changes and at its end.

use serde::Deserialize;

use crate::create::Load;
use crate::model::{GameRecord, Mode};
use crate::sql::{self, int, Sql, Stmt, StoreResult};

/// The capacity counts' statement: `?1` the creator's address hash, `?2` its player. Three
/// counters read by key (kept by the triggers of `migrations/0008_load_counters.sql` in
/// the same statement as the games rows they count), never a scan of the games.
pub const LOAD: &str = "SELECT COALESCE((SELECT n FROM load_counters WHERE key = 'active'), 0) AS active, \
                    COALESCE((SELECT n FROM load_counters WHERE key = 'ip:' || ?1), 0) AS by_address, \
                    COALESCE((SELECT n FROM load_counters WHERE key = 'player:' || ?2), 0) AS by_player";

/// A creation's reservation (migration 0009): `?1` the new game's id, `?2` the creator's
/// address hash, `?3` its player (or NULL), `?4` now; admitted only while the counters it
/// reads stay under `?5` (unfinished games overall), `?6` (of the address bucket) and `?7`
/// (of the player). One statement reads and counts, so parallel creations cannot all pass
/// on the same counts; the row counts until the game's index row replaces it.
pub const RESERVE: &str = "INSERT INTO creation_reservations (game_id, ip_hash, player_id, created_at) \
     SELECT ?1, ?2, ?3, ?4 \
     WHERE COALESCE((SELECT n FROM load_counters WHERE key = 'active'), 0) < ?5 \
       AND COALESCE((SELECT n FROM load_counters WHERE key = 'ip:' || ?2), 0) < ?6 \
       AND (?3 IS NULL OR COALESCE((SELECT n FROM load_counters WHERE key = 'player:' || ?3), 0) < ?7) \
     RETURNING game_id";

/// Releases a reservation whose creation failed (`?1` the game's id).
pub const RELEASE: &str = "DELETE FROM creation_reservations WHERE game_id = ?1";

/// Drops the reservations made before `?1`: their creation crashed half-way (a creation
/// takes well under a second; its game's row would have replaced them).
pub const SWEEP: &str = "DELETE FROM creation_reservations WHERE created_at < ?1";

/// How long a reservation may wait for its game's index row before it is swept.
pub const RESERVATION_MS: i64 = 10 * 60_000;

/// The caps a reservation must stay under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    pub active: u32,
    pub by_address: u32,
    pub by_player: u32,
}

/// Reserves a place for game `game_id` by the creator (`ip_hash`, `player`) if the load
/// counters allow it under `caps`: whether it was admitted. A refusal sweeps reservations
/// older than [`RESERVATION_MS`] (left by crashed creations) and tries once more, so a
/// crash never holds a place for longer.
pub async fn reserve(
    db: &impl Sql,
    game_id: &str,
    ip_hash: &str,
    player: Option<&str>,
    caps: Caps,
    now: i64,
) -> StoreResult<bool> {
    let stmt = || {
        Stmt::new(RESERVE)
            .bind(game_id)
            .bind(ip_hash)
            .bind(player)
            .bind(now)
            .bind(caps.active)
            .bind(caps.by_address)
            .bind(caps.by_player)
    };
    if !db.all(stmt()).await?.is_empty() {
        return Ok(true);
    }
    if db.run(Stmt::new(SWEEP).bind(now - RESERVATION_MS)).await? == 0 {
        return Ok(false);
    }
    Ok(!db.all(stmt()).await?.is_empty())
}

/// Releases game `game_id`'s reservation (its creation failed; idempotent).
pub async fn release(db: &impl Sql, game_id: &str) -> StoreResult<()> {
    db.run(Stmt::new(RELEASE).bind(game_id)).await?;
    Ok(())
}

/// The index row's upsert (see [`upsert`]). The `WHERE` of its update is the rule
/// that an older snapshot never overwrites a newer row, and that the finished one always
/// lands: a game finishes once, and after a take-back it may finish at fewer plies than
/// an unfinished snapshot already wrote.
pub const UPSERT: &str = concat!(
    "INSERT INTO games (id, south_faction, north_faction, mode, days_per_move, creator_ip_hash, \
         created_at, finished_at, result, winner, reason, plies, south_player, north_player) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, (SELECT id FROM players WHERE id = ",
    super::resolved!("?13"),
    "), (SELECT id FROM players WHERE id = ",
    super::resolved!("?14"),
    ")) ON CONFLICT(id) DO UPDATE SET finished_at = excluded.finished_at, result = excluded.result, \
         winner = excluded.winner, reason = excluded.reason, plies = excluded.plies, \
         south_player = COALESCE(excluded.south_player, south_player), \
         north_player = COALESCE(excluded.north_player, north_player) \
     WHERE games.result IS NULL AND (excluded.result IS NOT NULL OR excluded.plies >= games.plies)"
);

fn count(v: f64) -> u32 {
    u32::try_from(int(v)).unwrap_or(0)
}

/// Counts for the capacity check: unfinished games overall, those created from the
/// creator's address bucket, and those its player sits in (`None` without a session). The
/// per-minute rates are the limiters'.
pub async fn load(db: &impl Sql, ip_hash: &str, creator: Option<&str>) -> StoreResult<Load> {
    #[derive(Deserialize)]
    struct Counts {
        active: f64,
        by_address: f64,
        by_player: f64,
    }
    let row: Option<Counts> = sql::first(db, Stmt::new(LOAD).bind(ip_hash).bind(creator)).await?;
    Ok(row.map_or_else(Load::default, |r| Load {
        active_games: count(r.active),
        open_by_address: count(r.by_address),
        open_by_player: creator.map(|_| count(r.by_player)),
    }))
}

/// The stored form of a mode (the schema's CHECK).
pub fn mode(m: Mode) -> &'static str {
    match m {
        Mode::Ai => "ai",
        Mode::Link => "link",
    }
}

/// The index row's statement for `rec` (`ip_hash`: the creator's address bucket, at
/// creation only).
pub fn upsert_stmt(rec: &GameRecord, ip_hash: Option<&str>) -> Stmt {
    let result = rec.result.as_ref();
    Stmt::new(UPSERT)
        .bind(rec.id.as_str())
        .bind(rec.south.name())
        .bind(rec.north.name())
        .bind(mode(rec.mode))
        .bind(rec.days_per_move)
        .bind(ip_hash)
        .bind(rec.created_at)
        .bind(result.map(|f| f.at))
        .bind(result.map(|f| f.text.as_str()))
        .bind(result.and_then(|f| f.winner).map(|w| w.name()))
        .bind(result.map(|f| f.reason.as_str()))
        .bind(rec.moves.len())
        .bind(rec.seats[0].player.as_deref())
        .bind(rec.seats[1].player.as_deref())
}

/// Writes the game's row (idempotent: safe to repeat after a failure). Two flushes of a
/// game can be in flight at once (its Durable Object takes requests while D1 is awaited)
/// and land in either order, so an older snapshot never overwrites a newer row: a
/// finished row is final, a finished snapshot always replaces an unfinished row, and an
/// unfinished one only moves forward in plies. A seat's
/// player is stored as the account a guest was merged into, and only if that player
/// exists; a snapshot without a seat's player keeps the one stored.
pub async fn upsert(db: &impl Sql, rec: &GameRecord, ip_hash: Option<&str>) -> StoreResult<()> {
    db.run(upsert_stmt(rec, ip_hash)).await?;
    Ok(())
}
