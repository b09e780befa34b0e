//! A game's live sockets: admitting one. The caps on this object's sockets, the address
//! bucket's lease (another object), the accept, and only then the first state message.
//!
//! The order is the point. Taking the lease waits on another Durable Object, and a Durable
//! Object runs its other events while it waits on anything but its own storage: a join or a
//! move can land in that gap. Its state goes to the sockets open at that moment, which this
//! one is not yet. So the state is read after the socket is accepted, with nothing awaited
//! in between: every change before the read is in the message, and every change after it
//! is broadcast to this socket. (Reading it before the lease left a player on the invite
//! page of a game their friend had joined: `tests/sockets.rs` has the regression.)

use crate::admission;
use crate::create::Limits;
use crate::error::ApiError;
use crate::object::state_message;
use crate::store::GameStore;
use crate::tokens::{self, Random};

/// The prefix of each socket's own tag, beside its address bucket's `ip:` tag: a close
/// counts the bucket's other sockets by it.
pub const SOCK_TAG: &str = "sock:";

/// The object's sockets, as its runtime holds them (the Hibernation API in the Worker).
#[allow(async_fn_in_trait)] // single-threaded wasm: callers never need the futures to be Send
pub trait SocketHost {
    /// An accepted socket: what the upgrade answers with, and what its first message goes to.
    type Socket;
    /// How many sockets this object holds open: in all, and tagged `tag`.
    fn open(&self, tag: &str) -> (usize, usize);
    /// The address bucket's lease on one more socket of this game, `have` of them being
    /// open here from it. It waits on another object: this one's other events run meanwhile.
    async fn lease(&self, tag: &str, have: u32, cap: u32) -> Result<(), ApiError>;
    /// Hands an unused lease back (an absolute count: `have` are open here from the bucket).
    async fn unlease(&self, tag: &str, have: u32);
    /// Accepts a socket under these tags: from now on every broadcast reaches it.
    fn accept(&self, tags: &[&str]) -> Result<Self::Socket, ApiError>;
    /// Sends one message to one socket (best effort, as a broadcast is).
    fn send(&self, socket: &Self::Socket, msg: &str);
}

/// Admits a socket from address bucket `ip_key` to the game in `store`, within `limits`,
/// and sends it the current state. A game that does not exist is a 404 before anything.
pub async fn admit<H: SocketHost>(
    host: &H,
    store: &impl GameStore,
    ip_key: &str,
    limits: &Limits,
    rng: &mut impl Random,
) -> Result<H::Socket, ApiError> {
    if store.load().map_err(|e| ApiError::internal(format!("storage: {e}")))?.is_none() {
        return Err(ApiError::not_found("no such game"));
    }
    let tag = admission::socket_tag(ip_key);
    let (open, mine) = host.open(&tag);
    admission::socket_caps(open, mine, limits.ws_per_game, limits.ws_per_ip_per_game, "this game")?;
    let have = u32::try_from(mine).unwrap_or(u32::MAX);
    host.lease(&tag, have, limits.ws_per_ip).await?;
    // The lease waited on another object, and this one may have admitted other sockets
    // meanwhile (parallel upgrades all passed the check above on the same counts): the
    // caps again, on the counts as they are now, with nothing awaited before the accept.
    let (open, mine) = host.open(&tag);
    if let Err(e) =
        admission::socket_caps(open, mine, limits.ws_per_game, limits.ws_per_ip_per_game, "this game")
    {
        host.unlease(&tag, have).await;
        return Err(e);
    }
    let mut id = [0u8; 12];
    if let Err(e) = rng.fill(&mut id) {
        host.unlease(&tag, have).await;
        return Err(e);
    }
    let sock = format!("{SOCK_TAG}{}", tokens::hex(&id));
    let socket = match host.accept(&[&tag, &sock]) {
        Ok(s) => s,
        Err(e) => {
            host.unlease(&tag, have).await;
            return Err(e);
        }
    };
    // Read now, not before the lease: see the module's comment.
    if let Some(msg) = store.load().ok().flatten().as_ref().and_then(state_message) {
        host.send(&socket, &msg);
    }
    Ok(socket)
}
