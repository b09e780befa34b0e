//! The service's SQL port ([`service::sql::Sql`]) over D1: binds each parameter and runs
//! the statement, nothing else. Every statement is written in the service, where the
//! native tests run the same text on real SQLite over the same migrations.

use service::sql::{integral, Param, Row, Sql, Stmt, StoreError, StoreResult};
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, D1PreparedStatement, D1Result};

/// A D1 database as the SQL port.
pub struct D1(pub D1Database);

fn err(e: worker::Error) -> StoreError {
    StoreError(e.to_string())
}

fn value(p: &Param) -> JsValue {
    match p {
        Param::Null => JsValue::NULL,
        // D1 takes JavaScript numbers; integers in the schema's range are exact in f64.
        Param::Int(v) => JsValue::from_f64(*v as f64),
        Param::Real(v) => JsValue::from_f64(*v),
        Param::Text(v) => JsValue::from_str(v),
    }
}

fn changes(r: &D1Result) -> u64 {
    r.meta().ok().flatten().and_then(|m| m.changes).map_or(0, |c| c as u64)
}

impl D1 {
    fn prepare(&self, stmt: &Stmt) -> StoreResult<D1PreparedStatement> {
        let args: Vec<JsValue> = stmt.params.iter().map(value).collect();
        self.0.prepare(stmt.sql.as_ref()).bind(&args).map_err(err)
    }
}

impl Sql for D1 {
    async fn all(&self, stmt: Stmt) -> StoreResult<Vec<Row>> {
        let rows = self.prepare(&stmt)?.all().await.map_err(err)?.results::<Row>().map_err(err)?;
        Ok(rows.into_iter().map(integral).collect())
    }

    async fn run(&self, stmt: Stmt) -> StoreResult<u64> {
        Ok(changes(&self.prepare(&stmt)?.run().await.map_err(err)?))
    }

    async fn batch(&self, stmts: Vec<Stmt>) -> StoreResult<Vec<u64>> {
        let prepared = stmts.iter().map(|s| self.prepare(s)).collect::<StoreResult<Vec<_>>>()?;
        Ok(self.0.batch(prepared).await.map_err(err)?.iter().map(changes).collect())
    }
}
