//! PostgreSQL: the store on one server (and, with `citus/`, on a Citus cluster). An action reads
//! without a lock and writes by one statement on the condition that the row is unchanged
//! (`PgStore::transact_move`); every statement both dialects take comes from `sql.rs`.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sqlx::{AssertSqlSafe, PgPool, QueryBuilder, Row};
use tracing::Instrument;
use uuid::Uuid;

use super::GameListing;
use super::citus::cluster_write;
use super::citus::nodes::{GameShards, Nodes};
use super::hub;
use super::sql::*;
use super::{
    Attempt, BotTableLimit, Delivery, DueGame, EventRow, GameRow, GameUpdate, KeyClaim, KeyRef, KeyScope,
    ListedRow, NewEvent, NewGame, Origin, Outcome, RecordedEvent, Store, StoreError, StoredResponse, Swept,
    WebhookCounts,
};
use crate::telemetry::traces::{self, POSTGRESQL};

/// PostgreSQL storage: events are announced by `NOTIFY` in the action's transaction.
#[derive(Clone, Debug)]
pub struct PgStore {
    pub(super) pool: PgPool,
    /// The longest one call may take (see `Database`).
    pub(super) bound: Duration,
    /// The database is a Citus cluster's: an action writes by one call that runs on its game's
    /// worker (see `PgStore::write_row`), and background work reads shard by shard (see
    /// `PgStore::on_each_shard`).
    pub(super) cluster: bool,
    /// The cluster's nodes that background work found unreachable and has not reached since:
    /// each outage is logged once, and once more when it ends.
    pub(super) away: Arc<Mutex<BTreeSet<String>>>,
    /// On a cluster, the nodes that hold games: a game's reads and actions go to its own node.
    pub(super) nodes: Option<Arc<Nodes>>,
}

impl PgStore {
    /// Its `db.system.name` in traces.
    const SYSTEM: &str = POSTGRESQL;

    /// Nothing to do: `NOTIFY` in the transaction announced the events on commit.
    fn announce(&self, _game: Uuid, _last: i64, _events: &[NewEvent]) {}

    /// Admits a write of game `id` that leaves its table to bots alone, under `limit`: the
    /// limit's lock, then the count, in the write's own transaction `tx`, so that the lock is
    /// held until the write commits and the next writer counts it. On a cluster the write's
    /// transaction stays on its one game's shards: the lock (a row of a reference table, the
    /// same on every node) and the count (a distributed query, as a listing's) are taken in a
    /// transaction of their own on the service's node, returned to be ended once the write
    /// has committed.
    async fn admit(
        &self,
        tx: &mut sqlx::PgConnection,
        id: Uuid,
        limit: &BotTableLimit,
    ) -> Result<Option<sqlx::Transaction<'static, sqlx::Postgres>>, StoreError> {
        if self.cluster {
            let mut guard = self.pool.begin().await?;
            Self::count_bot_tables(&mut guard, id, limit).await?;
            return Ok(Some(guard));
        }
        Self::count_bot_tables(tx, id, limit).await?;
        Ok(None)
    }

    /// The pool for game `id`'s statements: on a cluster, that of the node holding it when
    /// known; the service's own otherwise.
    async fn pool_of(&self, id: Uuid) -> &PgPool {
        self.placed(id).await.0
    }

    /// [`PgStore::pool_of`], and on a cluster the game's shards on that node, when known.
    async fn placed(&self, id: Uuid) -> (&PgPool, Option<Arc<GameShards>>) {
        let placed = self.nodes.as_ref().and_then(|nodes| nodes.place(id));
        match placed {
            Some(placed) => (placed.pool.unwrap_or(&self.pool), Some(placed.shards)),
            None => (&self.pool, None),
        }
    }
}

impl PgStore {
    /// An action, optimistic first: the game is read without a lock, `act` decides, and one
    /// statement that commits by itself writes the change if the row is still the one read
    /// (its `xmin`, which every write of the row changes). Two statements where a transaction
    /// holding the row takes four (docs/performance.md#design). When another replica wrote in
    /// between, `act` runs once more on the new state, in a transaction that holds the row and
    /// so cannot lose again.
    async fn transact_move<T, E, F>(&self, id: Uuid, key: Option<&KeyRef>, mut act: F) -> Result<T, E>
    where
        E: From<StoreError>,
        F: FnMut(&GameRow) -> Result<Outcome<T>, E>,
    {
        let (pool, shards) = self.placed(id).await;
        let mut conn = pool.acquire().await.map_err(StoreError::from)?;
        let columns = ("xmin::text AS xmin, ", "");
        // On a cluster, from the game's own shards: a plain statement where Citus would plan
        // and run one of its own (docs/performance.md#scaling-out); through Citus once they
        // are not on that node.
        let on_shards = match &shards {
            Some(shards) => match Self::read_game(&mut conn, id, None, key, columns, Some(shards)).await {
                Err(StoreError::GameNotFound(_)) => None,
                // The shard moved away and its copy here was dropped.
                Err(StoreError::Database(sqlx::Error::Database(e)))
                    if e.code().as_deref() == Some("42P01") =>
                {
                    None
                }
                read => Some(read?),
            },
            None => None,
        };
        let (game, taken, row) = match on_shards {
            Some(read) => read,
            None => {
                let read = Self::read_game(&mut conn, id, None, key, columns, None).await?;
                // Found through Citus where its shard was not: the shard moved. Its next
                // actions go to its new node (a game that does not exist reads no placements).
                if let (Some(nodes), Some(seen)) = (&self.nodes, &shards) {
                    nodes.moved(id, seen, &mut conn).await;
                }
                read
            }
        };
        // A retry after the first request committed finds its key here; a copy racing it
        // is refused by the key's unique index when it writes.
        if taken {
            return Err(StoreError::KeyTaken.into());
        }
        let read: String = row.try_get("xmin").map_err(StoreError::from)?;
        let Outcome { update, value } = act(&game)?;
        let Some(update) = update else {
            return Ok(value);
        };
        if update.bot_tables.is_some() {
            // A change that leaves the table to bots alone is admitted under the limit's lock,
            // which only a transaction can hold until its write commits: decided again there.
            drop(conn);
            return Box::pin(self.transact_locked(None, id, key, act)).await;
        }
        let written = if !self.cluster && writes_beyond_the_row(&update) {
            // Seats and webhook deliveries are further statements: one transaction for all. (On
            // a cluster, one call writes them all, outside a transaction block so that Citus
            // hands it to the game's worker.)
            let mut tx = sqlx::Connection::begin(&mut *conn)
                .await
                .map_err(StoreError::from)?;
            let written = self
                .write_change(&mut tx, &game, Some(&read), key, &update)
                .await?;
            if written.is_some() {
                tx.commit()
                    .instrument(traces::statement(Self::SYSTEM, "COMMIT", ""))
                    .await
                    .map_err(StoreError::from)?;
            }
            written
        } else {
            self.write_row(&mut conn, &game, Some(&read), key, &update)
                .await?
        };
        if written.is_some() {
            return Ok(value);
        }
        drop(conn);
        tracing::debug!(game = %id, "the game changed since it was read: deciding again, holding its row");
        // Boxed: the rare path's future would otherwise make every move's future larger.
        Box::pin(self.transact_locked(None, id, key, act)).await
    }

    /// Writes an accepted action in a transaction that holds the game's row
    /// ([`PgStore::write_change`]). Returns the new last seq.
    async fn write_update(
        &self,
        tx: &mut sqlx::Transaction<'static, sqlx::Postgres>,
        game: &GameRow,
        key: Option<&KeyRef>,
        update: &GameUpdate,
    ) -> Result<i64, StoreError> {
        self.write_change(tx, game, None, key, update)
            .await?
            .ok_or(StoreError::GameNotFound(game.id))
    }

    /// Writes an accepted action inside a transaction: the row, events and key
    /// ([`PgStore::write_row`], on the same condition), then changed seats and webhook
    /// deliveries if the row was written. Returns the new last seq, or `None` when nothing was
    /// written.
    async fn write_change(
        &self,
        tx: &mut sqlx::PgConnection,
        game: &GameRow,
        read: Option<&str>,
        key: Option<&KeyRef>,
        update: &GameUpdate,
    ) -> Result<Option<i64>, StoreError> {
        let written = self.write_row(tx, game, read, key, update).await?;
        if written.is_some() && !self.cluster {
            Self::write_seats_and_outbox(tx, game, update).await?;
        }
        Ok(written)
    }

    /// Writes the game's state, version and last seq (sending the `NOTIFY` of its events), the
    /// events, and the response kept for the request's idempotency key; with `read`, only if
    /// the row's `xmin` is still that. Returns the new last seq, or `None` when the row had
    /// changed and nothing was written.
    ///
    /// On one PostgreSQL this is one statement, which commits by itself. A Citus cluster would
    /// run that statement's parts one by one and send what one part returns to every worker, so
    /// there it is one call of the distributed function `continental_write` (see
    /// [`cluster_write`]), which writes the seats and the outbox too.
    async fn write_row(
        &self,
        conn: &mut sqlx::PgConnection,
        game: &GameRow,
        read: Option<&str>,
        key: Option<&KeyRef>,
        update: &GameUpdate,
    ) -> Result<Option<i64>, StoreError> {
        let id = game.id;
        let at = now();
        // Unchanged since it was read (or locked): these numbers follow on.
        let last = game.last_seq + update.events.len() as i64;
        if self.cluster {
            return Box::pin(cluster_write(conn, game, read, key, update, at, last))
                .instrument(traces::statement(Self::SYSTEM, "SELECT", "continental_write"))
                .await;
        }
        // Data-modifying WITH clauses all run, whether or not the final statement reads them;
        // the others insert only if the game's row was updated.
        let mut write = QueryBuilder::<sqlx::Postgres>::new("WITH game AS (");
        push_game_update(&mut write, id, read, update, at, last);
        write.push(")");
        if !update.events.is_empty() {
            write
                .push(", logged AS (")
                .push(EVENT_INSERT)
                .push("SELECT * FROM (");
            push_event_values(&mut write, id, game.last_seq + 1, &update.events, at);
            write.push(") AS e WHERE EXISTS (SELECT 1 FROM game))");
        }
        if let (Some(key), Some(response)) = (key, &update.response) {
            write.push(", kept AS (");
            push_response(&mut write, key, response);
            write.push(" WHERE EXISTS (SELECT 1 FROM game))");
        }
        // The announcement is made once for the row written, and not at all when it was not
        // (Citus refuses a `pg_notify` in the `RETURNING` of a distributed table).
        write.push(" SELECT version");
        if !update.events.is_empty() {
            write
                .push(", pg_notify('continental_events', ")
                .push_bind(hub::note(id, last, &update.events))
                .push(")");
        }
        write.push(" FROM game");
        // A copy of this request that stored the key first: the key's unique index.
        let key_taken = |e: sqlx::Error| match &e {
            sqlx::Error::Database(db)
                if db.is_unique_violation() && key.is_some_and(|k| db.table() == Some(k.table())) =>
            {
                StoreError::KeyTaken
            }
            _ => StoreError::from(e),
        };
        let written = write
            .build()
            .fetch_optional(&mut *conn)
            .instrument(traces::statement(Self::SYSTEM, "UPDATE", "games"))
            .await
            .map_err(key_taken)?;
        Ok(written.map(|_| last))
    }
}

/// Pushes the update of game `id`'s row by `update` (only if its `xmin` is still `read`, when
/// given), returning its version, onto `sql`.
fn push_game_update(
    sql: &mut QueryBuilder<sqlx::Postgres>,
    id: Uuid,
    read: Option<&str>,
    update: &GameUpdate,
    at: i64,
    last: i64,
) {
    sql.push("UPDATE games SET status = ")
        .push_bind(update.status)
        .push(", state = ")
        .push_bind(&update.state)
        .push(", version = ")
        .push_bind(update.version)
        .push(", updated_at = ")
        .push_bind(at)
        .push(", deadline = ")
        .push_bind(update.deadline)
        .push(", last_seq = ")
        .push_bind(last)
        .push(" WHERE id = ")
        .push_bind(id);
    if let Some(read) = read {
        sql.push(" AND xmin::text = ").push_bind(read);
    }
    sql.push(" RETURNING version");
}

/// Whether writing `update` takes more than the game row, its events and its key: changed seats
/// or webhook deliveries (see `write_seats_and_outbox`).
fn writes_beyond_the_row(update: &GameUpdate) -> bool {
    !update.seats.is_empty() || update.events.iter().any(|e| e.public.is_some())
}

/// Pushes the `INSERT` that keeps `key` with the response to replay onto `sql`, as a `SELECT`
/// that the caller may follow with a condition (PostgreSQL's one-statement write;
/// [`store_response`] is the same on its own).
fn push_response(sql: &mut QueryBuilder<sqlx::Postgres>, key: &KeyRef, response: &StoredResponse) {
    sql.push(format_args!("INSERT INTO {} {KEY_COLUMNS} SELECT ", key.table()));
    sql.push_bind(key.game)
        .push(", ")
        .push_bind(key.seat)
        .push(", ")
        .push_bind(key.key.as_str())
        .push(", ")
        .push_bind(key.request_hash.as_str())
        .push(", 'done', ")
        .push_bind(i64::from(response.status))
        .push(", ")
        .push_bind(response.etag.as_deref())
        .push(", ")
        .push_bind(response.body.as_slice())
        .push(", ")
        .push_bind(now());
}

sql_store!(PgStore, sqlx::Postgres, "BEGIN", " FOR UPDATE", PG_SKIP_LOCKED);
