//! `POST /api/games/{id}/rematch`, in the old game's object: the rules
//! ([`crate::rematch::request`]) decide an offer, accept or decline; an agreed rematch is
//! then made by the new game's object, within the capacity limits of every creation.

use crate::game::{Ctx, Handled};
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{CallError, Capacity, Games};
use crate::rematch::{self, Reservation, Step};
use crate::store::GameStore;
use crate::{ApiError, ErrorCode};

fn failed(e: &ApiError) -> Handled {
    Handled { response: ApiResponse::error(e), effects: crate::game::Effects::default(), record: None }
}

fn try_again() -> ApiError {
    ApiError::new(ErrorCode::RematchFailed, "the rematch could not be created; try again")
}

/// The saga. The returned [`Handled`] is applied like any other (the old game's state
/// pushed to its sockets when it changed).
///
/// A new reservation is released only when nothing can have been made: the capacity
/// check refused, or the new game's object answered with a refusal. When the call's
/// outcome is unknown (no answer: it may have made the game), the reservation stays, and
/// the next offer or accept makes the game with the same id, or finds it made (the
/// creation is idempotent): never a second game with the same seat tokens, and never an
/// agreed rematch whose game is missing for good. An earlier reservation was admitted by
/// the capacity check when it was made, under the address the new game's index row
/// counts it (the old record keeps it); while that check runs, another request is told
/// to try again rather than make the game unchecked ([`rematch::ADMISSION_MS`]).
pub async fn request(
    store: &mut dyn GameStore,
    api: &ApiRequest,
    ctx: &mut Ctx<'_>,
    games: &impl Games,
    capacity: &impl Capacity,
) -> Handled {
    let (mut call, rec, reservation) = match rematch::request(store, api, ctx) {
        Step::Done(h) => return h,
        Step::Create(call, rec, reservation) => (call, rec, reservation),
    };
    if reservation == Reservation::New {
        match capacity.admit(&call.id, api.player.as_ref().map(|p| p.id.as_str())).await {
            Err(e) => {
                rematch::release(store, &call.id);
                return failed(&e);
            }
            Ok(ip_hash) => {
                if let Err(e) = rematch::admitted(store, &call.id, &ip_hash) {
                    rematch::release(store, &call.id);
                    capacity.release(&call.id).await;
                    return failed(&e);
                }
                call.ip_hash = Some(ip_hash);
            }
        }
    }
    match games.create_rematch(&call).await {
        Ok(()) => {}
        Err(CallError::Refused(_)) => {
            if reservation == Reservation::New {
                rematch::release(store, &call.id);
                capacity.release(&call.id).await;
            }
            return failed(&try_again());
        }
        Err(CallError::NoAnswer(_)) => return failed(&try_again()),
    }
    let side = rematch::requester(&rec, api).unwrap_or(engine::Side::South);
    let mut answer = rematch::created(&rec, side);
    // An earlier reservation: the old game's record is as it was (nothing to push).
    answer.effects.changed &= reservation == Reservation::New;
    answer
}
