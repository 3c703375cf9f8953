//! Variants and their house-rule options, with the defaults docs/rules.md#options lists.

use std::ops::RangeInclusive;

use serde::{Deserialize, Serialize};
use strum::IntoEnumIterator;

use crate::card::{Card, Rank};
use crate::options::{
    ContinentalOptions, Contract7Options, HouseOption, HouseOptions, MayIOptions, OutOfRange, PushOptions,
};
use crate::vocabulary::{Contract, MeldKind, Requirement};

/// The four games the rules describe
/// ([rules](https://github.com/continental-rummy/continental/blob/main/docs/rules.md)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub enum Variant {
    /// Continental Rummy / "May I?"
    /// ([rules](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#may_i)).
    #[serde(rename = "may_i")]
    MayI,
    /// The 7-deal contract game dealing 7..13 cards
    /// ([rules](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#contract_7)).
    #[serde(rename = "contract_7")]
    Contract7,
    /// The classic single-deal 15-card game
    /// ([rules](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#continental)).
    #[serde(rename = "continental")]
    Continental,
    /// Push, 2 v 2
    /// ([rules](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#push)).
    #[serde(rename = "push")]
    Push,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 4] = [
        Variant::MayI,
        Variant::Contract7,
        Variant::Continental,
        Variant::Push,
    ];

    /// The variant's id as the API writes it.
    pub const fn id(self) -> &'static str {
        match self {
            Variant::MayI => "may_i",
            Variant::Contract7 => "contract_7",
            Variant::Continental => "continental",
            Variant::Push => "push",
        }
    }
}

impl Variant {
    /// The variant's house-rule options, as the catalogue lists them: made from the same
    /// declarations that [`Ruleset::new`] checks options against.
    pub fn house_options(self) -> Vec<HouseOption> {
        match self {
            Variant::MayI => MayIOptions::catalogue(),
            Variant::Contract7 => Contract7Options::catalogue(),
            Variant::Continental => ContinentalOptions::catalogue(),
            Variant::Push => PushOptions::catalogue(),
        }
    }
}

impl std::fmt::Display for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

impl std::str::FromStr for Variant {
    type Err = RulesetError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Variant::ALL
            .into_iter()
            .find(|v| v.id() == s)
            .ok_or_else(|| RulesetError::UnknownVariant(s.to_owned()))
    }
}

/// A variant with its options: everything the engine needs to referee a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(tag = "variant", content = "options")]
pub enum Ruleset {
    /// `may_i`
    #[serde(rename = "may_i")]
    MayI(MayIOptions),
    /// `contract_7`
    #[serde(rename = "contract_7")]
    Contract7(Contract7Options),
    /// `continental`
    #[serde(rename = "continental")]
    Continental(ContinentalOptions),
    /// `push`
    #[serde(rename = "push")]
    Push(PushOptions),
}

/// Why a ruleset or a player count is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, strum::EnumDiscriminants)]
#[strum_discriminants(
    name(RulesetCode),
    vis(pub(crate)),
    derive(strum::EnumIter, strum::IntoStaticStr),
    strum(serialize_all = "snake_case")
)]
pub enum RulesetError {
    /// Not one of the four variant ids.
    #[error("unknown variant {0:?}: use may_i, contract_7, continental or push")]
    UnknownVariant(String),
    /// An option that this variant does not have, or a value of the wrong type.
    #[error("invalid options for {variant}: {message}")]
    #[strum_discriminants(strum(serialize = "invalid_options"))]
    InvalidOptions {
        /// The variant.
        variant: Variant,
        /// What serde said.
        message: String,
    },
    /// An option value outside its range.
    #[error("option {option} must be {expected}")]
    #[strum_discriminants(strum(serialize = "invalid_options"))]
    OptionOutOfRange {
        /// The option's name.
        option: &'static str,
        /// The range it must be in.
        expected: String,
    },
    /// The variant is not played by this many players.
    #[error("{variant} is played by {min} to {max} players, not {players}")]
    PlayerCount {
        /// The variant.
        variant: Variant,
        /// Players asked for.
        players: usize,
        /// Fewest players.
        min: usize,
        /// Most players.
        max: usize,
    },
}

impl RulesetError {
    /// Stable machine-readable code: its variant's name in snake case, unless renamed.
    pub fn code(&self) -> &'static str {
        RulesetCode::from(self).into()
    }

    /// Every code a ruleset error can have (a code may come twice).
    pub fn codes() -> impl Iterator<Item = &'static str> {
        RulesetCode::iter().map(<&str>::from)
    }
}

/// How many wild cards a meld may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum WildLimit {
    /// Wilds may not outnumber naturals, except an all-wild set (`may_i`'s wild trio).
    NotMoreThanNaturals,
    /// Any number, but at least one natural card (`contract_7`, `continental`).
    AtLeastOneNatural,
    /// Any number; a meld with at most one natural must name its kind and wilds (`push`).
    Any,
}

/// How a natural card may take a wild's place on the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WildSwap {
    /// Never (`continental`).
    Never,
    /// A natural replaces a wild of a run; the wild comes to hand (`may_i`).
    InRuns,
    /// A natural replaces a wild of any meld; the wild comes to hand (`push`).
    Anywhere,
    /// In the player's own run the natural takes the joker's place and the joker moves to an
    /// end of the same run (`contract_7`).
    JokerToRunEnd,
}

/// What happens when a card must come from an empty stock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Restock {
    /// The whole discard pile, the first time only; the next time the deal ends.
    WholePileOnce,
    /// The pile but its top card, as often as there is more than one card.
    AllButTop,
    /// Never: the deal ends.
    Never,
}

/// How the first dealer is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstDealerDraw {
    /// A random seat.
    RandomSeat,
    /// The seat drawing the highest card.
    HighestCard,
    /// The seat drawing the lowest card.
    LowestCard,
}

/// A set made only of wilds that has no rank: what it is and what may be laid off on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RanklessSet {
    /// `may_i`'s wild trio (§2): read whenever the cards are all wild; only wilds may be laid
    /// off on it, and it never gets a rank.
    WildsOnly,
    /// `push` (§5): an all-wild set that names only its kind (or designates `*`); the first
    /// natural card laid off on it fixes its rank. Wilds laid off leave it rankless.
    RankFromFirstNatural,
}

/// How a deal is scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scoring {
    /// Each player scores the cards left in hand (`may_i`, `contract_7`, `push` played
    /// individually).
    HandsLeft,
    /// The player who went out is paid by each of the others (`continental`,
    /// docs/rules.md#continental-scoring).
    WinnerPaid,
    /// Partners score their two hands together; the team of the player who went out scores 0
    /// (`push` in partnerships, docs/rules.md#push-scoring).
    Teams,
}

/// The house limits on "May I?" claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClaimLimits {
    /// No claims in this many last deals of the game.
    pub disabled_last_deals: u8,
    /// At most this many claims won by one player in a deal, when limited.
    pub max_per_deal: Option<u32>,
}

impl Ruleset {
    /// The ruleset of `variant` with `options` (a JSON object; `None` or `null` for the defaults).
    ///
    /// # Errors
    /// [`RulesetError::InvalidOptions`] for an option the variant does not have or a value of
    /// the wrong type, [`RulesetError::OptionOutOfRange`] for a value out of range.
    pub fn new(variant: Variant, options: Option<serde_json::Value>) -> Result<Ruleset, RulesetError> {
        let options = match options {
            // The defaults, as `{}` would read (a test holds them equal), without reading it.
            None | Some(serde_json::Value::Null) => return Ok(Ruleset::default_for(variant)),
            Some(v) => v,
        };
        let invalid = |e: serde_json::Error| RulesetError::InvalidOptions {
            variant,
            message: e.to_string(),
        };
        let ruleset = match variant {
            Variant::MayI => Ruleset::MayI(serde_json::from_value(options).map_err(invalid)?),
            Variant::Contract7 => Ruleset::Contract7(serde_json::from_value(options).map_err(invalid)?),
            Variant::Continental => Ruleset::Continental(serde_json::from_value(options).map_err(invalid)?),
            Variant::Push => Ruleset::Push(serde_json::from_value(options).map_err(invalid)?),
        };
        ruleset.check_ranges()?;
        Ok(ruleset)
    }

    /// The variant's rules with every option at its default.
    pub fn default_for(variant: Variant) -> Ruleset {
        match variant {
            Variant::MayI => Ruleset::MayI(MayIOptions::default()),
            Variant::Contract7 => Ruleset::Contract7(Contract7Options::default()),
            Variant::Continental => Ruleset::Continental(ContinentalOptions::default()),
            Variant::Push => Ruleset::Push(PushOptions::default()),
        }
    }

    fn check_ranges(&self) -> Result<(), RulesetError> {
        match self {
            Ruleset::MayI(o) => o.check_ranges(),
            Ruleset::Contract7(o) => o.check_ranges(),
            Ruleset::Continental(o) => o.check_ranges(),
            Ruleset::Push(o) => o.check_ranges(),
        }
        .map_err(|OutOfRange { option, expected }| RulesetError::OptionOutOfRange { option, expected })
    }

    /// The variant these rules are of.
    pub const fn variant(&self) -> Variant {
        match self {
            Ruleset::MayI(_) => Variant::MayI,
            Ruleset::Contract7(_) => Variant::Contract7,
            Ruleset::Continental(_) => Variant::Continental,
            Ruleset::Push(_) => Variant::Push,
        }
    }

    /// How many players may sit down.
    pub fn players(&self) -> RangeInclusive<usize> {
        match self {
            Ruleset::MayI(_) | Ruleset::Contract7(_) => 2..=8,
            Ruleset::Continental(_) => 2..=12,
            Ruleset::Push(o) if o.individual => 4..=6,
            Ruleset::Push(_) => 4..=4,
        }
    }

    /// Checks that `players` may play these rules.
    ///
    /// # Errors
    /// [`RulesetError::PlayerCount`] outside [`Ruleset::players`].
    pub fn check_players(&self, players: usize) -> Result<(), RulesetError> {
        let range = self.players();
        if range.contains(&players) {
            Ok(())
        } else {
            Err(RulesetError::PlayerCount {
                variant: self.variant(),
                players,
                min: *range.start(),
                max: *range.end(),
            })
        }
    }

    /// Number of 52-card packs shuffled together, and jokers in all, for `players`.
    pub fn packs(&self, players: usize) -> (usize, usize) {
        match self {
            Ruleset::MayI(_) => {
                let packs = players.div_ceil(2).max(2);
                (packs, packs * 2)
            }
            Ruleset::Contract7(_) if players >= 7 => (3, 3),
            Ruleset::Contract7(_) => (2, 2),
            Ruleset::Continental(o) => {
                let packs = match players {
                    0..=5 => 2,
                    6..=8 => 3,
                    _ => 4,
                };
                (packs, packs * o.jokers_per_pack as usize)
            }
            Ruleset::Push(o) if o.individual && players > 4 => (3, 6),
            Ruleset::Push(_) => (2, 4),
        }
    }

    /// The full pack for `players`, in a fixed order (packs one after another, then jokers).
    pub fn pack(&self, players: usize) -> Vec<Card> {
        let (packs, jokers) = self.packs(players);
        let mut cards = Vec::with_capacity(packs * 52 + jokers);
        for _ in 0..packs {
            cards.extend(Card::suited());
        }
        cards.extend(std::iter::repeat_n(Card::JOKER, jokers));
        cards
    }

    /// Whether `card` is wild under these rules.
    pub fn is_wild(&self, card: Card) -> bool {
        match card {
            Card::Joker => true,
            Card::Suited { rank, suit } => match self {
                Ruleset::MayI(o) => {
                    (rank == Rank::Ace && suit.is_red()) || (o.deuces_wild && rank == Rank::Two)
                }
                Ruleset::Contract7(_) => false,
                Ruleset::Continental(o) => o.deuces_wild && rank == Rank::Two,
                Ruleset::Push(_) => rank == Rank::Two,
            },
        }
    }

    /// The wild cards of these rules, one of each.
    pub fn wild_cards(&self) -> Vec<Card> {
        let mut wilds: Vec<Card> = Card::suited().filter(|c| self.is_wild(*c)).collect();
        wilds.push(Card::JOKER);
        wilds
    }

    /// How many wilds a meld may hold.
    pub const fn wild_limit(&self) -> WildLimit {
        match self {
            Ruleset::MayI(_) => WildLimit::NotMoreThanNaturals,
            Ruleset::Contract7(_) | Ruleset::Continental(_) => WildLimit::AtLeastOneNatural,
            Ruleset::Push(_) => WildLimit::Any,
        }
    }

    /// What a set made only of wilds, with no rank, may be and take; `None` where there is
    /// no such set (`contract_7`, `continental`).
    pub const fn rankless_set(&self) -> Option<RanklessSet> {
        match self {
            Ruleset::MayI(_) => Some(RanklessSet::WildsOnly),
            Ruleset::Push(_) => Some(RanklessSet::RankFromFirstNatural),
            Ruleset::Contract7(_) | Ruleset::Continental(_) => None,
        }
    }

    /// Whether a game may be suspended between deals and resumed (`may_i`, docs/rules.md#suspension).
    pub const fn can_suspend(&self) -> bool {
        matches!(self, Ruleset::MayI(_))
    }

    /// Whether sets (trios) are melds in this variant (not in `continental`).
    pub const fn sets_allowed(&self) -> bool {
        !matches!(self, Ruleset::Continental(_))
    }

    /// The fewest cards of a meld of `kind`.
    pub const fn min_len(&self, kind: MeldKind) -> usize {
        match (self, kind) {
            (_, MeldKind::Set) => 3,
            (Ruleset::MayI(_) | Ruleset::Contract7(_), MeldKind::Run) => 4,
            (Ruleset::Continental(_) | Ruleset::Push(_), MeldKind::Run) => 3,
        }
    }

    /// Number of deals in a game.
    pub const fn deals(&self) -> u8 {
        match self {
            Ruleset::MayI(_) | Ruleset::Contract7(_) => 7,
            Ruleset::Continental(o) => o.deals,
            Ruleset::Push(_) => 5,
        }
    }

    /// Cards dealt to each player in deal `deal` (1-based).
    pub const fn hand_size(&self, deal: u8) -> usize {
        match self {
            Ruleset::MayI(_) => 12,
            Ruleset::Contract7(_) => 6 + deal as usize,
            Ruleset::Continental(_) => 15,
            Ruleset::Push(o) if o.ten_every_deal => 10,
            Ruleset::Push(_) => 5 + deal as usize,
        }
    }

    /// The contract of deal `deal` (1-based; deals past the seventh repeat the last contract).
    pub fn contract(&self, deal: u8) -> Contract {
        use MeldKind::{Run, Set};
        let idx = deal.clamp(1, 7) as usize - 1;
        let seven: [&[MeldKind]; 7] = [
            &[Set, Set],
            &[Set, Run],
            &[Run, Run],
            &[Set, Set, Set],
            &[Set, Set, Run],
            &[Set, Run, Run],
            &[Run, Run, Run],
        ];
        let needs = |kinds: &[MeldKind]| {
            Contract::Melds(
                kinds
                    .iter()
                    .map(|&kind| Requirement {
                        kind,
                        min_len: self.min_len(kind),
                    })
                    .collect(),
            )
        };
        match self {
            Ruleset::MayI(_) | Ruleset::Contract7(_) => needs(seven[idx]),
            Ruleset::Continental(_) => Contract::GoOut,
            Ruleset::Push(o) => {
                let req = |kind, min_len| Requirement { kind, min_len };
                Contract::Melds(match deal.clamp(1, 5) {
                    1 => vec![req(Set, 3), req(Set, 3)],
                    2 => vec![req(Set, 3), req(Run, 4)],
                    3 => vec![req(Run, 4), req(Run, 4)],
                    4 => vec![req(Set, 3), req(Set, 3), req(Set, 3)],
                    _ if o.three_and_seven => vec![req(Run, 3), req(Run, 7)],
                    _ => vec![req(Run, 5), req(Run, 5)],
                })
            }
        }
    }

    /// Penalty points of a card left in hand at the end of a deal; `None` in `continental`,
    /// which pays the winner instead of counting hands.
    pub fn card_value(&self, card: Card) -> Option<i32> {
        let rank = card.rank();
        Some(match self {
            Ruleset::MayI(_) => match rank {
                None => 50,
                Some(Rank::Ace) => 20,
                Some(r) if r >= Rank::Ten => 10,
                Some(_) => 5,
            },
            Ruleset::Contract7(_) => match rank {
                None => 50,
                Some(Rank::Ace) => 11,
                Some(r) if r >= Rank::Ten => 10,
                Some(r) => i32::from(r.number()),
            },
            Ruleset::Continental(_) => return None,
            Ruleset::Push(_) => match rank {
                None | Some(Rank::Two) => 20,
                Some(Rank::Ace) => 15,
                Some(r) if r >= Rank::Ten => 10,
                Some(_) => 5,
            },
        })
    }

    /// Penalty points of `hand` left at the end of a deal, its cards' values added up; `None`
    /// in `continental`, which pays the winner instead of counting hands.
    pub fn hand_value(&self, hand: &[Card]) -> Option<i32> {
        if matches!(self, Ruleset::Continental(_)) {
            return None;
        }
        Some(hand.iter().map(|&c| self.card_value(c).unwrap_or(0)).sum())
    }

    /// Whether a deal is won by laying down the whole hand at once, with no lay-offs or other
    /// table play, and before the first draw too (`continental`,
    /// docs/rules.md#continental-going-out).
    pub const fn goes_out_all_at_once(&self) -> bool {
        matches!(self, Ruleset::Continental(_))
    }

    /// Whether a player who is down may start new melds (`push`, docs/rules.md#push-after-down).
    pub const fn melds_after_going_down(&self) -> bool {
        matches!(self, Ruleset::Push(_))
    }

    /// Whether this turn's table plays may be taken back (`may_i`, docs/rules.md#taking-back).
    pub const fn takes_back(&self) -> bool {
        matches!(self, Ruleset::MayI(_))
    }

    /// How a natural card may take a wild's place on the table.
    pub const fn wild_swap(&self) -> WildSwap {
        match self {
            Ruleset::MayI(_) => WildSwap::InRuns,
            Ruleset::Contract7(_) => WildSwap::JokerToRunEnd,
            Ruleset::Continental(_) => WildSwap::Never,
            Ruleset::Push(_) => WildSwap::Anywhere,
        }
    }

    /// Whether a joker at an end of a player's run may move to another run (`contract_7`).
    pub const fn moves_jokers(&self) -> bool {
        matches!(self, Ruleset::Contract7(_))
    }

    /// Whether drawing from the stock with a discard on the pile pushes the discard and a
    /// stock card to the next player (`push`, docs/rules.md#push-draw).
    pub const fn push_draw(&self) -> bool {
        matches!(self, Ruleset::Push(_))
    }

    /// Whether a wild upcard is buried in the stock (`push`).
    pub const fn buries_wild_upcard(&self) -> bool {
        matches!(self, Ruleset::Push(_))
    }

    /// Cards dealt to each player at a time (`continental` deals three at a time).
    pub const fn deal_packet(&self) -> usize {
        if matches!(self, Ruleset::Continental(_)) {
            3
        } else {
            1
        }
    }

    /// What happens when a card must come from an empty stock.
    pub const fn restock(&self) -> Restock {
        match self {
            Ruleset::MayI(_) | Ruleset::Contract7(_) => Restock::WholePileOnce,
            Ruleset::Continental(_) => Restock::AllButTop,
            Ruleset::Push(_) => Restock::Never,
        }
    }

    /// How the first dealer is chosen (docs/rules.md#dealer).
    pub const fn first_dealer_draw(&self) -> FirstDealerDraw {
        match self {
            Ruleset::MayI(_) => FirstDealerDraw::HighestCard,
            Ruleset::Contract7(_) | Ruleset::Continental(_) => FirstDealerDraw::LowestCard,
            Ruleset::Push(_) => FirstDealerDraw::RandomSeat,
        }
    }

    /// Whether the highest total wins (`continental` pays the winner); elsewhere the lowest.
    pub const fn highest_total_wins(&self) -> bool {
        matches!(self, Ruleset::Continental(_))
    }

    /// The score of a player who goes down with the whole contract and goes out in the same
    /// turn, when the variant rewards it (`contract_7`: -10).
    pub const fn down_and_out_score(&self) -> Option<i32> {
        if matches!(self, Ruleset::Contract7(_)) {
            Some(-10)
        } else {
            None
        }
    }

    /// Which melds may be all wild: `may_i`'s wild trio (a set), any meld in `push` (naming
    /// what the wilds represent); none elsewhere.
    pub const fn all_wild_allowed(&self, kind: MeldKind) -> bool {
        match self {
            Ruleset::MayI(_) => matches!(kind, MeldKind::Set),
            Ruleset::Push(_) => true,
            Ruleset::Contract7(_) | Ruleset::Continental(_) => false,
        }
    }

    /// Whether wilds alone with nothing named make a set that stands for any rank (`may_i`'s
    /// wild trio, docs/rules.md#may_i-wilds).
    pub const fn has_wild_trio(&self) -> bool {
        matches!(self, Ruleset::MayI(_))
    }

    /// Whether a player must keep a card to discard: no meld or lay-off may empty the hand
    /// (`contract_7`, docs/rules.md#contract_7-play).
    pub const fn keeps_last_card(&self) -> bool {
        matches!(self, Ruleset::Contract7(_))
    }

    /// Whether this variant has out-of-turn claims ("May I?").
    pub const fn has_claims(&self) -> bool {
        self.claim_limits().is_some()
    }

    /// The house limits on claims, in the variants that have claims: `None` elsewhere.
    pub const fn claim_limits(&self) -> Option<ClaimLimits> {
        match self {
            Ruleset::MayI(o) => Some(ClaimLimits {
                disabled_last_deals: o.claims_disabled_last_deals,
                max_per_deal: o.max_claims_per_deal,
            }),
            Ruleset::Contract7(o) => Some(ClaimLimits {
                disabled_last_deals: o.claims_disabled_last_deals,
                max_per_deal: o.max_claims_per_deal,
            }),
            Ruleset::Continental(_) | Ruleset::Push(_) => None,
        }
    }

    /// The team of the player at seat `index` when partners play as teams (`push` unless
    /// `individual`: partners sit opposite, team `index % 2`); `None` when each plays alone.
    pub const fn team_of(&self, index: usize) -> Option<u8> {
        match self {
            Ruleset::Push(o) if !o.individual => Some((index % 2) as u8),
            _ => None,
        }
    }

    /// How a deal is scored.
    pub const fn scoring(&self) -> Scoring {
        match self {
            Ruleset::MayI(_) | Ruleset::Contract7(_) => Scoring::HandsLeft,
            Ruleset::Continental(_) => Scoring::WinnerPaid,
            Ruleset::Push(o) if o.individual => Scoring::HandsLeft,
            Ruleset::Push(_) => Scoring::Teams,
        }
    }

    /// Whether the winner of a deal is paid bonuses on top of the hands (`continental` with
    /// `bonuses`, docs/rules.md#continental-scoring).
    pub const fn pays_bonuses(&self) -> bool {
        matches!(self, Ruleset::Continental(o) if o.bonuses)
    }

    /// Whether the deal passes to the left after every deal; `continental` may keep it with
    /// the winner (option `deal_passes_left`). Without a winner it passes left everywhere.
    pub const fn deal_passes_left(&self) -> bool {
        match self {
            Ruleset::Continental(o) => o.deal_passes_left,
            _ => true,
        }
    }

    /// Whether the deal's first upcard is on offer to claims (option `first_upcard_claims`,
    /// default on: tables play it both ways; docs/rules.md#claims). Never without claims.
    pub const fn first_upcard_claims(&self) -> bool {
        match self {
            Ruleset::MayI(o) => o.first_upcard_claims,
            Ruleset::Contract7(o) => o.first_upcard_claims,
            Ruleset::Continental(_) | Ruleset::Push(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_sizes_follow_rules() {
        let rows = [
            (Variant::MayI, 4, 108, "§2: 4 players, two packs and 4 jokers"),
            (Variant::MayI, 6, 162, "§2: 5-6 players, three packs"),
            (Variant::MayI, 8, 216, "§2: 7-8 players, four packs"),
            (Variant::MayI, 2, 108, "§2: at least two packs"),
            (Variant::Contract7, 4, 106, "§3: two packs and two jokers"),
            (
                Variant::Contract7,
                8,
                159,
                "§3: 7-8 players, three packs and three jokers",
            ),
            (
                Variant::Continental,
                5,
                106,
                "§4: 2-5 players two packs, a joker each",
            ),
            (Variant::Continental, 6, 159, "§4: 6-8 players three packs"),
            (Variant::Continental, 12, 212, "§4: 9-12 players four packs"),
            (Variant::Push, 4, 108, "§5: two packs and four jokers"),
        ];
        for (variant, players, size, why) in rows {
            assert_eq!(Ruleset::default_for(variant).pack(players).len(), size, "{why}");
        }
        let individual = Ruleset::new(Variant::Push, Some(serde_json::json!({"individual": true})))
            .expect("individual push");
        assert_eq!(
            individual.pack(5).len(),
            162,
            "§5 individual: third pack with 2 jokers"
        );
    }

    #[test]
    fn options_are_checked() {
        let unknown = Ruleset::new(Variant::MayI, Some(serde_json::json!({"individual": true})));
        assert_eq!(
            unknown.expect_err("push option on may_i").code(),
            "invalid_options"
        );
        let wrong_type = Ruleset::new(Variant::Continental, Some(serde_json::json!({"deals": "x"})));
        assert!(wrong_type.is_err());
        let range = Ruleset::new(Variant::Continental, Some(serde_json::json!({"deals": 0})));
        assert!(range.is_err());
        assert_eq!(
            "pusher".parse::<Variant>().expect_err("bad").code(),
            "unknown_variant"
        );
    }

    #[test]
    fn wilds_by_variant() {
        let ah: Card = "AH".parse().expect("card");
        let two: Card = "2C".parse().expect("card");
        let may_i = Ruleset::default_for(Variant::MayI);
        assert!(may_i.is_wild(ah) && !may_i.is_wild("AS".parse().expect("card")));
        assert!(!may_i.is_wild(two), "§2 deuces_wild defaults off");
        assert!(
            !Ruleset::default_for(Variant::Contract7).is_wild(ah),
            "§3 jokers only"
        );
        assert!(
            Ruleset::default_for(Variant::Continental).is_wild(two),
            "§4 deuces on"
        );
        assert!(Ruleset::default_for(Variant::Push).is_wild(two), "§5 twos wild");
    }

    #[test]
    fn no_options_are_the_options_read_from_an_empty_object() {
        for variant in Variant::ALL {
            let read = Ruleset::new(variant, Some(serde_json::json!({}))).expect("{} is valid");
            assert_eq!(Ruleset::new(variant, None), Ok(read.clone()), "{variant:?}");
            assert_eq!(Ruleset::default_for(variant), read, "{variant:?}");
        }
    }

    #[test]
    fn deal_sizes() {
        let c7 = Ruleset::default_for(Variant::Contract7);
        assert_eq!(
            (1..=7).map(|d| c7.hand_size(d)).collect::<Vec<_>>(),
            [7, 8, 9, 10, 11, 12, 13]
        );
        let push = Ruleset::default_for(Variant::Push);
        assert_eq!(
            (1..=5).map(|d| push.hand_size(d)).collect::<Vec<_>>(),
            [6, 7, 8, 9, 10]
        );
    }
}
