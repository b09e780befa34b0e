//! The runtime's side of the service's ports ([`service::ports`]): calls into the games'
//! Durable Objects (one per game id, addressed by name), the creation capacity check,
//! and the notifications. Each call is a request to the object on an internal path
//! (`/_internal/…`, never forwarded from a client by the router) with a typed body.

use serde::de::DeserializeOwned;
use service::game::{Created, Joined};
use service::http::{ApiResponse, PlayerRef};
use service::ports::{AbandonCall, CallError, CallResult, Capacity, CreateCall, Games, Notifier};

use crate::limiter::Limiters;
use service::rematch::RematchCall;
use service::ApiError;
use worker::wasm_bindgen::JsValue;
use worker::{Env, Method, Request, RequestInit, Response};

use crate::glue;

pub use service::ports::paths::{
    ABANDON as ABANDON_PATH, CREATE as CREATE_PATH, REMATCH as REMATCH_PATH, WAKE as WAKE_PATH,
    WITHDRAW as WITHDRAW_PATH,
};

/// The Durable Object of game `id`.
pub fn stub(env: &Env, id: &str) -> Result<worker::Stub, ApiError> {
    let internal = |e: worker::Error| ApiError::internal(e.to_string());
    env.durable_object("GAMES")
        .map_err(internal)?
        .id_from_name(id)
        .map_err(internal)?
        .get_stub()
        .map_err(internal)
}

/// The games' objects, as the service's [`Games`] port.
pub struct GameObjects<'a>(pub &'a Env);

fn no_answer(e: impl std::fmt::Display) -> CallError {
    CallError::NoAnswer(e.to_string())
}

impl GameObjects<'_> {
    /// Sends `body` to game `id`'s object at `path` (with `player` as the session's
    /// player, for a join); its raw answer.
    async fn send(
        &self,
        id: &str,
        path: &str,
        body: String,
        player: Option<&PlayerRef>,
    ) -> CallResult<Response> {
        let mut init = RequestInit::new();
        init.with_method(Method::Post).with_body(Some(JsValue::from_str(&body)));
        let req = Request::new_with_init(&format!("https://game{path}"), &init).map_err(no_answer)?;
        req.headers().set("Content-Type", "application/json").map_err(no_answer)?;
        if let Some(p) = player {
            req.headers().set(glue::PLAYER_HEADER, &glue::player_header_value(p)).map_err(no_answer)?;
        }
        let sent = match stub(self.0, id) {
            Ok(stub) => stub.fetch_with_request(req).await.map_err(no_answer),
            Err(e) => Err(no_answer(e.message)),
        };
        // Every failed call is logged here, once, with what it was: the sagas that make
        // them only decide what it means.
        match sent {
            Ok(resp) if resp.status_code() >= 400 => {
                worker::console_error!("game {id} {path}: refused with {}", resp.status_code());
                Ok(resp)
            }
            Ok(resp) => Ok(resp),
            Err(e) => {
                if let CallError::NoAnswer(why) = &e {
                    worker::console_error!("game {id} {path}: no answer: {why}");
                }
                Err(e)
            }
        }
    }

    async fn call(&self, id: &str, path: &str, body: &impl serde::Serialize) -> CallResult<Response> {
        let body = serde_json::to_string(body).map_err(no_answer)?;
        self.send(id, path, body, None).await
    }
}

/// An answer whose status is `ok`: its body as `T`; any other: refused, as it answered.
async fn typed<T: DeserializeOwned>(mut resp: Response, ok: u16) -> CallResult<T> {
    if resp.status_code() != ok {
        return Err(CallError::Refused(answer(&mut resp).await?));
    }
    resp.json().await.map_err(no_answer)
}

/// An object's answer in the service's form, to pass on.
async fn answer(resp: &mut Response) -> CallResult<ApiResponse> {
    let status = resp.status_code();
    let body = resp.text().await.map_err(no_answer)?;
    ApiResponse::relayed(status, body).map_err(no_answer)
}

/// Refused unless the status is one of `ok`.
async fn status_in(mut resp: Response, ok: &[u16]) -> CallResult<()> {
    if ok.contains(&resp.status_code()) {
        Ok(())
    } else {
        Err(CallError::Refused(answer(&mut resp).await?))
    }
}

impl Games for GameObjects<'_> {
    async fn create(&self, call: &CreateCall) -> CallResult<Created> {
        typed(self.call(&call.id, CREATE_PATH, call).await?, 201).await
    }

    async fn create_answer(&self, call: &CreateCall) -> CallResult<ApiResponse> {
        answer(&mut self.call(&call.id, CREATE_PATH, call).await?).await
    }

    async fn join(&self, game: &str, invite: &str, player: &PlayerRef) -> CallResult<Joined> {
        #[derive(serde::Serialize)]
        struct Join<'a> {
            invite: &'a str,
        }
        let body = serde_json::to_string(&Join { invite }).map_err(no_answer)?;
        typed(self.send(game, &format!("/api/games/{game}/join"), body, Some(player)).await?, 200).await
    }

    async fn abandon(&self, game: &str, call: &AbandonCall) -> CallResult<()> {
        status_in(self.call(game, ABANDON_PATH, call).await?, &[200, 404]).await
    }

    async fn withdraw(&self, game: &str) -> CallResult<()> {
        status_in(self.call(game, WITHDRAW_PATH, &service::http::Empty {}).await?, &[200]).await
    }

    async fn create_rematch(&self, call: &RematchCall) -> CallResult<()> {
        #[cfg(feature = "test-hooks")]
        if crate::config::fault_rematch(self.0) {
            // Tests only: as if this request died between the reservation and the creation.
            return Err(no_answer("injected crash (FAULT_REMATCH)"));
        }
        status_in(self.call(&call.id, REMATCH_PATH, call).await?, &[201]).await
    }
}

/// The creation capacity of a request's address bucket.
pub struct RequestCapacity<'a> {
    pub env: &'a Env,
    pub req: &'a Request,
}

impl Capacity for RequestCapacity<'_> {
    async fn admit(&self, creator: Option<&str>) -> Result<String, ApiError> {
        check_load(self.req, self.env, creator).await
    }
}

/// The creation limits, before a game is made (`service::sagas::capacity::admit`).
/// Returns the address bucket's keyed hash (what the index stores).
pub async fn check_load(req: &Request, env: &Env, creator: Option<&str>) -> Result<String, ApiError> {
    let ip_hash = crate::limiter::ip_key(req, env);
    let db = env.d1("DB").map_err(|e| ApiError::internal(e.to_string()))?;
    let limits = crate::config::limits(env);
    service::sagas::capacity::admit(&Limiters(env), &crate::d1::D1(&db), limits, &ip_hash, creator).await?;
    Ok(ip_hash)
}

/// Web Push, Discord DMs and the lobby as the [`Notifier`] port.
pub struct Notifications<'a>(pub &'a Env);

impl Notifier for Notifications<'_> {
    async fn challenge_accepted(&self, poster: &str, game: &str) {
        crate::push::notify_player(
            self.0,
            poster,
            "challenge_accepted",
            game,
            "Challenge accepted",
            "Your open challenge was accepted: the game has begun",
        )
        .await;
    }

    async fn lobby_changed(&self) {
        crate::lobby::notify(self.0).await;
    }
}

/// Sends an internal request to game `id`'s object; its answer as it is (a creation's
/// answer goes to the client unchanged).
pub async fn internal_call<T: serde::Serialize>(
    env: &Env,
    id: &str,
    path: &str,
    call: &T,
) -> Result<Response, ApiError> {
    GameObjects(env).call(id, path, call).await.map_err(|e| match e {
        CallError::NoAnswer(why) => ApiError::internal(why),
        CallError::Refused(r) => ApiError::internal(format!("refused with {}", r.status)),
    })
}
