#![allow(clippy::unwrap_used)]
//! Integration tests of the game API as the Durable Object runs it: `game::create`,
//! `game::handle`, `game::alarm` and `game::route`, over `store::MemoryStore`, with a
//! seeded randomness source and a deterministic AI.

use engine::record::Record;
use engine::{Faction, Game, Move, Side};
use serde_json::{json, Value};
use service::ai::{Opponent, PlaceholderAi};
use service::create::{CreateGame, SeatChoice};
use service::error::{ApiError, ErrorCode};
use service::game::{self, Ctx, Effects, Handled, Route};
use service::http::{ApiRequest, Body, Method, PlayerRef};
use service::model::{Controller, GameRecord, Mode};
use service::store::MemoryStore;
use service::tokens::{self, Random};

const ID: &str = "0123456789abcdef01234567";
const ORIGIN: &str = "https://arena.example";
const T0: i64 = 1_795_999_200_000;

// --- deterministic helpers -------------------------------------------------------------

/// xorshift64*: deterministic, distinct bytes for every call.
#[derive(Debug)]
struct SeededRng(u64);

impl Random for SeededRng {
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), ApiError> {
        for chunk in buf.chunks_mut(8) {
            let mut x = self.0;
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            self.0 = x;
            let v = x.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        Ok(())
    }
}

/// A randomness source that always fails (getrandom unavailable).
#[derive(Debug)]
struct BrokenRng;

impl Random for BrokenRng {
    fn fill(&mut self, _buf: &mut [u8]) -> Result<(), ApiError> {
        Err(ApiError::new(ErrorCode::NoRandomness, "randomness unavailable"))
    }
}

/// Plays the first legal move in sorted IAMN order (the order of `legal_moves` in views).
#[derive(Debug, Default)]
struct FirstLegal;

fn first_legal(game: &Game) -> Option<Move> {
    let mut moves = game.legal_moves();
    moves.sort_by_key(Move::to_string);
    moves.first().copied()
}

impl Opponent for FirstLegal {
    fn name(&self, _level: u8) -> &'static str {
        "first-legal"
    }
    fn is_placeholder(&self) -> bool {
        false
    }
    fn choose(&mut self, game: &Game, _level: u8, _rng: &mut dyn Random) -> Result<Option<Move>, ApiError> {
        Ok(first_legal(game))
    }
}

// --- the harness ----------------------------------------------------------------------

struct Env {
    store: MemoryStore,
    rng: Box<dyn Random>,
    ai: Box<dyn Opponent>,
    now: i64,
    day_ms: i64,
    /// The session's player the Worker forwards with the next requests.
    player: Option<PlayerRef>,
}

impl Env {
    fn new() -> Env {
        Env::seeded(0x9e37_79b9_7f4a_7c15)
    }

    fn seeded(seed: u64) -> Env {
        Env {
            store: MemoryStore::default(),
            rng: Box::new(SeededRng(seed)),
            ai: Box::new(FirstLegal),
            now: T0,
            day_ms: 86_400_000,
            player: None,
        }
    }

    fn create(&mut self, req: &CreateGame) -> Handled {
        let mut ctx =
            Ctx { now: self.now, rng: self.rng.as_mut(), ai: self.ai.as_mut(), day_ms: self.day_ms };
        game::create(&mut self.store, ID, req, ORIGIN, &mut ctx)
    }

    /// Routes `method /api/games/{ID}{tail}` and handles it.
    fn request(&mut self, method: Method, tail: &str, bearer: Option<&str>, body: &[u8]) -> Handled {
        let path = format!("/api/games/{ID}{tail}");
        let (id, route) = game::route(method, &path).unwrap();
        assert_eq!(id, ID);
        let req = ApiRequest {
            method,
            path,
            bearer: bearer.map(str::to_owned),
            body: body.to_vec(),
            origin: ORIGIN.to_owned(),
            player: self.player.clone(),
        };
        let mut ctx =
            Ctx { now: self.now, rng: self.rng.as_mut(), ai: self.ai.as_mut(), day_ms: self.day_ms };
        game::handle(&mut self.store, route, &req, &mut ctx)
    }

    fn alarm(&mut self) -> Handled {
        let mut ctx =
            Ctx { now: self.now, rng: self.rng.as_mut(), ai: self.ai.as_mut(), day_ms: self.day_ms };
        game::alarm(&mut self.store, &mut ctx)
    }

    fn post(&mut self, tail: &str, bearer: Option<&str>, body: &Value) -> Handled {
        self.request(Method::Post, tail, bearer, body.to_string().as_bytes())
    }

    fn submit(&mut self, token: &str, mv: &str, ply: u64) -> Handled {
        self.post("/moves", Some(token), &json!({ "move": mv, "ply": ply }))
    }

    fn state(&mut self) -> Value {
        let h = self.request(Method::Get, "", None, b"");
        assert_eq!(h.response.status, 200);
        assert_eq!(h.effects, Effects::default());
        body(&h).clone()
    }

    fn rec(&self) -> &GameRecord {
        self.store.record.as_ref().unwrap()
    }

    /// Runs a request that must be refused with `status`/`code`, and checks that nothing
    /// was saved and nothing is to be done. Returns the error body.
    fn rejected(&mut self, status: u16, code: &str, f: impl FnOnce(&mut Env) -> Handled) -> Value {
        let before = self.store.record.clone();
        let saves = self.store.saves;
        let h = f(self);
        let b = body(&h).clone();
        assert_eq!(h.response.status, status, "{b}");
        assert_eq!(b["error"], code, "{b}");
        assert!(b["message"].as_str().is_some_and(|m| !m.is_empty()), "{b}");
        assert_eq!(self.store.record, before, "a rejected request changed the record");
        assert_eq!(self.store.saves, saves, "a rejected request saved");
        assert_eq!(h.effects, Effects::default());
        assert!(h.record.is_none());
        b
    }
}

/// The deadline timer the object arms after `h` (`upkeep::next_alarm` takes the earliest
/// of it, the idle end and the outbox's retry).
fn next_alarm(h: &Handled) -> Option<i64> {
    h.record.as_ref().filter(|r| r.result.is_none())?.deadline
}

fn body(h: &Handled) -> Value {
    h.response.json_body().unwrap()
}

fn ok(h: &Handled) -> Value {
    let b = body(h);
    assert_eq!(h.response.status, 200, "{b}");
    b
}

fn req(mode: Mode, seat: SeatChoice, days: Option<u32>) -> CreateGame {
    CreateGame {
        south: Faction::Clockwork,
        north: Faction::Blades,
        seat,
        mode,
        days_per_move: days,
        level: None,
        rated: false,
    }
}

fn is_token(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn side_of(v: &Value) -> Side {
    match v.as_str().unwrap() {
        "south" => Side::South,
        "north" => Side::North,
        other => panic!("not a side: {other}"),
    }
}

fn str_list(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_owned()).collect()
}

/// A link game as created: (creator token, creator side, invite token).
struct Link {
    creator: String,
    creator_side: Side,
    invite: String,
}

fn create_link(env: &mut Env, seat: SeatChoice, days: Option<u32>) -> Link {
    let h = env.create(&req(Mode::Link, seat, days));
    let b = body(&h);
    assert_eq!(h.response.status, 201, "{b}");
    let url = b["invite_url"].as_str().unwrap();
    let invite = url.split_once("#invite=").unwrap().1.to_owned();
    Link { creator: b["token"].as_str().unwrap().to_owned(), creator_side: side_of(&b["seat"]), invite }
}

fn join(env: &mut Env, invite: &str) -> (String, Side) {
    let h = env.post("/join", None, &json!({ "invite": invite }));
    let b = ok(&h);
    (b["token"].as_str().unwrap().to_owned(), side_of(&b["seat"]))
}

/// A joined link game with the creator South: (south token, north token).
fn joined(env: &mut Env, days: Option<u32>) -> (String, String) {
    let l = create_link(env, SeatChoice::South, days);
    let (north, side) = join(env, &l.invite);
    assert_eq!(side, Side::North);
    (l.creator, north)
}

fn create_ai(env: &mut Env, seat: SeatChoice) -> (String, Value) {
    let h = env.create(&req(Mode::Ai, seat, None));
    let b = body(&h).clone();
    assert_eq!(h.response.status, 201, "{b}");
    (b["token"].as_str().unwrap().to_owned(), b)
}

// --- routing ----------------------------------------------------------------------------

#[test]
fn route_parses_ids_and_routes() {
    let p = |tail: &str| format!("/api/games/{ID}{tail}");
    let cases = [
        (Method::Get, "", Route::State),
        (Method::Get, "/", Route::State),
        (Method::Post, "/join", Route::Join),
        (Method::Post, "/moves", Route::Moves),
        (Method::Post, "/resign", Route::Resign),
        (Method::Post, "/draw", Route::Draw),
        (Method::Get, "/record", Route::Record),
        (Method::Get, "/ws", Route::WebSocket),
    ];
    for (m, tail, r) in cases {
        assert_eq!(game::route(m, &p(tail)).unwrap(), (ID.to_owned(), r), "{tail}");
    }
    // Wrong methods on known routes: 405.
    for (m, tail) in [
        (Method::Post, ""),
        (Method::Other, ""),
        (Method::Get, "/join"),
        (Method::Get, "/moves"),
        (Method::Get, "/resign"),
        (Method::Get, "/draw"),
        (Method::Post, "/record"),
        (Method::Post, "/ws"),
        (Method::Other, "/moves"),
    ] {
        let e = game::route(m, &p(tail)).unwrap_err();
        assert_eq!((e.status(), e.code), (405, ErrorCode::MethodNotAllowed), "{m:?} {tail}");
    }
    // Unknown routes and bad ids: 404.
    let bad_paths = [
        p("/nope"),
        p("/moves/extra"),
        p("/MOVES"),
        "/api/games/".to_owned(),
        "/api/games".to_owned(),
        "/api/other/0123456789abcdef01234567".to_owned(),
        "/".to_owned(),
        "/api/games/0123456789ABCDEF01234567".to_owned(), // uppercase hex
        "/api/games/0123456789abcdef0123456".to_owned(),  // 23 chars
        "/api/games/0123456789abcdef012345678".to_owned(), // 25 chars
        "/api/games/0123456789abcdef0123456g".to_owned(), // not hex
        "/api/games/0123456789abcdef0123456g/moves".to_owned(),
    ];
    for path in bad_paths {
        for m in [Method::Get, Method::Post] {
            let e = game::route(m, &path).unwrap_err();
            assert_eq!((e.status(), e.code), (404, ErrorCode::NotFound), "{path}");
        }
    }
    assert!(game::valid_id(ID));
    assert!(game::valid_id(&"f".repeat(24)));
    assert!(!game::valid_id(""));
    assert!(!game::valid_id(&"0".repeat(23)));
    assert!(!game::valid_id("0123456789abcdef0123456-"));
}

#[test]
fn requests_to_a_missing_game_are_404() {
    let mut env = Env::new();
    for (m, tail) in
        [(Method::Get, ""), (Method::Post, "/join"), (Method::Post, "/moves"), (Method::Get, "/record")]
    {
        let b = env.rejected(404, "not_found", |e| e.request(m, tail, Some("x"), b"{}"));
        assert!(b.get("state").is_none());
    }
    let b = env.rejected(404, "not_found", Env::alarm);
    assert_eq!(b["error"], "not_found");
    assert!(env.store.record.is_none());
}

// --- create -------------------------------------------------------------------------------

#[test]
fn create_ai_game_creator_south() {
    let mut env = Env::new();
    let h = env.create(&req(Mode::Ai, SeatChoice::South, None));
    let b = body(&h).clone();
    assert_eq!(h.response.status, 201, "{b}");
    assert_eq!(b["id"], ID);
    assert_eq!(b["seat"], "south");
    assert!(b["ai_move"].is_null());
    assert!(b.get("invite_url").is_none());
    assert_eq!(b["ai"], json!({ "engine": "first-legal", "placeholder": false, "level": 4 }));
    let s = &b["state"];
    assert_eq!(s["ply"], 0);
    assert_eq!(s["turn"], "south");
    assert_eq!(s["status"], "ongoing");
    assert_eq!(s["mode"], "ai");
    assert_eq!(s["moves"], json!([]));
    assert_eq!(
        s["south"],
        json!({ "faction": "clockwork", "player": "human", "claimed": true, "player_id": null })
    );
    assert_eq!(
        s["north"],
        json!({ "faction": "blades", "player": "ai", "claimed": true, "player_id": null })
    );
    assert!(s["result"].is_null());
    assert_eq!(s["rules_result"], "ongoing");
    assert!(s["deadline"].is_null());
    assert_eq!(s["created_at"], T0);
    let legal = str_list(&s["legal_moves"]);
    assert!(!legal.is_empty());
    let mut sorted = legal.clone();
    sorted.sort();
    assert_eq!(legal, sorted, "legal moves are sorted");
    assert_eq!(h.effects, Effects { changed: true, created: true, finished: false });
    assert_eq!(h.record.as_ref(), env.store.record.as_ref());
    assert_eq!(env.store.saves, 1);

    let rec = env.rec();
    assert_eq!(rec.id, ID);
    assert_eq!(rec.mode, Mode::Ai);
    assert_eq!(rec.seats[0].controller, Controller::Human);
    assert_eq!(rec.seats[0].token_hash.as_deref(), Some(tokens::hash(b["token"].as_str().unwrap()).as_str()));
    assert_eq!(rec.seats[1].controller, Controller::Ai);
    assert!(rec.seats[1].token_hash.is_none());
    assert!(rec.invite_hash.is_none());
    assert!(rec.moves.is_empty());
    assert_eq!(rec.created_at, T0);
}

#[test]
fn create_ai_game_creator_north_the_ai_moves_first() {
    let mut env = Env::new();
    let (token, b) = create_ai(&mut env, SeatChoice::North);
    let start = engine::Position::start(Faction::Clockwork, Faction::Blades);
    let expected = first_legal(&Game::new(start)).unwrap();
    assert_eq!(b["seat"], "north");
    assert_eq!(b["ai_move"], expected.to_string());
    let s = &b["state"];
    assert_eq!(s["ply"], 1);
    assert_eq!(s["turn"], "north");
    assert_eq!(s["moves"], json!([expected.to_string()]));
    assert_eq!(s["south"]["player"], "ai");
    assert_eq!(s["north"]["player"], "human");
    let rec = env.rec();
    assert_eq!(rec.moves.len(), 1);
    assert_eq!(rec.moves[0].mv, expected);
    assert_eq!(rec.moves[0].by, Side::South);
    assert_eq!(rec.moves[0].at, T0);
    assert_eq!(rec.position.ply(), 1);
    assert_eq!(rec.seats[0].controller, Controller::Ai);
    assert_eq!(rec.seats[1].token_hash, Some(tokens::hash(&token)));
    assert_eq!(*rec.replay().unwrap().position(), rec.position);
}

#[test]
fn create_with_the_placeholder_ai_says_so_and_plays_a_legal_move() {
    let mut env = Env::new();
    env.ai = Box::new(PlaceholderAi);
    let (_, b) = create_ai(&mut env, SeatChoice::North);
    assert_eq!(b["ai"], json!({ "engine": "placeholder-random", "placeholder": true, "level": 4 }));
    let start = engine::Position::start(Faction::Clockwork, Faction::Blades);
    let mv = Move::parse(b["ai_move"].as_str().unwrap()).unwrap();
    assert!(start.legal_moves().contains(&mv));
    assert_eq!(b["state"]["ply"], 1);
}

#[test]
fn create_link_game_returns_an_invite_url() {
    let mut env = Env::new();
    let h = env.create(&req(Mode::Link, SeatChoice::North, Some(3)));
    let b = body(&h).clone();
    assert_eq!(h.response.status, 201, "{b}");
    assert_eq!(b["seat"], "north");
    assert!(b["ai_move"].is_null());
    assert!(b.get("ai").is_none());
    let url = b["invite_url"].as_str().unwrap();
    let prefix = format!("{ORIGIN}/g/{ID}#invite=");
    assert!(url.starts_with(&prefix), "{url}");
    let invite = &url[prefix.len()..];
    assert!(is_token(invite), "{invite}");
    let token = b["token"].as_str().unwrap();
    assert_ne!(invite, token);
    let s = &b["state"];
    assert_eq!(s["status"], "waiting");
    assert_eq!(s["legal_moves"], json!([]));
    assert_eq!(s["days_per_move"], 3);
    assert!(s["deadline"].is_null(), "no clock before both seats are taken");
    assert_eq!(
        s["south"],
        json!({ "faction": "clockwork", "player": "human", "claimed": false, "player_id": null })
    );
    assert_eq!(
        s["north"],
        json!({ "faction": "blades", "player": "human", "claimed": true, "player_id": null })
    );
    assert_eq!(next_alarm(&h), None);
    let rec = env.rec();
    assert_eq!(rec.invite_hash, Some(tokens::hash(invite)));
    assert!(rec.seats[0].token_hash.is_none());
    assert_eq!(rec.seats[1].token_hash, Some(tokens::hash(token)));
    assert_eq!(rec.days_per_move, Some(3));
}

#[test]
fn random_seat_gives_both_sides_and_the_token_holds_that_seat() {
    let mut seen = [false; 2];
    for seed in 1..=64u64 {
        for mode in [Mode::Ai, Mode::Link] {
            let mut env = Env::seeded(seed * 0x1234_5677 + 1);
            let h = env.create(&req(mode, SeatChoice::Random, None));
            let b = body(&h).clone();
            assert_eq!(h.response.status, 201, "{b}");
            let side = side_of(&b["seat"]);
            seen[side.index()] = true;
            let token = b["token"].as_str().unwrap();
            let rec = env.rec();
            assert_eq!(rec.seat(side).token_hash, Some(tokens::hash(token)));
            assert_eq!(rec.seat(side).controller, Controller::Human);
            assert!(rec.seat(side.opponent()).token_hash.is_none());
            // The AI moves first at creation exactly when it holds South.
            let ai_first = mode == Mode::Ai && side == Side::North;
            assert_eq!(b["ai_move"].is_null(), !ai_first);
            assert_eq!(rec.moves.len(), usize::from(ai_first));
        }
    }
    assert_eq!(seen, [true, true], "a random seat should land on both sides");
}

#[test]
fn tokens_are_hex_and_only_their_hashes_are_stored() {
    let mut env = Env::new();
    let l = create_link(&mut env, SeatChoice::South, Some(1));
    assert!(is_token(&l.creator), "{}", l.creator);
    assert!(is_token(&l.invite), "{}", l.invite);
    let (joiner, _) = join(&mut env, &l.invite);
    assert!(is_token(&joiner), "{joiner}");
    assert_ne!(joiner, l.creator);
    // Play a move each so the stored replies exist too.
    ok(&env.submit(&l.creator, "e2d3", 0));
    let s = env.state();
    let mv = s["legal_moves"][0].as_str().unwrap().to_owned();
    ok(&env.submit(&joiner, &mv, 1));
    let stored = serde_json::to_string(env.rec()).unwrap();
    for secret in [&l.creator, &l.invite, &joiner] {
        assert!(!stored.contains(secret.as_str()), "a token is stored in clear");
    }
    assert!(stored.contains(&tokens::hash(&l.creator)));
    assert!(stored.contains(&tokens::hash(&joiner)));
    // The public view never carries a token or a hash.
    let view = env.state().to_string();
    for secret in [&l.creator, &joiner] {
        assert!(!view.contains(secret.as_str()));
        assert!(!view.contains(&tokens::hash(secret)));
    }
    // The record round-trips through its JSON form.
    let back: GameRecord = serde_json::from_str(&stored).unwrap();
    assert_eq!(&back, env.rec());
}

#[test]
fn creating_twice_on_the_same_store_is_409_exists() {
    let mut env = Env::new();
    create_ai(&mut env, SeatChoice::South);
    for r in [req(Mode::Ai, SeatChoice::South, None), req(Mode::Link, SeatChoice::North, Some(2))] {
        env.rejected(409, "exists", |e| e.create(&r));
    }
}

#[test]
fn creation_fails_cleanly_without_randomness_or_storage() {
    let mut env = Env::new();
    env.rng = Box::new(BrokenRng);
    for seat in [SeatChoice::South, SeatChoice::Random] {
        let h = env.create(&req(Mode::Link, seat, None));
        assert_eq!(h.response.status, 503);
        assert_eq!(body(&h)["error"], "no_randomness");
        assert_eq!(h.effects, Effects::default());
    }
    assert!(env.store.record.is_none());

    let mut env = Env::new();
    env.store.fail_saves = true;
    env.rejected(503, "storage_unavailable", |e| e.create(&req(Mode::Ai, SeatChoice::North, None)));
    assert!(env.store.record.is_none());
}

// --- join ---------------------------------------------------------------------------------

#[test]
fn join_with_the_invite_takes_the_open_seat() {
    let mut env = Env::new();
    env.now = T0 + 5;
    let l = create_link(&mut env, SeatChoice::North, None);
    assert_eq!(l.creator_side, Side::North);
    // The creator's own token is not the invite.
    let b = env.rejected(403, "bad_invite", |e| e.post("/join", None, &json!({ "invite": l.creator })));
    assert!(b.get("state").is_none());
    env.rejected(403, "bad_invite", |e| e.post("/join", None, &json!({ "invite": "" })));
    env.rejected(403, "bad_invite", |e| e.post("/join", None, &json!({ "invite": "0".repeat(64) })));
    // No move before the opponent is here.
    env.rejected(409, "waiting_for_opponent", |e| e.submit(&l.creator, "e8e7", 0));

    let h = env.post("/join", None, &json!({ "invite": l.invite }));
    let b = ok(&h).clone();
    assert_eq!(b["id"], ID);
    assert_eq!(b["seat"], "south");
    let token = b["token"].as_str().unwrap();
    assert!(is_token(token));
    assert_eq!(b["state"]["status"], "ongoing");
    assert_eq!(b["state"]["south"]["claimed"], true);
    assert!(!str_list(&b["state"]["legal_moves"]).is_empty());
    assert_eq!(h.effects, Effects { changed: true, created: false, finished: false });
    let rec = env.rec();
    assert!(rec.invite_hash.is_none(), "the invite is used up");
    assert_eq!(rec.seats[0].token_hash, Some(tokens::hash(token)));
    assert_eq!(rec.seats[1].token_hash, Some(tokens::hash(&l.creator)));
    assert_eq!(env.state(), b["state"]);

    // The seat is gone: the same invite (or any other) is 409 seat_taken with the state.
    let again = env.rejected(409, "seat_taken", |e| e.post("/join", None, &json!({ "invite": l.invite })));
    assert_eq!(again["state"]["status"], "ongoing");
    env.rejected(409, "seat_taken", |e| e.post("/join", None, &json!({ "invite": "nope" })));
    // The joined token works.
    ok(&env.submit(token, "e2d3", 0));
}

#[test]
fn join_on_an_ai_game_is_409() {
    let mut env = Env::new();
    let (token, _) = create_ai(&mut env, SeatChoice::South);
    env.rejected(409, "not_a_link_game", |e| e.post("/join", None, &json!({ "invite": token })));
    env.rejected(409, "not_a_link_game", |e| e.post("/join", None, &json!({ "invite": "x" })));
}

/// Regression (stop 48): resign, abort and take back never read their bodies, so a
/// malformed request (a garbage body, a field they do not take) still resigned. They take
/// no body, or `{}`; anything else is 400 and changes nothing.
#[test]
fn resign_abort_and_takeback_refuse_a_body_they_do_not_take() {
    let mut env = Env::new();
    let (token, _) = create_ai(&mut env, SeatChoice::South);
    for tail in ["/resign", "/abort", "/takeback"] {
        for (raw, code) in [
            (&b"resign"[..], "invalid_json"),
            (b"{", "invalid_json"),
            (b"[]", "invalid_body"),
            (b"{\"confirm\":true}", "invalid_body"),
        ] {
            env.rejected(400, code, |e| e.request(Method::Post, tail, Some(&token), raw));
        }
    }
    // Nothing, or an empty object: done.
    ok(&env.request(Method::Post, "/abort", Some(&token), b""));
    let mut env = Env::new();
    let (token, _) = create_ai(&mut env, SeatChoice::South);
    ok(&env.request(Method::Post, "/resign", Some(&token), b" {} "));
}

#[test]
fn join_with_malformed_bodies_is_400() {
    let mut env = Env::new();
    let l = create_link(&mut env, SeatChoice::South, None);
    let cases: [(&[u8], &str); 9] = [
        (b"", "invalid_json"),
        (b"   \n", "invalid_json"),
        (b"{", "invalid_json"),
        (b"invite=abc", "invalid_json"),
        (br#"{"invite": 5}"#, "invalid_body"),
        (br#"{"invite": null}"#, "invalid_body"),
        (br#"{}"#, "invalid_body"),
        (br#""abc""#, "invalid_body"),
        (br#"{"invite": "x", "extra": 1}"#, "invalid_body"),
    ];
    for (raw, code) in cases {
        let b = env.rejected(400, code, |e| e.request(Method::Post, "/join", None, raw));
        assert_eq!(b["error"], code, "{}", String::from_utf8_lossy(raw));
    }
    // Unknown field even with the right invite.
    let raw = json!({ "invite": l.invite, "seat": "north" }).to_string();
    let b = env.rejected(400, "invalid_body", |e| e.request(Method::Post, "/join", None, raw.as_bytes()));
    assert!(b["message"].as_str().unwrap().contains("unknown field"), "{b}");
    // Too large.
    let big = vec![b' '; 9 * 1024];
    env.rejected(413, "body_too_large", |e| e.request(Method::Post, "/join", None, &big));
    // Still joinable afterwards.
    join(&mut env, &l.invite);
}

// --- moves --------------------------------------------------------------------------------

#[test]
fn moves_need_a_seat_token() {
    let mut env = Env::new();
    let l = create_link(&mut env, SeatChoice::South, None);
    let (north, _) = join(&mut env, &l.invite);
    let mv = json!({ "move": "e2d3", "ply": 0 });
    env.rejected(401, "unauthorized", |e| e.post("/moves", None, &mv));
    // A token from another game, the invite, a hash, garbage: 403.
    let mut other = Env::seeded(77);
    let foreign = create_link(&mut other, SeatChoice::South, None).creator;
    let creator_hash = tokens::hash(&l.creator);
    for bad in [foreign.as_str(), l.invite.as_str(), creator_hash.as_str(), "x"] {
        env.rejected(403, "forbidden", |e| e.post("/moves", Some(bad), &mv));
    }
    // Authorisation comes before the body is looked at.
    env.rejected(401, "unauthorized", |e| e.request(Method::Post, "/moves", None, b"{"));
    env.rejected(403, "forbidden", |e| e.request(Method::Post, "/moves", Some("x"), b"{"));
    // The same for resign and draw.
    env.rejected(401, "unauthorized", |e| e.post("/resign", None, &json!({})));
    env.rejected(403, "forbidden", |e| e.post("/resign", Some(&foreign), &json!({})));
    env.rejected(401, "unauthorized", |e| e.post("/draw", None, &json!({ "action": "offer" })));
    env.rejected(403, "forbidden", |e| e.post("/draw", Some(&foreign), &json!({ "action": "offer" })));
    // The right tokens work.
    ok(&env.post("/moves", Some(&l.creator), &mv));
    let s = env.state();
    let reply = s["legal_moves"][0].as_str().unwrap().to_owned();
    ok(&env.submit(&north, &reply, 1));
}

#[test]
fn move_validation_in_order() {
    let mut env = Env::new();
    let (south, north) = joined(&mut env, None);
    // North at ply 0: not its turn, with the state to resynchronise.
    let b = env.rejected(409, "not_your_turn", |e| e.submit(&north, "e8e7", 0));
    assert_eq!(b["state"]["turn"], "south");
    assert_eq!(b["state"]["ply"], 0);
    assert!(b["message"].as_str().unwrap().contains("south"));
    // South with a stale (or future) ply.
    for ply in [1, 2, 160] {
        let b = env.rejected(409, "stale_ply", |e| e.submit(&south, "e2d3", ply));
        assert_eq!(b["state"]["ply"], 0);
    }
    // Illegal moves name the move.
    for mv in ["e2e3", "e1e9", "a5a6", "e8e7"] {
        let b = env.rejected(422, "illegal_move", |e| e.submit(&south, mv, 0));
        assert!(b["message"].as_str().unwrap().contains(mv), "{b}");
        assert!(b.get("state").is_none());
    }
    // Bad notation.
    for mv in ["", "zz", "e2", "e2e3e4", "j1j2", "e2d3/fly", "E2D3 "] {
        let b = env.rejected(400, "bad_move_notation", |e| e.submit(&south, mv, 0));
        assert_eq!(b["error"], "bad_move_notation", "{mv}");
    }
    // Bodies of the wrong shape.
    for raw in [
        r#"{"move":"e2d3"}"#,
        r#"{"ply":0}"#,
        r#"{"move":"e2d3","ply":-1}"#,
        r#"{"move":"e2d3","ply":"0"}"#,
        r#"{"move":"e2d3","ply":70000}"#,
        r#"{"move":1,"ply":0}"#,
        r#"{"move":"e2d3","ply":0,"promote":true}"#,
    ] {
        env.rejected(400, "invalid_body", |e| {
            e.request(Method::Post, "/moves", Some(&south), raw.as_bytes())
        });
    }
    env.rejected(400, "invalid_json", |e| e.request(Method::Post, "/moves", Some(&south), b"{\"move\":"));
    env.rejected(400, "invalid_json", |e| e.request(Method::Post, "/moves", Some(&south), b""));

    // Now a legal move.
    env.now = T0 + 42;
    let h = env.submit(&south, "e2d3", 0);
    let b = ok(&h).clone();
    assert!(b["ai_move"].is_null());
    assert!(b.get("ai").is_none());
    assert_eq!(b["state"]["ply"], 1);
    assert_eq!(b["state"]["turn"], "north");
    assert_eq!(b["state"]["moves"], json!(["e2d3"]));
    assert_eq!(h.effects, Effects { changed: true, created: false, finished: false });
    let rec = env.rec();
    assert_eq!(rec.moves.len(), 1);
    assert_eq!(rec.moves[0].by, Side::South);
    assert_eq!(rec.moves[0].at, T0 + 42);
    assert_eq!(rec.position.ply(), 1);
    assert_eq!(env.state(), b["state"]);
    // South again: not its turn now.
    env.rejected(409, "not_your_turn", |e| e.submit(&south, "d2c3", 1));
}

#[test]
fn a_retried_submission_gets_the_same_answer_and_moves_nothing() {
    let mut env = Env::new();
    let (south, north) = joined(&mut env, None);
    let first = ok(&env.submit(&south, "e2d3", 0)).clone();
    let before = env.store.record.clone();
    let saves = env.store.saves;
    for _ in 0..3 {
        env.now += 1000;
        let h = env.submit(&south, "e2d3", 0);
        assert_eq!(ok(&h), first, "exactly the same body");
        assert_eq!(h.effects, Effects::default());
        assert_eq!(env.store.record, before);
        assert_eq!(env.store.saves, saves);
        assert_eq!(env.rec().moves.len(), 1);
    }
    // A different move at the same ply is not a retry: it is judged normally.
    env.rejected(409, "not_your_turn", |e| e.submit(&south, "c2d3", 0));
    // The retry is per seat: North sending South's submission is not a retry.
    env.rejected(409, "stale_ply", |e| e.submit(&north, "e2d3", 0));
    // After North replies, South's old submission still gets its old answer.
    let s = env.state();
    let reply = s["legal_moves"][0].as_str().unwrap().to_owned();
    let second = ok(&env.submit(&north, &reply, 1)).clone();
    assert_eq!(ok(&env.submit(&south, "e2d3", 0)), first);
    assert_eq!(ok(&env.submit(&north, &reply, 1)), second);
    assert_eq!(env.rec().moves.len(), 2);
    assert_eq!(env.state()["ply"], 2);
}

#[test]
fn ai_games_answer_with_the_ai_move() {
    let mut env = Env::new();
    let (token, _) = create_ai(&mut env, SeatChoice::South);
    env.now = T0 + 7;
    let h = env.submit(&token, "e2d3", 0);
    let b = ok(&h).clone();
    let mut game = Game::new(engine::Position::start(Faction::Clockwork, Faction::Blades));
    game.play(Move::parse("e2d3").unwrap()).unwrap();
    let expected = first_legal(&game).unwrap();
    assert_eq!(b["ai_move"], expected.to_string());
    assert_eq!(b["ai"], json!({ "engine": "first-legal", "placeholder": false, "level": 4 }));
    assert_eq!(b["state"]["ply"], 2);
    assert_eq!(b["state"]["turn"], "south");
    assert_eq!(b["state"]["moves"], json!(["e2d3", expected.to_string()]));
    let rec = env.rec();
    assert_eq!(rec.moves.len(), 2);
    assert_eq!(rec.moves[1].mv, expected);
    assert_eq!(rec.moves[1].by, Side::North);
    assert_eq!(rec.moves[1].at, T0 + 7);
    game.play(expected).unwrap();
    assert_eq!(rec.position, *game.position());
    // The retry of the first move answers the same, AI move included.
    assert_eq!(ok(&env.submit(&token, "e2d3", 0)), b);
    assert_eq!(env.rec().moves.len(), 2);
    // A different move at the old ply is stale.
    env.rejected(409, "stale_ply", |e| e.submit(&token, "c2d3", 0));
}

/// Replaces the stored game's start position (a fresh game, no moves yet).
fn set_start(env: &mut Env, iapn: &str) {
    let pos = engine::iapn::parse(iapn).unwrap();
    let rec = env.store.record.as_mut().unwrap();
    assert!(rec.moves.is_empty());
    rec.start = pos;
    rec.position = pos;
    rec.south = pos.faction(Side::South);
    rec.north = pos.faction(Side::North);
}

#[test]
fn a_game_played_to_a_rules_result_from_a_custom_start() {
    let mut env = Env::new();
    let (south, north) = joined(&mut env, Some(1));
    // A South Gear next to North's Father Time: capturing it ends the game.
    set_start(&mut env, "clockwork clockwork 4f4/4G4/9/9/9/9/9/9/4F4 s - 0");
    let s = env.state();
    assert!(str_list(&s["legal_moves"]).contains(&"e8e9".to_owned()));
    env.rejected(422, "illegal_move", |e| e.submit(&south, "e2d3", 0));
    env.now = T0 + 100;
    let h = env.submit(&south, "e8e9", 0);
    let win = ok(&h).clone();
    let st = &win["state"];
    assert_eq!(st["status"], "finished");
    assert_eq!(
        st["result"],
        json!({ "text": "south wins: king destroyed", "winner": "south", "reason": "king destroyed" })
    );
    assert_eq!(st["rules_result"], "south wins: king destroyed");
    assert_eq!(st["legal_moves"], json!([]));
    assert!(st["deadline"].is_null());
    assert_eq!(h.effects, Effects { changed: true, created: false, finished: true });
    let rec = env.rec();
    let fin = rec.result.as_ref().unwrap();
    assert_eq!(fin.text, "south wins: king destroyed");
    assert_eq!(fin.winner, Some(Side::South));
    assert_eq!(fin.at, T0 + 100);
    assert!(rec.deadline.is_none());
    // Everything after the end is 409 game_over.
    let b = env.rejected(409, "game_over", |e| e.submit(&north, "e1e2", 1));
    assert_eq!(b["state"]["status"], "finished");
    env.rejected(409, "game_over", |e| e.submit(&south, "e9e8", 1));
    env.rejected(409, "game_over", |e| e.post("/resign", Some(&north), &json!({})));
    env.rejected(409, "game_over", |e| e.post("/draw", Some(&north), &json!({ "action": "offer" })));
    // The alarm has nothing to do.
    env.now = T0 + 10_000_000_000;
    let before = env.store.record.clone();
    let h = env.alarm();
    assert_eq!(h.response.status, 200);
    assert_eq!(h.effects, Effects::default());
    assert_eq!(env.store.record, before);
    // The winning move's retry still answers the same.
    assert_eq!(ok(&env.submit(&south, "e8e9", 0)), win);
    assert_eq!(env.rec().moves.len(), 1);
    // The record text replays to the same result.
    let text = record_text(&mut env);
    let r = Record::parse(&text).unwrap();
    assert_eq!(r.result, "south wins: king destroyed");
    let g = r.replay().unwrap();
    assert_eq!(*g.position(), env.rec().position);
}

fn record_text(env: &mut Env) -> String {
    let h = env.request(Method::Get, "/record", None, b"");
    assert_eq!(h.response.status, 200);
    assert_eq!(h.effects, Effects::default());
    match &h.response.body {
        Body::Text(t) => t.clone(),
        other => panic!("the record is text, not {other:?}"),
    }
}

#[test]
fn an_ai_game_played_to_the_end_with_first_legal_moves() {
    let mut env = Env::new();
    let (token, _) = create_ai(&mut env, SeatChoice::South);
    let mut last = Value::Null;
    let mut last_submit = (String::new(), 0u64);
    for _ in 0..200 {
        let s = env.state();
        if s["status"] == "finished" {
            break;
        }
        assert_eq!(s["turn"], "south");
        let mv = s["legal_moves"][0].as_str().unwrap().to_owned();
        let ply = s["ply"].as_u64().unwrap();
        env.now += 1;
        let h = env.submit(&token, &mv, ply);
        last = ok(&h).clone();
        last_submit = (mv, ply);
        assert_eq!(h.effects.finished, last["state"]["status"] == "finished");
    }
    let s = env.state();
    assert_eq!(s["status"], "finished", "the game should end within 160 plies");
    let rec = env.rec().clone();
    let game = rec.replay().unwrap();
    let outcome = game.outcome().expect("a rules result");
    let text = outcome.to_string();
    assert_eq!(rec.result.as_ref().unwrap().text, text);
    assert_eq!(s["result"]["text"], text);
    assert_eq!(s["rules_result"], text);
    assert_eq!(s["result"]["winner"], json!(outcome.winner()));
    assert_eq!(s["moves"].as_array().unwrap().len(), rec.moves.len());
    assert_eq!(usize::from(game.position().ply()), rec.moves.len());
    // Moves alternate South (human) and North (AI).
    for (i, m) in rec.moves.iter().enumerate() {
        assert_eq!(m.by, if i % 2 == 0 { Side::South } else { Side::North });
    }
    // Further moves: game_over (a fresh submission), the same answer (a retry).
    let ply = s["ply"].as_u64().unwrap();
    env.rejected(409, "game_over", |e| e.submit(&token, "e2d3", ply));
    assert_eq!(ok(&env.submit(&token, &last_submit.0, last_submit.1)), last);
    env.rejected(409, "game_over", |e| e.post("/resign", Some(&token), &json!({})));
    let r = Record::parse(&record_text(&mut env)).unwrap();
    assert_eq!(r.result, text);
    assert_eq!(*r.replay().unwrap().position(), rec.position);
}

// --- resign ---------------------------------------------------------------------------------

#[test]
fn resigning_gives_the_opponent_the_game() {
    let mut env = Env::new();
    let (south, north) = joined(&mut env, Some(2));
    ok(&env.submit(&south, "e2d3", 0));
    env.now = T0 + 9;
    // North resigns on its own turn.
    let h = env.post("/resign", Some(&north), &json!({}));
    let b = ok(&h).clone();
    assert_eq!(
        b["state"]["result"],
        json!({ "text": "south wins: resignation", "winner": "south", "reason": "resignation" })
    );
    assert_eq!(b["state"]["status"], "finished");
    assert_eq!(b["state"]["rules_result"], "ongoing");
    assert_eq!(b["state"]["legal_moves"], json!([]));
    assert!(b["state"]["deadline"].is_null());
    assert_eq!(h.effects, Effects { changed: true, created: false, finished: true });
    let rec = env.rec();
    assert_eq!(rec.result.as_ref().unwrap().at, T0 + 9);
    assert!(rec.deadline.is_none());
    env.rejected(409, "game_over", |e| e.post("/resign", Some(&north), &json!({})));
    env.rejected(409, "game_over", |e| e.post("/resign", Some(&south), &json!({})));
    env.rejected(409, "game_over", |e| e.submit(&north, "e8e7", 1));
}

#[test]
fn resigning_off_turn_and_in_ai_games() {
    // South resigns while it is North's turn.
    let mut env = Env::new();
    let (south, _north) = joined(&mut env, None);
    ok(&env.submit(&south, "e2d3", 0));
    let b = ok(&env.post("/resign", Some(&south), &json!({}))).clone();
    assert_eq!(b["state"]["result"]["text"], "north wins: resignation");
    // In an AI game.
    let mut env = Env::new();
    let (token, _) = create_ai(&mut env, SeatChoice::North);
    let h = env.post("/resign", Some(&token), &json!({}));
    assert_eq!(ok(&h)["state"]["result"]["text"], "south wins: resignation");
    assert!(h.effects.finished);
    let b = env.rejected(409, "game_over", |e| e.post("/resign", Some(&token), &json!({})));
    assert_eq!(b["state"]["result"]["text"], "south wins: resignation");
    let r = Record::parse(&record_text(&mut env)).unwrap();
    assert_eq!(r.result, "south wins: resignation");
    assert_eq!(*r.replay().unwrap().position(), env.rec().position);
}

// --- draws ----------------------------------------------------------------------------------

fn draw(env: &mut Env, token: &str, action: &str) -> Handled {
    env.post("/draw", Some(token), &json!({ "action": action }))
}

#[test]
fn a_draw_by_offer_and_acceptance() {
    let mut env = Env::new();
    let (south, north) = joined(&mut env, None);
    env.rejected(409, "no_draw_offer", |e| draw(e, &north, "accept"));
    env.rejected(409, "no_draw_offer", |e| draw(e, &south, "decline"));
    let h = draw(&mut env, &south, "offer");
    let b = ok(&h).clone();
    assert_eq!(b["state"]["draw_offer"], "south");
    assert!(b["state"]["result"].is_null());
    assert!(h.effects.changed && !h.effects.finished);
    assert_eq!(env.rec().draw_offer, Some(Side::South));
    // The offerer cannot offer again, nor accept or decline its own offer.
    env.rejected(409, "draw_already_offered", |e| draw(e, &south, "offer"));
    env.rejected(409, "no_draw_offer", |e| draw(e, &south, "accept"));
    env.rejected(409, "no_draw_offer", |e| draw(e, &south, "decline"));
    env.now = T0 + 3;
    let h = draw(&mut env, &north, "accept");
    let b = ok(&h).clone();
    assert_eq!(
        b["state"]["result"],
        json!({ "text": "draw: agreement", "winner": null, "reason": "agreement" })
    );
    assert!(b["state"]["draw_offer"].is_null());
    assert_eq!(b["state"]["status"], "finished");
    assert!(h.effects.finished);
    let rec = env.rec();
    assert_eq!(rec.result.as_ref().unwrap().text, "draw: agreement");
    assert_eq!(rec.result.as_ref().unwrap().at, T0 + 3);
    assert!(rec.draw_offer.is_none());
    env.rejected(409, "game_over", |e| draw(e, &south, "offer"));
    env.rejected(409, "game_over", |e| draw(e, &north, "accept"));
    env.rejected(409, "game_over", |e| e.submit(&south, "e2d3", 0));
    let r = Record::parse(&record_text(&mut env)).unwrap();
    assert_eq!(r.result, "draw: agreement");
    r.replay().unwrap();
}

#[test]
fn crossing_offers_agree_and_declines_clear() {
    let mut env = Env::new();
    let (south, north) = joined(&mut env, None);
    ok(&draw(&mut env, &north, "offer"));
    let b = ok(&draw(&mut env, &south, "decline")).clone();
    assert!(b["state"]["draw_offer"].is_null());
    assert!(b["state"]["result"].is_null());
    assert!(env.rec().draw_offer.is_none());
    env.rejected(409, "no_draw_offer", |e| draw(e, &south, "accept"));
    // An offer answering the opponent's offer is an agreement.
    ok(&draw(&mut env, &north, "offer"));
    let b = ok(&draw(&mut env, &south, "offer")).clone();
    assert_eq!(b["state"]["result"]["text"], "draw: agreement");
}

/// The state's version after `h`, a change: one more than `before`, the stored record's
/// and what a read of the game answers.
fn next_version(env: &mut Env, h: &Handled, before: u64) -> u64 {
    let v = ok(h)["state"]["version"].as_u64().expect("a version");
    assert_eq!(v, before + 1, "a change raises the version by one");
    assert_eq!(env.rec().version, v, "the answer carries the saved version");
    assert_eq!(env.state()["version"], v);
    v
}

/// Regression: a game's state had no version. An offer and its decline have the same moves,
/// so a client could not tell an offer's answer that came late from the decline's newer
/// push, and put the offer back on the board. Every saved change now raises the version;
/// every answer and read carries the saved one (a move's answer too, which is made before
/// its save); a refusal and a retried move leave it.
#[test]
fn every_change_raises_the_games_version_and_its_answer_carries_it() {
    let mut env = Env::new();
    let (south, north) = joined(&mut env, None);
    let created = env.state()["version"].as_u64().unwrap();
    assert!(created >= 2, "created, then joined: {created}");
    let offer = draw(&mut env, &south, "offer");
    let v = next_version(&mut env, &offer, created);
    let decline = draw(&mut env, &north, "decline");
    let v = next_version(&mut env, &decline, v);
    assert_eq!(ok(&offer)["state"]["moves"], ok(&decline)["state"]["moves"], "only the version orders them");
    env.rejected(409, "no_draw_offer", |e| draw(e, &south, "accept"));
    let moved = env.submit(&south, "e2d3", 0);
    let v = next_version(&mut env, &moved, v);
    let retried = env.submit(&south, "e2d3", 0);
    assert_eq!(ok(&retried), ok(&moved), "a retry is answered as before");
    assert_eq!(env.rec().version, v, "a retry changes nothing");
    env.rejected(409, "not_your_turn", |e| e.submit(&south, "d2c3", 1));
    let resigned = env.post("/resign", Some(&north), &json!({}));
    next_version(&mut env, &resigned, v);
}

#[test]
fn draw_requests_that_cannot_be_served() {
    // AI games: 422 draw_unavailable.
    let mut env = Env::new();
    let (token, _) = create_ai(&mut env, SeatChoice::South);
    for action in ["offer", "accept", "decline"] {
        env.rejected(422, "draw_unavailable", |e| draw(e, &token, action));
    }
    // Before the opponent joined.
    let mut env = Env::new();
    let l = create_link(&mut env, SeatChoice::South, None);
    env.rejected(409, "waiting_for_opponent", |e| draw(e, &l.creator, "offer"));
    env.rejected(409, "no_draw_offer", |e| draw(e, &l.creator, "accept"));
    // Bad bodies.
    let (_, _) = join(&mut env, &l.invite);
    for raw in
        [r#"{"action":"maybe"}"#, r#"{"action":"Offer"}"#, r#"{}"#, r#"{"action":"offer","why":"tired"}"#]
    {
        env.rejected(400, "invalid_body", |e| {
            e.request(Method::Post, "/draw", Some(&l.creator), raw.as_bytes())
        });
    }
    env.rejected(400, "invalid_json", |e| e.request(Method::Post, "/draw", Some(&l.creator), b"offer"));
}

#[test]
fn a_move_by_the_offered_side_declines_the_offer() {
    let mut env = Env::new();
    let (south, north) = joined(&mut env, None);
    ok(&draw(&mut env, &south, "offer"));
    // The offerer's own move keeps the offer open.
    let b = ok(&env.submit(&south, "e2d3", 0)).clone();
    assert_eq!(b["state"]["draw_offer"], "south");
    assert_eq!(env.rec().draw_offer, Some(Side::South));
    // The offered side moves instead of answering: the offer is gone.
    let mv = b["state"]["legal_moves"][0].as_str().unwrap().to_owned();
    let b = ok(&env.submit(&north, &mv, 1)).clone();
    assert!(b["state"]["draw_offer"].is_null());
    assert!(env.rec().draw_offer.is_none());
    env.rejected(409, "no_draw_offer", |e| draw(e, &north, "accept"));
    // North can offer in turn, and South moving declines it.
    ok(&draw(&mut env, &north, "offer"));
    let mv = env.state()["legal_moves"][0].as_str().unwrap().to_owned();
    let b = ok(&env.submit(&south, &mv, 2)).clone();
    assert!(b["state"]["draw_offer"].is_null());
}

// --- deadlines ------------------------------------------------------------------------------

#[test]
fn correspondence_deadlines_and_time_forfeit() {
    let mut env = Env::new();
    env.day_ms = 1000;
    env.now = 10_000;
    let l = create_link(&mut env, SeatChoice::South, Some(1));
    assert!(env.rec().deadline.is_none());
    // No deadline, nothing for the alarm to do while waiting.
    let h = env.alarm();
    assert_eq!(h.response.status, 200);
    assert_eq!(next_alarm(&h), None);

    env.now = 10_050;
    let h = env.post("/join", None, &json!({ "invite": l.invite }));
    let north = ok(&h)["token"].as_str().unwrap().to_owned();
    assert_eq!(ok(&h)["state"]["deadline"], 11_050);
    assert_eq!(next_alarm(&h), Some(11_050));
    assert_eq!(env.rec().deadline, Some(11_050));

    // Before the deadline: nothing changes, the alarm is kept.
    for now in [10_050, 11_049] {
        env.now = now;
        let before = env.store.record.clone();
        let saves = env.store.saves;
        let h = env.alarm();
        assert_eq!(h.response.status, 200);
        assert_eq!(h.effects, Effects { changed: false, created: false, finished: false });
        assert_eq!(env.store.record, before);
        assert_eq!(env.store.saves, saves);
    }
    // A draw offer does not restart the clock.
    env.now = 10_600;
    let h = draw(&mut env, &north, "offer");
    assert_eq!(ok(&h)["state"]["deadline"], 11_050);
    assert_eq!(next_alarm(&h), Some(11_050));
    ok(&draw(&mut env, &l.creator, "decline"));
    assert_eq!(env.rec().deadline, Some(11_050));
    // A move resets it for the other side.
    env.now = 10_700;
    let h = env.submit(&l.creator, "e2d3", 0);
    assert_eq!(ok(&h)["state"]["deadline"], 11_700);
    assert_eq!(next_alarm(&h), Some(11_700));
    assert_eq!(env.rec().deadline, Some(11_700));
    // The old deadline passing does nothing now.
    env.now = 11_050;
    let before = env.store.record.clone();
    let h = env.alarm();
    assert_eq!(next_alarm(&h), Some(11_700));
    assert!(!h.effects.finished);
    assert_eq!(env.store.record, before);

    // At the deadline the side to move (North) loses.
    env.now = 11_700;
    let h = env.alarm();
    let b = ok(&h).clone();
    assert_eq!(
        b["state"]["result"],
        json!({ "text": "south wins: time forfeit", "winner": "south", "reason": "time forfeit" })
    );
    assert!(b["state"]["deadline"].is_null());
    assert!(h.effects.finished);
    assert!(h.effects.changed);
    assert_eq!(next_alarm(&h), None);
    let rec = env.rec();
    assert_eq!(rec.result.as_ref().unwrap().at, 11_700);
    assert!(rec.deadline.is_none());
    assert!(rec.draw_offer.is_none());
    // A second alarm does nothing.
    env.now = 20_000;
    let before = env.store.record.clone();
    let h = env.alarm();
    assert_eq!(h.effects, Effects::default());
    assert_eq!(env.store.record, before);
    env.rejected(409, "game_over", |e| e.submit(&north, "e8e7", 1));
    let r = Record::parse(&record_text(&mut env)).unwrap();
    assert_eq!(r.result, "south wins: time forfeit");
    assert_eq!(*r.replay().unwrap().position(), env.rec().position);
}

#[test]
fn time_forfeit_after_the_deadline_for_south() {
    let mut env = Env::new();
    env.day_ms = 1000;
    env.now = 0;
    let (_south, _north) = joined(&mut env, Some(1));
    assert_eq!(env.rec().deadline, Some(1000));
    env.now = 5000; // well after
    let h = env.alarm();
    assert_eq!(ok(&h)["state"]["result"]["text"], "north wins: time forfeit");
    assert!(h.effects.finished);
}

#[test]
fn longer_time_controls_and_no_time_control() {
    let mut env = Env::new();
    env.day_ms = 1000;
    env.now = 0;
    let (south, _) = joined(&mut env, Some(14));
    assert_eq!(env.rec().deadline, Some(14_000));
    env.now = 500;
    ok(&env.submit(&south, "e2d3", 0));
    assert_eq!(env.rec().deadline, Some(14_500));

    let mut env = Env::new();
    env.day_ms = 1000;
    let (south, _) = joined(&mut env, None);
    assert!(env.rec().deadline.is_none());
    let h = env.submit(&south, "e2d3", 0);
    assert_eq!(next_alarm(&h), None);
    env.now += 1_000_000;
    let before = env.store.record.clone();
    let h = env.alarm();
    assert_eq!(h.effects, Effects::default());
    assert_eq!(env.store.record, before);
}

// --- storage failure ------------------------------------------------------------------------

#[test]
fn a_storage_failure_changes_nothing() {
    let mut env = Env::new();
    env.day_ms = 1000;
    let l = create_link(&mut env, SeatChoice::South, Some(1));
    env.store.fail_saves = true;
    env.rejected(503, "storage_unavailable", |e| e.post("/join", None, &json!({ "invite": l.invite })));
    env.store.fail_saves = false;
    let (north, _) = join(&mut env, &l.invite);
    let south = l.creator;

    env.store.fail_saves = true;
    env.now += 10;
    env.rejected(503, "storage_unavailable", |e| e.submit(&south, "e2d3", 0));
    env.rejected(503, "storage_unavailable", |e| e.post("/resign", Some(&north), &json!({})));
    env.rejected(503, "storage_unavailable", |e| draw(e, &north, "offer"));
    env.now += 1_000_000;
    env.rejected(503, "storage_unavailable", Env::alarm);
    // Reads still work.
    env.state();
    record_text(&mut env);

    // Once storage is back, the same submission is a fresh move (no cached reply).
    env.store.fail_saves = false;
    env.now = T0;
    let b = ok(&env.submit(&south, "e2d3", 0)).clone();
    assert_eq!(b["state"]["ply"], 1);
    assert_eq!(env.rec().moves.len(), 1);
}

#[test]
fn a_storage_failure_in_an_ai_game_saves_neither_move() {
    let mut env = Env::new();
    let (token, _) = create_ai(&mut env, SeatChoice::South);
    env.store.fail_saves = true;
    env.rejected(503, "storage_unavailable", |e| e.submit(&token, "e2d3", 0));
    assert!(env.rec().moves.is_empty());
    assert!(env.rec().last_replies.iter().all(Option::is_none));
}

// --- the record -----------------------------------------------------------------------------

#[test]
fn the_record_text_parses_and_replays_to_the_same_position() {
    let mut env = Env::new();
    let (token, _) = create_ai(&mut env, SeatChoice::North);
    for _ in 0..6 {
        let s = env.state();
        let mv = s["legal_moves"][0].as_str().unwrap().to_owned();
        ok(&env.submit(&token, &mv, s["ply"].as_u64().unwrap()));
    }
    let text = record_text(&mut env);
    assert!(text.starts_with(engine::record::HEADER), "{text}");
    let r = Record::parse(&text).unwrap();
    let rec = env.rec().clone();
    assert_eq!(r.start, rec.start);
    assert_eq!(r.moves, rec.moves.iter().map(|m| m.mv).collect::<Vec<_>>());
    assert_eq!(r.result, "ongoing");
    let tag = |k: &str| r.tags.iter().find(|(t, _)| t == k).map(|(_, v)| v.clone());
    assert_eq!(tag("id").as_deref(), Some(ID));
    assert_eq!(tag("date").as_deref(), Some("2026-11-30T00:40:00Z"));
    assert_eq!(tag("south").as_deref(), Some("clockwork (ai)"));
    assert_eq!(tag("north").as_deref(), Some("blades (human)"));
    assert_eq!(tag("mode").as_deref(), Some("ai"));
    let g = r.replay().unwrap();
    assert_eq!(*g.position(), rec.position);
    assert_eq!(g.position().ply(), 13);
    assert_eq!(g.repetitions(), rec.repetitions);
    assert_eq!(*g.position(), *rec.replay().unwrap().position());
}

// --- regressions: bugs found by these tests, fixed in http::parse_json ---

#[test]

fn a_wrong_type_for_the_draw_action_is_invalid_body() {
    let mut env = Env::new();
    let (south, _) = joined(&mut env, None);
    for raw in [r#"{"action":1}"#, r#"{"action":null}"#, r#"{"action":true}"#] {
        env.rejected(400, "invalid_body", |e| e.request(Method::Post, "/draw", Some(&south), raw.as_bytes()));
    }
}

#[test]
fn array_bodies_are_refused() {
    let mut env = Env::new();
    let l = create_link(&mut env, SeatChoice::South, None);
    let raw = json!([l.invite]).to_string();
    env.rejected(400, "invalid_body", |e| e.request(Method::Post, "/join", None, raw.as_bytes()));
    let (_, _) = join(&mut env, &l.invite);
    env.rejected(400, "invalid_body", |e| {
        e.request(Method::Post, "/moves", Some(&l.creator), br#"["e2d3",0]"#)
    });
    env.rejected(400, "invalid_body", |e| {
        e.request(Method::Post, "/draw", Some(&l.creator), br#"["offer"]"#)
    });
}

// --- players: story stages, rated games -----------------------------------------------

fn player(id: &str, linked: bool) -> PlayerRef {
    PlayerRef { id: id.repeat(24 / id.len()), linked }
}

impl Env {
    fn create_stage(&mut self, goal: service::story::Goal, who: &PlayerRef) -> Handled {
        let stage = service::model::StageRef {
            story: "clockwork".into(),
            stage: 0,
            title: "test".into(),
            player: Side::South,
            goal,
        };
        let extra = game::Extra {
            creator: Some(who.clone()),
            start: Some(engine::Position::start(Faction::Clockwork, Faction::Blades)),
            stage: Some(stage),
            ..game::Extra::default()
        };
        let mut ctx =
            Ctx { now: self.now, rng: self.rng.as_mut(), ai: self.ai.as_mut(), day_ms: self.day_ms };
        game::create_with(
            &mut self.store,
            ID,
            &req(Mode::Ai, SeatChoice::South, None),
            &extra,
            ORIGIN,
            &mut ctx,
        )
    }

    fn abandon(&mut self, who: &str) -> Handled {
        let mut ctx =
            Ctx { now: self.now, rng: self.rng.as_mut(), ai: self.ai.as_mut(), day_ms: self.day_ms };
        game::abandon(&mut self.store, who, &mut ctx)
    }

    fn withdraw(&mut self) -> Handled {
        let mut ctx =
            Ctx { now: self.now, rng: self.rng.as_mut(), ai: self.ai.as_mut(), day_ms: self.day_ms };
        game::withdraw(&mut self.store, &mut ctx)
    }
}

#[test]
fn a_survival_stage_is_won_when_its_plies_are_reached() {
    let mut env = Env::new();
    let me = player("a1", false);
    let h = env.create_stage(service::story::Goal::Survive { plies: 2 }, &me);
    let token = body(&h)["token"].as_str().unwrap().to_owned();
    assert_eq!(body(&h)["state"]["stage"]["verdict"], "pending");
    assert_eq!(env.rec().seats[0].player.as_deref(), Some(me.id.as_str()));
    let mv = first_legal(&env.rec().replay().unwrap()).unwrap().to_string();
    let h = env.submit(&token, &mv, 0);
    let b = ok(&h);
    assert!(h.effects.finished, "{b}");
    assert_eq!(b["state"]["result"]["winner"], "south");
    assert_eq!(b["state"]["result"]["reason"], "stage goal");
    assert_eq!(b["state"]["stage"]["verdict"], "won");
    assert_eq!(b["state"]["moves"].as_array().unwrap().len(), 2);
}

#[test]
fn a_win_within_stage_is_lost_when_its_plies_run_out_and_the_ai_stops_there() {
    let mut env = Env::new();
    let me = player("a1", false);
    let h = env.create_stage(service::story::Goal::WinWithin { plies: 1 }, &me);
    let token = body(&h)["token"].as_str().unwrap().to_owned();
    let mv = first_legal(&env.rec().replay().unwrap()).unwrap().to_string();
    let b = ok(&env.submit(&token, &mv, 0)).clone();
    // Decided at ply 1: the AI does not move after the stage is over.
    assert_eq!(b["ai_move"], Value::Null, "{b}");
    assert_eq!(b["state"]["result"]["winner"], "north");
    assert_eq!(b["state"]["stage"]["verdict"], "lost");
}

#[test]
fn exit_stage_ends_only_the_players_own_stage_game_once() {
    let mut env = Env::new();
    let me = player("a1", false);
    env.create_stage(service::story::Goal::Win, &me);
    env.rejected(403, "forbidden", |e| e.abandon(&player("b2", false).id));
    let h = env.abandon(&me.id);
    let b = ok(&h).clone();
    assert!(h.effects.finished);
    assert_eq!(b["state"]["result"]["reason"], "abandoned");
    assert_eq!(b["state"]["result"]["winner"], "north");
    assert_eq!(b["state"]["stage"]["verdict"], "lost");
    // Again: nothing changes, nothing is saved.
    let saves = env.store.saves;
    let h = env.abandon(&me.id);
    ok(&h);
    assert_eq!(h.effects, Effects::default());
    assert_eq!(env.store.saves, saves);

    let mut plain = Env::new();
    plain.create(&req(Mode::Ai, SeatChoice::South, None));
    plain.rejected(409, "not_a_stage", |e| e.abandon(&me.id));
}

/// A stage restart whose old game could not be ended withdraws the new one, never handed
/// out: aborted, nobody's win; once. So does an accepted challenge whose join failed
/// (stop 48: any game the Worker made can be withdrawn; the path is internal).
#[test]
fn a_withdrawn_game_ends_aborted_once() {
    let mut env = Env::new();
    let me = player("a1", false);
    env.create_stage(service::story::Goal::Win, &me);
    let h = env.withdraw();
    let b = ok(&h).clone();
    assert!(h.effects.finished);
    assert_eq!(b["state"]["result"]["text"], "aborted: by a player", "{b}");
    assert_eq!(b["state"]["result"]["winner"], Value::Null);
    assert_eq!(b["state"]["status"], "finished");
    let saves = env.store.saves;
    let h = env.withdraw();
    ok(&h);
    assert_eq!(h.effects, Effects::default());
    assert_eq!(env.store.saves, saves);

    let mut link = Env::new();
    link.create(&req(Mode::Link, SeatChoice::South, Some(1)));
    let b = ok(&link.withdraw()).clone();
    assert_eq!(b["state"]["result"]["text"], "aborted: by a player", "{b}");
}

#[test]
fn rated_games_are_between_two_different_discord_players() {
    let mut env = Env::new();
    let mut rated = req(Mode::Link, SeatChoice::South, Some(1));
    rated.rated = true;
    env.rejected(403, "sign_in_required", |e| e.create(&rated));
    env.player = Some(player("a1", false));
    env.rejected(403, "sign_in_required", |e| e.create(&rated));
    env.player = Some(player("a1", true));
    let mut ctx = Ctx { now: env.now, rng: env.rng.as_mut(), ai: env.ai.as_mut(), day_ms: env.day_ms };
    let extra = game::Extra { creator: env.player.clone(), ..game::Extra::default() };
    let h = game::create_with(&mut env.store, ID, &rated, &extra, ORIGIN, &mut ctx);
    assert_eq!(h.response.status, 201);
    let invite = body(&h)["invite_url"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_owned();
    assert_eq!(body(&h)["state"]["rated"], true);
    let join = json!({ "invite": invite });
    env.player = None;
    env.rejected(403, "sign_in_required", |e| e.post("/join", None, &join));
    env.player = Some(player("b2", false));
    env.rejected(403, "sign_in_required", |e| e.post("/join", None, &join));
    env.player = Some(player("a1", true));
    env.rejected(422, "same_player", |e| e.post("/join", None, &join));
    env.player = Some(player("b2", true));
    ok(&env.post("/join", None, &join));
    assert_eq!(env.rec().seats[1].player.as_deref(), Some(player("b2", true).id.as_str()));
    assert_eq!(env.state()["north"]["player_id"], player("b2", true).id);
}

#[test]
fn an_unrated_join_records_the_joining_player_when_there_is_one() {
    let mut env = Env::new();
    let h = env.create(&req(Mode::Link, SeatChoice::South, None));
    let invite = body(&h)["invite_url"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_owned();
    env.player = Some(player("c3", false));
    ok(&env.post("/join", None, &json!({ "invite": invite })));
    assert_eq!(env.rec().seats[1].player.as_deref(), Some(player("c3", false).id.as_str()));
}

/// `POST …/rematch` (the old game's side, as the Durable Object runs it), answered at once.
fn rematch(env: &mut Env, token: &str, action: &str) -> Handled {
    let req = ApiRequest {
        method: Method::Post,
        path: format!("/api/games/{ID}/rematch"),
        bearer: Some(token.to_owned()),
        body: json!({ "action": action }).to_string().into_bytes(),
        origin: ORIGIN.to_owned(),
        player: None,
    };
    let mut ctx = Ctx { now: env.now, rng: env.rng.as_mut(), ai: env.ai.as_mut(), day_ms: env.day_ms };
    match service::rematch::request(&mut env.store, &req, &mut ctx) {
        service::rematch::Step::Done(h) => h,
        service::rematch::Step::Create(..) => panic!("{action}: a rematch game was planned"),
    }
}

/// Each rematch refusal has its code's one status: declining the AI, which never offers,
/// is 422 `cannot_decline_ai`; accepting or declining an offer nobody made is 409
/// `no_rematch_offer`, with the current state.
#[test]
fn rematch_refusals_answer_their_codes_status() {
    let mut env = Env::new();
    let (token, _) = create_ai(&mut env, SeatChoice::South);
    ok(&env.post("/resign", Some(&token), &json!({})));
    let b = env.rejected(422, "cannot_decline_ai", |e| rematch(e, &token, "decline"));
    assert!(b.get("state").is_none(), "{b}");

    let mut env = Env::new();
    let (south, north) = joined(&mut env, None);
    ok(&env.post("/resign", Some(&south), &json!({})));
    for (token, action) in [(&south, "accept"), (&north, "decline")] {
        let b = env.rejected(409, "no_rematch_offer", |e| rematch(e, token, action));
        assert!(b["state"].is_object(), "{b}");
    }
}

// --- take-backs (issue 31) ------------------------------------------------------------

fn takeback(env: &mut Env, token: &str) -> Handled {
    env.post("/takeback", Some(token), &json!({}))
}

/// A take-back in a casual game against the AI undoes the player's last move and the AI's
/// answer: the position, ply, repetition count and legal moves are exactly those before
/// the move; the game says it was assisted (state and record); the same move played again
/// is played anew, not answered from the stored reply of its first submission.
#[test]
fn a_takeback_restores_the_game_exactly_as_it_was_before_the_players_last_move() {
    let mut env = Env::new();
    let (token, _) = create_ai(&mut env, SeatChoice::South);
    env.rejected(409, "nothing_to_take_back", |e| takeback(e, &token));
    let first = str_list(&env.state()["legal_moves"])[0].clone();
    ok(&env.submit(&token, &first, 0));
    let before = env.state();
    let (rec_before, game_before) = (env.rec().clone(), env.rec().replay().unwrap());
    assert_eq!(before["assisted"], false);
    let second = str_list(&before["legal_moves"]).last().unwrap().clone();
    let moved = ok(&env.submit(&token, &second, 2)).clone();
    assert_eq!(moved["state"]["ply"], 4);

    env.now = T0 + 60_000;
    let h = takeback(&mut env, &token);
    let after = ok(&h)["state"].clone();
    for field in ["position", "ply", "turn", "moves", "legal_moves", "rules_result", "status", "result"] {
        assert_eq!(after[field], before[field], "{field}");
    }
    assert_eq!(after["assisted"], true);
    let rec = env.rec();
    assert_eq!(
        (rec.position, rec.repetitions, &rec.moves),
        (rec_before.position, rec_before.repetitions, &rec_before.moves)
    );
    assert_eq!(rec.replay().unwrap().repetitions(), game_before.repetitions());
    assert!(rec.assisted);
    assert!(record_text(&mut env).contains("assisted"), "{}", record_text(&mut env));
    // The same move again is a new move (its first answer is not replayed).
    let again = ok(&env.submit(&token, &second, 2)).clone();
    assert_eq!(again["state"]["ply"], 4);
    assert_eq!(env.rec().moves[3].at, T0 + 60_000, "played anew, at the new time");
    // Back to the start, then nothing is left to take back.
    ok(&takeback(&mut env, &token));
    ok(&takeback(&mut env, &token));
    assert_eq!(env.state()["ply"], 0);
    env.rejected(409, "nothing_to_take_back", |e| takeback(e, &token));
}

/// Take-backs are refused, changing nothing, in human, rated and story games, in a
/// finished game, and without the seat.
#[test]
fn a_takeback_is_refused_in_human_rated_and_story_games() {
    // A human game (link), after a move each.
    let mut env = Env::new();
    let (south, north) = joined(&mut env, None);
    let mv = str_list(&env.state()["legal_moves"])[0].clone();
    ok(&env.submit(&south, &mv, 0));
    let mv = str_list(&env.state()["legal_moves"])[0].clone();
    ok(&env.submit(&north, &mv, 1));
    env.rejected(422, "takeback_unavailable", |e| takeback(e, &south));
    // A rated game (only link games are rated; the flag alone is refused too).
    let mut env = Env::new();
    let (token, _) = create_ai(&mut env, SeatChoice::South);
    let mv = str_list(&env.state()["legal_moves"])[0].clone();
    ok(&env.submit(&token, &mv, 0));
    env.store.record.as_mut().unwrap().rated = true;
    env.rejected(422, "takeback_unavailable", |e| takeback(e, &token));
    // Someone without the seat, and a finished game.
    env.store.record.as_mut().unwrap().rated = false;
    let e = takeback(&mut env, "0".repeat(64).as_str());
    assert_eq!(e.response.status, 403, "{}", body(&e));
    ok(&env.post("/resign", Some(&token), &json!({})));
    env.rejected(409, "game_over", |e| takeback(e, &token));
    // A story stage.
    let mut env = Env::new();
    let who = player("ab", false);
    env.player = Some(who.clone());
    let h = env.create_stage(service::story::Goal::Win, &who);
    let token = body(&h)["token"].as_str().unwrap().to_owned();
    let mv = str_list(&env.state()["legal_moves"])[0].clone();
    ok(&env.submit(&token, &mv, 0));
    env.rejected(422, "takeback_unavailable", |e| takeback(e, &token));
}

/// `POST …/rematch` with `body`, as the old game's Durable Object runs it.
fn rematch_step(env: &mut Env, token: &str, body: &Value) -> service::rematch::Step {
    let req = ApiRequest {
        method: Method::Post,
        path: format!("/api/games/{ID}/rematch"),
        bearer: Some(token.to_owned()),
        body: body.to_string().into_bytes(),
        origin: ORIGIN.to_owned(),
        player: None,
    };
    let mut ctx = Ctx { now: env.now, rng: env.rng.as_mut(), ai: env.ai.as_mut(), day_ms: env.day_ms };
    service::rematch::request(&mut env.store, &req, &mut ctx)
}

/// Issue 34: an AI rematch swapped the player's side and faction without saying so; it
/// can keep the player's faction (the factions change sides with the seats, so the first
/// move still alternates), and says so in the rematch state. Only against the AI.
#[test]
fn an_ai_rematch_can_keep_the_players_faction() {
    let plan_of = |keep: bool| {
        let mut env = Env::new();
        let (token, _) = create_ai(&mut env, SeatChoice::South);
        ok(&env.post("/resign", Some(&token), &json!({})));
        match rematch_step(&mut env, &token, &json!({ "action": "offer", "keep_faction": keep })) {
            service::rematch::Step::Create(call, rec, _) => {
                assert_eq!(rec.rematch.as_ref().unwrap().keep_faction, keep);
                // Planned again from the stored state (a request that died in between):
                // the same game.
                assert_eq!(service::rematch::plan(&rec, &call.id, ORIGIN), *call);
                *call
            }
            service::rematch::Step::Done(h) => panic!("no rematch planned: {}", body(&h)),
        }
    };
    // The old game: the player South with Clockwork, the AI North with Blades.
    let swapped = plan_of(false);
    let seen = (swapped.create.seat, swapped.create.south, swapped.create.north);
    assert_eq!(seen, (SeatChoice::North, Faction::Clockwork, Faction::Blades));
    let kept = plan_of(true);
    assert_eq!(
        (kept.create.seat, kept.create.south, kept.create.north),
        (SeatChoice::North, Faction::Blades, Faction::Clockwork)
    );
    // A link game refuses it, changing nothing.
    let mut env = Env::new();
    let (south, _) = joined(&mut env, None);
    ok(&env.post("/resign", Some(&south), &json!({})));
    let before = env.store.record.clone();
    match rematch_step(&mut env, &south, &json!({ "action": "offer", "keep_faction": true })) {
        service::rematch::Step::Done(h) => {
            assert_eq!((h.response.status, body(&h)["error"].as_str()), (422, Some("rematch_unavailable")));
        }
        service::rematch::Step::Create(..) => panic!("a link rematch kept a faction"),
    }
    assert_eq!(env.store.record, before);
}
