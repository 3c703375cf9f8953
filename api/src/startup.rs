//! Building the application from settings: database, keys, routes, server.

use std::net::TcpListener;
use std::sync::Arc;

use actix_web::dev::{Server, Service};
use actix_web::{App, HttpResponse, HttpServer, web};
use rand::RngCore;
use tracing_actix_web::TracingLogger;
use utoipa::OpenApi;
use utoipa_swagger_ui::SwaggerUi;

use crate::auth::Keys;
use crate::config::Settings;
use crate::error::{self, ApiError};
use crate::metrics::Metrics;
use crate::openapi::ApiDoc;
use crate::routes;
use crate::store::{Database, Store};

/// What every handler may reach: the database, the token keys, the mode, the counters.
#[derive(Debug)]
pub struct AppState {
    /// The store.
    pub db: Database,
    /// Seat-token keys.
    pub keys: Keys,
    /// API.md's test mode.
    pub test_mode: bool,
    /// Counters for `/metrics`.
    pub metrics: Arc<Metrics>,
}

/// A built, bound, not yet running service.
pub struct Application {
    port: u16,
    server: Server,
}

impl Application {
    /// Connects to the database (running migrations), loads or creates the token secret,
    /// binds the listener and builds the server.
    ///
    /// # Errors
    /// When the database or the address is unusable.
    pub async fn build(settings: Settings) -> Result<Application, Box<dyn std::error::Error + Send + Sync>> {
        let db = Database::connect(&settings.database).await?;
        let secret = match &settings.jwt_secret {
            Some(s) => s.0.clone(),
            None => {
                let mut bytes = [0u8; 32];
                rand::rng().fill_bytes(&mut bytes);
                // Stored once: every replica on this database then signs with the same secret.
                db.jwt_secret(hex(&bytes)).await?
            }
        };
        let listener = TcpListener::bind(&settings.bind)?;
        let port = listener.local_addr()?.port();
        let state = web::Data::new(AppState {
            db,
            keys: Keys::new(secret.as_bytes()),
            test_mode: settings.test_mode,
            metrics: Arc::new(Metrics::default()),
        });
        let server = HttpServer::new(move || {
            let metrics = state.metrics.clone();
            App::new()
                .wrap_fn(move |req, srv| {
                    let metrics = metrics.clone();
                    let fut = srv.call(req);
                    async move {
                        let res = fut.await?;
                        metrics.response(res.status().as_u16());
                        Ok(crate::telemetry::echo_request_id(res))
                    }
                })
                .wrap(TracingLogger::default())
                .app_data(state.clone())
                .app_data(web::PathConfig::default().error_handler(error::path_error))
                .app_data(web::QueryConfig::default().error_handler(error::query_error))
                .configure(routes::configure)
                .service(SwaggerUi::new("/docs/{_:.*}").url("/api-docs/openapi.json", ApiDoc::openapi()))
                .route(
                    "/docs",
                    web::get().to(|| async {
                        HttpResponse::PermanentRedirect()
                            .insert_header(("Location", "/docs/"))
                            .finish()
                    }),
                )
                .default_service(web::to(|| async {
                    Err::<HttpResponse, _>(ApiError::not_found(
                        "no_route",
                        "no such endpoint: see /api-docs/openapi.json",
                    ))
                }))
        })
        .listen(listener)?
        .shutdown_timeout(10)
        .run();
        Ok(Application { port, server })
    }

    /// The port bound (useful when the address asked for port 0).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until stopped; SIGTERM and SIGINT stop it gracefully (in-flight requests finish).
    ///
    /// # Errors
    /// When the server fails.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }
}

/// Lower-case hex of some bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
