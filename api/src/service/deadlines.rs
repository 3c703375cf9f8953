//! Turn deadlines: when the seat in turn lets its deadline pass, the server plays its turn.
//! Any replica may do it: due games are found without a lock, then each is claimed on its own
//! row (`FOR UPDATE SKIP LOCKED`, one game's shard on a cluster) and re-checked inside the
//! transaction, which makes each expiry count once. A game is also due when a bot that thinks
//! apart is in turn and no replica has played it within a second: the sweep hands it to this
//! replica's bot worker (`service::bots`), which leases it before it thinks; and at a person's
//! table when the paced move of the seat the server plays in turn is due (`HostedGame::bot_at`): the
//! replica that wrote the change before it plays it on time (`service::pace`), the sweep is the
//! backstop.

use std::time::{Duration, Instant};

use tracing::Instrument;
use uuid::Uuid;

use super::event_rows;
use crate::domain::HostedGame;
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::{GameUpdate, Lock, On, Outcome, Store, now_ms};
use crate::telemetry::traces;

/// Games a sweep looks at in one batch.
const DUE_BATCH: i64 = 32;

/// Plays the turn of every game whose deadline has passed (see [`time_out`]), page after page
/// of due games found without a lock, so that a game this replica cannot take (another
/// replica holds it, its bot is not this replica's to think for, it does not load) never holds
/// up the ones behind it. Returns how many this replica played.
///
/// # Errors
/// The store's failure to find due games (a game that fails is set aside if it does not load,
/// else logged and left to the next pass).
pub async fn time_out_due(state: &AppState) -> Result<usize, ApiError> {
    let mut played = 0;
    let mut after = None;
    let now = now_ms();
    loop {
        let due = state.db.due_games(now, after, DUE_BATCH).await?;
        for game in &due {
            // This replica's bot worker has the game in hand already: nothing to do, and
            // nothing written while it waits for a thread.
            if state.bots.holds(game.id) {
                continue;
            }
            match time_out(state, game.id, now)
                .instrument(traces::pass("deadlines"))
                .await
            {
                Ok(true) => played += 1,
                Ok(false) => {}
                Err(e) if super::set_aside_if_broken(state, game.id, &e, "turn deadlines").await => {}
                // Its worker lost since it was found, on a cluster, say: tried again next pass.
                Err(e) => {
                    tracing::warn!(game = %game.id, error = %e, "a due turn could not be played; trying again next pass")
                }
            }
        }
        // A short page was the last.
        match due.last() {
            Some(&last) if due.len() as i64 == DUE_BATCH => after = Some(last),
            _ => return Ok(played),
        }
    }
}

/// Plays the turn of game `id` if its deadline is still past at `now` and no other replica
/// holds it: a `timed_out` event, the seat's turn as the bot would play it, the bots after it,
/// a fresh deadline; or, when a bot that thinks apart is in turn, hands the game to this
/// replica's bot worker. Returns whether this replica took it.
///
/// # Errors
/// The store's failure; a stored game that does not read.
pub async fn time_out(state: &AppState, id: Uuid, now: i64) -> Result<bool, ApiError> {
    let second_ms = state.second_ms();
    let played = state
        .db
        .transact(On::game(id), Lock::Due { now }, move |row| {
            let mut table = HostedGame::load(row.id, &row.state)?;
            // At a person's table, the paced move of the seat the server plays is due.
            let paced = table.bot_at.is_some_and(|at| at <= now);
            if paced {
                table.bot_at = None;
            }
            // A bot that thinks apart is in turn and no replica has played it within the
            // grace: this replica's bot worker takes it up, if it thinks, and leases it before
            // it thinks (`service::bots`). Nothing is written here.
            if table.bot_due().is_some() {
                // A paced turn's hand-off clears `bot_at` in the stored game, so that the worker
                // finds the bot due; any other writes nothing.
                let update = match paced && state.bots.thinks {
                    true => Some(GameUpdate::keeping_status(
                        row.status,
                        &table,
                        row.version,
                        Vec::new(),
                        table.due_at(now, second_ms),
                    )?),
                    false => None,
                };
                let taken = state.bots.thinks;
                return Ok(Outcome {
                    update,
                    value: (row.id, taken.then_some(Due::Bot), None),
                });
            }
            // The row's deadline is the one the claim found due; the state must agree, or
            // another replica has already moved the game on.
            let due = table.deadline.is_some_and(|d| d <= now) && table.deadline == row.next_due;
            let before = super::played_by(&table);
            let applied = match paced {
                true => Some(table.play_paced()?),
                false if due => table.time_out()?,
                false => None,
            };
            if let Some(applied) = &applied {
                super::count_refused(&state.metrics, applied);
            }
            let (version, events) = match applied {
                Some(applied) if paced => {
                    table.rearm(applied.turn_passed, now, second_ms);
                    let version = row.version + applied.actions;
                    (version, event_rows(applied, row.webhook_url.is_some())?)
                }
                Some(applied) => {
                    // Whatever the bot did, the next turn (or this one, should it still be
                    // in turn) gets a fresh deadline: an expired one would be played again.
                    table.deadline = None;
                    table.rearm(true, now, second_ms);
                    // The timeout itself changes the view (`timeouts`): at least one version.
                    let version = row.version + applied.actions.max(1);
                    (version, event_rows(applied, row.webhook_url.is_some())?)
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
            match paced {
                true => tracing::debug!(game = %row.id, version, "paced bot moved"),
                false => tracing::info!(game = %row.id, version, played, "turn deadline passed"),
            }
            let due = match played {
                true if paced && table.bot_due().is_some() => Due::PacedThenBot,
                true if paced => Due::Paced,
                true if table.bot_due().is_some() => Due::TimedOutThenBot,
                true => Due::TimedOut,
                false => Due::Nothing,
            };
            Ok::<_, ApiError>(Outcome {
                update: Some(
                    GameUpdate::of(&table, version, events, table.due_at(now, second_ms))?
                        // A seat handed to autopilot after its timeouts counts among the bots;
                        // the clock is never held up by the limit on tables of bots alone.
                        .with_seats(super::seats_changed(&before, &table)),
                ),
                value: (row.id, Some(due), table.bot_at),
            })
        })
        .await?;
    let Some((id, due, bot_at)) = played else {
        return Ok(false);
    };
    match due {
        Some(Due::TimedOut | Due::TimedOutThenBot) => {
            state.metrics.turn_timed_out();
            state.outbox.notify_one();
        }
        Some(Due::Paced | Due::PacedThenBot) => state.outbox.notify_one(),
        Some(Due::Bot | Due::Nothing) | None => {}
    }
    if matches!(due, Some(Due::Bot | Due::TimedOutThenBot | Due::PacedThenBot)) {
        state.bots.wake(id);
    }
    state.pace.arm(id, bot_at);
    Ok(due.is_some())
}

/// What the sweep did with a due game it claimed.
#[derive(Clone, Copy)]
enum Due {
    /// The seat in turn timed out and the server played its turn.
    TimedOut,
    /// As [`Due::TimedOut`], and then a bot that thinks apart is in turn.
    TimedOutThenBot,
    /// A bot that thinks apart is in turn: handed to this replica's bot worker.
    Bot,
    /// At a person's table, the seat the server plays in turn made its paced move.
    Paced,
    /// As [`Due::Paced`], and then a bot that thinks apart is in turn.
    PacedThenBot,
    /// Nothing was due any more (another replica had moved the game on).
    Nothing,
}

/// The sweeper each replica runs: every `interval`, plays every game whose deadline passed;
/// a slow pass is logged with how many turns it played and how long it took.
pub async fn sweep_deadlines(state: actix_web::web::Data<AppState>, interval: Duration) {
    let mut tick = tokio::time::interval(interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let started = Instant::now();
        match time_out_due(&state).await {
            Ok(turns) => {
                if let Some(took_ms) = state.slow_pass(started) {
                    tracing::warn!(turns, took_ms, "slow pass over turn deadlines");
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, took_ms = started.elapsed().as_millis(), "turn deadline sweep failed")
            }
        }
    }
}
