//! The service's one error type and its single mapping to `application/problem+json` (RFC 9457).

use std::borrow::Cow;

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, ResponseError};
use serde::Serialize;
use utoipa::ToSchema;

use crate::dto::{ReadingView, ReasonView};

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
        code: Cow<'static, str>,
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
        code: Cow<'static, str>,
        /// What was not found.
        detail: String,
    },
    /// The request clashes with the state of the resource (not your turn, no open seat, a retry
    /// still running).
    #[error("{detail}")]
    Conflict {
        /// Stable code.
        code: Cow<'static, str>,
        /// Why.
        detail: String,
    },
    /// `If-Match` names a version that is no longer current.
    #[error("the game is at version {current}, not {expected}: reload it and try again")]
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
    /// A well-formed request the rules refuse (illegal meld, contract not met, card not in hand...),
    /// or an idempotency key reused with another body.
    #[error("{detail}")]
    Unprocessable {
        /// Stable code, the engine's own where it comes from the engine.
        code: Cow<'static, str>,
        /// A sentence a player can read.
        detail: String,
        /// What the engine says besides: the readings to choose from, the reasons.
        extensions: Box<Extensions>,
    },
    /// Anything we did not expect: logged with its cause, answered with an opaque 500.
    #[error("unexpected error")]
    Unexpected(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl ApiError {
    /// A 400 with this code.
    pub fn bad_request(code: impl Into<Cow<'static, str>>, detail: impl Into<String>) -> ApiError {
        ApiError::BadRequest {
            code: code.into(),
            detail: detail.into(),
        }
    }

    /// A 404 with this code.
    pub fn not_found(code: impl Into<Cow<'static, str>>, detail: impl Into<String>) -> ApiError {
        ApiError::NotFound {
            code: code.into(),
            detail: detail.into(),
        }
    }

    /// A 409 with this code.
    pub fn conflict(code: impl Into<Cow<'static, str>>, detail: impl Into<String>) -> ApiError {
        ApiError::Conflict {
            code: code.into(),
            detail: detail.into(),
        }
    }

    /// A 422 with this code.
    pub fn unprocessable(code: impl Into<Cow<'static, str>>, detail: impl Into<String>) -> ApiError {
        ApiError::Unprocessable {
            code: code.into(),
            detail: detail.into(),
            extensions: Box::default(),
        }
    }

    /// A 422 with this code and extension members for the problem document.
    pub fn unprocessable_with(
        code: impl Into<Cow<'static, str>>,
        detail: impl Into<String>,
        extensions: Extensions,
    ) -> ApiError {
        ApiError::Unprocessable {
            code: code.into(),
            detail: detail.into(),
            extensions: Box::new(extensions),
        }
    }

    /// An unexpected failure, kept for the log.
    pub fn unexpected(e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> ApiError {
        ApiError::Unexpected(e.into())
    }

    /// The stable machine-readable code.
    pub fn code(&self) -> &str {
        match self {
            ApiError::BadRequest { code, .. }
            | ApiError::NotFound { code, .. }
            | ApiError::Conflict { code, .. }
            | ApiError::Unprocessable { code, .. } => code,
            ApiError::Unauthorized(_) => "unauthorized",
            ApiError::Forbidden(_) => "forbidden",
            ApiError::StaleVersion { .. } => "stale_version",
            ApiError::PayloadTooLarge { .. } => "body_too_large",
            ApiError::Unexpected(_) => "internal_error",
        }
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

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        ApiError::unexpected(e)
    }
}

impl From<serde_json::Error> for ApiError {
    fn from(e: serde_json::Error) -> Self {
        ApiError::unexpected(e)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound { .. } => StatusCode::NOT_FOUND,
            ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::StaleVersion { .. } => StatusCode::PRECONDITION_FAILED,
            ApiError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Unprocessable { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Unexpected(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let ApiError::Unexpected(cause) = self {
            let mut chain = cause.to_string();
            let mut source = cause.source();
            while let Some(s) = source {
                chain.push_str(": ");
                chain.push_str(&s.to_string());
                source = s.source();
            }
            tracing::error!(cause = %chain, "unexpected error");
        }
        let body = serde_json::to_vec(&self.problem()).unwrap_or_default();
        let mut response = HttpResponse::build(self.status_code());
        response.insert_header((header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON)));
        if matches!(self, ApiError::Unauthorized(_)) {
            response.insert_header((header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer")));
        }
        response.body(body)
    }
}

/// An error body (RFC 9457 problem details) with our stable `code`.
#[derive(Debug, Serialize, serde::Deserialize, ToSchema)]
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
    pub code: String,
    /// RFC 9457 extension members, present only where the engine gives them.
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Extension members of a problem about melds (RULES.md §1: an ambiguous meld's error lists
/// the readings to choose from; an illegal one says why).
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, ToSchema)]
pub struct Extensions {
    /// The meld of the request the problem concerns (index from 0), when there are several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meld: Option<usize>,
    /// `ambiguous_meld`: every legal reading, as `POST /v1/melds/validate` shows them; send
    /// the chosen one's `kind` and the `represents` of its wilds to fix it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readings: Option<Vec<ReadingView>>,
    /// `illegal_meld`, `contract_not_met`: why, each with a stable `code` and a `message`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasons: Option<Vec<ProblemReason>>,
}

/// One reason an action's melds are refused.
#[derive(Clone, Debug, Serialize, serde::Deserialize, ToSchema)]
pub struct ProblemReason {
    /// Stable code, like `too_many_wilds`, `gap`, `wrong_meld_count`.
    #[schema(example = "too_many_wilds")]
    pub code: String,
    /// A sentence a player can read.
    pub message: String,
    /// The kind of meld this reason rules out, when it concerns one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// `contract_not_met`: the meld of the request it concerns (index from 0), if one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meld: Option<usize>,
    /// `contract_not_met`: that meld's own reasons, when it is not a legal meld.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub meld_reasons: Vec<ReasonView>,
}

/// Answers malformed path segments (such as a game id that is not a UUID) with a problem.
pub fn path_error(err: actix_web::error::PathError, _req: &HttpRequest) -> actix_web::Error {
    ApiError::not_found("invalid_path", format!("no such resource: {err}")).into()
}

/// Answers malformed query strings with a problem.
pub fn query_error(err: actix_web::error::QueryPayloadError, _req: &HttpRequest) -> actix_web::Error {
    ApiError::bad_request("invalid_query", format!("invalid query string: {err}")).into()
}
