//! Small `Copy` types with checked constructors: sides, factions, roles, pieces, squares.

use core::fmt;

/// One of the two players. South starts on ranks 1–2 and moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    South,
    North,
}

impl Side {
    pub const ALL: [Side; 2] = [Side::South, Side::North];

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline]
    #[must_use]
    pub const fn opponent(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// Rank step that is "forward" for this side (+1 towards rank 9 for South).
    #[inline]
    pub const fn forward(self) -> i8 {
        match self {
            Side::South => 1,
            Side::North => -1,
        }
    }

    /// The rank farthest from this side (0-based: 8 for South, 0 for North).
    #[inline]
    pub const fn end_rank(self) -> u8 {
        match self {
            Side::South => 8,
            Side::North => 0,
        }
    }

    /// The side's back rank in its setup (0-based).
    #[inline]
    pub const fn back_rank(self) -> u8 {
        match self {
            Side::South => 0,
            Side::North => 8,
        }
    }

    /// The side's front ("pawn") rank in its setup (0-based).
    #[inline]
    pub const fn front_rank(self) -> u8 {
        match self {
            Side::South => 1,
            Side::North => 7,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Side::South => "south",
            Side::North => "north",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One of the three piece sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Faction {
    Clockwork,
    Blades,
    Axiom,
}

impl Faction {
    pub const ALL: [Faction; 3] = [Faction::Clockwork, Faction::Blades, Faction::Axiom];

    pub const fn name(self) -> &'static str {
        match self {
            Faction::Clockwork => "clockwork",
            Faction::Blades => "blades",
            Faction::Axiom => "axiom",
        }
    }

    pub fn from_name(s: &str) -> Option<Faction> {
        Faction::ALL.into_iter().find(|f| f.name() == s)
    }

    /// The faction's king-piece.
    pub const fn king(self) -> Role {
        match self {
            Faction::Clockwork => Role::FatherTime,
            Faction::Blades => Role::Mistress,
            Faction::Axiom => Role::Scientist,
        }
    }

    /// Every role this faction can have on the board (the Gear included for Clockwork).
    pub const fn roles(self) -> &'static [Role] {
        match self {
            Faction::Clockwork => &[
                Role::Cog,
                Role::Gear,
                Role::Pendulum,
                Role::Spring,
                Role::Hands,
                Role::Dial,
                Role::FatherTime,
            ],
            Faction::Blades => {
                &[Role::Dagger, Role::Axe, Role::Sickle, Role::Sabres, Role::Sword, Role::Mistress]
            }
            Faction::Axiom => {
                &[Role::Phial, Role::Magnet, Role::Torch, Role::Scales, Role::Telescope, Role::Scientist]
            }
        }
    }
}

impl fmt::Display for Faction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A piece type. The discriminants (1..=19) are the board's cell encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Role {
    // Clockwork
    Cog = 1,
    Gear,
    Pendulum,
    Spring,
    Hands,
    Dial,
    FatherTime,
    // Blades
    Dagger,
    Axe,
    Sickle,
    Sabres,
    Sword,
    Mistress,
    // Axiom
    Phial,
    Magnet,
    Torch,
    Scales,
    Telescope,
    Scientist,
}

impl Role {
    pub const ALL: [Role; 19] = [
        Role::Cog,
        Role::Gear,
        Role::Pendulum,
        Role::Spring,
        Role::Hands,
        Role::Dial,
        Role::FatherTime,
        Role::Dagger,
        Role::Axe,
        Role::Sickle,
        Role::Sabres,
        Role::Sword,
        Role::Mistress,
        Role::Phial,
        Role::Magnet,
        Role::Torch,
        Role::Scales,
        Role::Telescope,
        Role::Scientist,
    ];

    /// 0-based index into [`Role::ALL`].
    #[inline]
    pub const fn index(self) -> usize {
        self as usize - 1
    }

    #[inline]
    pub(crate) const fn from_code(code: u8) -> Role {
        Role::ALL[(code - 1) as usize]
    }

    pub const fn faction(self) -> Faction {
        match self {
            Role::Cog
            | Role::Gear
            | Role::Pendulum
            | Role::Spring
            | Role::Hands
            | Role::Dial
            | Role::FatherTime => Faction::Clockwork,
            Role::Dagger | Role::Axe | Role::Sickle | Role::Sabres | Role::Sword | Role::Mistress => {
                Faction::Blades
            }
            _ => Faction::Axiom,
        }
    }

    pub const fn is_king(self) -> bool {
        matches!(self, Role::FatherTime | Role::Mistress | Role::Scientist)
    }

    /// Only Cogs, Daggers, Phials and the Mistress carry the charged flag.
    pub const fn is_chargeable(self) -> bool {
        matches!(self, Role::Cog | Role::Dagger | Role::Phial | Role::Mistress)
    }

    /// The IAPN letter (uppercase; North writes it in lowercase).
    pub const fn letter(self) -> char {
        match self {
            Role::Cog => 'C',
            Role::Gear => 'G',
            Role::Pendulum => 'P',
            Role::Spring => 'S',
            Role::Hands => 'H',
            Role::Dial => 'D',
            Role::FatherTime => 'F',
            Role::Dagger => 'D',
            Role::Axe => 'A',
            Role::Sickle => 'K',
            Role::Sabres => 'B',
            Role::Sword => 'W',
            Role::Mistress => 'M',
            Role::Phial => 'P',
            Role::Magnet => 'M',
            Role::Torch => 'T',
            Role::Scales => 'B',
            Role::Telescope => 'L',
            Role::Scientist => 'S',
        }
    }

    /// The role a (uppercase) letter names within a faction, if any.
    pub fn from_letter(faction: Faction, upper: char) -> Option<Role> {
        faction.roles().iter().copied().find(|r| r.letter() == upper)
    }

    pub const fn name(self) -> &'static str {
        match self {
            Role::Cog => "Cog",
            Role::Gear => "Gear",
            Role::Pendulum => "Pendulum",
            Role::Spring => "Spring",
            Role::Hands => "Hands",
            Role::Dial => "Dial",
            Role::FatherTime => "Father Time",
            Role::Dagger => "Dagger",
            Role::Axe => "Axe",
            Role::Sickle => "Sickle",
            Role::Sabres => "Sabres",
            Role::Sword => "Sword",
            Role::Mistress => "The Mistress",
            Role::Phial => "Phial",
            Role::Magnet => "Magnet",
            Role::Torch => "Torch",
            Role::Scales => "Scales",
            Role::Telescope => "Telescope",
            Role::Scientist => "The Scientist",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A piece on the board: whose it is, what it is, and whether it is charged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub side: Side,
    pub role: Role,
    pub charged: bool,
}

impl Piece {
    /// The IAPN letter: uppercase for South, lowercase for North.
    pub fn char(self) -> char {
        let c = self.role.letter();
        match self.side {
            Side::South => c,
            Side::North => c.to_ascii_lowercase(),
        }
    }
}

/// A square of the 9×9 board, 0..81, index = rank * 9 + file (a1 = 0, i9 = 80).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    pub const COUNT: usize = 81;

    #[inline]
    pub const fn new(index: u8) -> Option<Square> {
        if index < 81 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// `file` and `rank` are 0-based (a = 0, rank 1 = 0).
    #[inline]
    pub const fn from_coords(file: u8, rank: u8) -> Option<Square> {
        if file < 9 && rank < 9 {
            Some(Square(rank * 9 + file))
        } else {
            None
        }
    }

    #[inline]
    pub(crate) const fn from_index_unchecked(index: u8) -> Square {
        debug_assert!(index < 81);
        Square(index)
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub const fn file(self) -> u8 {
        self.0 % 9
    }

    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 / 9
    }

    /// The square `(df, dr)` away, if it is on the board.
    #[inline]
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        if f >= 0 && f < 9 && r >= 0 && r < 9 {
            Some(Square((r * 9 + f) as u8))
        } else {
            None
        }
    }

    /// Chebyshev distance (king steps).
    #[inline]
    pub const fn distance(self, other: Square) -> u8 {
        let df = self.file().abs_diff(other.file());
        let dr = self.rank().abs_diff(other.rank());
        if df > dr {
            df
        } else {
            dr
        }
    }

    /// Parses `a1`..`i9` (lowercase only).
    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        Square::parse_bytes(b[0], b[1])
    }

    pub(crate) fn parse_bytes(file: u8, rank: u8) -> Option<Square> {
        if (b'a'..=b'i').contains(&file) && (b'1'..=b'9').contains(&rank) {
            Square::from_coords(file - b'a', rank - b'1')
        } else {
            None
        }
    }

    /// All squares in IAPN board order: rank 9 first, files a→i.
    pub fn board_order() -> impl Iterator<Item = Square> {
        (0..9u8).rev().flat_map(|r| (0..9u8).map(move |f| Square(r * 9 + f)))
    }

    /// Position in IAPN board order (rank 9 first, a→i); used to order charged squares.
    #[inline]
    pub const fn board_order_key(self) -> u8 {
        (8 - self.rank()) * 9 + self.file()
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank() + 1)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn squares_round_trip_through_text() {
        for i in 0..81 {
            let sq = Square::new(i).unwrap();
            assert_eq!(Square::parse(&sq.to_string()), Some(sq));
        }
        assert_eq!(Square::parse("a1").unwrap().index(), 0);
        assert_eq!(Square::parse("i9").unwrap().index(), 80);
        for bad in ["", "a", "a0", "j1", "A1", "a10", "11"] {
            assert_eq!(Square::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn letters_are_unique_within_a_faction() {
        for f in Faction::ALL {
            for r in f.roles() {
                assert_eq!(r.faction(), f);
                assert_eq!(Role::from_letter(f, r.letter()), Some(*r));
            }
        }
    }

    #[test]
    fn chebyshev_distance() {
        let a = Square::parse("a1").unwrap();
        assert_eq!(a.distance(Square::parse("c2").unwrap()), 2);
        assert_eq!(a.distance(Square::parse("i9").unwrap()), 8);
    }
}
