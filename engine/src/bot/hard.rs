//! `hard`: determinized Monte Carlo search (docs/bots.md#hard). From its seat's
//! [`Knowledge`] only, it deals the cards it cannot see at random (the bots' own stream) into
//! the other hands' unknown places and the stock, tries each candidate move on every such
//! deal, plays on with the `normal` player in every seat for a few turns, and takes the move
//! with the best average outcome. The budget is counted in playouts, never in time, so a
//! decision is the same on any machine.

use super::normal;
use super::view::Sample;
use std::collections::HashMap;

use crate::card::Card;
use crate::game::{Action, BotRng, DrawSource, Game, Knowledge, LegalAction, Phase, Seat, Status};
use crate::reading::{ProposedMeld, Reading};
use crate::ruleset::{Ruleset, Variant};
use crate::search::{find_contracts, find_layoffs, go_out_shortfall};

/// Fewest sampled deals per candidate in a round of the halving.
const MIN_SAMPLES: usize = 4;
/// Discards tried: the best ones by `normal`'s order.
const DISCARDS: usize = 5;
/// Ways to meet the contract looked through when `normal` would go down ...
const ARRANGEMENTS_SEEN: usize = 8;
/// ... and the most of them tried besides `normal`'s.
const ARRANGEMENTS: usize = 2;

/// Whether going down is searched in `rules`' variant (docs/bots.md#hard-going-down): not
/// going down yet, and other ways to meet the contract. Only in `contract_7`: `continental`
/// goes out all at once; in `push` a playout stops at the bot's next draw, where a hand not
/// down yet always pays the premium, and in `push` and `may_i` the search measured no better.
fn weighs_going_down(rules: &Ruleset) -> bool {
    rules.variant() == Variant::Contract7
}

/// The fixed budget of a decision: playouts, shared among the candidates by sequential
/// halving ([`choose`]), and the turns of
/// the deciding seat each runs for after the decision's own. Counted, never timed, so that a
/// decision is the same on any machine; sized per variant so that one decision stays within
/// 50 ms on one core (docs/bots.md#cost): `continental`'s search for a way out is the
/// costliest, then `contract_7`'s long hands and `push`'s crowded table.
fn budget(rules: &Ruleset, players: usize) -> (usize, u32) {
    let horizon = if players > 2 { 1 } else { 2 };
    let four = players > 2;
    match rules.variant() {
        // The estimate measures the hand the bot will draw to: the playout stops there.
        Variant::Continental => (96, 0),
        Variant::Push => (120, 0),
        Variant::Contract7 => (if four { 40 } else { 80 }, horizon),
        Variant::MayI => (if four { 48 } else { 96 }, horizon),
    }
}

/// `continental`: what a deal that ended counts, in cards short of going out, won or lost
/// (a deal is won by going out and by nothing else) ...
const GONE_OUT: f64 = 8.0;
/// ... and what each point of its payment adds (a match of several deals adds them up).
const PAID: f64 = 0.1;

/// Actions a playout runs for at most.
const MAX_ACTIONS: u32 = 80;
/// What not being down yet is reckoned to cost, in the variant's points.
const NOT_DOWN: f64 = 25.0;

/// `hard`'s claim out of turn: `normal`'s rule. A claim is answered inside whichever request
/// offered the discard, before the player in turn draws, where no search may hold a person's
/// move; the service and the strength harness both take it from here ([`super::claim`]), so
/// the `hard` that is measured is the one that plays. (`choose` out of turn would search the
/// claim: [`super::Level::choose`] never asks it to.)
pub(super) fn claim(knowledge: &Knowledge, _rng: &mut BotRng) -> Option<Action> {
    normal::choose(knowledge)
}

/// `hard`'s action for its seat now (see the module's docs), from what the seat knows and the
/// bots' stream: nothing else reaches it.
///
/// The budget goes where it decides, by sequential halving: in each of `ceil(log2 k)` rounds
/// the candidates still in play share the round's playouts on the same fresh samples, and the
/// better half (by mean score so far) goes on to the next round. The survivors have all been
/// played on the same deals, so the last comparison is a fair one.
pub(super) fn choose(knowledge: &Knowledge, rng: &mut BotRng) -> Option<Action> {
    search(knowledge, rng, |rng| knowledge.determinize(rng), None)
}

/// The strength harness's ceiling (docs/bots.md#ceiling): the same search, every one of its
/// deals the true one (`truth`, from [`Game::true_deal`]). A playout is `normal` in every
/// seat, which draws nothing from the stream, so on the one true deal every sample of a round
/// scores each candidate alike: with `exact`, a round plays one sample, which ranks the
/// candidates as the whole budget would (the same choice, at a fraction of the cost).
#[cfg(feature = "ceiling")]
pub(super) fn ceiling(knowledge: &Knowledge, rng: &mut BotRng, truth: &Game, exact: bool) -> Option<Action> {
    search(knowledge, rng, |_| truth.clone(), exact.then_some(1))
}

/// [`choose`]'s search, its deals drawn by `deal`; `samples` a round, if given, in place of the
/// budget's share.
fn search(
    knowledge: &Knowledge,
    rng: &mut BotRng,
    mut deal: impl FnMut(&mut BotRng) -> Game,
    samples: Option<usize>,
) -> Option<Action> {
    let seat = knowledge.seat();
    if knowledge.status() != Status::Playing || !knowledge.is_active(seat) {
        return None;
    }
    let probe = deal(rng);
    let candidates = candidates(&probe, seat);
    if candidates.len() <= 1 {
        return candidates.into_iter().next().flatten();
    }
    let (playouts, horizon) = budget(knowledge.rules(), knowledge.players());
    let mut alive: Vec<usize> = (0..candidates.len()).collect();
    let mut totals = vec![0.0f64; candidates.len()];
    let rounds = candidates.len().next_power_of_two().trailing_zeros().max(1) as usize;
    let mut first = Some(probe);
    let mut reckoner = Reckoner::default();
    for round in 0..rounds {
        let samples = samples.unwrap_or((playouts / rounds / alive.len()).max(MIN_SAMPLES));
        for _ in 0..samples {
            let world = first.take().unwrap_or_else(|| deal(rng));
            for &c in &alive {
                let start = match &candidates[c] {
                    Some(action) => match world.apply(seat, action.clone()) {
                        Ok((g, _)) => g,
                        // Accepted on one sample, accepted on all: whether a move is legal
                        // never hangs on a card the seat cannot see.
                        Err(_) => continue,
                    },
                    None => world.clone(),
                };
                totals[c] += playout(start, seat, horizon, &mut reckoner);
            }
        }
        if round + 1 == rounds {
            break;
        }
        // Every survivor has played the same samples: totals compare as means do. Ties keep
        // the earlier candidate (`normal`'s choice first).
        alive.sort_by(|&a, &b| totals[b].total_cmp(&totals[a]).then(a.cmp(&b)));
        alive.truncate(alive.len().div_ceil(2));
        alive.sort_unstable();
    }
    let best = alive.iter().copied().fold(
        alive[0],
        |best, i| if totals[i] > totals[best] { i } else { best },
    );
    candidates.into_iter().nth(best).flatten()
}

/// The moves worth comparing for `seat` in `game` (a sample: what is legal there is legal in
/// the real game). `None` stands for passing on a claim. The first is `normal`'s choice, so
/// ties go its way.
fn candidates(game: &Game, seat: Seat) -> Vec<Option<Action>> {
    let Some((turn, phase)) = game.turn() else {
        return Vec::new();
    };
    let view = Sample { game, seat };
    let thought = normal::play(&view).map(|(action, _)| action);
    let rules = game.rules();
    // A discard that fits nothing in the hand is not worth a search: `normal` passes it.
    let top_fits = game.discard_pile().last().is_some_and(|&top| {
        normal::fits(rules, game.hand(seat), top) > 0 || normal::wants_discard(&view, top)
    });
    if turn != seat {
        return claim_or_pass(view, thought, top_fits);
    }
    let Some(thought) = thought else {
        return Vec::new();
    };
    match (phase, &thought) {
        (Phase::Draw, Action::Draw { .. }) if rules.goes_out_all_at_once() => nearer_draw(view, thought),
        (Phase::Draw, Action::Draw { .. }) => draws(view, thought, top_fits),
        (Phase::Play, Action::Discard { .. }) if rules.goes_out_all_at_once() => {
            nearest_discards(view, thought)
        }
        (Phase::Play, Action::Discard { .. }) => discards(view, thought),
        (Phase::Play, Action::Meld { melds }) if !game.is_down(seat) && weighs_going_down(rules) => {
            down_or_wait(view, &thought, melds)
        }
        // Going out, laying off, playing a freed wild: `normal` is right to.
        _ => vec![Some(thought)],
    }
}

/// Whether the game of `view` accepts `action` from its seat.
fn accepted(view: Sample<'_>, action: &Action) -> bool {
    view.game.apply(view.seat, action.clone()).is_ok()
}

/// Out of turn: claiming the top discard, when it fits and a claim is legal, and passing;
/// `thought` (`normal`'s choice) first.
fn claim_or_pass(view: Sample<'_>, thought: Option<Action>, top_fits: bool) -> Vec<Option<Action>> {
    if !(top_fits && view.game.legal_actions(view.seat).contains(&LegalAction::Claim)) {
        return vec![None];
    }
    let claim = Some(Action::Claim {});
    if thought == claim {
        vec![claim, None]
    } else {
        vec![None, claim]
    }
}

/// `continental`'s draw: the top discard is a sure card, the stock a chance of one; take the
/// discard exactly when it brings the hand nearer to going out.
fn nearer_draw(view: Sample<'_>, thought: Action) -> Vec<Option<Action>> {
    let (game, rules, hand) = (view.game, view.game.rules(), view.game.hand(view.seat));
    let take = Action::Draw {
        source: DrawSource::Discard,
    };
    let nearer = game.discard_pile().last().is_some_and(|&top| {
        let mut more = hand.to_vec();
        more.push(top);
        // A hand one card over is measured with its spare card thrown.
        go_out_shortfall(rules, &more) < go_out_shortfall(rules, hand)
    });
    let stock = Action::Draw {
        source: DrawSource::Stock,
    };
    let pick = if nearer && accepted(view, &take) {
        take
    } else {
        stock
    };
    if accepted(view, &pick) {
        vec![Some(pick)]
    } else {
        vec![Some(thought)]
    }
}

/// The draws worth comparing: `thought` first, then the stock, and the discard when it fits.
fn draws(view: Sample<'_>, thought: Action, top_fits: bool) -> Vec<Option<Action>> {
    let mut out = vec![Some(thought.clone())];
    for source in [DrawSource::Stock, DrawSource::Discard] {
        let draw = Action::Draw { source };
        if draw != thought && (top_fits || source == DrawSource::Stock) && accepted(view, &draw) {
            out.push(Some(draw));
        }
    }
    out
}

/// `continental`'s discards: those that leave the hand nearest to going out; among the
/// nearest, first the hand that more unseen cards would bring nearer still; then `normal`'s
/// order (the sorts are stable). At most [`DISCARDS`]; `thought` when none is accepted.
fn nearest_discards(view: Sample<'_>, thought: Action) -> Vec<Option<Action>> {
    let (game, seat, rules) = (view.game, view.seat, view.game.rules());
    let hand = game.hand(seat);
    let mut order: Vec<(usize, Card)> = normal::discard_order(&view)
        .into_iter()
        .filter(|&card| !rules.is_wild(card))
        .map(|card| (go_out_shortfall(rules, &without(hand, card)), card))
        .collect();
    order.sort_by_key(|&(short, _)| short);
    let least = order.first().map_or(0, |&(short, _)| short);
    let unseen = unseen_counts(game, seat);
    let mut keyed: Vec<(usize, u32, Card)> = order
        .into_iter()
        .map(|(short, card)| {
            let outs = if short == least {
                outs(rules, &without(hand, card), short, &unseen)
            } else {
                0
            };
            (short, outs, card)
        })
        .collect();
    keyed.sort_by_key(|&(short, outs, _)| (short, std::cmp::Reverse(outs)));
    let out: Vec<Option<Action>> = keyed
        .into_iter()
        .map(|(_, _, card)| Action::Discard { card })
        .filter(|a| accepted(view, a))
        .take(DISCARDS)
        .map(Some)
        .collect();
    if out.is_empty() { vec![Some(thought)] } else { out }
}

/// The discards worth comparing: `thought` first, then `normal`'s order, no wild, at most
/// [`DISCARDS`].
fn discards(view: Sample<'_>, thought: Action) -> Vec<Option<Action>> {
    let mut out = vec![Some(thought.clone())];
    for card in normal::discard_order(&view) {
        if out.len() >= DISCARDS {
            break;
        }
        let discard = Action::Discard { card };
        if discard != thought && !view.game.rules().is_wild(card) && accepted(view, &discard) {
            out.push(Some(discard));
        }
    }
    out
}

/// Going down with `melds` (`thought`), or not this turn: the discard `normal` would throw
/// from the whole hand; then other ways to meet the contract ([`arrangements`]).
fn down_or_wait(view: Sample<'_>, thought: &Action, melds: &[ProposedMeld]) -> Vec<Option<Action>> {
    let rules = view.game.rules();
    let mut out = vec![Some(thought.clone())];
    let wait = normal::discard_order(&view)
        .into_iter()
        .filter(|&card| !rules.is_wild(card))
        .map(|card| Action::Discard { card })
        .find(|a| accepted(view, a));
    out.extend(wait.map(Some));
    let mut laid: Vec<Card> = melds.iter().flat_map(|m| m.cards.iter().copied()).collect();
    laid.sort_unstable();
    out.extend(
        arrangements(view.game, view.seat, &laid)
            .into_iter()
            .map(|melds| Action::Meld {
                melds: melds.iter().map(|r| r.pinned(rules)).collect(),
            })
            .filter(|a| accepted(view, a))
            .map(Some),
    );
    out
}

/// Other ways for `seat` to meet the contract in `game` than laying `laid` (sorted), at most
/// [`ARRANGEMENTS`]: the one that leaves the hand worth least, then the one that leaves
/// fewest cards, once the cards left that lay off on the table (the new melds with it) are
/// counted out.
fn arrangements(game: &Game, seat: Seat, laid: &[Card]) -> Vec<Vec<Reading>> {
    let rules = game.rules();
    let hand = game.hand(seat);
    let table: Vec<Reading> = game.table().iter().map(|m| m.reading.clone()).collect();
    let mut keyed: Vec<(i32, usize, Vec<Reading>)> =
        find_contracts(rules, game.deal(), hand, ARRANGEMENTS_SEEN)
            .into_iter()
            .filter_map(|melds| {
                let mut these: Vec<Card> = melds.iter().flat_map(Reading::cards).collect();
                these.sort_unstable();
                if these == laid {
                    return None;
                }
                let mut left = hand.to_vec();
                for c in &these {
                    let k = left.iter().position(|h| h == c)?;
                    left.swap_remove(k);
                }
                let mut after = table.clone();
                after.extend(melds.iter().cloned());
                let fits: Vec<Card> = find_layoffs(rules, &left, &after)
                    .into_iter()
                    .map(|l| l.card)
                    .collect();
                let stays: Vec<Card> = left.into_iter().filter(|c| !fits.contains(c)).collect();
                let value: i32 = stays.iter().map(|&c| rules.card_value(c).unwrap_or(1)).sum();
                Some((value, stays.len(), melds))
            })
            .collect();
    let mut out: Vec<Vec<Reading>> = Vec::new();
    keyed.sort_by_key(|&(value, cards, _)| (value, cards));
    if let Some((_, _, melds)) = keyed.first() {
        out.push(melds.clone());
    }
    keyed.sort_by_key(|&(value, cards, _)| (cards, value));
    if let Some((_, _, melds)) = keyed.first()
        && !out.contains(melds)
    {
        out.push(melds.clone());
    }
    out.truncate(ARRANGEMENTS);
    out
}

/// Plays `game` on with `normal` in every seat until `seat` has had its next turns or the
/// deal ends, and says how good the end is for `seat`.
fn playout(mut game: Game, seat: Seat, horizon: u32, reckoner: &mut Reckoner) -> f64 {
    let deals = game.deal_scores().len();
    let claims = game.rules().has_claims();
    let mut turns = 0;
    let mut actions = 0;
    let mut polled = false;
    let mut events = Vec::new();
    // Deciding out of turn (to claim or not), the seat has already answered for this turn.
    let mut answered = game.turn().is_some_and(|(turn, _)| turn != seat).then_some(seat);
    while game.status() == Status::Playing && game.deal_scores().len() == deals && actions < MAX_ACTIONS {
        let Some((turn, phase)) = game.turn() else { break };
        if phase == Phase::Draw && turn == seat && !polled {
            turns += 1;
            if turns > horizon {
                break;
            }
        }
        if phase == Phase::Draw && claims && !polled {
            polled = true;
            for k in 1..game.players() {
                let other =
                    Seat(u8::try_from((turn.index() + k) % game.players()).expect("at most 12 seats"));
                if Some(other) == answered {
                    continue;
                }
                normal::play_on(&mut game, other, &mut events);
            }
            answered = None;
        }
        if !normal::play_on(&mut game, turn, &mut events) {
            break;
        }
        if game.turn() != Some((turn, Phase::Draw)) {
            polled = false;
        }
        actions += 1;
    }
    let rules = game.rules();
    if rules.goes_out_all_at_once() {
        return match game.deal_scores().get(deals) {
            Some(scores) => {
                let scores: Vec<f64> = scores.iter().map(|s| f64::from(*s)).collect();
                let paid = relative(&game, seat, &scores);
                paid.signum() * GONE_OUT + paid * PAID
            }
            None => {
                let short: Vec<f64> = (0..game.players())
                    .map(|i| {
                        let s = Seat(u8::try_from(i).expect("at most 12 seats"));
                        if s == seat {
                            reckoner.own(rules, game.hand(s))
                        } else {
                            -(go_out_shortfall(rules, game.hand(s)) as f64)
                        }
                    })
                    .collect();
                relative(&game, seat, &short)
            }
        };
    }
    match game.deal_scores().get(deals) {
        Some(scores) => {
            let scores: Vec<f64> = scores.iter().map(|s| f64::from(*s)).collect();
            relative(&game, seat, &scores)
        }
        None => {
            let estimates: Vec<f64> = (0..game.players())
                .map(|i| {
                    let s = Seat(u8::try_from(i).expect("at most 12 seats"));
                    estimate(game.rules(), game.hand(s), game.is_down(s))
                })
                .collect();
            relative(&game, seat, &estimates)
        }
    }
}

/// `seat`'s advantage in `per_seat` (scores or estimates of them) over the seats against it.
fn relative(game: &Game, seat: Seat, per_seat: &[f64]) -> f64 {
    let rules = game.rules();
    let team = |i: usize| rules.team_of(i);
    let mine = team(seat.index());
    let (mut own, mut own_n, mut theirs, mut their_n) = (0.0, 0.0, 0.0, 0.0);
    for (i, v) in per_seat.iter().enumerate() {
        let s = Seat(u8::try_from(i).expect("at most 12 seats"));
        if !game.is_active(s) {
            continue;
        }
        if i == seat.index() || (mine.is_some() && team(i) == mine) {
            own += v;
            own_n += 1.0;
        } else {
            theirs += v;
            their_n += 1.0;
        }
    }
    let own = own / f64::max(own_n, 1.0);
    let theirs = theirs / f64::max(their_n, 1.0);
    if rules.highest_total_wins() {
        own - theirs
    } else {
        theirs - own
    }
}

/// What a hand is likely to cost at the end of the deal, in the variant's points (the
/// variants that count hands; `continental` measures a hand by what it is short of going out).
fn estimate(rules: &Ruleset, hand: &[Card], down: bool) -> f64 {
    let value = |c: Card| f64::from(rules.card_value(c).unwrap_or(1));
    if down {
        return 0.5 * hand.iter().map(|c| value(*c)).sum::<f64>();
    }
    let mut cost = 0.0;
    for &c in hand {
        cost += match (rules.is_wild(c), normal::fits_rest(rules, hand, c)) {
            (true, _) => 0.2 * value(c),
            (false, 0) => value(c),
            (false, _) => 0.4 * value(c),
        };
    }
    cost + NOT_DOWN
}

/// `continental`: the cards the deciding seat's own hand is short of going out at a
/// playout's end, kept for the decision: a playout ends before the seat's next draw, so its
/// hand there is the same on many samples (the search is the costly part of a leaf).
#[derive(Default)]
struct Reckoner {
    short: HashMap<Vec<Card>, usize>,
}

impl Reckoner {
    fn own(&mut self, rules: &Ruleset, hand: &[Card]) -> f64 {
        let mut key = hand.to_vec();
        key.sort_unstable();
        let short = *self
            .short
            .entry(key)
            .or_insert_with_key(|hand| go_out_shortfall(rules, hand));
        -(short as f64)
    }
}

/// `hand` less one `card`.
fn without(hand: &[Card], card: Card) -> Vec<Card> {
    let mut rest = hand.to_vec();
    if let Some(k) = rest.iter().position(|c| *c == card) {
        rest.swap_remove(k);
    }
    rest
}

/// Copies of each card `seat` has not seen in `game`: the packs less its hand, the table and
/// the discard pile.
fn unseen_counts(game: &Game, seat: Seat) -> Vec<u32> {
    let mut left = vec![0u32; crate::card::DISTINCT_CARDS];
    for c in game.rules().pack(game.players()) {
        left[c.index()] += 1;
    }
    let seen = game
        .hand(seat)
        .iter()
        .chain(game.discard_pile())
        .copied()
        .chain(game.table().iter().flat_map(|m| m.reading.cards()));
    for c in seen {
        left[c.index()] = left[c.index()].saturating_sub(1);
    }
    left
}

/// `continental`: how many unseen cards would bring `hand` (`short` cards short of going out)
/// one nearer: every wild, and the naturals within two places of a natural of the hand's
/// suit that the search places.
fn outs(rules: &Ruleset, hand: &[Card], short: usize, unseen: &[u32]) -> u32 {
    if short == 0 {
        return 0;
    }
    let mut more = hand.to_vec();
    more.push(Card::JOKER);
    let mut total = 0;
    for (i, &n) in unseen.iter().enumerate() {
        let card = Card::from_index(i);
        if n == 0 {
            continue;
        }
        if rules.is_wild(card) {
            total += n;
            continue;
        }
        if normal::fits(rules, hand, card) == 0 {
            continue;
        }
        *more.last_mut().expect("the card added") = card;
        if go_out_shortfall(rules, &more) < short {
            total += n;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::{Sample, candidates, normal};
    use crate::game::{Action, Game, GameConfig, Phase, Seat, Seed, Status};
    use crate::ruleset::{Ruleset, Variant};

    /// The first moment of a game of `normal`s (seed `seed`) where the seat in turn would go
    /// down, its candidates there and the game.
    fn first_going_down(
        variant: Variant,
        players: usize,
        seed: u64,
    ) -> Option<(Game, Seat, Vec<Option<Action>>)> {
        let config = GameConfig::new(Ruleset::default_for(variant), players);
        let mut game = Game::new(config, Seed::from_u64(seed)).expect("setup").0;
        while game.status() == Status::Playing {
            let (seat, phase) = game.turn()?;
            let (action, next) = normal::play(&Sample { game: &game, seat })?;
            if phase == Phase::Play && !game.is_down(seat) && matches!(action, Action::Meld { .. }) {
                return Some((game.clone(), seat, candidates(&game, seat)));
            }
            game = next;
        }
        None
    }

    /// Where `normal` would go down in `contract_7`, `hard` also weighs waiting (a discard from
    /// the whole hand) and, where the hand meets the contract in other ways, another
    /// arrangement; each candidate is accepted, `normal`'s meld first.
    #[test]
    fn going_down_is_weighed_against_waiting_and_other_arrangements() {
        let (mut waits, mut others) = (0, 0);
        for seed in 0..12 {
            let Some((game, seat, cands)) = first_going_down(Variant::Contract7, 2, seed) else {
                continue;
            };
            let thought = normal::play(&Sample { game: &game, seat }).map(|(a, _)| a);
            assert_eq!(cands.first(), Some(&thought), "seed {seed}: normal's first");
            for c in cands.iter().flatten() {
                assert!(game.apply(seat, c.clone()).is_ok(), "seed {seed}: {c:?} refused");
            }
            waits += usize::from(
                cands
                    .iter()
                    .flatten()
                    .any(|c| matches!(c, Action::Discard { .. })),
            );
            others += usize::from(
                cands
                    .iter()
                    .skip(1)
                    .flatten()
                    .any(|c| matches!(c, Action::Meld { .. })),
            );
            assert!(cands.len() <= 4, "seed {seed}: {} candidates", cands.len());
        }
        assert!(waits > 0, "waiting is never a candidate");
        assert!(others > 0, "another arrangement is never a candidate");
    }

    /// `may_i` and `push` go down as `normal` does, unsearched (measured no better).
    #[test]
    fn may_i_and_push_go_down_unsearched() {
        for (variant, players) in [(Variant::MayI, 2), (Variant::Push, 4)] {
            for seed in 0..6 {
                let Some((game, seat, cands)) = first_going_down(variant, players, seed) else {
                    continue;
                };
                let thought = normal::play(&Sample { game: &game, seat }).map(|(a, _)| a);
                assert_eq!(cands, vec![thought], "{variant} seed {seed}");
            }
        }
    }
}
