//! A studio's back end: server keys, tenancy, listing, token reissue and spectators.

use serde_json::{Value, json};

use crate::helpers::{
    ACME, ACME_ROTATED, BETA, Backend, Reply, Table, TestApp, backends, create_with, local_game,
    on_studio_backends, sorted_first_deal,
};

/// A game of two named players and a bot, created with `key`.
fn two_players_and_a_bot() -> Value {
    json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}, {"bot": true}], "seed": 7, "first_dealer": 0})
}

/// A reply's status as a number.
fn status(reply: &Reply) -> u16 {
    reply.status.as_u16()
}

/// With server keys set, creation needs a valid key; either secret of a rotating tenant works.
#[actix_web::test]
async fn creating_a_game_needs_a_server_key() {
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        let body = two_players_and_a_bot();
        app.post("/v1/games", &body).await.assert_problem(
            401,
            "unauthorized",
            &format!("{backend:?}: no key"),
        );
        for bad in [
            "nope",
            "acme-secret-0000000003",
            "",
            "acme:acme-secret-0000000001",
        ] {
            app.post_with_key("/v1/games", bad, &body, &[])
                .await
                .assert_problem(401, "unauthorized", &format!("{backend:?}: key {bad:?}"));
        }
        for key in [ACME, ACME_ROTATED, BETA] {
            let created = create_with(app, key, &body).await;
            assert!(created["id"].is_string(), "{backend:?}: {created}");
        }
    })
    .await;
}

/// Without server keys creation is open as before, and a key sent anyway changes nothing.
#[actix_web::test]
async fn without_server_keys_creation_is_open() {
    for backend in backends() {
        let app = TestApp::spawn(&backend).await;
        let reply = app.post("/v1/games", &two_players_and_a_bot()).await;
        assert_eq!(status(&reply), 201, "{backend:?}: open creation");
        let reply = app
            .post_with_key("/v1/games", "any-key-at-all-000", &two_players_and_a_bot(), &[])
            .await;
        assert_eq!(
            status(&reply),
            201,
            "{backend:?}: a key is not checked when none is configured"
        );
        app.clean_up().await;
    }
}

/// Creation idempotency keys are per tenant: the same key from two tenants makes two games,
/// and a retry from the same tenant (either of its secrets) replays the first.
#[actix_web::test]
async fn creation_keys_are_scoped_by_tenant() {
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        let body = two_players_and_a_bot();
        let headers = [("idempotency-key", "create-1")];
        let first = app.post_with_key("/v1/games", ACME, &body, &headers).await;
        let again = app
            .post_with_key("/v1/games", ACME_ROTATED, &body, &headers)
            .await;
        let other = app.post_with_key("/v1/games", BETA, &body, &headers).await;
        assert_eq!(
            (status(&first), status(&again), status(&other)),
            (201, 201, 201),
            "{backend:?}"
        );
        assert_eq!(
            first.json()["id"],
            again.json()["id"],
            "{backend:?}: the same tenant's retry replays"
        );
        assert_ne!(
            first.json()["id"],
            other.json()["id"],
            "{backend:?}: another tenant's key is its own"
        );
    })
    .await;
}

/// Lists every page of `key`'s games with `query` (no `cursor`), following `next_cursor`.
async fn list_all(app: &TestApp, key: &str, query: &str) -> Vec<Value> {
    let mut games = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..100 {
        let path = match &cursor {
            Some(c) => format!("/v1/games?{query}&cursor={c}"),
            None => format!("/v1/games?{query}"),
        };
        let reply = app.get_with_key(&path, key).await;
        assert_eq!(status(&reply), 200, "{path}: {}", reply.text());
        let page = reply.json();
        games.extend(page["games"].as_array().expect("games").iter().cloned());
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => return games,
        }
    }
    panic!("a listing that never ends");
}

fn ids(games: &[Value]) -> Vec<String> {
    games
        .iter()
        .map(|g| g["id"].as_str().expect("id").to_owned())
        .collect()
}

/// docs/api.md#cursors: a listing's cursor reads only on the listing it was given for: its
/// tenant's, with its filters (`status`, `player`; a player's games are the listing with
/// `player`). Another tenant's cursor, or one of other filters, is `400 invalid_cursor` saying
/// which, even where that listing has a place for it.
#[actix_web::test]
async fn a_listing_cursor_reads_only_on_its_tenants_listing_with_its_filters() {
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        let ctx = format!("{backend:?}");
        let waiting = json!({"variant": "may_i", "seats": [{"name": "Ann", "player": "u-a"}, {"open": true}, {"bot": true}]});
        let playing = json!({"variant": "may_i", "seats": [{"name": "Ann", "player": "u-a"}, {"name": "Bob", "player": "u-b"}, {"bot": true}]});
        for key in [ACME, BETA] {
            for body in [&waiting, &playing, &waiting, &playing] {
                create_with(app, key, body).await;
            }
        }
        let cursor_of = async |path: &str| -> String {
            let page = app.get_with_key(path, ACME).await;
            assert_eq!(status(&page), 200, "{ctx}: {path}: {}", page.text());
            page.json()["next_cursor"].as_str().expect("a next page").to_owned()
        };
        let all = cursor_of("/v1/games?limit=1").await;
        let playing_only = cursor_of("/v1/games?status=playing&limit=1").await;
        let anns = cursor_of("/v1/players/u-a/games?limit=1").await;

        // Its own listing reads it; a player's games are the listing with `player`.
        for path in [
            format!("/v1/games?limit=1&cursor={all}"),
            format!("/v1/games?status=playing&limit=1&cursor={playing_only}"),
            format!("/v1/players/u-a/games?limit=1&cursor={anns}"),
            format!("/v1/games?player=u-a&limit=1&cursor={anns}"),
        ] {
            let reply = app.get_with_key(&path, ACME).await;
            assert_eq!(status(&reply), 200, "{ctx}: {path}: {}", reply.text());
        }
        for (path, key, why, says) in [
            (format!("/v1/games?limit=1&cursor={all}"), BETA, "acme's cursor sent by beta", "another tenant"),
            (
                format!("/v1/players/u-a/games?limit=1&cursor={anns}"),
                BETA,
                "acme's player's cursor sent by beta",
                "another tenant",
            ),
            (format!("/v1/games?limit=1&cursor={playing_only}"), ACME, "a status's cursor unfiltered", "other filters"),
            (
                format!("/v1/games?status=waiting&limit=1&cursor={playing_only}"),
                ACME,
                "a status's cursor on another status",
                "other filters",
            ),
            (format!("/v1/games?status=playing&limit=1&cursor={all}"), ACME, "an unfiltered cursor filtered", "other filters"),
            (format!("/v1/players/u-b/games?limit=1&cursor={anns}"), ACME, "Ann's games' cursor on Bob's", "other filters"),
        ] {
            let reply = app.get_with_key(&path, key).await;
            reply.assert_problem(400, "invalid_cursor", &format!("{ctx}: {why}"));
            let detail = reply.json()["detail"].as_str().unwrap_or_default().to_owned();
            assert!(
                detail.contains(says) && detail.contains("start again"),
                "{ctx}: {why}: the reason says `{says}`: {detail}"
            );
        }
    })
    .await;
}

/// The listing holds only the key's tenant's games, newest first, each with its fields;
/// `limit` and `cursor` page through it, `status` filters it, bad parameters are 400s.
#[actix_web::test]
async fn listing_a_tenants_games() {
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        let ctx = format!("{backend:?}");
        let waiting = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"open": true}, {"bot": true}]});
        let mut acme = Vec::new();
        for i in 0..5 {
            let body = if i % 2 == 0 {
                two_players_and_a_bot()
            } else {
                waiting.clone()
            };
            acme.push(create_with(app, if i < 3 { ACME } else { ACME_ROTATED }, &body).await["id"].clone());
        }
        let beta = create_with(app, BETA, &two_players_and_a_bot()).await["id"].clone();
        acme.reverse();
        let newest_first: Vec<String> = acme.iter().map(|v| v.as_str().expect("id").to_owned()).collect();

        let all = list_all(app, ACME, "limit=50").await;
        assert_eq!(
            ids(&all),
            newest_first,
            "{ctx}: the tenant's games, newest first, none of another's"
        );
        let first = &all[0];
        for field in [
            "id",
            "variant",
            "status",
            "version",
            "created_at",
            "seats",
            "turn",
        ] {
            assert!(
                first.get(field).is_some(),
                "{ctx}: a listed game has `{field}`: {first}"
            );
        }
        assert!(
            time::OffsetDateTime::parse(
                first["created_at"].as_str().expect("text"),
                &time::format_description::well_known::Rfc3339
            )
            .is_ok(),
            "{ctx}: created_at is RFC 3339: {first}"
        );
        assert_eq!(
            first["seats"][1],
            json!({"seat": 1, "name": "Bob", "kind": "player"}),
            "{ctx}: {first}"
        );
        assert_eq!(first["seats"][2]["kind"], "bot", "{ctx}: {first}");
        assert_eq!(first["status"], "playing", "{ctx}");
        assert!(
            first["turn"]["seat"].is_u64(),
            "{ctx}: a game in play names whose turn: {first}"
        );
        assert_eq!(all[1]["status"], "waiting", "{ctx}");
        assert!(
            all[1]["turn"].is_null(),
            "{ctx}: a waiting game has no turn: {}",
            all[1]
        );

        let paged = list_all(app, ACME, "limit=2").await;
        assert_eq!(
            ids(&paged),
            newest_first,
            "{ctx}: pages of two, in order, nothing twice or lost"
        );
        let one = app.get_with_key("/v1/games?limit=5", ACME).await.json();
        assert!(
            one["next_cursor"].is_null(),
            "{ctx}: no next page after the last: {one}"
        );

        let only_waiting = list_all(app, ACME, "status=waiting&limit=1").await;
        assert_eq!(
            ids(&only_waiting),
            vec![newest_first[1].clone(), newest_first[3].clone()],
            "{ctx}: the status filter"
        );
        assert_eq!(
            ids(&list_all(app, BETA, "limit=3").await),
            vec![beta.as_str().expect("id").to_owned()],
            "{ctx}"
        );

        for (query, code) in [
            ("limit=0", "invalid_limit"),
            ("limit=201", "invalid_limit"),
            ("limit=-1", "invalid_query"),
            ("limit=ten", "invalid_query"),
            ("status=over", "invalid_status"),
            ("cursor=not-a-cursor", "invalid_cursor"),
            ("cursor=", "invalid_cursor"),
            ("page=2", "invalid_query"),
        ] {
            app.get_with_key(&format!("/v1/games?{query}"), ACME)
                .await
                .assert_problem(400, code, &format!("{ctx}: ?{query}"));
        }
        app.get("/v1/games")
            .await
            .assert_problem(401, "unauthorized", &format!("{ctx}: no key"));
        app.get_with_key("/v1/games", "wrong-secret-000000")
            .await
            .assert_problem(401, "unauthorized", &format!("{ctx}: a wrong key"));
    })
    .await;
}

/// A reissued token opens the seat; every earlier one is 401 at once, for reads and moves;
/// the game's version does not move; bots, open seats and unknown seats have no token.
#[actix_web::test]
async fn reissuing_a_seat_token() {
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        let ctx = format!("{backend:?}");
        let waiting = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}, {"open": true}, {"bot": true}]});
        let created = create_with(app, ACME, &waiting).await;
        let id = created["id"].as_str().expect("id");
        let old = created["seats"][1]["token"].as_str().expect("token");
        let view = format!("/v1/games/{id}");
        let before = app.get_as(&view, old).await;
        assert_eq!(status(&before), 200, "{ctx}");

        let reply = app.post_with_key(&format!("/v1/games/{id}/seats/1/token"), ACME_ROTATED, &json!({}), &[]).await;
        assert_eq!(status(&reply), 200, "{ctx}: {}", reply.text());
        let fresh = reply.json();
        assert_eq!((fresh["id"].as_str(), fresh["seat"].as_u64()), (Some(id), Some(1)), "{ctx}: {fresh}");
        let token = fresh["token"].as_str().expect("token");
        let now = app.get_as(&view, token).await;
        assert_eq!(status(&now), 200, "{ctx}: the new token opens the seat");
        assert_eq!(now.json()["you"]["seat"], 1, "{ctx}");
        assert_eq!(now.json()["version"], before.json()["version"], "{ctx}: a reissue is not a move");

        app.get_as(&view, old).await.assert_problem(401, "unauthorized", &format!("{ctx}: old token, view"));
        app.get_as(&format!("{view}/events"), old)
            .await
            .assert_problem(401, "unauthorized", &format!("{ctx}: old token, events"));
        app.post_as(&format!("{view}/leave"), old, &json!({}), &[])
            .await
            .assert_problem(401, "unauthorized", &format!("{ctx}: old token, a move"));
        let again = app.post_with_key(&format!("/v1/games/{id}/seats/1/token"), ACME, &json!({}), &[]).await.json();
        app.get_as(&view, token)
            .await
            .assert_problem(401, "unauthorized", &format!("{ctx}: the second reissue retires the first"));
        assert_eq!(status(&app.get_as(&view, again["token"].as_str().expect("token")).await), 200, "{ctx}");
        let ann = created["seats"][0]["token"].as_str().expect("token");
        assert_eq!(status(&app.get_as(&view, ann).await), 200, "{ctx}: another seat's token is untouched");

        for (seat, st, code, why) in [
            (2, 409, "seat_has_no_token", "an open seat"),
            (3, 409, "seat_has_no_token", "a bot's seat"),
            (4, 404, "seat_not_found", "past the last seat"),
            (200, 404, "seat_not_found", "far past the last seat"),
        ] {
            app.post_with_key(&format!("/v1/games/{id}/seats/{seat}/token"), ACME, &json!({}), &[])
                .await
                .assert_problem(st, code, &format!("{ctx}: {why}"));
        }
        app.post(&format!("/v1/games/{id}/seats/1/token"), &json!({}))
            .await
            .assert_problem(401, "unauthorized", &format!("{ctx}: no key"));
    })
    .await;
}

/// Two replicas on one database: a token reissued through one is refused by the other at once.
#[actix_web::test]
async fn a_reissue_retires_the_old_token_on_every_replica() {
    for backend in backends() {
        let first = TestApp::spawn_studio(&backend, None).await;
        let second = TestApp::spawn_studio(&backend, Some(first.database.clone())).await;
        let created = create_with(&first, ACME, &two_players_and_a_bot()).await;
        let id = created["id"].as_str().expect("id");
        let old = created["seats"][0]["token"].as_str().expect("token");
        let view = format!("/v1/games/{id}");
        assert_eq!(
            status(&second.get_as(&view, old).await),
            200,
            "{backend:?}: the other replica serves the game"
        );
        let fresh = first
            .post_with_key(&format!("/v1/games/{id}/seats/0/token"), ACME, &json!({}), &[])
            .await
            .json();
        second.get_as(&view, old).await.assert_problem(
            401,
            "unauthorized",
            &format!("{backend:?}: old token on the other replica"),
        );
        second
            .post_as(&format!("{view}/draw"), old, &json!({"source": "stock"}), &[])
            .await
            .assert_problem(401, "unauthorized", &format!("{backend:?}: nor may it act there"));
        let token = fresh["token"].as_str().expect("token");
        assert_eq!(
            status(&second.get_as(&view, token).await),
            200,
            "{backend:?}: the new token works there"
        );
        first.clean_up().await;
    }
}

/// A keyed operation of the document: `(method, path template, body)`.
type Keyed = (String, String, Vec<u8>);

/// Every operation the served document secures with `api_key` and that names a game (`{id}`
/// among its path parameters), with a minimal body where it takes one (the example the
/// document gives, else `{}`).
async fn keyed_game_operations(app: &TestApp) -> Vec<Keyed> {
    let reply = app.get("/api-docs/openapi.json").await;
    assert_eq!(status(&reply), 200, "the service serves its document");
    let doc = reply.json();
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("a path item") {
            let keyed = op["security"]
                .as_array()
                .is_some_and(|s| s.iter().any(|r| r.get("api_key").is_some()));
            if !keyed || !path.starts_with("/v1/games/{id}") {
                continue;
            }
            let body = match op.get("requestBody") {
                None => Vec::new(),
                Some(b) => {
                    let json = &b["content"]["application/json"];
                    let example = json.get("example").cloned().unwrap_or_else(|| json!({}));
                    serde_json::to_vec(&example).expect("JSON")
                }
            };
            out.push((method.to_uppercase(), path.clone(), body));
        }
    }
    out
}

/// `method path` with `{id}` = `id` and `{seat}` = `seat`, with server key `key`.
async fn on_game(app: &TestApp, (method, path, body): &Keyed, id: &str, seat: u8, key: &str) -> Reply {
    let path = path.replace("{id}", id).replace("{seat}", &seat.to_string());
    assert!(
        !path.contains('{'),
        "{method} {path}: a path parameter this test does not know how to fill"
    );
    let body = (!body.is_empty()).then_some(body.as_slice());
    app.send(method, &path, body, &[("x-api-key", key)]).await
}

/// The headers of a reply but those that differ between any two replies (`date`, and the
/// per-request `x-request-id`).
fn lasting_headers(reply: &Reply) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = reply
        .headers
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "date" | "x-request-id"))
        .map(|(k, v)| {
            (
                k.as_str().to_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    out.sort();
    out
}

/// Every endpoint that takes a server key (taken from the served OpenAPI document, so a new
/// one is checked without a change here) answers another tenant's game exactly as a game
/// that does not exist: 404, same code, same headers, the same body byte for byte; and the
/// listing never shows it. The timing cannot tell them apart either: each finds the game by
/// id *and* tenant in one statement (`Store::game_in`, `Store::transact_in`), with no earlier
/// branch on whether the id exists.
#[actix_web::test]
async fn another_tenants_game_is_not_there() {
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        let ours = create_with(app, ACME, &two_players_and_a_bot()).await;
        let id = ours["id"].as_str().expect("id");
        let unknown = uuid::Uuid::new_v4().to_string();
        let operations = keyed_game_operations(app).await;
        let named: Vec<(&str, &str)> = operations
            .iter()
            .map(|(m, p, _)| (m.as_str(), p.as_str()))
            .collect();
        for known in [
            ("POST", "/v1/games/{id}/seats/{seat}/token"),
            ("POST", "/v1/games/{id}/spectators"),
            ("GET", "/v1/games/{id}/webhook"),
        ] {
            assert!(
                named.contains(&known),
                "{backend:?}: the document secures {known:?} with api_key: {named:?}"
            );
        }
        // Seat 0 exists in the game; seat 9 does not: the tenant is checked before the seat.
        for seat in [0, 9] {
            for op in &operations {
                let ctx = format!("{backend:?}: {} {} (seat {seat})", op.0, op.1);
                let theirs = on_game(app, op, id, seat, BETA).await;
                let none = on_game(app, op, &unknown, seat, BETA).await;
                theirs.assert_problem(404, "game_not_found", &format!("{ctx}, another tenant's game"));
                none.assert_problem(404, "game_not_found", &format!("{ctx}, no game"));
                assert_eq!(
                    Reply::without(&theirs, id),
                    Reply::without(&none, &unknown),
                    "{ctx}: the same body"
                );
                assert_eq!(
                    lasting_headers(&theirs),
                    lasting_headers(&none),
                    "{ctx}: the same headers"
                );
            }
        }
        let seat_token = ours["seats"][0]["token"].as_str().expect("token");
        assert_eq!(
            status(&app.get_as(&format!("/v1/games/{id}"), seat_token).await),
            200,
            "{backend:?}: another tenant's attempts reissued no token"
        );
        for op in &operations {
            let ctx = format!("{backend:?}: {} {}", op.0, op.1);
            let own = on_game(app, op, id, 1, ACME).await;
            let own_code = if status(&own) >= 400 {
                own.json()["code"].clone()
            } else {
                Value::Null
            };
            assert_ne!(own_code, "game_not_found", "{ctx}: the owner reaches the game");
        }
        let listed = list_all(app, BETA, "limit=200").await;
        assert!(
            !ids(&listed).contains(&id.to_owned()),
            "{backend:?}: not in another tenant's listing"
        );
    })
    .await;
}

/// A spectator token reads the view with no `you` and no hand, and every action is 403.
#[actix_web::test]
async fn a_spectator_reads_and_never_acts() {
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        let ctx = format!("{backend:?}");
        let created = create_with(app, ACME, &two_players_and_a_bot()).await;
        let id = created["id"].as_str().expect("id");
        let reply = app
            .post_with_key(&format!("/v1/games/{id}/spectators"), ACME, &json!({}), &[])
            .await;
        assert_eq!(status(&reply), 200, "{ctx}: {}", reply.text());
        let spectator = reply.json()["token"].as_str().expect("token").to_owned();
        let view = app.get_as(&format!("/v1/games/{id}"), &spectator).await;
        assert_eq!(status(&view), 200, "{ctx}: {}", view.text());
        let view = view.json();
        assert!(view["you"].is_null(), "{ctx}: a spectator has no seat: {view}");
        assert_eq!(view["legal_actions"], json!([]), "{ctx}: nor any action");
        for p in view["players"].as_array().expect("players") {
            assert!(p.get("hand").is_none(), "{ctx}: no player shows a hand: {p}");
            assert!(
                p["hand_count"].as_u64().is_some_and(|n| n > 0),
                "{ctx}: only counts: {p}"
            );
        }
        let events = app
            .get_as(&format!("/v1/games/{id}/events"), &spectator)
            .await
            .json();
        let dealt: Vec<&Value> = events["events"]
            .as_array()
            .expect("events")
            .iter()
            .map(|e| &e["event"])
            .filter(|e| e["type"] == "dealt")
            .collect();
        assert_eq!(dealt.len(), 3, "{ctx}: a deal to each seat: {events}");
        assert!(
            dealt.iter().all(|e| e["cards"].is_null()),
            "{ctx}: no dealt card is shown: {dealt:?}"
        );

        let seat_token = created["seats"][0]["token"].as_str().expect("token");
        let version = app.get_as(&format!("/v1/games/{id}"), seat_token).await.json()["version"].clone();
        let moves: [(&str, Value); 10] = [
            ("draw", json!({"source": "stock"})),
            ("claims", json!({})),
            ("melds", json!({"melds": [{"cards": ["7H", "7S", "7D"]}]})),
            ("layoffs", json!({"meld_id": 1, "cards": ["7C"]})),
            ("swaps", json!({"meld_id": 1, "card": "7C"})),
            ("take_back", json!({"play": 0})),
            ("discard", json!({"card": "7H"})),
            ("leave", json!({})),
            ("suspend", json!({})),
            ("resume", json!({})),
        ];
        for (path, body) in moves {
            let reply = app
                .post_as(&format!("/v1/games/{id}/{path}"), &spectator, &body, &[])
                .await;
            reply.assert_problem(403, "forbidden", &format!("{ctx}: a spectator may not {path}"));
        }
        app.get_as(&format!("/v1/games/{id}/hints"), &spectator)
            .await
            .assert_problem(403, "forbidden", &format!("{ctx}: hints are a seat's"));
        let other = create_with(app, ACME, &two_players_and_a_bot()).await;
        let other_id = other["id"].as_str().expect("id");
        app.get_as(&format!("/v1/games/{other_id}"), &spectator)
            .await
            .assert_problem(
                403,
                "forbidden",
                &format!("{ctx}: a spectator token of another game"),
            );
        let view = app.get_as(&format!("/v1/games/{id}"), seat_token).await;
        assert_eq!(
            view.json()["version"],
            version,
            "{ctx}: nothing the spectator tried changed the game"
        );
    })
    .await;
}

/// What every seat sees alike: equal values stay, anything that differs between seats (a
/// card only its holder sees) becomes null. A spectator must see exactly this.
fn common(values: &[&Value]) -> Value {
    let Some(first) = values.first() else {
        return Value::Null;
    };
    if values.iter().all(|v| v.is_object()) {
        let mut keys: Vec<&String> = values
            .iter()
            .flat_map(|v| v.as_object().into_iter().flat_map(|o| o.keys()))
            .collect();
        keys.sort();
        keys.dedup();
        let object = keys
            .into_iter()
            .map(|k| {
                let parts: Vec<&Value> = values.iter().map(|v| v.get(k).unwrap_or(&Value::Null)).collect();
                (k.clone(), common(&parts))
            })
            .collect();
        return Value::Object(object);
    }
    let same_len = |v: &&Value| v.as_array().map(Vec::len) == first.as_array().map(Vec::len);
    if values.iter().all(|v| v.is_array()) && values.iter().all(same_len) {
        let len = first.as_array().map_or(0, Vec::len);
        return Value::Array(
            (0..len)
                .map(|i| common(&values.iter().map(|v| &v[i]).collect::<Vec<_>>()))
                .collect(),
        );
    }
    if values.iter().all(|v| v == first) {
        (*first).clone()
    } else {
        Value::Null
    }
}

/// Drops what is a viewer's own from a view: `you` and what it may do.
fn shared_part(view: &Value) -> Value {
    let mut v = view.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("you");
        o.remove("legal_actions");
    }
    v
}

/// Every event of game `id` as `token` reads it: `(seq, event)`.
async fn all_events(app: &TestApp, id: &str, token: &str) -> Vec<(i64, Value)> {
    app.log_as(id, token)
        .await
        .into_iter()
        .map(|e| (e.seq, e.event))
        .collect()
}

/// The members of an event that hold a card of a hand (`null` for whoever does not hold it):
/// a dealt hand, a card drawn from the stock, the face-down stock card of a push, a "May I?"
/// penalty card.
fn private_cards(event: &Value) -> Option<&Value> {
    match event["type"].as_str()? {
        "dealt" => Some(&event["cards"]),
        "drew" if event["source"] == "stock" => Some(&event["card"]),
        "pushed" => Some(&event["stock"]),
        "claim_won" => Some(&event["penalty"]),
        _ => None,
    }
}

/// A whole game of every variant (with its usual number of seats, all played through the
/// service by the engine's bot), with a spectator reading after every step: its view is
/// exactly what every seat sees alike, and each new event hides every card of a hand; at the
/// end its whole event log, and the live stream it opened at the start, are what every seat
/// sees alike. So no card of a hand (dealt, drawn from the stock, pushed face down, taken as a
/// penalty) reaches it before the table shows it. Hints are a seat's: 403.
#[actix_web::test]
async fn a_spectator_sees_no_hand_during_a_whole_game() {
    use engine::{Status, Variant};
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        for (variant, players) in [
            (Variant::MayI, 3),
            (Variant::Contract7, 3),
            (Variant::Continental, 2),
            (Variant::Push, 4),
        ] {
            let started = std::time::Instant::now();
            let ctx = format!("{backend:?} {variant}");
            let seed = 20_261_123_u64;
            // A sorted first deal keeps the bots' games short; `continental` (one deal by
            // default) would go out at once with it, so it gets the seed's shuffle.
            let (stacked, stacked_json) = if variant == Variant::Continental {
                (None, Value::Null)
            } else {
                let (s, j) = sorted_first_deal(variant, players);
                (Some(s), json!(j))
            };
            let names = ["Ann", "Bob", "Cleo", "Dan"];
            let seats: Vec<Value> = names[..players].iter().map(|n| json!({"name": n})).collect();
            let mut body = json!({"variant": variant.id(), "seats": seats, "seed": seed, "first_dealer": 0});
            if !stacked_json.is_null() {
                body["stacked_decks"] = stacked_json;
            }
            let table = Table::of_created(&create_with(app, ACME, &body).await);
            let (id, tokens) = (table.id.clone(), table.tokens.clone());
            let spectator = app
                .post_with_key(&format!("/v1/games/{id}/spectators"), ACME, &json!({}), &[])
                .await
                .json()["token"]
                .as_str()
                .expect("token")
                .to_owned();
            app.get_as(&format!("/v1/games/{id}/hints"), &spectator)
                .await
                .assert_problem(403, "forbidden", &format!("{ctx}: hints are a seat's"));
            let mut live = app.stream(&id, &spectator, "?after=0", &[]).await;
            let mut game = local_game(variant, players, seed, stacked);
            let mut watched_events: Vec<(i64, Value)> = Vec::new();
            let mut steps = 0;
            for step in 0..20_000 {
                steps = step;
                // The spectator's view is the seats' shared part, with no `you` and no action.
                let mut views = Vec::new();
                for t in &tokens {
                    views.push(shared_part(
                        &app.get_as(&format!("/v1/games/{id}"), t).await.json(),
                    ));
                }
                let watched = app.get_as(&format!("/v1/games/{id}"), &spectator).await.json();
                assert!(watched["you"].is_null(), "{ctx} step {step}: {watched}");
                assert_eq!(watched["legal_actions"], json!([]), "{ctx} step {step}");
                assert_eq!(
                    shared_part(&watched),
                    common(&views.iter().collect::<Vec<_>>()),
                    "{ctx} step {step}: the spectator's view is what every seat sees alike"
                );
                // Its new events hide every card of a hand.
                let seen = watched_events.last().map_or(0, |(seq, _)| *seq);
                for e in app.events_page(&id, &spectator, seen).await.events {
                    let (seq, event) = (e.seq, e.event);
                    if let Some(cards) = private_cards(&event) {
                        assert!(
                            cards.is_null(),
                            "{ctx} step {step}, event {seq}: a card of a hand: {event}"
                        );
                    }
                    watched_events.push((seq, event));
                }
                if game.status() != Status::Playing {
                    break;
                }
                let (seat, _) = game.turn().expect("someone is in turn while playing");
                let action = game
                    .bot_choice(seat, engine::bot::Level::Normal)
                    .expect("the bot has a move");
                app.act(&table, usize::from(seat.0), &action, &[])
                    .await
                    .ok(&format!("{ctx} step {step}"));
                game = game.apply(seat, action).expect("the engine accepts it").0;
            }
            assert_eq!(
                game.status(),
                Status::Finished,
                "{ctx}: the game was played to its end"
            );
            let last = app.get_as(&format!("/v1/games/{id}"), &spectator).await.json();
            assert_eq!(last["status"], "finished", "{ctx}: the spectator sees the end");

            // The whole log: what every seat sees alike, and nothing more.
            let mut theirs = Vec::new();
            for t in &tokens {
                theirs.push(all_events(app, &id, t).await);
            }
            assert_eq!(
                watched_events,
                all_events(app, &id, &spectator).await,
                "{ctx}: read step by step or at the end, the same log"
            );
            for (i, (seq, event)) in watched_events.iter().enumerate() {
                assert!(
                    theirs.iter().all(|t| t[i].0 == *seq),
                    "{ctx}: the same events for all"
                );
                let each: Vec<&Value> = theirs.iter().map(|t| &t[i].1).collect();
                assert_eq!(*event, common(&each), "{ctx}: event {seq}: no private card");
            }
            let private = watched_events
                .iter()
                .filter(|(_, e)| private_cards(e).is_some())
                .count();
            assert!(
                private > players,
                "{ctx}: the scan met hidden cards ({private} events)"
            );
            if variant == Variant::Push {
                let pushes: Vec<usize> = watched_events
                    .iter()
                    .enumerate()
                    .filter(|(_, (_, e))| e["type"] == "pushed")
                    .map(|(i, _)| i)
                    .collect();
                assert!(!pushes.is_empty(), "{ctx}: the game had pushes");
                for i in pushes {
                    let to = theirs[0][i].1["to"].as_u64().expect("to");
                    let held = &theirs[usize::try_from(to).expect("a seat")][i].1;
                    assert!(
                        held["stock"].is_string(),
                        "{ctx}: the receiver sees the pushed stock card: {held}"
                    );
                }
            }
            // The stream opened before the first move says what the log says.
            let last_seq = watched_events.last().expect("events").0;
            let streamed: Vec<(i64, Value)> = live
                .until(last_seq)
                .await
                .into_iter()
                .map(|e| {
                    (
                        e.id.expect("an event's id"),
                        serde_json::from_str(&e.data).expect("JSON data"),
                    )
                })
                .collect();
            assert_eq!(
                streamed, watched_events,
                "{ctx}: the live stream says what the log says"
            );
            eprintln!(
                "{ctx}: the spectator watched {steps} steps, {last_seq} events, in {:?}",
                started.elapsed()
            );
        }
    })
    .await;
}

/// The listing's query is answered from the tenant indexes (keyset, no sort, no scan of
/// other tenants' games), with and without a status filter or a cursor, on both databases.
#[actix_web::test]
async fn the_listing_is_served_by_an_index() {
    use continental::config::DatabaseSettings;
    use continental::domain::GameStatus;
    use continental::store::{Cursor, GameListing, list_sql};
    use sqlx::{Connection, Row};
    let cursor = Cursor {
        created_us: 1,
        id: uuid::Uuid::nil(),
    };
    let listings = [
        (None, None),
        (Some(GameStatus::Playing), None),
        (None, Some(cursor)),
        (Some(GameStatus::Waiting), Some(cursor)),
    ];
    for backend in backends() {
        let app = TestApp::spawn_studio(&backend, None).await;
        for (status, after) in listings {
            let listing = GameListing {
                player: None,
                status,
                limit: 50,
                after,
            };
            let sql = list_sql(&listing);
            let ctx = format!("{backend:?}: {sql}");
            let plan: String = match &app.database {
                DatabaseSettings::Postgres { url } => {
                    let mut conn = sqlx::PgConnection::connect(url).await.expect("connect");
                    // On Citus, the settings below go to the workers too, which plan each
                    // shard's part (only SET LOCAL is passed on, so in a transaction).
                    let local = if backend == Backend::Citus {
                        for sql in ["BEGIN", "SET LOCAL citus.propagate_set_commands TO 'local'"] {
                            sqlx::query(sql).execute(&mut conn).await.expect("a transaction");
                        }
                        "LOCAL "
                    } else {
                        ""
                    };
                    // An empty table is best read whole and sorted, whatever the indexes: ask
                    // whether an index can give the page in order when nothing else may.
                    for off in ["enable_seqscan", "enable_bitmapscan", "enable_sort"] {
                        sqlx::query(sqlx::AssertSqlSafe(format!("SET {local}{off} = off")))
                            .execute(&mut conn)
                            .await
                            .expect("set");
                    }
                    let mut query = sqlx::query(sqlx::AssertSqlSafe(format!("EXPLAIN {sql}"))).bind("acme");
                    if status.is_some() {
                        query = query.bind("x");
                    }
                    if let Some(c) = after {
                        query = query.bind(c.created_us).bind(c.id);
                    }
                    let rows = query.bind(51_i64).fetch_all(&mut conn).await.expect("explain");
                    rows.iter()
                        .map(|r| r.get::<String, _>(0))
                        .collect::<Vec<_>>()
                        .join("\n")
                }
                DatabaseSettings::Sqlite { path } => {
                    let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite:{path}"))
                        .await
                        .expect("connect");
                    let mut query =
                        sqlx::query(sqlx::AssertSqlSafe(format!("EXPLAIN QUERY PLAN {sql}"))).bind("acme");
                    if status.is_some() {
                        query = query.bind("x");
                    }
                    if let Some(c) = after {
                        query = query.bind(c.created_us).bind(c.id);
                    }
                    let rows = query.bind(51_i64).fetch_all(&mut conn).await.expect("explain");
                    rows.iter()
                        .map(|r| r.get::<String, _>("detail"))
                        .collect::<Vec<_>>()
                        .join("\n")
                }
            };
            let index = if status.is_some() {
                "games_by_tenant_status"
            } else {
                "games_by_tenant"
            };
            assert!(plan.contains(index), "{ctx}: served by {index}:\n{plan}");
            // On Citus each shard's page comes from its index in order; the coordinator then
            // merges one page from each shard (a sort of at most that many rows).
            let per_shard = match plan.split_once("->  Task") {
                Some((_, task)) if backend == Backend::Citus => task,
                _ => plan.as_str(),
            };
            assert!(
                !per_shard.to_lowercase().contains("sort"),
                "{ctx}: no sort step, the index is in order:\n{plan}"
            );
        }
        app.clean_up().await;
    }
}

/// Neither a server key nor a seat, spectator or webhook secret reaches the service's log,
/// with every line written (`RUST_LOG=debug`): the binary is run as a process and all it
/// writes, stdout and stderr, is searched after creating, listing, reissuing, watching,
/// playing, a wrong key and another tenant's key.
#[actix_web::test]
async fn no_secret_or_token_reaches_the_log() {
    use crate::helpers::{Binary, STUDIO_KEYS, drop_database, fresh_database};
    const WRONG: &str = "acme-secret-0000000009";
    const JWT_SECRET: &str = "jwt-secret-of-the-log-test-0123456789";
    for backend in backends() {
        let database = fresh_database(&backend).await;
        let mut service = Binary::start_testing(
            &database,
            &[
                ("CONTINENTAL_API_KEYS", STUDIO_KEYS),
                ("CONTINENTAL_JWT_SECRET", JWT_SECRET),
                ("RUST_LOG", "debug"),
            ],
        )
        .await;
        let send = async |method: &str, path: &str, headers: &[(&str, &str)], body: Option<Value>| {
            let body = body.map(|b| b.to_string().into_bytes());
            let reply = service.send(method, path, body.as_deref(), headers).await;
            (
                reply.status.as_u16(),
                serde_json::from_slice::<Value>(&reply.body).unwrap_or(Value::Null),
            )
        };
        let ctx = format!("{backend:?}");
        // A webhook to a closed port: its deliveries fail, and their failures are logged.
        let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}, {"bot": true}],
            "seed": 7, "first_dealer": 0, "webhook_url": "http://127.0.0.1:9/hook"});
        let (st, created) = send("POST", "/v1/games", &[("x-api-key", ACME)], Some(body.clone())).await;
        assert_eq!(st, 201, "{ctx}: {created}");
        let id = created["id"].as_str().expect("id").to_owned();
        let mut secrets: Vec<(String, &str)> = vec![
            (ACME.into(), "a server key"),
            (ACME_ROTATED.into(), "a server key"),
            (BETA.into(), "a server key"),
            (WRONG.into(), "a wrong server key"),
            (JWT_SECRET.into(), "the token secret"),
        ];
        let hook = created["webhook_secret"].as_str().expect("a webhook secret");
        secrets.push((hook.to_owned(), "a webhook secret"));
        secrets.push((hook.trim_start_matches("whsec_").to_owned(), "a webhook key"));
        let mut tokens: Vec<String> = (0..2)
            .map(|i| created["seats"][i]["token"].as_str().expect("token").to_owned())
            .collect();
        let (st, _) = send("POST", "/v1/games", &[("x-api-key", WRONG)], Some(body.clone())).await;
        assert_eq!(st, 401, "{ctx}: a wrong key");
        let (st, _) = send("GET", "/v1/games", &[("x-api-key", WRONG)], None).await;
        assert_eq!(st, 401, "{ctx}: a wrong key lists nothing");
        let (st, _) = send("GET", "/v1/games?limit=10", &[("x-api-key", ACME_ROTATED)], None).await;
        assert_eq!(st, 200, "{ctx}: a listing");
        let (st, _) = send(
            "POST",
            &format!("/v1/games/{id}/spectators"),
            &[("x-api-key", BETA)],
            None,
        )
        .await;
        assert_eq!(st, 404, "{ctx}: another tenant");
        let (st, reissued) = send(
            "POST",
            &format!("/v1/games/{id}/seats/1/token"),
            &[("x-api-key", ACME)],
            None,
        )
        .await;
        assert_eq!(st, 200, "{ctx}: {reissued}");
        tokens.push(reissued["token"].as_str().expect("token").to_owned());
        let (st, watcher) = send(
            "POST",
            &format!("/v1/games/{id}/spectators"),
            &[("x-api-key", ACME)],
            None,
        )
        .await;
        assert_eq!(st, 200, "{ctx}: {watcher}");
        tokens.push(watcher["token"].as_str().expect("token").to_owned());
        for token in &tokens {
            let bearer = format!("Bearer {token}");
            let auth = [("authorization", bearer.as_str())];
            send("GET", &format!("/v1/games/{id}"), &auth, None).await;
            send("GET", &format!("/v1/games/{id}/events?after=0"), &auth, None).await;
            send(
                "POST",
                &format!("/v1/games/{id}/draw"),
                &auth,
                Some(json!({"source": "stock"})),
            )
            .await;
        }
        // The webhook's failures are among the lines searched.
        service.lines_saying("webhook failed; will retry").await;
        service.kill();
        let log = service.output();
        assert!(
            log.contains("\"level\":\"DEBUG\""),
            "{ctx}: every line is written: {}",
            &log[..log.len().min(2000)]
        );
        assert!(
            log.contains(&id),
            "{ctx}: the lines about the game are there to search"
        );
        for token in &tokens {
            // A token's signature is what makes it: no part of it may be logged.
            let signature = token.rsplit('.').next().expect("a JWT");
            secrets.push((signature.to_owned(), "a token's signature"));
            secrets.push((token.clone(), "a token"));
        }
        for (secret, what) in &secrets {
            let line = log.lines().find(|l| l.contains(secret.as_str()));
            assert!(line.is_none(), "{ctx}: {what} is in the log: {line:?}");
        }
        eprintln!("{ctx}: {} log lines searched", log.lines().count());
        drop_database(&database).await;
    }
}

/// docs/api.md#listing: `limit` is 50 when not given; the page always has `next_cursor` (null on
/// the last page) and each game `turn` (null while waiting), as the document's schema shows; a
/// cursor matches the pattern the document states.
#[actix_web::test]
async fn listing_defaults_as_documented() {
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        let ctx = format!("{backend:?}");
        let waiting = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"open": true}, {"bot": true}]});
        for _ in 0..51 {
            create_with(app, ACME, &waiting).await;
        }
        let page = app.get_with_key("/v1/games", ACME).await.json();
        assert_eq!(
            page["games"].as_array().map(Vec::len),
            Some(50),
            "{ctx}: 50 games when no limit is given"
        );
        let doc = crate::helpers::document();
        let params = doc["paths"]["/v1/games"]["get"]["parameters"]
            .as_array()
            .expect("parameters");
        let cursor_schema = params.iter().find(|p| p["name"] == "cursor").expect("cursor")["schema"].clone();
        assert_eq!(
            cursor_schema["pattern"], "^[A-Za-z0-9_-]{64}$",
            "{ctx}: the documented cursor"
        );
        let cursor = page["next_cursor"].as_str().expect("a next page");
        assert!(
            cursor.len() == 64
                && cursor
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
            "{ctx}: the cursor matches the documented pattern: {cursor}"
        );
        let last = app
            .get_with_key(&format!("/v1/games?cursor={cursor}"), ACME)
            .await
            .json();
        assert_eq!(last["games"].as_array().map(Vec::len), Some(1), "{ctx}: {last}");
        assert_eq!(
            last.get("next_cursor"),
            Some(&Value::Null),
            "{ctx}: the last page says null: {last}"
        );
        assert_eq!(
            last["games"][0].get("turn"),
            Some(&Value::Null),
            "{ctx}: a waiting game's turn is null: {last}"
        );
        assert_eq!(
            last["games"][0]["seats"][1],
            json!({"seat": 1, "name": null, "kind": "open"}),
            "{ctx}: an open seat: {last}"
        );
    })
    .await;
}
