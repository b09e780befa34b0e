//! Web Push glue (the crypto and the rules are `service::push`, the statements
//! `service::db::push`): the application server key, subscribe / unsubscribe per player
//! in D1, and the notifications a game's Durable Object sends after a change (RFC 8030
//! push with VAPID, RFC 8292, and `aes128gcm`, RFC 8291). A subscription the push
//! service answers 404/410 for is removed.
//!
//! Configuration: the `VAPID_PRIVATE_KEY` secret (32-byte P-256 scalar, base64url; push is
//! off without it), `VAPID_SUBJECT` (a `mailto:` or `https:` contact), and for local tests
//! only `PUSH_ALLOW_HTTP = "on"` (plain-http endpoints of a stand-in push service).

use serde::Deserialize;
use service::db::push::{self as store, Delivery};
use service::model::GameRecord;
use service::push::{self, Notice, PushKey, Subscribed, Subscription, Vapid};
use service::{ApiError, ErrorCode};
use worker::js_sys::Uint8Array;
use worker::{D1Database, Env, Method, Request, RequestInit, Response, SqlStorage};

use crate::d1::D1;
use crate::do_sql::DoSql;
use crate::glue::{self, storage as internal, OsRandom, Res};

/// The VAPID key, if configured (a secret; a plain var in local tests).
fn vapid(env: &Env) -> Option<Vapid> {
    let raw = env
        .secret("VAPID_PRIVATE_KEY")
        .map(|v| v.to_string())
        .or_else(|_| env.var("VAPID_PRIVATE_KEY").map(|v| v.to_string()))
        .ok()?;
    if raw.trim().is_empty() {
        return None;
    }
    match Vapid::from_private(&raw) {
        Ok(v) => Some(v),
        Err(e) => {
            // The reason only, never the key.
            worker::console_error!("VAPID_PRIVATE_KEY is not usable: {e}");
            None
        }
    }
}

fn subject(env: &Env) -> String {
    env.var("VAPID_SUBJECT").map(|v| v.to_string()).unwrap_or_else(|_| "mailto:admin@localhost".into())
}

fn allow_http(env: &Env) -> bool {
    env.var("PUSH_ALLOW_HTTP").is_ok_and(|v| v.to_string().trim() == "on")
}

fn json(v: &impl serde::Serialize, cookie: Option<&str>) -> Res<Response> {
    crate::accounts::with_cookie(
        Response::from_json(v).map_err(|e| ApiError::internal(e.to_string()))?,
        cookie,
    )
}

/// `GET /api/push/key`, `POST /api/me/push` (subscribe), `POST /api/me/push/unsubscribe`.
pub async fn handle(req: &mut Request, env: &Env, path: &str) -> Res<Response> {
    match (req.method(), path) {
        (Method::Get, "/api/push/key") => {
            let key = vapid(env).map(|v| v.public_key());
            json(&PushKey { available: key.is_some(), public_key: key }, None)
        }
        (Method::Post, "/api/me/push") => {
            #[derive(Deserialize)]
            #[serde(deny_unknown_fields)]
            struct Body {
                subscription: Subscription,
            }
            let api = glue::api_request(req).await?;
            let body: Body = service::http::parse_json(&api.body)?;
            let sub = body.subscription.validate(allow_http(env))?;
            if vapid(env).is_none() {
                // Not a server failure: this server simply offers no notifications.
                return Err(ApiError::not_found("notifications are not offered by this server"));
            }
            let db = env.d1("DB").map_err(internal)?;
            let (player, cookie) = crate::accounts::player_or_guest(req, &db).await?;
            store::subscribe(&D1(&db), &player, &sub, glue::now_ms()).await?;
            json(&Subscribed { subscribed: true }, cookie.as_deref())
        }
        (Method::Post, "/api/me/push/unsubscribe") => {
            #[derive(Deserialize)]
            #[serde(deny_unknown_fields)]
            struct Body {
                endpoint: String,
            }
            let api = glue::api_request(req).await?;
            let body: Body = service::http::parse_json(&api.body)?;
            let db = env.d1("DB").map_err(internal)?;
            let player = crate::accounts::current_player(req, &db).await?;
            let done =
                store::unsubscribe(&D1(&db), player.as_ref().map(|p| p.id.as_str()), &body.endpoint).await?;
            json(&done, None)
        }
        (_, "/api/push/key" | "/api/me/push" | "/api/me/push/unsubscribe") => {
            Err(ApiError::new(ErrorCode::MethodNotAllowed, "wrong method for this route"))
        }
        _ => Err(ApiError::not_found(format!("no route {path}"))),
    }
}

/// After a change of a game (in its Durable Object): works out the notifications (each
/// change notified once, remembered in the object's storage) and sends them. Failures
/// are logged; the game is never held up by a push service.
pub async fn after_change(env: &Env, sql: &SqlStorage, rec: &GameRecord) {
    let notices = store::after_change(&DoSql(sql), rec);
    if notices.is_empty() {
        return;
    }
    let Ok(db) = env.d1("DB") else { return };
    let vapid = vapid(env);
    for n in notices {
        if let Some(v) = &vapid {
            if let Err(e) = notify(env, &db, v, &n).await {
                worker::console_error!("push for game {} failed: {e}", rec.id);
            }
        }
        direct_message(env, &db, &n).await;
    }
}

/// The same notice as a Discord direct message, for players who opted in.
async fn direct_message(env: &Env, db: &D1Database, n: &Notice) {
    let text = service::db::discord_dm::text(&n.payload);
    if let Err(e) = crate::discord_dm::send(env, db, &n.player, &text).await {
        worker::console_error!("Discord message ({}) failed: {e}", n.kind);
    }
}

/// One notification to a player outside a game's change (an accepted challenge).
pub async fn notify_player(env: &Env, player: &str, kind: &'static str, game: &str, title: &str, body: &str) {
    let Ok(db) = env.d1("DB") else { return };
    let n = Notice { player: player.to_owned(), kind, payload: push::message(kind, game, title, body) };
    if let Some(vapid) = vapid(env) {
        if let Err(e) = notify(env, &db, &vapid, &n).await {
            worker::console_error!("push for game {game} failed: {e}");
        }
    }
    direct_message(env, &db, &n).await;
}

async fn notify(env: &Env, db: &D1Database, vapid: &Vapid, n: &Notice) -> Res<()> {
    for sub in store::subscriptions(&D1(db), &n.player).await? {
        let status = send(env, vapid, &sub, &n.payload).await?;
        if let Delivery::Refused(status) = store::answered(&D1(db), &sub.endpoint, status).await? {
            worker::console_error!("push service answered {status} ({} notice)", n.kind);
        }
    }
    Ok(())
}

/// One push (RFC 8030 section 5): the encrypted payload, with VAPID authorization.
async fn send(env: &Env, vapid: &Vapid, sub: &Subscription, payload: &[u8]) -> Res<u16> {
    let body = push::encrypt(payload, sub, &mut OsRandom)?;
    let now_s = glue::now_ms() / 1000;
    let auth = vapid
        .authorization(&sub.endpoint, &subject(env), now_s)
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let mut init = RequestInit::new();
    init.with_method(Method::Post).with_body(Some(Uint8Array::from(body.as_slice()).into()));
    let req = Request::new_with_init(&sub.endpoint, &init).map_err(internal)?;
    let h = req.headers();
    let set = |k: &str, v: &str| h.set(k, v).map_err(|e| ApiError::internal(e.to_string()));
    set("Authorization", &auth)?;
    set("Content-Encoding", "aes128gcm")?;
    set("Content-Type", "application/octet-stream")?;
    set("TTL", "86400")?;
    set("Urgency", "normal")?;
    let resp = worker::Fetch::Request(req)
        .send()
        .await
        .map_err(|e| ApiError::new(ErrorCode::PushFailed, e.to_string()))?;
    Ok(resp.status_code())
}
