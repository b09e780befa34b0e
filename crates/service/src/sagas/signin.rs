//! "Sign in with Discord": the OAuth2 authorization code flow with `state` and PKCE.
//! The login binds a single-use state to this browser's cookie token; the callback
//! checks it, exchanges the code, reads the user, links or finds the player and starts
//! a fresh session. Discord is a port ([`Discord`]): the Worker reaches it by `fetch` at
//! configurable base URLs, the tests at a stand-in.

use serde::Deserialize;

use crate::accounts::{self as acc, query_param};
use crate::error::{ApiError, ErrorCode};
use crate::players;
use crate::sql::Sql;
use crate::sql_players::SqlPlayers;
use crate::tokens::{self, Random};

/// Discord's user, as `users/@me` answers.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct DiscordUser {
    pub id: String,
    pub username: String,
    pub global_name: Option<String>,
}

/// Why the code's exchange failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exchange {
    /// Discord refused the code (expired, already used).
    Rejected,
    /// Discord could not be reached or answered nonsense.
    Failed(String),
}

/// Discord's OAuth2 and user endpoints.
#[allow(async_fn_in_trait)] // single-threaded wasm: callers never need the futures to be Send
pub trait Discord {
    /// Exchanges the authorization code (`form`, urlencoded) for an access token.
    async fn token(&self, form: String) -> Result<String, Exchange>;
    /// The user of an access token.
    async fn user(&self, access_token: &str) -> Result<DiscordUser, String>;
}

/// The application as registered with Discord.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct App {
    pub client_id: String,
    pub client_secret: String,
    /// Discord's authorize page.
    pub authorize_url: String,
}

fn redirect_uri(origin: &str) -> String {
    format!("{origin}/api/auth/discord/callback")
}

/// Where the browser is sent to sign in, and the cookie token to set if it had none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Login {
    pub url: String,
    pub new_token: Option<String>,
}

/// `GET /api/auth/discord/login`. The state is bound to this browser's cookie token;
/// without one, a new token is set (no player, no session row yet: the callback makes or
/// finds the player).
pub async fn login(
    db: &impl Sql,
    rng: &mut dyn Random,
    now: i64,
    app: &App,
    cookie_token: Option<&str>,
    origin: &str,
) -> Result<Login, ApiError> {
    if app.client_id.is_empty() {
        return Err(ApiError::new(
            ErrorCode::DiscordUnconfigured,
            "Sign in with Discord is not configured on this server",
        ));
    }
    let (token, new_token) = match cookie_token {
        Some(t) => (t.to_owned(), None),
        None => {
            let t = rng.token()?;
            (t.clone(), Some(t))
        }
    };
    let (state, verifier) = (rng.token()?, rng.token()?);
    crate::db::oauth::remember(db, &state, &token, &verifier, now).await?;
    let url =
        acc::authorize_url(&app.authorize_url, &app.client_id, &redirect_uri(origin), &state, &verifier);
    Ok(Login { url, new_token })
}

/// `GET /api/auth/discord/callback?state&code` (or `&error`): the player signed in, and
/// the token of its fresh session (the token the browser held before ends here).
#[allow(clippy::too_many_arguments)] // the request's parts, each used once
pub async fn callback(
    db: &impl Sql,
    discord: &impl Discord,
    rng: &mut impl Random,
    now: i64,
    app: &App,
    query: &str,
    cookie_token: Option<&str>,
    origin: &str,
) -> Result<String, ApiError> {
    let state = query_param(query, "state")
        .ok_or_else(|| ApiError::new(ErrorCode::NoState, "the sign-in has no state"))?;
    let token = cookie_token.ok_or_else(|| {
        ApiError::new(ErrorCode::BadState, "this sign-in was not started from this browser")
    })?;
    let token_hash = tokens::hash(token);
    // The state is single-use and bound to the session that started the sign-in.
    let verifier = crate::db::oauth::take_checked(db, &state, &token_hash, now).await?;
    if let Some(err) = query_param(query, "error") {
        return Err(ApiError::new(
            ErrorCode::DiscordDenied,
            format!("Discord sign-in was not granted: {err}"),
        ));
    }
    let code = query_param(query, "code")
        .ok_or_else(|| ApiError::new(ErrorCode::NoCode, "Discord returned no code"))?;
    let form = acc::token_form(&app.client_id, &app.client_secret, &code, &redirect_uri(origin), &verifier);
    let access = discord.token(form).await.map_err(|e| match e {
        Exchange::Rejected => ApiError::new(
            ErrorCode::DiscordCodeRejected,
            "Discord refused the sign-in code (expired or already used)",
        ),
        Exchange::Failed(why) => ApiError::new(ErrorCode::DiscordFailed, why),
    })?;
    let user = discord.user(&access).await.map_err(|why| ApiError::new(ErrorCode::DiscordFailed, why))?;
    let store = SqlPlayers(db);
    let current = players::session(&store, token, now).await?.map(|(player, _)| player);
    let name = user.global_name.as_deref().unwrap_or(&user.username);
    let player = players::link(&store, rng, current.as_deref(), &user.id, name, now).await?;
    players::fresh_session(&store, rng, &player, &token_hash, now).await
}
