//! Problem documents (RFC 9457): the body of every error, with the engine's reasons as
//! extension members.

use engine::{
    ActionError, ContractCode, ContractReason, MeldKind, Reading, Reason, ReasonCode, RulesetError,
    SetupError,
};
use serde::{Deserialize, Serialize};
use strum::IntoEnumIterator;
use utoipa::ToSchema;

/// An error body (RFC 9457 problem details) with our stable `code`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "type": "urn:continental:problem:not_your_turn",
    "title": "Conflict",
    "status": 409,
    "detail": "it is seat 2's turn",
    "code": "not_your_turn"
}))]
pub struct Problem {
    /// A URI naming the kind of problem: `urn:continental:problem:{code}`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The HTTP reason phrase of the status.
    pub title: String,
    /// The HTTP status.
    pub status: u16,
    /// A sentence a person can read.
    pub detail: String,
    /// Stable machine-readable code, such as `not_your_turn`, `illegal_meld`, `stale_version`.
    #[schema(schema_with = problem_code)]
    pub code: String,
    /// RFC 9457 extension members, present only where the engine gives them.
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// The codes the service writes itself; the engine's refusals bring their own
/// ([`ProblemCode`]). A closed set, so that every site that refuses a request names one of
/// these and the document lists them all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::EnumIter, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Code {
    // The request itself (400, 404, 405, 408, 410, 413, 415).
    /// The body is not JSON.
    MalformedJson,
    /// The body is JSON but not an object.
    NotAnObject,
    /// The body has a field its type does not.
    UnknownField,
    /// A field of the body has the wrong type or value.
    InvalidBody,
    /// The body could not be read to its end.
    UnreadableBody,
    /// A card name that is not a card.
    UnknownCard,
    /// A variant id that is not a variant.
    UnknownVariant,
    /// House options that are not an object of known options and values.
    InvalidOptions,
    /// A seat of a new game that is neither named, open nor a bot, or more than one.
    InvalidSeat,
    /// A bot level that is not `easy`, `normal` or `hard`.
    UnknownLevel,
    /// A player's name that is empty, too long or holds control characters.
    InvalidName,
    /// A reason for ending a game that is empty, too long or holds control characters.
    InvalidReason,
    /// A deal the variant does not have.
    InvalidDeal,
    /// A meld of the table a hand is arranged against that is not one legal meld (illegal, or
    /// read more than one way).
    InvalidTableMeld,
    /// A batch of more items than it may hold.
    TooManyItems,
    /// A batch of melds whose answer would list more readings than a batch may.
    TooManyReadings,
    /// A swap or joker move whose fields match neither.
    InvalidSwap,
    /// A query string that cannot be read.
    InvalidQuery,
    /// A listing's `limit` out of its range.
    InvalidLimit,
    /// A listing's `status` that is not a status.
    InvalidStatus,
    /// A listing's `cursor` that no listing gave.
    InvalidCursor,
    /// A path segment that is not what the endpoint takes.
    InvalidPath,
    /// An `If-Match` that is not an ETag.
    InvalidIfMatch,
    /// An `Idempotency-Key` that is empty, too long or not visible ASCII.
    InvalidIdempotencyKey,
    /// A webhook URL the service does not deliver to.
    InvalidWebhookUrl,
    /// A player id that is empty, longer than 128 characters or holds control characters, or a
    /// ticket queued with a server key that names none.
    InvalidPlayer,
    /// A player id or a rated game asked without a server key.
    PlayerNeedsServerKey,
    /// A tournament's `starts_at` that is not an RFC 3339 time.
    InvalidStart,
    /// A test-mode field outside test mode.
    TestModeOnly,
    /// No endpoint at this path.
    NoRoute,
    /// An endpoint asked with a method it does not take.
    MethodNotAllowed,
    /// A request not received in time.
    RequestTimeout,
    /// A body over the limit.
    BodyTooLarge,
    /// A body that is not `application/json`.
    UnsupportedMediaType,
    // Who asks (401, 403) and what they ask for (404).
    /// No valid token or key.
    Unauthorized,
    /// A valid token that gives no access here.
    Forbidden,
    /// No such game (or not the key's tenant's).
    GameNotFound,
    /// No such seat.
    SeatNotFound,
    /// No player of this id at the key's tenant.
    PlayerNotFound,
    /// The game has no webhook.
    NoWebhook,
    /// No such ticket (or not the key's tenant's).
    TicketNotFound,
    /// The ticket was cancelled (410): queue a new one.
    TicketCancelled,
    /// No such tournament (or not the key's tenant's).
    TournamentNotFound,
    /// No such entry of the tournament.
    EntryNotFound,
    // The state of the game or of the request (409, 412, 422).
    /// Every seat is taken.
    NoOpenSeat,
    /// The game has been dealt.
    GameStarted,
    /// The game has not been dealt.
    GameNotStarted,
    /// The seat is a bot's or open: it has no token.
    SeatHasNoToken,
    /// A rematch asked of a game that is not finished (void, or not over).
    GameNotFinished,
    /// A rematch asked of a tournament table's game.
    TournamentGame,
    /// A rematch's seat that a studio gave to a bot before its player asked for it.
    SeatNotReserved,
    /// A replay of a game dealt before the service kept games' records.
    NoRecord,
    /// A player who is already waiting for a table asked for a second ticket.
    AlreadyWaiting,
    /// A ticket seated at a table cannot be cancelled, nor seated again.
    TicketMatched,
    /// A ticket that expired cannot be seated: queue a new one.
    TicketExpired,
    /// A ticket asked to sit down with bots now on a server that seats no bots at quick play,
    /// or none that plays its variant.
    NoQuickPlayBots,
    /// A quick-play or tournament table size the variant does not seat.
    SizeNotSeated,
    /// A tournament's `rounds` out of its range.
    InvalidRounds,
    /// A tournament's `deals_per_round` that is not the variant's number of deals.
    InvalidDealsPerRound,
    /// A tournament's `starts_at` that has passed.
    StartInPast,
    /// A tournament's `max_entrants` out of its range.
    InvalidMaxEntrants,
    /// A tournament's `turn_seconds` out of its range, or given twice.
    InvalidTurnSeconds,
    /// A tournament's `round_seconds` out of its range.
    InvalidRoundSeconds,
    /// A tournament that has started (or whose start time came): no entry, withdrawal or
    /// cancellation.
    TournamentStarted,
    /// A tournament its studio cancelled.
    TournamentCancelled,
    /// A player who has entered the tournament already.
    AlreadyEntered,
    /// A tournament with as many entrants as it takes.
    TournamentFull,
    /// A tournament table's record or spectators before every table of its round is over.
    RoundNotOver,
    /// One player named at two seats of one game.
    PlayerSeatedTwice,
    /// A rated game with a person's seat that names no player.
    RatedNeedsPlayers,
    /// A game ended rated that its creator did not make rated.
    GameNotRated,
    /// A game ended rated before its first deal ended: no standings to rate.
    NoDealEnded,
    /// A request with this `Idempotency-Key` has just acted.
    RequestInProgress,
    /// An `Idempotency-Key` sent again with another request.
    IdempotencyKeyReused,
    /// `If-Match` names a version that is no longer current.
    StaleVersion,
    /// A webhook host that resolves to a private address.
    WebhookUrlPrivate,
    /// A webhook host that does not resolve.
    WebhookUrlUnresolvable,
    /// A server open to anyone plays as many tables of bots only as it may.
    BotTablesFull,
    /// A bot that searches (`hard`) asked of a replica that thinks for no bot, with no other
    /// replica known to.
    HardBotsUnavailable,
    // Not now (429, 500, 503).
    /// Over the client's rate limit.
    RateLimited,
    /// Something unexpected, logged.
    InternalError,
    /// The game's stored state holds what the rules could not have made: it is neither
    /// played nor shown (logged with the game's id and what failed).
    CorruptGame,
    /// The database is out of reach.
    ServiceUnavailable,
    /// The game is busy with another move.
    GameBusy,
    /// The replica serves as many event streams as it may.
    TooManyStreams,
}

/// A problem's `code`: one of the service's own [`Code`]s or an engine error's. Made only
/// from those, so that every code a response carries is one [`problem_codes`] lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProblemCode(&'static str);

impl ProblemCode {
    /// The code as the problem document writes it.
    pub const fn as_str(self) -> &'static str {
        self.0
    }
}

impl From<Code> for ProblemCode {
    fn from(code: Code) -> Self {
        ProblemCode(code.into())
    }
}

impl From<&ActionError> for ProblemCode {
    fn from(e: &ActionError) -> Self {
        ProblemCode(e.code())
    }
}

impl From<&SetupError> for ProblemCode {
    fn from(e: &SetupError) -> Self {
        ProblemCode(e.code())
    }
}

impl From<&RulesetError> for ProblemCode {
    fn from(e: &RulesetError) -> Self {
        ProblemCode(e.code())
    }
}

/// Every `code` a problem may have, each once, in the order the enums declare them: the
/// service's own, then those of each engine error a [`ProblemCode`] is made from (keep the
/// two lists of sources alike).
pub fn problem_codes() -> Vec<&'static str> {
    let all = Code::iter()
        .map(<&str>::from)
        .chain(ActionError::codes())
        .chain(SetupError::codes())
        .chain(RulesetError::codes());
    let mut codes = Vec::new();
    for code in all {
        if !codes.contains(&code) {
            codes.push(code);
        }
    }
    codes
}

/// The schema of [`Problem::code`]: one of [`problem_codes`].
fn problem_code() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::String)
        .enum_values(Some(problem_codes()))
        .description(Some(
            "Stable machine-readable code, such as `not_your_turn`, `illegal_meld`, `stale_version`.",
        ))
        .examples(["not_your_turn"])
        .build()
}

/// Extension members of a problem about melds
/// ([readings](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#readings):
/// an ambiguous meld's error lists the readings to choose from; an illegal one says why).
#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
pub struct Extensions {
    /// The meld of the request the problem concerns (index from 0), when there are several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meld: Option<usize>,
    /// `ambiguous_meld`: every legal reading, as `POST /v1/melds/validate` shows them; send
    /// the chosen one's `kind` and the `represents` of its wilds to fix it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readings: Option<Vec<Reading>>,
    /// `illegal_meld`, `contract_not_met`: why, each with a stable `code` and a `message`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasons: Option<Vec<ProblemReason>>,
}

/// A reason's stable code: why cards are not a meld, or why melds miss the contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum ReasonCodeView {
    /// About one meld.
    Meld(ReasonCode),
    /// About the contract.
    Contract(ContractCode),
}

/// One reason an action's melds are refused.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ProblemReason {
    /// Stable code, like `too_many_wilds`, `gap`, `wrong_meld_count`.
    #[schema(example = "too_many_wilds")]
    pub code: ReasonCodeView,
    /// A sentence a player can read.
    pub message: String,
    /// The kind of meld this reason rules out, when it concerns one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<MeldKind>,
    /// `contract_not_met`: the meld of the request it concerns (index from 0), if one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meld: Option<usize>,
    /// `contract_not_met`: that meld's own reasons, when it is not a legal meld.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub meld_reasons: Vec<Reason>,
}

impl From<&Reason> for ProblemReason {
    fn from(r: &Reason) -> Self {
        ProblemReason {
            code: ReasonCodeView::Meld(r.code),
            message: r.message.clone(),
            kind: r.kind,
            meld: None,
            meld_reasons: Vec::new(),
        }
    }
}

impl From<&ContractReason> for ProblemReason {
    fn from(r: &ContractReason) -> Self {
        ProblemReason {
            code: ReasonCodeView::Contract(r.code),
            message: r.message.clone(),
            kind: None,
            meld: r.meld,
            meld_reasons: r.meld_reasons.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compiler knows every code the service writes is a [`Code`]; this knows every
    /// [`Code`] is written somewhere (the engine's are listed from their errors' variants).
    #[test]
    fn every_code_of_the_service_is_given_by_some_error() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut text = String::new();
        let mut dirs = vec![src];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("the sources") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("wire/problem.rs") {
                    text.push_str(&std::fs::read_to_string(&path).expect("a source file"));
                }
            }
        }
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        for code in Code::iter() {
            let name = format!("Code::{code:?}");
            let named = text
                .match_indices(&name)
                .any(|(at, _)| !text[..at].ends_with(ident) && !text[at + name.len()..].starts_with(ident));
            assert!(
                named,
                "the document lists `{}` ({name}), but no error gives it",
                <&str>::from(code)
            );
        }
    }
}
