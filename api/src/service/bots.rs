//! The bots that think apart (`hard`, docs/bots.md#cost): no person's request waits for their
//! search. A change that leaves such a bot in turn ends with the game's row due at once
//! ([`HostedGame::due_at`]); after the commit the replica that wrote it wakes its bot worker, which
//! reads the game without a lock, leases the bot's turn on the row (so that no other replica
//! thinks for it meanwhile), lets the bot think on a thread of the bots' budget
//! (`CONTINENTAL_BOT_THREADS`), and writes the move only if the game is still at the version
//! it read (else it thinks again). Each move is its own commit, so its events reach the
//! stream, the log and the webhooks like anybody's. The deadline sweep is the backstop across
//! replicas and restarts: a due game nobody took within a grace goes to the bot worker of the
//! replica whose sweep finds it.

use std::sync::Arc;

use engine::bot::Level;
use engine::{Action, Seat};
use tokio::sync::mpsc;
use uuid::Uuid;

use super::event_rows;
use crate::domain::HostedGame;
use crate::error::ApiError;
use crate::metrics::Work;
use crate::state::AppState;
use crate::store::{GameUpdate, Lock, On, Outcome, Store, StoreError, now_ms};
use crate::telemetry::traces;

/// How long a bot's turn is leased to the replica that thinks for it (unix ms on the row's
/// deadline): well past a search's time, so that no other replica takes it meanwhile; after a
/// crash, another replica's sweep finds it due when it runs out.
const LEASE_MS: i64 = 5_000;

/// This replica's bot worker: plays each game it is woken for, each in a task of its own, the
/// thinking on the bots' threads.
pub async fn play_bots(state: actix_web::web::Data<AppState>, mut woken: mpsc::UnboundedReceiver<Uuid>) {
    while let Some(id) = woken.recv().await {
        if !state.bots.take(id) {
            continue;
        }
        state
            .metrics
            .set_in_flight(Work::Bots, state.bots.in_hand() as i64);
        let state = state.clone();
        tokio::task::spawn_local(async move {
            loop {
                if let Err(e) = play_due(&state, id).await
                    && !super::set_aside_if_broken(&state, id, &e, "bots").await
                {
                    tracing::warn!(game = %id, error = %e, "a bot's move failed; the sweep tries again");
                }
                if state.bots.release(id) {
                    break;
                }
            }
            state
                .metrics
                .set_in_flight(Work::Bots, state.bots.in_hand() as i64);
        });
    }
}

/// What came of one decision.
enum Played {
    /// No bot that thinks apart is in turn.
    NotDue,
    /// The move was written.
    Moved,
    /// The game changed while the bot thought: it thinks again.
    Stale,
}

/// Plays game `id`'s bots that think apart, one move (one commit) at a time, while one is in
/// turn.
async fn play_due(state: &AppState, id: Uuid) -> Result<(), ApiError> {
    loop {
        match play_one(state, id).await? {
            Played::NotDue => return Ok(()),
            Played::Moved | Played::Stale => {}
        }
    }
}

/// Waits for one of the bots' threads, reads game `id` without a lock and, if a bot that
/// thinks apart is in turn, lets it think on that thread, then writes its move if the game is
/// still at the version read.
async fn play_one(state: &AppState, id: Uuid) -> Result<Played, ApiError> {
    // The thread first: a game read before a long wait would often be stale by its end.
    let permit = Arc::clone(&state.bots.threads)
        .acquire_owned()
        .await
        .map_err(ApiError::unexpected)?;
    let Some(row) = state.db.game(id).await? else {
        return Ok(Played::NotDue);
    };
    let table = HostedGame::load(row.id, &row.state)?;
    let (Some((seat, level)), Some(game)) = (table.bot_due(), table.game) else {
        return Ok(Played::NotDue);
    };
    if !lease_turn(state, &row).await? {
        return Ok(Played::NotDue);
    }
    let thinking = traces::bot_thinking(&crate::domain::level_name(level));
    let (chosen, took) = tokio::task::spawn_blocking(move || {
        let _thinking = thinking.entered();
        let _thread = permit;
        let started = std::time::Instant::now();
        (game.bot_choice(seat, level), started.elapsed())
    })
    .await
    .map_err(ApiError::unexpected)?;
    state.metrics.bot_decided(&crate::domain::level_name(level), took);
    let Some(_turn) = state.queues.enter(id, state.limits.lock_timeout).await else {
        return Ok(Played::Stale);
    };
    write_move(state, id, row.version, seat, level, chosen).await
}

/// Leases the bot's turn of the game read as `row` to this replica, before any thinking: the
/// row's next due time moves a lease ahead, on the condition that the game is still at the
/// version read and its due time is still the one read, and that one is no other replica's
/// lease (a commit's grace, or past). A replica that loses the race, or meets another's lease,
/// leaves the bot to it: never thought twice. Returns whether this replica holds the lease.
async fn lease_turn(state: &AppState, row: &crate::store::GameRow) -> Result<bool, ApiError> {
    let now = now_ms();
    Ok(match row.next_due {
        Some(held) if held <= now.saturating_add(state.second_ms()) => {
            state
                .db
                .lease(row.id, row.version, held, now.saturating_add(LEASE_MS))
                .await?
        }
        _ => false,
    })
}

/// Writes the move `chosen` of the bot at `seat` in game `id`, if the game is still at version
/// `read` (else [`Played::Stale`]: it thinks again), with the bots' moves it sets off.
async fn write_move(
    state: &AppState,
    id: Uuid,
    read: i64,
    seat: Seat,
    level: Level,
    chosen: Option<Action>,
) -> Result<Played, ApiError> {
    let now = now_ms();
    let (second_ms, grace_ms) = (state.second_ms(), state.second_ms());
    let (played, queued, bot_at) = state
        .db
        .transact(On::game(id), Lock::Optimistic, |row| {
            if row.version != read {
                return Ok::<_, ApiError>(Outcome {
                    update: None,
                    value: (Played::Stale, false, None),
                });
            }
            let mut table = HostedGame::load(row.id, &row.state)?;
            let before = super::played_by(&table);
            let applied = table.play_bot(seat, level, chosen.clone())?;
            table.rearm(applied.turn_passed, now, second_ms);
            let version = row.version + applied.actions.max(1);
            super::count_refused(&state.metrics, &applied);
            let events = event_rows(applied, row.webhook_url.is_some())?;
            let queued = events.iter().any(|e| e.public.is_some());
            tracing::debug!(game = %row.id, version, seat = seat.0, ?level, "bot moved");
            Ok(Outcome {
                update: Some(
                    GameUpdate::of(&table, version, events, table.due_at(now, grace_ms))?
                        // A seat on autopilot whose bot left.
                        .with_seats(super::seats_changed(&before, &table)),
                ),
                value: (Played::Moved, queued, table.bot_at),
            })
        })
        .await?
        .ok_or(StoreError::GameNotFound(id))?;
    if queued {
        state.outbox.notify_one();
    }
    state.pace.arm(id, bot_at);
    Ok(played)
}
