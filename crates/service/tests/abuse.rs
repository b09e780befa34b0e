#![allow(clippy::unwrap_used)]
//! Issue 11's game rules over `MemoryStore`: aborting a game that has not really started,
//! no join after the end, and Exit Stage by a guest merged into an account.

use engine::{Faction, Game, Move, Side};
use serde_json::Value;
use service::ai::PlaceholderAi;
use service::create::CreateGame;
use service::error::ApiError;
use service::game::{self, Ctx, Extra};
use service::http::{ApiRequest, Method, PlayerRef};
use service::model::{FinishReason, Mode, StageRef};
use service::store::MemoryStore;
use service::tokens::Random;

const ID: &str = "00112233445566778899aabb";

struct Counter(u64);

impl Random for Counter {
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), ApiError> {
        for b in buf {
            self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            *b = (self.0 >> 33) as u8;
        }
        Ok(())
    }
}

struct T {
    store: MemoryStore,
    rng: Counter,
    ai: PlaceholderAi,
    now: i64,
}

impl T {
    fn new() -> T {
        T { store: MemoryStore::default(), rng: Counter(7), ai: PlaceholderAi, now: 1_000_000 }
    }

    fn create(&mut self, mode: Mode, extra: Extra) -> Value {
        let req = CreateGame {
            south: Faction::Clockwork,
            north: Faction::Blades,
            seat: service::create::SeatChoice::South,
            mode,
            days_per_move: None,
            level: Some(1),
            rated: false,
        };
        let mut ctx = Ctx { now: self.now, rng: &mut self.rng, ai: &mut self.ai, day_ms: 86_400_000 };
        let h = game::create_with(&mut self.store, ID, &req, &extra, "https://x", &mut ctx);
        assert_eq!(h.response.status, 201, "{:?}", h.response);
        h.response.json_body().unwrap().clone()
    }

    fn post(&mut self, tail: &str, bearer: Option<&str>, body: &str) -> (u16, Value) {
        let path = format!("/api/games/{ID}/{tail}");
        let (_, route) = game::route(Method::Post, &path).unwrap();
        let req = ApiRequest {
            method: Method::Post,
            path,
            bearer: bearer.map(str::to_owned),
            body: body.as_bytes().to_vec(),
            origin: "https://x".into(),
            player: None,
        };
        let mut ctx = Ctx { now: self.now, rng: &mut self.rng, ai: &mut self.ai, day_ms: 86_400_000 };
        let h = game::handle(&mut self.store, route, &req, &mut ctx);
        (h.response.status, h.response.json_body().unwrap_or_default())
    }

    fn legal(&self) -> Move {
        let rec = self.store.record.clone().unwrap();
        let g: Game = rec.replay().unwrap();
        let mut m = g.legal_moves();
        m.sort_by_key(Move::to_string);
        m[0]
    }

    fn ply(&self) -> usize {
        self.store.record.as_ref().unwrap().moves.len()
    }
}

fn invite(created: &Value) -> String {
    created["invite_url"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_owned()
}

#[test]
fn the_creator_aborts_an_unjoined_link_game_and_no_one_can_join_it_afterwards() {
    let mut t = T::new();
    let c = t.create(Mode::Link, Extra::default());
    let token = c["token"].as_str().unwrap().to_owned();
    // No token, a wrong token: refused, nothing changes.
    assert_eq!(t.post("abort", None, "").0, 401);
    assert_eq!(t.post("abort", Some(&"0".repeat(64)), "").0, 403);
    assert!(t.store.record.as_ref().unwrap().result.is_none());
    let (status, body) = t.post("abort", Some(&token), "");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["state"]["result"]["text"], "aborted: by a player");
    assert_eq!(body["state"]["result"]["winner"], Value::Null);
    // The record replays (an off-board result the tools know).
    let rec = t.store.record.clone().unwrap();
    let parsed = engine::record::Record::parse(&rec.record_text()).unwrap();
    parsed.replay().unwrap();
    // Regression (issue 11 item 5): a join after the end was accepted.
    let (status, body) = t.post("join", None, &format!(r#"{{"invite":"{}"}}"#, invite(&c)));
    assert_eq!((status, body["error"].as_str()), (409, Some("game_over")), "{body}");
    assert!(t.store.record.as_ref().unwrap().seats[1].token_hash.is_none());
    // A second abort: the game is over.
    assert_eq!(t.post("abort", Some(&token), "").1["error"], "game_over");
}

#[test]
fn a_game_can_be_aborted_until_either_side_plays_its_second_move() {
    let mut t = T::new();
    let c = t.create(Mode::Link, Extra::default());
    let south = c["token"].as_str().unwrap().to_owned();
    let (s, j) = t.post("join", None, &format!(r#"{{"invite":"{}"}}"#, invite(&c)));
    assert_eq!(s, 200);
    let north = j["token"].as_str().unwrap().to_owned();
    for (token, ply) in [(&south, 0), (&north, 1)] {
        let mv = t.legal();
        let (s, b) = t.post("moves", Some(token), &format!(r#"{{"move":"{mv}","ply":{ply}}}"#));
        assert_eq!(s, 200, "{b}");
    }
    assert_eq!(t.ply(), 2);
    assert!(game::abortable(t.store.record.as_ref().unwrap()));
    // South's second move: too late for either side.
    let mv = t.legal();
    assert_eq!(t.post("moves", Some(&south), &format!(r#"{{"move":"{mv}","ply":2}}"#)).0, 200);
    for token in [&south, &north] {
        let (s, b) = t.post("abort", Some(token), "");
        assert_eq!((s, b["error"].as_str()), (409, Some("too_late_to_abort")), "{b}");
    }
    assert!(t.store.record.as_ref().unwrap().result.is_none());
}

#[test]
fn the_opponent_may_abort_after_joining_and_ai_games_abort_after_one_exchange() {
    let mut t = T::new();
    let c = t.create(Mode::Link, Extra::default());
    let (_, j) = t.post("join", None, &format!(r#"{{"invite":"{}"}}"#, invite(&c)));
    let (s, b) = t.post("abort", j["token"].as_str(), "");
    assert_eq!((s, b["state"]["result"]["text"].as_str()), (200, Some("aborted: by a player")));

    let mut t = T::new();
    let c = t.create(Mode::Ai, Extra::default());
    let token = c["token"].as_str().unwrap().to_owned();
    let mv = t.legal();
    assert_eq!(t.post("moves", Some(&token), &format!(r#"{{"move":"{mv}","ply":0}}"#)).0, 200);
    assert_eq!(t.ply(), 2, "the AI replied");
    assert_eq!(t.post("abort", Some(&token), "").0, 200);
}

#[test]
fn a_story_stage_is_not_aborted_and_a_merged_guest_can_exit_it() {
    let mut t = T::new();
    let guest = "aaaaaaaaaaaaaaaaaaaaaaaa";
    let account = "bbbbbbbbbbbbbbbbbbbbbbbb";
    let stage = StageRef {
        story: "clockwork".into(),
        stage: 0,
        title: "t".into(),
        player: Side::South,
        goal: service::story::Goal::Win,
    };
    let c = t.create(
        Mode::Ai,
        Extra {
            creator: Some(PlayerRef { id: guest.into(), linked: false }),
            stage: Some(stage),
            ..Extra::default()
        },
    );
    assert_eq!(t.post("abort", c["token"].as_str(), "").1["error"], "not_abortable");
    // Another player cannot end it.
    let mut ctx = Ctx { now: t.now, rng: &mut t.rng, ai: &mut t.ai, day_ms: 1 };
    assert_eq!(game::abandon(&mut t.store, account, &mut ctx).response.status, 403);
    // Regression (issue 11 item 4): the guest signed in and was merged into the account;
    // the account (with the guest as an alias) can exit the guest's stage.
    let h = game::abandon_as(&mut t.store, &[account, guest], &mut ctx);
    assert_eq!(h.response.status, 200, "{:?}", h.response);
    assert_eq!(t.store.record.as_ref().unwrap().result.as_ref().unwrap().reason, FinishReason::Abandoned);
}
