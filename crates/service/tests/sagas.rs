#![allow(clippy::unwrap_used)]
//! The sagas that span several objects, natively: a challenge's accept, a stage's start
//! and end, a rematch. D1 is real SQLite over the real migrations; the games' objects are
//! the service's own game code over memory stores ([`Objects`]), so each call does what
//! the Durable Object does, and any call can be made to fail: refused, never sent, or
//! done with its answer lost.

mod support;

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use serde_json::json;
use service::ai::PlaceholderAi;
use service::challenge::PostChallenge;
use service::create::{CreateGame, SeatChoice};
use service::error::{ApiError, ErrorCode};
use service::game::{self, Created, Ctx, Extra, Joined, Route};
use service::http::{ApiRequest, ApiResponse, Method, PlayerRef};
use service::model::{GameRecord, Mode};
use service::ports::{AbandonCall, CallError, CallResult, Capacity, CreateCall, Games, Notifier};
use service::rematch::RematchCall;
use service::sagas::{challenges, rematch, stages};
use service::sqlite::Sqlite;
use service::store::{GameStore, MemoryStore};
use support::{db_with, pid, run, SeededRng};

const T0: i64 = 1_795_999_200_000;
const ORIGIN: &str = "https://arena.example";

/// How the next call of a kind fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    /// The object answers 503.
    Refuse,
    /// The call never reaches the object (the request died first).
    NotSent,
    /// The object does it, and its answer is lost.
    AnswerLost,
    /// The request dies at this call (the Worker stopped): nothing after it runs, the
    /// saga's clean-up included (a panic, caught by the test).
    Crash,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Op {
    Create,
    Join,
    Abandon,
    Withdraw,
    Rematch,
    Status,
}

/// The games' objects: one memory store per game id, each call run by the service's game
/// code as the Durable Object runs it.
#[derive(Default)]
struct Objects {
    games: RefCell<BTreeMap<String, MemoryStore>>,
    faults: RefCell<BTreeMap<Op, Fault>>,
    calls: RefCell<Vec<(Op, String)>>,
    rng: RefCell<Option<SeededRng>>,
}

impl Objects {
    fn new() -> Objects {
        Objects { rng: RefCell::new(Some(SeededRng(0x5eed))), ..Objects::default() }
    }

    fn fail_next(&self, op: Op, f: Fault) {
        self.faults.borrow_mut().insert(op, f);
    }

    fn record(&self, id: &str) -> Option<GameRecord> {
        self.games.borrow().get(id).and_then(|s| s.record.clone())
    }

    /// Runs `f` on game `id`'s store (made empty if new), under the next fault of `op`.
    fn on(
        &self,
        op: Op,
        id: &str,
        f: impl FnOnce(&mut MemoryStore, &mut Ctx) -> ApiResponse,
    ) -> CallResult<ApiResponse> {
        self.calls.borrow_mut().push((op, id.to_owned()));
        let fault = self.faults.borrow_mut().remove(&op);
        match fault {
            Some(Fault::Crash) => panic!("injected: the request died at {op:?} {id}"),
            Some(Fault::NotSent) => return Err(CallError::NoAnswer("injected: never sent".into())),
            Some(Fault::Refuse) => {
                let e = ApiError::new(ErrorCode::StorageUnavailable, "injected refusal");
                return Err(CallError::Refused(ApiResponse::error(&e)));
            }
            _ => {}
        }
        let mut rng = self.rng.borrow_mut().take().unwrap();
        let mut ai = PlaceholderAi;
        let mut games = self.games.borrow_mut();
        let store = games.entry(id.to_owned()).or_default();
        let mut ctx = Ctx { now: T0, rng: &mut rng, ai: &mut ai, day_ms: 86_400_000 };
        let answer = f(store, &mut ctx);
        drop(games);
        *self.rng.borrow_mut() = Some(rng);
        if fault == Some(Fault::AnswerLost) {
            return Err(CallError::NoAnswer("injected: answer lost".into()));
        }
        Ok(answer)
    }
}

fn ok_or_refused(r: ApiResponse, ok: &[u16]) -> CallResult<()> {
    if ok.contains(&r.status) {
        Ok(())
    } else {
        Err(CallError::Refused(r))
    }
}

fn typed<T: serde::de::DeserializeOwned>(r: ApiResponse, ok: u16) -> CallResult<T> {
    if r.status != ok {
        return Err(CallError::Refused(r));
    }
    Ok(serde_json::from_value(r.json_body().unwrap().clone()).unwrap())
}

impl Games for Objects {
    async fn create(&self, call: &CreateCall) -> CallResult<Created> {
        typed(self.create_answer(call).await?, 201)
    }

    async fn create_answer(&self, call: &CreateCall) -> CallResult<ApiResponse> {
        self.on(Op::Create, &call.id, |store, ctx| {
            let extra = Extra {
                creator: call.creator.clone(),
                start: call.start,
                stage: call.stage.clone(),
                ip_hash: Some(call.ip_hash.clone()),
            };
            game::create_with(store, &call.id, &call.game, &extra, &call.origin, ctx).response
        })
    }

    async fn join(&self, id: &str, invite: &str, player: &PlayerRef) -> CallResult<Joined> {
        let r = self.on(Op::Join, id, |store, ctx| {
            let req = ApiRequest {
                method: Method::Post,
                path: format!("/api/games/{id}/join"),
                bearer: None,
                body: json!({ "invite": invite }).to_string().into_bytes(),
                origin: ORIGIN.into(),
                player: Some(player.clone()),
            };
            game::handle(store, Route::Join, &req, ctx).response
        })?;
        typed(r, 200)
    }

    async fn abandon(&self, id: &str, call: &AbandonCall) -> CallResult<()> {
        let mut ids = vec![call.player.as_str()];
        ids.extend(call.aliases.iter().map(String::as_str));
        let r = self.on(Op::Abandon, id, |store, ctx| game::abandon_as(store, &ids, ctx).response)?;
        ok_or_refused(r, &[200, 404])
    }

    async fn withdraw(&self, id: &str) -> CallResult<()> {
        ok_or_refused(self.on(Op::Withdraw, id, |store, ctx| game::withdraw(store, ctx).response)?, &[200])
    }

    async fn status(&self, id: &str) -> CallResult<service::me_games::GameStatus> {
        self.calls.borrow_mut().push((Op::Status, id.to_owned()));
        if let Some(f) = self.faults.borrow_mut().remove(&Op::Status) {
            return Err(CallError::NoAnswer(format!("injected: {f:?}")));
        }
        match self.record(id) {
            Some(rec) => Ok(service::me_games::GameStatus::of(&rec)),
            None => Err(CallError::Refused(ApiResponse::error(&ApiError::not_found("no such game")))),
        }
    }

    async fn create_rematch(&self, call: &RematchCall) -> CallResult<()> {
        let r =
            self.on(Op::Rematch, &call.id, |store, ctx| service::rematch::create(store, call, ctx).response)?;
        ok_or_refused(r, &[201])
    }
}

/// The capacity check: admits unless told to refuse; counts its calls.
#[derive(Default)]
struct Gate {
    refuse: Cell<bool>,
    calls: Cell<u32>,
    /// The places admitted and not given back: the games whose creation went ahead.
    held: RefCell<Vec<String>>,
}

impl Capacity for Gate {
    async fn admit(&self, game: &str, _creator: Option<&str>) -> Result<String, ApiError> {
        self.calls.set(self.calls.get() + 1);
        if self.refuse.get() {
            return Err(service::guard::busy("too many games in progress", 300));
        }
        self.held.borrow_mut().push(game.to_owned());
        Ok("ip-hash".into())
    }

    async fn release(&self, game: &str) {
        self.held.borrow_mut().retain(|g| g != game);
    }
}

#[derive(Default)]
struct Told(RefCell<Vec<String>>);

impl Notifier for Told {
    async fn challenge_accepted(&self, poster: &str, game: &str) {
        self.0.borrow_mut().push(format!("{poster} {game}"));
    }
    async fn lobby_changed(&self) {
        self.0.borrow_mut().push("lobby".into());
    }
}

// --- challenges --------------------------------------------------------------------------

fn who(n: u32) -> PlayerRef {
    PlayerRef { id: pid(n), linked: false }
}

fn posted(db: &Sqlite, rng: &mut SeededRng, poster: &PlayerRef) -> String {
    let spec =
        PostChallenge::parse(br#"{"south": "clockwork", "north": "blades", "seat": "south"}"#).unwrap();
    run(challenges::post(db, rng, T0, 86_400_000, poster, "ip-hash", &spec)).unwrap().challenge.id
}

fn accept(
    db: &Sqlite,
    games: &Objects,
    gate: &Gate,
    told: &Told,
    rng: &mut SeededRng,
    id: &str,
    p: &PlayerRef,
) -> Result<service::challenge::Accepted, ApiError> {
    let ports = challenges::AcceptPorts { games, capacity: gate, notifier: told };
    run(challenges::accept(db, &ports, rng, T0 + 1, id, p, ORIGIN))
}

fn open_ids(db: &Sqlite) -> Vec<String> {
    run(challenges::list(db, T0 + 1)).unwrap().into_iter().map(|c| c.id).collect()
}

#[test]
fn an_accepted_challenge_is_a_game_the_poster_created_and_the_accepter_joined() {
    let db = db_with(&[(&pid(1), "Ann"), (&pid(2), "Bob")]);
    let (games, gate, told, mut rng) = (Objects::new(), Gate::default(), Told::default(), SeededRng(7));
    let id = posted(&db, &mut rng, &who(1));
    assert_eq!(open_ids(&db), vec![id.clone()]);
    let a = accept(&db, &games, &gate, &told, &mut rng, &id, &who(2)).unwrap();
    let rec = games.record(&a.game).unwrap();
    assert_eq!(rec.mode, Mode::Link);
    assert_eq!(rec.seats[0].player.as_deref(), Some(pid(1).as_str()), "the poster took South");
    assert_eq!(rec.seats[1].player.as_deref(), Some(pid(2).as_str()), "the accepter joined North");
    assert_eq!(a.seat, engine::Side::North);
    assert!(open_ids(&db).is_empty(), "claimed");
    assert_eq!(*told.0.borrow(), [format!("{} {}", pid(1), a.game)]);
    // A second accepter finds it gone, and nothing more is made.
    let e = accept(&db, &games, &gate, &told, &mut rng, &id, &PlayerRef { id: pid(3), linked: false });
    assert_eq!(e.unwrap_err().code, ErrorCode::ChallengeGone);
    assert_eq!(games.games.borrow().len(), 1);
}

/// Regression (stop 48): an accepted challenge's game was written to the index under the
/// address bucket "challenge", so its creator's address cap never counted it, while the
/// capacity check had reserved its place under the accepter's. (Fails with the old
/// `ip_hash: "challenge"`.)
#[test]
fn regression_an_accepted_challenges_game_counts_under_the_address_that_was_admitted() {
    let db = db_with(&[(&pid(1), "Ann"), (&pid(2), "Bob")]);
    let (games, gate, told, mut rng) = (Objects::new(), Gate::default(), Told::default(), SeededRng(7));
    let id = posted(&db, &mut rng, &who(1));
    let a = accept(&db, &games, &gate, &told, &mut rng, &id, &who(2)).unwrap();
    let rec = games.record(&a.game).unwrap();
    assert_eq!(rec.outbox.and_then(|o| o.ip_hash).as_deref(), Some("ip-hash"));
}

/// Regression (5c6a628): accepting made a link game without the capacity check every
/// other creation passes. Refused, the challenge stays open and nothing is made. (Fails
/// with the saga's `capacity.admit` line removed: 200 and a game.)
#[test]
fn regression_5c6a628_accepting_a_challenge_is_a_creation_within_the_capacity_limits() {
    let db = db_with(&[(&pid(1), "Ann"), (&pid(2), "Bob")]);
    let (games, gate, told, mut rng) = (Objects::new(), Gate::default(), Told::default(), SeededRng(7));
    let id = posted(&db, &mut rng, &who(1));
    gate.refuse.set(true);
    let e = accept(&db, &games, &gate, &told, &mut rng, &id, &who(2)).unwrap_err();
    assert_eq!((e.status(), e.code, e.retry_after), (503, ErrorCode::ServerBusy, Some(300)));
    assert_eq!(gate.calls.get(), 1);
    assert!(games.calls.borrow().is_empty(), "no game object was asked for anything");
    assert_eq!(open_ids(&db), vec![id.clone()], "still open");
    assert!(told.0.borrow().is_empty());
    // Admitted later, the same challenge is accepted.
    gate.refuse.set(false);
    assert!(accept(&db, &games, &gate, &told, &mut rng, &id, &who(2)).is_ok());
}

#[test]
fn a_challenge_whose_game_fails_at_any_step_is_released_and_can_be_accepted_again() {
    for (op, fault) in [
        (Op::Create, Fault::Refuse),
        (Op::Create, Fault::NotSent),
        (Op::Create, Fault::AnswerLost),
        (Op::Join, Fault::Refuse),
        (Op::Join, Fault::NotSent),
        (Op::Join, Fault::AnswerLost),
    ] {
        let db = db_with(&[(&pid(1), "Ann"), (&pid(2), "Bob")]);
        let (games, gate, told, mut rng) = (Objects::new(), Gate::default(), Told::default(), SeededRng(7));
        let id = posted(&db, &mut rng, &who(1));
        games.fail_next(op, fault);
        let e = accept(&db, &games, &gate, &told, &mut rng, &id, &who(2)).unwrap_err();
        assert_eq!((e.status(), e.code), (503, ErrorCode::ChallengeFailed), "{op:?} {fault:?}");
        assert_eq!(open_ids(&db), vec![id.clone()], "{op:?} {fault:?}: released");
        assert!(told.0.borrow().is_empty(), "{op:?} {fault:?}: the poster is not told");
        // The next accept makes a game of its own (another id), which both can play.
        let a = accept(&db, &games, &gate, &told, &mut rng, &id, &who(2)).unwrap();
        assert!(games.record(&a.game).unwrap().seats.iter().all(|s| s.token_hash.is_some()));
        // Regression (stop 48): a game made by the failed accept stayed open; with the
        // join's answer lost, both players sat in it, and the challenge had two live
        // games. It is withdrawn: the new game is the challenge's only live one.
        let live: Vec<String> = games
            .games
            .borrow()
            .iter()
            .filter(|(_, s)| s.record.as_ref().is_some_and(|r| r.result.is_none()))
            .map(|(g, _)| g.clone())
            .collect();
        assert_eq!(live, std::slice::from_ref(&a.game), "{op:?} {fault:?}");
    }
}

/// Regression (stop 48's note, "left alone"): an accept whose Worker died between the
/// claim and the game left the challenge claimed until it expired, offered to nobody.
/// The hourly housekeeping offers it again once no creation can be under way (no index
/// row for the claim's game, no reservation younger than ten minutes), withdrawing the
/// game first if one was made and never joined; a claim still in flight, one whose game
/// is indexed, and one whose game both players hold (its index row late) stay.
#[test]
fn regression_a_challenge_whose_accept_died_is_offered_again_by_the_housekeeping() {
    const MINUTE: i64 = 60_000;
    let db = db_with(&[(&pid(1), "Ann"), (&pid(2), "Bob"), (&pid(3), "Cy")]);
    let (games, gate, told, mut rng) = (Objects::new(), Gate::default(), Told::default(), SeededRng(7));
    let sql = |q: &str, id: &str| {
        db.conn().execute(q, rusqlite::params![id, T0 + 1]).unwrap();
    };
    // The game's index row, as its object writes it once made.
    let indexed = |game: &str| {
        sql("INSERT INTO games (id, south_faction, north_faction, mode, created_at) VALUES (?1, 'clockwork', 'blades', 'link', ?2)", game)
    };
    let claimed_game = |challenge: &str| -> String {
        db.conn()
            .query_row("SELECT game_id FROM challenges WHERE id = ?1", [challenge], |r| r.get(0))
            .unwrap()
    };
    // Made, then the Worker died at the join: the game is the poster's alone.
    let made = posted(&db, &mut rng, &who(1));
    games.fail_next(Op::Join, Fault::Crash);
    let died = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        accept(&db, &games, &gate, &told, &mut rng, &made, &who(2))
    }));
    assert!(died.is_err());
    let made_game = claimed_game(&made);
    assert!(games.record(&made_game).is_some_and(|r| r.result.is_none()), "made, open");
    // Claimed, then the Worker died before the creation: its reservation is left.
    let ghost = posted(&db, &mut rng, &who(1));
    games.fail_next(Op::Create, Fault::Crash);
    let died = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        accept(&db, &games, &gate, &told, &mut rng, &ghost, &who(3))
    }));
    assert!(died.is_err());
    let ghost_game = claimed_game(&ghost);
    sql(
        "INSERT INTO creation_reservations (game_id, ip_hash, created_at) VALUES (?1, 'ip-hash', ?2)",
        &ghost_game,
    );
    // Accepted, its game indexed: kept.
    let live = posted(&db, &mut rng, &who(3));
    let live_game = accept(&db, &games, &gate, &told, &mut rng, &live, &who(2)).unwrap().game;
    indexed(&live_game);
    // Accepted, its index row late (its object retries D1): both players hold the game,
    // which they may be playing: kept.
    let late = posted(&db, &mut rng, &who(3));
    let late_game = accept(&db, &games, &gate, &told, &mut rng, &late, &who(1)).unwrap().game;
    told.0.borrow_mut().clear();
    let sweep = |at: i64| run(challenges::release_stale_claims(&db, &games, &told, at)).unwrap();
    let open_at = |at: i64| -> Vec<String> {
        let mut ids: Vec<String> =
            run(challenges::list(&db, at)).unwrap().into_iter().map(|c| c.id).collect();
        ids.sort();
        ids
    };
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    // Five minutes on, the ghost's reservation could still be a creation under way.
    assert_eq!(sweep(T0 + 5 * MINUTE), 1);
    assert_eq!(open_at(T0 + 5 * MINUTE), vec![made.clone()]);
    assert!(games.record(&made_game).unwrap().result.is_some(), "the game never joined is withdrawn");
    // A call that goes unanswered keeps the claim for the next run.
    games.fail_next(Op::Status, Fault::NotSent);
    assert_eq!(sweep(T0 + 11 * MINUTE), 0);
    assert_eq!(sweep(T0 + 11 * MINUTE), 1);
    assert_eq!(open_at(T0 + 11 * MINUTE), sorted(vec![made.clone(), ghost.clone()]));
    assert!(games.record(&ghost_game).is_none(), "no game was made for the ghost claim");
    let reserved = db.conn().query_row(
        "SELECT COUNT(*) FROM creation_reservations WHERE game_id = ?1",
        [&ghost_game],
        |r| r.get::<_, i64>(0),
    );
    assert_eq!(reserved.unwrap(), 0, "the crashed reservation is dropped with its claim");
    for g in [&live_game, &late_game] {
        assert!(games.record(g).unwrap().result.is_none(), "a game both players hold plays on");
    }
    assert_eq!(*told.0.borrow(), vec!["lobby".to_owned(), "lobby".to_owned()], "the lobby is told each time");
    // Offered again, the challenge is accepted into a game of its own.
    let again = accept(&db, &games, &gate, &told, &mut rng, &ghost, &who(2)).unwrap();
    assert_ne!(again.game, ghost_game);
    indexed(&again.game);
    assert_eq!(sweep(T0 + 11 * MINUTE), 0, "nothing is released twice");
}

#[test]
fn posting_is_bounded_per_player_and_only_the_poster_cancels() {
    let db = db_with(&[(&pid(1), "Ann"), (&pid(2), "Bob")]);
    let mut rng = SeededRng(7);
    let ids: Vec<String> = (0..3).map(|_| posted(&db, &mut rng, &who(1))).collect();
    let spec = PostChallenge::parse(br#"{"south": "axiom", "north": "axiom"}"#).unwrap();
    let e = run(challenges::post(&db, &mut rng, T0, 1000, &who(1), "ip-hash", &spec)).unwrap_err();
    assert_eq!(e.code, ErrorCode::TooManyChallenges);
    let rated = PostChallenge::parse(br#"{"south": "axiom", "north": "axiom", "rated": true}"#).unwrap();
    let e = run(challenges::post(&db, &mut rng, T0, 1000, &who(2), "ip-hash", &rated)).unwrap_err();
    assert_eq!(e.code, ErrorCode::SignInRequired);
    assert_eq!(run(challenges::cancel(&db, &ids[0], Some(&pid(2)))).unwrap_err().code, ErrorCode::NotFound);
    assert_eq!(run(challenges::cancel(&db, &ids[0], None)).unwrap_err().code, ErrorCode::NotFound);
    assert!(run(challenges::cancel(&db, &ids[0], Some(&pid(1)))).unwrap().cancelled);
    assert_eq!(open_ids(&db).len(), 2);
}

// --- rematch -----------------------------------------------------------------------------

/// A finished AI game of player 1 (South), in its own store, and the creator's token.
fn finished_ai_game(games: &Objects) -> (MemoryStore, String) {
    let mut store = MemoryStore::default();
    let mut rng = SeededRng(11);
    let mut ai = PlaceholderAi;
    let mut ctx = Ctx { now: T0, rng: &mut rng, ai: &mut ai, day_ms: 86_400_000 };
    let req = CreateGame {
        south: engine::Faction::Clockwork,
        north: engine::Faction::Blades,
        seat: SeatChoice::South,
        mode: Mode::Ai,
        days_per_move: None,
        level: Some(1),
        rated: false,
    };
    let extra = Extra { creator: Some(who(1)), ..Extra::default() };
    let created = game::create_with(&mut store, &pid(100), &req, &extra, ORIGIN, &mut ctx);
    let token = created.response.json_body().unwrap()["token"].as_str().unwrap().to_owned();
    let resign = api(Method::Post, "resign", &token, json!({}));
    assert_eq!(game::handle(&mut store, Route::Resign, &resign, &mut ctx).response.status, 200);
    let _ = games;
    (store, token)
}

fn api(method: Method, tail: &str, token: &str, body: serde_json::Value) -> ApiRequest {
    ApiRequest {
        method,
        path: format!("/api/games/{}/{tail}", pid(100)),
        bearer: Some(token.to_owned()),
        body: body.to_string().into_bytes(),
        origin: ORIGIN.into(),
        player: Some(who(1)),
    }
}

fn offer(store: &mut MemoryStore, token: &str, games: &Objects, gate: &Gate) -> ApiResponse {
    let mut rng = SeededRng(13);
    let mut ai = PlaceholderAi;
    let mut ctx = Ctx { now: T0 + 5, rng: &mut rng, ai: &mut ai, day_ms: 86_400_000 };
    let req = api(Method::Post, "rematch", token, json!({ "action": "offer" }));
    run(rematch::request(store, &req, &mut ctx, games, gate)).response
}

fn reserved(store: &MemoryStore) -> Option<String> {
    store.load().unwrap().unwrap().rematch.and_then(|r| r.game)
}

/// Regression (c1cee1a): a request that died between the reservation and the creation
/// left the rematch agreed with a game that never existed, for good; and when the
/// creation's answer was lost, the reservation was released, so a retry made a second
/// game with the same seat tokens. Now the reservation stays when the outcome is
/// unknown, and the next request makes the game with the same id, or finds it made.
/// (Fails with a release added to the saga's no-answer branch: the retry reserves a new
/// id and two games exist.)
#[test]
fn regression_c1cee1a_a_rematch_whose_creation_was_not_answered_is_made_by_the_next_request() {
    for fault in [Fault::NotSent, Fault::AnswerLost] {
        let (games, gate) = (Objects::new(), Gate::default());
        let (mut old, token) = finished_ai_game(&games);
        games.fail_next(Op::Rematch, fault);
        let first = offer(&mut old, &token, &games, &gate);
        assert_eq!(
            (first.status, first.json_body().unwrap()["error"].as_str()),
            (503, Some("rematch_failed"))
        );
        let id = reserved(&old).expect("the reservation stays");
        // The retry: the same id, made (or found made), one game in all.
        let again = offer(&mut old, &token, &games, &gate);
        assert_eq!(again.status, 200, "{fault:?}: {:?}", again.json_body());
        assert_eq!(again.json_body().unwrap()["game"].as_str(), Some(id.as_str()));
        assert_eq!(games.games.borrow().len(), 1, "{fault:?}: one game");
        assert!(games.record(&id).is_some(), "{fault:?}: the agreed game exists");
        assert_eq!(gate.calls.get(), 1, "an earlier reservation was admitted when it was made");
    }
}

#[test]
fn a_rematch_refused_by_capacity_or_by_its_object_releases_its_reservation() {
    let (games, gate) = (Objects::new(), Gate::default());
    let (mut old, token) = finished_ai_game(&games);
    gate.refuse.set(true);
    let r = offer(&mut old, &token, &games, &gate);
    assert_eq!(r.status, 503);
    assert_eq!(reserved(&old), None);
    assert!(games.calls.borrow().is_empty());
    gate.refuse.set(false);
    games.fail_next(Op::Rematch, Fault::Refuse);
    assert_eq!(offer(&mut old, &token, &games, &gate).status, 503);
    assert_eq!(reserved(&old), None, "refused: nothing can have been made");
    assert_eq!(offer(&mut old, &token, &games, &gate).status, 200);
    assert_eq!(games.games.borrow().values().filter(|s| s.record.is_some()).count(), 1);
}

/// Regression (stop 48): a rematch's game was written to the index with no address
/// bucket (`Extra::ip_hash` unset), so it never counted against the address cap: without
/// a session, create, resign and rematch over and over left unfinished games no
/// per-address or per-player cap counted. The address the capacity check admitted is
/// the new game's, also when a later request makes it. (Fails without the call's
/// `ip_hash`: `None`.)
#[test]
fn regression_a_rematchs_game_counts_under_the_address_that_was_admitted() {
    for fault in [None, Some(Fault::NotSent)] {
        let (games, gate) = (Objects::new(), Gate::default());
        let (mut old, token) = finished_ai_game(&games);
        if let Some(f) = fault {
            games.fail_next(Op::Rematch, f);
            assert_eq!(offer(&mut old, &token, &games, &gate).status, 503);
        }
        let r = offer(&mut old, &token, &games, &gate);
        assert_eq!(r.status, 200, "{fault:?}: {:?}", r.json_body());
        let id = reserved(&old).unwrap();
        let rec = games.record(&id).unwrap();
        assert_eq!(rec.outbox.and_then(|o| o.ip_hash).as_deref(), Some("ip-hash"), "{fault:?}");
        assert_eq!(gate.calls.get(), 1, "{fault:?}: one capacity check");
    }
}

/// Regression (stop 48): the old game's object takes other requests while a rematch's
/// capacity check is awaited; a second request then found the rematch agreed and made
/// its game without any check, and when the first was refused it released the id the
/// second had used (the old game no longer led to the new one, and the next request
/// made another with the same seats). Now, while the check runs, another request is told
/// to try again and makes nothing; a check abandoned (its request died) for longer than
/// `ADMISSION_MS` no longer holds the rematch back.
#[test]
fn regression_a_rematch_is_not_made_by_another_request_while_its_capacity_check_runs() {
    let (games, gate) = (Objects::new(), Gate::default());
    let (mut old, token) = finished_ai_game(&games);
    // What the first request saved before awaiting the check (state as the saga leaves it).
    let mut rec = old.load().unwrap().unwrap();
    let id = pid(200);
    rec.rematch = Some(service::rematch::Rematch { game: Some(id.clone()), ..Default::default() });
    rec.rematch_admission =
        Some(service::model::RematchAdmission { game: id.clone(), since: T0 + 5, ip_hash: None });
    old.save(&rec).unwrap();
    let r = offer(&mut old, &token, &games, &gate);
    assert_eq!((r.status, r.json_body().unwrap()["error"].as_str()), (503, Some("rematch_failed")));
    assert!(games.games.borrow().is_empty(), "nothing made while the check runs");
    assert_eq!(reserved(&old).as_deref(), Some(id.as_str()), "the first request's id stands");
    // The first request died in its check: after ADMISSION_MS the rematch is made.
    let mut rec = old.load().unwrap().unwrap();
    rec.rematch_admission.as_mut().unwrap().since = T0 + 5 - service::rematch::ADMISSION_MS;
    old.save(&rec).unwrap();
    let r = offer(&mut old, &token, &games, &gate);
    assert_eq!(r.status, 200, "{:?}", r.json_body());
    assert!(games.record(&id).is_some());
}

// --- stages ------------------------------------------------------------------------------

fn start_stage(
    db: &Sqlite,
    games: &Objects,
    gate: &Gate,
    rng: &mut SeededRng,
) -> Result<ApiResponse, ApiError> {
    let st = service::players::find_story("clockwork").unwrap();
    let store = service::sql_players::SqlPlayers(db);
    let ports = stages::StartPorts { games, capacity: gate };
    run(stages::start(&store, &ports, rng, T0, st, 0, &who(1), ORIGIN))
}

fn current_game(db: &Sqlite) -> Option<String> {
    let store = service::sql_players::SqlPlayers(db);
    run(service::player_store::PlayerStore::progress(&store, &pid(1), "clockwork")).unwrap().current_game
}

#[test]
fn a_stage_starts_its_new_game_before_it_ends_the_one_being_played() {
    let db = db_with(&[(&pid(1), "Ann")]);
    let (games, gate, mut rng) = (Objects::new(), Gate::default(), SeededRng(17));
    let first = start_stage(&db, &games, &gate, &mut rng).unwrap();
    assert_eq!(first.status, 201, "{:?}", first.json_body());
    let playing = current_game(&db).unwrap();
    // The new game cannot be made: the one being played is kept, untouched.
    games.fail_next(Op::Create, Fault::Refuse);
    assert_eq!(start_stage(&db, &games, &gate, &mut rng).unwrap().status, 503, "the refusal is the answer");
    games.fail_next(Op::Create, Fault::NotSent);
    assert!(start_stage(&db, &games, &gate, &mut rng).is_err());
    assert_eq!(current_game(&db).as_deref(), Some(playing.as_str()));
    assert!(games.record(&playing).unwrap().result.is_none(), "still being played");
    // The old one cannot be ended: the error is the answer, the new game is withdrawn.
    games.fail_next(Op::Abandon, Fault::Refuse);
    let e = start_stage(&db, &games, &gate, &mut rng).unwrap_err();
    assert_eq!(e.code, ErrorCode::StageNotEnded);
    assert_eq!(current_game(&db).as_deref(), Some(playing.as_str()));
    let withdrawn = games.calls.borrow().iter().rev().find(|(op, _)| *op == Op::Withdraw).unwrap().1.clone();
    assert_ne!(withdrawn, playing);
    assert!(games.record(&withdrawn).unwrap().result.is_some(), "the unhanded game ended at once");
    // Both work: the old game ends abandoned and the new one is the stage's.
    let next = start_stage(&db, &games, &gate, &mut rng).unwrap();
    assert_eq!(next.status, 201);
    let now = current_game(&db).unwrap();
    assert_ne!(now, playing);
    assert!(games.record(&playing).unwrap().result.is_some(), "the old stage game ended");
    // Capacity refused: nothing is made or ended.
    gate.refuse.set(true);
    let calls = games.calls.borrow().len();
    assert_eq!(start_stage(&db, &games, &gate, &mut rng).unwrap_err().code, ErrorCode::ServerBusy);
    assert_eq!(games.calls.borrow().len(), calls);
    assert_eq!(current_game(&db), Some(now));
}

// --- capacity ----------------------------------------------------------------------------

/// Limiters that refuse the named buckets and record every hit.
#[derive(Default)]
struct Buckets {
    full: RefCell<Vec<String>>,
    hits: RefCell<Vec<String>>,
    limits: RefCell<Vec<u32>>,
}

impl service::ports::Limiter for Buckets {
    async fn hit(&self, name: &str, rate: service::guard::Rate, why: &str) -> Result<(), ApiError> {
        self.hits.borrow_mut().push(name.to_owned());
        self.limits.borrow_mut().push(rate.limit);
        if self.full.borrow().iter().any(|f| f == name) {
            return Err(service::guard::busy(why, 60));
        }
        Ok(())
    }
}

#[test]
fn a_creation_is_admitted_by_the_address_rate_the_overall_rate_then_the_unfinished_games() {
    use service::create::Limits;
    use service::sagas::capacity::{admit, Creator};
    let db = db_with(&[(&pid(1), "Ann"), (&pid(2), "Bob")]);
    let limits = Limits { max_active_games: 2, open_per_creator: 1, ..Limits::default() };
    let buckets = Buckets::default();
    let who = |ip: &'static str, player: Option<&'static str>| Creator { ip_hash: ip, wider: &[], player };
    let (ann, bob) = (Box::leak(pid(1).into_boxed_str()) as &str, Box::leak(pid(2).into_boxed_str()) as &str);
    let admit = |game: &str, creator| run(admit(&buckets, &db, limits, creator, game, T0));
    assert!(admit("game-a", who("ipA", Some(ann))).is_ok());
    assert_eq!(*buckets.hits.borrow(), ["create:ip:ipA", "create:all"]);
    // Ann's admitted game holds its place at once (before its index row exists): her cap
    // of one is reached, Bob's is not.
    let e = admit("game-a2", who("ipA", Some(ann))).unwrap_err();
    assert_eq!((e.code, e.retry_after), (ErrorCode::ServerBusy, Some(300)));
    assert!(e.message.contains("unfinished games"), "{}", e.message);
    assert!(admit("game-b", who("ipB", Some(bob))).is_ok());
    // Two unfinished games in all: everybody waits, also once Ann's game's row replaces
    // its reservation.
    let e = admit("game-c", who("ipC", None)).unwrap_err();
    assert!(e.message.contains("too many games in progress"), "{}", e.message);
    let mut g = support::game(1, &pid(1), &pid(2), None, "", 0);
    g.id = "game-a".into();
    g.result = None;
    g.finished_at = None;
    g.south_player = Some(pid(1));
    g.north_player = None;
    support::insert_game(&db, &g);
    assert!(admit("game-c", who("ipC", None)).is_err());
    // Bob's creation failed: its place given back, the next one is admitted.
    run(service::db::index::release(&db, "game-b")).unwrap();
    assert!(admit("game-c", who("ipC", None)).is_ok());
    // A full bucket refuses first, before D1 is read.
    buckets.full.borrow_mut().push("create:ip:ipD".into());
    let before = db.statements();
    let e = admit("game-d", who("ipD", None)).unwrap_err();
    assert!(e.message.contains("from your address"), "{}", e.message);
    assert_eq!(db.statements(), before, "no D1 statement for a refused rate");
}

/// Issue 30: the overall creation budget was one bucket that about 30 IPv6 /64s exhaust
/// for everybody (a home /56 holds 256). An IPv6 address is limited at its /56 (twice the
/// /64's rate) and /48 (four times) too, and creations without a session may use only
/// part of the overall budget: players keep the rest.
#[test]
fn a_creation_counts_against_its_wider_ipv6_networks_and_cookieless_ones_get_a_share() {
    use service::create::Limits;
    use service::sagas::capacity::{admit, Creator, SESSIONLESS_SHARE_PERCENT};
    let db = db_with(&[(&pid(1), "Ann")]);
    let limits = Limits { per_ip_per_minute: 20, overall_per_minute: 600, ..Limits::default() };
    let buckets = Buckets::default();
    let wider = ["net56".to_owned(), "net48".to_owned()];
    assert!(run(admit(
        &buckets,
        &db,
        limits,
        Creator { ip_hash: "v6", wider: &wider, player: None },
        "g1",
        T0
    ))
    .is_ok());
    assert_eq!(
        *buckets.hits.borrow(),
        ["create:ip:v6", "create:net:net56", "create:net:net48", "create:all"]
    );
    assert_eq!(*buckets.limits.borrow(), [20, 40, 80, (600 * SESSIONLESS_SHARE_PERCENT).div_ceil(100)]);
    let ann = pid(1);
    assert!(run(admit(
        &buckets,
        &db,
        limits,
        Creator { ip_hash: "v6", wider: &wider, player: Some(&ann) },
        "g2",
        T0
    ))
    .is_ok());
    assert_eq!(buckets.limits.borrow().last(), Some(&600), "a player's creation may use the whole budget");
    // A full /48 refuses every /64 in it.
    buckets.full.borrow_mut().push("create:net:net48".into());
    let e = run(admit(
        &buckets,
        &db,
        limits,
        Creator { ip_hash: "other64", wider: &wider, player: None },
        "g3",
        T0,
    ))
    .unwrap_err();
    assert!(e.message.contains("from your network"), "{}", e.message);
    // The buckets themselves: /56 and /48 of an address; none for IPv4.
    assert_eq!(
        service::guard::wider_buckets("2001:db8:aa:12ff::1"),
        ["2001:db8:aa:1200::/56", "2001:db8:aa::/48"]
    );
    assert!(service::guard::wider_buckets("192.0.2.1").is_empty());
    assert!(service::guard::wider_buckets("::ffff:192.0.2.1").is_empty());
}
