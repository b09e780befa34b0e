//! The rate limiter: one Durable Object per bucket (`create:ip:<hmac>`, `create:all`,
//! `join:ip:<hmac>`, `ai:ip:<hmac>`, `ws:ip:<hmac>`), and per address bucket the count
//! of its open WebSockets over all games (`wsopen:ip:<hmac prefix>`, leases by game:
//! `service::guard::ws_acquire`). A Durable Object runs one event at
//! a time, and the read-decide-write below has no await in it, so parallel requests
//! cannot all pass on the same count (the D1 count they replace could be raced: 22
//! parallel creates passed a limit of 20). The rule is `service::guard::hit`.

use service::guard::{self, Decision, Rate, WS_LEASE_MS};
use service::ports::Limiter as LimiterPort;
use service::ApiError;
use worker::{
    durable_object, DurableObject, Env, Method, Request, RequestInit, Response, Result, SqlStorage, State,
};

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
        let q = |k: &str| url.query_pairs().find(|(n, _)| n == k).and_then(|(_, v)| v.parse::<i64>().ok());
        if url.path() == WS_ACQUIRE || url.path() == WS_REPORT {
            let game = url.query_pairs().find(|(n, _)| n == "game").map(|(_, v)| v.into_owned());
            let (Some(game), Some(count)) = (game, q("count")) else {
                return Response::error("game and count are required", 400);
            };
            let count = count.clamp(0, u32::MAX as i64) as u32;
            let cap = q("cap").map(|c| c.clamp(0, u32::MAX as i64) as u32);
            let decision = self.sockets(&game, count, cap, glue::now_ms())?;
            // Every lease lapses by then: the object forgets the bucket.
            self.state.storage().set_alarm(WS_LEASE_MS + 1000).await?;
            return Response::from_json(&decision);
        }
        let (Some(limit), Some(window_ms)) = (q("limit"), q("window_ms")) else {
            return Response::error("limit and window_ms are required", 400);
        };
        let rate = Rate { limit: limit.clamp(0, u32::MAX as i64) as u32, window_ms: window_ms.max(1) };
        let decision = self.hit(glue::now_ms(), rate)?;
        // Once a window passes with no hit, the object forgets the bucket (after the
        // decision: the await cannot split it).
        self.state.storage().set_alarm(rate.window_ms + 1000).await?;
        Response::from_json(&decision)
    }

    async fn alarm(&self) -> Result<Response> {
        self.state.storage().delete_all().await?;
        Response::ok("")
    }
}

const WS_ACQUIRE: &str = "/ws/acquire";
const WS_REPORT: &str = "/ws/report";

impl Limiter {
    /// The bucket's socket leases (`service::local::sockets`): synchronous storage only,
    /// atomic within this object.
    fn sockets(&self, game: &str, count: u32, cap: Option<u32>, now: i64) -> Result<Decision> {
        service::local::sockets(&DoSql(&self.sql), game, count, cap, now, WS_LEASE_MS).map_err(stored)
    }

    /// One hit (`service::local::hit`): synchronous storage only, atomic within this object.
    fn hit(&self, now: i64, rate: Rate) -> Result<Decision> {
        service::local::hit(&DoSql(&self.sql), now, rate).map_err(stored)
    }
}

fn stored(e: service::sql::StoreError) -> worker::Error {
    worker::Error::RustError(e.0)
}

/// One hit on bucket `name`: `Ok` if allowed, 503 `server_busy` with `Retry-After`
/// otherwise (also when the limiter cannot be reached: refusing is the safe side).
pub async fn hit(env: &Env, name: &str, rate: Rate, why: &str) -> std::result::Result<(), ApiError> {
    let unavailable = |e: worker::Error| {
        worker::console_error!("limiter {name} unavailable: {e}");
        guard::busy("the limiter is unavailable", 5)
    };
    let ns = env.durable_object("LIMITER").map_err(unavailable)?;
    let stub = ns.id_from_name(name).map_err(unavailable)?.get_stub().map_err(unavailable)?;
    let mut init = RequestInit::new();
    init.with_method(Method::Post);
    let url = format!("https://limiter/hit?limit={}&window_ms={}", rate.limit, rate.window_ms);
    let req = Request::new_with_init(&url, &init).map_err(unavailable)?;
    let mut resp = stub.fetch_with_request(req).await.map_err(unavailable)?;
    let d: Decision = resp.json().await.map_err(unavailable)?;
    if d.allowed {
        Ok(())
    } else {
        Err(guard::busy(why, d.retry_after_s))
    }
}

/// Asks the address bucket `tag`'s limiter for one more open socket in game `game`
/// (which holds `have` from the bucket now): `Ok`, or 503 `server_busy` with
/// `Retry-After` over `cap` (also when the limiter cannot be reached).
pub async fn ws_acquire(
    env: &Env,
    tag: &str,
    game: &str,
    have: u32,
    cap: u32,
) -> std::result::Result<(), ApiError> {
    let q = format!("{WS_ACQUIRE}?game={game}&count={have}&cap={cap}");
    let unavailable = |e: worker::Error| {
        worker::console_error!("socket limiter for {tag} unavailable: {e}");
        guard::busy("the limiter is unavailable", 5)
    };
    let d = ws_call(env, tag, &q).await.map_err(unavailable)?;
    if d.allowed {
        Ok(())
    } else {
        Err(guard::busy("too many live connections open from your address", d.retry_after_s))
    }
}

/// Tells the address bucket `tag`'s limiter how many sockets game `game` holds open
/// from it (after a close); a failure is logged (the lease lapses on its own).
pub async fn ws_report(env: &Env, tag: &str, game: &str, count: u32) {
    let q = format!("{WS_REPORT}?game={game}&count={count}");
    if let Err(e) = ws_call(env, tag, &q).await {
        worker::console_error!("socket limiter for {tag}: report failed: {e}");
    }
}

async fn ws_call(env: &Env, tag: &str, path_and_query: &str) -> Result<Decision> {
    let stub = env.durable_object("LIMITER")?.id_from_name(&format!("wsopen:{tag}"))?.get_stub()?;
    let mut init = RequestInit::new();
    init.with_method(Method::Post);
    let req = Request::new_with_init(&format!("https://limiter{path_and_query}"), &init)?;
    let mut resp = stub.fetch_with_request(req).await?;
    if resp.status_code() != 200 {
        return Err(worker::Error::RustError(format!("limiter answered {}", resp.status_code())));
    }
    resp.json().await
}

/// The keyed hash of the request's client address bucket (see `service::guard`). The
/// key is the `IP_HASH_KEY` secret; without one (local development) a fixed development
/// key is used and the log says so.
pub fn ip_key(req: &Request, env: &Env) -> String {
    let ip = req.headers().get("CF-Connecting-IP").ok().flatten().unwrap_or_default();
    let key = env
        .secret("IP_HASH_KEY")
        .map(|s| s.to_string())
        .or_else(|_| env.var("IP_HASH_KEY").map(|v| v.to_string()))
        .ok()
        .filter(|k| !k.is_empty());
    let key = key.unwrap_or_else(|| {
        worker::console_warn!(
            "IP_HASH_KEY is not set: using the development key (set the secret in production)"
        );
        DEV_IP_HASH_KEY.to_owned()
    });
    guard::ip_key(key.as_bytes(), &ip)
}

/// Only for local runs without the `IP_HASH_KEY` secret.
const DEV_IP_HASH_KEY: &str = "iron-arena-development-ip-hash-key";

/// The rate limiters' objects as the service's `Limiter` port.
pub struct Limiters<'a>(pub &'a Env);

impl LimiterPort for Limiters<'_> {
    async fn hit(&self, name: &str, rate: Rate, why: &str) -> Result<(), ApiError> {
        hit(self.0, name, rate, why).await
    }
}
