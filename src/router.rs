//! The fetch entry: the API's areas (answered by `service::api` over [`WorkerHost`]),
//! each game's requests forwarded to its Durable Object, the lobby's socket; everything
//! else is a static asset.

use service::api;
use service::game::valid_id;
use service::objects::{ALIASES_HEADER, PLAYER_HEADER};
use service::routes::{self, Area};
use service::ApiError;
use worker::{Env, Request, Response, Result};

use crate::glue;
use crate::host::{method, In, WorkerHost};

const OPENAPI: &str = include_str!("openapi.json");

pub async fn handle(req: Request, env: Env) -> Result<Response> {
    let path = req.path();
    if !path.starts_with("/api/") && path != "/api" {
        return env.assets("ASSETS")?.fetch_request(req).await;
    }
    // Route, limits and tokens are checked before any body is read; a write's
    // Content-Type and Origin before anything else.
    let answer = match crate::guard::check_write(&req) {
        Ok(()) => area(req, &env, &path).await,
        Err(e) => Err(e),
    };
    crate::guard::secure(answer.or_else(|e| glue::error(&e))?)
}

async fn area(mut req: Request, env: &Env, path: &str) -> std::result::Result<Response, ApiError> {
    let internal = |e: worker::Error| ApiError::internal(e.to_string());
    let url_host = req.url().ok().and_then(|u| u.host_str().map(str::to_owned)).unwrap_or_default();
    service::host::check_configured(&WorkerHost::new(env)?, &url_host)?;
    match routes::area(method(&req), path)? {
        Area::OpenApi => {
            let mut r = Response::ok(OPENAPI).map_err(internal)?;
            r.headers_mut().set("Content-Type", "application/json").map_err(internal)?;
            Ok(r)
        }
        Area::Health => Response::from_json(&service::http::Health { ok: true }).map_err(internal),
        // A benchmark burns seconds of CPU: only in the test module (feature `test-hooks`,
        // never deployed) and there only where it is switched on (bench-net.sh).
        #[cfg(all(feature = "net", feature = "test-hooks"))]
        Area::AiBench if env.var("AI_BENCH").is_ok_and(|v| v.to_string() == "on") => {
            let api = glue::api_request(&mut req).await?;
            Response::from_json(&crate::net::bench(&api.body, env).await?).map_err(internal)
        }
        Area::AiBench => Err(ApiError::not_found(format!("no route {path}"))),
        Area::Game => forward(req, env, path).await,
        Area::Challenges if path == "/api/challenges/ws" && method(&req) == service::http::Method::Get => {
            crate::lobby::connect(&req, env).await
        }
        area => glue::answer(&api::handle(&WorkerHost::new(env)?, area, &mut In(&mut req)).await)
            .map_err(internal),
    }
}

/// A request for game `/api/games/{id}/…`, forwarded to the game's object.
async fn forward(mut req: Request, env: &Env, p: &str) -> std::result::Result<Response, ApiError> {
    let internal = |e: worker::Error| ApiError::internal(e.to_string());
    let id = p["/api/games/".len()..].split('/').next().unwrap_or_default().to_owned();
    if !valid_id(&id) {
        return Err(ApiError::not_found("no such game"));
    }
    let host = WorkerHost::new(env)?;
    // The route first (no object woken for a bad one); joins and WebSocket opens count
    // against the address's rates.
    api::route_limits(&host, &In(&mut req), p).await?;
    // Only the Worker says who the player is: drop any client-sent claim, and for a join
    // (which links the seat to the player) or a write without a seat token (the session
    // acts for its own seat) set it from the session.
    let player = api::forwarded(&host, &In(&mut req), p.ends_with("/join")).await?;
    let mut fwd = req.clone_mut().map_err(internal)?;
    let headers = fwd.headers_mut().map_err(internal)?;
    headers.delete(PLAYER_HEADER).map_err(internal)?;
    headers.delete(ALIASES_HEADER).map_err(internal)?;
    if let Some((player, aliases)) = player {
        let value = service::objects::player_header_value(&player);
        headers.set(PLAYER_HEADER, &value).map_err(internal)?;
        headers.set(ALIASES_HEADER, &aliases.join(",")).map_err(internal)?;
    }
    let stub = env.durable_object("GAMES").and_then(|ns| ns.id_from_name(&id)?.get_stub());
    stub.map_err(internal)?.fetch_with_request(fwd).await.map_err(internal)
}
