//! Rate limiting per client with governor's keyed limiter: a client is its seat token's
//! subject, else the tenant of its valid server key (`X-Api-Key`), else its address (the
//! middleware that tells them apart is `http::rate_limit`).

use std::net::IpAddr;
use std::num::NonZeroU32;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::error::ApiError;
use crate::server_keys::Tenant;

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
