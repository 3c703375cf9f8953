//! Rate limiting per client with governor's keyed limiter: a client is its seat token's
//! subject, else the tenant of its valid server key (`X-Api-Key`), else its address.

use std::net::IpAddr;
use std::num::NonZeroU32;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::Next;
use actix_web::web;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::error::ApiError;
use crate::server_keys::Tenant;
use crate::state::AppState;

/// Who a request counts against.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Client {
    /// The subject of a valid seat token (`game/{id}/seat/{n}`).
    Subject(String),
    /// The tenant of a valid server key: a studio's back end, however many keys it rotates.
    Tenant(Tenant),
    /// The peer's address.
    Address(IpAddr),
    /// A request whose peer is unknown (not on a TCP socket).
    Unknown,
}

/// Requests per second per client, with bursts of as many.
#[derive(Debug)]
pub struct RateLimit {
    limiter: DefaultKeyedRateLimiter<Client>,
}

/// Paths a load balancer or a scraper polls: never limited.
const UNLIMITED: [&str; 3] = ["/healthz", "/readyz", "/metrics"];

impl RateLimit {
    /// A limiter allowing `per_second` requests per second to each client.
    pub fn new(per_second: NonZeroU32) -> RateLimit {
        RateLimit {
            limiter: RateLimiter::keyed(Quota::per_second(per_second)),
        }
    }

    /// Counts a request of `client`: `Err` with the seconds to wait when it is over its limit.
    ///
    /// # Errors
    /// [`ApiError::TooManyRequests`] past the limit.
    pub fn check(&self, client: &Client) -> Result<(), ApiError> {
        self.limiter.check_key(client).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            ApiError::TooManyRequests {
                // Whole seconds, rounded up: `Retry-After: 0` would invite a busy loop.
                retry_after: wait.as_secs_f64().ceil().max(1.0) as u64,
            }
        })
    }

    /// Forgets clients whose allowance is full again, so the table stays as small as the set
    /// of recently active clients.
    pub fn forget_idle(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_past_its_limit_waits_and_others_do_not() {
        let limit = RateLimit::new(NonZeroU32::MIN.saturating_add(1));
        let ann = Client::Subject("game/a/seat/0".into());
        let bob = Client::Subject("game/a/seat/1".into());
        assert!(limit.check(&ann).is_ok());
        assert!(limit.check(&ann).is_ok());
        match limit.check(&ann) {
            Err(ApiError::TooManyRequests { retry_after }) => assert!(retry_after >= 1, "{retry_after}"),
            other => panic!("the third request in a second is refused, got {other:?}"),
        }
        assert!(limit.check(&bob).is_ok(), "another client has its own allowance");
    }
}
