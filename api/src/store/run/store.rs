//! An action's transaction when it holds its game (the one way `Lock::Row` and `Lock::Due` act,
//! and SQLite's under every lock), the read of its game, the limit on tables of bots alone and
//! the rows a creation adds; background work's statements (the games due, the webhook heads to
//! claim and give back, the sweep's batches and deletes, which a Citus cluster uses where it
//! does not read shard by shard); all run once for both stores ([`SqlStore`]), and what each
//! store does in its own way around them: how a write is admitted and rendered, how its commit
//! is announced, where background work reads on a cluster.

use sqlx::{
    AssertSqlSafe, ColumnIndex, Database, Decode, Encode, Executor, IntoArguments, QueryBuilder, Type,
};
use uuid::Uuid;

use super::Conn;
use crate::domain::GameStatus;
use crate::store::citus::Literal;
use crate::store::citus::nodes::GameShards;
use crate::store::hub::Work;
use crate::store::sql::{
    BOT_TABLES_LOCK_SQL, BOT_TABLES_SQL, Claimed, Dialect, EVENT_INSERT, GameRead, HEAD_UPSERT,
    OUTBOX_INSERT, Purge, key_insert, key_taken, push_event_values, push_key_values, push_outbox_values,
    read_row,
};
use crate::store::sql::{
    Candidate, FIRST_PENDING, HEAD_LEASE, HEAD_RECHECK, HEAD_RELEASE, RowsAffected as _, SWEEP_BATCH,
    batch_of, delivery_candidates_sql, due_game, due_sql, swept,
};
use crate::store::write::{DeliveryWrite, EventWrite, KeyWrite};
use crate::store::{
    BotTableLimit, Delivery, DueGame, GameRow, GameUpdate, KeyRef, KeyScope, Lock, NewEvent, On, Outcome,
    Settled, StoreError,
};
use crate::telemetry::traces::Statement as _;

/// Holds game `$1`'s head while it is leased until `$2`, until the transaction ends: its
/// dialect's hold follows.
const HEAD_HOLD: &str = "SELECT game_id FROM webhook_heads WHERE game_id = $1 AND due_at = $2";

/// A SQL store's [`Store`](crate::store::Store), background work's statements with it, run once
/// for both: its own ways are the methods without a body.
pub(in crate::store) trait SqlStore: Dialect
where
    for<'c> &'c mut Conn<Self>: Executor<'c, Database = Self::Db>,
    <Self::Db as Database>::Arguments: Default + IntoArguments<Self::Db>,
    for<'a> &'a str: ColumnIndex<<Self::Db as Database>::Row>,
    usize: ColumnIndex<<Self::Db as Database>::Row>,
    for<'a, 't> &'a str: Encode<'t, Self::Db> + Type<Self::Db>,
    for<'a> &'a [u8]: Encode<'a, Self::Db> + Type<Self::Db>,
    for<'a> Option<&'a str>: Encode<'a, Self::Db> + Type<Self::Db>,
    Option<String>: for<'t> Encode<'t, Self::Db> + Type<Self::Db>,
    Option<i64>: for<'t> Encode<'t, Self::Db> + Type<Self::Db>,
    i32: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    i64: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    f64: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    bool: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    String: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    Vec<u8>: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    Uuid: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    GameStatus: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
{
    /// What admits a write under the limit on tables of bots alone, held until it commits.
    type Guard: Default + Send;

    /// Admits a write of game `id` that leaves its table to bots alone, under `limit`, in
    /// its transaction `tx`: what must be released once it committed.
    async fn admit(
        &self,
        tx: &mut Conn<Self>,
        id: Uuid,
        limit: &BotTableLimit,
    ) -> Result<Self::Guard, StoreError>;

    /// Releases what [`SqlStore::admit`] held, once the write committed.
    async fn release(guard: Self::Guard);

    /// Writes an accepted action in `tx`, which holds its game since the read: the new last
    /// seq, and what it made due.
    async fn write_update(
        &self,
        tx: &mut sqlx::Transaction<'static, Self::Db>,
        game: &GameRow,
        key: Option<&KeyRef>,
        update: &GameUpdate,
    ) -> Result<(i64, Work), StoreError>;

    /// Announces in `tx` (heard only if it commits) what a new game `id` made due.
    async fn notify_created(&self, tx: &mut Conn<Self>, id: Uuid, work: Work) -> Result<(), StoreError>;

    /// Announces what game `id`'s commit wrote (its `events`, up to seq `last`) and made due,
    /// where nothing in the transaction did.
    fn committed(&self, id: Uuid, last: i64, events: &[NewEvent], work: Work);

    /// [`Store::transact`](crate::store::Store::transact) under [`Lock::Optimistic`].
    async fn transact_optimistic<T, E, F>(&self, on: On<'_>, act: F) -> Result<Option<T>, E>
    where
        E: From<StoreError>,
        F: FnMut(&GameRow) -> Result<Outcome<T>, E>;

    /// [`Store::due_games`](crate::store::Store::due_games).
    async fn due_candidates(
        &self,
        now: i64,
        after: Option<DueGame>,
        limit: i64,
    ) -> Result<Vec<DueGame>, StoreError>;

    /// The heads claimed by [`Store::claim_deliveries`](crate::store::Store::claim_deliveries),
    /// leased until `lease_until`.
    async fn claim_heads(&self, now: i64, lease_until: i64, limit: i64) -> Result<Vec<Claimed>, StoreError>;

    /// The record of [`Store::settle_delivery`](crate::store::Store::settle_delivery).
    async fn settle(
        &self,
        d: &Delivery,
        status: &str,
        next: i64,
        error: Option<&str>,
        now: i64,
    ) -> Result<Settled, StoreError>;

    /// Sweeps the expired rows of `purge`.
    async fn purge_table<V>(&self, purge: &Purge, before: i64) -> Result<u64, StoreError>
    where
        V: for<'r> Decode<'r, Self::Db> + for<'q> Encode<'q, Self::Db> + Type<Self::Db>,
        V: Clone + PartialEq + Send + Sync + Unpin + 'static,
        V: Literal + serde::de::DeserializeOwned;

    /// The pool game `id` is read from.
    async fn reader_of(&self, id: Uuid) -> &sqlx::Pool<Self::Db>;

    /// The pool key `key` is read from: its game's for a game's key.
    async fn key_reader(&self, key: &KeyRef) -> &sqlx::Pool<Self::Db> {
        match key.scope {
            KeyScope::Game => self.reader_of(key.game).await,
            KeyScope::Creation => self.pool(),
        }
    }

    /// [`Store::transact`](crate::store::Store::transact) under [`Lock::Row`] or [`Lock::Due`]
    /// (and under every lock on SQLite): one transaction that holds the game from the read to
    /// the commit (its row `FOR UPDATE` on PostgreSQL, the database since `BEGIN IMMEDIATE` on
    /// SQLite); under `Due`, only a game still due that no other transaction holds, which it
    /// skips rather than waits for (one that committed first has moved the deadline on, so the
    /// game is no longer due: each expiry counts once).
    async fn transact_held<T, E, F>(&self, on: On<'_>, lock: Lock, mut act: F) -> Result<Option<T>, E>
    where
        E: From<StoreError>,
        F: FnMut(&GameRow) -> Result<Outcome<T>, E>,
    {
        let (due, row_lock) = match lock {
            Lock::Due { now } => (Some(now), Self::SKIP_LOCKED),
            Lock::Row | Lock::Optimistic => (None, Self::FOR_UPDATE),
        };
        let pool = self.writer_of(on.id).await;
        let mut tx = Self::begin(pool).await.map_err(StoreError::from)?;
        let read = Self::read_game(&mut tx, on, due, ("", row_lock), None).await?;
        let Some((game, taken, _)) = read else {
            return Ok(None);
        };
        // A retry after the first request committed finds its key here and acts no second
        // time. On PostgreSQL, a copy that waited on the lock may not see the key yet (its
        // statement's snapshot predates the commit); the key's unique index refuses it when it
        // stores its own, which rolls its change back.
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
            None => Self::Guard::default(),
        };
        let (last, work) = self.write_update(&mut tx, &game, on.key, &update).await?;
        tx.commit()
            .traced_statement(Self::SYSTEM, "COMMIT", "")
            .await
            .map_err(StoreError::from)?;
        Self::release(guard).await;
        // Streams hear of every change, a timed-out turn's as a move's; the passes of what
        // it made due.
        self.committed(on.id, last, &update.events, work);
        Ok(Some(value))
    }

    /// Takes the limit's lock in `tx` (see `BOT_TABLES_LOCK_SQL`), then counts `limit.tenant`'s
    /// tables of bots alone in play or finished since `limit.finished_since`, game `id` aside:
    /// a write that would make one more than `limit.limit` is [`StoreError::BotTablesFull`].
    async fn count_bot_tables(
        tx: &mut Conn<Self>,
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
    /// deadline at or before `due`, when given; with `extra` columns before its own and `lock`
    /// after the query; with `on.key`, whether that key is stored already); with `shards`, from
    /// the game's own shards, on the node that holds them (not found there once they moved).
    /// Returns the game, whether the key is taken, and the row for the extra columns; `None`
    /// when no such game is found.
    async fn read_game(
        conn: &mut Conn<Self>,
        on: On<'_>,
        due: Option<i64>,
        (extra, lock): (&str, &str),
        shards: Option<&GameShards>,
    ) -> Result<Option<(GameRow, bool, <Self::Db as Database>::Row)>, StoreError> {
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
    /// in `tx`, one statement each: the rows a creation adds (and on SQLite, an action's).
    async fn insert_rows(
        tx: &mut Conn<Self>,
        game: Uuid,
        events: &[EventWrite<'_>],
        outbox: &[DeliveryWrite<'_>],
        key: Option<&KeyWrite<'_>>,
    ) -> Result<(), StoreError> {
        if !events.is_empty() {
            let mut insert = QueryBuilder::<Self::Db>::new(EVENT_INSERT);
            push_event_values(&mut insert, game, events);
            insert
                .build()
                .execute(&mut *tx)
                .traced_statement(Self::SYSTEM, "INSERT", "events")
                .await?;
        }
        if !outbox.is_empty() {
            let mut insert = QueryBuilder::<Self::Db>::new(OUTBOX_INSERT);
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
            let mut insert = QueryBuilder::<Self::Db>::new(key_insert(key.table));
            push_key_values(&mut insert, key);
            insert
                .build()
                .execute(&mut *tx)
                .await
                .map_err(|e| key_taken(e, None))?;
        }
        Ok(())
    }

    /// [`Store::due_games`](crate::store::Store::due_games), by one query of the whole table.
    async fn due_in_one(
        &self,
        now: i64,
        after: Option<DueGame>,
        limit: i64,
    ) -> Result<Vec<DueGame>, StoreError> {
        let sql = due_sql("games", "$1", after.is_some().then_some(("$3", "$4")), "$2");
        let mut query = sqlx::query(AssertSqlSafe(sql)).bind(now).bind(limit);
        if let Some(after) = after {
            query = query.bind(after.next_due).bind(after.id);
        }
        let rows = query.fetch_all(self.pool()).await?;
        rows.iter().map(due_game).collect()
    }

    /// The candidates of [`Store::claim_deliveries`](crate::store::Store::claim_deliveries), by
    /// one query of the whole table.
    async fn delivery_candidates_in_one(&self, now: i64, limit: i64) -> Result<Vec<Candidate>, StoreError> {
        let sql = delivery_candidates_sql("webhook_heads", "$1", "$2");
        let candidates = sqlx::query_as(AssertSqlSafe(sql))
            .bind(now)
            .bind(limit)
            .fetch_all(self.pool())
            .await?;
        Ok(candidates)
    }

    /// Claims the heads of `candidates` one by one, each by a conditional statement on its
    /// game's row ([`HEAD_LEASE`]), and reads each one's first pending delivery: a head another
    /// replica leased meanwhile is not taken.
    async fn claim_each(
        &self,
        candidates: Vec<Candidate>,
        now: i64,
        lease_until: i64,
    ) -> Result<Vec<Claimed>, StoreError> {
        let mut out = Vec::with_capacity(candidates.len());
        for Candidate { game_id, .. } in candidates {
            let pool = self.writer_of(game_id).await;
            let leased = sqlx::query(HEAD_LEASE)
                .bind(game_id)
                .bind(now)
                .bind(lease_until)
                .execute(pool)
                .await;
            // A game whose worker was lost since it was read waits for the next pass.
            match leased {
                Ok(done) if done.rows_affected() > 0 => {}
                Ok(_) => continue,
                Err(e) => {
                    tracing::warn!(game = %game_id, error = %e, "a webhook delivery could not be claimed; trying again next pass");
                    continue;
                }
            }
            let first = sqlx::query(FIRST_PENDING)
                .bind(game_id)
                .fetch_optional(pool)
                .await?;
            out.push(Claimed::of(game_id, lease_until, now, first.as_ref())?);
        }
        Ok(out)
    }

    /// Gives back game `game`'s head, leased until `lease_until` and found with nothing to
    /// deliver now: due `at` its first pending delivery's time ([`HEAD_RELEASE`]), or, with
    /// none read, as [`SqlStore::recheck_head`] finds it.
    async fn give_back(
        &self,
        game: Uuid,
        lease_until: i64,
        at: Option<i64>,
        now: i64,
    ) -> Result<(), StoreError> {
        let Some(at) = at else {
            return self.recheck_head(game, lease_until, now).await;
        };
        sqlx::query(HEAD_RELEASE)
            .bind(game)
            .bind(lease_until)
            .bind(at)
            .execute(self.writer_of(game).await)
            .await?;
        Ok(())
    }

    /// Game `game`'s head, leased until `lease_until` and found with nothing pending: its row
    /// locked, then read again by a statement of its own ([`HEAD_RECHECK`]), so that a write
    /// that queued deliveries meanwhile is seen (it holds the row until it commits), and one
    /// that comes after finds the head idle and makes it due.
    async fn recheck_head(&self, game: Uuid, lease_until: i64, now: i64) -> Result<(), StoreError> {
        let mut tx = Self::begin(self.writer_of(game).await).await?;
        sqlx::query(AssertSqlSafe(format!("{HEAD_HOLD}{}", Self::FOR_UPDATE)))
            .bind(game)
            .bind(lease_until)
            .fetch_optional(&mut *tx)
            .await?;
        sqlx::query(HEAD_RECHECK)
            .bind(game)
            .bind(lease_until)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Deletes the rows of `purge` whose value of the column the table is spread by is one of
    /// `values` and that expired before `before`, one statement per value (one game, or one
    /// key), skipping rows another replica or a request holds. Returns how many went.
    async fn delete_expired<V>(&self, purge: &Purge, values: Vec<V>, before: i64) -> Result<u64, StoreError>
    where
        V: for<'q> sqlx::Encode<'q, Self::Db> + sqlx::Type<Self::Db> + Send + 'static,
    {
        let delete = purge.delete(Self::SKIP_LOCKED);
        let mut deleted = 0;
        for value in values {
            let done = sqlx::query(AssertSqlSafe(delete.as_str()))
                .bind(value)
                .bind(before)
                .execute(self.writer())
                .await;
            deleted += swept(purge, done.map(|done| done.rows_affected()))?;
        }
        Ok(deleted)
    }

    /// Deletes the rows of `purge` older than `before`, in bounded batches read in the order of
    /// its `(time, route)` index without a lock; each batch's rows are then deleted by one
    /// statement per value of the column the table is spread by (one game, or one key), which
    /// skips rows another replica or a request holds. Returns how many went.
    async fn purge<V>(&self, purge: &Purge, before: i64) -> Result<u64, StoreError>
    where
        V: for<'r> sqlx::Decode<'r, Self::Db> + for<'q> sqlx::Encode<'q, Self::Db> + sqlx::Type<Self::Db>,
        V: Clone + PartialEq + Send + Sync + Unpin + 'static,
    {
        let mut deleted = 0;
        let mut after: Option<(i64, V)> = None;
        loop {
            let mut candidates =
                sqlx::query_as(AssertSqlSafe(purge.candidates(after.is_some()))).bind(before);
            if let Some((at, route)) = &after {
                candidates = candidates.bind(*at).bind(route.clone());
            }
            let rows: Vec<(i64, V)> = candidates.fetch_all(self.pool()).await?;
            let (batch, last) = batch_of(&rows);
            after = last.or(after);
            deleted += self.delete_expired(purge, batch, before).await?;
            if (rows.len() as i64) < SWEEP_BATCH {
                return Ok(deleted);
            }
        }
    }
}
