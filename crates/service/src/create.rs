//! Game creation: the request, its validation, and the capacity rule.

use engine::{Faction, Side};
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
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
                    422,
                    "invalid_time_control",
                    format!("days_per_move must be one of {DAYS_PER_MOVE:?}, not {d}"),
                ));
            }
        }
        if let Some(l) = c.level {
            if ai::level::level(l).is_none() {
                return Err(ApiError::new(
                    422,
                    "invalid_level",
                    format!("level must be 1 to {}, not {l}", ai::level::LEVELS.len()),
                ));
            }
        }
        if c.rated && c.mode != Mode::Link {
            return Err(ApiError::new(422, "rated_needs_link", "only link games can be rated"));
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

/// Capacity limits for game creation (from the Worker's configuration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub per_ip_per_minute: u32,
    pub overall_per_minute: u32,
    pub max_active_games: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { per_ip_per_minute: 20, overall_per_minute: 600, max_active_games: 100_000 }
    }
}

/// What the Worker counted before creating a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Load {
    pub created_last_minute_by_ip: u32,
    pub created_last_minute: u32,
    pub active_games: u32,
}

/// 503 `server_busy` with a `Retry-After` when a limit is reached.
pub fn check_capacity(load: Load, limits: Limits) -> Result<(), ApiError> {
    let busy = |why: &str, retry: u32| ApiError {
        retry_after: Some(retry),
        ..ApiError::new(
            503,
            "server_busy",
            format!("The server is too busy to set up new games ({why}); please try again later."),
        )
    };
    if load.active_games >= limits.max_active_games {
        return Err(busy("too many games in progress", 300));
    }
    if load.created_last_minute >= limits.overall_per_minute {
        return Err(busy("too many new games this minute", 60));
    }
    if load.created_last_minute_by_ip >= limits.per_ip_per_minute {
        return Err(busy("too many new games from your address this minute", 60));
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
        assert_eq!((e.status, e.code), (422, "invalid_time_control"));
        let e = CreateGame::parse(br#"{"south":"robots","north":"axiom","mode":"ai"}"#).unwrap_err();
        assert_eq!(e.code, "invalid_body");
        assert!(e.message.contains("robots"), "{}", e.message);
        let e = CreateGame::parse(br#"{"south":"clockwork""#).unwrap_err();
        assert_eq!(e.code, "invalid_json");
        let e = CreateGame::parse(br#"{"south":"clockwork","north":"axiom","mode":"ai","x":1}"#).unwrap_err();
        assert!(e.message.contains("unknown field"));
        let e = CreateGame::parse(&vec![b' '; 10_000]).unwrap_err();
        assert_eq!(e.status, 413);
        let e = CreateGame::parse(br#"{"south":"clockwork","north":"axiom","mode":"ai","rated":true}"#)
            .unwrap_err();
        assert_eq!((e.status, e.code), (422, "rated_needs_link"));
        assert!(
            CreateGame::parse(br#"{"south":"clockwork","north":"axiom","mode":"link","rated":true}"#)
                .unwrap()
                .rated
        );
    }

    #[test]
    fn capacity_limits_answer_server_busy() {
        let limits = Limits { per_ip_per_minute: 2, overall_per_minute: 5, max_active_games: 10 };
        assert!(check_capacity(Load::default(), limits).is_ok());
        for load in [
            Load { created_last_minute_by_ip: 2, ..Load::default() },
            Load { created_last_minute: 5, ..Load::default() },
            Load { active_games: 10, ..Load::default() },
        ] {
            let e = check_capacity(load, limits).unwrap_err();
            assert_eq!((e.status, e.code), (503, "server_busy"));
            assert!(e.retry_after.is_some());
        }
    }
}
