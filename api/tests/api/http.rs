//! HTTP as clients expect it (docs/api.md#conventions): 405 with `Allow`, `HEAD` where `GET` is,
//! 415 for a body that is not JSON, 400 for JSON that is not an object, no 5xx for an unknown
//! game, a 412 that carries the current `ETag`, CORS when configured, and a Swagger UI that
//! calls nobody else.

use serde_json::json;

use crate::helpers::{Spawn, TestApp, backends, create};
use crate::on_every_backend;

async fn methods_and_media_types(app: &TestApp) {
    let table = create(app, "may_i", 2, 7, json!({})).await;
    let game = format!("/v1/games/{}", table.id);
    let auth = format!("Bearer {}", table.tokens[0]);

    // A known path with another method: 405 and what it takes.
    let rows: &[(&str, String, &str, &str)] = &[
        ("DELETE", "/v1/rulesets".to_owned(), "GET, HEAD", "a GET endpoint"),
        ("PUT", "/v1/melds/validate".to_owned(), "POST", "a POST endpoint"),
        (
            "PUT",
            "/v1/games".to_owned(),
            "GET, HEAD, POST",
            "the games: a studio lists, anyone creates",
        ),
        ("GET", format!("{game}/draw"), "POST", "a move"),
        ("DELETE", game.clone(), "GET, HEAD", "the game view"),
        (
            "PUT",
            format!("{game}/autopilot"),
            "POST, DELETE",
            "the autopilot, on and off",
        ),
        ("PATCH", "/healthz".to_owned(), "GET, HEAD", "liveness"),
    ];
    for (method, path, allow, what) in rows {
        let reply = app.send(method, path, None, &[]).await;
        reply.assert_problem(405, "method_not_allowed", what);
        assert_eq!(reply.header("allow").as_deref(), Some(*allow), "{what}: Allow");
    }
    app.send("DELETE", "/v1/nothing/here", None, &[])
        .await
        .assert_problem(404, "no_route", "an unknown path stays a 404");

    // HEAD where GET is: the GET's status and headers, no body.
    for (path, token) in [
        ("/healthz".to_owned(), None),
        ("/v1/rulesets".to_owned(), None),
        (game.clone(), Some(auth.as_str())),
        (format!("{game}/events"), Some(auth.as_str())),
    ] {
        let headers: Vec<(&str, &str)> = token.map(|t| ("authorization", t)).into_iter().collect();
        let get = app.send("GET", &path, None, &headers).await;
        let head = app.send("HEAD", &path, None, &headers).await;
        assert_eq!(head.status, get.status, "HEAD {path} answers as GET");
        assert!(head.body.is_empty(), "HEAD {path} has no body");
        assert_eq!(
            head.header("content-type"),
            get.header("content-type"),
            "HEAD {path}: same type"
        );
        assert_eq!(head.header("etag"), get.header("etag"), "HEAD {path}: same ETag");
    }

    // The stream's GET lasts as long as the game: its HEAD answers at once.
    let head = app
        .send(
            "HEAD",
            &format!("{game}/stream"),
            None,
            &[("authorization", &auth)],
        )
        .await;
    assert_eq!(head.status.as_u16(), 200, "HEAD of the stream");
    assert_eq!(head.header("content-type").as_deref(), Some("text/event-stream"));

    // Bodies: JSON objects only, said to be JSON.
    let meld = br#"{"variant": "may_i", "cards": ["7H", "7S", "7D"]}"#;
    let typed: &[(&str, u16, &str, &str)] = &[
        ("text/plain", 415, "unsupported_media_type", "text/plain"),
        (
            "application/x-www-form-urlencoded",
            415,
            "unsupported_media_type",
            "a form",
        ),
        (
            "application/jsonx",
            415,
            "unsupported_media_type",
            "a look-alike type",
        ),
    ];
    let validate_as = async |content_type: &str| {
        let headers = [("content-type", content_type)];
        app.send("POST", "/v1/melds/validate", Some(meld), &headers).await
    };
    for (content_type, status, code, what) in typed {
        validate_as(content_type)
            .await
            .assert_problem(*status, code, what);
    }
    for content_type in ["application/json; charset=utf-8", "application/problem+json"] {
        let reply = validate_as(content_type).await;
        assert_eq!(reply.status.as_u16(), 200, "{content_type} is JSON");
    }
    let untyped = app.client.post(format!("{}/v1/melds/validate", app.address));
    let reply = untyped.send_body(meld.to_vec()).await.expect("sent");
    assert_eq!(reply.status().as_u16(), 415, "a body without a type");
    for body in ["[]", "[\"may_i\", []]", "\"may_i\"", "1", "null", "true"] {
        app.send("POST", "/v1/games", Some(body.as_bytes()), &[])
            .await
            .assert_problem(400, "not_an_object", body);
    }
}
on_every_backend!(methods_and_media_types_on_every_backend, methods_and_media_types);

async fn no_5xx_and_a_412_with_the_etag(app: &TestApp) {
    // Joining an unknown game with an Idempotency-Key is an unknown game, not a broken key.
    let unknown = format!("/v1/games/{}/join", uuid::Uuid::new_v4());
    let body = br#"{"name": "Cleo"}"#;
    for key in [None, Some("join-1")] {
        let headers: Vec<(&str, &str)> = key.map(|k| ("idempotency-key", k)).into_iter().collect();
        app.send("POST", &unknown, Some(body), &headers)
            .await
            .assert_problem(404, "game_not_found", "join an unknown game");
    }
    let table = create(app, "may_i", 2, 3, json!({})).await;
    for key in ["", "two words", "tab\there", &"k".repeat(201)] {
        let reply = app
            .post_as(
                &format!("/v1/games/{}/draw", table.id),
                &table.tokens[1],
                &json!({"source": "stock"}),
                &[("idempotency-key", key)],
            )
            .await;
        reply.assert_problem(400, "invalid_idempotency_key", &format!("key {key:?}"));
    }

    // A stale If-Match: 412, nothing changes, and the answer names the current version.
    let table = create(app, "may_i", 2, 11, json!({})).await;
    let view = app.view(&table, 1).await;
    let current = view.header("etag").expect("an ETag");
    let stale = app
        .post_as(
            &format!("/v1/games/{}/draw", table.id),
            &table.tokens[1],
            &json!({"source": "stock"}),
            &[("if-match", "\"999\"")],
        )
        .await;
    stale.assert_problem(412, "stale_version", "stale If-Match");
    assert_eq!(
        stale.header("etag"),
        Some(current),
        "a 412 carries the current ETag"
    );
    // An empty If-Match names no version: a 412 that says so, not "not ".
    let empty = app
        .post_as(
            &format!("/v1/games/{}/draw", table.id),
            &table.tokens[1],
            &json!({"source": "stock"}),
            &[("if-match", "")],
        )
        .await;
    empty.assert_problem(412, "stale_version", "an empty If-Match");
    let detail = empty.json()["detail"].as_str().unwrap_or_default().to_owned();
    assert!(
        detail.contains("the empty If-Match"),
        "the detail says what was sent: {detail}"
    );
}
on_every_backend!(no_5xx_and_a_412_on_every_backend, no_5xx_and_a_412_with_the_etag);

#[actix_web::test]
async fn cors_is_off_by_default_and_on_for_the_configured_origins() {
    let origin = "https://play.example.org";
    let preflight: &[(&str, &str)] = &[
        ("origin", origin),
        ("access-control-request-method", "POST"),
        (
            "access-control-request-headers",
            "authorization, content-type, if-match",
        ),
    ];
    for backend in backends() {
        let closed = TestApp::spawn(&backend).await;
        let reply = closed.send("OPTIONS", "/v1/games", None, preflight).await;
        assert_eq!(
            reply.header("access-control-allow-origin"),
            None,
            "no CORS unless configured"
        );
        closed.clean_up().await;

        let open = TestApp::spawn_with(
            &backend,
            Spawn {
                cors_origins: vec![origin.to_owned()],
                ..Spawn::default()
            },
        )
        .await;
        let reply = open.send("OPTIONS", "/v1/games", None, preflight).await;
        assert!(reply.status.is_success(), "preflight: {}", reply.status);
        assert_eq!(
            reply.header("access-control-allow-origin").as_deref(),
            Some(origin)
        );
        let allowed = reply.header("access-control-allow-headers").unwrap_or_default();
        assert!(allowed.contains("if-match"), "If-Match may be sent: {allowed}");
        let reply = open
            .send("GET", "/v1/rulesets", None, &[("origin", origin)])
            .await;
        assert_eq!(reply.status.as_u16(), 200);
        assert_eq!(
            reply.header("access-control-allow-origin").as_deref(),
            Some(origin)
        );
        let exposed = reply.header("access-control-expose-headers").unwrap_or_default();
        assert!(exposed.contains("etag"), "the ETag can be read: {exposed}");
        let other = open
            .send(
                "GET",
                "/v1/rulesets",
                None,
                &[("origin", "https://elsewhere.example")],
            )
            .await;
        assert_eq!(
            other.header("access-control-allow-origin"),
            None,
            "another origin is not allowed"
        );
        open.clean_up().await;
    }
}

#[actix_web::test]
async fn swagger_ui_sends_the_document_to_no_validator() {
    let app = TestApp::spawn(&crate::helpers::Backend::Sqlite).await;
    let init = app.get("/docs/swagger-initializer.js").await;
    assert_eq!(init.status.as_u16(), 200);
    let text = init.text();
    assert!(
        text.contains("\"validatorUrl\": \"none\"") || text.contains("\"validatorUrl\":\"none\""),
        "the validator is off: {text}"
    );
    app.clean_up().await;
}
