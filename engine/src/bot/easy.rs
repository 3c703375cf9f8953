//! `easy`: the `normal` player, careless. It goes down when it sees the contract, but asks
//! for fewer claims, passes up half the discards it would take, lays off only now and then,
//! and two times in three throws any card but a wild without a thought. Its coin flips come from
//! the bots' own stream, so a replay makes the same ones.

use super::normal;
use crate::game::{Action, BotRng, DrawSource, Knowledge, Phase, Status};

/// Percent of the claims `normal` would ask that `easy` asks.
const CLAIMS: usize = 35;
/// Percent of the discards `normal` would take that `easy` takes.
const TAKES: usize = 40;
/// Percent of the lay-offs `easy` sees.
const LAYOFFS: usize = 40;
/// Percent of discards chosen at random.
const CARELESS: usize = 65;

fn chance(rng: &mut BotRng, percent: usize) -> bool {
    rng.below(100) < percent
}

/// `easy`'s action for its seat now (see the module's docs).
pub(super) fn choose(knowledge: &Knowledge, rng: &mut BotRng) -> Option<Action> {
    let seat = knowledge.seat();
    if knowledge.status() != Status::Playing || !knowledge.is_active(seat) {
        return None;
    }
    let thought = normal::choose(knowledge)?;
    let (turn, phase) = knowledge.turn()?;
    let accepted = |a: &Action| knowledge.accepts(a);
    if turn != seat {
        return claim(knowledge, rng);
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
        ) if !chance(rng, TAKES) && accepted(&stock) => Some(stock),
        (Action::LayOff { .. }, Phase::Play) if knowledge.must_play().is_empty() && !chance(rng, LAYOFFS) => {
            // Missed the lay-off: throws what it would have thrown after it.
            normal::discard_order(knowledge)
                .into_iter()
                .map(|card| Action::Discard { card })
                .find(accepted)
                .or(Some(thought))
        }
        (Action::Discard { .. }, Phase::Play) if chance(rng, CARELESS) => {
            careless_discard(knowledge, rng).or(Some(thought))
        }
        _ => Some(thought),
    }
}

/// `easy`'s claim out of turn: about a third of those `normal` would ask.
pub(super) fn claim(knowledge: &Knowledge, rng: &mut BotRng) -> Option<Action> {
    let thought = normal::choose(knowledge)?;
    chance(rng, CLAIMS).then_some(thought)
}

/// Any card of the hand but a wild, at random, if the rules take it now.
fn careless_discard(knowledge: &Knowledge, rng: &mut BotRng) -> Option<Action> {
    let rules = knowledge.rules();
    let plain: Vec<_> = knowledge
        .hand()
        .iter()
        .copied()
        .filter(|c| !rules.is_wild(*c))
        .collect();
    if plain.is_empty() {
        return None;
    }
    let action = Action::Discard {
        card: plain[rng.below(plain.len())],
    };
    knowledge.accepts(&action).then_some(action)
}
