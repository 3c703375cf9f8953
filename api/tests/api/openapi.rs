//! The committed OpenAPI document is what the code generates for a server not in test mode, and
//! what such a server serves. Regenerate it with
//! `UPDATE_OPENAPI=1 cargo test -p continental --test api openapi`.

use serde_json::json;

use crate::helpers::{Backend, Spawn, TestApp, documented_codes};

const COMMITTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/openapi.json");

#[test]
fn committed_openapi_matches_the_code() {
    let generated = continental::openapi::document();
    if std::env::var("UPDATE_OPENAPI").is_ok_and(|v| v == "1") {
        std::fs::write(COMMITTED, &generated).expect("write openapi/openapi.json");
    }
    let committed = std::fs::read_to_string(COMMITTED).unwrap_or_default();
    assert!(
        committed == generated,
        "openapi/openapi.json differs from what the code generates: run \
         `UPDATE_OPENAPI=1 cargo test -p continental --test api openapi` and commit the result"
    );
}

/// `Problem.code` lists the codes the errors can give (`problem_codes`, made from the service's
/// `Code` and the engine's error enums), each once, and no other.
#[test]
fn problem_codes_are_those_of_the_errors_both_ways() {
    let listed = documented_codes();
    let produced = continental::wire::problem_codes();
    for code in listed {
        assert!(
            produced.contains(&code.as_str()),
            "the document lists `{code}`, which no error gives"
        );
    }
    for code in &produced {
        assert!(
            listed.iter().any(|c| c == code),
            "an error gives `{code}`, which the document does not list"
        );
    }
    assert_eq!(listed.len(), produced.len(), "each code once");
    let swap = engine::ActionError::Swap(engine::SwapError::RunTooShort);
    assert!(
        listed.iter().any(|c| c == swap.code()),
        "an engine error's code: {}",
        swap.code()
    );
}

/// The document `app` serves.
async fn served(app: &TestApp) -> serde_json::Value {
    let served = app.get("/api-docs/openapi.json").await;
    assert_eq!(served.status.as_u16(), 200, "the document is served");
    served.json()
}

#[actix_web::test]
async fn a_server_not_in_test_mode_serves_the_committed_document() {
    let app = TestApp::spawn_with(&Backend::Sqlite, Spawn::default()).await;
    let doc = served(&app).await;
    let committed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(COMMITTED).unwrap_or_default())
            .expect("committed JSON");
    assert_eq!(doc, committed, "served and committed documents agree");
    assert_eq!(
        doc["servers"],
        json!([{"url": "/", "description": "The service that serves this document."}]),
        "the one server is relative: the address the document was fetched from"
    );
    assert!(
        doc["components"]["securitySchemes"]["seat_token"]["scheme"] == "bearer",
        "the bearer security scheme is documented"
    );
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("operations") {
            for (status, response) in op["responses"].as_object().expect("responses") {
                assert!(
                    response["description"].as_str().is_some_and(|d| !d.is_empty()),
                    "{method} {path} {status} has a description"
                );
            }
        }
    }
    app.clean_up().await;
}

#[actix_web::test]
async fn test_mode_fields_are_served_only_in_test_mode() {
    let normal = TestApp::spawn_with(&Backend::Sqlite, Spawn::default()).await;
    let testing = TestApp::spawn(&Backend::Sqlite).await;
    let (normal_doc, test_doc) = (served(&normal).await, served(&testing).await);
    let fields = |doc: &serde_json::Value| {
        doc["components"]["schemas"]["CreateGameRequest"]["properties"]
            .as_object()
            .expect("CreateGameRequest's properties")
            .clone()
    };
    let (normal_fields, test_fields) = (fields(&normal_doc), fields(&test_doc));
    // `seats::test_mode_fields_are_refused_outside_test_mode` sends each of them.
    let marked = continental::wire::CreateGameRequest::TEST_MODE_FIELDS;
    for field in marked {
        assert!(test_fields.contains_key(field), "{field} is offered in test mode");
        assert!(
            !normal_fields.contains_key(field),
            "{field} is not offered outside test mode"
        );
    }
    assert_eq!(
        normal_fields.len() + marked.len(),
        test_fields.len(),
        "every other field is in both"
    );
    let examples = |doc: &serde_json::Value| {
        doc["paths"]["/v1/games"]["post"]["requestBody"]["content"]["application/json"]["examples"]
            .as_object()
            .expect("creation examples")
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert!(
        examples(&test_doc).contains(&"test mode".to_owned()),
        "the test-mode example in test mode"
    );
    assert!(
        !examples(&normal_doc).contains(&"test mode".to_owned()),
        "and not outside it"
    );
    let mut without = test_doc.clone();
    without["components"]["schemas"]["CreateGameRequest"]["properties"] = json!(normal_fields);
    without["paths"]["/v1/games"]["post"]["requestBody"]["content"]["application/json"]["examples"]
        .as_object_mut()
        .expect("creation examples")
        .remove("test mode");
    assert_eq!(without, normal_doc, "the documents differ in those alone");
    normal.clean_up().await;
    testing.clean_up().await;
}

/// One schema per concept: the log, the stream and the webhooks carry the one `Event`; a reading
/// is the one `Reading` wherever it appears; no schema is named after a transfer object.
#[test]
fn events_and_readings_have_one_schema_each() {
    let document: serde_json::Value =
        serde_json::from_str(&continental::openapi::document()).expect("the document is JSON");
    let schemas = &document["components"]["schemas"];
    let event = json!("#/components/schemas/Event");
    assert_eq!(
        schemas["LoggedEvent"]["properties"]["event"]["$ref"], event,
        "the log's"
    );
    assert_eq!(
        schemas["EventMessage"]["properties"]["data"]["contentSchema"]["$ref"], event,
        "the stream's"
    );
    let delivery = &document["webhooks"]["game_event"]["post"]["requestBody"]["content"]["application/json"]
        ["schema"]["$ref"];
    assert_eq!(delivery, &json!("#/components/schemas/WebhookDelivery"));
    assert_eq!(
        schemas["WebhookDelivery"]["properties"]["event"]["$ref"], event,
        "the webhooks'"
    );

    let copies: Vec<&String> = schemas
        .as_object()
        .expect("schemas")
        .keys()
        .filter(|name| name.contains("Dto"))
        .collect();
    assert!(copies.is_empty(), "no transfer-object copies: {copies:?}");
    for name in ["ReadingView", "MeldsRequest", "DesignationRequest", "DrewMessage"] {
        assert!(schemas.get(name).is_none(), "{name} is gone");
    }
    let text = document.to_string();
    let readings = text.matches("\"$ref\":\"#/components/schemas/Reading\"").count();
    assert!(
        readings >= 6,
        "events, views, hints, validations and problems use Reading: {readings}"
    );
}

/// A seat is told of every kind of action it may take: the legal actions a view lists are of the
/// engine's kinds of action, every one of them.
#[test]
fn every_kind_of_action_can_be_listed_as_legal() {
    let document: serde_json::Value =
        serde_json::from_str(&continental::openapi::document()).expect("the document is JSON");
    let listed: std::collections::BTreeSet<&str> = document["components"]["schemas"]["LegalAction"]["oneOf"]
        .as_array()
        .expect("LegalAction is a oneOf")
        .iter()
        .filter_map(|variant| variant["properties"]["type"]["enum"][0].as_str())
        .collect();
    let kinds = <engine::ActionKind as strum::IntoEnumIterator>::iter().map(engine::ActionKind::name);
    assert_eq!(listed, kinds.collect());
}
