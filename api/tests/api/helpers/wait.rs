//! Bounded waits. A test never sleeps a fixed time for something to happen: it polls for it
//! until a deadline and fails naming what it waited for and what it saw last. A test that
//! expects something *not* to happen waits for a later event that proves the service got past
//! that point.

use std::fmt::Debug;
use std::time::{Duration, Instant};

/// How long a poll waits before it looks again: short next to every deadline, long enough not
/// to load the service it watches.
const POLL_EVERY: Duration = Duration::from_millis(50);

/// Polls `check` until it answers `Ok`, for `limit` at most; `Err` carries what it saw, shown
/// if the deadline passes (a check still running at the deadline fails the test too).
///
/// # Panics
///
/// At the deadline, naming `what`.
pub async fn eventually<T, E: Debug>(
    limit: Duration,
    what: &str,
    mut check: impl AsyncFnMut() -> Result<T, E>,
) -> T {
    let deadline = Instant::now() + limit;
    let mut last = None;
    loop {
        match tokio::time::timeout_at(deadline.into(), check()).await {
            Ok(Ok(done)) => return done,
            Ok(Err(seen)) => last = Some(seen),
            Err(_) => panic!("{what}: not within {limit:?} (a check was still running); last seen: {last:?}"),
        }
        if Instant::now() >= deadline {
            panic!("{what}: not within {limit:?}; last seen: {last:?}");
        }
        tokio::time::sleep(POLL_EVERY).await;
    }
}

/// `fut`, or a failed test after `limit`: a fault test must never hang.
pub async fn within<T>(limit: Duration, what: &str, fut: impl Future<Output = T>) -> T {
    tokio::time::timeout(limit, fut)
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer within {limit:?}"))
}

/// `fut`, which must be done within `bound` (measured, and bounded at 10 s more so that a
/// hang fails rather than stalls): a fault answered late is the fault these tests look for.
pub async fn timed<T>(bound: Duration, what: &str, fut: impl Future<Output = T>) -> T {
    let started = Instant::now();
    let value = within(bound + Duration::from_secs(10), what, fut).await;
    let took = started.elapsed();
    assert!(
        took < bound,
        "{what}: answered after {took:?}, not within {bound:?}"
    );
    value
}
