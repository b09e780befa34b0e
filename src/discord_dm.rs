//! Discord notifications (opt-in, for players signed in with Discord): a direct message
//! from the game's bot through Discord's REST API (`POST /users/@me/channels` for the DM
//! channel, then `POST /channels/{id}/messages`), for the same events as Web Push. The bot
//! token is the secret `DISCORD_BOT_TOKEN` (off without it); the API base is
//! `DISCORD_API_BASE` (tests point it at the local stand-in Discord).
//!
//! `GET /api/me/discord-dm` → `{"available", "enabled"}`; `POST /api/me/discord-dm`
//! `{"enabled": bool}` (the rules and statements: `service::db::discord_dm`).

use serde_json::json;
use service::db::discord_dm as store;
use service::{ApiError, ErrorCode};
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, Env, Method, Request, RequestInit, Response};

use crate::d1::D1;
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
    let bot = bot_token(env).is_some();
    let dm = match req.method() {
        Method::Get => store::get(&D1(&db), player.as_ref(), bot).await?,
        Method::Post => {
            let api = glue::api_request(req).await?;
            store::post(&D1(&db), player.as_ref(), bot, &api.body, glue::now_ms()).await?
        }
        _ => return Err(ApiError::new(ErrorCode::MethodNotAllowed, "use GET or POST")),
    };
    Response::from_json(&dm).map_err(|e| ApiError::internal(e.to_string()))
}

/// Sends `text` to `player` (a seat's id: merged guests resolve to their account) if they
/// opted in and are signed in with Discord (`service::db::discord_dm::recipient`). Errors
/// are the caller's to log.
pub async fn send(env: &Env, db: &D1Database, player: &str, text: &str) -> Res<()> {
    let Some(token) = bot_token(env) else { return Ok(()) };
    let Some(discord_id) = store::recipient(&D1(db), player).await? else { return Ok(()) };
    let base = api_base(env);
    let channel =
        call(&token, &format!("{base}/users/@me/channels"), &json!({ "recipient_id": discord_id })).await?;
    let id =
        channel["id"].as_str().ok_or_else(|| ApiError::new(ErrorCode::DiscordFailed, "no DM channel"))?;
    call(&token, &format!("{base}/channels/{id}/messages"), &json!({ "content": text })).await?;
    Ok(())
}

async fn call(token: &str, url: &str, body: &serde_json::Value) -> Res<serde_json::Value> {
    let bad = |why: String| ApiError::new(ErrorCode::DiscordFailed, why);
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
