//! Suggestions for a seat, as the engine makes them.

use engine::Seat;

use crate::domain::{Table, TableError};
use crate::wire::HintsResponse;

/// What `seat` could lay now: the contract (in `continental`: a way out), and lay-offs.
///
/// # Errors
/// [`TableError::NotStarted`] while seats are open.
pub fn hints(table: &Table, seat: u8) -> Result<HintsResponse, TableError> {
    let game = table.game()?;
    Ok(HintsResponse::of(game.hints(Seat(seat)), game.rules()))
}
