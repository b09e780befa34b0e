//! Accounts on the real runtime: guest sessions, display names, and "Sign in with
//! Discord" against a local stand-in server that speaks Discord's OAuth2 (authorize with
//! state and PKCE, token exchange, `users/@me`).

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

mod support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use support::Server;

/// The stand-in's memory: issued codes (challenge, redirect, user, used) and tokens.
#[derive(Default)]
struct Discord {
    codes: HashMap<String, (String, String, String, bool)>,
    tokens: HashMap<String, String>,
    next: u64,
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
fn stand_in() -> (String, Arc<Mutex<Discord>>) {
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
                _ => tiny_http::Response::from_string("{}").with_status_code(404),
            };
            drop(d);
            let _ = req.respond(reply);
        }
    });
    (base, state)
}

fn server(discord: &str) -> Server {
    let authorize = format!("{discord}/oauth2/authorize");
    let api = format!("{discord}/api");
    Server::start(&[
        ("DISCORD_CLIENT_ID", "test-client"),
        ("DISCORD_CLIENT_SECRET", "test-secret"),
        ("DISCORD_AUTHORIZE_URL", &authorize),
        ("DISCORD_API_BASE", &api),
    ])
}

/// A browser: keeps its session cookie, never follows redirects by itself.
struct Browser {
    cookie: Option<String>,
    agent: ureq::Agent,
}

struct Reply {
    status: u16,
    location: Option<String>,
    set_cookie: Vec<String>,
    body: String,
}

impl Browser {
    fn new() -> Browser {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .into();
        Browser { cookie: None, agent }
    }

    fn send(&mut self, method: &str, url: &str, body: Option<&Value>) -> Reply {
        let mut resp = match method {
            "GET" => {
                let mut r = self.agent.get(url);
                if let Some(c) = &self.cookie {
                    r = r.header("Cookie", &format!("ia_session={c}"));
                }
                r.call().unwrap()
            }
            _ => {
                let mut r = self.agent.post(url).header("Content-Type", "application/json");
                if let Some(c) = &self.cookie {
                    r = r.header("Cookie", &format!("ia_session={c}"));
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
            let v = c.split(';').next().unwrap_or_default().trim_start_matches("ia_session=").to_owned();
            self.cookie = (!v.is_empty()).then_some(v);
        }
        let location = resp.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_owned);
        Reply {
            status: resp.status().as_u16(),
            location,
            set_cookie,
            body: resp.body_mut().read_to_string().unwrap_or_default(),
        }
    }

    fn me(&mut self, s: &Server) -> Value {
        let r = self.send("GET", &s.url("/api/me"), None);
        assert_eq!(r.status, 200, "{}", r.body);
        serde_json::from_str(&r.body).unwrap()
    }

    /// The whole sign-in: our login → the stand-in's consent → our callback.
    fn sign_in(&mut self, s: &Server, user: &str, deny: bool) -> Reply {
        let login = self.send("GET", &s.url("/api/auth/discord/login"), None);
        assert_eq!(login.status, 302, "{}", login.body);
        let to_discord = login.location.unwrap();
        let consent =
            self.send("GET", &format!("{to_discord}&user={user}{}", if deny { "&deny=1" } else { "" }), None);
        assert_eq!(consent.status, 302);
        self.send("GET", &consent.location.unwrap(), None)
    }
}

fn players(s: &Server) -> usize {
    s.d1("SELECT COUNT(*) AS n FROM players")[0]["n"].as_u64().unwrap() as usize
}

#[test]
fn sign_in_with_discord_links_the_guest_and_reaches_the_same_player_elsewhere() {
    let (discord, _) = stand_in();
    let s = server(&discord);
    let mut a = Browser::new();
    let guest = a.me(&s);
    assert_eq!(guest["discord_linked"], false);
    let first = a.send("GET", &s.url("/api/me"), None);
    assert!(first.set_cookie.is_empty(), "an existing session is kept");
    // The cookie a new browser gets is HttpOnly, Secure, SameSite.
    let mut fresh = Browser::new();
    let r = fresh.send("GET", &s.url("/api/me"), None);
    let c = &r.set_cookie[0];
    assert!(c.contains("HttpOnly") && c.contains("Secure") && c.contains("SameSite=Lax"), "{c}");
    // The authorize URL carries state and a PKCE challenge, never the verifier.
    let login = a.send("GET", &s.url("/api/auth/discord/login"), None);
    let loc = login.location.unwrap();
    assert!(loc.starts_with(&discord) && loc.contains("state=") && loc.contains("code_challenge="), "{loc}");
    assert!(!loc.contains("code_verifier"));

    let done = a.sign_in(&s, "4242", false);
    assert_eq!((done.status, done.location.as_deref()), (302, Some("/")), "{}", done.body);
    let me = a.me(&s);
    assert_eq!(me["id"], guest["id"], "the guest became the account");
    assert_eq!(me["discord_linked"], true);
    assert_eq!(me["name"], "Player 4242");

    // A second browser, a new guest, signs in with the same Discord account.
    let mut b = Browser::new();
    let other_guest = b.me(&s);
    assert_ne!(other_guest["id"], guest["id"]);
    assert_eq!(b.sign_in(&s, "4242", false).status, 302);
    assert_eq!(b.me(&s)["id"], guest["id"], "the same player on the second browser");

    // Sign out: the cookie is cleared and the old session is gone.
    let old = b.cookie.clone();
    let out = b.send("POST", &s.url("/api/auth/logout"), None);
    assert_eq!(out.status, 200);
    assert!(out.set_cookie[0].contains("Max-Age=0"));
    let mut stale = Browser { cookie: old, agent: Browser::new().agent };
    assert_ne!(stale.me(&s)["id"], guest["id"], "a revoked session is not accepted");
}

#[test]
fn wrong_state_replayed_code_and_denied_consent_are_refused_with_nothing_created() {
    let (discord, _) = stand_in();
    let s = server(&discord);
    let mut a = Browser::new();
    a.me(&s);
    let n = players(&s);

    // A state this browser never started.
    let r = a.send("GET", &s.url("/api/auth/discord/callback?code=code1&state=forged"), None);
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(r.body.contains("bad_state"));

    // Denied consent.
    let r = a.sign_in(&s, "7", true);
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(r.body.contains("discord_denied"));
    assert_eq!(a.me(&s)["discord_linked"], false);

    // Another browser's state (login CSRF): refused for this browser.
    let mut other = Browser::new();
    other.me(&s);
    let login = other.send("GET", &s.url("/api/auth/discord/login"), None);
    let consent = other.send("GET", &format!("{}&user=9", login.location.unwrap()), None);
    let r = a.send("GET", &consent.location.unwrap(), None);
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(a.me(&s)["discord_linked"], false);

    // A replayed code: the first use links, the replay (with a fresh state) is refused.
    let login = a.send("GET", &s.url("/api/auth/discord/login"), None);
    let consent = a.send("GET", &format!("{}&user=11", login.location.unwrap()), None);
    let back = consent.location.unwrap();
    let code = service::accounts::query_param(back.split_once('?').unwrap().1, "code").unwrap();
    assert_eq!(a.send("GET", &back, None).status, 302);
    let mut c = Browser::new();
    c.me(&s);
    let login = c.send("GET", &s.url("/api/auth/discord/login"), None);
    let state =
        service::accounts::query_param(login.location.unwrap().split_once('?').unwrap().1, "state").unwrap();
    let r = c.send("GET", &s.url(&format!("/api/auth/discord/callback?code={code}&state={state}")), None);
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(r.body.contains("discord_code_rejected"));
    assert_eq!(c.me(&s)["discord_linked"], false);
    // Guests made by the browsers above, and no account from any refused attempt.
    assert_eq!(players(&s), n + 2);
    assert_eq!(s.d1("SELECT COUNT(*) AS n FROM players WHERE discord_id IS NOT NULL")[0]["n"], 1);
}

#[test]
fn display_names_are_validated_and_stored_safely() {
    let s = Server::start(&[]);
    let mut a = Browser::new();
    a.me(&s);
    for bad in ["<script>alert(1)</script>", "Robert'); DROP TABLE players;--", &"x".repeat(5000), "a"] {
        let r = a.send("POST", &s.url("/api/me/name"), Some(&json!({ "name": bad })));
        assert_eq!(r.status, 422, "{bad}: {}", r.body);
        assert!(r.body.contains("invalid_name"));
    }
    let r = a.send("POST", &s.url("/api/me/name"), Some(&json!({ "name": "Zoë O'Neil" })));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(a.me(&s)["name"], "Zoë O'Neil");
    // The players table is intact and holds the name verbatim (bound, not spliced).
    assert_eq!(
        s.d1("SELECT display_name FROM players WHERE display_name LIKE 'Zo%'")[0]["display_name"],
        "Zoë O'Neil"
    );
    // Unconfigured Discord: a clear 503, nothing stored.
    let r = a.send("GET", &s.url("/api/auth/discord/login"), None);
    assert_eq!(r.status, 503);
    assert!(r.body.contains("discord_unconfigured"));
}
