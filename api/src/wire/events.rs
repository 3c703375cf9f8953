//! A game's events on the wire.

use std::borrow::Cow;

use engine::Event;
use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::{Discriminator, Object, ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{IntoParams, PartialSchema, ToSchema};

use super::{Code, Invalid};
use crate::domain::TableEvent;

/// `?after=N&limit=M`: a page of a game's log (its events, or the steps of its replay).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// Those from a sequence number greater than this (default 0: from the start).
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
    pub fn page(&self) -> Result<(i64, i64), Invalid> {
        let limit = self.limit.unwrap_or(MAX_PAGE);
        let after = i64::try_from(self.after).ok();
        match after {
            Some(after) if (1..=MAX_PAGE).contains(&limit) => Ok((after, i64::from(limit))),
            _ => Err(Invalid::new(
                Code::InvalidQuery,
                format!("limit is 1 to {MAX_PAGE}, and after a sequence number from 0"),
            )),
        }
    }
}

/// One event as this seat may see it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct LoggedEvent {
    /// Sequence number from 1.
    pub seq: i64,
    /// The event: `type` and its fields. Another seat's cards from the stock are `null`.
    #[schema(value_type = GameEvent, example = json!({"type": "drew", "seat": 1, "source": "stock", "card": null}))]
    pub event: serde_json::Value,
}

/// `GET /v1/games/{id}/events` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"events": [
    {"seq": 5, "event": {"type": "drew", "seat": 0, "source": "stock", "card": "7H"}},
    {"seq": 6, "event": {"type": "discarded", "seat": 0, "card": "KD"}}], "last_seq": 6}))]
pub struct EventsResponse {
    /// The events, oldest first.
    pub events: Vec<LoggedEvent>,
    /// The last sequence number returned (or `after` when none): pass it as `after` next time.
    pub last_seq: i64,
}

/// One step of a game's record as this reader may see it: what happened (the deal, a seat's
/// action, the game called off), the events it made, and the game after it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ReplayStep {
    /// The sequence number of the first event this step made.
    pub seq: i64,
    /// What happened. Every action is public: the events tell it to every seat.
    #[schema(example = json!({"step": "act", "seat": 0, "action": {"type": "discard", "card": "KD"}}))]
    pub step: engine::Step,
    /// The events from this step up to the next one, as `GET /v1/games/{id}/events` shows
    /// them to this reader.
    pub events: Vec<LoggedEvent>,
    /// The game just after this step as this reader saw it then: their own hand, every other
    /// hand as a count (until a deal's end shows it in the events).
    pub view: engine::View,
}

/// A page of a game's replay.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ReplayResponse {
    /// The steps, oldest first.
    pub steps: Vec<ReplayStep>,
    /// The `seq` of the last step returned (or `after` when none): pass it as `after` next time.
    pub last_seq: i64,
}

/// Any event of a game's log. The document shows one schema per `type` (`DrewEvent`,
/// `SeatJoinedEvent`, ...) under a `oneOf` discriminated by `type`, built from the engine's
/// and the table's own event types, so that it cannot drift from what is logged.
pub struct GameEvent;

/// One message of `GET /v1/games/{id}/stream`: `id` (the sequence number), `event` (the
/// event's `type`, or `error`) and `data` (the event as JSON, of the same schema as the log's
/// and the webhooks').
pub struct StreamMessage;

/// Codes of the `error` message that ends a stream that cannot go on.
pub const STREAM_ERRORS: [&str; 3] = [
    StreamFailure::ShuttingDown.code(),
    StreamFailure::TooSlow.code(),
    StreamFailure::Unavailable.code(),
];

/// Why a live stream cannot go on: the `code` of its last message, an `error` event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamFailure {
    /// The service stops.
    ShuttingDown,
    /// The client read too slowly.
    TooSlow,
    /// The database failed.
    Unavailable,
}

impl StreamFailure {
    /// The code a client reads.
    pub const fn code(self) -> &'static str {
        match self {
            StreamFailure::ShuttingDown => "shutting_down",
            StreamFailure::TooSlow => "too_slow",
            StreamFailure::Unavailable => "unavailable",
        }
    }

    /// The `error` message that ends a stream: its code, and when to reconnect.
    pub fn message(self) -> String {
        format!(
            "event: error\ndata: {{\"code\":\"{}\"}}\nretry: 1000\n\n",
            self.code()
        )
    }
}

/// Each event `type` with its schema, in the order the types declare them.
fn event_types() -> Vec<(String, Schema)> {
    [
        <Event as PartialSchema>::schema(),
        <TableEvent as PartialSchema>::schema(),
    ]
    .into_iter()
    .flat_map(variants)
    .map(|(tag, object)| (tag, Schema::Object(object)))
    .collect()
}

/// The variants of an enum tagged by `type` (a `oneOf` of objects), each with its tag.
pub(super) fn variants(union: RefOr<Schema>) -> Vec<(String, Object)> {
    let RefOr::T(Schema::OneOf(one_of)) = union else {
        unreachable!("an enum tagged by `type` is a oneOf")
    };
    one_of
        .items
        .into_iter()
        .map(|item| {
            let RefOr::T(Schema::Object(object)) = item else {
                unreachable!("each variant is an object")
            };
            let tag = match object.properties.get("type") {
                Some(RefOr::T(Schema::Object(t))) => t
                    .enum_values
                    .as_ref()
                    .and_then(|v| v.first())
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_owned),
                _ => None,
            };
            let tag = tag.unwrap_or_else(|| unreachable!("each variant names its `type`"));
            (tag, object)
        })
        .collect()
}

/// `drew` as `Drew`, `seat_joined` as `SeatJoined`.
pub(super) fn pascal(tag: &str) -> String {
    tag.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// A `oneOf` of references to `names`, discriminated by `property` (value to schema name).
fn discriminated(property: &str, names: Vec<(String, String)>, description: &str) -> RefOr<Schema> {
    let mut one_of = OneOfBuilder::new().description(Some(description));
    let mut discriminator = Discriminator::new(property);
    for (value, name) in names {
        one_of = one_of.item(Ref::from_schema_name(&name));
        discriminator
            .mapping
            .insert(value, format!("#/components/schemas/{name}"));
    }
    one_of.discriminator(Some(discriminator)).into()
}

impl PartialSchema for GameEvent {
    fn schema() -> RefOr<Schema> {
        let names = event_types()
            .into_iter()
            .map(|(tag, _)| {
                let name = format!("{}Event", pascal(&tag));
                (tag, name)
            })
            .collect();
        discriminated(
            "type",
            names,
            "An event of the game, by its `type`. Another seat's cards from the stock are `null`.",
        )
    }
}

impl ToSchema for GameEvent {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Event")
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        for (tag, schema) in event_types() {
            schemas.push((format!("{}Event", pascal(&tag)), schema.into()));
        }
        <Event as ToSchema>::schemas(schemas);
        <TableEvent as ToSchema>::schemas(schemas);
    }
}

/// The schema of a stream message whose `event` is one of `tags` and whose `data` is the JSON
/// text of the schema named `data`; an `error` message has `retry`. Without an `id`: a stream
/// of numbered messages adds it ([`numbered`]).
pub(crate) fn message(tags: &[String], data: Cow<'static, str>, description: &str) -> ObjectBuilder {
    let data = ObjectBuilder::new()
        .schema_type(Type::String)
        .content_media_type("application/json")
        .content_schema(Some(Ref::from_schema_name(data)))
        .description(Some("The JSON text of the message."));
    let object = ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(Some(description))
        .property(
            "event",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(tags.to_vec())),
        )
        .required("event")
        .property("data", data)
        .required("data");
    if tags == ["error"] {
        object.property(
            "retry",
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(0))
                .description(Some(
                    "Milliseconds to wait before reconnecting with `Last-Event-ID`.",
                )),
        )
    } else {
        object
    }
}

/// A message of a game's stream, with the `id` a reconnection resumes after: every event's
/// has one, an `error` message may.
fn numbered(message: ObjectBuilder, required: bool) -> Schema {
    let id = ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some("^[0-9]+$"))
        .description(Some(
            "The event's sequence number: send it as `Last-Event-ID` to resume after it.",
        ));
    let message = message.property("id", id);
    Schema::Object(if required { message.required("id") } else { message }.build())
}

/// The schemas of the `error` message that ends a stream, of a game or of a ticket:
/// `StreamErrorMessage` and its data, `StreamError`.
pub(crate) fn error_schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
    let ended = "The stream cannot go on: reconnect after `retry` ms (to a game's with `Last-Event-ID`).";
    let error = message(&["error".to_owned()], Cow::Borrowed("StreamError"), ended);
    schemas.push(("StreamErrorMessage".to_owned(), numbered(error, false).into()));
    schemas.push(("StreamError".to_owned(), stream_error()));
}

/// The `error` message's data: why the stream stops.
fn stream_error() -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .property(
            "code",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(STREAM_ERRORS))
                .description(Some(
                    "`shutting_down` (the service stops), `too_slow` (the client read too slowly), \
                     `unavailable` (the database failed).",
                )),
        )
        .required("code")
        .into()
}

impl PartialSchema for StreamMessage {
    fn schema() -> RefOr<Schema> {
        OneOfBuilder::new()
            .description(Some(
                "A message of the stream: an event of the game, or `error` when the stream cannot \
                 go on (reconnect with `Last-Event-ID`).",
            ))
            .item(Ref::from_schema_name("EventMessage"))
            .item(Ref::from_schema_name("StreamErrorMessage"))
            .into()
    }
}

impl ToSchema for StreamMessage {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("StreamMessage")
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        let tags: Vec<String> = event_types().into_iter().map(|(tag, _)| tag).collect();
        let event = message(
            &tags,
            GameEvent::name(),
            "An event of the game: `event` is its `type`.",
        );
        schemas.push(("EventMessage".to_owned(), numbered(event, true).into()));
        error_schemas(schemas);
        <GameEvent as ToSchema>::schemas(schemas);
        schemas.push((GameEvent::name().into_owned(), GameEvent::schema()));
    }
}

/// What a game's webhook receives for each of its events, as a spectator sees it (never a
/// hand), signed as Standard Webhooks says ([webhooks](https://github.com/continental-rummy/continental/blob/main/docs/api.md#webhooks)).
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"id": "msg_bb40d2b9-9000-48b2-bf84-e29ac77d3084_6",
    "game_id": "bb40d2b9-9000-48b2-bf84-e29ac77d3084", "seq": 6, "version": 3, "type": "discarded",
    "event": {"type": "discarded", "seat": 0, "card": "KD"}}))]
pub struct WebhookDelivery<'a> {
    /// The delivery's id, the same across retries (the `webhook-id` header): drop duplicates by it.
    pub id: &'a str,
    /// The game.
    pub game_id: uuid::Uuid,
    /// The event's sequence number in the game's log.
    pub seq: i64,
    /// The game's version once the event was logged.
    pub version: i64,
    /// The event's `type`.
    #[serde(rename = "type")]
    pub kind: &'a str,
    /// The event, of the same schema as the log's and the stream's.
    #[schema(value_type = GameEvent)]
    pub event: &'a serde_json::Value,
}
