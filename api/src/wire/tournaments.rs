//! A studio's tournaments on the wire (docs/tournaments.md): a tournament asked for and shown,
//! a page of them, an entry asked for and as its holder reads it.

use engine::bot::Level;
use engine::{Ruleset, Variant};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::cursor::{Bound, CursorSeal};
use super::studio::cursor_refused;
use super::{Code, Invalid, SeatName, WebhookUrl, player_id};
use crate::domain::{Format, PlayerId, TableSizes, TurnClock};

/// Most rounds a tournament has.
pub const MAX_ROUNDS: u32 = 20;

/// Most entrants a tournament takes.
pub const MAX_ENTRANTS: u32 = 10_000;

/// A round's deadline when the request sets none: an hour.
pub const DEFAULT_ROUND_SECONDS: u32 = 3_600;

/// Timeouts in a row after which autopilot plays a tournament seat, when the options set none.
pub const DEFAULT_AUTOPILOT_AFTER: u32 = 2;

/// `POST /v1/tournaments` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Friday cup", "variant": "may_i", "table_size": 4, "format": "duplicate",
    "rounds": 2, "deals_per_round": 7, "starts_at": "2026-12-04T19:00:00Z", "max_entrants": 64,
    "turn_seconds": 30, "bot_level": "normal"}))]
pub struct TournamentRequest {
    /// The tournament's name: 1 to 40 characters, not all spaces, no control character.
    #[schema(
        example = "Friday cup",
        min_length = 1,
        max_length = 40,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\x00-\x20\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
    )]
    pub name: String,
    /// `may_i`, `contract_7`, `continental` or `push`.
    #[schema(example = "may_i")]
    pub variant: Variant,
    /// House options, as for `POST /v1/games` (every table plays by them).
    #[serde(default)]
    #[schema(value_type = Option<super::options::HouseOptions>)]
    pub options: Option<serde_json::Value>,
    /// Seats at each table: a size the variant seats (`422 size_not_seated` otherwise).
    #[schema(example = 4, minimum = 2, maximum = 8)]
    pub table_size: u8,
    /// `duplicate` (matchpoints, seat against the same seat at the other tables) or `points`
    /// (the variant's scores added up).
    pub format: Format,
    /// Rounds, 1 to 20: each a game of the variant at every table.
    #[schema(example = 2, minimum = 1, maximum = 20)]
    pub rounds: u32,
    /// Deals in each round's game: the variant's own number of deals (a game is not ended
    /// early: `422 invalid_deals_per_round` for another).
    #[schema(example = 7, minimum = 1)]
    pub deals_per_round: u32,
    /// When the first round starts (RFC 3339), in the future.
    #[schema(example = "2026-12-04T19:00:00Z", format = DateTime)]
    pub starts_at: String,
    /// Most entrants, 2 to 10,000.
    #[schema(example = 64, minimum = 2, maximum = 10000)]
    pub max_entrants: u32,
    /// The turn clock of every table, 5 to 86,400 seconds: required, so that no table stalls
    /// a round (a seat that times out twice in a row is played by autopilot).
    #[schema(example = 30, minimum = 5, maximum = 86400)]
    pub turn_seconds: u32,
    /// How long a round may last, 60 to 604,800 seconds (default 3,600): a table still playing
    /// then is played out by autopilot.
    #[serde(default)]
    #[schema(example = 3600, minimum = 60, maximum = 604800)]
    pub round_seconds: Option<u32>,
    /// The level of the bots that fill the last places of the field.
    #[schema(schema_with = crate::domain::level_schema)]
    pub bot_level: Level,
    /// Where the events of the tournament's games go, as for `POST /v1/games`.
    #[serde(default)]
    #[schema(example = "https://studio.example/continental/events", max_length = 2048)]
    pub webhook_url: Option<String>,
}

/// A tournament as the service takes it.
#[derive(Debug)]
pub struct TournamentSpec {
    /// Its name.
    pub name: String,
    /// The variant and its options.
    pub ruleset: Ruleset,
    /// Every table's turn clock.
    pub clock: TurnClock,
    /// Seats at each table.
    pub table_size: u8,
    /// How it is scored.
    pub format: Format,
    /// How many rounds.
    pub rounds: u32,
    /// Deals in each round.
    pub deals_per_round: u32,
    /// When it starts (unix ms).
    pub starts_at: i64,
    /// Most entrants.
    pub max_entrants: u32,
    /// A round's deadline (seconds from its start).
    pub round_seconds: u32,
    /// The bots' level.
    pub bot_level: Level,
    /// Where its games' events go (the host not yet checked).
    pub webhook_url: Option<WebhookUrl>,
}

impl TournamentRequest {
    /// Parses the request at `now` (unix ms).
    ///
    /// # Errors
    /// `invalid_name`, the options' refusals, `size_not_seated`, `invalid_rounds`,
    /// `invalid_deals_per_round`, `invalid_start`, `start_in_past`, `invalid_max_entrants`,
    /// `invalid_turn_seconds`, `invalid_round_seconds`, `invalid_webhook_url`.
    pub fn parse(self, now: i64) -> Result<TournamentSpec, Invalid> {
        let SeatName(name) = SeatName::try_from(self.name)?;
        let (ruleset, mut clock) = super::options::read(self.variant, self.options)?;
        TableSizes::new(&ruleset, [usize::from(self.table_size)])
            .map_err(|e| Invalid::refused(Code::SizeNotSeated, e.to_string()))?;
        if !(1..=MAX_ROUNDS).contains(&self.rounds) {
            return Err(Invalid::refused(
                Code::InvalidRounds,
                format!("a tournament has 1 to {MAX_ROUNDS} rounds, not {}", self.rounds),
            ));
        }
        let deals = u32::from(ruleset.deals());
        if self.deals_per_round != deals {
            return Err(Invalid::refused(
                Code::InvalidDealsPerRound,
                format!(
                    "a round is one whole game of {}: {deals} deals (the service ends no game early), not {}",
                    self.variant, self.deals_per_round
                ),
            ));
        }
        let starts_at =
            time::OffsetDateTime::parse(&self.starts_at, &time::format_description::well_known::Rfc3339)
                .map_err(|_| {
                    Invalid::new(
                        Code::InvalidStart,
                        "`starts_at` is a time in RFC 3339, such as 2026-12-04T19:00:00Z",
                    )
                })?;
        let starts_at = i64::try_from(starts_at.unix_timestamp_nanos() / 1_000_000)
            .map_err(|_| Invalid::new(Code::InvalidStart, "`starts_at` is out of range"))?;
        if starts_at <= now {
            return Err(Invalid::refused(
                Code::StartInPast,
                "`starts_at` has passed: a tournament starts in the future",
            ));
        }
        if !(2..=MAX_ENTRANTS).contains(&self.max_entrants) {
            return Err(Invalid::refused(
                Code::InvalidMaxEntrants,
                format!("`max_entrants` is 2 to {MAX_ENTRANTS}, not {}", self.max_entrants),
            ));
        }
        if !(5..=86_400).contains(&self.turn_seconds) {
            return Err(Invalid::refused(
                Code::InvalidTurnSeconds,
                format!("`turn_seconds` is 5 to 86400, not {}", self.turn_seconds),
            ));
        }
        if clock.turn_seconds.is_some_and(|t| t != self.turn_seconds) {
            return Err(Invalid::refused(
                Code::InvalidTurnSeconds,
                "`options.turn_seconds` differs from `turn_seconds`: give the turn clock once",
            ));
        }
        let round_seconds = self.round_seconds.unwrap_or(DEFAULT_ROUND_SECONDS);
        if !(60..=604_800).contains(&round_seconds) {
            return Err(Invalid::refused(
                Code::InvalidRoundSeconds,
                format!("`round_seconds` is 60 to 604800, not {round_seconds}"),
            ));
        }
        clock.turn_seconds = Some(self.turn_seconds);
        clock.autopilot_after_timeouts =
            Some(clock.autopilot_after_timeouts.unwrap_or(DEFAULT_AUTOPILOT_AFTER));
        let webhook_url = self.webhook_url.map(WebhookUrl::try_from).transpose()?;
        Ok(TournamentSpec {
            name,
            ruleset,
            clock,
            table_size: self.table_size,
            format: self.format,
            rounds: self.rounds,
            deals_per_round: self.deals_per_round,
            starts_at,
            max_entrants: self.max_entrants,
            round_seconds,
            bot_level: self.bot_level,
            webhook_url,
        })
    }
}

/// Where a tournament is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TournamentState {
    /// Taking entries until its start.
    Open,
    /// Its rounds are being played.
    Running,
    /// Its last round is over.
    Finished,
    /// Cancelled by its studio before the start.
    Cancelled,
}

/// A tournament.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct TournamentView {
    /// Its id.
    pub id: Uuid,
    /// Its name.
    pub name: String,
    /// The variant.
    #[schema(value_type = String, example = "may_i")]
    pub variant: Variant,
    /// Seats at each table.
    pub table_size: u8,
    /// How it is scored.
    pub format: Format,
    /// How many rounds.
    pub rounds: u32,
    /// Deals in each round.
    pub deals_per_round: u32,
    /// When the first round starts (RFC 3339).
    pub starts_at: String,
    /// Most entrants.
    pub max_entrants: u32,
    /// Entrants so far (who have not withdrawn).
    pub entrants: u32,
    /// Every table's turn clock (seconds).
    pub turn_seconds: u32,
    /// A round's deadline, from its start (seconds).
    pub round_seconds: u32,
    /// The bots' level.
    #[schema(schema_with = crate::domain::level_schema)]
    pub bot_level: Level,
    /// Where it is.
    pub status: TournamentState,
    /// The round being played (0 before the start).
    pub round: u32,
    /// When the round being played must end (RFC 3339).
    pub round_deadline: Option<String>,
    /// When it was made (RFC 3339).
    pub created_at: String,
}

/// `POST /v1/tournaments` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TournamentResponse {
    /// The tournament.
    pub tournament: TournamentView,
    /// The secret its games' webhook deliveries are signed with, when it has a webhook.
    pub webhook_secret: Option<String>,
}

/// A page of a tenant's tournaments, newest first.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TournamentsPage {
    /// The tournaments.
    pub tournaments: Vec<TournamentView>,
    /// Pass as `cursor` for the next page; absent on the last.
    pub next_cursor: Option<String>,
}

/// What a tournament listing's cursor is sealed as: bound to its tenant.
const TOURNAMENTS: &str = "tournaments";

/// A listing's cursor: the last tournament's creation time and id, sealed for `tenant`.
pub fn encode_tournament_cursor(seal: &CursorSeal, tenant: &str, created_at: i64, id: Uuid) -> String {
    let mut bytes = Vec::with_capacity(24);
    bytes.extend_from_slice(&created_at.to_be_bytes());
    bytes.extend_from_slice(id.as_bytes());
    seal.seal(TOURNAMENTS, Bound { tenant, board: "" }, &bytes)
}

/// Reads a tournament listing's cursor of `tenant` sent back.
///
/// # Errors
/// `invalid_cursor` for anything [`encode_tournament_cursor`] did not write for this tenant.
pub fn decode_tournament_cursor(seal: &CursorSeal, tenant: &str, text: &str) -> Result<(i64, Uuid), Invalid> {
    let reads = "the tournaments";
    let bytes = seal
        .open(TOURNAMENTS, Bound { tenant, board: "" }, text)
        .map_err(|why| cursor_refused(why, reads, "of another listing"))?;
    let invalid = || cursor_refused(super::Unopened::NotGiven, reads, "");
    let (at, id) = bytes.split_at_checked(8).ok_or_else(invalid)?;
    let created_at = i64::from_be_bytes(at.try_into().map_err(|_| invalid())?);
    let id = Uuid::from_slice(id).map_err(|_| invalid())?;
    Ok((created_at, id))
}

/// `POST /v1/tournaments/{id}/entries` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"player": "u-123", "name": "Ann"}))]
pub struct EntryRequest {
    /// The studio's id of the player: 1 to 128 characters, no control character.
    #[schema(
        example = "u-123",
        min_length = 1,
        max_length = 128,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*$"
    )]
    pub player: String,
    /// The name the tables show: 1 to 40 characters, not all spaces, no control character.
    #[schema(
        example = "Ann",
        min_length = 1,
        max_length = 40,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\x00-\x20\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
    )]
    pub name: String,
}

impl EntryRequest {
    /// The player and the name.
    ///
    /// # Errors
    /// `invalid_player`, `invalid_name`.
    pub fn parse(self) -> Result<(PlayerId, String), Invalid> {
        let player = player_id(self.player)?;
        let SeatName(name) = SeatName::try_from(self.name)?;
        Ok((player, name))
    }
}

/// Where an entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EntryState {
    /// Entered: playing once the tournament runs.
    Entered,
    /// Withdrawn before the start.
    Withdrawn,
}

/// An entrant's table in the round being played.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct EntryTable {
    /// The round, from 1.
    pub round: u32,
    /// The table, from 0.
    pub table: u32,
    /// The table's game.
    pub game_id: Uuid,
    /// The entrant's seat there.
    pub seat: u8,
    /// The seat's token, while the seat is in its first generation: none once the studio
    /// reissued it or gave the seat to a bot.
    pub token: Option<String>,
    /// The studio reissued the seat's token (or gave the seat to a bot): this entry mints it
    /// no more.
    pub token_replaced: bool,
}

/// An entry, as its holder reads it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct EntryView {
    /// The entry's id: whoever holds it reads the entry and its seat's token.
    pub id: Uuid,
    /// The tournament.
    pub tournament_id: Uuid,
    /// The studio's player.
    pub player: String,
    /// The name the tables show.
    pub name: String,
    /// Where it is.
    pub status: EntryState,
    /// Where the tournament is.
    pub tournament_status: TournamentState,
    /// The tournament's name.
    pub tournament_name: String,
    /// The variant every table plays.
    #[schema(value_type = String, example = "may_i")]
    pub variant: Variant,
    /// When the tournament's first round starts (RFC 3339).
    pub starts_at: String,
    /// How many rounds the tournament has.
    pub rounds: u32,
    /// The round being played (0 before the start; the last once the tournament is over).
    pub round: u32,
    /// The entrant's place in the field (from 0, in the order of entry), once started.
    pub place: Option<u32>,
    /// The entrant's table in the round being played, once its game is made.
    pub table: Option<EntryTable>,
}

/// `GET /v1/tournaments/{id}/standings` query.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct StandingsQuery {
    /// Entrants per page, 1 to 200 (default 50).
    #[param(example = 50, minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
    /// The `next_cursor` of the page before.
    pub cursor: Option<String>,
    /// A player: the page where they stand, with their entry as `player`.
    #[param(
        example = "u-123",
        min_length = 1,
        max_length = 128,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*$"
    )]
    pub player: Option<String>,
}

impl StandingsQuery {
    /// The page's size.
    ///
    /// # Errors
    /// `invalid_limit` outside 1 to 200.
    pub fn limit(&self) -> Result<u32, Invalid> {
        super::PageQuery {
            limit: self.limit,
            cursor: None,
        }
        .limit()
    }
}

/// `GET /v1/tournaments/{id}/entries/{entry}/standings` query: the standings' pages, the
/// entrant's own standing always given.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct EntryStandingsQuery {
    /// Entrants per page, 1 to 200 (default 50).
    #[param(example = 50, minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
    /// The `next_cursor` of the page before.
    pub cursor: Option<String>,
}

impl EntryStandingsQuery {
    /// The page's size.
    ///
    /// # Errors
    /// `invalid_limit` outside 1 to 200.
    pub fn limit(&self) -> Result<u32, Invalid> {
        super::PageQuery {
            limit: self.limit,
            cursor: None,
        }
        .limit()
    }
}

/// An entrant's standing.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct StandingView {
    /// 1 for the best; entrants with equal results share a rank.
    pub rank: u32,
    /// The studio's player.
    pub player: String,
    /// The name the tables showed.
    pub name: String,
    /// In `duplicate`, the matchpoints (halves for ties); in `points`, the scores added up
    /// (lower is better).
    pub score: f64,
}

/// A tournament's standings after its rounds that are over.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct StandingsPage {
    /// How it is scored.
    pub format: Format,
    /// The rounds counted: those whose every table is over.
    pub rounds: u32,
    /// Entrants in all.
    pub entrants: u32,
    /// A page of standings, best first.
    pub standings: Vec<StandingView>,
    /// Pass as `cursor` for the next page; absent on the last.
    pub next_cursor: Option<String>,
    /// With `player`, their standing.
    pub player: Option<StandingView>,
}

/// A cursor of a tournament's standings: the index of the next entry, sealed for `tenant`
/// and this tournament after `rounds` rounds (a page of other rounds' standings is refused).
pub fn encode_standings_cursor(seal: &CursorSeal, tenant: &str, board: &str, next: u32) -> String {
    seal.seal("standings", Bound { tenant, board }, &next.to_be_bytes())
}

/// Reads a standings cursor sent back.
///
/// # Errors
/// `invalid_cursor` for anything [`encode_standings_cursor`] did not write for this tenant and
/// these standings.
pub fn decode_standings_cursor(
    seal: &CursorSeal,
    tenant: &str,
    board: &str,
    text: &str,
) -> Result<u32, Invalid> {
    let reads = "these standings";
    let bytes = seal
        .open("standings", Bound { tenant, board }, text)
        .map_err(|why| {
            cursor_refused(
                why,
                reads,
                "of other standings (another tournament, or before a round ended)",
            )
        })?;
    let at: [u8; 4] = bytes
        .try_into()
        .map_err(|_| cursor_refused(super::Unopened::NotGiven, reads, ""))?;
    Ok(u32::from_be_bytes(at))
}

/// One deal of an entrant's, once its round is over.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct DealResult {
    /// The round, from 1.
    pub round: u32,
    /// The deal, from 1.
    pub deal: u32,
    /// The entrant's table.
    pub table: u32,
    /// The entrant's seat.
    pub seat: u8,
    /// The entrant's score (penalty points).
    pub score: i32,
    /// In `duplicate`, the same seat's score at each other table of the round that scored the
    /// deal (the same cards); empty in `points`.
    pub others: Vec<i32>,
}

/// `GET /v1/tournaments/{id}/entries/{entry}/deals` response.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct EntryDeals {
    /// The entrant's deals of the rounds that are over, in order.
    pub deals: Vec<DealResult>,
}
