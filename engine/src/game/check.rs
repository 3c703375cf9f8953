//! What a stored game must hold before it is played: what the rules never break and the
//! engine relies on (docs/rules.md#conservation).

use std::collections::BTreeSet;

use super::{Game, Seat, Status};

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
            let mut held: Vec<_> = hand.iter().chain(aside).copied().collect();
            held.sort_unstable();
            let mut known = self.public.known_of(Self::seat_of(i)).to_vec();
            known.sort_unstable();
            let (unheld, _) = difference(&known, &held);
            if !unheld.is_empty() {
                return Err(format!(
                    "seat {i} is known to hold [{}], which is not in its hand",
                    names(&unheld)
                ));
            }
        }
        // Every card of the game's packs exactly once, wherever it is.
        let mut held = self.census();
        held.sort_unstable();
        let mut pack = rules.pack(players);
        pack.sort_unstable();
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

/// What `a` holds that `b` does not, and what `b` holds that `a` does not (both sorted,
/// as multisets).
fn difference<T: Ord + Copy>(a: &[T], b: &[T]) -> (Vec<T>, Vec<T>) {
    let (mut i, mut j) = (0, 0);
    let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => (i, j) = (i + 1, j + 1),
            (Some(x), Some(y)) if x < y => {
                only_a.push(*x);
                i += 1;
            }
            (Some(x), None) => {
                only_a.push(*x);
                i += 1;
            }
            (_, Some(y)) => {
                only_b.push(*y);
                j += 1;
            }
            (None, None) => break,
        }
    }
    (only_a, only_b)
}

fn names(cards: &[crate::card::Card]) -> String {
    cards
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}
