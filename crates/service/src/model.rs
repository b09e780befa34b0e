//! The stored game: what a game's Durable Object keeps, and the view sent to clients.

use engine::{result_text, Faction, Game, Move, Position, Side};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who plays the other seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The other seat is the AI.
    Ai,
    /// The other seat is claimed through the invite link.
    Link,
}

pub use crate::finish::{Finish, FinishReason};

/// Correspondence time controls: days per move.
pub const DAYS_PER_MOVE: [u32; 6] = [1, 2, 3, 5, 7, 14];

/// Where a game is: its invited seat still open, being played, or over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameStatus {
    /// A link game whose invited seat nobody has claimed yet.
    Waiting,
    Ongoing,
    Finished,
}

/// Who holds a seat: a person (by seat token or session) or the AI.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Controller {
    Human,
    Ai,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Seat {
    pub controller: Controller,
    /// SHA-256 of the seat token, once a human holds the seat.
    pub token_hash: Option<String>,
    /// The player (account) holding the seat, when the request came with a session.
    #[serde(default)]
    pub player: Option<String>,
}

/// A story stage being played in this game (see [`crate::story`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StageRef {
    pub story: String,
    /// 0-based.
    pub stage: usize,
    pub title: String,
    /// The player's side (the AI has the other).
    pub player: Side,
    pub goal: crate::story::Goal,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveEntry {
    #[serde(rename = "move")]
    pub mv: Move,
    pub by: Side,
    pub at: i64,
}

/// Side effects owed to D1 (the index row; once finished, the result, rating, story
/// stage and badge). Saved in the same write as the change that owes them, cleared only
/// after D1 has taken them (see [`crate::upkeep`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outbox {
    /// Bumped by every change that owes D1 a write: a flush clears only what it wrote.
    pub seq: u64,
    /// When it was marked, or when the last attempt failed.
    pub since: i64,
    /// Failed attempts so far (the retry backs off with them).
    pub attempts: u32,
    /// The creator's address hash for the index row (creation only).
    #[serde(default)]
    pub ip_hash: Option<String>,
}

/// The answer given to a move submission, kept so that a retried identical submission
/// gets the same answer without moving twice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LastReply {
    pub ply: u16,
    #[serde(rename = "move")]
    pub mv: Move,
    /// The answer (a `Moved`, made typed) as the JSON it was: stored so, it replays as it
    /// was sent even from a record an earlier version wrote, whose view may lack a field
    /// the typed view has now.
    pub body: Value,
}

/// Everything a game's Durable Object stores (one JSON document, written atomically).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    pub id: String,
    pub south: Faction,
    pub north: Faction,
    pub mode: Mode,
    pub start: Position,
    /// South's seat, then North's.
    pub seats: [Seat; 2],
    /// SHA-256 of the invite token while the link seat is open.
    pub invite_hash: Option<String>,
    pub days_per_move: Option<u32>,
    /// AI difficulty (ai games).
    #[serde(default)]
    pub level: Option<u8>,
    /// A rated link game: its result updates both players' ratings.
    #[serde(default)]
    pub rated: bool,
    /// The story stage this game plays, if any.
    #[serde(default)]
    pub stage: Option<StageRef>,
    pub created_at: i64,
    pub moves: Vec<MoveEntry>,
    pub result: Option<Finish>,
    /// When the side to move runs out of time (correspondence games, both seats taken).
    pub deadline: Option<i64>,
    pub draw_offer: Option<Side>,
    pub last_replies: [Option<LastReply>; 2],
    /// Denormalised for readers of the stored row: the current IAPN and how many times
    /// it has occurred (the replayed [`Game`] is the authority).
    pub position: Position,
    pub repetitions: usize,
    /// D1 writes this game still owes (crash-safe side effects).
    #[serde(default)]
    pub outbox: Option<Outbox>,
    /// The last outbox mark's number, kept after the outbox is cleared, so that marks
    /// never repeat: a flush still in flight for an old mark cannot clear a new one.
    #[serde(default)]
    pub last_mark: u64,
    /// After the game: a rematch offered, declined or agreed (see [`crate::rematch`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch: Option<Rematch>,
    /// The agreed rematch's capacity check (never in a view: it holds the address bucket).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch_admission: Option<RematchAdmission>,
    /// A move was taken back (a casual game against the AI): the game was assisted.
    #[serde(default)]
    pub assisted: bool,
    /// How many times the record was saved: every change of the game (a move, an offer, a
    /// claim, a rematch, a side effect written) raises it by one, so a reader orders two
    /// states by it. The moves alone cannot: an offer and its decline have the same moves.
    /// Records saved before it existed start at 0.
    #[serde(default)]
    pub version: u64,
}

impl GameRecord {
    /// A game at its start: no move, no result, no offer, no deadline, nothing owed; no
    /// invite, time control, level, stage or rating (set them with struct update syntax).
    pub fn new(
        id: &str,
        south: Faction,
        north: Faction,
        mode: Mode,
        seats: [Seat; 2],
        created_at: i64,
    ) -> GameRecord {
        let start = Position::start(south, north);
        GameRecord {
            id: id.to_owned(),
            south,
            north,
            mode,
            start,
            seats,
            invite_hash: None,
            days_per_move: None,
            level: None,
            rated: false,
            stage: None,
            created_at,
            moves: Vec::new(),
            result: None,
            deadline: None,
            draw_offer: None,
            last_replies: [None, None],
            position: start,
            repetitions: 1,
            outbox: None,
            last_mark: 0,
            rematch: None,
            rematch_admission: None,
            assisted: false,
            version: 0,
        }
    }

    /// The game replayed from the stored moves (the engine is the authority on the
    /// position, the repetition history and the rules result).
    pub fn replay(&self) -> Result<Game, String> {
        let mut game = Game::new(self.start);
        for (i, e) in self.moves.iter().enumerate() {
            game.play(e.mv)
                .map_err(|err| format!("stored move {} ({}) no longer replays: {err}", i + 1, e.mv))?;
        }
        Ok(game)
    }

    pub fn seat(&self, side: Side) -> &Seat {
        &self.seats[side.index()]
    }

    pub fn is_ai(&self, side: Side) -> bool {
        self.seat(side).controller == Controller::Ai
    }

    /// Both seats are held (AI seats always are).
    pub fn seats_filled(&self) -> bool {
        self.seats.iter().all(|s| s.controller == Controller::Ai || s.token_hash.is_some())
    }

    /// The stage's verdict so far (None outside story games).
    pub fn stage_verdict(&self, game: &Game) -> Option<crate::story::Verdict> {
        let st = self.stage.as_ref()?;
        let finish = self.result.as_ref().map(|f| (f.winner, f.reason));
        Some(crate::story::judge(&st.goal, st.player, game, finish))
    }

    pub fn status(&self) -> GameStatus {
        if self.result.is_some() {
            GameStatus::Finished
        } else if !self.seats_filled() {
            GameStatus::Waiting
        } else {
            GameStatus::Ongoing
        }
    }

    /// The public view: what anyone, spectators included, may see (never a token hash).
    pub fn view(&self, game: &Game) -> GameView {
        let pos = game.position();
        let seat = |side: Side| {
            let s = self.seat(side);
            SeatView {
                faction: pos.faction(side),
                player: s.controller,
                claimed: s.controller == Controller::Ai || s.token_hash.is_some(),
                player_id: s.player.clone(),
            }
        };
        let legal_moves: Vec<String> = if self.result.is_some() || !self.seats_filled() {
            Vec::new()
        } else {
            let mut v: Vec<String> = game.legal_moves().iter().map(Move::to_string).collect();
            v.sort();
            v
        };
        GameView {
            id: self.id.clone(),
            mode: self.mode,
            south: seat(Side::South),
            north: seat(Side::North),
            start: self.start,
            position: *pos,
            ply: pos.ply(),
            turn: pos.turn(),
            moves: self.moves.iter().map(|m| m.mv).collect(),
            legal_moves,
            status: self.status(),
            result: self.result.as_ref().map(|f| ResultView {
                text: f.text.clone(),
                winner: f.winner,
                reason: f.reason,
            }),
            rules_result: result_text(game.outcome()),
            days_per_move: self.days_per_move,
            level: self.level,
            deadline: self.deadline,
            draw_offer: self.draw_offer,
            created_at: self.created_at,
            rated: self.rated,
            rematch: self.rematch.clone(),
            synced: self.outbox.is_none(),
            stage: self.stage.as_ref().map(|st| StageView {
                story: st.story.clone(),
                stage: st.stage,
                title: st.title.clone(),
                player: st.player,
                goal: crate::story::goal_text(&st.goal),
                verdict: self.stage_verdict(game),
            }),
            assisted: self.assisted,
            version: self.version,
        }
    }

    /// The view this record will have once [`crate::store::GameStore::save_next`] has saved it (one
    /// version on), for an answer made before the save that stores it.
    pub fn view_as_saved(&self, game: &Game) -> GameView {
        GameView { version: self.version + 1, ..self.view(game) }
    }

    /// The text record (engine::record format).
    pub fn record_text(&self) -> String {
        let who = |side: Side| {
            let c = match self.seat(side).controller {
                Controller::Human => "human",
                Controller::Ai => "ai",
            };
            let f = if side == Side::South { self.south } else { self.north };
            format!("{f} ({c})")
        };
        let rec = engine::record::Record {
            tags: vec![
                ("id".into(), self.id.clone()),
                ("date".into(), crate::time::rfc3339(self.created_at)),
                ("south".into(), who(Side::South)),
                ("north".into(), who(Side::North)),
                ("mode".into(), format!("{:?}", self.mode).to_lowercase()),
            ]
            .into_iter()
            .chain(self.assisted.then(|| ("assisted".into(), "takeback".into())))
            .collect(),
            start: self.start,
            moves: self.moves.iter().map(|m| m.mv).collect(),
            result: self.result.as_ref().map_or_else(|| "ongoing".to_owned(), |f| f.text.clone()),
        };
        rec.to_string()
    }
}

/// A game as anyone, spectators included, may see it (`GameState` in the OpenAPI
/// document): the body of `GET /api/games/{id}`, the `state` of every answer about a game
/// and of its WebSocket messages. Never a token or its hash.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameView {
    pub id: String,
    pub mode: Mode,
    pub south: SeatView,
    pub north: SeatView,
    pub start: Position,
    pub position: Position,
    pub ply: u16,
    /// The side to move.
    pub turn: Side,
    pub moves: Vec<Move>,
    /// Sorted; empty once finished or while the invited seat is open.
    pub legal_moves: Vec<String>,
    pub status: GameStatus,
    pub result: Option<ResultView>,
    /// The rules' verdict on the position alone (`ongoing` when it has none).
    pub rules_result: String,
    pub days_per_move: Option<u32>,
    pub level: Option<u8>,
    pub deadline: Option<i64>,
    pub draw_offer: Option<Side>,
    pub created_at: i64,
    pub rated: bool,
    pub rematch: Option<Rematch>,
    /// Every side effect (index row, result, rating, story stage, badge) has reached D1;
    /// false while a write is owed (it is retried by the game's alarm).
    pub synced: bool,
    pub stage: Option<StageView>,
    /// A move was taken back in this game (a casual game against the AI).
    pub assisted: bool,
    /// The record's version ([`GameRecord::version`]): of two states of one game, the
    /// greater is the newer; equal versions are the same state.
    pub version: u64,
}

/// One seat in a [`GameView`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatView {
    pub faction: Faction,
    /// Who plays it.
    pub player: Controller,
    /// Held: always for the AI and the creator; the invited seat once someone joins.
    pub claimed: bool,
    /// The player (account) holding it, if it was taken with a session.
    pub player_id: Option<String>,
}

/// How a finished game ended, in a [`GameView`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultView {
    pub text: String,
    pub winner: Option<Side>,
    pub reason: FinishReason,
}

/// The story stage a game plays, in a [`GameView`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StageView {
    pub story: String,
    pub stage: usize,
    pub title: String,
    /// The player's side.
    pub player: Side,
    /// The goal in words.
    pub goal: String,
    pub verdict: Option<crate::story::Verdict>,
}

/// A game WebSocket's message (`StateMessage`): `{"type": "state", "state": …}`, sent at
/// once and after every change.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename = "state")]
pub struct StateMessage {
    pub state: GameView,
}

/// An agreed rematch game's passage through the capacity check, kept in the old game's
/// record ([`crate::sagas::rematch`]): begun at `since` for game `game`; `ip_hash` is the
/// address bucket it was admitted under (the new game's index row counts it there), `None`
/// while the check runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RematchAdmission {
    pub game: String,
    pub since: i64,
    #[serde(default)]
    pub ip_hash: Option<String>,
}

/// A finished game's rematch state (in the record, shown in the view; the rules that
/// change it are [`crate::rematch`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rematch {
    /// The side whose offer is pending.
    pub offered_by: Option<Side>,
    /// The side that declined the last offer.
    pub declined_by: Option<Side>,
    /// The rematch game, once agreed.
    pub game: Option<String>,
    /// An AI rematch asked to keep the player's faction: the factions change sides with
    /// the seats (else each seat keeps its side's faction, so the player plays the other).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_faction: bool,
}
