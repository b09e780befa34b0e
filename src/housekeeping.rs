//! The scheduled handler (Cron Trigger, hourly in wrangler.toml): the sweep of D1
//! (`service::db::housekeeping::sweep`: expired sessions, stale sign-in states, legacy
//! names keyed, empty guests' push subscriptions then those guests, bounded per run),
//! then the unfinished games it picked are woken through their Durable Objects (each
//! re-arms its alarm for its deadline, idle end or D1 retry — a due one fires at once —
//! and retries what it owes D1): games made before idle ends existed, or whose alarm was
//! lost, end all the same.
//!
//! Locally: `wrangler dev --test-scheduled`, then `GET /cdn-cgi/handler/scheduled?cron=0+*+*+*+*`.

use worker::{Env, Result};

use crate::d1::D1;
use crate::game_object::WAKE_PATH;

pub use service::db::housekeeping::Swept;

pub async fn run(env: &Env, now_ms: i64) -> Result<Swept> {
    let db = env.d1("DB")?;
    let mut swept = service::db::housekeeping::sweep(&D1(&db), now_ms)
        .await
        .map_err(|e| worker::Error::RustError(e.0))?;
    for (id, name) in &swept.clashes {
        worker::console_warn!(
            "legacy display name of player {id} ({name:?}) has a key another player holds: left as it is"
        );
    }
    for id in &swept.stale {
        match crate::router::internal_call(env, id, WAKE_PATH, &()).await {
            Ok(mut r) => {
                // Read the answer to the end: an unread body keeps the event open.
                let body = r.text().await.unwrap_or_default();
                if r.status_code() == 200 {
                    swept.woken += 1;
                } else {
                    worker::console_error!("waking game {id} answered {}: {body}", r.status_code());
                }
            }
            Err(e) => worker::console_error!("waking game {id} failed: {e}"),
        }
    }
    Ok(swept)
}
