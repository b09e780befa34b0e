//! Games on every device: the seat a signed-in player's session holds in a game (so the
//! session may move for it without the seat token), and the player's game list
//! (`GET /api/me/games`) sorted by urgency. Pure: the Worker reads the rows from D1.

use engine::{Faction, Side};
use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ErrorCode};
use crate::model::{Controller, FinishReason, GameRecord, Mode};

/// The seat that `player`'s session holds in `rec`: a human seat bound to that player
/// that has been taken. If the player holds both seats (a game against themself), the
/// side to move. 403 when the session holds no seat.
pub fn session_seat(rec: &GameRecord, player: &str, turn: Side) -> Result<Side, ApiError> {
    let held: Vec<Side> = Side::ALL
        .into_iter()
        .filter(|s| {
            let seat = rec.seat(*s);
            seat.controller == Controller::Human
                && seat.token_hash.is_some()
                && seat.player.as_deref().is_some_and(|p| crate::tokens::same(p, player))
        })
        .collect();
    match held.as_slice() {
        [one] => Ok(*one),
        [_, _] => Ok(turn),
        _ => Err(ApiError::new(
            ErrorCode::Forbidden,
            "your session holds no seat in this game (send the seat token as 'Authorization: Bearer <token>')",
        )),
    }
}

/// Where an unfinished link game stands, as its own object answers (`paths::STATUS`):
/// what My games shows beside the D1 index row. Kept in the game's object only, so a
/// move writes nothing but that object.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GameStatus {
    /// The side to move (none once over).
    pub turn: Option<Side>,
    /// Every seat taken (false while the invited seat is open).
    pub seated: bool,
    pub deadline: Option<i64>,
    pub draw_offer: Option<Side>,
    pub plies: usize,
    /// The last move's time (the creation's before any).
    pub updated_at: i64,
}

impl GameStatus {
    pub fn of(rec: &GameRecord) -> GameStatus {
        GameStatus {
            turn: rec.result.is_none().then(|| rec.position.turn()),
            seated: rec.seats_filled(),
            deadline: rec.deadline,
            draw_offer: rec.draw_offer,
            plies: rec.moves.len(),
            updated_at: rec.moves.last().map_or(rec.created_at, |m| m.at),
        }
    }
}

impl Row {
    /// The row with its game's live status.
    pub fn with_status(mut self, st: &GameStatus) -> Row {
        let side = |s: Option<Side>| s.map(|s| s.name().to_owned());
        self.turn = side(st.turn);
        self.seated = Some(if st.seated { 1.0 } else { 0.0 });
        self.deadline = st.deadline.map(|d| d as f64);
        self.draw_offer = side(st.draw_offer);
        self.plies = Some(st.plies as f64);
        self.updated_at = Some(st.updated_at as f64);
        self
    }
}

/// One game of a player, as read from the D1 index (`games` and the players' names),
/// with a link game's live status from its object ([`GameStatus`]).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct Row {
    pub id: String,
    pub mode: String,
    pub south_faction: String,
    pub north_faction: String,
    pub south_player: Option<String>,
    pub north_player: Option<String>,
    pub south_name: Option<String>,
    pub north_name: Option<String>,
    pub days_per_move: Option<f64>,
    pub created_at: f64,
    pub finished_at: Option<f64>,
    pub result: Option<String>,
    pub winner: Option<String>,
    pub reason: Option<String>,
    pub plies: Option<f64>,
    /// From the game's object (link games, [`GameStatus`]): the side to move, its
    /// deadline, a draw offer.
    pub turn: Option<String>,
    /// 0 while a link game's invited seat is open (absent: unknown, taken as seated).
    pub seated: Option<f64>,
    pub deadline: Option<f64>,
    pub draw_offer: Option<String>,
    pub updated_at: Option<f64>,
}

/// Where a game stands for the player, most urgent first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// The player's move (or a draw offer to answer).
    YourTurn,
    /// The opponent's move.
    TheirTurn,
    /// A link game whose invite has not been accepted yet.
    Waiting,
    Finished,
}

/// A listed game: the row, the player's side and standing.
#[derive(Clone, Debug, PartialEq)]
pub struct Listed {
    pub row: Row,
    pub side: Side,
    pub standing: Standing,
}

fn side_name(s: Side) -> &'static str {
    match s {
        Side::South => "south",
        Side::North => "north",
    }
}

/// Classifies a row for `player` (None when the player holds no seat in it).
pub fn classify(row: Row, player: &str) -> Option<Listed> {
    let south = row.south_player.as_deref() == Some(player);
    let north = row.north_player.as_deref() == Some(player);
    let turn = match row.turn.as_deref() {
        Some("north") => Some(Side::North),
        Some("south") => Some(Side::South),
        _ => None,
    };
    let side = match (south, north) {
        (true, true) => turn.unwrap_or(Side::South),
        (true, false) => Side::South,
        (false, true) => Side::North,
        (false, false) => return None,
    };
    let standing = if row.result.is_some() {
        Standing::Finished
    } else if row.mode == "ai" {
        // The AI answers in the same request: an unfinished AI game waits for the player.
        Standing::YourTurn
    } else if row.seated == Some(0.0) {
        Standing::Waiting
    } else if turn == Some(side) || row.draw_offer.as_deref() == Some(side_name(side.opponent())) {
        Standing::YourTurn
    } else {
        Standing::TheirTurn
    };
    Some(Listed { row, side, standing })
}

/// Most urgent first: the player's turn (nearest deadline first, untimed games after the
/// timed ones, most recently active first), then the opponent's turn (nearest deadline
/// first), then invites not yet accepted, then finished games (most recent first).
pub fn sort_by_urgency(games: &mut [Listed]) {
    games.sort_by(|a, b| {
        let key = |g: &Listed| {
            let deadline = g.row.deadline.map_or(f64::INFINITY, |d| d);
            let recent = -(g.row.updated_at.or(g.row.finished_at).unwrap_or(g.row.created_at));
            (g.standing, deadline, recent)
        };
        let (sa, da, ra) = key(a);
        let (sb, db, rb) = key(b);
        sa.cmp(&sb).then(da.total_cmp(&db)).then(ra.total_cmp(&rb)).then_with(|| a.row.id.cmp(&b.row.id))
    });
}

/// `GET /api/me/games` (`{"games": [MyGame]}`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MyGames {
    pub games: Vec<MyGame>,
}

/// One game of the list (`MyGame` in the OpenAPI document).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MyGame {
    pub id: String,
    pub mode: Mode,
    /// The player's side.
    pub side: Side,
    pub south: Faction,
    pub north: Faction,
    pub opponent: Opponent,
    pub standing: Standing,
    pub your_turn: bool,
    /// The side to move (link games, from the game's object: [`GameStatus`]).
    pub turn: Option<Side>,
    pub deadline: Option<i64>,
    pub draw_offer: Option<Side>,
    pub days_per_move: Option<u32>,
    pub created_at: i64,
    pub finished_at: Option<i64>,
    /// The result line, once finished.
    pub result: Option<String>,
    pub winner: Option<Side>,
    pub reason: Option<FinishReason>,
    /// Plies played (each side's move counts one), where known: a link game's (from its
    /// object) and a finished game's; null for an unfinished AI game.
    pub plies: Option<u32>,
    /// When the last move was made (a link game with no move yet: its creation), else a
    /// finished game's end; null when unknown (an unfinished AI game). What "My games"
    /// dates an entry by.
    pub last_move_at: Option<i64>,
}

/// The other seat: the AI, or a person (unknown while the invite is open, or without a
/// session).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Opponent {
    Ai { ai: bool },
    Player { player_id: Option<String>, name: Option<String> },
}

/// A listed game as answered. The D1 row's text columns become the API's enums here; a
/// row whose factions the index should never hold (hand-edited) is left out, an unknown
/// side or reason reads as absent: a bad row is never a 500 for the whole list.
pub fn to_game(g: &Listed) -> Option<MyGame> {
    let r = &g.row;
    let (opp_id, opp_name) = match g.side {
        Side::South => (&r.north_player, &r.north_name),
        Side::North => (&r.south_player, &r.south_name),
    };
    let ai = r.mode == "ai";
    let opponent = if ai {
        Opponent::Ai { ai: true }
    } else {
        Opponent::Player { player_id: opp_id.clone(), name: opp_name.clone() }
    };
    let side = |s: &Option<String>| s.as_deref().and_then(parse::<Side>);
    Some(MyGame {
        id: r.id.clone(),
        mode: if ai { Mode::Ai } else { Mode::Link },
        side: g.side,
        south: parse(&r.south_faction)?,
        north: parse(&r.north_faction)?,
        opponent,
        standing: g.standing,
        your_turn: g.standing == Standing::YourTurn,
        turn: side(&r.turn),
        deadline: r.deadline.map(|d| d as i64),
        draw_offer: side(&r.draw_offer),
        days_per_move: r.days_per_move.map(|d| d as u32),
        created_at: r.created_at as i64,
        finished_at: r.finished_at.map(|d| d as i64),
        result: r.result.clone(),
        winner: side(&r.winner),
        reason: r.reason.as_deref().and_then(parse),
        plies: r.plies.map(|p| p as u32),
        last_move_at: r.updated_at.or(r.finished_at).map(|t| t as i64),
    })
}

/// A D1 text column as one of the API's enums (their serde spelling is the stored one).
fn parse<T: serde::de::DeserializeOwned>(s: &str) -> Option<T> {
    serde_json::from_value(serde_json::Value::String(s.to_owned())).ok()
}

/// The whole answer: games the player holds a seat in, classified and sorted.
pub fn list(rows: Vec<Row>, player: &str) -> MyGames {
    let mut games: Vec<Listed> = rows.into_iter().filter_map(|r| classify(r, player)).collect();
    sort_by_urgency(&mut games);
    MyGames { games: games.iter().filter_map(to_game).collect() }
}

/// How far back finished games are listed, and how many games at most.
pub const RECENT_MS: i64 = 14 * 86_400_000;
pub const MAX_GAMES: u32 = 100;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn row(id: &str, f: impl FnOnce(&mut Row)) -> Row {
        let mut r = Row {
            id: id.into(),
            mode: "link".into(),
            south_faction: "clockwork".into(),
            north_faction: "blades".into(),
            south_player: Some("me".into()),
            north_player: Some("you".into()),
            created_at: 1.0,
            turn: Some("south".into()),
            ..Row::default()
        };
        f(&mut r);
        r
    }

    #[test]
    fn standing_follows_turn_seats_offers_and_results() {
        let c = |r: Row| classify(r, "me").unwrap().standing;
        assert_eq!(c(row("a", |_| {})), Standing::YourTurn);
        assert_eq!(c(row("a", |r| r.turn = Some("north".into()))), Standing::TheirTurn);
        assert_eq!(
            c(row("a", |r| {
                r.turn = Some("north".into());
                r.draw_offer = Some("north".into());
            })),
            Standing::YourTurn,
            "a draw offer to answer"
        );
        assert_eq!(c(row("a", |r| r.seated = Some(0.0))), Standing::Waiting);
        assert_eq!(c(row("a", |r| r.north_player = None)), Standing::YourTurn, "an anonymous opponent");
        assert_eq!(c(row("a", |r| r.result = Some("draw: agreement".into()))), Standing::Finished);
        assert_eq!(
            c(row("a", |r| {
                r.mode = "ai".into();
                r.north_player = None;
                r.turn = None;
            })),
            Standing::YourTurn
        );
        let north = classify(row("a", |r| r.turn = Some("north".into())), "you").unwrap();
        assert_eq!((north.side, north.standing), (Side::North, Standing::YourTurn));
        assert!(classify(row("a", |_| {}), "stranger").is_none());
    }

    #[test]
    fn sorted_by_urgency() {
        let rows = vec![
            row("finished-old", |r| {
                r.result = Some("x".into());
                r.finished_at = Some(5.0);
            }),
            row("finished-new", |r| {
                r.result = Some("x".into());
                r.finished_at = Some(9.0);
            }),
            row("theirs", |r| {
                r.turn = Some("north".into());
                r.deadline = Some(10.0);
            }),
            row("mine-untimed", |r| r.updated_at = Some(3.0)),
            row("mine-late", |r| r.deadline = Some(500.0)),
            row("mine-soon", |r| r.deadline = Some(100.0)),
            row("waiting", |r| r.seated = Some(0.0)),
        ];
        let v = serde_json::to_value(list(rows, "me")).unwrap();
        let ids: Vec<&str> =
            v["games"].as_array().unwrap().iter().map(|g| g["id"].as_str().unwrap()).collect();
        assert_eq!(
            ids,
            ["mine-soon", "mine-late", "mine-untimed", "theirs", "waiting", "finished-new", "finished-old"]
        );
        assert_eq!(v["games"][0]["your_turn"], true);
        assert_eq!(v["games"][0]["opponent"]["player_id"], "you");
        assert_eq!(v["games"][3]["standing"], "their_turn");
    }

    #[test]
    fn a_listed_game_says_how_many_plies_and_when_the_last_move_was() {
        let live = row("live", |r| {
            r.plies = Some(7.0);
            r.updated_at = Some(50.0);
        });
        let done = row("done", |r| {
            r.result = Some("draw: agreement".into());
            r.plies = Some(12.0);
            r.finished_at = Some(90.0);
        });
        let ai = row("ai", |r| {
            r.mode = "ai".into();
            r.north_player = None;
        });
        let v = serde_json::to_value(list(vec![live, done, ai], "me")).unwrap();
        let by_id = |id: &str| v["games"].as_array().unwrap().iter().find(|g| g["id"] == id).unwrap().clone();
        assert_eq!(
            (by_id("live")["plies"].clone(), by_id("live")["last_move_at"].clone()),
            (7.into(), 50.into())
        );
        assert_eq!(
            (by_id("done")["plies"].clone(), by_id("done")["last_move_at"].clone()),
            (12.into(), 90.into())
        );
        assert!(
            by_id("ai")["plies"].is_null() && by_id("ai")["last_move_at"].is_null(),
            "unknown for an unfinished AI game"
        );
    }
}
