//! A bot at a game: its seat's knowledge and the bots' stream handed to its level
//! ([`crate::bot`]), which sees nothing else.

use super::{Action, Game, Seat};
use crate::bot::Level;

impl Game {
    /// What a bot of `level` in `seat` proposes now: [`Level::choose`] given `seat`'s
    /// [`knowledge`](Game::knowledge) and its [`bot_stream`](Game::bot_stream), nothing else.
    pub fn bot_choice(&self, seat: Seat, level: Level) -> Option<Action> {
        level.choose(&self.knowledge(seat), &mut self.bot_stream(seat))
    }
}
