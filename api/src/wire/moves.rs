//! The moves on the wire: each endpoint's body parsed into the engine's [`Action`]. A move of
//! one kind takes that action's own fields ([`ActionBody`]); the swap endpoint takes either of
//! two kinds, and `resume` nothing (its year is the server's).

use std::borrow::Cow;
use std::marker::PhantomData;

use engine::{Action, ActionKind, Card, RunEnd};
use serde::Deserialize;
use serde::de::value::{BorrowedStrDeserializer, CowStrDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{AdditionalProperties, Schema};
use utoipa::{PartialSchema, ToSchema};

use super::events::{pascal, variants};
use super::{Code, Invalid};

/// A kind of action as a type: the kind a move endpoint's body ([`ActionBody`]) makes.
pub trait OfKind {
    /// The kind.
    const KIND: ActionKind;
}

/// One type per kind of action that has an endpoint of its own, and its body's type, named
/// as the document names it.
macro_rules! kinds {
    ($($kind:ident => $body:ident),*) => {
        /// The kinds of action as types ([`OfKind`]).
        pub mod kind {
            $(
                #[doc = concat!("[`engine::ActionKind::", stringify!($kind), "`] as a type.")]
                #[derive(Debug)]
                pub struct $kind;

                impl super::OfKind for $kind {
                    const KIND: engine::ActionKind = engine::ActionKind::$kind;
                }
            )*
        }

        $(
            #[doc = concat!("The body of a move of kind [`engine::ActionKind::", stringify!($kind), "`].")]
            pub type $body = ActionBody<kind::$kind>;
        )*
    };
}

kinds!(
    Draw => DrawRequest,
    Claim => ClaimRequest,
    Pass => PassRequest,
    Meld => MeldRequest,
    LayOff => LayoffRequest,
    TakeBack => TakeBackRequest,
    Discard => DiscardRequest,
    Leave => LeaveRequest,
    Suspend => SuspendRequest
);

/// The body of a move that makes one kind of action, `K`: that action's own fields as the
/// engine declares them, its `type` given by the endpoint.
#[derive(Debug)]
pub struct ActionBody<K>(pub Action, PhantomData<K>);

impl<'de, K: OfKind> Deserialize<'de> for ActionBody<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // The body is read once, as the engine's action with the endpoint's `type` before its
        // own fields: serde's `deny_unknown_fields` on `Action` refuses any other field.
        Action::deserialize(Typed {
            kind: K::KIND.name(),
            body: deserializer,
        })
        .map(|action| ActionBody(action, PhantomData))
    }
}

/// A field's name, borrowed from the body where it can be.
struct FieldName;

impl<'de> DeserializeSeed<'de> for FieldName {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Cow<'de, str>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for FieldName {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a field name")
    }

    fn visit_borrowed_str<E: de::Error>(self, name: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(name))
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(name.to_owned()))
    }

    fn visit_string<E: de::Error>(self, name: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(name))
    }
}

/// A body's deserializer that reads as the same object with `type: kind` first.
struct Typed<D> {
    kind: &'static str,
    body: D,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Typed<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.body.deserialize_map(TypedVisitor {
            kind: self.kind,
            visitor,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

struct TypedVisitor<V> {
    kind: &'static str,
    visitor: V,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for TypedVisitor<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, fields: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(TypedFields {
            kind: Some(self.kind),
            typed: false,
            fields,
        })
    }
}

/// The body's fields after a `type` entry; a `type` of the body's own is an unknown field
/// (the endpoint gives it).
struct TypedFields<A> {
    kind: Option<&'static str>,
    typed: bool,
    fields: A,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for TypedFields<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        if !self.typed {
            self.typed = true;
            return seed.deserialize(BorrowedStrDeserializer::new("type")).map(Some);
        }
        match self.fields.next_key_seed(FieldName)? {
            None => Ok(None),
            Some(field) if field == "type" => Err(de::Error::custom(
                "unknown field `type`: the endpoint names the kind of action",
            )),
            Some(field) => seed.deserialize(CowStrDeserializer::new(field)).map(Some),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        match self.kind.take() {
            Some(kind) => seed.deserialize(BorrowedStrDeserializer::new(kind)),
            None => self.fields.next_value_seed(seed),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.fields.size_hint().map(|n| n + usize::from(!self.typed))
    }
}

impl<K: OfKind> PartialSchema for ActionBody<K> {
    fn schema() -> RefOr<Schema> {
        let kind = K::KIND.name();
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

impl<K: OfKind> ToSchema for ActionBody<K> {
    fn name() -> Cow<'static, str> {
        Cow::Owned(format!("{}Request", pascal(K::KIND.name())))
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

    use super::kind::{Claim, Draw, Leave, Meld, Suspend, TakeBack};
    use super::{ActionBody, OfKind};
    use crate::wire::{Invalid, parse_json};

    /// `body` read as the body of `K`'s endpoint.
    fn read<K: OfKind>(body: &serde_json::Value) -> Result<Action, Invalid> {
        parse_json::<ActionBody<K>>(body.to_string().as_bytes()).map(|b| b.0)
    }

    #[test]
    fn a_body_is_the_actions_fields_and_the_endpoint_its_type() {
        assert_eq!(
            read::<Draw>(&json!({"source": "stock"})).expect("a draw"),
            Action::Draw {
                source: DrawSource::Stock
            }
        );
        let typed = read::<Draw>(&json!({"type": "discard", "card": "7H"})).expect_err("no type");
        assert_eq!(typed.code.as_str(), "unknown_field", "{typed}");
        let other = read::<Draw>(&json!({"source": "stock", "card": "7H"})).expect_err("no other field");
        assert_eq!(other.code.as_str(), "unknown_field", "{other}");
        for field in [
            json!({"x": 42}),
            json!({"source": "stock"}),
            json!({"type": "claim"}),
        ] {
            let claim = read::<Claim>(&field).expect_err("a claim has no field");
            assert_eq!(claim.code.as_str(), "unknown_field", "{field}: {claim}");
        }
        let leave = read::<Leave>(&json!({"seat": 1})).expect_err("no field");
        assert_eq!(leave.code.as_str(), "unknown_field", "{leave}");
        let suspend = read::<Suspend>(&json!({"year": 2026})).expect_err("no field");
        assert_eq!(suspend.code.as_str(), "unknown_field", "{suspend}");
        assert_eq!(
            read::<Claim>(&json!({})).expect("an empty claim"),
            Action::Claim {}
        );
        assert_eq!(
            read::<TakeBack>(&json!({"play": null})).expect("all plays"),
            Action::TakeBack { play: None }
        );
    }

    #[test]
    fn a_refusal_says_why_and_the_bounds_hold() {
        let bad = read::<Meld>(&json!({"melds": [{"cards": ["7H", "ZZ"]}]})).expect_err("no such card");
        assert_eq!(bad.code.as_str(), "unknown_card", "{bad}");
        assert!(bad.detail.contains("\"ZZ\""), "{bad}");
        let seven = vec![json!({"cards": ["7H", "7S", "7D"]}); 7];
        let many = read::<Meld>(&json!({ "melds": seven })).expect_err("six melds at most");
        assert_eq!(many.code.as_str(), "invalid_body", "{many}");
    }
}
