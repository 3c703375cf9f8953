//! OpenAPI schemas (feature `utoipa`) for the vocabulary written as strings: cards, ranks,
//! suits and what a wild stands for. Every other wire type derives `ToSchema` where it is
//! declared.

use std::borrow::Cow;

use serde_json::json;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

use crate::card::{Card, Rank, Suit};
use crate::reading::Stands;

/// A string schema with a pattern, a description and one example.
fn string(pattern: &str, description: &str, example: &str) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(pattern))
        .description(Some(description))
        .examples([json!(example)])
        .into()
}

macro_rules! string_schema {
    ($($t:ty => $name:literal, $pattern:expr, $description:literal, $example:literal;)*) => {$(
        impl PartialSchema for $t {
            fn schema() -> RefOr<Schema> {
                string($pattern, $description, $example)
            }
        }

        impl ToSchema for $t {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed($name)
            }
        }
    )*};
}

string_schema! {
    Card => "Card", Card::PATTERN,
        "A card: rank (2-9, T or 10, J, Q, K, A) then suit (C, D, H, S), or JK for a joker. Read case-insensitively.",
        "7H";
    Rank => "Rank", "^([2-9TJQKA]|10)$", "A rank: 2-9, T (or 10), J, Q, K or A.", "7";
    Suit => "Suit", "^[CDHS]$", "A suit: C, D, H or S.", "H";
    Stands => "Stands", Stands::PATTERN,
        "What a wild stands for: a card (in runs, like 7H), a rank (in sets, like 7) or * (anything, in a wild trio).",
        "7H";
}

/// The first dealer's draw ([`crate::Event::FirstDealer`]): rounds, each a list of
/// `[seat, card]` pairs (a pair as a two-item list, which every generator reads).
pub(crate) fn dealer_rounds() -> utoipa::openapi::schema::Array {
    use utoipa::openapi::Ref;
    use utoipa::openapi::schema::{ArrayBuilder, OneOfBuilder};

    let pair = ArrayBuilder::new()
        .items(
            OneOfBuilder::new()
                .item(Ref::from_schema_name("Seat"))
                .item(Ref::from_schema_name("Card")),
        )
        .min_items(Some(2))
        .max_items(Some(2))
        .description(Some("`[seat, card]`: a seat and the card it turned."));
    ArrayBuilder::new()
        .items(ArrayBuilder::new().items(pair))
        .description(Some("Rounds of draws, each a list of `[seat, card]`."))
        .build()
}
