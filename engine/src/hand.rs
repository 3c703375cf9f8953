//! A hand without a game: what it makes of a deal's contract, where its cards go on melds the
//! caller describes, and what it would cost left in hand. The game's own searches, asked of a
//! bare hand and table (docs/api.md#hands).

use crate::card::Card;
use crate::contract::Contract;
use crate::game::LayoffHint;
use crate::reading::Reading;
use crate::ruleset::Ruleset;
use crate::search::{contract_shortfall, find_contract, find_go_out, layoffs};

/// What a hand makes of a deal, by [`arrange`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrangement {
    /// Melds from the hand that meet the deal's contract (in `continental`: go out), as
    /// [`find_contract`] (or [`find_go_out`]) finds them; `None` when the hand holds none.
    pub contract: Option<Vec<Reading>>,
    /// `continental`: the card left to discard after going out from 16 cards.
    pub discard: Option<Card>,
    /// How many cards the hand is short of the contract: 0 when it holds it, else
    /// [`contract_shortfall`], and at least 1.
    pub cards_short: usize,
    /// Single cards of the hand that can be laid off on the table's melds, each with the
    /// index of its meld in the table as `meld_id`: [`find_layoffs`](crate::find_layoffs)'s.
    pub layoffs: Vec<LayoffHint>,
    /// What the hand would cost left in hand at the end of the deal ([`Ruleset::hand_value`]).
    pub penalty_points: Option<i32>,
}

/// What `hand` makes of deal `deal` with `table`'s melds lying: the contract's melds or how
/// far it is from them, the lay-offs, and its penalty points. Unlike
/// [`Game::hints`](crate::Game::hints), nothing of a game is asked: whether the seat is down,
/// or whether a lay-off would be of its last card.
pub fn arrange(rules: &Ruleset, deal: u8, hand: &[Card], table: &[Reading]) -> Arrangement {
    let (contract, discard) = match rules.contract(deal) {
        Contract::GoOut => find_go_out(rules, hand).map_or((None, None), |g| (Some(g.melds), g.discard)),
        Contract::Melds(_) => (find_contract(rules, deal, hand), None),
    };
    let cards_short = match contract {
        Some(_) => 0,
        None => contract_shortfall(rules, deal, hand).max(1),
    };
    let layoffs = layoffs(rules, hand, table)
        .map(|l| {
            let on = &table[l.meld];
            LayoffHint::new(rules, u32::try_from(l.meld).unwrap_or(u32::MAX), on, l)
        })
        .collect();
    Arrangement {
        contract,
        discard,
        cards_short,
        layoffs,
        penalty_points: rules.hand_value(hand),
    }
}
