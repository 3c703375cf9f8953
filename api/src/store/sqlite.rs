//! SQLite: the store of one process. `BEGIN IMMEDIATE` holds the database from an action's read
//! to its commit; committed events are announced to this process's hub. Every statement both
//! dialects take comes from `sql/`. [`Store`] is implemented in `sqlite/games.rs`, an action's
//! transaction in `sqlite/actions.rs`, background work in `sqlite/passes.rs`.

mod actions;
mod games;
mod passes;

use std::sync::Arc;
use std::time::Duration;

use sqlx::SqlitePool;
use uuid::Uuid;

use super::hub::{Live, Signal, Work};
use super::sql::*;
use super::write::{RowWrite, Write};
use super::{Delivery, EventRow, GameRow, GameUpdate, KeyRef, NewEvent, Settled, StoreError};
use crate::telemetry::traces::{SQLITE, Statement as _};

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
    /// Its `db.system.name` in traces.
    const SYSTEM: &str = SQLITE;

    /// The pool a transaction begins on: the writer's.
    pub(super) fn writer(&self) -> &SqlitePool {
        &self.writer
    }

    /// The pool a transaction of game `id` begins on: the writer's.
    pub(super) async fn writer_of(&self, _id: Uuid) -> &SqlitePool {
        &self.writer
    }

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

impl SqliteStore {
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
        let mut tx = self.writer.begin_with("BEGIN IMMEDIATE").await?;
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
}

impl SqliteStore {
    /// Writes an accepted action ([`Write`]) in the transaction that holds the database since
    /// its read: the game row, the events, the changed seats, the webhook deliveries and the key,
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
}
