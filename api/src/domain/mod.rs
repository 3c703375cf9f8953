//! The hosted game: a game as the service keeps it (its seats, bots, joins, leaving before
//! the deal) around the engine's [`engine::Game`], and what can be wrong with its webhook; a
//! studio's players, their ratings ([`RatingModel`]) and quick play's tickets
//! ([`match_tickets`]). Pure: no I/O, no HTTP, its own errors ([`HostedGameError`],
//! [`WebhookError`], [`PlayerIdError`], [`RatingError`], [`TicketError`]).

mod bots;
mod events;
mod hosted_game;
mod matchmaking;
mod player;
mod ratings;
mod status;
mod tournament;
mod webhook;

pub use bots::thinks_apart;
pub use events::{Logged, MatchedSeat, TableEvent, level_name, level_schema, optional_level_schema};
pub use hosted_game::{
    ABANDONED, Applied, BANK_SECONDS, BOT_PACE_MS, CLAIM_WINDOW_SECONDS, DEFAULT_BOT_PACE_MS,
    DEFAULT_CLAIM_WINDOW_SECONDS, HostedGame, HostedGameError, RunningTurn, SeatKind, SeatRecord,
    TURN_SECONDS, TurnClock,
};
pub use matchmaking::{
    BotLevels, Match, MatchRules, MatchSeat, SCAN_LIMIT, TableSizes, Ticket, TicketError, TicketStatus,
    match_tickets, match_tickets_now, next_change,
};
pub use player::{MAX_PLAYER_ID_CHARS, PlayerId, PlayerIdError};
pub use ratings::{
    Participant, RatedGame, RatedSeat, Rating, RatingChange, RatingError, RatingModel, SeatChange, bot_seed,
    bot_seeds, leaderboard_order, level_id,
};
pub use status::GameStatus;
pub use tournament::{
    Format, MAX_TABLE_SIZE, Movement, MovementError, Place, matchpoint_halves, round_results, round_seed,
};
pub use webhook::WebhookError;
