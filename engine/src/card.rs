//! Cards as docs/rules.md#cards writes them: rank then suit (`7H`, `TD`), the joker `JK`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One of the four suits, written `C D H S`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suit {
    /// `C`
    Clubs,
    /// `D`
    Diamonds,
    /// `H`
    Hearts,
    /// `S`
    Spades,
}

impl Suit {
    /// All suits in index order.
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// The suit's letter.
    pub const fn char(self) -> char {
        self.name().as_bytes()[0] as char
    }

    /// The suit's letter as a string, as the service writes it.
    pub const fn name(self) -> &'static str {
        match self {
            Suit::Clubs => "C",
            Suit::Diamonds => "D",
            Suit::Hearts => "H",
            Suit::Spades => "S",
        }
    }

    /// Diamonds and hearts are red (red aces are wild in `may_i`).
    pub const fn is_red(self) -> bool {
        matches!(self, Suit::Diamonds | Suit::Hearts)
    }

    /// 0..4, for tables indexed by suit.
    pub const fn index(self) -> usize {
        self as usize
    }

    fn from_char(c: char) -> Option<Suit> {
        u8::try_from(c).ok().and_then(Suit::from_byte)
    }

    /// The suit of a letter, in either case.
    fn from_byte(b: u8) -> Option<Suit> {
        SUIT_BY_LETTER[usize::from(b)]
    }
}

/// A rank from ace to king. Whether an ace is low or high is a property of a run, not the card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rank {
    /// `A`
    Ace = 1,
    /// `2`
    Two,
    /// `3`
    Three,
    /// `4`
    Four,
    /// `5`
    Five,
    /// `6`
    Six,
    /// `7`
    Seven,
    /// `8`
    Eight,
    /// `9`
    Nine,
    /// `T` (input also accepts `10`)
    Ten,
    /// `J`
    Jack,
    /// `Q`
    Queen,
    /// `K`
    King,
}

impl Rank {
    /// All ranks, ace first.
    pub const ALL: [Rank; 13] = [
        Rank::Ace,
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
    ];

    /// 1 (ace) to 13 (king).
    pub const fn number(self) -> u8 {
        self as u8
    }

    /// The rank whose [`Rank::number`] is `n` (1..=13); 14 is the high ace.
    pub const fn from_number(n: u8) -> Option<Rank> {
        match n {
            1 | 14 => Some(Rank::Ace),
            2..=13 => Some(Rank::ALL[n as usize - 1]),
            _ => None,
        }
    }

    /// The rank's symbol as written in card names.
    pub const fn char(self) -> char {
        match self {
            Rank::Ace => 'A',
            Rank::Ten => 'T',
            Rank::Jack => 'J',
            Rank::Queen => 'Q',
            Rank::King => 'K',
            r => (b'0' + r as u8) as char,
        }
    }

    /// The rank a symbol names (`10` or one character, in either case).
    fn from_bytes(b: &[u8]) -> Option<Rank> {
        match *b {
            [c] => RANK_BY_SYMBOL[usize::from(c)],
            [b'1', b'0'] => Some(Rank::Ten),
            _ => None,
        }
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Rank {
    type Err = CardError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Rank::from_bytes(s.trim().as_bytes()).ok_or_else(|| CardError::UnknownRank(s.to_owned()))
    }
}

/// The rank each byte names as a one-character symbol, in either case: a card is named once per
/// card of every meld a batch validates, and a look-up costs no branch to mispredict.
const RANK_BY_SYMBOL: [Option<Rank>; 256] = {
    let mut table = [None; 256];
    let mut i = 0;
    while i < Rank::ALL.len() {
        let symbol = Rank::ALL[i].char() as u8;
        table[symbol as usize] = Some(Rank::ALL[i]);
        table[symbol.to_ascii_lowercase() as usize] = Some(Rank::ALL[i]);
        i += 1;
    }
    table
};

/// The suit each byte names, in either case (see [`RANK_BY_SYMBOL`]).
const SUIT_BY_LETTER: [Option<Suit>; 256] = {
    let mut table = [None; 256];
    let mut i = 0;
    while i < Suit::ALL.len() {
        let letter = Suit::ALL[i].char() as u8;
        table[letter as usize] = Some(Suit::ALL[i]);
        table[letter.to_ascii_lowercase() as usize] = Some(Suit::ALL[i]);
        i += 1;
    }
    table
};

/// A playing card. Several packs are shuffled together, so equal cards are interchangeable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Card {
    /// A card with a rank and a suit.
    Suited {
        /// Its rank.
        rank: Rank,
        /// Its suit.
        suit: Suit,
    },
    /// The joker, `JK`.
    Joker,
}

/// Number of distinct cards: 52 suited and the joker. Used to size count tables.
pub const DISTINCT_CARDS: usize = 53;

impl Card {
    /// The card at `value` of a run of `suit`: 1 is the low ace, 14 the high ace.
    pub(crate) fn in_run(value: u8, suit: Suit) -> Card {
        Card::new(Rank::from_number(value).unwrap_or(Rank::Ace), suit)
    }

    /// The joker.
    pub const JOKER: Card = Card::Joker;

    /// Every way a card is written in JSON (ranks and suits in either case; the service writes
    /// capitals and `T`).
    pub const PATTERN: &'static str = "^(?:(?:[2-9TJQKAtjqka]|10)[CDHScdhs]|[Jj][Kk])$";

    /// A suited card.
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card::Suited { rank, suit }
    }

    /// The rank, or `None` for the joker.
    pub const fn rank(self) -> Option<Rank> {
        match self {
            Card::Suited { rank, .. } => Some(rank),
            Card::Joker => None,
        }
    }

    /// The suit, or `None` for the joker.
    pub const fn suit(self) -> Option<Suit> {
        match self {
            Card::Suited { suit, .. } => Some(suit),
            Card::Joker => None,
        }
    }

    /// Whether this is the joker.
    pub const fn is_joker(self) -> bool {
        matches!(self, Card::Joker)
    }

    /// 0..53: suit-major index of suited cards, 52 for the joker.
    pub const fn index(self) -> usize {
        match self {
            Card::Suited { rank, suit } => suit.index() * 13 + rank as usize - 1,
            Card::Joker => 52,
        }
    }

    /// The card at [`Card::index`] `i`.
    ///
    /// # Panics
    /// If `i >= 53`.
    pub const fn from_index(i: usize) -> Card {
        assert!(i < DISTINCT_CARDS, "card index out of range");
        if i == 52 {
            Card::Joker
        } else {
            Card::Suited {
                rank: Rank::ALL[i % 13],
                suit: Suit::ALL[i / 13],
            }
        }
    }

    /// The 52 suited cards of one pack, clubs first, ace to king.
    pub fn suited() -> impl Iterator<Item = Card> {
        (0..52).map(Card::from_index)
    }
}

/// Every card's name, by [`Card::index`]: written as a whole, never built a letter at a time
/// (a response or a game's stored state holds hundreds of them).
const NAMES: [&str; DISTINCT_CARDS] = [
    "AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", //
    "AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", //
    "AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH", //
    "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS", //
    "JK",
];

/// Every rank's symbol, by [`Rank::number`] less one.
const RANK_NAMES: [&str; 13] = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];

impl Card {
    /// The card's name as the service writes it: rank then suit (`7H`, `TD`), or `JK`.
    pub const fn name(self) -> &'static str {
        NAMES[self.index()]
    }
}

impl Rank {
    /// The rank's symbol as a string (`A`, `7`, `T`).
    pub const fn name(self) -> &'static str {
        RANK_NAMES[self as usize - 1]
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a string is not a card or a rank.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CardError {
    /// Not a card name.
    #[error("unknown card {0:?}: write rank then suit, like 7H, TD, 10D or JK")]
    UnknownCard(String),
    /// Not a rank name.
    #[error("unknown rank {0:?}: use A, 2-9, T (or 10), J, Q or K")]
    UnknownRank(String),
}

impl CardError {
    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            CardError::UnknownCard(_) => "unknown_card",
            CardError::UnknownRank(_) => "unknown_rank",
        }
    }
}

impl Card {
    /// The card named exactly `name` (no spaces around it), as JSON takes it. Read as bytes:
    /// every card name is ASCII, and cards arrive by the thousand in validations.
    pub fn from_name(name: &[u8]) -> Option<Card> {
        match name {
            [j, k] if j.eq_ignore_ascii_case(&b'J') && k.eq_ignore_ascii_case(&b'K') => Some(Card::Joker),
            [rank @ .., suit] => Rank::from_bytes(rank)
                .zip(Suit::from_byte(*suit))
                .map(|(rank, suit)| Card::new(rank, suit)),
            [] => None,
        }
    }
}

impl FromStr for Card {
    type Err = CardError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Card::from_name(s.trim().as_bytes()).ok_or_else(|| CardError::UnknownCard(s.to_owned()))
    }
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // JSON takes the card as written, without the spaces a person's input may carry: what
        // it accepts is exactly `Card::PATTERN`.
        d.deserialize_str(FromText(|s: &str| {
            Card::from_name(s.as_bytes()).ok_or_else(|| CardError::UnknownCard(s.to_owned()))
        }))
    }
}

impl Serialize for Rank {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Rank {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(FromText(str::parse))
    }
}

impl Serialize for Suit {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_char(self.char())
    }
}

impl<'de> Deserialize<'de> for Suit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(FromText(|s: &str| {
            let mut it = s.chars();
            match (it.next().and_then(Suit::from_char), it.next()) {
                (Some(suit), None) => Ok(suit),
                _ => Err(format!("unknown suit {s:?}: use C, D, H or S")),
            }
        }))
    }
}

/// Reads a value from a JSON string without an owned copy of it: a validation parses a
/// card per element, and the copy was one allocation each.
struct FromText<F>(F);

impl<T, E: fmt::Display, F: FnOnce(&str) -> Result<T, E>> serde::de::Visitor<'_> for FromText<F> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<R: serde::de::Error>(self, s: &str) -> Result<T, R> {
        (self.0)(s).map_err(R::custom)
    }
}

/// Parses a list of card names, failing on the first unknown one.
///
/// # Errors
/// [`CardError::UnknownCard`] naming the first string that is not a card.
pub fn parse_cards<S: AsRef<str>>(names: &[S]) -> Result<Vec<Card>, CardError> {
    names.iter().map(|n| n.as_ref().parse()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_written_form_of_rules_1() {
        let rows = [
            ("7H", "7H", "rank then suit"),
            ("TD", "TD", "ten as T"),
            ("10D", "TD", "input also accepts 10"),
            ("jk", "JK", "joker, any case"),
            ("qs", "QS", "input is case-insensitive"),
            (" ac ", "AC", "surrounding space is ignored"),
        ];
        for (input, printed, why) in rows {
            let card: Card = input.parse().unwrap_or_else(|e| panic!("{why}: {e}"));
            assert_eq!(card.to_string(), printed, "{why}");
        }
    }

    #[test]
    fn refuses_anything_else_with_unknown_card() {
        for bad in [
            "", "1H", "11H", "HX", "7", "7X", "J", "JKK", "10", "0D", "ZZ", "7♥",
        ] {
            let err = bad.parse::<Card>().expect_err(bad);
            assert_eq!(err.code(), "unknown_card", "{bad}");
        }
    }

    #[test]
    fn every_name_is_rank_then_suit_and_reads_back() {
        for i in 0..DISTINCT_CARDS {
            let card = Card::from_index(i);
            let spelled = match card {
                Card::Suited { rank, suit } => format!("{}{}", rank.char(), suit.char()),
                Card::Joker => "JK".to_owned(),
            };
            assert_eq!(card.name(), spelled, "card {i}");
            assert_eq!(card.name().parse::<Card>(), Ok(card), "{spelled} reads back");
        }
        for rank in Rank::ALL {
            assert_eq!(rank.name(), rank.char().to_string());
        }
    }

    #[test]
    fn index_round_trips() {
        for i in 0..DISTINCT_CARDS {
            assert_eq!(Card::from_index(i).index(), i);
        }
    }

    #[test]
    fn serde_is_the_written_form() {
        let cards: Vec<Card> = serde_json::from_str(r#"["10h","JK","as"]"#).expect("cards");
        assert_eq!(
            serde_json::to_string(&cards).expect("json"),
            r#"["TH","JK","AS"]"#
        );
        assert!(serde_json::from_str::<Card>(r#""1Z""#).is_err());
        // JSON takes exactly `Card::PATTERN`: no spaces around the name.
        for padded in [r#"" 7H""#, r#""7H ""#, r#""\tJK""#] {
            assert!(serde_json::from_str::<Card>(padded).is_err(), "{padded}");
        }
    }
}
