//! The runtime as one port: what a request's handling needs of the platform beyond the
//! request itself. SQL ([`Host::db`], D1 in the Worker), calls into Durable Objects by
//! name ([`Host::object`]), outgoing HTTP ([`Host::fetch`]: Discord, push services),
//! configuration, the clock, randomness and the log. The Worker binds it to `Env`
//! (`src/host.rs`, a few lines per method); the native tests bind it to SQLite and games
//! in memory. Everything built on it — the game, limiter and lobby clients
//! ([`crate::objects`]), the areas' handlers ([`crate::api`]) — is the service's, and
//! tested natively.

use crate::error::ApiError;
use crate::http::Method;
use crate::sql::Sql;
use crate::tokens::Random;

/// A class of Durable Object the service calls (each addressed by a name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Namespace {
    /// One per game, named by the game's id.
    Games,
    /// One per rate bucket.
    Limiter,
    /// The lobby (one, named "lobby").
    Lobby,
}

/// An outgoing HTTP request (to Discord, to a push service).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    pub method: Method,
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

/// An answer: its status and body.
pub type Reply = (u16, Vec<u8>);

/// The platform a request is handled on.
#[allow(async_fn_in_trait)] // single-threaded wasm: callers never need the futures to be Send
pub trait Host {
    type Db: Sql;
    /// The players, index and challenges database.
    fn db(&self) -> &Self::Db;
    /// A configuration value: a secret of that name, else a plain variable.
    fn var(&self, name: &str) -> Option<String>;
    fn now_ms(&self) -> i64;
    /// Fills `buf` from the platform's secure randomness.
    fn random(&self, buf: &mut [u8]) -> Result<(), ApiError>;
    /// A line for the operator's log (never a secret or a token).
    fn log(&self, line: &str);
    /// `POST https://<namespace><path>` to the object `name` with a JSON `body` and extra
    /// `headers`; its status and text, or why no answer came.
    async fn object(
        &self,
        ns: Namespace,
        name: &str,
        path: &str,
        body: String,
        headers: &[(&str, String)],
    ) -> Result<(u16, String), String>;
    /// Sends an outgoing request; its status and body, or why it failed.
    async fn fetch(&self, req: Outgoing) -> Result<Reply, String>;
    /// Whether this build carries the network AI.
    fn with_network(&self) -> bool {
        false
    }
}

/// The host's randomness as the service's [`Random`].
#[derive(Debug)]
pub struct HostRandom<'a, H>(pub &'a H);

impl<H: Host> Random for HostRandom<'_, H> {
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), ApiError> {
        self.0.random(buf)
    }
}

/// A non-empty configuration value.
pub fn var(host: &impl Host, name: &str) -> Option<String> {
    host.var(name).filter(|v| !v.trim().is_empty())
}

/// The settings the variables give (`crate::config::Settings`).
pub fn settings(host: &impl Host) -> crate::config::Settings {
    crate::config::Settings::read(|name| host.var(name), host.with_network())
}

/// Only for local runs without the `IP_HASH_KEY` secret.
const DEV_IP_HASH_KEY: &str = "iron-arena-development-ip-hash-key";

/// The keyed hash of a client address's bucket (see `crate::guard`). The key is the
/// `IP_HASH_KEY` secret; without one (local development) a fixed development key is used
/// and the log says so.
pub fn ip_key(host: &impl Host, ip: Option<&str>) -> String {
    crate::guard::ip_key(hash_key(host).as_bytes(), ip.unwrap_or_default())
}

/// The keyed hashes of the wider buckets of an IPv6 address (`crate::guard::wider_buckets`).
pub fn wider_keys(host: &impl Host, ip: Option<&str>) -> Vec<String> {
    let key = hash_key(host);
    crate::guard::wider_buckets(ip.unwrap_or_default())
        .iter()
        .map(|b| crate::guard::keyed_hash(key.as_bytes(), b))
        .collect()
}

/// A deployment must have the `IP_HASH_KEY` secret (every stored address is keyed by it;
/// the development key is public): without it the API answers 503 `not_configured`, except
/// on a loopback host (`wrangler dev` on this machine, where the development key is used).
pub fn check_configured(host: &impl Host, url_host: &str) -> Result<(), ApiError> {
    if is_loopback(url_host) || var(host, "IP_HASH_KEY").is_some() {
        return Ok(());
    }
    Err(ApiError::new(
        crate::error::ErrorCode::NotConfigured,
        "IP_HASH_KEY is not set: set the secret (wrangler secret put IP_HASH_KEY) before serving",
    ))
}

/// Whether a request's URL host is this machine (`wrangler dev`): no deployment is reached
/// under such a name (the platform routes requests by the zone's hostnames).
pub fn is_loopback(url_host: &str) -> bool {
    matches!(url_host, "localhost" | "127.0.0.1" | "[::1]" | "::1") || url_host.ends_with(".localhost")
}

/// The header where the platform puts the client's address.
pub const CLIENT_IP_HEADER: &str = "CF-Connecting-IP";

/// The client's address, taken only from where the platform puts it (`origin`: the
/// request's `scheme://host[:port]`; `header`: its [`CLIENT_IP_HEADER`]). Cloudflare's
/// edge sets the header on every request, replacing any a client sent. The local runtime
/// (workerd under `wrangler dev`, on a loopback host) sets it only when the client did not,
/// so there a client could pick its address and slip every per-address limit: a local
/// request is the loopback address, whatever it says. The one exception is the module
/// the real-runtime suites run on (feature `test-hooks`, never deployed), whose tests
/// stand for clients at many addresses by setting the header.
pub fn client_ip(origin: &str, header: Option<String>) -> Option<String> {
    if is_loopback(url_host(origin)) && !cfg!(feature = "test-hooks") {
        return Some("127.0.0.1".to_owned());
    }
    header
}

/// The host of `scheme://host[:port]` (an IPv6 host keeps its brackets).
fn url_host(origin: &str) -> &str {
    let rest = origin.split_once("://").map_or(origin, |(_, r)| r);
    let rest = rest.split('/').next().unwrap_or(rest);
    match rest.strip_prefix('[') {
        Some(v6) => v6.find(']').map_or(rest, |end| &rest[..end + 2]),
        None => rest.split(':').next().unwrap_or(rest),
    }
}

fn hash_key(host: &impl Host) -> String {
    var(host, "IP_HASH_KEY").unwrap_or_else(|| {
        host.log("IP_HASH_KEY is not set: using the development key (set the secret in production)");
        DEV_IP_HASH_KEY.to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_host_of_an_origin() {
        assert_eq!(url_host("https://arena.example"), "arena.example");
        assert_eq!(url_host("http://127.0.0.1:8787"), "127.0.0.1");
        assert_eq!(url_host("http://[::1]:8787"), "[::1]");
        assert_eq!(url_host("http://localhost"), "localhost");
    }

    /// Regression (issue 30): the local runtime passed a client's own `CF-Connecting-IP`
    /// on, so a local client chose its address bucket.
    #[test]
    fn a_client_address_comes_only_from_the_platform() {
        let claimed = || Some("203.0.113.5".to_owned());
        assert_eq!(client_ip("https://arena.example", claimed()).as_deref(), Some("203.0.113.5"));
        assert_eq!(client_ip("https://arena.example", None), None);
        let local = client_ip("http://127.0.0.1:8787", claimed());
        if cfg!(feature = "test-hooks") {
            assert_eq!(local.as_deref(), Some("203.0.113.5"));
        } else {
            assert_eq!(local.as_deref(), Some("127.0.0.1"));
            assert_eq!(client_ip("http://[::1]:8787", claimed()).as_deref(), Some("127.0.0.1"));
            assert_eq!(client_ip("http://play.localhost", None).as_deref(), Some("127.0.0.1"));
        }
    }
}
