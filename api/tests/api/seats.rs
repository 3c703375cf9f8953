//! Open seats, joining, bots, test mode, the event stream and hints.

use futures_util::StreamExt;
use futures_util::future::join_all;
use serde_json::json;

use crate::helpers::{Backend, Spawn, TestApp, create};
use crate::on_every_backend;

async fn joining_open_seats(app: &TestApp) {
    let created = app
        .post(
            "/v1/games",
            &json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"open": true}, {"open": true}]}),
        )
        .await;
    assert_eq!(created.status.as_u16(), 201, "{}", created.text());
    assert!(created.header("location").is_some(), "201 names the game's URL");
    let v = created.json();
    assert_eq!(v["status"], "waiting", "open seats: the game waits");
    assert!(v["seats"][1].get("token").is_none(), "no token for an open seat");
    assert!(
        v["seed_commitment"].as_str().is_some_and(|c| c.len() == 64),
        "a seed commitment: {v}"
    );
    let id = v["id"].as_str().expect("id");
    let ann = v["seats"][0]["token"].as_str().expect("token");
    let waiting = app.get_as(&format!("/v1/games/{id}"), ann).await.json();
    assert_eq!(waiting["status"], "waiting", "{waiting}");
    assert_eq!(waiting["legal_actions"], json!([]), "nothing to do while waiting");
    let early = app
        .post_as(
            &format!("/v1/games/{id}/draw"),
            ann,
            &json!({"source": "stock"}),
            &[],
        )
        .await;
    early.assert_problem(409, "game_not_started", "no moves before every seat is taken");

    let bob = app
        .post(&format!("/v1/games/{id}/join"), &json!({"name": "Bob"}))
        .await
        .json();
    assert_eq!(
        (bob["seat"].as_u64(), bob["status"].as_str()),
        (Some(1), Some("waiting")),
        "{bob}"
    );
    // Twenty people race for the last seat: exactly one gets it.
    let join = format!("/v1/games/{id}/join");
    let bodies: Vec<_> = (0..20).map(|i| json!({"name": format!("C{i}")})).collect();
    let replies = join_all(bodies.iter().map(|b| app.post(&join, b))).await;
    let winners: Vec<_> = replies.iter().filter(|r| r.status.as_u16() == 200).collect();
    assert_eq!(winners.len(), 1, "one seat, one winner");
    for r in replies.iter().filter(|r| r.status.as_u16() != 200) {
        r.assert_problem(409, "no_open_seat", "the losers are told the table is full");
    }
    let last = winners[0].json();
    assert_eq!(last["status"], "playing", "the last join deals");
    let view = app
        .get_as(&format!("/v1/games/{id}"), last["token"].as_str().expect("token"))
        .await
        .json();
    assert_eq!(view["you"]["seat"], 2, "the token is for the seat taken");
    assert_eq!(
        view["you"]["hand"].as_array().map(Vec::len),
        Some(12),
        "§2: twelve cards dealt"
    );
    let bad = app
        .post(&format!("/v1/games/{id}/join"), &json!({"name": "  "}))
        .await;
    bad.assert_problem(400, "invalid_name", "a blank name");
    let missing = app
        .post(
            &format!("/v1/games/{}/join", uuid::Uuid::new_v4()),
            &json!({"name": "Z"}),
        )
        .await;
    missing.assert_problem(404, "game_not_found", "joining a game that does not exist");
}
on_every_backend!(joining_open_seats_on_every_backend, joining_open_seats);

async fn bots_play_their_turns(app: &TestApp) {
    // A fixed seed: with a random deal a bot may go out at once, and the counts below would
    // depend on the shuffle.
    let created = app
        .post("/v1/games", &json!({"variant": "contract_7", "seats": [{"name": "Ann"}, {"bot": true}, {"bot": true}], "first_dealer": 0, "seed": 7}))
        .await
        .json();
    let id = created["id"].as_str().expect("id");
    let ann = created["seats"][0]["token"].as_str().expect("token");
    assert_eq!(created["seats"][1]["kind"], "bot", "{created}");
    // Seat 0 dealt: seat 1 (a bot) leads; both bots play, at their pace, up to the person.
    let table = crate::helpers::Table::of_created(&created);
    let view = app.when_in_turn(&table, 0, 0).await;
    assert!(
        view["version"].as_i64().is_some_and(|v| v >= 5),
        "each of the bots' actions counts (two bots drew and discarded: at least 4 past \
         version 1): {view}"
    );
    let events = app.get_as(&format!("/v1/games/{id}/events"), ann).await.json();
    let discards = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["event"]["type"] == "discarded")
        .count();
    assert_eq!(discards, 2, "each bot drew and discarded: {events}");
    // Ann plays a turn; both bots answer after her request, at their pace.
    let drew = app
        .post_as(
            &format!("/v1/games/{id}/draw"),
            ann,
            &json!({"source": "stock"}),
            &[],
        )
        .await
        .json();
    let card = drew["legal_actions"]
        .as_array()
        .expect("legal actions")
        .iter()
        .find(|a| a["type"] == "discard")
        .and_then(|a| a["cards"][0].as_str())
        .expect("a card to discard")
        .to_owned();
    let after = app
        .post_as(
            &format!("/v1/games/{id}/discard"),
            ann,
            &json!({"card": card}),
            &[],
        )
        .await
        .json();
    assert_eq!(
        after["turn"]["seat"], 1,
        "Ann's request does not wait for the bots: {after}"
    );
    app.when_in_turn(&table, 0, 0).await;
}
on_every_backend!(bots_play_their_turns_on_every_backend, bots_play_their_turns);

#[actix_web::test]
async fn test_mode_fields_are_refused_outside_test_mode() {
    let app = TestApp::spawn_with(&Backend::Sqlite, Spawn::default()).await;
    let cases = [
        ("seed", json!(1)),
        ("first_dealer", json!(0)),
        ("stacked_decks", json!([])),
    ];
    assert_eq!(
        cases.clone().map(|(field, _)| field),
        continental::wire::CreateGameRequest::TEST_MODE_FIELDS,
        "every test-mode field is tried"
    );
    for (field, value) in cases {
        let mut body = json!({"variant": "may_i", "seats": [{"name": "A"}, {"name": "B"}]});
        body[field] = value;
        app.post("/v1/games", &body)
            .await
            .assert_problem(400, "test_mode_only", field);
    }
    let plain = app
        .post(
            "/v1/games",
            &json!({"variant": "may_i", "seats": [{"name": "A"}, {"name": "B"}]}),
        )
        .await;
    assert_eq!(plain.status.as_u16(), 201, "a game without them is fine");
    app.clean_up().await;
}

#[actix_web::test]
async fn creation_is_checked() {
    let app = TestApp::spawn(&Backend::Sqlite).await;
    let rows = [
        (
            json!({"variant": "push", "seats": [{"name": "A"}, {"name": "B"}]}),
            "player_count",
            "§5: push is four players",
        ),
        (
            json!({"variant": "may_i", "seats": [{"name": "A"}, {}]}),
            "invalid_seat",
            "a seat must be named, open or a bot",
        ),
        (
            json!({"variant": "may_i", "seats": [{"name": "A"}, {"open": true, "bot": true}]}),
            "invalid_seat",
            "not both",
        ),
        (
            json!({"variant": "may_i", "seats": [{"name": "A"}, {"name": "B"}], "first_dealer": 5}),
            "invalid_first_dealer",
            "no seat 5",
        ),
        (
            json!({"variant": "may_i", "seats": [{"name": "A"}, {"name": "B"}], "stacked_decks": [["7H"]]}),
            "invalid_stacked_deck",
            "not a full pack",
        ),
        (
            json!({"variant": "may_i", "options": {"bonuses": false}, "seats": [{"name": "A"}, {"name": "B"}]}),
            "invalid_options",
            "an option of another variant",
        ),
    ];
    // Each body has a shape the document allows: the variant's rules refuse it.
    for (body, code, what) in rows {
        app.post("/v1/games", &body).await.assert_problem(422, code, what);
    }
    app.clean_up().await;
}

async fn event_stream_and_hints(app: &TestApp) {
    let table = create(app, "may_i", 3, 9, json!({})).await;
    let url = format!("{}/v1/games/{}/stream", app.address, table.id);
    let mut res = app
        .client
        .get(&url)
        .insert_header(("authorization", format!("Bearer {}", table.tokens[0])))
        .send()
        .await
        .expect("the stream opens");
    assert_eq!(res.status().as_u16(), 200, "SSE answers 200");
    assert_eq!(
        res.headers().get("content-type").and_then(|v| v.to_str().ok()),
        Some("text/event-stream"),
        "as text/event-stream"
    );
    let first = tokio::time::timeout(std::time::Duration::from_secs(10), res.next())
        .await
        .expect("events arrive")
        .expect("a chunk")
        .expect("readable");
    let text = String::from_utf8_lossy(&first).into_owned();
    assert!(
        text.starts_with("id: 1\n"),
        "events carry their sequence number as id: {text}"
    );
    assert!(text.contains("event: dealt"), "and their type: {text}");
    let dealt: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<serde_json::Value>(d).ok())
        .filter(|e| e["type"] == "dealt")
        .collect();
    let cards_of = |seat: u64| {
        dealt
            .iter()
            .find(|e| e["seat"] == seat)
            .map(|e| e["cards"].clone())
    };
    assert!(
        cards_of(0).is_some_and(|c| c.is_array()),
        "seat 0 sees its own hand dealt: {text}"
    );
    assert_eq!(
        cards_of(1),
        Some(serde_json::Value::Null),
        "another seat's hand is hidden in the stream too: {text}"
    );

    let hints = app
        .get_as(&format!("/v1/games/{}/hints", table.id), &table.tokens[0])
        .await;
    assert_eq!(hints.status.as_u16(), 200, "{}", hints.text());
    let h = hints.json();
    assert!(
        h.get("contract").is_some() && h["layoffs"].is_array(),
        "hints name the contract and lay-offs: {h}"
    );
    if let Some(melds) = h["contract"].as_array() {
        assert_eq!(melds.len(), 2, "§2 deal 1: the hint is two sets: {h}");
        assert!(melds.iter().all(|m| m["kind"] == "set"), "{h}");
    }
}
on_every_backend!(event_stream_and_hints_on_every_backend, event_stream_and_hints);

/// A seated player may give up their seat before the deal: the seat opens again, and their
/// token no longer opens it (401, as a replaced token), not even once someone else has taken it.
async fn leaving_before_the_start_reopens_the_seat(app: &TestApp) {
    let created = app
        .post(
            "/v1/games",
            &json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}, {"open": true}]}),
        )
        .await
        .json();
    let id = created["id"].as_str().expect("id");
    let bob = created["seats"][1]["token"].as_str().expect("token");
    let left = app
        .post_as(&format!("/v1/games/{id}/leave"), bob, &json!({}), &[])
        .await;
    assert_eq!(left.status.as_u16(), 200, "{}", left.text());
    app.get_as(&format!("/v1/games/{id}"), bob).await.assert_problem(
        401,
        "unauthorized",
        "the seat given up no longer answers to its token",
    );
    let cleo = app
        .post(&format!("/v1/games/{id}/join"), &json!({"name": "Cleo"}))
        .await
        .json();
    assert_eq!(cleo["seat"], 1, "Bob's seat is the first open one again: {cleo}");
    let cleo_token = cleo["token"].as_str().expect("token");
    let view = app.get_as(&format!("/v1/games/{id}"), cleo_token).await;
    assert_eq!(view.status.as_u16(), 200, "the new holder's token works");
    app.get_as(&format!("/v1/games/{id}"), bob).await.assert_problem(
        401,
        "unauthorized",
        "the old token does not open the re-taken seat",
    );
    app.post_as(&format!("/v1/games/{id}/leave"), bob, &json!({}), &[])
        .await
        .assert_problem(401, "unauthorized", "nor may it give it up again");
    let dan = app
        .post(&format!("/v1/games/{id}/join"), &json!({"name": "Dan"}))
        .await
        .json();
    assert_eq!(
        dan["status"], "playing",
        "the game deals when the seats are full: {dan}"
    );
}
on_every_backend!(
    leaving_before_the_start_reopens_the_seat_on_every_backend,
    leaving_before_the_start_reopens_the_seat
);
