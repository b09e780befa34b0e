//! Players' pages and the story mode: stories and progress, starting, exiting and
//! resetting stages, Player Info, the leaderboard and the match-up statistics (the rules:
//! `crate::players`; a stage's game is an ordinary `ai` game in its own object, whose
//! result alone advances the story: `crate::db::index`).

use crate::error::{ApiError, ErrorCode};
use crate::host::{Host, HostRandom};
use crate::http::{Method, PlayerRef};
use crate::objects::{AddressCapacity, GameObjects};
use crate::player_store::PlayerStore;
use crate::players::{self as rules, find_story};
use crate::sagas::stages::{self, StartPorts};
use crate::tokens::Random;

use super::session::{player_or_guest, session, store, who};
use super::{Answer, Incoming, Res};

pub async fn handle(h: &impl Host, req: &mut impl Incoming, path: &str) -> Res {
    let store = store(h);
    let parts: Vec<&str> = path.trim_start_matches("/api/").split('/').collect();
    match (req.method(), parts.as_slice()) {
        // A read: without a session, the stories as a new player sees them (no guest made).
        (Method::Get, ["stories"]) => {
            let player = session(h, req).await?.map(|s| s.player);
            Ok(Answer::of(200, &rules::stories(&store, player.as_deref()).await?))
        }
        (Method::Post, ["stories", id, "stages", n]) => {
            let st = find_story(id)?;
            // A stage that does not exist is refused before a guest is made.
            let (index, stage) = rules::find_stage(st, n)?;
            let _ = req.body().await?;
            let origin = req.origin()?;
            let (who, cookie): (PlayerRef, _) = who(h, req).await?;
            let capacity = AddressCapacity::of(h, req.client_ip().as_deref());
            let ports = StartPorts { games: &GameObjects(h), capacity: &capacity };
            let mut rng = HostRandom(h);
            let lease = rng.id()?;
            let start = stages::start(&store, &ports, &mut rng, h.now_ms(), st, index, &who, &origin);
            let answer = super::ai_stage_opening(h, &capacity.ip_hash, stage, &lease, start).await??;
            Ok(Answer { cookies: cookie.into_iter().collect(), ..Answer::from(answer) })
        }
        (Method::Post, ["stories", id, action @ ("exit" | "reset")]) => {
            let st = find_story(id)?;
            if *action == "reset" {
                rules::check_reset_confirmation(&req.body().await?)?;
            }
            let (player, cookie) = player_or_guest(h, req).await?;
            stages::end_current(&store, &GameObjects(h), &st.id, &player).await?;
            if *action == "reset" {
                store.reset_story(&player, &st.id, h.now_ms()).await?;
            }
            Ok(Answer::ok(&rules::story_view(&store, st, Some(&player)).await?, cookie))
        }
        (Method::Get, ["players", id]) => {
            let page = rules::games_page(&req.query())?;
            Ok(Answer::of(200, &rules::player_info(&store, id, &page).await?))
        }
        (Method::Get, ["leaderboard"]) => Ok(Answer::of(200, &rules::leaderboard(&store).await?)),
        (Method::Get, ["stats", "matchups"]) => Ok(Answer::of(200, &rules::matchups(&store).await?)),
        (_, ["stories", ..] | ["players", ..] | ["leaderboard"] | ["stats", "matchups"]) => {
            Err(ApiError::new(ErrorCode::MethodNotAllowed, "this method is not allowed on this route"))
        }
        _ => Err(ApiError::not_found(format!("no route {path}"))),
    }
}
