//! The document tells the truth (issue 10): a body it allows is judged by the rules (a 422 at
//! worst), a body it refuses is refused (a 400), every bound it states is the server's, and
//! every event the server logs is one the document describes.

use serde_json::{Value, json};

use crate::helpers::{ACME, Backend, TestApp, backends, create, document};
use crate::on_every_backend;

/// The `maxItems` the document states for `field` of `schema`.
fn max_items(doc: &Value, schema: &str, field: &str) -> usize {
    doc["components"]["schemas"][schema]["properties"][field]["maxItems"]
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or_else(|| panic!("{schema}.{field} states its maxItems"))
}

async fn every_stated_bound_is_the_servers(app: &TestApp) {
    let doc = document();
    let cards = max_items(&doc, "MeldValidationRequest", "cards");
    let meld = |n: usize| json!({"variant": "may_i", "cards": vec!["7H"; n]});
    let at = app.post("/v1/melds/validate", &meld(cards)).await;
    assert_eq!(at.status.as_u16(), 200, "{cards} cards are judged");
    app.post("/v1/melds/validate", &meld(cards + 1))
        .await
        .assert_problem(400, "invalid_body", "one card past the document's maxItems");

    let wilds = max_items(&doc, "MeldValidationRequest", "wilds");
    let designated = |n: usize| {
        json!({"variant": "may_i", "cards": ["7H", "7S", "JK"],
            "wilds": vec![json!({"card": "JK", "represents": "7"}); n]})
    };
    let at = app.post("/v1/melds/validate", &designated(wilds)).await;
    assert_eq!(at.status.as_u16(), 200, "{wilds} designations are judged");
    app.post("/v1/melds/validate", &designated(wilds + 1))
        .await
        .assert_problem(400, "invalid_body", "one designation past maxItems");

    let melds = max_items(&doc, "ContractValidationRequest", "melds");
    let contract = |n: usize| json!({"variant": "may_i", "deal": 1, "melds": vec![json!({"cards": ["7H", "7S", "7D"]}); n]});
    let at = app.post("/v1/contracts/validate", &contract(melds)).await;
    assert_eq!(at.status.as_u16(), 200, "{melds} melds are judged");
    app.post("/v1/contracts/validate", &contract(melds + 1))
        .await
        .assert_problem(400, "invalid_body", "one meld past maxItems");

    let seats = max_items(&doc, "CreateGameRequest", "seats");
    let game = |n: usize| {
        let seats: Vec<Value> = (0..n).map(|i| json!({"name": format!("P{i}")})).collect();
        json!({"variant": "continental", "seats": seats})
    };
    let at = app.post("/v1/games", &game(seats)).await;
    assert_eq!(
        at.status.as_u16(),
        201,
        "{seats} seats: continental seats as many"
    );
    app.post("/v1/games", &game(seats + 1)).await.assert_problem(
        400,
        "invalid_body",
        "one seat past maxItems",
    );
    app.post(
        "/v1/games",
        &json!({"variant": "push", "seats": [{"name": "A"}, {"name": "B"}]}),
    )
    .await
    .assert_problem(
        422,
        "player_count",
        "a count the document allows and push does not seat",
    );

    let table = create(app, "may_i", 2, 5, json!({})).await;
    let laid = max_items(&doc, "LayoffRequest", "cards");
    app.post_as(
        &format!("/v1/games/{}/layoffs", table.id),
        &table.tokens[0],
        &json!({"meld_id": 1, "cards": vec!["7H"; laid + 1]}),
        &[],
    )
    .await
    .assert_problem(400, "invalid_body", "a lay-off past maxItems, before any rule");
}
on_every_backend!(
    every_stated_bound_on_every_backend,
    every_stated_bound_is_the_servers
);

async fn numbers_are_read_as_json_schema_reads_them(app: &TestApp) {
    // JSON Schema's `integer` takes `1.0`: so does the server, and refuses `1.5`.
    let deal = |d: Value| json!({"variant": "may_i", "deal": d, "melds": []});
    let whole = app.post("/v1/contracts/validate", &deal(json!(1.0))).await;
    assert_eq!(whole.status.as_u16(), 200, "deal 1.0 is deal 1: {}", whole.text());
    app.post("/v1/contracts/validate", &deal(json!(1.5)))
        .await
        .assert_problem(400, "invalid_body", "deal 1.5 is no integer");
    app.post("/v1/contracts/validate", &deal(json!(8)))
        .await
        .assert_problem(
            422,
            "invalid_deal",
            "a deal the document allows and may_i has not",
        );

    // A seed is the document's int64: the largest is taken, one more is refused.
    let seeded =
        |seed: Value| json!({"variant": "may_i", "seats": [{"name": "A"}, {"name": "B"}], "seed": seed});
    let largest = app.post("/v1/games", &seeded(json!(i64::MAX))).await;
    assert_eq!(largest.status.as_u16(), 201, "the largest int64 seed");
    let past = u64::try_from(i64::MAX).expect("positive") + 1;
    app.post("/v1/games", &seeded(json!(past))).await.assert_problem(
        400,
        "invalid_body",
        "a seed past int64",
    );
}
on_every_backend!(
    numbers_on_every_backend,
    numbers_are_read_as_json_schema_reads_them
);

async fn names_are_what_the_pattern_says(app: &TestApp) {
    let named = |name: &str| json!({"variant": "may_i", "seats": [{"name": name}, {"name": "Bob"}]});
    for (name, why) in [
        ("", "empty"),
        ("   ", "only spaces"),
        ("Ann\u{7}", "a control character"),
        ("Ann\u{85}", "a C1 control character"),
    ] {
        app.post("/v1/games", &named(name))
            .await
            .assert_problem(400, "invalid_name", why);
    }
    let long = "n".repeat(41);
    app.post("/v1/games", &named(&long))
        .await
        .assert_problem(400, "invalid_name", "41 characters");
    let created = app.post("/v1/games", &named(" Ann ")).await;
    assert_eq!(created.status.as_u16(), 201, "spaces around a name are fine");
    assert_eq!(created.json()["seats"][0]["name"], "Ann", "and not kept");
    let widest = "é".repeat(40);
    let created = app.post("/v1/games", &named(&widest)).await;
    assert_eq!(
        created.status.as_u16(),
        201,
        "40 characters, whatever their bytes"
    );
}
on_every_backend!(names_on_every_backend, names_are_what_the_pattern_says);

async fn a_body_of_optional_fields_may_be_left_out(app: &TestApp) {
    let doc = document();
    let leave = &doc["paths"]["/v1/games/{id}/leave"]["post"]["requestBody"];
    assert_eq!(leave["required"], false, "the document says so: {leave}");
    let table = create(app, "may_i", 3, 9, json!({})).await;
    let auth = format!("Bearer {}", table.tokens[2]);
    let left = app
        .send(
            "POST",
            &format!("/v1/games/{}/leave", table.id),
            None,
            &[("authorization", &auth)],
        )
        .await;
    assert_eq!(left.status.as_u16(), 200, "no body, no type: {}", left.text());
}
on_every_backend!(
    optional_bodies_on_every_backend,
    a_body_of_optional_fields_may_be_left_out
);

async fn every_logged_event_is_a_documented_event(app: &TestApp) {
    let doc = document();
    let schemas = &doc["components"]["schemas"];
    let mapping = schemas["Event"]["discriminator"]["mapping"]
        .as_object()
        .expect("events are discriminated by `type`");
    let table = create(app, "may_i", 2, 21, json!({})).await;
    let game = format!("/v1/games/{}", table.id);
    let view = app.get_as(&game, &table.tokens[0]).await.json();
    let seat = view["turn"]["seat"]
        .as_u64()
        .and_then(|s| usize::try_from(s).ok())
        .expect("a seat in turn");
    let token = &table.tokens[seat];
    let drawn = app
        .post_as(&format!("{game}/draw"), token, &json!({"source": "stock"}), &[])
        .await
        .json();
    let card = drawn["you"]["hand"][0].clone();
    let discarded = app
        .post_as(&format!("{game}/discard"), token, &json!({"card": card}), &[])
        .await;
    assert_eq!(discarded.status.as_u16(), 200, "a discard");
    let left = app
        .post_as(&format!("{game}/leave"), token, &json!({}), &[])
        .await;
    assert_eq!(left.status.as_u16(), 200, "a leave ends a two-seat game");
    let events = app
        .get_as(&format!("{game}/events"), &table.tokens[0])
        .await
        .json();
    let events = events["events"].as_array().expect("events");
    assert!(
        events.len() >= 6,
        "a deal, a draw, a discard, a leave: {events:?}"
    );
    for logged in events {
        let event = logged["event"].as_object().expect("an event is an object");
        let kind = event["type"].as_str().expect("a type");
        let reference = mapping
            .get(kind)
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("`{kind}` is a documented event"));
        let name = reference.rsplit('/').next().expect("a schema name");
        let schema = &schemas[name];
        let properties = schema["properties"].as_object().expect("properties");
        for field in event.keys() {
            assert!(
                properties.contains_key(field),
                "{kind}.{field} is documented in {name}"
            );
        }
        for required in schema["required"].as_array().into_iter().flatten() {
            let required = required.as_str().expect("a name");
            assert!(
                event.contains_key(required),
                "{kind} has its required `{required}`"
            );
        }
    }
}
on_every_backend!(
    documented_events_on_every_backend,
    every_logged_event_is_a_documented_event
);

/// `text` as one segment of a path: every byte but the unreserved ones percent-encoded.
fn path_segment(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => char::from(b).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The schema of the parameter `name` of `method path` in `doc`.
fn parameter<'a>(doc: &'a Value, method: &str, path: &str, name: &str) -> &'a Value {
    doc["paths"][path][method]["parameters"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == name))
        .map(|p| &p["schema"])
        .unwrap_or_else(|| panic!("{method} {path} documents `{name}`"))
}

/// A studio's player id is stated alike wherever a request carries it, in a path as in a query,
/// and the server reads it as stated: an id the document allows is never refused `400` (the
/// contract's schemathesis run sends such ids to every operation that takes a server key, and
/// fails on any `400` but a made-up cursor's).
#[actix_web::test]
async fn a_player_id_is_read_as_the_document_states_it_in_a_path_as_in_a_query() {
    for backend in backends() {
        let app = TestApp::spawn_studio(&backend, None).await;
        let doc = app.get("/api-docs/openapi.json").await.ok("the document");
        let stated = json!({
            "type": "string", "minLength": 1, "maxLength": 128, "pattern": r"^[^\x00-\x1f\x7f-\x9f]*$"
        });
        for (method, path, name) in [
            ("get", "/v1/players/{id}", "id"),
            ("get", "/v1/players/{id}/games", "id"),
            ("get", "/v1/games", "player"),
            ("get", "/v1/leaderboards/{variant}", "around"),
        ] {
            assert_eq!(
                parameter(&doc, method, path, name),
                &stated,
                "{method} {path}: `{name}`"
            );
        }
        // Each id with what the stated schema says of it: its length in characters, and the
        // control characters (C0, DEL and C1) its pattern leaves out.
        let widest = "é".repeat(128);
        let long = "u".repeat(129);
        for (id, allowed, why) in [
            (widest.as_str(), true, "128 characters of two bytes each"),
            (
                "u\u{a0}1",
                true,
                "a no-break space, which is no control character",
            ),
            ("u-1 ~ 2", true, "spaces and marks"),
            (long.as_str(), false, "129 characters"),
            ("u\u{85}1", false, "a C1 control character"),
            ("u\u{7f}1", false, "DEL"),
        ] {
            for page in ["", "/games"] {
                let reply = app
                    .get_with_key(&format!("/v1/players/{}{page}", path_segment(id)), ACME)
                    .await;
                if allowed {
                    assert_ne!(
                        reply.status.as_u16(),
                        400,
                        "{backend:?}: {why} ({page}): {}",
                        reply.text()
                    );
                } else {
                    reply.assert_problem(400, "invalid_player", &format!("{backend:?}: {why} ({page})"));
                }
            }
        }
        app.clean_up().await;
    }
}

/// A leaderboard's `{variant}` is stated as the variants are, so that a client (and the
/// contract's schemathesis run) reads boards rather than guessing names: each variant's board
/// answers, any other name is `404 unknown_variant`.
#[actix_web::test]
async fn a_leaderboards_variant_is_one_the_document_names() {
    let app = TestApp::spawn_studio(&Backend::Sqlite, None).await;
    let doc = app.get("/api-docs/openapi.json").await.ok("the document");
    assert_eq!(
        parameter(&doc, "get", "/v1/leaderboards/{variant}", "variant"),
        &json!({"$ref": "#/components/schemas/Variant"}),
        "the board's variant"
    );
    let variants = doc["components"]["schemas"]["Variant"]["enum"]
        .as_array()
        .expect("the variants");
    assert_eq!(
        variants.len(),
        engine::Variant::ALL.len(),
        "every variant: {variants:?}"
    );
    for variant in variants {
        let variant = variant.as_str().expect("a name");
        let board = app
            .get_with_key(&format!("/v1/leaderboards/{variant}"), ACME)
            .await;
        assert_eq!(
            board.ok(variant)["entries"],
            json!([]),
            "{variant}: no one rated yet"
        );
    }
    app.get_with_key("/v1/leaderboards/rummy", ACME)
        .await
        .assert_problem(404, "unknown_variant", "a game the rules do not describe");
    app.clean_up().await;
}
