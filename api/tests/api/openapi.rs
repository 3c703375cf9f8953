//! The committed OpenAPI document is what the code generates. Regenerate it with
//! `UPDATE_OPENAPI=1 cargo test -p continental --test api openapi`.

use crate::helpers::{Backend, TestApp};

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

#[actix_web::test]
async fn the_served_document_is_the_generated_one() {
    let app = TestApp::spawn(&Backend::Sqlite).await;
    let served = app.get("/api-docs/openapi.json").await;
    assert_eq!(served.status.as_u16(), 200, "the document is served");
    let generated: serde_json::Value =
        serde_json::from_str(&continental::openapi::document()).expect("generated JSON");
    assert_eq!(served.json(), generated, "served and generated documents agree");
    let doc = served.json();
    assert_eq!(
        doc["servers"][0]["url"], "/",
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
