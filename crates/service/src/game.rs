//! One game's API, as its Durable Object runs it: create, view, join, move, resign,
//! draw, record, and the deadline alarm. Every mutation is validated, saved, and only
//! then answered; on any error nothing is saved.

use engine::{Game, Move, Side};
use serde::{Deserialize, Serialize};

use crate::ai::Opponent;
use crate::create::CreateGame;
use crate::error::{ApiError, ErrorCode};
use crate::http::{parse_empty, parse_json, ApiRequest, ApiResponse, Method, PlayerRef};
use crate::model::{
    Controller, Finish, FinishReason, GameRecord, GameView, LastReply, Mode, MoveEntry, Seat, StageRef,
};
use crate::store::GameStore;
use crate::story::Verdict;
use crate::tokens::{self, Random};
use crate::upkeep::{self, Timers};

/// What a request needs besides the store: the time, randomness, the AI, the day length
/// (configurable so tests can run a correspondence deadline in seconds).
pub struct Ctx<'a> {
    pub now: i64,
    pub rng: &'a mut dyn Random,
    pub ai: &'a mut dyn Opponent,
    pub day_ms: i64,
}

impl core::fmt::Debug for Ctx<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ctx")
            .field("now", &self.now)
            .field("ai", &self.ai.name(ai::level::DEFAULT_LEVEL))
            .field("day_ms", &self.day_ms)
            .finish()
    }
}

/// What the glue must do after a request besides answering it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Effects {
    /// The game changed: push the new state to every WebSocket.
    pub changed: bool,
    /// The game was created (index it in D1).
    pub created: bool,
    /// The game just finished (write the result to D1).
    pub finished: bool,
}

#[derive(Debug)]
pub struct Handled {
    pub response: ApiResponse,
    pub effects: Effects,
    /// The record after the request (for the view pushed to WebSockets).
    pub record: Option<GameRecord>,
}

/// The public routes under `/api/games/{id}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    State,
    Join,
    Moves,
    Resign,
    Draw,
    Record,
    WebSocket,
    /// The creator (or, once joined, either player) ends the game before it really
    /// started: no one joined, or neither side has played its second move.
    Abort,
    /// After the game (see [`crate::rematch`]; the Durable Object's glue runs it).
    Rematch,
    /// A casual game against the AI: the player's last move and the AI's answer undone.
    Takeback,
}

/// Splits `/api/games/{id}[/rest]` into the id and the route.
pub fn route(method: Method, path: &str) -> Result<(String, Route), ApiError> {
    let rest = path.strip_prefix("/api/games/").ok_or_else(|| ApiError::not_found("no such route"))?;
    let (id, tail) = rest.split_once('/').unwrap_or((rest, ""));
    if !valid_id(id) {
        return Err(ApiError::not_found(format!("no game '{}'", id.chars().take(40).collect::<String>())));
    }
    let r = match (method, tail) {
        (Method::Get, "") => Route::State,
        (Method::Post, "join") => Route::Join,
        (Method::Post, "moves") => Route::Moves,
        (Method::Post, "resign") => Route::Resign,
        (Method::Post, "draw") => Route::Draw,
        (Method::Get, "record") => Route::Record,
        (Method::Get, "ws") => Route::WebSocket,
        (Method::Post, "abort") => Route::Abort,
        (Method::Post, "rematch") => Route::Rematch,
        (Method::Post, "takeback") => Route::Takeback,
        (
            _,
            "" | "join" | "moves" | "resign" | "draw" | "record" | "ws" | "abort" | "rematch" | "takeback",
        ) => {
            return Err(ApiError::new(
                ErrorCode::MethodNotAllowed,
                format!("{method:?} is not allowed on this route"),
            ));
        }
        _ => return Err(ApiError::not_found("no such route")),
    };
    Ok((id.to_owned(), r))
}

/// Takes back `side`'s last move and the AI's answer to it: a casual game against the AI
/// (not rated, not a story stage), unfinished, `side` to move again after the AI's reply.
/// The game is replayed from the remaining moves, so the position, the ply and the
/// repetition history are exactly those before the move; the stored answers of earlier
/// submissions are dropped (a retry of the taken-back move must move again, not replay
/// its old answer), and the game is marked assisted.
fn takeback(rec: &mut GameRecord, game: &mut Game, side: Side) -> Result<(), ApiError> {
    let unavailable = |why: &str| Err(ApiError::new(ErrorCode::TakebackUnavailable, why.to_owned()));
    if rec.mode != Mode::Ai {
        return unavailable("take-backs are only for games against the AI");
    }
    if rec.rated {
        return unavailable("a rated game has no take-backs");
    }
    if rec.stage.is_some() {
        return unavailable("a story stage has no take-backs: Reset Stage starts it again");
    }
    if rec.result.is_some() {
        return Err(ApiError::conflict(ErrorCode::GameOver, "the game is over", rec.view(game)));
    }
    let n = rec.moves.len();
    let answered = n >= 2 && rec.moves[n - 2].by == side && rec.moves[n - 1].by == side.opponent();
    if !answered || game.position().turn() != side {
        return Err(ApiError::conflict(
            ErrorCode::NothingToTakeBack,
            "no move of yours has been answered yet",
            rec.view(game),
        ));
    }
    rec.moves.truncate(n - 2);
    *game = rec.replay().map_err(ApiError::internal)?;
    rec.last_replies = [None, None];
    rec.assisted = true;
    Ok(())
}

/// Game ids are 24 lowercase hex digits (96 random bits).
pub fn valid_id(id: &str) -> bool {
    id.len() == 24 && id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn load(store: &dyn GameStore) -> Result<(GameRecord, Game), ApiError> {
    let rec = store
        .load()
        .map_err(|e| ApiError::internal(format!("storage: {e}")))?
        .ok_or_else(|| ApiError::not_found("no such game"))?;
    let game = rec.replay().map_err(ApiError::internal)?;
    Ok((rec, game))
}

fn save(store: &mut dyn GameStore, rec: &mut GameRecord) -> Result<(), ApiError> {
    store.save_next(rec).map_err(|e| {
        ApiError::new(
            ErrorCode::StorageUnavailable,
            format!("the game could not be saved, nothing changed: {e}"),
        )
    })
}

/// What the AI seat is (`AiInfo`), in the answers of `ai` games.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AiInfo {
    pub engine: &'static str,
    /// true only for the random test mover.
    pub placeholder: bool,
    pub level: Option<u8>,
}

fn ai_info(ai: &dyn Opponent, level: Option<u8>) -> AiInfo {
    AiInfo {
        engine: ai.name(level.unwrap_or(ai::level::DEFAULT_LEVEL)),
        placeholder: ai.is_placeholder(),
        level,
    }
}

/// `201` to a creation (`CreateResponse`): the creator's seat and its token (shown once).
/// (Also read back by the saga that makes a challenge's game, [`crate::sagas::challenges`].)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Created {
    pub id: String,
    pub seat: Side,
    pub token: String,
    pub state: GameView,
    /// The AI's opening move when the creator took North in an `ai` game.
    pub ai_move: Option<Move>,
    /// `link` games: the link that claims the other seat (shown once).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invite_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", skip_deserializing)]
    pub ai: Option<AiInfo>,
}

/// The link that claims a link game's other seat: the page of game `id`, the invite
/// token in the fragment (never sent to a server by a browser).
fn invite_link(origin: &str, id: &str, invite: &str) -> String {
    format!("{origin}/g/{id}#invite={invite}")
}

impl Created {
    /// The invite token of [`Created::invite_url`] (what [`invite_link`] put there).
    pub fn invite_token(&self) -> Option<&str> {
        self.invite_url.as_deref()?.split_once("#invite=").map(|(_, token)| token).filter(|t| !t.is_empty())
    }
}

/// `200` to a join (`JoinResponse`): the joiner's seat and its token. (Also read back by
/// the Worker when it joins a challenge's game for the accepter.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Joined {
    pub id: String,
    pub seat: Side,
    pub token: String,
    pub state: GameView,
}

/// `200` to a move (`MoveResponse`): the state after it and the AI's reply, if any.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Moved {
    pub state: GameView,
    pub ai_move: Option<Move>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ai: Option<AiInfo>,
}

/// `{"state": …}` (`StateEnvelope`): resign, draw, abort, Exit Stage, the alarm.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StateEnvelope {
    pub state: GameView,
}

fn envelope(state: GameView) -> ApiResponse {
    ApiResponse::of(200, &StateEnvelope { state })
}

/// Lets the AI move while it is the AI's turn and the game goes on. Returns its move.
fn ai_turn(rec: &mut GameRecord, game: &mut Game, ctx: &mut Ctx) -> Result<Option<Move>, ApiError> {
    if rec.result.is_some() || game.outcome().is_some() || !rec.is_ai(game.position().turn()) {
        return Ok(None);
    }
    let by = game.position().turn();
    let level = rec.level.unwrap_or(ai::level::DEFAULT_LEVEL);
    let Some(mv) = ctx.ai.choose(game, level, ctx.rng)? else {
        return Ok(None);
    };
    game.play(mv).map_err(|e| ApiError::internal(format!("the AI chose an illegal move: {e}")))?;
    rec.moves.push(MoveEntry { mv, by, at: ctx.now });
    Ok(Some(mv))
}

/// Ends a story game as soon as its stage goal is decided by the plies alone (won by
/// surviving, lost by running out of plies); a rules result is left to [`settle`].
fn settle_stage(rec: &mut GameRecord, game: &Game, now: i64) {
    let Some(st) = rec.stage.as_ref() else { return };
    if rec.result.is_some() || game.outcome().is_some() {
        return;
    }
    let player = st.player;
    match rec.stage_verdict(game) {
        Some(Verdict::Won) => rec.result = Some(Finish::win(player, FinishReason::StageGoal, now)),
        Some(Verdict::Lost) => {
            rec.result = Some(Finish::win(player.opponent(), FinishReason::StageGoal, now))
        }
        _ => {}
    }
}

/// Brings the derived fields up to date after moves: result, deadline, position.
fn settle(rec: &mut GameRecord, game: &Game, now: i64, day_ms: i64) {
    if rec.result.is_none() {
        if let Some(o) = game.outcome() {
            rec.result = Some(Finish::from_outcome(o, now));
        }
    }
    rec.deadline = match (rec.result.is_none() && rec.seats_filled(), rec.days_per_move) {
        (true, Some(days)) => Some(now + i64::from(days) * day_ms),
        _ => None,
    };
    if rec.result.is_some() {
        rec.draw_offer = None;
    }
    rec.position = *game.position();
    rec.repetitions = game.repetitions();
}

fn effects(before_finished: bool, rec: &GameRecord) -> Effects {
    Effects { changed: true, created: false, finished: !before_finished && rec.result.is_some() }
}

/// What the Worker knows about a new game besides the public request: who creates it,
/// and for story stages the starting position and the stage.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extra {
    pub creator: Option<PlayerRef>,
    pub start: Option<engine::Position>,
    pub stage: Option<StageRef>,
    /// The creator's address hash, for the D1 index row.
    pub ip_hash: Option<String>,
}

/// Creates the game (the Worker calls this once, on a fresh Durable Object).
pub fn create(store: &mut dyn GameStore, id: &str, req: &CreateGame, origin: &str, ctx: &mut Ctx) -> Handled {
    create_with(store, id, req, &Extra::default(), origin, ctx)
}

/// [`create`] with the creator and, for story stages, the position and the stage.
pub fn create_with(
    store: &mut dyn GameStore,
    id: &str,
    req: &CreateGame,
    extra: &Extra,
    origin: &str,
    ctx: &mut Ctx,
) -> Handled {
    let result = (|| {
        if store.load().map_err(ApiError::internal)?.is_some() {
            return Err(ApiError::new(ErrorCode::Exists, "a game with this id already exists"));
        }
        if req.rated && !extra.creator.as_ref().is_some_and(|c| c.linked) {
            return Err(ApiError::new(
                ErrorCode::SignInRequired,
                "rated games are for players signed in with Discord",
            ));
        }
        let start = extra.start.unwrap_or_else(|| engine::Position::start(req.south, req.north));
        if (start.faction(Side::South), start.faction(Side::North)) != (req.south, req.north) {
            return Err(ApiError::internal("the starting position's factions differ from the request"));
        }
        let side = match &extra.stage {
            Some(st) => st.player,
            None => req.creator_side(ctx.rng.below(2)? == 1),
        };
        let token = ctx.rng.token()?;
        let invite = if req.mode == Mode::Link { Some(ctx.rng.token()?) } else { None };
        let other = match req.mode {
            Mode::Ai => Seat { controller: Controller::Ai, token_hash: None, player: None },
            Mode::Link => Seat { controller: Controller::Human, token_hash: None, player: None },
        };
        let mine = Seat {
            controller: Controller::Human,
            token_hash: Some(tokens::hash(&token)),
            player: extra.creator.as_ref().map(|c| c.id.clone()),
        };
        let seats = if side == Side::South { [mine, other] } else { [other, mine] };
        let mut rec = GameRecord {
            start,
            position: start,
            invite_hash: invite.as_deref().map(tokens::hash),
            days_per_move: req.days_per_move,
            level: (req.mode == Mode::Ai).then(|| req.level.unwrap_or(ai::level::DEFAULT_LEVEL)),
            rated: req.rated,
            stage: extra.stage.clone(),
            ..GameRecord::new(id, req.south, req.north, req.mode, seats, ctx.now)
        };
        let mut game = Game::new(start);
        let ai_move = ai_turn(&mut rec, &mut game, ctx)?;
        settle_stage(&mut rec, &game, ctx.now);
        settle(&mut rec, &game, ctx.now, ctx.day_ms);
        upkeep::mark(&mut rec, ctx.now); // the index row, in the same save
        if let Some(ob) = rec.outbox.as_mut() {
            ob.ip_hash.clone_from(&extra.ip_hash);
        }
        save(store, &mut rec)?;
        let body = Created {
            id: id.to_owned(),
            seat: side,
            token,
            state: rec.view(&game),
            ai_move,
            invite_url: invite.map(|inv| invite_link(origin, id, &inv)),
            ai: (req.mode == Mode::Ai).then(|| ai_info(ctx.ai, rec.level)),
        };
        let mut fx = effects(false, &rec);
        fx.created = true;
        Ok((ApiResponse::of(201, &body), fx, rec))
    })();
    finish(result)
}

fn finish(result: Result<(ApiResponse, Effects, GameRecord), ApiError>) -> Handled {
    match result {
        Ok((response, effects, rec)) => Handled { response, effects, record: Some(rec) },
        Err(e) => Handled { response: ApiResponse::error(&e), effects: Effects::default(), record: None },
    }
}

/// Which seat the request holds: by its bearer token, or else by its session's player
/// (a seat is bound to the player who took it; see [`crate::me_games::session_seat`]).
pub(crate) fn authorise_request(rec: &GameRecord, req: &ApiRequest, turn: Side) -> Result<Side, ApiError> {
    match (&req.bearer, &req.player) {
        (None, Some(p)) => crate::me_games::session_seat(rec, &p.id, turn),
        (bearer, _) => authorise(rec, bearer.as_deref()),
    }
}

/// Which seat a bearer token holds. 401 without a token, 403 with one that holds no seat.
/// Both seats are always compared, in constant time.
fn authorise(rec: &GameRecord, bearer: Option<&str>) -> Result<Side, ApiError> {
    let token = bearer.ok_or_else(|| {
        ApiError::new(
            ErrorCode::Unauthorized,
            "this request needs the seat token as 'Authorization: Bearer <token>'",
        )
    })?;
    let mut found = None;
    for side in Side::ALL {
        if let Some(h) = &rec.seat(side).token_hash {
            if tokens::matches(token, h) {
                found = Some(side);
            }
        }
    }
    found.ok_or_else(|| ApiError::new(ErrorCode::Forbidden, "this token holds no seat in this game"))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveBody {
    #[serde(rename = "move")]
    mv: String,
    ply: u16,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JoinBody {
    invite: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
enum DrawAction {
    Offer,
    Accept,
    Decline,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DrawBody {
    action: DrawAction,
}

/// Handles a public request already routed to this game (not the WebSocket upgrade,
/// which the glue does itself).
pub fn handle(store: &mut dyn GameStore, route: Route, req: &ApiRequest, ctx: &mut Ctx) -> Handled {
    let result = (|| {
        let (mut rec, mut game) = load(store)?;
        let was_finished = rec.result.is_some();
        match route {
            Route::Rematch => Err(ApiError::internal("a rematch is handled by the Durable Object's glue")),
            Route::State | Route::WebSocket => {
                Ok((ApiResponse::of(200, &rec.view(&game)), Effects::default(), rec))
            }
            Route::Record => Ok((ApiResponse::text(200, rec.record_text()), Effects::default(), rec)),
            Route::Join => {
                let body: JoinBody = parse_json(&req.body)?;
                if rec.mode != Mode::Link {
                    return Err(ApiError::new(
                        ErrorCode::NotALinkGame,
                        "only link games have a seat to join",
                    ));
                }
                if rec.result.is_some() {
                    return Err(ApiError::conflict(
                        ErrorCode::GameOver,
                        "the game is over: no one can join it",
                        rec.view(&game),
                    ));
                }
                let Some(invite_hash) = rec.invite_hash.clone() else {
                    return Err(ApiError::conflict(
                        ErrorCode::SeatTaken,
                        "the invited seat has already been claimed",
                        rec.view(&game),
                    ));
                };
                if !tokens::matches(&body.invite, &invite_hash) {
                    return Err(ApiError::new(
                        ErrorCode::BadInvite,
                        "this invite token is not valid for this game",
                    ));
                }
                let side = Side::ALL
                    .into_iter()
                    .find(|s| rec.seat(*s).token_hash.is_none())
                    .ok_or_else(|| ApiError::internal("no open seat"))?;
                if rec.rated {
                    let joiner = req.player.as_ref().filter(|p| p.linked).ok_or_else(|| {
                        ApiError::new(
                            ErrorCode::SignInRequired,
                            "this is a rated game: sign in with Discord to join it",
                        )
                    })?;
                    if rec.seat(side.opponent()).player.as_deref() == Some(joiner.id.as_str()) {
                        return Err(ApiError::new(
                            ErrorCode::SamePlayer,
                            "you cannot play a rated game against yourself",
                        ));
                    }
                }
                let token = ctx.rng.token()?;
                rec.seats[side.index()].token_hash = Some(tokens::hash(&token));
                rec.seats[side.index()].player = req.player.as_ref().map(|p| p.id.clone());
                rec.invite_hash = None;
                settle(&mut rec, &game, ctx.now, ctx.day_ms);
                upkeep::mark(&mut rec, ctx.now); // the joiner's player, in the index
                save(store, &mut rec)?;
                let body = Joined { id: rec.id.clone(), seat: side, token, state: rec.view(&game) };
                Ok((ApiResponse::of(200, &body), effects(was_finished, &rec), rec))
            }
            Route::Moves => {
                let side = authorise_request(&rec, req, game.position().turn())?;
                let body: MoveBody = parse_json(&req.body)?;
                let mv = Move::parse(&body.mv).map_err(|e| {
                    ApiError::new(
                        ErrorCode::BadMoveNotation,
                        format!("'{}': {e}", body.mv.chars().take(40).collect::<String>()),
                    )
                })?;
                // A retried identical submission gets the same answer and moves nothing.
                if let Some(last) = &rec.last_replies[side.index()] {
                    if last.ply == body.ply && last.mv == mv {
                        return Ok((ApiResponse::of(200, &last.body), Effects::default(), rec));
                    }
                }
                if let Some(late) = forfeit_first(store, &mut rec, &game, ctx.now)? {
                    return Ok(late);
                }
                if rec.result.is_some() {
                    return Err(ApiError::conflict(ErrorCode::GameOver, "the game is over", rec.view(&game)));
                }
                if !rec.seats_filled() {
                    return Err(ApiError::conflict(
                        ErrorCode::WaitingForOpponent,
                        "the invited player has not joined yet",
                        rec.view(&game),
                    ));
                }
                let pos = *game.position();
                if pos.turn() != side {
                    return Err(ApiError::conflict(
                        ErrorCode::NotYourTurn,
                        format!("it is {}'s turn", pos.turn()),
                        rec.view(&game),
                    ));
                }
                if body.ply != pos.ply() {
                    return Err(ApiError::conflict(
                        ErrorCode::StalePly,
                        format!("the game is at ply {}, not {}", pos.ply(), body.ply),
                        rec.view(&game),
                    ));
                }
                game.play(mv).map_err(|e| ApiError::new(ErrorCode::IllegalMove, e.to_string()))?;
                rec.moves.push(MoveEntry { mv, by: side, at: ctx.now });
                if rec.draw_offer == Some(side.opponent()) {
                    rec.draw_offer = None; // moving declines the opponent's offer
                }
                settle_stage(&mut rec, &game, ctx.now);
                let ai_move = ai_turn(&mut rec, &mut game, ctx)?;
                settle_stage(&mut rec, &game, ctx.now);
                settle(&mut rec, &game, ctx.now, ctx.day_ms);
                // The reply is part of the record it answers for (a retried move is answered
                // with it), so it is made before the save: it carries the saved version.
                let reply = Moved {
                    state: rec.view_as_saved(&game),
                    ai_move,
                    ai: (rec.mode == Mode::Ai).then(|| ai_info(ctx.ai, rec.level)),
                };
                let stored = serde_json::to_value(&reply)
                    .map_err(|e| ApiError::internal(format!("move reply not serialisable: {e}")))?;
                rec.last_replies[side.index()] = Some(LastReply { ply: body.ply, mv, body: stored });
                owe_result(&mut rec, was_finished, ctx.now);
                save(store, &mut rec)?;
                Ok((ApiResponse::of(200, &reply), effects(was_finished, &rec), rec))
            }
            Route::Takeback => {
                let side = authorise_request(&rec, req, game.position().turn())?;
                parse_empty(&req.body)?;
                if let Some(late) = forfeit_first(store, &mut rec, &game, ctx.now)? {
                    return Ok(late);
                }
                takeback(&mut rec, &mut game, side)?;
                settle(&mut rec, &game, ctx.now, ctx.day_ms);
                save(store, &mut rec)?;
                Ok((envelope(rec.view(&game)), effects(was_finished, &rec), rec))
            }
            Route::Abort => {
                authorise_request(&rec, req, game.position().turn())?;
                parse_empty(&req.body)?;
                if let Some(late) = forfeit_first(store, &mut rec, &game, ctx.now)? {
                    return Ok(late);
                }
                if rec.result.is_some() {
                    return Err(ApiError::conflict(ErrorCode::GameOver, "the game is over", rec.view(&game)));
                }
                if rec.stage.is_some() {
                    return Err(ApiError::conflict(
                        ErrorCode::NotAbortable,
                        "a story stage is left with Exit Stage",
                        rec.view(&game),
                    ));
                }
                if !abortable(&rec) {
                    return Err(ApiError::conflict(
                        ErrorCode::TooLateToAbort,
                        "a game can be aborted only until either side has played its second move; resign instead",
                        rec.view(&game),
                    ));
                }
                rec.result = Some(Finish::aborted(FinishReason::ByAPlayer, ctx.now));
                settle(&mut rec, &game, ctx.now, ctx.day_ms);
                owe_result(&mut rec, was_finished, ctx.now);
                save(store, &mut rec)?;
                Ok((envelope(rec.view(&game)), effects(was_finished, &rec), rec))
            }
            Route::Resign => {
                let side = authorise_request(&rec, req, game.position().turn())?;
                parse_empty(&req.body)?;
                if let Some(late) = forfeit_first(store, &mut rec, &game, ctx.now)? {
                    return Ok(late);
                }
                if rec.result.is_some() {
                    return Err(ApiError::conflict(ErrorCode::GameOver, "the game is over", rec.view(&game)));
                }
                rec.result = Some(Finish::win(side.opponent(), FinishReason::Resignation, ctx.now));
                settle(&mut rec, &game, ctx.now, ctx.day_ms);
                owe_result(&mut rec, was_finished, ctx.now);
                save(store, &mut rec)?;
                Ok((envelope(rec.view(&game)), effects(was_finished, &rec), rec))
            }
            Route::Draw => {
                let side = authorise_request(&rec, req, game.position().turn())?;
                let body: DrawBody = parse_json(&req.body)?;
                if let Some(late) = forfeit_first(store, &mut rec, &game, ctx.now)? {
                    return Ok(late);
                }
                if rec.result.is_some() {
                    return Err(ApiError::conflict(ErrorCode::GameOver, "the game is over", rec.view(&game)));
                }
                if rec.mode == Mode::Ai {
                    return Err(ApiError::new(
                        ErrorCode::DrawUnavailable,
                        "the AI does not agree to draws; play on or resign",
                    ));
                }
                let offered_to_me = rec.draw_offer == Some(side.opponent());
                match body.action {
                    DrawAction::Accept | DrawAction::Offer if offered_to_me => {
                        rec.result = Some(Finish::draw(FinishReason::Agreement, ctx.now));
                    }
                    DrawAction::Offer => {
                        if !rec.seats_filled() {
                            return Err(ApiError::conflict(
                                ErrorCode::WaitingForOpponent,
                                "the invited player has not joined yet",
                                rec.view(&game),
                            ));
                        }
                        if rec.draw_offer == Some(side) {
                            return Err(ApiError::conflict(
                                ErrorCode::DrawAlreadyOffered,
                                "you have already offered a draw",
                                rec.view(&game),
                            ));
                        }
                        rec.draw_offer = Some(side);
                    }
                    DrawAction::Accept | DrawAction::Decline => {
                        if !offered_to_me {
                            return Err(ApiError::conflict(
                                ErrorCode::NoDrawOffer,
                                "your opponent has not offered a draw",
                                rec.view(&game),
                            ));
                        }
                        rec.draw_offer = None;
                    }
                }
                let deadline = rec.deadline;
                settle(&mut rec, &game, ctx.now, ctx.day_ms);
                if rec.result.is_none() {
                    rec.deadline = deadline; // a draw offer does not restart the clock
                }
                owe_result(&mut rec, was_finished, ctx.now);
                save(store, &mut rec)?;
                Ok((envelope(rec.view(&game)), effects(was_finished, &rec), rec))
            }
        }
    })();
    finish(result)
}

/// Whether the game may still be aborted: neither side has played its second move.
pub fn abortable(rec: &GameRecord) -> bool {
    Side::ALL.into_iter().all(|side| rec.moves.iter().filter(|m| m.by == side).count() < 2)
}

/// "Exit Stage": the player leaves the story stage this game plays; the game ends as a
/// loss for them (reason `abandoned`) so the stage counts as not completed. Idempotent:
/// an already finished game is left as it is.
pub fn abandon(store: &mut dyn GameStore, player: &str, ctx: &mut Ctx) -> Handled {
    abandon_as(store, &[player], ctx)
}

/// [`abandon`] by a player known by several ids: its own and those of the guests merged
/// into it (a guest that started a stage and then signed in is still the stage's player).
pub fn abandon_as(store: &mut dyn GameStore, players: &[&str], ctx: &mut Ctx) -> Handled {
    end_stage(store, ctx, Some(players), |st, now| {
        Finish::win(st.player.opponent(), FinishReason::Abandoned, now)
    })
}

/// The Worker withdraws a game it created and never handed out, so that it does not stay
/// open (counted against the creation limits until it idled out): a story stage game
/// made first when the stage being played could not then be ended, or an accepted
/// challenge's game whose join failed or went unanswered (it may have seated the
/// accepter, who was told it failed: the challenge is offered again). It ends aborted
/// ("aborted: by a player"): nobody's win or loss, no stage result, no statistics.
/// Idempotent: an already finished game is left as it is.
pub fn withdraw(store: &mut dyn GameStore, ctx: &mut Ctx) -> Handled {
    end_game(store, ctx, |_, now| Ok(Finish::aborted(FinishReason::ByAPlayer, now)))
}

/// Ends a story stage game with `result` ([`abandon_as`]), checked to be the stage of one
/// of `players` when given. Idempotent: a finished game is left as it is.
fn end_stage(
    store: &mut dyn GameStore,
    ctx: &mut Ctx,
    players: Option<&[&str]>,
    result: impl FnOnce(&StageRef, i64) -> Finish,
) -> Handled {
    end_game(store, ctx, |rec, now| {
        let Some(st) = rec.stage.as_ref() else {
            return Err(ApiError::new(ErrorCode::NotAStage, "this game is not a story stage"));
        };
        if let Some(players) = players {
            if !rec.seat(st.player).player.as_deref().is_some_and(|p| players.contains(&p)) {
                return Err(ApiError::new(ErrorCode::Forbidden, "this stage is another player's"));
            }
        }
        Ok(result(st, now))
    })
}

/// Ends the game with the result `decide` gives (or its refusal, checked first, even for
/// a finished game). Idempotent: a finished game is left as it is.
fn end_game(
    store: &mut dyn GameStore,
    ctx: &mut Ctx,
    decide: impl FnOnce(&GameRecord, i64) -> Result<Finish, ApiError>,
) -> Handled {
    let result = (|| {
        let (mut rec, game) = load(store)?;
        let was_finished = rec.result.is_some();
        let finish = decide(&rec, ctx.now)?;
        if was_finished {
            return Ok((envelope(rec.view(&game)), Effects::default(), rec));
        }
        rec.result = Some(finish);
        settle(&mut rec, &game, ctx.now, ctx.day_ms);
        owe_result(&mut rec, was_finished, ctx.now);
        save(store, &mut rec)?;
        Ok((envelope(rec.view(&game)), effects(was_finished, &rec), rec))
    })();
    finish(result)
}

/// The Durable Object alarm for the deadline alone (no idle timers; see [`alarm_with`]).
pub fn alarm(store: &mut dyn GameStore, ctx: &mut Ctx) -> Handled {
    alarm_with(store, ctx, &Timers::deadline_only())
}

/// The Durable Object alarm, which serves every timer ([`upkeep::next_alarm`]): the side
/// to move loses when its deadline has passed; an idle game ends ([`upkeep::expire`]).
/// A pending outbox is the glue's to retry, and the glue arms the next alarm from the
/// record ([`upkeep::next_alarm`]).
pub fn alarm_with(store: &mut dyn GameStore, ctx: &mut Ctx, timers: &Timers) -> Handled {
    let result = (|| {
        let (mut rec, game) = load(store)?;
        if !upkeep::expire(&mut rec, ctx.now, timers) {
            return Ok((ApiResponse::of(200, &crate::http::Empty {}), Effects::default(), rec));
        }
        save(store, &mut rec)?;
        Ok((envelope(rec.view(&game)), effects(false, &rec), rec))
    })();
    finish(result)
}

/// A game that just finished owes D1 its result (marked in the same save).
fn owe_result(rec: &mut GameRecord, was_finished: bool, now: i64) {
    if !was_finished && rec.result.is_some() {
        upkeep::mark(rec, now);
    }
}

/// The clock is law: a move, draw action or resignation that arrives after the deadline
/// (before the alarm has run) first applies the time forfeit, saves it, and is answered
/// 409 `game_over` with the finished state.
fn forfeit_first(
    store: &mut dyn GameStore,
    rec: &mut GameRecord,
    game: &Game,
    now: i64,
) -> Result<Option<(ApiResponse, Effects, GameRecord)>, ApiError> {
    if !upkeep::deadline_passed(rec, now) {
        return Ok(None);
    }
    // Only the deadline is considered here (idle timers are the alarm's).
    upkeep::expire(rec, now, &Timers::deadline_only());
    save(store, rec)?;
    let err = ApiError::conflict(
        ErrorCode::GameOver,
        "the game is over: time ran out before this request",
        rec.view(game),
    );
    Ok(Some((ApiResponse::error(&err), effects(false, rec), rec.clone())))
}
