//! The fetch entry: API routes and game creation; each game's requests go to its
//! Durable Object; everything else is a static asset.

use service::create::CreateGame;
use service::game::valid_id;
use service::routes::{self, Area};
use service::tokens::Random;
use service::ApiError;
use worker::{Env, Request, Response, Result};

use crate::games_client::{check_load, stub as game_stub, CREATE_PATH};
use crate::glue::{self, OsRandom};
use service::ports::CreateCall;

const OPENAPI: &str = include_str!("openapi.json");

pub async fn handle(req: Request, env: Env) -> Result<Response> {
    let path = req.path();
    if !path.starts_with("/api/") && path != "/api" {
        return env.assets("ASSETS")?.fetch_request(req).await;
    }
    // Route, limits and tokens are checked before any body is read; a write's
    // Content-Type and Origin before anything else.
    let answer = match crate::guard::check_write(&req) {
        Ok(()) => api(req, &env, &path).await,
        Err(e) => Err(e),
    };
    let resp = match answer {
        Ok(resp) => resp,
        Err(e) => glue::error(&e)?,
    };
    crate::guard::secure(resp)
}

async fn api(mut req: Request, env: &Env, path: &str) -> std::result::Result<Response, ApiError> {
    let internal = |e: worker::Error| ApiError::internal(e.to_string());
    match routes::area(crate::guard::method(&req), path)? {
        Area::OpenApi => {
            let mut r = Response::ok(OPENAPI).map_err(internal)?;
            r.headers_mut().set("Content-Type", "application/json").map_err(internal)?;
            Ok(r)
        }
        Area::Health => Response::from_json(&service::http::Health { ok: true }).map_err(internal),
        Area::CreateGame => create(&mut req, env).await,
        // A benchmark burns seconds of CPU: only where it is switched on (bench-net.sh).
        #[cfg(feature = "net")]
        Area::AiBench if env.var("AI_BENCH").is_ok_and(|v| v.to_string() == "on") => {
            let api = glue::api_request(&mut req).await?;
            Response::from_json(&crate::net::bench(&api.body, env).await?).map_err(internal)
        }
        Area::AiBench => Err(ApiError::not_found(format!("no route {path}"))),
        Area::MyGames => crate::me_games::list(&req, env).await,
        Area::Challenges => crate::challenges::handle(&mut req, env, path).await,
        Area::DiscordDm => crate::discord_dm::handle(&mut req, env).await,
        Area::Push => crate::push::handle(&mut req, env, path).await,
        Area::Accounts => crate::accounts::handle(&mut req, env, path).await,
        Area::Game => forward(req, env, path).await,
        Area::Players => crate::players::handle(&mut req, env, path).await,
    }
}

/// A request for game `/api/games/{id}/…`, forwarded to the game's object.
async fn forward(req: Request, env: &Env, p: &str) -> std::result::Result<Response, ApiError> {
    let internal = |e: worker::Error| ApiError::internal(e.to_string());
    let id = p["/api/games/".len()..].split('/').next().unwrap_or_default().to_owned();
    if !valid_id(&id) {
        return Err(ApiError::not_found("no such game"));
    }
    // The route first (no object woken for a bad one); joins and WebSocket opens count
    // against the address's rates.
    crate::guard::route_limits(&req, env, p).await?;
    // Only the Worker says who the player is: drop any client-sent claim, and for a join
    // (which links the seat to the player) or a write without a seat token (the session
    // acts for its own seat) set it from the session.
    let player = crate::me_games::forwarded(&req, env, p.ends_with("/join")).await?;
    let mut fwd = req.clone_mut().map_err(internal)?;
    let headers = fwd.headers_mut().map_err(internal)?;
    headers.delete(glue::PLAYER_HEADER).map_err(internal)?;
    headers.delete(crate::me_games::ALIASES_HEADER).map_err(internal)?;
    if let Some((player, aliases)) = player {
        headers.set(glue::PLAYER_HEADER, &glue::player_header_value(&player)).map_err(internal)?;
        headers.set(crate::me_games::ALIASES_HEADER, &aliases.join(",")).map_err(internal)?;
    }
    game_stub(env, &id)?.fetch_with_request(fwd).await.map_err(internal)
}

async fn create(req: &mut Request, env: &Env) -> std::result::Result<Response, ApiError> {
    let internal = |e: worker::Error| ApiError::internal(e.to_string());
    let db = env.d1("DB").map_err(internal)?;
    let creator = crate::accounts::current_player(req, &db).await?;
    // The limits before the body: a refused client costs no parsing.
    let ip_hash = check_load(req, env, creator.as_ref().map(|c| c.id.as_str())).await?;
    let api = glue::api_request(req).await?;
    let game = CreateGame::parse(&api.body)?;
    let id = OsRandom.id()?;
    let call =
        CreateCall { id: id.clone(), game, origin: api.origin, ip_hash, creator, start: None, stage: None };
    internal_call(env, &id, CREATE_PATH, &call).await
}

pub use crate::games_client::internal_call;
