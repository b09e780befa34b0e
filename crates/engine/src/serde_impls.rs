//! Optional serde support (feature `serde`): everything is written in the game's own
//! notations, so stored data stays readable and stable: factions and sides by name,
//! moves as IAMN, positions as IAPN, outcomes as result text.

use core::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::{iapn, Faction, Move, Position, Side};

struct TextVisitor<T>(&'static str, fn(&str) -> Option<T>);

impl<T> Visitor<'_> for TextVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        (self.1)(v).ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self.0))
    }
}

macro_rules! text_serde {
    ($t:ty, $expect:literal, $to:expr, $from:expr) => {
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let f: fn(&$t) -> String = $to;
                s.serialize_str(&f(self))
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                d.deserialize_str(TextVisitor($expect, $from))
            }
        }
    };
}

text_serde!(Faction, "clockwork, blades or axiom", |f| f.name().to_owned(), Faction::from_name);
text_serde!(Side, "south or north", |s| s.name().to_owned(), |s| match s {
    "south" => Some(Side::South),
    "north" => Some(Side::North),
    _ => None,
});
text_serde!(Move, "a move in IAMN", |m| m.to_string(), |s| Move::parse(s).ok());
text_serde!(Position, "a position in IAPN", iapn::format, |s| { iapn::parse(s).ok() });

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn values_use_the_notations() {
        let p = Position::start(Faction::Blades, Faction::Axiom);
        let v = serde_json::to_string(&(Faction::Blades, Side::North, Move::parse("e2e3/slash").unwrap(), p))
            .unwrap();
        assert!(v.starts_with(r#"["blades","north","e2e3/slash","blades axiom "#), "{v}");
        let back: (Faction, Side, Move, Position) = serde_json::from_str(&v).unwrap();
        assert_eq!(back.3, p);
        assert!(serde_json::from_str::<Faction>("\"robots\"").is_err());
    }
}
