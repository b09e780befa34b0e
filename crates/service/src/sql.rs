//! The SQL port: what the service needs of a SQL database, and nothing more.
//!
//! Every statement the service runs is written in the service (the stores over this
//! port, e.g. [`crate::sql_players`]), with its parameters bound (`?1`, `?2`, …; never
//! spliced into the text). An adapter only executes them: D1 in the Worker
//! (`src/d1.rs`), and natively real SQLite over the same `migrations/` with foreign keys
//! on (the `sqlite` feature, [`crate::sqlite`]), so the SQL that ships is the SQL the
//! native tests run.
//!
//! Rows arrive as JSON objects (column name → value) because that is D1's own form; a
//! store reads them into typed rows with serde. Numbers may arrive as floats (D1 returns
//! JavaScript numbers), so row structs read numbers as `f64` or through [`int`].
//!
//! The trait is async because D1 is; the Worker is single-threaded (wasm), so the
//! futures need no `Send` bound.

use std::borrow::Cow;

use serde::de::DeserializeOwned;

/// A storage failure (the database unreachable, a statement refused): answered 503
/// `storage_unavailable`, its text logged and never shown to a client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError(pub String);

impl StoreError {
    /// Whether a write failed on a `UNIQUE` or `PRIMARY KEY` constraint (SQLite's own
    /// text, which D1 passes on): a lost race for a key, not an outage.
    pub fn is_unique_violation(&self) -> bool {
        self.0.contains("UNIQUE constraint failed")
    }
}

impl core::fmt::Display for StoreError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreError {}

pub type StoreResult<T> = Result<T, StoreError>;

/// A value bound to a statement's parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum Param {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

impl From<&str> for Param {
    fn from(v: &str) -> Param {
        Param::Text(v.to_owned())
    }
}

impl From<&String> for Param {
    fn from(v: &String) -> Param {
        Param::Text(v.clone())
    }
}

impl From<String> for Param {
    fn from(v: String) -> Param {
        Param::Text(v)
    }
}

impl From<i64> for Param {
    fn from(v: i64) -> Param {
        Param::Int(v)
    }
}

impl From<u32> for Param {
    fn from(v: u32) -> Param {
        Param::Int(i64::from(v))
    }
}

impl From<usize> for Param {
    fn from(v: usize) -> Param {
        Param::Int(i64::try_from(v).unwrap_or(i64::MAX))
    }
}

impl From<f64> for Param {
    fn from(v: f64) -> Param {
        Param::Real(v)
    }
}

impl<T: Into<Param>> From<Option<T>> for Param {
    fn from(v: Option<T>) -> Param {
        v.map_or(Param::Null, Into::into)
    }
}

/// One statement and its bound parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub sql: Cow<'static, str>,
    pub params: Vec<Param>,
}

impl Stmt {
    pub fn new(sql: impl Into<Cow<'static, str>>) -> Stmt {
        Stmt { sql: sql.into(), params: Vec::new() }
    }

    /// Binds the next parameter (`?1` first).
    #[must_use]
    pub fn bind(mut self, p: impl Into<Param>) -> Stmt {
        self.params.push(p.into());
        self
    }
}

/// A row: column name → value.
pub type Row = serde_json::Map<String, serde_json::Value>;

/// A SQL database: D1, or SQLite natively.
#[allow(async_fn_in_trait)] // single-threaded wasm: callers never need the futures to be Send
pub trait Sql {
    /// Every row of a query.
    async fn all(&self, stmt: Stmt) -> StoreResult<Vec<Row>>;
    /// A write; the number of rows it changed.
    async fn run(&self, stmt: Stmt) -> StoreResult<u64>;
    /// The statements in one transaction, all or nothing; each one's changed rows.
    async fn batch(&self, stmts: Vec<Stmt>) -> StoreResult<Vec<u64>>;
}

/// A borrowed database is one too (a store over `&Sqlite` in the tests).
impl<T: Sql> Sql for &T {
    async fn all(&self, stmt: Stmt) -> StoreResult<Vec<Row>> {
        (**self).all(stmt).await
    }

    async fn run(&self, stmt: Stmt) -> StoreResult<u64> {
        (**self).run(stmt).await
    }

    async fn batch(&self, stmts: Vec<Stmt>) -> StoreResult<Vec<u64>> {
        (**self).batch(stmts).await
    }
}

/// The most parameters D1 binds to one statement (SQLite allows more; the service keeps
/// to D1's limit everywhere so the native tests see the statements that ship).
pub const MAX_PARAMS: usize = 100;

/// Reads a row into a typed row struct.
pub fn read<T: DeserializeOwned>(row: Row) -> StoreResult<T> {
    serde_json::from_value(serde_json::Value::Object(row))
        .map_err(|e| StoreError(format!("unexpected row: {e}")))
}

/// Every row of a query, typed.
pub async fn rows<T: DeserializeOwned>(db: &impl Sql, stmt: Stmt) -> StoreResult<Vec<T>> {
    db.all(stmt).await?.into_iter().map(read).collect()
}

/// The first row of a query, typed.
pub async fn first<T: DeserializeOwned>(db: &impl Sql, stmt: Stmt) -> StoreResult<Option<T>> {
    db.all(stmt).await?.into_iter().next().map(read).transpose()
}

/// Whether a query has a row.
pub async fn exists(db: &impl Sql, stmt: Stmt) -> StoreResult<bool> {
    Ok(!db.all(stmt).await?.is_empty())
}

/// A row as a JavaScript runtime hands it over, its whole numbers made integers again
/// (JavaScript has only floats: `3` may arrive as `3.0`, which a typed row's `i64` or
/// `u32` field would refuse). The adapters pass every row through this.
pub fn integral(mut row: Row) -> Row {
    for v in row.values_mut() {
        if let Some(x) = v
            .as_f64()
            .filter(|x| !v.is_i64() && !v.is_u64() && x.fract() == 0.0 && x.abs() <= 9_007_199_254_740_991.0)
        {
            *v = serde_json::Value::from(x as i64);
        }
    }
    row
}

/// A stored number as an integer (D1's numbers are JavaScript floats).
pub fn int(v: f64) -> i64 {
    v as i64
}

/// `?a, ?a+1, …` for `n` parameters starting at `a` (an `IN (…)` list).
pub fn marks(from: usize, n: usize) -> String {
    (from..from + n).map(|i| format!("?{i}")).collect::<Vec<_>>().join(", ")
}
