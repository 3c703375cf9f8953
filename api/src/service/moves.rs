//! One move of a seat, from the stored game to the committed change.

use engine::bot::Level;
use engine::{Action, Seat};
use uuid::Uuid;

use super::{event_rows, seat_row};
use crate::auth::Claims;
use crate::domain::{Applied, HostedGame, Logged, TableEvent};
use crate::error::ApiError;
use crate::metrics::MoveOutcome;
use crate::state::AppState;
use crate::store::{GameUpdate, KeyRef, Lock, On, Outcome, Store, StoreError, StoredResponse, now_ms};
use crate::telemetry::traces;
use crate::wire::{Code, GameView, IfMatch, etag};

/// Plays `action` for the token's seat in one transaction: check `If-Match` and the seat,
/// apply in the table (the engine referees, then the bots play), write state, events,
/// version and the response kept for `key`. Answers with the seat's new view.
///
/// # Errors
/// `stale_version`, a seat that is no longer the token's, the table's or the engine's
/// refusal, a missing game, the store's failure.
#[tracing::instrument(level = "debug", name = "move", skip_all, fields(game = %id, seat = claims.seat, action = action.kind().name(), version))]
pub async fn act(
    state: &AppState,
    id: Uuid,
    claims: &Claims,
    if_match: Option<IfMatch>,
    key: Option<&KeyRef>,
    action: Action,
) -> Result<StoredResponse, ApiError> {
    let seat = claims.seat;
    let kind = action.kind();
    // For `continental_moves_total`: known once the game is read.
    let mut variant = String::new();
    // Whether the action wrote to the webhook outbox: only then is the worker nudged (a nudge
    // costs it a transaction to look, and most games have no webhook).
    let mut queued = false;
    // Whether a bot that thinks apart is in turn after the move: it plays after the response.
    let mut bot_due = false;
    // At a person's table: when the server plays the seat in turn (`service::pace`).
    let mut bot_at = None;
    // The game's version once written: its deliveries continue this request's trace.
    let mut written = 0;
    // One move of a game at a time on this replica waits on its row, the others wait here
    // without a connection (`queue.rs`), as long as they would wait on the lock.
    let Some(_turn) = state.queues.enter(id, state.limits.lock_timeout).await else {
        state.metrics.moved("unknown", kind, MoveOutcome::Failed);
        return Err(ApiError::Unavailable {
            code: Code::GameBusy,
            detail: "this game is busy with another move: retry shortly",
            cause: "another move of the game held its queue on this replica past the lock timeout".into(),
        });
    };
    // Boxed: the store's future is large (both backends' paths), and the move's futures that
    // hold it are moved as they are built and boxed by the framework.
    let result: Result<StoredResponse, ApiError> = Box::pin(state.db.transact(
        On::game(id).keyed(key),
        Lock::Optimistic,
        |row| {
            variant.clone_from(&row.variant);
            if let Some(m) = &if_match {
                m.check(row.version)?;
            }
            let mut table = HostedGame::load(row.id, &row.state)?;
            table.check_player(seat, claims.generation)?;
            let now = now_ms();
            let (before, was_alone) = (super::played_by(&table), table.bots_alone());
            // Leaving before the deal gives the seat up: it opens again for someone else.
            let webhook = row.webhook_url.is_some();
            let (actions, seats, events) = if table.game.is_none() && matches!(action, Action::Leave {}) {
                table.vacate(seat)?;
                let vacated = Logged::Table(TableEvent::SeatVacated { seat });
                (
                    1,
                    seat_row(&table, seat),
                    event_rows(Applied::table([vacated]), webhook)?,
                )
            } else {
                let applied =
                    traces::apply(kind.name()).in_scope(|| table.apply(Seat(seat), action.clone()))?;
                table.rearm(applied.turn_passed, now, state.second_ms());
                super::count_refused(&state.metrics, &applied);
                // Leaving, or a move of one's own taking the seat back from autopilot.
                let seats = super::seats_changed(&before, &table);
                (applied.actions, seats, event_rows(applied, webhook)?)
            };
            queued = events.iter().any(|e| e.public.is_some());
            bot_due = table.bot_due().is_some();
            bot_at = table.bot_at;
            // One per accepted action: this one and each bot move it set off.
            let version = row.version + actions;
            written = version;
            tracing::Span::current().record("version", version);
            let response = StoredResponse {
                status: 200,
                etag: Some(etag(version)),
                body: serde_json::to_vec(&GameView::of(id, version, &table, seat))?,
            };
            Ok(Outcome {
                update: Some(
                    GameUpdate::of(&table, version, events, table.due_at(now, state.second_ms()))?
                        .with_seats(seats)
                        .with_response(key.is_some().then(|| response.clone()))
                        // The last person leaving a table of bots.
                        .with_bot_tables(super::bot_table_limit(state, was_alone, &table)),
                ),
                value: response,
            })
        },
    ))
    .await
    .and_then(|done| done.ok_or_else(|| StoreError::GameNotFound(id).into()));
    // The request's own log line says how it ended; these are details for debugging.
    let outcome = match &result {
        Ok(_) => {
            tracing::debug!("move applied");
            MoveOutcome::Applied
        }
        Err(e) => {
            tracing::debug!(code = e.code(), "move not applied");
            match e {
                ApiError::Unavailable { .. } | ApiError::Unexpected(_) => MoveOutcome::Failed,
                _ => MoveOutcome::Refused,
            }
        }
    };
    let variant = if variant.is_empty() {
        "unknown"
    } else {
        variant.as_str()
    };
    state.metrics.moved(variant, kind, outcome);
    if result.is_ok() && queued {
        traces::queued_deliveries(id, written);
        state.outbox.notify_one();
    }
    if result.is_ok() && bot_due {
        state.bots.wake(id);
    }
    if result.is_ok() {
        state.pace.arm(id, bot_at);
    }
    result
}

/// Hands the token's seat to a bot of `level`, or takes it back with `None`
/// (docs/api.md#autopilot), in one transaction like a move; the bots then play as after any
/// change, the seat's own among them. Answers with the seat's new view.
///
/// # Errors
/// `stale_version`, `game_not_started`, a seat that is no longer the token's, a missing game,
/// a busy game, the store's failure.
#[tracing::instrument(level = "debug", skip_all, fields(game = %id, seat = claims.seat, ?level))]
pub async fn autopilot(
    state: &AppState,
    id: Uuid,
    claims: &Claims,
    if_match: Option<IfMatch>,
    level: Option<Level>,
) -> Result<StoredResponse, ApiError> {
    let Some(_turn) = state.queues.enter(id, state.limits.lock_timeout).await else {
        return Err(ApiError::Unavailable {
            code: Code::GameBusy,
            detail: "this game is busy with another move: retry shortly",
            cause: "another move of the game held its queue on this replica past the lock timeout".into(),
        });
    };
    let (response, queued, bot_due, bot_at) = state
        .db
        .transact(On::game(id), Lock::Optimistic, |row| {
            if let Some(m) = &if_match {
                m.check(row.version)?;
            }
            let mut table = HostedGame::load(row.id, &row.state)?;
            table.check_player(claims.seat, claims.generation)?;
            let now = now_ms();
            state.bots.may_seat(level)?;
            let (before, was_alone) = (super::played_by(&table), table.bots_alone());
            let applied = table.set_autopilot(Seat(claims.seat), level)?;
            table.rearm(applied.turn_passed, now, state.second_ms());
            let actions = applied.actions;
            super::count_refused(&state.metrics, &applied);
            let events = event_rows(applied, row.webhook_url.is_some())?;
            let queued = events.iter().any(|e| e.public.is_some());
            let version = row.version + actions;
            let response = StoredResponse {
                status: 200,
                etag: Some(etag(version)),
                body: serde_json::to_vec(&GameView::of(id, version, &table, claims.seat))?,
            };
            let bot_due = table.bot_due().is_some();
            let update = (actions > 0).then(|| {
                Ok::<_, ApiError>(
                    GameUpdate::of(&table, version, events, table.due_at(now, state.second_ms()))?
                        .with_seats(super::seats_changed(&before, &table))
                        // The last person at a table of bots hands their seat to one.
                        .with_bot_tables(super::bot_table_limit(state, was_alone, &table)),
                )
            });
            Ok::<_, ApiError>(Outcome {
                update: update.transpose()?,
                value: (response, queued, bot_due, table.bot_at),
            })
        })
        .await?
        .ok_or(StoreError::GameNotFound(id))?;
    if queued {
        state.outbox.notify_one();
    }
    if bot_due {
        state.bots.wake(id);
    }
    state.pace.arm(id, bot_at);
    Ok(response)
}
