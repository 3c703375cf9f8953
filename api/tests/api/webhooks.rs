//! Webhooks (API.md "Webhooks"): signed deliveries of every event from the outbox, in order,
//! retried, surviving a crash, delivered once per event id by any replica.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use engine::{Action, DrawSource};
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use crate::games::{Table, act};
use crate::helpers::{Spawn, TestApp, backends, test_async};
use crate::on_every_backend;
use crate::receiver::{Received, Receiver};

/// Creates a two-player `may_i` game whose events go to `url`; returns it and its secret.
async fn hooked_game(app: &TestApp, url: &str) -> (Table, String) {
    let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": 7,
        "first_dealer": 0, "webhook_url": url});
    let reply = app.post("/v1/games", &body).await;
    assert_eq!(
        reply.status.as_u16(),
        201,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    let v = reply.json();
    let secret = v["webhook_secret"].as_str().expect("a webhook_secret").to_owned();
    let table = Table::of_created(&v);
    (table, secret)
}

/// Plays `turns` turns: the seat in turn draws from the stock and discards its first card.
async fn play_turns(apps: &[&TestApp], table: &Table, turns: usize) {
    for t in 0..turns {
        let app = apps[t % apps.len()];
        let view = app
            .get_as(&format!("/v1/games/{}", table.id), &table.tokens[0])
            .await
            .json();
        let seat = u8::try_from(view["turn"]["seat"].as_u64().expect("a seat in turn")).expect("a seat");
        let draw = Action::Draw {
            source: DrawSource::Stock,
        };
        let r = act(app, table, seat, &draw, &[]).await;
        assert_eq!(
            r.status.as_u16(),
            200,
            "draw: {}",
            String::from_utf8_lossy(&r.body)
        );
        let card = r.json()["you"]["hand"][0]
            .as_str()
            .expect("a card")
            .parse()
            .expect("a card");
        let r = act(app, table, seat, &Action::Discard { card }, &[]).await;
        assert_eq!(
            r.status.as_u16(),
            200,
            "discard: {}",
            String::from_utf8_lossy(&r.body)
        );
    }
}

/// The game's event log as seat 0 reads it.
async fn log(app: &TestApp, table: &Table) -> Vec<Value> {
    let r = app
        .get_as(
            &format!("/v1/games/{}/events?after=0", table.id),
            &table.tokens[0],
        )
        .await;
    r.json()["events"].as_array().expect("events").clone()
}

/// The HMAC check of the Standard Webhooks specification, written here independently of the
/// service's own.
fn verifies(secret: &str, r: &Received) -> bool {
    let key = BASE64
        .decode(secret.strip_prefix("whsec_").expect("a whsec_ secret"))
        .expect("a base64 key");
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("a key");
    mac.update(r.id.as_bytes());
    mac.update(b".");
    mac.update(r.timestamp.as_bytes());
    mac.update(b".");
    mac.update(&r.body);
    let expected = BASE64.encode(mac.finalize().into_bytes());
    r.signature
        .split(' ')
        .any(|s| s.strip_prefix("v1,") == Some(expected.as_str()))
}

/// Verifies a delivery with the `standardwebhooks` Python library; `None` (with a message)
/// when python3 is absent.
fn verified_by_the_library(secret: &str, r: &Received) -> Option<bool> {
    let script = "import sys, json\n\
from standardwebhooks import Webhook\n\
secret, msg_id, ts, sig = sys.argv[1:5]\n\
body = sys.stdin.buffer.read()\n\
Webhook(secret).verify(body, {'webhook-id': msg_id, 'webhook-timestamp': ts, 'webhook-signature': sig})\n\
print('verified')\n";
    let child = std::process::Command::new("python3")
        .args(["-c", script, secret, &r.id, &r.timestamp, &r.signature])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        eprintln!("python3 is absent: the standardwebhooks check is skipped");
        return None;
    };
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(&r.body).expect("the body written");
    }
    let out = child.wait_with_output().expect("python3 ran");
    if !out.status.success() {
        eprintln!("standardwebhooks: {}", String::from_utf8_lossy(&out.stderr));
    }
    Some(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("verified"))
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
    let events = log(app, &table).await;
    let got = receiver
        .wait_for("every event", |r| r.len() >= events.len())
        .await;
    assert_in_order(&got, events.len(), "one replica");
    for (r, logged) in got.iter().zip(&events) {
        let body = r.json();
        assert_eq!(body["id"], r.id.as_str(), "the body's id is the webhook-id");
        assert_eq!(body["game_id"], table.id.as_str());
        assert_eq!(body["seq"], logged["seq"]);
        assert!(body["version"].as_i64().is_some_and(|v| v >= 1), "{body}");
        assert_eq!(body["type"], logged["event"]["type"], "{body}");
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
    let status = app
        .get_as(&format!("/v1/games/{}/webhook", table.id), &table.tokens[1])
        .await;
    let status = status.json();
    assert_eq!(status["url"], receiver.url.as_str());
    assert_eq!(status["failed"], 0, "{status}");
}
on_every_backend!(
    webhooks_are_signed_public_and_in_order,
    deliveries_are_signed_public_and_in_order
);

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
    let status = app
        .get_as(&format!("/v1/games/{}/webhook", table.id), &table.tokens[0])
        .await
        .json();
    assert_eq!(status["delivered"], 0, "{status}");
    assert!(
        status["last_error"].as_str().is_some_and(|e| e.contains("503")),
        "{status}"
    );
    receiver.answer(204);
    let events = log(app, &table).await;
    let accepted = receiver
        .wait_for("every event after", |_| receiver.accepted().len() >= events.len())
        .await;
    let accepted: Vec<Received> = accepted.into_iter().filter(|r| r.answered == 204).collect();
    assert_in_order(&accepted, events.len(), "after the outage");
    assert_eq!(accepted[0].id, refused[0].id, "the retried delivery keeps its id");
    let status = app
        .get_as(&format!("/v1/games/{}/webhook", table.id), &table.tokens[0])
        .await
        .json();
    assert_eq!(
        status["delivered"],
        i64::try_from(events.len()).expect("a count"),
        "{status}"
    );
    assert_eq!(status["pending"], 0, "{status}");
    let metrics = String::from_utf8_lossy(&app.get("/metrics").await.body).into_owned();
    assert!(
        metrics.contains("continental_webhook_deliveries_total{result=\"retried\"}"),
        "{metrics}"
    );
}
on_every_backend!(
    a_receiver_that_was_down_gets_everything,
    a_receiver_down_for_a_while_gets_everything_after
);

#[actix_web::test]
async fn deliveries_pending_at_a_crash_go_out_after_the_restart() {
    for backend in backends() {
        let receiver = Receiver::start(503);
        let first = TestApp::spawn(&backend).await;
        let (table, secret) = hooked_game(&first, &receiver.url).await;
        play_turns(&[&first], &table, 2).await;
        let events = log(&first, &table).await;
        receiver.wait_for("a refused attempt", |r| !r.is_empty()).await;
        // Killed, as SIGKILL would: nothing graceful, deliveries pending in the outbox.
        first.kill_switch.kill().await;
        let before = receiver.all();
        receiver.answer(200);
        let second = first.replica(test_async()).await;
        receiver
            .wait_for("every event after the restart", |_| {
                receiver.accepted().len() >= events.len()
            })
            .await;
        let accepted = receiver.accepted();
        assert_in_order(&accepted, events.len(), &format!("{backend:?} after the restart"));
        assert_eq!(
            accepted[0].id, before[0].id,
            "the same delivery id after the restart"
        );
        assert!(accepted.iter().all(|r| verifies(&secret, r)));
        second.clean_up().await;
    }
}

#[actix_web::test]
async fn two_replicas_deliver_each_event_under_one_id() {
    for backend in backends() {
        let receiver = Receiver::start(200);
        let one = TestApp::spawn(&backend).await;
        let two = one.replica(test_async()).await;
        let (table, secret) = hooked_game(&one, &receiver.url).await;
        play_turns(&[&one, &two], &table, 6).await;
        let events = log(&two, &table).await;
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
                asynchronous: Some(continental::config::AsyncSettings {
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
