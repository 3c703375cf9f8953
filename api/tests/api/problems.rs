//! Malformed and hostile requests: always a 4xx problem+json with a reason, never a 5xx.

use crate::helpers::TestApp;
use crate::on_every_backend;

async fn hostile_bodies_get_problems(app: &TestApp) {
    let huge = format!(
        "{{\"variant\": \"may_i\", \"cards\": [{}]}}",
        vec!["\"7H\""; 20_000].join(",")
    );
    let deep = format!("{}{}", "[".repeat(2000), "]".repeat(2000));
    let rows: &[(&str, &[u8], u16, &str, &str)] = &[
        ("/v1/melds/validate", b"{\"variant\": \"may_i\", \"cards\": [\"7H\"", 400, "malformed_json", "truncated JSON"),
        ("/v1/melds/validate", b"not json at all", 400, "malformed_json", "not JSON"),
        ("/v1/melds/validate", b"{\"variant\": \"may_i\", \"cards\": [], \"colour\": 1}", 400, "unknown_field", "unknown fields are refused"),
        ("/v1/melds/validate", b"{\"variant\": \"may_i\", \"cards\": [\"ZZ\"]}", 400, "unknown_card", "unknown card"),
        ("/v1/melds/validate", b"{\"variant\": \"gin\", \"cards\": [\"7H\"]}", 400, "unknown_variant", "unknown variant"),
        ("/v1/melds/validate", b"{\"variant\": \"may_i\", \"options\": {\"wild\": true}, \"cards\": [\"7H\"]}", 422, "invalid_options", "an option the variant does not have"),
        ("/v1/melds/validate", b"{\"variant\": \"may_i\", \"cards\": \"7H\"}", 400, "invalid_body", "wrong type"),
        ("/v1/melds/validate", b"{\"variant\": \"may_i\", \"cards\": [\"7H\"]} trailing", 400, "malformed_json", "trailing garbage"),
        ("/v1/melds/validate", b"", 400, "invalid_body", "empty body lacks required fields"),
        ("/v1/melds/validate", huge.as_bytes(), 413, "body_too_large", "bodies are bounded"),
        ("/v1/melds/validate", deep.as_bytes(), 400, "not_an_object", "deep nesting"),
        ("/v1/contracts/validate", b"{\"variant\": \"may_i\", \"deal\": 300, \"melds\": []}", 400, "invalid_body", "deal out of u8 range"),
        ("/v1/contracts/validate", b"{\"variant\": \"may_i\", \"deal\": 1, \"melds\": [{\"cards\": [\"7H\"], \"kind\": \"triangle\"}]}", 400, "invalid_body", "unknown kind"),
    ];
    for (path, body, status, code, what) in rows {
        let reply = app.send("POST", path, Some(body), &[]).await;
        reply.assert_problem(*status, code, what);
    }
    let missing = app.get("/v1/no/such/thing").await;
    missing.assert_problem(404, "no_route", "unknown endpoint");
    let bad_id = app.get("/v1/games/not-a-uuid").await;
    assert!(
        bad_id.status.is_client_error(),
        "a bad game id is a 4xx: {}",
        bad_id.status
    );
    assert_eq!(
        bad_id.header("content-type").as_deref(),
        Some("application/problem+json"),
        "bad id"
    );
    let wrong_method = app.send("DELETE", "/v1/rulesets", None, &[]).await;
    assert!(
        wrong_method.status.is_client_error(),
        "a wrong method is a 4xx: {}",
        wrong_method.status
    );
    // Every refusal says why: problem+json with its status, a stable code and a reason.
    for (reply, what) in [(&bad_id, "bad id"), (&wrong_method, "wrong method")] {
        assert_eq!(
            reply.header("content-type").as_deref(),
            Some("application/problem+json"),
            "{what}: errors are problem+json"
        );
        let body = reply.json();
        assert_eq!(body["status"], reply.status.as_u16(), "{what}: {body}");
        for field in ["code", "detail"] {
            assert!(
                body[field].as_str().is_some_and(|v| !v.is_empty()),
                "{what}: the problem has a {field}: {body}"
            );
        }
    }
}
on_every_backend!(hostile_bodies_on_every_backend, hostile_bodies_get_problems);
