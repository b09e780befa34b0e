//! Rematch glue (the rules are `service::rematch`): the old game's Durable Object runs
//! the offer / accept / decline; an agreed rematch is created by the new game's Durable
//! Object through [`CREATE_PATH`], within the same capacity limits as any new game.

use service::game::Ctx;
use service::http::ApiRequest;
use service::rematch::{self, RematchCall, Reservation, Step};
use service::store::GameStore;
use service::{game::Handled, ApiError};
use worker::{Env, Request};

/// The internal path that creates a rematch game in its new Durable Object.
pub const CREATE_PATH: &str = "/_internal/rematch";

fn failed(e: &ApiError) -> Handled {
    Handled {
        response: service::http::ApiResponse::error(e),
        effects: service::game::Effects::default(),
        record: None,
    }
}

/// `POST /api/games/{id}/rematch`, in the old game's Durable Object. The returned
/// [`Handled`] is applied like any other (state pushed to WebSockets).
pub async fn handle(
    env: &Env,
    req: &Request,
    api: &ApiRequest,
    store: &mut dyn GameStore,
    ctx: &mut Ctx<'_>,
) -> Handled {
    let (call, rec, reservation) = match rematch::request(store, api, ctx) {
        Step::Done(h) => return h,
        Step::Create(call, rec, reservation) => (call, rec, reservation),
    };
    let try_again = || ApiError::new(503, "rematch_failed", "the rematch could not be created; try again");
    // A new reservation is released only when nothing can have been made: the capacity
    // check refused, or the new game's object answered with a refusal. When the call's
    // outcome is unknown (no answer: it may have made the game), the reservation stays,
    // and the next offer or accept makes the game with the same id, or finds it made
    // (the creation is idempotent): never a second game with the same seat tokens, and
    // never an agreed rematch whose game is missing for good. An earlier reservation
    // was admitted by the capacity check when it was made.
    if reservation == Reservation::New {
        let creator = api.player.as_ref().map(|p| p.id.as_str());
        if let Err(e) = crate::router::check_load(req, env, creator).await {
            rematch::release(store, &call.id);
            return failed(&e);
        }
    }
    if crate::config::fault_rematch(env) {
        // Tests only: as if this request died between the reservation and the creation.
        return failed(&try_again());
    }
    match crate::router::internal_call(env, &call.id, CREATE_PATH, &*call).await {
        Ok(resp) if resp.status_code() == 201 => {}
        Ok(resp) => {
            worker::console_error!("rematch {} refused: {}", call.id, resp.status_code());
            if reservation == Reservation::New {
                rematch::release(store, &call.id);
            }
            return failed(&try_again());
        }
        Err(e) => {
            worker::console_error!("rematch {}: no answer from its game: {}", call.id, e.message);
            return failed(&try_again());
        }
    }
    let side = rematch::requester(&rec, api).unwrap_or(engine::Side::South);
    let mut answer = rematch::created(&rec, side);
    // An earlier reservation: the old game's record is as it was (nothing to push).
    answer.effects.changed &= reservation == Reservation::New;
    answer
}

/// In the new game's Durable Object: the body of [`CREATE_PATH`].
pub fn create(store: &mut dyn GameStore, body: &[u8], ctx: &mut Ctx<'_>) -> Handled {
    match serde_json::from_slice::<RematchCall>(body) {
        Ok(call) => rematch::create(store, &call, ctx),
        Err(e) => failed(&ApiError::bad_request("invalid_body", e.to_string())),
    }
}
