//! The rate limiter: one Durable Object per bucket (`create:ip:<hmac>`, `create:all`,
//! `join:ip:<hmac>`, `ai:ip:<hmac>`, `ws:ip:<hmac>`), and per address bucket the count
//! of its open WebSockets over all games (`wsopen:ip:<hmac prefix>`, leases by game). A
//! Durable Object runs one event at a time, and the read-decide-write of
//! `service::local::limiter_call` has no await in it, so parallel requests cannot all
//! pass on the same count (the D1 count they replace could be raced: 22 parallel creates
//! passed a limit of 20). Its clients are `service::objects::Limiters`.

use worker::{durable_object, DurableObject, Env, Request, Response, Result, SqlStorage, State};

use crate::do_sql::DoSql;
use crate::glue;

// Holds a runtime handle only (SqlStorage), which is not Debug.
#[allow(missing_debug_implementations)]
#[durable_object]
pub struct Limiter {
    state: State,
    sql: SqlStorage,
}

impl DurableObject for Limiter {
    fn new(state: State, _env: Env) -> Self {
        let sql = state.storage().sql();
        Self { state, sql }
    }

    async fn fetch(&self, req: Request) -> Result<Response> {
        let url = req.url()?;
        let call =
            service::local::limiter_call(&DoSql(&self.sql), url.path(), url.query(), crate::host::now_ms());
        match call {
            Ok((decision, forget_in_ms)) => {
                // Once every window and lease has passed, the object forgets the bucket
                // (after the decision: the await cannot split it).
                self.state.storage().set_alarm(forget_in_ms).await?;
                Response::from_json(&decision)
            }
            Err(e) => glue::error(&e),
        }
    }

    async fn alarm(&self) -> Result<Response> {
        self.state.storage().delete_all().await?;
        Response::ok("")
    }
}
