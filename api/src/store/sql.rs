//! The SQL of both stores: one text, with what differs between PostgreSQL and SQLite passed in.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use sqlx::{AssertSqlSafe, PgPool, QueryBuilder, Row, SqlitePool};
use uuid::Uuid;

use super::GameListing;
use super::hub::{self, Live, Signal};
use super::nodes::{GameShards, Nodes};
use super::{
    Attempt, BotTableLimit, Delivery, DueGame, EventRow, GameRow, GameUpdate, KeyClaim, KeyRef, KeyScope,
    ListedRow, NewEvent, NewGame, Origin, Outcome, RecordedEvent, Store, StoreError, StoredResponse, Swept,
    WebhookCounts,
};
use crate::domain::GameStatus;
use crate::telemetry::traces::{POSTGRESQL, SQLITE, Statement as _};

/// Tables of tenant `$1` in play with bots alone, game `$2` aside: no seat is a person's or
/// open (the seats table's `kind` says who plays each seat now, autopilot and leavers
/// included). The open server's limit counts them (docs/operations.md#bots).
const BOT_TABLES_SQL: &str = "SELECT COUNT(*) AS n FROM games g WHERE g.tenant = $1 AND g.status = 'playing' \
    AND g.id <> $2 AND NOT EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id AND s.kind IN ('player', 'open'))";

/// The lock that every write making a table of bots alone takes before it counts them: the
/// tenant's row `bot_tables:<tenant>` of `settings`, written (made if missing) so that it is
/// held until the transaction ends. A row lock is the cluster's on Citus too, where `settings`
/// is a reference table, whichever node takes it. On SQLite, `BEGIN IMMEDIATE` holds the whole
/// database already.
const BOT_TABLES_LOCK_SQL: &str = "INSERT INTO settings (name, value) VALUES ($1, '') \
    ON CONFLICT (name) DO UPDATE SET value = excluded.value";

/// Rows a sweep reads per batch before it deletes them.
const SWEEP_BATCH: i64 = 500;

/// A table the sweep purges, and how: see `purge`.
struct Purge {
    table: &'static str,
    /// The column the table is spread by across a cluster's shards: each delete names one value
    /// of it, so that it runs on one shard.
    route: &'static str,
    /// The time a row expires by (seconds since the epoch), indexed with `route` after it.
    time: &'static str,
    /// What else a row must be to go.
    only: &'static str,
    /// The row's primary key.
    key: &'static str,
}

/// Idempotency keys of moves and joins, by game.
const IDEMPOTENCY_KEYS: Purge = Purge {
    table: "idempotency_keys",
    route: "game_id",
    time: "created_at",
    only: "",
    key: "game_id, seat, key",
};

/// Idempotency keys of creations, by key: they belong to no game yet.
const CREATION_KEYS: Purge = Purge {
    table: "creation_keys",
    route: "key",
    time: "created_at",
    only: "",
    key: "game_id, seat, key",
};

/// Finished and void games (with their seats, events, keys and deliveries, by cascade).
const GAMES_OVER: Purge = Purge {
    table: "games",
    route: "id",
    time: "updated_at",
    only: " AND status IN ('finished', 'void')",
    key: "id",
};

impl Purge {
    /// A batch of candidates, read without a lock: at most [`SWEEP_BATCH`] rows that expired
    /// before `$1`, in the order of the index on `(time, route)`, after the cursor `($2, $3)`
    /// when `after`. The batch's size is written in, so that any plan knows how few rows it
    /// reads.
    fn candidates(&self, after: bool) -> String {
        self.candidates_in(self.table, "$1", after.then_some(("$2", "$3")))
    }

    /// [`Purge::candidates`] from `table` (the table itself, or one of its shards), with the
    /// time bound and the cursor as given (parameters, or literals).
    fn candidates_in(&self, table: &str, before: &str, after: Option<(&str, &str)>) -> String {
        let Purge {
            route, time, only, ..
        } = self;
        let cursor = after
            .map(|(at, value)| format!(" AND ({time}, {route}) > ({at}, {value})"))
            .unwrap_or_default();
        format!(
            "SELECT {time} AS at, {route} AS route FROM {table} WHERE {time} < {before}{only}{cursor} \
             ORDER BY {time}, {route} LIMIT {SWEEP_BATCH}"
        )
    }

    /// The delete of the rows of one value `$1` of `route` that expired before `$2`, skipping
    /// rows another transaction holds when `skip_locked` says how.
    fn delete(&self, skip_locked: &str) -> String {
        let Purge {
            table,
            route,
            time,
            only,
            key,
        } = self;
        format!(
            "DELETE FROM {table} WHERE {route} = $1 AND ({key}) IN \
             (SELECT {key} FROM {table} WHERE {route} = $1 AND {time} < $2{only}{skip_locked})"
        )
    }
}

/// One statement of the sweep, and what an index must serve it by.
#[derive(Clone, Debug)]
pub struct SweepStatement {
    /// The SQL text, with the parameters of [`Purge::candidates`] or [`Purge::delete`].
    pub sql: String,
    /// The column an index must find its rows by: the time for candidates, the column the
    /// table is spread by for a delete.
    pub by: &'static str,
}

/// Every statement the sweep runs on PostgreSQL (`postgres`) or SQLite, for tests of their
/// plans: of each table, the first batch of candidates, a later one, and the delete.
pub fn sweep_sql(postgres: bool) -> Vec<SweepStatement> {
    let skip_locked = if postgres {
        PG_SKIP_LOCKED
    } else {
        SQLITE_SKIP_LOCKED
    };
    [IDEMPOTENCY_KEYS, CREATION_KEYS, GAMES_OVER]
        .iter()
        .flat_map(|p| {
            [
                SweepStatement {
                    sql: p.candidates(false),
                    by: p.time,
                },
                SweepStatement {
                    sql: p.candidates(true),
                    by: p.time,
                },
                SweepStatement {
                    sql: p.delete(skip_locked),
                    by: p.route,
                },
            ]
        })
        .collect()
}

/// Up to `limit` games (`id`, `deadline`) of `games` (the table, or one of its shards) whose
/// deadline is at or before `now`, earliest first.
fn due_sql(games: &str, now: &str, after: Option<(&str, &str)>, limit: &str) -> String {
    // A pass reads the due games page after page, so that games it cannot take (held by
    // another replica, or not its to play) never hide the ones behind them.
    let cursor = after
        .map(|(deadline, id)| {
            format!(" AND (deadline > {deadline} OR (deadline = {deadline} AND id > {id}))")
        })
        .unwrap_or_default();
    format!(
        "SELECT id, deadline FROM {games} WHERE deadline IS NOT NULL AND deadline <= {now}{cursor} \
         ORDER BY deadline, id LIMIT {limit}"
    )
}

/// Up to `limit` deliveries due at `now` and not leased, of each game only its first one not
/// yet delivered or given up (so that a later one waits for it), with where they go: from
/// `deliveries` and `games`, the tables or two co-located shards of them.
fn delivery_candidates_sql(deliveries: &str, games: &str, now: &str, limit: &str) -> String {
    format!(
        "SELECT d.game_id, d.id, g.webhook_url, g.webhook_secret, d.next_attempt_at \
         FROM {deliveries} d JOIN {games} g ON g.id = d.game_id \
         WHERE d.status = 'pending' AND d.next_attempt_at <= {now} AND d.lease_until <= {now} \
         AND NOT EXISTS (SELECT 1 FROM {deliveries} e \
            WHERE e.game_id = d.game_id AND e.status = 'pending' AND e.seq < d.seq) \
         ORDER BY d.next_attempt_at LIMIT {limit}"
    )
}

/// A delivery that may be claimed, and where it goes.
#[derive(serde::Deserialize)]
struct Candidate {
    game_id: Uuid,
    id: String,
    webhook_url: Option<String>,
    webhook_secret: Option<String>,
    next_attempt_at: i64,
}

/// An expired row, as a shard answers it: its time and its value of the column the table is
/// spread by.
#[derive(serde::Deserialize)]
struct Expired<V> {
    at: i64,
    route: V,
}

/// A value written into a command run on a shard (which takes no parameters).
trait Literal {
    /// The value as an SQL literal.
    fn literal(&self) -> String;
}

impl Literal for Uuid {
    fn literal(&self) -> String {
        format!("'{self}'")
    }
}

impl Literal for String {
    fn literal(&self) -> String {
        // An escape string, so that no server setting changes how it reads.
        format!("E'{}'", self.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

/// How a PostgreSQL claim skips rows that another transaction holds.
const PG_SKIP_LOCKED: &str = " FOR UPDATE SKIP LOCKED";
/// SQLite has one writer at a time: no row is held by another transaction to skip.
const SQLITE_SKIP_LOCKED: &str = "";

/// Seconds since the epoch: the clock of every stored time.
pub fn now() -> i64 {
    now_us() / 1_000_000
}

/// The wall clock in unix milliseconds: deadlines and deliveries are timed by it.
pub fn now_ms() -> i64 {
    now_us() / 1000
}

/// Microseconds since the epoch: a game's place in its tenant's listing.
fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
        .unwrap_or_default()
}

/// Declares the columns of a game row once, each named as its [`GameRow`] field: the column
/// list every statement that reads a game selects, and [`game_row`], which reads them.
macro_rules! game_columns {
    ($first:ident $(, $column:ident)* $(,)?) => {
        /// The columns of a game row, as [`game_row`] reads them.
        const GAME_FIELDS: &str = concat!(stringify!($first) $(, ", ", stringify!($column))*);

        /// The select of a game row.
        const GAME_COLUMNS: &str =
            concat!("SELECT ", stringify!($first) $(, ", ", stringify!($column))*, " FROM games");

        /// A game row read by the names of [`GAME_FIELDS`].
        fn game_row<R: Row>(r: &R) -> Result<GameRow, StoreError>
        where
            for<'a> &'a str: sqlx::ColumnIndex<R>,
            Uuid: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
            String: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
            i64: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
            Option<String>: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
            Option<i64>: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
            GameStatus: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
        {
            Ok(GameRow {
                $first: r.try_get(stringify!($first))?,
                $($column: r.try_get(stringify!($column))?,)*
            })
        }
    };
}

game_columns!(
    id,
    variant,
    status,
    state,
    version,
    last_seq,
    seed,
    seed_commitment,
    webhook_url,
    deadline
);

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

/// SQLite storage: events are announced to this process's [`Live`] hub after the commit.
#[derive(Clone, Debug)]
pub struct SqliteStore {
    pub(super) pool: SqlitePool,
    /// The longest one call may take (see `Database`).
    pub(super) bound: Duration,
    /// Where committed events go (SQLite has one writing process: this one).
    pub(super) live: Live,
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

impl SqliteStore {
    /// Admits a write of game `id` that leaves its table to bots alone, under `limit`: counted
    /// in `tx`, which holds the database's write lock since `BEGIN IMMEDIATE`, so that no other
    /// write comes between the count and the commit.
    async fn admit(
        &self,
        tx: &mut sqlx::SqliteConnection,
        id: Uuid,
        limit: &BotTableLimit,
    ) -> Result<Option<sqlx::Transaction<'static, sqlx::Sqlite>>, StoreError> {
        Self::count_bot_tables(tx, id, limit).await?;
        Ok(None)
    }

    /// Its `db.system.name` in traces.
    const SYSTEM: &str = SQLITE;

    /// The pool for game `id`'s statements: the one there is.
    async fn pool_of(&self, _id: Uuid) -> &SqlitePool {
        &self.pool
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

/// The one SQL text of both stores, with what differs passed in: how a transaction that will
/// write begins, how the game row is locked and how a sweep skips rows another one holds. Each
/// store runs a move (`transact_move`) and writes an accepted action (`write_update`) its own
/// way.
macro_rules! sql_store {
    ($store:ty, $db:ty, $begin:literal, $lock:literal, $skip_locked:expr) => {
        impl Store for $store {
            async fn ready(&self) -> Result<(), StoreError> {
                sqlx::query("SELECT 1").execute(&self.pool).await?;
                Ok(())
            }

            async fn jwt_secret(&self, generated: String) -> Result<String, StoreError> {
                sqlx::query("INSERT INTO settings (name, value) VALUES ('jwt_secret', $1) ON CONFLICT (name) DO NOTHING")
                    .bind(generated)
                    .execute(&self.pool)
                    .await?;
                let row = sqlx::query("SELECT value FROM settings WHERE name = 'jwt_secret'")
                    .fetch_one(&self.pool)
                    .await?;
                Ok(row.try_get("value")?)
            }

            async fn create_game(&self, new: &NewGame, key: Option<(&KeyRef, &StoredResponse)>) -> Result<bool, StoreError> {
                let mut tx = self.pool.begin_with($begin).await?;
                let g = &new.game;
                let at_us = now_us();
                let at = at_us / 1_000_000;
                let (webhook_url, webhook_secret) = new.webhook.clone().unzip();
                let guard = match &new.bot_tables {
                    Some(limit) => self.admit(&mut tx, g.id, limit).await?,
                    None => None,
                };
                let inserted = sqlx::query(
                    "INSERT INTO games (id, variant, status, state, version, last_seq, seed, seed_commitment, created_at, updated_at, \
                     tenant, created_us, webhook_url, webhook_secret, deadline) \
                     VALUES ($1, $2, $3, $4, $5, $9, $6, $7, $8, $8, $10, $11, $12, $13, $14) \
                     ON CONFLICT (id) DO NOTHING",
                )
                .bind(g.id)
                .bind(&g.variant)
                .bind(g.status)
                .bind(&g.state)
                .bind(g.version)
                .bind(&g.seed)
                .bind(&g.seed_commitment)
                .bind(at)
                .bind(new.events.len() as i64)
                .bind(&new.tenant)
                .bind(at_us)
                .bind(webhook_url)
                .bind(webhook_secret)
                .bind(g.deadline)
                .execute(&mut *tx)
                .await?;
                if inserted.rows_affected() == 0 {
                    // A rematch another request made first: it stands as made.
                    return Ok(false);
                }
                for s in &new.seats {
                    sqlx::query("INSERT INTO seats (game_id, seat, name, kind) VALUES ($1, $2, $3, $4)")
                        .bind(g.id)
                        .bind(s.seat)
                        .bind(&s.name)
                        .bind(&s.kind)
                        .execute(&mut *tx)
                        .await?;
                }
                if !new.events.is_empty() {
                    insert_events::<$db>(g.id, 1, &new.events, at).build().execute(&mut *tx).await?;
                }
                for (i, e) in new.events.iter().enumerate() {
                    Self::enqueue(&mut tx, g.id, i as i64 + 1, g.version, e).await?;
                }
                if let Some((key, response)) = key {
                    store_response(&mut *tx, key, response).await?;
                }
                tx.commit().await?;
                Self::release(guard).await;
                Ok(true)
            }

            async fn origin(&self, id: Uuid) -> Result<Option<Origin>, StoreError> {
                let row = sqlx::query("SELECT tenant, webhook_url, webhook_secret FROM games WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?;
                let Some(row) = row else { return Ok(None) };
                let url: Option<String> = row.try_get("webhook_url")?;
                let secret: Option<String> = row.try_get("webhook_secret")?;
                Ok(Some(Origin {
                    tenant: row.try_get("tenant")?,
                    webhook: url.zip(secret),
                }))
            }

            async fn game(&self, id: Uuid) -> Result<Option<GameRow>, StoreError> {
                let row = sqlx::query(AssertSqlSafe(format!("{GAME_COLUMNS} WHERE id = $1")))
                .bind(id)
                .fetch_optional(self.pool_of(id).await)
                .await?;
                row.map(|r| game_row(&r)).transpose()
            }

            async fn game_in(&self, tenant: &str, id: Uuid) -> Result<Option<GameRow>, StoreError> {
                let row = sqlx::query(AssertSqlSafe(format!("{GAME_COLUMNS} WHERE id = $1 AND tenant = $2")))
                .bind(id)
                .bind(tenant)
                .fetch_optional(self.pool_of(id).await)
                .await?;
                row.map(|r| game_row(&r)).transpose()
            }

            async fn list_games(&self, tenant: &str, listing: &GameListing) -> Result<Vec<ListedRow>, StoreError> {
                let sql = list_sql(listing);
                let mut query = sqlx::query(AssertSqlSafe(sql)).bind(tenant);
                if let Some(status) = listing.status {
                    query = query.bind(status);
                }
                if let Some(after) = &listing.after {
                    query = query.bind(after.created_us).bind(after.id);
                }
                let rows = query.bind(i64::from(listing.limit) + 1).fetch_all(&self.pool).await?;
                rows.iter()
                    .map(|r| {
                        Ok(ListedRow {
                            game: game_row(r)?,
                            created_us: r.try_get("created_us")?,
                        })
                    })
                    .collect()
            }

            async fn events_after(&self, id: Uuid, after: i64, limit: i64) -> Result<Vec<EventRow>, StoreError> {
                let rows = sqlx::query("SELECT seq, body FROM events WHERE game_id = $1 AND seq > $2 ORDER BY seq LIMIT $3")
                    .bind(id)
                    .bind(after)
                    .bind(limit)
                    .fetch_all(self.pool_of(id).await)
                    .await?;
                rows.iter().map(event_row).collect()
            }

            async fn record(&self, id: Uuid) -> Result<Vec<RecordedEvent>, StoreError> {
                let rows = sqlx::query("SELECT seq, body, step FROM events WHERE game_id = $1 ORDER BY seq")
                    .bind(id)
                    .fetch_all(self.pool_of(id).await)
                    .await?;
                rows.iter()
                    .map(|r| {
                        Ok(RecordedEvent {
                            event: event_row(r)?,
                            step: r.try_get("step")?,
                        })
                    })
                    .collect()
            }

            async fn find_key(&self, key: &KeyRef) -> Result<Option<KeyClaim>, StoreError> {
                let row = sqlx::query(AssertSqlSafe(format!(
                    "SELECT request_hash, response_status, response_headers, response_body \
                     FROM {} WHERE game_id = $1 AND seat = $2 AND key = $3 AND status = 'done'",
                    key.table()
                )))
                .bind(key.game)
                .bind(key.seat)
                .bind(&key.key)
                .fetch_optional(match key.scope {
                    KeyScope::Game => self.pool_of(key.game).await,
                    KeyScope::Creation => &self.pool,
                })
                .await?;
                let Some(row) = row else { return Ok(None) };
                let hash: String = row.try_get("request_hash")?;
                if hash != key.request_hash {
                    return Ok(Some(KeyClaim::Mismatch));
                }
                let code: Option<i64> = row.try_get("response_status")?;
                Ok(Some(KeyClaim::Replay(StoredResponse {
                    status: u16::try_from(code.unwrap_or(500)).unwrap_or(500),
                    etag: row.try_get("response_headers")?,
                    body: row.try_get::<Option<Vec<u8>>, _>("response_body")?.unwrap_or_default(),
                })))
            }

            async fn sweep(&self, keys_before: i64, games_before: i64) -> Result<Swept, StoreError> {
                Ok(Swept {
                    keys: self.purge_table::<Uuid>(&IDEMPOTENCY_KEYS, keys_before).await?
                        + self.purge_table::<String>(&CREATION_KEYS, keys_before).await?,
                    games: self.purge_table::<Uuid>(&GAMES_OVER, games_before).await?,
                })
            }

            async fn transact<T, E, F>(&self, id: Uuid, key: Option<&KeyRef>, act: F) -> Result<T, E>
            where
                E: From<StoreError>,
                F: FnMut(&GameRow) -> Result<Outcome<T>, E>,
            {
                self.transact_move(id, key, act).await
            }

            async fn transact_in<T, E, F>(&self, tenant: &str, id: Uuid, act: F) -> Result<T, E>
            where
                E: From<StoreError>,
                F: FnOnce(&GameRow) -> Result<Outcome<T>, E>,
            {
                self.transact_locked(Some(tenant), id, None, act).await
            }

            async fn due_games(&self, now: i64, after: Option<DueGame>, limit: i64) -> Result<Vec<DueGame>, StoreError> {
                self.due_candidates(now, after, limit).await
            }

            async fn lease(&self, id: Uuid, version: i64, held: i64, until: i64) -> Result<bool, StoreError> {
                let leased = sqlx::query(
                    "UPDATE games SET deadline = $4 WHERE id = $1 AND version = $2 AND deadline = $3",
                )
                .bind(id)
                .bind(version)
                .bind(held)
                .bind(until)
                .execute(self.pool_of(id).await)
                .await?;
                Ok(leased.rows_affected() > 0)
            }

            async fn set_aside(&self, id: Uuid, at: i64) -> Result<bool, StoreError> {
                let marked = sqlx::query(
                    "UPDATE games SET deadline = NULL, set_aside_at = $2 WHERE id = $1 AND set_aside_at IS NULL",
                )
                .bind(id)
                .bind(at)
                .execute(self.pool_of(id).await)
                .await?;
                Ok(marked.rows_affected() > 0)
            }

            async fn transact_due<T, E, F>(&self, id: Uuid, now: i64, act: F) -> Result<Option<T>, E>
            where
                E: From<StoreError>,
                F: FnOnce(&GameRow) -> Result<Outcome<T>, E>,
            {
                let mut tx = self.pool.begin_with($begin).await.map_err(StoreError::from)?;
                // Another replica's claim is skipped, not waited for; one that committed first
                // has moved the deadline on, so the game is no longer due: each expiry counts once.
                let row = sqlx::query(AssertSqlSafe(format!(
                    "{GAME_COLUMNS} WHERE id = $1 AND deadline IS NOT NULL AND deadline <= $2{}",
                    $skip_locked
                )))
                .bind(id)
                .bind(now)
                .fetch_optional(&mut *tx)
                .await
                .map_err(StoreError::from)?;
                let Some(game) = row.map(|r| game_row(&r)).transpose()? else {
                    return Ok(None);
                };
                let Outcome { update, value } = act(&game)?;
                let Some(update) = update else {
                    tx.commit().await.map_err(StoreError::from)?;
                    return Ok(Some(value));
                };
                let last = self.write_update(&mut tx, &game, None, &update).await?;
                tx.commit().await.map_err(StoreError::from)?;
                // Streams hear of a timed-out turn as of any other move.
                if !update.events.is_empty() {
                    self.announce(game.id, last, &update.events);
                }
                Ok(Some(value))
            }

            async fn claim_deliveries(&self, now: i64, lease: i64, limit: i64) -> Result<Vec<Delivery>, StoreError> {
                // Candidates, read without a lock: of each game, its first undelivered event
                // only, so that a later one waits for it.
                let candidates = self.delivery_candidates(now, limit).await?;
                let mut out = Vec::with_capacity(candidates.len());
                for c in candidates {
                    let Candidate { game_id, id, webhook_url, webhook_secret, .. } = c;
                    // Each claimed by one statement on its game's rows, on the same conditions
                    // read again: a delivery another worker leased or settled meanwhile is
                    // not taken.
                    let claimed = sqlx::query(
                        "UPDATE webhook_deliveries SET lease_until = $3 \
                         WHERE game_id = $1 AND id = $2 AND status = 'pending' AND next_attempt_at <= $4 \
                         AND lease_until <= $4 \
                         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.game_id = $1 \
                            AND e.status = 'pending' AND e.seq < webhook_deliveries.seq) \
                         RETURNING seq, version, event, attempts, created_at",
                    )
                    .bind(game_id)
                    .bind(&id)
                    .bind(now.saturating_add(lease))
                    .bind(now)
                    .fetch_optional(&self.pool)
                    .await;
                    // A game whose worker was lost since it was read waits for the next pass.
                    let claimed = match claimed {
                        Ok(claimed) => claimed,
                        Err(e) => {
                            tracing::warn!(game = %game_id, error = %e, "a webhook delivery could not be claimed; trying again next pass");
                            continue;
                        }
                    };
                    let Some(row) = claimed else { continue };
                    let (Some(url), Some(secret)) = (webhook_url, webhook_secret) else {
                        continue;
                    };
                    out.push(Delivery {
                        id,
                        game_id,
                        seq: row.try_get("seq")?,
                        version: row.try_get("version")?,
                        event: row.try_get("event")?,
                        attempts: row.try_get("attempts")?,
                        created_at: row.try_get("created_at")?,
                        url,
                        secret,
                    });
                }
                Ok(out)
            }

            async fn settle_delivery(&self, game: Uuid, id: &str, attempt: &Attempt) -> Result<(), StoreError> {
                let (status, next, error) = match attempt {
                    Attempt::Delivered => ("delivered", 0, None),
                    Attempt::Retry { at, error } => ("pending", *at, Some(error.as_str())),
                    Attempt::GivenUp { error } => ("failed", 0, Some(error.as_str())),
                };
                sqlx::query(
                    "UPDATE webhook_deliveries SET status = $3, attempts = attempts + 1, lease_until = 0, \
                     next_attempt_at = CASE WHEN $3 = 'pending' THEN $4 ELSE next_attempt_at END, \
                     last_error = COALESCE($5, last_error) WHERE game_id = $1 AND id = $2",
                )
                .bind(game)
                .bind(id)
                .bind(status)
                .bind(next)
                .bind(error)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn webhook_counts(&self, id: Uuid) -> Result<WebhookCounts, StoreError> {
                let pool = self.pool_of(id).await;
                let rows = sqlx::query("SELECT status, COUNT(*) AS n FROM webhook_deliveries WHERE game_id = $1 GROUP BY status")
                    .bind(id)
                    .fetch_all(pool)
                    .await?;
                let mut counts = WebhookCounts::default();
                for r in rows {
                    let n: i64 = r.try_get("n")?;
                    match r.try_get::<String, _>("status")?.as_str() {
                        "delivered" => counts.delivered = n,
                        "failed" => counts.failed = n,
                        _ => counts.pending += n,
                    }
                }
                counts.last_error = sqlx::query(
                    "SELECT last_error FROM webhook_deliveries WHERE game_id = $1 AND last_error IS NOT NULL \
                     ORDER BY seq DESC LIMIT 1",
                )
                .bind(id)
                .fetch_optional(pool)
                .await?
                .map(|r| r.try_get("last_error"))
                .transpose()?;
                Ok(counts)
            }
        }

        impl $store {
            /// [`Store::due_games`], by one query of the whole table.
            async fn due_in_one(&self, now: i64, after: Option<DueGame>, limit: i64) -> Result<Vec<DueGame>, StoreError> {
                let sql = due_sql("games", "$1", after.is_some().then_some(("$3", "$4")), "$2");
                let mut query = sqlx::query(AssertSqlSafe(sql)).bind(now).bind(limit);
                if let Some(after) = after {
                    query = query.bind(after.deadline).bind(after.id);
                }
                let rows = query.fetch_all(&self.pool).await?;
                rows.iter()
                    .map(|r| {
                        Ok(DueGame {
                            id: r.try_get("id")?,
                            deadline: r.try_get("deadline")?,
                        })
                    })
                    .collect()
            }

            /// The candidates of [`Store::claim_deliveries`], by one query of the whole table.
            async fn delivery_candidates_in_one(&self, now: i64, limit: i64) -> Result<Vec<Candidate>, StoreError> {
                let sql = delivery_candidates_sql("webhook_deliveries", "games", "$1", "$2");
                let rows = sqlx::query(AssertSqlSafe(sql))
                    .bind(now)
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter()
                    .map(|r| {
                        Ok(Candidate {
                            game_id: r.try_get("game_id")?,
                            id: r.try_get("id")?,
                            webhook_url: r.try_get("webhook_url")?,
                            webhook_secret: r.try_get("webhook_secret")?,
                            next_attempt_at: r.try_get("next_attempt_at")?,
                        })
                    })
                    .collect()
            }

            /// Deletes the rows of `purge` whose value of the column the table is spread by is
            /// one of `values` and that expired before `before`, one statement per value (one
            /// game, or one key), skipping rows another replica or a request holds. Returns
            /// how many went.
            async fn delete_expired<V>(&self, purge: &Purge, values: Vec<V>, before: i64) -> Result<u64, StoreError>
            where
                V: for<'q> sqlx::Encode<'q, $db> + sqlx::Type<$db> + Send + 'static,
            {
                let delete = purge.delete($skip_locked);
                let mut deleted = 0;
                for value in values {
                    let done = sqlx::query(AssertSqlSafe(delete.as_str()))
                        .bind(value)
                        .bind(before)
                        .execute(&self.pool)
                        .await;
                    match done {
                        Ok(done) => deleted += done.rows_affected(),
                        // The database refused this one delete (a row it cannot let go, a
                        // lock it gave up on): the sweep goes on with the others, and tries
                        // it again next time. A database that does not answer ends the sweep.
                        Err(sqlx::Error::Database(e)) => {
                            tracing::warn!(table = purge.table, error = %e, "an expired row could not be swept; trying again next sweep");
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
                Ok(deleted)
            }

            /// Deletes the rows of `purge` older than `before`, in bounded batches read in the
            /// order of its `(time, route)` index without a lock; each batch's rows are then
            /// deleted by one statement per value of the column the table is spread by (one
            /// game, or one key), which skips rows another replica or a request holds. Returns
            /// how many went.
            async fn purge<V>(&self, purge: &Purge, before: i64) -> Result<u64, StoreError>
            where
                V: for<'r> sqlx::Decode<'r, $db> + for<'q> sqlx::Encode<'q, $db> + sqlx::Type<$db>,
                V: Clone + PartialEq + Send + Sync + Unpin + 'static,
            {
                let mut deleted = 0;
                let mut after: Option<(i64, V)> = None;
                loop {
                    let mut candidates = sqlx::query(AssertSqlSafe(purge.candidates(after.is_some()))).bind(before);
                    if let Some((at, route)) = &after {
                        candidates = candidates.bind(*at).bind(route.clone());
                    }
                    let rows = candidates.fetch_all(&self.pool).await?;
                    let mut batch: Vec<V> = Vec::with_capacity(rows.len());
                    for r in &rows {
                        let value: V = r.try_get("route")?;
                        after = Some((r.try_get("at")?, value.clone()));
                        if !batch.contains(&value) {
                            batch.push(value);
                        }
                    }
                    deleted += self.delete_expired(purge, batch, before).await?;
                    if (rows.len() as i64) < SWEEP_BATCH {
                        return Ok(deleted);
                    }
                }
            }

            /// One transaction on game `id` (of `tenant` only, when given) that holds its row
            /// from the read to the commit: see [`Store::transact`].
            async fn transact_locked<T, E, F>(&self, tenant: Option<&str>, id: Uuid, key: Option<&KeyRef>, act: F) -> Result<T, E>
            where
                E: From<StoreError>,
                F: FnOnce(&GameRow) -> Result<Outcome<T>, E>,
            {
                let mut tx = self.pool_of(id).await.begin_with($begin).await.map_err(StoreError::from)?;
                let (game, taken, _) = Self::read_game(&mut tx, id, tenant, key, ("", $lock), None).await?;
                // A retry after the first request committed finds its key here and acts no
                // second time. A copy that waited on the lock may not see the key yet (its
                // statement's snapshot predates the commit); the key's unique index refuses it
                // when it stores its own, which rolls its change back.
                if taken {
                    return Err(StoreError::KeyTaken.into());
                }
                // On error the transaction is dropped, which rolls it back.
                let Outcome { update, value } = act(&game)?;
                let Some(update) = update else {
                    tx.commit().await.map_err(StoreError::from)?;
                    return Ok(value);
                };
                let guard = match &update.bot_tables {
                    Some(limit) => self.admit(&mut tx, id, limit).await?,
                    None => None,
                };
                let last = self.write_update(&mut tx, &game, key, &update).await?;
                tx.commit()
                    .traced_statement(Self::SYSTEM, "COMMIT", "")
                    .await
                    .map_err(StoreError::from)?;
                Self::release(guard).await;
                if !update.events.is_empty() {
                    self.announce(id, last, &update.events);
                }
                Ok(value)
            }

            /// Takes the limit's lock in `tx` (see `BOT_TABLES_LOCK_SQL`), then counts
            /// `limit.tenant`'s tables of bots alone in play, game `id` aside: a write that would
            /// make one more than `limit.limit` is [`StoreError::BotTablesFull`].
            async fn count_bot_tables(
                tx: &mut <$db as sqlx::Database>::Connection,
                id: Uuid,
                limit: &BotTableLimit,
            ) -> Result<(), StoreError> {
                sqlx::query(BOT_TABLES_LOCK_SQL)
                    .bind(format!("bot_tables:{}", limit.tenant))
                    .execute(&mut *tx)
                    .await?;
                let n: i64 = sqlx::query(BOT_TABLES_SQL)
                    .bind(&limit.tenant)
                    .bind(id)
                    .fetch_one(&mut *tx)
                    .await?
                    .try_get("n")?;
                if n >= i64::from(limit.limit) {
                    return Err(StoreError::BotTablesFull(limit.limit));
                }
                Ok(())
            }

            /// Ends the transaction that held the limit's lock apart from the write, on a
            /// cluster (see `PgStore::admit`), once the write it admitted has committed.
            async fn release(guard: Option<sqlx::Transaction<'static, $db>>) {
                if let Some(guard) = guard
                    && let Err(e) = guard.commit().await
                {
                    // The lock ends with the connection anyway; the write stands.
                    tracing::debug!(error = %e, "the lock on tables of bots alone ended with its connection");
                }
            }

            /// Reads game `id` (of `tenant` only, when given), with `extra` columns before its
            /// own and `lock` after the query (a row lock until the transaction ends, or
            /// nothing); with `key`, also whether that key is stored already, in the same
            /// statement (one round trip fewer per keyed action); with `shards`, from the game's
            /// own shards, on the node that holds them (not found there once they moved).
            /// Returns the game, whether the key is taken, and the row for the extra columns.
            async fn read_game(
                conn: &mut <$db as sqlx::Database>::Connection,
                id: Uuid,
                tenant: Option<&str>,
                key: Option<&KeyRef>,
                (extra, lock): (&str, &str),
                shards: Option<&GameShards>,
            ) -> Result<(GameRow, bool, <$db as sqlx::Database>::Row), StoreError> {
                // The key's game is this game: `$1` names both, so that on a cluster the
                // statement is seen to concern one game's shard.
                debug_assert!(key.is_none_or(|k| k.game == id), "a move's key belongs to its game");
                let (games, placed_here) = match shards {
                    Some(s) => (s.games.as_str(), s.placed_here.as_str()),
                    None => ("games", ""),
                };
                let taken = key.map(|k| {
                    format!(
                        ", EXISTS (SELECT 1 FROM {} WHERE game_id = $1 AND seat = $2 AND key = $3) AS taken",
                        match (shards, k.scope) {
                            (Some(s), KeyScope::Game) => s.keys.as_str(),
                            _ => k.table(),
                        }
                    )
                });
                let of_tenant = match (tenant, key) {
                    (None, _) => "",
                    (Some(_), None) => " AND tenant = $2",
                    (Some(_), Some(_)) => " AND tenant = $4",
                };
                let mut query = sqlx::query(AssertSqlSafe(format!(
                    "SELECT {extra}{GAME_FIELDS}{} FROM {games} WHERE id = $1{of_tenant}{placed_here}{lock}",
                    taken.as_deref().unwrap_or("")
                )))
                .bind(id);
                if let Some(key) = key {
                    query = query.bind(key.seat).bind(key.key.as_str());
                }
                if let Some(tenant) = tenant {
                    query = query.bind(tenant);
                }
                let read = query
                    .fetch_optional(&mut *conn)
                    .traced_statement(Self::SYSTEM, "SELECT", "games");
                let Some(row) = read.await? else {
                    return Err(StoreError::GameNotFound(id));
                };
                let taken = match key {
                    Some(_) => row.try_get::<bool, _>("taken")?,
                    None => false,
                };
                Ok((game_row(&row)?, taken, row))
            }

            /// Writes what an accepted action changed besides the game row, its events and its
            /// key: the seats renamed or taken by a bot, and the events' webhook deliveries.
            async fn write_seats_and_outbox(
                tx: &mut <$db as sqlx::Database>::Connection,
                game: &GameRow,
                update: &GameUpdate,
            ) -> Result<(), StoreError> {
                for s in &update.seats {
                    sqlx::query("UPDATE seats SET name = $3, kind = $4 WHERE game_id = $1 AND seat = $2")
                        .bind(game.id)
                        .bind(s.seat)
                        .bind(&s.name)
                        .bind(&s.kind)
                        .execute(&mut *tx)
                        .await?;
                }
                for (i, e) in update.events.iter().enumerate() {
                    Self::enqueue(tx, game.id, game.last_seq + 1 + i as i64, update.version, e).await?;
                }
                Ok(())
            }

            /// Writes event `seq` to the webhook outbox, in the transaction that logs it, when
            /// the game has a webhook (the service then gives the event's public copy).
            async fn enqueue(
                tx: &mut <$db as sqlx::Database>::Connection,
                game: Uuid,
                seq: i64,
                version: i64,
                event: &NewEvent,
            ) -> Result<(), StoreError> {
                let Some(public) = &event.public else { return Ok(()) };
                let at = now_ms();
                sqlx::query(
                    "INSERT INTO webhook_deliveries (id, game_id, seq, version, event, status, next_attempt_at, created_at) \
                     VALUES ($1, $2, $3, $4, $5, 'pending', $6, $6)",
                )
                .bind(delivery_id())
                .bind(game)
                .bind(seq)
                .bind(version)
                .bind(public)
                .bind(at)
                .execute(&mut *tx)
                .traced_statement(Self::SYSTEM, "INSERT", "webhook_deliveries")
                .await?;
                Ok(())
            }
        }
    };
}

impl SqliteStore {
    /// [`Store::due_games`]: one query.
    async fn due_candidates(
        &self,
        now: i64,
        after: Option<DueGame>,
        limit: i64,
    ) -> Result<Vec<DueGame>, StoreError> {
        self.due_in_one(now, after, limit).await
    }

    /// The candidates of [`Store::claim_deliveries`]: one query.
    async fn delivery_candidates(&self, now: i64, limit: i64) -> Result<Vec<Candidate>, StoreError> {
        self.delivery_candidates_in_one(now, limit).await
    }

    /// Sweeps the expired rows of `purge` (see `purge`).
    async fn purge_table<V>(&self, purge: &Purge, before: i64) -> Result<u64, StoreError>
    where
        V: for<'r> sqlx::Decode<'r, sqlx::Sqlite>
            + for<'q> sqlx::Encode<'q, sqlx::Sqlite>
            + sqlx::Type<sqlx::Sqlite>,
        V: Clone + PartialEq + Send + Sync + Unpin + 'static,
    {
        self.purge::<V>(purge, before).await
    }
}

/// A node of the cluster and the shards it holds: of each, its name and those of the
/// co-located shards asked for with it.
struct NodeShards {
    host: String,
    port: i32,
    shards: Vec<Vec<String>>,
}

/// What one shard answered a command run on it alone.
struct ShardAnswer {
    /// The node that holds it, as `host:port`.
    node: String,
    /// Its rows, as a JSON array, or why its node failed.
    answer: Result<serde_json::Value, String>,
}

impl PgStore {
    /// [`Store::due_games`]: on a cluster, read shard by shard, so that the games of the
    /// workers that answer are found while another one is away.
    async fn due_candidates(
        &self,
        now: i64,
        after: Option<DueGame>,
        limit: i64,
    ) -> Result<Vec<DueGame>, StoreError> {
        if !self.cluster {
            return self.due_in_one(now, after, limit).await;
        }
        let cursor = after.map(|a| (a.deadline.to_string(), a.id.literal()));
        let answers = self
            .on_each_shard(&["games"], |names| {
                let after = cursor.as_ref().map(|(d, id)| (d.as_str(), id.as_str()));
                due_sql(&names[0], &now.to_string(), after, &limit.to_string())
            })
            .await?;
        let mut due: Vec<DueGame> = self.read_answers(answers, "turn deadlines");
        due.sort_by_key(|d| (d.deadline, d.id));
        due.truncate(usize::try_from(limit).unwrap_or(0));
        Ok(due)
    }

    /// The candidates of [`Store::claim_deliveries`]: on a cluster, read shard by shard (the
    /// outbox's and its games' co-located shards together).
    async fn delivery_candidates(&self, now: i64, limit: i64) -> Result<Vec<Candidate>, StoreError> {
        if !self.cluster {
            return self.delivery_candidates_in_one(now, limit).await;
        }
        let answers = self
            .on_each_shard(&["webhook_deliveries", "games"], |names| {
                delivery_candidates_sql(&names[0], &names[1], &now.to_string(), &limit.to_string())
            })
            .await?;
        let mut candidates: Vec<Candidate> = self.read_answers(answers, "webhook deliveries");
        candidates.sort_by_key(|c| c.next_attempt_at);
        candidates.truncate(usize::try_from(limit).unwrap_or(0));
        Ok(candidates)
    }

    /// Sweeps the expired rows of `purge` (see `purge`); on a cluster, each shard's candidates
    /// read from that shard alone, with a cursor of its own, so that the rows of the workers
    /// that answer are swept while another one is away.
    async fn purge_table<V>(&self, purge: &Purge, before: i64) -> Result<u64, StoreError>
    where
        V: for<'r> sqlx::Decode<'r, sqlx::Postgres>
            + for<'q> sqlx::Encode<'q, sqlx::Postgres>
            + sqlx::Type<sqlx::Postgres>,
        V: Clone + PartialEq + Send + Sync + Unpin + 'static,
        V: Literal + serde::de::DeserializeOwned,
    {
        if !self.cluster {
            return self.purge::<V>(purge, before).await;
        }
        // Each shard's cursor; a shard leaves once it answered a short batch, or failed.
        let mut cursors: Vec<(String, Option<(i64, V)>)> = Vec::new();
        let mut first = true;
        let mut deleted = 0;
        while first || !cursors.is_empty() {
            let shards: Vec<String> = cursors.iter().map(|(name, _)| name.clone()).collect();
            let answers = self
                .on_shards(&[purge.table], (!first).then_some(shards.as_slice()), |names| {
                    let after = cursors
                        .iter()
                        .find(|(name, _)| *name == names[0])
                        .and_then(|(_, after)| after.as_ref())
                        .map(|(at, value)| (at.to_string(), value.literal()));
                    let after = after.as_ref().map(|(at, value)| (at.as_str(), value.as_str()));
                    purge.candidates_in(&names[0], &before.to_string(), after)
                })
                .await?;
            first = false;
            let mut next = Vec::new();
            let mut batch: Vec<V> = Vec::new();
            for (shard, answer) in answers {
                let rows: Vec<Expired<V>> = self.read_answers(vec![answer], "the sweep");
                // The rows come in the order of the shard's query (an aggregate over a sorted
                // subquery keeps its order): the last is the cursor.
                if rows.len() as i64 == SWEEP_BATCH
                    && let Some(last) = rows.last()
                {
                    next.push((shard, Some((last.at, last.route.clone()))));
                }
                for r in rows {
                    if !batch.contains(&r.route) {
                        batch.push(r.route);
                    }
                }
            }
            deleted += self.delete_expired(purge, batch, before).await?;
            cursors = next;
        }
        Ok(deleted)
    }

    /// Runs the query `command` makes of shard names on every shard of `tables[0]`, on the node
    /// that holds it, outside any transaction (Citus's `master_run_on_worker`), given the names
    /// of that shard and of the co-located shards of the other `tables`; its rows come back as
    /// JSON. The shards of a node that does not answer fail alone.
    async fn on_each_shard(
        &self,
        tables: &[&str],
        command: impl Fn(&[String]) -> String,
    ) -> Result<Vec<ShardAnswer>, StoreError> {
        Ok(self
            .on_shards(tables, None, command)
            .await?
            .into_iter()
            .map(|(_, answer)| answer)
            .collect())
    }

    /// As [`PgStore::on_each_shard`], on the shards of `tables[0]` named in `only` when given;
    /// each answer with its shard's name. The shards of one node are read by one command, on one
    /// connection, each by its own query: what fails together is what is lost together.
    async fn on_shards(
        &self,
        tables: &[&str],
        only: Option<&[String]>,
        command: impl Fn(&[String]) -> String,
    ) -> Result<Vec<(String, ShardAnswer)>, StoreError> {
        // Co-located shards cover the same range of hashed game ids.
        let placements: Vec<(String, i32, Vec<String>)> = sqlx::query_as(
            "SELECT n.nodename::text, n.nodeport, \
             array_agg(shard_name(b.logicalrelid, b.shardid)::text \
                ORDER BY array_position($1::text[]::regclass[], b.logicalrelid)) \
             FROM pg_dist_shard a \
             JOIN pg_dist_shard b ON b.logicalrelid = ANY ($1::text[]::regclass[]) \
                AND b.shardminvalue IS NOT DISTINCT FROM a.shardminvalue \
             JOIN pg_dist_placement p ON p.shardid = a.shardid \
             JOIN pg_dist_node n ON n.groupid = p.groupid AND n.noderole = 'primary' \
             WHERE a.logicalrelid = ($1::text[]::regclass[])[1] \
             GROUP BY a.shardid, n.nodename, n.nodeport ORDER BY n.nodename, n.nodeport, a.shardid",
        )
        .bind(tables)
        .fetch_all(&self.pool)
        .await?;
        let mut nodes: Vec<NodeShards> = Vec::new();
        for (host, port, names) in placements {
            if only.is_some_and(|only| !only.contains(&names[0])) {
                continue;
            }
            match nodes.last_mut() {
                Some(node) if node.host == host && node.port == port => node.shards.push(names),
                _ => nodes.push(NodeShards {
                    host,
                    port,
                    shards: vec![names],
                }),
            }
        }
        if nodes.is_empty() {
            return Ok(Vec::new());
        }
        let hosts: Vec<&str> = nodes.iter().map(|n| n.host.as_str()).collect();
        let ports: Vec<i32> = nodes.iter().map(|n| n.port).collect();
        // One JSON array per node, of one JSON array of rows per shard, in order.
        let commands: Vec<String> = nodes
            .iter()
            .map(|node| {
                let each: Vec<String> = node
                    .shards
                    .iter()
                    .enumerate()
                    .map(|(i, names)| {
                        format!(
                            "SELECT {i} AS n, (SELECT coalesce(json_agg(t), '[]') FROM ({}) t) AS rows",
                            command(names)
                        )
                    })
                    .collect();
                format!(
                    "SELECT json_agg(rows ORDER BY n)::text FROM ({}) shards",
                    each.join(" UNION ALL ")
                )
            })
            .collect();
        let answers: Vec<(bool, Option<String>)> = sqlx::query_as(
            "SELECT success, result FROM master_run_on_worker($1, $2, $3, true) WITH ORDINALITY ORDER BY ordinality",
        )
        .bind(&hosts)
        .bind(&ports)
        .bind(&commands)
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::new();
        for (NodeShards { host, port, shards }, (success, result)) in nodes.into_iter().zip(answers) {
            let node = format!("{host}:{port}");
            let result = result.unwrap_or_default();
            let per_shard: Result<Vec<serde_json::Value>, String> = if success {
                serde_json::from_str(&result).map_err(|e| e.to_string())
            } else {
                Err(result)
            };
            for (i, mut names) in shards.into_iter().enumerate() {
                let answer = match &per_shard {
                    Ok(rows) => rows
                        .get(i)
                        .cloned()
                        .ok_or_else(|| "no answer for a shard".to_owned()),
                    Err(e) => Err(e.clone()),
                };
                out.push((
                    names.swap_remove(0),
                    ShardAnswer {
                        node: node.clone(),
                        answer,
                    },
                ));
            }
        }
        Ok(out)
    }

    /// The rows of the shards that answered. The nodes
    /// that did not answer are logged once per outage (`work` says what waits for them), and
    /// once more when they answer again: their games wait, the others' do not.
    fn read_answers<R: serde::de::DeserializeOwned>(&self, answers: Vec<ShardAnswer>, work: &str) -> Vec<R> {
        let mut rows = Vec::new();
        let mut failed = BTreeSet::new();
        let mut answered = BTreeSet::new();
        for ShardAnswer { node, answer } in answers {
            match answer.map(|rows| serde_json::from_value::<Vec<R>>(rows).map_err(|e| e.to_string())) {
                Ok(Ok(mut more)) => {
                    rows.append(&mut more);
                    answered.insert(node);
                }
                Ok(Err(error)) | Err(error) => {
                    if !failed.contains(&node) {
                        let mut away = self.away.lock().unwrap_or_else(PoisonError::into_inner);
                        if away.insert(node.clone()) {
                            tracing::warn!(%node, %error, "a node of the cluster does not answer: its games' {work} wait for it");
                        }
                    }
                    failed.insert(node);
                }
            }
        }
        let mut away = self.away.lock().unwrap_or_else(PoisonError::into_inner);
        for node in answered.difference(&failed) {
            if away.remove(node) {
                tracing::info!(%node, "a node of the cluster answers again: its games' background work resumes");
            }
        }
        rows
    }
}

impl SqliteStore {
    /// An action: one transaction that holds the database's write lock from the read on (one
    /// process owns the file, so there is no one to race).
    async fn transact_move<T, E, F>(&self, id: Uuid, key: Option<&KeyRef>, act: F) -> Result<T, E>
    where
        E: From<StoreError>,
        F: FnMut(&GameRow) -> Result<Outcome<T>, E>,
    {
        self.transact_locked(None, id, key, act).await
    }

    /// Writes an accepted action: the game's state, version and last seq, changed seats, the
    /// events in one statement, and the response kept for the request's idempotency key.
    /// Returns the new last seq.
    async fn write_update(
        &self,
        tx: &mut sqlx::Transaction<'static, sqlx::Sqlite>,
        game: &GameRow,
        key: Option<&KeyRef>,
        update: &GameUpdate,
    ) -> Result<i64, StoreError> {
        let id = game.id;
        let at = now();
        // The write lock held since BEGIN IMMEDIATE keeps these numbers in order.
        let last = game.last_seq + update.events.len() as i64;
        sqlx::query(
            "UPDATE games SET status = $2, state = $3, version = $4, updated_at = $5, deadline = $6, last_seq = $7 WHERE id = $1",
        )
        .bind(id)
        .bind(update.status)
        .bind(&update.state)
        .bind(update.version)
        .bind(at)
        .bind(update.deadline)
        .bind(last)
        .execute(&mut **tx)
        .traced_statement(Self::SYSTEM, "UPDATE", "games")
        .await?;
        if !update.events.is_empty() {
            insert_events::<sqlx::Sqlite>(id, game.last_seq + 1, &update.events, at)
                .build()
                .execute(&mut **tx)
                .traced_statement(Self::SYSTEM, "INSERT", "events")
                .await?;
        }
        Self::write_seats_and_outbox(tx, game, update).await?;
        if let (Some(key), Some(response)) = (key, &update.response) {
            store_response(&mut **tx, key, response).await?;
        }
        Ok(last)
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
                    .traced_statement(Self::SYSTEM, "COMMIT", "")
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
                .traced_statement(Self::SYSTEM, "SELECT", "continental_write")
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
            .traced_statement(Self::SYSTEM, "UPDATE", "games")
            .await
            .map_err(key_taken)?;
        Ok(written.map(|_| last))
    }
}

/// The write of an accepted action on a Citus cluster: one call of `continental_write`
/// (migration `20261129000001_citus_write`), distributed by the game's id, which the
/// coordinator hands to the game's worker whole when it is not inside a transaction block: the
/// row (on the condition of `read`), the events, the key, the seats, the outbox and the
/// `NOTIFY`, in one round trip to the worker. Inside the caller's transaction it runs on the
/// coordinator instead, statement by statement. The rows go as JSON named by their columns.
async fn cluster_write(
    conn: &mut sqlx::PgConnection,
    game: &GameRow,
    read: Option<&str>,
    key: Option<&KeyRef>,
    update: &GameUpdate,
    at: i64,
    last: i64,
) -> Result<Option<i64>, StoreError> {
    use serde_json::json;
    let id = game.id;
    let first = game.last_seq + 1;
    let events: Vec<_> = update
        .events
        .iter()
        .zip(first..)
        .map(|(e, seq)| {
            json!({"game_id": id, "seq": seq, "seat": e.seat, "body": e.body, "step": e.step, "created_at": at})
        })
        .collect();
    let kept = key.zip(update.response.as_ref()).map(|(key, response)| {
        debug_assert!(key.scope == KeyScope::Game, "an action's key is its game's");
        json!({
            "game_id": key.game,
            "seat": key.seat,
            "key": key.key,
            "request_hash": key.request_hash,
            "status": "done",
            "response_status": response.status,
            "response_headers": response.etag,
            "response_body": format!("\\x{}", hex::encode(&response.body)),
            "created_at": at,
        })
    });
    let seats = (!update.seats.is_empty()).then(|| {
        update
            .seats
            .iter()
            .map(|s| json!({"game_id": id, "seat": s.seat, "name": s.name, "kind": s.kind}))
            .collect::<Vec<_>>()
    });
    let queued_at = now_ms();
    let outbox: Vec<_> = update
        .events
        .iter()
        .zip(first..)
        .filter_map(|(e, seq)| {
            let public = e.public.as_ref()?;
            Some(json!({
                "id": delivery_id(),
                "game_id": id,
                "seq": seq,
                "version": update.version,
                "event": public,
                "status": "pending",
                "next_attempt_at": queued_at,
                "created_at": queued_at,
            }))
        })
        .collect();
    let note = (!update.events.is_empty()).then(|| hub::note(id, last, &update.events));
    let written: Option<i64> = sqlx::query_scalar(
        "SELECT continental_write($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
    )
    .bind(id)
    .bind(read)
    // The version read as well: an `xmin` is a transaction id of one node, and the row's
    // copy on another node after a move may carry the same one by chance.
    .bind(read.map(|_| game.version))
    .bind(update.status)
    .bind(&update.state)
    .bind(update.version)
    .bind(at)
    .bind(update.deadline)
    .bind(last)
    .bind(sqlx::types::Json(events))
    .bind(kept.map(sqlx::types::Json))
    .bind(seats.map(sqlx::types::Json))
    .bind((!outbox.is_empty()).then_some(sqlx::types::Json(outbox)))
    .bind(note)
    .fetch_one(&mut *conn)
    .await
    .map_err(|e| match &e {
        // A copy of this request that stored the key first (the worker's error carries no
        // table name the coordinator would know).
        sqlx::Error::Database(db) if db.is_unique_violation() && key.is_some() => StoreError::KeyTaken,
        _ => StoreError::from(e),
    })?;
    Ok(written)
}

/// A fresh webhook delivery id: the `webhook-id` its receiver sees on every attempt.
fn delivery_id() -> String {
    format!("msg_{}", Uuid::new_v4().simple())
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

/// A stored event from a row holding its `seq` and `body`.
fn event_row<R: Row>(r: &R) -> Result<EventRow, StoreError>
where
    for<'a> &'a str: sqlx::ColumnIndex<R>,
    i64: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    String: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
{
    Ok(EventRow {
        seq: r.try_get("seq")?,
        body: r.try_get("body")?,
    })
}

/// One `INSERT` of all `events`, numbered from `first`.
fn insert_events<'a, DB>(game: Uuid, first: i64, events: &'a [NewEvent], at: i64) -> QueryBuilder<DB>
where
    DB: sqlx::Database,
    Uuid: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    i64: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<i64>: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    &'a str: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<String>: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
{
    let mut insert = QueryBuilder::new(EVENT_INSERT);
    push_event_values(&mut insert, game, first, events, at);
    insert
}

/// The start of an `INSERT` of events, before their rows.
const EVENT_INSERT: &str = "INSERT INTO events (game_id, seq, seat, body, step, created_at) ";

/// Pushes the `VALUES` of all `events`, numbered from `first`, onto `sql`.
fn push_event_values<'a, DB>(
    sql: &mut QueryBuilder<DB>,
    game: Uuid,
    first: i64,
    events: &'a [NewEvent],
    at: i64,
) where
    DB: sqlx::Database,
    Uuid: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    i64: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<i64>: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    &'a str: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<String>: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
{
    sql.push_values(events.iter().zip(first..), |mut row, (e, seq)| {
        row.push_bind(game)
            .push_bind(seq)
            .push_bind(e.seat)
            .push_bind(e.body.as_str())
            .push_bind(e.step.clone())
            .push_bind(at);
    });
}

/// The columns of a kept idempotency key, in the order both writers give them.
const KEY_COLUMNS: &str = "(game_id, seat, key, request_hash, status, response_status, response_headers, response_body, created_at)";

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

/// Keeps `key` with the response to replay, in the transaction of the change it answers: a
/// request that did not commit leaves no key. A key stored meanwhile by a duplicate request
/// (the unique primary key) is [`StoreError::KeyTaken`].
async fn store_response<'e, E>(executor: E, key: &KeyRef, response: &StoredResponse) -> Result<(), StoreError>
where
    E: sqlx::Executor<'e>,
    Uuid: for<'a> sqlx::Encode<'a, E::Database> + sqlx::Type<E::Database>,
    String: for<'a> sqlx::Encode<'a, E::Database> + sqlx::Type<E::Database>,
    Option<String>: for<'a> sqlx::Encode<'a, E::Database> + sqlx::Type<E::Database>,
    i64: for<'a> sqlx::Encode<'a, E::Database> + sqlx::Type<E::Database>,
    Vec<u8>: for<'a> sqlx::Encode<'a, E::Database> + sqlx::Type<E::Database>,
    <E::Database as sqlx::Database>::Arguments: sqlx::IntoArguments<E::Database>,
{
    sqlx::query(AssertSqlSafe(format!(
        "INSERT INTO {} {KEY_COLUMNS} VALUES ($1, $2, $3, $4, 'done', $5, $6, $7, $8)",
        key.table()
    )))
    .bind(key.game)
    .bind(key.seat)
    .bind(key.key.clone())
    .bind(key.request_hash.clone())
    .bind(i64::from(response.status))
    .bind(response.etag.clone())
    .bind(response.body.clone())
    .bind(now())
    .execute(executor)
    .await
    .map_err(|e| match &e {
        sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::KeyTaken,
        _ => StoreError::from(e),
    })?;
    Ok(())
}

/// The query of a listing page: the tenant's games, newest first, from the cursor on, with
/// the status filter if any, served by the indexes `games_by_tenant(_status)`. Parameters:
/// `$1` tenant, then the status, then the cursor's time and id, then the limit.
pub fn list_sql(listing: &GameListing) -> String {
    let mut sql = format!("SELECT {GAME_FIELDS}, created_us FROM games WHERE tenant = $1");
    let mut n = 1;
    if listing.status.is_some() {
        n += 1;
        sql.push_str(&format!(" AND status = ${n}"));
    }
    if listing.after.is_some() {
        sql.push_str(&format!(" AND (created_us, id) < (${}, ${})", n + 1, n + 2));
        n += 2;
    }
    sql.push_str(&format!(" ORDER BY created_us DESC, id DESC LIMIT ${}", n + 1));
    sql
}

sql_store!(PgStore, sqlx::Postgres, "BEGIN", " FOR UPDATE", PG_SKIP_LOCKED);
// BEGIN IMMEDIATE takes SQLite's write lock at once, so two writers queue instead of both
// reading the old state and one failing at commit.
sql_store!(
    SqliteStore,
    sqlx::Sqlite,
    "BEGIN IMMEDIATE",
    "",
    SQLITE_SKIP_LOCKED
);
