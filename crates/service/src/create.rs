//! Game creation: the request, its validation, and the capacity rule.

use engine::{Faction, Side};
use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ErrorCode};
use crate::model::{Mode, DAYS_PER_MOVE};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SeatChoice {
    South,
    North,
    Random,
}

/// `POST /api/games` body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateGame {
    pub south: Faction,
    pub north: Faction,
    #[serde(default = "random_seat")]
    pub seat: SeatChoice,
    pub mode: Mode,
    #[serde(default)]
    pub days_per_move: Option<u32>,
    /// AI difficulty 1 (beginner) to 6 (strongest); `ai` games only. Default 4.
    #[serde(default)]
    pub level: Option<u8>,
    /// A rated link game between two players signed in with Discord.
    #[serde(default)]
    pub rated: bool,
}

fn random_seat() -> SeatChoice {
    SeatChoice::Random
}

impl CreateGame {
    pub fn parse(body: &[u8]) -> Result<CreateGame, ApiError> {
        let c: CreateGame = crate::http::parse_json(body)?;
        if let Some(d) = c.days_per_move {
            if !DAYS_PER_MOVE.contains(&d) {
                return Err(ApiError::new(
                    ErrorCode::InvalidTimeControl,
                    format!("days_per_move must be one of {DAYS_PER_MOVE:?}, not {d}"),
                ));
            }
        }
        if let Some(l) = c.level {
            if ai::level::level(l).is_none() {
                return Err(ApiError::new(
                    ErrorCode::InvalidLevel,
                    format!("level must be 1 to {}, not {l}", ai::level::LEVELS.len()),
                ));
            }
        }
        if c.rated && c.mode != Mode::Link {
            return Err(ApiError::new(ErrorCode::RatedNeedsLink, "only link games can be rated"));
        }
        Ok(c)
    }

    pub fn creator_side(&self, coin: bool) -> Side {
        match self.seat {
            SeatChoice::South => Side::South,
            SeatChoice::North => Side::North,
            SeatChoice::Random if coin => Side::North,
            SeatChoice::Random => Side::South,
        }
    }
}

/// Capacity limits (from the Worker's configuration). The per-minute rates are applied
/// atomically by the limiter Durable Object ([`crate::guard::hit`]); the counts of
/// unfinished games come from the D1 index ([`check_capacity`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// New games per client address bucket (IPv6 by /64) per minute.
    pub per_ip_per_minute: u32,
    /// New games overall per minute.
    pub overall_per_minute: u32,
    /// Unfinished games overall.
    pub max_active_games: u32,
    /// Unfinished games one creator's player may sit in.
    pub open_per_creator: u32,
    /// Unfinished games created from one address bucket (every guest of it together).
    pub open_per_address: u32,
    /// Joins per address bucket per minute.
    pub joins_per_ip_per_minute: u32,
    /// Moves in AI games (each costs the server a search) per address bucket per minute.
    pub ai_moves_per_ip_per_minute: u32,
    /// WebSocket connections per address bucket per minute, per game, and per address
    /// bucket in one game.
    pub ws_per_ip_per_minute: u32,
    pub ws_per_game: u32,
    pub ws_per_ip_per_game: u32,
    /// WebSocket connections open at once from one address bucket, over all games.
    pub ws_per_ip: u32,
    /// The AI's cost per address bucket per minute, in units of 11,250 positions
    /// ([`crate::admission::ai_cost`]: a level-4 move costs 10, a level-6 move 80): moves, openings
    /// and rematch openings against the AI.
    pub ai_cost_per_ip_per_minute: u32,
    /// AI moves being computed at once for one address bucket (over all its games).
    pub ai_searches_per_ip: u32,
    /// New guests (a player and a session, made by a first write without a session) per
    /// address bucket per minute: the fuel of every per-player limit.
    pub guests_per_ip_per_minute: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            per_ip_per_minute: 20,
            overall_per_minute: 600,
            max_active_games: 100_000,
            open_per_creator: 50,
            open_per_address: 200,
            joins_per_ip_per_minute: 30,
            ai_moves_per_ip_per_minute: 120,
            ws_per_ip_per_minute: 60,
            ws_per_game: 100,
            ws_per_ip_per_game: 8,
            ws_per_ip: 20,
            guests_per_ip_per_minute: 20,
            ai_cost_per_ip_per_minute: 1200,
            ai_searches_per_ip: 2,
        }
    }
}

/// A minute, for the per-minute rates.
pub const MINUTE_MS: i64 = 60_000;

/// What the Worker counted in the D1 index before creating a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Load {
    pub active_games: u32,
    /// Unfinished games created from this creator's address bucket.
    pub open_by_address: u32,
    /// Unfinished games this creator's player sits in (`None` without a session: the
    /// address bucket is then the creator).
    pub open_by_player: Option<u32>,
}

/// 503 `server_busy` with a `Retry-After` when a limit is reached.
pub fn check_capacity(load: Load, limits: Limits) -> Result<(), ApiError> {
    if load.active_games >= limits.max_active_games {
        return Err(crate::guard::busy("too many games in progress", 300));
    }
    if load.open_by_player.is_some_and(|n| n >= limits.open_per_creator) {
        return Err(crate::guard::busy(
            "you have too many unfinished games: finish, resign or abort some first",
            300,
        ));
    }
    // Fresh guests from one address share its count (a new cookie does not start afresh);
    // without a session the address is the creator, with the creator's cap.
    let address_cap = match load.open_by_player {
        Some(_) => limits.open_per_address,
        None => limits.open_per_address.min(limits.open_per_creator),
    };
    if load.open_by_address >= address_cap {
        return Err(crate::guard::busy(
            "too many unfinished games were created from your address: finish, resign or abort some first",
            300,
        ));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_validates() {
        let c =
            CreateGame::parse(br#"{"south":"clockwork","north":"axiom","mode":"link","days_per_move":3}"#)
                .unwrap();
        assert_eq!(c.seat, SeatChoice::Random);
        assert_eq!(c.days_per_move, Some(3));
        let e =
            CreateGame::parse(br#"{"south":"clockwork","north":"axiom","mode":"link","days_per_move":4}"#)
                .unwrap_err();
        assert_eq!((e.status(), e.code), (422, ErrorCode::InvalidTimeControl));
        let e = CreateGame::parse(br#"{"south":"robots","north":"axiom","mode":"ai"}"#).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidBody);
        assert!(e.message.contains("robots"), "{}", e.message);
        let e = CreateGame::parse(br#"{"south":"clockwork""#).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidJson);
        let e = CreateGame::parse(br#"{"south":"clockwork","north":"axiom","mode":"ai","x":1}"#).unwrap_err();
        assert!(e.message.contains("unknown field"));
        let e = CreateGame::parse(&vec![b' '; 10_000]).unwrap_err();
        assert_eq!(e.status(), 413);
        let e = CreateGame::parse(br#"{"south":"clockwork","north":"axiom","mode":"ai","rated":true}"#)
            .unwrap_err();
        assert_eq!((e.status(), e.code), (422, ErrorCode::RatedNeedsLink));
        assert!(
            CreateGame::parse(br#"{"south":"clockwork","north":"axiom","mode":"link","rated":true}"#)
                .unwrap()
                .rated
        );
    }

    #[test]
    fn capacity_limits_answer_server_busy() {
        let limits =
            Limits { max_active_games: 10, open_per_creator: 3, open_per_address: 5, ..Limits::default() };
        assert!(check_capacity(Load::default(), limits).is_ok());
        let mine = Load { active_games: 9, open_by_player: Some(2), open_by_address: 4 };
        assert!(check_capacity(mine, limits).is_ok());
        let cookieless = Load { open_by_address: 3, ..Load::default() };
        assert!(
            check_capacity(cookieless, limits).is_err(),
            "without a session the address has the creator's cap"
        );
        for load in [
            Load { open_by_player: Some(3), ..Load::default() },
            Load { open_by_address: 5, ..Load::default() },
            Load { active_games: 10, ..Load::default() },
        ] {
            let e = check_capacity(load, limits).unwrap_err();
            assert_eq!((e.status(), e.code), (503, ErrorCode::ServerBusy));
            assert!(e.retry_after.is_some());
        }
    }
}
