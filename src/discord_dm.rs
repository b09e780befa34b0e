//! Discord notifications (opt-in, for players signed in with Discord): a direct message
//! from the game's bot through Discord's REST API (`POST /users/@me/channels` for the DM
//! channel, then `POST /channels/{id}/messages`), for the same events as Web Push. The bot
//! token is the secret `DISCORD_BOT_TOKEN` (off without it); the API base is
//! `DISCORD_API_BASE` (tests point it at the local stand-in Discord).
//!
//! `GET /api/me/discord-dm` → `{"available", "enabled"}`; `POST /api/me/discord-dm`
//! `{"enabled": bool}`.

use serde::Deserialize;
use serde_json::json;
use service::ApiError;
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, Env, Method, Request, RequestInit, Response};

use crate::glue::{self, storage as internal, Res};

fn bot_token(env: &Env) -> Option<String> {
    env.secret("DISCORD_BOT_TOKEN")
        .map(|v| v.to_string())
        .or_else(|_| env.var("DISCORD_BOT_TOKEN").map(|v| v.to_string()))
        .ok()
        .filter(|t| !t.trim().is_empty())
}

fn api_base(env: &Env) -> String {
    env.var("DISCORD_API_BASE")
        .map(|v| v.to_string())
        .unwrap_or_else(|_| "https://discord.com/api/v10".into())
}

pub async fn handle(req: &mut Request, env: &Env) -> Res<Response> {
    let db = env.d1("DB").map_err(internal)?;
    let player = crate::accounts::current_player(req, &db).await?;
    let linked = player.as_ref().is_some_and(|p| p.linked);
    let available = linked && bot_token(env).is_some();
    let reply = |enabled: bool| {
        Response::from_json(&service::push::DiscordDm { available, enabled })
            .map_err(|e| ApiError::internal(e.to_string()))
    };
    match req.method() {
        Method::Get => {
            let Some(p) = player else { return reply(false) };
            reply(enabled(&db, &p.id).await?)
        }
        Method::Post => {
            #[derive(Deserialize)]
            #[serde(deny_unknown_fields)]
            struct Body {
                enabled: bool,
            }
            let api = glue::api_request(req).await?;
            let body: Body = service::http::parse_json(&api.body)?;
            let p = player.filter(|p| p.linked).ok_or_else(|| {
                ApiError::new(
                    403,
                    "sign_in_required",
                    "Discord messages are for players signed in with Discord",
                )
            })?;
            if bot_token(env).is_none() {
                return Err(ApiError::not_found("Discord messages are not offered by this server"));
            }
            let stmt = if body.enabled {
                db.prepare("INSERT OR IGNORE INTO discord_dm (player_id, created_at) VALUES (?1, ?2)")
                    .bind(&[JsValue::from_str(&p.id), JsValue::from_f64(glue::now_ms() as f64)])
            } else {
                db.prepare("DELETE FROM discord_dm WHERE player_id = ?1").bind(&[JsValue::from_str(&p.id)])
            };
            stmt.map_err(internal)?.run().await.map_err(internal)?;
            reply(body.enabled)
        }
        _ => Err(ApiError::new(405, "method_not_allowed", "use GET or POST")),
    }
}

async fn enabled(db: &D1Database, player: &str) -> Res<bool> {
    let row: Option<serde_json::Value> = db
        .prepare("SELECT player_id FROM discord_dm WHERE player_id = ?1")
        .bind(&[JsValue::from_str(player)])
        .map_err(internal)?
        .first(None)
        .await
        .map_err(internal)?;
    Ok(row.is_some())
}

/// Sends `text` to `player` (a seat's id: merged guests resolve to their account) if they
/// opted in and are signed in with Discord. Errors are the caller's to log.
pub async fn send(env: &Env, db: &D1Database, player: &str, text: &str) -> Res<()> {
    let Some(token) = bot_token(env) else { return Ok(()) };
    #[derive(Deserialize)]
    struct Row {
        discord_id: String,
    }
    let row: Option<Row> = db
        .prepare(
            "SELECT p.discord_id FROM discord_dm d JOIN players p ON p.id = d.player_id \
             WHERE d.player_id = COALESCE((SELECT into_id FROM player_merges WHERE from_id = ?1), ?1) \
               AND p.discord_id IS NOT NULL",
        )
        .bind(&[JsValue::from_str(player)])
        .map_err(internal)?
        .first(None)
        .await
        .map_err(internal)?;
    let Some(row) = row else { return Ok(()) };
    let base = api_base(env);
    let channel =
        call(&token, &format!("{base}/users/@me/channels"), &json!({ "recipient_id": row.discord_id }))
            .await?;
    let id = channel["id"].as_str().ok_or_else(|| ApiError::new(502, "discord_failed", "no DM channel"))?;
    call(&token, &format!("{base}/channels/{id}/messages"), &json!({ "content": text })).await?;
    Ok(())
}

async fn call(token: &str, url: &str, body: &serde_json::Value) -> Res<serde_json::Value> {
    let bad = |why: String| ApiError::new(502, "discord_failed", why);
    let mut init = RequestInit::new();
    init.with_method(Method::Post).with_body(Some(JsValue::from_str(&body.to_string())));
    let req = Request::new_with_init(url, &init).map_err(internal)?;
    let h = req.headers();
    h.set("Authorization", &format!("Bot {token}")).map_err(|e| ApiError::internal(e.to_string()))?;
    h.set("Content-Type", "application/json").map_err(|e| ApiError::internal(e.to_string()))?;
    let mut resp = worker::Fetch::Request(req).send().await.map_err(|e| bad(e.to_string()))?;
    if !(200..300).contains(&resp.status_code()) {
        return Err(bad(format!("Discord answered {}", resp.status_code())));
    }
    resp.json().await.map_err(|e| bad(e.to_string()))
}
