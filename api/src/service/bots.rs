//! The bots that think apart (`hard`, docs/bots.md#cost): no person's request waits for their
//! search. A change that leaves such a bot in turn ends with the game's row due at once
//! ([`Table::due_at`]); after the commit the replica that wrote it wakes its bot worker, which
//! reads the game without a lock, lets the bot think on a thread of the bots' budget
//! (`CONTINENTAL_BOT_THREADS`), and writes the move only if the game is still at the version
//! it read (else it thinks again). Each move is its own commit, so its events reach the
//! stream, the log and the webhooks like anybody's. The deadline sweep is the backstop across
//! replicas and restarts: a due game nobody took within a grace goes to the bot worker of the
//! replica whose sweep finds it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use engine::bot::Level;
use engine::{Action, Seat};
use tokio::sync::{Semaphore, mpsc};
use uuid::Uuid;

use super::event_rows;
use crate::domain::Table;
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::{GameUpdate, Outcome, Store, now_ms};
use crate::telemetry::traces;

/// This replica's bot worker, as the rest of the service reaches it: the games to look at,
/// and the threads the bots may think on.
#[derive(Debug)]
pub struct Bots {
    /// Games to look at, for [`play_bots`].
    woken: mpsc::UnboundedSender<Uuid>,
    /// Games this replica's worker is playing, each with whether it was woken again meanwhile.
    in_hand: Mutex<HashMap<Uuid, bool>>,
    /// One permit per thread that may think at once.
    threads: Arc<Semaphore>,
    /// Whether this replica thinks for bots at all (`CONTINENTAL_BOT_THREADS` above 0).
    pub thinks: bool,
}

impl Bots {
    /// A worker with `threads` threads, and the receiver [`play_bots`] takes the games from.
    pub fn new(threads: usize) -> (Bots, mpsc::UnboundedReceiver<Uuid>) {
        let (woken, receiver) = mpsc::unbounded_channel();
        let bots = Bots {
            woken,
            in_hand: Mutex::default(),
            threads: Arc::new(Semaphore::new(threads)),
            thinks: threads > 0,
        };
        (bots, receiver)
    }

    /// Asks this replica's worker to play game `id`'s bots that think apart, if one is due:
    /// called after a commit that left one in turn.
    pub fn wake(&self, id: Uuid) {
        if self.thinks {
            // Only a stopped worker drops it; the sweep still finds the game.
            let _ = self.woken.send(id);
        }
    }

    /// Takes game `id` in hand; `false` when the worker already plays it (it then looks again
    /// before it lets the game go).
    fn take(&self, id: Uuid) -> bool {
        let mut in_hand = self
            .in_hand
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match in_hand.get_mut(&id) {
            Some(again) => {
                *again = true;
                false
            }
            None => {
                in_hand.insert(id, false);
                true
            }
        }
    }

    /// Lets game `id` go, unless it was woken while in hand: then `false`, and the worker
    /// looks again.
    fn release(&self, id: Uuid) -> bool {
        let mut in_hand = self
            .in_hand
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match in_hand.get_mut(&id) {
            Some(again) if *again => {
                *again = false;
                false
            }
            _ => {
                in_hand.remove(&id);
                true
            }
        }
    }
}

/// This replica's bot worker: plays each game it is woken for, each in a task of its own, the
/// thinking on the bots' threads.
pub async fn play_bots(state: actix_web::web::Data<AppState>, mut woken: mpsc::UnboundedReceiver<Uuid>) {
    while let Some(id) = woken.recv().await {
        if !state.bots.take(id) {
            continue;
        }
        let state = state.clone();
        actix_web::rt::spawn(async move {
            loop {
                if let Err(e) = play_due(&state, id).await {
                    tracing::warn!(game = %id, error = %e, "a bot's move failed; the sweep tries again");
                }
                if state.bots.release(id) {
                    break;
                }
            }
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
    let table = Table::load(row.id, &row.state)?;
    let (Some((seat, level)), Some(game)) = (table.bot_due(), table.game) else {
        return Ok(Played::NotDue);
    };
    let thinking = traces::bot_thinking(&crate::wire::level_name(level));
    let (chosen, took) = tokio::task::spawn_blocking(move || {
        let _thinking = thinking.entered();
        let _thread = permit;
        let started = std::time::Instant::now();
        (level.choose(&game, seat), started.elapsed())
    })
    .await
    .map_err(ApiError::unexpected)?;
    state.metrics.bot_decided(&crate::wire::level_name(level), took);
    let read = row.version;
    let Some(_turn) = state.queues.enter(id, state.limits.lock_timeout).await else {
        return Ok(Played::Stale);
    };
    let now = now_ms();
    let (second_ms, grace_ms) = (state.second_ms(), state.second_ms());
    let (played, queued) = state
        .db
        .transact(id, None, |row| {
            if row.version != read {
                return Ok::<_, ApiError>(Outcome {
                    update: None,
                    value: (Played::Stale, false),
                });
            }
            let mut table = Table::load(row.id, &row.state)?;
            let action = chosen.clone().unwrap_or_else(|| fallback(&table, seat));
            let applied = table.play_bot(seat, action)?;
            table.rearm(applied.turn_passed, now, second_ms);
            let version = row.version + applied.actions.max(1);
            let events = event_rows(applied, row.webhook_url.is_some())?;
            let queued = events.iter().any(|e| e.public.is_some());
            tracing::debug!(game = %row.id, version, seat = seat.0, ?level, "bot moved");
            Ok(Outcome {
                update: Some(GameUpdate {
                    version,
                    status: table.status(),
                    state: table.to_json()?,
                    seats: Vec::new(),
                    events,
                    deadline: table.due_at(now, grace_ms),
                    response: None,
                }),
                value: (Played::Moved, queued),
            })
        })
        .await?;
    if queued {
        state.outbox.notify_one();
    }
    Ok(played)
}

/// What a bot plays when its level found nothing to do in its turn: the `normal` bot's move,
/// else it leaves, so that the table never stalls on it.
fn fallback(table: &Table, seat: Seat) -> Action {
    table
        .game
        .as_ref()
        .and_then(|game| Level::Normal.choose(game, seat))
        .unwrap_or(Action::Leave {})
}
