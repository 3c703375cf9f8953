//! SQLite: the store of one process. `BEGIN IMMEDIATE` holds the database from an action's read
//! to its commit; committed events are announced to this process's hub. Every statement both
//! dialects take comes from `sql/`, and the code that runs them from `run/`: here is what
//! SQLite does its own way ([`SqlStore`]'s methods without a body).

use std::sync::Arc;
use std::time::Duration;

use sqlx::{Sqlite, SqliteConnection, SqlitePool};
use uuid::Uuid;

use super::citus::Literal;
use super::hub::{Live, Signal, Work};
use super::run::SqlStore;
use super::sql::*;
use super::write::{RowWrite, Write};
use super::{
    BotTableLimit, Delivery, DueGame, EventRow, GameRow, GameUpdate, KeyRef, Lock, NewEvent, On, Outcome,
    Settled, StoreError,
};
use crate::telemetry::traces::Statement as _;

/// SQLite storage: events are announced to this process's [`Live`] hub after the commit.
#[derive(Clone, Debug)]
pub struct SqliteStore {
    pub(super) pool: SqlitePool,
    /// The one connection that writes, apart from the readers': SQLite takes one writer at a
    /// time, and its busy handler retries by sleeping, so that a write could lose the lock to
    /// later ones again and again until its timeout; here writers queue in order of arrival.
    pub(super) writer: SqlitePool,
    /// The longest one call may take (see `Database`).
    pub(super) bound: Duration,
    /// Where committed events go (SQLite has one writing process: this one).
    pub(super) live: Live,
}

impl SqliteStore {
    /// Announces committed events to this process's streams.
    fn announce(&self, game: Uuid, last: i64, events: &[NewEvent]) {
        let rows: Arc<[EventRow]> = events
            .iter()
            .zip(last - events.len() as i64 + 1..)
            .map(|(e, seq)| EventRow {
                seq,
                body: e.body.clone(),
            })
            .collect();
        self.live.publish(
            game,
            Signal::Events {
                last,
                events: Some(rows),
            },
        );
    }
}

impl super::ratings::SqlRatings for SqliteStore {
    /// In one query: one file.
    async fn rating_candidates(
        &self,
        now: i64,
        limit: i64,
    ) -> Result<Vec<super::ratings::RatingCandidate>, StoreError> {
        self.rating_candidates_in_one(now, limit).await
    }
}

impl SqlStore for SqliteStore {
    /// Nothing: `BEGIN IMMEDIATE` holds the database, the limit's count with it.
    type Guard = ();

    async fn admit(
        &self,
        tx: &mut SqliteConnection,
        id: Uuid,
        limit: &BotTableLimit,
    ) -> Result<(), StoreError> {
        Self::count_bot_tables(tx, id, limit).await
    }

    async fn release((): ()) {}

    /// In the transaction that holds the database since its read: the game row, the events, the changed seats, the webhook deliveries and the key,
    /// one statement each. Returns the new last seq.
    async fn write_update(
        &self,
        tx: &mut sqlx::Transaction<'static, sqlx::Sqlite>,
        game: &GameRow,
        key: Option<&KeyRef>,
        update: &GameUpdate,
    ) -> Result<(i64, Work), StoreError> {
        // The write lock held since BEGIN IMMEDIATE keeps the numbers in order: no condition.
        let write = Write::of(game, None, key, update);
        let RowWrite {
            status,
            state,
            version,
            updated_at,
            next_due,
            last_seq,
        } = &write.row;
        sqlx::query(
            "UPDATE games SET status = $2, state = $3, version = $4, updated_at = $5, deadline = $6, last_seq = $7 WHERE id = $1",
        )
        .bind(write.game)
        .bind(status)
        .bind(state)
        .bind(version)
        .bind(updated_at)
        .bind(next_due)
        .bind(last_seq)
        .execute(&mut **tx)
        .traced_statement(Self::SYSTEM, "UPDATE", "games")
        .await?;
        for s in &write.seats {
            sqlx::query(
                "UPDATE seats SET name = $3, kind = $4, player = $5 WHERE game_id = $1 AND seat = $2",
            )
            .bind(write.game)
            .bind(s.seat)
            .bind(s.name)
            .bind(s.kind)
            .bind(s.player)
            .execute(&mut **tx)
            .await?;
        }
        if let Some(due) = write.rate {
            sqlx::query(RATING_DUE_INSERT)
                .bind(write.game)
                .bind(due)
                .execute(&mut **tx)
                .await?;
        }
        Self::insert_rows(tx, write.game, &write.events, &write.outbox, write.key.as_ref()).await?;
        Ok((write.last_seq(), write.work()))
    }

    /// Nothing in the transaction: this process is told after the commit ([`Self::committed`]).
    async fn notify_created(
        &self,
        _tx: &mut SqliteConnection,
        _id: Uuid,
        _work: Work,
    ) -> Result<(), StoreError> {
        Ok(())
    }

    fn committed(&self, id: Uuid, last: i64, events: &[NewEvent], work: Work) {
        if !events.is_empty() {
            self.announce(id, last, events);
        }
        self.live.wake(work);
    }

    /// As under `Lock::Row`: one process owns the file, so there is no one to race, and
    /// `BEGIN IMMEDIATE` holds the database from the read on.
    async fn transact_optimistic<T, E, F>(&self, on: On<'_>, act: F) -> Result<Option<T>, E>
    where
        E: From<StoreError>,
        F: FnMut(&GameRow) -> Result<Outcome<T>, E>,
    {
        self.transact_held(on, Lock::Optimistic, act).await
    }

    async fn due_candidates(
        &self,
        now: i64,
        after: Option<DueGame>,
        limit: i64,
    ) -> Result<Vec<DueGame>, StoreError> {
        self.due_in_one(now, after, limit).await
    }

    /// One writer: no other to race between the read and each lease.
    async fn claim_heads(&self, now: i64, lease_until: i64, limit: i64) -> Result<Vec<Claimed>, StoreError> {
        let candidates = self.delivery_candidates_in_one(now, limit).await?;
        self.claim_each(candidates, now, lease_until).await
    }

    /// The record of [`Store::settle_delivery`](super::Store::settle_delivery): the delivery
    /// ([`SQLITE_SETTLE_DELIVERY`]), then its game's head ([`SQLITE_SETTLE_HEAD`]), in one
    /// transaction that holds the database.
    async fn settle(
        &self,
        d: &Delivery,
        status: &str,
        next: i64,
        error: Option<&str>,
        now: i64,
    ) -> Result<Settled, StoreError> {
        let mut tx = self.writer.begin_with(crate::store::sql::BEGIN_IMMEDIATE).await?;
        let seq: Option<i64> = sqlx::query_scalar(SQLITE_SETTLE_DELIVERY)
            .bind(d.game_id)
            .bind(&d.id)
            .bind(status)
            .bind(next)
            .bind(error)
            .bind(d.lease)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(seq) = seq else {
            return Ok(Settled::Late);
        };
        sqlx::query(SQLITE_SETTLE_HEAD)
            .bind(d.game_id)
            .bind(&d.id)
            .bind(status)
            .bind(next)
            .bind(error)
            .bind(d.lease)
            .bind(now)
            .bind(seq)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Settled::Recorded)
    }

    async fn purge_table<V>(&self, purge: &Purge, before: i64) -> Result<u64, StoreError>
    where
        V: for<'r> sqlx::Decode<'r, Sqlite> + for<'q> sqlx::Encode<'q, Sqlite> + sqlx::Type<Sqlite>,
        V: Clone + PartialEq + Send + Sync + Unpin + 'static,
        V: Literal + serde::de::DeserializeOwned,
    {
        self.purge::<V>(purge, before).await
    }

    async fn reader_of(&self, _id: Uuid) -> &SqlitePool {
        &self.pool
    }
}
