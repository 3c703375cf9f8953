//! Turn deadlines: when the seat in turn lets its deadline pass, the server plays its turn.
//! Any replica may do it; the game's row, claimed with `FOR UPDATE SKIP LOCKED` and
//! re-checked inside the transaction, makes each expiry count once.

use std::time::Duration;

use uuid::Uuid;

use super::event_rows;
use crate::domain::Table;
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::{GameUpdate, Outcome, Store, now_ms};

/// Plays the turn of one game whose deadline has passed, if there is one: a `timed_out`
/// event, the seat's turn as the bot would play it, the bots after it, a fresh deadline.
/// Returns the game, or `None` when no game was due.
///
/// # Errors
/// The store's failure; a stored game that does not read.
pub async fn time_out_due(state: &AppState) -> Result<Option<Uuid>, ApiError> {
    let now = now_ms();
    let second_ms = state.second_ms();
    let played = state
        .db
        .transact_due(now, move |row| {
            let mut table = Table::from_json(&row.state)?;
            // The row's deadline is the one the claim found due; the state must agree, or
            // another replica has already moved the game on.
            let due = table.deadline.is_some_and(|d| d <= now) && table.deadline == row.deadline;
            let applied = if due { table.time_out()? } else { None };
            let (version, events) = match applied {
                Some(applied) => {
                    // Whatever the bot did, the next turn (or this one, should it still be
                    // in turn) gets a fresh deadline: an expired one would be played again.
                    table.deadline = None;
                    table.rearm(true, now, second_ms);
                    // The timeout itself changes the view (`timeouts`): at least one version.
                    let version = row.version + applied.actions.max(1);
                    (version, event_rows(applied.events, row.webhook_url.is_some())?)
                }
                None => {
                    table.rearm(false, now, second_ms);
                    if table.deadline.is_some_and(|d| d <= now) {
                        table.deadline = None;
                        table.rearm(true, now, second_ms);
                    }
                    (row.version, Vec::new())
                }
            };
            let played = !events.is_empty();
            tracing::info!(game = %row.id, version, played, "turn deadline passed");
            Ok::<_, ApiError>(Outcome {
                update: Some(GameUpdate {
                    version,
                    status: table.status().as_str().to_owned(),
                    state: table.to_json()?,
                    seats: Vec::new(),
                    events,
                    deadline: table.deadline,
                    response: None,
                }),
                value: (row.id, played),
            })
        })
        .await?;
    if let Some((_, true)) = played {
        state.metrics.turn_timed_out();
        state.outbox.notify_one();
    }
    Ok(played.map(|(id, _)| id))
}

/// The sweeper each replica runs: every `interval`, plays every game whose deadline passed.
pub async fn sweep_deadlines(state: actix_web::web::Data<AppState>, interval: Duration) {
    let mut tick = tokio::time::interval(interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        loop {
            match time_out_due(&state).await {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) => {
                    tracing::warn!(error = %e, "turn deadline sweep failed");
                    break;
                }
            }
        }
    }
}
