//! The service's one error type, every mapping of a module's error to a status, and the
//! answer as `application/problem+json` (RFC 9457).
//!
//! The table ([`HostedGameError`]), the store ([`StoreError`]), the tokens ([`AuthError`]) and the
//! wire ([`Invalid`], [`StaleVersion`]) each speak their own error; the `From` impls here are
//! the only place they become HTTP.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, ResponseError};
use engine::ActionError;

use crate::auth::AuthError;
use crate::domain::{GameStatus, HostedGameError, WebhookError};
use crate::server_keys::KeyError;
use crate::store::{Full, KeyRefused, StoreError};
use crate::wire::{Code, Extensions, Invalid, Problem, ProblemCode, ProblemReason, RefusedBy, StaleVersion};

/// Media type of every error body.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// Everything a request can fail with. Mapped to a status and a stable `code` in [`ApiError::status`]
/// and [`ApiError::code`], and nowhere else.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The request is malformed: bad JSON, unknown field, unknown card or variant, bad option.
    #[error("{detail}")]
    BadRequest {
        /// Stable code.
        code: ProblemCode,
        /// What is wrong.
        detail: String,
    },
    /// No bearer token, or one that is expired, tampered with or not ours.
    #[error("{0}")]
    Unauthorized(String),
    /// A valid token that does not give access to this game or seat.
    #[error("{0}")]
    Forbidden(String),
    /// No such resource.
    #[error("{detail}")]
    NotFound {
        /// Stable code.
        code: ProblemCode,
        /// What was not found.
        detail: String,
    },
    /// The resource was there and is no more (a cancelled ticket).
    #[error("{detail}")]
    Gone {
        /// Stable code.
        code: ProblemCode,
        /// What is gone, and what to do instead.
        detail: String,
    },
    /// The request clashes with the state of the resource (not your turn, no open seat).
    #[error("{detail}")]
    Conflict {
        /// Stable code.
        code: ProblemCode,
        /// Why.
        detail: String,
    },
    /// `If-Match` names a version that is no longer current.
    #[error("the game is at version {current}, not {}: reload it and try again", named(.expected))]
    StaleVersion {
        /// The version the client expected.
        expected: String,
        /// The version of the game now.
        current: i64,
    },
    /// The body is larger than the limit.
    #[error("the request body is larger than {limit} bytes")]
    PayloadTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// A body whose `Content-Type` is not JSON.
    #[error("the request body must be application/json")]
    UnsupportedMediaType,
    /// A known path asked with a method it does not take.
    #[error("this endpoint takes {allow}")]
    MethodNotAllowed {
        /// The methods it takes, as the `Allow` header lists them.
        allow: String,
    },
    /// A well-formed request the rules refuse (illegal meld, contract not met, card not in hand...),
    /// or an idempotency key reused with another body.
    #[error("{detail}")]
    Unprocessable {
        /// Stable code, the engine's own where it comes from the engine.
        code: ProblemCode,
        /// A sentence a player can read.
        detail: String,
        /// What the engine says besides: the readings to choose from, the reasons.
        extensions: Box<Extensions>,
    },
    /// The client took too long to send its request (`request_timeout`); the connection is
    /// closed after the answer.
    #[error("the request was not received in time ({seconds:.1} s): send it whole, then wait for the answer")]
    RequestTimeout {
        /// The limit, in seconds.
        seconds: f64,
    },
    /// The client sent more requests than its rate limit allows (`rate_limited`).
    #[error("too many requests: retry in {retry_after} s")]
    TooManyRequests {
        /// Seconds until a request will be accepted again.
        retry_after: u64,
    },
    /// A dependency (the database) is unreachable, saturated or too slow, or the game is
    /// locked by another move for longer than the lock timeout: nothing was applied, a retry
    /// after `Retry-After` may succeed. Logged with its cause, answered 503.
    #[error("{detail}")]
    Unavailable {
        /// Stable code: `service_unavailable`, `game_busy` or `too_many_streams`.
        code: Code,
        /// What a client can do.
        detail: &'static str,
        /// The cause, for the log.
        #[source]
        cause: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Anything we did not expect: logged with its cause, answered with an opaque 500.
    #[error("unexpected error")]
    Unexpected(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// A stored game that does not load: logged with its id and what failed, answered 500
    /// `corrupt_game`; it is neither played nor shown.
    #[error("this game's stored state is corrupt: it cannot be played or shown; it has been logged")]
    CorruptGame(#[source] HostedGameError),
}

/// What an `If-Match` named, for a sentence: an empty one names no version at all.
fn named(expected: &str) -> &str {
    if expected.trim().is_empty() {
        "the empty If-Match"
    } else {
        expected
    }
}

impl ApiError {
    /// A 400 with this code.
    pub fn bad_request(code: impl Into<ProblemCode>, detail: impl Into<String>) -> ApiError {
        ApiError::BadRequest {
            code: code.into(),
            detail: detail.into(),
        }
    }

    /// A 404 with this code.
    pub fn not_found(code: impl Into<ProblemCode>, detail: impl Into<String>) -> ApiError {
        ApiError::NotFound {
            code: code.into(),
            detail: detail.into(),
        }
    }

    /// A 410 with this code.
    pub fn gone(code: impl Into<ProblemCode>, detail: impl Into<String>) -> ApiError {
        ApiError::Gone {
            code: code.into(),
            detail: detail.into(),
        }
    }

    /// A 409 with this code.
    pub fn conflict(code: impl Into<ProblemCode>, detail: impl Into<String>) -> ApiError {
        ApiError::Conflict {
            code: code.into(),
            detail: detail.into(),
        }
    }

    /// A 422 with this code.
    pub fn unprocessable(code: impl Into<ProblemCode>, detail: impl Into<String>) -> ApiError {
        ApiError::Unprocessable {
            code: code.into(),
            detail: detail.into(),
            extensions: Box::default(),
        }
    }

    /// A 422 with this code and extension members for the problem document.
    pub fn unprocessable_with(
        code: impl Into<ProblemCode>,
        detail: impl Into<String>,
        extensions: Extensions,
    ) -> ApiError {
        ApiError::Unprocessable {
            code: code.into(),
            detail: detail.into(),
            extensions: Box::new(extensions),
        }
    }

    /// A 503: the database could not be reached, or did not answer, in time.
    pub fn unavailable(cause: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> ApiError {
        ApiError::Unavailable {
            code: Code::ServiceUnavailable,
            detail: "the service cannot reach its database just now: retry shortly",
            cause: cause.into(),
        }
    }

    /// An unexpected failure, kept for the log.
    pub fn unexpected(e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> ApiError {
        ApiError::Unexpected(e.into())
    }

    /// The stable machine-readable code.
    pub fn code(&self) -> &'static str {
        let code = match self {
            ApiError::BadRequest { code, .. }
            | ApiError::NotFound { code, .. }
            | ApiError::Gone { code, .. }
            | ApiError::Conflict { code, .. }
            | ApiError::Unprocessable { code, .. } => return code.as_str(),
            ApiError::Unauthorized(_) => Code::Unauthorized,
            ApiError::Forbidden(_) => Code::Forbidden,
            ApiError::StaleVersion { .. } => Code::StaleVersion,
            ApiError::PayloadTooLarge { .. } => Code::BodyTooLarge,
            ApiError::RequestTimeout { .. } => Code::RequestTimeout,
            ApiError::TooManyRequests { .. } => Code::RateLimited,
            ApiError::Unavailable { code, .. } => *code,
            ApiError::UnsupportedMediaType => Code::UnsupportedMediaType,
            ApiError::MethodNotAllowed { .. } => Code::MethodNotAllowed,
            ApiError::Unexpected(_) => Code::InternalError,
            ApiError::CorruptGame(_) => Code::CorruptGame,
        };
        code.into()
    }

    /// The body of this error as RFC 9457 describes it.
    pub fn problem(&self) -> Problem {
        let status = self.status_code();
        let detail = match self {
            // Never leak the cause of a 500: it is in the log.
            ApiError::Unexpected(_) => "something went wrong on our side; it has been logged".to_owned(),
            other => other.to_string(),
        };
        let extensions = match self {
            ApiError::Unprocessable { extensions, .. } => (**extensions).clone(),
            _ => Extensions::default(),
        };
        Problem {
            kind: format!("urn:continental:problem:{}", self.code()),
            title: status.canonical_reason().unwrap_or("Error").to_owned(),
            status: status.as_u16(),
            detail,
            code: self.code().to_owned(),
            extensions,
        }
    }
}

/// Seconds a client should wait before retrying after a 503.
pub const RETRY_AFTER_UNAVAILABLE: u64 = 1;

impl ApiError {
    /// Whether the database failed this request: `Some(true)` unavailable (timed out,
    /// unreachable, busy), `Some(false)` another database error, `None` not the database.
    pub fn database_failure(&self) -> Option<bool> {
        match self {
            ApiError::Unavailable { .. } => Some(true),
            ApiError::Unexpected(cause) => cause.downcast_ref::<StoreError>().map(|_| false),
            _ => None,
        }
    }
}

/// SQLSTATEs (PostgreSQL) after which a retry may succeed: the server is shutting down,
/// starting, out of connections, or our own statement or lock timeout fired.
fn pg_transient(code: &str) -> Option<Code> {
    match code {
        // lock_not_available: another transaction holds this game's row past lock_timeout.
        "55P03" => Some(Code::GameBusy),
        // query_canceled (statement_timeout), too_many_connections, admin/crash shutdown,
        // cannot_connect_now, serialization and deadlock failures.
        "57014" | "53300" | "57P01" | "57P02" | "57P03" | "40001" | "40P01" => Some(Code::ServiceUnavailable),
        c if c.starts_with("08") => Some(Code::ServiceUnavailable),
        _ => None,
    }
}

/// A database error: 503 if a retry may succeed, else 500.
fn from_database(e: StoreError) -> ApiError {
    let StoreError::Database(db_error) = &e else {
        return ApiError::unexpected(e);
    };
    let code = match db_error {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::WorkerCrashed => Some(Code::ServiceUnavailable),
        sqlx::Error::Database(db) => match db.code() {
            // SQLite's primary result codes BUSY (5) and LOCKED (6): the file is locked past
            // the busy timeout.
            Some(c) if db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() => c
                .parse::<i32>()
                .ok()
                .filter(|n| matches!(n & 0xff, 5 | 6))
                .map(|_| Code::ServiceUnavailable),
            Some(c) => pg_transient(&c),
            None => None,
        },
        _ => None,
    };
    match code {
        Some(Code::GameBusy) => ApiError::Unavailable {
            code: Code::GameBusy,
            detail: "this game is busy with another move: retry shortly",
            cause: Box::new(e),
        },
        Some(_) => ApiError::unavailable(e),
        None => ApiError::unexpected(e),
    }
}

impl From<serde_json::Error> for ApiError {
    fn from(e: serde_json::Error) -> Self {
        ApiError::unexpected(e)
    }
}

/// What the document refuses is a 400; what it allows and the rules refuse, a 422 (so that
/// every request the document allows gets an answer about the game, not about its shape).
impl From<WebhookError> for ApiError {
    fn from(e: WebhookError) -> Self {
        let code = match e {
            WebhookError::Unresolvable(_) => Code::WebhookUrlUnresolvable,
            WebhookError::Private => Code::WebhookUrlPrivate,
            WebhookError::NoWebhook => Code::NoWebhook,
        };
        match e {
            WebhookError::NoWebhook => ApiError::not_found(code, e.to_string()),
            _ => ApiError::unprocessable(code, e.to_string()),
        }
    }
}

impl From<Full> for ApiError {
    fn from(full: Full) -> Self {
        ApiError::Unavailable {
            code: Code::TooManyStreams,
            detail: "this replica serves as many event streams as it may: retry shortly, or on another replica",
            cause: full.into(),
        }
    }
}

impl From<Invalid> for ApiError {
    fn from(e: Invalid) -> Self {
        match e.by {
            RefusedBy::Document => ApiError::BadRequest {
                code: e.code,
                detail: e.detail,
            },
            RefusedBy::Rules => ApiError::unprocessable(e.code, e.detail),
        }
    }
}

impl From<StaleVersion> for ApiError {
    fn from(e: StaleVersion) -> Self {
        ApiError::StaleVersion {
            expected: e.expected,
            current: e.current,
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::GameNotFound(id) => ApiError::not_found(Code::GameNotFound, format!("no game {id}")),
            StoreError::TimedOut(_) => ApiError::unavailable(e),
            StoreError::BotTablesFull(limit) => ApiError::conflict(
                Code::BotTablesFull,
                format!(
                    "this server plays at most {limit} tables of bots alone at once, each holding its place for \
                     {hold} s after it ends, and this would make one more: keep a person at the table, or try again later",
                    hold = crate::store::BOT_TABLE_HOLD_SECS
                ),
            ),
            // Seen only if the first request's key vanished before this one could replay it.
            StoreError::KeyTaken => ApiError::conflict(
                Code::RequestInProgress,
                "a request with this Idempotency-Key has just acted: retry to get its answer",
            ),
            StoreError::AlreadyWaiting => ApiError::conflict(
                Code::AlreadyWaiting,
                "this player is already waiting for a table: cancel that ticket first, or send the same \
                 Idempotency-Key to get its answer again",
            ),
            other => from_database(other),
        }
    }
}

impl From<KeyRefused> for ApiError {
    fn from(e: KeyRefused) -> Self {
        match e {
            KeyRefused::Reused => ApiError::unprocessable(Code::IdempotencyKeyReused, e.to_string()),
        }
    }
}

impl From<AuthError> for ApiError {
    fn from(e: AuthError) -> Self {
        match e {
            AuthError::Missing | AuthError::Malformed | AuthError::Invalid(_) => {
                ApiError::Unauthorized(e.to_string())
            }
            AuthError::OtherGame | AuthError::Spectator => ApiError::Forbidden(e.to_string()),
            AuthError::Signing(_) => ApiError::unexpected(e),
        }
    }
}

impl From<KeyError> for ApiError {
    fn from(e: KeyError) -> Self {
        ApiError::Unauthorized(e.to_string())
    }
}

impl From<HostedGameError> for ApiError {
    fn from(e: HostedGameError) -> Self {
        match e {
            HostedGameError::NoOpenSeat => ApiError::conflict(Code::NoOpenSeat, e.to_string()),
            HostedGameError::Started => ApiError::conflict(Code::GameStarted, e.to_string()),
            HostedGameError::NotStarted => ApiError::conflict(Code::GameNotStarted, e.to_string()),
            HostedGameError::NoSuchSeat | HostedGameError::NotAPlayer => ApiError::Forbidden(e.to_string()),
            HostedGameError::TokenReplaced => ApiError::Unauthorized(e.to_string()),
            HostedGameError::UnknownSeat(_) => ApiError::not_found(Code::SeatNotFound, e.to_string()),
            HostedGameError::NoToken { .. } => ApiError::conflict(Code::SeatHasNoToken, e.to_string()),
            // A player count, first dealer or stacked deck this game cannot take: the
            // document allows them.
            HostedGameError::Setup(e) => ApiError::unprocessable(&e, e.to_string()),
            HostedGameError::Action(e) => ApiError::from(e),
            HostedGameError::NotFinished(_) => ApiError::conflict(Code::GameNotFinished, e.to_string()),
            HostedGameError::TournamentGame => ApiError::conflict(Code::TournamentGame, e.to_string()),
            HostedGameError::NotReserved(_) => ApiError::conflict(Code::SeatNotReserved, e.to_string()),
            HostedGameError::RematchSeatReissued(_) => ApiError::Forbidden(e.to_string()),
            HostedGameError::NoRecord => ApiError::conflict(Code::NoRecord, e.to_string()),
            HostedGameError::PlayerSeatedTwice(_) => {
                ApiError::unprocessable(Code::PlayerSeatedTwice, e.to_string())
            }
            HostedGameError::RatedNeedsPlayers(_) => {
                ApiError::unprocessable(Code::RatedNeedsPlayers, e.to_string())
            }
            HostedGameError::NotRated => ApiError::conflict(Code::GameNotRated, e.to_string()),
            HostedGameError::NoDealEnded => ApiError::conflict(Code::NoDealEnded, e.to_string()),
            HostedGameError::Corrupt { .. } => ApiError::CorruptGame(e),
            HostedGameError::Unwritable(e) => ApiError::unexpected(e),
        }
    }
}

/// The engine's refusal: turn order, phase and suspension are conflicts with the game's state
/// (409); everything else is a well-formed move the rules refuse (422), with the readings to choose
/// from or the reasons as problem extension members where the engine gives them
/// (docs/rules.md#readings).
impl From<ActionError> for ApiError {
    fn from(e: ActionError) -> Self {
        let code = ProblemCode::from(&e);
        let detail = e.to_string();
        match e {
            ActionError::NotYourTurn
            | ActionError::WrongPhase(_)
            | ActionError::GameOver
            | ActionError::SeatLeft
            | ActionError::Suspended
            | ActionError::NotBetweenDeals
            | ActionError::AlreadyAsked(_)
            | ActionError::NotSuspended
            | ActionError::SuspensionExpired { .. } => ApiError::conflict(code, detail),
            ActionError::AmbiguousMeld { meld, readings } => ApiError::unprocessable_with(
                code,
                detail,
                Extensions {
                    meld,
                    readings: Some(readings),
                    reasons: None,
                },
            ),
            ActionError::IllegalMeld { meld, reasons } => ApiError::unprocessable_with(
                code,
                detail,
                Extensions {
                    meld,
                    readings: None,
                    reasons: Some(reasons.iter().map(ProblemReason::from).collect()),
                },
            ),
            ActionError::ContractNotMet(reasons) => ApiError::unprocessable_with(
                code,
                detail,
                Extensions {
                    meld: None,
                    readings: None,
                    reasons: Some(reasons.iter().map(ProblemReason::from).collect()),
                },
            ),
            // Every other refusal is the rules' answer to a well-formed move: each named, so a
            // new refusal does not compile until its status is chosen.
            ActionError::UnknownSeat(_)
            | ActionError::CardNotInHand(_)
            | ActionError::DiscardEmpty
            | ActionError::DiscardDead
            | ActionError::ClaimNotAllowed(_)
            | ActionError::NotInVariant(_)
            | ActionError::NotDown
            | ActionError::AlreadyDown
            | ActionError::UnknownMeld(_)
            | ActionError::NotYourMeld(_)
            | ActionError::Swap(_)
            | ActionError::FreedWildInHand(_)
            | ActionError::FinalDiscardRequired
            | ActionError::NothingToTakeBack
            | ActionError::UnknownPlay(_)
            | ActionError::TakeBackBlocked { .. }
            | ActionError::NoCards => ApiError::unprocessable(code, detail),
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound { .. } => StatusCode::NOT_FOUND,
            ApiError::Gone { .. } => StatusCode::GONE,
            ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::StaleVersion { .. } => StatusCode::PRECONDITION_FAILED,
            ApiError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Unprocessable { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::RequestTimeout { .. } => StatusCode::REQUEST_TIMEOUT,
            ApiError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Unexpected(_) | ApiError::CorruptGame(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    // The cause is not logged here: the request's one access line carries it
    // (`http::seen::Seen::answered`, through `ApiError::cause`).
    fn error_response(&self) -> HttpResponse {
        let body = serde_json::to_vec(&self.problem()).unwrap_or_default();
        let mut response = HttpResponse::build(self.status_code());
        response.insert_header((header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON)));
        match self {
            ApiError::Unauthorized(_) => {
                response.insert_header((header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer")));
            }
            ApiError::TooManyRequests { retry_after } => {
                response.insert_header((header::RETRY_AFTER, retry_after.to_string()));
            }
            ApiError::Unavailable { .. } => {
                response.insert_header((header::RETRY_AFTER, RETRY_AFTER_UNAVAILABLE.to_string()));
            }
            // The rest of a slow body may still come: close rather than read it as a request.
            ApiError::RequestTimeout { .. } => {
                response.force_close();
            }
            // The client learns the version to retry with without another read.
            ApiError::StaleVersion { current, .. } => {
                response.insert_header((header::ETAG, crate::wire::etag(*current)));
            }
            ApiError::MethodNotAllowed { allow } => {
                response.insert_header((header::ALLOW, allow.as_str()));
            }
            _ => {}
        }
        response.body(body)
    }
}

impl ApiError {
    /// The cause of a 5xx and its own causes on one line, for the request's log line.
    pub fn cause(&self) -> Option<String> {
        match self {
            ApiError::Unexpected(cause) | ApiError::Unavailable { cause, .. } => Some(chain(cause.as_ref())),
            ApiError::CorruptGame(cause) => Some(chain(cause)),
            _ => None,
        }
    }
}

/// An error and its causes on one line, for the log.
pub fn chain(cause: &(dyn std::error::Error + 'static)) -> String {
    let mut text = cause.to_string();
    let mut source = cause.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// Answers malformed path segments (such as a game id that is not a UUID) with a problem that
/// names the segment, not the parser's words.
pub fn path_error(_err: actix_web::error::PathError, req: &HttpRequest) -> actix_web::Error {
    let unreadable = req.match_info().iter().find_map(|(name, value)| match name {
        "id" => uuid::Uuid::parse_str(value)
            .is_err()
            .then_some("`id` is not a game id (a UUID such as 0190c2a4-8f3e-7b7a-9c1d-2f4e5a6b7c8d)"),
        "seat" => value
            .parse::<u8>()
            .is_err()
            .then_some("`seat` is not a seat number (a whole number from 0)"),
        _ => None,
    });
    let detail = unreadable.unwrap_or("a segment of the path is not what this endpoint takes");
    ApiError::not_found(Code::InvalidPath, format!("no such resource: {detail}")).into()
}

/// Answers malformed query strings with a problem that names the parameter and what it takes,
/// not the parser's words.
pub fn query_error(err: actix_web::error::QueryPayloadError, req: &HttpRequest) -> actix_web::Error {
    let text = err.to_string();
    let pairs = actix_web::web::Query::<Vec<(String, String)>>::from_query(req.query_string())
        .map(actix_web::web::Query::into_inner)
        .unwrap_or_default();
    let number = pairs
        .iter()
        .find(|(name, value)| matches!(name.as_str(), "limit" | "after") && value.parse::<u64>().is_err());
    // The listing's `status` is read as a `GameStatus`: one it does not name is refused here.
    if pairs
        .iter()
        .any(|(name, value)| name == "status" && GameStatus::named(value).is_none())
    {
        let names: Vec<&str> = GameStatus::ALL.iter().map(|s| s.as_str()).collect();
        let detail = format!("`status` is one of {}", names.join(", "));
        return ApiError::bad_request(Code::InvalidStatus, detail).into();
    }
    let detail = if let Some((name, _)) = number {
        format!("`{name}` is not a number (a whole number from 0)")
    } else if let Some(rest) = text.split_once("unknown field ").map(|(_, rest)| rest) {
        // "`page`, expected one of `status`, `limit`, `cursor`"
        format!("unknown parameter {rest}")
    } else if let Some(name) = text.split_once("duplicate field ").map(|(_, name)| name) {
        format!("the parameter {name} is given more than once")
    } else {
        "the query string cannot be read: see the parameters this endpoint takes".to_owned()
    };
    ApiError::bad_request(Code::InvalidQuery, detail).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corrupt_game_is_a_500_whose_log_names_the_game_and_what_failed() {
        let game = uuid::Uuid::nil();
        let e = ApiError::from(HostedGameError::Corrupt {
            game,
            cause: "the turn is seat 5 at a table of 2".to_owned(),
        });
        assert_eq!((e.status_code().as_u16(), e.code()), (500, "corrupt_game"));
        let cause = e.cause().expect("logged");
        assert!(
            cause.contains(&game.to_string()) && cause.contains("seat 5"),
            "{cause}"
        );
        assert!(!e.problem().detail.contains("seat 5"), "the state is not shown");
    }

    #[test]
    fn a_database_that_may_come_back_is_a_503_with_retry_after() {
        let cases: Vec<(StoreError, u16, &str, &str)> = vec![
            (
                StoreError::Database(sqlx::Error::PoolTimedOut),
                503,
                "service_unavailable",
                "pool exhausted",
            ),
            (
                StoreError::Database(sqlx::Error::Io(std::io::ErrorKind::ConnectionReset.into())),
                503,
                "service_unavailable",
                "connection lost",
            ),
            (
                StoreError::Database(sqlx::Error::RowNotFound),
                500,
                "internal_error",
                "a bug, not an outage",
            ),
            (
                StoreError::KeyTaken,
                409,
                "request_in_progress",
                "a duplicate acted first",
            ),
        ];
        for (error, status, code, what) in cases {
            let e = ApiError::from(error);
            assert_eq!((e.status_code().as_u16(), e.code()), (status, code), "{what}");
            let response = e.error_response();
            assert_eq!(
                response.headers().contains_key(header::RETRY_AFTER),
                status == 503,
                "{what}: Retry-After with every 503 and only then"
            );
        }
        assert_eq!(pg_transient("55P03"), Some(Code::GameBusy), "lock_timeout");
        assert_eq!(
            pg_transient("57014"),
            Some(Code::ServiceUnavailable),
            "statement_timeout"
        );
        assert_eq!(pg_transient("23505"), None, "a unique violation is no outage");
    }
}
