//! A game's events on the wire.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// `?after=N&limit=M`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// Events with a sequence number greater than this (default 0: from the start).
    #[serde(default)]
    pub after: u64,
    /// At most this many, 1 to 1000 (default 1000).
    #[serde(default)]
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<u16>,
}

/// The most events one page holds.
pub const MAX_PAGE: u16 = 1000;

impl EventsQuery {
    /// `after` and `limit` as the store takes them.
    ///
    /// # Errors
    /// A `limit` outside 1 to 1000, an `after` beyond a 64-bit sequence number.
    pub fn page(&self) -> Result<(i64, i64), crate::error::ApiError> {
        let limit = self.limit.unwrap_or(MAX_PAGE);
        let after = i64::try_from(self.after).ok();
        match after {
            Some(after) if (1..=MAX_PAGE).contains(&limit) => Ok((after, i64::from(limit))),
            _ => Err(crate::error::ApiError::bad_request(
                "invalid_query",
                format!("limit is 1 to {MAX_PAGE}, and after a sequence number from 0"),
            )),
        }
    }
}

/// One event as this seat may see it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct EventDto {
    /// Sequence number from 1.
    pub seq: i64,
    /// The event: `type` and its fields. Another seat's cards from the stock are `null`.
    #[schema(value_type = Object, example = json!({"type": "drew", "seat": 1, "source": "stock", "card": null}))]
    pub event: serde_json::Value,
}

/// `GET /v1/games/{id}/events` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"events": [
    {"seq": 5, "event": {"type": "drew", "seat": 0, "source": "stock", "card": "7H"}},
    {"seq": 6, "event": {"type": "discarded", "seat": 0, "card": "KD"}}], "last_seq": 6}))]
pub struct EventsResponse {
    /// The events, oldest first.
    pub events: Vec<EventDto>,
    /// The last sequence number returned (or `after` when none): pass it as `after` next time.
    pub last_seq: i64,
}
