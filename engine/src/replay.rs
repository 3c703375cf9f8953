//! Rebuilding a game from its seed and actions: how a client audits a finished game.

use crate::game::{Action, ActionError, Game, GameConfig, Seat, Seed, SetupError};

/// Why a replay stopped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The configuration does not make a game.
    #[error("setup: {0}")]
    Setup(#[from] SetupError),
    /// Action `index` (0-based) was refused.
    #[error("action {index}: {error}")]
    Action {
        /// Which action.
        index: usize,
        /// Why it was refused.
        error: ActionError,
    },
}

impl ReplayError {
    /// Stable machine-readable code (the underlying error's).
    pub fn code(&self) -> &'static str {
        match self {
            ReplayError::Setup(e) => e.code(),
            ReplayError::Action { error, .. } => error.code(),
        }
    }
}

/// Plays `actions` from the start of the game `config` and `seed` create. Pure: the same
/// input always gives the same game.
///
/// # Errors
/// [`ReplayError`] at the first refused action, or when the setup is refused.
pub fn replay(config: GameConfig, seed: Seed, actions: &[(Seat, Action)]) -> Result<Game, ReplayError> {
    let (mut game, _) = Game::new(config, seed)?;
    for (index, (seat, action)) in actions.iter().enumerate() {
        game = game
            .apply(*seat, action.clone())
            .map_err(|error| ReplayError::Action { index, error })?
            .0;
    }
    Ok(game)
}
