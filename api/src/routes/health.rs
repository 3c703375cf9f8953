//! Liveness, readiness and metrics.

use actix_web::{HttpResponse, get, web};

use crate::error::{ApiError, Problem};
use crate::startup::AppState;
use crate::store::Store;

/// Liveness: the process answers.
#[utoipa::path(
    get, path = "/healthz", tag = "operations",
    responses((status = 200, description = "The process is alive.", body = String, content_type = "text/plain", example = "ok"))
)]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().content_type("text/plain").body("ok")
}

/// Readiness: the database answers.
#[utoipa::path(
    get, path = "/readyz", tag = "operations",
    responses(
        (status = 200, description = "The database answers; the service can take traffic.", body = String, content_type = "text/plain", example = "ready"),
        (status = 500, description = "The database does not answer.", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    state.db.ready().await?;
    Ok(HttpResponse::Ok().content_type("text/plain").body("ready"))
}

/// Prometheus metrics.
#[utoipa::path(
    get, path = "/metrics", tag = "operations",
    responses((status = 200, description = "Counters in the Prometheus text format.", body = String,
        content_type = "text/plain; version=0.0.4",
        example = "# TYPE continental_http_requests_total counter\ncontinental_http_requests_total{class=\"2xx\"} 12\n"))
)]
#[get("/metrics")]
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(state.metrics.render())
}
