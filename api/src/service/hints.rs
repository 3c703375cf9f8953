//! Suggestions for a seat, as the engine makes them.

use engine::Seat;

use crate::domain::{HostedGame, HostedGameError};
use crate::wire::HintsResponse;

/// What `seat` could lay now: the contract (in `continental`: a way out), and lay-offs.
///
/// # Errors
/// [`HostedGameError::NotStarted`] while seats are open.
pub fn hints(table: &HostedGame, seat: u8) -> Result<HintsResponse, HostedGameError> {
    let game = table.game()?;
    Ok(HintsResponse::of(game.hints(Seat(seat)), game.rules()))
}
