//! `normal`, a sensible player for any seat: goes down when the search finds the contract (or,
//! in `continental`, a way out), lays off what fits, claims a discard that fits its hand, and
//! otherwise discards its costliest card that fits nothing, sparing the cards the next player
//! is known to want. Simulations use it; `easy` and `hard` build on it. It reads a game
//! through a [`SeatView`]: its seat's knowledge, or a game `hard` sampled from it.

use super::view::{Sample, SeatView};
use crate::card::Card;
use crate::game::{
    Action, DrawSource, Event, Game, Knowledge, LayoffHint, LegalAction, Phase, Seat, Status, meld_with,
    wild_places,
};
use crate::reading::{Designation, Reading};
use crate::ruleset::Ruleset;
use crate::search::{find_contract, find_meld, layoffs};

/// Claims won in a deal past which the bot stops asking: each costs a penalty card.
const CLAIM_APPETITE: u32 = 2;

/// The action the `normal` bot takes for its seat now, or `None` when it has nothing to do
/// (not its turn and no claim worth asking). Every action returned is one the game accepts.
pub(super) fn choose(knowledge: &Knowledge) -> Option<Action> {
    play(knowledge).map(|(action, ())| action)
}

/// `normal`'s action for the seat of `view` now and what it leaves behind (from a sample, the
/// game after it: the search's playouts need both).
pub(super) fn play<V: SeatView>(view: &V) -> Option<(Action, V::After)> {
    candidates(view)
        .into_iter()
        .find_map(|a| view.try_apply(&a).map(|next| (a, next)))
}

/// [`play`] for `seat` on `game` itself, a game `hard` sampled (its playouts have no use for
/// the game before): whether `normal` had an action to play. The same action as [`play`]'s,
/// for a refused one leaves the game as it was ([`Game::apply_in_place`]). `events` is
/// scratch space.
pub(super) fn play_on(game: &mut Game, seat: Seat, events: &mut Vec<Event>) -> bool {
    let candidates = candidates(&Sample { game, seat });
    candidates.into_iter().any(|a| {
        events.clear();
        game.apply_in_place(seat, a, events).is_ok()
    })
}

/// The actions `normal` would play for the seat of `view` now, best first: it plays the first
/// the game accepts (out of turn, the claim it asks or nothing).
fn candidates<V: SeatView>(view: &V) -> Vec<Action> {
    let seat = view.seat();
    if view.status() != Status::Playing || !view.is_active(seat) {
        return Vec::new();
    }
    let legal = view.legal_actions();
    let Some((turn, phase)) = view.turn() else {
        return Vec::new();
    };
    if turn != seat {
        let wants = legal.contains(&LegalAction::Claim) && wants_claim(view);
        return if wants { vec![Action::Claim {}] } else { Vec::new() };
    }
    match phase {
        Phase::Draw => draw_phase(view, &legal),
        Phase::Play => play_phase(view, &legal),
    }
}

fn draw_phase<V: SeatView>(view: &V, legal: &[LegalAction]) -> Vec<Action> {
    let rules = view.rules();
    let mut out = Vec::new();
    if legal.contains(&LegalAction::Meld { contract: true }) {
        // Going out before the draw (`continental`): all fifteen cards, nothing to discard.
        let hints = view.hints();
        if hints.discard.is_none()
            && let Some(meld) = hints.meld(rules)
        {
            out.push(meld);
        }
    }
    let top = view.discard_pile().last().copied();
    let can_take = legal.contains(&LegalAction::Draw {
        source: DrawSource::Discard,
    });
    if let Some(top) = top
        && can_take
        && (if rules.push_draw() {
            push_takes(view, top)
        } else {
            wants_discard(view, top)
        })
        // Once the stock is the turned-over pile its next card is as plain as the discard: the
        // better of the two is drawn.
        && view
            .next_stock_card()
            .is_none_or(|next| worth(view, next) <= worth(view, top))
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

fn play_phase<V: SeatView>(view: &V, legal: &[LegalAction]) -> Vec<Action> {
    let rules = view.rules();
    let hand = view.hand();
    let mut out = Vec::new();
    // Freed wilds first: they must reach the table before the turn can end.
    for &wild in view.must_play() {
        for m in view.table() {
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
        for &wild in view.must_play() {
            let mut rest = hand.to_vec();
            if let Some(k) = rest.iter().position(|c| *c == wild) {
                rest.swap_remove(k);
            }
            if let Some(m) = meld_with(rules, &rest, wild) {
                out.push(Action::Meld { melds: vec![m] });
            }
        }
    }
    if !view.must_play().is_empty() {
        // may_i: the whole turn comes back (the service's take_back endpoint takes no play
        // yet; random players in the simulations take plays back one by one).
        out.push(Action::TakeBack { play: None });
        return out;
    }
    let hints = view.hints();
    if legal.contains(&LegalAction::Meld { contract: true })
        && let Some(meld) = hints.meld(rules)
    {
        out.push(meld);
    }
    // Every lay-off of the hints is accepted as it stands: the first is the one played.
    if legal.iter().any(|a| matches!(a, LegalAction::LayOff { .. })) {
        out.extend(hints.layoffs.first().map(LayoffHint::action));
    }
    // Push, once down: every meld still in the hand goes to the table (a card left in hand
    // costs its value; one on the table costs nothing).
    if legal.contains(&LegalAction::Meld { contract: false })
        && let Some(meld) = find_meld(rules, hand)
    {
        out.push(Action::Meld {
            melds: vec![meld.pinned(rules)],
        });
    }
    if let Some(&card) = discard_order(view).first() {
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
pub(super) fn fits(rules: &Ruleset, hand: &[Card], card: Card) -> usize {
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

/// [`fits`] of `card`, one of the cards of `hand`, with the rest of `hand` (`hand` less one
/// copy of `card`), without making that hand: the copy taken out fits `card` only by rank.
pub(super) fn fits_rest(rules: &Ruleset, hand: &[Card], card: Card) -> usize {
    if rules.is_wild(card) {
        return hand.len().saturating_sub(1).max(1);
    }
    let itself = usize::from(rules.sets_allowed() && card.rank().is_some() && card.suit().is_some());
    fits(rules, hand, card) - itself
}

/// Whether the top discard is worth taking: it can be laid off (once down, where no new meld
/// may start), or it fits the hand and would not be the very card discarded next. The last
/// test keeps two bots from passing one card back and forth for ever.
pub(super) fn wants_discard<V: SeatView>(view: &V, top: Card) -> bool {
    let rules = view.rules();
    let hand = view.hand();
    if view.is_down(view.seat()) && !rules.melds_after_going_down() {
        return layoffs(rules, &[top], readings(view)).next().is_some();
    }
    if fits(rules, hand, top) == 0 {
        return false;
    }
    let mut after = hand.to_vec();
    after.push(top);
    discard_order_of(view, &after).first() != Some(&top)
}

/// What drawing `card` would do for the hand, to weigh two cards the seat can see (the top
/// discard, and the next stock card once the stock is the turned-over pile), best greatest:
/// whether it makes the hand whole ([`completes`]), whether it is worth keeping (it fits and
/// would not be the very card thrown next), how many cards it goes with.
fn worth<V: SeatView>(view: &V, card: Card) -> (bool, bool, usize) {
    let rules = view.rules();
    let hand = view.hand();
    let mut after = hand.to_vec();
    after.push(card);
    let fit = fits(rules, hand, card);
    let kept = fit > 0 && discard_order_of(view, &after).first() != Some(&card);
    (completes(view, card), kept, fit)
}

/// Whether `card` makes the hand whole at once: it completes the contract (in `continental`, a
/// way out), or once down it is laid off or, where new melds may follow, makes one.
fn completes<V: SeatView>(view: &V, card: Card) -> bool {
    let rules = view.rules();
    let hand = view.hand();
    let mut after = hand.to_vec();
    after.push(card);
    // The hand with the card first: it seldom holds what the hand alone does not, and then
    // the hand need not be searched.
    if view.is_down(view.seat()) {
        layoffs(rules, &[card], readings(view)).next().is_some()
            || (rules.melds_after_going_down()
                && find_meld(rules, &after).is_some()
                && find_meld(rules, hand).is_none())
    } else {
        find_contract(rules, view.deal(), &after).is_some()
            && find_contract(rules, view.deal(), hand).is_none()
    }
}

/// Push (docs/rules.md#push-draw): whether to take the top discard rather than draw from the
/// stock. A stock draw pushes the top discard and a stock card to the seat on the left, two
/// more cards against that hand: the bot pushes unless the discard does more for it than that
/// (it completes the contract, or once down it is laid off or makes a new meld at once), or
/// the discard would help the seat on the left and fits the bot's hand.
fn push_takes<V: SeatView>(view: &V, top: Card) -> bool {
    let seat = view.seat();
    let rules = view.rules();
    if completes(view, top) {
        return true;
    }
    let hand = view.hand();
    let mut after = hand.to_vec();
    after.push(top);
    let left = next_seat(view);
    let partner =
        rules.team_of(left.index()).is_some() && rules.team_of(left.index()) == rules.team_of(seat.index());
    !partner
        && feeds(view, left, top)
        && fits(rules, hand, top) > 0
        && discard_order_of(view, &after).first() != Some(&top)
}

/// Whether `card` would help `seat`: it goes with the cards `seat` took in view of all, or
/// `seat` is down and could lay it off on the table.
fn feeds<V: SeatView>(view: &V, seat: Seat, card: Card) -> bool {
    let rules = view.rules();
    let known = view.known(seat);
    if !known.is_empty() && fits(rules, known, card) > 0 {
        return true;
    }
    if view.is_down(seat) && !rules.goes_out_all_at_once() {
        return layoffs(rules, &[card], readings(view)).next().is_some();
    }
    false
}

fn wants_claim<V: SeatView>(view: &V) -> bool {
    let Some(top) = view.discard_pile().last().copied() else {
        return false;
    };
    let seat = view.seat();
    let rules = view.rules();
    let hand = view.hand();
    let mut after = hand.to_vec();
    after.push(top);
    view.claims_won().get(seat.index()).copied().unwrap_or(0) < CLAIM_APPETITE
        && !view.is_down(seat)
        && fits(rules, hand, top) >= 2
        && discard_order_of(view, &after).first() != Some(&top)
}

/// The seat that plays after the deciding seat.
fn next_seat<V: SeatView>(view: &V) -> Seat {
    let seat = view.seat();
    let n = view.players();
    (1..n)
        .map(|k| Seat(u8::try_from((seat.index() + k) % n).expect("at most 12 seats")))
        .find(|s| view.is_active(*s))
        .unwrap_or(seat)
}

/// The distinct cards of `seat`'s hand, best discard first: wilds last; then the cards that
/// fit least with the rest of the hand; among those, the ones the next player is not known to
/// want (fitting the cards they took in view of all, or laid off on the table once they are
/// down); then the costliest.
pub(super) fn discard_order<V: SeatView>(view: &V) -> Vec<Card> {
    discard_order_of(view, view.hand())
}

/// [`discard_order`] of `hand` held by the deciding seat.
fn discard_order_of<V: SeatView>(view: &V, hand: &[Card]) -> Vec<Card> {
    let rules = view.rules();
    let mut cards = hand.to_vec();
    cards.sort();
    cards.dedup();
    let mut keyed: Vec<_> = cards
        .into_iter()
        .map(|c| ((rules.is_wild(c), fits_rest(rules, hand, c)), c))
        .collect();
    keyed.sort_by_key(|&((wild, fit), c)| (wild, fit, std::cmp::Reverse(rules.card_value(c).unwrap_or(1))));
    // Whether a card would feed the next player is asked only of the cards that fit least
    // (the search for lay-offs is not free); the safe ones among them go first.
    let next = next_seat(view);
    let their_known = view.known(next);
    let lays_off = view.is_down(next) && !rules.goes_out_all_at_once();
    let feeds = |c: Card| {
        (!their_known.is_empty() && fits(rules, their_known, c) > 0)
            || (lays_off && layoffs(rules, &[c], readings(view)).next().is_some())
    };
    let least = keyed.first().map(|(key, _)| *key);
    let group = keyed.iter().take_while(|(key, _)| Some(*key) == least).count();
    let mut order: Vec<Card> = keyed.into_iter().map(|(_, c)| c).collect();
    order[..group].sort_by_cached_key(|c| feeds(*c));
    order
}

/// The readings of the melds on the table.
fn readings<V: SeatView>(view: &V) -> impl Iterator<Item = &Reading> {
    view.table().iter().map(|m| &m.reading)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ruleset::Variant;

    #[test]
    fn fits_rest_is_fits_with_the_rest_of_the_hand() {
        let hand: Vec<Card> = ["5H", "5H", "6H", "7H", "5S", "JK", "2C", "KD", "QD", "5D"]
            .iter()
            .map(|c| c.parse().expect("a card"))
            .collect();
        for variant in Variant::ALL {
            let rules = Ruleset::default_for(variant);
            for (k, &card) in hand.iter().enumerate() {
                let mut rest = hand.clone();
                rest.remove(k);
                assert_eq!(
                    fits_rest(&rules, &hand, card),
                    fits(&rules, &rest, card),
                    "{variant}: {card}"
                );
            }
        }
    }
}
