#![allow(clippy::unwrap_used)]
//! Idle games, the one alarm, the D1 outbox and the clock's law (issue 11, items 1–3),
//! over `store::MemoryStore`, as the Durable Object runs them.

use engine::{Faction, Game, Move, Side};
use serde_json::{json, Value};
use service::ai::Opponent;
use service::create::{CreateGame, SeatChoice};
use service::error::ApiError;
use service::game::{self, Ctx, Handled};
use service::http::{ApiRequest, Method};
use service::model::{FinishReason, GameRecord, Mode};
use service::store::MemoryStore;
use service::tokens::Random;
use service::upkeep::{self, Timers};

const ID: &str = "0123456789abcdef01234567";
const T0: i64 = 1_795_999_200_000;
const DAY: i64 = 86_400_000;

#[derive(Debug)]
struct Counter(u64);

impl Random for Counter {
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), ApiError> {
        for b in buf.iter_mut() {
            self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            *b = (self.0 >> 33) as u8;
        }
        Ok(())
    }
}

#[derive(Debug)]
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

struct Env {
    store: MemoryStore,
    rng: Counter,
    ai: FirstLegal,
    now: i64,
    timers: Timers,
}

impl Env {
    fn new() -> Env {
        Env {
            store: MemoryStore::default(),
            rng: Counter(7),
            ai: FirstLegal,
            now: T0,
            timers: Timers {
                idle_ai_ms: 3 * DAY,
                open_invite_ms: 2 * DAY,
                idle_untimed_ms: 10 * DAY,
                retry_ms: 1000,
            },
        }
    }

    fn ctx(&mut self) -> Ctx<'_> {
        Ctx { now: self.now, rng: &mut self.rng, ai: &mut self.ai, day_ms: DAY }
    }

    fn create(&mut self, mode: Mode, days: Option<u32>) -> Value {
        let req = CreateGame {
            south: Faction::Clockwork,
            north: Faction::Blades,
            seat: SeatChoice::South,
            mode,
            days_per_move: days,
            level: None,
            rated: false,
        };
        let extra = game::Extra { ip_hash: Some("iphash".into()), ..game::Extra::default() };
        let mut store = std::mem::take(&mut self.store);
        let h = game::create_with(&mut store, ID, &req, &extra, "https://x", &mut self.ctx());
        self.store = store;
        assert_eq!(h.response.status, 201, "{:?}", h.response);
        h.response.json_body().unwrap().clone()
    }

    fn post(&mut self, tail: &str, token: &str, body: &Value) -> Handled {
        let path = format!("/api/games/{ID}{tail}");
        let (_, route) = game::route(Method::Post, &path).unwrap();
        let req = ApiRequest {
            method: Method::Post,
            path,
            bearer: Some(token.to_owned()),
            body: body.to_string().into_bytes(),
            origin: "https://x".into(),
            player: None,
        };
        let mut store = std::mem::take(&mut self.store);
        let h = game::handle(&mut store, route, &req, &mut self.ctx());
        self.store = store;
        h
    }

    fn alarm(&mut self) -> Handled {
        let timers = self.timers;
        let mut store = std::mem::take(&mut self.store);
        let h = game::alarm_with(&mut store, &mut self.ctx(), &timers);
        self.store = store;
        h
    }

    /// What the glue does when D1 took every owed write.
    fn flush(&mut self) {
        let rec = self.store.record.as_mut().unwrap();
        let seq = rec.outbox.as_ref().unwrap().seq;
        assert!(upkeep::flushed(rec, seq));
    }

    fn rec(&self) -> &GameRecord {
        self.store.record.as_ref().unwrap()
    }

    /// A joined link game: (south token, north token).
    fn link(&mut self, days: Option<u32>) -> (String, String) {
        let c = self.create(Mode::Link, days);
        let invite = c["invite_url"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_owned();
        let j = self.post("/join", "", &json!({ "invite": invite }));
        assert_eq!(j.response.status, 200);
        (
            c["token"].as_str().unwrap().to_owned(),
            j.response.json_body().unwrap()["token"].as_str().unwrap().to_owned(),
        )
    }

    fn first_move(&self) -> String {
        first_legal(&self.rec().replay().unwrap()).unwrap().to_string()
    }
}

fn result(h: &Handled) -> Value {
    let b = h.response.json_body().unwrap();
    b.get("state").unwrap_or(&b)["result"].clone()
}

#[test]
fn an_ai_game_untouched_for_the_idle_time_ends_as_abandoned_by_its_player() {
    let mut e = Env::new();
    let c = e.create(Mode::Ai, None);
    let token = c["token"].as_str().unwrap().to_owned();
    e.flush();
    e.now += DAY;
    let mv = e.first_move();
    assert_eq!(e.post("/moves", &token, &json!({ "move": mv, "ply": 0 })).response.status, 200);
    // The move (and the AI's reply) moved the idle end three days past it.
    let moved_at = e.now;
    assert_eq!(upkeep::idle_at(e.rec(), &e.timers).unwrap().0, moved_at + 3 * DAY);
    e.now = moved_at + 3 * DAY - 1;
    let h = e.alarm();
    assert!(e.rec().result.is_none() && !h.effects.finished);
    assert!(e.rec().deadline.is_none(), "no deadline in an ai game");
    assert_eq!(upkeep::next_alarm(e.rec(), &e.timers), Some(moved_at + 3 * DAY), "the idle end is next");
    e.now = moved_at + 3 * DAY;
    let h = e.alarm();
    assert!(h.effects.finished && h.effects.changed);
    assert_eq!(
        result(&h),
        json!({ "text": "north wins: abandoned", "winner": "north", "reason": "abandoned" })
    );
    let ob = e.rec().outbox.clone().expect("the result is owed to D1, in the same save");
    assert_eq!((ob.attempts, ob.since), (0, e.now));
    assert_eq!(upkeep::next_alarm(e.rec(), &e.timers), Some(e.now + 1000), "only the D1 retry is left");
}

#[test]
fn a_link_game_nobody_joins_is_aborted_and_an_untimed_one_nobody_moves_in_ends() {
    let mut e = Env::new();
    e.create(Mode::Link, Some(3));
    assert_eq!(
        upkeep::next_alarm(e.rec(), &e.timers),
        Some(T0 + 1000),
        "the index write's retry comes first"
    );
    e.flush();
    assert_eq!(upkeep::next_alarm(e.rec(), &e.timers), Some(T0 + 2 * DAY));
    e.now = T0 + 2 * DAY;
    let h = e.alarm();
    assert_eq!(
        result(&h),
        json!({ "text": "aborted: never joined", "winner": null, "reason": "never joined" })
    );
    assert!(h.effects.finished);

    // Untimed and joined: the side to move abandons it after ten idle days.
    let mut e = Env::new();
    let (south, _north) = e.link(None);
    let mv = e.first_move();
    e.now += DAY;
    assert_eq!(e.post("/moves", &south, &json!({ "move": mv, "ply": 0 })).response.status, 200);
    e.now += 10 * DAY;
    let h = e.alarm();
    assert_eq!(result(&h)["text"], "south wins: abandoned");

    // Timed and joined: the deadline governs, never the idle timer.
    let mut e = Env::new();
    e.link(Some(14));
    assert!(upkeep::idle_at(e.rec(), &e.timers).is_none());
}

#[test]
fn the_one_alarm_is_the_earliest_of_deadline_idle_end_and_retry() {
    let mut e = Env::new();
    let (south, _) = e.link(Some(1));
    let rec = e.rec().clone();
    let ob = rec.outbox.clone().unwrap();
    assert_eq!(ob.seq, 2, "creation and join each marked the outbox");
    assert_eq!(ob.ip_hash.as_deref(), Some("iphash"), "the creator's hash survives for the index row");
    assert_eq!(upkeep::next_alarm(&rec, &e.timers), Some(T0 + 1000), "retry before the deadline");
    let mut cleared = rec.clone();
    assert!(!upkeep::flushed(&mut cleared, 1), "a flush of an older mark clears nothing");
    assert!(upkeep::flushed(&mut cleared, 2));
    assert_eq!(upkeep::next_alarm(&cleared, &e.timers), Some(T0 + DAY), "then the deadline");
    // Failures back off: 1 s, 2 s, 4 s … capped at 32×.
    let mut failing = rec;
    for (n, delay) in [(1, 2000), (2, 4000), (3, 8000), (9, 32_000)] {
        while failing.outbox.as_ref().unwrap().attempts < n {
            upkeep::failed(&mut failing, 2, T0);
        }
        assert_eq!(upkeep::next_alarm(&failing, &e.timers), Some(T0 + delay));
    }
    upkeep::failed(&mut failing, 1, T0 + 5);
    assert_eq!(failing.outbox.as_ref().unwrap().since, T0, "a stale failure changes nothing");
    // A pending retry never hides the deadline: the alarm at the deadline forfeits.
    e.store.record.as_mut().unwrap().outbox.as_mut().unwrap().since = T0 + 10 * DAY;
    e.now = T0 + DAY;
    let h = e.alarm();
    assert_eq!(result(&h)["reason"], "time forfeit");
    let _ = south;
}

/// Regression (issue 11 item 3): a late move was accepted when the alarm had not yet run.
#[test]
fn a_move_draw_or_resignation_after_the_deadline_first_forfeits_on_time() {
    for action in ["move", "resign-by-waiting-side", "draw-accept"] {
        let mut e = Env::new();
        let (south, north) = e.link(Some(1));
        if action == "draw-accept" {
            let h = e.post("/draw", &north, &json!({ "action": "offer" }));
            assert_eq!(h.response.status, 200);
        }
        let deadline = e.rec().deadline.unwrap();
        e.now = deadline; // the alarm has not run yet
        let h = match action {
            "move" => {
                let mv = e.first_move();
                e.post("/moves", &south, &json!({ "move": mv, "ply": 0 }))
            }
            // North waits for South's move: resigning now would lose a game North has won.
            "resign-by-waiting-side" => e.post("/resign", &north, &json!({})),
            _ => e.post("/draw", &south, &json!({ "action": "accept" })),
        };
        assert_eq!(h.response.status, 409, "{action}");
        assert_eq!(h.response.json_body().unwrap()["error"], "game_over");
        assert_eq!(result(&h)["text"], "north wins: time forfeit", "{action}");
        assert!(h.effects.finished && h.effects.changed, "{action}: the forfeit is pushed and indexed");
        let rec = e.rec();
        assert!(rec.moves.is_empty(), "{action}: the late move was not played");
        assert_eq!(rec.result.as_ref().unwrap().reason, FinishReason::TimeForfeit, "{action}: saved");
        assert!(rec.outbox.is_some(), "{action}: the result is owed to D1");
        // The alarm, when it runs, finds nothing more to do.
        let h = e.alarm();
        assert!(!h.effects.finished);
    }
    // One millisecond earlier the move is played.
    let mut e = Env::new();
    let (south, _) = e.link(Some(1));
    e.now = e.rec().deadline.unwrap() - 1;
    let mv = e.first_move();
    assert_eq!(e.post("/moves", &south, &json!({ "move": mv, "ply": 0 })).response.status, 200);
    assert_eq!(e.rec().moves.len(), 1);
    let _ = Side::South;
}

#[test]
fn games_that_never_began_move_no_rating() {
    use service::model::Finish;
    assert!(upkeep::counts_for_rating(&Finish::win(Side::North, FinishReason::Resignation, T0)));
    assert!(upkeep::counts_for_rating(&Finish::win(Side::South, FinishReason::Abandoned, T0)));
    assert!(upkeep::counts_for_rating(&Finish::win(Side::South, FinishReason::TimeForfeit, T0)));
    assert!(upkeep::counts_for_rating(&Finish::draw(FinishReason::Agreement, T0)));
    assert!(!upkeep::counts_for_rating(&Finish::aborted(FinishReason::NeverJoined, T0)));
    assert!(!upkeep::counts_for_rating(&Finish::aborted(FinishReason::ByAPlayer, T0)));
}

#[test]
fn a_mark_made_while_a_flush_was_in_flight_survives_that_flush() {
    let mut e = Env::new();
    e.create(Mode::Link, None);
    let first = e.rec().outbox.clone().unwrap().seq;
    // A flush of mark 1 is awaiting D1 when a join marks the outbox again.
    let mut rec = e.rec().clone();
    upkeep::mark(&mut rec, T0 + 5);
    assert!(!upkeep::flushed(&mut rec, first), "the older flush must not clear the newer mark");
    let ob = rec.outbox.clone().unwrap();
    assert_eq!((ob.seq, ob.since, ob.ip_hash.as_deref()), (first + 1, T0 + 5, Some("iphash")));
    upkeep::failed(&mut rec, first, T0 + 6);
    assert_eq!(rec.outbox.as_ref().unwrap().attempts, 0, "nor count its failure");
}

/// Regression: a mark's number restarted at 1 once the outbox was cleared, so a flush of
/// an old mark 1 still awaiting D1 (a move's, begun while the creation's was in flight)
/// cleared the game's next mark 1 (its end: result and rating) when it came back; had
/// that mark's own write then failed, nothing would have retried it.
#[test]
fn a_flush_of_a_mark_cleared_meanwhile_cannot_clear_a_later_mark() {
    let mut e = Env::new();
    e.create(Mode::Link, None);
    let mut rec = e.rec().clone();
    let old = rec.outbox.clone().unwrap().seq;
    // Two flushes of that mark are in flight; the first comes back and clears it.
    assert!(upkeep::flushed(&mut rec, old));
    assert!(rec.outbox.is_none());
    // The game ends: a new mark, while the second flush of the old one is still out.
    upkeep::mark(&mut rec, T0 + 9);
    let new = rec.outbox.clone().unwrap().seq;
    assert_ne!(new, old, "marks never repeat");
    assert!(!upkeep::flushed(&mut rec, old), "the stale flush leaves the new mark");
    upkeep::failed(&mut rec, new, T0 + 10);
    assert_eq!(rec.outbox.as_ref().map(|ob| ob.attempts), Some(1), "the new mark's failure is retried");
    // The number survives the record's round trip through storage.
    let back: GameRecord = serde_json::from_str(&serde_json::to_string(&rec).unwrap()).unwrap();
    assert_eq!(back.last_mark, new);
}
