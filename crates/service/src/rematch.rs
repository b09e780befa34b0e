//! Rematch: after a game, either side offers a rematch and the other accepts or
//! declines; against the AI one request starts it. The new game has the same match-up
//! and settings with the players' seats swapped (each plays the other side and faction),
//! and each player's seat token and account carry over to their new seat, so no new
//! secret has to be handed out.
//!
//! `POST /api/games/{id}/rematch` `{"action": "offer"|"accept"|"decline"}`. The old game's
//! Durable Object runs [`request`]; when a game is to be made it reserves the new id in
//! the same save (a second accept sees it), and the Worker asks the new game's Durable
//! Object to run [`create`] with the [`RematchCall`].

use engine::Side;
use serde::{Deserialize, Serialize};

use crate::create::{CreateGame, SeatChoice};
use crate::error::{ApiError, ErrorCode};
use crate::game::{self, Ctx, Effects, Handled};
use crate::http::{parse_json, ApiRequest, ApiResponse};
use crate::model::{Controller, GameRecord, GameView, Mode, RematchAdmission, Seat};
use crate::store::GameStore;

/// The record's rematch state (in the model, below every rule that changes it).
pub use crate::model::Rematch;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Offer,
    Accept,
    Decline,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    action: Action,
    /// Against the AI: keep the player's faction in the rematch (the player still changes
    /// side, so the first move alternates).
    #[serde(default)]
    keep_faction: bool,
}

/// What the new game's Durable Object needs: the old game's settings and seats.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RematchCall {
    pub id: String,
    pub of: String,
    pub create: CreateGame,
    /// The new game's South seat, then North's (the old seats swapped).
    pub seats: [Seat; 2],
    pub origin: String,
    /// The address bucket the capacity check admitted the rematch under, for the new
    /// game's index row (so the address's cap counts it, as it counts any game it creates).
    #[serde(default)]
    pub ip_hash: Option<String>,
}

/// How long an agreed rematch's capacity check may take before a request that finds it
/// unfinished takes it as abandoned (a check is a few limiter calls and one D1 statement,
/// well under a second; after this, the request that began it has died).
pub const ADMISSION_MS: i64 = 30_000;

/// What the old game's request leads to.
#[derive(Debug)]
pub enum Step {
    /// Answered (an offer or a decline).
    Done(Handled),
    /// Make the new game with this call (its creation is idempotent), then answer with
    /// [`created`].
    Create(Box<RematchCall>, GameRecord, Reservation),
}

/// Whether a [`Step::Create`]'s id was reserved by this request or by an earlier one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reservation {
    /// Saved by this request: if nothing can have been made, [`release`] it.
    New,
    /// Agreed earlier: the game may exist or not (that request may have died between the
    /// reservation and the creation), so it is made again with the same id — never
    /// released, never a second game.
    Earlier,
}

fn load(store: &dyn GameStore) -> Result<(GameRecord, engine::Game), ApiError> {
    let rec = store
        .load()
        .map_err(|e| ApiError::internal(format!("storage: {e}")))?
        .ok_or_else(|| ApiError::not_found("no such game"))?;
    let game = rec.replay().map_err(ApiError::internal)?;
    Ok((rec, game))
}

fn save(store: &mut dyn GameStore, rec: &mut GameRecord) -> Result<(), ApiError> {
    store
        .save_next(rec)
        .map_err(|e| ApiError::new(ErrorCode::StorageUnavailable, format!("nothing changed: {e}")))
}

/// The answer to `POST …/rematch` (`RematchResponse`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RematchReply {
    /// The rematch game, once agreed.
    pub game: Option<String>,
    /// The requester's seat: in the rematch once agreed (the old seat swapped), else here.
    pub seat: Side,
    pub rematch: Option<Rematch>,
    /// The old game's state.
    pub state: GameView,
}

/// The new game's answer to the old game's glue (internal, not public).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RematchCreated {
    pub id: String,
    pub rematch_of: String,
    pub state: GameView,
}

fn answer(rec: &GameRecord, game: &engine::Game, side: Side, changed: bool) -> Handled {
    let new_game = rec.rematch.as_ref().and_then(|r| r.game.clone());
    // Once agreed: the new game and the requester's seat in it.
    let seat = if new_game.is_some() { side.opponent() } else { side };
    let body = RematchReply { game: new_game, seat, rematch: rec.rematch.clone(), state: rec.view(game) };
    let effects = Effects { changed, ..Effects::default() };
    Handled { response: ApiResponse::of(200, &body), effects, record: Some(rec.clone()) }
}

fn failed(e: ApiError) -> Step {
    Step::Done(Handled { response: ApiResponse::error(&e), effects: Effects::default(), record: None })
}

/// The old game's side of `POST …/rematch`.
pub fn request(store: &mut dyn GameStore, req: &ApiRequest, ctx: &mut Ctx) -> Step {
    match request_inner(store, req, ctx) {
        Ok(step) => step,
        Err(e) => failed(e),
    }
}

fn request_inner(store: &mut dyn GameStore, req: &ApiRequest, ctx: &mut Ctx) -> Result<Step, ApiError> {
    let (mut rec, game) = load(store)?;
    let side = game::authorise_request(&rec, req, game.position().turn())?;
    let body: Body = parse_json(&req.body)?;
    if rec.result.is_none() {
        return Err(ApiError::conflict(
            ErrorCode::GameNotOver,
            "a rematch comes after the game",
            rec.view(&game),
        ));
    }
    if rec.stage.is_some() {
        return Err(ApiError::new(
            ErrorCode::RematchUnavailable,
            "a story stage is replayed from the story screen",
        ));
    }
    if !rec.seats.iter().all(|s| s.controller == Controller::Ai || s.token_hash.is_some()) {
        return Err(ApiError::new(ErrorCode::RematchUnavailable, "no one joined this game"));
    }
    if body.keep_faction && rec.mode != Mode::Ai {
        return Err(ApiError::new(
            ErrorCode::RematchUnavailable,
            "only a rematch against the AI can keep your faction",
        ));
    }
    let mut state = rec.rematch.clone().unwrap_or_default();
    if let Some(id) = state.game.clone() {
        // Agreed already (a repeated accept, or the other side's offer after it).
        if body.action == Action::Decline {
            return Ok(Step::Done(answer(&rec, &game, side, false)));
        }
        let mut call = plan(&rec, &id, &req.origin);
        match rec.rematch_admission.as_ref().filter(|a| a.game == id) {
            // Another request is in the capacity check for this game: making it now would
            // skip the check (and that request, refused, would release the id).
            Some(a) if a.ip_hash.is_none() && ctx.now - a.since < ADMISSION_MS => {
                return Err(ApiError::new(
                    ErrorCode::RematchFailed,
                    "the rematch is being created; try again",
                ));
            }
            // Admitted (counted under its address), or a check abandoned by a request that
            // died: its place, if reserved, is swept (`db::index::RESERVATION_MS`).
            a => call.ip_hash = a.and_then(|a| a.ip_hash.clone()),
        }
        return Ok(Step::Create(Box::new(call), rec, Reservation::Earlier));
    }
    let create = match (rec.mode, body.action) {
        (Mode::Ai, Action::Offer | Action::Accept) => true,
        (Mode::Ai, Action::Decline) => {
            return Err(ApiError::new(ErrorCode::CannotDeclineAi, "the AI offers no rematch to decline"));
        }
        (Mode::Link, Action::Offer | Action::Accept) if state.offered_by == Some(side.opponent()) => true,
        (Mode::Link, Action::Offer) if state.offered_by == Some(side) => {
            return Err(ApiError::conflict(
                ErrorCode::RematchAlreadyOffered,
                "you have already offered a rematch",
                rec.view(&game),
            ));
        }
        (Mode::Link, Action::Offer) => {
            state = Rematch { offered_by: Some(side), ..Rematch::default() };
            false
        }
        (Mode::Link, Action::Decline) if state.offered_by == Some(side.opponent()) => {
            state = Rematch { declined_by: Some(side), ..Rematch::default() };
            false
        }
        (Mode::Link, Action::Accept | Action::Decline) => {
            return Err(ApiError::conflict(
                ErrorCode::NoRematchOffer,
                "your opponent has not offered a rematch",
                rec.view(&game),
            ));
        }
    };
    if !create {
        rec.rematch = Some(state);
        save(store, &mut rec)?;
        return Ok(Step::Done(answer(&rec, &game, side, true)));
    }
    let id = ctx.rng.id()?;
    rec.rematch = Some(Rematch {
        offered_by: state.offered_by,
        declined_by: None,
        game: Some(id.clone()),
        keep_faction: body.keep_faction,
    });
    rec.rematch_admission = Some(RematchAdmission { game: id.clone(), since: ctx.now, ip_hash: None });
    let call = plan(&rec, &id, &req.origin);
    save(store, &mut rec)?;
    Ok(Step::Create(Box::new(call), rec, Reservation::New))
}

/// The new game: same match-up and settings, seats swapped; the factions swapped with
/// them when the rematch keeps the player's faction (against the AI).
pub fn plan(rec: &GameRecord, id: &str, origin: &str) -> RematchCall {
    let keep_faction = rec.rematch.as_ref().is_some_and(|r| r.keep_faction);
    let factions = if keep_faction { (rec.north, rec.south) } else { (rec.south, rec.north) };
    let [south, north] = rec.seats.clone();
    let seats = [north, south];
    // For AI games, the human's new side (create_with puts the AI on the other).
    let human = Side::ALL.into_iter().find(|s| seats[s.index()].controller == Controller::Human);
    let seat = match human {
        Some(Side::South) => SeatChoice::South,
        Some(Side::North) => SeatChoice::North,
        None => SeatChoice::South,
    };
    RematchCall {
        id: id.to_owned(),
        of: rec.id.clone(),
        create: CreateGame {
            south: factions.0,
            north: factions.1,
            seat,
            mode: rec.mode,
            days_per_move: rec.days_per_move,
            level: rec.level,
            rated: rec.rated,
        },
        seats,
        origin: origin.to_owned(),
        ip_hash: None,
    }
}

/// The new game's Durable Object: creates it with the swapped seats (their tokens and
/// players carried over); the AI moves first if it now has South.
pub fn create(store: &mut dyn GameStore, call: &RematchCall, ctx: &mut Ctx) -> Handled {
    if let Some(made) = made_already(store, call) {
        return made;
    }
    let human = Side::ALL.into_iter().find(|s| call.seats[s.index()].controller == Controller::Human);
    let creator = human.and_then(|s| call.seats[s.index()].player.clone()).map(|id| crate::http::PlayerRef {
        id,
        // A rated game had two Discord-linked players; the rematch stays rated.
        linked: call.create.rated,
    });
    let extra = game::Extra { creator, ip_hash: call.ip_hash.clone(), ..game::Extra::default() };
    let mut handled = game::create_with(store, &call.id, &call.create, &extra, &call.origin, ctx);
    let Some(mut rec) = handled.record.take() else { return handled };
    rec.seats = call.seats.clone();
    rec.invite_hash = None;
    if rec.result.is_none() {
        rec.deadline = rec.days_per_move.map(|d| ctx.now + i64::from(d) * ctx.day_ms);
    }
    if let Err(e) = save(store, &mut rec) {
        return Handled { response: ApiResponse::error(&e), effects: Effects::default(), record: None };
    }
    let view = match rec.replay() {
        Ok(g) => rec.view(&g),
        Err(e) => {
            return Handled {
                response: ApiResponse::error(&ApiError::internal(e)),
                effects: Effects::default(),
                record: None,
            }
        }
    };
    handled.response = ApiResponse::of(
        201,
        &RematchCreated { id: rec.id.clone(), rematch_of: call.of.clone(), state: view },
    );
    handled.record = Some(rec);
    handled
}

/// The answer to a repeated creation of the same rematch (its seats are the call's):
/// the game as it is now, nothing changed.
fn made_already(store: &dyn GameStore, call: &RematchCall) -> Option<Handled> {
    let rec = store.load().ok().flatten()?;
    // The seat tokens identify the rematch (a seat's player may be re-pointed later).
    let tokens = |seats: &[Seat; 2]| seats.clone().map(|s| (s.controller, s.token_hash));
    if tokens(&rec.seats) != tokens(&call.seats) {
        return None; // another game: create_with refuses it (409 `exists`)
    }
    let response = match rec.replay() {
        Ok(g) => ApiResponse::of(
            201,
            &RematchCreated { id: rec.id.clone(), rematch_of: call.of.clone(), state: rec.view(&g) },
        ),
        Err(e) => ApiResponse::error(&ApiError::internal(e)),
    };
    Some(Handled { response, effects: Effects::default(), record: Some(rec) })
}

/// The old game after the new one was made: the answer (the new game's id and the
/// requester's seat in it).
pub fn created(rec: &GameRecord, side: Side) -> Handled {
    let game = match rec.replay() {
        Ok(g) => g,
        Err(e) => {
            return Handled {
                response: ApiResponse::error(&ApiError::internal(e)),
                effects: Effects::default(),
                record: None,
            }
        }
    };
    let body = RematchReply {
        game: rec.rematch.as_ref().and_then(|r| r.game.clone()),
        seat: side.opponent(),
        rematch: rec.rematch.clone(),
        state: rec.view(&game),
    };
    Handled {
        response: ApiResponse::of(200, &body),
        effects: Effects { changed: true, ..Effects::default() },
        record: Some(rec.clone()),
    }
}

/// Creating the new game was refused, or refused before it was asked (so nothing was
/// made): the reservation is released so the players can retry.
pub fn release(store: &mut dyn GameStore, id: &str) {
    if let Ok(Some(mut rec)) = store.load() {
        if let Some(r) = rec.rematch.as_mut().filter(|r| r.game.as_deref() == Some(id)) {
            r.game = None;
            rec.rematch_admission = None;
            let _ = store.save_next(&mut rec);
        }
    }
}

/// The capacity check admitted game `id` under address bucket `ip_hash`: recorded, so a
/// request that finds the rematch agreed makes it counted there too.
pub fn admitted(store: &mut dyn GameStore, id: &str, ip_hash: &str) -> Result<(), ApiError> {
    let (mut rec, _) = load(store)?;
    if let Some(a) = rec.rematch_admission.as_mut().filter(|a| a.game == id) {
        a.ip_hash = Some(ip_hash.to_owned());
        save(store, &mut rec)?;
    }
    Ok(())
}

/// The requester's side for [`created`] (the seat the request holds).
pub fn requester(rec: &GameRecord, req: &ApiRequest) -> Option<Side> {
    let game = rec.replay().ok()?;
    game::authorise_request(rec, req, game.position().turn()).ok()
}
