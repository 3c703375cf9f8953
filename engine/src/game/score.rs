//! Ends of deals and of the game: scoring per variant, standings (docs/rules.md#scoring and each
//! variant's scoring).

use super::{DealEnd, Event, Game, Seat, Standing, Status};
use crate::card::{Card, Rank};
use crate::ruleset::{Ruleset, Scoring};

/// `continental`'s payment from each loser to the winner (docs/rules.md#continental-scoring): 1 for
/// the game, 2 a joker, 1 a deuce used as a wild, and the bonuses.
pub(super) fn continental_payment(rules: &Ruleset, melds: &[&crate::reading::Reading], draws: u32) -> i32 {
    let mut pay = 1;
    let mut wilds = 0;
    for slot in melds.iter().flat_map(|m| m.slots()) {
        if slot.natural {
            continue;
        }
        wilds += 1;
        match slot.card {
            Card::Joker => pay += 2,
            Card::Suited { rank: Rank::Two, .. } => pay += 1,
            Card::Suited { .. } => {}
        }
    }
    if rules.pays_bonuses() {
        match draws {
            0 => pay += 10,
            1 => pay += 7,
            _ => {}
        }
        if wilds == 0 {
            pay += 10;
        }
        let mut suits = melds.iter().filter_map(|m| m.suit());
        if let Some(first) = suits.next()
            && suits.all(|s| s == first)
        {
            pay += 10;
        }
    }
    pay
}

impl Game {
    fn hand_value(&self, cards: &[Card]) -> i32 {
        self.rules().hand_value(cards).unwrap_or(0)
    }

    /// Scores the deal, then deals the next one or ends the game. The steps: the deal's scores
    /// as the variant counts them, added to the totals; the `DealEnded` event; then the game's
    /// end, or the next dealer and the next deal.
    pub(super) fn end_deal(&mut self, end: DealEnd, ev: &mut Vec<Event>) {
        let winner = match end {
            DealEnd::WentOut { seat } => Some(seat),
            DealEnd::StockExhausted => None,
        };
        let mut scores = match self.rules().scoring() {
            Scoring::HandsLeft => self.hands_left_scores(winner),
            Scoring::WinnerPaid => self.winner_paid_scores(winner),
            Scoring::Teams => self.team_scores(winner),
        };
        for (i, score) in scores.iter_mut().enumerate() {
            if self.active[i] {
                self.totals[i] += *score;
            } else {
                *score = 0;
            }
        }
        self.deal_scores.push(scores.clone());
        let last = super::LastDeal {
            deal: self.deal,
            end,
            hands: self.hands.to_vec(),
            scores,
            totals: self.totals.to_vec(),
        };
        self.last_deal = Some(last.clone());
        ev.push(Event::DealEnded {
            deal: last.deal,
            end: last.end,
            hands: last.hands,
            scores: last.scores,
            totals: last.totals,
        });
        if self.deal >= self.rules().deals() {
            self.finish(ev);
            return;
        }
        self.dealer = self.next_dealer(winner);
        self.deal += 1;
        self.start_deal(ev);
    }

    /// docs/rules.md#may_i-scoring and docs/rules.md#contract_7-scoring: each seat still in
    /// scores the cards left in its hand; in `contract_7` the winner who dropped the whole
    /// contract and went out in the same turn scores the down-and-out score instead.
    fn hands_left_scores(&self, winner: Option<Seat>) -> Vec<i32> {
        let mut scores = vec![0i32; self.players()];
        for i in (0..self.players()).filter(|&i| self.active[i]) {
            scores[i] = self.hand_value(&self.hands[i]);
        }
        if let Some(w) = winner
            && let Some(score) = self.rules().down_and_out_score()
            && self.turn_state.went_down
        {
            scores[w.index()] = score;
        }
        scores
    }

    /// docs/rules.md#continental-scoring: each other seat still in pays the winner; a deal with
    /// no winner pays nothing.
    fn winner_paid_scores(&self, winner: Option<Seat>) -> Vec<i32> {
        let mut scores = vec![0i32; self.players()];
        if let Some(w) = winner {
            let melds: Vec<&crate::reading::Reading> = self
                .table
                .iter()
                .filter(|m| m.owner == w)
                .map(|m| &m.reading)
                .collect();
            let pay = continental_payment(self.rules(), &melds, self.draws[w]);
            for i in (0..self.players()).filter(|&i| self.active[i]) {
                if i != w.index() {
                    scores[i] = -pay;
                    scores[w.index()] += pay;
                }
            }
        }
        scores
    }

    /// docs/rules.md#push-scoring: each seat scores its team's hands, and the team of the
    /// player who went out 0. docs/rules.md#push-leaving: a leaver's hand, set aside in the
    /// deal they left, still counts for the team (so leaving never sheds a heavy hand); in
    /// later deals they hold none, and the team is the partner's hand alone.
    fn team_scores(&self, winner: Option<Seat>) -> Vec<i32> {
        let n = self.players();
        let team_of = |i: usize| usize::from(self.rules().team_of(i).unwrap_or(0));
        let mut team = [0i32; 2];
        for i in 0..n {
            team[team_of(i)] += if self.active[i] {
                self.hand_value(&self.hands[i])
            } else {
                self.hand_value(&self.set_aside[i])
            };
        }
        if let Some(w) = winner {
            team[team_of(w.index())] = 0;
        }
        (0..n).map(|i| team[team_of(i)]).collect()
    }

    /// Who deals the next deal (docs/rules.md#dealer): the deal passes to the left, except in
    /// `continental`, where the winner deals (docs/rules.md#continental-deal). No winner, or a
    /// winner who left: to the left.
    fn next_dealer(&self, winner: Option<Seat>) -> Seat {
        match winner {
            Some(w) if !self.rules().deal_passes_left() && self.active[w] => w,
            _ => self.next_active(self.dealer),
        }
    }

    /// Ends the game: standings, or void when fewer than two players finished.
    pub(super) fn finish(&mut self, ev: &mut Vec<Event>) {
        self.pending.clear();
        self.passed.clear();
        let Some(standings) = self.ranked() else {
            self.status = Status::Void;
            ev.push(Event::GameVoid {
                seed: self.seed.to_hex(),
            });
            return;
        };
        for s in &standings {
            self.totals[s.seat] = s.total;
        }
        self.standings = Some(standings.clone());
        self.status = Status::Finished;
        ev.push(Event::GameEnded {
            standings,
            seed: self.seed.to_hex(),
        });
    }

    /// The standings of a game called off now (docs/rules.md#called-off): the totals of the
    /// deals played to their end (the deal in progress counts for nothing), placed as at the
    /// end of the game. `None` for a game over, one whose first deal has not ended (nothing
    /// to stand on), or one with fewer than two players still in.
    pub fn called_off_standings(&self) -> Option<Vec<Standing>> {
        if matches!(self.status, Status::Finished | Status::Void) || self.deal_scores.is_empty() {
            return None;
        }
        self.ranked()
    }

    /// The standings the totals make, or `None` when fewer than two players are still in.
    ///
    /// Leavers (docs/rules.md#leaving) take the sum of the two highest finishers' totals, so
    /// that leaving never beats staying where the lowest total wins. `continental` is the one
    /// variant where the highest total wins (§4), so there the rule is mirrored on purpose:
    /// the leaver takes the sum of the two *lowest* finishers' totals. Read literally, "two
    /// highest" would reward a continental leaver with a winning score.
    fn ranked(&self) -> Option<Vec<Standing>> {
        let n = self.players();
        let finishers: Vec<usize> = (0..n).filter(|&i| self.active[i]).collect();
        if finishers.len() < 2 {
            return None;
        }
        let highest_wins = self.rules().highest_total_wins();
        let mut sorted: Vec<i32> = finishers.iter().map(|&i| self.totals[i]).collect();
        sorted.sort_unstable();
        // docs/rules.md#leaving: a leaver's total is the sum of the two highest finishers' totals.
        // In continental, where the highest total wins, the mirror: the two lowest (a literal
        // reading would let a leaver win by leaving).
        let leaver_total = if highest_wins {
            sorted[0] + sorted[1]
        } else {
            sorted[sorted.len() - 1] + sorted[sorted.len() - 2]
        };
        let total = |i: usize| {
            if self.active[i] {
                self.totals[i]
            } else {
                leaver_total
            }
        };
        let better = |a: i32, b: i32| if highest_wins { a > b } else { a < b };
        let mut standings = Vec::with_capacity(n);
        for group in [true, false] {
            let seats: Vec<usize> = (0..n).filter(|&i| self.active[i] == group).collect();
            let before = standings.len();
            for &i in &seats {
                // Places after all finishers for leavers; equal totals share a place.
                let ahead = seats.iter().filter(|&&j| better(total(j), total(i))).count();
                standings.push(Standing {
                    seat: Seat(u8::try_from(i).expect("at most 12 seats")),
                    place: before + ahead + 1,
                    total: total(i),
                    left: !group,
                });
            }
        }
        standings.sort_by_key(|s| (s.place, s.seat));
        Some(standings)
    }
}
