//! `POST /api/games`: a new game, made by its own object after the creation limits.

use crate::create::CreateGame;
use crate::host::{self, Host, HostRandom};
use crate::objects::{answer, AddressCapacity, GameObjects};
use crate::ports::{paths, Capacity, CreateCall};
use crate::tokens::Random;

use super::session::current_player;
use super::{Answer, Incoming, Res};

pub async fn create(h: &impl Host, req: &mut impl Incoming) -> Res {
    let creator = current_player(h, req).await?;
    // The limits before the body: a refused client costs no parsing.
    let ip_hash = host::ip_key(h, req.header("CF-Connecting-IP").as_deref());
    let ip_hash = AddressCapacity { host: h, ip_hash }.admit(creator.as_ref().map(|c| c.id.as_str())).await?;
    let game = CreateGame::parse(&req.body().await?)?;
    let origin = req.origin()?;
    let id = HostRandom(h).id()?;
    let call = CreateCall { id: id.clone(), game, origin, ip_hash, creator, start: None, stage: None };
    // The object's answer goes to the client unchanged.
    let reply = GameObjects(h).call(&id, paths::CREATE, &call).await.map_err(call_failed)?;
    Ok(Answer::from(answer(reply).map_err(call_failed)?))
}

fn call_failed(e: crate::ports::CallError) -> crate::ApiError {
    match e {
        crate::ports::CallError::NoAnswer(why) => crate::ApiError::internal(why),
        crate::ports::CallError::Refused(r) => {
            crate::ApiError::internal(format!("refused with {}", r.status))
        }
    }
}
