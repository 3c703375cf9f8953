//! House options, driven by `GET /v1/rulesets`: every option listed is accepted at its bounds
//! and refused beyond them, on every variant, by the validator and by game creation, so a new
//! option is covered without a new test.

use serde_json::{Value, json};

use crate::helpers::{Backend, TestApp};

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
    let app = TestApp::spawn(&Backend::Sqlite).await;
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
                let game = json!({"variant": id, "options": {name: value.clone()}, "seats": seats});
                let created = app.post("/v1/games", &game).await;
                if accepted {
                    assert_eq!(
                        reply.status.as_u16(),
                        200,
                        "{what} is accepted by the validator: {}",
                        String::from_utf8_lossy(&reply.body)
                    );
                    assert_eq!(
                        created.status.as_u16(),
                        201,
                        "{what} is accepted for a game: {}",
                        String::from_utf8_lossy(&created.body)
                    );
                } else {
                    reply.assert_problem(422, "invalid_options", &what);
                    created.assert_problem(422, "invalid_options", &format!("{what}, creating a game"));
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
