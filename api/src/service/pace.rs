//! The bots' pace at a person's table (docs/api.md#the-claim-window-and-the-bots-pace): each
//! move of a seat the server plays in turn is due at the game's `HostedGame::bot_at`, stored with
//! the game like the turn clock's deadline and played by the same exactly-once path
//! (`deadlines::time_out`). The replica that committed the change before it keeps a timer for
//! that moment here, so that the move comes on time rather than at the next sweep; the sweep
//! still plays it if this replica stops first. No request or thread waits for it. A table of
//! bots alone to be played out is the sweep's ([`super::deadlines::time_out`]'s budget), never
//! a timer's.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use tokio::sync::mpsc;
use uuid::Uuid;

use super::deadlines::time_out;
use crate::metrics::Work;
use crate::state::AppState;
use crate::store::now_ms;

/// Timers kept at once: a game armed past this many is left to the sweep, which plays its
/// move within a second of its time.
pub const TIMERS: usize = 10_000;
/// Paced moves played at once; the others due wait for one to end.
pub const AT_ONCE: usize = 16;

/// This replica's timers: plays each game's paced move when it is due, at most [`AT_ONCE`] at
/// once, keeping at most [`TIMERS`] timers (one per game: a game armed again keeps its latest
/// time).
pub async fn pace_bots(
    state: actix_web::web::Data<AppState>,
    mut armed: mpsc::UnboundedReceiver<(Uuid, i64)>,
) {
    let mut timers: BinaryHeap<Reverse<(i64, Uuid)>> = BinaryHeap::new();
    // Each game's time: a heap entry that is not its game's time is stale, dropped when met.
    let mut times: HashMap<Uuid, i64> = HashMap::new();
    let mut running = FuturesUnordered::new();
    loop {
        state.metrics.set_in_flight(Work::Paced, times.len() as i64);
        let room = running.len() < AT_ONCE;
        let next = timers.peek().map(|Reverse((at, _))| *at);
        let wait = next.map_or(Duration::from_secs(3600), |at| {
            Duration::from_millis(u64::try_from(at.saturating_sub(now_ms())).unwrap_or(0))
        });
        tokio::select! {
            timer = armed.recv() => match timer {
                Some((id, at)) => {
                    if times.len() < TIMERS || times.contains_key(&id) {
                        times.insert(id, at);
                        timers.push(Reverse((at, id)));
                    }
                    // Stale entries do not pile up: at most one live entry per game, and the
                    // heap rebuilt when mostly stale.
                    if timers.len() > 2 * TIMERS {
                        timers = times.iter().map(|(id, at)| Reverse((*at, *id))).collect();
                    }
                }
                None => return,
            },
            () = tokio::time::sleep(wait), if next.is_some() && room => {
                let now = now_ms();
                while running.len() < AT_ONCE && let Some(Reverse((at, id))) = timers.peek().copied() && at <= now {
                    timers.pop();
                    if times.get(&id) != Some(&at) {
                        continue;
                    }
                    times.remove(&id);
                    let state = &state;
                    running.push(async move { (id, time_out(state, id, now_ms(), false).await) });
                }
            }
            Some((id, result)) = running.next(), if !running.is_empty() => {
                if let Err(e) = result {
                    tracing::warn!(game = %id, error = %e, "a paced bot's move failed; the sweep tries again");
                }
            }
        }
    }
}
