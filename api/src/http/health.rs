//! Liveness, readiness and metrics.

use std::time::Duration;

use actix_web::{HttpResponse, route, web};

use crate::error::ApiError;
use crate::state::AppState;
use crate::store::Store;
use crate::wire::Problem;

/// Liveness: the process answers.
///
/// Always `ok` while the process serves requests; it does not look at the database.
#[utoipa::path(
    get, path = "/healthz", tag = "operations",
    responses((status = 200, description = "The process is alive.", body = String, content_type = "text/plain", example = "ok"))
)]
#[route("/healthz", method = "GET", method = "HEAD")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().content_type("text/plain").body("ok")
}

/// How long `/readyz` waits for the database: a load balancer wants its answer at once.
const READY_TIMEOUT: Duration = Duration::from_millis(500);

/// Readiness: the database answers.
///
/// `ready` when a query to the database succeeds, so that the service can take traffic.
#[utoipa::path(
    get, path = "/readyz", tag = "operations",
    responses(
        (status = 200, description = "The database answers; the service can take traffic.", body = String, content_type = "text/plain", example = "ready"),
        (status = 503, description = "The database does not answer within half a second (`service_unavailable`): send no traffic here for now.",
            body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait before asking again.")))
    )
)]
#[route("/readyz", method = "GET", method = "HEAD")]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    match tokio::time::timeout(READY_TIMEOUT, state.db.ready()).await {
        Ok(answer) => answer?,
        Err(elapsed) => return Err(ApiError::unavailable(elapsed)),
    }
    Ok(HttpResponse::Ok().content_type("text/plain").body("ready"))
}

/// Prometheus metrics.
///
/// Request, game and action counters in the Prometheus text format.
#[utoipa::path(
    get, path = "/metrics", tag = "operations",
    responses((status = 200, description = "Metrics in the Prometheus text format ([operations](https://github.com/continental-rummy/continental/blob/main/docs/operations.md#metrics) lists them).", body = String,
        content_type = "text/plain; version=0.0.4",
        example = "# TYPE continental_http_requests_total counter\ncontinental_http_requests_total{method=\"GET\",route=\"/v1/games/{id}\",status=\"200\"} 12\n"))
)]
#[route("/metrics", method = "GET", method = "HEAD")]
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    let (in_use, idle) = state.db.pool_connections();
    state.metrics.pool(in_use, idle);
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(state.metrics.render())
}
