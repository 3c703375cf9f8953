//! The hub of live events: what an action's commit announces, and how each replica hears it.
//!
//! An action's transaction announces its events when it commits: on PostgreSQL with `NOTIFY`
//! inside the transaction (so only a commit is heard), on SQLite by a call after the commit
//! (one process owns the file). Each replica keeps one [`Live`] hub: one `LISTEN` connection
//! ([`Live::listen`]) that reconnects by itself, and per watched game a bounded broadcast to
//! that game's streams ([`Signal::Resync`] when announcements may have been missed). The same
//! announcement says what the commit made due for the background passes ([`Work`]: a game's
//! next due time, a game to rate, deliveries to make), which wakes every replica's passes
//! ([`Wakes`]) instead of each polling the database. It lives beside the store because it is the
//! store's own announcement of what it committed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use sqlx::postgres::PgListener;
use tokio::sync::{Notify, broadcast, watch};
use uuid::Uuid;

use super::{EventRow, NewEvent};

/// The `NOTIFY` channel of committed events.
pub const CHANNEL: &str = "continental_events";

/// Signals one game's feed holds for a stream that has not read them yet. A stream further
/// behind than this catches up from the database instead.
const FEED_CAPACITY: usize = 64;

/// `NOTIFY` payloads must stay under 8000 bytes: larger batches announce only their last seq.
const MAX_NOTE: usize = 7_500;

/// What a game's streams hear.
#[derive(Clone, Debug)]
pub enum Signal {
    /// Events committed up to `last`, with the events themselves when they fitted in the
    /// announcement (else the stream reads them from the database).
    Events {
        /// The last event's sequence number.
        last: i64,
        /// The events up to `last`, in order, when carried.
        events: Option<Arc<[EventRow]>>,
    },
    /// Announcements may have been missed (the listener reconnected): read from the database.
    Resync,
}

/// What a commit makes due for the background passes, announced with its events so that each
/// replica's passes wait for work rather than poll for it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Work {
    /// The game's next due time (unix ms): a turn clock, a paced move, a bot's grace or lease.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due: Option<i64>,
    /// A finished game was queued for rating.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rate: bool,
    /// Webhook deliveries were queued.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deliver: bool,
    /// A tournament table's game ended while its round was sealed: its round may be over, for
    /// the tournament pass to close and start the next.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub round: bool,
}

impl Work {
    /// Nothing for any pass.
    pub fn is_none(&self) -> bool {
        *self == Work::default()
    }
}

/// An announcement as sent through `NOTIFY`: the game, its last seq and, if they fit, the bodies
/// of the events that end there; and the work it made due.
#[derive(Debug, Serialize, Deserialize)]
struct Note {
    game: Uuid,
    last: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    events: Option<Vec<String>>,
    #[serde(flatten)]
    work: Work,
}

/// The `NOTIFY` payload announcing `events`, the last of which has seq `last`, and `work`.
pub fn note(game: Uuid, last: i64, events: &[NewEvent], work: Work) -> String {
    let full = Note {
        game,
        last,
        events: Some(events.iter().map(|e| e.body.clone()).collect()),
        work,
    };
    match serde_json::to_string(&full) {
        Ok(text) if text.len() <= MAX_NOTE => text,
        // Too long for NOTIFY: the streams read the events from the table.
        _ => serde_json::to_string(&Note { events: None, ..full })
            .unwrap_or_else(|_| format!(r#"{{"game":"{game}","last":{last}}}"#)),
    }
}

/// What this replica heard was made due for its background passes ([`Work`]), each pass
/// waiting on its own part. A wake-up heard while its pass runs is kept for its next wait.
#[derive(Debug)]
pub struct Wakes {
    /// The soonest due time heard and not yet taken (unix ms; `i64::MAX`: none).
    due: AtomicI64,
    due_heard: Notify,
    rate: Notify,
    deliver: Notify,
    round: Notify,
}

impl Default for Wakes {
    fn default() -> Wakes {
        Wakes {
            due: AtomicI64::new(i64::MAX),
            due_heard: Notify::new(),
            rate: Notify::new(),
            deliver: Notify::new(),
            round: Notify::new(),
        }
    }
}

impl Wakes {
    /// Passes `work` on to the passes it concerns.
    fn hear(&self, work: Work) {
        if let Some(at) = work.due {
            self.due.fetch_min(at, Ordering::AcqRel);
            self.due_heard.notify_one();
        }
        if work.rate {
            self.rate.notify_one();
        }
        if work.deliver {
            self.deliver.notify_one();
        }
        if work.round {
            self.round.notify_one();
        }
    }

    /// Wakes every pass at once: announcements may have been missed.
    fn all(&self) {
        self.hear(Work {
            due: Some(i64::MIN),
            rate: true,
            deliver: true,
            round: true,
        });
    }

    /// Waits until a game's due time is heard (perhaps before this call).
    pub async fn due_heard(&self) {
        self.due_heard.notified().await;
    }

    /// The soonest due time heard since the last call (unix ms), if any.
    pub fn take_due(&self) -> Option<i64> {
        Some(self.due.swap(i64::MAX, Ordering::AcqRel)).filter(|&at| at != i64::MAX)
    }

    /// Waits until a game queued for rating is heard of (perhaps before this call).
    pub async fn rate_heard(&self) {
        self.rate.notified().await;
    }

    /// Waits until webhook deliveries queued are heard of (perhaps before this call).
    pub async fn deliveries_heard(&self) {
        self.deliver.notified().await;
    }

    /// Waits until a tournament table's game is heard to have ended (perhaps before this
    /// call).
    pub async fn round_heard(&self) {
        self.round.notified().await;
    }
}

/// The events a note carries, numbered so that the last has seq `last`.
fn carried(last: i64, bodies: Vec<String>) -> Arc<[EventRow]> {
    let first = last - bodies.len() as i64 + 1;
    bodies
        .into_iter()
        .zip(first..)
        .map(|(body, seq)| EventRow { seq, body })
        .collect()
}

/// A replica's hub of live events (cheap to clone).
#[derive(Clone, Debug)]
pub struct Live {
    hub: Arc<Hub>,
}

#[derive(Debug)]
struct Hub {
    feeds: Mutex<HashMap<Uuid, broadcast::Sender<Signal>>>,
    open: AtomicUsize,
    max: usize,
    closing: watch::Sender<bool>,
    wakes: Wakes,
}

/// Too many streams are open on this replica.
#[derive(Debug, thiserror::Error)]
#[error("this replica already serves {0} event streams")]
pub struct Full(pub usize);

/// One stream's hold on a game's feed; dropping it closes the stream's place.
#[derive(Debug)]
pub struct Subscription {
    /// The game's signals.
    pub signals: broadcast::Receiver<Signal>,
    /// Turns `true` when the service shuts down.
    pub closing: watch::Receiver<bool>,
    // Declared last: dropped after the receiver, so the feed sees it gone.
    _place: Place,
}

#[derive(Debug)]
struct Place {
    hub: Arc<Hub>,
    game: Uuid,
}

impl Drop for Place {
    fn drop(&mut self) {
        self.hub.open.fetch_sub(1, Ordering::Relaxed);
        let mut feeds = self.hub.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        if feeds.get(&self.game).is_some_and(|f| f.receiver_count() == 0) {
            feeds.remove(&self.game);
        }
    }
}

impl Live {
    /// A hub that serves at most `max_streams` streams at once.
    pub fn new(max_streams: usize) -> Live {
        Live {
            hub: Arc::new(Hub {
                feeds: Mutex::new(HashMap::new()),
                open: AtomicUsize::new(0),
                max: max_streams,
                closing: watch::Sender::new(false),
                wakes: Wakes::default(),
            }),
        }
    }

    /// Streams open now.
    pub fn open_streams(&self) -> usize {
        self.hub.open.load(Ordering::Relaxed)
    }

    /// A place for one more stream of `game`, unless this replica is full.
    ///
    /// # Errors
    /// [`Full`] when `max_streams` are open.
    pub fn subscribe(&self, game: Uuid) -> Result<Subscription, Full> {
        let max = self.hub.max;
        self.hub
            .open
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                (n < max).then_some(n + 1)
            })
            .map_err(Full)?;
        let place = Place {
            hub: self.hub.clone(),
            game,
        };
        let signals = self
            .hub
            .feeds
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(game)
            .or_insert_with(|| broadcast::channel(FEED_CAPACITY).0)
            .subscribe();
        Ok(Subscription {
            signals,
            closing: self.hub.closing.subscribe(),
            _place: place,
        })
    }

    /// The signals of feed `id` for one of this replica's own workers (say, the matching
    /// worker's wakeups): no client's stream, so not counted against the cap, and never closed.
    pub fn follow(&self, id: Uuid) -> broadcast::Receiver<Signal> {
        self.hub
            .feeds
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(id)
            .or_insert_with(|| broadcast::channel(FEED_CAPACITY).0)
            .subscribe()
    }

    /// Passes committed events of `game` to its streams here (none watching: nothing to do).
    pub fn publish(&self, game: Uuid, signal: Signal) {
        let feeds = self.hub.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(feed) = feeds.get(&game) {
            // An error means no stream is left on it: nobody to tell.
            let _ = feed.send(signal);
        }
    }

    /// What this replica heard was made due for its background passes.
    pub fn wakes(&self) -> &Wakes {
        &self.hub.wakes
    }

    /// Tells this replica's passes of `work` committed here without a `NOTIFY` (SQLite has one
    /// process: this one).
    pub fn wake(&self, work: Work) {
        self.hub.wakes.hear(work);
    }

    /// Passes a `NOTIFY` payload on; one that does not parse is logged and dropped.
    fn hear(&self, payload: &str) {
        match serde_json::from_str::<Note>(payload) {
            Ok(n) => {
                self.hub.wakes.hear(n.work);
                // A write with no event (a clock set again, say) leaves `last` where the
                // streams are: they read nothing.
                self.publish(
                    n.game,
                    Signal::Events {
                        last: n.last,
                        events: n.events.map(|b| carried(n.last, b)),
                    },
                );
            }
            Err(e) => tracing::warn!(error = %e, "unreadable event announcement"),
        }
    }

    /// Tells every stream to catch up from the database, and every pass to look again.
    fn resync_all(&self) {
        self.hub.wakes.all();
        let feeds = self.hub.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        for feed in feeds.values() {
            let _ = feed.send(Signal::Resync);
        }
    }

    /// Closes every stream now (the service is stopping); new ones are refused.
    pub fn close(&self) {
        self.hub.closing.send_replace(true);
    }

    /// Whether [`Live::close`] was called.
    pub fn is_closing(&self) -> bool {
        *self.hub.closing.borrow()
    }

    /// Listens on PostgreSQL through a pool of its own (one connection), until the service
    /// stops. A dropped connection is made again by itself; the streams then catch up from the
    /// database, so nothing committed meanwhile is missed. `node` names the server in the log
    /// (on a Citus cluster each replica listens on every node: an action's `NOTIFY` is sent by
    /// the worker that holds its game).
    pub fn listen(&self, pool: PgPool, node: String) {
        let live = self.clone();
        tokio::spawn(async move {
            let mut closing = live.hub.closing.subscribe();
            tokio::select! {
                () = live.run_listener(pool, &node) => {}
                _ = closing.wait_for(|c| *c) => {}
            }
        });
    }

    async fn run_listener(&self, pool: PgPool, node: &str) {
        // Said once per outage, not at every attempt: a lost worker is one line, then one more
        // when it is back.
        let mut failing = false;
        loop {
            let attempt = async {
                let mut listener = PgListener::connect_with(&pool).await?;
                // Its pool is its own: it closes only with the process.
                listener.ignore_pool_close_event(true);
                listener.listen(CHANNEL).await?;
                Ok::<_, sqlx::Error>(listener)
            };
            let mut listener = match attempt.await {
                Ok(l) => l,
                Err(e) => {
                    if !failing {
                        tracing::warn!(error = %e, node, "event listener cannot listen; trying again");
                    }
                    failing = true;
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    continue;
                }
            };
            if failing {
                tracing::info!(node, "event listener listens again; streams catch up");
            }
            // Whatever was committed before LISTEN (at start, or while the connection was
            // down) every stream reads from the database.
            self.resync_all();
            loop {
                match listener.try_recv().await {
                    Ok(Some(n)) => self.hear(n.payload()),
                    // Lost and already made again, listening (sqlx's eager reconnect).
                    Ok(None) => {
                        tracing::warn!(node, "event listener reconnected; streams catch up");
                        self.resync_all();
                    }
                    // Anything else (the server ended the session, the pool failed): start over
                    // with a new connection.
                    Err(e) => {
                        tracing::warn!(error = %e, node, "event listener failed; reconnecting");
                        failing = true;
                        break;
                    }
                }
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(body: &str) -> NewEvent {
        NewEvent {
            seat: None,
            body: body.to_owned(),
            public: None,
            step: None,
        }
    }

    #[test]
    fn a_note_carries_its_events_numbered_up_to_last() {
        let game = Uuid::new_v4();
        let text = note(
            game,
            7,
            &[event(r#"{"type":"a"}"#), event(r#"{"type":"b"}"#)],
            Work::default(),
        );
        let n: Note = serde_json::from_str(&text).expect("a note");
        assert_eq!((n.game, n.last), (game, 7));
        let rows = carried(n.last, n.events.expect("small events are carried"));
        let seqs: Vec<i64> = rows.iter().map(|r| r.seq).collect();
        assert_eq!(seqs, [6, 7]);
        assert_eq!(rows[1].body, r#"{"type":"b"}"#);
    }

    #[test]
    fn a_note_too_long_for_notify_names_only_the_last_seq() {
        let big = format!(r#"{{"type":"a","pad":"{}"}}"#, "x".repeat(MAX_NOTE));
        let work = Work {
            due: Some(1_700_000_000_000),
            rate: true,
            deliver: true,
            round: true,
        };
        let text = note(Uuid::nil(), 3, &[event(&big)], work);
        assert!(text.len() < 200, "{text}");
        let n: Note = serde_json::from_str(&text).expect("a note");
        assert!(n.events.is_none());
        assert_eq!(n.work, work, "the work is kept: {text}");
    }

    #[tokio::test]
    async fn a_note_wakes_the_passes_it_concerns_once_each() {
        let live = Live::new(1);
        let due = Work {
            due: Some(2_000),
            ..Work::default()
        };
        live.hear(&note(Uuid::new_v4(), 1, &[], due));
        live.hear(&note(
            Uuid::new_v4(),
            1,
            &[],
            Work {
                due: Some(1_000),
                ..due
            },
        ));
        live.wakes().due_heard().await;
        assert_eq!(live.wakes().take_due(), Some(1_000), "the soonest heard");
        assert_eq!(live.wakes().take_due(), None, "taken");
        live.hear(&note(
            Uuid::new_v4(),
            1,
            &[],
            Work {
                rate: true,
                ..Work::default()
            },
        ));
        live.wakes().rate_heard().await;
        live.hear(&note(
            Uuid::new_v4(),
            1,
            &[],
            Work {
                round: true,
                ..Work::default()
            },
        ));
        live.wakes().round_heard().await;
        live.resync_all();
        live.wakes().deliveries_heard().await;
        live.wakes().round_heard().await;
        assert_eq!(
            live.wakes().take_due(),
            Some(i64::MIN),
            "a resync looks again at once"
        );
    }

    #[tokio::test]
    async fn the_cap_refuses_and_a_closed_place_frees_its_feed() {
        let live = Live::new(2);
        let game = Uuid::new_v4();
        let a = live.subscribe(game).expect("first");
        let b = live.subscribe(game).expect("second");
        assert!(live.subscribe(Uuid::new_v4()).is_err(), "a third is refused");
        drop(a);
        let mut c = live.subscribe(game).expect("a place came free");
        live.publish(
            game,
            Signal::Events {
                last: 1,
                events: None,
            },
        );
        assert!(matches!(
            c.signals.recv().await,
            Ok(Signal::Events { last: 1, .. })
        ));
        drop((b, c));
        assert_eq!(live.open_streams(), 0);
        assert!(live.hub.feeds.lock().expect("feeds").is_empty());
    }
}
