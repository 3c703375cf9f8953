//! A game's event log as one seat, or a spectator, may read it.

use actix_web::web::Bytes;
use engine::Viewer;
use futures_util::{Stream, StreamExt};
use uuid::Uuid;

use crate::domain::{GameStatus, HostedGame, Logged};
use crate::error::ApiError;
use crate::live::StreamPlan;
use crate::state::AppState;
use crate::store::{GameRow, Store};
use crate::wire::LoggedEvent;

/// Events of game `id` after sequence number `after`, at most `limit`, as `viewer` may see them.
///
/// # Errors
/// The store's failure, or a logged event this release does not read.
pub async fn events_for(
    state: &AppState,
    id: Uuid,
    viewer: Viewer,
    sealed: bool,
    after: i64,
    limit: i64,
) -> Result<Vec<LoggedEvent>, ApiError> {
    state
        .db
        .events_after(id, after, limit)
        .await?
        .iter()
        .map(|e| {
            Ok(LoggedEvent {
                seq: e.seq,
                event: redact(&e.body, viewer, sealed)?,
            })
        })
        .collect()
}

/// A logged event as `viewer` (a seat or a spectator) may see it.
///
/// # Errors
/// A logged event this release does not read.
/// A `sealed` game (a tournament table whose round is not over) shows no seed in its
/// `game_ended`.
pub fn redact(body: &str, viewer: Viewer, sealed: bool) -> Result<serde_json::Value, ApiError> {
    let entry: Logged = serde_json::from_str(body)?;
    let mut value = serde_json::to_value(entry.redacted_for(viewer))?;
    if sealed && (value["type"] == "game_ended" || value["type"] == "game_void") {
        value["seed"] = serde_json::Value::Null;
    }
    Ok(value)
}

/// The live events of game `row` after sequence number `after`, as `viewer` may see them: the
/// body of a `text/event-stream`, which ends once every event is sent of a game void, or
/// finished and its rematch made (so that its readers hear where the rematch is).
///
/// # Errors
/// A stored game this release does not read.
///
/// `too_many_streams` when this replica serves as many streams as it may.
pub fn live_events(
    state: &AppState,
    row: &GameRow,
    viewer: Viewer,
    after: i64,
) -> Result<impl Stream<Item = Result<Bytes, std::convert::Infallible>> + use<>, ApiError> {
    let sealed = HostedGame::load(row.id, &row.state)?.sealed;
    let subscription = state.live.subscribe(row.id)?;
    // Counted in `continental_open_streams` until the client goes and the body is dropped.
    let open = state.metrics.stream_opened();
    let plan = StreamPlan {
        game: row.id,
        after: after.max(0),
        over: match row.status {
            GameStatus::Void => true,
            GameStatus::Finished => HostedGame::load(row.id, &row.state)?.rematch.is_some(),
            _ => false,
        },
        redact: move |body: &str| redact(body, viewer, sealed).ok(),
    };
    Ok(state
        .live
        .stream(state.db.clone(), subscription, plan)
        .map(move |chunk| {
            let _ = &open;
            chunk
        }))
}
