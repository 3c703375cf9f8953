//! An idle replica waits for work instead of polling for it (docs/operations.md#background-work):
//! with nothing to do, and streams of games nobody plays open, its background passes wake
//! only by a commit's announcement, by a due time they read, or by their slow backstop, so that
//! the database hears next to nothing from it. Counted at the test helpers' proxy (statements,
//! each at most one transaction), over a span of real time, with the passes at their own pace
//! (whole seconds, the default webhook retry): polling at a second or less sends dozens.

use std::time::{Duration, Instant};

use continental::config::{AsyncSettings, DatabaseSettings};
use serde_json::json;

use crate::helpers::{
    Backend, Proxy, Spawn, TestApp, create, fresh_database, postgres_url, test_async, upstream_of,
};

/// The span counted.
const SPAN: Duration = Duration::from_secs(6);

/// Statements an idle replica may send in [`SPAN`]: two a second. A pass's backstop (15 s)
/// comes once in the span at most, each with a read or three; polling sends one a second or
/// more per pass.
const AT_MOST: u64 = 12;

/// How long the start's own reads (each pass runs once as it starts, and again when its
/// listener first listens; each stream reads the log once) may take to be over.
const SETTLED_WITHIN: Duration = Duration::from_secs(10);

#[actix_web::test]
async fn an_idle_replica_with_open_streams_sends_the_database_almost_nothing() {
    let Some(url) = postgres_url() else {
        return;
    };
    let proxy = Proxy::start(upstream_of(&url)).await;
    let DatabaseSettings::Postgres { url: direct } = fresh_database(&Backend::Postgres).await else {
        unreachable!("a PostgreSQL database")
    };
    let through = proxy.url_through(&direct);
    // The proxy reads the statements only where TLS does not hide them.
    let separator = if through.contains('?') { '&' } else { '?' };
    let app = TestApp::spawn_with(
        &Backend::Postgres,
        Spawn {
            test_mode: true,
            database: Some(DatabaseSettings::Postgres {
                url: format!("{through}{separator}sslmode=disable"),
            }),
            asynchronous: Some(AsyncSettings {
                test_second_ms: None,
                webhook_retry_s: 2.0,
                ..test_async()
            }),
            ..Spawn::default()
        },
    )
    .await;
    // Games nobody plays, every seat's stream open.
    let mut streams = Vec::new();
    for seed in 0..4 {
        let table = create(&app, "may_i", 2, seed, json!({})).await;
        for token in &table.tokens {
            streams.push(app.stream(&table.id, token, "", &[]).await);
        }
    }
    let settled = settle(&proxy).await;
    let before = proxy.statements();
    let started = Instant::now();
    tokio::time::sleep(SPAN).await;
    let sent = proxy.statements() - before;
    let took = started.elapsed();
    assert!(
        sent <= AT_MOST,
        "an idle replica with {} streams open sent {sent} statements in {took:?} (at most {AT_MOST}; \
         settled after the start: {settled})",
        streams.len()
    );
    drop(streams);
    app.clean_up().await;
}

/// Waits until the proxy has counted no statement for a second (the start's reads over), at
/// most [`SETTLED_WITHIN`]; says whether it did (a replica that polls never does).
async fn settle(proxy: &Proxy) -> bool {
    let deadline = Instant::now() + SETTLED_WITHIN;
    let mut seen = proxy.statements();
    let mut quiet_since = Instant::now();
    while Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = proxy.statements();
        if now != seen {
            seen = now;
            quiet_since = Instant::now();
        } else if quiet_since.elapsed() >= Duration::from_secs(1) {
            return true;
        }
    }
    false
}
