//! What waits for this replica's background work, read every few seconds into the metrics
//! (`continental_background_backlog`): webhook deliveries pending, games whose
//! turn deadline passed (timed-out turns and bots' moves not yet played), tickets waiting. Each
//! count is read from a partial index, on the passes' own thread.

use std::time::Duration;

use crate::metrics::Work;
use crate::state::AppState;
use crate::store::{Store, now_ms};

/// Reads the backlog every `every`; a failed read is logged at debug level (the passes log
/// their own failures) and the gauges keep their last values.
pub async fn count_backlog(state: actix_web::web::Data<AppState>, every: Duration) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        match state.db.backlog(now_ms()).await {
            Ok(backlog) => {
                state.metrics.backlog(Work::Webhooks, backlog.webhooks);
                state.metrics.backlog(Work::Bots, backlog.due);
                state.metrics.backlog(Work::Tickets, backlog.tickets);
            }
            Err(e) => tracing::debug!(error = %e, "the background backlog could not be read"),
        }
    }
}
