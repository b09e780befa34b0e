//! Accounts glue: guest sessions (HttpOnly cookie, stored by hash in D1), display names,
//! and "Sign in with Discord" (OAuth2 authorization code with `state` and PKCE) against
//! configurable Discord base URLs. The rules live in `service::accounts`, `names` and
//! `players` (names, the guest merge), its SQL in `service::sql_players`, run on D1 by `crate::d1`.

use serde::Deserialize;
use service::accounts as acc;
use service::http::PlayerRef;
use service::players::{self, Me};
use service::sagas::signin;
use service::tokens;
use service::{ApiError, ErrorCode};
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, Env, Method, Request, RequestInit, Response};

use crate::d1::D1;
use crate::glue::{self, OsRandom, Res};
use service::player_store::PlayerStore;

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
    let found = players::session(&crate::d1::players(db), &token, glue::now_ms()).await?;
    Ok(found.map(|(player, token_hash)| Session { player, token_hash, cookie: None }))
}

/// This request's session, or a new guest with its session (for writes that need one).
async fn session_or_guest(req: &Request, db: &D1Database) -> Res<Session> {
    if let Some(s) = session(req, db).await? {
        return Ok(s);
    }
    let (player, token) = players::new_guest(&crate::d1::players(db), &mut OsRandom, glue::now_ms()).await?;
    Ok(Session { player, token_hash: tokens::hash(&token), cookie: Some(acc::session_cookie(&token)) })
}

/// The session's player, if the request has a live session (never creates one), and
/// whether it is signed in with Discord.
pub async fn current_player(req: &Request, db: &D1Database) -> Res<Option<PlayerRef>> {
    let Some(s) = session(req, db).await? else { return Ok(None) };
    let row = crate::d1::players(db).player(&s.player).await?;
    Ok(row.map(|p| PlayerRef { id: p.id, linked: p.discord_id.is_some() }))
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

fn json_response<T: serde::Serialize>(v: &T, cookie: Option<&str>) -> Res<Response> {
    with_cookie(Response::from_json(v).map_err(|e| ApiError::internal(e.to_string()))?, cookie)
}

pub async fn handle(req: &mut Request, env: &Env, path: &str) -> Res<Response> {
    let db = env.d1("DB").map_err(glue::storage)?;
    match (req.method(), path) {
        // Reading creates nothing: without a session, an anonymous answer (`id: null`).
        (Method::Get, "/api/me") => {
            let (mut me, cookie) = match session(req, &db).await? {
                Some(s) => (players::me(&crate::d1::players(&db), &s.player).await?, s.cookie),
                None => (Me::default(), None),
            };
            me.discord_available = Some(!var(env, "DISCORD_CLIENT_ID", "").is_empty());
            json_response(&me, cookie.as_deref())
        }
        // Starts this browser's session (a guest) if it has none: the client asks before
        // its first write that should be linked to the player (a new game, a join).
        (Method::Post, "/api/me") => {
            let s = session_or_guest(req, &db).await?;
            let mut me = players::me(&crate::d1::players(&db), &s.player).await?;
            me.discord_available = Some(!var(env, "DISCORD_CLIENT_ID", "").is_empty());
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
            // Validated before a guest is made for it.
            service::names::validate_chosen(&body.name)?;
            let s = session_or_guest(req, &db).await?;
            let me = players::choose_name(&crate::d1::players(&db), &s.player, &body.name).await?;
            json_response(&me, s.cookie.as_deref())
        }
        // Sign out (this browser), or everywhere (every session of the player).
        (Method::Post, "/api/auth/logout" | "/api/auth/logout/all") => {
            let everywhere = path.ends_with("/all");
            let s = session(req, &db).await?;
            let out = players::sign_out(
                &crate::d1::players(&db),
                s.as_ref().map(|s| (s.player.as_str(), s.token_hash.as_str())),
                everywhere,
            )
            .await?;
            let resp = Response::from_json(&out).map_err(|e| ApiError::internal(e.to_string()))?;
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

fn accepts_html(req: &Request) -> bool {
    req.headers().get("Accept").ok().flatten().is_some_and(|a| a.contains("text/html"))
}

fn redirect(to: &str, cookie: Option<&str>) -> Res<Response> {
    let mut r = Response::empty().map_err(|e| ApiError::internal(e.to_string()))?.with_status(302);
    r.headers_mut().set("Location", to).map_err(|e| ApiError::internal(e.to_string()))?;
    with_cookie(r, cookie)
}

fn origin(req: &Request) -> Res<String> {
    Ok(req.url().map_err(|e| ApiError::new(ErrorCode::BadUrl, e.to_string()))?.origin().ascii_serialization())
}

/// The application as registered with Discord (wrangler vars and the secret).
fn app(env: &Env) -> signin::App {
    signin::App {
        client_id: var(env, "DISCORD_CLIENT_ID", ""),
        client_secret: secret(env, "DISCORD_CLIENT_SECRET").unwrap_or_default(),
        authorize_url: var(env, "DISCORD_AUTHORIZE_URL", "https://discord.com/oauth2/authorize"),
    }
}

fn cookie_token(req: &Request) -> Option<String> {
    acc::session_from_cookie(req.headers().get("Cookie").ok().flatten().as_deref())
}

async fn login(req: &Request, env: &Env, db: &D1Database) -> Res<Response> {
    let (token, origin) = (cookie_token(req), origin(req)?);
    let login =
        signin::login(&D1(db), &mut OsRandom, glue::now_ms(), &app(env), token.as_deref(), &origin).await?;
    redirect(&login.url, login.new_token.map(|t| acc::session_cookie(&t)).as_deref())
}

async fn callback(req: &Request, env: &Env, db: &D1Database) -> Res<Response> {
    let url = req.url().map_err(|e| ApiError::new(ErrorCode::BadUrl, e.to_string()))?;
    let discord = DiscordApi(var(env, "DISCORD_API_BASE", "https://discord.com/api/v10"));
    let (token, origin, q) = (cookie_token(req), origin(req)?, url.query().unwrap_or_default().to_owned());
    let fresh = signin::callback(
        &D1(db),
        &discord,
        &mut OsRandom,
        glue::now_ms(),
        &app(env),
        &q,
        token.as_deref(),
        &origin,
    )
    .await?;
    redirect("/", Some(&acc::session_cookie(&fresh)))
}

/// Discord's API at a base URL (a local stand-in in the tests).
struct DiscordApi(String);

impl signin::Discord for DiscordApi {
    async fn token(&self, form: String) -> Result<String, signin::Exchange> {
        #[derive(Deserialize)]
        struct Token {
            access_token: String,
        }
        let failed = |e: worker::Error| signin::Exchange::Failed(e.to_string());
        let mut init = RequestInit::new();
        init.with_method(Method::Post).with_body(Some(JsValue::from_str(&form)));
        let req = Request::new_with_init(&format!("{}/oauth2/token", self.0), &init).map_err(failed)?;
        req.headers().set("Content-Type", "application/x-www-form-urlencoded").map_err(failed)?;
        let mut resp = worker::Fetch::Request(req).send().await.map_err(failed)?;
        if resp.status_code() != 200 {
            return Err(signin::Exchange::Rejected);
        }
        Ok(resp.json::<Token>().await.map_err(failed)?.access_token)
    }

    async fn user(&self, access_token: &str) -> Result<signin::DiscordUser, String> {
        let mut init = RequestInit::new();
        init.with_method(Method::Get);
        let req =
            Request::new_with_init(&format!("{}/users/@me", self.0), &init).map_err(|e| e.to_string())?;
        req.headers().set("Authorization", &format!("Bearer {access_token}")).map_err(|e| e.to_string())?;
        let mut resp = worker::Fetch::Request(req).send().await.map_err(|e| e.to_string())?;
        if resp.status_code() != 200 {
            return Err(format!("Discord users/@me answered {}", resp.status_code()));
        }
        resp.json().await.map_err(|e| e.to_string())
    }
}
