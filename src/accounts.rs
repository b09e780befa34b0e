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

/// The player of this request's session.
struct Session {
    player: String,
    token_hash: String,
    /// `Set-Cookie` to send when the session is new.
    cookie: Option<String>,
}

/// This request's live session, if any. Never creates one: a guest is made only by a
/// write that needs a player ([`session_or_guest`]), not by reads or crawlers.
async fn session(req: &Request, db: &D1Database) -> Res<Option<Session>> {
    let Some(token) = acc::session_from_cookie(req.headers().get("Cookie").ok().flatten().as_deref()) else {
        return Ok(None);
    };
    let hash = tokens::hash(&token);
    #[derive(Deserialize)]
    struct Row {
        player_id: String,
    }
    let row: Option<Row> = db
        .prepare("SELECT player_id FROM sessions WHERE token_hash = ?1 AND expires_at > ?2")
        .bind(&[JsValue::from_str(&hash), JsValue::from_f64(glue::now_ms() as f64)])
        .map_err(internal)?
        .first(None)
        .await
        .map_err(internal)?;
    Ok(row.map(|r| Session { player: r.player_id, token_hash: hash, cookie: None }))
}

/// A new session for `player` (a fresh token: never one the browser held before).
fn new_session_stmt(db: &D1Database, player: &str) -> Res<(worker::D1PreparedStatement, Session)> {
    let now = glue::now_ms();
    let token = OsRandom.token()?;
    let hash = tokens::hash(&token);
    let stmt = db
        .prepare(
            "INSERT INTO sessions (token_hash, player_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
        )
        .bind(&[
            JsValue::from_str(&hash),
            JsValue::from_str(player),
            JsValue::from_f64(now as f64),
            JsValue::from_f64((now + acc::SESSION_MAX_AGE_S * 1000) as f64),
        ])
        .map_err(internal)?;
    Ok((
        stmt,
        Session { player: player.to_owned(), token_hash: hash, cookie: Some(acc::session_cookie(&token)) },
    ))
}

/// This request's session, or a new guest with its session (for writes that need one).
async fn session_or_guest(req: &Request, db: &D1Database) -> Res<Session> {
    if let Some(s) = session(req, db).await? {
        return Ok(s);
    }
    let player = OsRandom.id()?;
    let name = format!("Guest-{}", &player[..6]);
    let (insert_session, s) = new_session_stmt(db, &player)?;
    db.batch(vec![
        db.prepare("INSERT INTO players (id, display_name, created_at) VALUES (?1, ?2, ?3)")
            .bind(&[
                JsValue::from_str(&player),
                JsValue::from_str(&name),
                JsValue::from_f64(glue::now_ms() as f64),
            ])
            .map_err(internal)?,
        insert_session,
    ])
    .await
    .map_err(internal)?;
    Ok(s)
}

/// The session's player, if the request has a live session (never creates one), and
/// whether it is signed in with Discord.
pub async fn current_player(req: &Request, db: &D1Database) -> Res<Option<PlayerRef>> {
    let Some(s) = session(req, db).await? else { return Ok(None) };
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

/// The session's player, creating a guest if needed (writes only); with the cookie to
/// set if new.
pub async fn player_or_guest(req: &Request, db: &D1Database) -> Res<(String, Option<String>)> {
    let s = session_or_guest(req, db).await?;
    Ok((s.player, s.cookie))
}

/// The session's player if there is one (reads: never creates a guest).
pub async fn player_if_any(req: &Request, db: &D1Database) -> Res<Option<String>> {
    Ok(session(req, db).await?.map(|s| s.player))
}

pub fn with_cookie(resp: Response, cookie: Option<&str>) -> Res<Response> {
    with_cookies(resp, cookie.as_slice())
}

fn with_cookies<S: AsRef<str>>(mut resp: Response, cookies: &[S]) -> Res<Response> {
    for c in cookies {
        resp.headers_mut().append("Set-Cookie", c.as_ref()).map_err(|e| ApiError::internal(e.to_string()))?;
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
        // Reading creates nothing: without a session, an anonymous answer (`id: null`).
        (Method::Get, "/api/me") => {
            let (mut me, cookie) = match session(req, &db).await? {
                Some(s) => (me_json(&db, &s.player).await?, s.cookie),
                None => (json!({ "id": null, "name": null, "discord_linked": false, "badges": [] }), None),
            };
            me["discord_available"] = json!(!var(env, "DISCORD_CLIENT_ID", "").is_empty());
            json_response(&me, cookie.as_deref())
        }
        // Starts this browser's session (a guest) if it has none: the client asks before
        // its first write that should be linked to the player (a new game, a join).
        (Method::Post, "/api/me") => {
            let s = session_or_guest(req, &db).await?;
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
            let s = session_or_guest(req, &db).await?;
            if name_taken(&db, &name, &s.player).await? {
                return Err(ApiError::new(
                    409,
                    "name_taken",
                    format!("another player already shows the name '{name}'"),
                ));
            }
            // The unique index on the normalised name settles a race between two players
            // choosing look-alike names at once: the batch is one transaction.
            let key = service::names::key(&name);
            let b = |sql: &str, args: &[&str]| {
                db.prepare(sql)
                    .bind(&args.iter().map(|a| JsValue::from_str(a)).collect::<Vec<_>>())
                    .map_err(internal)
            };
            let claimed = db
                .batch(vec![
                    b("DELETE FROM player_names WHERE player_id = ?1", &[&s.player])?,
                    b("INSERT INTO player_names (name_key, player_id) VALUES (?1, ?2)", &[&key, &s.player])?,
                    b("UPDATE players SET display_name = ?1 WHERE id = ?2", &[&name, &s.player])?,
                ])
                .await;
            if let Err(e) = claimed {
                if e.to_string().contains("UNIQUE") {
                    return Err(ApiError::new(
                        409,
                        "name_taken",
                        format!("another player already shows the name '{name}'"),
                    ));
                }
                return Err(internal(e));
            }
            json_response(&me_json(&db, &s.player).await?, s.cookie.as_deref())
        }
        // Sign out (this browser), or everywhere (every session of the player).
        (Method::Post, "/api/auth/logout" | "/api/auth/logout/all") => {
            let everywhere = path.ends_with("/all");
            let mut ended = 0.0;
            if let Some(s) = session(req, &db).await? {
                let (sql, arg) = if everywhere {
                    ("DELETE FROM sessions WHERE player_id = ?1", &s.player)
                } else {
                    ("DELETE FROM sessions WHERE token_hash = ?1", &s.token_hash)
                };
                let r = db
                    .prepare(sql)
                    .bind(&[JsValue::from_str(arg)])
                    .map_err(internal)?
                    .run()
                    .await
                    .map_err(internal)?;
                ended = r.meta().ok().flatten().and_then(|m| m.changes).map_or(1.0, |c| c as f64);
            }
            let resp = Response::from_json(&json!({ "signed_out": true, "sessions_ended": ended }))
                .map_err(|e| ApiError::internal(e.to_string()))?;
            with_cookies(resp, &acc::clear_cookies())
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

/// Whether another player already shows `name` (its normalised form, or ASCII case
/// ignored for names set before the normalised index): names are not
/// identities, but two players should not look the same in a game or the leaderboard.
async fn name_taken(db: &D1Database, name: &str, player: &str) -> Res<bool> {
    let row: Option<serde_json::Value> = db
        .prepare(
            "SELECT player_id AS id FROM player_names WHERE name_key = ?3 AND player_id != ?2 \
             UNION ALL SELECT id FROM players WHERE lower(display_name) = lower(?1) AND id != ?2 LIMIT 1",
        )
        .bind(&[
            JsValue::from_str(name),
            JsValue::from_str(player),
            JsValue::from_str(&service::names::key(name)),
        ])
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
    // The state is bound to this browser's cookie token. Without one, a new token is set
    // (no player, no session row yet: the callback makes or finds the player).
    let existing = acc::session_from_cookie(req.headers().get("Cookie").ok().flatten().as_deref());
    let mut rng = OsRandom;
    let (token, cookie) = match existing {
        Some(t) => (t, None),
        None => {
            let t = rng.token()?;
            let c = acc::session_cookie(&t);
            (t, Some(c))
        }
    };
    let (state, verifier) = (rng.token()?, rng.token()?);
    db.prepare(
        "INSERT INTO oauth_states (state_hash, session_hash, verifier, created_at) VALUES (?1, ?2, ?3, ?4)",
    )
    .bind(&[
        JsValue::from_str(&tokens::hash(&state)),
        JsValue::from_str(&tokens::hash(&token)),
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
    redirect(&url, cookie.as_deref())
}

async fn callback(req: &Request, env: &Env, db: &D1Database) -> Res<Response> {
    let url = req.url().map_err(|e| ApiError::bad_request("bad_url", e.to_string()))?;
    let q = url.query().unwrap_or_default();
    let state = query_param(q, "state")
        .ok_or_else(|| ApiError::bad_request("bad_state", "the sign-in has no state"))?;
    let token = acc::session_from_cookie(req.headers().get("Cookie").ok().flatten().as_deref())
        .ok_or_else(|| ApiError::new(403, "bad_state", "this sign-in was not started from this browser"))?;
    let token_hash = tokens::hash(&token);
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
    if !tokens::same(&p.session_hash, &token_hash) {
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
    let current = session(req, db).await?.map(|s| s.player);
    let player =
        link(db, current.as_deref(), &user.id, user.global_name.as_deref().unwrap_or(&user.username)).await?;
    // A fresh session at sign-in: the token the browser held before (which a page or
    // another party may have planted or seen) ends here.
    let (insert, fresh) = new_session_stmt(db, &player)?;
    db.batch(vec![
        db.prepare("DELETE FROM sessions WHERE token_hash = ?1")
            .bind(&[JsValue::from_str(&token_hash)])
            .map_err(internal)?,
        insert,
    ])
    .await
    .map_err(internal)?;
    redirect("/", fresh.cookie.as_deref())
}

/// Which player a sign-in with Discord account `discord_id` ends as, making it so.
///
/// - The session's player already has this Discord id: that player.
/// - The session's player is linked to another Discord id: it is left alone (never
///   re-bound, never merged); the sign-in switches to the player of this Discord id,
///   made if new.
/// - The session's player is a guest: if another player already has this Discord id (a
///   sign-in on another browser), the guest's progress, badges, games and sessions move
///   to it (only guests are ever merged); otherwise the guest becomes the account.
/// - No session: the player of this Discord id, made if new.
async fn link(db: &D1Database, current: Option<&str>, discord_id: &str, discord_name: &str) -> Res<String> {
    #[derive(Deserialize)]
    struct Row {
        id: String,
        discord_id: Option<String>,
    }
    let by_discord: Option<Row> = db
        .prepare("SELECT id, discord_id FROM players WHERE discord_id = ?1")
        .bind(&[JsValue::from_str(discord_id)])
        .map_err(internal)?
        .first(None)
        .await
        .map_err(internal)?;
    let me: Option<Row> = match current {
        Some(id) => db
            .prepare("SELECT id, discord_id FROM players WHERE id = ?1")
            .bind(&[JsValue::from_str(id)])
            .map_err(internal)?
            .first(None)
            .await
            .map_err(internal)?,
        None => None,
    };
    let b = |sql: &str, args: &[&str]| {
        db.prepare(sql).bind(&args.iter().map(|a| JsValue::from_str(a)).collect::<Vec<_>>()).map_err(internal)
    };
    // The guest (if the session has one) that may be merged or become the account.
    let guest = me.as_ref().filter(|m| m.discord_id.is_none()).map(|m| m.id.clone());
    if let Some(m) = me.as_ref().filter(|m| m.discord_id.as_deref() == Some(discord_id)) {
        return Ok(m.id.clone());
    }
    match (by_discord, guest) {
        (Some(account), Some(guest)) => {
            let (a, g) = (account.id.as_str(), guest.as_str());
            db.batch(vec![
                b("INSERT OR IGNORE INTO player_badges (player_id, badge_id, awarded_at) SELECT ?1, badge_id, awarded_at FROM player_badges WHERE player_id = ?2", &[a, g])?,
                b("DELETE FROM player_badges WHERE player_id = ?1", &[g])?,
                // Story progress: the furthest of the two, and the guest's stage in play.
                b("INSERT INTO story_progress (player_id, story_id, completed, current_game, current_stage, updated_at) \
                   SELECT ?1, story_id, completed, current_game, current_stage, updated_at FROM story_progress WHERE player_id = ?2 \
                   ON CONFLICT(player_id, story_id) DO UPDATE SET completed = max(completed, excluded.completed), \
                       current_game = COALESCE(excluded.current_game, current_game), \
                       current_stage = COALESCE(excluded.current_stage, current_stage)", &[a, g])?,
                b("DELETE FROM story_progress WHERE player_id = ?1", &[g])?,
                b("INSERT OR REPLACE INTO player_merges (from_id, into_id) VALUES (?2, ?1)", &[a, g])?,
                b("UPDATE player_merges SET into_id = ?1 WHERE into_id = ?2", &[a, g])?,
                b("UPDATE games SET south_player = ?1 WHERE south_player = ?2", &[a, g])?,
                b("UPDATE games SET north_player = ?1 WHERE north_player = ?2", &[a, g])?,
                b("UPDATE sessions SET player_id = ?1 WHERE player_id = ?2", &[a, g])?,
                b("DELETE FROM player_names WHERE player_id = ?1", &[g])?,
                // Only a guest is ever deleted (the condition holds by construction).
                b("DELETE FROM players WHERE id = ?1 AND discord_id IS NULL", &[g])?,
            ])
            .await
            .map_err(internal)?;
            Ok(account.id)
        }
        (Some(account), None) => Ok(account.id),
        (None, Some(guest)) => {
            let name = discord_display_name(db, discord_name, &guest).await?;
            let key = service::names::key(&name);
            db.batch(vec![
                b("UPDATE players SET discord_id = ?1 WHERE id = ?2 AND discord_id IS NULL", &[discord_id, &guest])?,
                // The Discord name replaces a guest name, if no one holds it meanwhile.
                b("INSERT OR IGNORE INTO player_names (name_key, player_id) \
                   SELECT ?1, ?2 WHERE EXISTS (SELECT 1 FROM players WHERE id = ?2 AND display_name LIKE 'Guest-%')", &[&key, &guest])?,
                b("UPDATE players SET display_name = ?1 WHERE id = ?2 AND display_name LIKE 'Guest-%' \
                   AND EXISTS (SELECT 1 FROM player_names WHERE name_key = ?3 AND player_id = ?2)", &[&name, &guest, &key])?,
            ])
            .await
            .map_err(internal)?;
            Ok(guest)
        }
        (None, None) => {
            let id = OsRandom.id()?;
            let name = discord_display_name(db, discord_name, &id).await?;
            let key = service::names::key(&name);
            let now = glue::now_ms().to_string();
            db.batch(vec![
                b("INSERT INTO players (id, display_name, discord_id, created_at) VALUES (?1, ?2, ?3, CAST(?4 AS INTEGER))", &[&id, &format!("Guest-{}", &id[..6]), discord_id, &now])?,
                b("INSERT OR IGNORE INTO player_names (name_key, player_id) VALUES (?1, ?2)", &[&key, &id])?,
                b("UPDATE players SET display_name = ?1 WHERE id = ?2 \
                   AND EXISTS (SELECT 1 FROM player_names WHERE name_key = ?3 AND player_id = ?2)", &[&name, &id, &key])?,
            ])
            .await
            .map_err(internal)?;
            Ok(id)
        }
    }
}

/// The Discord name as a display name: valid, and tagged (`Name-1a2b`) if another player
/// already shows it.
async fn discord_display_name(db: &D1Database, discord_name: &str, player: &str) -> Res<String> {
    let name = service::names::validate_chosen(discord_name).unwrap_or_else(|_| "Discord player".to_owned());
    Ok(if name_taken(db, &name, player).await? { service::names::disambiguate(&name, player) } else { name })
}
