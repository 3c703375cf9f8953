//! Malformed and hostile requests: always a 4xx problem+json with a reason, never a 5xx.

use serde_json::{Value, json};

use crate::helpers::TestApp;
use crate::helpers::create;
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
        ("/v1/melds/validate", b"{\"variant\": \"may_i\", \"options\": {\"wild\": true}, \"cards\": [\"7H\"]}", 400, "invalid_options", "an option of no variant"),
        ("/v1/melds/validate", b"{\"variant\": \"may_i\", \"options\": {\"bonuses\": true}, \"cards\": [\"7H\"]}", 422, "invalid_options", "an option the variant does not have"),
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

/// A path or a query string the service cannot read is answered with what a client can act
/// on (the segment or parameter, and what it takes), never the words of a library.
async fn unreadable_paths_and_queries_say_which_part(app: &TestApp) {
    let game = "0190c2a4-8f3e-7b7a-9c1d-2f4e5a6b7c8d";
    let rows: &[(&str, &str, u16, &str, &str)] = &[
        (
            "GET",
            "/v1/games/not-a-uuid",
            404,
            "invalid_path",
            "no such resource: `id` is not a game id (a UUID such as 0190c2a4-8f3e-7b7a-9c1d-2f4e5a6b7c8d)",
        ),
        (
            "POST",
            "/v1/games/not-a-uuid/draw",
            404,
            "invalid_path",
            "no such resource: `id` is not a game id (a UUID such as 0190c2a4-8f3e-7b7a-9c1d-2f4e5a6b7c8d)",
        ),
        (
            "POST",
            &format!("/v1/games/{game}/seats/first/token"),
            404,
            "invalid_path",
            "no such resource: `seat` is not a seat number (a whole number from 0)",
        ),
        (
            "GET",
            &format!("/v1/games/{game}/events?after=ten"),
            400,
            "invalid_query",
            "`after` is not a number (a whole number from 0)",
        ),
        (
            "GET",
            &format!("/v1/games/{game}/events?limit=-1"),
            400,
            "invalid_query",
            "`limit` is not a number (a whole number from 0)",
        ),
        (
            "GET",
            &format!("/v1/games/{game}/events?page=2"),
            400,
            "invalid_query",
            "unknown parameter `page`, expected `after` or `limit`",
        ),
        (
            "GET",
            &format!("/v1/games/{game}/events?after=1&after=2"),
            400,
            "invalid_query",
            "the parameter `after` is given more than once",
        ),
    ];
    for (method, path, status, code, detail) in rows {
        let reply = app.send(method, path, None, &[]).await;
        let what = format!("{:?}: {method} {path}", app.backend);
        reply.assert_problem(*status, code, &what);
        assert_eq!(reply.json()["detail"], *detail, "{what}");
    }
}
on_every_backend!(
    unreadable_paths_and_queries_on_every_backend,
    unreadable_paths_and_queries_say_which_part
);

/// A move's body is the action's own fields and nothing else: the kinds without fields
/// (`claim`, `leave`, `suspend`) refuse any field as the others do, and no body names its own
/// `type` (the endpoint does).
async fn a_move_takes_only_its_actions_fields(app: &TestApp) {
    let table = create(app, "may_i", 3, 7, json!({})).await;
    let version = app.version(&table).await;
    let rows: &[(&str, Value, &str)] = &[
        ("claims", json!({"x": 42}), "a claim has no field"),
        ("claims", json!({"card": "7H"}), "a claim names no card"),
        ("leave", json!({"seat": 1}), "leaving has no field"),
        ("suspend", json!({"now": true}), "suspending has no field"),
        (
            "draw",
            json!({"source": "stock", "card": "7H"}),
            "a draw has only its source",
        ),
        (
            "discard",
            json!({"type": "discard", "card": "7H"}),
            "the endpoint gives the type",
        ),
    ];
    for (endpoint, body, what) in rows {
        let reply = app
            .post_as(
                &format!("{}/{endpoint}", table.path()),
                &table.tokens[1],
                body,
                &[],
            )
            .await;
        reply.assert_problem(400, "unknown_field", &format!("{what}: {body}"));
    }
    assert_eq!(app.version(&table).await, version, "nothing was played");
}
on_every_backend!(
    a_move_takes_only_its_actions_fields_on_every_backend,
    a_move_takes_only_its_actions_fields
);
