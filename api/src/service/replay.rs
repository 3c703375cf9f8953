//! A game played again from its record, step by step, as one seat or a spectator may see it:
//! the engine replays it, the page only shows it.

use engine::{Step, Viewer};

use super::redact;
use super::tournaments::round_not_over;
use crate::domain::{HostedGame, HostedGameError};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::{GameRow, RecordedEvent, Store};
use crate::wire::{LoggedEvent, ReplayStep};

/// The steps of game `row` whose first event comes after sequence number `after`, at most
/// `limit`, each with its events and the game after it as `viewer` may see them.
///
/// # Errors
/// `no_record` for a game dealt before games kept their record; `corrupt_game` for a record
/// the engine does not play again into the stored game; the store's failure.
pub async fn replay(
    state: &AppState,
    row: &GameRow,
    table: &HostedGame,
    viewer: Viewer,
    after: i64,
    limit: usize,
) -> Result<Vec<ReplayStep>, ApiError> {
    if table.sealed {
        return Err(round_not_over());
    }
    let log = state.db.record(row.id).await?;
    let corrupt = |cause: String| HostedGameError::Corrupt { game: row.id, cause };
    let record = steps(&log).map_err(|e| corrupt(format!("a step of the record: {e}")))?;
    let Some(stored) = &table.game else {
        return Ok(Vec::new());
    };
    if record.first().is_none_or(|s| s.step != Step::Deal) {
        return Err(HostedGameError::NoRecord.into());
    }
    let total = record.len();
    let played = engine::replay_record(
        table.config.clone(),
        table.seed.clone(),
        record.iter().map(|s| s.step.clone()),
    );
    let mut page = Vec::new();
    for (i, (replayed, logged)) in played.zip(&record).enumerate() {
        let (game, _) = replayed.map_err(|e| corrupt(format!("the record does not replay: {e}")))?;
        if i + 1 == total && game != *stored {
            return Err(corrupt("the record does not replay to the stored game".into()).into());
        }
        if logged.seq <= after {
            continue;
        }
        if page.len() == limit {
            break;
        }
        page.push(ReplayStep {
            seq: logged.seq,
            step: logged.step.clone(),
            events: logged
                .events
                .iter()
                .map(|e| {
                    Ok(LoggedEvent {
                        seq: e.event.seq,
                        event: redact(&e.event.body, viewer, false)?,
                    })
                })
                .collect::<Result<_, ApiError>>()?,
            view: game.view(viewer),
        });
    }
    Ok(page)
}

/// A step of the record as the log keeps it.
struct Logged<'a> {
    /// The sequence number of its first event.
    seq: i64,
    step: Step,
    /// Its events, up to the next step's.
    events: &'a [RecordedEvent],
}

/// The record in a game's log, step by step (the events before the deal belong to none).
fn steps(log: &[RecordedEvent]) -> Result<Vec<Logged<'_>>, serde_json::Error> {
    let starts: Vec<usize> = (0..log.len()).filter(|&i| log[i].step.is_some()).collect();
    starts
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let end = starts.get(k + 1).copied().unwrap_or(log.len());
            Ok(Logged {
                seq: log[i].event.seq,
                step: serde_json::from_str(log[i].step.as_deref().unwrap_or_default())?,
                events: &log[i..end],
            })
        })
        .collect()
}
