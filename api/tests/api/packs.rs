//! The stateless validators refuse what the variant's packs cannot hold (more copies of a card
//! than the largest table shuffles together), with a reason.

use serde_json::{Value, json};

use crate::helpers::TestApp;
use crate::on_every_backend;

async fn validation_refuses_what_the_packs_cannot_hold(app: &TestApp) {
    let rows = [
        (
            json!({"variant": "may_i", "cards": ["7H", "7H", "7H", "7H", "7H"]}),
            "five 7H in may_i",
        ),
        (
            json!({"variant": "contract_7", "kind": "set", "cards": ["7H", "7S", "7D", "JK", "JK", "JK", "JK"]}),
            "four jokers in contract_7",
        ),
    ];
    for (body, what) in rows {
        let reply = app.post("/v1/melds/validate", &body).await;
        assert_eq!(reply.status.as_u16(), 200, "{what}");
        let v = reply.json();
        assert_eq!(v["valid"], false, "{what}: {v}");
        let codes: Vec<&Value> = v["reasons"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| &r["code"])
            .collect();
        assert!(codes.iter().any(|c| *c == "too_many_copies"), "{what}: {v}");
    }
    let reply = app
        .post(
            "/v1/contracts/validate",
            &json!({"variant": "may_i", "deal": 1, "melds": [{"cards": ["7H", "7H", "7H"]}, {"cards": ["7H", "7H", "7S"]}]}),
        )
        .await;
    let v = reply.json();
    assert_eq!(v["valid"], false, "{v}");
    assert!(
        v["reasons"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|r| r["code"] == "too_many_copies"),
        "{v}"
    );
}
on_every_backend!(
    validation_refuses_on_every_backend,
    validation_refuses_what_the_packs_cannot_hold
);
