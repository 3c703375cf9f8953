//! What the packs of a variant can hold: a meld or a set of melds never shows more copies of a
//! card than the largest table of that variant shuffles together (docs/rules.md: the packs per
//! player count and their jokers, in each variant's "Players and packs").

use crate::card::{Card, DISTINCT_CARDS};
use crate::ruleset::Ruleset;

/// The first card of `cards` with more copies than any table of `rules` holds, as a sentence
/// a player can read; `None` when the packs can hold them all.
pub(crate) fn excess<'a>(rules: &Ruleset, cards: impl IntoIterator<Item = &'a Card>) -> Option<String> {
    let (packs, jokers) = rules.packs(*rules.players().end());
    let mut counts = [0usize; DISTINCT_CARDS];
    for card in cards {
        counts[card.index()] += 1;
        let most = if card.is_joker() { jokers } else { packs };
        if counts[card.index()] > most {
            return Some(format!(
                "more than {most} {card}: the packs of {} hold no more",
                rules.variant()
            ));
        }
    }
    None
}
