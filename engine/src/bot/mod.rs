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
pub use crate::game::{BotRng, Knowledge};

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
    /// returned is one the game accepts; out of turn, only a claim.
    pub fn choose(self, knowledge: &Knowledge, rng: &mut BotRng) -> Option<Action> {
        match self {
            Level::Easy => easy::choose(knowledge, rng),
            Level::Normal => normal::choose(knowledge),
            Level::Hard => hard::choose(knowledge, rng),
        }
    }
}
