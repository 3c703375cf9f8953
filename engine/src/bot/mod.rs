//! The bots (docs/bots.md): three levels of play for any seat. `normal` is a heuristic
//! player; `easy` is the same player, careless; `hard` samples the cards it cannot see and
//! plays its candidate moves out.
//!
//! Fair by construction: a bot is handed its seat's [`Knowledge`] and the bots' own random
//! stream ([`BotRng`], which only [`Game::bot_stream`](crate::Game::bot_stream) makes), and
//! nothing else. No function of this module takes a [`Game`](crate::Game); the only whole
//! games a bot holds are the ones it samples from its knowledge. A replayed game replays its
//! bots, since both inputs are the game's own.

mod easy;
mod hard;
mod normal;
mod view;

use crate::game::Action;
pub use crate::game::{BotMove, BotRng, Instead, Knowledge, Refused};

/// How well a bot plays ([bots](https://github.com/continental-rummy/continental/blob/main/docs/bots.md)): what a
/// game's creator chooses for a bot seat.
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
    /// The action a bot of this level takes for the seat of `knowledge` now, or `None` when it
    /// has nothing to do, from that seat's knowledge and the bots' stream only. Every action
    /// returned is one the game accepts; out of turn, only a claim, decided by [`claim`].
    pub fn choose(self, knowledge: &Knowledge, rng: &mut BotRng) -> Option<Action> {
        if knowledge.turn().is_some_and(|(turn, _)| turn != knowledge.seat()) {
            return claim(self, knowledge, rng);
        }
        match self {
            Level::Easy => easy::choose(knowledge, rng),
            Level::Normal => normal::choose(knowledge),
            Level::Hard => hard::choose(knowledge, rng),
        }
    }
}

/// The strength harness's ceiling (docs/bots.md#ceiling): what `hard` would play for the seat
/// of `knowledge` if every deal its search samples were the true one, `truth`
/// ([`Game::true_deal`](crate::Game::true_deal)); out of turn, `hard`'s claim. The one function
/// of this module handed a whole game: it exists only with the `ceiling` feature, which only
/// the engine's own tests and examples turn on, so the service cannot reach it. `exact`: one
/// playout a candidate and round, which ranks them as the whole budget does on the one deal.
#[cfg(feature = "ceiling")]
pub(crate) fn ceiling(
    knowledge: &Knowledge,
    rng: &mut BotRng,
    truth: &crate::Game,
    exact: bool,
) -> Option<Action> {
    if knowledge.turn().is_some_and(|(turn, _)| turn != knowledge.seat()) {
        return claim(Level::Hard, knowledge, rng);
    }
    hard::ceiling(knowledge, rng, truth, exact)
}

/// A bot's claim out of turn ("May I?", docs/bots.md#claims): `Some(Action::Claim {})` to ask
/// for the discard on offer, `None` to let it go (and `None` in the seat's own turn). The one
/// claim path: [`Level::choose`] takes it out of turn, so the service (which must answer a
/// claim inside whichever request offered the discard) and the strength harness decide every
/// bot's claims here. Cheap at every level: `hard` claims by `normal`'s rule.
pub fn claim(level: Level, knowledge: &Knowledge, rng: &mut BotRng) -> Option<Action> {
    if knowledge.turn().is_none_or(|(turn, _)| turn == knowledge.seat()) {
        return None;
    }
    match level {
        Level::Easy => easy::claim(knowledge, rng),
        Level::Normal => normal::choose(knowledge),
        Level::Hard => hard::claim(knowledge, rng),
    }
}
