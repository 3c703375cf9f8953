//! What a stored game must hold before it is played: what the rules never break and the
//! engine relies on (docs/rules.md#conservation); and the bookkeeping derived from it, which
//! is rebuilt as it loads rather than trusted or refused.

use std::collections::BTreeSet;

use super::{Game, Repair, Seat, Status};
use crate::card::{Card, DISTINCT_CARDS};
use crate::ruleset::Restock;

impl Game {
    /// The first thing in this game that the rules could not have made, if any. The steps:
    /// the shape (per-seat lists, deals), every seat named, then every card once.
    pub(super) fn check(&self) -> Result<(), String> {
        self.check_shape()?;
        self.check_seats()?;
        // What a seat is known to hold, the next meld id and the totals are derived: loading
        // rebuilt them (`Game::repair`), so they cannot make a game corrupt.
        self.check_cards()
    }

    /// The players the variant allows, one entry per seat in every per-seat list, and a deal
    /// of the game's deals.
    fn check_shape(&self) -> Result<(), String> {
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
        // A stock turned over is known to every seat (`Game::stock_is_public`): a deal still
        // played has turned it over no more often than the variant goes on after.
        let most = match rules.restock() {
            Restock::Never => 0,
            Restock::WholePileOnce => 1,
            Restock::AllButTop => u8::MAX,
        };
        if matches!(self.status, Status::Playing | Status::Suspended) && self.exhaustions > most {
            return Err(format!(
                "the stock ran out {} times in a deal still played, where this variant turns it over {most} times at most",
                self.exhaustions
            ));
        }
        Ok(())
    }

    /// Every seat the game names is at the table: the dealer, the turn (a seat still in,
    /// docs/rules.md#leaving), claims and requests (one per seat), the discarder on offer (the
    /// offer the top of the pile, docs/rules.md#claims), meld owners (each meld id once) and
    /// the standings.
    fn check_seats(&self) -> Result<(), String> {
        let players = self.players();
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
            ("a pass", &self.passed),
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
        Ok(())
    }

    /// docs/rules.md#conservation: every card of the game's packs exactly once, wherever it is.
    fn check_cards(&self) -> Result<(), String> {
        let held = tally(self.census().iter());
        let pack = tally(self.config.ruleset.pack(self.players()).iter());
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

impl Game {
    /// Rebuilds the derived facts that do not follow from the game's own (the cards each
    /// seat is known to hold, the next meld id, the running totals) and says what it changed.
    /// Never refuses: what the game's own facts break is left for [`Game::check`].
    pub(super) fn repair(&mut self) -> Vec<Repair> {
        let players = self.players();
        let mut repairs = Vec::new();
        if self.public.seats() > players {
            repairs.push(Repair::Seen {
                kept: self.public.seats(),
                players,
            });
            self.public.keep_seats(players);
        }
        for (i, (hand, aside)) in self.hands.iter().zip(self.set_aside.iter()).enumerate() {
            let seat = Self::seat_of(i);
            let held: Vec<Card> = hand.iter().chain(aside).copied().collect();
            let forgotten = self.public.forget_unheld(seat, &held);
            if !forgotten.is_empty() {
                repairs.push(Repair::Known {
                    seat,
                    cards: names(&forgotten),
                });
            }
        }
        let (wilds, among) = self.public.buried_wilds();
        let rules = self.rules();
        let buried_as_dealt = |wilds: &[Card]| {
            rules.buries_wild_upcard()
                && wilds.iter().all(|c| rules.is_wild(*c))
                && wilds.len() <= among
                && among >= self.stock.len()
                && among < rules.pack(players).len()
        };
        if !wilds.is_empty() && !buried_as_dealt(wilds) {
            let forgotten = self.public.forget_buried();
            repairs.push(Repair::Buried {
                cards: names(&forgotten),
            });
        }
        let past = self.table.iter().map(|m| m.id.saturating_add(1)).max();
        if let Some(now) = past.filter(|&p| p > self.next_meld_id) {
            repairs.push(Repair::NextMeldId {
                was: self.next_meld_id,
                now,
            });
            self.next_meld_id = now;
        }
        // Once the game is over a leaver's total is no longer a sum (docs/rules.md#leaving).
        if !matches!(self.status, Status::Finished | Status::Void) {
            for (i, total) in self.totals.iter_mut().enumerate() {
                let now = self
                    .deal_scores
                    .iter()
                    .map(|deal| deal.get(i).copied().unwrap_or(0))
                    .fold(0i32, i32::saturating_add);
                if *total != now {
                    repairs.push(Repair::Total {
                        seat: Self::seat_of(i),
                        was: *total,
                        now,
                    });
                    *total = now;
                }
            }
        }
        repairs
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
    fn a_card_known_held_but_not_in_hand_is_forgotten_and_named() {
        let mut game = dealt();
        let elsewhere = game.hands[Seat(2)][0];
        let own = game.hands[Seat(0)][0];
        game.public.took(Seat(0), elsewhere);
        game.public.took(Seat(0), own);
        let repairs = game.repair();
        assert_eq!(
            repairs,
            [Repair::Known {
                seat: Seat(0),
                cards: elsewhere.to_string()
            }]
        );
        assert_eq!(game.public.known_of(Seat(0)), [own], "what it holds stays known");
        assert_eq!(game.check(), Ok(()));
        assert!(game.repair().is_empty(), "nothing left to repair");
    }
}
