//! Building the application from settings: database, keys, routes, server.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_cors::Cors;
use actix_web::dev::{Server, ServerHandle};
use actix_web::middleware::Condition;
use actix_web::{App, HttpResponse, HttpServer, web};
use tokio::sync::mpsc;
use tracing::Instrument;
use utoipa_swagger_ui::{Config as SwaggerConfig, SwaggerUi};
use uuid::Uuid;

use crate::auth::{self, Keys};
use crate::background::{Lane, LaneKill};
use crate::config::{Secret, Settings};
use crate::error;
use crate::http;
use crate::limits::RateLimit;
use crate::metrics::Metrics;
use crate::queue::GameQueues;
use crate::service;
use crate::state::AppState;
use crate::store::Live;
use crate::store::{Database, Store, Tickets, now, now_ms};
use crate::workers;

/// A built, bound, not yet running service.
pub struct Application {
    port: u16,
    server: Server,
    /// The threads of the background passes, stopped with the server.
    background: Vec<Lane>,
    stopper: Stopper,
}

/// How often each replica reads what waits for its background work (the backlog metrics).
const BACKLOG_EVERY: Duration = Duration::from_secs(30);

/// The longest a background pass waits with nothing announced: the bound on picking up work
/// that no commit announces (a stopped replica's leases, the due times it stored), in seconds
/// of the turn clock (shorter in tests).
const BACKSTOP_SECONDS: u32 = 15;

/// Stops a running service: every event stream at once, then the server, gracefully.
#[derive(Clone)]
pub struct Stopper {
    live: Live,
    server: ServerHandle,
}

impl Stopper {
    /// Closes every stream now (each is told to reconnect elsewhere), lets requests in flight
    /// finish, and stops the server.
    pub async fn stop(&self) {
        self.live.close();
        self.server.stop(true).await;
    }
}

impl Application {
    /// Connects to the database (running migrations), loads or creates the token secret,
    /// binds the listener and builds the server.
    ///
    /// # Errors
    /// When the database or the address is unusable.
    pub async fn build(settings: Settings) -> Result<Application, BuildError> {
        let live = Live::new(settings.limits.max_streams);
        let db = Database::connect(
            &settings.database,
            settings.migrations.as_ref(),
            &settings.limits,
            &live,
        )
        .await?;
        let secret = token_secret(&settings, &db).await?;
        let listener = TcpListener::bind(&settings.bind)?;
        let port = listener.local_addr()?.port();
        let (bots, woken) = workers::Bots::new(
            settings
                .limits
                .bot_threads
                .unwrap_or_else(crate::config::default_bot_threads),
            settings.limits.bots_elsewhere,
        );
        let (pace, armed) = workers::Pacer::new();
        let state = web::Data::new(AppState {
            db,
            keys: Keys::new(&secret),
            server_keys: settings.api_keys.clone(),
            test_mode: settings.test_mode,
            metrics: Arc::new(Metrics::new()),
            limits: settings.limits.clone(),
            rate_limit: settings.limits.rate_limit.map(RateLimit::new),
            live: live.clone(),
            asynchronous: settings.asynchronous.clone(),
            matchmaking: settings.matchmaking.clone(),
            outbox: Arc::default(),
            queues: GameQueues::default(),
            bots,
            pace,
        });
        let background = start_background(&settings, &state, woken, armed)?;
        let server = serve(&settings, state, listener)?;
        let stopper = Stopper {
            live,
            server: server.handle(),
        };
        Ok(Application {
            port,
            server,
            background,
            stopper,
        })
    }

    /// What stops this service from another task (tests; the signals do it in production).
    pub fn stopper(&self) -> Stopper {
        self.stopper.clone()
    }

    /// The port bound (useful when the address asked for port 0).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until stopped; SIGTERM and SIGINT stop it gracefully: every event stream closes at
    /// once, requests in flight finish.
    ///
    /// # Errors
    /// When the server fails.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let stopper = self.stopper;
        // A task of the runtime running this (main's, or a test's), not of a server worker.
        let signals = tokio::spawn(async move {
            if stop_signal().await {
                tracing::info!("stopping: closing event streams");
                stopper.stop().await;
            }
        });
        let result = self.server.await;
        // Deliveries in flight are abandoned: their leases run out and they go again. Each
        // lane's thread is joined off this runtime.
        let background = self.background;
        let _ = tokio::task::spawn_blocking(move || background.into_iter().for_each(Lane::stop)).await;
        signals.abort();
        let _ = signals.await;
        result
    }

    /// What stops this service at once, as a crash would (for tests of what survives one).
    pub fn kill_switch(&self) -> KillSwitch {
        KillSwitch {
            server: self.server.handle(),
            background: self.background.iter().map(Lane::kill_handle).collect(),
        }
    }
}

/// Why the service could not be built.
type BuildError = Box<dyn std::error::Error + Send + Sync>;

/// The seat-token secret: the one set, or the one stored in the database (a fresh one stored
/// there first if there is none). Stored once: every replica on this database then signs with the
/// same secret. One too short was written by hand or by another program; it is refused rather
/// than replaced, because the replicas still running sign with it, and replacing it would end
/// every token issued: that is the operator's decision.
async fn token_secret(settings: &Settings, db: &Database) -> Result<Secret, BuildError> {
    if let Some(s) = &settings.jwt_secret {
        return Ok(s.clone());
    }
    let stored = Secret::new(
        db.jwt_secret(auth::new_secret()).await?,
        "the seat-token secret stored in the database (settings.jwt_secret)",
    )
    .map_err(|e| {
        format!(
            "{e}; set CONTINENTAL_JWT_SECRET or CONTINENTAL_JWT_SECRET_FILE to one, or delete \
             it (DELETE FROM settings WHERE name = 'jwt_secret') to have one generated, which \
             ends every token signed with it"
        )
    })?;
    Ok(stored)
}

/// Starts the background passes on threads of their own (`background.rs`), apart from the
/// server's: deliveries on one, the passes that think and write games on the other. Every
/// replica delivers webhooks and keeps turn deadlines; the database shares the work out
/// (leases, `SKIP LOCKED`). `woken` and `armed` are the bot worker's and the pace timers'.
fn start_background(
    settings: &Settings,
    state: &web::Data<AppState>,
    woken: mpsc::UnboundedReceiver<Uuid>,
    armed: mpsc::UnboundedReceiver<(Uuid, i64)>,
) -> std::io::Result<Vec<Lane>> {
    let second = Duration::from_millis(u64::try_from(state.second_ms()).unwrap_or(1000));
    let each_second = second.min(Duration::from_secs(1));
    let backstop = each_second.saturating_mul(BACKSTOP_SECONDS);
    // Deliveries another replica announced, claimed at most this often.
    let heard_every = Duration::from_secs_f64(settings.asynchronous.webhook_retry_s.clamp(0.01, 1.0));
    let deliveries = Lane::new("continental-webhooks")?;
    let passes = Lane::new("continental-passes")?;
    deliveries.spawn({
        let state = state.clone();
        move || service::deliver_webhooks(state, heard_every, backstop)
    });
    passes.spawn({
        let state = state.clone();
        move || service::play_bots(state, woken)
    });
    passes.spawn({
        let state = state.clone();
        move || service::pace_bots(state, armed)
    });
    passes.spawn({
        let state = state.clone();
        let interval = settings.matchmaking.interval;
        move || service::match_periodically(state, interval, backstop)
    });
    passes.spawn({
        let state = state.clone();
        move || service::rate_games(state, each_second, backstop)
    });
    passes.spawn({
        let state = state.clone();
        move || service::run_tournaments(state, backstop)
    });
    passes.spawn({
        let state = state.clone();
        move || service::sweep_deadlines(state, each_second, backstop)
    });
    passes.spawn({
        let state = state.clone();
        move || sweep_periodically(state.into_inner())
    });
    passes.spawn({
        let state = state.clone();
        move || service::count_backlog(state, BACKLOG_EVERY.min(second.saturating_mul(30)))
    });
    Ok(vec![deliveries, passes])
}

/// The HTTP server on `listener`: the routes, the page and the document, behind the edge.
fn serve(settings: &Settings, state: web::Data<AppState>, listener: TcpListener) -> std::io::Result<Server> {
    let limits = &settings.limits;
    // actix caps connections per worker: no more workers than the cap, so that a small cap
    // holds (the total is the cap rounded up to a multiple of the workers).
    let workers = std::thread::available_parallelism()
        .map_or(2, usize::from)
        .min(limits.max_connections)
        .max(1);
    let cors_origins = settings.cors_origins.clone();
    let document = crate::openapi::served(settings.test_mode);
    let server = HttpServer::new(move || {
        App::new()
            // CORS inside the edge: its preflight answers are still observed and limited.
            .wrap(Condition::new(!cors_origins.is_empty(), cors(&cors_origins)))
            // Last wrapped runs first: every request is observed, even one refused by the limit.
            .wrap(http::edge::Edge)
            .app_data(state.clone())
            .app_data(web::PathConfig::default().error_handler(error::path_error))
            .app_data(web::QueryConfig::default().error_handler(error::query_error))
            .configure(http::configure)
            .configure(http::page::configure)
            .service(
                SwaggerUi::new("/docs/{_:.*}")
                    .url("/api-docs/openapi.json", document.clone())
                    // Swagger UI would send the document to validator.swagger.io otherwise.
                    .config(SwaggerConfig::default().validator_url("none")),
            )
            .route(
                "/docs",
                web::get().to(|| async {
                    HttpResponse::PermanentRedirect()
                        .insert_header(("Location", "/docs/"))
                        .finish()
                }),
            )
            .default_service(web::to(http::no_route))
    })
    .workers(workers)
    // actix counts connections per worker.
    .max_connections(limits.max_connections.div_ceil(workers))
    // Headers must arrive within the request timeout (the body's own timeout is in
    // `JsonBody`); a slow or silent client is answered 408 and closed.
    .client_request_timeout(limits.request_timeout)
    .client_disconnect_timeout(Duration::from_secs(1))
    .listen(listener)?
    // Signals are ours (run_until_stopped): the streams close first, at once. What is left
    // is requests in flight, which take milliseconds.
    .disable_signals()
    .shutdown_timeout(5)
    .run();
    Ok(server)
}

/// Waits for SIGTERM or SIGINT; `false` if no signal can be watched.
async fn stop_signal() -> bool {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) {
            (Ok(mut term), Ok(mut int)) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = int.recv() => {}
                }
                true
            }
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        tokio::signal::ctrl_c().await.is_ok()
    }
}

/// Sweeps expired idempotency keys and games past their retention every sweep interval, and
/// forgets idle clients of the rate limit. Any replica may run it: the store never sweeps a
/// row twice. A failed sweep is logged and tried again next time; a slow one is logged with
/// what it swept and how long it took (`CONTINENTAL_SLOW_PASS_MS`).
async fn sweep_periodically(state: Arc<AppState>) {
    let mut every = tokio::time::interval(state.limits.sweep_interval);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        if let Some(limit) = &state.rate_limit {
            limit.forget_idle();
        }
        let at = now();
        let keys_before =
            at.saturating_sub(i64::try_from(state.limits.idempotency_ttl.as_secs()).unwrap_or(i64::MAX));
        let games_before =
            at.saturating_sub(i64::try_from(state.limits.retention.as_secs()).unwrap_or(i64::MAX));
        let started = Instant::now();
        let swept = state
            .db
            .sweep(keys_before, games_before)
            .instrument(crate::telemetry::traces::pass("sweep"))
            .await;
        match (swept, state.slow_pass(started)) {
            (Ok(swept), Some(took_ms)) => {
                tracing::warn!(
                    keys = swept.keys,
                    games = swept.games,
                    took_ms,
                    "slow sweep of expired keys and games"
                );
            }
            (Ok(swept), None) if swept.keys + swept.games > 0 => {
                tracing::info!(
                    keys = swept.keys,
                    games = swept.games,
                    "swept expired keys and games"
                );
            }
            (Ok(_), None) => {}
            (Err(e), _) => {
                let took_ms = started.elapsed().as_millis();
                tracing::warn!(error = %e, took_ms, "sweep failed; next try in one interval");
            }
        }
        // A settled ticket is kept for its holder to read as long as an idempotency key.
        let ttl = i64::try_from(state.limits.idempotency_ttl.as_millis()).unwrap_or(i64::MAX);
        let swept = state
            .db
            .sweep_tickets(now_ms().saturating_sub(ttl))
            .instrument(crate::telemetry::traces::pass("sweep"))
            .await;
        match swept {
            Ok(0) => {}
            Ok(tickets) => tracing::info!(tickets, "swept settled tickets"),
            Err(e) => tracing::warn!(error = %e, "sweep of settled tickets failed; next try in one interval"),
        }
    }
}

/// CORS for browser clients from these origins (`*` for any); the headers a client sends
/// and reads on a move are allowed and exposed.
fn cors(origins: &[String]) -> Cors {
    let cors = if origins.iter().any(|o| o == "*") {
        Cors::default().allow_any_origin()
    } else {
        origins.iter().fold(Cors::default(), |c, o| c.allowed_origin(o))
    };
    cors.allowed_methods(["GET", "HEAD", "POST", "DELETE"])
        .allowed_headers([
            "authorization",
            "content-type",
            "if-match",
            "if-none-match",
            "idempotency-key",
            "last-event-id",
        ])
        .expose_headers(["etag", "location", "retry-after", "x-request-id", "allow"])
        .max_age(3600)
}

/// Stops a service at once, as a crash would: no graceful shutdown, background work (a
/// webhook in flight, a deadline being played) cut off wherever it is.
#[derive(Clone)]
pub struct KillSwitch {
    server: actix_web::dev::ServerHandle,
    background: Vec<LaneKill>,
}

impl KillSwitch {
    /// Stops now.
    pub async fn kill(&self) {
        for lane in &self.background {
            lane.kill();
        }
        self.server.stop(false).await;
    }
}
