//! A Durable Object's SQLite storage as the service's [`LocalSql`] port: binds the
//! parameters and runs the statement (every statement is written in `service::local`).

use service::local::LocalSql;
use service::sql::{integral, Param, Row, StoreError, StoreResult};
use worker::{SqlStorage, SqlStorageValue};

pub struct DoSql<'a>(pub &'a SqlStorage);

fn value(p: Param) -> SqlStorageValue {
    match p {
        Param::Null => SqlStorageValue::Null,
        Param::Int(v) => SqlStorageValue::Integer(v),
        Param::Real(v) => SqlStorageValue::Float(v),
        Param::Text(v) => SqlStorageValue::String(v),
    }
}

fn err(e: worker::Error) -> StoreError {
    StoreError(e.to_string())
}

impl LocalSql for DoSql<'_> {
    fn all(&self, sql: &str, params: Vec<Param>) -> StoreResult<Vec<Row>> {
        let rows: Vec<Row> = self
            .0
            .exec(sql, params.into_iter().map(value).collect::<Vec<_>>())
            .and_then(|c| c.to_array())
            .map_err(err)?;
        Ok(rows.into_iter().map(integral).collect())
    }

    fn run(&self, sql: &str, params: Vec<Param>) -> StoreResult<()> {
        self.0.exec(sql, params.into_iter().map(value).collect::<Vec<_>>()).map(|_| ()).map_err(err)
    }
}
