//! Rematches (docs/api.md#rematch): the next game at a table, made once whoever asks first on
//! whichever replica, each player in their own seat of it, dealt when the last player asks.

use serde_json::{Value, json};

use engine::Variant;

use crate::helpers::{
    ACME, BETA, Backend, Receiver, Reply, Table, TestApp, backends, create_with, deck_with,
    on_studio_backends,
};

/// The hand with which the seat in turn goes out of a `continental` deal in one action.
const OUT_AT_ONCE: [&[&str]; 4] = [
    &["5S", "2C", "7S", "JK", "9S"],
    &["3H", "4H", "5H", "6H"],
    &["8D", "9D", "TD"],
    &["JC", "QC", "KC"],
];

/// Creates, as `key`'s tenant, a one-deal `continental` game of Ann, Bob and a bot (seat 0
/// dealing, so Bob leads) with its events sent to `webhook` if given; returns it and its body.
async fn table_of_three(app: &TestApp, key: &str, webhook: Option<&str>) -> (Table, Value) {
    let hand: Vec<&str> = OUT_AT_ONCE.iter().flat_map(|m| m.iter().copied()).collect();
    let (seat, deck) = deck_with(Variant::Continental, 3, &hand);
    assert_eq!(seat.0, 1, "Bob leads");
    let deck: Vec<String> = deck.iter().map(ToString::to_string).collect();
    let mut body = json!({"variant": "continental", "seats": [{"name": "Ann"}, {"name": "Bob"}, {"bot": true}],
        "seed": 1, "first_dealer": 0, "stacked_decks": [deck], "options": {"turn_seconds": 86_400}});
    if let Some(url) = webhook {
        body["webhook_url"] = json!(url);
    }
    let created = create_with(app, key, &body).await;
    (Table::of_created(&created), created)
}

/// Bob goes out at once: the game is finished.
async fn bob_goes_out(app: &TestApp, table: &Table) {
    let body = json!({"melds": OUT_AT_ONCE.iter().map(|m| json!({"cards": m})).collect::<Vec<_>>()});
    let out = app
        .post_as(&format!("{}/melds", table.path()), &table.tokens[1], &body, &[])
        .await
        .ok("Bob goes out");
    assert_eq!(out["status"], "finished", "{out}");
}

/// `POST /v1/games/{id}/rematch` with a seat token.
async fn rematch_as(app: &TestApp, table: &Table, seat: usize) -> Reply {
    app.post_as(
        &format!("{}/rematch", table.path()),
        &table.tokens[seat],
        &json!({}),
        &[],
    )
    .await
}

/// `POST /v1/games/{id}/rematch` with a server key.
async fn rematch_with(app: &TestApp, id: &str, key: &str) -> Reply {
    app.post_with_key(&format!("/v1/games/{id}/rematch"), key, &json!({}), &[])
        .await
}

/// The types of the events of `table` as seat 0 reads them.
async fn types(app: &TestApp, table: &Table) -> Vec<String> {
    app.log(table, 0)
        .await
        .into_iter()
        .map(|e| e.event["type"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Two players ask at once, on two replicas: one rematch, each in their own seat with a token
/// of their own; the bot is ready at once, the game deals when the last player has asked (here
/// both), dealt first by the winner (`continental`); the finished game's view, stream and
/// webhook say where the rematch is, once.
#[actix_web::test]
async fn two_players_asking_at_once_on_two_replicas_land_at_one_rematch() {
    for backend in backends() {
        let one = TestApp::spawn_studio(&backend, None).await;
        let two = TestApp::spawn_studio(&backend, Some(one.database.clone())).await;
        let receiver = Receiver::start(200);
        let (table, created) = table_of_three(&one, ACME, Some(&receiver.url)).await;
        bob_goes_out(&one, &table).await;

        let (ann, bob) = futures_util::join!(rematch_as(&one, &table, 0), rematch_as(&two, &table, 1));
        let (ann, bob) = (ann.ok("Ann's rematch"), bob.ok("Bob's rematch"));
        let context = format!("{backend:?}: {ann} {bob}");
        assert_eq!(ann["id"], bob["id"], "{context}: one rematch");
        assert_ne!(ann["id"], json!(table.id), "{context}: a new game");
        assert_eq!((&ann["seat"], &bob["seat"]), (&json!(0), &json!(1)), "{context}");
        let next = Table {
            id: ann["id"].as_str().expect("an id").to_owned(),
            tokens: vec![
                ann["token"].as_str().expect("Ann's token").to_owned(),
                bob["token"].as_str().expect("Bob's token").to_owned(),
            ],
        };

        // Each token opens its own seat of the rematch, on either replica; the old ones none.
        for (seat, app) in [(0, &one), (1, &two)] {
            let view = app.view(&next, seat).await.ok(&context);
            assert_eq!(view["you"]["seat"], seat, "{context}: {view}");
            assert_ne!(
                view["status"], "waiting",
                "{context}: dealt once both asked: {view}"
            );
            assert_eq!(view["dealer"], 1, "{context}: the winner deals first: {view}");
            let names: Vec<&Value> = view["players"]
                .as_array()
                .expect("players")
                .iter()
                .map(|p| &p["name"])
                .collect();
            assert_eq!(
                names,
                [&json!("Ann"), &json!("Bob"), &json!("Bot 3")],
                "{context}"
            );
            assert_eq!(
                view["players"][2]["kind"], "bot",
                "{context}: the bot stays a bot"
            );
            assert_eq!(
                view["options"]["turn_seconds"], 86_400,
                "{context}: the same options"
            );
            app.get_as(&next.path(), &table.tokens[seat])
                .await
                .assert_problem(403, "forbidden", "an old token does not open the rematch");
        }
        // The same rematch for a later call, from a seat or from the studio.
        let again = rematch_as(&two, &table, 0).await.ok("Ann again");
        assert_eq!(
            (&again["id"], &again["seat"]),
            (&ann["id"], &json!(0)),
            "{context}"
        );
        let studio = rematch_with(&one, &table.id, ACME).await.ok("the studio");
        assert_eq!(studio["id"], ann["id"], "{context}");
        assert!(
            studio.get("token").is_none(),
            "{context}: no seat's token for a key: {studio}"
        );

        let finished = one.view(&table, 0).await.ok("the finished game");
        assert_eq!(finished["rematch"], ann["id"], "{context}: {finished}");
        let log = types(&one, &table).await;
        assert_eq!(
            log.iter().filter(|t| *t == "rematch").count(),
            1,
            "{context}: {log:?}"
        );
        // A stream opened now reads it last, then ends.
        let mut stream = two.stream(&table.id, &table.tokens[0], "", &[]).await;
        let mut read = Vec::new();
        while let Some(event) = stream.next().await {
            read.push(event);
        }
        let last = read.last().expect("events");
        assert_eq!(last.event, "rematch", "{context}: {read:?}");
        let said: Value = serde_json::from_str(&last.data).expect("JSON");
        assert_eq!(said["id"], ann["id"], "{context}: the stream says where: {said}");
        let got = receiver
            .wait_for("the rematch event", |r| {
                r.iter().any(|d| d.json()["type"] == "rematch")
            })
            .await;
        let hooked = got
            .iter()
            .map(|d| d.json())
            .find(|b| b["type"] == "rematch")
            .expect("a rematch delivery");
        assert_eq!(hooked["event"]["id"], ann["id"], "{context}: {hooked}");
        // The rematch's events go to the same webhook, signed with the same secret.
        let secret = created["webhook_secret"].as_str().expect("a secret");
        let theirs = receiver
            .wait_for("the rematch's own events", |r| {
                r.iter().any(|d| d.json()["game_id"] == ann["id"])
            })
            .await;
        let first = theirs
            .iter()
            .find(|d| d.json()["game_id"] == ann["id"])
            .expect("one");
        assert!(
            crate::helpers::verifies(secret, first),
            "{context}: the same secret"
        );

        one.kill_switch.kill().await;
        two.kill_switch.kill().await;
        one.clean_up().await;
    }
}

/// A rematch waits for every player: a seat not yet asked for is kept for its player (no one
/// joins it), the bot's is ready, and the game deals when the last player asks.
#[actix_web::test]
async fn a_rematch_waits_for_every_player() {
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        let (table, _) = table_of_three(app, ACME, None).await;
        bob_goes_out(app, &table).await;
        // A spectator follows the finished game: its stream waits for the rematch.
        let spectator = app
            .post_with_key(&format!("{}/spectators", table.path()), ACME, &json!({}), &[])
            .await
            .ok("a spectator token");
        let spectator = spectator["token"].as_str().expect("a token").to_owned();
        let mut stream = app.stream(&table.id, &spectator, "", &[]).await;
        let log = app.log(&table, 0).await;
        let ended = stream.until(log.last().expect("events").seq).await;
        assert_eq!(
            ended.last().map(|e| e.event.as_str()),
            Some("game_finished"),
            "{backend:?}"
        );
        let studio = rematch_with(app, &table.id, ACME)
            .await
            .ok("the studio asks first");
        let heard = stream.next().await.expect("the stream goes on after the game");
        assert_eq!(heard.event, "rematch", "{backend:?}: {heard:?}");
        assert!(
            heard.data.contains(studio["id"].as_str().expect("an id")),
            "{backend:?}: {heard:?}"
        );
        assert!(stream.next().await.is_none(), "{backend:?}: then the stream ends");
        assert_eq!(studio["status"], "waiting", "{backend:?}: {studio}");
        let id = studio["id"].as_str().expect("an id").to_owned();
        let ann = rematch_as(app, &table, 0).await.ok("Ann");
        assert_eq!(
            (&ann["id"], &ann["status"]),
            (&json!(id), &json!("waiting")),
            "{backend:?}: {ann}"
        );
        let next = Table {
            id: id.clone(),
            tokens: vec![ann["token"].as_str().expect("a token").to_owned()],
        };
        let view = app.view(&next, 0).await.ok("Ann's view of the rematch");
        assert_eq!(view["status"], "waiting", "{backend:?}: {view}");
        let reserved: Vec<bool> = view["players"]
            .as_array()
            .expect("players")
            .iter()
            .map(|p| p["reserved"] == true)
            .collect();
        assert_eq!(
            reserved,
            [false, true, false],
            "{backend:?}: Bob's seat is kept: {view}"
        );
        app.post(&format!("/v1/games/{id}/join"), &json!({"name": "Eve"}))
            .await
            .assert_problem(409, "no_open_seat", "a kept seat is not open");
        rematch_with(app, &table.id, BETA).await.assert_problem(
            404,
            "game_not_found",
            "another tenant's game",
        );
        let waited = types(app, &next).await;
        assert!(
            !waited.iter().any(|t| t == "deal_started"),
            "{backend:?}: no deal yet: {waited:?}"
        );
        let bob = rematch_as(app, &table, 1).await.ok("Bob, last");
        // Dealt now (a bot may even have gone out at once in this one-deal variant).
        assert_ne!(bob["status"], "waiting", "{backend:?}: {bob}");
        let dealt = types(app, &next).await;
        let joins: Vec<&String> = dealt.iter().filter(|t| *t == "seat_joined").collect();
        assert_eq!(joins.len(), 2, "{backend:?}: each player asked once: {dealt:?}");
        assert!(
            dealt.iter().any(|t| t == "deal_started"),
            "{backend:?}: dealt: {dealt:?}"
        );
    })
    .await;
}

/// Only a finished game has a rematch: one being played, one waiting for players, one void.
#[actix_web::test]
async fn only_a_finished_game_has_a_rematch() {
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        let (playing, _) = table_of_three(app, ACME, None).await;
        rematch_as(app, &playing, 0).await.assert_problem(
            409,
            "game_not_finished",
            &format!("{backend:?}: playing"),
        );
        rematch_with(app, &playing.id, ACME).await.assert_problem(
            409,
            "game_not_finished",
            &format!("{backend:?}: playing, by key"),
        );
        let waiting = create_with(
            app,
            ACME,
            &json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"open": true}]}),
        )
        .await;
        let waiting = Table::of_created(&waiting);
        rematch_as(app, &waiting, 0).await.assert_problem(
            409,
            "game_not_finished",
            &format!("{backend:?}: waiting"),
        );
        let void = create_with(
            app,
            ACME,
            &json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}]}),
        )
        .await;
        let void = Table::of_created(&void);
        let left = app
            .post_as(
                &format!("{}/leave", void.path()),
                &void.tokens[0],
                &json!({}),
                &[],
            )
            .await
            .ok("Ann leaves");
        assert_eq!(left["status"], "void", "{backend:?}: {left}");
        rematch_as(app, &void, 1).await.assert_problem(
            409,
            "game_not_finished",
            &format!("{backend:?}: void"),
        );
        let spectator = app
            .post_with_key(&format!("{}/spectators", void.path()), ACME, &json!({}), &[])
            .await
            .ok("a spectator token");
        app.post_as(
            &format!("{}/rematch", void.path()),
            spectator["token"].as_str().expect("a token"),
            &json!({}),
            &[],
        )
        .await
        .assert_problem(403, "forbidden", "a spectator asks for no rematch");
        app.post(&format!("{}/rematch", void.path()), &json!({}))
            .await
            .assert_problem(401, "unauthorized", "no token");
    })
    .await;
}

/// A leaked token: Ann's token of the finished game got her a token for her rematch seat;
/// the studio reissues that seat's token. From then on the finished game's token gets nothing
/// for the seat, the rematch token it got before opens nothing (not even the rematch's own
/// rematch), and the reissued token is the only key.
#[actix_web::test]
async fn a_reissued_rematch_seat_is_opened_by_its_new_token_only() {
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        let (table, _) = table_of_three(app, ACME, None).await;
        bob_goes_out(app, &table).await;
        let leaked = rematch_as(app, &table, 0)
            .await
            .ok("Ann, or whoever holds her token");
        let id = leaked["id"].as_str().expect("an id").to_owned();
        let reissued = app
            .post_with_key(&format!("/v1/games/{id}/seats/0/token"), ACME, &json!({}), &[])
            .await
            .ok("the studio reissues Ann's seat of the rematch");
        let again = rematch_as(app, &table, 0).await;
        again.assert_problem(
            403,
            "forbidden",
            &format!("{backend:?}: the finished game's token asks again"),
        );
        assert!(
            !again.text().contains("\"token\""),
            "{backend:?}: no token in {}",
            again.text()
        );
        let old = Table {
            id: id.clone(),
            tokens: vec![leaked["token"].as_str().expect("a token").to_owned()],
        };
        app.view(&old, 0)
            .await
            .assert_problem(401, "unauthorized", "the rematch token from before");
        rematch_as(app, &old, 0).await.assert_problem(
            401,
            "unauthorized",
            "nor does it ask for a later rematch",
        );
        let new = Table {
            id: id.clone(),
            tokens: vec![reissued["token"].as_str().expect("a token").to_owned()],
        };
        let view = app.view(&new, 0).await.ok("the reissued token opens the seat");
        assert_eq!(view["status"], "waiting", "{backend:?}: {view}");
        // Bob's seat was never reissued: his finished game's token still takes it.
        let bob = rematch_as(app, &table, 1).await.ok("Bob");
        assert_eq!(bob["id"], json!(id), "{backend:?}: {bob}");
    })
    .await;
}
