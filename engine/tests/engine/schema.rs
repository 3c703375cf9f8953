//! OpenAPI schemas of the wire types (feature `utoipa`): strings where the JSON has strings,
//! and the same tags and names as serde writes.

use engine::{Action, Card, DrawSource, HouseOption, Ruleset, Seat, Stands, Variant};
use serde_json::json;
use utoipa::PartialSchema;

fn schema_json<T: PartialSchema>() -> serde_json::Value {
    serde_json::to_value(T::schema()).expect("schemas serialise")
}

/// The `type` tags a tagged enum's schema lists, in order.
fn tags(schema: &serde_json::Value, tag: &str) -> Vec<String> {
    schema["oneOf"]
        .as_array()
        .expect("a tagged enum is a oneOf")
        .iter()
        .map(|v| {
            v["properties"][tag]["enum"][0]
                .as_str()
                .expect("a tag")
                .to_owned()
        })
        .collect()
}

#[test]
fn strings_are_strings_with_their_pattern() {
    let card = schema_json::<Card>();
    assert_eq!(card["type"], "string");
    assert_eq!(
        card["pattern"], "^(?:(?:[2-9TJQKAtjqka]|10)[CDHScdhs]|[Jj][Kk])$",
        "what JSON accepts: either case"
    );
    assert_eq!(schema_json::<Stands>()["type"], "string");
    assert_eq!(schema_json::<Seat>()["type"], "integer", "a seat is its number");
    assert_eq!(schema_json::<DrawSource>()["enum"], json!(["stock", "discard"]));
}

#[test]
fn tagged_enums_list_the_tags_serde_writes() {
    let actions = [
        Action::Draw {
            source: DrawSource::Stock,
        },
        Action::Claim {},
        Action::Pass {},
        Action::Meld { melds: Vec::new() },
        Action::LayOff {
            meld_id: 1,
            cards: Vec::new(),
            wilds: Vec::new(),
        },
        Action::Swap {
            meld_id: 1,
            card: Card::JOKER,
            end: None,
        },
        Action::MoveJoker {
            from_meld: 1,
            end: engine::RunEnd::Low,
            to_meld: 2,
            to_end: None,
        },
        Action::TakeBack { play: None },
        Action::Discard { card: Card::JOKER },
        Action::Leave {},
        Action::Suspend {},
        Action::Resume { year: 2026 },
    ];
    let written: Vec<String> = actions.iter().map(|a| a.kind().name().to_owned()).collect();
    assert_eq!(tags(&schema_json::<Action>(), "type"), written);
    let variants: Vec<String> = Variant::ALL.iter().map(|v| v.id().to_owned()).collect();
    assert_eq!(tags(&schema_json::<Ruleset>(), "variant"), variants);
}

#[test]
fn catalogue_entries_are_typed() {
    let entry = schema_json::<HouseOption>();
    let required = entry["required"].as_array().expect("required fields");
    for field in ["name", "type", "nullable", "description"] {
        assert!(required.contains(&json!(field)), "{field} is required: {entry}");
    }
    assert!(
        entry["properties"]["default"]["oneOf"].is_array(),
        "a default or null"
    );
}
