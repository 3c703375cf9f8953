//! What every handler may reach.

use std::sync::Arc;
use std::time::Instant;

use tokio::sync::Notify;

use crate::auth::Keys;
use crate::config::AsyncSettings;
use crate::config::Limits;
use crate::config::MatchmakingSettings;
use crate::limits::RateLimit;
use crate::metrics::Metrics;
use crate::queue::GameQueues;
use crate::server_keys::ServerKeys;
use crate::store::Database;
use crate::store::Live;
use crate::workers::{Bots, Pacer};

/// What every handler may reach: the database, the token keys, the mode, the counters.
#[derive(Debug)]
pub struct AppState {
    /// The store.
    pub db: Database,
    /// Seat-token keys.
    pub keys: Keys,
    /// Server keys of the studios' back ends (possibly none).
    pub server_keys: ServerKeys,
    /// The test mode of docs/api.md#test-mode.
    pub test_mode: bool,
    /// Everything `/metrics` serves.
    pub metrics: Arc<Metrics>,
    /// Timeouts, caps and retention.
    pub limits: Limits,
    /// The per-client rate limit, when one is set.
    pub rate_limit: Option<RateLimit>,
    /// This replica's live events, for the streams.
    pub live: Live,
    /// Webhooks and turn deadlines.
    pub asynchronous: AsyncSettings,
    /// Quick play's waits and pace.
    pub matchmaking: MatchmakingSettings,
    /// Wakes this replica's webhook worker when an action wrote to the outbox.
    pub outbox: Arc<Notify>,
    /// This replica's queue of each game's moves, taken before a database connection.
    pub queues: GameQueues,
    /// This replica's worker for the bots that think apart from the requests.
    pub bots: Bots,
    /// This replica's timers of the bots' paced moves at a person's table.
    pub pace: Pacer,
}

impl AppState {
    /// How long a background pass begun at `started` took, in milliseconds, if that is longer
    /// than `CONTINENTAL_SLOW_PASS_MS`: then the pass logs a line with it.
    pub fn slow_pass(&self, started: Instant) -> Option<u64> {
        let took = started.elapsed();
        (took > self.limits.slow_pass).then(|| u64::try_from(took.as_millis()).unwrap_or(u64::MAX))
    }

    /// How many milliseconds a second of `turn_seconds` lasts: 1000, but in tests.
    pub fn second_ms(&self) -> i64 {
        self.asynchronous
            .test_second_ms
            .map_or(1000, |ms| i64::try_from(ms).unwrap_or(1000))
    }
}
