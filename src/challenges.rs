//! Open challenges over HTTP: `GET /api/challenges` (the public list), `POST
//! /api/challenges` (post), `POST /api/challenges/{id}/accept`, `POST
//! /api/challenges/{id}/cancel`, and `GET /api/challenges/ws` (the list, live:
//! [`crate::lobby`]). The rules and the accept saga are `service::sagas::challenges`.

use service::challenge::{self, ChallengeList, PostChallenge};
use service::http::PlayerRef;
use service::ports::Notifier;
use service::sagas::challenges::{self as saga, AcceptPorts};
use service::{ApiError, ErrorCode};
use worker::{Env, Method, Request, Response};

use crate::d1::D1;
use crate::games_client::{GameObjects, Notifications, RequestCapacity};
use crate::glue::{self, storage as internal, OsRandom, Res};

fn ttl_ms(env: &Env) -> i64 {
    let s = env
        .var("CHALLENGE_SECONDS")
        .ok()
        .and_then(|v| v.to_string().trim().parse::<u64>().ok())
        .unwrap_or(challenge::DEFAULT_TTL_S);
    (s.min(30 * 86_400) * 1000) as i64
}

fn json_resp(status: u16, v: &impl serde::Serialize, cookie: Option<&str>) -> Res<Response> {
    let r = Response::from_json(v).map_err(|e| ApiError::internal(e.to_string()))?.with_status(status);
    crate::accounts::with_cookie(r, cookie)
}

pub async fn handle(req: &mut Request, env: &Env, path: &str) -> Res<Response> {
    let db = env.d1("DB").map_err(internal)?;
    let rest = path.trim_start_matches("/api/challenges").trim_start_matches('/');
    let parts: Vec<&str> = if rest.is_empty() { Vec::new() } else { rest.split('/').collect() };
    match (req.method(), parts.as_slice()) {
        (Method::Get, []) => {
            json_resp(200, &ChallengeList { challenges: saga::list(&D1(&db), glue::now_ms()).await? }, None)
        }
        (Method::Get, ["ws"]) => crate::lobby::connect(req, env).await,
        (Method::Post, []) => changed(env, post(req, env, &db).await).await,
        (Method::Post, [id, "accept"]) if service::game::valid_id(id) => {
            changed(env, accept(req, env, &db, id).await).await
        }
        (Method::Post, [id, "cancel"]) if service::game::valid_id(id) => {
            let player = crate::accounts::current_player(req, &db).await?;
            let done = saga::cancel(&D1(&db), id, player.as_ref().map(|p| p.id.as_str())).await;
            changed(env, done.and_then(|c| json_resp(200, &c, None))).await
        }
        // An id that cannot be one names no challenge, whatever the method.
        (_, [id, "accept" | "cancel"]) if !service::game::valid_id(id) => {
            Err(ApiError::not_found("no such challenge"))
        }
        (_, [] | ["ws"] | [_, "accept" | "cancel"]) => {
            Err(ApiError::new(ErrorCode::MethodNotAllowed, "wrong method for this route"))
        }
        _ => Err(ApiError::not_found("no such challenge")),
    }
}

/// After a write: if it changed the list, the lobby pushes the new list to home pages (a
/// failed notification is logged, and the write's answer stands).
async fn changed(env: &Env, answer: Res<Response>) -> Res<Response> {
    if answer.is_ok() {
        Notifications(env).lobby_changed().await;
    }
    answer
}

/// The session's player (a guest made if none), and whether signed in with Discord.
async fn who(req: &Request, db: &worker::D1Database) -> Res<(PlayerRef, Option<String>)> {
    let (id, cookie) = crate::accounts::player_or_guest(req, db).await?;
    let linked = crate::accounts::current_player(req, db).await?.is_some_and(|p| p.linked);
    Ok((PlayerRef { id, linked }, cookie))
}

async fn post(req: &mut Request, env: &Env, db: &worker::D1Database) -> Res<Response> {
    // The body first: a bad one makes no guest.
    let spec = PostChallenge::parse(&glue::api_request(req).await?.body)?;
    let (poster, cookie) = who(req, db).await?;
    let ip = crate::limiter::ip_key(req, env);
    let posted = saga::post(&D1(db), &mut OsRandom, glue::now_ms(), ttl_ms(env), &poster, &ip, &spec).await?;
    json_resp(201, &posted, cookie.as_deref())
}

async fn accept(req: &mut Request, env: &Env, db: &worker::D1Database, id: &str) -> Res<Response> {
    let origin = glue::api_request(req).await?.origin;
    let (accepter, cookie) = who(req, db).await?;
    let ports = AcceptPorts {
        games: &GameObjects(env),
        capacity: &RequestCapacity { env, req },
        notifier: &Notifications(env),
    };
    let accepted =
        saga::accept(&D1(db), &ports, &mut OsRandom, glue::now_ms(), id, &accepter, &origin).await?;
    json_resp(200, &accepted, cookie.as_deref())
}
