//! Quick play on the wire: a ticket asked for, and a ticket as its holder reads it.

use std::borrow::Cow;

use engine::bot::Level;
use engine::{Ruleset, Variant};
use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::{OneOfBuilder, Schema};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};
use uuid::Uuid;

use super::events::{error_schemas, message};
use super::{Code, Invalid, RatingView, SeatName, WebhookUrl, at_most};
use crate::domain::{PlayerId, PlayerIdError, TableSizes, TicketError, TurnClock};

/// The turn clock of an asynchronous ticket's game when its options set none: a day a turn,
/// the pace of a game played between other things, with the webhook telling each turn.
pub const ASYNC_TURN_SECONDS: u32 = 86_400;

/// `POST /v1/matchmaking/tickets` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"player": "u-123", "name": "Ann", "variant": "may_i", "sizes": [2, 3, 4]}))]
pub struct TicketRequest {
    /// The studio's id of the player (with a server key, required; without server keys,
    /// refused): 1 to 128 characters, no control character.
    #[serde(default)]
    #[schema(
        example = "u-123",
        min_length = 1,
        max_length = 128,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*$"
    )]
    pub player: Option<String>,
    /// The name the table shows: 1 to 40 characters, not all spaces, no control character.
    #[schema(
        example = "Ann",
        min_length = 1,
        max_length = 40,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\x00-\x20\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
    )]
    pub name: String,
    /// `may_i`, `contract_7`, `continental` or `push`.
    #[schema(example = "may_i")]
    pub variant: Variant,
    /// The table sizes the player accepts, each one the variant seats (`422 size_not_seated`
    /// otherwise).
    #[serde(deserialize_with = "at_most::<16, _, _>")]
    #[schema(min_items = 1, max_items = 16, example = json!([2, 3, 4]))]
    pub sizes: Vec<TableSize>,
    /// House options, as for `POST /v1/games` (the service's `turn_seconds` included): tickets
    /// meet only with equal rules.
    #[serde(default)]
    #[schema(value_type = Option<super::options::HouseOptions>)]
    pub options: Option<serde_json::Value>,
    /// The player plays asynchronously (not connected; told of each turn by the studio's
    /// webhook): met only with other asynchronous tickets, at a table with a turn clock
    /// (`turn_seconds` of the options, else a day).
    #[serde(default, rename = "async")]
    pub asynchronous: bool,
    /// Where the game's events go, as for `POST /v1/games`: the game takes the webhook of its
    /// first ticket that has one.
    #[serde(default)]
    #[schema(example = "https://studio.example/continental/events", max_length = 2048)]
    pub webhook_url: Option<String>,
}

/// A ticket as the service takes it.
#[derive(Debug)]
pub struct TicketSpec {
    /// The studio's player, with a server key.
    pub player: Option<PlayerId>,
    /// The name the table shows.
    pub name: String,
    /// The variant and its options.
    pub ruleset: Ruleset,
    /// The turn clock of its game.
    pub clock: TurnClock,
    /// The sizes accepted.
    pub sizes: TableSizes,
    /// Live or asynchronous.
    pub asynchronous: bool,
    /// Where the game's events go (its host not yet checked).
    pub webhook_url: Option<WebhookUrl>,
}

impl TicketRequest {
    /// Parses the request; a `player` is required with a server key (`keyed`) and refused
    /// without.
    ///
    /// # Errors
    /// `player_needs_server_key`, `invalid_player`, `invalid_name`, the options' refusals,
    /// `size_not_seated`, `invalid_webhook_url`.
    pub fn parse(self, keyed: bool) -> Result<TicketSpec, Invalid> {
        let player = match (keyed, self.player) {
            (true, Some(id)) => Some(PlayerId::try_from(id).map_err(invalid_player)?),
            (true, None) => {
                return Err(Invalid::refused(
                    Code::InvalidPlayer,
                    "a ticket queued with a server key names its `player`",
                ));
            }
            (false, Some(_)) => {
                return Err(Invalid::refused(
                    Code::PlayerNeedsServerKey,
                    "`player` is taken only with a server key (X-Api-Key) on a server that has them",
                ));
            }
            (false, None) => None,
        };
        let SeatName(name) = SeatName::try_from(self.name)?;
        let (ruleset, mut clock) = super::options::read(self.variant, self.options)?;
        if clock.bank_seconds.is_some() && clock.turn_seconds.is_none() {
            return Err(Invalid::refused(
                Code::InvalidOptions,
                "`bank_seconds` is a reserve on the turn clock: it needs `turn_seconds`",
            ));
        }
        if self.asynchronous && clock.turn_seconds.is_none() {
            clock.turn_seconds = Some(ASYNC_TURN_SECONDS);
        }
        let sizes = TableSizes::new(&ruleset, self.sizes.into_iter().map(|TableSize(size)| size)).map_err(
            |e| match e {
                TicketError::NoSizes => Invalid::new(Code::InvalidBody, e.to_string()),
                TicketError::SizeNotSeated { .. } => Invalid::refused(Code::SizeNotSeated, e.to_string()),
            },
        )?;
        let webhook_url = self.webhook_url.map(WebhookUrl::try_from).transpose()?;
        Ok(TicketSpec {
            player,
            name,
            ruleset,
            clock,
            sizes,
            asynchronous: self.asynchronous,
            webhook_url,
        })
    }
}

/// A player id the studio sent that is not one.
fn invalid_player(e: PlayerIdError) -> Invalid {
    Invalid::new(Code::InvalidPlayer, format!("`player`: {e}"))
}

/// Where a ticket is, as its holder reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TicketState {
    /// Waiting for a table (also while the table found is being made).
    Waiting,
    /// Seated: `match` says where.
    Matched,
    /// Nobody collected it in time.
    Expired,
    /// Cancelled.
    Cancelled,
}

/// Where a matched ticket's player sits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TicketMatch {
    /// The game.
    pub game_id: Uuid,
    /// The seat, from 0.
    pub seat: u8,
    /// The seat's token (as `POST /v1/games` gives a named seat), while the ticket still opens
    /// the seat; `null` once it does not (`token_replaced`).
    pub token: Option<String>,
    /// `true` once the ticket's id no longer opens its seat: the studio reissued the seat's
    /// token (`POST /v1/games/{id}/seats/{seat}/token`) or gave the seat to a bot, or the
    /// game is gone. Only the studio's newer token opens it then.
    pub token_replaced: bool,
}

/// The bots a waiting ticket's table gets when nobody comes in time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TicketBots {
    /// The level whose rating is nearest the ticket's
    /// (https://github.com/continental-rummy/continental/blob/main/docs/bots.md).
    #[schema(schema_with = crate::domain::level_schema)]
    pub level: Level,
    /// The level's rating in the ticket's variant, at the ticket's tenant.
    pub rating: RatingView,
    /// After this many seconds of waiting, the ticket sits down with the people it can find
    /// and bots of this level in the other seats.
    pub after_seconds: u64,
}

/// A ticket as its holder reads it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "0b7e3a52-5f0c-4d7e-9a43-2f7d1c9e8b10", "status": "waiting", "variant": "may_i",
    "sizes": [2, 3, 4], "async": false, "created_at": "2026-11-28T06:00:00Z", "expires_at": "2026-11-28T06:10:00Z",
    "waited_seconds": 12, "bots": {"level": "normal", "rating": {"mean": 23.12, "deviation": 1.5, "display": 1387},
    "after_seconds": 30}, "waiting": 2, "match": null}))]
pub struct TicketView {
    /// The ticket's id: whoever holds it reads and cancels the ticket.
    pub id: Uuid,
    /// `waiting`, `matched`, `expired` or `cancelled`.
    pub status: TicketState,
    /// The variant.
    pub variant: Variant,
    /// The table sizes accepted, smallest first.
    pub sizes: Vec<usize>,
    /// Whether the player plays asynchronously.
    #[serde(rename = "async")]
    pub asynchronous: bool,
    /// When it was queued (RFC 3339).
    pub created_at: String,
    /// When it expires if nobody matches it (RFC 3339).
    pub expires_at: String,
    /// Whole seconds waited: until now while waiting, else until it was matched, expired or
    /// cancelled.
    pub waited_seconds: i64,
    /// While it waits: the bots its table gets if nobody comes in time (the people it meets
    /// by then move the level chosen, nearest their mean). `null` once it is no longer
    /// waiting, and on a server that seats no bots at quick play.
    pub bots: Option<TicketBots>,
    /// While it waits: how many other tickets wait for the same game (the same tenant, variant,
    /// options, turn clock and asynchrony), counted up to 1,000; whether they meet this one
    /// also depends on the sizes they accept and their ratings. `null` once it no longer waits.
    pub waiting: Option<u64>,
    /// Where the player sits, once matched.
    #[serde(rename = "match")]
    pub matched: Option<TicketMatch>,
}

/// One message of `GET /v1/matchmaking/tickets/{ticket}/events`: `event: ticket` with the
/// ticket as `data`, or `error` when the stream cannot go on.
pub struct TicketStreamMessage;

impl PartialSchema for TicketStreamMessage {
    fn schema() -> RefOr<Schema> {
        OneOfBuilder::new()
            .description(Some(
                "A message of a ticket's stream: the ticket at a change of its status, or `error` \
                 when the stream cannot go on (read the ticket again, or reconnect).",
            ))
            .item(Ref::from_schema_name("TicketMessage"))
            .item(Ref::from_schema_name("StreamErrorMessage"))
            .into()
    }
}

impl ToSchema for TicketStreamMessage {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("TicketStreamMessage")
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        let ticket = message(
            &["ticket".to_owned()],
            TicketView::name(),
            "The ticket, now or at a change of its status.",
        );
        schemas.push(("TicketMessage".to_owned(), Schema::Object(ticket.build()).into()));
        error_schemas(schemas);
        schemas.push((TicketView::name().into_owned(), TicketView::schema()));
        <TicketView as ToSchema>::schemas(schemas);
    }
}

/// `POST /v1/matchmaking/tickets` response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TicketResponse {
    /// The ticket.
    pub ticket: TicketView,
    /// With `webhook_url`: the key the game's deliveries are signed with (`whsec_<base64
    /// key>`). Shown only here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_secret: Option<String>,
}

/// A table size a ticket accepts: a whole number of seats (`2.0` reads as `2`, as JSON Schema
/// counts it an integer); whether the variant seats it is the domain's to say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ToSchema)]
#[schema(value_type = u32, minimum = 1, maximum = 12, example = 4)]
pub struct TableSize(pub usize);

impl<'de> Deserialize<'de> for TableSize {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let number = serde_json::Number::deserialize(deserializer)?;
        number
            .as_u64()
            .or_else(|| {
                number
                    .as_f64()
                    .filter(|f| f.fract() == 0.0 && (0.0..=1e6).contains(f))
                    .map(|f| f as u64)
            })
            .and_then(|n| usize::try_from(n).ok())
            .map(TableSize)
            .ok_or_else(|| serde::de::Error::custom("a table size is a whole number of seats"))
    }
}
