//! The per-game queue of one replica: a move waits here, holding no database connection, while
//! another move of the same game is in its transaction. So a replica never has more than one
//! connection waiting on a game's row lock, and a hot or locked game cannot take the pool from
//! the others. It keeps nothing that matters across replicas (the row lock is what serialises
//! the moves of a game; this only keeps the waiting out of the pool), and an entry lives only
//! while a move of its game runs or waits.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{Mutex as Turn, OwnedMutexGuard};
use uuid::Uuid;

/// The games with a move running or waiting on this replica, each with its queue.
#[derive(Debug, Default)]
pub struct GameQueues {
    games: Mutex<HashMap<Uuid, Arc<Turn<()>>>>,
}

/// A game's turn in its queue: the game's moves wait until it is dropped.
#[derive(Debug)]
pub struct Held<'a> {
    // Released first (fields drop in order), then the entry is let go.
    _turn: OwnedMutexGuard<()>,
    _entry: Entry<'a>,
}

/// A move's place in the map: its drop removes the game's entry when no other move holds it.
#[derive(Debug)]
struct Entry<'a> {
    queues: &'a GameQueues,
    game: Uuid,
    turn: Option<Arc<Turn<()>>>,
}

impl Drop for Entry<'_> {
    fn drop(&mut self) {
        let mut games = self.queues.games.lock().unwrap_or_else(PoisonError::into_inner);
        drop(self.turn.take());
        // Only the map's own reference left: no move of this game runs or waits here.
        if games.get(&self.game).is_some_and(|t| Arc::strong_count(t) == 1) {
            games.remove(&self.game);
        }
    }
}

impl GameQueues {
    /// Waits for `game`'s turn on this replica, at most `patience`: `None` when another move
    /// of the game held it all that time (the game is busy).
    pub async fn enter(&self, game: Uuid, patience: Duration) -> Option<Held<'_>> {
        let turn = self
            .games
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(game)
            .or_default()
            .clone();
        // Made before the wait, so that a wait given up (or a request dropped) cleans up too.
        let entry = Entry {
            queues: self,
            game,
            turn: Some(turn.clone()),
        };
        // A free queue (most moves) is taken at once, without a timer.
        let turn = match turn.clone().try_lock_owned() {
            Ok(turn) => turn,
            Err(_) => tokio::time::timeout(patience, turn.lock_owned()).await.ok()?,
        };
        Some(Held {
            _turn: turn,
            _entry: entry,
        })
    }

    /// How many games have a move running or waiting (for tests: entries do not pile up).
    pub fn len(&self) -> usize {
        self.games.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Whether no game has a move running or waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn moves_of_a_game_take_turns_and_leave_no_entry_behind() {
        let queues = GameQueues::default();
        let (hot, other) = (Uuid::new_v4(), Uuid::new_v4());
        let first = queues
            .enter(hot, Duration::from_secs(1))
            .await
            .expect("a free game");
        assert!(
            queues.enter(hot, Duration::from_millis(50)).await.is_none(),
            "a second move of the game waits, and gives up after its patience"
        );
        let elsewhere = queues.enter(other, Duration::from_millis(50)).await;
        assert!(elsewhere.is_some(), "another game does not wait");
        drop(elsewhere);
        assert_eq!(queues.len(), 1, "only the game with a move running");
        let waiting = queues.enter(hot, Duration::from_secs(5));
        let released = async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            drop(first);
        };
        let (next, ()) = tokio::join!(waiting, released);
        assert!(next.is_some(), "the next move runs once the first is done");
        drop(next);
        assert!(queues.is_empty(), "no entry once no move runs or waits");
    }
}
