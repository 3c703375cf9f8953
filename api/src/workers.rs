//! This replica's handles on its background workers, as `AppState`
//! holds them and every use case reaches them: the bot worker's ([`Bots`]: wake it for a game,
//! whether it holds one, whether a level may be seated) and the pace timers' ([`Pacer`]). The
//! workers themselves, which read and write games, are in `service/` (`play_bots`,
//! `pace_bots`); a handle needs nothing from there, so `state` imports it without a cycle.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use engine::bot::Level;
use tokio::sync::{Semaphore, mpsc};
use uuid::Uuid;

use crate::error::ApiError;
use crate::wire::Code;

/// This replica's bot worker, as the rest of the service reaches it: the games to look at,
/// and the threads the bots may think on.
#[derive(Debug)]
pub struct Bots {
    /// Games to look at, for `service::play_bots`.
    woken: mpsc::UnboundedSender<Uuid>,
    /// Games this replica's worker is playing, each with whether it was woken again meanwhile.
    in_hand: Mutex<HashMap<Uuid, bool>>,
    /// One permit per thread that may think at once.
    pub(crate) threads: Arc<Semaphore>,
    /// Whether this replica thinks for bots at all (`CONTINENTAL_BOT_THREADS` above 0).
    pub thinks: bool,
    /// Whether some replica is known to think for bots: this one, or others as the operator
    /// says (`CONTINENTAL_BOTS_ELSEWHERE`).
    known_to_think: bool,
}

impl Bots {
    /// Games the worker holds at once, thinking or waiting for a thread.
    pub const IN_HAND: usize = 1024;

    /// A worker with `threads` threads, and the receiver `service::play_bots` takes the games from.
    /// With `elsewhere`, other replicas think when this one has no threads.
    pub fn new(threads: usize, elsewhere: bool) -> (Bots, mpsc::UnboundedReceiver<Uuid>) {
        let (woken, receiver) = mpsc::unbounded_channel();
        let bots = Bots {
            woken,
            in_hand: Mutex::default(),
            threads: Arc::new(Semaphore::new(threads)),
            thinks: threads > 0,
            known_to_think: threads > 0 || elsewhere,
        };
        (bots, receiver)
    }

    /// Refuses to seat bots of these levels when one of them thinks apart and no replica is
    /// known to think for it: it would sit in its turn forever.
    ///
    /// # Errors
    /// `409 hard_bots_unavailable`.
    pub fn may_seat(&self, levels: impl IntoIterator<Item = Level>) -> Result<(), ApiError> {
        match !self.known_to_think && levels.into_iter().any(crate::domain::thinks_apart) {
            true => Err(ApiError::conflict(
                Code::HardBotsUnavailable,
                "this server thinks for no bot that searches (`hard`): choose `normal` or `easy`, or \
                 ask its operator (CONTINENTAL_BOT_THREADS, CONTINENTAL_BOTS_ELSEWHERE)",
            )),
            false => Ok(()),
        }
    }

    /// Asks this replica's worker to play game `id`'s bots that think apart, if one is due:
    /// called after a commit that left one in turn.
    pub fn wake(&self, id: Uuid) {
        if self.thinks {
            // Only a stopped worker drops it; the sweep still finds the game.
            let _ = self.woken.send(id);
        }
    }

    /// Whether this replica's worker has game `id` in hand (playing it, or waiting for a
    /// thread to): the sweep then leaves it alone.
    pub fn holds(&self, id: Uuid) -> bool {
        self.in_hand
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains_key(&id)
    }

    /// Takes game `id` in hand; `false` when the worker already plays it (it then looks again
    /// before it lets the game go), or has [`Bots::IN_HAND`] games in hand already (the sweep
    /// hands it over again once its turn is due).
    pub(crate) fn take(&self, id: Uuid) -> bool {
        let mut in_hand = self
            .in_hand
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let full = in_hand.len() >= Self::IN_HAND;
        match in_hand.get_mut(&id) {
            Some(again) => {
                *again = true;
                false
            }
            None if full => false,
            None => {
                in_hand.insert(id, false);
                true
            }
        }
    }

    /// How many games the worker has in hand.
    pub fn in_hand(&self) -> usize {
        self.in_hand
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len()
    }

    /// Lets game `id` go, unless it was woken while in hand: then `false`, and the worker
    /// looks again.
    pub(crate) fn release(&self, id: Uuid) -> bool {
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

/// This replica's timers of paced moves, as the rest of the service reaches them.
#[derive(Debug)]
pub struct Pacer {
    /// Each game with the moment its paced move is due (unix ms), for `service::pace_bots`.
    armed: mpsc::UnboundedSender<(Uuid, i64)>,
}

impl Pacer {
    /// A pacer, and the receiver `service::pace_bots` takes the timers from.
    pub fn new() -> (Pacer, mpsc::UnboundedReceiver<(Uuid, i64)>) {
        let (armed, receiver) = mpsc::unbounded_channel();
        (Pacer { armed }, receiver)
    }

    /// Plays game `id`'s paced move at `at` (unix ms), if one is due then: called after a
    /// commit that left the game's `bot_at` so.
    pub fn arm(&self, id: Uuid, at: Option<i64>) {
        if let Some(at) = at {
            // Only a stopped task drops it; the sweep still finds the game.
            let _ = self.armed.send((id, at));
        }
    }
}
