//! Rebuilding a game from its seed and what was done in it: how a client audits a finished
//! game, and how a server shows it again step by step.

use serde::{Deserialize, Serialize};

use crate::game::{Action, ActionError, Event, Game, GameConfig, Seat, Seed, SetupError};

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
    /// A record whose step `index` (0-based) is a deal where it cannot be one (the game deals
    /// once, first), or is not a deal where the record begins.
    #[error("step {index}: a record deals once, at its first step")]
    Deal {
        /// Which step.
        index: usize,
    },
}

impl ReplayError {
    /// Stable machine-readable code (the underlying error's).
    pub fn code(&self) -> &'static str {
        match self {
            ReplayError::Setup(e) => e.code(),
            ReplayError::Action { error, .. } => error.code(),
            ReplayError::Deal { .. } => "misplaced_deal",
        }
    }
}

/// One step of a game's record: everything that changed the game, in order. A game is its
/// configuration, its seed and its record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(tag = "step", rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// The game was dealt ([`Game::new`]): always the first step, and only it.
    Deal,
    /// A seat acted ([`Game::apply`]).
    Act {
        /// Who acted.
        seat: Seat,
        /// What they did.
        action: Action,
    },
    /// The game was called off outside the rules ([`Game::call_off`]).
    CallOff,
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

/// The game after each step of `record`, with the events that step made, as the game was
/// played: the first item is the deal's. Lazy, so a reader may stop at any step; it ends at
/// the first step the rules refuse.
pub fn replay_record<I>(config: GameConfig, seed: Seed, record: I) -> Replay<I::IntoIter>
where
    I: IntoIterator<Item = Step>,
{
    Replay {
        config,
        seed,
        record: record.into_iter().enumerate(),
        game: None,
        failed: false,
    }
}

/// The iterator of [`replay_record`].
#[derive(Debug)]
pub struct Replay<I> {
    config: GameConfig,
    seed: Seed,
    record: std::iter::Enumerate<I>,
    game: Option<Game>,
    failed: bool,
}

impl<I: Iterator<Item = Step>> Iterator for Replay<I> {
    type Item = Result<(Game, Vec<Event>), ReplayError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let (index, step) = self.record.next()?;
        let played = match (&self.game, step) {
            (None, Step::Deal) => {
                Game::new(self.config.clone(), self.seed.clone()).map_err(ReplayError::from)
            }
            (Some(game), Step::Act { seat, action }) => game
                .apply(seat, action)
                .map_err(|error| ReplayError::Action { index, error }),
            (Some(game), Step::CallOff) => game
                .call_off()
                .map_err(|error| ReplayError::Action { index, error }),
            (_, _) => Err(ReplayError::Deal { index }),
        };
        match played {
            Ok((game, events)) => {
                self.game = Some(game.clone());
                Some(Ok((game, events)))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}
