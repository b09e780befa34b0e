//! Rematch glue (the rules are `service::rematch`): the old game's Durable Object runs
//! the offer / accept / decline; an agreed rematch is created by the new game's Durable
//! Object through [`CREATE_PATH`], within the same capacity limits as any new game.

use service::game::Ctx;
use service::http::ApiRequest;
use service::rematch::{self, RematchCall, Step};
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
    let (call, rec) = match rematch::request(store, api, ctx) {
        Step::Done(h) => return h,
        Step::Create(call, rec) => (call, rec),
    };
    let made = async {
        let creator = api.player.as_ref().map(|p| p.id.as_str());
        crate::router::check_load(req, env, creator).await?;
        let resp = crate::router::internal_call(env, &call.id, CREATE_PATH, &*call).await?;
        if resp.status_code() != 201 {
            return Err(ApiError::new(503, "rematch_failed", "the rematch could not be created; try again"));
        }
        Ok(())
    }
    .await;
    if let Err(e) = made {
        rematch::release(store, &call.id);
        return failed(&e);
    }
    let side = rematch::requester(&rec, api).unwrap_or(engine::Side::South);
    rematch::created(&rec, side)
}

/// In the new game's Durable Object: the body of [`CREATE_PATH`].
pub fn create(store: &mut dyn GameStore, body: &[u8], ctx: &mut Ctx<'_>) -> Handled {
    match serde_json::from_slice::<RematchCall>(body) {
        Ok(call) => rematch::create(store, &call, ctx),
        Err(e) => failed(&ApiError::bad_request("invalid_body", e.to_string())),
    }
}
