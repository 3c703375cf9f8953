//! The table in the browser (`/play`): served by the binary with the right types, a policy
//! that lets it ask no other host, and no place in the API's document.

use crate::helpers::{Backend, TestApp};

#[actix_web::test]
async fn the_page_and_its_files_are_served_with_their_types_and_a_strict_policy() {
    let app = TestApp::spawn(&Backend::Sqlite).await;
    let cases = [
        (
            "/play",
            "text/html; charset=utf-8",
            "<script type=\"module\" src=\"/play/app.js\">",
        ),
        ("/play/style.css", "text/css; charset=utf-8", ".card"),
        ("/play/app.js", "text/javascript; charset=utf-8", "import"),
        ("/play/api.js", "text/javascript; charset=utf-8", "/v1/games/"),
        (
            "/play/cards.js",
            "text/javascript; charset=utf-8",
            "export function",
        ),
        (
            "/play/dom.js",
            "text/javascript; charset=utf-8",
            "export function",
        ),
        ("/play/table.js", "text/javascript; charset=utf-8", "follow("),
        ("/play/watch.js", "text/javascript; charset=utf-8", "/spectators"),
        ("/play/replay.js", "text/javascript; charset=utf-8", "seed"),
        (
            "/play/board.js",
            "text/javascript; charset=utf-8",
            "/v1/leaderboards/",
        ),
        (
            "/play/results.js",
            "text/javascript; charset=utf-8",
            "localStorage",
        ),
        (
            "/play/quick.js",
            "text/javascript; charset=utf-8",
            "/v1/matchmaking/tickets",
        ),
        (
            "/play/tournaments.js",
            "text/javascript; charset=utf-8",
            "/v1/tournaments",
        ),
        ("/play/icon.svg", "image/svg+xml", "<svg"),
    ];
    for (path, content_type, contains) in cases {
        let reply = app.get(path).await;
        assert_eq!(reply.status.as_u16(), 200, "{path} is served");
        assert_eq!(
            reply.header("content-type").as_deref(),
            Some(content_type),
            "{path}'s type"
        );
        let csp = reply.header("content-security-policy").unwrap_or_default();
        for directive in [
            "default-src 'self'",
            "connect-src 'self'",
            "script-src 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(
                csp.contains(directive),
                "{path}: the policy holds {directive}: {csp}"
            );
        }
        assert!(!csp.contains("unsafe"), "{path}: nothing inline runs: {csp}");
        assert_eq!(
            reply.header("x-content-type-options").as_deref(),
            Some("nosniff"),
            "{path}"
        );
        assert_eq!(
            reply.header("cache-control").as_deref(),
            Some("no-cache"),
            "{path}: revalidated"
        );
        let body = reply.text();
        assert!(
            body.contains(contains),
            "{path} is the file it names: lacks {contains}"
        );
        // Nothing of another host: every fetch, script and style is relative to the page's origin.
        for foreign in ["http://", "//cdn", "fonts.googleapis"] {
            let outside = body
                .match_indices(foreign)
                .filter(|(i, _)| !body[*i..].starts_with("http://www.w3.org/2000/svg"))
                .count();
            assert_eq!(outside, 0, "{path} names no other host ({foreign})");
        }

        let etag = reply.header("etag").expect("an ETag");
        let again = app
            .send("GET", path, None, &[("if-none-match", etag.as_str())])
            .await;
        assert_eq!(
            again.status.as_u16(),
            304,
            "{path}: an unchanged file is not sent again"
        );
        assert!(again.body.is_empty(), "{path}: a 304 has no body");
    }
    app.clean_up().await;
}

#[actix_web::test]
async fn the_root_leads_to_the_page_which_is_no_api_operation() {
    let app = TestApp::spawn(&Backend::Sqlite).await;
    let root = app.get("/").await;
    assert_eq!(root.status.as_u16(), 307, "/ leads to the page");
    assert_eq!(root.header("location").as_deref(), Some("/play"));
    let head = app.send("HEAD", "/play", None, &[]).await;
    assert_eq!(head.status.as_u16(), 200, "HEAD /play answers like GET");
    let post = app.send("POST", "/play", Some(b"{}"), &[]).await;
    assert_eq!(post.status.as_u16(), 405, "the page is only read");
    let missing = app.get("/play/nothing.js").await;
    assert_eq!(missing.status.as_u16(), 404, "no file but the page's own");

    let served = app.get("/api-docs/openapi.json").await.json();
    let paths = served["paths"].as_object().expect("paths");
    assert!(
        paths
            .keys()
            .all(|p| p.starts_with("/v1/") || ["/healthz", "/readyz", "/metrics"].contains(&p.as_str())),
        "the page is not an operation of the API: {:?}",
        paths.keys().collect::<Vec<_>>()
    );
    app.clean_up().await;
}

/// The page learns which cards are wild from the server (`wilds` in the view): no file of it
/// names a house option or a variant's wild cards, which would be a copy of the engine's rules.
#[test]
fn the_page_holds_no_rule_of_which_cards_are_wild() {
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    for entry in std::fs::read_dir(&web).expect("api/web") {
        let path = entry.expect("a file").path();
        if path.extension().is_none_or(|e| e != "js") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a script");
        for rule in ["deuces_wild", "\"AH\"", "\"AD\"", "rank === \"2\""] {
            assert!(
                !text.contains(rule),
                "{} names {rule}: a rule the server gives",
                path.display()
            );
        }
    }
}

/// The page offers a control for every kind of action a view can list (shown when the view's
/// `legal_actions` lists it) and tells every event of the document in words: a new action or
/// event fails here until the page has it (ARCHITECTURE.md, "where a change goes").
#[test]
fn the_page_has_a_control_for_every_action_and_words_for_every_event() {
    let table = include_str!("../../web/table.js");
    for kind in <engine::ActionKind as strum::IntoEnumIterator>::iter() {
        let control = format!("legal(\"{}\"", kind.name());
        assert!(
            table.contains(&control),
            "table.js has no control for `{}`",
            kind.name()
        );
    }
    let document: serde_json::Value =
        serde_json::from_str(&continental::openapi::document()).expect("the document is JSON");
    let schemas = &document["components"]["schemas"];
    let events = schemas["Event"]["oneOf"].as_array().expect("Event is a oneOf");
    assert!(events.len() > 30, "every event of the log: {}", events.len());
    for event in events {
        let name = event["$ref"]
            .as_str()
            .and_then(|r| r.rsplit('/').next())
            .expect("a reference");
        let kind = schemas[name]["properties"]["type"]["enum"][0]
            .as_str()
            .unwrap_or_else(|| panic!("{name} has a type"));
        assert!(
            table.contains(&format!("case \"{kind}\":")),
            "table.js's `describe` has no words for `{kind}`"
        );
    }
}
