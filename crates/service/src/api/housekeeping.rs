//! The scheduled handler (Cron Trigger, hourly in wrangler.toml): the sweep of D1
//! (`crate::db::housekeeping::sweep`: expired sessions, stale sign-in states, legacy
//! names keyed, empty guests' push subscriptions then those guests, bounded per run), then
//! the unfinished games it picked are woken through their objects (each re-arms its alarm
//! for its deadline, idle end or D1 retry — a due one fires at once — and retries what it
//! owes D1): games made before idle ends existed, or whose alarm was lost, end all the
//! same. Last, the challenges whose accept died between its claim and its game are
//! offered again (`crate::sagas::challenges::release_stale_claims`).

use crate::db::housekeeping::{sweep, Swept};
use crate::error::ApiError;
use crate::host::Host;
use crate::objects::{GameObjects, Notifications};
use crate::ports::paths;

pub async fn run(h: &impl Host) -> Result<Swept, ApiError> {
    let mut swept = sweep(h.db(), h.now_ms()).await?;
    for (id, name) in &swept.clashes {
        h.log(&format!(
            "legacy display name of player {id} ({name:?}) has a key another player holds: left as it is"
        ));
    }
    for id in &swept.stale {
        match GameObjects(h).call(id, paths::WAKE, &()).await {
            Ok((200, _)) => swept.woken += 1,
            Ok((status, body)) => h.log(&format!("waking game {id} answered {status}: {body}")),
            Err(e) => h.log(&format!("waking game {id} failed: {e:?}")),
        }
    }
    let released = crate::sagas::challenges::release_stale_claims(
        h.db(),
        &GameObjects(h),
        &Notifications(h),
        h.now_ms(),
    )
    .await?;
    swept.claims_released = u64::from(released);
    Ok(swept)
}

/// The run's summary line for the log.
pub fn summary(s: &Swept) -> String {
    format!(
        "housekeeping: {} expired sessions, {} sign-in states, {} empty guests deleted \
         (with {} push subscriptions); {} games woken; {} legacy names keyed, {} left by a clash; \
         {} challenges offered again after an accept died",
        s.sessions,
        s.oauth_states,
        s.guests,
        s.guest_subscriptions,
        s.woken,
        s.names_keyed,
        s.name_clashes,
        s.claims_released
    )
}
