//! A Durable Object's own SQLite storage, and every statement the service runs on it:
//! a game's record ([`LocalGameStore`]) and a rate limiter's bucket ([`hit`],
//! [`sockets`]). The storage is synchronous, so a read-decide-write here has no await in
//! it and an object's requests cannot interleave inside one. The Worker binds the port
//! to `SqlStorage` (`src/do_sql.rs`); natively it is real SQLite ([`crate::sqlite`]).

use serde::Deserialize;

use crate::guard::{self, Decision, Rate, SocketLease};
use crate::model::GameRecord;
use crate::sql::{read, Param, Row, StoreResult};
use crate::store::GameStore;

/// An object's storage (statements with `?` parameters, bound in order).
pub trait LocalSql {
    fn all(&self, sql: &str, params: Vec<Param>) -> StoreResult<Vec<Row>>;
    fn run(&self, sql: &str, params: Vec<Param>) -> StoreResult<()>;
}

impl<T: LocalSql> LocalSql for &T {
    fn all(&self, sql: &str, params: Vec<Param>) -> StoreResult<Vec<Row>> {
        (**self).all(sql, params)
    }

    fn run(&self, sql: &str, params: Vec<Param>) -> StoreResult<()> {
        (**self).run(sql, params)
    }
}

fn rows<T: serde::de::DeserializeOwned>(
    db: &impl LocalSql,
    sql: &str,
    params: Vec<Param>,
) -> StoreResult<Vec<T>> {
    db.all(sql, params)?.into_iter().map(read).collect()
}

/// A game's record: one JSON document in one row, so a save is a single atomic
/// statement.
#[derive(Debug)]
pub struct LocalGameStore<L>(pub L);

impl<L: LocalSql> GameStore for LocalGameStore<L> {
    fn load(&self) -> Result<Option<GameRecord>, String> {
        #[derive(Deserialize)]
        struct Record {
            record: String,
        }
        // A request for a game that does not exist must not create storage for it, so
        // the table is made by the first save only.
        let tables = self
            .0
            .all("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'game'", Vec::new())
            .map_err(|e| e.0)?;
        if tables.is_empty() {
            return Ok(None);
        }
        let rows: Vec<Record> =
            rows(&self.0, "SELECT record FROM game WHERE id = 1", Vec::new()).map_err(|e| e.0)?;
        match rows.first() {
            None => Ok(None),
            Some(r) => serde_json::from_str(&r.record)
                .map(Some)
                .map_err(|e| format!("stored record unreadable: {e}")),
        }
    }

    fn save(&mut self, record: &GameRecord) -> Result<(), String> {
        let json = serde_json::to_string(record).map_err(|e| e.to_string())?;
        self.0
            .run(
                "CREATE TABLE IF NOT EXISTS game (id INTEGER PRIMARY KEY CHECK (id = 1), record TEXT NOT NULL)",
                Vec::new(),
            )
            .map_err(|e| e.0)?;
        self.0
            .run(
                "INSERT INTO game (id, record) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET record = excluded.record",
                vec![Param::Text(json)],
            )
            .map_err(|e| e.0)
    }
}

/// One hit on a rate bucket at `now`: the bucket's hits in the window, the rule
/// ([`guard::hit`]), and the hit recorded if allowed.
pub fn hit(db: &impl LocalSql, now: i64, rate: Rate) -> StoreResult<Decision> {
    hit_n(db, now, rate, 1)
}

/// [`hit`] of weight `n` ([`guard::hit_n`]): one row however heavy the hit (a level-6 AI
/// move weighs 59: a row per unit made the limiters' storage writes the largest line of
/// the bill, docs/capacity.md), with the end of its window (`until`), so that the
/// object's alarm knows when nothing counts any more ([`limiter_forget_at`]). (`hits` and
/// `weighted_hits`, the tables before, are no longer read: their rows were at most one
/// window old at each change.)
pub fn hit_n(db: &impl LocalSql, now: i64, rate: Rate, n: u32) -> StoreResult<Decision> {
    #[derive(Deserialize)]
    struct Hit {
        at: i64,
        n: i64,
    }
    db.run(
        "CREATE TABLE IF NOT EXISTS rate_hits (at INTEGER NOT NULL, n INTEGER NOT NULL, until INTEGER NOT NULL)",
        Vec::new(),
    )?;
    db.run(
        "DELETE FROM rate_hits WHERE at <= ? OR at > ?",
        vec![Param::Int(now - rate.window_ms), Param::Int(now + rate.window_ms)],
    )?;
    let mut hits: Vec<i64> = rows::<Hit>(db, "SELECT at, n FROM rate_hits", Vec::new())?
        .into_iter()
        .flat_map(|h| std::iter::repeat_n(h.at, h.n.clamp(1, i64::from(u32::MAX)) as usize))
        .collect();
    let decision = guard::hit_n(&mut hits, now, rate, n);
    if decision.allowed {
        let n = i64::from(n.max(1));
        db.run(
            "INSERT INTO rate_hits (at, n, until) VALUES (?, ?, ?)",
            vec![Param::Int(now), Param::Int(n), Param::Int(now + rate.window_ms)],
        )?;
    }
    Ok(decision)
}

/// When a limiter object may forget everything it holds: the latest end of a recorded
/// hit's window or of a socket or search lease (`None`: it holds nothing). Its alarm asks
/// this when it fires, so a call needs to set the alarm only when none is set (an alarm
/// set is a storage row written: one per call was a third of an AI move's writes,
/// docs/capacity.md), and a bucket is never forgotten while a hit or lease still counts.
pub fn limiter_forget_at(db: &impl LocalSql) -> StoreResult<Option<i64>> {
    #[derive(Deserialize)]
    struct Latest {
        at: Option<i64>,
    }
    let mut latest: Option<i64> = None;
    for (table, sql) in [
        ("rate_hits", "SELECT MAX(until) AS at FROM rate_hits"),
        ("sockets", "SELECT MAX(expires_at) AS at FROM sockets"),
    ] {
        let exists = !db
            .all(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?",
                vec![Param::Text(table.into())],
            )?
            .is_empty();
        if exists {
            latest = latest.max(rows::<Latest>(db, sql, Vec::new())?.first().and_then(|r| r.at));
        }
    }
    Ok(latest)
}

/// An address bucket's socket leases: with `cap`, one more socket for `game` (which
/// holds `count` open now, [`guard::ws_acquire`]); without, `game`'s report of its open
/// count ([`guard::ws_report`]).
pub fn sockets(
    db: &impl LocalSql,
    game: &str,
    count: u32,
    cap: Option<u32>,
    now: i64,
    lease_ms: i64,
) -> StoreResult<Decision> {
    db.run(
        "CREATE TABLE IF NOT EXISTS sockets (game TEXT PRIMARY KEY, count INTEGER NOT NULL, expires_at INTEGER NOT NULL)",
        Vec::new(),
    )?;
    let mut leases: Vec<SocketLease> = rows(db, "SELECT game, count, expires_at FROM sockets", Vec::new())?;
    let before = leases.clone();
    let decision = match cap {
        Some(cap) => guard::ws_acquire(&mut leases, game, count, now, cap, lease_ms),
        None => {
            guard::ws_report(&mut leases, game, count, now, lease_ms);
            Decision { allowed: true, retry_after_s: 0 }
        }
    };
    if leases != before {
        db.run("DELETE FROM sockets", Vec::new())?;
        for l in &leases {
            db.run(
                "INSERT INTO sockets (game, count, expires_at) VALUES (?, ?, ?)",
                vec![Param::Text(l.game.clone()), Param::Int(i64::from(l.count)), Param::Int(l.expires_at)],
            )?;
        }
    }
    Ok(decision)
}

/// The limiter object's paths (its clients: `crate::objects::Limiters`).
pub mod limiter_paths {
    pub const HIT: &str = "/hit";
    pub const WS_ACQUIRE: &str = "/ws/acquire";
    pub const WS_REPORT: &str = "/ws/report";
}

/// One call to a limiter object ([`limiter_paths`]): a hit
/// (`?limit=&window_ms=`, with `&cost=` its weight, 1 by default), or a lease's acquire
/// (`?game=&count=&cap=`) or report (`?game=&count=`), each lease lasting `&lease_ms=`
/// (a socket's hour by default). The decision, and when the object may forget the bucket (every
/// window or lease passed). 400 `bad_url` for a call without its numbers (only the
/// Worker calls these paths).
pub fn limiter_call(
    db: &impl LocalSql,
    path: &str,
    query: Option<&str>,
    now: i64,
) -> Result<(Decision, i64), crate::ApiError> {
    use limiter_paths::{WS_ACQUIRE, WS_REPORT};
    let pairs: Vec<(String, String)> =
        form_urlencoded::parse(query.unwrap_or_default().as_bytes()).into_owned().collect();
    let text = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let num = |k: &str| text(k).and_then(|v| v.parse::<i64>().ok());
    let u32_of = |v: i64| v.clamp(0, i64::from(u32::MAX)) as u32;
    let missing = |what: &str| crate::ApiError::new(crate::ErrorCode::BadUrl, format!("{what} are required"));
    let stored = |e: crate::sql::StoreError| crate::ApiError::new(crate::ErrorCode::StorageUnavailable, e.0);
    if path == WS_ACQUIRE || path == WS_REPORT {
        let (Some(game), Some(count)) = (text("game"), num("count")) else {
            return Err(missing("game and count"));
        };
        let cap = num("cap").map(u32_of);
        let lease_ms = num("lease_ms").unwrap_or(guard::WS_LEASE_MS).clamp(1, guard::WS_LEASE_MS);
        let decision = sockets(db, &game, u32_of(count), cap, now, lease_ms).map_err(stored)?;
        return Ok((decision, guard::WS_LEASE_MS + 1000));
    }
    let (Some(limit), Some(window_ms)) = (num("limit"), num("window_ms")) else {
        return Err(missing("limit and window_ms"));
    };
    let rate = Rate { limit: u32_of(limit), window_ms: window_ms.max(1) };
    let cost = num("cost").map_or(1, u32_of);
    Ok((hit_n(db, now, rate, cost).map_err(stored)?, rate.window_ms + 1000))
}
