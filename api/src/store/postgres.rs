//! PostgreSQL: the store on one server (and, with `citus/`, on a Citus cluster). An action reads
//! without a lock and writes by one statement on the condition that the row is unchanged
//! (`PgStore::transact_optimistic`); every statement both dialects take comes from `sql/`, and
//! the code that runs them from `run/`: here is what PostgreSQL does its own way
//! ([`SqlStore`]'s methods without a body).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sqlx::{PgPool, QueryBuilder, Row};
use uuid::Uuid;

use super::citus::nodes::{GameShards, Nodes};
use super::citus::{Literal, cluster_write};
use super::hub::{CHANNEL, Work, note};
use super::run::SqlStore;
use super::sql::*;
use super::write::{self, DeliveryWrite, Write};
use super::{
    BotTableLimit, Delivery, DueGame, GameRow, GameUpdate, KeyRef, NewEvent, Outcome, Settled, StoreError,
};
use super::{Lock, On};
use crate::telemetry::traces::Statement as _;

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
    /// On a cluster, a small pool of the service's own node for the limit on tables of bots
    /// alone (`PgStore::admit`), taken while the write's connection is held: apart from every
    /// pool a write takes its connection from, so that no caller holds a connection while it
    /// waits for another of the same pool.
    pub(super) admission: Option<PgPool>,
}

/// Connections of [`PgStore::admission`]: admissions wait for each other on the limit's lock
/// anyway (one tenant's at a time), so a second only lets another tenant's go on meanwhile.
pub(super) const ADMISSION_CONNECTIONS: u32 = 2;

impl PgStore {
    /// The pool for game `id`'s statements: on a cluster, that of the node holding it when
    /// known; the service's own otherwise.
    pub(super) async fn pool_of(&self, id: Uuid) -> &PgPool {
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
    /// Writes what an action writes (`write`), on the condition that the game's row is still
    /// the one read when `write.read` says so. Returns the new last seq, or `None` when the row
    /// had changed and nothing was written.
    ///
    /// On one PostgreSQL this is one statement ([`write_statement`]), which commits by itself
    /// outside a transaction. A Citus cluster would run that statement's parts one by one and
    /// send what one part returns to every worker, so there it is one call of the distributed
    /// function `continental_write` ([`cluster_write`]).
    async fn write_row(
        &self,
        conn: &mut sqlx::PgConnection,
        write: &Write<'_>,
    ) -> Result<Option<i64>, StoreError> {
        if self.cluster {
            return Box::pin(cluster_write(conn, write))
                .traced_statement(Self::SYSTEM, "SELECT", "continental_write")
                .await;
        }
        let table = write.key.as_ref().map(|k| k.table);
        let written = write_statement(write)
            .build()
            .fetch_optional(&mut *conn)
            .traced_statement(Self::SYSTEM, "UPDATE", "games")
            .await
            .map_err(|e| key_taken(e, table))?;
        Ok(written.map(|_| write.last_seq()))
    }
}

/// What an action writes, as one statement of PostgreSQL: the update of the game's row (on the
/// condition of its `xmin`, when read without a lock), and in `WITH` clauses that write only if
/// the row was written, its events, its key, its seats and its webhook deliveries; the
/// statement returns the row's version and sends the `NOTIFY` of its events, once, and not at
/// all when it wrote nothing (Citus refuses a `pg_notify` in the `RETURNING` of a distributed
/// table). Data-modifying `WITH` clauses all run, whether or not the final statement reads them.
fn write_statement<'w>(write: &'w Write<'w>) -> QueryBuilder<sqlx::Postgres> {
    let Write {
        game: id,
        events,
        key,
        seats,
        outbox,
        ..
    } = write;
    let mut sql = game_update(write);
    if !events.is_empty() {
        sql.push(", logged AS (")
            .push(EVENT_INSERT)
            .push("SELECT * FROM (");
        push_event_values(&mut sql, *id, events);
        sql.push(WRITTEN);
    }
    if let Some(key) = key {
        sql.push(", kept AS (")
            .push(key_insert(key.table))
            .push("SELECT * FROM (");
        push_key_values(&mut sql, key);
        sql.push(WRITTEN);
    }
    if !seats.is_empty() {
        push_seats(&mut sql, *id, seats);
    }
    if !outbox.is_empty() {
        push_outbox(&mut sql, *id, outbox);
    }
    if let Some(due) = write.rate {
        // The tenant from the row as it was before this statement: it never changes.
        sql.push(", due AS (INSERT INTO ratings_due (game_id, tenant, due_at) SELECT id, tenant, ")
            .push_bind(due)
            .push(" FROM games WHERE id = ")
            .push_bind(*id)
            .push(" AND EXISTS (SELECT 1 FROM game) ON CONFLICT (game_id) DO NOTHING)");
    }
    sql.push(" SELECT version");
    if let Some(note) = write.note() {
        sql.push(", pg_notify('")
            .push(CHANNEL)
            .push("', ")
            .push_bind(note)
            .push(")");
    }
    sql.push(" FROM game");
    sql
}

/// The end of a `WITH` clause of [`write_statement`] that writes only if the game's row was
/// written.
const WRITTEN: &str = ") AS v WHERE EXISTS (SELECT 1 FROM game))";

/// The first clause of [`write_statement`]: the update of the game's row (on the condition of
/// its `xmin`, when read without a lock), returning its version.
fn game_update(write: &Write<'_>) -> QueryBuilder<sqlx::Postgres> {
    let row = &write.row;
    let mut sql = QueryBuilder::<sqlx::Postgres>::new("WITH game AS (UPDATE games SET status = ");
    sql.push_bind(row.status)
        .push(", state = ")
        .push_bind(row.state)
        .push(", version = ")
        .push_bind(row.version)
        .push(", updated_at = ")
        .push_bind(row.updated_at)
        .push(", deadline = ")
        .push_bind(row.next_due)
        .push(", last_seq = ")
        .push_bind(row.last_seq)
        .push(" WHERE id = ")
        .push_bind(write.game);
    if let Some(read) = write.read {
        sql.push(" AND xmin::text = ").push_bind(read);
    }
    sql.push(" RETURNING version)");
    sql
}

/// The clause of [`write_statement`] that writes the rows of the `seats` that changed.
fn push_seats(sql: &mut QueryBuilder<sqlx::Postgres>, id: Uuid, seats: &[write::SeatWrite<'_>]) {
    sql.push(", seated AS (UPDATE seats SET name = c.name, kind = c.kind, player = c.player FROM (");
    sql.push_values(seats, |mut row, s| {
        row.push_bind(s.seat)
            .push_bind(s.name)
            .push_bind(s.kind)
            .push_bind(s.player);
    });
    sql.push(") AS c (seat, name, kind, player) WHERE seats.game_id = ")
        .push_bind(id)
        .push(" AND seats.seat = c.seat AND EXISTS (SELECT 1 FROM game))");
}

/// The clauses of [`write_statement`] that queue the webhook deliveries `outbox` and move the
/// game's head (`webhook_heads`) as `HEAD_UPSERT` writes it.
fn push_outbox(sql: &mut QueryBuilder<sqlx::Postgres>, id: Uuid, outbox: &[DeliveryWrite<'_>]) {
    sql.push(", queued AS (")
        .push(OUTBOX_INSERT)
        .push("SELECT * FROM (");
    push_outbox_values(sql, id, outbox);
    sql.push(WRITTEN);
    if let (Some(first), Some(last)) = (outbox.first(), outbox.last()) {
        // The game's head, as `HEAD_UPSERT` writes it.
        sql.push(", headed AS (INSERT INTO webhook_heads (game_id, due_at, last_seq) SELECT ")
            .push_bind(id)
            .push(", ")
            .push_bind(first.next_attempt_at)
            .push(", ")
            .push_bind(last.seq)
            .push(
                " WHERE EXISTS (SELECT 1 FROM game) ON CONFLICT (game_id) DO UPDATE SET \
                 last_seq = EXCLUDED.last_seq, due_at = COALESCE(webhook_heads.due_at, EXCLUDED.due_at))",
            );
    }
}

/// The claim of up to `$3` due games' heads, leased until `$2` if due at `$1`, skipping those
/// another replica holds, and of each its first pending delivery and where it goes: one
/// statement, a range scan of `webhook_heads_due`, then per game one probe of each primary key
/// and of `webhook_deliveries`'s pending index (lateral, so that no plan scans a table). A delivery written after the statement began is not read here (the
/// game comes back `Claimed::Empty` and is read again).
const CLAIM_HEADS: &str = "WITH due AS (SELECT game_id FROM webhook_heads \
    WHERE due_at IS NOT NULL AND due_at <= $1 ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED), \
    leased AS (UPDATE webhook_heads h SET due_at = $2 WHERE h.game_id = ANY (ARRAY(SELECT game_id FROM due)) \
        RETURNING h.game_id) \
    SELECT l.game_id, d.id, d.seq, d.version, d.event, d.attempts, d.created_at, d.next_attempt_at, \
    g.webhook_url, g.webhook_secret FROM leased l \
    LEFT JOIN LATERAL (SELECT e.id, e.seq, e.version, e.event, e.attempts, e.created_at, e.next_attempt_at \
        FROM webhook_deliveries e WHERE e.game_id = l.game_id AND e.status = 'pending' ORDER BY e.seq LIMIT 1) d ON true \
    LEFT JOIN LATERAL (SELECT webhook_url, webhook_secret FROM games WHERE id = l.game_id) g ON true";

impl SqlStore for PgStore {
    /// On a cluster, the transaction on the service's node that holds the limit's lock.
    type Guard = Option<sqlx::Transaction<'static, sqlx::Postgres>>;

    /// Admits a write of game `id` that leaves its table to bots alone, under `limit`: the
    /// limit's lock, then the count, in the write's own transaction `tx`, so that the lock is
    /// held until the write commits and the next writer counts it. On a cluster the write's
    /// transaction stays on its one game's shards: the lock (a row of a reference table, the
    /// same on every node) and the count (a distributed query, as a listing's) are taken in a
    /// transaction of their own on the service's node, returned to be ended once the write
    /// has committed. Its connection comes from [`PgStore::admission`], never from the pool
    /// `tx` came from: a caller holding the last connection of a pool and waiting for another
    /// of it would wait for itself.
    async fn admit(
        &self,
        tx: &mut sqlx::PgConnection,
        id: Uuid,
        limit: &BotTableLimit,
    ) -> Result<Self::Guard, StoreError> {
        if let Some(admission) = &self.admission {
            let mut guard = admission.begin().await?;
            Self::count_bot_tables(&mut guard, id, limit).await?;
            return Ok(Some(guard));
        }
        Self::count_bot_tables(tx, id, limit).await?;
        Ok(None)
    }

    /// Ends the transaction that held the limit's lock apart from the write, on a cluster (see
    /// `PgStore::admit`), once the write it admitted has committed.
    async fn release(guard: Self::Guard) {
        if let Some(guard) = guard
            && let Err(e) = guard.commit().await
        {
            // The lock ends with the connection anyway; the write stands.
            tracing::debug!(error = %e, "the lock on tables of bots alone ended with its connection");
        }
    }

    /// Its [`PgStore::write_row`] with no condition, which announces its events by `NOTIFY`.
    async fn write_update(
        &self,
        tx: &mut sqlx::Transaction<'static, sqlx::Postgres>,
        game: &GameRow,
        key: Option<&KeyRef>,
        update: &GameUpdate,
    ) -> Result<(i64, Work), StoreError> {
        let write = Write::of(game, None, key, update);
        let last = self.write_row(tx, &write).await?;
        Ok((last.ok_or(StoreError::GameNotFound(game.id))?, write.work()))
    }

    /// Heard on commit by every replica's passes, this one's too.
    async fn notify_created(
        &self,
        tx: &mut sqlx::PgConnection,
        id: Uuid,
        work: Work,
    ) -> Result<(), StoreError> {
        if !work.is_none() {
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(CHANNEL)
                .bind(note(id, 0, &[], work))
                .execute(&mut *tx)
                .await?;
        }
        Ok(())
    }

    /// Nothing more: `NOTIFY` in the transaction announced it on commit.
    fn committed(&self, _id: Uuid, _last: i64, _events: &[NewEvent], _work: Work) {}

    /// [`Store::transact`](super::Store::transact) under [`Lock::Optimistic`]: the game is read
    /// without a lock, `act` decides, and one statement that commits by itself writes the change if
    /// the row is still the one read (its `xmin`, which every write of the row changes). Two
    /// statements where a transaction holding the row takes four (docs/performance.md#design). When
    /// another replica wrote in between, `act` runs once more on the new state under [`Lock::Row`],
    /// in a transaction that holds the row and so cannot lose again; so does a change that leaves a
    /// table to bots alone.
    async fn transact_optimistic<T, E, F>(&self, on: On<'_>, mut act: F) -> Result<Option<T>, E>
    where
        E: From<StoreError>,
        F: FnMut(&GameRow) -> Result<Outcome<T>, E>,
    {
        let id = on.id;
        let (pool, shards) = self.placed(id).await;
        let mut conn = pool.acquire().await.map_err(StoreError::from)?;
        let columns = ("xmin::text AS xmin, ", "");
        // On a cluster, from the game's own shards: a plain statement where Citus would plan
        // and run one of its own (docs/performance.md#scaling-out); through Citus once they
        // are not on that node.
        let on_shards = match &shards {
            Some(shards) => match Self::read_game(&mut conn, on, None, columns, Some(shards)).await {
                Ok(None) => None,
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
        let read = match on_shards {
            Some(read) => read,
            None => {
                let read = Self::read_game(&mut conn, on, None, columns, None).await?;
                // Found through Citus where its shard was not: the shard moved. Its next
                // actions go to its new node (a game that does not exist reads no placements).
                if let (Some(nodes), Some(seen)) = (&self.nodes, &shards) {
                    nodes.moved(id, seen, &mut conn).await;
                }
                read
            }
        };
        let Some((game, taken, row)) = read else {
            return Ok(None);
        };
        // A retry after the first request committed finds its key here; a copy racing it
        // is refused by the key's unique index when it writes.
        if taken {
            return Err(StoreError::KeyTaken.into());
        }
        let read: String = row.try_get("xmin").map_err(StoreError::from)?;
        let Outcome { update, value } = act(&game)?;
        let Some(update) = update else {
            return Ok(Some(value));
        };
        if update.bot_tables.is_some() {
            // A change that leaves the table to bots alone is admitted under the limit's lock,
            // which only a transaction can hold until its write commits: decided again there.
            drop(conn);
            return Box::pin(self.transact_held(on, Lock::Row, act)).await;
        }
        // One statement that commits by itself, outside a transaction block (on a cluster, so
        // that Citus hands the call to the game's worker whole).
        let written = self
            .write_row(&mut conn, &Write::of(&game, Some(&read), on.key, &update))
            .await?;
        if written.is_some() {
            return Ok(Some(value));
        }
        drop(conn);
        tracing::debug!(game = %id, "the game changed since it was read: deciding again, holding its row");
        // Boxed: the rare path's future would otherwise make every move's future larger.
        Box::pin(self.transact_held(on, Lock::Row, act)).await
    }

    async fn due_candidates(
        &self,
        now: i64,
        after: Option<DueGame>,
        limit: i64,
    ) -> Result<Vec<DueGame>, StoreError> {
        self.due_by_shard(now, after, limit).await
    }

    /// The claim of [`Store::claim_deliveries`](super::Store::claim_deliveries): on one server,
    /// [`CLAIM_HEADS`]; on a cluster, the due heads read shard by shard, then each leased on its
    /// game's worker.
    async fn claim_heads(&self, now: i64, lease_until: i64, limit: i64) -> Result<Vec<Claimed>, StoreError> {
        if self.cluster {
            let candidates = self.delivery_candidates(now, limit).await?;
            return self.claim_each(candidates, now, lease_until).await;
        }
        let rows = sqlx::query(CLAIM_HEADS)
            .bind(now)
            .bind(lease_until)
            .bind(limit)
            .fetch_all(&self.pool)
            .traced_statement(Self::SYSTEM, "UPDATE", "webhook_heads")
            .await?;
        rows.iter()
            .map(|r| Claimed::of(r.try_get("game_id")?, lease_until, now, Some(r)))
            .collect()
    }

    /// The record of [`Store::settle_delivery`](super::Store::settle_delivery): [`PG_SETTLE`],
    /// one statement on the game's worker.
    async fn settle(
        &self,
        d: &Delivery,
        status: &str,
        next: i64,
        error: Option<&str>,
        now: i64,
    ) -> Result<Settled, StoreError> {
        let recorded = sqlx::query(PG_SETTLE)
            .bind(d.game_id)
            .bind(&d.id)
            .bind(status)
            .bind(next)
            .bind(error)
            .bind(d.lease)
            .bind(now)
            .fetch_optional(self.pool_of(d.game_id).await)
            .traced_statement(Self::SYSTEM, "UPDATE", "webhook_deliveries")
            .await?;
        Ok(match recorded {
            Some(_) => Settled::Recorded,
            None => Settled::Late,
        })
    }

    async fn purge_table<V>(&self, purge: &Purge, before: i64) -> Result<u64, StoreError>
    where
        V: for<'r> sqlx::Decode<'r, sqlx::Postgres>
            + for<'q> sqlx::Encode<'q, sqlx::Postgres>
            + sqlx::Type<sqlx::Postgres>,
        V: Clone + PartialEq + Send + Sync + Unpin + 'static,
        V: Literal + serde::de::DeserializeOwned,
    {
        self.purge_by_shard::<V>(purge, before).await
    }

    async fn reader_of(&self, id: Uuid) -> &PgPool {
        self.pool_of(id).await
    }
}
