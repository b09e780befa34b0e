//! Players' pages and the story mode: stories and progress, starting, exiting and
//! resetting stages, Player Info, the leaderboard and the match-up statistics. The rules
//! are `service::players` over the D1 store (`crate::d1`); this module routes,
//! reads the session and calls the games' Durable Objects (a stage's game is an ordinary
//! `ai` game in its own Durable Object, whose result alone advances the story:
//! `index::record_stage`).

use serde::Serialize;
use service::http::PlayerRef;
use service::player_store::PlayerStore;
use service::players::{self as rules, find_story};
use service::story::Story;
use service::{ApiError, ErrorCode};
use worker::{Env, Method, Request, Response};

use crate::accounts::{current_player, player_if_any, player_or_guest, with_cookie};
use crate::games_client::{GameObjects, RequestCapacity};
use crate::glue::{self, OsRandom, Res};
use service::sagas::stages::{self, StartPorts};

pub async fn handle(req: &mut Request, env: &Env, path: &str) -> Res<Response> {
    let db = env.d1("DB").map_err(glue::storage)?;
    let store = crate::d1::players(&db);
    let parts: Vec<&str> = path.trim_start_matches("/api/").split('/').collect();
    let method = req.method();
    match (method, parts.as_slice()) {
        // A read: without a session, the stories as a new player sees them (no guest made).
        (Method::Get, ["stories"]) => {
            let player = player_if_any(req, &db).await?;
            json_response(&rules::stories(&store, player.as_deref()).await?, None)
        }
        (Method::Post, ["stories", id, "stages", n]) => {
            let st = find_story(id)?;
            start_stage(req, env, &store, st, n).await
        }
        (Method::Post, ["stories", id, action @ ("exit" | "reset")]) => {
            let st = find_story(id)?;
            if *action == "reset" {
                rules::check_reset_confirmation(&glue::api_request(req).await?.body)?;
            }
            let (player, cookie) = player_or_guest(req, &db).await?;
            stages::end_current(&store, &GameObjects(env), &st.id, &player).await?;
            if *action == "reset" {
                store.reset_story(&player, &st.id, glue::now_ms()).await?;
            }
            json_response(&rules::story_view(&store, st, Some(&player)).await?, cookie.as_deref())
        }
        (Method::Get, ["players", id]) => json_response(&rules::player_info(&store, id).await?, None),
        (Method::Get, ["leaderboard"]) => json_response(&rules::leaderboard(&store).await?, None),
        (Method::Get, ["stats", "matchups"]) => json_response(&rules::matchups(&store).await?, None),
        (_, ["stories", ..] | ["players", ..] | ["leaderboard"] | ["stats", "matchups"]) => {
            Err(ApiError::new(ErrorCode::MethodNotAllowed, "this method is not allowed on this route"))
        }
        _ => Err(ApiError::not_found(format!("no route {path}"))),
    }
}

fn json_response<T: Serialize>(v: &T, cookie: Option<&str>) -> Res<Response> {
    with_cookie(Response::from_json(v).map_err(|e| ApiError::internal(e.to_string()))?, cookie)
}

async fn start_stage(
    req: &mut Request,
    env: &Env,
    store: &crate::d1::Players<'_>,
    st: &Story,
    index: &str,
) -> Res<Response> {
    // A stage that does not exist is refused before a guest is made.
    let (index, _) = rules::find_stage(st, index)?;
    let origin = glue::api_request(req).await?.origin;
    let db = store.0 .0;
    let (player, cookie) = player_or_guest(req, db).await?;
    let linked = current_player(req, db).await?.is_some_and(|p| p.linked);
    let ports = StartPorts { games: &GameObjects(env), capacity: &RequestCapacity { env, req } };
    let who = PlayerRef { id: player, linked };
    let answer =
        stages::start(store, &ports, &mut OsRandom, glue::now_ms(), st, index, &who, &origin).await?;
    with_cookie(glue::response(&answer).map_err(|e| ApiError::internal(e.to_string()))?, cookie.as_deref())
}
