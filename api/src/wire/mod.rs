//! What travels on the wire: request bodies (parsed into engine and table types with
//! `TryFrom`), response bodies and problem documents, as the OpenAPI document describes them.
//! No I/O, and no HTTP status: a bad request is an [`Invalid`], mapped in `error.rs`.

mod etag;
mod events;
mod game;
mod games;
mod hints;
mod moves;
mod options;
mod problem;
mod rules;
mod studio;

pub use crate::domain::GameStatus;
pub use etag::{IfMatch, StaleVersion, etag, matches_if_none_match};
pub use events::{
    EventDto, EventsQuery, EventsResponse, GameEvent, STREAM_ERRORS, StreamFailure, StreamMessage,
};
pub use game::{GameView, PlayerDto, TableMeldDto, YouDto};
pub use games::{
    CreateGameRequest, CreateGameResponse, CreatedSeat, JoinRequest, JoinResponse, NewGameSpec, SeatName,
    SeatSpec, WebhookStatus, WebhookUrl,
};
pub use hints::{HintsResponse, LayoffHint};
pub use moves::{
    DiscardRequest, DrawRequest, EmptyRequest, LayoffRequest, MeldsRequest, SwapRequest, TakeBackRequest,
};
pub use options::VARIANT_DEFAULTS;
pub use problem::{Extensions, Problem, ProblemReason};
pub use rules::{
    ContractCheck, ContractValidationRequest, ContractValidationResponse, ContractView, DealView,
    DesignationRequest, MeldRequest, MeldValidationRequest, MeldValidationResponse, ReadingView, RulesetView,
    RulesetsResponse,
};
pub use studio::{
    DEFAULT_LIMIT, GamesPage, ListGamesQuery, ListedGame, ListedSeat, MAX_LIMIT, SeatTokenResponse,
    SpectatorTokenResponse, decode_cursor, encode_cursor,
};

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};

/// Most cards of one meld, lay-off or validation (more than any hand holds).
pub const MAX_CARDS: usize = 40;

/// Most wild designations of one meld or lay-off.
pub const MAX_WILDS: usize = 20;

/// Most melds laid or checked at once (a contract asks for at most five).
pub const MAX_MELDS: usize = 6;

/// Most seats of a game (`continental` seats twelve).
pub const MAX_SEATS: usize = 12;

/// Reads a list of at most `MAX` items, the `maxItems` the document states for it, and stops
/// reading at the first item too many.
///
/// # Errors
/// A list longer than `MAX` (`invalid_body`, with the field's path), or a bad item.
pub fn at_most<'de, const MAX: usize, T, D>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    T: Deserialize<'de>,
    D: Deserializer<'de>,
{
    /// Collects the items, refusing one past `MAX`.
    struct Bounded<T, const MAX: usize>(PhantomData<T>);

    impl<'de, T: Deserialize<'de>, const MAX: usize> Visitor<'de> for Bounded<T, MAX> {
        type Value = Vec<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "a list of at most {MAX} items")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut items = Vec::new();
            while let Some(item) = seq.next_element()? {
                if items.len() == MAX {
                    return Err(de::Error::invalid_length(MAX + 1, &self));
                }
                items.push(item);
            }
            Ok(items)
        }
    }

    deserializer.deserialize_seq(Bounded::<T, MAX>(PhantomData))
}

/// A request that is not a valid request, with a stable code: one the OpenAPI document
/// already refuses (a 400), or one it allows that the variant's rules or the service refuse (a 422).
#[derive(Debug, thiserror::Error)]
#[error("{detail}")]
pub struct Invalid {
    /// Stable code, like `invalid_seat`.
    pub code: Cow<'static, str>,
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
    pub fn new(code: impl Into<Cow<'static, str>>, detail: impl Into<String>) -> Invalid {
        Invalid {
            code: code.into(),
            detail: detail.into(),
            by: RefusedBy::Document,
        }
    }

    /// A request the document allows and the rules refuse, with this code.
    pub fn refused(code: impl Into<Cow<'static, str>>, detail: impl Into<String>) -> Invalid {
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
