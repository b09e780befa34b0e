//! Open challenges: a player posts a challenge (factions or random, the poster's side,
//! days per move, rated or not) to a public list; anyone else accepts it (a rated one only
//! when signed in with Discord), which makes a link game with both seats taken. Bounded per
//! player ([`MAX_OPEN_PER_PLAYER`] open at once, [`MAX_POSTS_PER_HOUR`] posts an hour); a
//! challenge expires after its time to live. The Worker keeps them in D1.

use engine::Faction;
use serde::{Deserialize, Serialize};

use crate::create::{CreateGame, SeatChoice};
use crate::error::{ApiError, ErrorCode};
use crate::model::{Mode, DAYS_PER_MOVE};
use crate::tokens::Random;

/// Open challenges one player may have at once.
pub const MAX_OPEN_PER_PLAYER: u32 = 3;
/// Challenges one player may post in an hour.
pub const MAX_POSTS_PER_HOUR: u32 = 10;
/// How long a challenge stays open (the Worker's `CHALLENGE_SECONDS` overrides it).
pub const DEFAULT_TTL_S: u64 = 24 * 3600;

/// A faction, or `random` (drawn when the challenge is accepted).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FactionChoice {
    Clockwork,
    Blades,
    Axiom,
    Random,
}

impl FactionChoice {
    fn resolve(self, rng: &mut dyn Random) -> Result<Faction, ApiError> {
        Ok(match self {
            FactionChoice::Clockwork => Faction::Clockwork,
            FactionChoice::Blades => Faction::Blades,
            FactionChoice::Axiom => Faction::Axiom,
            FactionChoice::Random => Faction::ALL[rng.below(3)? as usize],
        })
    }
}

/// `POST /api/challenges` body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PostChallenge {
    pub south: FactionChoice,
    pub north: FactionChoice,
    /// The poster's side.
    #[serde(default = "random_seat")]
    pub seat: SeatChoice,
    #[serde(default)]
    pub days_per_move: Option<u32>,
    #[serde(default)]
    pub rated: bool,
}

/// An open challenge as listed (`Challenge` in the OpenAPI document).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChallengeView {
    pub id: String,
    pub poster: Poster,
    pub south: FactionChoice,
    pub north: FactionChoice,
    /// The poster's side.
    pub seat: SeatChoice,
    pub days_per_move: Option<u32>,
    pub rated: bool,
    pub created_at: i64,
    pub expires_at: i64,
}

/// Who posted a challenge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Poster {
    pub id: String,
    pub name: Option<String>,
}

/// `GET /api/challenges`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChallengeList {
    pub challenges: Vec<ChallengeView>,
}

/// The lobby WebSocket's message (`ChallengesMessage`): `{"type": "challenges", …}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename = "challenges")]
pub struct ChallengesMessage {
    pub challenges: Vec<ChallengeView>,
}

/// `201` to `POST /api/challenges`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Posted {
    pub challenge: ChallengeView,
}

/// `200` to `POST /api/challenges/{id}/accept`: the accepter's seat in the new game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Accepted {
    pub game: String,
    pub seat: engine::Side,
    pub token: String,
    pub state: crate::model::GameView,
}

/// `200` to `POST /api/challenges/{id}/cancel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Cancelled {
    pub cancelled: bool,
}

fn random_seat() -> SeatChoice {
    SeatChoice::Random
}

impl PostChallenge {
    pub fn parse(body: &[u8]) -> Result<PostChallenge, ApiError> {
        let c: PostChallenge = crate::http::parse_json(body)?;
        if let Some(d) = c.days_per_move.filter(|d| !DAYS_PER_MOVE.contains(d)) {
            return Err(ApiError::new(
                ErrorCode::InvalidTimeControl,
                format!("days_per_move must be one of {DAYS_PER_MOVE:?}, not {d}"),
            ));
        }
        Ok(c)
    }

    /// The link game an acceptance makes (random factions and side drawn now), with the
    /// poster as its creator.
    pub fn game(&self, rng: &mut dyn Random) -> Result<CreateGame, ApiError> {
        let seat = match self.seat {
            SeatChoice::Random if rng.below(2)? == 1 => SeatChoice::North,
            SeatChoice::Random => SeatChoice::South,
            s => s,
        };
        Ok(CreateGame {
            south: self.south.resolve(rng)?,
            north: self.north.resolve(rng)?,
            seat,
            mode: Mode::Link,
            days_per_move: self.days_per_move,
            level: None,
            rated: self.rated,
        })
    }
}

/// Whether `player` may post another challenge, given their open ones and their posts in
/// the last hour.
pub fn may_post(open: u32, posted_last_hour: u32) -> Result<(), ApiError> {
    if open >= MAX_OPEN_PER_PLAYER {
        return Err(ApiError::new(
            ErrorCode::TooManyChallenges,
            format!(
                "you already have {open} open challenges (at most {MAX_OPEN_PER_PLAYER}); cancel one first"
            ),
        ));
    }
    if posted_last_hour >= MAX_POSTS_PER_HOUR {
        return Err(ApiError::new(
            ErrorCode::RateLimited,
            "too many challenges posted this hour; please try again later",
        )
        .with_retry_after(3600));
    }
    Ok(())
}

/// Who may accept: not the poster; a rated challenge only a player signed in with Discord.
pub fn may_accept(poster: &str, player: &str, rated: bool, linked: bool) -> Result<(), ApiError> {
    if poster == player {
        return Err(ApiError::new(ErrorCode::OwnChallenge, "you cannot accept your own challenge"));
    }
    if rated && !linked {
        return Err(ApiError::new(
            ErrorCode::SignInRequired,
            "this is a rated challenge: sign in with Discord to accept it",
        ));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    struct Fixed(Vec<u8>);
    impl Random for Fixed {
        fn fill(&mut self, buf: &mut [u8]) -> Result<(), ApiError> {
            for b in buf {
                *b = self.0.pop().unwrap_or(0);
            }
            Ok(())
        }
    }

    #[test]
    fn parsing_and_resolving() {
        let c =
            PostChallenge::parse(br#"{"south": "random", "north": "axiom", "days_per_move": 3}"#).unwrap();
        assert_eq!((c.seat, c.rated), (SeatChoice::Random, false));
        assert_eq!(PostChallenge::parse(br#"{"south": "x", "north": "axiom"}"#).unwrap_err().status(), 400);
        assert_eq!(
            PostChallenge::parse(br#"{"south": "axiom", "north": "axiom", "days_per_move": 4}"#)
                .unwrap_err()
                .code,
            ErrorCode::InvalidTimeControl
        );
        let g = c.game(&mut Fixed(vec![0; 16])).unwrap();
        assert_eq!((g.mode, g.north, g.days_per_move), (Mode::Link, Faction::Axiom, Some(3)));
        assert!(matches!(g.seat, SeatChoice::South | SeatChoice::North));
    }

    #[test]
    fn bounds_and_who_may_accept() {
        assert!(may_post(2, 9).is_ok());
        assert_eq!(may_post(3, 0).unwrap_err().code, ErrorCode::TooManyChallenges);
        let busy = may_post(0, 10).unwrap_err();
        assert_eq!((busy.status(), busy.code, busy.retry_after), (429, ErrorCode::RateLimited, Some(3600)));
        assert_eq!(may_accept("a", "a", false, false).unwrap_err().code, ErrorCode::OwnChallenge);
        assert_eq!(may_accept("a", "b", true, false).unwrap_err().code, ErrorCode::SignInRequired);
        assert!(may_accept("a", "b", true, true).is_ok());
        assert!(may_accept("a", "b", false, false).is_ok());
    }
}
