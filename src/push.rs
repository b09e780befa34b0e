//! Web Push glue (the crypto and the rules are `service::push`): the application server
//! key, subscribe / unsubscribe per player in D1, and the notifications a game's Durable
//! Object sends after a change (RFC 8030 push with VAPID, RFC 8292, and `aes128gcm`,
//! RFC 8291). A subscription the push service answers 404/410 for is removed.
//!
//! Configuration: the `VAPID_PRIVATE_KEY` secret (32-byte P-256 scalar, base64url; push is
//! off without it), `VAPID_SUBJECT` (a `mailto:` or `https:` contact), and for local tests
//! only `PUSH_ALLOW_HTTP = "on"` (plain-http endpoints of a stand-in push service).

use serde::Deserialize;
use service::model::GameRecord;
use service::push::{self, Notice, PushKey, Seen, Subscribed, Subscription, Unsubscribed, Vapid};
use service::ApiError;
use worker::js_sys::Uint8Array;
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, Env, Method, Request, RequestInit, Response, SqlStorage};

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
            // Bounded per player: the oldest subscriptions beyond the tenth are dropped.
            db.batch(vec![
                db.prepare(
                    "INSERT INTO push_subscriptions (endpoint, player_id, p256dh, auth, created_at) \
                     VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(endpoint) DO UPDATE SET \
                         player_id = excluded.player_id, p256dh = excluded.p256dh, auth = excluded.auth, \
                         created_at = excluded.created_at",
                )
                .bind(&[
                    JsValue::from_str(&sub.endpoint),
                    JsValue::from_str(&player),
                    JsValue::from_str(&sub.keys.p256dh),
                    JsValue::from_str(&sub.keys.auth),
                    JsValue::from_f64(glue::now_ms() as f64),
                ])
                .map_err(internal)?,
                db.prepare(
                    "DELETE FROM push_subscriptions WHERE player_id = ?1 AND endpoint NOT IN \
                     (SELECT endpoint FROM push_subscriptions WHERE player_id = ?1 ORDER BY created_at DESC LIMIT 10)",
                )
                .bind(&[JsValue::from_str(&player)])
                .map_err(internal)?,
            ])
            .await
            .map_err(internal)?;
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
            let Some(player) = crate::accounts::current_player(req, &db).await? else {
                return json(&Unsubscribed { unsubscribed: false }, None);
            };
            let done = db
                .prepare("DELETE FROM push_subscriptions WHERE endpoint = ?1 AND player_id = ?2")
                .bind(&[JsValue::from_str(&body.endpoint), JsValue::from_str(&player.id)])
                .map_err(internal)?
                .run()
                .await
                .map_err(internal)?;
            let n = done.meta().ok().flatten().and_then(|m| m.changes).unwrap_or(0);
            json(&Unsubscribed { unsubscribed: n > 0 }, None)
        }
        (_, "/api/push/key" | "/api/me/push" | "/api/me/push/unsubscribe") => {
            Err(ApiError::new(405, "method_not_allowed", "wrong method for this route"))
        }
        _ => Err(ApiError::not_found(format!("no route {path}"))),
    }
}

const SEEN_TABLE: &str =
    "CREATE TABLE IF NOT EXISTS push_seen (id INTEGER PRIMARY KEY CHECK (id = 1), seen TEXT NOT NULL)";

fn load_seen(sql: &SqlStorage) -> Option<Seen> {
    #[derive(Deserialize)]
    struct Row {
        seen: String,
    }
    let _ = sql.exec(SEEN_TABLE, None);
    let rows: Vec<Row> = sql.exec("SELECT seen FROM push_seen WHERE id = 1", None).ok()?.to_array().ok()?;
    rows.first().and_then(|r| serde_json::from_str(&r.seen).ok())
}

fn store_seen(sql: &SqlStorage, seen: &Seen) {
    let Ok(text) = serde_json::to_string(seen) else { return };
    let _ = sql.exec(SEEN_TABLE, None);
    let _ = sql.exec(
        "INSERT INTO push_seen (id, seen) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET seen = excluded.seen",
        vec![text.into()],
    );
}

/// After a change of a game (in its Durable Object): works out the notifications (each
/// change notified once, remembered in the object's storage) and sends them. Failures
/// are logged; the game is never held up by a push service.
pub async fn after_change(env: &Env, sql: &SqlStorage, rec: &GameRecord) {
    if rec.mode != service::model::Mode::Link {
        return;
    }
    let (notices, seen) = push::notices(load_seen(sql), rec);
    store_seen(sql, &seen);
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
    let v: serde_json::Value = serde_json::from_slice(&n.payload).unwrap_or_default();
    let text = format!(
        "Iron Arena: {}: {} ({})",
        v["title"].as_str().unwrap_or_default(),
        v["body"].as_str().unwrap_or_default(),
        v["url"].as_str().unwrap_or_default()
    );
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

#[derive(Deserialize)]
struct SubRow {
    endpoint: String,
    p256dh: String,
    auth: String,
}

async fn notify(env: &Env, db: &D1Database, vapid: &Vapid, n: &Notice) -> Res<()> {
    // The seat may name a guest since merged into an account: its subscriptions are the
    // account's.
    let subs: Vec<SubRow> = glue::d1_rows(
        db,
        "SELECT endpoint, p256dh, auth FROM push_subscriptions \
         WHERE player_id = COALESCE((SELECT into_id FROM player_merges WHERE from_id = ?1), ?1) LIMIT 10",
        &[JsValue::from_str(&n.player)],
    )
    .await
    .map_err(internal)?;
    for s in subs {
        let sub = Subscription {
            endpoint: s.endpoint.clone(),
            keys: push::Keys { p256dh: s.p256dh, auth: s.auth },
        };
        let status = send(env, vapid, &sub, &n.payload).await?;
        if status == 404 || status == 410 {
            db.prepare("DELETE FROM push_subscriptions WHERE endpoint = ?1")
                .bind(&[JsValue::from_str(&s.endpoint)])
                .map_err(internal)?
                .run()
                .await
                .map_err(internal)?;
        } else if !(200..300).contains(&status) {
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
        .map_err(|e| ApiError::new(502, "push_failed", e.to_string()))?;
    Ok(resp.status_code())
}
