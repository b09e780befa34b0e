#![allow(clippy::unwrap_used)]
//! The game object's life after a request, natively: the one alarm, the sockets, and
//! the outbox's flush to D1 (real SQLite over the migrations), a write failing, or the
//! request dying before it.

mod support;

use std::cell::{Cell, RefCell};

use rusqlite::OptionalExtension;
use serde_json::json;
use service::ai::PlaceholderAi;
use service::create::{CreateGame, SeatChoice};
use service::error::ErrorCode;
use service::game::{self, Ctx, Extra, Route};
use service::http::{ApiRequest, Method, PlayerRef};
use service::model::{GameRecord, Mode};
use service::object::{self, Object, Owed, Runtime, WriteError};
use service::sqlite::Sqlite;
use service::store::{GameStore, MemoryStore};
use service::upkeep::Timers;
use support::{db_with, pid, run, SeededRng};

const T0: i64 = 1_795_999_200_000;

/// The object's runtime, observed.
#[derive(Default)]
struct Rt {
    alarms: RefCell<Vec<Option<i64>>>,
    broadcasts: Cell<usize>,
    changed: RefCell<Vec<bool>>,
    /// The plies of each record `changed` was given.
    changed_plies: RefCell<Vec<usize>>,
    logs: RefCell<Vec<String>>,
}

impl Runtime for Rt {
    async fn set_alarm(&self, at: Option<i64>) {
        self.alarms.borrow_mut().push(at);
    }
    fn broadcast(&self, msg: &str) {
        assert!(msg.starts_with(r#"{"type":"state""#), "{msg}");
        self.broadcasts.set(self.broadcasts.get() + 1);
    }
    async fn changed(&self, rec: &GameRecord, indexed: bool) {
        self.changed.borrow_mut().push(indexed);
        self.changed_plies.borrow_mut().push(rec.moves.len());
    }
    fn log(&self, line: &str) {
        self.logs.borrow_mut().push(line.to_owned());
    }
}

/// D1 as SQLite, with the next write made to fail or die.
struct D1 {
    db: Sqlite,
    fault: RefCell<Option<WriteError>>,
}

impl Owed for D1 {
    async fn write(&self, rec: &GameRecord, ip_hash: Option<&str>) -> Result<(), WriteError> {
        if let Some(f) = self.fault.borrow_mut().take() {
            return Err(f);
        }
        Ok(object::write_owed(&self.db, rec, ip_hash, T0).await?)
    }
}

fn timers() -> Timers {
    Timers { retry_ms: 60_000, ..Timers::default() }
}

/// A fresh link game of player 1, as its object makes it; the creator's token.
fn created(store: &mut MemoryStore, rt: &Rt, d1: &D1) -> String {
    let req = CreateGame {
        south: engine::Faction::Clockwork,
        north: engine::Faction::Blades,
        seat: SeatChoice::South,
        mode: Mode::Link,
        days_per_move: None,
        level: None,
        rated: false,
    };
    let (mut rng, mut ai) = (SeededRng(3), PlaceholderAi);
    let mut ctx = Ctx { now: T0, rng: &mut rng, ai: &mut ai, day_ms: 86_400_000 };
    let extra = Extra {
        creator: Some(PlayerRef { id: pid(1), linked: false }),
        ip_hash: Some("ip".into()),
        ..Extra::default()
    };
    let handled = game::create_with(store, &pid(50), &req, &extra, "https://a.example", &mut ctx);
    let token = handled.response.json_body().unwrap()["token"].as_str().unwrap().to_owned();
    let mut o = Object { store, runtime: rt, owed: d1, timers: timers(), now: T0 };
    assert_eq!(run(o.after(handled)).status, 201);
    token
}

fn index_row(db: &Sqlite) -> Option<(String, Option<String>, i64)> {
    db.conn()
        .query_row("SELECT south_player, creator_ip_hash, plies FROM games WHERE id = ?1", [pid(50)], |r| {
            Ok((r.get::<_, Option<String>>(0)?.unwrap_or_default(), r.get(1)?, r.get(2)?))
        })
        .optional()
        .unwrap()
}

fn d1() -> D1 {
    D1 { db: db_with(&[(&pid(1), "Ann")]), fault: RefCell::new(None) }
}

#[test]
fn a_creation_is_indexed_and_its_outbox_cleared_with_the_alarm_armed_first() {
    let (mut store, rt, d1) = (MemoryStore::default(), Rt::default(), d1());
    created(&mut store, &rt, &d1);
    assert_eq!(index_row(&d1.db), Some((pid(1), Some("ip".into()), 0)));
    assert!(store.record.as_ref().unwrap().outbox.is_none(), "cleared after D1 took it");
    let alarms = rt.alarms.borrow();
    // Armed before the write (the retry, should it die), then again for what is left.
    assert_eq!(alarms.len(), 2, "{alarms:?}");
    assert_eq!(alarms[0], Some(T0 + 60_000));
    assert_eq!((rt.broadcasts.get(), rt.changed.borrow().clone()), (1, vec![true]));
}

#[test]
fn a_failed_write_keeps_the_mark_counts_the_failure_and_the_alarm_retries_it() {
    let (mut store, rt, d1) = (MemoryStore::default(), Rt::default(), d1());
    *d1.fault.borrow_mut() = Some(WriteError::Failed("D1 unavailable".into()));
    created(&mut store, &rt, &d1);
    assert_eq!(index_row(&d1.db), None);
    let ob = store.record.as_ref().unwrap().outbox.clone().unwrap();
    assert_eq!((ob.attempts, ob.since), (1, T0));
    assert_eq!(*rt.alarms.borrow().last().unwrap(), Some(T0 + 120_000), "backed off");
    assert!(rt.logs.borrow()[0].contains("D1 unavailable"), "{:?}", rt.logs.borrow());
    // The alarm at the retry: written, cleared.
    let (mut rng, mut ai) = (SeededRng(4), PlaceholderAi);
    let mut ctx = Ctx { now: T0 + 120_000, rng: &mut rng, ai: &mut ai, day_ms: 86_400_000 };
    let mut o = Object { store: &mut store, runtime: &rt, owed: &d1, timers: timers(), now: T0 + 120_000 };
    run(o.alarm(&mut ctx));
    assert!(store.record.as_ref().unwrap().outbox.is_none());
    assert_eq!(index_row(&d1.db), Some((pid(1), Some("ip".into()), 0)));
}

#[test]
fn a_request_that_dies_before_the_write_leaves_the_mark_and_the_armed_alarm() {
    let (mut store, rt, d1) = (MemoryStore::default(), Rt::default(), d1());
    *d1.fault.borrow_mut() = Some(WriteError::Died);
    created(&mut store, &rt, &d1);
    let ob = store.record.as_ref().unwrap().outbox.clone().unwrap();
    assert_eq!(ob.attempts, 0, "nothing after the death");
    assert_eq!(*rt.alarms.borrow(), [Some(T0 + 60_000)], "armed before the write");
    assert_eq!(index_row(&d1.db), None);
    // The housekeeping's wake-up writes it.
    let mut o = Object { store: &mut store, runtime: &rt, owed: &d1, timers: timers(), now: T0 + 1 };
    assert_eq!(run(o.wake()).status, 200);
    assert!(store.record.as_ref().unwrap().outbox.is_none());
    assert!(index_row(&d1.db).is_some());
}

/// Regression (stop 48): a request that saved a game's end (its outbox marked) and died
/// before its object armed the alarm (an AI move awaits the limiter in between) left the
/// result to the hourly housekeeping's sample: the client's retry of the same move was
/// answered from the kept reply with nothing changed, so nothing was armed or written.
/// Now any request answered while the game owes D1 arms the alarm. (Fails without the
/// `rec.outbox.is_some()` in `Object::apply`: no alarm.)
#[test]
fn regression_a_retried_move_whose_request_died_before_the_alarm_arms_it() {
    let (mut store, rt, d1) = (MemoryStore::default(), Rt::default(), d1());
    // Clockwork's first stage: South's Hands take North's king-piece, d3-d7.
    let stage = &service::players::find_story("clockwork").unwrap().stages[0];
    let req = CreateGame {
        south: stage.position.faction(engine::Side::South),
        north: stage.position.faction(engine::Side::North),
        seat: SeatChoice::South,
        mode: Mode::Ai,
        days_per_move: None,
        level: Some(1),
        rated: false,
    };
    let (mut rng, mut ai) = (SeededRng(3), PlaceholderAi);
    let mut ctx = Ctx { now: T0, rng: &mut rng, ai: &mut ai, day_ms: 86_400_000 };
    let extra = Extra { start: Some(stage.position), ..Extra::default() };
    let handled = game::create_with(&mut store, &pid(50), &req, &extra, "https://a.example", &mut ctx);
    let token = handled.response.json_body().unwrap()["token"].as_str().unwrap().to_owned();
    run(Object { store: &mut store, runtime: &rt, owed: &d1, timers: timers(), now: T0 }.after(handled));
    assert!(store.record.as_ref().unwrap().outbox.is_none());
    let mv = ApiRequest {
        method: Method::Post,
        path: format!("/api/games/{}/moves", pid(50)),
        bearer: Some(token),
        body: json!({ "move": "d3d7", "ply": 0 }).to_string().into_bytes(),
        origin: "https://a.example".into(),
        player: None,
    };
    // The winning move is saved, and its request dies before the object's `after`.
    let first = game::handle(&mut store, Route::Moves, &mv, &mut ctx);
    assert_eq!(first.response.status, 200, "{:?}", first.response.json_body());
    assert!(store.record.as_ref().unwrap().result.is_some());
    assert!(store.record.as_ref().unwrap().outbox.is_some(), "the end is owed to D1");
    rt.alarms.borrow_mut().clear();
    // The client's retry: the same answer, nothing changed, and the alarm armed.
    let retry = game::handle(&mut store, Route::Moves, &mv, &mut ctx);
    assert_eq!(retry.response.json_body(), first.response.json_body());
    assert!(!retry.effects.changed);
    run(Object { store: &mut store, runtime: &rt, owed: &d1, timers: timers(), now: T0 }.after(retry));
    assert_eq!(rt.alarms.borrow().first().copied().flatten(), Some(T0 + 60_000), "the retry armed");
}

/// Regression (stop 48): the game's object told players of a change (its notices, and the
/// "seen" state they are worked out from) from the record its request handled, after
/// awaiting D1; a request handled meanwhile had already told them of a newer state, so
/// the older "seen" was stored and the next change told them again. The freshest record
/// is what `changed` gets. (Fails with `changed(rec, …)`: 0 plies.)
#[test]
fn regression_the_change_is_told_from_the_freshest_record() {
    let (mut store, rt, d1) = (MemoryStore::default(), Rt::default(), d1());
    created(&mut store, &rt, &d1);
    // This request's change owes D1 a write: its flush is awaited.
    let mut older = store.record.clone().unwrap();
    service::upkeep::mark(&mut older, T0);
    // Another request moved meanwhile: the stored record has a ply more.
    let mut newer = older.clone();
    let mv = newer.replay().unwrap().legal_moves()[0];
    newer.moves.push(service::model::MoveEntry { mv, by: engine::Side::South, at: T0 + 1 });
    store.save(&newer).unwrap();
    let handled = game::Handled {
        response: service::http::ApiResponse::of(200, &service::http::Empty {}),
        effects: game::Effects { changed: true, ..game::Effects::default() },
        record: Some(older),
    };
    rt.changed_plies.borrow_mut().clear();
    run(Object { store: &mut store, runtime: &rt, owed: &d1, timers: timers(), now: T0 }.after(handled));
    assert_eq!(*rt.changed_plies.borrow(), [1]);
}

#[test]
fn a_flush_clears_only_the_mark_it_wrote() {
    let (mut store, rt, d1) = (MemoryStore::default(), Rt::default(), d1());
    let token = created(&mut store, &rt, &d1);
    // A resignation marks the outbox again; a stale flush of an older snapshot (written
    // while this one was awaited) must leave the newer mark.
    let stale = store.record.clone().unwrap();
    let (mut rng, mut ai) = (SeededRng(5), PlaceholderAi);
    let mut ctx = Ctx { now: T0 + 10, rng: &mut rng, ai: &mut ai, day_ms: 86_400_000 };
    let resign = ApiRequest {
        method: Method::Post,
        path: format!("/api/games/{}/resign", pid(50)),
        bearer: Some(token),
        body: json!({}).to_string().into_bytes(),
        origin: String::new(),
        player: None,
    };
    let handled = game::handle(&mut store, Route::Resign, &resign, &mut ctx);
    assert_eq!(handled.response.status, 200);
    let mut stale_marked = stale;
    service::upkeep::mark(&mut stale_marked, T0 + 5);
    stale_marked.outbox.as_mut().unwrap().seq = 0; // a mark from before
    let mut o = Object { store: &mut store, runtime: &rt, owed: &d1, timers: timers(), now: T0 + 10 };
    run(o.flush(&stale_marked));
    assert!(store.load().unwrap().unwrap().outbox.is_some(), "the resignation's mark stays");
    let _ = &d1;
}

#[test]
fn a_wake_up_for_a_game_that_does_not_exist_is_404_and_makes_nothing() {
    let (mut store, rt, d1) = (MemoryStore::default(), Rt::default(), d1());
    let mut o = Object { store: &mut store, runtime: &rt, owed: &d1, timers: timers(), now: T0 };
    assert_eq!(run(o.wake()).status, 404);
    assert!(store.record.is_none() && rt.alarms.borrow().is_empty());
}

#[test]
fn an_internal_call_is_read_by_its_path_and_only_ai_work_loads_the_network() {
    use service::object::{internal, may_move_ai, Internal};
    use service::ports::paths;
    let create = |mode: &str| {
        json!({
            "id": pid(9), "origin": "https://a.example", "ip_hash": "ip", "creator": null, "start": null, "stage": null,
            "game": {"south": "axiom", "north": "blades", "mode": mode},
        })
        .to_string()
    };
    let ai = internal(paths::CREATE, create("ai").as_bytes()).unwrap();
    assert!(matches!(&ai, Some(Internal::Create(c)) if c.id == pid(9)));
    assert!(may_move_ai(ai.as_ref(), Method::Post, paths::CREATE, || panic!("not read for a creation")));
    let link = internal(paths::CREATE, create("link").as_bytes()).unwrap();
    assert!(!may_move_ai(link.as_ref(), Method::Post, paths::CREATE, || None));
    assert_eq!(internal(paths::CREATE, b"{}").unwrap_err().code, ErrorCode::InvalidBody);
    assert_eq!(
        internal(paths::ABANDON, b"{\"player\": \"p\"}").unwrap(),
        Some(Internal::Abandon(service::ports::AbandonCall { player: "p".into(), aliases: vec![] }))
    );
    assert_eq!(internal(paths::WITHDRAW, b"").unwrap(), Some(Internal::Withdraw));
    let moves = format!("/api/games/{}/moves", pid(9));
    assert_eq!(internal(&moves, b"{}").unwrap(), None, "a public route");
    assert!(may_move_ai(None, Method::Post, &moves, || Some(Mode::Ai)));
    assert!(!may_move_ai(None, Method::Post, &moves, || Some(Mode::Link)));
    let state = format!("/api/games/{}", pid(9));
    assert!(!may_move_ai(None, Method::Get, &state, || panic!("a read loads nothing")));
}

/// A socket's `state` frame is answered from memory only while no request or alarm (the
/// only events that change the record) is under way since the memory was made.
#[test]
fn the_state_message_is_kept_only_between_events() {
    let mut m = service::object::StateMemory::default();
    m.keep("s0");
    assert_eq!(m.get(), Some("s0"));
    m.begin();
    assert_eq!(m.get(), None, "a request may change the record");
    m.keep("read-during-a-request");
    assert_eq!(m.get(), None, "not kept while a request is under way");
    m.begin();
    m.end();
    m.keep("still-busy");
    assert_eq!(m.get(), None, "one of two overlapping events is still under way");
    m.end();
    m.keep("s1");
    assert_eq!(m.get(), Some("s1"));
}
