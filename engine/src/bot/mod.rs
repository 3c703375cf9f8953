//! The bots (docs/bots.md): three levels of play for any seat. `normal` is a heuristic
//! player; `easy` is the same player, careless; `hard` samples the cards it cannot see and
//! plays its candidate moves out. Every bot decides from its seat's [`Knowledge`] and from the
//! bots' own random stream ([`Game::bot_stream`]), so a replayed game replays its bots.

mod easy;
mod hard;
mod normal;

pub use crate::game::Knowledge;
use crate::game::{Action, Game, Seat};
pub use normal::choose;

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
    /// The action a bot of this level takes for `seat` now, or `None` when it has nothing to
    /// do. Every action returned is one `game.apply` accepts; out of turn, only a claim.
    pub fn choose(self, game: &Game, seat: Seat) -> Option<Action> {
        match self {
            Level::Easy => easy::choose(game, seat),
            Level::Normal => normal::choose(game, seat),
            Level::Hard => hard::choose(game, seat),
        }
    }
}
