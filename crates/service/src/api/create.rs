//! `POST /api/games`: a new game, made by its own object after the creation limits.

use crate::create::{CreateGame, SeatChoice};
use crate::host::{Host, HostRandom};
use crate::http::PlayerRef;
use crate::model::Mode;
use crate::objects::{answer, AddressCapacity, GameObjects, Limiters};
use crate::ports::{paths, Capacity, CreateCall};
use crate::tokens::Random;

use super::session::current_player;
use super::{Answer, Incoming, Res};

pub async fn create(h: &impl Host, req: &mut impl Incoming) -> Res {
    let creator = current_player(h, req).await?;
    // The limits before the body: a refused client costs no parsing. The admission
    // reserves the new game's place among the unfinished games; anything but the game
    // made gives it back (a crash in between: swept after ten minutes).
    let capacity = AddressCapacity::of(h, req.client_ip().as_deref());
    let id = HostRandom(h).id()?;
    let ip_hash = capacity.admit(&id, creator.as_ref().map(|c| c.id.as_str())).await?;
    let made = make(h, req, id.clone(), ip_hash, creator).await;
    if !made.as_ref().is_ok_and(|a| a.response.status == 201) {
        capacity.release(&id).await;
    }
    made
}

/// The admitted creation: the body, the AI's opening budget, the game's own object.
async fn make(
    h: &impl Host,
    req: &mut impl Incoming,
    id: String,
    ip_hash: String,
    creator: Option<PlayerRef>,
) -> Res {
    let game = CreateGame::parse(&req.body().await?)?;
    let origin = req.origin()?;
    // The AI may open (the creator did not take South): a search, metered like a move.
    let opens = game.mode == Mode::Ai && game.seat != SeatChoice::South;
    let limits = crate::host::settings(h).limits;
    if opens {
        crate::admission::ai_cost_limit(&Limiters(h), limits, &ip_hash, game.level).await?;
        Limiters(h).search_begin(&ip_hash, &id, limits.ai_searches_per_ip).await?;
    }
    let call = CreateCall {
        id: id.clone(),
        game,
        origin,
        ip_hash: ip_hash.clone(),
        creator,
        start: None,
        stage: None,
    };
    // The object's answer goes to the client unchanged.
    let reply = GameObjects(h).call(&id, paths::CREATE, &call).await;
    if opens {
        Limiters(h).search_done(&ip_hash, &id).await;
    }
    Ok(Answer::from(answer(reply.map_err(call_failed)?).map_err(call_failed)?))
}

fn call_failed(e: crate::ports::CallError) -> crate::ApiError {
    match e {
        crate::ports::CallError::NoAnswer(why) => crate::ApiError::internal(why),
        crate::ports::CallError::Refused(r) => {
            crate::ApiError::internal(format!("refused with {}", r.status))
        }
    }
}
