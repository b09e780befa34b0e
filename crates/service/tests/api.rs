#![allow(clippy::unwrap_used)]
//! The API's areas through `service::api::handle`, natively, as the Worker runs them: a
//! [`TestHost`] whose database is real SQLite over the real migrations, whose game
//! objects run the service's game code over memory stores, whose limiters run
//! `service::local::limiter_call` over SQLite (as each limiter object does over its own
//! storage), and whose outgoing HTTP is recorded. So the Worker's only part left is
//! binding these to the runtime (`src/host.rs`).

mod support;

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde_json::{json, Value};
use service::ai::PlaceholderAi;
use service::api::{self, Answer, Incoming};
use service::create::CreateGame;
use service::error::{ApiError, ErrorCode};
use service::game::{self, Ctx, Extra, Route};
use service::host::{Host, Namespace, Outgoing, Reply};
use service::http::{ApiRequest, Method};
use service::model::GameRecord;
use service::objects::{forwarded_player, PLAYER_HEADER};
use service::ports::{paths, CreateCall};
use service::routes;
use service::sqlite::Sqlite;
use service::store::MemoryStore;
use support::{run, SeededRng};

const T0: i64 = 1_795_999_200_000;
const ORIGIN: &str = "https://arena.example";

/// The platform, in memory and on SQLite.
struct TestHost {
    db: Sqlite,
    vars: BTreeMap<&'static str, String>,
    rng: RefCell<SeededRng>,
    games: RefCell<BTreeMap<String, MemoryStore>>,
    limiters: RefCell<BTreeMap<String, Sqlite>>,
    /// Every object call: (namespace, name, path).
    calls: RefCell<Vec<(Namespace, String, String)>>,
    fetched: RefCell<Vec<Outgoing>>,
    log: RefCell<Vec<String>>,
}

impl TestHost {
    fn new(vars: &[(&'static str, &str)]) -> TestHost {
        TestHost {
            db: Sqlite::migrated().unwrap(),
            vars: vars.iter().map(|(k, v)| (*k, (*v).to_owned())).collect(),
            rng: RefCell::new(SeededRng(0xa91)),
            games: RefCell::default(),
            limiters: RefCell::default(),
            calls: RefCell::default(),
            fetched: RefCell::default(),
            log: RefCell::default(),
        }
    }

    fn calls_to(&self, ns: Namespace) -> Vec<String> {
        self.calls.borrow().iter().filter(|c| c.0 == ns).map(|c| c.2.clone()).collect()
    }

    /// The game object's answer to one call, as the Durable Object gives it.
    fn game(&self, id: &str, path: &str, body: &str, headers: &[(&str, String)]) -> (u16, String) {
        let mut rng = SeededRng(0x6a3e);
        let mut ai = PlaceholderAi;
        let mut ctx = Ctx { now: T0, rng: &mut rng, ai: &mut ai, day_ms: 86_400_000 };
        let mut games = self.games.borrow_mut();
        let store = games.entry(id.to_owned()).or_default();
        let answer = if path == paths::CREATE {
            let call: CreateCall = serde_json::from_str(body).unwrap();
            let extra = Extra {
                creator: call.creator,
                start: call.start,
                stage: call.stage,
                ip_hash: Some(call.ip_hash),
            };
            game::create_with(store, id, &call.game, &extra, &call.origin, &mut ctx).response
        } else if path == paths::WAKE {
            service::http::ApiResponse::of(200, &service::http::Empty {})
        } else {
            let player = headers.iter().find(|(k, _)| *k == PLAYER_HEADER).map(|(_, v)| v.as_str());
            let (_, route) = game::route(Method::Post, path).unwrap();
            let req = ApiRequest {
                method: Method::Post,
                path: path.to_owned(),
                bearer: None,
                body: body.as_bytes().to_vec(),
                origin: ORIGIN.into(),
                player: forwarded_player(player),
            };
            assert_eq!(route, Route::Join, "only joins are called here");
            game::handle(store, route, &req, &mut ctx).response
        };
        (answer.status, answer.content().1.into_owned())
    }
}

impl Host for TestHost {
    type Db = Sqlite;

    fn db(&self) -> &Sqlite {
        &self.db
    }

    fn var(&self, name: &str) -> Option<String> {
        self.vars.get(name).cloned()
    }

    fn now_ms(&self) -> i64 {
        T0
    }

    fn random(&self, buf: &mut [u8]) -> Result<(), ApiError> {
        service::tokens::Random::fill(&mut *self.rng.borrow_mut(), buf)
    }

    fn log(&self, line: &str) {
        self.log.borrow_mut().push(line.to_owned());
    }

    async fn object(
        &self,
        ns: Namespace,
        name: &str,
        path: &str,
        body: String,
        headers: &[(&str, String)],
    ) -> Result<(u16, String), String> {
        self.calls.borrow_mut().push((ns, name.to_owned(), path.to_owned()));
        match ns {
            Namespace::Games => Ok(self.game(name, path, &body, headers)),
            Namespace::Lobby => Ok((200, String::new())),
            Namespace::Limiter => {
                let mut limiters = self.limiters.borrow_mut();
                let db = limiters.entry(name.to_owned()).or_insert_with(|| Sqlite::empty().unwrap());
                let (p, q) = path.split_once('?').map_or((path, None), |(p, q)| (p, Some(q)));
                match service::local::limiter_call(&*db, p, q, T0) {
                    Ok((d, _)) => Ok((200, serde_json::to_string(&d).unwrap())),
                    Err(e) => Ok((e.status(), e.to_string())),
                }
            }
        }
    }

    async fn fetch(&self, req: Outgoing) -> Result<Reply, String> {
        self.fetched.borrow_mut().push(req);
        Ok((201, b"{}".to_vec()))
    }
}

/// A request as a browser sends it.
struct Req {
    method: Method,
    path: String,
    headers: Vec<(&'static str, String)>,
    body: Option<Vec<u8>>,
}

impl Req {
    fn new(method: Method, path: &str) -> Req {
        Req {
            method,
            path: path.into(),
            headers: vec![("CF-Connecting-IP", "203.0.113.7".into())],
            body: None,
        }
    }
    fn get(path: &str) -> Req {
        Req::new(Method::Get, path)
    }
    fn post(path: &str, body: Value) -> Req {
        Req { body: Some(body.to_string().into_bytes()), ..Req::new(Method::Post, path) }
    }
    fn with(mut self, name: &'static str, value: &str) -> Req {
        self.headers.push((name, value.to_owned()));
        self
    }
    /// With the session of a `Set-Cookie` value.
    fn session(self, set_cookie: &str) -> Req {
        let pair = set_cookie.split(';').next().unwrap().to_owned();
        self.with("Cookie", &pair)
    }
}

impl Incoming for Req {
    fn method(&self) -> Method {
        self.method
    }
    fn path(&self) -> String {
        self.path.clone()
    }
    fn query(&self) -> String {
        String::new()
    }
    fn origin(&self) -> Result<String, ApiError> {
        Ok(ORIGIN.into())
    }
    fn header(&self, name: &str) -> Option<String> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone())
    }
    async fn body(&mut self) -> Result<Vec<u8>, ApiError> {
        // The Worker's body is a stream: it can be read once.
        Ok(self.body.take().expect("the body is read once"))
    }
}

fn send(h: &TestHost, mut req: Req) -> Answer {
    let area = routes::area(req.method, &req.path).unwrap();
    run(api::handle(h, area, &mut req))
}

fn body(a: &Answer) -> Value {
    a.response.json_body().unwrap()
}

fn players(h: &TestHost) -> i64 {
    support::number(&h.db, "SELECT COUNT(*) FROM players", &[])
}

#[test]
fn reading_me_makes_no_guest_and_posting_makes_one_with_its_cookie() {
    let h = TestHost::new(&[]);
    let anon = send(&h, Req::get("/api/me"));
    assert_eq!((anon.response.status, body(&anon)["id"].clone()), (200, Value::Null));
    assert!(anon.cookies.is_empty());
    assert_eq!(players(&h), 0, "a read makes no player");

    let made = send(&h, Req::post("/api/me", json!({})));
    assert_eq!(made.response.status, 200);
    let cookie = made.cookies.first().expect("a new session sets its cookie").clone();
    assert!(cookie.contains("HttpOnly") && cookie.contains("Secure") && cookie.contains("SameSite"));
    let id = body(&made)["id"].as_str().unwrap().to_owned();
    assert_eq!(players(&h), 1);

    let again = send(&h, Req::get("/api/me").session(&cookie));
    assert_eq!(body(&again)["id"], json!(id), "the cookie is the same player's session");
    assert!(again.cookies.is_empty(), "an existing session sets no cookie");
    let out = send(&h, Req::post("/api/auth/logout", json!({})).session(&cookie));
    assert_eq!(out.cookies.len(), 2, "sign-out clears the session cookie and the legacy one");
    assert_eq!(body(&send(&h, Req::get("/api/me").session(&cookie)))["id"], Value::Null);
}

#[test]
fn a_bad_name_is_refused_before_a_guest_is_made() {
    let h = TestHost::new(&[]);
    let a = send(&h, Req::post("/api/me/name", json!({ "name": "" })));
    assert_eq!((a.response.status, body(&a)["error"].clone()), (422, json!("invalid_name")));
    assert_eq!(players(&h), 0);
    let a = send(&h, Req::post("/api/me/name", json!({ "name": "Ada Lovelace" })));
    assert_eq!((a.response.status, body(&a)["name"].clone()), (200, json!("Ada Lovelace")));
    assert_eq!(players(&h), 1);
}

#[test]
fn a_challenge_is_posted_listed_and_accepted_into_a_game_through_the_objects() {
    let h = TestHost::new(&[]);
    let posted = send(
        &h,
        Req::post("/api/challenges", json!({ "south": "clockwork", "north": "blades", "seat": "south" })),
    );
    assert_eq!(posted.response.status, 201, "{:?}", body(&posted));
    let poster_cookie = posted.cookies[0].clone();
    let id = body(&posted)["challenge"]["id"].as_str().unwrap().to_owned();
    let list = send(&h, Req::get("/api/challenges"));
    assert_eq!(body(&list)["challenges"][0]["id"], json!(id));
    assert_eq!(h.calls_to(Namespace::Lobby), vec!["/_internal/changed"], "the lobby is told once");

    let mine =
        send(&h, Req::post(&format!("/api/challenges/{id}/accept"), json!({})).session(&poster_cookie));
    assert_eq!(body(&mine)["error"], json!("own_challenge"));

    let accepted = send(&h, Req::post(&format!("/api/challenges/{id}/accept"), json!({})));
    assert_eq!(accepted.response.status, 200, "{:?}", body(&accepted));
    let game = body(&accepted)["game"].as_str().unwrap().to_owned();
    assert_eq!(body(&accepted)["seat"], json!("north"));
    let made = h.calls_to(Namespace::Games);
    assert_eq!(made, vec![paths::CREATE.to_owned(), format!("/api/games/{game}/join")]);
    assert!(h.games.borrow()[&game].record.is_some(), "the game exists in its object");
    assert_eq!(body(&send(&h, Req::get("/api/challenges")))["challenges"], json!([]));
    assert_eq!(h.calls_to(Namespace::Lobby).len(), 2, "and the lobby is told of the accept");
    assert!(h.fetched.borrow().is_empty(), "no push key, no bot: nothing sent out");
}

#[test]
fn creations_past_the_address_rate_are_refused_by_its_limiter() {
    let h = TestHost::new(&[("LIMIT_PER_IP_PER_MINUTE", "3")]);
    let create = || {
        let spec = CreateGame::parse(br#"{"south":"axiom","north":"blades","mode":"ai","seat":"south"}"#);
        assert!(spec.is_ok());
        send(
            &h,
            Req::post(
                "/api/games",
                json!({ "south": "axiom", "north": "blades", "mode": "ai", "seat": "south" }),
            ),
        )
    };
    for _ in 0..3 {
        let a = create();
        assert_eq!(a.response.status, 201, "{:?}", body(&a));
    }
    let refused = create();
    assert_eq!(refused.response.status, 503);
    assert_eq!(body(&refused)["error"], json!("server_busy"));
    assert!(refused.response.retry_after.is_some_and(|s| s >= 1));
    assert_eq!(h.games.borrow().len(), 3, "the refused creation made no game");
}

#[test]
fn a_limiter_call_without_its_numbers_is_a_clear_error() {
    let db = Sqlite::empty().unwrap();
    let e = service::local::limiter_call(&db, "/hit", Some("limit=3"), T0).unwrap_err();
    assert_eq!((e.status(), e.code.as_str()), (400, "bad_url"));
    let e = service::local::limiter_call(&db, "/ws/acquire", None, T0).unwrap_err();
    assert!(e.message.contains("game and count"), "{}", e.message);
}

fn lesson_rows(h: &TestHost) -> i64 {
    support::number(&h.db, "SELECT COUNT(*) FROM lesson_progress", &[])
}

/// Issue 31, item 3: the lessons completed, kept for the session's player.
#[test]
fn lesson_progress_is_the_sessions_players_recorded_once_and_unknown_lessons_are_refused() {
    let h = TestHost::new(&[]);
    let put = |id: &str| Req::new(Method::Put, &format!("/api/me/lessons/{id}"));
    // No session: 401, and no guest is made for it.
    for req in [Req::get("/api/me/lessons"), put("cog")] {
        let a = send(&h, req);
        assert_eq!((a.response.status, body(&a)["error"].clone()), (401, json!("unauthorized")));
        assert!(a.cookies.is_empty());
    }
    assert_eq!(players(&h), 0, "no player made for a signed-out lesson");

    let cookie = send(&h, Req::post("/api/me", json!({}))).cookies[0].clone();
    let empty = send(&h, Req::get("/api/me/lessons").session(&cookie));
    assert_eq!((empty.response.status, body(&empty)), (200, json!({ "completed": [] })));

    // An id no lesson has: 404 naming it, nothing written.
    let unknown = send(&h, put("no-such-lesson").session(&cookie));
    assert_eq!((unknown.response.status, body(&unknown)["error"].clone()), (404, json!("not_found")));
    assert!(body(&unknown)["message"].as_str().unwrap().contains("no lesson 'no-such-lesson'"));
    assert_eq!(lesson_rows(&h), 0);

    // Recorded once, however often it is sent; listed in the lessons' order.
    for id in ["gear", "cog", "gear"] {
        let a = send(&h, put(id).session(&cookie));
        assert_eq!(a.response.status, 200, "{:?}", body(&a));
    }
    assert_eq!(lesson_rows(&h), 2, "the repeat wrote nothing");
    let list = send(&h, Req::get("/api/me/lessons").session(&cookie));
    assert_eq!(body(&list), json!({ "completed": ["cog", "gear"] }));

    // Another player's list is its own.
    let other = send(&h, Req::post("/api/me", json!({}))).cookies[0].clone();
    assert_eq!(body(&send(&h, Req::get("/api/me/lessons").session(&other))), json!({ "completed": [] }));

    // The list is read, a lesson written: any other method is 405.
    for req in [Req::post("/api/me/lessons", json!({})), Req::get("/api/me/lessons/cog"), put("")] {
        assert_ne!(send(&h, req.session(&cookie)).response.status, 200);
    }
    assert_eq!(send(&h, Req::post("/api/me/lessons/cog", json!({})).session(&cookie)).response.status, 405);
    assert_eq!(send(&h, Req::new(Method::Put, "/api/me/lessons").session(&cookie)).response.status, 405);
}

#[test]
fn push_and_discord_messages_are_not_offered_without_their_keys() {
    let h = TestHost::new(&[]);
    assert_eq!(body(&send(&h, Req::get("/api/push/key"))), json!({ "available": false, "public_key": null }));
    let dm = send(&h, Req::get("/api/me/discord-dm"));
    assert_eq!(body(&dm), json!({ "available": false, "enabled": false }));
    let wrong = send(&h, Req::new(Method::Other, "/api/me/discord-dm"));
    assert_eq!(wrong.response.status, 405);
}

#[test]
fn the_housekeeping_wakes_no_game_on_an_empty_database() {
    let h = TestHost::new(&[]);
    let swept = run(api::housekeeping::run(&h)).unwrap();
    assert_eq!((swept.sessions, swept.woken), (0, 0));
    assert!(api::housekeeping::summary(&swept).starts_with("housekeeping: 0 expired sessions"));
    assert!(h.calls_to(Namespace::Games).is_empty());
}

#[test]
fn without_the_ip_hash_key_the_development_key_is_used_and_logged() {
    let h = TestHost::new(&[]);
    let a = service::host::ip_key(&h, Some("203.0.113.7"));
    assert!(h.log.borrow().iter().any(|l| l.contains("IP_HASH_KEY is not set")));
    let keyed = TestHost::new(&[("IP_HASH_KEY", "k")]);
    assert_ne!(a, service::host::ip_key(&keyed, Some("203.0.113.7")), "the key changes the hash");
    assert!(keyed.log.borrow().is_empty());
}

fn post_challenge(h: &TestHost, ip: &str, cookie: Option<&str>) -> Answer {
    let req = Req::post("/api/challenges", json!({ "south": "axiom", "north": "blades" }));
    let mut req = Req { headers: vec![("CF-Connecting-IP", ip.to_owned())], ..req };
    if let Some(c) = cookie {
        req = req.session(c);
    }
    send(h, req)
}

/// The caps are in the insert itself (`db_challenges::insert_under`): a player's third
/// open challenge is their last, and fresh guests from one address share its cap.
#[test]
fn open_challenges_are_capped_per_player_and_per_address_by_the_insert() {
    let h = TestHost::new(&[]);
    let first = post_challenge(&h, "192.0.2.1", None);
    let cookie = first.cookies[0].clone();
    for _ in 0..2 {
        assert_eq!(post_challenge(&h, "192.0.2.1", Some(&cookie)).response.status, 201);
    }
    let fourth = post_challenge(&h, "192.0.2.1", Some(&cookie));
    assert_eq!((fourth.response.status, body(&fourth)["error"].clone()), (409, json!("too_many_challenges")));
    assert!(body(&fourth)["message"].as_str().unwrap().contains("you already have 3"));

    let cap = service::sagas::challenges::MAX_OPEN_PER_ADDRESS;
    for _ in 3..cap {
        assert_eq!(post_challenge(&h, "192.0.2.1", None).response.status, 201);
    }
    let over = post_challenge(&h, "192.0.2.1", None);
    assert_eq!(over.response.status, 409);
    assert!(
        body(&over)["message"].as_str().unwrap().contains("your address already has"),
        "{:?}",
        body(&over)
    );
    let n = support::number(&h.db, "SELECT COUNT(*) FROM challenges", &[]);
    assert_eq!(n, i64::from(cap), "nothing inserted past the caps");
    assert_eq!(
        post_challenge(&h, "192.0.2.2", None).response.status,
        201,
        "another address is not held back"
    );
}

#[test]
fn new_guests_are_counted_per_address_and_refused_past_the_rate() {
    let h = TestHost::new(&[("LIMIT_GUESTS_PER_IP_PER_MINUTE", "2")]);
    for _ in 0..2 {
        assert_eq!(send(&h, Req::post("/api/me", json!({}))).response.status, 200);
    }
    let refused = send(&h, Req::post("/api/me", json!({})));
    assert_eq!((refused.response.status, body(&refused)["error"].clone()), (503, json!("server_busy")));
    assert!(refused.cookies.is_empty());
    assert_eq!(players(&h), 2, "a refused request makes no player");
    let elsewhere =
        Req { headers: vec![("CF-Connecting-IP", "198.51.100.9".into())], ..Req::post("/api/me", json!({})) };
    assert_eq!(send(&h, elsewhere).response.status, 200, "another address is not held back");
    // A session already made is not counted again.
    let again = send(&h, Req::post("/api/me", json!({})).with("Cookie", "__Host-ia_session=none"));
    assert_eq!(again.response.status, 503, "no valid session: a new guest, still refused");
}

/// Regression (stop 48): every `GET /api/auth/discord/login` wrote an `oauth_states` row with
/// no limit, so a loop of them grew the table faster than the hourly sweep (5,000 rows)
/// empties it. A start is counted per address bucket like a new guest; refused, it writes
/// nothing, and a browser is sent back with the reason. (Fails without the limiter hit:
/// a third 302 and a third row.)
#[test]
fn sign_in_starts_are_counted_per_address_and_refused_past_the_rate() {
    let h = TestHost::new(&[("LIMIT_GUESTS_PER_IP_PER_MINUTE", "2"), ("DISCORD_CLIENT_ID", "cid")]);
    let states = || support::number(&h.db, "SELECT COUNT(*) FROM oauth_states", &[]);
    for _ in 0..2 {
        let a = send(&h, Req::get("/api/auth/discord/login"));
        assert_eq!(a.response.status, 302);
        assert!(a.location.as_deref().unwrap().contains("client_id=cid"));
    }
    assert_eq!(states(), 2);
    let refused = send(&h, Req::get("/api/auth/discord/login"));
    assert_eq!((refused.response.status, body(&refused)["error"].clone()), (503, json!("server_busy")));
    assert!(refused.cookies.is_empty() && refused.location.is_none());
    let browser = send(&h, Req::get("/api/auth/discord/login").with("Accept", "text/html"));
    assert_eq!(browser.response.status, 302);
    assert_eq!(browser.location.as_deref(), Some("/?signin_error=server_busy"));
    assert_eq!(states(), 2, "a refused start writes nothing");
    let elsewhere = Req {
        headers: vec![("CF-Connecting-IP", "198.51.100.9".into())],
        ..Req::get("/api/auth/discord/login")
    };
    assert_eq!(send(&h, elsewhere).response.status, 302, "another address is not held back");
}

/// Issue 30: the AI limit counted moves, not their cost (a level-6 move is about six
/// level-4 moves of CPU), and AI openings were outside it. Openings are metered by cost.
#[test]
fn ai_openings_are_metered_by_their_levels_cost() {
    // 90 units (11,250 positions) a minute: one level-6 opening (80), not two.
    let h = TestHost::new(&[("LIMIT_AI_COST_PER_IP_PER_MINUTE", "90")]);
    let open = |level: u8| {
        let body =
            json!({ "south": "axiom", "north": "blades", "mode": "ai", "seat": "north", "level": level });
        send(&h, Req::post("/api/games", body))
    };
    assert_eq!(open(6).response.status, 201);
    let refused = open(6);
    assert_eq!((refused.response.status, body(&refused)["error"].clone()), (503, json!("server_busy")));
    assert!(body(&refused)["message"].as_str().unwrap().contains("AI thinking"), "{:?}", body(&refused));
    assert_eq!(open(1).response.status, 201, "a level-1 opening (3) still fits: 83 of 90");
    // The creator taking South: the AI does not open, nothing is charged.
    let south = json!({ "south": "axiom", "north": "blades", "mode": "ai", "seat": "south", "level": 6 });
    assert_eq!(send(&h, Req::post("/api/games", south)).response.status, 201);
    // Each opening searched under a lease, handed back after.
    let leases: Vec<String> =
        h.calls_to(Namespace::Limiter).into_iter().filter(|p| p.starts_with("/ws/")).collect();
    assert_eq!(leases.len(), 4, "{leases:?}");
    assert!(leases[0].starts_with("/ws/acquire") && leases[1].starts_with("/ws/report"), "{leases:?}");
}

/// Regression (stop 48): a story stage whose AI moves first (every story's last stage:
/// the player on North against level 6) searched inside its creation with neither the
/// AI cost meter nor a search lease, so repeating `POST /api/stories/…/stages/5` ran
/// level-6 searches past the address's budget, in parallel. Metered and leased like a
/// new game's opening now; a stage the player opens is not charged.
#[test]
fn regression_a_stage_whose_ai_opens_is_metered_and_searched_under_a_lease() {
    // 90 units (11,250 positions) a minute: one level-6 opening (80), not two.
    let h = TestHost::new(&[("LIMIT_AI_COST_PER_IP_PER_MINUTE", "90")]);
    let me = send(&h, Req::post("/api/me", json!({})));
    let cookie = me.cookies[0].clone();
    let id = body(&me)["id"].as_str().unwrap().to_owned();
    h.db.conn()
        .execute(
            "INSERT INTO story_progress (player_id, story_id, completed, updated_at) VALUES (?1, 'axiom', 5, 0)",
            [&id],
        )
        .unwrap();
    let start = |story: &str, n: u8| {
        send(&h, Req::post(&format!("/api/stories/{story}/stages/{n}"), json!({})).session(&cookie))
    };
    let first = start("axiom", 5);
    assert_eq!(first.response.status, 201, "{:?}", body(&first));
    assert!(body(&first)["ai_move"].is_string(), "the AI opened: {:?}", body(&first));
    let refused = start("axiom", 5);
    assert_eq!((refused.response.status, body(&refused)["error"].clone()), (503, json!("server_busy")));
    assert!(body(&refused)["message"].as_str().unwrap().contains("AI thinking"), "{:?}", body(&refused));
    // The opening searched under a lease, handed back after.
    let leases: Vec<String> =
        h.calls_to(Namespace::Limiter).into_iter().filter(|p| p.starts_with("/ws/")).collect();
    assert_eq!(leases.len(), 2, "{leases:?}");
    assert!(leases[0].starts_with("/ws/acquire") && leases[1].starts_with("/ws/report"), "{leases:?}");
    // The player opens Blades' first stage: nothing to charge, so it starts with the
    // budget spent.
    assert_eq!(start("blades", 0).response.status, 201);
}

/// An AI game's rematch may open with the AI's move (the sides swap): its saga runs
/// metered by the game's level and under a search lease (`api::ai_rematch`, which the
/// game's object calls; stop 48 had it tested on the runtime only). A link game's rematch
/// searches nothing: not charged, no lease.
#[test]
fn an_ai_rematch_is_metered_by_its_level_and_searched_under_a_lease() {
    // 90 units (11,250 positions) a minute: one level-6 search (80), not two.
    let h = TestHost::new(&[("LIMIT_AI_COST_PER_IP_PER_MINUTE", "90")]);
    let made = |mode: &str| {
        let spec = json!({ "south": "axiom", "north": "blades", "mode": mode, "seat": "south", "level": 6 });
        let created = send(&h, Req::post("/api/games", spec));
        let id = body(&created)["id"].as_str().unwrap().to_owned();
        h.games.borrow()[&id].record.clone().unwrap()
    };
    let (ai_game, link_game) = (made("ai"), made("link"));
    let leases = || -> Vec<String> {
        h.calls_to(Namespace::Limiter).into_iter().filter(|p| p.starts_with("/ws/")).collect()
    };
    assert!(leases().is_empty(), "the creator moves first: nothing searched yet");
    let rematch = |rec: &GameRecord| run(api::ai_rematch(&h, "bucket", Some(rec), async { "saga ran" }));
    assert_eq!(rematch(&ai_game).unwrap(), "saga ran");
    let l = leases();
    assert_eq!(l.len(), 2, "{l:?}");
    assert!(l[0].starts_with("/ws/acquire") && l[1].starts_with("/ws/report"), "{l:?}");
    let refused = rematch(&ai_game).unwrap_err();
    assert_eq!((refused.status(), refused.code), (503, ErrorCode::ServerBusy));
    assert_eq!(leases().len(), 2, "a refused rematch takes no lease");
    assert_eq!(rematch(&link_game).unwrap(), "saga ran", "a link game's rematch is not charged");
    assert_eq!(leases().len(), 2);
}

#[test]
fn ai_searches_at_once_per_address_are_capped_by_leases() {
    let db = Sqlite::empty().unwrap();
    let acquire = |game: &str| {
        let q = format!("game={game}&count=0&cap=2&lease_ms=30000");
        service::local::limiter_call(&db, "/ws/acquire", Some(&q), T0).unwrap().0.allowed
    };
    assert!(acquire("g1") && acquire("g2"));
    assert!(!acquire("g3"), "a third search at once from one address is refused");
    let q = "game=g1&count=0&lease_ms=30000";
    assert!(service::local::limiter_call(&db, "/ws/report", Some(q), T0).unwrap().0.allowed);
    assert!(acquire("g3"), "the first search's end frees its place");
    // A lost report lapses with the search's lease, not a socket's hour.
    let later = service::local::limiter_call(
        &db,
        "/ws/acquire",
        Some("game=g4&count=0&cap=2&lease_ms=30000"),
        T0 + 30_001,
    );
    assert!(later.unwrap().0.allowed);
}

/// Issue 30: a missing `IP_HASH_KEY` silently fell back to a public key, so every stored
/// address hash could be reversed. A deployment without it answers 503 `not_configured`;
/// a loopback host (local runs) uses the development key.
#[test]
fn a_deployment_without_the_ip_hash_key_refuses_to_serve() {
    let bare = TestHost::new(&[]);
    let e = service::host::check_configured(&bare, "arena.example").unwrap_err();
    assert_eq!((e.status(), e.code.as_str()), (503, "not_configured"));
    for local in ["127.0.0.1", "localhost", "[::1]", "dev.localhost"] {
        assert!(service::host::check_configured(&bare, local).is_ok(), "{local}");
    }
    let keyed = TestHost::new(&[("IP_HASH_KEY", "k")]);
    assert!(service::host::check_configured(&keyed, "arena.example").is_ok());
}
