//! Accounts glue: guest sessions (HttpOnly cookie, stored by hash in D1), display names,
//! and "Sign in with Discord" (OAuth2 authorization code with `state` and PKCE) against
//! configurable Discord base URLs. The rules live in `service::accounts` / `names`.

use serde::Deserialize;
use serde_json::json;
use service::accounts::{self as acc, query_param};
use service::http::PlayerRef;
use service::tokens::{self, Random};
use service::ApiError;
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, Env, Method, Request, RequestInit, Response};

use crate::glue::{self, OsRandom};

type Res<T> = std::result::Result<T, ApiError>;

fn internal(e: worker::Error) -> ApiError {
    ApiError::new(503, "storage_unavailable", e.to_string())
}

fn var(env: &Env, name: &str, default: &str) -> String {
    env.var(name).map(|v| v.to_string()).unwrap_or_else(|_| default.to_owned())
}

fn secret(env: &Env, name: &str) -> Option<String> {
    env.secret(name).map(|v| v.to_string()).or_else(|_| env.var(name).map(|v| v.to_string())).ok()
}

/// The player of this request's session, creating a guest (and its cookie) if needed.
struct Session {
    player: String,
    token_hash: String,
    /// `Set-Cookie` to send when the session is new.
    cookie: Option<String>,
}

async fn session(req: &Request, db: &D1Database, create: bool) -> Res<Option<Session>> {
    let now = glue::now_ms();
    let cookie = acc::session_from_cookie(req.headers().get("Cookie").ok().flatten().as_deref());
    if let Some(token) = cookie {
        let hash = tokens::hash(&token);
        #[derive(Deserialize)]
        struct Row {
            player_id: String,
        }
        let row: Option<Row> = db
            .prepare("SELECT player_id FROM sessions WHERE token_hash = ?1 AND expires_at > ?2")
            .bind(&[JsValue::from_str(&hash), JsValue::from_f64(now as f64)])
            .map_err(internal)?
            .first(None)
            .await
            .map_err(internal)?;
        if let Some(r) = row {
            return Ok(Some(Session { player: r.player_id, token_hash: hash, cookie: None }));
        }
    }
    if !create {
        return Ok(None);
    }
    let mut rng = OsRandom;
    let player = rng.id()?;
    let token = rng.token()?;
    let hash = tokens::hash(&token);
    let name = format!("Guest-{}", &player[..6]);
    let expires = now + acc::SESSION_MAX_AGE_S * 1000;
    db.batch(vec![
        db.prepare("INSERT INTO players (id, display_name, created_at) VALUES (?1, ?2, ?3)")
            .bind(&[JsValue::from_str(&player), JsValue::from_str(&name), JsValue::from_f64(now as f64)])
            .map_err(internal)?,
        db.prepare(
            "INSERT INTO sessions (token_hash, player_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
        )
        .bind(&[
            JsValue::from_str(&hash),
            JsValue::from_str(&player),
            JsValue::from_f64(now as f64),
            JsValue::from_f64(expires as f64),
        ])
        .map_err(internal)?,
    ])
    .await
    .map_err(internal)?;
    Ok(Some(Session { player, token_hash: hash, cookie: Some(acc::session_cookie(&token)) }))
}

/// The session's player, if the request has a live session (never creates one), and
/// whether it is signed in with Discord.
pub async fn current_player(req: &Request, db: &D1Database) -> Res<Option<PlayerRef>> {
    let Some(s) = session(req, db, false).await? else { return Ok(None) };
    #[derive(Deserialize)]
    struct Row {
        linked: u32,
    }
    let row: Option<Row> = db
        .prepare("SELECT discord_id IS NOT NULL AS linked FROM players WHERE id = ?1")
        .bind(&[JsValue::from_str(&s.player)])
        .map_err(internal)?
        .first(None)
        .await
        .map_err(internal)?;
    Ok(row.map(|r| PlayerRef { id: s.player, linked: r.linked != 0 }))
}

/// The session's player, creating a guest if needed; with the cookie to set if new.
pub async fn player_or_guest(req: &Request, db: &D1Database) -> Res<(String, Option<String>)> {
    let s = session(req, db, true).await?.ok_or_else(|| ApiError::internal("no session"))?;
    Ok((s.player, s.cookie))
}

pub fn with_cookie(mut resp: Response, cookie: Option<&str>) -> Res<Response> {
    if let Some(c) = cookie {
        resp.headers_mut().append("Set-Cookie", c).map_err(|e| ApiError::internal(e.to_string()))?;
    }
    resp.headers_mut().set("Cache-Control", "no-store").map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(resp)
}

fn json_response(v: &serde_json::Value, cookie: Option<&str>) -> Res<Response> {
    with_cookie(Response::from_json(v).map_err(|e| ApiError::internal(e.to_string()))?, cookie)
}

async fn me_json(db: &D1Database, player: &str) -> Res<serde_json::Value> {
    #[derive(Deserialize)]
    struct Row {
        id: String,
        display_name: Option<String>,
        discord_id: Option<String>,
    }
    let row: Option<Row> = db
        .prepare("SELECT id, display_name, discord_id FROM players WHERE id = ?1")
        .bind(&[JsValue::from_str(player)])
        .map_err(internal)?
        .first(None)
        .await
        .map_err(internal)?;
    let r = row.ok_or_else(|| ApiError::not_found("no such player"))?;
    Ok(json!({
        "id": r.id,
        "name": r.display_name,
        "discord_linked": r.discord_id.is_some(),
        "badges": crate::players::badges(db, player).await?,
    }))
}

pub async fn handle(req: &mut Request, env: &Env, path: &str) -> Res<Response> {
    let db = env.d1("DB").map_err(internal)?;
    match (req.method(), path) {
        (Method::Get, "/api/me") => {
            let s = session(req, &db, true).await?.ok_or_else(|| ApiError::internal("no session"))?;
            let mut me = me_json(&db, &s.player).await?;
            me["discord_available"] = json!(!var(env, "DISCORD_CLIENT_ID", "").is_empty());
            json_response(&me, s.cookie.as_deref())
        }
        (Method::Post, "/api/me/name") => {
            #[derive(Deserialize)]
            #[serde(deny_unknown_fields)]
            struct Body {
                name: String,
            }
            let api = glue::api_request(req).await?;
            let body: Body = service::http::parse_json(&api.body)?;
            let name = service::names::validate_chosen(&body.name)?;
            let s = session(req, &db, true).await?.ok_or_else(|| ApiError::internal("no session"))?;
            if name_taken(&db, &name, &s.player).await? {
                return Err(ApiError::new(
                    409,
                    "name_taken",
                    format!("another player already shows the name '{name}'"),
                ));
            }
            db.prepare("UPDATE players SET display_name = ?1 WHERE id = ?2")
                .bind(&[JsValue::from_str(&name), JsValue::from_str(&s.player)])
                .map_err(internal)?
                .run()
                .await
                .map_err(internal)?;
            json_response(&me_json(&db, &s.player).await?, s.cookie.as_deref())
        }
        (Method::Post, "/api/auth/logout") => {
            if let Some(s) = session(req, &db, false).await? {
                db.prepare("DELETE FROM sessions WHERE token_hash = ?1")
                    .bind(&[JsValue::from_str(&s.token_hash)])
                    .map_err(internal)?
                    .run()
                    .await
                    .map_err(internal)?;
            }
            json_response(&json!({ "signed_out": true }), Some(&acc::clear_cookie()))
        }
        (Method::Get, "/api/auth/discord/login") => login(req, env, &db).await,
        (Method::Get, "/api/auth/discord/callback") => match callback(req, env, &db).await {
            // The callback is a browser navigation: a browser is sent back to the client
            // with the reason (it shows it), other clients get the JSON error.
            Err(e) if accepts_html(req) => redirect(&format!("/?signin_error={}", e.code), None),
            other => other,
        },
        _ => Err(ApiError::not_found(format!("no route {path}"))),
    }
}

/// Whether another player already shows `name` (ASCII case ignored): names are not
/// identities, but two players should not look the same in a game or the leaderboard.
async fn name_taken(db: &D1Database, name: &str, player: &str) -> Res<bool> {
    let row: Option<serde_json::Value> = db
        .prepare("SELECT id FROM players WHERE lower(display_name) = lower(?1) AND id != ?2 LIMIT 1")
        .bind(&[JsValue::from_str(name), JsValue::from_str(player)])
        .map_err(internal)?
        .first(None)
        .await
        .map_err(internal)?;
    Ok(row.is_some())
}

fn accepts_html(req: &Request) -> bool {
    req.headers().get("Accept").ok().flatten().is_some_and(|a| a.contains("text/html"))
}

fn redirect(to: &str, cookie: Option<&str>) -> Res<Response> {
    let mut r = Response::empty().map_err(|e| ApiError::internal(e.to_string()))?.with_status(302);
    r.headers_mut().set("Location", to).map_err(|e| ApiError::internal(e.to_string()))?;
    with_cookie(r, cookie)
}

fn origin(req: &Request) -> Res<String> {
    Ok(req.url().map_err(|e| ApiError::bad_request("bad_url", e.to_string()))?.origin().ascii_serialization())
}

async fn login(req: &Request, env: &Env, db: &D1Database) -> Res<Response> {
    let client_id = var(env, "DISCORD_CLIENT_ID", "");
    if client_id.is_empty() {
        return Err(ApiError::new(
            503,
            "discord_unconfigured",
            "Sign in with Discord is not configured on this server",
        ));
    }
    let s = session(req, db, true).await?.ok_or_else(|| ApiError::internal("no session"))?;
    let mut rng = OsRandom;
    let (state, verifier) = (rng.token()?, rng.token()?);
    db.prepare(
        "INSERT INTO oauth_states (state_hash, session_hash, verifier, created_at) VALUES (?1, ?2, ?3, ?4)",
    )
    .bind(&[
        JsValue::from_str(&tokens::hash(&state)),
        JsValue::from_str(&s.token_hash),
        JsValue::from_str(&verifier),
        JsValue::from_f64(glue::now_ms() as f64),
    ])
    .map_err(internal)?
    .run()
    .await
    .map_err(internal)?;
    let redirect_uri = format!("{}/api/auth/discord/callback", origin(req)?);
    let url = acc::authorize_url(
        &var(env, "DISCORD_AUTHORIZE_URL", "https://discord.com/oauth2/authorize"),
        &client_id,
        &redirect_uri,
        &state,
        &verifier,
    );
    redirect(&url, s.cookie.as_deref())
}

async fn callback(req: &Request, env: &Env, db: &D1Database) -> Res<Response> {
    let url = req.url().map_err(|e| ApiError::bad_request("bad_url", e.to_string()))?;
    let q = url.query().unwrap_or_default();
    let state = query_param(q, "state")
        .ok_or_else(|| ApiError::bad_request("bad_state", "the sign-in has no state"))?;
    let s = session(req, db, false)
        .await?
        .ok_or_else(|| ApiError::new(403, "bad_state", "this sign-in was not started from this browser"))?;
    // The state is single-use and bound to the session that started the sign-in.
    #[derive(Deserialize)]
    struct Pending {
        session_hash: String,
        verifier: String,
        created_at: f64,
    }
    let state_hash = tokens::hash(&state);
    let pending: Option<Pending> = db
        .prepare(
            "DELETE FROM oauth_states WHERE state_hash = ?1 RETURNING session_hash, verifier, created_at",
        )
        .bind(&[JsValue::from_str(&state_hash)])
        .map_err(internal)?
        .first(None)
        .await
        .map_err(internal)?;
    let p =
        pending.ok_or_else(|| ApiError::new(403, "bad_state", "unknown or already used sign-in state"))?;
    if !tokens::same(&p.session_hash, &s.token_hash) {
        return Err(ApiError::new(403, "bad_state", "this sign-in was started by another browser"));
    }
    if glue::now_ms() - p.created_at as i64 > acc::STATE_MAX_AGE_MS {
        return Err(ApiError::new(403, "bad_state", "the sign-in took too long; please try again"));
    }
    if let Some(err) = query_param(q, "error") {
        return Err(ApiError::new(403, "discord_denied", format!("Discord sign-in was not granted: {err}")));
    }
    let code =
        query_param(q, "code").ok_or_else(|| ApiError::bad_request("no_code", "Discord returned no code"))?;

    // Exchange the code (with the PKCE verifier), then read the user.
    let api_base = var(env, "DISCORD_API_BASE", "https://discord.com/api/v10");
    let client_id = var(env, "DISCORD_CLIENT_ID", "");
    let client_secret = secret(env, "DISCORD_CLIENT_SECRET").unwrap_or_default();
    let redirect_uri = format!("{}/api/auth/discord/callback", origin(req)?);
    let form = acc::token_form(&client_id, &client_secret, &code, &redirect_uri, &p.verifier);
    let mut init = RequestInit::new();
    init.with_method(Method::Post).with_body(Some(JsValue::from_str(&form)));
    let token_req = Request::new_with_init(&format!("{api_base}/oauth2/token"), &init).map_err(internal)?;
    token_req
        .headers()
        .set("Content-Type", "application/x-www-form-urlencoded")
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let bad_gateway = |why: String| ApiError::new(502, "discord_failed", why);
    let mut resp = worker::Fetch::Request(token_req).send().await.map_err(|e| bad_gateway(e.to_string()))?;
    if resp.status_code() != 200 {
        return Err(ApiError::new(
            403,
            "discord_code_rejected",
            "Discord refused the sign-in code (expired or already used)",
        ));
    }
    #[derive(Deserialize)]
    struct Token {
        access_token: String,
    }
    let token: Token = resp.json().await.map_err(|e| bad_gateway(e.to_string()))?;
    let mut init = RequestInit::new();
    init.with_method(Method::Get);
    let user_req = Request::new_with_init(&format!("{api_base}/users/@me"), &init).map_err(internal)?;
    user_req
        .headers()
        .set("Authorization", &format!("Bearer {}", token.access_token))
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let mut uresp = worker::Fetch::Request(user_req).send().await.map_err(|e| bad_gateway(e.to_string()))?;
    if uresp.status_code() != 200 {
        return Err(bad_gateway(format!("Discord users/@me answered {}", uresp.status_code())));
    }
    #[derive(Deserialize)]
    struct User {
        id: String,
        username: String,
        global_name: Option<String>,
    }
    let user: User = uresp.json().await.map_err(|e| bad_gateway(e.to_string()))?;
    link(db, &s.player, &user.id, user.global_name.as_deref().unwrap_or(&user.username)).await?;
    redirect("/", None)
}

/// Links the session's player to the Discord account. If another player already has it
/// (signed in on another browser), the guest's badges and sessions move to that player.
async fn link(db: &D1Database, guest: &str, discord_id: &str, discord_name: &str) -> Res<()> {
    #[derive(Deserialize)]
    struct Row {
        id: String,
    }
    let existing: Option<Row> = db
        .prepare("SELECT id FROM players WHERE discord_id = ?1")
        .bind(&[JsValue::from_str(discord_id)])
        .map_err(internal)?
        .first(None)
        .await
        .map_err(internal)?;
    let mut name =
        service::names::validate_chosen(discord_name).unwrap_or_else(|_| "Discord player".to_owned());
    if name_taken(db, &name, guest).await? {
        name = service::names::disambiguate(&name, guest);
    }
    let b = |sql: &str, args: &[&str]| {
        db.prepare(sql).bind(&args.iter().map(|a| JsValue::from_str(a)).collect::<Vec<_>>()).map_err(internal)
    };
    let statements = match existing {
        Some(r) if r.id != guest => vec![
            b("INSERT OR IGNORE INTO player_badges (player_id, badge_id, awarded_at) SELECT ?1, badge_id, awarded_at FROM player_badges WHERE player_id = ?2", &[&r.id, guest])?,
            b("DELETE FROM player_badges WHERE player_id = ?1", &[guest])?,
            // Story progress: the furthest of the two, and the guest's stage in play.
            b("INSERT INTO story_progress (player_id, story_id, completed, current_game, current_stage, updated_at) \
               SELECT ?1, story_id, completed, current_game, current_stage, updated_at FROM story_progress WHERE player_id = ?2 \
               ON CONFLICT(player_id, story_id) DO UPDATE SET completed = max(completed, excluded.completed), \
                   current_game = COALESCE(excluded.current_game, current_game), \
                   current_stage = COALESCE(excluded.current_stage, current_stage)", &[&r.id, guest])?,
            b("DELETE FROM story_progress WHERE player_id = ?1", &[guest])?,
            b("INSERT OR REPLACE INTO player_merges (from_id, into_id) VALUES (?2, ?1)", &[&r.id, guest])?,
            b("UPDATE player_merges SET into_id = ?1 WHERE into_id = ?2", &[&r.id, guest])?,
            b("UPDATE games SET south_player = ?1 WHERE south_player = ?2", &[&r.id, guest])?,
            b("UPDATE games SET north_player = ?1 WHERE north_player = ?2", &[&r.id, guest])?,
            b("UPDATE sessions SET player_id = ?1 WHERE player_id = ?2", &[&r.id, guest])?,
            b("DELETE FROM players WHERE id = ?1 AND discord_id IS NULL", &[guest])?,
        ],
        Some(_) => return Ok(()),
        None => vec![b(
            "UPDATE players SET discord_id = ?1, display_name = CASE WHEN display_name LIKE 'Guest-%' THEN ?2 ELSE display_name END WHERE id = ?3",
            &[discord_id, &name, guest],
        )?],
    };
    db.batch(statements).await.map_err(internal)?;
    Ok(())
}
