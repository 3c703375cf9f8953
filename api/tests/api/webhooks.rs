//! Webhooks (docs/api.md#webhooks): signed deliveries of every event from the outbox, in order,
//! retried, given up after the give-up time without holding back later events, delivered
//! once per event id by any replica; the delivery status read with the tenant's server key.
//! A crash of the binary: `crash.rs`.

use std::time::Duration;

use serde_json::{Value, json};

use continental::config::AsyncSettings;

use crate::helpers::{
    ACME, ACME_ROTATED, BETA, Backend, Received, Receiver, Reply, STUDIO_KEYS, Spawn, Table, TestApp,
    backends, create_with, eventually, on_studio_backends, play_turns, test_async, verified_by_the_library,
    verifies,
};

/// Creates, as tenant `acme`, a two-player `may_i` game whose events go to `url`; returns it
/// and its secret. (Without configured keys the key is not checked.)
async fn hooked_game(app: &TestApp, url: &str) -> (Table, String) {
    let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": 7,
        "first_dealer": 0, "webhook_url": url});
    let reply = app.post_with_key("/v1/games", ACME, &body, &[]).await;
    assert_eq!(reply.status.as_u16(), 201, "{}", reply.text());
    let v = reply.json();
    let secret = v["webhook_secret"].as_str().expect("a webhook_secret").to_owned();
    let table = Table::of_created(&v);
    (table, secret)
}

/// The game's delivery status, read with `acme`'s key.
async fn delivery_status(app: &TestApp, table: &Table) -> Value {
    let reply = app
        .get_with_key(&format!("/v1/games/{}/webhook", table.id), ACME)
        .await;
    assert_eq!(
        reply.status.as_u16(),
        200,
        "the delivery status: {}",
        reply.text()
    );
    reply.json()
}

/// Polls the delivery status (30 s at most) until `done` holds; panics with `what` otherwise.
async fn wait_for_status(app: &TestApp, table: &Table, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    eventually(Duration::from_secs(30), what, async || {
        let status = delivery_status(app, table).await;
        if done(&status) {
            Ok(status)
        } else {
            Err(status.to_string())
        }
    })
    .await
}

/// The accepted deliveries' seqs are 1..=n, each once, in order.
fn assert_in_order(accepted: &[Received], n: usize, context: &str) {
    let seqs: Vec<i64> = accepted.iter().map(Received::seq).collect();
    let expected: Vec<i64> = (1..=i64::try_from(n).expect("a count")).collect();
    assert_eq!(
        seqs, expected,
        "{context}: every event delivered once, in seq order"
    );
}

async fn deliveries_are_signed_public_and_in_order(app: &TestApp) {
    let receiver = Receiver::start(200);
    let (table, secret) = hooked_game(app, &receiver.url).await;
    play_turns(&[app], &table, 4).await;
    let events = app.log(&table, 0).await;
    let got = receiver
        .wait_for("every event", |r| r.len() >= events.len())
        .await;
    assert_in_order(&got, events.len(), "one replica");
    for (r, logged) in got.iter().zip(&events) {
        let body = r.json();
        assert_eq!(body["id"], r.id.as_str(), "the body's id is the webhook-id");
        assert_eq!(body["game_id"], table.id.as_str());
        assert_eq!(body["seq"], logged.seq);
        assert!(body["version"].as_i64().is_some_and(|v| v >= 1), "{body}");
        assert_eq!(body["type"], logged.event["type"], "{body}");
        assert!(verifies(&secret, r), "the HMAC verifies: {body}");
        assert!(
            r.timestamp.parse::<i64>().is_ok(),
            "unix seconds: {}",
            r.timestamp
        );
        // A spectator's copy: no dealt hand, no card drawn from the stock.
        let event = &body["event"];
        match event["type"].as_str() {
            Some("dealt") => assert!(event["cards"].is_null(), "a hand in a webhook: {event}"),
            Some("drew") if event["source"] == "stock" => {
                assert!(event["card"].is_null(), "a stock card in a webhook: {event}")
            }
            _ => {}
        }
    }
    let turns = got.iter().filter(|r| r.json()["type"] == "turn").count();
    assert_eq!(turns, 5, "a `turn` at the deal and after each of 4 discards");
    // A tampered body does not verify.
    let mut forged = got[0].clone();
    forged.body.push(b' ');
    assert!(!verifies(&secret, &forged), "a changed body fails the check");
    if let Some(ok) = verified_by_the_library(&secret, &got[0]) {
        assert!(ok, "the standardwebhooks library verifies the delivery");
        assert_eq!(
            verified_by_the_library(&secret, &forged),
            Some(false),
            "and refuses a forged one"
        );
    }
    let status = delivery_status(app, &table).await;
    assert_eq!(status["url"], receiver.url.as_str());
    assert_eq!(status["failed"], 0, "{status}");
}

#[actix_web::test]
async fn webhooks_are_signed_public_and_in_order() {
    on_studio_backends(async |app: &TestApp, _: &Backend| {
        deliveries_are_signed_public_and_in_order(app).await;
    })
    .await;
}

async fn a_receiver_down_for_a_while_gets_everything_after(app: &TestApp) {
    let receiver = Receiver::start(503);
    let (table, _) = hooked_game(app, &receiver.url).await;
    play_turns(&[app], &table, 2).await;
    // Several refusals of the first event, each retried (50 ms apart and more in tests).
    receiver.wait_for("three attempts", |r| r.len() >= 3).await;
    let refused = receiver.all();
    assert!(
        refused.iter().all(|r| r.seq() == 1),
        "a later event waits for the first: {refused:?}"
    );
    assert!(
        refused.iter().all(|r| r.id == refused[0].id),
        "one id across retries"
    );
    let status = delivery_status(app, &table).await;
    assert_eq!(status["delivered"], 0, "{status}");
    assert!(
        status["last_error"].as_str().is_some_and(|e| e.contains("503")),
        "{status}"
    );
    receiver.answer(204);
    let events = app.log(&table, 0).await;
    let accepted = receiver
        .wait_for("every event after", |_| receiver.accepted().len() >= events.len())
        .await;
    let accepted: Vec<Received> = accepted.into_iter().filter(|r| r.answered == 204).collect();
    assert_in_order(&accepted, events.len(), "after the outage");
    assert_eq!(accepted[0].id, refused[0].id, "the retried delivery keeps its id");
    // The receiver answers before the outcome is recorded.
    let expected = json!(i64::try_from(events.len()).expect("a count"));
    eventually(Duration::from_secs(10), "every delivery recorded", async || {
        let status = delivery_status(app, &table).await;
        match status["delivered"] == expected && status["pending"] == 0 {
            true => Ok(()),
            false => Err(status),
        }
    })
    .await;
    let metrics = String::from_utf8_lossy(&app.get("/metrics").await.body).into_owned();
    assert!(
        metrics.contains("continental_webhook_deliveries_total{result=\"retried\"}"),
        "{metrics}"
    );
}

#[actix_web::test]
async fn a_receiver_that_was_down_gets_everything() {
    on_studio_backends(async |app: &TestApp, _: &Backend| {
        a_receiver_down_for_a_while_gets_everything_after(app).await;
    })
    .await;
}

#[actix_web::test]
async fn two_replicas_deliver_each_event_under_one_id() {
    for backend in backends() {
        let receiver = Receiver::start(200);
        let one = TestApp::spawn(&backend).await;
        let two = one.replica(test_async()).await;
        let (table, secret) = hooked_game(&one, &receiver.url).await;
        play_turns(&[&one, &two], &table, 6).await;
        let events = two.log(&table, 0).await;
        let got = receiver
            .wait_for("every event", |r| r.len() >= events.len())
            .await;
        let mut by_seq = std::collections::BTreeMap::<i64, Vec<&Received>>::new();
        for r in &got {
            by_seq.entry(r.seq()).or_default().push(r);
            assert!(verifies(&secret, r));
        }
        assert_eq!(by_seq.len(), events.len(), "{backend:?}: every event delivered");
        for (seq, copies) in &by_seq {
            assert!(
                copies.iter().all(|c| c.id == copies[0].id),
                "{backend:?}: event {seq} under one id"
            );
        }
        let first_copies: Vec<i64> = {
            let mut seen = std::collections::BTreeSet::new();
            got.iter()
                .map(Received::seq)
                .filter(|s| seen.insert(*s))
                .collect()
        };
        assert!(
            first_copies.windows(2).all(|w| w[0] < w[1]),
            "{backend:?}: in seq order: {first_copies:?}"
        );
        one.clean_up().await;
    }
}

#[actix_web::test]
async fn webhook_urls_are_checked() {
    for backend in backends() {
        let strict = TestApp::spawn_with(
            &backend,
            Spawn {
                test_mode: true,
                asynchronous: Some(AsyncSettings {
                    webhook_allow_private: false,
                    ..test_async()
                }),
                ..Spawn::default()
            },
        )
        .await;
        let cases = [
            ("http://127.0.0.1:9/hooks", 422, "webhook_url_private", "loopback"),
            ("http://10.0.0.8/hooks", 422, "webhook_url_private", "private"),
            (
                "http://169.254.169.254/latest",
                422,
                "webhook_url_private",
                "link-local",
            ),
            ("http://[::1]:8080/", 422, "webhook_url_private", "IPv6 loopback"),
            ("http://0.0.0.0/", 422, "webhook_url_private", "unspecified"),
            (
                "http://localhost:9/hooks",
                422,
                "webhook_url_private",
                "a name of loopback",
            ),
            ("ftp://example.com/x", 422, "invalid_webhook_url", "not http"),
            ("not a url", 422, "invalid_webhook_url", "not a URL"),
        ];
        for (url, status, code, why) in cases {
            let body =
                json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}], "webhook_url": url});
            strict
                .post("/v1/games", &body)
                .await
                .assert_problem(status, code, why);
        }
        let plain = strict
            .post(
                "/v1/games",
                &json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}]}),
            )
            .await
            .json();
        assert!(
            plain.get("webhook_secret").is_none(),
            "no secret without a webhook: {plain}"
        );
        strict.clean_up().await;
    }
}

/// The delivery status is a studio's: the owning tenant's key (either secret while rotating)
/// reads it; another tenant's key gets the 404 of a game that does not exist; no key, an
/// unknown key or a seat token alone is 401.
#[actix_web::test]
async fn the_delivery_status_takes_the_tenants_server_key() {
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        let receiver = Receiver::start(200);
        let (table, _) = hooked_game(app, &receiver.url).await;
        let path = format!("/v1/games/{}/webhook", table.id);
        for key in [ACME, ACME_ROTATED] {
            let reply = app.get_with_key(&path, key).await;
            assert_eq!(reply.status.as_u16(), 200, "{backend:?}: the owner's key");
            assert_eq!(reply.json()["url"], receiver.url.as_str());
        }
        let unknown = uuid::Uuid::new_v4().to_string();
        let theirs = app.get_with_key(&path, BETA).await;
        let none = app
            .get_with_key(&format!("/v1/games/{unknown}/webhook"), BETA)
            .await;
        theirs.assert_problem(404, "game_not_found", &format!("{backend:?}: another tenant"));
        none.assert_problem(404, "game_not_found", &format!("{backend:?}: no game"));
        assert_eq!(
            Reply::without(&theirs, &table.id),
            Reply::without(&none, &unknown),
            "{backend:?}: another tenant's game answers as no game"
        );
        app.get(&path)
            .await
            .assert_problem(401, "unauthorized", &format!("{backend:?}: no key"));
        app.get_with_key(&path, "acme-secret-0000000009")
            .await
            .assert_problem(401, "unauthorized", &format!("{backend:?}: an unknown key"));
        for token in &table.tokens {
            app.get_as(&path, token).await.assert_problem(
                401,
                "unauthorized",
                &format!("{backend:?}: a seat token alone"),
            );
        }
        let plain = create_with(
            app,
            ACME,
            &json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}]}),
        )
        .await;
        let plain = plain["id"].as_str().expect("an id");
        app.get_with_key(&format!("/v1/games/{plain}/webhook"), ACME)
            .await
            .assert_problem(
                404,
                "no_webhook",
                &format!("{backend:?}: a game without a webhook"),
            );
    })
    .await;
}

/// Without server keys nobody reads a delivery status: it answers exactly as the listing
/// and the other studio endpoints do then (401), whatever key or token comes with it.
#[actix_web::test]
async fn without_server_keys_the_delivery_status_is_closed_like_the_listing() {
    for backend in backends() {
        let app = TestApp::spawn(&backend).await;
        let receiver = Receiver::start(200);
        let (table, _) = hooked_game(&app, &receiver.url).await;
        let path = format!("/v1/games/{}/webhook", table.id);
        for (what, reply, listing) in [
            ("no key", app.get(&path).await, app.get("/v1/games").await),
            (
                "a key",
                app.get_with_key(&path, ACME).await,
                app.get_with_key("/v1/games", ACME).await,
            ),
            (
                "a seat token",
                app.get_as(&path, &table.tokens[0]).await,
                app.get_as("/v1/games", &table.tokens[0]).await,
            ),
        ] {
            let context = format!("{backend:?}: {what}");
            reply.assert_problem(401, "unauthorized", &context);
            listing.assert_problem(401, "unauthorized", &format!("{context}, the listing"));
            assert_eq!(
                reply.json()["detail"],
                listing.json()["detail"],
                "{context}: the same refusal as the listing"
            );
        }
        app.clean_up().await;
    }
}

/// With server keys configured a game with a `webhook_url` (as any game) needs a valid key:
/// the webhook's secret goes only to a studio's back end.
#[actix_web::test]
async fn a_webhook_url_needs_a_server_key_when_keys_are_configured() {
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        let receiver = Receiver::start(200);
        let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}],
            "webhook_url": receiver.url});
        app.post("/v1/games", &body).await.assert_problem(
            401,
            "unauthorized",
            &format!("{backend:?}: no key"),
        );
        app.post_with_key("/v1/games", "not-a-configured-key", &body, &[])
            .await
            .assert_problem(401, "unauthorized", &format!("{backend:?}: an unknown key"));
        assert!(
            receiver.all().is_empty(),
            "{backend:?}: a refused creation sends nothing"
        );
        let created = create_with(app, BETA, &body).await;
        assert!(
            created["webhook_secret"]
                .as_str()
                .is_some_and(|s| s.starts_with("whsec_")),
            "{backend:?}: {created}"
        );
    })
    .await;
}

/// A receiver that always answers 503 gets each event retried until the give-up time (two
/// seconds here, `CONTINENTAL_WEBHOOK_GIVE_UP_S`), then the delivery is given up: counted as
/// failed with its last error, and in the metrics. A given-up event holds nothing back: once
/// the receiver answers again, the game's later events reach it, in order.
#[actix_web::test]
async fn a_delivery_that_keeps_failing_is_given_up_and_later_events_go_on() {
    for backend in backends() {
        let app = TestApp::spawn_with(
            &backend,
            Spawn {
                test_mode: true,
                api_keys: STUDIO_KEYS.into(),
                asynchronous: Some(AsyncSettings {
                    webhook_give_up_s: 2,
                    ..test_async()
                }),
                ..Spawn::default()
            },
        )
        .await;
        let receiver = Receiver::start(503);
        let (table, _) = hooked_game(&app, &receiver.url).await;
        play_turns(&[&app], &table, 1).await;
        let events = i64::try_from(app.log(&table, 0).await.len()).expect("a count");
        let status = wait_for_status(&app, &table, "every delivery given up", |s| s["pending"] == 0).await;
        assert_eq!(status["failed"], events, "{backend:?}: {status}");
        assert_eq!(status["delivered"], 0, "{backend:?}: {status}");
        assert!(
            status["last_error"].as_str().is_some_and(|e| e.contains("503")),
            "{backend:?}: {status}"
        );
        let refused = receiver.all();
        assert!(
            refused.iter().filter(|r| r.seq() == 1).count() >= 2,
            "{backend:?}: the first event was retried before it was given up"
        );
        let given_up = app
            .metric("continental_webhook_deliveries_total{result=\"given_up\"}")
            .await;
        assert_eq!(
            given_up,
            Some(events as f64),
            "{backend:?}: {events} given up in the metrics"
        );
        // The receiver is back: what happens next still reaches it.
        receiver.answer(200);
        play_turns(&[&app], &table, 1).await;
        let after = i64::try_from(app.log(&table, 0).await.len()).expect("a count");
        let status = wait_for_status(&app, &table, "the later events delivered", |s| {
            s["pending"] == 0 && s["delivered"] == after - events
        })
        .await;
        assert_eq!(status["failed"], events, "{backend:?}: {status}");
        let seqs: Vec<i64> = receiver.accepted().iter().map(Received::seq).collect();
        assert_eq!(
            seqs,
            (events + 1..=after).collect::<Vec<_>>(),
            "{backend:?}: the later events, in order, after the given-up ones"
        );
        app.clean_up().await;
    }
}

/// docs/operations.md#logs: a receiver that authenticates by a token in its URL's query gets
/// the token with every delivery, but no log line (at any level), no metric and no
/// `last_error` in `GET /v1/games/{id}/webhook` holds it, whether the receiver refuses the
/// connection (the HTTP client's error names the URL) or answers 503; the status shows the
/// URL without its query.
#[actix_web::test]
async fn a_webhook_urls_query_reaches_no_log_and_no_status() {
    use crate::helpers::{Binary, drop_database, fresh_database};
    const TOKEN: &str = "TokenQRS789";
    for backend in backends() {
        let database = fresh_database(&backend).await;
        let mut service = Binary::start_testing(
            &database,
            &[("CONTINENTAL_API_KEYS", STUDIO_KEYS), ("RUST_LOG", "trace")],
        )
        .await;
        let closed = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
            listener.local_addr().expect("its address").port()
        };
        let answering = Receiver::start(503);
        let receivers = [
            (format!("http://127.0.0.1:{closed}/hook"), "a refused connection"),
            (answering.url.clone(), "a 503"),
        ];
        for (receiver, what) in &receivers {
            let ctx = format!("{backend:?}, {what}");
            let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}],
                "seed": 7, "first_dealer": 0, "webhook_url": format!("{receiver}?token={TOKEN}")});
            let created = service.post_with_key("/v1/games", ACME, &body, &[]).await;
            assert_eq!(created.status.as_u16(), 201, "{ctx}: {}", created.text());
            let table = Table::of_created(&created.json());
            let status = eventually(
                Duration::from_secs(30),
                &format!("{ctx}: a failure recorded"),
                async || {
                    let text = service
                        .get_with_key(&format!("/v1/games/{}/webhook", table.id), ACME)
                        .await
                        .text();
                    assert!(
                        !text.contains(TOKEN),
                        "{ctx}: the delivery status holds the token: {text}"
                    );
                    let status: Value = serde_json::from_str(&text).expect("JSON");
                    if status["last_error"].is_string() {
                        Ok(status)
                    } else {
                        Err(text)
                    }
                },
            )
            .await;
            assert_eq!(status["url"], receiver.as_str(), "{ctx}: host and path are shown");
        }
        assert!(
            answering
                .all()
                .iter()
                .any(|r| r.query == format!("token={TOKEN}")),
            "{backend:?}: the receiver gets its token"
        );
        assert!(
            !service.get("/metrics").await.text().contains(TOKEN),
            "{backend:?}: no metric holds the token"
        );
        // The failures' lines are out before the kill: the log searched holds them.
        service.lines_saying("webhook failed; will retry").await;
        service.kill();
        let log = service.output();
        assert!(
            log.contains("\"level\":\"TRACE\"") && log.contains("webhook failed"),
            "{backend:?}: every line is written, the failures too"
        );
        let line = log.lines().find(|l| l.contains(TOKEN));
        assert!(line.is_none(), "{backend:?}: the token is in the log: {line:?}");
        drop_database(&database).await;
    }
}

/// Issue 51: many games' deliveries go out side by side, each game's in seq order and every one
/// of them, while their games move: the game's head (its place in the outbox) written
/// by each move and by each delivery's outcome never loses a game's next event.
#[actix_web::test]
async fn many_games_deliver_side_by_side_each_in_order() {
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        let receiver = Receiver::start(204);
        let mut tables = Vec::new();
        for _ in 0..8 {
            tables.push(hooked_game(app, &receiver.url).await.0);
        }
        // The games move one after another, turn by turn, each move while the deliveries of the
        // moves before (its own and the other games') go out.
        for _ in 0..3 {
            for t in &tables {
                play_turns(&[app], t, 1).await;
            }
        }
        let mut logged = 0;
        for t in &tables {
            logged += app.log(t, 0).await.len();
        }
        let got = receiver
            .wait_for("every event of every game", |r| r.len() >= logged)
            .await;
        for t in &tables {
            let mine: Vec<Received> = got
                .iter()
                .filter(|r| r.json()["game_id"] == t.id.as_str())
                .cloned()
                .collect();
            let events = app.log(t, 0).await.len();
            assert_in_order(&mine, events, &format!("{backend:?}: game {}", t.id));
        }
    })
    .await;
}

/// The lease of a claimed delivery in [`a_late_outcome_does_not_undo_a_delivery`]: long enough
/// that no attempt but the stalled one outlives it, well short of the 5 s a receiver may take.
const SHORT_LEASE_MS: u64 = 1_000;

/// Issue 58: an attempt that outlives its lease cannot undo what another claim delivered
/// meanwhile. Replica `one` claims the game's first delivery and stalls past its lease (the
/// receiver holds the request open); once the lease runs out the head is claimed again and the
/// game's events are delivered; then the stalled attempt fails (a 500) and its outcome comes
/// late. It is not recorded: no event reaches the receiver twice, the game's later events
/// follow in order, and the delivered rows stay delivered.
#[actix_web::test]
async fn a_late_outcome_does_not_undo_a_delivery() {
    for backend in backends() {
        let asynchronous = AsyncSettings {
            test_webhook_lease_ms: Some(SHORT_LEASE_MS),
            ..test_async()
        };
        let receiver = Receiver::start(200);
        receiver.hold_next(500);
        let one = TestApp::spawn_with(
            &backend,
            Spawn {
                test_mode: true,
                api_keys: STUDIO_KEYS.into(),
                asynchronous: Some(asynchronous.clone()),
                ..Spawn::default()
            },
        )
        .await;
        let (table, _) = hooked_game(&one, &receiver.url).await;
        receiver
            .wait_for("replica one's first attempt, held", |r| !r.is_empty())
            .await;
        let two = one.replica(asynchronous).await;
        let created = one.log(&table, 0).await.len();
        receiver
            .wait_for("the game's events delivered past the stalled attempt", |_| {
                receiver.accepted().len() >= created
            })
            .await;
        receiver.release();
        // The stalled attempt's outcome is in: counted late by its replica, or recorded.
        let late = "continental_webhook_deliveries_total{result=\"late\"}";
        eventually(
            Duration::from_secs(10),
            "the stalled attempt's outcome",
            async || {
                let counted = one.metric(late).await.unwrap_or_default();
                let status = delivery_status(&one, &table).await;
                match counted >= 1.0 || !status["last_error"].is_null() {
                    true => Ok(()),
                    false => Err(status),
                }
            },
        )
        .await;
        play_turns(&[&one, &two], &table, 2).await;
        let events = one.log(&table, 0).await.len();
        let last = i64::try_from(events).expect("a count");
        let got = receiver
            .wait_for("the game's later events", |_| {
                receiver.accepted().iter().any(|r| r.seq() == last)
            })
            .await;
        let accepted: Vec<Received> = got.into_iter().filter(|r| r.answered == 200).collect();
        let mut ids = std::collections::BTreeSet::new();
        for r in &accepted {
            assert!(
                ids.insert(r.id.clone()),
                "{backend:?}: event {} delivered twice, the second after later events: {:?}",
                r.seq(),
                accepted.iter().map(Received::seq).collect::<Vec<_>>()
            );
        }
        assert_in_order(&accepted, events, &format!("{backend:?}"));
        let status = wait_for_status(&one, &table, "every delivery recorded", |s| {
            s["pending"] == 0 && s["delivered"] == json!(last)
        })
        .await;
        assert_eq!(status["failed"], 0, "{backend:?}: {status}");
        // Where no other claim took the head before the stalled attempt gave up (5 s; a slow
        // cluster), its failure was recorded while its lease was still the head's, as it may be.
        if one.metric(late).await.unwrap_or_default() >= 1.0 {
            assert!(
                status["last_error"].is_null(),
                "{backend:?}: the late failure is no delivery's error: {status}"
            );
        }
        one.clean_up().await;
    }
}

/// docs/operations.md#background-work: what waits for the webhook worker is in the metrics,
/// with what it has in hand: a receiver that refuses leaves the game's deliveries pending.
#[actix_web::test]
async fn pending_deliveries_are_in_the_metrics() {
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        let receiver = Receiver::start(503);
        let (table, _) = hooked_game(app, &receiver.url).await;
        play_turns(&[app], &table, 2).await;
        receiver.wait_for("an attempt", |r| !r.is_empty()).await;
        eventually(Duration::from_secs(30), "the backlog counted", async || {
            let metrics = String::from_utf8_lossy(&app.get("/metrics").await.body).into_owned();
            let pending = metrics
                .lines()
                .find_map(|l| l.strip_prefix("continental_background_backlog{work=\"webhooks\"} "))
                .and_then(|n| n.parse::<i64>().ok())
                .unwrap_or_default();
            match pending > 0 && metrics.contains("continental_background_in_flight{work=\"webhooks\"}") {
                true => Ok(()),
                false => Err(format!("{backend:?}: {metrics}")),
            }
        })
        .await;
    })
    .await;
}
