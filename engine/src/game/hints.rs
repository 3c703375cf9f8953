//! Suggestions for a seat: the contract (or `continental`'s way out) and the lay-offs its
//! hand allows, found by the search and kept only where the rules of play accept them.

use serde::{Deserialize, Serialize};

use super::play::check_last_card;
use super::{Action, Game, Seat};
use crate::card::Card;
use crate::contract::Contract;
use crate::reading::{Designation, Reading, RunEnd};
use crate::ruleset::Ruleset;
use crate::search::{self, find_contract, find_go_out};

/// What a seat's hand allows now: each suggestion, made in the play phase of the seat's
/// turn, is accepted as it stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Hints {
    /// Melds from the hand that meet the deal's contract (in `continental`: go out), while
    /// the seat is not down. [`Hints::meld`] is the action that lays them.
    pub contract: Option<Vec<Reading>>,
    /// `continental`: the card to discard after going out from 16 cards.
    pub discard: Option<Card>,
    /// Single cards that can be laid off, and where (once down).
    pub layoffs: Vec<LayoffHint>,
    /// Once down, where the variant lets a player lay new melds (`push`): one the hand holds.
    /// [`Hints::new_meld_action`] is the action that lays it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_meld: Option<Reading>,
    /// Once down, the cards of the hand that can take a wild's place in a meld of the table
    /// (a wild swap, where the variant has one), and where.
    #[serde(default)]
    pub swaps: Vec<SwapHint>,
}

/// One card of the hand that can replace a wild in a table meld.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct SwapHint {
    /// The table meld's id.
    pub meld_id: u32,
    /// The card from the hand.
    pub card: Card,
}

/// One card of the hand that can be laid off on a table meld.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct LayoffHint {
    /// The table meld's id.
    pub meld_id: u32,
    /// The card from the hand.
    pub card: Card,
    /// What the wild laid off represents, when it is one.
    pub wilds: Vec<Designation>,
    /// The meld as it would lie.
    pub reading: Reading,
}

impl LayoffHint {
    /// The search's `layoff` onto `on`, the meld of id `meld_id`, with the wilds it lays
    /// designated as they would lie.
    pub(crate) fn new(rules: &Ruleset, meld_id: u32, on: &Reading, layoff: search::Layoff) -> LayoffHint {
        LayoffHint {
            meld_id,
            card: layoff.card,
            wilds: layoff.reading.added_wilds(rules, on),
            reading: layoff.reading,
        }
    }

    /// The lay-off as an action.
    pub fn action(&self) -> Action {
        Action::LayOff {
            meld_id: self.meld_id,
            cards: vec![self.card],
            wilds: self.wilds.clone(),
        }
    }
}

impl Hints {
    /// The new meld as an action, pinned to the reading suggested.
    pub fn new_meld_action(&self, rules: &Ruleset) -> Option<Action> {
        let meld = self.new_meld.as_ref()?;
        Some(Action::Meld {
            melds: vec![meld.pinned(rules)],
        })
    }

    /// The contract as an action, every meld pinned to the reading suggested.
    pub fn meld(&self, rules: &Ruleset) -> Option<Action> {
        let melds = self.contract.as_ref()?;
        Some(Action::Meld {
            melds: melds.iter().map(|r| r.pinned(rules)).collect(),
        })
    }
}

impl Game {
    /// What `seat`'s hand allows: a way to meet the contract (or go out) while not down, and
    /// single-card lay-offs once down. Whether it is the seat's turn is not considered: the
    /// suggestions hold in the play phase of its turn, with this hand.
    pub fn hints(&self, seat: Seat) -> Hints {
        let mut hints = self.hints_up_to(seat, usize::MAX);
        hints.new_meld = self.new_meld_hint(seat);
        hints.swaps = self.swap_hints(seat);
        hints
    }

    /// The swaps `seat`'s hand allows once down: each distinct card against each meld that
    /// holds a wild it may replace, by the move's own test (at either end of a run where the
    /// end matters).
    fn swap_hints(&self, seat: Seat) -> Vec<SwapHint> {
        if !self.is_down(seat) || self.rules().goes_out_all_at_once() {
            return Vec::new();
        }
        let mut cards = self.hand(seat).to_vec();
        cards.sort();
        cards.dedup();
        let mut out = Vec::new();
        for (m, meld) in self.table.iter().enumerate() {
            if self.swap_rule(seat, meld).is_err() || !self.holds_swappable_wild(meld) {
                continue;
            }
            for &card in &cards {
                let fits = [None, Some(RunEnd::Low), Some(RunEnd::High)]
                    .into_iter()
                    .any(|end| self.swapped(seat, m, card, end).is_ok());
                if fits {
                    out.push(SwapHint {
                        meld_id: meld.id,
                        card,
                    });
                }
            }
        }
        out
    }

    /// A new meld the hand of `seat`, down, may lay where the variant allows melds after going
    /// down (docs/rules.md#push-after-down), keeping the last card where it must be discarded.
    fn new_meld_hint(&self, seat: Seat) -> Option<Reading> {
        let rules = self.rules();
        if !self.is_down(seat) || !rules.melds_after_going_down() || rules.goes_out_all_at_once() {
            return None;
        }
        let hand = self.hand(seat);
        search::find_meld(rules, hand)
            .filter(|meld| check_last_card(rules, hand.len().saturating_sub(meld.len())).is_ok())
    }

    /// [`Game::hints`] with at most `layoffs` of its lay-offs, the first ones: the bots play
    /// the first lay-off a hand has (each is accepted), and need not search for the rest.
    pub(crate) fn hints_up_to(&self, seat: Seat, layoffs: usize) -> Hints {
        let rules = self.rules();
        let hand = self.hand(seat);
        let down = self.is_down(seat);
        let (contract, discard) = match rules.contract(self.deal) {
            _ if down => (None, None),
            Contract::GoOut => find_go_out(rules, hand).map_or((None, None), |g| (Some(g.melds), g.discard)),
            Contract::Melds(_) => (find_contract(rules, self.deal, hand), None),
        };
        let contract = contract.filter(|melds| {
            let laid = melds.iter().map(Reading::len).sum::<usize>();
            check_last_card(rules, hand.len().saturating_sub(laid)).is_ok()
        });
        let layoffs = if down && check_last_card(rules, hand.len().saturating_sub(1)).is_ok() {
            search::layoffs(rules, hand, self.table.iter().map(|m| &m.reading))
                .filter_map(|l| {
                    let meld = self.table.get(l.meld)?;
                    Some(LayoffHint::new(rules, meld.id, &meld.reading, l))
                })
                .take(layoffs)
                .collect()
        } else {
            Vec::new()
        };
        Hints {
            contract,
            discard,
            layoffs,
            new_meld: None,
            swaps: Vec::new(),
        }
    }
}
