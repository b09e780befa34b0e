#![allow(clippy::unwrap_used)]
//! "Sign in with Discord" natively: D1 as SQLite over the migrations, Discord a stand-in
//! that answers as Discord does. The state is single-use and bound to the browser that
//! started the sign-in; every refusal changes nothing.

mod support;

use std::cell::RefCell;

use service::accounts::query_param;
use service::error::{ApiError, ErrorCode};
use service::sagas::signin::{self, App, Discord, DiscordUser, Exchange};
use service::sqlite::Sqlite;
use service::tokens::Random;
use support::{db, run};

const T0: i64 = 1_795_999_200_000;
const ORIGIN: &str = "https://arena.example";

#[derive(Debug)]
struct Counter(u8);

impl Random for Counter {
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), ApiError> {
        for b in buf {
            self.0 = self.0.wrapping_add(1);
            *b = self.0;
        }
        Ok(())
    }
}

/// Discord: the forms it was sent; refuses every code when `reject`.
#[derive(Default)]
struct StandIn {
    reject: bool,
    forms: RefCell<Vec<String>>,
}

impl Discord for StandIn {
    async fn token(&self, form: String) -> Result<String, Exchange> {
        self.forms.borrow_mut().push(form);
        if self.reject {
            return Err(Exchange::Rejected);
        }
        Ok("access-1".into())
    }
    async fn user(&self, access_token: &str) -> Result<DiscordUser, String> {
        assert_eq!(access_token, "access-1");
        Ok(DiscordUser { id: "d-42".into(), username: "ada".into(), global_name: Some("Ada".into()) })
    }
}

fn app() -> App {
    App {
        client_id: "cid".into(),
        client_secret: "secret".into(),
        authorize_url: "https://discord.test/authorize".into(),
    }
}

/// A sign-in started by a browser holding `token` (or none): the state in its URL, and
/// the token it holds afterwards.
fn start(db: &Sqlite, rng: &mut Counter, token: Option<&str>) -> (String, String) {
    let login = run(signin::login(db, rng, T0, &app(), token, ORIGIN)).unwrap();
    assert!(
        login.url.starts_with("https://discord.test/authorize?response_type=code&client_id=cid"),
        "{}",
        login.url
    );
    assert!(login.url.contains("code_challenge_method=S256"));
    let state = query_param(login.url.split_once('?').unwrap().1, "state").unwrap();
    let held = token.map(str::to_owned).or(login.new_token).unwrap();
    (state, held)
}

fn players(db: &Sqlite) -> Vec<(String, Option<String>)> {
    let mut s = db.conn().prepare("SELECT display_name, discord_id FROM players ORDER BY id").unwrap();
    s.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
}

#[test]
fn a_sign_in_makes_the_discord_player_and_a_fresh_session_once() {
    let (db, discord, mut rng) = (db(), StandIn::default(), Counter(0));
    let (state, token) = start(&db, &mut rng, None);
    let q = format!("state={state}&code=the-code");
    let fresh =
        run(signin::callback(&db, &discord, &mut rng, T0 + 1, &app(), &q, Some(&token), ORIGIN)).unwrap();
    assert_ne!(fresh, token, "a fresh session token at sign-in");
    assert_eq!(players(&db), [("Ada".to_owned(), Some("d-42".to_owned()))]);
    let form = discord.forms.borrow()[0].clone();
    assert!(form.contains("code=the-code") && form.contains("code_verifier="), "{form}");
    assert!(
        form.contains("redirect_uri=https%3A%2F%2Farena.example%2Fapi%2Fauth%2Fdiscord%2Fcallback"),
        "{form}"
    );
    // The state is single-use.
    let again = run(signin::callback(&db, &discord, &mut rng, T0 + 2, &app(), &q, Some(&token), ORIGIN));
    assert_eq!(again.unwrap_err().code, ErrorCode::BadState);
    assert_eq!(discord.forms.borrow().len(), 1);
}

#[test]
fn a_callback_from_another_browser_or_without_state_or_code_is_refused_and_changes_nothing() {
    let (db, discord, mut rng) = (db(), StandIn::default(), Counter(0));
    let (state, token) = start(&db, &mut rng, Some("browser-a-token"));
    let cb = |q: &str, t: Option<&str>, rng: &mut Counter| {
        run(signin::callback(&db, &discord, rng, T0 + 1, &app(), q, t, ORIGIN)).unwrap_err()
    };
    let e = cb("code=x", Some(&token), &mut rng);
    assert_eq!((e.status(), e.code), (400, ErrorCode::NoState));
    let e = cb(&format!("state={state}&code=x"), None, &mut rng);
    assert_eq!((e.status(), e.code), (403, ErrorCode::BadState));
    let e = cb(&format!("state={state}&code=x"), Some("browser-b-token"), &mut rng);
    assert_eq!((e.status(), e.code), (403, ErrorCode::BadState));
    assert!(players(&db).is_empty() && discord.forms.borrow().is_empty());
    let (state, token) = start(&db, &mut rng, Some(&token));
    let e = cb(&format!("state={state}&error=access_denied"), Some(&token), &mut rng);
    assert_eq!((e.status(), e.code), (403, ErrorCode::DiscordDenied));
    let (state, token) = start(&db, &mut rng, Some(&token));
    assert_eq!(cb(&format!("state={state}"), Some(&token), &mut rng).code, ErrorCode::NoCode);
    let rejecting = StandIn { reject: true, ..StandIn::default() };
    let (state, token) = start(&db, &mut rng, Some(&token));
    let q = format!("state={state}&code=old");
    let e = run(signin::callback(&db, &rejecting, &mut rng, T0 + 1, &app(), &q, Some(&token), ORIGIN))
        .unwrap_err();
    assert_eq!((e.status(), e.code), (403, ErrorCode::DiscordCodeRejected));
    assert!(players(&db).is_empty());
}

#[test]
fn an_unconfigured_server_refuses_the_login() {
    let (db, mut rng) = (db(), Counter(0));
    let e = run(signin::login(&db, &mut rng, T0, &App::default(), None, ORIGIN)).unwrap_err();
    assert_eq!((e.status(), e.code), (503, ErrorCode::DiscordUnconfigured));
}
