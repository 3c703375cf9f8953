//! What a stored game must hold before it is played: what the rules never break and the
//! engine relies on (docs/rules.md#conservation).

use std::collections::BTreeSet;

use super::{Game, Seat, Status};
use crate::card::{Card, DISTINCT_CARDS};

impl Game {
    /// The first thing in this game that the rules could not have made, if any.
    pub(super) fn check(&self) -> Result<(), String> {
        let rules = &self.config.ruleset;
        let players = self.players();
        rules.check_players(players).map_err(|e| e.to_string())?;
        let per_seat = [
            ("hands", self.hands.len()),
            ("set_aside", self.set_aside.len()),
            ("down", self.down.len()),
            ("active", self.active.len()),
            ("claims_won", self.claims_won.len()),
            ("draws", self.draws.len()),
            ("totals", self.totals.len()),
        ];
        for (name, len) in per_seat {
            if len != players {
                return Err(format!("`{name}` has {len} seats, not {players}"));
            }
        }
        if let Some(row) = self.deal_scores.iter().position(|r| r.len() != players) {
            return Err(format!("the scores of deal {} are not one per seat", row + 1));
        }
        if self.deal_scores.len() > usize::from(rules.deals()) {
            return Err(format!(
                "{} deals scored of {}",
                self.deal_scores.len(),
                rules.deals()
            ));
        }
        if !(1..=rules.deals()).contains(&self.deal) {
            return Err(format!("deal {} of a game of {} deals", self.deal, rules.deals()));
        }
        let seat = |what: &str, s: Seat| match s.index() < players {
            true => Ok(()),
            false => Err(format!("{what} is seat {s} at a table of {players}")),
        };
        seat("the dealer", self.dealer)?;
        seat("the turn", self.turn)?;
        if self.status == Status::Playing && !self.active[self.turn] {
            return Err(format!("the turn is seat {}, which has left", self.turn));
        }
        for (what, seats) in [
            ("a pending claim", &self.pending),
            ("a request to suspend", &self.suspend_requests),
            ("a request to resume", &self.resume_requests),
        ] {
            for s in seats {
                seat(what, *s)?;
            }
            if seats.iter().collect::<BTreeSet<_>>().len() != seats.len() {
                return Err(format!("{what} is made twice by one seat"));
            }
        }
        if let Some(offer) = self.offer {
            if self.discard.last() != Some(&offer.card) {
                return Err(format!(
                    "the discard on offer, {}, is not the top of the pile",
                    offer.card
                ));
            }
            if let Some(discarder) = offer.discarder {
                seat("the discarder on offer", discarder)?;
            }
        }
        let mut ids = BTreeSet::new();
        for meld in &self.table {
            seat(&format!("the owner of meld {}", meld.id), meld.owner)?;
            if !ids.insert(meld.id) || meld.id >= self.next_meld_id {
                return Err(format!("meld {} is not one of the deal's meld ids", meld.id));
            }
        }
        if let Some(standings) = &self.standings {
            for line in standings {
                seat("a line of the standings", line.seat)?;
            }
        }
        // A card a seat is publicly known to hold is in its hand (or set aside with it).
        if self.public.seats() > players {
            return Err(format!(
                "what the table saw is kept for more than {players} seats"
            ));
        }
        for (i, (hand, aside)) in self.hands.iter().zip(self.set_aside.iter()).enumerate() {
            let known = self.public.known_of(Self::seat_of(i));
            if known.is_empty() {
                continue;
            }
            let (unheld, _) = difference(&tally(known.iter()), &tally(hand.iter().chain(aside)));
            if !unheld.is_empty() {
                return Err(format!(
                    "seat {i} is known to hold [{}], which is not in its hand",
                    names(&unheld)
                ));
            }
        }
        // Every card of the game's packs exactly once, wherever it is.
        let held = tally(self.census().iter());
        let pack = tally(rules.pack(players).iter());
        if held != pack {
            let (missing, extra) = difference(&pack, &held);
            return Err(format!(
                "the cards are not the game's packs: missing [{}], besides [{}]",
                names(&missing),
                names(&extra)
            ));
        }
        Ok(())
    }
}

/// How many of each card `cards` holds, by [`Card::index`]: counted, not sorted, because a
/// game is checked on every load.
fn tally<'a>(cards: impl Iterator<Item = &'a Card>) -> [u16; DISTINCT_CARDS] {
    let mut counts = [0; DISTINCT_CARDS];
    for card in cards {
        counts[card.index()] += 1;
    }
    counts
}

/// What `a` holds that `b` does not, and what `b` holds that `a` does not (as multisets).
fn difference(a: &[u16; DISTINCT_CARDS], b: &[u16; DISTINCT_CARDS]) -> (Vec<Card>, Vec<Card>) {
    let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let card = Card::from_index(i);
        only_a.extend(std::iter::repeat_n(card, usize::from(x.saturating_sub(*y))));
        only_b.extend(std::iter::repeat_n(card, usize::from(y.saturating_sub(*x))));
    }
    (only_a, only_b)
}

fn names(cards: &[Card]) -> String {
    cards
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{GameConfig, Ruleset, Seed, Variant};

    fn dealt() -> Game {
        let config = GameConfig::new(Ruleset::default_for(Variant::MayI), 3);
        Game::new(config, Seed::from_u64(1)).expect("setup").0
    }

    #[test]
    fn a_card_gone_and_a_card_twice_are_named() {
        let mut game = dealt();
        assert_eq!(game.check(), Ok(()));
        let gone = game.stock.pop().expect("a stock");
        let twice = game.hands[Seat(1)][0];
        game.hands[Seat(0)].push(twice);
        let e = game.check().expect_err("not the packs");
        assert!(
            e.contains(&format!("missing [{gone}]")) && e.contains(&format!("besides [{twice}]")),
            "{e}"
        );
    }

    #[test]
    fn a_card_known_held_but_not_in_hand_is_named() {
        let mut game = dealt();
        let elsewhere = game.hands[Seat(2)][0];
        game.public.took(Seat(0), elsewhere);
        let e = game.check().expect_err("known but not held");
        assert!(
            e.contains(&format!("seat 0 is known to hold [{elsewhere}]")),
            "{e}"
        );
    }
}
