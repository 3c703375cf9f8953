//! The service on a Citus cluster, when `CITUS_URL` names its coordinator (skipped otherwise):
//! the tables its migrations distribute, each game's rows on one worker, creation keys spread,
//! and a worker that is lost and comes back. The tests of every backend run there too.

use std::collections::BTreeSet;
use std::time::Duration;

use continental::config::{DatabaseSettings, Limits};
use engine::DrawSource;
use futures_util::future::join_all;
use serde_json::json;
use uuid::Uuid;

use crate::deadlines::assert_each_timeout_played_once;
use crate::helpers::{
    ACME, Api, Backend, Binary, HUNG_WITHIN, Proxy, Receiver, STUDIO_KEYS, Spawn, Table, TestApp,
    assert_unavailable, citus_admin, citus_nodes, citus_url, connect, create, draw, drop_database,
    eventually, fresh_citus_database, keyed, once_available, play_turns, quick, timed,
};

/// A connection to the app's own database, through the coordinator.
async fn database_of(app: &TestApp) -> sqlx::PgConnection {
    let DatabaseSettings::Postgres { url } = &app.database else {
        unreachable!("a Citus app runs on PostgreSQL")
    };
    connect(url).await
}

/// The port of the node that holds the shard of `table` where the row of game `id` lives.
async fn node_of(conn: &mut sqlx::PgConnection, table: &str, id: Uuid) -> i32 {
    sqlx::query_scalar(
        "SELECT nodeport FROM citus_shards WHERE table_name = $1::regclass \
         AND shardid = get_shard_id_for_distribution_column($1::regclass, $2::text)",
    )
    .bind(table)
    .bind(id.to_string())
    .fetch_one(conn)
    .await
    .expect("the shard of a game's rows")
}

#[actix_web::test]
async fn every_game_table_is_distributed_by_game_on_one_worker_per_game() {
    if citus_url().is_none() {
        return;
    }
    let app = TestApp::spawn(&Backend::Citus).await;
    let mut conn = database_of(&app).await;
    let tables: Vec<(String, String, Option<String>, i32)> = sqlx::query_as(
        "SELECT logicalrelid::text, partmethod::text, \
         CASE WHEN partmethod = 'h' THEN column_to_column_name(logicalrelid, partkey) END, colocationid \
         FROM pg_dist_partition ORDER BY 1",
    )
    .fetch_all(&mut conn)
    .await
    .expect("Citus's metadata");
    let of = |name: &str| {
        tables
            .iter()
            .find(|t| t.0 == name)
            .unwrap_or_else(|| panic!("{name} is distributed: {tables:?}"))
    };
    let games = of("games");
    assert_eq!(
        (games.1.as_str(), games.2.as_deref()),
        ("h", Some("id")),
        "games by id"
    );
    for table in [
        "seats",
        "events",
        "idempotency_keys",
        "webhook_deliveries",
        "ratings_due",
        "webhook_heads",
    ] {
        let t = of(table);
        assert_eq!(
            (t.1.as_str(), t.2.as_deref(), t.3),
            ("h", Some("game_id"), games.3),
            "{table} by game, co-located with games"
        );
    }
    let keys = of("creation_keys");
    assert_eq!(
        (keys.1.as_str(), keys.2.as_deref()),
        ("h", Some("key")),
        "creation keys by key"
    );
    // A tenant's ratings, rated games, board counts, tickets and pools together: rating a game
    // and matching a pool are each one shard's transaction.
    let ratings = of("ratings");
    assert_eq!(
        (ratings.1.as_str(), ratings.2.as_deref()),
        ("h", Some("tenant")),
        "ratings by tenant"
    );
    for table in ["rated_games", "board_counts", "tickets", "ticket_pools"] {
        let t = of(table);
        assert_eq!(
            (t.1.as_str(), t.2.as_deref(), t.3),
            ("h", Some("tenant"), ratings.3),
            "{table} by tenant, co-located with ratings"
        );
    }
    assert_eq!(of("settings").1, "n", "settings is a reference table");
    assert_eq!(tables.len(), 14, "nothing else is distributed: {tables:?}");
    let spread: i64 = sqlx::query_scalar(
        "SELECT count(DISTINCT nodeport) FROM citus_shards WHERE table_name = 'games'::regclass",
    )
    .fetch_one(&mut conn)
    .await
    .expect("the shards of games");
    assert!(spread >= 2, "games are spread over the workers: {spread} node(s)");

    // A game with a webhook, a keyed move and its delivery: every row of it on one node.
    let table = create(
        &app,
        "may_i",
        3,
        7,
        json!({"webhook_url": "http://127.0.0.1:9/hook"}),
    )
    .await;
    let seat = app.in_turn(&table).await;
    assert_eq!(
        app.act(&table, seat, &draw(DrawSource::Stock), &keyed("k"))
            .await
            .status
            .as_u16(),
        200
    );
    let id: Uuid = table.id.parse().expect("a game id");
    let mut nodes = BTreeSet::new();
    for t in [
        "games",
        "seats",
        "events",
        "idempotency_keys",
        "webhook_deliveries",
    ] {
        nodes.insert(node_of(&mut conn, t, id).await);
        let rows: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT count(*) FROM {t} WHERE {} = $1",
            if t == "games" { "id" } else { "game_id" }
        )))
        .bind(id)
        .fetch_one(&mut conn)
        .await
        .expect("the game's rows");
        assert!(rows > 0, "the game has rows in {t}");
    }
    assert_eq!(nodes.len(), 1, "all of a game's rows live on one node: {nodes:?}");

    // Creation keys spread by key, and each answers as on one database.
    let body = json!({"variant": "may_i", "seats": [{"name": "A"}, {"bot": true}]}).to_string();
    let create = |key: String| {
        let (app, body) = (&app, &body);
        async move {
            app.send(
                "POST",
                "/v1/games",
                Some(body.as_bytes()),
                &[("idempotency-key", &key)],
            )
            .await
        }
    };
    for n in 0..8 {
        let first = create(format!("create-{n}")).await;
        assert_eq!(first.status.as_u16(), 201, "a keyed creation");
        let again = create(format!("create-{n}")).await;
        assert_eq!(
            (again.status, &again.body),
            (first.status, &first.body),
            "a retry replays it"
        );
    }
    let shards: i64 = sqlx::query_scalar(
        "SELECT count(DISTINCT get_shard_id_for_distribution_column('creation_keys', key)) FROM creation_keys",
    )
    .fetch_one(&mut conn)
    .await
    .expect("the shards of the creation keys");
    assert!(shards >= 2, "creation keys spread across shards: {shards}");
    app.clean_up().await;
}

/// Creates games until one lives on the node of `port` and one elsewhere.
async fn one_game_each_side(app: &TestApp, conn: &mut sqlx::PgConnection, port: i32) -> (Table, Table) {
    let (mut there, mut elsewhere) = (None, None);
    for seed in 0..64 {
        let table = create(app, "may_i", 2, seed, json!({})).await;
        let node = node_of(conn, "games", table.id.parse().expect("a game id")).await;
        if node == port {
            there.get_or_insert(table);
        } else {
            elsewhere.get_or_insert(table);
        }
        if let (Some(a), Some(b)) = (&there, &elsewhere) {
            return (a.clone(), b.clone());
        }
    }
    panic!("64 games, and not one on each side of node {port}");
}

/// The game's version and its last event's seq, as its first seat sees them.
async fn progress(app: &Api, table: &Table) -> (i64, i64) {
    let game = format!("/v1/games/{}", table.id);
    let view = app.get_as(&game, &table.tokens[0]).await.json();
    let events = app
        .get_as(&format!("{game}/events"), &table.tokens[0])
        .await
        .json();
    let seqs: Vec<i64> = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| e["seq"].as_i64().expect("a seq"))
        .collect();
    assert_eq!(
        seqs,
        (1..=seqs.len() as i64).collect::<Vec<_>>(),
        "a game's events are numbered without a gap"
    );
    (view["version"].as_i64().expect("a version"), seqs.len() as i64)
}

/// A fresh database whose first worker the cluster reaches through a proxy (which can play a
/// stopped or a hung server for this database alone).
async fn with_a_proxied_worker() -> Option<(Proxy, DatabaseSettings)> {
    citus_url()?;
    let workers: Vec<(String, i32, i32)> = citus_nodes(&mut citus_admin().await)
        .await
        .into_iter()
        .filter(|(_, _, group)| *group != 0)
        .collect();
    let (host, port, _) = workers.first().expect("a worker").clone();
    let proxy = proxy_to(&host, port).await;
    let database = fresh_citus_database(Some((port, proxy.address))).await;
    Some((proxy, database))
}

/// A proxy in front of the node at `host:port`.
/// A fresh Citus database and a proxy in front of its coordinator, for tests that cut it.
async fn behind_a_coordinator_proxy() -> (DatabaseSettings, Proxy) {
    let database = fresh_citus_database(None).await;
    let DatabaseSettings::Postgres { url } = &database else {
        unreachable!("a Citus database is PostgreSQL's")
    };
    let (host, port) = node(url, true).await;
    let coordinator = proxy_to(&host, port).await;
    (database, coordinator)
}

/// A replica of the database at `url` that reaches its coordinator through `coordinator`.
async fn through(coordinator: &Proxy, url: &str) -> TestApp {
    TestApp::spawn_with(
        &Backend::Citus,
        Spawn {
            test_mode: true,
            database: Some(DatabaseSettings::Postgres {
                url: coordinator.url_through(url),
            }),
            limits: Some(quick()),
            ..Spawn::default()
        },
    )
    .await
}

async fn proxy_to(host: &str, port: i32) -> Proxy {
    let upstream = tokio::net::lookup_host((host, u16::try_from(port).expect("a port")))
        .await
        .expect("the node's address")
        .next()
        .expect("an address");
    Proxy::start(upstream).await
}

/// The host and port of a node of the cluster of `url`: its coordinator, or a worker.
async fn node(url: &str, coordinator: bool) -> (String, i32) {
    citus_nodes(&mut connect(url).await)
        .await
        .into_iter()
        .find(|(_, _, group)| (*group == 0) == coordinator)
        .map(|(host, port, _)| (host, port))
        .expect("a node of the cluster")
}

/// The service on a fresh database whose first worker it reaches through a proxy, and a game
/// on each side of it.
async fn behind_a_proxied_worker() -> Option<(Proxy, TestApp, Table, Table)> {
    let (proxy, database) = with_a_proxied_worker().await?;
    let app = TestApp::spawn_with(
        &Backend::Citus,
        Spawn {
            test_mode: true,
            database: Some(database),
            limits: Some(quick()),
            ..Spawn::default()
        },
    )
    .await;
    let mut conn = database_of(&app).await;
    let (lost, other) = one_game_each_side(&app, &mut conn, i32::from(proxy.address.port())).await;
    Some((proxy, app, lost, other))
}

/// A keyed move on the game of the worker that `down` takes away: a fast 503, while the game
/// on the other worker plays on; once it is back, the move's retry applies, once.
async fn a_worker_down_and_back(down: fn(&Proxy), how: &str) {
    let Some((proxy, app, lost, other)) = behind_a_proxied_worker().await else {
        return;
    };
    let before = progress(&app, &lost).await;
    let seat = app.in_turn(&lost).await;

    down(&proxy);
    let moved = timed(
        HUNG_WITHIN,
        &format!("{how}: a move"),
        app.act(
            &lost,
            seat,
            &draw(DrawSource::Stock),
            &keyed("through-the-outage"),
        ),
    )
    .await;
    assert_unavailable(&moved, "service_unavailable", &format!("{how}: a move"));
    let read = timed(HUNG_WITHIN, &format!("{how}: a read"), app.view(&lost, 0)).await;
    assert_unavailable(&read, "service_unavailable", &format!("{how}: a read"));
    // The listing reads every worker: a fast 503 too (docs/api.md#listing), here from a
    // replica with server keys.
    let studio = TestApp::spawn_with(
        &Backend::Citus,
        Spawn {
            test_mode: true,
            database: Some(app.database.clone()),
            limits: Some(quick()),
            api_keys: STUDIO_KEYS.into(),
            ..Spawn::default()
        },
    )
    .await;
    let listing = timed(
        HUNG_WITHIN,
        &format!("{how}: the listing"),
        studio.send("GET", "/v1/games", None, &[("x-api-key", ACME)]),
    )
    .await;
    assert_unavailable(&listing, "service_unavailable", &format!("{how}: the listing"));
    // The other worker's game plays on, move after move.
    let played = 3;
    play_turns(&[&app], &other, played).await;

    proxy.restore();
    let (stock, key) = (draw(DrawSource::Stock), keyed("through-the-outage"));
    let applied = once_available(
        Duration::from_secs(30),
        &format!("{how}: the game once its worker is back"),
        || app.act(&lost, seat, &stock, &key),
    )
    .await;
    assert_eq!(
        applied.status.as_u16(),
        200,
        "{how}: the keyed retry applies once the worker is back: {}",
        applied.text()
    );
    let after = progress(&app, &lost).await;
    assert_eq!(
        after.0,
        before.0 + 1,
        "the refused move did not apply; its retry applied once"
    );
    assert!(
        after.1 > before.1,
        "its events follow on from those before the loss"
    );
    let (version, _) = progress(&app, &other).await;
    assert!(
        version >= 2 * played as i64,
        "{how}: every move of the other game is kept: version {version}"
    );
    app.clean_up().await;
}

#[actix_web::test]
async fn a_stopped_worker_answers_503_for_its_games_while_the_others_play_on() {
    a_worker_down_and_back(Proxy::cut, "a stopped worker").await;
}

#[actix_web::test]
async fn a_hung_worker_answers_503_in_time_while_the_others_play_on() {
    a_worker_down_and_back(Proxy::hang, "a hung worker").await;
}

/// The port of the node that holds the shard of game `table`.
async fn port_of(database: &DatabaseSettings, table: &Table) -> i32 {
    let DatabaseSettings::Postgres { url } = database else {
        unreachable!("a Citus database is PostgreSQL's")
    };
    node_of(
        &mut connect(url).await,
        "games",
        table.id.parse().expect("a game id"),
    )
    .await
}

/// The events of `table` as seat 0 sees them.
async fn events(app: &Binary, table: &Table) -> Vec<serde_json::Value> {
    app.log(table, 0).await.into_iter().map(|e| e.event).collect()
}

/// How many `timed_out` events `events` holds.
fn timed_out(events: &[serde_json::Value]) -> usize {
    events.iter().filter(|e| e["type"] == "timed_out").count()
}

/// The seqs `receiver` accepted for game `id`, in arrival order.
fn delivered(receiver: &Receiver, id: &str) -> Vec<i64> {
    receiver
        .accepted()
        .iter()
        .filter(|r| r.json()["game_id"] == id)
        .map(|r| r.seq())
        .collect()
}

/// docs/operations.md#scaling-out: while a worker is away, the background work of the other
/// workers' games goes on (a clocked game there times out on time, its webhooks go out) and
/// nothing is logged as failing for them; once it is back, the turn deadlines that passed on it
/// meanwhile are played, and its games' webhooks delivered, once each.
#[actix_web::test]
async fn a_lost_worker_holds_up_only_its_own_games_clocks_and_webhooks() {
    let Some((proxy, database)) = with_a_proxied_worker().await else {
        return;
    };
    // A turn second of 100 ms: `turn_seconds: 40` is four seconds.
    let app = Binary::start_testing(&database, &[("CONTINENTAL_TEST_SECOND_MS", "100")]).await;
    let receiver = Receiver::start(200);
    let clocked = json!({"options": {"turn_seconds": 40}, "webhook_url": receiver.url});
    let lost_port = i32::from(proxy.address.port());
    // A game on each side; the lost worker's made last, so that the worker goes before its
    // first deadline and after its first webhooks: nothing of it is in flight at the loss (a
    // delivery posted but not yet recorded would go out again: at least once).
    let (mut lost, mut other) = (None, None);
    for seed in 0..64 {
        let table = create(&app, "may_i", 2, seed, clocked.clone()).await;
        if port_of(&database, &table).await == lost_port {
            lost = Some((table, std::time::Instant::now()));
        } else {
            other.get_or_insert(table);
        }
        if other.is_some() && lost.is_some() {
            break;
        }
    }
    let (Some((lost, made)), Some(other)) = (lost, other) else {
        panic!("64 games, and not one on each side of node {lost_port}");
    };
    let lost_before = events(&app, &lost).await.len();
    eventually(
        Duration::from_secs(10),
        "the lost game's first webhooks",
        async || {
            let seqs = delivered(&receiver, &lost.id);
            if seqs.len() == lost_before {
                Ok(())
            } else {
                Err(seqs)
            }
        },
    )
    .await;
    assert!(
        made.elapsed() < Duration::from_millis(3500),
        "the worker goes before the lost game's first deadline (the machine is too slow to tell)"
    );

    proxy.cut();
    let since = app.lines().len();
    let other_at_cut = events(&app, &other).await;
    let delivered_at_cut = delivered(&receiver, &other.id).len();
    // The other worker's clock keeps its time (a turn is four seconds; a machine loaded by
    // other work is given more), and its webhooks go out.
    let other_now = eventually(
        Duration::from_secs(20),
        "the other game's clock while the worker is away",
        async || {
            let now = events(&app, &other).await;
            let played = timed_out(&now) - timed_out(&other_at_cut);
            if played >= 1 { Ok(now) } else { Err(played) }
        },
    )
    .await;
    let last_seq = i64::try_from(other_now.len()).expect("a count");
    eventually(
        Duration::from_secs(20),
        "the other game's webhooks while the worker is away",
        async || {
            let seqs = delivered(&receiver, &other.id);
            if seqs.len() > delivered_at_cut && seqs.iter().any(|&s| s >= last_seq - 3) {
                Ok(())
            } else {
                Err((seqs, app.output()))
            }
        },
    )
    .await;
    // Its first deadline passes while its worker is away.
    tokio::time::sleep(Duration::from_millis(4500).saturating_sub(made.elapsed())).await;
    let during: Vec<serde_json::Value> = app.json_lines().into_iter().skip(since).collect();

    proxy.restore();
    // The lost game's turns that passed meanwhile are played, and its webhooks caught up.
    let caught_up = eventually(
        Duration::from_secs(30),
        "the lost game's clock once back",
        async || {
            let now = events(&app, &lost).await;
            if timed_out(&now[lost_before..]) > 0 {
                Ok(now)
            } else {
                Err(now.len())
            }
        },
    )
    .await;
    let through = i64::try_from(caught_up.len()).expect("a count");
    eventually(
        Duration::from_secs(30),
        "the lost game's webhooks once back",
        async || {
            let seqs = delivered(&receiver, &lost.id);
            if seqs.iter().any(|&s| s >= through) {
                Ok(())
            } else {
                Err(seqs.len())
            }
        },
    )
    .await;
    for table in [&lost, &other] {
        let log = events(&app, table).await;
        assert_each_timeout_played_once(&log, &format!("game {}", table.id));
        let seqs = delivered(&receiver, &table.id);
        let mut once = seqs.clone();
        once.sort_unstable();
        once.dedup();
        assert_eq!(once.len(), seqs.len(), "each delivery once: {seqs:?}");
        assert_eq!(seqs, once, "a game's deliveries in order: {seqs:?}");
        assert_eq!(once.first(), Some(&1), "from its first event: {seqs:?}");
        assert!(
            once.windows(2).all(|w| w[1] == w[0] + 1),
            "no event left out: {seqs:?}"
        );
    }

    // While it was away, nothing failed but what the lost worker holds, and that said once.
    let lost_node = proxy.address.to_string();
    for line in &during {
        let level = line["level"].as_str().unwrap_or_default();
        // A slow statement or pass is not a failure (the machine may be busy).
        let slow = line["message"].as_str().is_some_and(|m| m.contains("slow"));
        if (level != "WARN" && level != "ERROR") || slow {
            continue;
        }
        let text = line.to_string();
        assert!(
            !text.contains(&other.id),
            "nothing logged as failing for the other worker's game: {text}"
        );
        // A game of the lost worker found due (or with a delivery) just before the loss and
        // claimed just after it is named: it is tried again next pass.
        assert!(
            text.contains(&lost_node) || text.contains(&lost.id),
            "every warning while the worker is away names it or its game: {text}"
        );
    }
    let said = |message: &str| {
        during
            .iter()
            .filter(|l| l["message"].as_str().is_some_and(|m| m.starts_with(message)))
            .count()
    };
    assert!(
        said("a node of the cluster does not answer") >= 1,
        "the loss is logged: {during:?}"
    );
    assert!(
        said("a node of the cluster does not answer") <= 3,
        "once per kind of work, not every pass: {during:?}"
    );
    drop(app);
    drop_database(&database).await;
}

/// A game's write runs on its shard's node, on that node's own shards: after the game's shards
/// move to the other worker, its moves land there, numbered on from where they were, and keyed
/// retries still answer once.
#[actix_web::test]
async fn a_game_plays_on_after_its_shards_move_to_another_worker() {
    if citus_url().is_none() {
        return;
    }
    let app = TestApp::spawn(&Backend::Citus).await;
    let mut conn = database_of(&app).await;
    let table = create(&app, "may_i", 2, 11, json!({})).await;
    let id: Uuid = table.id.parse().expect("a game id");
    play_turns(&[&app], &table, 2).await;
    let before = progress(&app, &table).await;

    let from = node_of(&mut conn, "games", id).await;
    let workers = citus_nodes(&mut conn).await;
    let (host, to) = workers
        .iter()
        .find(|(_, port, group)| *group != 0 && *port != from)
        .map(|(host, port, _)| (host.clone(), *port))
        .expect("a second worker");
    sqlx::query(
        "SELECT citus_move_shard_placement(get_shard_id_for_distribution_column('games', $1::text), \
         $2, $3, $2, $4, shard_transfer_mode => 'block_writes')",
    )
    .bind(id.to_string())
    .bind(&host)
    .bind(from)
    .bind(to)
    .execute(&mut conn)
    .await
    .expect("the game's shards move");
    for t in ["games", "events", "idempotency_keys"] {
        assert_eq!(node_of(&mut conn, t, id).await, to, "{t} moved with the game");
    }
    // The copies the move left behind are dropped (as Citus's maintenance would, later).
    sqlx::query("CALL citus_cleanup_orphaned_resources()")
        .execute(&mut conn)
        .await
        .expect("the old copies dropped");

    play_turns(&[&app], &table, 2).await;
    let seat = app.in_turn(&table).await;
    let (stock, key) = (draw(DrawSource::Stock), keyed("after-the-move"));
    let first = app.act(&table, seat, &stock, &key).await.ok("a keyed draw");
    let again = app.act(&table, seat, &stock, &key).await.ok("its retry");
    assert_eq!(first, again, "the retry answers as the draw did");
    let after = progress(&app, &table).await;
    assert_eq!(
        after.0,
        before.0 + 5,
        "four moves and a draw after the move, each applied once: {before:?} then {after:?}"
    );
    assert!(after.1 > before.1, "the events go on from where they were");
    app.clean_up().await;
}

/// docs/performance.md#scaling-out: a game's reads and moves go straight to the worker that
/// holds it, not through the coordinator, so a game the service has seen plays on while the
/// coordinator is away.
#[actix_web::test]
async fn a_game_plays_on_its_worker_without_the_coordinator() {
    if citus_url().is_none() {
        return;
    }
    let (database, coordinator) = behind_a_coordinator_proxy().await;
    let DatabaseSettings::Postgres { url } = &database else {
        unreachable!("a Citus database is PostgreSQL's")
    };
    let app = through(&coordinator, url).await;
    let table = create(&app, "may_i", 2, 5, json!({})).await;
    play_turns(&[&app], &table, 1).await;
    let before = progress(&app, &table).await;

    coordinator.cut();
    play_turns(&[&app], &table, 2).await;
    let after = progress(&app, &table).await;
    assert_eq!(
        after.0,
        before.0 + 4,
        "four moves applied, each once, with the coordinator away: {before:?} then {after:?}"
    );
    // Anything that needs the coordinator still answers a fast 503.
    let body = json!({"variant": "may_i", "seats": [{"name": "A"}, {"name": "B"}]});
    let other = timed(HUNG_WITHIN, "a new game", app.post("/v1/games", &body)).await;
    assert_unavailable(
        &other,
        "service_unavailable",
        "a new game without the coordinator",
    );

    coordinator.restore();
    drop_database(&database).await;
}

/// `url` with its host and port replaced: the same database on another node of the cluster.
fn on_node(url: &str, host: &str, port: i32) -> String {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    let end = url[after_scheme..]
        .find(['/', '?'])
        .map_or(url.len(), |i| after_scheme + i);
    let user = url[after_scheme..end]
        .rsplit_once('@')
        .map(|(user, _)| format!("{user}@"))
        .unwrap_or_default();
    format!("{}{user}{host}:{port}{}", &url[..after_scheme], &url[end..])
}

/// docs/operations.md#scaling-out, every node routing: a replica pointed at a worker, its
/// migrations run on the coordinator (`CONTINENTAL_MIGRATIONS_URL`), plays the games of every
/// worker, and a replica on the coordinator sees the same games and hears their events live.
#[actix_web::test]
async fn a_replica_on_a_worker_plays_every_game_and_the_others_hear_it() {
    if citus_url().is_none() {
        return;
    }
    let database = fresh_citus_database(None).await;
    let DatabaseSettings::Postgres { url } = &database else {
        unreachable!("a Citus database is PostgreSQL's")
    };
    let (host, port) = node(url, false).await;
    let worker = DatabaseSettings::Postgres {
        url: on_node(url, &host, port),
    };
    let on_worker = Binary::start_testing(&worker, &[("CONTINENTAL_MIGRATIONS_URL", url)]).await;
    let on_coordinator = Binary::start_testing(&database, &[]).await;

    let (mut here, mut there) = (None, None);
    for seed in 0..64 {
        let table = create(&on_worker, "may_i", 2, seed, json!({})).await;
        if port_of(&database, &table).await == port {
            here.get_or_insert(table);
        } else {
            there.get_or_insert(table);
        }
        if here.is_some() && there.is_some() {
            break;
        }
    }
    let (Some(here), Some(there)) = (here, there) else {
        panic!("64 games, and not one on each side of node {port}");
    };
    for table in [&here, &there] {
        let last = events(&on_coordinator, table).await.len() as i64;
        let mut stream = on_coordinator.stream(&table.id, &table.tokens[0], "", &[]).await;
        stream.until(last).await;
        let (before, _) = progress(&on_worker, table).await;
        play_turns(&[&on_worker], table, 2).await;
        let after = events(&on_worker, table).await.len() as i64;
        let live = stream.until(after).await;
        assert_eq!(
            live.iter().filter_map(|e| e.id).collect::<Vec<_>>(),
            (last + 1..=after).collect::<Vec<_>>(),
            "the worker's replica's moves reach a stream on the coordinator's"
        );
        let (version, _) = progress(&on_coordinator, table).await;
        assert_eq!(version, before + 4, "four moves, each applied once");
    }
    // The service's own lines (the cluster's notices, about its own upkeep, are relayed too).
    let failing: Vec<_> = on_worker
        .json_lines()
        .into_iter()
        .filter(|l| {
            l["target"].as_str().is_some_and(|t| t.starts_with("continental"))
                && (l["level"] == "WARN" || l["level"] == "ERROR")
        })
        .collect();
    assert!(
        failing.is_empty(),
        "nothing fails on the worker's replica: {failing:?}"
    );
    drop_database(&database).await;
}

/// SIGTERM while the background passes wait on a hung worker: a clean exit, as on one
/// PostgreSQL.
#[actix_web::test]
async fn sigterm_while_a_worker_hangs_exits_cleanly() {
    let Some((proxy, database)) = with_a_proxied_worker().await else {
        return;
    };
    crate::faults::sigterm_exits_cleanly_while_hung(&proxy, &database).await;
    drop_database(&database).await;
}

/// docs/operations.md#scaling-out: a replica routes by the cluster's placements, read at its
/// start and kept, hashing each game's id itself: the games another replica made after it
/// started, which it never saw, play on their workers while the coordinator is away.
#[actix_web::test]
async fn a_game_this_replica_never_saw_plays_on_its_worker_without_the_coordinator() {
    if citus_url().is_none() {
        return;
    }
    let (database, coordinator) = behind_a_coordinator_proxy().await;
    let DatabaseSettings::Postgres { url } = &database else {
        unreachable!("a Citus database is PostgreSQL's")
    };
    let player = through(&coordinator, url).await;
    let maker = TestApp::spawn_with(
        &Backend::Citus,
        Spawn {
            test_mode: true,
            database: Some(database.clone()),
            ..Spawn::default()
        },
    )
    .await;
    let (_, worker) = node(url, false).await;
    let (here, there) = one_game_each_side(&maker, &mut connect(url).await, worker).await;
    let mut before = Vec::new();
    for table in [&here, &there] {
        play_turns(&[&maker], table, 1).await;
        before.push(progress(&maker, table).await);
    }

    coordinator.cut();
    for (table, before) in [&here, &there].into_iter().zip(before) {
        play_turns(&[&player], table, 2).await;
        let after = progress(&player, table).await;
        assert_eq!(
            after.0,
            before.0 + 4,
            "four moves applied, each once, by a replica that never saw the game, with the coordinator away: {before:?} then {after:?}"
        );
    }

    coordinator.restore();
    drop_database(&database).await;
}

/// docs/operations.md#scaling-out: after a game's shards move, the replica's first action on it
/// misses them on the node it knew and reads the placements again, so its next reads and
/// actions go to the new node alone: the game plays on at once while the old node is away.
#[actix_web::test]
async fn after_its_shards_move_a_game_goes_straight_to_its_new_worker() {
    let Some((proxy, app, table, _)) = behind_a_proxied_worker().await else {
        return;
    };
    let mut conn = database_of(&app).await;
    let id: Uuid = table.id.parse().expect("a game id");
    play_turns(&[&app], &table, 1).await;

    let from = node_of(&mut conn, "games", id).await;
    let workers: Vec<(String, i32, i32)> = citus_nodes(&mut conn)
        .await
        .into_iter()
        .filter(|(_, _, group)| *group != 0)
        .collect();
    let source = workers
        .iter()
        .find(|(_, port, _)| *port == from)
        .expect("the proxied worker");
    let target = workers
        .iter()
        .find(|(_, port, _)| *port != from)
        .expect("a second worker");
    sqlx::query(
        "SELECT citus_move_shard_placement(get_shard_id_for_distribution_column('games', $1::text), \
         $2, $3, $4, $5, shard_transfer_mode => 'block_writes')",
    )
    .bind(id.to_string())
    .bind(&source.0)
    .bind(source.1)
    .bind(&target.0)
    .bind(target.1)
    .execute(&mut conn)
    .await
    .expect("the game's shards move");
    assert_eq!(node_of(&mut conn, "games", id).await, target.1, "the game moved");
    // One turn: its first move misses the game on the node the replica knew.
    play_turns(&[&app], &table, 1).await;
    let before = progress(&app, &table).await;

    proxy.cut();
    play_turns(&[&app], &table, 2).await;
    let after = progress(&app, &table).await;
    assert_eq!(
        after.0,
        before.0 + 4,
        "four moves applied, each once, with the node the game left away: {before:?} then {after:?}"
    );
    proxy.restore();
    app.clean_up().await;
}

/// docs/operations.md#citus-connections: a replica opens no more connections to a worker than
/// `CONTINENTAL_DB_POOL_PER_WORKER` (and its listener's), however many of that worker's games
/// play at once.
#[actix_web::test]
async fn a_replica_opens_no_more_connections_to_a_worker_than_set() {
    if citus_url().is_none() {
        return;
    }
    let database = fresh_citus_database(None).await;
    let DatabaseSettings::Postgres { url } = &database else {
        unreachable!("a Citus database is PostgreSQL's")
    };
    let (host, port) = node(url, false).await;
    let per_worker = 2;
    let app = TestApp::spawn_with(
        &Backend::Citus,
        Spawn {
            test_mode: true,
            database: Some(database.clone()),
            limits: Some(Limits {
                db_pool_per_worker: Some(per_worker),
                ..quick()
            }),
            ..Spawn::default()
        },
    )
    .await;
    let mut tables = Vec::new();
    for seed in 0..64 {
        let table = create(&app, "may_i", 2, seed, json!({})).await;
        if port_of(&database, &table).await == port {
            tables.push(table);
        }
        if tables.len() == 8 {
            break;
        }
    }
    assert_eq!(tables.len(), 8, "eight games on node {port} of 64");
    // Eight games of that worker played at once, three turns each.
    let apps: [&Api; 1] = [&app];
    for _ in 0..3 {
        join_all(tables.iter().map(|t| play_turns(&apps, t, 1))).await;
    }
    let mut worker = connect(&on_node(url, &host, port)).await;
    let open: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() \
         AND backend_type = 'client backend' AND application_name NOT LIKE 'citus%' \
         AND pid <> pg_backend_pid()",
    )
    .fetch_one(&mut worker)
    .await
    .expect("the worker's connections");
    assert!(
        (2..=i64::from(per_worker) + 1).contains(&open),
        "the replica's pool of {per_worker} and its listener on the worker, no more: {open}"
    );
    app.clean_up().await;
}

/// The write's optimistic check holds a row changed since it was read even when its `xmin` is
/// the one read (as the row's copy on another node may show by chance after a move): here two
/// writes in one transaction, which share an `xmin`, with the version moved on between them.
/// Through the coordinator and on the game's worker, where the function writes its own shards.
#[actix_web::test]
async fn a_write_on_a_row_changed_since_it_was_read_is_refused_though_its_xmin_matches() {
    if citus_url().is_none() {
        return;
    }
    let app = TestApp::spawn(&Backend::Citus).await;
    let table = create(&app, "may_i", 2, 3, json!({})).await;
    let id: Uuid = table.id.parse().expect("a game id");
    let DatabaseSettings::Postgres { url } = &app.database else {
        unreachable!("a Citus app runs on PostgreSQL")
    };
    let port = node_of(&mut connect(url).await, "games", id).await;
    let (host, _) = citus_nodes(&mut connect(url).await)
        .await
        .into_iter()
        .find(|(_, p, _)| *p == port)
        .map(|(host, port, _)| (host, port))
        .expect("the game's worker");
    for (on, url) in [
        ("the coordinator", url.clone()),
        ("the game's worker", on_node(url, &host, port)),
    ] {
        let mut conn = connect(&url).await;
        sqlx::query("BEGIN").execute(&mut conn).await.expect("begin");
        sqlx::query("UPDATE games SET updated_at = updated_at WHERE id = $1")
            .bind(id)
            .execute(&mut conn)
            .await
            .expect("a first write");
        let read = "SELECT xmin::text, version, status, state, last_seq FROM games WHERE id = $1";
        let (xmin, version, status, state, last): (String, i64, String, String, i64) = sqlx::query_as(read)
            .bind(id)
            .fetch_one(&mut conn)
            .await
            .expect("the row as read");
        sqlx::query("UPDATE games SET version = version + 1 WHERE id = $1")
            .bind(id)
            .execute(&mut conn)
            .await
            .expect("a second write");
        let (now, _, _, _, _): (String, i64, String, String, i64) = sqlx::query_as(read)
            .bind(id)
            .fetch_one(&mut conn)
            .await
            .expect("the row now");
        assert_eq!(now, xmin, "{on}: the row changed and its xmin did not");
        let write = |read_version: i64| {
            sqlx::query_scalar::<_, Option<i64>>(
                "SELECT continental_write($1, $2, $3, $4, $5, $6, 0, NULL, $7, '[]', NULL, NULL, NULL, NULL)",
            )
            .bind(id)
            .bind(xmin.clone())
            .bind(read_version)
            .bind(status.clone())
            .bind(state.clone())
            .bind(read_version + 1)
            .bind(last)
        };
        let stale = write(version)
            .fetch_one(&mut conn)
            .await
            .expect("a write on the row as read");
        assert_eq!(
            stale, None,
            "{on}: a row changed since it was read is not written"
        );
        let fresh = write(version + 1)
            .fetch_one(&mut conn)
            .await
            .expect("a write on the row as it is");
        assert_eq!(fresh, Some(last), "{on}: the row as it is is written");
        sqlx::query("ROLLBACK")
            .execute(&mut conn)
            .await
            .expect("rollback");
    }
    app.clean_up().await;
}
