//! The service killed by SIGKILL: the built binary, started as a process on the test's
//! database, is killed with deliveries pending in its outbox and started again; every event
//! still reaches the receiver (docs/api.md#webhooks: a crash loses nothing).

use std::collections::HashSet;
use std::time::Duration;

use serde_json::json;

use crate::helpers::{
    Binary, Received, Receiver, Table, backends, drop_database, fresh_database, play_turns,
    verified_by_the_library, verifies,
};

/// How long the events may take to arrive after the restart: a delivery in flight at the kill
/// stays claimed for its lease (30 s) before another process takes it.
const DELIVERED_WITHIN: Duration = Duration::from_secs(90);

/// Kills the process with SIGKILL: whatever was in flight is cut off.
fn kill(mut binary: Binary) {
    let status = binary.kill();
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(9), "killed by SIGKILL: {status}");
    }
    #[cfg(not(unix))]
    assert!(!status.success(), "killed: {status}");
}

#[actix_web::test]
async fn deliveries_pending_when_the_binary_is_killed_go_out_after_a_restart() {
    for backend in backends() {
        let database = fresh_database(&backend).await;
        let receiver = Receiver::start(503);
        let first = Binary::start_testing(&database, &[]).await;
        let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": 7,
            "first_dealer": 0, "webhook_url": receiver.url});
        let created = first.post("/v1/games", &body).await;
        assert_eq!(created.status.as_u16(), 201, "{backend:?}: {}", created.text());
        let created = created.json();
        let secret = created["webhook_secret"].as_str().expect("a secret").to_owned();
        let table = Table::of_created(&created);
        play_turns(&[&first], &table, 3).await;
        let events = first.log(&table, 0).await.len();
        // The receiver is refusing: every delivery is still pending when the process dies.
        receiver.wait_for("a refused attempt", |r| !r.is_empty()).await;
        kill(first);
        let refused = receiver.all();
        let second = Binary::start_testing(&database, &[]).await;
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
        kill(second);
        drop_database(&database).await;
    }
}
