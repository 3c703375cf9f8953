//! House options, driven by `GET /v1/rulesets`: every option listed is accepted at its bounds
//! and refused beyond them, on every variant, by the validator and by game creation, and the
//! document states each one as listed, so a new option is covered without a new test.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use continental::config::AsyncSettings;

use crate::helpers::{Backend, Spawn, TestApp, document, test_async};

/// The values to try for one listed option, each with whether it must be accepted.
fn edge_values(option: &Value) -> Vec<(Value, bool)> {
    let name = &option["name"];
    let mut rows = match option["type"].as_str() {
        Some("boolean") => vec![(json!(true), true), (json!(false), true), (json!(1), false)],
        Some("integer") => {
            let min = option["minimum"]
                .as_i64()
                .unwrap_or_else(|| panic!("integer option {name} lists its minimum: {option}"));
            let max = option["maximum"]
                .as_i64()
                .unwrap_or_else(|| panic!("integer option {name} lists its maximum: {option}"));
            assert!(min <= max, "{name}: minimum {min} above maximum {max}");
            vec![
                (json!(min), true),
                (json!(max), true),
                (json!(min - 1), false),
                (json!(max + 1), false),
                (json!(true), false),
                (json!(min.to_string()), false),
            ]
        }
        other => panic!("option {name} has an unknown type {other:?}: {option}"),
    };
    let nullable = option["nullable"]
        .as_bool()
        .unwrap_or_else(|| panic!("option {name} says whether it is nullable: {option}"));
    rows.push((Value::Null, nullable));
    rows.push((option["default"].clone(), true));
    rows
}

#[actix_web::test]
async fn every_listed_option_is_checked_at_its_bounds() {
    // Seconds of the clock's own length: the hundreds of games made here, a person waiting in
    // each, would otherwise have their turns timed out and played every few test milliseconds
    // (a `turn_seconds` second is 10 ms in tests) for as long as the test runs.
    let app = TestApp::spawn_with(
        &Backend::Sqlite,
        Spawn {
            test_mode: true,
            asynchronous: Some(AsyncSettings {
                test_second_ms: None,
                ..test_async()
            }),
            ..Spawn::default()
        },
    )
    .await;
    let listing = app.get("/v1/rulesets").await.json();
    let variants = listing["variants"].as_array().expect("variants");
    assert_eq!(variants.len(), 4, "every variant is listed: {listing}");
    let mut tried = 0;
    for variant in variants {
        let id = variant["variant"].as_str().expect("a variant id");
        let options = variant["options"].as_array().expect("options");
        let players = variant["min_players"].as_u64().expect("min_players");
        // One named seat, bots in the others.
        let seats: Vec<Value> = (0..players)
            .map(|i| {
                if i == 0 {
                    json!({"name": "Ann"})
                } else {
                    json!({"bot": true})
                }
            })
            .collect();
        assert!(!options.is_empty(), "{id} lists its options");
        for option in options {
            let name = option["name"].as_str().expect("an option name");
            for (value, accepted) in edge_values(option) {
                let body = json!({"variant": id, "options": {name: value}, "cards": ["7H", "7S", "7D"]});
                let reply = app.post("/v1/melds/validate", &body).await;
                let what = format!("{id} {name} = {value}");
                let mut game = json!({"variant": id, "options": {name: value.clone()}, "seats": seats});
                if name == "bank_seconds" {
                    // A reserve on the turn clock needs the clock.
                    game["options"]["turn_seconds"] = json!(60);
                }
                let created = app.post("/v1/games", &game).await;
                if accepted {
                    assert_eq!(
                        reply.status.as_u16(),
                        200,
                        "{what} is accepted by the validator: {}",
                        reply.text()
                    );
                    assert_eq!(
                        created.status.as_u16(),
                        201,
                        "{what} is accepted for a game: {}",
                        created.text()
                    );
                } else {
                    // Beyond the bounds or of another type: the document refuses it.
                    reply.assert_problem(400, "invalid_options", &what);
                    created.assert_problem(400, "invalid_options", &format!("{what}, creating a game"));
                }
                tried += 1;
            }
        }
    }
    // Every option gives at least four rows (two values each way): none was skipped.
    let listed: usize = variants
        .iter()
        .map(|v| v["options"].as_array().map_or(0, Vec::len))
        .sum();
    assert!(tried >= 4 * listed, "{tried} values tried for {listed} options");
    for variant in variants {
        assert!(
            variant["options"]
                .as_array()
                .is_some_and(|o| o.iter().any(|o| o["name"] == "turn_seconds")),
            "the service's own turn clock is listed with the variant's options: {variant}"
        );
    }
    app.clean_up().await;
}

/// The values each variant's rulesets entry lists as its own.
fn listed(listing: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for variant in listing["variants"].as_array().expect("variants") {
        let id = variant["variant"].as_str().expect("a variant id");
        for option in variant["options"].as_array().expect("options") {
            out.push((id.to_owned(), option.clone()));
        }
    }
    out
}

#[actix_web::test]
async fn the_document_states_every_listed_option_and_no_other() {
    let app = TestApp::spawn(&Backend::Sqlite).await;
    let listing = app.get("/v1/rulesets").await.json();
    let doc = document();
    let schemas = &doc["components"]["schemas"];
    let schema = &schemas["HouseOptions"];
    assert_eq!(
        schema["additionalProperties"], false,
        "an option not listed is refused: {schema}"
    );
    let properties = schema["properties"]
        .as_object()
        .expect("HouseOptions lists its options");
    let mut from_listing = BTreeSet::new();
    for (variant, option) in listed(&listing) {
        let name = option["name"].as_str().expect("an option name");
        let what = format!("{variant} {name}");
        let property = properties
            .get(name)
            .unwrap_or_else(|| panic!("{what} is in the document"));
        let kind = option["type"].clone();
        let stated = if option["nullable"] == true {
            json!([kind, "null"])
        } else {
            kind
        };
        assert_eq!(property["type"], stated, "{what}: its type");
        assert_eq!(property["minimum"], option["minimum"], "{what}: its minimum");
        assert_eq!(property["maximum"], option["maximum"], "{what}: its maximum");
        assert_eq!(
            property[continental::wire::VARIANT_DEFAULTS][&variant],
            option["default"],
            "{what}: its default"
        );
        let description = option["description"].as_str().expect("a description");
        assert!(
            property["description"]
                .as_str()
                .is_some_and(|d| d.contains(description)),
            "{what}: its description, {property}"
        );
        // A generated client would send a `default` as if set, to variants without the option.
        assert!(property.get("default").is_none(), "{what}: no `default` keyword");
        from_listing.insert((variant, name.to_owned()));
    }
    let mut from_document = BTreeSet::new();
    for (name, property) in properties {
        let defaults = property[continental::wire::VARIANT_DEFAULTS]
            .as_object()
            .unwrap_or_else(|| panic!("{name} names the variants that take it: {property}"));
        for variant in defaults.keys() {
            from_document.insert((variant.clone(), name.clone()));
        }
    }
    assert_eq!(
        from_document, from_listing,
        "the document's options are the listing's, no other"
    );

    // Requests and views use this one schema.
    for (schema, nullable) in [
        ("CreateGameRequest", true),
        ("MeldValidationRequest", true),
        ("ContractValidationRequest", true),
        ("GameView", false),
    ] {
        // A view flattens the engine's board in: its own properties are one part of an allOf.
        let options = std::iter::once(&schemas[schema])
            .chain(schemas[schema]["allOf"].as_array().into_iter().flatten())
            .map(|part| &part["properties"]["options"])
            .find(|o| !o.is_null())
            .unwrap_or_else(|| panic!("{schema} has options"));
        let refs: Vec<&Value> = match nullable {
            true => options["oneOf"]
                .as_array()
                .map(|o| o.iter().map(|s| &s["$ref"]).filter(|r| !r.is_null()).collect())
                .unwrap_or_default(),
            false => vec![&options["$ref"]],
        };
        assert_eq!(
            refs,
            [&json!("#/components/schemas/HouseOptions")],
            "{schema}.options is HouseOptions: {options}"
        );
    }
    app.clean_up().await;
}

#[actix_web::test]
async fn each_kind_of_bad_option_has_its_status() {
    let app = TestApp::spawn(&Backend::Sqlite).await;
    let seats = json!([{"name": "Ann"}, {"name": "Bob"}]);
    let rows = [
        (
            json!({"wild": true}),
            400,
            "a name no variant has: the document refuses it",
        ),
        (json!({"deuces_wild": "yes"}), 400, "a value of another type"),
        (
            json!({"claims_disabled_last_deals": 8}),
            400,
            "a value out of bounds",
        ),
        (json!(["deuces_wild"]), 400, "not an object"),
        (
            json!({"jokers_per_pack": 2}),
            422,
            "an option of continental, which may_i lacks",
        ),
    ];
    for (options, status, what) in rows {
        let game = json!({"variant": "may_i", "options": options, "seats": seats});
        app.post("/v1/games", &game)
            .await
            .assert_problem(status, "invalid_options", what);
        let meld = json!({"variant": "may_i", "options": options, "cards": ["7H", "7S", "7D"]});
        app.post("/v1/melds/validate", &meld).await.assert_problem(
            status,
            "invalid_options",
            &format!("{what}, validating a meld"),
        );
    }
    // JSON Schema's `integer` takes `2.0`: so does the reading.
    let whole = json!({"variant": "continental", "options": {"deals": 2.0}, "cards": ["7H", "7S", "7D"]});
    let reply = app.post("/v1/melds/validate", &whole).await;
    assert_eq!(
        reply.status.as_u16(),
        200,
        "deals 2.0 is deals 2: {}",
        reply.text()
    );
    app.clean_up().await;
}
