//! Creating and joining games on the wire.

use engine::bot::Level;
use engine::{Card, GameConfig, Seat, Seed, Variant};
use serde::{Deserialize, Serialize};
use strum::IntoEnumIterator;
use utoipa::ToSchema;
use uuid::Uuid;

use super::{Code, Invalid, MAX_SEATS, at_most};
use crate::domain::{GameStatus, PlayerId, SeatKind, SeatRecord, TurnClock, level_name};

/// Longest seat name.
const MAX_NAME: usize = 40;

/// One seat of a new game: a named player, an open seat, or a bot.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatSpec {
    /// The player's name (a token is returned for this seat); for a bot, its display name.
    /// 1 to 40 characters, not all spaces, no control character.
    #[serde(default)]
    #[schema(
        example = "Ann",
        min_length = 1,
        max_length = 40,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\x00-\x20\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
    )]
    pub name: Option<String>,
    /// An open seat, taken later with `POST /v1/games/{id}/join`.
    #[serde(default)]
    pub open: bool,
    /// A seat played by the server: `true` (a `normal` bot) or its level, `easy`, `normal`
    /// or `hard` (https://github.com/continental-rummy/continental/blob/main/docs/bots.md); another level is `400 unknown_level`.
    #[serde(default)]
    #[schema(schema_with = bot_seat)]
    pub bot: BotSeat,
    /// The studio's own id of the person at this named seat (with a server key only: `422
    /// player_needs_server_key` otherwise): 1 to 128 characters without control characters (`400
    /// invalid_player` otherwise), at most one seat per game (`422 player_seated_twice`). The
    /// game keeps it; other seats never see it.
    #[serde(default)]
    #[schema(
        example = "u-123",
        min_length = 1,
        max_length = 128,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*$"
    )]
    pub player: Option<String>,
}

/// Reads a player id given in a request, refusing a bad one with `invalid_player`.
///
/// # Errors
/// `invalid_player`: empty, longer than 128 characters or with control characters.
pub fn player_id(text: String) -> Result<PlayerId, Invalid> {
    PlayerId::try_from(text).map_err(|e| Invalid::new(Code::InvalidPlayer, e.to_string()))
}

/// The schema of `bot`: `true`, `false` or a level's name.
fn bot_seat() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Boolean))
        .item(crate::domain::level_schema())
        .description(Some(
            "`true` (a `normal` bot) or the bot's level; `false` or left out: not a bot.",
        ))
        .examples([serde_json::json!("hard")])
        .build()
        .into()
}

/// `bot` of a seat: `false` (no bot), `true` (a `normal` bot) or a level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BotSeat {
    /// Not a bot: `false`, or the field left out.
    #[default]
    No,
    /// A bot of this level.
    At(Level),
}

impl<'de> Deserialize<'de> for BotSeat {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Given {
            Flag(bool),
            Name(String),
        }
        match Given::deserialize(deserializer) {
            Ok(Given::Flag(false)) => Ok(BotSeat::No),
            Ok(Given::Flag(true)) => Ok(BotSeat::At(Level::Normal)),
            Ok(Given::Name(name)) => level(&name).map(BotSeat::At).map_err(serde::de::Error::custom),
            Err(_) => Err(serde::de::Error::custom(format!(
                "{UNKNOWN_LEVEL}: `bot` is true, false or a level (easy, normal, hard)"
            ))),
        }
    }
}

/// `POST /v1/games/{id}/autopilot` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"level": "hard"}))]
pub struct AutopilotRequest {
    /// The bot's level: `easy`, `normal` (when left out) or `hard` (https://github.com/continental-rummy/continental/blob/main/docs/bots.md); another is
    /// `400 unknown_level`.
    #[serde(default, deserialize_with = "named_level")]
    #[schema(schema_with = crate::domain::level_schema)]
    pub level: Option<Level>,
}

/// Reads a level by its name, refusing another with [`UNKNOWN_LEVEL`], and `null` as the
/// document does (a level left out is `normal`).
pub(super) fn named_level<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Level>, D::Error> {
    let name = String::deserialize(deserializer)?;
    level(&name).map(Some).map_err(serde::de::Error::custom)
}

/// How the refusal of a bot level starts: the body reader answers it `unknown_level`.
pub const UNKNOWN_LEVEL: &str = "unknown bot level";

/// The level named `name`.
///
/// # Errors
/// A sentence naming the levels, starting with [`UNKNOWN_LEVEL`].
pub fn level(name: &str) -> Result<Level, String> {
    Level::deserialize(serde::de::value::StrDeserializer::<serde::de::value::Error>::new(
        name,
    ))
    .map_err(|_| {
        let names: Vec<String> = Level::iter().map(|l| format!("`{}`", level_name(l))).collect();
        format!("{UNKNOWN_LEVEL} `{name}`: a level is one of {}", names.join(", "))
    })
}

impl TryFrom<SeatSpec> for SeatRecord {
    type Error = Invalid;
    fn try_from(s: SeatSpec) -> Result<Self, Invalid> {
        let name = s.name.map(SeatName::try_from).transpose()?.map(|n| n.0);
        let bot = match s.bot {
            BotSeat::No => None,
            BotSeat::At(level) => Some(level),
        };
        let kind = match (s.open, bot.is_some(), &name) {
            (true, true, _) => {
                return Err(Invalid::refused(
                    Code::InvalidSeat,
                    "a seat is open or a bot, not both",
                ));
            }
            (true, false, Some(_)) => {
                return Err(Invalid::refused(
                    Code::InvalidSeat,
                    "an open seat takes its name when joined",
                ));
            }
            (true, false, None) => SeatKind::Open,
            (false, true, _) => SeatKind::Bot,
            (false, false, Some(_)) => SeatKind::Player,
            (false, false, None) => {
                return Err(Invalid::refused(
                    Code::InvalidSeat,
                    "each seat needs a `name`, or `open: true`, or `bot: true`",
                ));
            }
        };
        let player = s.player.map(player_id).transpose()?;
        if player.is_some() && kind != SeatKind::Player {
            return Err(Invalid::refused(
                Code::InvalidSeat,
                "a player id names a person's seat: not an open seat, not a bot's",
            ));
        }
        Ok(SeatRecord::taken(kind, name, bot, player))
    }
}

/// A seat's name: 1 to 40 characters, none a control character (Unicode `Cc`), not all
/// spaces, exactly as the document's `maxLength` and `pattern` on every `name` say; kept
/// without its outer spaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatName(pub String);

impl TryFrom<String> for SeatName {
    type Error = Invalid;
    fn try_from(name: String) -> Result<Self, Invalid> {
        let length = name.chars().count();
        if !(1..=MAX_NAME).contains(&length)
            || name.chars().any(char::is_control)
            || name.chars().all(|c| c == ' ')
        {
            return Err(Invalid::new(
                Code::InvalidName,
                format!("a name is 1 to {MAX_NAME} characters, not all spaces, with no control character"),
            ));
        }
        Ok(SeatName(name.trim_matches(' ').to_owned()))
    }
}

/// Who takes an open seat: a name, and the studio's player id when given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Joining {
    /// The name to sit under.
    pub name: SeatName,
    /// The studio's id of the person.
    pub player: Option<PlayerId>,
}

impl TryFrom<JoinRequest> for Joining {
    type Error = Invalid;
    fn try_from(req: JoinRequest) -> Result<Self, Invalid> {
        Ok(Joining {
            name: SeatName::try_from(req.name)?,
            player: req.player.map(player_id).transpose()?,
        })
    }
}

/// A new game as the table takes it: its configuration, the test-mode seed if any, the seats.
#[derive(Debug)]
pub struct NewGameSpec {
    /// Rules, players and test-mode hooks.
    pub config: GameConfig,
    /// Test mode only: the seed asked for.
    pub seed: Option<Seed>,
    /// The seats in order.
    pub seats: Vec<SeatRecord>,
    /// The service's own options: the turn clock, its reserve, the autopilot after timeouts.
    pub clock: TurnClock,
    /// Where to POST the game's events, if anywhere (its host not yet checked).
    pub webhook_url: Option<WebhookUrl>,
    /// The creator asked for the game to be rated.
    pub rated: bool,
}

impl NewGameSpec {
    /// Whether the request names a player or asks for a rated game: what only a server key
    /// may do.
    pub fn names_players(&self) -> bool {
        self.rated || self.seats.iter().any(|s| s.player.is_some())
    }
}

/// A webhook URL whose scheme is `http` or `https` and which names a host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookUrl(pub reqwest::Url);

impl TryFrom<String> for WebhookUrl {
    type Error = Invalid;
    fn try_from(text: String) -> Result<Self, Invalid> {
        let bad = |why: &str| Invalid::refused(Code::InvalidWebhookUrl, format!("`webhook_url` {why}"));
        if text.len() > 2048 {
            return Err(bad("is longer than 2048 characters"));
        }
        let url = reqwest::Url::parse(text.trim()).map_err(|e| bad(&format!("is not a URL: {e}")))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(bad("must be an http or https URL"));
        }
        if url.host().is_none() || !url.username().is_empty() || url.password().is_some() {
            return Err(bad("must name a host, without user or password"));
        }
        Ok(WebhookUrl(url))
    }
}

impl CreateGameRequest {
    /// The fields only a server in test mode takes (others answer `test_mode_only`): its
    /// document shows them only then.
    pub const TEST_MODE_FIELDS: [&str; 3] = ["seed", "first_dealer", "stacked_decks"];

    /// Parses the request; the test-mode fields only when `test_mode`.
    ///
    /// # Errors
    /// `test_mode_only`, the ruleset's refusals (options, player count), `invalid_seat`, `invalid_name`.
    pub fn parse(self, test_mode: bool) -> Result<NewGameSpec, Invalid> {
        if !test_mode && (self.seed.is_some() || self.first_dealer.is_some() || self.stacked_decks.is_some())
        {
            return Err(Invalid::new(
                Code::TestModeOnly,
                "seed, first_dealer and stacked_decks are accepted only when the server runs in test mode",
            ));
        }
        let (ruleset, clock) = super::options::read(self.variant, self.options)?;
        if clock.bank_seconds.is_some() && clock.turn_seconds.is_none() {
            return Err(Invalid::refused(
                Code::InvalidOptions,
                "`bank_seconds` is a reserve on the turn clock: it needs `turn_seconds`",
            ));
        }
        let webhook_url = self.webhook_url.map(WebhookUrl::try_from).transpose()?;
        ruleset.check_players(self.seats.len())?;
        let seats = self
            .seats
            .into_iter()
            .map(SeatRecord::try_from)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(NewGameSpec {
            config: GameConfig {
                ruleset,
                players: seats.len(),
                first_dealer: self.first_dealer.map(Seat),
                stacked_decks: self.stacked_decks,
                // The service's clock sets it when the game is stored.
                start_year: None,
            },
            seed: self.seed.map(Seed::from_u64),
            seats,
            clock,
            webhook_url,
            rated: self.rated,
        })
    }
}

/// Reads a seed: a whole number from 0 to 2^63 - 1, as the document's `int64` says.
fn seed<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    let seed = Option::<u64>::deserialize(deserializer)?;
    match seed {
        Some(s) if i64::try_from(s).is_err() => Err(serde::de::Error::custom(format!(
            "a seed is a whole number from 0 to {}",
            i64::MAX
        ))),
        s => Ok(s),
    }
}

/// `POST /v1/games` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}, {"open": true}, {"bot": true}]}))]
pub struct CreateGameRequest {
    /// `may_i`, `contract_7`, `continental` or `push`.
    #[schema(example = "may_i")]
    pub variant: Variant,
    /// House-rule options of the variant (see `GET /v1/rulesets`); absent for the defaults.
    /// Besides the variant's own, the service's `turn_seconds`: each turn's deadline, after
    /// which the server plays the turn as its bot would.
    #[serde(default)]
    #[schema(value_type = Option<super::options::HouseOptions>, example = json!({"deuces_wild": true, "turn_seconds": 86400}))]
    pub options: Option<serde_json::Value>,
    /// The seats in play order: as many as the variant seats (`min_players` to `max_players`
    /// in `GET /v1/rulesets`; another count is `422 player_count`).
    #[serde(deserialize_with = "at_most::<MAX_SEATS, _, _>")]
    #[schema(min_items = 2, max_items = 12)]
    pub seats: Vec<SeatSpec>,
    /// An `http` or `https` URL to POST each event of the game to, signed as Standard
    /// Webhooks says; its host must not resolve to a loopback, private, link-local or
    /// unspecified address. The response then holds `webhook_secret`.
    #[serde(default)]
    #[schema(example = "https://studio.example/continental/events", max_length = 2048)]
    pub webhook_url: Option<String>,
    /// Test mode only: the shuffle seed as an integer.
    #[serde(default, deserialize_with = "seed")]
    #[schema(value_type = Option<i64>, minimum = 0)]
    pub seed: Option<u64>,
    /// Test mode only: the first dealer's seat, instead of the draw for dealer.
    #[serde(default)]
    #[schema(maximum = 11)]
    pub first_dealer: Option<u8>,
    /// Test mode only: one deck per deal, each a permutation of the game's full pack, top card first.
    #[serde(default)]
    pub stacked_decks: Option<Vec<Vec<Card>>>,
    /// Rate the game when it finishes (https://github.com/continental-rummy/continental/blob/main/docs/ratings.md#rated-games):
    /// with a server key only (`422 player_needs_server_key` otherwise), and every person's
    /// seat names a `player` (`422 rated_needs_players` otherwise; an open seat, when joined).
    /// A void game, or one a studio ended, is never rated, unless the studio ends it with
    /// `"rated": true` (`POST /v1/games/{id}/end`).
    #[serde(default)]
    pub rated: bool,
}

/// A seat of a created game.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct CreatedSeat {
    /// Seat index from 0.
    pub seat: u8,
    /// The name, if any.
    pub name: Option<String>,
    /// `player`, `open` or `bot`.
    pub kind: SeatKind,
    /// The seat token, for named player seats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// `POST /v1/games` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "6f1c1f53-8a4e-4c39-9d0c-3f8f5b0e6a11", "variant": "may_i", "status": "waiting", "version": 1,
    "seats": [{"seat": 0, "name": "Ann", "kind": "player", "token": "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9…"},
              {"seat": 1, "name": null, "kind": "open"}],
    "seed_commitment": "3f0a…"}))]
pub struct CreateGameResponse {
    /// The game id.
    pub id: Uuid,
    /// The variant.
    pub variant: Variant,
    /// `waiting` until every seat is taken, then `playing`.
    pub status: GameStatus,
    /// The game's version (its `ETag`).
    pub version: i64,
    /// Every seat, with a token for each named player.
    pub seats: Vec<CreatedSeat>,
    /// SHA-256 of the shuffle seed (hex): the seed is revealed when the game ends.
    pub seed_commitment: String,
    /// With `webhook_url`: the key every delivery is signed with (`whsec_<base64 key>`), as
    /// Standard Webhooks libraries take it. Shown only here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")]
    pub webhook_secret: Option<String>,
}

/// `GET /v1/games/{id}/webhook`: how a game's webhook deliveries stand.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"url": "https://studio.example/continental/events", "delivered": 41, "pending": 1, "failed": 0,
    "last_error": "503 Service Unavailable"}))]
pub struct WebhookStatus {
    /// Where the events go, without the URL's query (which may hold the receiver's
    /// credentials): scheme, host, port and path.
    pub url: String,
    /// Events the receiver acknowledged with a 2xx.
    pub delivered: i64,
    /// Events waiting for their first attempt or a retry.
    pub pending: i64,
    /// Events given up, still failing a day after the event (`CONTINENTAL_WEBHOOK_GIVE_UP_S`);
    /// the game's later events go on after them.
    pub failed: i64,
    /// The latest failure (a status or a network error), if any.
    pub last_error: Option<String>,
}

/// `POST /v1/games/{id}/join` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Cleo"}))]
pub struct JoinRequest {
    /// The name to sit under: 1 to 40 characters, not all spaces, no control character.
    #[schema(
        example = "Cleo",
        min_length = 1,
        max_length = 40,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\x00-\x20\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
    )]
    pub name: String,
    /// The studio's own id of the person joining (with a server key of the game's tenant
    /// only: `422 player_needs_server_key` otherwise): 1 to 128 characters without control
    /// characters; required to join a rated game (`422 rated_needs_players`).
    #[serde(default)]
    #[schema(
        example = "u-123",
        min_length = 1,
        max_length = 128,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*$"
    )]
    pub player: Option<String>,
}

/// `POST /v1/games/{id}/join` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "6f1c1f53-8a4e-4c39-9d0c-3f8f5b0e6a11", "seat": 2, "name": "Cleo",
    "token": "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9…", "status": "playing", "version": 3}))]
pub struct JoinResponse {
    /// The game.
    pub id: Uuid,
    /// The seat taken.
    pub seat: u8,
    /// The name.
    pub name: String,
    /// The seat token.
    pub token: String,
    /// `waiting`, or `playing` when this was the last open seat.
    pub status: GameStatus,
    /// The game's version after joining.
    pub version: i64,
}
