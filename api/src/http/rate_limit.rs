//! The rate limit at the edge (`edge`): which client a request counts against, and its `429`.

use actix_web::dev::ServiceRequest;
use actix_web::http::header;

use crate::error::ApiError;
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

/// Why a request is refused at the edge, if it is: its client past the limit (`429` with
/// `Retry-After`), when a limit is set.
pub fn refusal(req: &ServiceRequest, state: &AppState) -> Option<ApiError> {
    let limit = state.rate_limit.as_ref()?;
    if UNLIMITED.contains(&req.path()) {
        return None;
    }
    limit.check(&client_of(req, state)).err()
}
