//! What one accepted action writes, said once ([`Write`]); each store renders it once.

use serde::Serialize;
use uuid::Uuid;

use super::hub;
use super::sql::{delivery_id, now, now_ms};
use super::{GameRow, GameUpdate, KeyRef, NewEvent, StoredResponse};
use crate::domain::GameStatus;

/// What one accepted action writes: the game row's new values (on a condition when the game was
/// read without a lock), its events, the response kept for its idempotency key, the seats it
/// changed and its webhook deliveries. Built once, with every number and time it needs, from
/// the game as read and the action's [`GameUpdate`] ([`Write::of`]); each store renders it once:
/// PostgreSQL as one statement (`postgres.rs`), SQLite as the statements of the action's
/// transaction (`sqlite.rs`), a Citus cluster as the JSON value `continental_write` takes
/// (`citus/`), whose field names are the columns'. A new column of one of these rows is a field
/// here and a place in each rendering; the differential write test (`api/tests/api/writes.rs`)
/// compares what the backends wrote.
#[derive(Debug, Serialize)]
pub(super) struct Write<'a> {
    /// The game (on a cluster, the function's distribution argument, not in the JSON).
    #[serde(skip)]
    pub game: Uuid,
    /// The game row's `xmin` as read without a lock: the write is made only if the row is still
    /// that one. None: the transaction holds the row.
    pub read: Option<&'a str>,
    /// The game's version as read, beside `read`: checked as well on a cluster, where an `xmin`
    /// is one node's transaction id and a moved row's copy may carry the same by chance.
    pub read_version: Option<i64>,
    /// The game row's new values.
    #[serde(rename = "game")]
    pub row: RowWrite<'a>,
    /// The events appended, in order.
    pub events: Vec<EventWrite<'a>>,
    /// The idempotency key kept with the response to replay, if the request has one.
    pub key: Option<KeyWrite<'a>>,
    /// The seats whose name or kind changed.
    pub seats: Vec<SeatWrite<'a>>,
    /// The webhook deliveries of the events, when the game has a webhook.
    pub outbox: Vec<DeliveryWrite<'a>>,
    /// When the action ends a game to be rated (a rated game finished, or ended rated by its
    /// studio): the time (unix ms) its row of `ratings_due` says it is due, for the rating
    /// pass (`service/ratings.rs`) to rate it.
    pub rate: Option<i64>,
    /// The action ends a sealed tournament table's game: its round may be over.
    #[serde(skip)]
    pub round: bool,
    /// The events as [`NewEvent`]s, for their announcement (`NOTIFY`, or the hub on SQLite).
    #[serde(skip)]
    pub announced: &'a [NewEvent],
}

/// The new values of an action's game row.
#[derive(Debug, Serialize)]
pub(super) struct RowWrite<'a> {
    /// Its status.
    pub status: GameStatus,
    /// Its state (JSON text).
    pub state: &'a str,
    /// Its version.
    pub version: i64,
    /// When it changed (seconds since the epoch).
    pub updated_at: i64,
    /// The game's next due time (unix ms; [`GameRow::next_due`](super::GameRow::next_due)).
    pub next_due: Option<i64>,
    /// The last event's sequence number.
    pub last_seq: i64,
}

/// One event appended to a game's log.
#[derive(Debug, Serialize)]
pub(super) struct EventWrite<'a> {
    /// Its sequence number.
    pub seq: i64,
    /// The seat it concerns, if any.
    pub seat: Option<i64>,
    /// The event (JSON text).
    pub body: &'a str,
    /// The step of the game's record that begins here, if one does.
    pub step: Option<&'a str>,
    /// When it was written (seconds since the epoch).
    pub created_at: i64,
}

/// An idempotency key kept with the response to replay.
#[derive(Debug, Serialize)]
pub(super) struct KeyWrite<'a> {
    /// Its table (`idempotency_keys`, or `creation_keys` for a creation).
    #[serde(skip)]
    pub table: &'static str,
    /// Its game (the tenant's creation scope, for a creation).
    #[serde(skip)]
    pub game: Uuid,
    /// The acting seat (-1 when not known yet).
    pub seat: i64,
    /// The client's key.
    pub key: &'a str,
    /// Hash of method, path and body.
    pub request_hash: &'a str,
    /// Always `done`: a key is kept only with the change it answers.
    pub status: &'static str,
    /// The response's status.
    pub response_status: i64,
    /// Its `ETag`, if any.
    pub response_headers: Option<&'a str>,
    /// Its body (in JSON, as PostgreSQL's `\x` hex text of a `bytea`).
    #[serde(serialize_with = "bytea_hex")]
    pub response_body: &'a [u8],
    /// When it was kept (seconds since the epoch).
    pub created_at: i64,
}

/// A seat's new name and kind.
#[derive(Debug, Serialize)]
pub(super) struct SeatWrite<'a> {
    /// The seat.
    pub seat: i64,
    /// Its player's name.
    pub name: Option<&'a str>,
    /// Who plays it now.
    pub kind: &'a str,
    /// The studio's id of the person there, if it named one.
    pub player: Option<&'a str>,
}

/// A webhook delivery of one event, due at once.
#[derive(Debug, Serialize)]
pub(super) struct DeliveryWrite<'a> {
    /// The delivery id (`webhook-id`).
    pub id: String,
    /// The event's sequence number.
    pub seq: i64,
    /// The game's version after the action.
    pub version: i64,
    /// The event as a spectator sees it (JSON text).
    pub event: &'a str,
    /// Always `pending`.
    pub status: &'static str,
    /// When to attempt it (unix ms).
    pub next_attempt_at: i64,
    /// When it was queued (unix ms).
    pub created_at: i64,
}

impl<'a> Write<'a> {
    /// What `update` writes to `game` as read (on the condition of its `xmin` `read`, when the
    /// game was read without a lock), with the response kept under `key`.
    pub fn of(
        game: &GameRow,
        read: Option<&'a str>,
        key: Option<&'a KeyRef>,
        update: &'a GameUpdate,
    ) -> Self {
        let at = now();
        let first = game.last_seq + 1;
        Write {
            game: game.id,
            read,
            read_version: read.map(|_| game.version),
            row: RowWrite {
                status: update.status,
                state: &update.state,
                version: update.version,
                updated_at: at,
                next_due: update.next_due,
                last_seq: game.last_seq + update.events.len() as i64,
            },
            events: events(&update.events, first, at),
            key: key
                .zip(update.response.as_ref())
                .map(|(key, response)| kept(key, response, at)),
            seats: update
                .seats
                .iter()
                .map(|s| SeatWrite {
                    seat: s.seat,
                    name: s.name.as_deref(),
                    kind: &s.kind,
                    player: s.player.as_deref(),
                })
                .collect(),
            outbox: outbox(&update.events, first, update.version),
            // Only the change that ends it: a rematch asked of the finished game, or the
            // rating pass telling it its changes, writes its row again, and queues nothing.
            rate: (update.rated && update.status.is_over() && !game.status.is_over()).then(now_ms),
            round: update.sealed && update.status.is_over() && !game.status.is_over(),
            announced: &update.events,
        }
    }

    /// The new last seq.
    pub fn last_seq(&self) -> i64 {
        self.row.last_seq
    }

    /// What the write makes due for the background passes: the game's next due time, a game
    /// to rate, deliveries to make.
    pub fn work(&self) -> hub::Work {
        hub::Work {
            due: self.row.next_due,
            rate: self.rate.is_some(),
            deliver: !self.outbox.is_empty(),
            round: self.round,
        }
    }

    /// The `NOTIFY` payload announcing the events and the work, if there are any.
    pub fn note(&self) -> Option<String> {
        let work = self.work();
        (!self.announced.is_empty() || !work.is_none())
            .then(|| hub::note(self.game, self.row.last_seq, self.announced, work))
    }
}

/// What a new game `game` makes due for the background passes: its first due time, and the
/// deliveries `outbox` of its first events.
pub(super) fn created_work(game: &GameRow, outbox: &[DeliveryWrite<'_>]) -> hub::Work {
    hub::Work {
        due: game.next_due,
        rate: false,
        deliver: !outbox.is_empty(),
        round: false,
    }
}

/// `events` as written, numbered from `first`, at `at` (seconds since the epoch).
pub(super) fn events(events: &[NewEvent], first: i64, at: i64) -> Vec<EventWrite<'_>> {
    events
        .iter()
        .zip(first..)
        .map(|(e, seq)| EventWrite {
            seq,
            seat: e.seat,
            body: &e.body,
            step: e.step.as_deref(),
            created_at: at,
        })
        .collect()
}

/// The webhook deliveries of those of `events` that have a public copy (the game has a
/// webhook), numbered from `first`, made by the action that brought the game to `version`.
pub(super) fn outbox(events: &[NewEvent], first: i64, version: i64) -> Vec<DeliveryWrite<'_>> {
    let at = now_ms();
    events
        .iter()
        .zip(first..)
        .filter_map(|(e, seq)| {
            Some(DeliveryWrite {
                id: delivery_id(),
                seq,
                version,
                event: e.public.as_deref()?,
                status: "pending",
                next_attempt_at: at,
                created_at: at,
            })
        })
        .collect()
}

/// `key` kept with `response`, at `at` (seconds since the epoch).
pub(super) fn kept<'a>(key: &'a KeyRef, response: &'a StoredResponse, at: i64) -> KeyWrite<'a> {
    KeyWrite {
        table: key.table(),
        game: key.game,
        seat: key.seat,
        key: &key.key,
        request_hash: &key.request_hash,
        status: "done",
        response_status: i64::from(response.status),
        response_headers: response.etag.as_deref(),
        response_body: &response.body,
        created_at: at,
    }
}

/// Bytes as PostgreSQL's hex text of a `bytea` (`\x...`), which a JSON string is read as.
fn bytea_hex<S: serde::Serializer>(bytes: &&[u8], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&format!("\\x{}", hex::encode(bytes)))
}
