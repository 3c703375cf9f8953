//! Problem documents (RFC 9457): the body of every error, with the engine's reasons as
//! extension members.

use engine::{ContractCode, ContractReason, MeldKind, Reading, Reason, ReasonCode};
use serde::{Deserialize, Serialize};
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

/// Every `code` a problem may have: the service's own and the engine's refusals. A closed
/// set, so that clients can match on it; the api tests check each code they meet is here.
pub const PROBLEM_CODES: [&str; 83] = [
    // The request itself (400, 404, 405, 408, 413, 415).
    "malformed_json",
    "not_an_object",
    "unknown_field",
    "invalid_body",
    "unreadable_body",
    "unknown_card",
    "unknown_rank",
    "unknown_variant",
    "invalid_options",
    "player_count",
    "invalid_seat",
    "invalid_name",
    "invalid_deal",
    "invalid_swap",
    "invalid_query",
    "invalid_limit",
    "invalid_status",
    "invalid_cursor",
    "invalid_path",
    "invalid_if_match",
    "invalid_idempotency_key",
    "invalid_webhook_url",
    "invalid_first_dealer",
    "invalid_stacked_deck",
    "test_mode_only",
    "no_route",
    "method_not_allowed",
    "request_timeout",
    "body_too_large",
    "unsupported_media_type",
    // Who asks (401, 403) and what they ask for (404).
    "unauthorized",
    "forbidden",
    "game_not_found",
    "seat_not_found",
    "no_webhook",
    // The state of the game or of the request (409, 412, 422).
    "no_open_seat",
    "game_started",
    "game_not_started",
    "seat_has_no_token",
    "request_in_progress",
    "idempotency_key_reused",
    "stale_version",
    "webhook_url_private",
    "webhook_url_unresolvable",
    // The rules (409, 422): the engine's refusals.
    "game_over",
    "unknown_seat",
    "seat_left",
    "not_your_turn",
    "wrong_phase",
    "card_not_in_hand",
    "discard_empty",
    "discard_dead",
    "claim_not_allowed",
    "not_in_variant",
    "illegal_meld",
    "ambiguous_meld",
    "contract_not_met",
    "not_down",
    "already_down",
    "unknown_meld",
    "not_your_meld",
    "swap_not_allowed",
    "no_wild_for_card",
    "end_blocked",
    "end_required",
    "no_joker_at_end",
    "run_too_short",
    "freed_wild_in_hand",
    "final_discard_required",
    "nothing_to_take_back",
    "unknown_play",
    "take_back_blocked",
    "no_cards",
    "game_suspended",
    "not_between_deals",
    "already_asked",
    "not_suspended",
    "suspension_expired",
    // Not now (429, 500, 503).
    "rate_limited",
    "internal_error",
    "service_unavailable",
    "game_busy",
    "too_many_streams",
];

/// The schema of [`Problem::code`]: one of [`PROBLEM_CODES`].
fn problem_code() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::String)
        .enum_values(Some(PROBLEM_CODES))
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
