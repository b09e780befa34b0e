//! Web Push subscriptions in D1 (one row per browser that opted in, per player), and the
//! statements of the `push_seen` table a game's Durable Object keeps in its own SQLite
//! storage (each change notified once). The crypto and the notices are
//! [`crate::push`]; the sending (a `fetch` to the push service) is the Worker's.

use serde::Deserialize;

use crate::local::LocalSql;
use crate::model::{GameRecord, Mode};
use crate::push::{Keys, Notice, Seen, Subscription, Unsubscribed};
use crate::sql::{self, Param, Sql, Stmt, StoreResult};

/// The subscriptions a player keeps: the oldest beyond these are dropped.
pub const MAX_PER_PLAYER: usize = 10;

/// A browser's subscription (re)stored for `?2`: an endpoint moves to the player that
/// subscribed it last, with its new keys.
pub const UPSERT: &str = "INSERT INTO push_subscriptions (endpoint, player_id, p256dh, auth, created_at) \
                     VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(endpoint) DO UPDATE SET \
                         player_id = excluded.player_id, p256dh = excluded.p256dh, auth = excluded.auth, \
                         created_at = excluded.created_at";

/// The player's subscriptions beyond its ten newest, deleted.
pub const TRIM: &str = "DELETE FROM push_subscriptions WHERE player_id = ?1 AND endpoint NOT IN \
                     (SELECT endpoint FROM push_subscriptions WHERE player_id = ?1 ORDER BY created_at DESC LIMIT 10)";

/// A browser's unsubscribe: only the player's own endpoint.
pub const UNSUBSCRIBE: &str = "DELETE FROM push_subscriptions WHERE endpoint = ?1 AND player_id = ?2";

/// A seat's subscriptions: the seat may name a guest since merged into an account, whose
/// subscriptions are then the account's.
pub const FOR_PLAYER: &str = concat!(
    "SELECT endpoint, p256dh, auth FROM push_subscriptions WHERE player_id = ",
    super::resolved!("?1"),
    " ORDER BY created_at, endpoint LIMIT 10"
);

/// An endpoint the push service no longer knows, deleted.
pub const FORGET: &str = "DELETE FROM push_subscriptions WHERE endpoint = ?1";

/// Subscribes `sub` (validated: [`Subscription::validate`]) for `player`, at `now_ms`,
/// in one batch with the trim to the player's [`MAX_PER_PLAYER`] newest.
pub async fn subscribe(db: &impl Sql, player: &str, sub: &Subscription, now_ms: i64) -> StoreResult<()> {
    db.batch(vec![
        Stmt::new(UPSERT)
            .bind(sub.endpoint.as_str())
            .bind(player)
            .bind(sub.keys.p256dh.as_str())
            .bind(sub.keys.auth.as_str())
            .bind(now_ms),
        Stmt::new(TRIM).bind(player),
    ])
    .await?;
    Ok(())
}

/// `POST /api/me/push/unsubscribe`: whether a subscription of this player was removed
/// (none without a session, `player` `None`).
pub async fn unsubscribe(db: &impl Sql, player: Option<&str>, endpoint: &str) -> StoreResult<Unsubscribed> {
    let Some(player) = player else { return Ok(Unsubscribed { unsubscribed: false }) };
    let n = db.run(Stmt::new(UNSUBSCRIBE).bind(endpoint).bind(player)).await?;
    Ok(Unsubscribed { unsubscribed: n > 0 })
}

/// The subscriptions to notify for a seat's `player` (through a merge: see
/// [`FOR_PLAYER`]), at most [`MAX_PER_PLAYER`].
pub async fn subscriptions(db: &impl Sql, player: &str) -> StoreResult<Vec<Subscription>> {
    #[derive(Deserialize)]
    struct SubRow {
        endpoint: String,
        p256dh: String,
        auth: String,
    }
    let rows: Vec<SubRow> = sql::rows(db, Stmt::new(FOR_PLAYER).bind(player)).await?;
    Ok(rows
        .into_iter()
        .map(|s| Subscription { endpoint: s.endpoint, keys: Keys { p256dh: s.p256dh, auth: s.auth } })
        .collect())
}

/// Deletes the subscription of `endpoint`; how many rows went.
pub async fn forget(db: &impl Sql, endpoint: &str) -> StoreResult<u64> {
    db.run(Stmt::new(FORGET).bind(endpoint)).await
}

/// What a push service's answer to one push means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// 2xx.
    Delivered,
    /// 404 or 410: the subscription has expired or was withdrawn; it has been deleted.
    Gone,
    /// Any other status: kept, and worth a log line.
    Refused(u16),
}

/// Records a push service's answer `status` for `endpoint`: a subscription it answers
/// 404 or 410 for is removed (RFC 8030 section 7.3).
pub async fn answered(db: &impl Sql, endpoint: &str, status: u16) -> StoreResult<Delivery> {
    if status == 404 || status == 410 {
        forget(db, endpoint).await?;
        return Ok(Delivery::Gone);
    }
    Ok(if (200..300).contains(&status) { Delivery::Delivered } else { Delivery::Refused(status) })
}

/// The Durable Object's table of what was notified (one row), made when first used.
pub const SEEN_TABLE: &str =
    "CREATE TABLE IF NOT EXISTS push_seen (id INTEGER PRIMARY KEY CHECK (id = 1), seen TEXT NOT NULL)";

/// Its row (the [`Seen`] as JSON).
pub const SEEN_LOAD: &str = "SELECT seen FROM push_seen WHERE id = 1";

/// Its row replaced; `?` is the [`Seen`] as JSON.
pub const SEEN_STORE: &str =
    "INSERT INTO push_seen (id, seen) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET seen = excluded.seen";

/// What the game's object last notified about ([`SEEN_LOAD`]); none when the table or
/// the row is missing or unreadable (the change is then first seen:
/// [`crate::push::notices`] notifies nothing). Made when first used.
pub fn load_seen(local: &impl LocalSql) -> Option<Seen> {
    #[derive(Deserialize)]
    struct Row {
        seen: String,
    }
    let _ = local.run(SEEN_TABLE, Vec::new());
    let rows = local.all(SEEN_LOAD, Vec::new()).ok()?;
    let row: Row = sql::read(rows.into_iter().next()?).ok()?;
    serde_json::from_str(&row.seen).ok()
}

/// Remembers `seen` ([`SEEN_STORE`]); a failure is ignored (at worst a change is
/// notified again).
pub fn store_seen(local: &impl LocalSql, seen: &Seen) {
    let Ok(text) = serde_json::to_string(seen) else { return };
    let _ = local.run(SEEN_TABLE, Vec::new());
    let _ = local.run(SEEN_STORE, vec![Param::Text(text)]);
}

/// After a change of a game, in its Durable Object (`local`: the object's storage): the
/// notifications it calls for ([`crate::push::notices`]), each change notified once
/// (what was seen is stored before anything is sent). AI games notify nothing.
pub fn after_change(local: &impl LocalSql, rec: &GameRecord) -> Vec<Notice> {
    if rec.mode != Mode::Link {
        return Vec::new();
    }
    let (notices, seen) = crate::push::notices(load_seen(local), rec);
    store_seen(local, &seen);
    notices
}
