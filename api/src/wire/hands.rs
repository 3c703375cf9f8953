//! A hand without a game on the wire: `POST /v1/hands/arrange`.

use engine::{Arrangement, Card, ContractView, LayoffHint, ProposedMeld, Reading, Ruleset, Variant};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{Code, Invalid, MAX_CARDS, at_most};

/// Most melds of the table a hand is arranged against (more than any game lays).
pub const MAX_TABLE: usize = 48;

/// `POST /v1/hands/arrange` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"variant": "may_i", "deal": 2,
    "hand": ["7C", "7D", "7H", "5H", "6H", "8H", "9S", "7S", "3C", "4D", "KD", "QC"],
    "table": [{"cards": ["9H", "TH", "JH", "QH"]}]}))]
pub struct ArrangeRequest {
    /// `may_i`, `contract_7`, `continental` or `push`.
    #[schema(example = "may_i")]
    pub variant: Variant,
    /// The variant's house-rule options (see `GET /v1/rulesets`); absent for the defaults.
    #[serde(default)]
    #[schema(value_type = Option<super::options::HouseOptions>)]
    pub options: Option<serde_json::Value>,
    /// The deal (1-based) whose contract the hand is arranged for.
    #[schema(example = 2, minimum = 1, maximum = 255)]
    pub deal: u8,
    /// The cards in hand.
    #[serde(deserialize_with = "at_most::<MAX_CARDS, _, _>")]
    #[schema(example = json!(["7C", "7D", "7H", "5H", "6H", "8H", "9S", "7S", "3C", "4D", "KD", "QC"]), max_items = 40)]
    pub hand: Vec<Card>,
    /// The melds on the table to lay off onto, each as `POST /v1/melds/validate` takes one (it
    /// must read one way: fix the kind or the wilds where it would not). Absent for none.
    #[serde(default, deserialize_with = "at_most::<MAX_TABLE, _, _>")]
    #[schema(max_items = 48)]
    pub table: Vec<ProposedMeld>,
}

/// What a hand makes of a deal: the contract's melds or how far it is from them, the lay-offs
/// onto the table, its penalty points.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "contract": {"description": "a set of 3+, a run of 4+", "melds": [{"kind": "set", "min_len": 3}, {"kind": "run", "min_len": 4}], "go_out": false},
    "makes_contract": true,
    "melds": [
        {"kind": "run", "suit": "H", "cards": ["5H", "6H", "7H", "8H"], "slots": [
            {"card": "5H", "represents": "5H", "natural": true}, {"card": "6H", "represents": "6H", "natural": true},
            {"card": "7H", "represents": "7H", "natural": true}, {"card": "8H", "represents": "8H", "natural": true}]},
        {"kind": "set", "rank": "7", "cards": ["7C", "7D", "7S"], "slots": [
            {"card": "7C", "represents": "7C", "natural": true}, {"card": "7D", "represents": "7D", "natural": true},
            {"card": "7S", "represents": "7S", "natural": true}]}],
    "cards_short": 0,
    "layoffs": [{"meld_id": 0, "card": "8H", "wilds": [], "reading": {"kind": "run", "suit": "H",
        "cards": ["8H", "9H", "TH", "JH", "QH"], "slots": [
            {"card": "8H", "represents": "8H", "natural": true}, {"card": "9H", "represents": "9H", "natural": true},
            {"card": "TH", "represents": "TH", "natural": true}, {"card": "JH", "represents": "JH", "natural": true},
            {"card": "QH", "represents": "QH", "natural": true}]}}],
    "penalty_points": 70
}))]
pub struct ArrangeResponse {
    /// The deal's contract (in `continental`: going out).
    pub contract: ContractView,
    /// Whether the hand holds the contract now (in `continental`: goes out).
    pub makes_contract: bool,
    /// The melds that meet it, each as the validator reads it, when the hand holds it: what
    /// the game's hints suggest from this hand (`continental`: the 15 cards of a way out).
    pub melds: Vec<Reading>,
    /// `continental`: the card left to discard after going out from 16 cards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discard: Option<Card>,
    /// How many cards the hand is short of the contract: the fewest it must still draw, were
    /// every card it needs to come (in `continental`, the bots' measure of a hand short of
    /// going out). 0 exactly when `makes_contract`.
    pub cards_short: usize,
    /// Single cards of the hand that can be laid off on the table's melds, and where:
    /// `meld_id` is the meld's index in the request's `table`. None in `continental`.
    pub layoffs: Vec<LayoffHint>,
    /// What the hand would cost left in hand at the end of the deal, by the variant's card
    /// values; `null` in `continental`, which counts no hands.
    pub penalty_points: Option<i32>,
}

impl ArrangeResponse {
    /// The engine's arrangement for deal `deal` of `rules`.
    pub fn of(rules: &Ruleset, deal: u8, a: Arrangement) -> ArrangeResponse {
        ArrangeResponse {
            contract: ContractView::from(&rules.contract(deal)),
            makes_contract: a.contract.is_some(),
            melds: a.contract.unwrap_or_default(),
            discard: a.discard,
            cards_short: a.cards_short,
            layoffs: a.layoffs,
            penalty_points: a.penalty_points,
        }
    }
}

/// A hand to arrange as the engine takes it.
#[derive(Debug)]
pub struct HandQuestion {
    /// The rules.
    pub rules: Ruleset,
    /// A deal of the game (1-based).
    pub deal: u8,
    /// The cards in hand.
    pub hand: Vec<Card>,
    /// The table's melds, read.
    pub table: Vec<Reading>,
}

impl HandQuestion {
    /// The engine's answer, on the wire.
    pub fn answer(&self) -> ArrangeResponse {
        let arrangement = engine::arrange(&self.rules, self.deal, &self.hand, &self.table);
        ArrangeResponse::of(&self.rules, self.deal, arrangement)
    }
}

impl TryFrom<ArrangeRequest> for HandQuestion {
    type Error = Invalid;

    fn try_from(req: ArrangeRequest) -> Result<Self, Invalid> {
        let (rules, _) = super::options::read(req.variant, req.options)?;
        super::rules::check_deal(&rules, req.deal)?;
        let table = req
            .table
            .iter()
            .enumerate()
            .map(|(i, meld)| {
                engine::read(&rules, meld)
                    .map_err(|e| Invalid::refused(Code::InvalidTableMeld, format!("table[{i}]: {e}")))
            })
            .collect::<Result<_, _>>()?;
        Ok(HandQuestion {
            deal: req.deal,
            hand: req.hand,
            table,
            rules,
        })
    }
}
