//! The lobby: one Durable Object (named "lobby") holding the home pages' hibernatable
//! WebSockets on `GET /api/challenges/ws`. A socket gets the open-challenge list at once
//! (`{"type":"challenges","challenges":[...]}`, as `GET /api/challenges` answers), and
//! again after every change: the Worker notifies the lobby after a post, an accept and a
//! cancel (`service::objects::Notifications`), and the lobby reads the list from D1 and
//! pushes it to every socket. Expiry is not pushed: a client refreshes at its list's earliest `expires_at`.

use std::cell::RefCell;

use service::lobby::{Deliver, Reads};
use service::objects::{LOBBY, LOBBY_CHANGED};
use service::ports::Limiter as _;
use service::{ApiError, ErrorCode};
use worker::{
    durable_object, DurableObject, Env, Request, Response, Result, State, WebSocket,
    WebSocketIncomingMessage, WebSocketPair,
};

use crate::glue;
use crate::host::WorkerHost;
/// Home pages connected at once, in all (a hibernating object may hold about 32k).
const MAX_SOCKETS: u32 = 10_000;

// Holds runtime handles only (State, Env), which are not Debug.
#[allow(missing_debug_implementations)]
#[durable_object]
pub struct Lobby {
    state: State,
    env: Env,
    /// The order of the lists read (`service::lobby`: D1 reads interleave).
    reads: RefCell<Reads>,
}

impl DurableObject for Lobby {
    fn new(state: State, env: Env) -> Self {
        Self { state, env, reads: RefCell::default() }
    }

    async fn fetch(&self, req: Request) -> Result<Response> {
        if req.path() == LOBBY_CHANGED {
            let seq = self.reads.borrow_mut().begin_push();
            let msg = match self.message(seq).await {
                Ok(m) => m,
                Err(e) => {
                    self.reads.borrow_mut().abandon_push(seq);
                    return glue::error(&e);
                }
            };
            if self.reads.borrow_mut().end_push(seq) == Deliver::All {
                self.push_all(&msg);
            }
            return Response::ok("");
        }
        self.upgrade(&req).await
    }

    async fn websocket_message(&self, ws: WebSocket, message: WebSocketIncomingMessage) -> Result<()> {
        // Clients may ask for the list again ("list"): from memory while no change was
        // announced since it was read (`service::lobby::Reads::cached`), not at all while
        // a push to all is under way (it brings the list: `Reads::read_for_frame`), else
        // from D1; anything else is ignored.
        if matches!(message, WebSocketIncomingMessage::String(ref s) if s.trim() == "list") {
            let kept = self.reads.borrow().cached(crate::host::now_ms()).map(str::to_owned);
            match kept {
                Some(msg) => drop(ws.send_with_str(msg)),
                None if self.reads.borrow().read_for_frame() => self.send_to(&ws).await,
                None => {}
            }
        }
        Ok(())
    }

    async fn websocket_close(&self, ws: WebSocket, code: usize, reason: String, _clean: bool) -> Result<()> {
        let _ = ws.close(Some(service::admission::close_code(code)), Some(reason));
        Ok(())
    }

    async fn websocket_error(&self, _ws: WebSocket, _error: worker::Error) -> Result<()> {
        Ok(())
    }
}

impl Lobby {
    /// `{"type":"challenges","challenges":[...]}` from D1 (read `seq`), kept in memory
    /// until its first challenge expires (at most a minute) if no change was announced
    /// since the read began.
    async fn message(&self, seq: u64) -> std::result::Result<String, ApiError> {
        let (host, now) = (WorkerHost::new(&self.env)?, crate::host::now_ms());
        let challenges = service::sagas::challenges::list(service::host::Host::db(&host), now).await?;
        let until = challenges.iter().map(|c| c.expires_at).fold(now + 60_000, i64::min);
        let msg = serde_json::to_string(&service::challenge::ChallengesMessage { challenges })
            .map_err(|e| ApiError::internal(e.to_string()))?;
        self.reads.borrow_mut().remember(seq, &msg, until);
        Ok(msg)
    }

    fn push_all(&self, msg: &str) {
        for ws in self.state.get_websockets() {
            let _ = ws.send_with_str(msg);
        }
    }

    /// The current list to one socket (accepted before this read began), or to all (see
    /// `service::lobby::Reads::end_one`). If the list cannot be read, the socket is closed
    /// (1011): the client reconnects.
    async fn send_to(&self, ws: &WebSocket) {
        let seq = self.reads.borrow_mut().begin_one();
        let read = self.message(seq).await;
        match read {
            Ok(msg) => match self.reads.borrow_mut().end_one(seq) {
                Deliver::All => self.push_all(&msg),
                Deliver::One => {
                    let _ = ws.send_with_str(msg);
                }
                Deliver::Nothing => {}
            },
            Err(e) => {
                worker::console_error!("lobby: the list could not be read: {}", e.message);
                let _ = ws.close(Some(1011), Some("the list could not be read"));
            }
        }
    }

    async fn upgrade(&self, req: &Request) -> Result<Response> {
        if !crate::host::header(req, "Upgrade").is_some_and(|u| u.eq_ignore_ascii_case("websocket")) {
            return glue::error(&ApiError::new(
                ErrorCode::UpgradeRequired,
                "this route speaks WebSocket only",
            ));
        }
        let limits = crate::config::limits(&self.env);
        let key = match WorkerHost::new(&self.env) {
            Ok(host) => crate::host::ip_key(&host, req),
            Err(e) => return glue::error(&e),
        };
        let tag = match crate::guard::socket_caps(
            &self.state,
            &key,
            MAX_SOCKETS,
            limits.ws_per_ip_per_game,
            "the lobby",
        ) {
            Ok(t) => t,
            Err(e) => return glue::error(&e),
        };
        // Accepted before the list is read: a change meanwhile reaches this socket too.
        let pair = WebSocketPair::new()?;
        self.state.accept_websocket_with_tags(&pair.server, &[&tag]);
        self.send_to(&pair.server).await;
        Response::from_websocket(pair.client)
    }
}

/// `GET /api/challenges/ws`: counts against the address bucket's WebSocket opens per
/// minute (as a game's socket does), then goes to the lobby.
pub async fn connect(req: &Request, env: &Env) -> std::result::Result<Response, ApiError> {
    let internal = |e: worker::Error| ApiError::internal(e.to_string());
    let host = WorkerHost::new(env)?;
    let rate = service::guard::Rate {
        limit: crate::config::limits(env).ws_per_ip_per_minute,
        window_ms: service::create::MINUTE_MS,
    };
    let why = "too many live connections opened from your address this minute";
    let bucket = format!("ws:ip:{}", crate::host::ip_key(&host, req));
    service::objects::Limiters(&host).hit(&bucket, rate, why).await?;
    let stub = env.durable_object("LOBBY").and_then(|ns| ns.id_from_name(LOBBY)?.get_stub());
    stub.map_err(internal)?.fetch_with_request(req.clone().map_err(internal)?).await.map_err(internal)
}
