//! An action's transaction on PostgreSQL when it holds its game's row (the optimistic one is in
//! `postgres.rs`), the read of its game, the limit on tables of bots alone, and the rows a
//! creation adds.

use sqlx::{AssertSqlSafe, PgConnection, Postgres, QueryBuilder};
use uuid::Uuid;

use super::PgStore;
use crate::store::citus::nodes::GameShards;
use crate::store::sql::{
    BOT_TABLES_LOCK_SQL, BOT_TABLES_SQL, EVENT_INSERT, GameRead, HEAD_UPSERT, OUTBOX_INSERT, PG_SKIP_LOCKED,
    key_insert, key_taken, push_event_values, push_key_values, push_outbox_values, read_row,
};
use crate::store::write::{DeliveryWrite, EventWrite, KeyWrite};
use crate::store::{BotTableLimit, GameRow, KeyScope, Lock, On, Outcome, StoreError};
use crate::telemetry::traces::Statement as _;

impl PgStore {
    /// [`Store::transact`](crate::store::Store::transact) under [`Lock::Row`] or [`Lock::Due`]:
    /// one transaction that holds the game's row from the read to the commit; under `Due`, only
    /// a row still due that no other transaction holds, which it skips rather than waits for
    /// (one that committed first has moved the deadline on, so the game is no longer due: each
    /// expiry counts once).
    pub(super) async fn transact_held<T, E, F>(
        &self,
        on: On<'_>,
        lock: Lock,
        mut act: F,
    ) -> Result<Option<T>, E>
    where
        E: From<StoreError>,
        F: FnMut(&GameRow) -> Result<Outcome<T>, E>,
    {
        let (due, row_lock) = match lock {
            Lock::Due { now } => (Some(now), PG_SKIP_LOCKED),
            Lock::Row | Lock::Optimistic => (None, " FOR UPDATE"),
        };
        let mut tx = self
            .writer_of(on.id)
            .await
            .begin()
            .await
            .map_err(StoreError::from)?;
        let read = Self::read_game(&mut tx, on, due, ("", row_lock), None).await?;
        let Some((game, taken, _)) = read else {
            return Ok(None);
        };
        // A retry after the first request committed finds its key here and acts no second
        // time. A copy that waited on the lock may not see the key yet (its statement's
        // snapshot predates the commit); the key's unique index refuses it when it stores its
        // own, which rolls its change back.
        if taken {
            return Err(StoreError::KeyTaken.into());
        }
        // On error the transaction is dropped, which rolls it back.
        let Outcome { update, value } = act(&game)?;
        let Some(update) = update else {
            tx.commit().await.map_err(StoreError::from)?;
            return Ok(Some(value));
        };
        let guard = match &update.bot_tables {
            Some(limit) => match self.admit(&mut tx, on.id, limit).await {
                Ok(guard) => guard,
                Err(e) => {
                    // Rolled back before answering, so that the row is free at once: a refused
                    // timeout is decided again by a claim that skips locked rows.
                    let _ = tx.rollback().await;
                    return Err(e.into());
                }
            },
            None => None,
        };
        self.write_update(&mut tx, &game, on.key, &update).await?;
        tx.commit()
            .traced_statement(Self::SYSTEM, "COMMIT", "")
            .await
            .map_err(StoreError::from)?;
        Self::release(guard).await;
        // `NOTIFY` in the write announced its events on commit.
        Ok(Some(value))
    }

    /// Takes the limit's lock in `tx` (see `BOT_TABLES_LOCK_SQL`), then counts `limit.tenant`'s
    /// tables of bots alone in play or finished since `limit.finished_since`, game `id` aside:
    /// a write that would make one more than `limit.limit` is [`StoreError::BotTablesFull`].
    pub(super) async fn count_bot_tables(
        tx: &mut PgConnection,
        id: Uuid,
        limit: &BotTableLimit,
    ) -> Result<(), StoreError> {
        sqlx::query(BOT_TABLES_LOCK_SQL)
            .bind(format!("bot_tables:{}", limit.tenant))
            .execute(&mut *tx)
            .await?;
        let n: i64 = sqlx::query_scalar(BOT_TABLES_SQL)
            .bind(&limit.tenant)
            .bind(id)
            .bind(limit.finished_since)
            .fetch_one(&mut *tx)
            .await?;
        if n >= i64::from(limit.limit) {
            return Err(StoreError::BotTablesFull(limit.limit));
        }
        Ok(())
    }

    /// Ends the transaction that held the limit's lock apart from the write, on a cluster (see
    /// `PgStore::admit`), once the write it admitted has committed.
    pub(super) async fn release(guard: Option<sqlx::Transaction<'static, Postgres>>) {
        if let Some(guard) = guard
            && let Err(e) = guard.commit().await
        {
            // The lock ends with the connection anyway; the write stands.
            tracing::debug!(error = %e, "the lock on tables of bots alone ended with its connection");
        }
    }

    /// Reads game `on.id` as [`GameRead`] says (of `on.tenant` only, when given; with its
    /// deadline at or before `due`, when given; with `extra` columns before its own and `lock`
    /// after the query; with `on.key`, whether that key is stored already); with `shards`, from
    /// the game's own shards, on the node that holds them (not found there once they moved).
    /// Returns the game, whether the key is taken, and the row for the extra columns; `None`
    /// when no such game is found.
    pub(super) async fn read_game(
        conn: &mut PgConnection,
        on: On<'_>,
        due: Option<i64>,
        (extra, lock): (&str, &str),
        shards: Option<&GameShards>,
    ) -> Result<Option<(GameRow, bool, sqlx::postgres::PgRow)>, StoreError> {
        let On { id, tenant, key } = on;
        // The key's game is this game: `$1` names both, so that on a cluster the statement is
        // seen to concern one game's shard.
        debug_assert!(
            key.is_none_or(|k| k.game == id),
            "a move's key belongs to its game"
        );
        let (games, placed_here) = match shards {
            Some(s) => (s.games.as_str(), s.placed_here.as_str()),
            None => ("games", ""),
        };
        let keys = key.map(|k| match (shards, k.scope) {
            (Some(s), KeyScope::Game) => s.keys.as_str(),
            _ => k.table(),
        });
        let read = GameRead {
            extra,
            games,
            placed_here,
            keys,
            tenant: tenant.is_some(),
            due: due.is_some(),
            lock,
        };
        let mut query = sqlx::query(AssertSqlSafe(read.sql())).bind(id);
        if let Some(key) = key {
            query = query.bind(key.seat).bind(key.key.as_str());
        }
        if let Some(tenant) = tenant {
            query = query.bind(tenant);
        }
        if let Some(due) = due {
            query = query.bind(due);
        }
        let read = query
            .fetch_optional(&mut *conn)
            .traced_statement(Self::SYSTEM, "SELECT", "games");
        read.await?.map(|row| read_row(on, row)).transpose()
    }

    /// Appends game `game`'s `events`, queues its webhook deliveries `outbox` and keeps `key`,
    /// in `tx`, one statement each: the rows a creation adds.
    pub(super) async fn insert_rows(
        tx: &mut PgConnection,
        game: Uuid,
        events: &[EventWrite<'_>],
        outbox: &[DeliveryWrite<'_>],
        key: Option<&KeyWrite<'_>>,
    ) -> Result<(), StoreError> {
        if !events.is_empty() {
            let mut insert = QueryBuilder::<Postgres>::new(EVENT_INSERT);
            push_event_values(&mut insert, game, events);
            insert
                .build()
                .execute(&mut *tx)
                .traced_statement(Self::SYSTEM, "INSERT", "events")
                .await?;
        }
        if !outbox.is_empty() {
            let mut insert = QueryBuilder::<Postgres>::new(OUTBOX_INSERT);
            push_outbox_values(&mut insert, game, outbox);
            insert
                .build()
                .execute(&mut *tx)
                .traced_statement(Self::SYSTEM, "INSERT", "webhook_deliveries")
                .await?;
            if let (Some(first), Some(last)) = (outbox.first(), outbox.last()) {
                sqlx::query(HEAD_UPSERT)
                    .bind(game)
                    .bind(first.next_attempt_at)
                    .bind(last.seq)
                    .execute(&mut *tx)
                    .traced_statement(Self::SYSTEM, "INSERT", "webhook_heads")
                    .await?;
            }
        }
        if let Some(key) = key {
            let mut insert = QueryBuilder::<Postgres>::new(key_insert(key.table));
            push_key_values(&mut insert, key);
            insert
                .build()
                .execute(&mut *tx)
                .await
                .map_err(|e| key_taken(e, None))?;
        }
        Ok(())
    }
}
