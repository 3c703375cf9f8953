//! `easy`: the `normal` player, careless. It goes down when it sees the contract, but asks
//! for fewer claims, passes up half the discards it would take, lays off only now and then,
//! and two times in three throws any card but a wild without a thought. Its coin flips come from
//! the bots' own stream, so a replay makes the same ones.

use rand_chacha::ChaCha20Rng;

use super::normal;
use crate::game::{Action, DrawSource, Game, Phase, Seat, Status, uniform};

/// Percent of the claims `normal` would ask that `easy` asks.
const CLAIMS: usize = 35;
/// Percent of the discards `normal` would take that `easy` takes.
const TAKES: usize = 40;
/// Percent of the lay-offs `easy` sees.
const LAYOFFS: usize = 40;
/// Percent of discards chosen at random.
const CARELESS: usize = 65;

fn chance(rng: &mut ChaCha20Rng, percent: usize) -> bool {
    uniform(rng, 100) < percent
}

/// `easy`'s action for `seat` now (see the module's docs).
pub(super) fn choose(game: &Game, seat: Seat) -> Option<Action> {
    if game.status() != Status::Playing || !game.is_active(seat) {
        return None;
    }
    let mut rng = game.bot_stream(seat);
    let thought = normal::choose(game, seat)?;
    let (turn, phase) = game.turn()?;
    let accepted = |a: &Action| game.apply(seat, a.clone()).is_ok();
    if turn != seat {
        return chance(&mut rng, CLAIMS).then_some(thought);
    }
    let stock = Action::Draw {
        source: DrawSource::Stock,
    };
    match (&thought, phase) {
        (
            Action::Draw {
                source: DrawSource::Discard,
            },
            Phase::Draw,
        ) if !chance(&mut rng, TAKES) && accepted(&stock) => Some(stock),
        (Action::LayOff { .. }, Phase::Play) if game.must_play().is_empty() && !chance(&mut rng, LAYOFFS) => {
            // Missed the lay-off: throws what it would have thrown after it.
            normal::discard_order(game, seat)
                .into_iter()
                .map(|card| Action::Discard { card })
                .find(accepted)
                .or(Some(thought))
        }
        (Action::Discard { .. }, Phase::Play) if chance(&mut rng, CARELESS) => {
            careless_discard(game, seat, &mut rng).or(Some(thought))
        }
        _ => Some(thought),
    }
}

/// Any card of the hand but a wild, at random, if the rules take it now.
fn careless_discard(game: &Game, seat: Seat, rng: &mut ChaCha20Rng) -> Option<Action> {
    let rules = game.rules();
    let plain: Vec<_> = game
        .hand(seat)
        .iter()
        .copied()
        .filter(|c| !rules.is_wild(*c))
        .collect();
    if plain.is_empty() {
        return None;
    }
    let action = Action::Discard {
        card: plain[uniform(rng, plain.len())],
    };
    game.apply(seat, action.clone()).is_ok().then_some(action)
}
