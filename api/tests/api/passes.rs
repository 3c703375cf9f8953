//! Background work that cannot be stalled (ARCHITECTURE.md#background-passes): every pass
//! moves past what it cannot do. A game whose stored state does not load is set aside (its
//! deadline cleared, `set_aside_at` marked, counted, listed as `corrupt`), and the games behind
//! it play on; a hard bot is seated only where some replica thinks for it, and is leased to
//! the one replica that does. Tests run with a `turn_seconds` second of 10 ms.

use std::time::{Duration, Instant};

use continental::config::{DatabaseSettings, Limits};
use serde_json::{Value, json};

use crate::helpers::{
    ACME, Backend, STUDIO_KEYS, Spawn, Table, TestApp, backends, create_with, edit_state, eventually,
    on_game_rows,
};

/// More broken games than the deadline pass reads in one batch (32).
const BROKEN: usize = 40;

/// A test-mode replica with the studio keys on `database` (a fresh one if `None`), thinking for
/// bots on `bot_threads` threads; with none, it says other replicas do.
async fn replica(backend: &Backend, database: Option<DatabaseSettings>, bot_threads: usize) -> TestApp {
    TestApp::spawn_with(
        backend,
        Spawn {
            test_mode: true,
            database,
            api_keys: STUDIO_KEYS.into(),
            limits: Some(Limits {
                bot_threads: Some(bot_threads),
                bots_elsewhere: bot_threads == 0,
                ..Limits::default()
            }),
            ..Spawn::default()
        },
    )
    .await
}

/// Creates a studio game with these seats and options.
async fn create(app: &TestApp, seats: Value, options: Value) -> Table {
    let body = json!({"variant": "may_i", "seats": seats, "seed": 7, "first_dealer": 0, "options": options});
    Table::of_created(&create_with(app, ACME, &body).await)
}

/// Breaks game `table`'s stored state: a turn that does not exist, which no load accepts.
async fn break_row(app: &TestApp, table: &Table) {
    edit_state(app, &table.id, |s| s["game"]["turn"] = json!(5)).await;
}

/// Whether game `table`'s row is set aside: no deadline any more, and a time it was set aside.
async fn set_aside(app: &TestApp, table: &Table) -> bool {
    let row = on_game_rows(
        app,
        &table.id,
        "SELECT CAST(set_aside_at AS TEXT) || '/' || COALESCE(CAST(deadline AS TEXT), '-') FROM games WHERE id = $1",
        None,
    )
    .await;
    row.is_some_and(|r| r.ends_with("/-") && !r.starts_with('/'))
}

/// The game's log as seat `seat` reads it: the events alone.
async fn log(app: &TestApp, table: &Table, seat: usize) -> Vec<Value> {
    app.log(table, seat).await.into_iter().map(|e| e.event).collect()
}

/// docs/operations.md#games-set-aside: 40 games whose turn clock runs out and whose stored rows
/// no longer load, then a healthy one: the deadline pass sets the broken ones aside (each once,
/// counted, still listed as `corrupt`) and the healthy turn times out within its clock and a
/// few seconds.
#[actix_web::test]
async fn a_turn_times_out_behind_more_broken_games_than_a_batch() {
    for backend in backends() {
        let app = TestApp::spawn_studio(&backend, None).await;
        let seats = json!([{"name": "Ann"}, {"name": "Bob"}]);
        let mut broken = Vec::with_capacity(BROKEN);
        for _ in 0..BROKEN {
            let table = create(&app, seats.clone(), json!({"turn_seconds": 5})).await;
            break_row(&app, &table).await;
            broken.push(table);
        }
        let healthy = create(&app, seats.clone(), json!({"turn_seconds": 100})).await;
        let created = Instant::now();
        eventually(Duration::from_secs(6), "the healthy turn times out", async || {
            let events = log(&app, &healthy, 0).await;
            match events.iter().any(|e| e["type"] == "timed_out") {
                true => Ok(()),
                false => Err(events.len()),
            }
        })
        .await;
        assert!(
            created.elapsed() < Duration::from_secs(6),
            "{backend:?}: within its clock (1 s) and a few seconds: {:?}",
            created.elapsed()
        );
        for table in &broken {
            assert!(
                set_aside(&app, table).await,
                "{backend:?}: {} is set aside",
                table.id
            );
        }
        assert_eq!(
            app.metric("continental_games_set_aside_total").await,
            Some(BROKEN as f64),
            "{backend:?}: each broken game counted once"
        );
        let listing = app
            .get_with_key("/v1/games?limit=100", ACME)
            .await
            .ok("the listing");
        let games = listing["games"].as_array().expect("games");
        for table in &broken {
            let listed = games
                .iter()
                .find(|g| g["id"] == table.id.as_str())
                .expect("listed");
            assert_eq!(listed["corrupt"], json!(true), "{backend:?}: {listed}");
        }
        app.clean_up().await;
    }
}

/// The hard bots' backstop (the deadline pass hands a due bot to its replica's worker) gets
/// past 40 broken games whose hard bot is in turn: a hard bot left due by a replica that thinks
/// for none is played by the one that does.
#[actix_web::test]
async fn a_hard_bot_plays_behind_more_broken_bot_games_than_a_batch() {
    for backend in backends() {
        let idle = replica(&backend, None, 0).await;
        // Ann deals, so the hard bot is in turn at once, due, and nobody thinks for it here.
        let seats = json!([{"name": "Ann"}, {"bot": "hard"}]);
        for _ in 0..BROKEN {
            let table = create(&idle, seats.clone(), json!({})).await;
            break_row(&idle, &table).await;
        }
        let thinking = replica(&backend, Some(idle.database.clone()), 1).await;
        let healthy = create(&idle, seats.clone(), json!({})).await;
        eventually(Duration::from_secs(20), "the hard bot moves", async || {
            let events = log(&idle, &healthy, 0).await;
            match events.iter().any(|e| e["seat"] == 1 && e["type"] == "drew") {
                true => Ok(()),
                false => Err(events.len()),
            }
        })
        .await;
        // By whichever replica's pass met it first.
        let series = "continental_games_set_aside_total";
        let counted = idle.metric(series).await.unwrap_or(0.0) + thinking.metric(series).await.unwrap_or(0.0);
        assert_eq!(
            counted, BROKEN as f64,
            "{backend:?}: each broken game set aside once"
        );
        thinking.kill_switch.kill().await;
        idle.clean_up().await;
    }
}

/// docs/operations.md#where-bots-think: a replica that thinks for no bot, and is not told that others
/// do, refuses a hard bot wherever one would be seated (`409 hard_bots_unavailable`): nothing
/// would ever play it. `easy` and `normal` bots are seated as ever.
#[actix_web::test]
async fn a_hard_bot_is_refused_where_no_replica_thinks() {
    for backend in backends() {
        let app = TestApp::spawn_with(
            &backend,
            Spawn {
                test_mode: true,
                api_keys: STUDIO_KEYS.into(),
                limits: Some(Limits {
                    bot_threads: Some(0),
                    ..Limits::default()
                }),
                ..Spawn::default()
            },
        )
        .await;
        let hard = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"bot": "hard"}]});
        app.post_with_key("/v1/games", ACME, &hard, &[])
            .await
            .assert_problem(409, "hard_bots_unavailable", "a game with a hard bot");
        let table = create(
            &app,
            json!([{"name": "Ann"}, {"bot": "normal"}, {"name": "Cy"}]),
            json!({}),
        )
        .await;
        let autopilot = format!("/v1/games/{}/autopilot", table.id);
        app.post_as(&autopilot, &table.tokens[0], &json!({"level": "hard"}), &[])
            .await
            .assert_problem(409, "hard_bots_unavailable", "autopilot at hard");
        app.post_as(&autopilot, &table.tokens[0], &json!({"level": "normal"}), &[])
            .await
            .ok("autopilot at normal");
        let seat = format!("/v1/games/{}/seats/2/bot", table.id);
        app.post_with_key(&seat, ACME, &json!({"level": "hard"}), &[])
            .await
            .assert_problem(409, "hard_bots_unavailable", "a hard bot put in a seat");
        let view = app.view(&table, 0).await.ok("the view");
        assert_eq!(
            view["players"][2]["kind"], "player",
            "nothing half-applied: {view}"
        );
        app.clean_up().await;
    }
}

/// A due hard bot is leased to one replica: with two replicas thinking on one thread each for
/// more tables than they can think for at once (so that a bot often waits past the grace in
/// which another replica leaves it alone), each decision a bot made is one its game kept: no
/// bot is thought for twice in one turn.
#[actix_web::test]
async fn a_hard_bot_is_thought_for_once_with_two_replicas() {
    for backend in backends() {
        let one = replica(&backend, None, 1).await;
        let two = replica(&backend, Some(one.database.clone()), 1).await;
        let body = json!({"variant": "may_i", "seats": [{"bot": "hard"}, {"bot": "hard"}], "seed": 7, "first_dealer": 0});
        let mut ids = Vec::new();
        for _ in 0..6 {
            let created = create_with(&one, ACME, &body).await;
            ids.push(created["id"].as_str().expect("an id").to_owned());
        }
        let versions = async || {
            let mut sum = 0.0;
            for id in &ids {
                let row = on_game_rows(
                    &one,
                    id,
                    "SELECT CAST(version AS TEXT) FROM games WHERE id = $1",
                    None,
                )
                .await;
                sum += row.and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
            }
            sum
        };
        let series = "continental_bot_decision_seconds_count{level=\"hard\"}";
        let decisions =
            async || one.metric(series).await.unwrap_or(0.0) + two.metric(series).await.unwrap_or(0.0);
        // The versions first: a decision counted after this point is written after it.
        let start = versions().await;
        let decided_before = decisions().await;
        eventually(Duration::from_secs(120), "a hundred versions", async || {
            let now = versions().await;
            if now >= start + 100.0 { Ok(()) } else { Err(now) }
        })
        .await;
        // The decisions first: one counted by now is written by now, but for the one each
        // replica's one thread may have in hand.
        let decided = decisions().await - decided_before;
        let end = versions().await;
        one.kill_switch.kill().await;
        two.kill_switch.kill().await;
        // Each decision kept is one commit of at least one version.
        assert!(
            decided <= end - start + 2.0,
            "{backend:?}: {decided} decisions for {} versions",
            end - start
        );
        one.clean_up().await;
    }
}

/// Runs each of `statements` straight on the app's database, as it is (no parameters).
async fn on_database(app: &TestApp, statements: &[&str]) {
    use sqlx::Connection;
    match &app.database {
        DatabaseSettings::Sqlite { path } => {
            let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite:{path}"))
                .await
                .expect("the test database");
            for sql in statements {
                sqlx::raw_sql(sqlx::AssertSqlSafe(*sql))
                    .execute(&mut conn)
                    .await
                    .unwrap_or_else(|e| panic!("{sql}: {e}"));
            }
        }
        DatabaseSettings::Postgres { url } => {
            let mut conn = sqlx::PgConnection::connect(url).await.expect("the test database");
            for sql in statements {
                sqlx::raw_sql(sqlx::AssertSqlSafe(*sql))
                    .execute(&mut conn)
                    .await
                    .unwrap_or_else(|e| panic!("{sql}: {e}"));
            }
        }
    }
}

/// docs/operations.md#storage: the sweep of finished games gets past more games it cannot
/// delete than it reads in a batch (500; the database refuses each delete, as a trigger here
/// does): a healthy game past its retention behind them is swept. Not on Citus, which has no
/// triggers on a distributed table to refuse the deletes with.
#[actix_web::test]
async fn the_sweep_gets_past_more_rows_it_cannot_delete_than_a_batch() {
    for backend in backends().into_iter().filter(|b| *b != Backend::Citus) {
        let app = TestApp::spawn_with(
            &backend,
            Spawn {
                test_mode: true,
                api_keys: STUDIO_KEYS.into(),
                limits: Some(Limits {
                    retention: Duration::ZERO,
                    sweep_interval: Duration::from_millis(200),
                    ..Limits::default()
                }),
                ..Spawn::default()
            },
        )
        .await;
        let seats = json!([{"name": "Ann"}, {"name": "Bob"}]);
        let template = create(&app, seats.clone(), json!({})).await;
        let healthy = create(&app, seats.clone(), json!({})).await;
        let held: &[&str] = match backend {
            Backend::Sqlite => &[
                "CREATE TRIGGER held BEFORE DELETE ON games WHEN old.updated_at = 1 \
                 BEGIN SELECT RAISE(ABORT, 'this row is held'); END",
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 501) \
                 INSERT INTO games (id, variant, status, state, version, seed, seed_commitment, created_at, \
                 updated_at, tenant, created_us) SELECT randomblob(16), variant, 'finished', state, version, \
                 seed, seed_commitment, created_at, 1, tenant, created_us + i FROM games, n WHERE status = 'playing' \
                 AND created_us = (SELECT MIN(created_us) FROM games)",
            ],
            _ => &[
                "CREATE FUNCTION held() RETURNS trigger LANGUAGE plpgsql AS \
                 $$ BEGIN RAISE EXCEPTION 'this row is held'; END $$",
                "CREATE TRIGGER held BEFORE DELETE ON games FOR EACH ROW WHEN (old.updated_at = 1) \
                 EXECUTE FUNCTION held()",
                "INSERT INTO games (id, variant, status, state, version, seed, seed_commitment, created_at, \
                 updated_at, tenant, created_us) SELECT gen_random_uuid(), variant, 'finished', state, version, \
                 seed, seed_commitment, created_at, 1, tenant, created_us + i FROM games, generate_series(1, 501) i \
                 WHERE status = 'playing' AND created_us = (SELECT MIN(created_us) FROM games)",
            ],
        };
        on_database(&app, held).await;
        let over = "UPDATE games SET status = 'finished', updated_at = 2 WHERE id = $1";
        on_game_rows(&app, &healthy.id, over, None).await;
        eventually(Duration::from_secs(20), "the healthy game is swept", async || {
            let reply = app.view(&healthy, 0).await;
            match reply.status.as_u16() {
                404 => Ok(()),
                status => Err(status),
            }
        })
        .await;
        let left = on_game_rows(
            &app,
            &template.id,
            "SELECT CAST(COUNT(*) AS TEXT) FROM games WHERE updated_at = 1 AND id <> $1",
            None,
        )
        .await;
        assert_eq!(left.as_deref(), Some("501"), "{backend:?}: the held rows stay");
        app.clean_up().await;
    }
}

/// docs/api.md#webhooks: receivers that never answer, for more games than the outbox's batch
/// (16), hold up none of another game's deliveries: each of its events reaches its receiver
/// well within the time a hanging receiver is waited for (5 s).
#[actix_web::test]
async fn webhooks_go_out_past_more_hanging_receivers_than_a_batch() {
    for backend in backends() {
        let app = TestApp::spawn_studio(&backend, None).await;
        // Accepts connections and never answers.
        let hanging = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let hanging_url = format!("http://{}/hooks", hanging.local_addr().expect("an address"));
        let hooked = |url: &str| {
            json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": 7,
                "first_dealer": 0, "webhook_url": url})
        };
        for _ in 0..20 {
            create_with(&app, ACME, &hooked(&hanging_url)).await;
        }
        let receiver = crate::helpers::Receiver::start(200);
        let created = Instant::now();
        let table = Table::of_created(&create_with(&app, ACME, &hooked(&receiver.url)).await);
        let events = log(&app, &table, 0).await.len();
        receiver
            .wait_for_within(Duration::from_secs(4), "every event of the healthy game", |all| {
                all.len() >= events
            })
            .await;
        assert!(
            created.elapsed() < Duration::from_secs(4),
            "{backend:?}: {events} events in {:?}",
            created.elapsed()
        );
        drop(hanging);
        app.clean_up().await;
    }
}
