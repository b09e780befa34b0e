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
    /// Unfinished games one creator (its player, or without a session its address
    /// bucket) may have.
    pub open_per_creator: u32,
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
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            per_ip_per_minute: 20,
            overall_per_minute: 600,
            max_active_games: 100_000,
            open_per_creator: 50,
            joins_per_ip_per_minute: 30,
            ai_moves_per_ip_per_minute: 120,
            ws_per_ip_per_minute: 60,
            ws_per_game: 100,
            ws_per_ip_per_game: 8,
            ws_per_ip: 20,
        }
    }
}

/// A minute, for the per-minute rates.
pub const MINUTE_MS: i64 = 60_000;

/// What the Worker counted in the D1 index before creating a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Load {
    pub active_games: u32,
    /// Unfinished games of this creator.
    pub open_by_creator: u32,
}

/// 503 `server_busy` with a `Retry-After` when a limit is reached.
pub fn check_capacity(load: Load, limits: Limits) -> Result<(), ApiError> {
    if load.active_games >= limits.max_active_games {
        return Err(crate::guard::busy("too many games in progress", 300));
    }
    if load.open_by_creator >= limits.open_per_creator {
        return Err(crate::guard::busy(
            "you have too many unfinished games: finish, resign or abort some first",
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
        let limits = Limits { max_active_games: 10, open_per_creator: 3, ..Limits::default() };
        assert!(check_capacity(Load::default(), limits).is_ok());
        assert!(check_capacity(Load { active_games: 9, open_by_creator: 2 }, limits).is_ok());
        for load in
            [Load { open_by_creator: 3, ..Load::default() }, Load { active_games: 10, ..Load::default() }]
        {
            let e = check_capacity(load, limits).unwrap_err();
            assert_eq!((e.status(), e.code), (503, ErrorCode::ServerBusy));
            assert!(e.retry_after.is_some());
        }
    }
}
