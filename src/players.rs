//! Players' pages and the story mode: stories and progress, starting, exiting and
//! resetting stages, Player Info, the leaderboard and the match-up statistics. The rules
//! are `service::players` over the D1 store (`crate::d1`); this module routes,
//! reads the session and calls the games' Durable Objects (a stage's game is an ordinary
//! `ai` game in its own Durable Object, whose result alone advances the story:
//! `index::record_stage`).

use serde::Serialize;
use serde_json::Value;
use service::http::PlayerRef;
use service::player_store::PlayerStore;
use service::players::{self as rules, find_story};
use service::story::Story;
use service::ApiError;
use worker::{Env, Method, Request, Response};

use crate::accounts::{current_player, player_if_any, player_or_guest, with_cookie};
use crate::game_object::{AbandonCall, CreateCall, ABANDON_PATH, CREATE_PATH, WITHDRAW_PATH};
use crate::glue::{self, OsRandom, Res};
use crate::router::{check_load, internal_call};
use service::tokens::Random;

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
            abandon_current(env, &store, &st.id, &player).await?;
            if *action == "reset" {
                store.reset_story(&player, &st.id, glue::now_ms()).await?;
            }
            json_response(&rules::story_view(&store, st, Some(&player)).await?, cookie.as_deref())
        }
        (Method::Get, ["players", id]) => json_response(&rules::player_info(&store, id).await?, None),
        (Method::Get, ["leaderboard"]) => json_response(&rules::leaderboard(&store).await?, None),
        (Method::Get, ["stats", "matchups"]) => json_response(&rules::matchups(&store).await?, None),
        (_, ["stories", ..] | ["players", ..] | ["leaderboard"] | ["stats", "matchups"]) => {
            Err(ApiError::new(405, "method_not_allowed", "this method is not allowed on this route"))
        }
        _ => Err(ApiError::not_found(format!("no route {path}"))),
    }
}

fn json_response<T: Serialize>(v: &T, cookie: Option<&str>) -> Res<Response> {
    with_cookie(Response::from_json(v).map_err(|e| ApiError::internal(e.to_string()))?, cookie)
}

/// Ends the stage game being played, if any (a loss: "abandoned"), and forgets it.
async fn abandon_current(env: &Env, store: &crate::d1::Players<'_>, story: &str, player: &str) -> Res<()> {
    let Some(current) = rules::current_stage(store, story, player).await? else { return Ok(()) };
    if current.valid {
        let call = AbandonCall { player: player.to_owned(), aliases: current.aliases };
        // A refusal and a failed call (the object threw) are the same answer to the player.
        let ended = match internal_call(env, &current.game, ABANDON_PATH, &call).await {
            Ok(resp) => matches!(resp.status_code(), 200 | 404),
            Err(e) => {
                worker::console_error!("ending stage game {}: {}", current.game, e.message);
                false
            }
        };
        if !ended {
            return Err(ApiError::new(503, "stage_not_ended", "the stage being played could not be ended"));
        }
    }
    store.clear_current_game(player, story, &current.game).await?;
    Ok(())
}

/// Withdraws a stage game this request made and will not hand out (best effort: logged
/// when it fails, and the game then ends as an idle one does).
async fn withdraw(env: &Env, id: &str) {
    let status = match internal_call(env, id, WITHDRAW_PATH, &serde_json::json!({})).await {
        Ok(resp) => resp.status_code(),
        Err(e) => {
            worker::console_error!("withdrawing stage game {id}: {}", e.message);
            return;
        }
    };
    if status != 200 {
        worker::console_error!("withdrawing stage game {id}: status {status}");
    }
}

async fn start_stage(
    req: &mut Request,
    env: &Env,
    store: &crate::d1::Players<'_>,
    st: &Story,
    index: &str,
) -> Res<Response> {
    // A stage that does not exist is refused before a guest is made.
    let (index, stage) = rules::find_stage(st, index)?;
    let origin = glue::api_request(req).await?.origin;
    let (player, cookie) = player_or_guest(req, store.0 .0).await?;
    rules::check_unlocked(store, st, index, &player).await?;
    let ip_hash = check_load(req, env, Some(&player)).await?;
    let linked = current_player(req, store.0 .0).await?.is_some_and(|p| p.linked);
    let (game, stage_ref) = rules::stage_game(st, index, stage);
    let id = OsRandom.id()?;
    let call = CreateCall {
        id: id.clone(),
        game,
        origin,
        ip_hash,
        creator: Some(PlayerRef { id: player.clone(), linked }),
        start: Some(stage.position),
        stage: Some(stage_ref),
    };
    // The new stage game first, then the end of the one being played: a creation that fails
    // (the network unavailable, an internal error) leaves the player's stage game as it was,
    // where ending it first lost it as an abandoned game with nothing in its place. If the
    // old one cannot be ended (or the new one not recorded as the stage's), the error is
    // the answer and the new game, never handed out, is withdrawn: it ends aborted at once
    // instead of staying open, counted against the creation limits, until it idled out
    // (which stays the fallback should the withdrawal fail too).
    let mut resp = internal_call(env, &id, CREATE_PATH, &call).await?;
    let status = resp.status_code();
    let body: Value = resp.json().await.map_err(|e| ApiError::internal(e.to_string()))?;
    if status == 201 {
        let handed_over = async {
            abandon_current(env, store, &st.id, &player).await?;
            store.set_current_stage(&player, &st.id, &id, index, glue::now_ms()).await?;
            Ok::<(), ApiError>(())
        };
        if let Err(e) = handed_over.await {
            withdraw(env, &id).await;
            return Err(e);
        }
    }
    let r = Response::from_json(&body).map_err(|e| ApiError::internal(e.to_string()))?.with_status(status);
    with_cookie(r, cookie.as_deref())
}
