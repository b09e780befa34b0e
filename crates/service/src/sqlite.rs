//! Real SQLite as the [`Sql`] port, natively (feature `sqlite`, rusqlite with SQLite
//! bundled): the service's stores run their real statements on the real schema, made by
//! the real `migrations/` in the order `wrangler d1 migrations apply` applies them, with
//! foreign keys enforced as D1 enforces them. What the tests of the stores run on.

use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use crate::sql::{Param, Row, Sql, Stmt, StoreError, StoreResult};

/// A SQLite database (in memory, or a file such as the local runtime's D1 file).
#[derive(Debug)]
pub struct Sqlite {
    conn: Connection,
    /// Statements run, reads and writes (a test checks a page's query count).
    statements: std::cell::Cell<usize>,
}

fn err(e: rusqlite::Error) -> StoreError {
    StoreError(e.to_string())
}

/// The repository's `migrations/`, in the order wrangler applies them (by file name).
pub fn migrations_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations")
}

/// Every migration file of `dir`, sorted by name.
pub fn migration_files(dir: &Path) -> StoreResult<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| StoreError(format!("{}: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sql"))
        .collect();
    files.sort();
    Ok(files)
}

impl Sqlite {
    /// An empty in-memory database with foreign keys on.
    pub fn empty() -> StoreResult<Sqlite> {
        Sqlite::wrap(Connection::open_in_memory().map_err(err)?)
    }

    /// A database file (created if absent), foreign keys on.
    pub fn open(path: &Path) -> StoreResult<Sqlite> {
        Sqlite::wrap(Connection::open(path).map_err(err)?)
    }

    fn wrap(conn: Connection) -> StoreResult<Sqlite> {
        conn.execute_batch("PRAGMA foreign_keys = ON").map_err(err)?;
        Ok(Sqlite { conn, statements: std::cell::Cell::new(0) })
    }

    /// An in-memory database made by the real migrations, in order.
    pub fn migrated() -> StoreResult<Sqlite> {
        let db = Sqlite::empty()?;
        for file in migration_files(&migrations_dir())? {
            db.execute_file(&file)?;
        }
        Ok(db)
    }

    /// Runs every statement of a SQL file (a migration, `schema.sql`).
    pub fn execute_file(&self, file: &Path) -> StoreResult<()> {
        let sql =
            std::fs::read_to_string(file).map_err(|e| StoreError(format!("{}: {e}", file.display())))?;
        self.conn.execute_batch(&sql).map_err(|e| StoreError(format!("{}: {e}", file.display())))
    }

    /// The connection itself, for a test to arrange or inspect rows directly.
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Statements run through the port so far.
    pub fn statements(&self) -> usize {
        self.statements.get()
    }

    fn prepare(&self, stmt: &Stmt) -> StoreResult<rusqlite::Statement<'_>> {
        self.statements.set(self.statements.get() + 1);
        let mut s = self.conn.prepare(&stmt.sql).map_err(err)?;
        for (i, p) in stmt.params.iter().enumerate() {
            let r = match p {
                Param::Null => s.raw_bind_parameter(i + 1, rusqlite::types::Null),
                Param::Int(v) => s.raw_bind_parameter(i + 1, v),
                Param::Real(v) => s.raw_bind_parameter(i + 1, v),
                Param::Text(v) => s.raw_bind_parameter(i + 1, v),
            };
            r.map_err(err)?;
        }
        Ok(s)
    }

    fn query(&self, stmt: &Stmt) -> StoreResult<Vec<Row>> {
        let mut s = self.prepare(stmt)?;
        let names: Vec<String> = s.column_names().map(str::to_owned).collect();
        let mut rows = s.raw_query();
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(err)? {
            let mut r = Row::new();
            for (i, name) in names.iter().enumerate() {
                let v = match row.get_ref(i).map_err(err)? {
                    ValueRef::Null => serde_json::Value::Null,
                    ValueRef::Integer(n) => n.into(),
                    ValueRef::Real(x) => x.into(),
                    ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned().into(),
                    ValueRef::Blob(_) => return Err(StoreError(format!("column {name}: a blob"))),
                };
                r.insert(name.clone(), v);
            }
            out.push(r);
        }
        Ok(out)
    }

    fn execute(&self, stmt: &Stmt) -> StoreResult<u64> {
        let mut s = self.prepare(stmt)?;
        // A write with RETURNING yields rows; the changes are what matter here.
        if s.column_count() > 0 {
            let mut rows = s.raw_query();
            while rows.next().map_err(err)?.is_some() {}
            drop(rows);
            return Ok(self.conn.changes());
        }
        Ok(s.raw_execute().map_err(err)? as u64)
    }
}

impl Sql for Sqlite {
    async fn all(&self, stmt: Stmt) -> StoreResult<Vec<Row>> {
        self.query(&stmt)
    }

    async fn run(&self, stmt: Stmt) -> StoreResult<u64> {
        self.execute(&stmt)
    }

    async fn batch(&self, stmts: Vec<Stmt>) -> StoreResult<Vec<u64>> {
        // One transaction, as a D1 batch is: the first failure rolls back them all.
        let tx = self.conn.unchecked_transaction().map_err(err)?;
        let mut changes = Vec::with_capacity(stmts.len());
        for stmt in &stmts {
            changes.push(self.execute(stmt)?);
        }
        tx.commit().map_err(err)?;
        Ok(changes)
    }
}

/// A Durable Object's own storage, natively: the same statements on SQLite.
impl crate::local::LocalSql for Sqlite {
    fn all(&self, sql: &str, params: Vec<Param>) -> StoreResult<Vec<Row>> {
        self.query(&Stmt { sql: sql.to_owned().into(), params })
    }

    fn run(&self, sql: &str, params: Vec<Param>) -> StoreResult<()> {
        self.execute(&Stmt { sql: sql.to_owned().into(), params }).map(|_| ())
    }
}

/// Drives a future of the port to its end. SQLite never waits, so every future over
/// [`Sqlite`] is ready at its first poll; a future that is not is a bug in the caller.
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut f = std::pin::pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => panic!("a future over SQLite waited"),
    }
}
