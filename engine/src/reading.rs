//! Reading melds: every legal way a bunch of cards can lie on the table (docs/rules.md#readings).
//!
//! A [`ProposedMeld`] is what a player or client submits: cards in any order, maybe a kind,
//! maybe what some wilds represent. It is not a meld. The only way to a [`Reading`] is
//! [`analyse`] (or the extension methods on [`Reading`]), which check every rule.
//!
//! Wilds inside a run fill its inner gaps in the order they were submitted, so the only choice
//! a run's wilds leave is which end the surplus ones go to.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use strum::IntoEnumIterator;

use crate::bounded::{MAX_CARDS, MAX_WILDS, at_most};
use crate::card::{Card, CardError, DISTINCT_CARDS, Rank, Suit};
use crate::ruleset::{RanklessSet, Ruleset, WildLimit, WildSwap};
pub use crate::vocabulary::MeldKind;

/// Longest possible run: ace to king.
pub const MAX_RUN: usize = 13;

/// Readings past this many are not listed: no real meld comes near it.
const MAX_READINGS: usize = 512;

/// What a card in a meld stands for. Written `"5H"` (exactly that card, in runs), `"5"` (any
/// five, in sets) or `"*"` (anything: the wilds of a wild trio).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stands {
    /// Exactly this suited card (a place in a run).
    Card(Card),
    /// A card of this rank (a place in a set).
    Rank(Rank),
    /// Anything: a wild in an all-wild set.
    Any,
}

impl fmt::Display for Stands {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stands::Card(c) => c.fmt(f),
            Stands::Rank(r) => r.fmt(f),
            Stands::Any => f.write_str("*"),
        }
    }
}

impl FromStr for Stands {
    type Err = CardError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        if t == "*" {
            return Ok(Stands::Any);
        }
        if let Ok(rank) = t.parse::<Rank>() {
            return Ok(Stands::Rank(rank));
        }
        match t.parse::<Card>() {
            Ok(Card::Joker) | Err(_) => Err(CardError::UnknownCard(s.to_owned())),
            Ok(card) => Ok(Stands::Card(card)),
        }
    }
}

impl Serialize for Stands {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Stands {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        // As for cards: JSON takes exactly what `Stands::PATTERN` describes.
        if s.trim() != s {
            return Err(serde::de::Error::custom(CardError::UnknownCard(s.into_owned())));
        }
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl Stands {
    /// The designation as the service writes it: a card (`7H`), a rank (`7`) or `*`.
    pub const fn name(self) -> &'static str {
        match self {
            Stands::Card(c) => c.name(),
            Stands::Rank(r) => r.name(),
            Stands::Any => "*",
        }
    }

    /// Every way a designation is written in JSON: a suited card, a rank, or `*`.
    pub const PATTERN: &'static str = "^(?:\\*|(?:[2-9TJQKAtjqka]|10)[CDHScdhs]?)$";
}

/// One card in a meld and what it represents there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Slot {
    /// The card lying there.
    pub card: Card,
    /// What it represents.
    pub represents: Stands,
    /// Whether it counts as natural: a natural card, or a wild representing exactly itself.
    pub natural: bool,
}

/// A wild card's designation in a request: `{"card": "JK", "represents": "5H"}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Designation {
    /// A wild card of the meld.
    #[cfg_attr(feature = "utoipa", schema(example = "JK"))]
    pub card: Card,
    /// What it stands for: a card (`"7H"`, in runs), a rank (`"7"`, in sets) or `"*"`.
    #[cfg_attr(feature = "utoipa", schema(example = "7H"))]
    pub represents: Stands,
}

/// A meld as submitted: not yet checked against any rule.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ProposedMeld {
    /// The cards, in any order, like `["5H", "6H", "JK", "8H"]`.
    #[serde(deserialize_with = "at_most::<MAX_CARDS, _, _>")]
    #[cfg_attr(feature = "utoipa", schema(example = json!(["5H", "6H", "JK", "8H"]), max_items = 40))]
    pub cards: Vec<Card>,
    /// `set` or `run`, when the player fixes the kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(example = "run"))]
    pub kind: Option<MeldKind>,
    /// What some (or all) wilds represent, when the player fixes a reading.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "at_most::<MAX_WILDS, _, _>"
    )]
    #[cfg_attr(feature = "utoipa", schema(max_items = 20))]
    pub wilds: Vec<Designation>,
}

impl ProposedMeld {
    /// A proposal of just these cards.
    pub fn of(cards: &[Card]) -> ProposedMeld {
        ProposedMeld {
            cards: cards.to_vec(),
            ..ProposedMeld::default()
        }
    }
}

/// A legal way the cards of a meld lie: its kind, its rank or suit, and what every card
/// represents. Runs list their slots from low to high.
///
/// It has one shape wherever it is written (a table meld, an event, a validation, a stored
/// game). What it counts (its naturals, a run's first value) is derived
/// from the slots again when it is read.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(try_from = "ReadingShape")]
pub struct Reading {
    kind: MeldKind,
    rank: Option<Rank>,
    suit: Option<Suit>,
    /// For a run: the value of its first slot, 1 (low ace) to 14 (high ace).
    low: Option<u8>,
    slots: Vec<Slot>,
    naturals: usize,
    wilds: usize,
}

/// A legal way the cards of a meld lie: its kind, its rank or suit, and what every card
/// represents (how a [`Reading`] is written).
#[derive(Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
struct ReadingShape {
    /// `set` or `run`.
    #[cfg_attr(feature = "utoipa", schema(example = "run"))]
    kind: MeldKind,
    /// A set's rank (absent for runs and for a set of wilds alone).
    #[serde(default)]
    rank: Option<Rank>,
    /// A run's suit (absent for sets).
    #[serde(default)]
    suit: Option<Suit>,
    /// The cards in table order (runs low to high).
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(required = true))]
    cards: Vec<Card>,
    /// Every card with what it represents, in table order.
    slots: Vec<Slot>,
}

impl TryFrom<ReadingShape> for Reading {
    type Error = &'static str;

    fn try_from(shape: ReadingShape) -> Result<Reading, &'static str> {
        let low = match shape.kind {
            MeldKind::Set => None,
            MeldKind::Run => match shape.slots.first().map(|s| s.represents) {
                Some(Stands::Card(card)) => card.rank().map(Rank::number),
                _ => return Err("a run's first slot names the card it represents"),
            },
        };
        if shape.slots.is_empty() {
            return Err("a reading has at least one card");
        }
        // Games stored by earlier versions hold no `cards`: the slots alone say them.
        if !shape.cards.is_empty() && !shape.cards.iter().eq(shape.slots.iter().map(|s| &s.card)) {
            return Err("a reading's cards are its slots' cards");
        }
        Ok(Reading::new(shape.kind, shape.rank, shape.suit, low, shape.slots))
    }
}

impl Serialize for Reading {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;

        /// The slots' cards, written as a list without collecting them.
        struct Cards<'a>(&'a [Slot]);
        impl Serialize for Cards<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.iter().map(|slot| slot.card))
            }
        }

        let mut out = s.serialize_struct("Reading", 5)?;
        out.serialize_field("kind", &self.kind)?;
        match self.rank {
            Some(rank) => out.serialize_field("rank", &rank)?,
            None => out.skip_field("rank")?,
        }
        match self.suit {
            Some(suit) => out.serialize_field("suit", &suit)?,
            None => out.skip_field("suit")?,
        }
        out.serialize_field("cards", &Cards(&self.slots))?;
        out.serialize_field("slots", &self.slots)?;
        out.end()
    }
}

#[cfg(feature = "utoipa")]
impl utoipa::PartialSchema for Reading {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        ReadingShape::schema()
    }
}

#[cfg(feature = "utoipa")]
impl utoipa::ToSchema for Reading {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Reading")
    }

    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
        ReadingShape::schemas(schemas);
    }
}

impl Reading {
    fn new(
        kind: MeldKind,
        rank: Option<Rank>,
        suit: Option<Suit>,
        low: Option<u8>,
        slots: Vec<Slot>,
    ) -> Reading {
        let naturals = slots.iter().filter(|s| s.natural).count();
        let wilds = slots.len() - naturals;
        Reading {
            kind,
            rank,
            suit,
            low,
            slots,
            naturals,
            wilds,
        }
    }

    /// Set or run.
    pub fn kind(&self) -> MeldKind {
        self.kind
    }
    /// The rank of a set; `None` for runs and wild trios.
    pub fn rank(&self) -> Option<Rank> {
        self.rank
    }
    /// The suit of a run.
    pub fn suit(&self) -> Option<Suit> {
        self.suit
    }
    /// The slots in table order (runs low to high).
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }
    /// The cards in table order.
    pub fn cards(&self) -> impl Iterator<Item = Card> + '_ {
        self.slots.iter().map(|s| s.card)
    }
    /// Number of cards.
    pub fn len(&self) -> usize {
        self.slots.len()
    }
    /// Always false: a reading has at least one card. Here for clippy's sake.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
    /// Cards that count as natural (natural cards and wilds representing themselves).
    pub fn naturals(&self) -> usize {
        self.naturals
    }
    /// Cards that count as wild.
    pub fn wilds(&self) -> usize {
        self.wilds
    }
    /// For a run, the values it covers: 1 is the low ace, 14 the high ace.
    pub fn span(&self) -> Option<(u8, u8)> {
        self.low.map(|l| (l, l + self.slots.len() as u8 - 1))
    }
    /// A set made only of wilds with no rank: `may_i`'s wild trio, onto which only wilds may
    /// be laid off, or `push`'s set named only by its kind, whose rank the first natural laid
    /// off on it fixes ([`RanklessSet`]).
    pub fn is_wild_trio(&self) -> bool {
        self.kind == MeldKind::Set && self.rank.is_none()
    }

    /// The `size` slots of this run from `from`, as a run of its own, if that is legal.
    pub(crate) fn piece(&self, rules: &Ruleset, from: usize, size: usize) -> Option<Reading> {
        let low = self.low?;
        if size < rules.min_len(MeldKind::Run) || from + size > self.len() {
            return None;
        }
        let slots = self.slots[from..from + size].to_vec();
        let piece = Reading::new(MeldKind::Run, None, self.suit, Some(low + from as u8), slots);
        limit_reason(rules, &piece).is_none().then_some(piece)
    }

    /// This meld as a proposal that pins every wild-capable card where it lies: submitting it
    /// gives back exactly this reading.
    pub fn pinned(&self, rules: &Ruleset) -> ProposedMeld {
        ProposedMeld {
            cards: self.cards().collect(),
            kind: Some(self.kind),
            wilds: self
                .slots
                .iter()
                .filter(|s| rules.is_wild(s.card))
                .map(|s| Designation {
                    card: s.card,
                    represents: s.represents,
                })
                .collect(),
        }
    }

    /// The designations of the wilds this reading holds and `before` did not: what a lay-off
    /// that turned `before` into `self` must name to lie the same way again.
    pub(crate) fn added_wilds(&self, rules: &Ruleset, before: &Reading) -> Vec<Designation> {
        let mut old = before.slots.clone();
        let mut out = Vec::new();
        for s in &self.slots {
            if let Some(k) = old.iter().position(|o| o == s) {
                old.swap_remove(k);
            } else if rules.is_wild(s.card) {
                out.push(Designation {
                    card: s.card,
                    represents: s.represents,
                });
            }
        }
        out
    }

    /// Whether every slot of `self` stands, unchanged, in `other`.
    fn kept_in(&self, other: &Reading) -> bool {
        let mut left: Vec<Slot> = other.slots.clone();
        self.slots.iter().all(|s| {
            if let Some(i) = left
                .iter()
                .position(|o| o.card == s.card && o.represents == s.represents)
            {
                left.swap_remove(i);
                true
            } else {
                false
            }
        })
    }

    /// The readings of this meld with `cards` laid off on it, in which every card already
    /// there keeps what it represents (a wild is never shifted). `wilds` may fix what the new
    /// wilds represent. The result is re-checked against every rule (the `may_i` wild limit
    /// included).
    pub fn lay_off(&self, rules: &Ruleset, cards: &[Card], wilds: &[Designation]) -> Analysis {
        if cards.is_empty() {
            return Analysis::refused(Reason::new(ReasonCode::Empty, None, "no cards to lay off"));
        }
        let first_natural = cards.iter().find(|c| !rules.is_wild(**c)).and_then(|c| c.rank());
        if let (true, Some(rank)) = (self.is_wild_trio(), first_natural) {
            if rules.rankless_set() == Some(RanklessSet::RankFromFirstNatural) {
                return self.fix_rank(rules, rank, cards, wilds);
            }
            return Analysis::refused(Reason::new(
                ReasonCode::WildTrioTakesOnlyWilds,
                Some(MeldKind::Set),
                "only wild cards may be laid off on a set of wilds",
            ));
        }
        let mut proposal = self.pinned(rules);
        proposal.cards.extend_from_slice(cards);
        proposal.wilds.extend_from_slice(wilds);
        let mut analysis = analyse(rules, &proposal);
        if analysis.readings.is_empty() {
            // The meld's own reasons say why; this one says it in lay-off terms.
            analysis.reasons.push(Reason::new(
                ReasonCode::DoesNotFit,
                Some(self.kind),
                &format!("{} cannot be laid off on this meld", list(cards)),
            ));
            return analysis;
        }
        analysis
            .readings
            .retain(|r| self.kept_in(r) && r.suit == self.suit && r.rank == self.rank);
        if analysis.readings.is_empty() {
            analysis.reasons.push(Reason::new(
                ReasonCode::DoesNotFit,
                Some(self.kind),
                &format!("{} does not fit this meld without moving its cards", list(cards)),
            ));
        }
        analysis
    }

    /// `push`: lays `cards` off on this rankless set, the first natural of which gives the
    /// whole set its `rank` (every wild already there now stands for it).
    fn fix_rank(&self, rules: &Ruleset, rank: Rank, cards: &[Card], wilds: &[Designation]) -> Analysis {
        let mut proposal = ProposedMeld {
            cards: self.cards().collect(),
            kind: Some(MeldKind::Set),
            wilds: self
                .cards()
                .map(|card| Designation {
                    card,
                    represents: Stands::Rank(rank),
                })
                .collect(),
        };
        proposal.cards.extend_from_slice(cards);
        proposal.wilds.extend_from_slice(wilds);
        let mut analysis = analyse(rules, &proposal);
        analysis.readings.retain(|r| r.rank == Some(rank));
        if analysis.readings.is_empty() {
            analysis.reasons.push(Reason::new(
                ReasonCode::DoesNotFit,
                Some(MeldKind::Set),
                &format!("{} cannot be laid off on this set", list(cards)),
            ));
        }
        analysis
    }

    /// Replaces the wild that represents `natural` by `natural` itself; returns the new
    /// reading and the freed wild. `may_i` replaces wilds in runs only; `push` rescues from
    /// any meld; `contract_7` moves jokers instead ([`Reading::move_joker_to_end`]).
    ///
    /// # Errors
    /// [`SwapError`] when the variant does not allow it here or no wild represents `natural`.
    pub fn replace_wild(&self, rules: &Ruleset, natural: Card) -> Result<(Reading, Card), SwapError> {
        match (rules.wild_swap(), self.kind) {
            (WildSwap::InRuns, MeldKind::Run) | (WildSwap::Anywhere, _) => {}
            (WildSwap::InRuns, MeldKind::Set) => {
                return Err(SwapError::NotAllowed("wilds in sets are never replaced"));
            }
            (WildSwap::JokerToRunEnd, _) => {
                return Err(SwapError::NotAllowed(
                    "in contract_7 a joker moves to the end of its run: name the end",
                ));
            }
            (WildSwap::Never, _) => {
                return Err(SwapError::NotAllowed(
                    "continental has no table play after going out",
                ));
            }
        }
        let index = self.wild_slot_for(natural).ok_or(SwapError::NoWildFor(natural))?;
        let mut slots = self.slots.clone();
        let freed = slots[index].card;
        slots[index].card = natural;
        slots[index].natural = true;
        Ok((
            Reading::new(self.kind, self.rank, self.suit, self.low, slots),
            freed,
        ))
    }

    fn wild_slot_for(&self, natural: Card) -> Option<usize> {
        let rank = natural.rank()?;
        self.slots.iter().position(|s| {
            !s.natural
                && match s.represents {
                    Stands::Card(c) => c == natural,
                    Stands::Rank(r) => r == rank,
                    Stands::Any => false,
                }
        })
    }

    /// `contract_7`: lays `natural` where a joker stands in this run; the joker goes to `end`
    /// of the same run (`None`: whichever end is free, refused when both are).
    ///
    /// # Errors
    /// [`SwapError`] when this is not a run, no joker represents `natural`, or no end is free.
    pub fn move_joker_to_end(&self, natural: Card, end: Option<RunEnd>) -> Result<Reading, SwapError> {
        let (Some(suit), Some((low, high))) = (self.suit, self.span()) else {
            return Err(SwapError::NotAllowed("jokers move only within runs"));
        };
        let index = self
            .wild_slot_for(natural)
            .filter(|&i| self.slots[i].card.is_joker())
            .ok_or(SwapError::NoWildFor(natural))?;
        let can_low = low > 1 && self.len() < MAX_RUN;
        let can_high = high < 14 && self.len() < MAX_RUN;
        let end = match end {
            Some(RunEnd::Low) if can_low => RunEnd::Low,
            Some(RunEnd::High) if can_high => RunEnd::High,
            Some(_) => return Err(SwapError::EndBlocked),
            None => match (can_low, can_high) {
                (true, false) => RunEnd::Low,
                (false, true) => RunEnd::High,
                (false, false) => return Err(SwapError::EndBlocked),
                (true, true) => return Err(SwapError::EndRequired),
            },
        };
        let mut slots = self.slots.clone();
        slots[index] = Slot {
            card: natural,
            represents: Stands::Card(natural),
            natural: true,
        };
        let (new_low, value) = match end {
            RunEnd::Low => (low - 1, low - 1),
            RunEnd::High => (low, high + 1),
        };
        let joker = Slot {
            card: Card::JOKER,
            represents: Stands::Card(Card::in_run(value, suit)),
            natural: false,
        };
        match end {
            RunEnd::Low => slots.insert(0, joker),
            RunEnd::High => slots.push(joker),
        }
        Ok(Reading::new(
            MeldKind::Run,
            None,
            Some(suit),
            Some(new_low),
            slots,
        ))
    }

    /// `contract_7`: takes the joker at `end` of this run off, to be moved to another run.
    /// The run must keep at least `min_len` cards and a natural card.
    ///
    /// # Errors
    /// [`SwapError`] when there is no joker at that end or the run would get too short.
    pub fn take_end_joker(&self, end: RunEnd, min_len: usize) -> Result<Reading, SwapError> {
        let (Some(suit), Some((low, _))) = (self.suit, self.span()) else {
            return Err(SwapError::NotAllowed("jokers move only within runs"));
        };
        let index = match end {
            RunEnd::Low => 0,
            RunEnd::High => self.len() - 1,
        };
        if !self.slots[index].card.is_joker() || self.slots[index].natural {
            return Err(SwapError::NoJokerAtEnd);
        }
        if self.len() <= min_len {
            return Err(SwapError::RunTooShort);
        }
        let mut slots = self.slots.clone();
        slots.remove(index);
        let low = if end == RunEnd::Low { low + 1 } else { low };
        let reading = Reading::new(MeldKind::Run, None, Some(suit), Some(low), slots);
        if reading.naturals == 0 {
            return Err(SwapError::RunTooShort);
        }
        Ok(reading)
    }
}

/// An end of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum RunEnd {
    /// The low end.
    Low,
    /// The high end.
    High,
}

/// Why a wild cannot be replaced or moved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, strum::EnumDiscriminants)]
#[strum_discriminants(
    name(SwapCode),
    vis(pub(crate)),
    derive(strum::EnumIter, strum::IntoStaticStr),
    strum(serialize_all = "snake_case")
)]
pub enum SwapError {
    /// The variant or the meld's kind forbids it.
    #[error("{0}")]
    #[strum_discriminants(strum(serialize = "swap_not_allowed"))]
    NotAllowed(&'static str),
    /// No wild in the meld represents that card.
    #[error("no wild in this meld represents {0}")]
    #[strum_discriminants(strum(serialize = "no_wild_for_card"))]
    NoWildFor(Card),
    /// The chosen end (or both) cannot take the joker.
    #[error("the joker cannot go to that end of the run")]
    EndBlocked,
    /// Both ends are free: the request must say which.
    #[error("the joker can go to either end: say which (low or high)")]
    EndRequired,
    /// There is no joker at that end.
    #[error("there is no joker at that end of the run")]
    NoJokerAtEnd,
    /// The run would be left under its minimum length.
    #[error("no move may leave a run with fewer than 4 cards")]
    RunTooShort,
}

impl SwapError {
    /// Stable machine-readable code: its variant's name in snake case, unless renamed.
    pub fn code(&self) -> &'static str {
        SwapCode::from(self).into()
    }

    /// Every code a swap error can have.
    pub fn codes() -> impl Iterator<Item = &'static str> {
        SwapCode::iter().map(<&str>::from)
    }
}

/// Stable codes for why cards do not make a meld.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReasonCode {
    /// No cards.
    Empty,
    /// Fewer cards than the kind's minimum.
    TooShort,
    /// A run longer than 13 cards.
    TooLong,
    /// Natural cards of different suits in a run.
    MixedSuits,
    /// Natural cards of different ranks in a set.
    MixedRanks,
    /// Two natural cards of one rank in a run.
    DuplicateRank,
    /// Not enough wilds to fill the gaps between the naturals of a run.
    Gap,
    /// The run would pass from king to ace to two.
    RoundTheCorner,
    /// Wilds outnumber naturals (`may_i`).
    TooManyWilds,
    /// The meld has no natural card.
    NoNatural,
    /// Sets are not melds in this variant (`continental`).
    SetsNotAllowed,
    /// A meld with at most one natural card must name its kind (`push`).
    KindRequired,
    /// Every wild of this meld must say what it represents (`push`), or the all-wild meld
    /// cannot be read otherwise.
    DesignationRequired,
    /// A designation names a card that is not a wild of this meld, or contradicts the kind.
    DesignationMismatch,
    /// Only wilds may be laid off on a set of wilds (`may_i`).
    WildTrioTakesOnlyWilds,
    /// The cards do not extend this meld without moving what is there.
    DoesNotFit,
    /// More copies of a card than the variant's packs hold.
    TooManyCopies,
}

/// One reason why cards are not a legal meld, with its kind when it concerns one.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Reason {
    /// Stable code.
    pub code: ReasonCode,
    /// The kind of meld this reason rules out, if it concerns one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<MeldKind>,
    /// A sentence a player can read.
    pub message: String,
}

impl Reason {
    fn new(code: ReasonCode, kind: Option<MeldKind>, message: &str) -> Reason {
        Reason {
            code,
            kind,
            message: message.to_owned(),
        }
    }
}

/// Every legal reading of some cards, or why there is none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Analysis {
    /// Every legal reading, in a stable order.
    pub readings: Vec<Reading>,
    /// Why there is no legal reading (empty when there is one).
    pub reasons: Vec<Reason>,
}

impl Analysis {
    fn refused(reason: Reason) -> Analysis {
        Analysis {
            readings: Vec::new(),
            reasons: vec![reason],
        }
    }

    /// Whether there is at least one legal reading.
    pub fn is_legal(&self) -> bool {
        !self.readings.is_empty()
    }

    /// The one reading, or why there is not exactly one.
    ///
    /// # Errors
    /// [`MeldError::Illegal`] with the reasons, or [`MeldError::Ambiguous`] with the readings
    /// to choose from.
    pub fn into_single(self) -> Result<Reading, MeldError> {
        match self.readings.len() {
            0 => Err(MeldError::Illegal(self.reasons)),
            1 => Ok(self.readings.into_iter().next().expect("one reading")),
            _ => Err(MeldError::Ambiguous(self.readings)),
        }
    }
}

/// Why a proposal did not give exactly one meld.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MeldError {
    /// No legal reading.
    #[error("illegal meld: {}", .0.iter().map(|r| r.message.as_str()).collect::<Vec<_>>().join("; "))]
    Illegal(Vec<Reason>),
    /// More than one legal reading: the request must choose (kind, wild designations).
    #[error("the cards can be read {} ways: fix the kind or what each wild represents", .0.len())]
    Ambiguous(Vec<Reading>),
}

impl MeldError {
    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            MeldError::Illegal(_) => "illegal_meld",
            MeldError::Ambiguous(_) => "ambiguous_meld",
        }
    }
}

/// Reads `meld` as one unambiguous meld.
///
/// # Errors
/// As [`Analysis::into_single`].
pub fn read(rules: &Ruleset, meld: &ProposedMeld) -> Result<Reading, MeldError> {
    analyse(rules, meld).into_single()
}

/// Every legal reading of `meld` under `rules` (restricted to its kind and designations), or
/// the reasons there is none.
pub fn analyse(rules: &Ruleset, meld: &ProposedMeld) -> Analysis {
    let cards = &meld.cards;
    if cards.is_empty() {
        return Analysis::refused(Reason::new(ReasonCode::Empty, None, "a meld needs cards"));
    }
    if let Err(reason) = check_designations(rules, meld) {
        return Analysis::refused(reason);
    }
    let mut out = Analysis::default();
    let kinds: &[MeldKind] = match meld.kind {
        Some(MeldKind::Set) => &[MeldKind::Set],
        Some(MeldKind::Run) => &[MeldKind::Run],
        // Runs first: when they are found, a set is often plainly impossible (see below).
        None if rules.sets_allowed() => &[MeldKind::Run, MeldKind::Set],
        None => &[MeldKind::Run],
    };
    for &kind in kinds {
        if kind == MeldKind::Set && out.is_legal() && mixed_natural_ranks(rules, cards) {
            // Not a set, and its reason would be dropped: skip the work (reading speed).
            continue;
        }
        let mut found = match kind {
            MeldKind::Set if !rules.sets_allowed() => {
                out.reasons.push(Reason::new(
                    ReasonCode::SetsNotAllowed,
                    Some(kind),
                    &format!("sets are not melds in {}", rules.variant()),
                ));
                continue;
            }
            MeldKind::Set => set_readings(rules, meld, &mut out.reasons),
            MeldKind::Run => {
                let runs = run_readings(rules, meld, &mut out.reasons);
                if runs.is_empty() && meld.kind.is_none() && !rules.sets_allowed() {
                    // Say so when the cards would be a set elsewhere: "mixed suits" alone
                    // would leave a continental player guessing.
                    let mut ignored = Vec::new();
                    if !set_readings(rules, meld, &mut ignored).is_empty() {
                        out.reasons.push(Reason::new(
                            ReasonCode::SetsNotAllowed,
                            Some(MeldKind::Set),
                            &format!("sets are not melds in {}", rules.variant()),
                        ));
                    }
                }
                runs
            }
        };
        if rules.wild_limit() == WildLimit::Any {
            name_few_naturals(meld, &mut found, &mut out.reasons);
        }
        if out.readings.is_empty() {
            out.readings = found;
        } else {
            out.readings.append(&mut found);
        }
    }
    if let Some(message) = crate::supply::excess(rules, cards) {
        // However the cards would read, no table holds them all.
        out.readings.clear();
        out.reasons
            .push(Reason::new(ReasonCode::TooManyCopies, None, &message));
    }
    out.readings.sort();
    out.readings.dedup();
    out.readings.truncate(MAX_READINGS);
    if out.is_legal() {
        out.reasons.clear();
    } else {
        out.reasons.sort();
        out.reasons.dedup();
        if out.reasons.is_empty() {
            out.reasons
                .push(Reason::new(ReasonCode::Gap, None, "the cards make no meld"));
        }
    }
    out
}

/// Push: "a meld that is all wild, or has one natural card, must name its kind, and as a run
/// must name what every wild represents".
fn name_few_naturals(meld: &ProposedMeld, found: &mut Vec<Reading>, reasons: &mut Vec<Reason>) {
    found.retain(|r| {
        if r.naturals > 1 {
            return true;
        }
        if meld.kind.is_none() {
            reasons.push(Reason::new(
                ReasonCode::KindRequired,
                Some(r.kind),
                "a meld with at most one natural card must name its kind",
            ));
            return false;
        }
        if r.kind == MeldKind::Run && meld.wilds.len() < r.wilds {
            reasons.push(Reason::new(
                ReasonCode::DesignationRequired,
                Some(MeldKind::Run),
                "a run with at most one natural card must say what every wild represents",
            ));
            return false;
        }
        true
    });
}

fn check_designations(rules: &Ruleset, meld: &ProposedMeld) -> Result<(), Reason> {
    if meld.wilds.is_empty() {
        return Ok(());
    }
    let mut left = counts(&meld.cards);
    for d in &meld.wilds {
        let mismatch = |m: String| Err(Reason::new(ReasonCode::DesignationMismatch, None, &m));
        if !rules.is_wild(d.card) {
            return mismatch(format!("{} is not wild in {}", d.card, rules.variant()));
        }
        if left[d.card.index()] == 0 {
            return mismatch(format!("more designations of {} than the meld holds", d.card));
        }
        left[d.card.index()] -= 1;
        if let (Stands::Any, Some(MeldKind::Run)) = (d.represents, meld.kind) {
            return mismatch("a wild in a run represents one card, like 5H".into());
        }
        if d.represents == Stands::Card(Card::JOKER) {
            return mismatch("a wild represents a suited card, never the joker".into());
        }
    }
    Ok(())
}

fn counts(cards: &[Card]) -> [u8; DISTINCT_CARDS] {
    let mut n = [0u8; DISTINCT_CARDS];
    for c in cards {
        n[c.index()] = n[c.index()].saturating_add(1);
    }
    n
}

fn list(cards: &[Card]) -> String {
    cards.iter().map(Card::to_string).collect::<Vec<_>>().join(" ")
}

/// The wild limit of `rules` on a finished reading, as a reason when broken.
fn limit_reason(rules: &Ruleset, r: &Reading) -> Option<Reason> {
    match rules.wild_limit() {
        WildLimit::NotMoreThanNaturals if !r.is_wild_trio() && r.wilds > r.naturals => Some(Reason::new(
            ReasonCode::TooManyWilds,
            Some(r.kind),
            &format!("{} wilds outnumber {} naturals", r.wilds, r.naturals),
        )),
        WildLimit::AtLeastOneNatural if r.naturals == 0 => Some(Reason::new(
            ReasonCode::NoNatural,
            Some(r.kind),
            "every meld needs at least one natural card",
        )),
        _ => None,
    }
}

fn keep_if_within_limit(rules: &Ruleset, r: Reading, out: &mut Vec<Reading>, reasons: &mut Vec<Reason>) {
    match limit_reason(rules, &r) {
        Some(reason) => reasons.push(reason),
        None => out.push(r),
    }
}

/// Whether the natural (non-wild) cards have more than one rank.
fn mixed_natural_ranks(rules: &Ruleset, cards: &[Card]) -> bool {
    let mut ranks = cards
        .iter()
        .filter(|c| !rules.is_wild(**c))
        .filter_map(|c| c.rank());
    ranks.next().is_some_and(|first| ranks.any(|r| r != first))
}

/// Every reading of `meld` as a set (docs/rules.md#sets), or its reasons pushed on `reasons`.
/// The steps: the naturals' rank, the length, the wilds' designations; then the set of each
/// rank the cards can stand for, and the set with no rank where the variant has one.
fn set_readings(rules: &Ruleset, meld: &ProposedMeld, reasons: &mut Vec<Reason>) -> Vec<Reading> {
    // `reasons` may hold the run's reasons already: count only this set's own.
    let reasons_before = reasons.len();
    let cards = &meld.cards;
    let checked = set_rank(rules, cards).and_then(|natural| {
        set_length(rules, cards.len())?;
        Ok((natural, set_designations(meld, natural)?))
    });
    let (natural, designated) = match checked {
        Ok(checked) => checked,
        Err(reason) => {
            reasons.push(reason);
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for rank in set_candidates(cards, natural, designated) {
        keep_if_within_limit(rules, set_of(cards, rank), &mut out, reasons);
    }
    let all_wild = natural.is_none();
    if all_wild && rankless_allowed(rules, designated, out.is_empty()) {
        out.push(rankless_set(cards));
    } else if all_wild && out.is_empty() && reasons.len() == reasons_before {
        reasons.push(all_wild_reason(rules));
    }
    out
}

/// docs/rules.md#sets: the one rank of the natural (non-wild) cards, `None` when all are wild.
fn set_rank(rules: &Ruleset, cards: &[Card]) -> Result<Option<Rank>, Reason> {
    let mut natural_ranks: Vec<Rank> = cards
        .iter()
        .filter(|c| !rules.is_wild(**c))
        .filter_map(|c| c.rank())
        .collect();
    natural_ranks.sort();
    natural_ranks.dedup();
    if natural_ranks.len() > 1 {
        return Err(Reason::new(
            ReasonCode::MixedRanks,
            Some(MeldKind::Set),
            &format!("a set needs one rank, not {}", join(&natural_ranks)),
        ));
    }
    Ok(natural_ranks.first().copied())
}

/// docs/rules.md#sets: a set has at least the variant's minimum of cards.
fn set_length(rules: &Ruleset, n: usize) -> Result<(), Reason> {
    let min = rules.min_len(MeldKind::Set);
    if n < min {
        return Err(Reason::new(
            ReasonCode::TooShort,
            Some(MeldKind::Set),
            &format!("a set needs at least {min} cards"),
        ));
    }
    Ok(())
}

/// What a set's wilds were designated: one rank at most, or `*` (the set with no rank).
#[derive(Clone, Copy)]
struct SetDesignations {
    rank: Option<Rank>,
    any: bool,
}

/// docs/rules.md#readings: the designations of a set's wilds agree on one rank, the naturals'
/// rank if there is one; `*` is only the set of wilds' designation, so it cannot stand beside a
/// rank or a natural.
fn set_designations(meld: &ProposedMeld, natural: Option<Rank>) -> Result<SetDesignations, Reason> {
    let mut any = false;
    let mut designated: Vec<Rank> = Vec::new();
    for d in &meld.wilds {
        match d.represents {
            Stands::Any => any = true,
            Stands::Rank(r) => designated.push(r),
            Stands::Card(c) => designated.extend(c.rank()),
        }
    }
    designated.sort();
    designated.dedup();
    let rank = designated.first().copied();
    let disagree = designated.len() > 1
        || (any && !(designated.is_empty() && natural.is_none()))
        || matches!((natural, rank), (Some(n), Some(d)) if n != d);
    if disagree {
        return Err(Reason::new(
            ReasonCode::DesignationMismatch,
            Some(MeldKind::Set),
            "the wilds' designations do not agree with one set",
        ));
    }
    Ok(SetDesignations { rank, any })
}

/// The ranks the set may be of: the naturals' or the designated one; with neither and no `*`,
/// each wild card's own rank, which may make a set of naturals (docs/rules.md#wilds: red aces
/// in may_i, deuces with deuces wild).
fn set_candidates(cards: &[Card], natural: Option<Rank>, designated: SetDesignations) -> Vec<Rank> {
    match natural.or(designated.rank) {
        Some(rank) => vec![rank],
        None if designated.any => Vec::new(),
        None => {
            let mut own: Vec<Rank> = cards.iter().filter_map(|c| c.rank()).collect();
            own.sort();
            own.dedup();
            own
        }
    }
}

/// The set of `rank` these cards make, naturals first (docs/rules.md#wilds: a wild of that rank
/// stands for itself, as a natural).
fn set_of(cards: &[Card], rank: Rank) -> Reading {
    let mut slots: Vec<Slot> = cards
        .iter()
        .map(|&card| Slot {
            card,
            represents: Stands::Rank(rank),
            natural: card.rank() == Some(rank),
        })
        .collect();
    slots.sort_by(|a, b| b.natural.cmp(&a.natural).then(a.card.cmp(&b.card)));
    Reading::new(MeldKind::Set, Some(rank), None, None, slots)
}

/// Whether wilds alone, designated no rank, make a set with no rank:
/// docs/rules.md#may_i-wilds (the wild trio) always; docs/rules.md#push-wilds when `*` asks for
/// it or the twos make no set of twos.
fn rankless_allowed(rules: &Ruleset, designated: SetDesignations, no_set_of_rank: bool) -> bool {
    designated.rank.is_none()
        && match rules.rankless_set() {
            Some(RanklessSet::WildsOnly) => true,
            Some(RanklessSet::RankFromFirstNatural) => designated.any || no_set_of_rank,
            None => false,
        }
}

/// The set with no rank: every card stands for anything.
fn rankless_set(cards: &[Card]) -> Reading {
    let mut slots: Vec<Slot> = cards
        .iter()
        .map(|&card| Slot {
            card,
            represents: Stands::Any,
            natural: false,
        })
        .collect();
    slots.sort();
    Reading::new(MeldKind::Set, None, None, None, slots)
}

/// Why wilds alone make no set where the variant has no set of wilds: it must say its rank
/// (docs/rules.md#push-wilds) or needs a natural (docs/rules.md#contract_7-wilds,
/// docs/rules.md#continental-wilds).
fn all_wild_reason(rules: &Ruleset) -> Reason {
    let (code, message) = match rules.wild_limit() {
        WildLimit::Any => (
            ReasonCode::DesignationRequired,
            "a set of wilds must say which rank it is",
        ),
        _ => (
            ReasonCode::NoNatural,
            "every meld needs at least one natural card",
        ),
    };
    Reason::new(code, Some(MeldKind::Set), message)
}

fn join<T: fmt::Display>(items: &[T]) -> String {
    items.iter().map(T::to_string).collect::<Vec<_>>().join(", ")
}

/// The suited card of `suit` at run value `value` (1 and 14 are both the ace).
fn value_of(rank: Rank, ace: u8) -> u8 {
    if rank == Rank::Ace { ace } else { rank.number() }
}

/// Every reading of `meld` as a run (docs/rules.md#runs), or its reasons pushed on `reasons`.
/// The steps: the length, the wilds' designations, the suit; then each suit the cards allow,
/// with the ace low and, where an ace can be in the run, high.
fn run_readings(rules: &Ruleset, meld: &ProposedMeld, reasons: &mut Vec<Reason>) -> Vec<Reading> {
    let cards = &meld.cards;
    let naturals: Vec<Card> = cards.iter().copied().filter(|c| !rules.is_wild(*c)).collect();
    let checked = run_length(rules, cards.len()).and_then(|()| {
        let designated = run_designations(meld)?;
        let suits = run_suits(rules, cards, &naturals, &designated)?;
        Ok((designated, suits))
    });
    let (designated, suits) = match checked {
        Ok(checked) => checked,
        Err(reason) => {
            reasons.push(reason);
            return Vec::new();
        }
    };
    let free = free_wilds(rules, cards, &designated);
    let mut out = Vec::new();
    for suit in suits_in(suits) {
        for &ace in ace_values(suit, cards, &naturals, &designated) {
            read_run_in(
                rules,
                RunInput {
                    suit,
                    ace,
                    naturals: &naturals,
                    designated: &designated,
                    free: &free,
                    n: cards.len(),
                },
                &mut out,
                reasons,
            );
            if out.len() >= MAX_READINGS {
                return out;
            }
        }
    }
    out
}

/// docs/rules.md#runs: a run has the variant's minimum length, and at most 13 cards (ace to
/// king).
fn run_length(rules: &Ruleset, n: usize) -> Result<(), Reason> {
    let kind = Some(MeldKind::Run);
    let min = rules.min_len(MeldKind::Run);
    if n < min {
        return Err(Reason::new(
            ReasonCode::TooShort,
            kind,
            &format!("a run needs at least {min} cards"),
        ));
    }
    if n > MAX_RUN {
        return Err(Reason::new(
            ReasonCode::TooLong,
            kind,
            "a run has at most 13 cards, ace to king",
        ));
    }
    Ok(())
}

/// docs/rules.md#readings: a wild designated in a run represents one suited card. The pairs
/// (wild, the card it represents), in the order given.
fn run_designations(meld: &ProposedMeld) -> Result<Vec<(Card, Card)>, Reason> {
    meld.wilds
        .iter()
        .map(|d| match d.represents {
            Stands::Card(rep) => Ok((d.card, rep)),
            _ => Err(Reason::new(
                ReasonCode::DesignationMismatch,
                Some(MeldKind::Run),
                "a wild in a run represents one card, like 5H",
            )),
        })
        .collect()
}

/// A set of suits, one bit each (no list to allocate on the way to a reading).
fn suit_bit(suit: Suit) -> u8 {
    1u8 << suit.index()
}

/// The suits of the suited cards among `cards`, one bit each.
fn suits_of<'a>(cards: impl Iterator<Item = &'a Card>) -> u8 {
    cards
        .filter_map(|c| c.suit())
        .fold(0u8, |set, s| set | suit_bit(s))
}

/// The suits of a set of bits, in suit order.
fn suits_in(set: u8) -> impl Iterator<Item = Suit> {
    Suit::ALL.into_iter().filter(move |s| set & suit_bit(*s) != 0)
}

/// The suits the run may be in. docs/rules.md#runs: one suit, the one its naturals and
/// designations name. When they name none, only a wild standing for itself can fix it
/// (docs/rules.md#wilds), and a run of wilds alone falls to the variant's wild limit.
fn run_suits(
    rules: &Ruleset,
    cards: &[Card],
    naturals: &[Card],
    designated: &[(Card, Card)],
) -> Result<u8, Reason> {
    let named = suits_of(naturals.iter().chain(designated.iter().map(|(_, rep)| rep)));
    if named.count_ones() > 1 {
        return Err(Reason::new(
            ReasonCode::MixedSuits,
            Some(MeldKind::Run),
            &format!(
                "a run needs one suit, not {}",
                join(&suits_in(named).map(Suit::char).collect::<Vec<_>>())
            ),
        ));
    }
    if named != 0 {
        return Ok(named);
    }
    let own = suits_of(cards.iter().filter(|c| !c.is_joker()));
    if own == 0 {
        let (code, message) = match rules.wild_limit() {
            WildLimit::Any => (
                ReasonCode::DesignationRequired,
                "a run of wilds must say what every wild represents",
            ),
            WildLimit::AtLeastOneNatural => (
                ReasonCode::NoNatural,
                "every meld needs at least one natural card",
            ),
            WildLimit::NotMoreThanNaturals => (ReasonCode::TooManyWilds, "wilds may not outnumber naturals"),
        };
        return Err(Reason::new(code, Some(MeldKind::Run), message));
    }
    Ok(own)
}

/// docs/rules.md#readings: the free wilds, in the order they were submitted: every wild card
/// not pinned by a designation. Inner gaps take them in this order.
fn free_wilds(rules: &Ruleset, cards: &[Card], designated: &[(Card, Card)]) -> Vec<Card> {
    let mut free: Vec<Card> = cards.iter().copied().filter(|c| rules.is_wild(*c)).collect();
    for (card, _) in designated {
        take_one(&mut free, *card);
    }
    free
}

/// docs/rules.md#runs: the ace is low (value 1) or high (14) in a run, never both. High is
/// tried only when an ace could be in the run.
fn ace_values(suit: Suit, cards: &[Card], naturals: &[Card], designated: &[(Card, Card)]) -> &'static [u8] {
    let has_ace = naturals
        .iter()
        .chain(designated.iter().map(|(_, rep)| rep))
        .chain(cards.iter().filter(|c| c.suit() == Some(suit)))
        .any(|c| c.rank() == Some(Rank::Ace));
    if has_ace { &[1, 14] } else { &[1] }
}

struct RunInput<'a> {
    suit: Suit,
    ace: u8,
    naturals: &'a [Card],
    designated: &'a [(Card, Card)],
    /// The undesignated wilds in submission order.
    free: &'a [Card],
    n: usize,
}

/// Removes one `card` from `cards` (identical cards are interchangeable: the first one).
fn take_one(cards: &mut Vec<Card>, card: Card) {
    if let Some(i) = cards.iter().position(|c| *c == card) {
        cards.remove(i);
    }
}

/// The places of a run before its gaps are filled: the fixed slots by run value, low to high,
/// and the free wilds in submission order.
type Places<'a> = (Cow<'a, [(u8, Slot)]>, Cow<'a, [Card]>);

/// The readings of a run in `input.suit` with the ace at `input.ace`. The steps: the fixed
/// places; then, for each choice of the free wilds that stand for themselves, the gaps between
/// the lowest and highest places, and the surplus wilds at the ends.
fn read_run_in(rules: &Ruleset, input: RunInput<'_>, out: &mut Vec<Reading>, reasons: &mut Vec<Reason>) {
    let fixed = match fixed_places(&input) {
        Ok(fixed) => fixed,
        Err(reason) => {
            reasons.push(reason);
            return;
        }
    };
    let own = own_places(&input, &fixed);
    for mask in 0u32..(1 << own.len()) {
        let (fixed, free) = with_own_places(&input, &fixed, &own, mask);
        if fixed.is_empty() {
            continue;
        }
        match inner_gaps(&fixed, free.len(), input.n) {
            Ok(gaps) => place_surplus(rules, &input, (&fixed, &free), gaps, out, reasons),
            Err(reason) => reasons.push(reason),
        }
    }
}

/// Fixed places, sorted by run value: naturals at their own value, designated wilds where
/// they were put (docs/rules.md#readings). docs/rules.md#runs: a run holds each rank once.
fn fixed_places(input: &RunInput<'_>) -> Result<Vec<(u8, Slot)>, Reason> {
    let ace = input.ace;
    let mut fixed: Vec<(u8, Slot)> = Vec::with_capacity(input.n);
    for &card in input.naturals {
        let rank = card.rank().unwrap_or(Rank::Ace);
        fixed.push((
            value_of(rank, ace),
            Slot {
                card,
                represents: Stands::Card(card),
                natural: true,
            },
        ));
    }
    for &(card, rep) in input.designated {
        let rank = rep.rank().unwrap_or(Rank::Ace);
        fixed.push((
            value_of(rank, ace),
            Slot {
                card,
                represents: Stands::Card(rep),
                natural: card == rep,
            },
        ));
    }
    fixed.sort_by_key(|(v, _)| *v);
    if fixed.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err(Reason::new(
            ReasonCode::DuplicateRank,
            Some(MeldKind::Run),
            "a run holds each rank once: two runs of one suit are separate melds",
        ));
    }
    Ok(fixed)
}

/// docs/rules.md#wilds: free wilds that could stand for themselves here (a red ace in its own
/// place). In card order, each once (the order the readings are tried in).
fn own_places(input: &RunInput<'_>, fixed: &[(u8, Slot)]) -> Vec<Card> {
    let mut own: Vec<Card> = input
        .free
        .iter()
        .copied()
        .filter(|c| c.suit() == Some(input.suit))
        .filter(|c| {
            let v = value_of(c.rank().unwrap_or(Rank::Ace), input.ace);
            !fixed.iter().any(|(fv, _)| *fv == v)
        })
        .collect();
    own.sort_by_key(|c| c.index());
    own.dedup();
    own
}

/// The places with the wilds of `own` chosen by `mask` standing for themselves (as naturals,
/// docs/rules.md#wilds) and taken out of the free wilds. Mask 0 borrows the places as they are.
fn with_own_places<'a>(input: &RunInput<'a>, fixed: &'a [(u8, Slot)], own: &[Card], mask: u32) -> Places<'a> {
    let (mut fixed, mut free) = match mask {
        0 => (Cow::Borrowed(fixed), Cow::Borrowed(input.free)),
        _ => (Cow::Owned(fixed.to_vec()), Cow::Owned(input.free.to_vec())),
    };
    for (i, &card) in own.iter().enumerate() {
        if mask & (1 << i) != 0 {
            take_one(free.to_mut(), card);
            let v = value_of(card.rank().unwrap_or(Rank::Ace), input.ace);
            fixed.to_mut().push((
                v,
                Slot {
                    card,
                    represents: Stands::Card(card),
                    natural: true,
                },
            ));
        }
    }
    if mask != 0 {
        fixed.to_mut().sort_by_key(|(v, _)| *v);
    }
    (fixed, free)
}

/// The gaps between the lowest and highest fixed places, when `wilds` can fill them. Else
/// docs/rules.md#runs: the run would turn the corner (king to ace to two), or it has a gap.
fn inner_gaps(fixed: &[(u8, Slot)], wilds: usize, n: usize) -> Result<usize, Reason> {
    let lo = fixed[0].0;
    let hi = fixed[fixed.len() - 1].0;
    let span = usize::from(hi - lo) + 1;
    let gaps = span - fixed.len();
    if gaps <= wilds {
        return Ok(gaps);
    }
    let ranks: Vec<u8> = fixed.iter().map(|(v, _)| *v).collect();
    Err(if round_the_corner(&ranks, n) {
        Reason::new(
            ReasonCode::RoundTheCorner,
            Some(MeldKind::Run),
            "a run may not pass from king to ace to two",
        )
    } else {
        Reason::new(
            ReasonCode::Gap,
            Some(MeldKind::Run),
            &format!("{gaps} gaps between the naturals but only {wilds} wilds to fill them"),
        )
    })
}

/// docs/rules.md#readings: the first `gaps` free wilds fill the inner gaps, low to high; only
/// the surplus ones are placed at the ends, in every way they can be. Each reading within the
/// wild limit goes to `out`, until there are [`MAX_READINGS`].
fn place_surplus(
    rules: &Ruleset,
    input: &RunInput<'_>,
    (fixed, free): (&[(u8, Slot)], &[Card]),
    gaps: usize,
    out: &mut Vec<Reading>,
    reasons: &mut Vec<Reason>,
) {
    let lo = fixed[0].0;
    let hi = fixed[fixed.len() - 1].0;
    let surplus = free.len() - gaps;
    let (inner, ends) = free.split_at(gaps);
    let mut end_pool = counts(ends);
    for below in 0..=surplus {
        let Some((low, high)) = run_bounds((lo, hi), below, surplus - below) else {
            continue;
        };
        let mut arrangement = Vec::with_capacity(surplus);
        arrange(
            &mut end_pool,
            surplus,
            &mut arrangement,
            &mut |at_ends: &[Card]| {
                let slots = lay_run(input, fixed, (lo, hi), (low, high), inner, at_ends);
                let r = Reading::new(MeldKind::Run, None, Some(input.suit), Some(low), slots);
                keep_if_within_limit(rules, r, out, reasons);
                out.len() < MAX_READINGS
            },
        );
    }
}

/// The run's lowest and highest values with `below` wilds under the fixed places `lo..=hi`
/// and `above` over them, if it fits between the low ace (1) and the high ace (14).
/// docs/rules.md#runs: a run of all thirteen ranks is read with the ace low only.
fn run_bounds((lo, hi): (u8, u8), below: usize, above: usize) -> Option<(u8, u8)> {
    if usize::from(lo) <= below || usize::from(hi) + above > 14 {
        return None;
    }
    let low = lo - below as u8;
    let high = hi + above as u8;
    if low == 2 && usize::from(high - low) + 1 == MAX_RUN {
        // All thirteen ranks: ace high (2..A) is the same run as ace low (A..K), which is
        // produced too. One reading, so a full run is never ambiguous.
        return None;
    }
    Some((low, high))
}

/// The slots of the run from `low` to `high`: each fixed place at its value, the holes
/// strictly inside `lo..hi` filled by `inner` in order, those at the ends by `at_ends`.
fn lay_run(
    input: &RunInput<'_>,
    fixed: &[(u8, Slot)],
    (lo, hi): (u8, u8),
    (low, high): (u8, u8),
    inner: &[Card],
    at_ends: &[Card],
) -> Vec<Slot> {
    let mut slots: Vec<Slot> = Vec::with_capacity(input.n);
    let mut f = fixed.iter().peekable();
    let mut at_ends = at_ends.iter();
    let mut inside = inner.iter();
    for v in low..=high {
        match f.peek() {
            Some((fv, slot)) if *fv == v => {
                slots.push(*slot);
                f.next();
            }
            _ => {
                let w = if v > lo && v < hi {
                    &mut inside
                } else {
                    &mut at_ends
                };
                let card = *w.next().expect("a wild for every hole");
                let rep = Card::in_run(v, input.suit);
                slots.push(Slot {
                    card,
                    represents: Stands::Card(rep),
                    natural: card == rep,
                });
            }
        }
    }
    slots
}

/// Calls `emit` with every distinct ordering of `len` wilds drawn from the multiset `pool`,
/// until `emit` returns false (twelve wilds of five kinds have over a million orderings:
/// past the reading cap they are not even enumerated). Returns false if stopped.
fn arrange(
    pool: &mut [u8; DISTINCT_CARDS],
    len: usize,
    acc: &mut Vec<Card>,
    emit: &mut dyn FnMut(&[Card]) -> bool,
) -> bool {
    if acc.len() == len {
        return emit(acc);
    }
    for i in 0..DISTINCT_CARDS {
        if pool[i] > 0 {
            pool[i] -= 1;
            acc.push(Card::from_index(i));
            let go_on = arrange(pool, len, acc, emit);
            acc.pop();
            pool[i] += 1;
            if !go_on {
                return false;
            }
        }
    }
    true
}

/// Whether these run values would fit in `n` cards if the run could pass from king to ace.
fn round_the_corner(values: &[u8], n: usize) -> bool {
    let ranks: Vec<u8> = values.iter().map(|v| (v - 1) % 13).collect();
    (0..13u8).any(|start| {
        // Only a window that goes on past the ace to the two passes round the corner.
        let wraps = usize::from(start) + n > 14;
        wraps
            && ranks.iter().all(|&r| {
                let offset = (usize::from(r) + 13 - usize::from(start)) % 13;
                offset < n
            })
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{ProposedMeld, Reading, analyse};
    use crate::card::parse_cards;
    use crate::ruleset::{Ruleset, Variant};

    /// The first legal reading of `cards` in `may_i` (where aces are also wild).
    fn reading(cards: &[&str]) -> Reading {
        let cards = parse_cards(cards).expect("cards");
        let analysis = analyse(&Ruleset::default_for(Variant::MayI), &ProposedMeld::of(&cards));
        analysis.readings.into_iter().next().expect("a meld")
    }

    #[test]
    fn a_reading_is_written_in_one_shape_and_read_back_whole() {
        let run = reading(&["AH", "2H", "JK", "4H"]);
        let written = serde_json::to_value(&run).expect("JSON");
        assert_eq!(
            written,
            json!({"kind": "run", "suit": "H", "cards": ["AH", "2H", "JK", "4H"], "slots": [
                {"card": "AH", "represents": "AH", "natural": true},
                {"card": "2H", "represents": "2H", "natural": true},
                {"card": "JK", "represents": "3H", "natural": false},
                {"card": "4H", "represents": "4H", "natural": true}]})
        );
        let back: Reading = serde_json::from_value(written).expect("a reading");
        assert_eq!(
            back, run,
            "what it counts comes back from the slots, the low ace included"
        );
        assert_eq!(back.span(), Some((1, 4)));
    }

    #[test]
    fn a_reading_stored_without_its_cards_reads_from_its_slots() {
        let set = reading(&["7H", "7S", "JK"]);
        let mut stored = serde_json::to_value(&set).expect("JSON");
        let object = stored.as_object_mut().expect("an object");
        object.remove("cards");
        object.insert("naturals".into(), json!(2));
        object.insert("wilds".into(), json!(1));
        assert_eq!(serde_json::from_value::<Reading>(stored).expect("a reading"), set);
    }

    #[test]
    fn cards_that_are_not_the_slots_are_no_reading() {
        let mut written = serde_json::to_value(reading(&["7H", "7S", "7D"])).expect("JSON");
        written["cards"] = json!(["7H", "7S", "7C"]);
        assert!(serde_json::from_value::<Reading>(written).is_err());
    }
}
