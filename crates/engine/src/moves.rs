//! The `Move` type and its notation (IAMN, docs/specification.md §8).
//!
//! A turn is one base move (origin → destination) and at most one ability. What kind of
//! base move it is (plain, capture, Dagger stab, Scales leap, Cog merge, Spring recoil)
//! follows from the piece and the board, exactly as the notation leaves it implicit, so
//! the type carries only what a player chooses.

use core::fmt;

use crate::types::Square;

/// The optional ability chosen after the base move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ability {
    /// Dial: send the enemy `target` back to the empty starting square `dest`.
    Recall { target: Square, dest: Square },
    /// Axe: destroy every piece on the three squares ahead.
    Slash,
    /// Magnet: pull the piece on `target` to the square next to the Magnet.
    Attract { target: Square },
    /// Torch: destroy the adjacent enemy on `target`.
    Burn { target: Square },
    /// Charged Mistress, after a capture: one more step to `to`.
    Sidestep { to: Square },
    /// Dagger arriving on its end row without capturing: destroy `target`.
    Assassinate { target: Square },
}

/// One turn: a base move plus at most one ability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    pub from: Square,
    /// The destination as written in IAMN: for a Dagger stab, a Scales capture and a Cog
    /// merge, the square of the captured (or merged) piece.
    pub to: Square,
    pub ability: Option<Ability>,
}

impl Move {
    pub const fn new(from: Square, to: Square) -> Move {
        Move { from, to, ability: None }
    }

    pub const fn with(from: Square, to: Square, ability: Ability) -> Move {
        Move { from, to, ability: Some(ability) }
    }

    /// Parses IAMN. Syntax only: whether the move is legal is the position's question.
    pub fn parse(s: &str) -> Result<Move, MoveParseError> {
        let bytes = s.as_bytes();
        if bytes.is_empty() {
            return Err(MoveParseError::Empty);
        }
        let (base, ability) = match s.split_once('/') {
            Some((b, a)) => (b, Some(a)),
            None => (s, None),
        };
        if base.len() != 4 || !base.is_ascii() {
            return Err(MoveParseError::BadBase(truncate(base)));
        }
        let from =
            Square::parse(&base[..2]).ok_or_else(|| MoveParseError::BadSquare(truncate(&base[..2])))?;
        let to = Square::parse(&base[2..]).ok_or_else(|| MoveParseError::BadSquare(truncate(&base[2..])))?;
        let ability = match ability {
            None => None,
            Some(a) => Some(parse_ability(a)?),
        };
        Ok(Move { from, to, ability })
    }
}

fn parse_ability(a: &str) -> Result<Ability, MoveParseError> {
    let (name, arg) = match a.split_once(':') {
        Some((n, arg)) => (n, Some(arg)),
        None => (a, None),
    };
    let square = |arg: Option<&str>| -> Result<Square, MoveParseError> {
        let arg = arg.ok_or_else(|| MoveParseError::MissingArgument(name_of(name)))?;
        Square::parse(arg).ok_or_else(|| MoveParseError::BadSquare(truncate(arg)))
    };
    match name {
        "slash" => match arg {
            None => Ok(Ability::Slash),
            Some(_) => Err(MoveParseError::UnexpectedArgument("slash")),
        },
        "attract" => Ok(Ability::Attract { target: square(arg)? }),
        "burn" => Ok(Ability::Burn { target: square(arg)? }),
        "sidestep" => Ok(Ability::Sidestep { to: square(arg)? }),
        "assassinate" => Ok(Ability::Assassinate { target: square(arg)? }),
        "recall" => {
            let arg = arg.ok_or(MoveParseError::MissingArgument("recall"))?;
            if arg.len() != 4 || !arg.is_ascii() {
                return Err(MoveParseError::BadRecall(truncate(arg)));
            }
            let target =
                Square::parse(&arg[..2]).ok_or_else(|| MoveParseError::BadSquare(truncate(&arg[..2])))?;
            let dest =
                Square::parse(&arg[2..]).ok_or_else(|| MoveParseError::BadSquare(truncate(&arg[2..])))?;
            Ok(Ability::Recall { target, dest })
        }
        _ => Err(MoveParseError::UnknownAbility(truncate(name))),
    }
}

fn name_of(name: &str) -> &'static str {
    match name {
        "attract" => "attract",
        "burn" => "burn",
        "sidestep" => "sidestep",
        "assassinate" => "assassinate",
        _ => "ability",
    }
}

/// Echo at most a short prefix of bad input back in an error.
fn truncate(s: &str) -> String {
    s.chars().take(16).collect()
}

impl core::str::FromStr for Move {
    type Err = MoveParseError;
    fn from_str(s: &str) -> Result<Move, MoveParseError> {
        Move::parse(s)
    }
}

impl fmt::Display for Ability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ability::Recall { target, dest } => write!(f, "recall:{target}{dest}"),
            Ability::Slash => f.write_str("slash"),
            Ability::Attract { target } => write!(f, "attract:{target}"),
            Ability::Burn { target } => write!(f, "burn:{target}"),
            Ability::Sidestep { to } => write!(f, "sidestep:{to}"),
            Ability::Assassinate { target } => write!(f, "assassinate:{target}"),
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)?;
        if let Some(a) = self.ability {
            write!(f, "/{a}")?;
        }
        Ok(())
    }
}

/// Why a string is not IAMN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveParseError {
    Empty,
    /// The part before `/` is not four characters `<from><to>`.
    BadBase(String),
    BadSquare(String),
    UnknownAbility(String),
    MissingArgument(&'static str),
    UnexpectedArgument(&'static str),
    BadRecall(String),
}

impl fmt::Display for MoveParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveParseError::Empty => f.write_str("empty move"),
            MoveParseError::BadBase(b) => {
                write!(f, "'{b}' is not <from><to> (two squares such as e2e3)")
            }
            MoveParseError::BadSquare(s) => write!(f, "'{s}' is not a square a1..i9"),
            MoveParseError::UnknownAbility(a) => write!(
                f,
                "unknown ability '{a}' (expected recall, slash, attract, burn, sidestep or assassinate)"
            ),
            MoveParseError::MissingArgument(a) => write!(f, "{a} needs ':<square>'"),
            MoveParseError::UnexpectedArgument(a) => write!(f, "{a} takes no argument"),
            MoveParseError::BadRecall(r) => {
                write!(f, "'recall:{r}' needs a target and a destination square, e.g. recall:f8c9")
            }
        }
    }
}

impl std::error::Error for MoveParseError {}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_form() {
        for s in [
            "e2e3",
            "d1d2/slash",
            "e4e6",
            "c3c4/attract:c8",
            "c1c2/recall:f8c9",
            "d4d5/burn:e6",
            "e5f6/sidestep:g6",
            "a8a9/assassinate:e1",
        ] {
            assert_eq!(Move::parse(s).unwrap().to_string(), s);
        }
    }

    #[test]
    fn rejects_malformed_moves_with_a_reason() {
        assert_eq!(Move::parse(""), Err(MoveParseError::Empty));
        assert!(matches!(Move::parse("e2"), Err(MoveParseError::BadBase(_))));
        assert!(matches!(Move::parse("E2E3"), Err(MoveParseError::BadSquare(_))));
        assert!(matches!(Move::parse("e2j3"), Err(MoveParseError::BadSquare(_))));
        assert!(matches!(Move::parse("e2e3/fly"), Err(MoveParseError::UnknownAbility(_))));
        assert!(matches!(Move::parse("e2e3/burn"), Err(MoveParseError::MissingArgument(_))));
        assert!(matches!(Move::parse("e2e3/slash:e4"), Err(MoveParseError::UnexpectedArgument(_))));
        assert!(matches!(Move::parse("e2e3/recall:f8"), Err(MoveParseError::BadRecall(_))));
        assert!(matches!(Move::parse("e2e3 "), Err(MoveParseError::BadBase(_))));
        assert!(matches!(Move::parse("e2e3/burn:e4/slash"), Err(MoveParseError::BadSquare(_))));
        assert!(matches!(Move::parse("é2e3"), Err(MoveParseError::BadBase(_))));
    }
}
