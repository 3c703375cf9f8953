//! A database out of reach: limits that give up quickly, the `503` a client then gets, and a
//! client waiting it out.

use std::time::Duration;

use continental::config::Limits;

use super::{Reply, eventually};

/// Limits that give up quickly, so a fault shows in a second or two.
pub fn quick() -> Limits {
    Limits {
        db_acquire_timeout: Duration::from_millis(800),
        statement_timeout: Duration::from_secs(2),
        lock_timeout: Duration::from_millis(500),
        request_timeout: Duration::from_secs(1),
        ..Limits::default()
    }
}

/// A 503 for a database that hangs arrives within this, not after the 10 s of a pool timeout.
pub const HUNG_WITHIN: Duration = Duration::from_secs(4);

/// Asserts a `503` problem with `code` that says when to retry.
pub fn assert_unavailable(reply: &Reply, code: &str, context: &str) {
    reply.assert_problem(503, code, context);
    let wait: u64 = reply
        .header("retry-after")
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{context}: a 503 says when to retry: {:?}", reply.headers));
    assert!(wait >= 1, "{context}: Retry-After {wait}");
}

/// The first answer of `request` that is not a 503, sent again while it is, within `limit`:
/// what a client does once the database is back.
pub async fn once_available<F: Future<Output = Reply>>(
    limit: Duration,
    what: &str,
    request: impl Fn() -> F,
) -> Reply {
    eventually(limit, what, async || {
        let reply = request().await;
        if reply.status.as_u16() == 503 {
            Err(reply.text())
        } else {
            Ok(reply)
        }
    })
    .await
}
