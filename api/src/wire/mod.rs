//! What travels on the wire: request bodies (parsed into engine and table types with
//! `TryFrom`), response bodies and problem documents, as the OpenAPI document describes them.
//! No I/O, and no HTTP status: a bad request is an [`Invalid`], mapped in `error.rs`.

mod etag;
mod events;
mod game;
mod games;
mod hints;
mod moves;
mod problem;
mod rules;
mod studio;

pub use etag::{IfMatch, StaleVersion, etag, matches_if_none_match};
pub use events::{EventDto, EventsQuery, EventsResponse};
pub use game::{GameStatus, GameView, PlayerDto, TableMeldDto, YouDto};
pub use games::{
    CreateGameRequest, CreateGameResponse, CreatedSeat, JoinRequest, JoinResponse, NewGameSpec, SeatName,
    SeatSpec, WebhookStatus, WebhookUrl,
};
pub use hints::{HintsResponse, LayoffHint};
pub use moves::{
    DiscardRequest, DrawRequest, EmptyRequest, LayoffRequest, MeldsRequest, SwapRequest, TakeBackRequest,
};
pub use problem::{Extensions, Problem, ProblemReason};
pub use rules::{
    ContractCheck, ContractValidationRequest, ContractValidationResponse, ContractView, DealView,
    DesignationRequest, MeldRequest, MeldValidationRequest, MeldValidationResponse, ReadingView, RulesetView,
    RulesetsResponse,
};
pub use studio::{
    Cursor, DEFAULT_LIMIT, GameListing, GamesPage, ListGamesQuery, ListedGame, ListedSeat, MAX_LIMIT,
    SeatTokenResponse, SpectatorTokenResponse,
};

use std::borrow::Cow;

/// A request that is well-formed JSON but not a valid request: a 400 with a stable code.
#[derive(Debug, thiserror::Error)]
#[error("{detail}")]
pub struct Invalid {
    /// Stable code, like `invalid_seat`.
    pub code: Cow<'static, str>,
    /// What is wrong.
    pub detail: String,
}

impl Invalid {
    /// A refusal with this code.
    pub fn new(code: impl Into<Cow<'static, str>>, detail: impl Into<String>) -> Invalid {
        Invalid {
            code: code.into(),
            detail: detail.into(),
        }
    }
}
