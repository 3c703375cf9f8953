//! Live event streams: exact resume, delivery across replicas, a listener that survives its
//! connection being killed, the cap on streams, and shutdown with streams open.

use std::time::Duration;

use continental::config::Limits;
use serde_json::json;

use crate::helpers::{
    Backend, Spawn, Sse, SseReader, Table, TestApp, backends, create, document, server_backends,
};
use crate::on_every_backend;

/// How long a test waits for something that should come at once (a bound, not a measure).
const PATIENCE: Duration = Duration::from_secs(30);

/// The last event's sequence number, as seat 0 sees the log.
async fn last_seq(app: &TestApp, table: &Table) -> i64 {
    app.log(table, 0).await.last().map_or(0, |e| e.seq)
}

fn ids(events: &[Sse]) -> Vec<i64> {
    events.iter().filter_map(|e| e.id).collect()
}

async fn resumes_exactly(app: &TestApp) {
    let table = create(app, "may_i", 3, 9, json!({})).await;
    let last = last_seq(app, &table).await;
    assert!(last > 3, "a dealt game has several events: {last}");

    let mut by_header = app
        .stream(&table.id, &table.tokens[0], "", &[("last-event-id", "2")])
        .await;
    let mut by_query = app.stream(&table.id, &table.tokens[0], "?after=3", &[]).await;
    let mut header_wins = app
        .stream(&table.id, &table.tokens[0], "?after=1", &[("last-event-id", "3")])
        .await;
    assert_eq!(
        ids(&by_header.until(last).await),
        (3..=last).collect::<Vec<_>>(),
        "Last-Event-ID 2 resumes at 3, each event once"
    );
    assert_eq!(
        ids(&by_query.until(last).await),
        (4..=last).collect::<Vec<_>>(),
        "?after=3 resumes at 4"
    );
    assert_eq!(
        ids(&header_wins.until(last).await),
        (4..=last).collect::<Vec<_>>(),
        "Last-Event-ID wins over ?after"
    );

    // Live now: the next move's events come once each, right after the history.
    app.draw_in_turn(&table).await;
    let after = last_seq(app, &table).await;
    for stream in [&mut by_header, &mut by_query, &mut header_wins] {
        let live = stream.until(after).await;
        assert_eq!(
            ids(&live),
            (last + 1..=after).collect::<Vec<_>>(),
            "no gap, no duplicate"
        );
        assert_eq!(live[0].event, "drew", "{live:?}");
    }
}
on_every_backend!(streams_resume_exactly_on_every_backend, resumes_exactly);

async fn refuses_streams_over_the_cap(backend: &Backend) {
    let app = TestApp::spawn_with(
        backend,
        Spawn {
            test_mode: true,
            limits: Some(Limits {
                max_streams: 1,
                ..Limits::default()
            }),
            ..Spawn::default()
        },
    )
    .await;
    let table = create(&app, "may_i", 3, 9, json!({})).await;
    let first = app.stream(&table.id, &table.tokens[0], "", &[]).await;
    let refused = app
        .get_as(&format!("/v1/games/{}/stream", table.id), &table.tokens[1])
        .await;
    refused.assert_problem(503, "too_many_streams", "a second stream over a cap of one");
    assert!(
        refused
            .header("retry-after")
            .is_some_and(|s| s.parse::<u32>().is_ok()),
        "503 says when to retry"
    );
    drop(first);
    app.clean_up().await;
}

#[actix_web::test]
async fn a_replica_refuses_streams_over_its_cap() {
    for backend in backends() {
        refuses_streams_over_the_cap(&backend).await;
    }
}

#[actix_web::test]
async fn shutdown_closes_open_streams_at_once() {
    for backend in backends() {
        let mut app = TestApp::spawn(&backend).await;
        let table = create(&app, "may_i", 3, 9, json!({})).await;
        let last = last_seq(&app, &table).await;
        let mut streams = Vec::new();
        for _ in 0..3 {
            let mut s = app.stream(&table.id, &table.tokens[0], "", &[]).await;
            s.until(last).await;
            streams.push(s);
        }
        app.stopper.stop().await;
        for s in &mut streams {
            let end = s.next().await.expect("a last word before the end");
            assert_eq!(end.event, "error", "a stream cut by shutdown says so: {end:?}");
            assert!(end.data.contains("shutting_down"), "{end:?}");
            let data: serde_json::Value = serde_json::from_str(&end.data).expect("JSON data");
            let document = document();
            let schemas = &document["components"]["schemas"];
            let data_schema = schemas["StreamErrorMessage"]["properties"]["data"]["contentSchema"]["$ref"]
                .as_str()
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
                .expect("the error message's data names its schema");
            let documented = &schemas[data_schema]["properties"]["code"]["enum"];
            assert!(
                documented
                    .as_array()
                    .is_some_and(|codes| codes.contains(&data["code"])),
                "the document lists the stream's error code: {data} in {documented}"
            );
            assert!(s.next().await.is_none(), "then the stream ends");
        }
        drop(streams);
        tokio::time::timeout(PATIENCE, &mut app.server)
            .await
            .expect("the server stops with streams open")
            .expect("the server task")
            .expect("the server stops cleanly");
        app.clean_up().await;
    }
}

/// Two replicas on one database, for each database server there is (PostgreSQL, Citus).
async fn replica_pairs() -> Vec<(TestApp, TestApp)> {
    let mut pairs = Vec::new();
    for backend in server_backends() {
        let a = TestApp::spawn(&backend).await;
        let b = TestApp::spawn_with(
            &backend,
            Spawn {
                test_mode: true,
                database: Some(a.database.clone()),
                ..Spawn::default()
            },
        )
        .await;
        pairs.push((a, b));
    }
    pairs
}

/// A game made on `a`, its last seq, and a stream of it on `b` that has read up to there.
async fn watched_on(
    a: &TestApp,
    b: &TestApp,
) -> (
    Table,
    i64,
    SseReader<
        impl futures_util::Stream<Item = Result<actix_web::web::Bytes, awc::error::PayloadError>> + Unpin + use<>,
    >,
) {
    let table = create(a, "may_i", 3, 9, json!({})).await;
    let last = last_seq(a, &table).await;
    let mut stream = b.stream(&table.id, &table.tokens[0], "", &[]).await;
    stream.until(last).await;
    (table, last, stream)
}

#[actix_web::test]
async fn an_event_made_on_one_replica_reaches_a_stream_on_another() {
    for (a, b) in replica_pairs().await {
        let (table, last, mut stream) = watched_on(&a, &b).await;
        a.draw_in_turn(&table).await;
        let after = last_seq(&a, &table).await;
        let live = stream.until(after).await;
        assert_eq!(
            ids(&live),
            (last + 1..=after).collect::<Vec<_>>(),
            "{:?}: pushed from replica a to b",
            a.backend
        );
        drop(stream);
        a.clean_up().await;
    }
}

#[actix_web::test]
async fn the_listener_survives_its_connection_being_killed() {
    for (a, b) in replica_pairs().await {
        the_listener_survives_on(&a, &b).await;
    }
}

async fn the_listener_survives_on(a: &TestApp, b: &TestApp) {
    let (table, last, mut stream) = watched_on(a, b).await;

    // Kill every LISTEN session on the database (both replicas'), then move at once: the
    // announcement may go to nobody, and the streams still get the event.
    let url = match &a.database {
        continental::config::DatabaseSettings::Postgres { url } => url.clone(),
        other => panic!("a PostgreSQL database, not {other:?}"),
    };
    let pool = sqlx::PgPool::connect(&url).await.expect("a connection");
    let killed: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = current_database() AND query ILIKE 'LISTEN%') AS t",
    )
    .fetch_one(&pool)
    .await
    .expect("terminate the listeners");
    assert!(killed >= 1, "the listener sessions were found and killed");
    pool.close().await;

    a.draw_in_turn(&table).await;
    let after = last_seq(a, &table).await;
    let live = stream.until(after).await;
    assert_eq!(
        ids(&live),
        (last + 1..=after).collect::<Vec<_>>(),
        "{:?}: nothing lost",
        a.backend
    );
    drop(stream);
    a.clean_up().await;
}
