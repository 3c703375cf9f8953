//! A sensible player for any seat: goes down when the search finds the contract (or, in
//! `continental`, a way out), lays off what fits, claims a discard that fits its hand, and
//! otherwise discards its costliest card that fits nothing. Simulations use it; the service
//! seats it.

use crate::card::Card;
use crate::game::{
    Action, DrawSource, Game, LayoffHint, LegalAction, Phase, Seat, Status, meld_with, wild_places,
};
use crate::reading::{Designation, Reading};
use crate::ruleset::Ruleset;
use crate::search::find_layoffs;

/// Claims won in a deal past which the bot stops asking: each costs a penalty card.
const CLAIM_APPETITE: u32 = 2;

/// How well a bot plays (docs/bots.md): what a game's creator chooses for a bot seat.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, strum::EnumIter,
)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Legal, plausible moves that a beginner can beat.
    Easy,
    /// The heuristic player.
    #[default]
    Normal,
    /// Samples the cards it cannot see and plays its candidate moves out.
    Hard,
}

impl Level {
    /// The action a bot of this level takes for `seat` now, or `None` when it has nothing to
    /// do. Every action returned is one `game.apply` accepts.
    pub fn choose(self, game: &Game, seat: Seat) -> Option<Action> {
        match self {
            Level::Easy | Level::Normal | Level::Hard => choose(game, seat),
        }
    }
}

/// The action the `normal` bot takes for `seat` now, or `None` when it has nothing to do (not
/// its turn and no claim worth asking). Every action returned is one `game.apply` accepts.
pub fn choose(game: &Game, seat: Seat) -> Option<Action> {
    if game.status() != Status::Playing || !game.is_active(seat) {
        return None;
    }
    let legal = game.legal_actions(seat);
    let (turn, phase) = game.turn()?;
    if turn != seat {
        let wants = legal.contains(&LegalAction::Claim) && wants_claim(game, seat);
        return wants.then_some(Action::Claim {});
    }
    let candidates = match phase {
        Phase::Draw => draw_phase(game, seat, &legal),
        Phase::Play => play_phase(game, seat, &legal),
    };
    candidates
        .into_iter()
        .find(|a| game.apply(seat, a.clone()).is_ok())
}

fn draw_phase(game: &Game, seat: Seat, legal: &[LegalAction]) -> Vec<Action> {
    let rules = game.rules();
    let mut out = Vec::new();
    if legal.contains(&LegalAction::Meld { contract: true }) {
        // Going out before the draw (`continental`): all fifteen cards, nothing to discard.
        let hints = game.hints(seat);
        if hints.discard.is_none()
            && let Some(meld) = hints.meld(rules)
        {
            out.push(meld);
        }
    }
    let top = game.discard_pile().last().copied();
    let can_take = legal.contains(&LegalAction::Draw {
        source: DrawSource::Discard,
    });
    if let Some(top) = top
        && can_take
        && wants_discard(game, seat, top)
    {
        out.push(Action::Draw {
            source: DrawSource::Discard,
        });
    }
    out.push(Action::Draw {
        source: DrawSource::Stock,
    });
    if can_take {
        out.push(Action::Draw {
            source: DrawSource::Discard,
        });
    }
    out
}

fn play_phase(game: &Game, seat: Seat, legal: &[LegalAction]) -> Vec<Action> {
    let rules = game.rules();
    let hand = game.hand(seat);
    let mut out = Vec::new();
    // Freed wilds first: they must reach the table before the turn can end.
    for &wild in game.must_play() {
        for m in game.table() {
            for place in wild_places(&m.reading) {
                out.push(Action::LayOff {
                    meld_id: m.id,
                    cards: vec![wild],
                    wilds: vec![Designation {
                        card: wild,
                        represents: place,
                    }],
                });
            }
        }
    }
    if rules.melds_after_going_down() {
        // Push: a rescued wild that fits nowhere on the table starts a new meld.
        for &wild in game.must_play() {
            let mut rest = hand.to_vec();
            if let Some(k) = rest.iter().position(|c| *c == wild) {
                rest.swap_remove(k);
            }
            if let Some(m) = meld_with(rules, &rest, wild) {
                out.push(Action::Meld { melds: vec![m] });
            }
        }
    }
    if !game.must_play().is_empty() {
        // may_i: the whole turn comes back (the service's take_back endpoint takes no play
        // yet; random players in the simulations take plays back one by one).
        out.push(Action::TakeBack { play: None });
        return out;
    }
    let hints = game.hints(seat);
    if legal.contains(&LegalAction::Meld { contract: true })
        && let Some(meld) = hints.meld(rules)
    {
        out.push(meld);
    }
    if legal.iter().any(|a| matches!(a, LegalAction::LayOff { .. })) {
        out.extend(hints.layoffs.iter().map(LayoffHint::action));
    }
    if let Some(card) = costliest_dead_card(rules, hand) {
        out.push(Action::Discard { card });
    }
    // Anything else that is listed, so the bot never stalls.
    for a in legal {
        if let LegalAction::Discard { cards } = a {
            out.extend(cards.iter().map(|&card| Action::Discard { card }));
        }
    }
    out
}

/// How many cards of `hand` would share a meld with `card`: same rank (where sets count) or
/// same suit within two ranks. A wild fits everything.
fn fits(rules: &Ruleset, hand: &[Card], card: Card) -> usize {
    if rules.is_wild(card) {
        return hand.len().max(1);
    }
    let (Some(rank), Some(suit)) = (card.rank(), card.suit()) else {
        return 0;
    };
    hand.iter()
        .filter(|h| !rules.is_wild(**h))
        .filter(|h| {
            let same_rank = rules.sets_allowed() && h.rank() == Some(rank);
            let near = h.suit() == Some(suit)
                && h.rank().is_some_and(|r| {
                    let d = i32::from(r.number()) - i32::from(rank.number());
                    d != 0 && d.abs() <= 2
                });
            same_rank || near
        })
        .count()
}

/// Whether the top discard is worth taking: it can be laid off (once down, where no new meld
/// may start), or it fits the hand and would not be the very card discarded next. The last
/// test keeps two bots from passing one card back and forth for ever.
fn wants_discard(game: &Game, seat: Seat, top: Card) -> bool {
    let rules = game.rules();
    let hand = game.hand(seat);
    if game.is_down(seat) && !rules.melds_after_going_down() {
        let table: Vec<Reading> = game.table().iter().map(|m| m.reading.clone()).collect();
        return !find_layoffs(rules, &[top], &table).is_empty();
    }
    if fits(rules, hand, top) == 0 {
        return false;
    }
    let mut after = hand.to_vec();
    after.push(top);
    costliest_dead_card(rules, &after) != Some(top)
}

fn wants_claim(game: &Game, seat: Seat) -> bool {
    let Some(top) = game.discard_pile().last().copied() else {
        return false;
    };
    let rules = game.rules();
    let hand = game.hand(seat);
    let mut after = hand.to_vec();
    after.push(top);
    game.claims_won().get(seat.index()).copied().unwrap_or(0) < CLAIM_APPETITE
        && !game.is_down(seat)
        && fits(rules, hand, top) >= 2
        && costliest_dead_card(rules, &after) != Some(top)
}

/// The card to discard: never a wild while anything else is left; among the cards that fit
/// nothing the one that would cost most at the end of the deal; else the one that fits least.
fn costliest_dead_card(rules: &Ruleset, hand: &[Card]) -> Option<Card> {
    let cost = |c: Card| rules.card_value(c).unwrap_or(1);
    hand.iter().copied().max_by_key(|&c| {
        let others: Vec<Card> = {
            let mut v = hand.to_vec();
            if let Some(i) = v.iter().position(|h| *h == c) {
                v.swap_remove(i);
            }
            v
        };
        (
            !rules.is_wild(c),
            std::cmp::Reverse(fits(rules, &others, c)),
            cost(c),
        )
    })
}
