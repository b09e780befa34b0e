//! `/api/me` (the session's player), `/api/me/name`, signing out, and "Sign in with
//! Discord" (OAuth2 authorization code with `state` and PKCE, `crate::sagas::signin`)
//! against configurable Discord base URLs.

use serde::Deserialize;

use crate::accounts as acc;
use crate::create::MINUTE_MS;
use crate::error::ApiError;
use crate::guard::Rate;
use crate::host::{Host, HostRandom, Outgoing};
use crate::http::Method;
use crate::objects::Limiters;
use crate::players::{self, Me};
use crate::ports::Limiter;
use crate::sagas::signin;

use super::session::{cookie_token, session, session_or_guest, store};
use super::{Answer, Incoming, Res};

fn var(h: &impl Host, name: &str, default: &str) -> String {
    h.var(name).unwrap_or_else(|| default.to_owned())
}

/// The session's player as `/api/me` answers it.
async fn me(h: &impl Host, player: &str) -> Result<Me, ApiError> {
    let mut me = players::me(&store(h), player).await?;
    me.discord_available = Some(!var(h, "DISCORD_CLIENT_ID", "").is_empty());
    Ok(me)
}

pub async fn handle(h: &impl Host, req: &mut impl Incoming, path: &str) -> Res {
    match (req.method(), path) {
        // Reading creates nothing: without a session, an anonymous answer (`id: null`).
        (Method::Get, "/api/me") => match session(h, req).await? {
            Some(s) => Ok(Answer::ok(&me(h, &s.player).await?, s.cookie)),
            None => {
                let discord_available = Some(!var(h, "DISCORD_CLIENT_ID", "").is_empty());
                Ok(Answer::ok(&Me { discord_available, ..Me::default() }, None))
            }
        },
        // Starts this browser's session (a guest) if it has none: the client asks before
        // its first write that should be linked to the player (a new game, a join).
        (Method::Post, "/api/me") => {
            let s = session_or_guest(h, req).await?;
            Ok(Answer::ok(&me(h, &s.player).await?, s.cookie))
        }
        (Method::Post, "/api/me/name") => {
            #[derive(Deserialize)]
            #[serde(deny_unknown_fields)]
            struct Body {
                name: String,
            }
            let body: Body = super::json(req).await?;
            // Validated before a guest is made for it.
            crate::names::validate_chosen(&body.name)?;
            let s = session_or_guest(h, req).await?;
            let me = players::choose_name(&store(h), &s.player, &body.name).await?;
            Ok(Answer::ok(&me, s.cookie))
        }
        // Sign out (this browser), or everywhere (every session of the player).
        (Method::Post, "/api/auth/logout" | "/api/auth/logout/all") => {
            let everywhere = path.ends_with("/all");
            let s = session(h, req).await?;
            let who = s.as_ref().map(|s| (s.player.as_str(), s.token_hash.as_str()));
            let out = players::sign_out(&store(h), who, everywhere).await?;
            Ok(Answer { cookies: acc::clear_cookies().to_vec(), ..Answer::of(200, &out) })
        }
        (Method::Get, "/api/auth/discord/login") => match login(h, req).await {
            // A browser navigation, like the callback: a browser is sent back with the reason.
            Err(e) if req.header("Accept").is_some_and(|a| a.contains("text/html")) => {
                Ok(Answer::redirect(&format!("/?signin_error={}", e.code), None))
            }
            other => other,
        },
        (Method::Get, "/api/auth/discord/callback") => match callback(h, req).await {
            // The callback is a browser navigation: a browser is sent back to the client
            // with the reason (it shows it), other clients get the JSON error.
            Err(e) if req.header("Accept").is_some_and(|a| a.contains("text/html")) => {
                Ok(Answer::redirect(&format!("/?signin_error={}", e.code), None))
            }
            other => other,
        },
        _ => Err(ApiError::not_found(format!("no route {path}"))),
    }
}

/// Starts a sign-in: one D1 row (its state) each, so counted per address bucket like a
/// new guest (a loop of starts cannot grow the table faster than the hourly sweep
/// empties it).
async fn login(h: &impl Host, req: &impl Incoming) -> Res {
    let rate = Rate { limit: crate::host::settings(h).limits.guests_per_ip_per_minute, window_ms: MINUTE_MS };
    let bucket = format!("signin:ip:{}", super::ip_key(h, req));
    Limiters(h).hit(&bucket, rate, "too many sign-ins from your address this minute").await?;
    let (token, origin) = (cookie_token(req), req.origin()?);
    let login =
        signin::login(h.db(), &mut HostRandom(h), h.now_ms(), &app(h), token.as_deref(), &origin).await?;
    Ok(Answer::redirect(&login.url, login.new_token.map(|t| acc::session_cookie(&t))))
}

/// The application as registered with Discord (wrangler vars and the secret).
fn app(h: &impl Host) -> signin::App {
    signin::App {
        client_id: var(h, "DISCORD_CLIENT_ID", ""),
        client_secret: var(h, "DISCORD_CLIENT_SECRET", ""),
        authorize_url: var(h, "DISCORD_AUTHORIZE_URL", "https://discord.com/oauth2/authorize"),
    }
}

async fn callback(h: &impl Host, req: &impl Incoming) -> Res {
    let discord = DiscordApi { host: h, base: var(h, "DISCORD_API_BASE", "https://discord.com/api/v10") };
    let (token, origin) = (cookie_token(req), req.origin()?);
    let fresh = signin::callback(
        h.db(),
        &discord,
        &mut HostRandom(h),
        h.now_ms(),
        &app(h),
        &req.query(),
        token.as_deref(),
        &origin,
    )
    .await?;
    Ok(Answer::redirect("/", Some(acc::session_cookie(&fresh))))
}

/// Discord's API at a base URL (a local stand-in in the tests).
struct DiscordApi<'a, H> {
    host: &'a H,
    base: String,
}

impl<H: Host> signin::Discord for DiscordApi<'_, H> {
    async fn token(&self, form: String) -> Result<String, signin::Exchange> {
        #[derive(Deserialize)]
        struct Token {
            access_token: String,
        }
        let req = Outgoing {
            method: Method::Post,
            url: format!("{}/oauth2/token", self.base),
            headers: vec![("Content-Type", "application/x-www-form-urlencoded".into())],
            body: form.into_bytes(),
        };
        let (status, body) = self.host.fetch(req).await.map_err(signin::Exchange::Failed)?;
        if status != 200 {
            return Err(signin::Exchange::Rejected);
        }
        let token: Token =
            serde_json::from_slice(&body).map_err(|e| signin::Exchange::Failed(e.to_string()))?;
        Ok(token.access_token)
    }

    async fn user(&self, access_token: &str) -> Result<signin::DiscordUser, String> {
        let req = Outgoing {
            method: Method::Get,
            url: format!("{}/users/@me", self.base),
            headers: vec![("Authorization", format!("Bearer {access_token}"))],
            body: Vec::new(),
        };
        let (status, body) = self.host.fetch(req).await?;
        if status != 200 {
            return Err(format!("Discord users/@me answered {status}"));
        }
        serde_json::from_slice(&body).map_err(|e| e.to_string())
    }
}
