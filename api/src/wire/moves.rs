//! The moves on the wire: each endpoint's body parsed into the engine's [`Action`]. A move of
//! one kind takes that action's own fields ([`ActionBody`]); the swap endpoint takes either of
//! two kinds, and `resume` nothing (its year is the server's).

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::OnceLock;

use engine::{Action, Card, RunEnd};
use serde::Deserialize;
use serde::de::{self, Deserializer};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{AdditionalProperties, Schema};
use utoipa::{PartialSchema, ToSchema};

use super::events::{pascal, variants};
use super::{Code, Invalid};

/// The body of a move that makes one kind of action, `Action::KINDS[KIND]`: that action's own
/// fields as the engine declares them, its `type` given by the endpoint.
#[derive(Debug)]
pub struct ActionBody<const KIND: usize>(pub Action);

impl<'de, const KIND: usize> Deserialize<'de> for ActionBody<KIND> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut fields = serde_json::Map::deserialize(deserializer)?;
        // serde lets a tagged enum's unit variants (`claim`, `leave`) take any field: each is
        // held to the fields the engine declares, here for every kind alike.
        let declared = &declared_fields()[KIND];
        if let Some(unknown) = fields.keys().find(|field| !declared.contains(field.as_str())) {
            return Err(de::Error::custom(format_args!(
                "unknown field `{unknown}`, expected {}",
                match declared.is_empty() {
                    true => "none".to_owned(),
                    false => declared
                        .iter()
                        .map(|f| format!("`{f}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                }
            )));
        }
        fields.insert("type".to_owned(), Action::KINDS[KIND].into());
        // The engine's reason is kept whole; serde reads a tagged enum through a buffer, so the
        // path of the field it concerns is not known here.
        Action::deserialize(serde_json::Value::Object(fields))
            .map(ActionBody)
            .map_err(de::Error::custom)
    }
}

/// The fields each kind of action declares, in the order of [`Action::KINDS`] (its `type` aside).
fn declared_fields() -> &'static [BTreeSet<String>] {
    static FIELDS: OnceLock<Vec<BTreeSet<String>>> = OnceLock::new();
    FIELDS.get_or_init(|| {
        let variants = variants(Action::schema());
        Action::KINDS
            .iter()
            .map(|kind| {
                variants
                    .iter()
                    .find(|(tag, _)| tag == kind)
                    .map(|(_, object)| {
                        object
                            .properties
                            .keys()
                            .filter(|f| *f != "type")
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .collect()
    })
}

impl<const KIND: usize> PartialSchema for ActionBody<KIND> {
    fn schema() -> RefOr<Schema> {
        let kind = Action::KINDS[KIND];
        let Some((_, mut object)) = variants(Action::schema())
            .into_iter()
            .find(|(tag, _)| tag == kind)
        else {
            unreachable!("every kind of action is a variant of Action")
        };
        object.properties.remove("type");
        object.required.retain(|field| field != "type");
        object.additional_properties = Some(Box::new(AdditionalProperties::FreeForm(false)));
        RefOr::T(Schema::Object(object))
    }
}

impl<const KIND: usize> ToSchema for ActionBody<KIND> {
    fn name() -> Cow<'static, str> {
        Cow::Owned(format!("{}Request", pascal(Action::KINDS[KIND])))
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        <Action as ToSchema>::schemas(schemas);
    }
}

/// An empty body (`{}` or nothing).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmptyRequest {}

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

#[cfg(test)]
mod tests {
    use engine::{Action, DrawSource};
    use serde_json::json;

    use super::ActionBody;
    use crate::http::extract::parse_json;
    use crate::wire::Invalid;

    /// `body` read as the body of `KIND`'s endpoint.
    fn read<const KIND: usize>(body: &serde_json::Value) -> Result<Action, Invalid> {
        parse_json::<ActionBody<KIND>>(body.to_string().as_bytes()).map(|b| b.0)
    }

    const DRAW: usize = Action::index_of("draw");
    const MELD: usize = Action::index_of("meld");

    #[test]
    fn a_body_is_the_actions_fields_and_the_endpoint_its_type() {
        assert_eq!(
            read::<DRAW>(&json!({"source": "stock"})).expect("a draw"),
            Action::Draw {
                source: DrawSource::Stock
            }
        );
        let typed = read::<DRAW>(&json!({"type": "discard", "card": "7H"})).expect_err("no type");
        assert_eq!(typed.code.as_str(), "unknown_field", "{typed}");
        let other = read::<DRAW>(&json!({"source": "stock", "card": "7H"})).expect_err("no other field");
        assert_eq!(other.code.as_str(), "unknown_field", "{other}");
        let claim =
            read::<{ Action::index_of("claim") }>(&json!({"x": 42})).expect_err("a claim has no field");
        assert_eq!(claim.code.as_str(), "unknown_field", "{claim}");
        assert_eq!(
            read::<{ Action::index_of("claim") }>(&json!({})).expect("an empty claim"),
            Action::Claim
        );
        assert_eq!(
            read::<{ Action::index_of("take_back") }>(&json!({"play": null})).expect("all plays"),
            Action::TakeBack { play: None }
        );
    }

    #[test]
    fn a_refusal_says_why_and_the_bounds_hold() {
        let bad = read::<MELD>(&json!({"melds": [{"cards": ["7H", "ZZ"]}]})).expect_err("no such card");
        assert_eq!(bad.code.as_str(), "unknown_card", "{bad}");
        assert!(bad.detail.contains("\"ZZ\""), "{bad}");
        let seven = vec![json!({"cards": ["7H", "7S", "7D"]}); 7];
        let many = read::<MELD>(&json!({ "melds": seven })).expect_err("six melds at most");
        assert_eq!(many.code.as_str(), "invalid_body", "{many}");
    }
}
