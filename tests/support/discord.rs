//! A stand-in for Discord (OAuth2 authorize with state and PKCE, token exchange,
//! `users/@me`) on a local port, a runtime configured to use it, and a cookie-keeping
//! browser that does not follow redirects by itself.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::Server;

/// The stand-in's memory: issued codes (challenge, redirect, user, used) and tokens.
#[derive(Default)]
pub struct Discord {
    codes: HashMap<String, (String, String, String, bool)>,
    tokens: HashMap<String, String>,
    next: u64,
    /// Direct messages the bot sent: (recipient's Discord id, content).
    pub messages: Vec<(String, String)>,
}

fn b64url(bytes: &[u8]) -> String {
    service::accounts::base64url(bytes)
}

fn form(body: &str) -> HashMap<String, String> {
    body.split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| {
            (k.to_owned(), service::accounts::query_param(&format!("x={v}"), "x").unwrap_or_default())
        })
        .collect()
}

/// Starts the stand-in on a free port. `GET /oauth2/authorize?...&user=<id>[&deny=1]`
/// plays the user's consent and redirects back like Discord does.
pub fn stand_in() -> (String, Arc<Mutex<Discord>>) {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let base = format!("http://{}", server.server_addr().to_ip().unwrap());
    let state = Arc::new(Mutex::new(Discord::default()));
    let st = state.clone();
    std::thread::spawn(move || {
        for mut req in server.incoming_requests() {
            let url = req.url().to_owned();
            let (path, query) = url.split_once('?').unwrap_or((&url, ""));
            let q = |k: &str| service::accounts::query_param(query, k).unwrap_or_default();
            let mut d = st.lock().unwrap();
            let reply = match (req.method().as_str(), path) {
                ("GET", "/oauth2/authorize") => {
                    assert_eq!((q("client_id").as_str(), q("scope").as_str()), ("test-client", "identify"));
                    assert_eq!(q("code_challenge_method"), "S256");
                    let target = if q("deny") == "1" {
                        format!("{}?error=access_denied&state={}", q("redirect_uri"), q("state"))
                    } else {
                        d.next += 1;
                        let code = format!("code{}", d.next);
                        d.codes
                            .insert(code.clone(), (q("code_challenge"), q("redirect_uri"), q("user"), false));
                        format!("{}?code={code}&state={}", q("redirect_uri"), q("state"))
                    };
                    tiny_http::Response::from_string("")
                        .with_status_code(302)
                        .with_header(tiny_http::Header::from_bytes("Location", target.as_bytes()).unwrap())
                }
                ("POST", "/api/oauth2/token") => {
                    let mut body = String::new();
                    req.as_reader().read_to_string(&mut body).unwrap();
                    let f = form(&body);
                    let ok = f.get("client_secret").map(String::as_str) == Some("test-secret")
                        && f.get("grant_type").map(String::as_str) == Some("authorization_code");
                    let verifier = f.get("code_verifier").cloned().unwrap_or_default();
                    let challenge = b64url(&Sha256::digest(verifier.as_bytes()));
                    let code = f.get("code").cloned().unwrap_or_default();
                    let redirect = f.get("redirect_uri").cloned().unwrap_or_default();
                    match d.codes.get_mut(&code) {
                        Some(c) if ok && !c.3 && c.0 == challenge && c.1 == redirect => {
                            c.3 = true; // single use, as Discord's codes are
                            let token = format!("tok-{code}");
                            let user = c.2.clone();
                            d.tokens.insert(token.clone(), user);
                            tiny_http::Response::from_string(
                                json!({"access_token": token, "token_type": "Bearer", "expires_in": 604800, "scope": "identify"}).to_string(),
                            )
                        }
                        _ => tiny_http::Response::from_string(json!({"error": "invalid_grant"}).to_string())
                            .with_status_code(400),
                    }
                }
                ("GET", "/api/users/@me") => {
                    let auth = req
                        .headers()
                        .iter()
                        .find(|h| h.field.equiv("Authorization"))
                        .map(|h| h.value.to_string());
                    match auth.and_then(|a| a.strip_prefix("Bearer ").map(str::to_owned)).and_then(|t| d.tokens.get(&t).cloned()) {
                        Some(user) => tiny_http::Response::from_string(
                            json!({"id": user, "username": format!("user{user}"), "global_name": format!("Player {user}")}).to_string(),
                        ),
                        None => tiny_http::Response::from_string("{}").with_status_code(401),
                    }
                }
                // The bot (issue 14): a DM channel per recipient, then a message in it.
                ("POST", "/api/users/@me/channels") | ("POST", _)
                    if path == "/api/users/@me/channels"
                        || (path.starts_with("/api/channels/dm-") && path.ends_with("/messages")) =>
                {
                    let bot = req.headers().iter().any(|h| {
                        h.field.as_str().as_str().eq_ignore_ascii_case("Authorization")
                            && h.value.as_str() == "Bot test-bot-token"
                    });
                    let mut body = String::new();
                    req.as_reader().read_to_string(&mut body).unwrap();
                    let v: Value = serde_json::from_str(&body).unwrap_or_default();
                    if !bot {
                        tiny_http::Response::from_string("{}").with_status_code(401)
                    } else if path == "/api/users/@me/channels" {
                        let to = v["recipient_id"].as_str().unwrap_or_default();
                        tiny_http::Response::from_string(
                            json!({ "id": format!("dm-{to}"), "type": 1 }).to_string(),
                        )
                    } else {
                        let to = path.trim_start_matches("/api/channels/dm-").trim_end_matches("/messages");
                        d.messages
                            .push((to.to_owned(), v["content"].as_str().unwrap_or_default().to_owned()));
                        tiny_http::Response::from_string(json!({ "id": "m" }).to_string())
                    }
                }
                _ => tiny_http::Response::from_string("{}").with_status_code(404),
            };
            drop(d);
            let _ = req.respond(reply);
        }
    });
    (base, state)
}

/// The vars that point a runtime at the stand-in at `discord`: (name, value).
fn discord_vars(discord: &str) -> [(&'static str, String); 4] {
    [
        ("DISCORD_CLIENT_ID", "test-client".to_owned()),
        ("DISCORD_CLIENT_SECRET", "test-secret".to_owned()),
        ("DISCORD_AUTHORIZE_URL", format!("{discord}/oauth2/authorize")),
        ("DISCORD_API_BASE", format!("{discord}/api")),
    ]
}

/// A fresh runtime that signs in against the stand-in at `discord`, with more `vars`.
pub fn server_with(discord: &str, vars: &[(&str, &str)]) -> Server {
    let d = discord_vars(discord);
    let mut all: Vec<(&str, &str)> = d.iter().map(|(k, v)| (*k, v.as_str())).collect();
    all.extend_from_slice(vars);
    Server::start(&all)
}

static SHARED_STAND_IN: std::sync::OnceLock<(String, Arc<Mutex<Discord>>)> = std::sync::OnceLock::new();

/// This binary's shared runtime (see [`super::shared`]), signing in against one shared
/// stand-in: (runtime, the stand-in's address, its memory). Tests sharing it use Discord
/// user ids of their own.
pub fn shared_with(vars: &[(&str, &str)]) -> (&'static Server, &'static str, Arc<Mutex<Discord>>) {
    let (base, memory) = SHARED_STAND_IN.get_or_init(stand_in);
    let d = discord_vars(base);
    let mut all: Vec<(&str, &str)> = d.iter().map(|(k, v)| (*k, v.as_str())).collect();
    all.extend_from_slice(vars);
    (super::shared(&all), base.as_str(), memory.clone())
}

pub fn server(discord: &str) -> Server {
    server_with(discord, &[])
}

/// A browser: keeps its session cookie, never follows redirects by itself.
pub struct Browser {
    pub cookie: Option<String>,
    pub agent: ureq::Agent,
}

pub struct Reply {
    pub status: u16,
    pub location: Option<String>,
    pub set_cookie: Vec<String>,
    pub body: String,
}

impl Default for Browser {
    fn default() -> Browser {
        Browser::new()
    }
}

impl Browser {
    pub fn new() -> Browser {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .into();
        Browser { cookie: None, agent }
    }

    pub fn send(&mut self, method: &str, url: &str, body: Option<&Value>) -> Reply {
        self.send_with(method, url, body, &[])
    }

    /// [`Browser::send`] with more request headers (e.g. the client address the edge
    /// reports, `CF-Connecting-IP`).
    pub fn send_with(
        &mut self,
        method: &str,
        url: &str,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> Reply {
        let mut resp = match method {
            "GET" => {
                let mut r = self.agent.get(url);
                for (k, v) in headers {
                    r = r.header(*k, *v);
                }
                if let Some(c) = &self.cookie {
                    r = r.header("Cookie", &format!("{}={c}", service::accounts::SESSION_COOKIE));
                }
                r.call().unwrap()
            }
            _ => {
                // As a browser does: JSON, and this site's Origin on every write (a POST, or
                // the one PUT: a lesson completed).
                let origin = url.splitn(4, '/').take(3).collect::<Vec<_>>().join("/");
                let write = if method == "PUT" { self.agent.put(url) } else { self.agent.post(url) };
                let mut r = write.header("Content-Type", "application/json").header("Origin", &origin);
                for (k, v) in headers {
                    r = r.header(*k, *v);
                }
                if let Some(c) = &self.cookie {
                    r = r.header("Cookie", &format!("{}={c}", service::accounts::SESSION_COOKIE));
                }
                r.send(body.map(Value::to_string).unwrap_or_default()).unwrap()
            }
        };
        let set_cookie: Vec<String> = resp
            .headers()
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .map(str::to_owned)
            .collect();
        for c in &set_cookie {
            let (name, v) = c.split(';').next().unwrap_or_default().split_once('=').unwrap_or_default();
            if name == service::accounts::SESSION_COOKIE {
                self.cookie = (!v.is_empty()).then(|| v.to_owned());
            }
        }
        let location = resp.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let content_type =
            resp.headers().get("content-type").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let reply = Reply {
            status: resp.status().as_u16(),
            location,
            set_cookie,
            body: resp.body_mut().read_to_string().unwrap_or_default(),
        };
        super::openapi::check(method, url, reply.status, content_type.as_deref(), &reply.body);
        reply
    }

    /// This browser's player, starting its session (a guest) if it has none, as the
    /// client does before a write (`GET /api/me` alone creates nothing).
    pub fn me(&mut self, s: &Server) -> Value {
        let r = self.send("GET", &s.url("/api/me"), None);
        assert_eq!(r.status, 200, "{}", r.body);
        let me: Value = serde_json::from_str(&r.body).unwrap();
        if !me["id"].is_null() {
            return me;
        }
        let r = self.send("POST", &s.url("/api/me"), None);
        assert_eq!(r.status, 200, "{}", r.body);
        serde_json::from_str(&r.body).unwrap()
    }

    /// The whole sign-in: our login → the stand-in's consent → our callback.
    pub fn sign_in(&mut self, s: &Server, user: &str, deny: bool) -> Reply {
        let login = self.send("GET", &s.url("/api/auth/discord/login"), None);
        assert_eq!(login.status, 302, "{}", login.body);
        let to_discord = login.location.unwrap();
        let consent =
            self.send("GET", &format!("{to_discord}&user={user}{}", if deny { "&deny=1" } else { "" }), None);
        assert_eq!(consent.status, 302);
        self.send("GET", &consent.location.unwrap(), None)
    }
}
