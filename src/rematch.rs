//! Rematch glue: the saga is `service::sagas::rematch` (the rules `service::rematch`),
//! run in the old game's Durable Object; the new game's object makes the game through
//! [`crate::games_client::REMATCH_PATH`].

use service::game::{Ctx, Handled};
use service::http::ApiRequest;
use service::rematch::RematchCall;
use service::store::GameStore;
use service::ApiError;
use worker::{Env, Request};

use crate::games_client::{GameObjects, RequestCapacity};

/// `POST /api/games/{id}/rematch`, in the old game's Durable Object.
pub async fn handle(
    env: &Env,
    req: &Request,
    api: &ApiRequest,
    store: &mut dyn GameStore,
    ctx: &mut Ctx<'_>,
) -> Handled {
    let capacity = RequestCapacity { env, req };
    service::sagas::rematch::request(store, api, ctx, &GameObjects(env), &capacity).await
}

/// In the new game's Durable Object: the body of [`crate::games_client::REMATCH_PATH`].
pub fn create(store: &mut dyn GameStore, body: &[u8], ctx: &mut Ctx<'_>) -> Handled {
    match serde_json::from_slice::<RematchCall>(body) {
        Ok(call) => service::rematch::create(store, &call, ctx),
        Err(e) => Handled {
            response: service::http::ApiResponse::error(&ApiError::bad_request(
                "invalid_body",
                e.to_string(),
            )),
            effects: service::game::Effects::default(),
            record: None,
        },
    }
}
