//! What travels on the wire: request bodies (parsed into engine and table types with
//! `TryFrom`), response bodies and problem documents, as the OpenAPI document describes them.
//! No I/O, and no HTTP status: a bad request is an [`Invalid`], mapped in `error.rs`.

mod batch;
mod body;
mod cursor;
mod etag;
mod events;
mod game;
mod games;
mod hands;
mod hints;
mod matchmaking;
mod moves;
mod options;
mod players;
mod problem;
mod rules;
mod studio;
mod tournaments;

pub use crate::domain::GameStatus;
pub use batch::{
    ContractBatchItem, ContractBatchRequest, ContractBatchResponse, ContractBatchResult, ItemProblem,
    MAX_CONTRACT_BATCH, MAX_MELD_BATCH, MeldBatch, MeldBatchRequest, MeldBatchResponse, MeldBatchResult,
    UnreadItem, batch_rules,
};
pub use body::parse_json;
pub use cursor::{Bound, CursorSeal, Unopened};
pub use etag::{IfMatch, StaleVersion, etag, matches_if_none_match};
pub use events::{
    EventsQuery, EventsResponse, GameEvent, LoggedEvent, ReplayResponse, ReplayStep, STREAM_ERRORS,
    StreamFailure, StreamMessage, WebhookDelivery,
};
pub use game::{GameView, Player, Turn};
pub use games::{
    AutopilotRequest, CreateGameRequest, CreateGameResponse, CreatedSeat, JoinRequest, JoinResponse, Joining,
    NewGameSpec, SeatName, SeatSpec, UNKNOWN_LEVEL, WebhookStatus, WebhookUrl, level, player_id,
};
pub use hands::{ArrangeRequest, ArrangeResponse, HandQuestion, MAX_TABLE};
pub use hints::HintsResponse;
pub use matchmaking::{
    ASYNC_TURN_SECONDS, TicketBots, TicketMatch, TicketRequest, TicketResponse, TicketSpec, TicketState,
    TicketStreamMessage, TicketView,
};
pub use moves::{
    ActionBody, ClaimRequest, DiscardRequest, DrawRequest, EmptyRequest, LayoffRequest, LeaveRequest,
    MeldRequest, OfKind, PassRequest, SuspendRequest, SwapRequest, TakeBackRequest, kind,
};
pub use options::VARIANT_DEFAULTS;
pub use players::{
    BoardQuery, BoardTokenResponse, BotRatingView, BotsResponse, LeaderboardEntry, LeaderboardPage,
    PageQuery, PlayerRatingView, PlayerResponse, RatingChangeView, RatingView, RecordView,
    decode_board_cursor, encode_board_cursor,
};
pub use problem::{Code, Extensions, Problem, ProblemCode, ProblemReason, problem_codes};
pub use rules::{
    ContractCheck, ContractValidationRequest, ContractValidationResponse, DealView, MeldValidationRequest,
    MeldValidationResponse, RulesetView, RulesetsResponse,
};
pub use studio::{
    DEFAULT_LIMIT, EndGameRequest, EndReason, GamesPage, ListGamesQuery, ListedGame, ListedSeat, MAX_LIMIT,
    RematchResponse, SeatBotRequest, SeatTokenResponse, SpectatorTokenResponse, StudioActionResponse,
    decode_cursor, encode_cursor,
};
pub use tournaments::{
    DEFAULT_AUTOPILOT_AFTER, DealResult, EntryDeals, EntryRequest, EntryStandingsQuery, EntryState,
    EntryTable, EntryView, StandingView, StandingsPage, StandingsQuery, TournamentRequest,
    TournamentResponse, TournamentSpec, TournamentState, TournamentView, TournamentsPage,
    decode_standings_cursor, decode_tournament_cursor, encode_standings_cursor, encode_tournament_cursor,
};

pub use engine::{MAX_CARDS, MAX_MELDS, MAX_WILDS, at_most};

/// Most seats of a game (`continental` seats twelve).
pub const MAX_SEATS: usize = 12;

/// A request that is not a valid request, with a stable code: one the OpenAPI document
/// already refuses (a 400), or one it allows that the variant's rules or the service refuse (a 422).
#[derive(Debug, thiserror::Error)]
#[error("{detail}")]
pub struct Invalid {
    /// Stable code, like `invalid_seat`.
    pub code: ProblemCode,
    /// What is wrong.
    pub detail: String,
    /// What refuses it.
    pub by: RefusedBy,
}

/// What refuses an [`Invalid`] request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefusedBy {
    /// The request's shape, as the document states it (types, enums, patterns, lengths).
    Document,
    /// The rules: a request of a shape the document allows, that the variant or the service
    /// cannot take (a player count, an option, a deal, a seat the variant does not have).
    Rules,
}

impl Invalid {
    /// A request the document refuses, with this code.
    pub fn new(code: impl Into<ProblemCode>, detail: impl Into<String>) -> Invalid {
        Invalid {
            code: code.into(),
            detail: detail.into(),
            by: RefusedBy::Document,
        }
    }

    /// A request the document allows and the rules refuse, with this code.
    pub fn refused(code: impl Into<ProblemCode>, detail: impl Into<String>) -> Invalid {
        Invalid {
            code: code.into(),
            detail: detail.into(),
            by: RefusedBy::Rules,
        }
    }
}

/// Unix microseconds as an RFC 3339 time (UTC); `None` beyond the years it can write.
pub fn rfc3339_us(us: i64) -> Option<String> {
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(us) * 1000)
        .ok()?
        .format(&time::format_description::well_known::Rfc3339)
        .ok()
}
