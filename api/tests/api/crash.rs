//! The service killed by SIGKILL: the built binary, started as a process on the test's
//! database, is killed with deliveries pending in its outbox and started again; every event
//! still reaches the receiver (docs/api.md#webhooks: a crash loses nothing).

use std::collections::HashSet;
use std::time::Duration;

use awc::Client;
use continental::config::DatabaseSettings;
use serde_json::{Value, json};

use crate::helpers::{Binary, backends, database_url, drop_database, fresh_database};
use crate::receiver::{Received, Receiver};
use crate::webhooks::{verified_by_the_library, verifies};

/// How long the events may take to arrive after the restart: a delivery in flight at the kill
/// stays claimed for its lease (30 s) before another process takes it.
const DELIVERED_WITHIN: Duration = Duration::from_secs(90);

/// The `continental` binary running as a child process, with a client for it.
struct Service {
    binary: Binary,
    client: Client,
}

impl Service {
    /// Starts the binary on `database`, in test mode, with webhooks allowed to reach this
    /// machine and retried 50 ms apart.
    async fn start(database: &DatabaseSettings) -> Service {
        let url = database_url(database);
        let binary = Binary::start(&[
            ("DATABASE_URL", url.as_str()),
            ("CONTINENTAL_TEST_MODE", "1"),
            ("CONTINENTAL_WEBHOOK_ALLOW_PRIVATE", "1"),
            ("CONTINENTAL_WEBHOOK_RETRY_S", "0.05"),
        ])
        .await;
        Service {
            binary,
            client: Client::builder()
                .disable_redirects()
                .timeout(Duration::from_secs(30))
                .finish(),
        }
    }

    /// Kills the process with SIGKILL: whatever was in flight is cut off.
    fn kill(mut self) {
        let status = self.binary.kill();
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(status.signal(), Some(9), "killed by SIGKILL: {status}");
        }
        #[cfg(not(unix))]
        assert!(!status.success(), "killed: {status}");
    }

    /// Sends `body` (if any) with a seat token (if any); answers the status and the JSON body.
    async fn send(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
        token: Option<&str>,
    ) -> (u16, Value) {
        let method = awc::http::Method::from_bytes(method.as_bytes()).expect("a method");
        let mut req = self
            .client
            .request(method, format!("{}{path}", self.binary.address));
        if let Some(token) = token {
            req = req.insert_header(("authorization", format!("Bearer {token}")));
        }
        let sent = match body {
            Some(b) => req.send_json(b).await,
            None => req.send().await,
        };
        let mut res = sent.unwrap_or_else(|e| panic!("{path}: {e}"));
        let bytes = res.body().limit(1 << 20).await.expect("a body");
        let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        (res.status().as_u16(), json)
    }

    /// Plays `turns` turns: the seat in turn draws from the stock and discards its first card.
    async fn play_turns(&self, id: &str, tokens: &[String], turns: usize) {
        for _ in 0..turns {
            let (_, view) = self
                .send("GET", &format!("/v1/games/{id}"), None, Some(&tokens[0]))
                .await;
            let seat = view["turn"]["seat"].as_u64().expect("a seat in turn");
            let token = Some(tokens[usize::try_from(seat).expect("a seat")].as_str());
            let draw = json!({"source": "stock"});
            let (status, drawn) = self
                .send("POST", &format!("/v1/games/{id}/draw"), Some(&draw), token)
                .await;
            assert_eq!(status, 200, "draw: {drawn}");
            let discard = json!({"card": drawn["you"]["hand"][0]});
            let (status, body) = self
                .send("POST", &format!("/v1/games/{id}/discard"), Some(&discard), token)
                .await;
            assert_eq!(status, 200, "discard: {body}");
        }
    }
}

#[actix_web::test]
async fn deliveries_pending_when_the_binary_is_killed_go_out_after_a_restart() {
    for backend in backends() {
        let database = fresh_database(&backend).await;
        let receiver = Receiver::start(503);
        let first = Service::start(&database).await;
        let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": 7,
            "first_dealer": 0, "webhook_url": receiver.url});
        let (status, created) = first.send("POST", "/v1/games", Some(&body), None).await;
        assert_eq!(status, 201, "{backend:?}: {created}");
        let id = created["id"].as_str().expect("an id").to_owned();
        let secret = created["webhook_secret"].as_str().expect("a secret").to_owned();
        let tokens: Vec<String> = created["seats"]
            .as_array()
            .expect("seats")
            .iter()
            .map(|s| s["token"].as_str().expect("a token").to_owned())
            .collect();
        first.play_turns(&id, &tokens, 3).await;
        let (_, log) = first
            .send(
                "GET",
                &format!("/v1/games/{id}/events?after=0"),
                None,
                Some(&tokens[0]),
            )
            .await;
        let events = log["events"].as_array().expect("events").len();
        // The receiver is refusing: every delivery is still pending when the process dies.
        receiver.wait_for("a refused attempt", |r| !r.is_empty()).await;
        first.kill();
        let refused = receiver.all();
        let second = Service::start(&database).await;
        receiver.answer(200);
        let distinct = |r: &[Received]| {
            r.iter()
                .filter(|r| r.answered == 200)
                .map(|r| r.id.clone())
                .collect::<HashSet<_>>()
                .len()
        };
        receiver
            .wait_for_within(DELIVERED_WITHIN, "every event after the restart", |r| {
                distinct(r) >= events
            })
            .await;
        // As a receiver does: the first copy of each `webhook-id` counts, later ones are
        // duplicates.
        let mut seen = HashSet::new();
        let accepted: Vec<Received> = receiver
            .accepted()
            .into_iter()
            .filter(|r| seen.insert(r.id.clone()))
            .collect();
        let seqs: Vec<i64> = accepted.iter().map(Received::seq).collect();
        let expected: Vec<i64> = (1..=i64::try_from(events).expect("a count")).collect();
        assert_eq!(seqs, expected, "{backend:?}: every event, in seq order");
        assert!(
            accepted.iter().all(|r| verifies(&secret, r)),
            "{backend:?}: every delivery is signed with the game's secret"
        );
        for r in [&accepted[0], &accepted[accepted.len() - 1]] {
            assert_ne!(
                verified_by_the_library(&secret, r),
                Some(false),
                "{backend:?}: the standardwebhooks library verifies delivery {}",
                r.id
            );
        }
        assert_eq!(
            accepted[0].id, refused[0].id,
            "{backend:?}: the delivery refused before the kill keeps its id after it"
        );
        second.kill();
        drop_database(&database).await;
    }
}
