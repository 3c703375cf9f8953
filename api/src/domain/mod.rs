//! The table: a game as the service keeps it (its seats, bots, joins, leaving before the
//! deal) around the engine's [`engine::Game`], and what can be wrong with its webhook. Pure: no
//! I/O, no HTTP, its own errors ([`TableError`], [`WebhookError`]).

mod bots;
mod events;
mod status;
mod table;
mod webhook;

pub use bots::thinks_apart;
pub use events::{Logged, TableEvent, level_schema, optional_level_schema};
pub use status::GameStatus;
pub use table::{
    Applied, BANK_SECONDS, CLAIM_WINDOW_SECONDS, DEFAULT_CLAIM_WINDOW_SECONDS, RunningTurn, SeatKind,
    SeatRecord, TURN_SECONDS, Table, TableError, TurnClock,
};
pub use webhook::WebhookError;
