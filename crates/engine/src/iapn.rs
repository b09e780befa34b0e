//! Position notation (IAPN, docs/specification.md §7): parse into a [`Setup`], validate into a
//! [`Position`]; format back. `format(parse(s)) == s` for every accepted string.

use core::fmt;

use crate::position::{decode, Position, PositionError, Setup, MAX_PLY};
use crate::types::{Faction, Piece, Role, Side, Square};

/// A position shows as its IAPN (here, beside the notation, so `position` needs no
/// import of it).
impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", format(self))
    }
}

/// Why a string is not a valid IAPN position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParsePositionError {
    /// Not six fields separated by single spaces (or leading/trailing/double spaces).
    Fields {
        found: usize,
    },
    StraySpace,
    UnknownFaction(String),
    /// The board does not have 9 ranks separated by `/`.
    RankCount {
        found: usize,
    },
    /// A rank (1–9, as written on the board) does not describe 9 squares.
    RankWidth {
        rank: u8,
    },
    /// Two digits in a row in a rank.
    ConsecutiveDigits {
        rank: u8,
    },
    /// The digit `0` in a rank.
    ZeroDigit {
        rank: u8,
    },
    /// A character that is not a piece of that side's faction.
    UnknownLetter {
        letter: char,
        square: Square,
        side: Side,
        faction: Faction,
    },
    /// A Gear (`G`/`g`) for a side that is not Clockwork.
    GearNotClockwork {
        square: Square,
        side: Side,
    },
    SideToMove(String),
    /// The charged field is not `-` or comma-separated squares.
    ChargedSyntax(String),
    /// Charged squares not in board order (rank 9 first, a→i) or repeated.
    ChargedOrder(Square),
    /// A charged square holds no piece, or one that cannot be charged.
    ChargedEmpty(Square),
    /// The ply is not a plain number 0–160 (no sign, no leading zero).
    Ply(String),
    /// The board breaks a rule of the game (more than one king-piece, …).
    Invalid(PositionError),
}

impl fmt::Display for ParsePositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ParsePositionError::*;
        match self {
            Fields { found } => write!(
                f,
                "expected 6 fields separated by single spaces (south faction, north faction, board, side to move, charged, ply), found {found}"
            ),
            StraySpace => f.write_str("stray space: fields are separated by exactly one space, with none before or after"),
            UnknownFaction(s) => write!(f, "unknown faction '{s}' (expected clockwork, blades or axiom)"),
            RankCount { found } => write!(f, "the board has {found} ranks separated by '/', expected 9"),
            RankWidth { rank } => write!(f, "rank {rank} does not describe exactly 9 squares"),
            ConsecutiveDigits { rank } => write!(f, "rank {rank} has two digits in a row"),
            ZeroDigit { rank } => write!(f, "rank {rank} contains the digit 0"),
            UnknownLetter { letter, square, side, faction } => write!(
                f,
                "'{letter}' on {square} is not a {faction} piece letter for {side}"
            ),
            GearNotClockwork { square, side } => {
                write!(f, "Gear on {square}, but {side} does not play clockwork")
            }
            SideToMove(s) => write!(f, "side to move '{s}' must be 's' or 'n'"),
            ChargedSyntax(s) => write!(f, "charged field '{s}' must be '-' or squares separated by commas"),
            ChargedOrder(s) => write!(f, "charged square {s} is out of board order (rank 9 first, a to i) or repeated"),
            ChargedEmpty(s) => write!(f, "charged square {s} does not hold a Cog, Dagger, Phial or Mistress"),
            Ply(s) => write!(f, "ply '{s}' must be a number 0-160 without sign or leading zero"),
            Invalid(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ParsePositionError {}

impl From<PositionError> for ParsePositionError {
    fn from(e: PositionError) -> Self {
        ParsePositionError::Invalid(e)
    }
}

fn clip(s: &str) -> String {
    s.chars().take(24).collect()
}

/// Parses IAPN text into an unvalidated [`Setup`] (syntax and faction letters only).
pub fn parse_setup(text: &str) -> Result<Setup, ParsePositionError> {
    let fields: Vec<&str> = text.split(' ').collect();
    if fields.iter().any(|f| f.is_empty()) {
        return Err(if fields.len() == 1 {
            ParsePositionError::Fields { found: 0 }
        } else {
            ParsePositionError::StraySpace
        });
    }
    if fields.len() != 6 {
        return Err(ParsePositionError::Fields { found: fields.len() });
    }
    let faction = |s: &str| Faction::from_name(s).ok_or_else(|| ParsePositionError::UnknownFaction(clip(s)));
    let factions = [faction(fields[0])?, faction(fields[1])?];

    let ranks: Vec<&str> = fields[2].split('/').collect();
    if ranks.len() != 9 {
        return Err(ParsePositionError::RankCount { found: ranks.len() });
    }
    let mut board: [Option<Piece>; 81] = [None; 81];
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = 8 - i as u8; // 0-based
        let label = rank + 1;
        let mut file: u8 = 0;
        let mut prev_digit = false;
        for ch in rank_text.chars() {
            if let Some(d) = ch.to_digit(10) {
                if d == 0 {
                    return Err(ParsePositionError::ZeroDigit { rank: label });
                }
                if prev_digit {
                    return Err(ParsePositionError::ConsecutiveDigits { rank: label });
                }
                prev_digit = true;
                file = file.saturating_add(d as u8);
                if file > 9 {
                    return Err(ParsePositionError::RankWidth { rank: label });
                }
                continue;
            }
            prev_digit = false;
            if file >= 9 {
                return Err(ParsePositionError::RankWidth { rank: label });
            }
            let Some(square) = Square::from_coords(file, rank) else {
                return Err(ParsePositionError::RankWidth { rank: label });
            };
            let side = if ch.is_ascii_uppercase() { Side::South } else { Side::North };
            let fac = factions[side.index()];
            let upper = ch.to_ascii_uppercase();
            let role = match Role::from_letter(fac, upper) {
                Some(r) if ch.is_ascii_alphabetic() => r,
                _ if upper == 'G' => {
                    return Err(ParsePositionError::GearNotClockwork { square, side });
                }
                _ => {
                    return Err(ParsePositionError::UnknownLetter { letter: ch, square, side, faction: fac });
                }
            };
            board[square.index()] = Some(Piece { side, role, charged: false });
            file += 1;
        }
        if file != 9 {
            return Err(ParsePositionError::RankWidth { rank: label });
        }
    }

    let turn = match fields[3] {
        "s" => Side::South,
        "n" => Side::North,
        other => return Err(ParsePositionError::SideToMove(clip(other))),
    };

    if fields[4] != "-" {
        let mut last: Option<u8> = None;
        for part in fields[4].split(',') {
            let square =
                Square::parse(part).ok_or_else(|| ParsePositionError::ChargedSyntax(clip(fields[4])))?;
            let key = square.board_order_key();
            if last.is_some_and(|l| key <= l) {
                return Err(ParsePositionError::ChargedOrder(square));
            }
            last = Some(key);
            match &mut board[square.index()] {
                Some(p) if p.role.is_chargeable() => p.charged = true,
                _ => return Err(ParsePositionError::ChargedEmpty(square)),
            }
        }
    }

    let ply_text = fields[5];
    let ply_ok = !ply_text.is_empty()
        && ply_text.len() <= 3
        && ply_text.bytes().all(|b| b.is_ascii_digit())
        && (ply_text == "0" || !ply_text.starts_with('0'));
    let ply: u16 = match ply_text.parse() {
        Ok(p) if ply_ok && p <= MAX_PLY => p,
        _ => return Err(ParsePositionError::Ply(clip(ply_text))),
    };

    Ok(Setup { factions, board, turn, ply })
}

/// Parses and validates IAPN.
pub fn parse(text: &str) -> Result<Position, ParsePositionError> {
    Ok(Position::from_setup(&parse_setup(text)?)?)
}

/// Formats a position as IAPN.
pub fn format(pos: &Position) -> String {
    let mut s = String::with_capacity(96);
    s.push_str(pos.factions[0].name());
    s.push(' ');
    s.push_str(pos.factions[1].name());
    s.push(' ');
    for rank in (0..9u8).rev() {
        let mut empty = 0u8;
        for file in 0..9u8 {
            match decode(pos.board[(rank * 9 + file) as usize]) {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        s.push((b'0' + empty) as char);
                        empty = 0;
                    }
                    s.push(p.char());
                }
            }
        }
        if empty > 0 {
            s.push((b'0' + empty) as char);
        }
        if rank > 0 {
            s.push('/');
        }
    }
    s.push(' ');
    s.push(if pos.turn == Side::South { 's' } else { 'n' });
    s.push(' ');
    let charged: Vec<String> = Square::board_order()
        .filter(|&sq| pos.piece_at(sq).is_some_and(|p| p.charged))
        .map(|sq| sq.to_string())
        .collect();
    if charged.is_empty() {
        s.push('-');
    } else {
        s.push_str(&charged.join(","));
    }
    s.push(' ');
    s.push_str(&pos.ply.to_string());
    s
}

impl core::str::FromStr for Position {
    type Err = ParsePositionError;
    fn from_str(s: &str) -> Result<Position, ParsePositionError> {
        parse(s)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format(self))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const CW_BL: &str = "clockwork blades wkbamabkw/ddddddddd/9/9/9/9/9/CCCCCCCCC/PSDHFHDSP s - 0";

    #[test]
    fn the_rules_example_is_the_clockwork_blades_start() {
        let p = parse(CW_BL).unwrap();
        assert_eq!(p, Position::start(Faction::Clockwork, Faction::Blades));
        assert_eq!(format(&p), CW_BL);
    }

    #[test]
    fn charged_squares_round_trip_in_board_order() {
        let s = "blades axiom 9/2p1s4/9/l2m1m1p1/4A4/2D3D2/9/1W2M4/9 n c4,g4 0";
        assert_eq!(format(&parse(s).unwrap()), s);
    }

    fn err(s: &str) -> ParsePositionError {
        parse(s).unwrap_err()
    }

    #[test]
    fn rejects_each_malformation_with_its_own_reason() {
        use ParsePositionError as E;
        let b = "wkbamabkw/ddddddddd/9/9/9/9/9/CCCCCCCCC/PSDHFHDSP";
        assert!(matches!(err(""), E::Fields { .. }));
        assert!(matches!(err(&format!("clockwork blades {b} s -")), E::Fields { found: 5 }));
        assert_eq!(err(&format!("clockwork blades {b} s - 0 ")), E::StraySpace);
        assert_eq!(err(&format!(" clockwork blades {b} s - 0")), E::StraySpace);
        assert_eq!(err(&format!("clockwork  blades {b} s - 0")), E::StraySpace);
        assert!(matches!(err(&format!("clock blades {b} s - 0")), E::UnknownFaction(_)));
        assert!(matches!(err("clockwork blades 9/9 s - 0"), E::RankCount { found: 2 }));
        assert!(matches!(
            err("clockwork blades wkbamabkw/dddddddd/9/9/9/9/9/CCCCCCCCC/PSDHFHDSP s - 0"),
            E::RankWidth { rank: 8 }
        ));
        assert!(matches!(
            err("clockwork blades wkbamabkw/ddddddddd/9/9/45/9/9/CCCCCCCCC/PSDHFHDSP s - 0"),
            E::ConsecutiveDigits { rank: 5 }
        ));
        assert!(matches!(
            err("clockwork blades wkbamabkw/ddddddddd/9/9/09/9/9/CCCCCCCCC/PSDHFHDSP s - 0"),
            E::ZeroDigit { rank: 5 }
        ));
        assert!(matches!(
            err("clockwork blades wkbamabkw/ddddddddd/9/9/X8/9/9/CCCCCCCCC/PSDHFHDSP s - 0"),
            E::UnknownLetter { letter: 'X', .. }
        ));
        // A Blades letter for the Clockwork side.
        assert!(matches!(
            err("clockwork blades wkbamabkw/ddddddddd/9/9/W8/9/9/CCCCCCCCC/PSDHFHDSP s - 0"),
            E::UnknownLetter { letter: 'W', .. }
        ));
        assert!(matches!(
            err("clockwork blades wkbamabkw/ddddddddd/9/9/g8/9/9/CCCCCCCCC/PSDHFHDSP s - 0"),
            E::GearNotClockwork { side: Side::North, .. }
        ));
        assert!(matches!(
            err("clockwork blades wkbamabkw/ddddddddd/9/9/m8/9/9/CCCCCCCCC/PSDHFHDSP s - 0"),
            E::Invalid(PositionError::TooManyKings { side: Side::North })
        ));
        assert!(matches!(err(&format!("clockwork blades {b} x - 0")), E::SideToMove(_)));
        assert!(matches!(err(&format!("clockwork blades {b} s e5 0")), E::ChargedEmpty(_)));
        assert!(matches!(err(&format!("clockwork blades {b} s e1 0")), E::ChargedEmpty(_)));
        assert!(matches!(err(&format!("clockwork blades {b} s a2,a8 0")), E::ChargedOrder(_)));
        assert!(matches!(err(&format!("clockwork blades {b} s a8,a8 0")), E::ChargedOrder(_)));
        assert!(matches!(err(&format!("clockwork blades {b} s a8, 0")), E::ChargedSyntax(_)));
        for ply in ["+1", "-1", "01", "161", "1000", "x", "1.0"] {
            assert!(matches!(err(&format!("clockwork blades {b} s - {ply}")), E::Ply(_)), "{ply}");
        }
        assert!(parse(&format!("clockwork blades {b} s a8,b2 160")).is_ok());
    }

    #[test]
    fn finished_positions_parse_and_have_no_moves() {
        // North has no king-piece.
        let p = parse("clockwork blades 9/9/9/9/9/9/9/9/4F4 n - 3").unwrap();
        assert_eq!(p.outcome().map(|o| o.to_string()).as_deref(), Some("south wins: king destroyed"));
        assert!(p.legal_moves().is_empty());
        // Father Time on its end row.
        let p = parse("clockwork blades 4F4/9/9/9/9/9/9/9/4m4 n - 3").unwrap();
        assert_eq!(p.outcome().map(|o| o.to_string()).as_deref(), Some("south wins: timeout"));
        assert!(p.legal_moves().is_empty());
        // Ply 160.
        let p = parse("clockwork blades 4m4/9/9/9/9/9/9/9/4F4 s - 160").unwrap();
        assert_eq!(p.outcome().map(|o| o.to_string()).as_deref(), Some("draw: 160 plies"));
        assert!(p.legal_moves().is_empty());
    }
}
