//! An action's transaction on SQLite, which holds the database from its read to its commit,
//! the read of its game, the limit on tables of bots alone, and the rows an action or a
//! creation adds besides its game's.

use sqlx::{AssertSqlSafe, QueryBuilder, Sqlite, SqliteConnection};
use uuid::Uuid;

use super::SqliteStore;
use crate::store::sql::{
    BOT_TABLES_LOCK_SQL, BOT_TABLES_SQL, EVENT_INSERT, GameRead, HEAD_UPSERT, OUTBOX_INSERT, key_insert,
    key_taken, push_event_values, push_key_values, push_outbox_values, read_row,
};
use crate::store::write::{DeliveryWrite, EventWrite, KeyWrite};
use crate::store::{BotTableLimit, GameRow, KeyRef, Lock, On, Outcome, StoreError};
use crate::telemetry::traces::Statement as _;

impl SqliteStore {
    /// [`Store::transact`](crate::store::Store::transact), under any [`Lock`]: one transaction
    /// that holds the database from the read to the commit, since `BEGIN IMMEDIATE` (which takes
    /// SQLite's write lock at once, so that two writers queue instead of both reading the old
    /// state and one failing at commit); under `Due`, only a game still due. Committed events
    /// are announced to this process's streams.
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
        let due = match lock {
            Lock::Due { now } => Some(now),
            Lock::Row | Lock::Optimistic => None,
        };
        let mut tx = self
            .writer()
            .begin_with("BEGIN IMMEDIATE")
            .await
            .map_err(StoreError::from)?;
        let read = Self::read_game(&mut tx, on, due).await?;
        let Some((game, taken)) = read else {
            return Ok(None);
        };
        // A retry after the first request committed finds its key here and acts no second
        // time.
        if taken {
            return Err(StoreError::KeyTaken.into());
        }
        // On error the transaction is dropped, which rolls it back.
        let Outcome { update, value } = act(&game)?;
        let Some(update) = update else {
            tx.commit().await.map_err(StoreError::from)?;
            return Ok(Some(value));
        };
        // The write lock held since `BEGIN IMMEDIATE` keeps the count true until the commit.
        if let Some(limit) = &update.bot_tables {
            Self::count_bot_tables(&mut tx, on.id, limit).await?;
        }
        let (last, work) = self.write_update(&mut tx, &game, on.key, &update).await?;
        tx.commit()
            .traced_statement(Self::SYSTEM, "COMMIT", "")
            .await
            .map_err(StoreError::from)?;
        // Streams hear of every change, a timed-out turn's as a move's; the passes of what
        // it made due.
        if !update.events.is_empty() {
            self.announce(on.id, last, &update.events);
        }
        self.live.wake(work);
        Ok(Some(value))
    }

    /// Takes the limit's lock in `tx` (see `BOT_TABLES_LOCK_SQL`), then counts `limit.tenant`'s
    /// tables of bots alone in play or finished since `limit.finished_since`, game `id` aside:
    /// a write that would make one more than `limit.limit` is [`StoreError::BotTablesFull`].
    pub(super) async fn count_bot_tables(
        tx: &mut SqliteConnection,
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

    /// Reads game `on.id` as [`GameRead`] says (of `on.tenant` only, when given; with its
    /// deadline at or before `due`, when given; with `on.key`, whether that key is stored
    /// already). Returns the game and whether the key is taken; `None` when no such game is
    /// found.
    async fn read_game(
        conn: &mut SqliteConnection,
        on: On<'_>,
        due: Option<i64>,
    ) -> Result<Option<(GameRow, bool)>, StoreError> {
        let On { id, tenant, key } = on;
        debug_assert!(
            key.is_none_or(|k| k.game == id),
            "a move's key belongs to its game"
        );
        let read = GameRead {
            extra: "",
            games: "games",
            placed_here: "",
            keys: key.map(KeyRef::table),
            tenant: tenant.is_some(),
            due: due.is_some(),
            lock: "",
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
        let Some(row) = read.await? else {
            return Ok(None);
        };
        let (game, taken, _) = read_row(on, row)?;
        Ok(Some((game, taken)))
    }

    /// Appends game `game`'s `events`, queues its webhook deliveries `outbox` and keeps `key`,
    /// in `tx`, one statement each: the rows a creation adds, and those of an action.
    pub(super) async fn insert_rows(
        tx: &mut SqliteConnection,
        game: Uuid,
        events: &[EventWrite<'_>],
        outbox: &[DeliveryWrite<'_>],
        key: Option<&KeyWrite<'_>>,
    ) -> Result<(), StoreError> {
        if !events.is_empty() {
            let mut insert = QueryBuilder::<Sqlite>::new(EVENT_INSERT);
            push_event_values(&mut insert, game, events);
            insert
                .build()
                .execute(&mut *tx)
                .traced_statement(Self::SYSTEM, "INSERT", "events")
                .await?;
        }
        if !outbox.is_empty() {
            let mut insert = QueryBuilder::<Sqlite>::new(OUTBOX_INSERT);
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
            let mut insert = QueryBuilder::<Sqlite>::new(key_insert(key.table));
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
