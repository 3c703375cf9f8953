//! The words the other modules share: the kinds of meld and what a contract asks for. A leaf:
//! it depends on no other module of the engine, so rules, readings and contracts can all use
//! it without depending on each other.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The two kinds of meld.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum MeldKind {
    /// Three or more cards of one rank (a trio).
    Set,
    /// Cards of one suit in consecutive ranks (a straight, a sequence).
    Run,
}

impl MeldKind {
    /// The kind as the service writes it: `set` or `run`.
    pub const fn name(self) -> &'static str {
        match self {
            MeldKind::Set => "set",
            MeldKind::Run => "run",
        }
    }
}

impl fmt::Display for MeldKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One meld a contract asks for: its kind and fewest cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Requirement {
    /// Set or run.
    pub kind: MeldKind,
    /// The fewest cards it may have (contract melds may be longer).
    pub min_len: usize,
}

/// `continental`'s ways to lay down 15 cards: lengths of the sequences.
pub const GO_OUT_PATTERNS: [&[usize]; 3] = [&[3, 3, 3, 3, 3], &[4, 4, 4, 3], &[5, 4, 3, 3]];

/// Cards laid down when going out in `continental`.
pub const GO_OUT_CARDS: usize = 15;

/// What a deal's first meld must be.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Contract {
    /// Exactly these melds, all at once.
    Melds(Vec<Requirement>),
    /// `continental`: all 15 cards at once as one of [`GO_OUT_PATTERNS`].
    GoOut,
}

impl Contract {
    /// The fewest cards that can fulfil it.
    pub fn min_cards(&self) -> usize {
        match self {
            Contract::Melds(reqs) => reqs.iter().map(|r| r.min_len).sum(),
            Contract::GoOut => GO_OUT_CARDS,
        }
    }

    /// Human wording, like "two sets and one run".
    pub fn describe(&self) -> String {
        match self {
            Contract::GoOut => "all 15 cards as five sequences of 3; or 4+4+4+3; or 5+4+3+3".into(),
            Contract::Melds(reqs) => reqs
                .iter()
                .map(|r| format!("a {} of {}+", r.kind, r.min_len))
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}

/// A contract as a client reads it: in words, and as the melds it asks for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct ContractView {
    /// In words.
    pub description: String,
    /// The melds required, all at once (empty when `go_out`).
    pub melds: Vec<Requirement>,
    /// `continental`: all 15 cards at once as 3+3+3+3+3, 4+4+4+3 or 5+4+3+3 runs.
    pub go_out: bool,
}

impl From<&Contract> for ContractView {
    fn from(c: &Contract) -> Self {
        let melds = match c {
            Contract::Melds(reqs) => reqs.clone(),
            Contract::GoOut => Vec::new(),
        };
        ContractView {
            description: c.describe(),
            melds,
            go_out: matches!(c, Contract::GoOut),
        }
    }
}
