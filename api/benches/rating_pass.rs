//! The database transaction that rates a finished game, as the rating pass runs it: the claim
//! of a batch of games due (`Store::claim_ratings`), then per game `service::rate` (its seats'
//! ratings read and written once under the `rated_games` marker, the changes written into the
//! game, the game taken off the queue). On SQLite (a file) and on PostgreSQL (`PGURL`).
//! Run by `bench/run.sh` (`PHASES=7`), or `cargo bench -p continental --bench rating_pass`;
//! docs/performance.md#rating-pass has the figures.
//!
//! `GAMES` rated games (default 200) of `may_i` are played to their end first, unmeasured,
//! through the service's own handlers (no network): two studio players, drawn from a pool of
//! 64 so that most ratings already have a row, and two `easy` bots; both players hand their
//! seat to autopilot and the bots finish the game in that request. No background worker runs,
//! so the games wait for this bench's own pass.

use std::time::{Duration, Instant};

use actix_web::{App, test, web};
use continental::auth::Keys;
use continental::config::{AsyncSettings, DatabaseSettings, Limits, MatchmakingSettings, Secret};
use continental::queue::GameQueues;
use continental::server_keys::ServerKeys;
use continental::state::AppState;
use continental::store::{Database, Live, Store, now_ms};
use continental::workers::{Bots, Pacer};
use continental::{http, metrics::Metrics, service};
use serde_json::{Value, json};
use sqlx::Connection;

const KEY: &str = "bench-secret-0000000001";
/// Players the games draw from: after the first games, most have a rating row to update.
const PLAYERS: usize = 64;
/// Games claimed at once, as the pass does.
const BATCH: i64 = 16;
const LEASE_MS: i64 = 30_000;

fn main() {
    // `cargo test --all-targets` runs a bench without `--bench`: this one needs PostgreSQL and
    // minutes, so it measures only under `cargo bench`.
    if !std::env::args().any(|a| a == "--bench") {
        println!("rating_pass: measured under `cargo bench` only");
        return;
    }
    let games: usize = std::env::var("GAMES")
        .ok()
        .and_then(|g| g.parse().ok())
        .unwrap_or(200);
    let pg = std::env::var("PGURL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432".into());
    let dir = std::env::temp_dir().join(format!("rating-pass-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    actix_web::rt::System::new().block_on(async {
        let sqlite = DatabaseSettings::Sqlite {
            path: dir.join("bench.db").to_string_lossy().into_owned(),
        };
        measure("SQLite", &sqlite, games).await;
        let name = "continental_rating_bench";
        admin(&pg, &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await;
        admin(&pg, &format!("CREATE DATABASE {name}")).await;
        let postgres = DatabaseSettings::Postgres {
            url: format!("{pg}/{name}"),
        };
        measure("PostgreSQL", &postgres, games).await;
        admin(&pg, &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await;
    });
    std::fs::remove_dir_all(&dir).ok();
}

async fn admin(pg: &str, sql: &str) {
    let mut conn = sqlx::PgConnection::connect(&format!("{pg}/postgres"))
        .await
        .expect("PostgreSQL at PGURL");
    sqlx::query(sqlx::AssertSqlSafe(sql.to_owned()))
        .execute(&mut conn)
        .await
        .expect(sql);
}

/// The service's state on `database`, in test mode with one studio key, and no worker running.
async fn state(database: &DatabaseSettings) -> web::Data<AppState> {
    let limits = Limits::default();
    let live = Live::new(limits.max_streams);
    let db = Database::connect(database, None, &limits, &live)
        .await
        .expect("the database");
    let secret = Secret::new("bench-jwt-secret-0123456789-0123456789".into(), "bench").expect("a secret");
    let (bots, _woken) = Bots::new(1, false);
    let (pace, _armed) = Pacer::new();
    web::Data::new(AppState {
        db,
        keys: Keys::new(&secret),
        server_keys: ServerKeys::parse(&format!("studio:{KEY}")).expect("a key"),
        test_mode: true,
        metrics: std::sync::Arc::new(Metrics::new()),
        limits,
        rate_limit: None,
        live,
        asynchronous: AsyncSettings::default(),
        matchmaking: MatchmakingSettings::default(),
        outbox: std::sync::Arc::default(),
        queues: GameQueues::default(),
        bots,
        pace,
    })
}

async fn measure(backend: &str, database: &DatabaseSettings, games: usize) {
    let state = state(database).await;
    let app = test::init_service(App::new().app_data(state.clone()).configure(http::configure)).await;
    let made = Instant::now();
    let mut last = None;
    for i in 0..games {
        let players = [(2 * i) % PLAYERS, (2 * i + 1) % PLAYERS];
        let body = json!({"variant": "may_i", "rated": true, "seed": i + 1,
            "seats": [{"name": "Ann", "player": format!("p-{}", players[0])}, {"bot": "easy"},
                {"name": "Bob", "player": format!("p-{}", players[1])}, {"bot": "easy"}]});
        let created: Value = test::call_and_read_body_json(
            &app,
            test::TestRequest::post()
                .uri("/v1/games")
                .insert_header(("x-api-key", KEY))
                .set_json(&body)
                .to_request(),
        )
        .await;
        let id = created["id"].as_str().expect("a game").to_owned();
        let mut view = Value::Null;
        for seat in created["seats"].as_array().expect("seats") {
            let Some(token) = seat["token"].as_str() else {
                continue;
            };
            view = test::call_and_read_body_json(
                &app,
                test::TestRequest::post()
                    .uri(&format!("/v1/games/{id}/autopilot"))
                    .insert_header(("authorization", format!("Bearer {token}")))
                    .set_json(json!({"level": "easy"}))
                    .to_request(),
            )
            .await;
        }
        assert_eq!(view["status"], "finished", "the bots finish game {id}: {view}");
        last = Some((
            id,
            created["seats"][0]["token"].as_str().expect("a token").to_owned(),
        ));
    }
    let made = made.elapsed();

    let (mut claims, mut rates) = (Vec::new(), Vec::new());
    let pass = Instant::now();
    loop {
        let started = Instant::now();
        let due = state
            .db
            .claim_ratings(now_ms(), LEASE_MS, BATCH)
            .await
            .expect("a claim");
        if due.is_empty() {
            break;
        }
        claims.push(started.elapsed());
        for game in &due {
            let started = Instant::now();
            service::rate(&state, game).await.expect("the game rated");
            rates.push(started.elapsed());
        }
    }
    let pass = pass.elapsed();
    assert_eq!(rates.len(), games, "{backend}: every finished game was due once");

    // The last game's view shows its players' change: the pass did its whole job.
    let (id, token) = last.expect("a game");
    let view: Value = test::call_and_read_body_json(
        &app,
        test::TestRequest::get()
            .uri(&format!("/v1/games/{id}"))
            .insert_header(("authorization", format!("Bearer {token}")))
            .to_request(),
    )
    .await;
    assert!(
        view["players"][0]["rating_change"].is_object(),
        "{backend}: rated: {view}"
    );

    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let per_game = us(pass) / games as f64;
    println!(
        "   {backend}: {games} games (played in {:.1} s, unmeasured); claim of {BATCH}: median {:.0} us; \
         rate one game: median {:.0} us, p90 {:.0} us, p99 {:.0} us, max {:.0} us; \
         whole pass {:.0} us a game ({:.0} games/s)",
        made.as_secs_f64(),
        us(quantile(&mut claims, 0.5)),
        us(quantile(&mut rates, 0.5)),
        us(quantile(&mut rates, 0.9)),
        us(quantile(&mut rates, 0.99)),
        us(quantile(&mut rates, 1.0)),
        per_game,
        1e6 / per_game,
    );
}

/// The `q` quantile of `samples` (nearest rank).
fn quantile(samples: &mut [Duration], q: f64) -> Duration {
    samples.sort_unstable();
    let rank = ((q * samples.len() as f64).ceil() as usize).clamp(1, samples.len());
    samples[rank - 1]
}
