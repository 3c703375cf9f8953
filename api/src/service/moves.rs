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
    let kind = action.kind();
    // For `continental_moves_total`: known once the game is read.
    let mut variant = String::new();
    // What the decision that was written leaves for this replica's workers.
    let mut moved = Moved::default();
    // One move of a game at a time on this replica waits on its row, the others wait here
    // without a connection (`queue.rs`), as long as they would wait on the lock.
    let Some(_turn) = state.queues.enter(id, state.limits.lock_timeout).await else {
        state.metrics.moved("unknown", kind, MoveOutcome::Failed);
        return Err(game_busy());
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
            let (outcome, then) = decide_move(state, row, claims, key, &action)?;
            moved = then;
            Ok(outcome)
        },
    ))
    .await
    .and_then(|done| done.ok_or_else(|| StoreError::GameNotFound(id).into()));
    let variant = if variant.is_empty() {
        "unknown"
    } else {
        variant.as_str()
    };
    state.metrics.moved(variant, kind, move_outcome(&result));
    if result.is_ok() {
        moved.follow(state, id);
    }
    result
}

/// The answer to a move that waited for its game's queue past the lock timeout.
fn game_busy() -> ApiError {
    ApiError::Unavailable {
        code: Code::GameBusy,
        detail: "this game is busy with another move: retry shortly",
        cause: "another move of the game held its queue on this replica past the lock timeout".into(),
    }
}

/// What a written move leaves for this replica's workers.
#[derive(Default)]
struct Moved {
    /// The move wrote to the webhook outbox: only then is the worker nudged (a nudge costs it
    /// a transaction to look, and most games have no webhook).
    queued: bool,
    /// A bot that thinks apart is in turn after the move: it plays after the response.
    bot_due: bool,
    /// At a person's table: when the server plays the seat in turn (`service::pace`).
    bot_at: Option<i64>,
    /// The game's version once written: its deliveries continue this request's trace.
    version: i64,
}

impl Moved {
    /// Nudges the outbox, the bot worker and the pace timer, as the move left work for each.
    fn follow(&self, state: &AppState, id: Uuid) {
        if self.queued {
            traces::queued_deliveries(id, self.version);
            state.outbox.notify_one();
        }
        if self.bot_due {
            state.bots.wake(id);
        }
        state.pace.arm(id, self.bot_at);
    }
}

/// Decides the token's move on the game read as `row`: the seat checked, the action played
/// (or the seat vacated), and the write with the response kept for `key`.
fn decide_move(
    state: &AppState,
    row: &crate::store::GameRow,
    claims: &Claims,
    key: Option<&KeyRef>,
    action: &Action,
) -> Result<(Outcome<StoredResponse>, Moved), ApiError> {
    let seat = claims.seat;
    let mut table = HostedGame::load(row.id, &row.state)?;
    table.check_player(seat, claims.generation)?;
    let now = now_ms();
    let was_alone = table.bots_alone();
    let (actions, seats, events) =
        play_or_vacate(state, &mut table, seat, action, now, row.webhook_url.is_some())?;
    // One per accepted action: this one and each bot move it set off.
    let version = row.version + actions;
    tracing::Span::current().record("version", version);
    let moved = Moved {
        queued: events.iter().any(|e| e.public.is_some()),
        bot_due: table.bot_due().is_some(),
        bot_at: table.bot_at,
        version,
    };
    let response = StoredResponse {
        status: 200,
        etag: Some(etag(version)),
        body: serde_json::to_vec(&GameView::of(row.id, version, &table, seat))?,
    };
    let update = GameUpdate::of(&table, version, events, table.due_at(now, state.second_ms()))?
        .with_seats(seats)
        .with_response(key.is_some().then(|| response.clone()))
        // The last person leaving a table of bots.
        .with_bot_tables(super::bot_table_limit(state, was_alone, &table));
    let outcome = Outcome {
        update: Some(update),
        value: response,
    };
    Ok((outcome, moved))
}

/// Plays `action` for `seat` at `table` (the engine referees, then the bots play), or, when
/// the seat leaves before the deal, gives the seat up, to open again for someone else. Returns
/// the actions accepted, the seats' rows that changed and the events' rows.
fn play_or_vacate(
    state: &AppState,
    table: &mut HostedGame,
    seat: u8,
    action: &Action,
    now: i64,
    webhook: bool,
) -> Result<(i64, Vec<crate::store::SeatRow>, Vec<crate::store::NewEvent>), ApiError> {
    if table.game.is_none() && matches!(action, Action::Leave {}) {
        table.vacate(seat)?;
        let vacated = Logged::Table(TableEvent::SeatVacated { seat });
        return Ok((
            1,
            seat_row(table, seat),
            event_rows(Applied::table([vacated]), webhook)?,
        ));
    }
    let before = super::played_by(table);
    let applied = traces::apply(action.kind().name()).in_scope(|| table.apply(Seat(seat), action.clone()))?;
    table.rearm(applied.turn_passed, now, state.second_ms());
    super::count_refused(&state.metrics, &applied);
    // Leaving, or a move of one's own taking the seat back from autopilot.
    let seats = super::seats_changed(&before, table);
    Ok((applied.actions, seats, event_rows(applied, webhook)?))
}

/// How a move ended, for `continental_moves_total`. The request's own log line says how it
/// ended; these are details for debugging.
fn move_outcome(result: &Result<StoredResponse, ApiError>) -> MoveOutcome {
    match result {
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
    }
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
