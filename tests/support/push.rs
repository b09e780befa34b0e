//! A stand-in Web Push service on a local port (RFC 8030): it holds the private keys of
//! the subscriptions it hands out, checks every push's VAPID authorization (RFC 8292:
//! ES256 signature with the `k` key, audience, expiry) and `Content-Encoding: aes128gcm`,
//! decrypts the payload (RFC 8291) and keeps it; a subscription marked gone answers 410.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

struct Sub {
    private: Vec<u8>,
    auth: Vec<u8>,
    gone: bool,
}

#[derive(Default)]
struct State {
    subs: HashMap<String, Sub>,
    received: Vec<Received>,
    errors: Vec<String>,
    /// Subscriptions whose pushes get no answer until released ([`PushService::hold`]).
    held: HashSet<String>,
    /// Pushes being held now, by subscription.
    holding: HashMap<String, u32>,
}

/// A push the stand-in accepted (or answered 410 for), decrypted.
#[derive(Clone, Debug)]
pub struct Received {
    pub subscription: String,
    pub payload: Value,
    /// The VAPID public key (`k`) and subject the push came with.
    pub vapid_key: String,
    pub subject: String,
    pub status: u16,
}

pub struct PushService {
    pub base: String,
    state: Arc<Mutex<State>>,
}

fn b64(bytes: &[u8]) -> String {
    service::accounts::base64url(bytes)
}

/// A P-256 key pair from a seed: (private scalar, uncompressed public key), base64url.
pub fn key_pair(seed: &str) -> (String, String) {
    let private = b64(&Sha256::digest(seed.as_bytes()));
    let public = service::push::Vapid::from_private(&private).unwrap().public_key();
    (private, public)
}

fn header(req: &tiny_http::Request, name: &str) -> Option<String> {
    req.headers()
        .iter()
        .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
        .map(|h| h.value.to_string())
}

impl PushService {
    pub fn start() -> PushService {
        let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
        let base = format!("http://{}", server.server_addr().to_ip().unwrap());
        let state = Arc::new(Mutex::new(State::default()));
        let (st, audience) = (state.clone(), base.clone());
        std::thread::spawn(move || {
            for mut req in server.incoming_requests() {
                let name = req.url().trim_start_matches("/push/").to_owned();
                let mut body = Vec::new();
                req.as_reader().read_to_end(&mut body).unwrap();
                let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64;
                let verdict = (|| {
                    if req.method().as_str() != "POST" {
                        return Err((405, "not POST".to_owned()));
                    }
                    let auth = header(&req, "Authorization").ok_or((401, "no Authorization".to_owned()))?;
                    let (claims, k) = service::push::verify_authorization(&auth, &audience, now)
                        .map_err(|e| (403, format!("VAPID: {e}")))?;
                    if header(&req, "Content-Encoding").as_deref() != Some("aes128gcm") {
                        return Err((400, "Content-Encoding is not aes128gcm".to_owned()));
                    }
                    if header(&req, "TTL").and_then(|t| t.parse::<u64>().ok()).is_none() {
                        return Err((400, "no TTL".to_owned()));
                    }
                    let d = st.lock().unwrap();
                    let sub = d.subs.get(&name).ok_or((404, format!("no subscription {name}")))?;
                    let plain = service::push::decrypt(&body, &sub.private, &sub.auth)
                        .map_err(|e| (400, format!("decrypt: {e}")))?;
                    let payload: Value =
                        serde_json::from_slice(&plain).map_err(|e| (400, format!("payload: {e}")))?;
                    let status = if sub.gone { 410 } else { 201 };
                    Ok(Received {
                        subscription: name.clone(),
                        payload,
                        vapid_key: k,
                        subject: claims.sub,
                        status,
                    })
                })();
                let status = match verdict {
                    Ok(r) => {
                        let s = r.status;
                        st.lock().unwrap().received.push(r);
                        s
                    }
                    Err((s, why)) => {
                        st.lock().unwrap().errors.push(why);
                        s
                    }
                };
                // A held subscription's push waits for its release (a minute at most).
                let t = Instant::now();
                while st.lock().unwrap().held.contains(&name) && t.elapsed() < Duration::from_secs(60) {
                    *st.lock().unwrap().holding.entry(name.clone()).or_default() = 1;
                    std::thread::sleep(Duration::from_millis(20));
                }
                st.lock().unwrap().holding.remove(&name);
                let _ = req.respond(tiny_http::Response::from_string("").with_status_code(status));
            }
        });
        PushService { base, state }
    }

    /// A new subscription `name` (`PushSubscription.toJSON()` form) with its own keys.
    pub fn subscription(&self, name: &str) -> Value {
        let (private, public) = key_pair(&format!("push-ua-{name}"));
        let auth = Sha256::digest(format!("push-auth-{name}").as_bytes())[..16].to_vec();
        let value = json!({
            "endpoint": format!("{}/push/{name}", self.base),
            "keys": { "p256dh": public, "auth": b64(&auth) },
        });
        let private = service::push::base64url_decode(&private).unwrap();
        self.state.lock().unwrap().subs.insert(name.to_owned(), Sub { private, auth, gone: false });
        value
    }

    /// From now on, pushes to `name` get no answer until [`PushService::release`].
    pub fn hold(&self, name: &str) {
        self.state.lock().unwrap().held.insert(name.to_owned());
    }

    /// Answers `name`'s held push, and those after it, at once.
    pub fn release(&self, name: &str) {
        self.state.lock().unwrap().held.remove(name);
    }

    /// Waits (20 s at most) until a push to `name` arrived and is being held.
    pub fn wait_held(&self, name: &str) {
        let t = Instant::now();
        while !self.state.lock().unwrap().holding.contains_key(name) {
            assert!(t.elapsed() < Duration::from_secs(20), "no push to {name} held");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// From now on, pushes to `name` are answered 410 Gone.
    pub fn set_gone(&self, name: &str) {
        self.state.lock().unwrap().subs.get_mut(name).unwrap().gone = true;
    }

    pub fn received(&self) -> Vec<Received> {
        self.state.lock().unwrap().received.clone()
    }

    /// Pushes that failed the checks (none expected).
    pub fn errors(&self) -> Vec<String> {
        self.state.lock().unwrap().errors.clone()
    }

    /// Waits (polling, up to 20 s) until a push to `subscription` of `kind` for `game` arrived.
    pub fn wait_for(&self, subscription: &str, kind: &str, game: &str) -> Received {
        let t = Instant::now();
        loop {
            if let Some(r) = self.received().into_iter().find(|r| {
                r.subscription == subscription && r.payload["kind"] == kind && r.payload["game"] == game
            }) {
                return r;
            }
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "no {kind} push to {subscription}: {:?} errors {:?}",
                self.received(),
                self.errors()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}
