//! Notifications out of the service: Web Push (RFC 8030 push with VAPID, RFC 8292, and
//! `aes128gcm`, RFC 8291; the crypto is [`crate::push`], the statements
//! [`crate::db::push`]) and Discord direct messages from the game's bot (`POST
//! /users/@me/channels` for the DM channel, then `POST /channels/{id}/messages`), for the
//! same events. Every failure is logged; a game is never held up by a push service or
//! Discord. A subscription the push service answers 404/410 for is removed.
//!
//! Configuration: `VAPID_PRIVATE_KEY` (a secret; 32-byte P-256 scalar, base64url; push is
//! off without it), `VAPID_SUBJECT` (a `mailto:` or `https:` contact), for local tests
//! only `PUSH_ALLOW_HTTP = "on"`; `DISCORD_BOT_TOKEN` (a secret; DMs are off without it)
//! and `DISCORD_API_BASE` (tests point it at the local stand-in Discord).

use serde_json::json;

use crate::db::discord_dm as dm;
use crate::db::push::{self as store, Delivery};
use crate::error::{ApiError, ErrorCode};
use crate::host::{self, Host, HostRandom, Outgoing};
use crate::http::Method;
use crate::local::LocalSql;
use crate::model::GameRecord;
use crate::push::{self, Notice, Subscription, Vapid};

/// The VAPID key, if configured.
pub fn vapid(h: &impl Host) -> Option<Vapid> {
    let raw = host::var(h, "VAPID_PRIVATE_KEY")?;
    match Vapid::from_private(&raw) {
        Ok(v) => Some(v),
        Err(e) => {
            // The reason only, never the key.
            h.log(&format!("VAPID_PRIVATE_KEY is not usable: {e}"));
            None
        }
    }
}

pub fn allow_http(h: &impl Host) -> bool {
    h.var("PUSH_ALLOW_HTTP").is_some_and(|v| v.trim() == "on")
}

pub fn bot_token(h: &impl Host) -> Option<String> {
    host::var(h, "DISCORD_BOT_TOKEN")
}

pub fn discord_api(h: &impl Host) -> String {
    h.var("DISCORD_API_BASE").unwrap_or_else(|| "https://discord.com/api/v10".into())
}

/// After a change of a game (in its Durable Object, `local` its storage): the
/// notifications it owes (each change notified once, remembered in the object's storage),
/// for [`send_all`].
pub fn after_change(local: &impl LocalSql, rec: &GameRecord) -> Vec<Notice> {
    store::after_change(local, rec)
}

/// Sends game `game`'s notices. The game's object runs this after it has answered (the
/// Worker's `waitUntil`): the request that made the change never waits on a push service
/// or on Discord, which a player can point at a slow server of their own.
pub async fn send_all(h: &impl Host, notices: &[Notice], game: &str) {
    for n in notices {
        send(h, n, game).await;
    }
}

/// One notice, as a push to each of the player's subscriptions and as a Discord DM.
pub async fn send(h: &impl Host, n: &Notice, game: &str) {
    if let Some(v) = vapid(h) {
        if let Err(e) = push_all(h, &v, n).await {
            h.log(&format!("push for game {game} failed: {e}"));
        }
    }
    let text = dm::text(&n.payload);
    if let Err(e) = direct_message(h, &n.player, &text).await {
        h.log(&format!("Discord message ({}) failed: {e}", n.kind));
    }
}

/// Each of the player's subscriptions, oldest first. One that fails (its push service
/// unreachable, or D1 when its answer is recorded) is logged and the rest still get the
/// notice: a dead endpoint must not silence the player's other devices.
async fn push_all(h: &impl Host, vapid: &Vapid, n: &Notice) -> Result<(), ApiError> {
    for sub in store::subscriptions(h.db(), &n.player).await? {
        let answered = match push_one(h, vapid, &sub, &n.payload).await {
            Ok(status) => store::answered(h.db(), &sub.endpoint, status).await.map_err(ApiError::from),
            Err(e) => Err(e),
        };
        match answered {
            Ok(Delivery::Refused(status)) => {
                h.log(&format!("push service answered {status} ({} notice)", n.kind))
            }
            Ok(_) => {}
            // The reason only: an endpoint is a capability URL, never logged.
            Err(e) => h.log(&format!("push ({} notice) failed: {e}", n.kind)),
        }
    }
    Ok(())
}

/// One push (RFC 8030 section 5): the encrypted payload, with VAPID authorization.
async fn push_one(h: &impl Host, vapid: &Vapid, sub: &Subscription, payload: &[u8]) -> Result<u16, ApiError> {
    let body = push::encrypt(payload, sub, &mut HostRandom(h))?;
    let subject = h.var("VAPID_SUBJECT").unwrap_or_else(|| "mailto:admin@localhost".into());
    let auth = vapid
        .authorization(&sub.endpoint, &subject, h.now_ms() / 1000)
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let headers = vec![
        ("Authorization", auth),
        ("Content-Encoding", "aes128gcm".into()),
        ("Content-Type", "application/octet-stream".into()),
        ("TTL", "86400".into()),
        ("Urgency", "normal".into()),
    ];
    let req = Outgoing { method: Method::Post, url: sub.endpoint.clone(), headers, body };
    let (status, _) = h.fetch(req).await.map_err(|e| ApiError::new(ErrorCode::PushFailed, e))?;
    Ok(status)
}

/// Sends `text` to `player` (a seat's id: merged guests resolve to their account) if they
/// opted in and are signed in with Discord (`crate::db::discord_dm::recipient`).
async fn direct_message(h: &impl Host, player: &str, text: &str) -> Result<(), ApiError> {
    let Some(token) = bot_token(h) else { return Ok(()) };
    let Some(discord_id) = dm::recipient(h.db(), player).await? else { return Ok(()) };
    let base = discord_api(h);
    let channel =
        bot_call(h, &token, &format!("{base}/users/@me/channels"), &json!({ "recipient_id": discord_id }))
            .await?;
    let id =
        channel["id"].as_str().ok_or_else(|| ApiError::new(ErrorCode::DiscordFailed, "no DM channel"))?;
    bot_call(h, &token, &format!("{base}/channels/{id}/messages"), &json!({ "content": text })).await?;
    Ok(())
}

async fn bot_call(
    h: &impl Host,
    token: &str,
    url: &str,
    body: &serde_json::Value,
) -> Result<serde_json::Value, ApiError> {
    let bad = |why: String| ApiError::new(ErrorCode::DiscordFailed, why);
    let headers =
        vec![("Authorization", format!("Bot {token}")), ("Content-Type", "application/json".into())];
    let req =
        Outgoing { method: Method::Post, url: url.to_owned(), headers, body: body.to_string().into_bytes() };
    let (status, body) = h.fetch(req).await.map_err(bad)?;
    if !(200..300).contains(&status) {
        return Err(bad(format!("Discord answered {status}")));
    }
    serde_json::from_slice(&body).map_err(|e| bad(e.to_string()))
}
