//! Contracts: what a player's first meld of a deal must be (docs/rules.md#contracts), and
//! `continental`'s three ways of going out (§4).

use serde::{Deserialize, Serialize};

use crate::reading::{self, MeldKind, ProposedMeld, Reading, Reason};
use crate::ruleset::Ruleset;
pub use crate::vocabulary::{Contract, ContractView, GO_OUT_CARDS, GO_OUT_PATTERNS, Requirement};

/// Stable codes for why melds do not fulfil a contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ContractCode {
    /// Not as many melds as the contract asks for (more is illegal too).
    WrongMeldCount,
    /// The melds' kinds or lengths do not match the contract's.
    KindsDoNotMatch,
    /// One of the melds is not legal on its own.
    IllegalMeld,
    /// One of the melds can be read several ways, and more than one fulfils the contract.
    AmbiguousMeld,
    /// `continental`: not exactly 15 cards.
    WrongCardCount,
    /// `continental`: the sequences cannot be cut into any of the three patterns.
    NoPattern,
    /// The melds together hold more copies of a card than the variant's packs.
    TooManyCopies,
}

/// One reason a contract is not met.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct ContractReason {
    /// Stable code.
    pub code: ContractCode,
    /// A sentence a player can read.
    pub message: String,
    /// The meld it concerns (index in the request), if one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meld: Option<usize>,
    /// That meld's own reasons, for [`ContractCode::IllegalMeld`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub meld_reasons: Vec<Reason>,
}

impl ContractReason {
    fn new(code: ContractCode, message: String) -> ContractReason {
        ContractReason {
            code,
            message,
            meld: None,
            meld_reasons: Vec::new(),
        }
    }
}

/// Checks read melds against `contract`: exactly its melds, each long enough. For
/// `continental` it returns the sequences as laid down after any split into the pattern.
///
/// # Errors
/// The reasons the melds do not fulfil it.
pub fn check(
    rules: &Ruleset,
    contract: &Contract,
    melds: &[Reading],
) -> Result<Vec<Reading>, Vec<ContractReason>> {
    match contract {
        Contract::Melds(reqs) => check_melds(reqs, melds).map(|()| melds.to_vec()),
        Contract::GoOut => split_into_pattern(rules, melds),
    }
}

fn check_melds(reqs: &[Requirement], melds: &[Reading]) -> Result<(), Vec<ContractReason>> {
    if let Some(reason) = count_reason(reqs, melds.len()) {
        return Err(vec![reason]);
    }
    let mut used = vec![false; melds.len()];
    if match_requirements(reqs, melds, &mut used) {
        Ok(())
    } else {
        Err(vec![ContractReason::new(
            ContractCode::KindsDoNotMatch,
            format!(
                "the contract is {}; these melds are {}",
                Contract::Melds(reqs.to_vec()).describe(),
                melds
                    .iter()
                    .map(|m| format!("a {} of {}", m.kind(), m.len()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )])
    }
}

fn count_reason(reqs: &[Requirement], melds: usize) -> Option<ContractReason> {
    (reqs.len() != melds).then(|| {
        ContractReason::new(
            ContractCode::WrongMeldCount,
            format!("the contract is exactly {} melds, not {melds}", reqs.len()),
        )
    })
}

/// Matches every requirement to a distinct meld (at most three of each: brute force is fine).
fn match_requirements(reqs: &[Requirement], melds: &[Reading], used: &mut [bool]) -> bool {
    let Some((req, rest)) = reqs.split_first() else {
        return true;
    };
    for i in 0..melds.len() {
        if !used[i] && melds[i].kind() == req.kind && melds[i].len() >= req.min_len {
            used[i] = true;
            if match_requirements(rest, melds, used) {
                return true;
            }
            used[i] = false;
        }
    }
    false
}

fn split_into_pattern(rules: &Ruleset, melds: &[Reading]) -> Result<Vec<Reading>, Vec<ContractReason>> {
    let total: usize = melds.iter().map(Reading::len).sum();
    if total != GO_OUT_CARDS {
        return Err(vec![ContractReason::new(
            ContractCode::WrongCardCount,
            format!("going out lays down exactly {GO_OUT_CARDS} cards, not {total}"),
        )]);
    }
    if let Some(i) = melds.iter().position(|m| m.kind() != MeldKind::Run) {
        let mut reason = ContractReason::new(
            ContractCode::KindsDoNotMatch,
            "only sequences count in continental".into(),
        );
        reason.meld = Some(i);
        return Err(vec![reason]);
    }
    for pattern in GO_OUT_PATTERNS {
        let mut left = pattern.to_vec();
        let mut pieces = Vec::new();
        if cut(rules, melds, &mut left, &mut pieces) {
            return Ok(pieces);
        }
    }
    Err(vec![ContractReason::new(
        ContractCode::NoPattern,
        "the sequences cannot be cut into 3+3+3+3+3, 4+4+4+3 or 5+4+3+3, each with a natural card".into(),
    )])
}

/// Cuts each meld into consecutive pieces whose lengths use up `left`.
fn cut(rules: &Ruleset, melds: &[Reading], left: &mut Vec<usize>, pieces: &mut Vec<Reading>) -> bool {
    let Some((first, rest)) = melds.split_first() else {
        return left.is_empty();
    };
    cut_one(rules, first, 0, rest, left, pieces)
}

fn cut_one(
    rules: &Ruleset,
    meld: &Reading,
    from: usize,
    rest: &[Reading],
    left: &mut Vec<usize>,
    pieces: &mut Vec<Reading>,
) -> bool {
    if from == meld.len() {
        return cut(rules, rest, left, pieces);
    }
    let mut tried = Vec::new();
    for i in 0..left.len() {
        let size = left[i];
        if tried.contains(&size) || from + size > meld.len() {
            continue;
        }
        tried.push(size);
        let Some(piece) = meld.piece(rules, from, size) else {
            continue;
        };
        left.swap_remove(i);
        pieces.push(piece);
        if cut_one(rules, meld, from + size, rest, left, pieces) {
            return true;
        }
        pieces.pop();
        left.push(size);
        let last = left.len() - 1;
        left.swap(i, last);
    }
    false
}

/// Checks submitted melds against deal `deal`'s contract, choosing among each meld's readings.
/// This is the stateless `POST /v1/contracts/validate`. The steps: read each meld; check what
/// no choice of readings changes (the number of melds, or continental's 15 cards); then try
/// the readings, alike ones once, for exactly one way that fulfils the contract.
///
/// # Errors
/// The reasons: an illegal meld, an ambiguous one, or a contract not met.
pub fn check_proposed(
    rules: &Ruleset,
    deal: u8,
    melds: &[ProposedMeld],
) -> Result<Vec<Reading>, Vec<ContractReason>> {
    let contract = rules.contract(deal);
    let options = read_each(rules, melds)?;
    if let Some(reason) = shape_reason(&contract, melds) {
        return Err(vec![reason]);
    }
    let groups: Vec<Vec<Vec<Reading>>> = options
        .into_iter()
        .map(|readings| group_alike(rules, &contract, readings))
        .collect();
    choose_fitting(rules, &contract, &groups)
}

/// Every reading of each meld (docs/rules.md#readings); or why a meld has none, each such meld
/// named, or why the melds together hold more copies of a card than the packs
/// (docs/rules.md#conservation).
fn read_each(rules: &Ruleset, melds: &[ProposedMeld]) -> Result<Vec<Vec<Reading>>, Vec<ContractReason>> {
    let mut options: Vec<Vec<Reading>> = Vec::with_capacity(melds.len());
    let mut reasons = Vec::new();
    for (i, meld) in melds.iter().enumerate() {
        let analysis = reading::analyse(rules, meld);
        if analysis.readings.is_empty() {
            reasons.push(ContractReason {
                code: ContractCode::IllegalMeld,
                message: format!("meld {} is not legal", i + 1),
                meld: Some(i),
                meld_reasons: analysis.reasons,
            });
        }
        options.push(analysis.readings);
    }
    if reasons.is_empty() {
        // Each meld may be possible alone and the whole still more than the packs hold.
        reasons.extend(
            crate::supply::excess(rules, melds.iter().flat_map(|m| &m.cards)).map(|message| ContractReason {
                code: ContractCode::TooManyCopies,
                message,
                meld: None,
                meld_reasons: Vec::new(),
            }),
        );
    }
    if reasons.is_empty() {
        Ok(options)
    } else {
        Err(reasons)
    }
}

/// What no choice of readings changes, said before trying combinations: docs/rules.md#contracts,
/// exactly the contract's number of melds; docs/rules.md#continental-going-out, exactly 15 cards.
fn shape_reason(contract: &Contract, melds: &[ProposedMeld]) -> Option<ContractReason> {
    match contract {
        Contract::Melds(reqs) => count_reason(reqs, melds.len()),
        Contract::GoOut => {
            let total: usize = melds.iter().map(|m| m.cards.len()).sum();
            (total != GO_OUT_CARDS).then(|| {
                ContractReason::new(
                    ContractCode::WrongCardCount,
                    format!("going out lays down exactly {GO_OUT_CARDS} cards, not {total}"),
                )
            })
        }
    }
}

/// One meld's readings in groups alike to `contract` ([`Signature`]), in order of first
/// appearance. A meld may have hundreds of readings (wilds in many places), and trying every
/// combination would be their product: readings alike are tried once, as a group.
fn group_alike(rules: &Ruleset, contract: &Contract, readings: Vec<Reading>) -> Vec<Vec<Reading>> {
    let mut groups: Vec<(Signature, Vec<Reading>)> = Vec::new();
    for r in readings {
        let sig = signature(rules, contract, &r);
        match groups.iter_mut().find(|(s, _)| *s == sig) {
            Some((_, g)) => g.push(r),
            None => groups.push((sig, vec![r])),
        }
    }
    groups.into_iter().map(|(_, g)| g).collect()
}

/// docs/rules.md#readings: the melds as laid down when exactly one combination of readings
/// fulfils the contract; else the first combination's reasons, or `AmbiguousMeld` when several
/// do. Each combination of groups counts for as many combinations of readings as it stands for.
fn choose_fitting(
    rules: &Ruleset,
    contract: &Contract,
    groups: &[Vec<Vec<Reading>>],
) -> Result<Vec<Reading>, Vec<ContractReason>> {
    let representatives: Vec<Vec<Reading>> = groups
        .iter()
        .map(|g| g.iter().map(|r| r[0].clone()).collect())
        .collect();
    let mut fitting = 0usize;
    let mut laid = None;
    let mut first_err = None;
    let mut chosen = Vec::with_capacity(groups.len());
    each_choice(
        &representatives,
        &mut chosen,
        &mut |choice| match check(rules, contract, choice) {
            Ok(pieces) => {
                // How many reading combinations this group combination stands for.
                let count = choice.iter().enumerate().fold(1usize, |n, (i, r)| {
                    let group = groups[i].iter().find(|g| g[0] == *r).map_or(1, Vec::len);
                    n.saturating_mul(group)
                });
                fitting = fitting.saturating_add(count);
                laid.get_or_insert(pieces);
                fitting < 2
            }
            Err(e) => {
                first_err.get_or_insert(e);
                true
            }
        },
    );
    match (fitting, laid) {
        (1, Some(laid)) => Ok(laid),
        (0, _) | (_, None) => Err(first_err.unwrap_or_default()),
        _ => Err(vec![ContractReason::new(
            ContractCode::AmbiguousMeld,
            "the melds can be read more than one way that fulfils the contract: fix each meld's kind and wilds".into(),
        )]),
    }
}

/// What of a reading matters to `contract`: its kind, and in continental every multiset of
/// piece lengths it can be cut into.
#[derive(PartialEq, Eq)]
enum Signature {
    Kind(MeldKind),
    Cuts(Vec<Vec<usize>>),
}

fn signature(rules: &Ruleset, contract: &Contract, r: &Reading) -> Signature {
    match contract {
        Contract::Melds(_) => Signature::Kind(r.kind()),
        Contract::GoOut => {
            let mut cuts = Vec::new();
            let mut sizes = Vec::new();
            cuts_of(rules, r, 0, &mut sizes, &mut cuts);
            cuts.sort();
            cuts.dedup();
            Signature::Cuts(cuts)
        }
    }
}

/// Every way to cut `r` from `from` on into legal pieces of 3, 4 or 5 cards.
fn cuts_of(rules: &Ruleset, r: &Reading, from: usize, sizes: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    if from == r.len() {
        let mut cut = sizes.clone();
        cut.sort_unstable();
        out.push(cut);
        return;
    }
    for size in 3..=5 {
        if r.kind() == MeldKind::Run && r.piece(rules, from, size).is_some() {
            sizes.push(size);
            cuts_of(rules, r, from + size, sizes, out);
            sizes.pop();
        }
    }
}

/// Calls `visit` with each combination of one reading per meld until it returns false.
fn each_choice(
    options: &[Vec<Reading>],
    chosen: &mut Vec<Reading>,
    visit: &mut dyn FnMut(&[Reading]) -> bool,
) -> bool {
    let Some((first, rest)) = options.split_first() else {
        return visit(chosen);
    };
    for r in first {
        chosen.push(r.clone());
        let go_on = each_choice(rest, chosen, visit);
        chosen.pop();
        if !go_on {
            return false;
        }
    }
    true
}
