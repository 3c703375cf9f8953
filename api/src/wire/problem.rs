//! Problem documents (RFC 9457): the body of every error, with the engine's reasons as
//! extension members.

use engine::{ContractCode, ContractReason, MeldKind, Reason, ReasonCode};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::rules::ReadingView;

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
    pub code: String,
    /// RFC 9457 extension members, present only where the engine gives them.
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Extension members of a problem about melds (RULES.md §1: an ambiguous meld's error lists
/// the readings to choose from; an illegal one says why).
#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
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
