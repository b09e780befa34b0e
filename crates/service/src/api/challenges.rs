//! Open challenges: `GET /api/challenges` (the public list), `POST /api/challenges`
//! (post), `POST /api/challenges/{id}/accept` and `…/cancel`; the rules and the accept
//! saga are `crate::sagas::challenges`. The live list (`GET /api/challenges/ws`) is the
//! lobby's object, which the Worker connects.

use crate::challenge::{self, ChallengeList, PostChallenge};
use crate::error::{ApiError, ErrorCode};
use crate::host::{self, Host, HostRandom};
use crate::http::Method;
use crate::objects::{AddressCapacity, GameObjects, Notifications};
use crate::ports::Notifier;
use crate::sagas::challenges::{self as saga, AcceptPorts};

use super::session::{current_player, who};
use super::{Answer, Incoming, Res};

/// How long a challenge stays open (`CHALLENGE_SECONDS`, at most 30 days).
fn ttl_ms(h: &impl Host) -> i64 {
    let s = h
        .var("CHALLENGE_SECONDS")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(challenge::DEFAULT_TTL_S);
    (s.min(30 * 86_400) * 1000) as i64
}

pub async fn handle(h: &impl Host, req: &mut impl Incoming, path: &str) -> Res {
    let rest = path.trim_start_matches("/api/challenges").trim_start_matches('/');
    let parts: Vec<&str> = if rest.is_empty() { Vec::new() } else { rest.split('/').collect() };
    let written = match (req.method(), parts.as_slice()) {
        (Method::Get, []) => {
            return Ok(Answer::of(200, &ChallengeList { challenges: saga::list(h.db(), h.now_ms()).await? }));
        }
        (Method::Post, []) => post(h, req).await?,
        (Method::Post, [id, "accept"]) if crate::game::valid_id(id) => accept(h, req, id).await?,
        (Method::Post, [id, "cancel"]) if crate::game::valid_id(id) => {
            let player = current_player(h, req).await?;
            Answer::of(200, &saga::cancel(h.db(), id, player.as_ref().map(|p| p.id.as_str())).await?)
        }
        // An id that cannot be one names no challenge, whatever the method.
        (_, [id, "accept" | "cancel"]) if !crate::game::valid_id(id) => {
            return Err(ApiError::not_found("no such challenge"));
        }
        (_, [] | ["ws"] | [_, "accept" | "cancel"]) => {
            return Err(ApiError::new(ErrorCode::MethodNotAllowed, "wrong method for this route"));
        }
        _ => return Err(ApiError::not_found("no such challenge")),
    };
    // A write changed the list: the lobby pushes the new one to home pages (a failed
    // notification is logged, and the write's answer stands).
    Notifications(h).lobby_changed().await;
    Ok(written)
}

async fn post(h: &impl Host, req: &mut impl Incoming) -> Res {
    // The body first: a bad one makes no guest.
    let spec = PostChallenge::parse(&req.body().await?)?;
    let (poster, cookie) = who(h, req).await?;
    let ip = host::ip_key(h, req.client_ip().as_deref());
    let posted = saga::post(h.db(), &mut HostRandom(h), h.now_ms(), ttl_ms(h), &poster, &ip, &spec).await?;
    Ok(Answer { cookies: cookie.into_iter().collect(), ..Answer::of(201, &posted) })
}

async fn accept(h: &impl Host, req: &mut impl Incoming, id: &str) -> Res {
    let _ = req.body().await?;
    let origin = req.origin()?;
    let (accepter, cookie) = who(h, req).await?;
    let capacity = AddressCapacity::of(h, req.client_ip().as_deref());
    let ports = AcceptPorts { games: &GameObjects(h), capacity: &capacity, notifier: &Notifications(h) };
    let accepted =
        saga::accept(h.db(), &ports, &mut HostRandom(h), h.now_ms(), id, &accepter, &origin).await?;
    Ok(Answer::ok(&accepted, cookie))
}
