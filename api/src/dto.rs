//! Wire types for the rules: readings, reasons and contracts as clients see them. Engine types
//! stay in the engine; these are what the OpenAPI document describes.

use engine::{Contract, ContractReason, MeldKind, Reading, Reason};

use crate::error::ProblemReason;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One card of a meld and what it stands for there.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct SlotView {
    /// The card lying there, like `"7H"` or `"JK"`.
    #[schema(example = "JK")]
    pub card: String,
    /// What it represents: a card (`"7H"`, in runs), a rank (`"7"`, in sets) or `"*"` (a wild
    /// of an all-wild set).
    #[schema(example = "7H")]
    pub represents: String,
    /// Whether it counts as natural.
    pub natural: bool,
}

/// One legal way cards lie as a meld.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ReadingView {
    /// `set` or `run`.
    #[schema(example = "run")]
    pub kind: String,
    /// A set's rank (absent for runs and all-wild sets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<String>,
    /// A run's suit (absent for sets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suit: Option<String>,
    /// The cards in table order (runs low to high).
    pub cards: Vec<String>,
    /// Every card with what it represents, in table order.
    pub slots: Vec<SlotView>,
}

impl From<&Reading> for ReadingView {
    fn from(r: &Reading) -> Self {
        ReadingView {
            kind: r.kind().to_string(),
            rank: r.rank().map(|x| x.to_string()),
            suit: r.suit().map(|s| s.char().to_string()),
            cards: r.cards().map(|c| c.to_string()).collect(),
            slots: r
                .slots()
                .iter()
                .map(|s| SlotView {
                    card: s.card.to_string(),
                    represents: s.represents.to_string(),
                    natural: s.natural,
                })
                .collect(),
        }
    }
}

/// Why cards are not a legal meld.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ReasonView {
    /// Stable code, like `too_many_wilds`, `gap`, `mixed_suits`.
    #[schema(example = "too_many_wilds")]
    pub code: String,
    /// The kind of meld this reason rules out, when it concerns one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// A sentence a player can read.
    pub message: String,
}

fn code_of<T: Serialize>(code: &T) -> String {
    match serde_json::to_value(code) {
        Ok(serde_json::Value::String(s)) => s,
        _ => "unknown".to_owned(),
    }
}

impl From<&Reason> for ReasonView {
    fn from(r: &Reason) -> Self {
        ReasonView {
            code: code_of(&r.code),
            kind: r.kind.map(|k| k.to_string()),
            message: r.message.clone(),
        }
    }
}

/// Why melds do not fulfil a contract.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ContractReasonView {
    /// Stable code, like `wrong_meld_count`, `kinds_do_not_match`, `illegal_meld`.
    #[schema(example = "kinds_do_not_match")]
    pub code: String,
    /// A sentence a player can read.
    pub message: String,
    /// The meld it concerns (index in the request), if one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meld: Option<usize>,
    /// That meld's own reasons, when it is not a legal meld.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub meld_reasons: Vec<ReasonView>,
}

impl From<&ContractReason> for ContractReasonView {
    fn from(r: &ContractReason) -> Self {
        ContractReasonView {
            code: code_of(&r.code),
            message: r.message.clone(),
            meld: r.meld,
            meld_reasons: r.meld_reasons.iter().map(ReasonView::from).collect(),
        }
    }
}

/// One meld a contract asks for.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RequirementView {
    /// `set` or `run`.
    pub kind: String,
    /// Fewest cards.
    pub min_len: usize,
}

/// What a deal's first meld must be.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ContractView {
    /// In words.
    pub description: String,
    /// The melds required, all at once (empty when `go_out`).
    pub melds: Vec<RequirementView>,
    /// `continental`: all 15 cards at once as 3+3+3+3+3, 4+4+4+3 or 5+4+3+3 runs.
    pub go_out: bool,
}

impl From<&Contract> for ContractView {
    fn from(c: &Contract) -> Self {
        let melds = match c {
            Contract::Melds(reqs) => reqs
                .iter()
                .map(|r| RequirementView {
                    kind: kind_str(r.kind).to_owned(),
                    min_len: r.min_len,
                })
                .collect(),
            Contract::GoOut => Vec::new(),
        };
        ContractView {
            description: c.describe(),
            melds,
            go_out: matches!(c, Contract::GoOut),
        }
    }
}

/// `set` or `run`.
pub fn kind_str(kind: MeldKind) -> &'static str {
    match kind {
        MeldKind::Set => "set",
        MeldKind::Run => "run",
    }
}

impl From<&Reason> for ProblemReason {
    fn from(r: &Reason) -> Self {
        ProblemReason {
            code: code_of(&r.code),
            message: r.message.clone(),
            kind: r.kind.map(|k| k.to_string()),
            meld: None,
            meld_reasons: Vec::new(),
        }
    }
}

impl From<&ContractReason> for ProblemReason {
    fn from(r: &ContractReason) -> Self {
        ProblemReason {
            code: code_of(&r.code),
            message: r.message.clone(),
            kind: None,
            meld: r.meld,
            meld_reasons: r.meld_reasons.iter().map(ReasonView::from).collect(),
        }
    }
}
