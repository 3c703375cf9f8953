//! The table: a game as the service keeps it (its seats, bots, joins, leaving before the
//! deal) around the engine's [`engine::Game`]. Pure: no I/O, no HTTP, its own [`TableError`].

mod bots;
mod events;
mod table;

pub use events::{Logged, TableEvent};
pub use table::{Applied, SeatKind, SeatRecord, TURN_SECONDS, Table, TableError};
