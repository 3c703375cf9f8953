//! Faults and limits: a database that hangs or goes away (through a TCP proxy), a game whose
//! row another transaction holds, half-sent requests, rate limits, and storage that is swept.
//! Every wait is bounded; none of the assertions is about speed.

use std::str::FromStr;
use std::time::{Duration, Instant};

use continental::config::{AsyncSettings, DatabaseSettings, Limits, MatchmakingSettings};
use continental::store::{Database, Store, now};
use engine::DrawSource;
use futures_util::StreamExt;
use futures_util::future::join_all;
use futures_util::stream::FuturesUnordered;
use serde_json::json;
use sqlx::Connection;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::{
    ACME, ACME_ROTATED, BETA, Backend, Binary, HUNG_WITHIN, Proxy, Reply, STUDIO_KEYS, Spawn, Table, TestApp,
    assert_unavailable, backends, create, draw, drop_database, eventually, fresh_database, hold_game, keyed,
    once_available, play_turns, postgres_url, quick, server_backends, timed, upstream_of, within,
};

/// The service in test mode on a fresh database of `backend`, with these limits.
async fn spawn_limited(backend: &Backend, limits: Limits) -> TestApp {
    TestApp::spawn_with(
        backend,
        Spawn {
            test_mode: true,
            limits: Some(limits),
            ..Spawn::default()
        },
    )
    .await
}

/// `/readyz` says "not ready" within this.
const READY_WITHIN: Duration = Duration::from_secs(1);

/// Waits (15 s at most) until `/readyz` says ready again, once the database is back.
async fn ready_again(app: &TestApp) {
    eventually(
        Duration::from_secs(15),
        "/readyz after the database is back",
        async || {
            let r = app.get("/readyz").await;
            if r.status.as_u16() == 200 {
                Ok(())
            } else {
                Err(r.text())
            }
        },
    )
    .await;
}

/// The service on a fresh PostgreSQL database reached through a proxy; `None` without PostgreSQL.
async fn behind_proxy(limits: Limits) -> Option<(Proxy, TestApp)> {
    let url = postgres_url()?;
    let proxy = Proxy::start(upstream_of(&url)).await;
    let DatabaseSettings::Postgres { url: direct } = fresh_database(&Backend::Postgres).await else {
        unreachable!("a PostgreSQL database")
    };
    let database = DatabaseSettings::Postgres {
        url: proxy.url_through(&direct),
    };
    let app = TestApp::spawn_with(
        &Backend::Postgres,
        Spawn {
            test_mode: true,
            database: Some(database),
            limits: Some(limits),
            ..Spawn::default()
        },
    )
    .await;
    Some((proxy, app))
}

/// "Play with bots now" while the database is gone answers 503 and seats nothing; once it is
/// back the same call seats the ticket.
#[actix_web::test]
async fn play_with_bots_now_without_the_database_answers_503_and_seats_nothing() {
    let Some(url) = postgres_url() else {
        return;
    };
    let proxy = Proxy::start(upstream_of(&url)).await;
    let DatabaseSettings::Postgres { url: direct } = fresh_database(&Backend::Postgres).await else {
        unreachable!("a PostgreSQL database")
    };
    let app = TestApp::spawn_with(
        &Backend::Postgres,
        Spawn {
            test_mode: true,
            database: Some(DatabaseSettings::Postgres {
                url: proxy.url_through(&direct),
            }),
            limits: Some(quick()),
            matchmaking: Some(MatchmakingSettings {
                ticket_ttl: Duration::from_secs(600),
                async_ticket_ttl: Duration::from_secs(600),
                bots_after: Some(Duration::from_secs(600)),
                interval: Duration::from_millis(50),
            }),
            ..Spawn::default()
        },
    )
    .await;
    let queued = app
        .post(
            "/v1/matchmaking/tickets",
            &json!({"name": "Ann", "variant": "may_i", "sizes": [2, 3, 4]}),
        )
        .await;
    assert_eq!(queued.status.as_u16(), 201, "{}", queued.text());
    let ticket = format!(
        "/v1/matchmaking/tickets/{}",
        queued.json()["ticket"]["id"].as_str().expect("an id")
    );
    let bots = format!("{ticket}/bots");

    proxy.cut();
    let refused = timed(
        HUNG_WITHIN,
        "play with bots now while the database is gone",
        app.send("POST", &bots, None, &[]),
    )
    .await;
    assert_unavailable(
        &refused,
        "service_unavailable",
        "play with bots now, database gone",
    );

    proxy.restore();
    ready_again(&app).await;
    assert_eq!(
        app.get(&ticket).await.json()["status"],
        "waiting",
        "nothing was seated"
    );
    let seated = app.send("POST", &bots, None, &[]).await;
    assert_eq!(seated.status.as_u16(), 200, "{}", seated.text());
    assert_eq!(
        seated.json()["status"],
        "matched",
        "seated once the database is back"
    );
    app.clean_up().await;
}

#[actix_web::test]
async fn a_hung_database_answers_503_and_recovers() {
    let Some((proxy, app)) = behind_proxy(quick()).await else {
        return;
    };
    let table = create(&app, "may_i", 2, 3, json!({})).await;
    let game = format!("/v1/games/{}", table.id);

    proxy.hang();
    let read = timed(
        HUNG_WITHIN,
        "a read while the database hangs",
        app.get_as(&game, &table.tokens[0]),
    )
    .await;
    assert_unavailable(&read, "service_unavailable", "a read while the database hangs");
    let draw = timed(
        HUNG_WITHIN,
        "a move while the database hangs",
        app.post_as(
            &format!("{game}/draw"),
            &table.tokens[0],
            &json!({"source": "stock"}),
            &[],
        ),
    )
    .await;
    assert_unavailable(&draw, "service_unavailable", "a move while the database hangs");
    let ready = timed(
        READY_WITHIN,
        "/readyz while the database hangs",
        app.get("/readyz"),
    )
    .await;
    assert_unavailable(&ready, "service_unavailable", "/readyz while the database hangs");
    let health = within(
        Duration::from_secs(10),
        "/healthz while the database hangs",
        app.get("/healthz"),
    )
    .await;
    assert_eq!(
        health.status.as_u16(),
        200,
        "/healthz does not depend on the database"
    );

    proxy.restore();
    ready_again(&app).await;
    let read = app.get_as(&game, &table.tokens[0]).await;
    assert_eq!(read.status.as_u16(), 200, "the service recovers with no restart");
    let metrics = String::from_utf8_lossy(&app.get("/metrics").await.body).into_owned();
    assert!(
        metrics.contains("continental_database_errors_total{kind=\"unavailable\"}"),
        "database errors are counted: {metrics}"
    );
    app.clean_up().await;
}

/// A keyed move refused while the database is `down` (cut or hung) through `proxy`, retried
/// with its key once it is back: applied exactly once, and a further retry replays it.
async fn a_keyed_retry_after_an_outage_applies_once(
    proxy: &Proxy,
    app: &TestApp,
    down: fn(&Proxy),
    how: &str,
) {
    let table = create(app, "may_i", 2, 3, json!({})).await;
    let game = format!("/v1/games/{}", table.id);
    let seat = app.in_turn(&table).await;
    let before = app.get_as(&game, &table.tokens[seat]).await.json()["version"].clone();
    let draw = format!("{game}/draw");
    let key = [("idempotency-key", "draw-through-the-outage")];
    let body = json!({"source": "stock"});

    down(proxy);
    let refused = timed(HUNG_WITHIN, &format!("{how}: a keyed move"), async {
        app.post_as(&draw, &table.tokens[seat], &body, &key).await
    })
    .await;
    assert_unavailable(&refused, "service_unavailable", &format!("{how}: a keyed move"));
    let ready = timed(READY_WITHIN, &format!("{how}: /readyz"), app.get("/readyz")).await;
    assert_unavailable(&ready, "service_unavailable", &format!("{how}: /readyz"));

    proxy.restore();
    let applied = once_available(
        Duration::from_secs(15),
        "the keyed retry after the database is back",
        || app.post_as(&draw, &table.tokens[seat], &body, &key),
    )
    .await;
    assert_eq!(
        applied.status.as_u16(),
        200,
        "{how}: the retry applies (or replays a first try that did): {}",
        applied.text()
    );
    let again = app.post_as(&draw, &table.tokens[seat], &body, &key).await;
    assert_eq!(
        again.body, applied.body,
        "{how}: a further retry replays the first answer"
    );
    let after = app.get_as(&game, &table.tokens[seat]).await.json()["version"].clone();
    assert_eq!(
        after.as_i64(),
        before.as_i64().map(|v| v + 1),
        "{how}: the move applied exactly once"
    );
}

#[actix_web::test]
async fn a_database_that_goes_away_answers_503_and_a_keyed_retry_applies_once() {
    let Some((proxy, app)) = behind_proxy(quick()).await else {
        return;
    };
    a_keyed_retry_after_an_outage_applies_once(&proxy, &app, Proxy::cut, "database down").await;
    app.clean_up().await;
}

#[actix_web::test]
async fn a_database_that_hangs_answers_503_and_a_keyed_retry_applies_once() {
    let Some((proxy, app)) = behind_proxy(quick()).await else {
        return;
    };
    a_keyed_retry_after_an_outage_applies_once(&proxy, &app, Proxy::hang, "database hung").await;
    app.clean_up().await;
}

/// The pool of `a_locked_game_never_stalls_the_others`, whatever the number of cores.
const SMALL_POOL: u32 = 4;

#[actix_web::test]
async fn a_locked_game_never_stalls_the_others() {
    let Some(_) = postgres_url() else { return };
    let app = spawn_limited(
        &Backend::Postgres,
        Limits {
            db_pool: Some(SMALL_POOL),
            ..quick()
        },
    )
    .await;
    let hot = create(&app, "may_i", 2, 3, json!({})).await;
    let other = create(&app, "may_i", 2, 4, json!({})).await;
    let DatabaseSettings::Postgres { url } = &app.database else {
        unreachable!("a PostgreSQL app")
    };
    let holder = hold_game(&app.database, &hot.id).await;
    let mut watcher = sqlx::PgConnection::connect(url)
        .await
        .expect("a third connection");
    let seat = app.in_turn(&hot).await;
    let draw = format!("/v1/games/{}/draw", hot.id);
    let body = json!({"source": "stock"});
    // Three times as many moves waiting on the hot game as the pool has connections.
    let moves = join_all((0..3 * SMALL_POOL).map(|_| app.post_as(&draw, &hot.tokens[seat], &body, &[])));
    let read = async {
        // Once a move waits on the hot game's row, the others are queued behind it.
        eventually(Duration::from_secs(10), "a move waits on the locked row", async || {
            let waiting: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
            )
            .fetch_one(&mut watcher)
            .await
            .expect("the activity");
            if waiting >= 1 { Ok(()) } else { Err(waiting) }
        })
        .await;
        let started = Instant::now();
        let read = app.view(&other, 0).await;
        (read, started.elapsed())
    };
    let (moves, read) = within(
        Duration::from_secs(30),
        "moves on a locked game and a read of another",
        async { tokio::join!(moves, read) },
    )
    .await;
    let (read, took) = read;
    assert_eq!(read.status.as_u16(), 200, "another game answers: {}", read.text());
    assert!(
        took < Duration::from_secs(1),
        "another game answers at once, not when the pool frees up: {took:?}"
    );
    for r in &moves {
        assert_unavailable(r, "game_busy", "a move on a game locked past the lock timeout");
    }

    holder.release().await;
    let drew = app.post_as(&draw, &hot.tokens[seat], &body, &[]).await;
    assert_eq!(
        drew.status.as_u16(),
        200,
        "the game moves again once its row is free"
    );
    app.clean_up().await;
}

/// Sends `head` on a fresh connection and reads until the server closes it.
async fn half_sent(address: &str, head: &str) -> String {
    let host = address.trim_start_matches("http://");
    let mut socket = TcpStream::connect(host).await.expect("connect to the service");
    socket.write_all(head.as_bytes()).await.expect("send the head");
    let mut answer = Vec::new();
    // read_to_end returns only once the server has closed the connection.
    let _ = socket.read_to_end(&mut answer).await;
    String::from_utf8_lossy(&answer).into_owned()
}

/// Posts `chunks` to the meld validator on a fresh connection, as a chunked body, one chunk at
/// a time: the answer's status line and body.
async fn validate_in_chunks(address: &str, chunks: &[&str]) -> String {
    let host = address.trim_start_matches("http://");
    let mut socket = TcpStream::connect(host).await.expect("connect to the service");
    let head = "POST /v1/melds/validate HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    socket.write_all(head.as_bytes()).await.expect("send the head");
    for chunk in chunks {
        let sent = format!("{:x}\r\n{chunk}\r\n", chunk.len());
        socket.write_all(sent.as_bytes()).await.expect("send a chunk");
        socket.flush().await.expect("flush");
        // The pause is the test: each piece arrives on its own, not with the next.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let _ = socket.write_all(b"0\r\n\r\n").await;
    let mut answer = Vec::new();
    let _ = timed(CLOSED_WITHIN, "the answer", socket.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer).into_owned()
}

#[actix_web::test]
async fn a_body_in_pieces_is_read_whole_and_bounded_as_a_whole() {
    let app = spawn_limited(&Backend::Sqlite, quick()).await;
    let answer = validate_in_chunks(
        &app.address,
        &[
            r#"{"variant":"may_i","#,
            r#""cards":["5H","6H","#,
            r#""JK","8H"]}"#,
        ],
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains(r#""valid":true"#), "{answer}");
    // No length declared: only the pieces, added up, pass the 8 KiB limit.
    let piece = " ".repeat(3000);
    let answer = validate_in_chunks(
        &app.address,
        &[
            r#"{"variant":"may_i","#,
            &piece,
            &piece,
            &piece,
            r#""cards":["5H","6H","7H"]}"#,
        ],
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("body_too_large"), "{answer}");
    app.clean_up().await;
}

/// A half-sent request is answered and closed within this (its timeout is 1 s).
const CLOSED_WITHIN: Duration = Duration::from_secs(3);

#[actix_web::test]
async fn half_sent_requests_are_closed() {
    for backend in backends() {
        let app = spawn_limited(&backend, quick()).await;
        let no_body = "POST /v1/games HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n";
        let no_end_of_headers = "POST /v1/games HTTP/1.1\r\nHost: test\r\n";
        let answers = within(
            Duration::from_secs(20),
            "half-sent requests are closed",
            join_all((0..20).map(|i| {
                let head = if i % 2 == 0 { no_body } else { no_end_of_headers };
                timed(
                    CLOSED_WITHIN,
                    "a half-sent request is closed",
                    half_sent(&app.address, head),
                )
            })),
        )
        .await;
        for (i, answer) in answers.iter().enumerate() {
            assert!(
                answer.starts_with("HTTP/1.1 408"),
                "{backend:?} connection {i}: answered 408 before closing, got {answer:?}"
            );
        }
        let after = app.get("/healthz").await;
        assert_eq!(
            after.status.as_u16(),
            200,
            "{backend:?}: the service still answers"
        );
        app.clean_up().await;
    }
}

#[actix_web::test]
async fn past_the_rate_limit_a_client_gets_429() {
    let app = spawn_limited(
        &Backend::Sqlite,
        Limits {
            rate_limit: std::num::NonZeroU32::new(1),
            ..Limits::default()
        },
    )
    .await;
    let replies = join_all((0..5).map(|_| app.get("/v1/rulesets"))).await;
    let limited: Vec<&Reply> = replies.iter().filter(|r| r.status.as_u16() == 429).collect();
    assert!(
        !limited.is_empty(),
        "five requests at once against a limit of one per second: {:?}",
        replies.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    for r in limited {
        r.assert_problem(429, "rate_limited", "past the rate limit");
        let wait: u64 = r
            .header("retry-after")
            .and_then(|v| v.parse().ok())
            .expect("Retry-After");
        assert!(wait >= 1, "Retry-After {wait}");
        // Refused at the edge, and still given an id there (so logged and counted too).
        assert!(
            r.header("x-request-id").is_some(),
            "a refusal carries its request id"
        );
    }
    for _ in 0..3 {
        let health = app.get("/healthz").await;
        assert_eq!(health.status.as_u16(), 200, "probes are never limited");
    }
    app.clean_up().await;
}

/// A studio's back end counts as its tenant, whichever of its keys it sends; a key no tenant
/// holds counts as the address it comes from, so that changing it escapes nothing.
#[actix_web::test]
async fn the_rate_limit_counts_a_server_key_by_its_tenant() {
    let app = TestApp::spawn_with(
        &Backend::Sqlite,
        Spawn {
            test_mode: true,
            api_keys: STUDIO_KEYS.into(),
            limits: Some(Limits {
                rate_limit: std::num::NonZeroU32::new(1),
                ..Limits::default()
            }),
            ..Spawn::default()
        },
    )
    .await;
    let codes = |replies: &[Reply]| replies.iter().map(|r| r.status.as_u16()).collect::<Vec<_>>();
    let acme = join_all([ACME, ACME_ROTATED].map(|key| app.get_with_key("/v1/games", key))).await;
    assert!(
        codes(&acme).contains(&429),
        "both of acme's keys at once share one request a second: {:?}",
        codes(&acme)
    );
    let beta = app.get_with_key("/v1/games", BETA).await;
    assert_eq!(beta.status.as_u16(), 200, "another tenant has its own allowance");
    let made_up: Vec<String> = (0..5).map(|i| format!("made-up-key-{i:010}")).collect();
    let bogus = join_all(made_up.iter().map(|key| app.get_with_key("/v1/games", key))).await;
    assert!(
        codes(&bogus).contains(&429),
        "keys no tenant holds count as one address: {:?}",
        codes(&bogus)
    );
    app.clean_up().await;
}

/// A two-player game that is over: one of its players left.
async fn a_game_that_is_over(app: &TestApp) -> Table {
    let over = create(app, "may_i", 2, 5, json!({})).await;
    let left = app
        .post_as(
            &format!("/v1/games/{}/leave", over.id),
            &over.tokens[0],
            &json!({}),
            &[],
        )
        .await;
    assert_eq!(
        left.status.as_u16(),
        200,
        "{:?}: leave: {}",
        app.backend,
        left.text()
    );
    over
}

async fn expired_keys_and_old_games_are_swept(app: &TestApp) {
    let ctx = format!("{:?}", app.backend);
    let table = create(app, "may_i", 2, 3, json!({})).await;
    let seat = app.in_turn(&table).await;
    let first = app.act(&table, seat, &draw(DrawSource::Stock), &keyed("k")).await;
    assert_eq!(first.status.as_u16(), 200, "{ctx}: the keyed draw");
    app.act(&table, seat, &draw(DrawSource::Discard), &keyed("k"))
        .await
        .assert_problem(422, "idempotency_key_reused", &format!("{ctx}: the key is kept"));
    // A second game, over.
    let over = a_game_that_is_over(app).await;
    let status = app.view(&over, 1).await.json()["status"].clone();
    assert!(
        status == "void" || status == "finished",
        "{ctx}: a two-player game someone left is over: {status}"
    );

    let db = Database::connect(
        &app.database,
        None,
        &Limits::default(),
        &continental::store::Live::new(1),
    )
    .await
    .expect("a second connection to the app's database");
    let at = now();
    let kept = db.sweep(at - 3600, at - 3600).await.expect("sweep");
    assert_eq!(
        (kept.keys, kept.games),
        (0, 0),
        "{ctx}: nothing is swept before its time"
    );
    app.act(&table, seat, &draw(DrawSource::Discard), &keyed("k"))
        .await
        .assert_problem(
            422,
            "idempotency_key_reused",
            &format!("{ctx}: the key is still kept"),
        );

    let swept = db.sweep(at + 1, at + 1).await.expect("sweep");
    assert!(swept.keys >= 1, "{ctx}: the expired key is swept: {swept:?}");
    assert_eq!(swept.games, 1, "{ctx}: only the game that is over is purged");
    let afresh = app
        .act(&table, seat, &draw(DrawSource::Discard), &keyed("k"))
        .await;
    assert_ne!(
        afresh.status.as_u16(),
        422,
        "{ctx}: once swept, the key is judged afresh: {}",
        afresh.text()
    );
    app.view(&over, 1).await.assert_problem(
        404,
        "game_not_found",
        &format!("{ctx}: the purged game is gone"),
    );
    let playing = app.view(&table, 0).await;
    assert_eq!(playing.status.as_u16(), 200, "{ctx}: a game in play is kept");
}
crate::on_every_backend!(
    expired_keys_and_old_games_are_swept_on_every_backend,
    expired_keys_and_old_games_are_swept
);

#[actix_web::test]
async fn the_periodic_sweep_expires_keys() {
    let app = spawn_limited(
        &Backend::Sqlite,
        Limits {
            idempotency_ttl: Duration::ZERO,
            sweep_interval: Duration::from_millis(200),
            ..Limits::default()
        },
    )
    .await;
    let table = create(&app, "may_i", 2, 3, json!({})).await;
    let seat = app.in_turn(&table).await;
    assert_eq!(
        app.act(&table, seat, &draw(DrawSource::Stock), &keyed("k"))
            .await
            .status
            .as_u16(),
        200
    );
    eventually(
        Duration::from_secs(15),
        "the key expires and is swept",
        async || {
            let r = app
                .act(&table, seat, &draw(DrawSource::Discard), &keyed("k"))
                .await;
            if r.status.as_u16() == 422 {
                Err(r.text())
            } else {
                Ok(r)
            }
        },
    )
    .await;
    app.clean_up().await;
}

#[test]
fn a_url_through_the_proxy_keeps_user_database_and_query() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let proxy = Proxy::start(upstream_of("postgres://postgres@127.0.0.1:5432/x")).await;
        let through = proxy.url_through("postgres://u:p@127.0.0.1:5432/db?sslmode=disable");
        assert_eq!(
            through,
            format!("postgres://u:p@{}/db?sslmode=disable", proxy.address)
        );
        assert!(sqlx::postgres::PgConnectOptions::from_str(&through).is_ok());
    });
}

/// What a seat can see of its game: version, hand size, last event.
async fn footprint(app: &TestApp, table: &Table, seat: usize) -> (i64, usize, i64) {
    let view = app.view(table, seat).await.json();
    let events = app
        .get_as(&format!("/v1/games/{}/events", table.id), &table.tokens[seat])
        .await
        .json();
    (
        view["version"].as_i64().expect("a version"),
        view["you"]["hand"].as_array().expect("a hand").len(),
        events["last_seq"].as_i64().expect("a last_seq"),
    )
}

#[actix_web::test]
async fn a_database_lost_under_load_leaves_no_partial_move() {
    let Some((proxy, app)) = behind_proxy(quick()).await else {
        return;
    };
    let mut tables = Vec::new();
    for seed in 0..24 {
        let table = create(&app, "may_i", 2, 100 + seed, json!({})).await;
        let seat = app.in_turn(&table).await;
        let before = footprint(&app, &table, seat).await;
        tables.push((table, seat, before));
    }
    let body = json!({"source": "stock"});
    let paths: Vec<String> = tables
        .iter()
        .map(|(t, _, _)| format!("/v1/games/{}/draw", t.id))
        .collect();
    let (app_ref, body_ref) = (&app, &body);
    let mut draws: FuturesUnordered<_> = tables
        .iter()
        .zip(&paths)
        .enumerate()
        .map(|(i, ((t, seat, _), path))| async move {
            (i, app_ref.post_as(path, &t.tokens[*seat], body_ref, &[]).await)
        })
        .collect();
    let replies = within(
        Duration::from_secs(20),
        "draws while the database goes away",
        async {
            let mut replies = Vec::new();
            // The database goes away as soon as the first draw is answered, with the rest in flight.
            if let Some(first) = draws.next().await {
                replies.push(first);
            }
            proxy.cut();
            while let Some(next) = draws.next().await {
                replies.push(next);
            }
            replies.sort_by_key(|(i, _)| *i);
            replies.into_iter().map(|(_, r)| r).collect::<Vec<_>>()
        },
    )
    .await;
    assert!(
        replies.iter().any(|r| r.status.as_u16() == 503),
        "a draw was in flight when the database went away: {:?}",
        replies.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    for r in &replies {
        assert!(
            matches!(r.status.as_u16(), 200 | 503),
            "a draw either applies or answers 503, never 500: {} {}",
            r.status,
            r.text()
        );
    }
    proxy.restore();
    ready_again(&app).await;
    for ((table, seat, (version, hand, last)), reply) in tables.iter().zip(&replies) {
        let after = footprint(&app, table, *seat).await;
        if after.0 == version + 1 {
            assert!(
                after.1 == hand + 1 && after.2 > *last,
                "an applied draw is whole: one card more and its events ({version}, {hand}, {last}) -> {after:?}"
            );
        } else {
            assert_eq!(
                after,
                (*version, *hand, *last),
                "a draw that did not apply left nothing"
            );
            assert_eq!(reply.status.as_u16(), 503, "and was not answered as applied");
        }
    }
    app.clean_up().await;
}

/// The pool's connections, ended by the database while the service is quiet (a restart, an
/// idle timeout, an operator), are replaced before a request would use them: no request
/// answers 503 for it.
#[actix_web::test]
async fn connections_ended_in_a_quiet_spell_cost_no_request() {
    const POOL: u32 = 8;
    if postgres_url().is_none() {
        return;
    }
    // The background passes at their production pace (once a second), so that the pool's
    // connections do stay idle; they use a few of them meanwhile.
    let app = TestApp::spawn_with(
        &Backend::Postgres,
        Spawn {
            test_mode: true,
            limits: Some(Limits {
                db_pool: Some(POOL),
                ..quick()
            }),
            asynchronous: Some(AsyncSettings::default()),
            ..Spawn::default()
        },
    )
    .await;
    let table = create(&app, "may_i", 2, 7, json!({})).await;
    let game = format!("/v1/games/{}", table.id);
    // More reads at once than the pool holds, so that every one of its connections is open.
    let reads = join_all((0..2 * POOL).map(|_| app.get_as(&game, &table.tokens[0]))).await;
    assert!(reads.iter().all(|r| r.status.as_u16() == 200), "reads before");
    let DatabaseSettings::Postgres { url } = &app.database else {
        unreachable!("a PostgreSQL database")
    };
    let mut admin = sqlx::PgConnection::connect(url).await.expect("a connection");
    let ended: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = current_database() AND pid <> pg_backend_pid()) AS t",
    )
    .fetch_one(&mut admin)
    .await
    .expect("end the service's sessions");
    assert!(ended >= 2, "the pool's sessions were found and ended ({ended})");
    admin.close().await.expect("close");
    tokio::time::sleep(Duration::from_millis(1500)).await;

    // The pool hands out its longest idle connection first: these reads go through them all.
    for _ in 0..POOL {
        app.get_as(&game, &table.tokens[0])
            .await
            .ok("a read after the quiet spell");
    }
    app.draw_in_turn(&table).await;
    app.clean_up().await;
}

#[actix_web::test]
async fn a_locked_sqlite_file_answers_503_not_a_hang() {
    let app = spawn_limited(&Backend::Sqlite, quick()).await;
    let table = create(&app, "may_i", 2, 3, json!({})).await;
    let seat = app.in_turn(&table).await;
    // Another process's writer, as far as the service can tell.
    let holder = hold_game(&app.database, &table.id).await;
    let moved = timed(
        Duration::from_secs(2),
        "a move while the file is locked",
        app.act(&table, seat, &draw(DrawSource::Stock), &[]),
    )
    .await;
    assert_unavailable(
        &moved,
        "service_unavailable",
        "a move while another writer holds the file",
    );
    let read = within(
        Duration::from_secs(10),
        "a read while the file is locked",
        app.view(&table, 0),
    )
    .await;
    assert_eq!(
        read.status.as_u16(),
        200,
        "readers are not blocked by a writer (WAL)"
    );
    holder.release().await;
    let drew = app.act(&table, seat, &draw(DrawSource::Stock), &[]).await;
    assert_eq!(
        drew.status.as_u16(),
        200,
        "the move goes through once the file is free"
    );
    app.clean_up().await;
}

/// Reads from `socket` until an answer's status line has come, or `wait` has passed: `None`
/// when nothing came in time.
async fn answer_within(socket: &mut TcpStream, wait: Duration) -> Option<String> {
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    let read = tokio::time::timeout(wait, async {
        loop {
            match socket.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
            if answer.windows(2).any(|w| w == b"\r\n") {
                return;
            }
        }
    })
    .await;
    (read.is_ok() && !answer.is_empty()).then(|| String::from_utf8_lossy(&answer).into_owned())
}

#[actix_web::test]
async fn past_the_connection_cap_a_client_waits_until_one_closes() {
    let app = spawn_limited(
        &Backend::Sqlite,
        Limits {
            max_connections: 2,
            // Longer than the test: the idle sockets are not closed for being idle.
            request_timeout: Duration::from_secs(20),
            ..Limits::default()
        },
    )
    .await;
    let host = app.address.trim_start_matches("http://").to_owned();
    let mut idle = Vec::new();
    for _ in 0..2 {
        let mut open = TcpStream::connect(&host).await.expect("a connection");
        // Answered once, so the server has taken it; it stays open, idle (kept alive).
        open.write_all(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
            .await
            .expect("send a request");
        let answer = answer_within(&mut open, Duration::from_secs(10)).await;
        assert!(
            answer.as_deref().is_some_and(|a| a.starts_with("HTTP/1.1 200")),
            "a connection under the cap is served: {answer:?}"
        );
        idle.push(open);
    }
    let mut third = TcpStream::connect(&host)
        .await
        .expect("the kernel takes the third");
    third
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        .await
        .expect("send a request");
    // Silence is what is tested: nothing the server does shows that it holds the third back.
    let early = answer_within(&mut third, Duration::from_millis(700)).await;
    assert_eq!(
        early, None,
        "a third connection gets no answer while two are open"
    );

    drop(idle.pop());
    let answer = timed(
        Duration::from_secs(3),
        "the third request once a connection closed",
        answer_within(&mut third, Duration::from_secs(10)),
    )
    .await;
    assert!(
        answer.as_deref().is_some_and(|a| a.starts_with("HTTP/1.1 200")),
        "the third request is answered once a connection closed: {answer:?}"
    );
    app.clean_up().await;
}

/// Rows of `table` (`events`, `seats` or `idempotency_keys`) that belong to game `id`.
async fn rows_of(conn: &mut sqlx::PgConnection, table: &str, id: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM {table} WHERE game_id = $1::uuid"
    )))
    .bind(id)
    .fetch_one(conn)
    .await
    .expect("a count")
}

#[actix_web::test]
async fn the_sweep_skips_a_locked_row_and_purges_a_game_with_its_events() {
    for backend in server_backends() {
        the_sweep_skips_a_locked_row_on(&backend).await;
    }
}

async fn the_sweep_skips_a_locked_row_on(backend: &Backend) {
    let app = spawn_limited(backend, quick()).await;
    let (held, free) = (
        create(&app, "may_i", 2, 3, json!({})).await,
        create(&app, "may_i", 2, 4, json!({})).await,
    );
    for table in [&held, &free] {
        let seat = app.in_turn(table).await;
        let drew = app.act(table, seat, &draw(DrawSource::Stock), &keyed("k")).await;
        assert_eq!(drew.status.as_u16(), 200, "a keyed draw keeps its key");
    }
    let over = a_game_that_is_over(&app).await;
    let DatabaseSettings::Postgres { url } = &app.database else {
        unreachable!("a PostgreSQL app")
    };
    let mut holder = sqlx::PgConnection::connect(url)
        .await
        .expect("a second connection");
    assert!(
        rows_of(&mut holder, "events", &over.id).await > 0,
        "the game that is over has events"
    );
    // Another replica's sweep, or a request, holds one expired key's row.
    sqlx::query("BEGIN").execute(&mut holder).await.expect("begin");
    sqlx::query("SELECT key FROM idempotency_keys WHERE game_id = $1::uuid FOR UPDATE")
        .bind(&held.id)
        .execute(&mut holder)
        .await
        .expect("lock the key's row");

    let db = Database::connect(
        &app.database,
        None,
        &Limits::default(),
        &continental::store::Live::new(1),
    )
    .await
    .expect("a connection of the app's own");
    let at = now();
    let swept = timed(
        Duration::from_secs(2),
        "a sweep past a locked row",
        db.sweep(at + 1, at + 1),
    )
    .await
    .expect("the sweep");
    assert_eq!(
        (swept.keys, swept.games),
        (1, 1),
        "every expired key but the locked one, and the game that is over"
    );
    sqlx::query("ROLLBACK")
        .execute(&mut holder)
        .await
        .expect("release");
    assert_eq!(
        rows_of(&mut holder, "idempotency_keys", &held.id).await,
        1,
        "the locked key is kept"
    );
    assert_eq!(
        rows_of(&mut holder, "idempotency_keys", &free.id).await,
        0,
        "the other is swept"
    );
    for table in ["events", "seats"] {
        assert_eq!(
            rows_of(&mut holder, table, &over.id).await,
            0,
            "the purged game's {table} are gone with it"
        );
    }
    let next = db.sweep(at + 1, at + 1).await.expect("the next sweep");
    assert_eq!(next.keys, 1, "the next sweep takes the key once it is free");
    app.clean_up().await;
}

/// The value of the series `series` (name and labels as served) in `/metrics`.
/// `continental_moves_total` counts moves by variant, action and outcome from zero, and the
/// pool gauge shows the connection a move holds while it waits on its game.
async fn moves_and_the_pool_in_metrics(backend: &Backend) {
    let app = spawn_limited(
        backend,
        Limits {
            lock_timeout: Duration::from_secs(3),
            ..quick()
        },
    )
    .await;
    let ctx = format!("{backend:?}");
    let series = |variant: &str, action: &str, outcome: &str| {
        format!("continental_moves_total{{action=\"{action}\",outcome=\"{outcome}\",variant=\"{variant}\"}}")
    };
    for (variant, action, outcome) in [
        ("may_i", "draw", "applied"),
        ("may_i", "draw", "refused"),
        ("contract_7", "meld", "failed"),
    ] {
        assert_eq!(
            app.metric(&series(variant, action, outcome)).await,
            Some(0.0),
            "{ctx}: {variant} {action} {outcome} is served at zero before any move"
        );
    }
    let table = create(&app, "may_i", 2, 3, json!({})).await;
    let seat = app.in_turn(&table).await;
    let refused = app.act(&table, 1 - seat, &draw(DrawSource::Stock), &[]).await;
    assert_eq!(refused.status.as_u16(), 409, "{ctx}: a draw out of turn");
    let drew = app.act(&table, seat, &draw(DrawSource::Stock), &[]).await;
    assert_eq!(drew.status.as_u16(), 200, "{ctx}: a draw");
    assert_eq!(
        app.metric(&series("may_i", "draw", "applied")).await,
        Some(1.0),
        "{ctx}"
    );
    assert_eq!(
        app.metric(&series("may_i", "draw", "refused")).await,
        Some(1.0),
        "{ctx}"
    );

    // A discard waits on its game, held by another writer, with its pooled connection.
    let in_use = "continental_db_pool_connections{state=\"in_use\"}";
    let card = drew.json()["you"]["hand"][0].clone();
    let discard = format!("/v1/games/{}/discard", table.id);
    let discard_body = json!({"card": card});
    let holder = hold_game(&app.database, &table.id).await;
    let move_ = app.post_as(&discard, &table.tokens[seat], &discard_body, &[]);
    let scrape = async {
        // Within the lock timeout (3 s), after which the move would give up.
        eventually(
            Duration::from_secs(2),
            &format!("{ctx}: the waiting move's connection is in use"),
            async || match app.metric(in_use).await {
                Some(n) if n >= 1.0 => Ok(()),
                seen => Err(seen),
            },
        )
        .await;
        holder.release().await;
    };
    let (discarded, ()) = within(Duration::from_secs(20), "a discard waiting on its game", async {
        tokio::join!(move_, scrape)
    })
    .await;
    assert_eq!(
        discarded.status.as_u16(),
        200,
        "{ctx}: the discard goes through once the game is free: {}",
        discarded.text()
    );
    app.clean_up().await;
}

#[actix_web::test]
async fn moves_and_the_pool_show_in_metrics() {
    for backend in backends() {
        moves_and_the_pool_in_metrics(&backend).await;
    }
}

/// Rows of every kind the sweep reads, with their statistics, so that a planner picks as it
/// would on a database in use, where a batch is a small part of what expired: two games in
/// three finished, a key of each game, and as many creation keys, each a second younger than
/// the one before.
async fn rows_to_sweep(conn: &mut sqlx::PgConnection) {
    for sql in [
        "INSERT INTO games (id, variant, status, state, version, seed, seed_commitment, created_at, updated_at) \
         SELECT gen_random_uuid(), 'may_i', CASE WHEN i % 3 = 0 THEN 'playing' ELSE 'finished' END, '{}', 1, \
         's', 'c', i, i FROM generate_series(1, 30000) AS i",
        "INSERT INTO idempotency_keys (game_id, seat, key, request_hash, status, created_at) \
         SELECT id, 0, 'k', 'h', 'done', created_at FROM games",
        "INSERT INTO creation_keys (game_id, seat, key, request_hash, status, created_at) \
         SELECT '00000000-0000-0000-0000-000000000000', -1, 'k' || i, 'h', 'done', i \
         FROM generate_series(1, 30000) AS i",
        "ANALYZE games, idempotency_keys, creation_keys",
    ] {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&mut *conn)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

/// The generic plan of `sql` (`plan_cache_mode = force_generic_plan`: the plan a prepared
/// statement is given for any values). Citus has none to show: it plans each statement with
/// its values and sends each shard's part to its worker with them written in, so there the
/// shard's plan is for the values given.
async fn generic_plan(conn: &mut sqlx::PgConnection, citus: bool, sql: &str) -> String {
    use sqlx::Row;
    let mut setup = vec!["BEGIN".to_owned()];
    if !citus {
        setup.push("SET LOCAL plan_cache_mode = force_generic_plan".to_owned());
    }
    setup.push(format!("PREPARE swept AS {sql}"));
    for s in &setup {
        sqlx::query(sqlx::AssertSqlSafe(s.as_str()))
            .execute(&mut *conn)
            .await
            .unwrap_or_else(|e| panic!("{s}: {e}"));
    }
    // A value of each parameter's type: a time (a third of the rows expired by then), one
    // game or key.
    let types: Vec<String> =
        sqlx::query("SELECT unnest(parameter_types)::text FROM pg_prepared_statements WHERE name = 'swept'")
            .fetch_all(&mut *conn)
            .await
            .expect("the parameters' types")
            .iter()
            .map(|r| r.get(0))
            .collect();
    let values: Vec<&str> = types
        .iter()
        .map(|t| match t.as_str() {
            "uuid" => "'00000000-0000-0000-0000-000000000000'",
            "text" => "'k'",
            _ => "10000",
        })
        .collect();
    let explain = format!("EXPLAIN EXECUTE swept({})", values.join(", "));
    let plan = sqlx::query(sqlx::AssertSqlSafe(explain.as_str()))
        .fetch_all(&mut *conn)
        .await
        .unwrap_or_else(|e| panic!("{explain}: {e}"))
        .iter()
        .map(|r| r.get::<String, _>(0))
        .collect::<Vec<_>>()
        .join("\n");
    for s in ["DEALLOCATE swept", "ROLLBACK"] {
        sqlx::query(s)
            .execute(&mut *conn)
            .await
            .expect("the plan put away");
    }
    plan
}

/// The plan SQLite gives `sql`.
async fn sqlite_plan(path: &str, sql: &str) -> String {
    use sqlx::Row;
    let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite:{path}"))
        .await
        .expect("connect");
    let explain = format!("EXPLAIN QUERY PLAN {sql}");
    let mut query = sqlx::query(sqlx::AssertSqlSafe(explain.as_str()));
    for n in 1..=9 {
        if sql.contains(&format!("${n}")) {
            query = query.bind(1_i64);
        }
    }
    query
        .fetch_all(&mut conn)
        .await
        .unwrap_or_else(|e| panic!("{explain}: {e}"))
        .iter()
        .map(|r| r.get::<String, _>("detail"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// docs/operations.md#storage: whatever plan PostgreSQL picks (the generic plan of a prepared
/// statement included, on tables with rows and statistics), every statement of the sweep is
/// served by an index: a batch of candidates is read from its index in order, from the
/// cursor on (no scan of the table, no sort), and each delete finds its rows by the value it
/// names, not by a range of expired rows. On Citus, in each shard's plan; on SQLite too.
#[actix_web::test]
async fn every_statement_of_the_sweep_is_served_by_an_index() {
    use continental::store::sweep_sql;
    for backend in backends() {
        let app = TestApp::spawn(&backend).await;
        let postgres = matches!(app.database, DatabaseSettings::Postgres { .. });
        let mut conn = match &app.database {
            DatabaseSettings::Postgres { url } => {
                let mut conn = sqlx::PgConnection::connect(url).await.expect("connect");
                rows_to_sweep(&mut conn).await;
                Some(conn)
            }
            DatabaseSettings::Sqlite { .. } => None,
        };
        for statement in sweep_sql(postgres) {
            let sql = &statement.sql;
            let ctx = format!("{backend:?}: {sql}");
            let (plan, conditions) = match (&mut conn, &app.database) {
                (Some(conn), _) => {
                    let plan = generic_plan(conn, backend == Backend::Citus, sql).await;
                    // On Citus, the plan of one shard's part.
                    let task = match plan.split_once("->  Task") {
                        Some((_, task)) if backend == Backend::Citus => task.to_owned(),
                        _ => plan.clone(),
                    };
                    assert!(!task.contains("Seq Scan"), "{ctx}: no scan of the table:\n{plan}");
                    let conditions: Vec<String> = task
                        .lines()
                        .filter_map(|l| l.split_once("Index Cond: ").map(|(_, c)| c.to_owned()))
                        .collect();
                    (task, conditions)
                }
                (None, DatabaseSettings::Sqlite { path }) => {
                    let plan = sqlite_plan(path, sql).await;
                    assert!(
                        plan.lines().all(|l| !l.starts_with("SCAN ")),
                        "{ctx}: no scan of the table:\n{plan}"
                    );
                    let conditions: Vec<String> = plan
                        .lines()
                        .filter_map(|l| l.split_once(" INDEX ").map(|(_, c)| c.to_owned()))
                        .collect();
                    (plan, conditions)
                }
                (None, DatabaseSettings::Postgres { .. }) => unreachable!("a connection"),
            };
            assert!(
                !plan.to_lowercase().contains("sort") && !plan.contains("TEMP B-TREE"),
                "{ctx}: no sort, the index is in order:\n{plan}"
            );
            let by = statement.by;
            assert!(
                !conditions.is_empty() && conditions.iter().all(|c| c.contains(by)),
                "{ctx}: every index read is by {by}:\n{plan}"
            );
        }
        drop(conn);
        app.clean_up().await;
    }
}

/// SIGTERM while the background passes wait on a database that hangs: the process stops
/// cleanly, exit status 0, nothing panicking as the passes' connections are let go.
#[actix_web::test]
async fn sigterm_while_the_database_hangs_exits_cleanly() {
    let Some(url) = postgres_url() else { return };
    let proxy = Proxy::start(upstream_of(&url)).await;
    let DatabaseSettings::Postgres { url: direct } = fresh_database(&Backend::Postgres).await else {
        unreachable!("a PostgreSQL database")
    };
    let database = DatabaseSettings::Postgres {
        url: proxy.url_through(&direct),
    };
    sigterm_exits_cleanly_while_hung(&proxy, &database).await;
    drop_database(&DatabaseSettings::Postgres { url: direct }).await;
}

/// Starts the binary on `database`, plays a little, hangs `proxy` (on the way to the database,
/// or to one of its nodes), then stops the binary with SIGTERM while its background passes wait
/// there: it must exit at once with status 0, nothing panicking.
pub async fn sigterm_exits_cleanly_while_hung(proxy: &Proxy, database: &DatabaseSettings) {
    // A turn second of 50 ms: the deadline sweep's pass, for one, comes every 50 ms.
    let mut binary = Binary::start_testing(database, &[("CONTINENTAL_TEST_SECOND_MS", "50")]).await;
    let table = create(&binary, "may_i", 2, 5, json!({})).await;
    play_turns(&[&binary], &table, 1).await;
    proxy.hang();
    // Long enough for a pass to be waiting on the database, short of the acquire timeout.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let status = binary.terminate(Duration::from_secs(20));
    let output = binary.output();
    proxy.restore();
    let status = status.unwrap_or_else(|| panic!("no exit within 20 s of SIGTERM: {output}"));
    assert!(
        status.success() && !output.contains("panicked"),
        "a clean exit: {status}, {output}"
    );
}
