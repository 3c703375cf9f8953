//! The rate limit as middleware: which client a request counts against, and its `429`.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::Next;
use actix_web::web;

use crate::limits::Client;
use crate::state::AppState;

/// Paths a load balancer or a scraper polls: never limited.
const UNLIMITED: [&str; 3] = ["/healthz", "/readyz", "/metrics"];

/// The client a request counts against.
fn client_of(req: &ServiceRequest, state: &AppState) -> Client {
    let bearer = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")));
    // Only a verified subject: an unverified one could be changed at will to escape the limit.
    if let Some(claims) = bearer.and_then(|t| state.keys.verify(t.trim()).ok()) {
        return Client::Subject(claims.sub);
    }
    // Only a configured key: an unchecked one could be changed at will to escape the limit.
    if let Ok(tenant) = state.server_keys.tenant(req.request()) {
        return Client::Tenant(tenant);
    }
    req.peer_addr()
        .map_or(Client::Unknown, |a| Client::Address(a.ip()))
}

/// Middleware: answers `429` with `Retry-After` to a client past its limit, when a limit is set.
///
/// # Errors
/// Whatever the inner service fails with.
pub async fn limit(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    if let Some(state) = req.app_data::<web::Data<AppState>>().cloned() {
        if let Some(limit) = &state.rate_limit {
            if !UNLIMITED.contains(&req.path()) {
                if let Err(e) = limit.check(&client_of(&req, &state)) {
                    return Ok(req.error_response(e).map_into_right_body());
                }
            }
        }
    }
    Ok(next.call(req).await?.map_into_left_body())
}
