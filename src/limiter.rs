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
                // (after the decision: the await cannot split it). An alarm already set
                // is left: when it fires it looks for what still counts and, if anything
                // does, comes back then (an alarm set is a row written; reading one is
                // not).
                let storage = self.state.storage();
                if storage.get_alarm().await?.is_none() {
                    storage.set_alarm(forget_in_ms).await?;
                }
                Response::from_json(&decision)
            }
            Err(e) => glue::error(&e),
        }
    }

    async fn alarm(&self) -> Result<Response> {
        let storage = self.state.storage();
        let now = crate::host::now_ms();
        match service::local::limiter_forget_at(&DoSql(&self.sql)) {
            // A hit or lease made since the alarm was set still counts: forget it later.
            Ok(Some(at)) if at > now => storage.set_alarm(at - now + 1000).await?,
            Ok(_) => storage.delete_all().await?,
            // Unreadable: keep everything and look again (forgetting early would let a
            // client past its limit).
            Err(e) => {
                worker::console_error!("limiter: its storage could not be read: {}", e.0);
                storage.set_alarm(60_000).await?;
            }
        }
        Response::ok("")
    }
}
