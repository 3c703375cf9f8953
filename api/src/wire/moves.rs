//! The moves on the wire: one request type per endpoint, each parsed into the engine's [`Action`].

use engine::{Action, Card, Designation, DrawSource, ProposedMeld, RunEnd};
use serde::Deserialize;
use utoipa::ToSchema;

use super::{Code, Invalid, MAX_CARDS, MAX_MELDS, MAX_WILDS, at_most};

/// `POST /v1/games/{id}/draw` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"source": "stock"}))]
pub struct DrawRequest {
    /// `stock` or `discard`.
    #[schema(example = "stock")]
    pub source: DrawSource,
}

/// An empty body (`{}` or nothing).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmptyRequest {}

/// `POST /v1/games/{id}/take_back` request: no `play` takes back the whole turn's table plays.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"play": 1}))]
pub struct TakeBackRequest {
    /// Take back only this play of the turn (its `play` in `you.plays`); going down comes back
    /// whole, with every later play that needed it.
    #[serde(default)]
    #[schema(value_type = Option<u64>, maximum = 4294967295_i64)]
    pub play: Option<u32>,
}

/// `POST /v1/games/{id}/melds` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"melds": [{"cards": ["7H", "7S", "7D"]}, {"cards": ["QC", "QD", "JK"], "kind": "set"}]}))]
pub struct MeldsRequest {
    /// The melds, laid at once.
    #[serde(deserialize_with = "at_most::<MAX_MELDS, _, _>")]
    #[schema(max_items = 6)]
    pub melds: Vec<ProposedMeld>,
}

/// `POST /v1/games/{id}/layoffs` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"meld_id": 2, "cards": ["8H"]}))]
pub struct LayoffRequest {
    /// The table meld's id.
    #[schema(value_type = u64, maximum = 4294967295_i64)]
    pub meld_id: u32,
    /// The cards to add.
    #[serde(deserialize_with = "at_most::<MAX_CARDS, _, _>")]
    #[schema(max_items = 40)]
    pub cards: Vec<Card>,
    /// What added wilds represent, when more than one place fits.
    #[serde(default, deserialize_with = "at_most::<MAX_WILDS, _, _>")]
    #[schema(max_items = 20)]
    pub wilds: Vec<Designation>,
}

/// `POST /v1/games/{id}/swaps` request: replace a wild (`meld_id`, `card`), or in `contract_7`
/// move a joker from the end of one of your runs to another run (`from_meld`, `end`, `to_meld`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"meld_id": 1, "card": "7H"}))]
pub struct SwapRequest {
    /// The meld holding the wild.
    #[serde(default)]
    #[schema(value_type = Option<u64>, maximum = 4294967295_i64)]
    pub meld_id: Option<u32>,
    /// The natural card from hand that replaces it.
    #[serde(default)]
    pub card: Option<Card>,
    /// `contract_7`: `low` or `high`, the end the joker moves to (or, with `from_meld`, the end it leaves).
    #[serde(default)]
    pub end: Option<RunEnd>,
    /// `contract_7` joker move: the run the joker leaves.
    #[serde(default)]
    #[schema(value_type = Option<u64>, maximum = 4294967295_i64)]
    pub from_meld: Option<u32>,
    /// `contract_7` joker move: the run it goes to.
    #[serde(default)]
    #[schema(value_type = Option<u64>, maximum = 4294967295_i64)]
    pub to_meld: Option<u32>,
    /// `contract_7` joker move: the end of `to_meld` it goes to.
    #[serde(default)]
    pub to_end: Option<RunEnd>,
}

impl TryFrom<SwapRequest> for Action {
    type Error = Invalid;
    fn try_from(s: SwapRequest) -> Result<Action, Invalid> {
        match s {
            SwapRequest {
                meld_id: Some(meld_id),
                card: Some(card),
                end,
                from_meld: None,
                to_meld: None,
                to_end: None,
            } => Ok(Action::Swap { meld_id, card, end }),
            SwapRequest {
                meld_id: None,
                card: None,
                end: Some(end),
                from_meld: Some(from_meld),
                to_meld: Some(to_meld),
                to_end,
            } => Ok(Action::MoveJoker {
                from_meld,
                end,
                to_meld,
                to_end,
            }),
            // Every field is optional in the document: a mix of the two is the rules' refusal.
            _ => Err(Invalid::refused(
                Code::InvalidSwap,
                "a swap is {meld_id, card, end?}; a joker move is {from_meld, end, to_meld, to_end?}",
            )),
        }
    }
}

/// `POST /v1/games/{id}/discard` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"card": "7H"}))]
pub struct DiscardRequest {
    /// The card to discard.
    #[schema(example = "7H")]
    pub card: Card,
}

impl From<DrawRequest> for Action {
    fn from(b: DrawRequest) -> Action {
        Action::Draw { source: b.source }
    }
}

impl From<MeldsRequest> for Action {
    fn from(b: MeldsRequest) -> Action {
        Action::Meld { melds: b.melds }
    }
}

impl From<LayoffRequest> for Action {
    fn from(b: LayoffRequest) -> Action {
        Action::LayOff {
            meld_id: b.meld_id,
            cards: b.cards,
            wilds: b.wilds,
        }
    }
}

impl From<TakeBackRequest> for Action {
    fn from(b: TakeBackRequest) -> Action {
        Action::TakeBack { play: b.play }
    }
}

impl From<DiscardRequest> for Action {
    fn from(b: DiscardRequest) -> Action {
        Action::Discard { card: b.card }
    }
}
