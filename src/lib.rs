//! Iron Arena's Cloudflare Workers module: thin glue between the `worker` runtime and
//! the pure `service` crate (which decides everything) over the `engine` crate.
//!
//! - [`router`]: the fetch entry: `/api/*` routes, game creation, forwarding each game's
//!   requests to its Durable Object; everything else is a static asset from `public/`.
//! - [`game_object`]: the Durable Object class, one per game, the only writer of it.
//! - [`lobby`]: the Durable Object pushing the open-challenge list to home pages.
//! - `net` (feature `net`): the network AI, loaded lazily once per isolate.
//! - [`limiter`]: the Durable Object of a rate bucket.
//! - [`host`]: the runtime as the service's `Host` port (D1, objects, fetch, vars).
//! - [`glue`]: conversions between `worker` and `service` types, randomness, time.

// The Worker is wasm32 only: elsewhere (the native builds of tests/, which talk to it over
// HTTP) the crate is empty, and its dependencies are wasm32-only in Cargo.toml.
#![cfg(target_arch = "wasm32")]

mod config;
mod d1;
mod do_sql;
mod game_object;
mod glue;
mod guard;
mod host;
mod limiter;
mod lobby;
#[cfg(feature = "net")]
mod net;
mod router;

use worker::{event, Context, Env, Request, Response, Result};

pub use game_object::GameObject;
pub use limiter::Limiter;
pub use lobby::Lobby;

#[event(start)]
fn start() {
    // A panic would poison the isolate; handlers return errors instead, and if one ever
    // slips through, its message reaches the log.
    console_error_panic_hook::set_once();
}

#[event(fetch)]
async fn fetch(req: Request, env: Env, _ctx: Context) -> Result<Response> {
    router::handle(req, env).await
}

/// The Cron Trigger (wrangler.toml `[triggers]`): housekeeping of D1
/// (`service::api::housekeeping`). Locally: `wrangler dev --test-scheduled`, then
/// `GET /cdn-cgi/handler/scheduled?cron=0+*+*+*+*`.
#[event(scheduled)]
async fn scheduled(_event: worker::ScheduledEvent, env: Env, _ctx: worker::ScheduleContext) {
    let swept = match host::WorkerHost::new(&env) {
        Ok(host) => service::api::housekeeping::run(&host).await,
        Err(e) => Err(e),
    };
    match swept {
        Ok(s) => worker::console_log!("{}", service::api::housekeeping::summary(&s)),
        Err(e) => worker::console_error!("housekeeping failed: {e}"),
    }
}
