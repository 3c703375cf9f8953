//! A game's event log as one seat, or a spectator, may read it.

use engine::Viewer;
use uuid::Uuid;

use crate::domain::Logged;
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::Store;
use crate::wire::EventDto;

/// Events of game `id` after sequence number `after`, at most `limit`, as `viewer` may see them.
///
/// # Errors
/// The store's failure, or a logged event this release does not read.
pub async fn events_for(
    state: &AppState,
    id: Uuid,
    viewer: Viewer,
    after: i64,
    limit: i64,
) -> Result<Vec<EventDto>, ApiError> {
    state
        .db
        .events_after(id, after, limit)
        .await?
        .iter()
        .map(|e| {
            Ok(EventDto {
                seq: e.seq,
                event: redact(&e.body, viewer)?,
            })
        })
        .collect()
}

/// A logged event as `viewer` (a seat or a spectator) may see it.
///
/// # Errors
/// A logged event this release does not read.
pub fn redact(body: &str, viewer: Viewer) -> Result<serde_json::Value, ApiError> {
    let entry: Logged = serde_json::from_str(body)?;
    Ok(serde_json::to_value(entry.redacted_for(viewer))?)
}
