//! What the SQL stores share: the statements both dialects take (PostgreSQL, on one server or a
//! Citus cluster, and SQLite), the mapping of rows to the store's types, and [`sql_store!`],
//! which implements [`Store`] for each store from that one text with what differs passed in.
//! Each store's own ways (how an action reads and writes) are in its own file: `postgres.rs`,
//! `citus/`, `sqlite.rs`.

use sqlx::{QueryBuilder, Row};
use uuid::Uuid;

use super::write::{DeliveryWrite, EventWrite, KeyWrite};
use super::{Delivery, EventRow, GameListing, GameRow, StoreError};
use crate::domain::GameStatus;

/// Tables of tenant `$1` in play with bots alone, or over so at or after `$3` (unix
/// seconds), game `$2` aside: no seat is a person's or open (the seats table's `kind` says who
/// plays each seat now, autopilot and leavers included). The open server's limit counts them
/// (docs/operations.md#bots). The ones over are read by the
/// partial index `games_swept` (whose condition the text repeats, as SQLite needs), on
/// `updated_at`.
pub(super) const BOT_TABLES_SQL: &str = "SELECT (SELECT COUNT(*) FROM games g WHERE g.tenant = $1 AND g.status = 'playing' \
    AND g.id <> $2 AND NOT EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id AND s.kind IN ('player', 'open'))) \
    + (SELECT COUNT(*) FROM games g WHERE g.status IN ('finished', 'void') AND g.updated_at >= $3 AND g.tenant = $1 \
    AND g.id <> $2 AND NOT EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id AND s.kind IN ('player', 'open'))) AS n";

/// The lock that every write making a table of bots alone takes before it counts them: the
/// tenant's row `bot_tables:<tenant>` of `settings`, written (made if missing) so that it is
/// held until the transaction ends. A row lock is the cluster's on Citus too, where `settings`
/// is a reference table, whichever node takes it. On SQLite, `BEGIN IMMEDIATE` holds the whole
/// database already.
pub(super) const BOT_TABLES_LOCK_SQL: &str = "INSERT INTO settings (name, value) VALUES ($1, '') \
    ON CONFLICT (name) DO UPDATE SET value = excluded.value";

/// Rows a sweep reads per batch before it deletes them.
pub(super) const SWEEP_BATCH: i64 = 500;

/// A table the sweep purges, and how: see `purge`.
pub(super) struct Purge {
    pub(super) table: &'static str,
    /// The column the table is spread by across a cluster's shards: each delete names one value
    /// of it, so that it runs on one shard.
    pub(super) route: &'static str,
    /// The time a row expires by (seconds since the epoch), indexed with `route` after it.
    pub(super) time: &'static str,
    /// What else a row must be to go.
    pub(super) only: &'static str,
    /// The row's primary key.
    pub(super) key: &'static str,
}

/// Idempotency keys of moves and joins, by game.
pub(super) const IDEMPOTENCY_KEYS: Purge = Purge {
    table: "idempotency_keys",
    route: "game_id",
    time: "created_at",
    only: "",
    key: "game_id, seat, key",
};

/// Idempotency keys of creations, by key: they belong to no game yet.
pub(super) const CREATION_KEYS: Purge = Purge {
    table: "creation_keys",
    route: "key",
    time: "created_at",
    only: "",
    key: "game_id, seat, key",
};

/// Finished and void games (with their seats, events, keys and deliveries, by cascade).
pub(super) const GAMES_OVER: Purge = Purge {
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
    pub(super) fn candidates(&self, after: bool) -> String {
        self.candidates_in(self.table, "$1", after.then_some(("$2", "$3")))
    }

    /// [`Purge::candidates`] from `table` (the table itself, or one of its shards), with the
    /// time bound and the cursor as given (parameters, or literals).
    pub(super) fn candidates_in(&self, table: &str, before: &str, after: Option<(&str, &str)>) -> String {
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
    pub(super) fn delete(&self, skip_locked: &str) -> String {
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
pub(super) fn due_sql(games: &str, now: &str, after: Option<(&str, &str)>, limit: &str) -> String {
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

/// Up to `limit` games of `heads` (the table `webhook_heads`, or one of its shards) whose first
/// pending delivery is due at `now` and not leased, earliest first: a range scan of the index
/// `webhook_heads_due`, which holds only the games with a delivery pending, so that its cost is
/// that of the games read, however many deliveries wait behind them.
pub(super) fn delivery_candidates_sql(heads: &str, now: &str, limit: &str) -> String {
    format!(
        "SELECT game_id, due_at FROM {heads} WHERE due_at IS NOT NULL AND due_at <= {now} \
         ORDER BY due_at LIMIT {limit}"
    )
}

/// A game whose first pending delivery may be claimed.
#[derive(serde::Deserialize)]
pub(super) struct Candidate {
    pub(super) game_id: Uuid,
    pub(super) due_at: i64,
}

/// What a write that queues webhook deliveries of game `$1` writes besides: the game's head,
/// `$3` the seq of its last delivery queued, and, when it had nothing pending, due at `$2` (its
/// first delivery's time). A head leased or waiting for a retry keeps its time: the new
/// deliveries go after the one it holds. The upsert locks the head's row, so that the settling
/// of the delivery it held, if it comes at once, sees the new `last_seq` (and a settling that
/// came first left `due_at` null, which this fills).
pub(super) const HEAD_UPSERT: &str = "INSERT INTO webhook_heads (game_id, due_at, last_seq) VALUES ($1, $2, $3) \
    ON CONFLICT (game_id) DO UPDATE SET last_seq = excluded.last_seq, \
    due_at = COALESCE(webhook_heads.due_at, excluded.due_at)";

/// Leases game `$1`'s head until `$3` if it is still due at `$2`: the claim of its first pending
/// delivery, by one conditional statement on the game's row.
pub(super) const HEAD_LEASE: &str =
    "UPDATE webhook_heads SET due_at = $3 WHERE game_id = $1 AND due_at IS NOT NULL AND due_at <= $2";

/// Game `$1`'s first pending delivery, and where it goes.
pub(super) const FIRST_PENDING: &str = "SELECT d.id, d.seq, d.version, d.event, d.attempts, d.created_at, \
    d.next_attempt_at, g.webhook_url, g.webhook_secret FROM webhook_deliveries d JOIN games g ON g.id = d.game_id \
    WHERE d.game_id = $1 AND d.status = 'pending' ORDER BY d.seq LIMIT 1";

/// Gives game `$1`'s head, leased until `$2`, the time `$3` (null: nothing pending).
pub(super) const HEAD_RELEASE: &str =
    "UPDATE webhook_heads SET due_at = $3 WHERE game_id = $1 AND due_at = $2";

/// Game `$1`'s head, leased until `$2` and found with no pending delivery: due at `$3` if one is
/// pending after all (written since the claim read), null otherwise. Run after the head's row
/// is locked, by a statement of its own, so that it reads what was written before the lock.
pub(super) const HEAD_RECHECK: &str = "UPDATE webhook_heads SET due_at = CASE WHEN EXISTS \
    (SELECT 1 FROM webhook_deliveries d WHERE d.game_id = $1 AND d.status = 'pending') THEN $3 ELSE NULL END \
    WHERE game_id = $1 AND due_at = $2";

/// What a claim found under a game's head it leased.
pub(super) enum Claimed {
    /// A delivery to attempt.
    Delivery(Delivery),
    /// The first pending delivery is not due until then (a clock ahead of this one wrote it).
    NotYet(Uuid, i64),
    /// Nothing pending was read, or the game has no webhook any more.
    Empty(Uuid),
}

impl Claimed {
    /// What a leased head's first pending delivery (`row`, if any) means, leased until `lease`.
    pub(super) fn of<R: Row>(game_id: Uuid, lease: i64, now: i64, row: Option<&R>) -> Result<Self, StoreError>
    where
        for<'a> &'a str: sqlx::ColumnIndex<R>,
        i64: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
        Option<i64>: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
        String: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
        Option<String>: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    {
        let Some(row) = row else {
            return Ok(Self::Empty(game_id));
        };
        let Some(id) = row.try_get::<Option<String>, _>("id")? else {
            return Ok(Self::Empty(game_id));
        };
        let at: i64 = row
            .try_get::<Option<i64>, _>("next_attempt_at")?
            .unwrap_or_default();
        if at > now {
            return Ok(Self::NotYet(game_id, at));
        }
        let url: Option<String> = row.try_get("webhook_url")?;
        let secret: Option<String> = row.try_get("webhook_secret")?;
        let (Some(url), Some(secret)) = (url, secret) else {
            return Ok(Self::Empty(game_id));
        };
        Ok(Self::Delivery(Delivery {
            id,
            game_id,
            seq: row.try_get::<Option<i64>, _>("seq")?.unwrap_or_default(),
            version: row.try_get::<Option<i64>, _>("version")?.unwrap_or_default(),
            event: row.try_get::<Option<String>, _>("event")?.unwrap_or_default(),
            attempts: row.try_get::<Option<i64>, _>("attempts")?.unwrap_or_default(),
            created_at: row.try_get::<Option<i64>, _>("created_at")?.unwrap_or_default(),
            lease,
            url,
            secret,
        }))
    }
}

/// How a PostgreSQL claim skips rows that another transaction holds.
pub(super) const PG_SKIP_LOCKED: &str = " FOR UPDATE SKIP LOCKED";
/// SQLite has one writer at a time: no row is held by another transaction to skip.
pub(super) const SQLITE_SKIP_LOCKED: &str = "";

/// Seconds since the epoch: the clock of every stored time.
pub fn now() -> i64 {
    now_us() / 1_000_000
}

/// The wall clock in unix milliseconds: deadlines and deliveries are timed by it.
pub fn now_ms() -> i64 {
    now_us() / 1000
}

/// Microseconds since the epoch: a game's place in its tenant's listing.
pub(super) fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
        .unwrap_or_default()
}

/// The column a [`GameRow`] field reads: the field's own name, or the one given after `=`.
macro_rules! game_column {
    ($field:ident) => {
        stringify!($field)
    };
    ($field:ident = $column:ident) => {
        stringify!($column)
    };
}

/// Declares the columns of a game row once, each named as its [`GameRow`] field unless a
/// column is named after `=`: the column list every statement that reads a game selects, and
/// [`game_row`], which reads them.
macro_rules! game_columns {
    ($first:ident $(, $field:ident $(= $column:ident)?)* $(,)?) => {
        /// The columns of a game row, as [`game_row`] reads them.
        pub(super) const GAME_FIELDS: &str =
            concat!(stringify!($first) $(, ", ", game_column!($field $(= $column)?))*);

        /// The select of a game row.
        pub(super) const GAME_COLUMNS: &str =
            concat!("SELECT ", stringify!($first) $(, ", ", game_column!($field $(= $column)?))*, " FROM games");

        /// A game row read by the names of [`GAME_FIELDS`].
        pub(super) fn game_row<R: Row>(r: &R) -> Result<GameRow, StoreError>
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
                $($field: r.try_get(game_column!($field $(= $column)?))?,)*
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
    next_due = deadline
);

/// The one SQL text of both stores, with what differs passed in: how a transaction that will
/// write begins, how the game row is locked and how a claim or a sweep skips rows another one
/// holds. Each store reads optimistically (`transact_optimistic`) and renders an action's
/// [`Write`](super::write::Write) (`write_update`) its own way.
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
                    .execute(self.writer())
                    .await?;
                let row = sqlx::query("SELECT value FROM settings WHERE name = 'jwt_secret'")
                    .fetch_one(&self.pool)
                    .await?;
                Ok(row.try_get("value")?)
            }

            async fn create_game(&self, new: &NewGame, key: Option<(&KeyRef, &StoredResponse)>) -> Result<bool, StoreError> {
                let mut tx = self.writer().begin_with($begin).await?;
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
                     tenant, created_us, webhook_url, webhook_secret, deadline, rated) \
                     VALUES ($1, $2, $3, $4, $5, $9, $6, $7, $8, $8, $10, $11, $12, $13, $14, $15) \
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
                .bind(g.next_due)
                .bind(new.rated)
                .execute(&mut *tx)
                .await?;
                if inserted.rows_affected() == 0 {
                    // A rematch another request made first: it stands as made.
                    return Ok(false);
                }
                for s in &new.seats {
                    sqlx::query("INSERT INTO seats (game_id, seat, name, kind, player) VALUES ($1, $2, $3, $4, $5)")
                        .bind(g.id)
                        .bind(s.seat)
                        .bind(&s.name)
                        .bind(&s.kind)
                        .bind(&s.player)
                        .execute(&mut *tx)
                        .await?;
                }
                let events = write::events(&new.events, 1, at);
                let outbox = write::outbox(&new.events, 1, g.version);
                let kept = key.map(|(key, response)| write::kept(key, response, at));
                Self::insert_rows(&mut tx, g.id, &events, &outbox, kept.as_ref()).await?;
                tx.commit().await?;
                Self::release(guard).await;
                Ok(true)
            }

            async fn ratings(
                &self,
                tenant: &str,
                variant: engine::Variant,
                participants: &[crate::domain::Participant],
            ) -> Result<Vec<Option<crate::domain::Rating>>, StoreError> {
                self.ratings_of(tenant, variant, participants).await
            }

            async fn claim_ratings(&self, now: i64, lease: i64, limit: i64) -> Result<Vec<RatingDue>, StoreError> {
                self.claim_ratings_in(now, lease, limit).await
            }

            async fn rate_game<E, F>(
                &self,
                tenant: &str,
                game: Uuid,
                variant: engine::Variant,
                participants: &[(crate::domain::Participant, crate::domain::Rating)],
                decide: F,
            ) -> Result<String, E>
            where
                E: From<StoreError>,
                F: FnOnce(&[(crate::domain::Participant, crate::domain::Rating)]) -> Result<RatingWrite, E>,
            {
                self.rate_game_in(tenant, game, variant, participants, decide).await
            }

            async fn rating_done(&self, game: Uuid) -> Result<(), StoreError> {
                self.rating_done_in(game).await
            }

            async fn player(&self, tenant: &str, player: &crate::domain::PlayerId) -> Result<PlayerRecord, StoreError> {
                self.player_in(tenant, player).await
            }

            async fn leaderboard(
                &self,
                tenant: &str,
                variant: engine::Variant,
                limit: u32,
                after: Option<&BoardCursor>,
            ) -> Result<Vec<BoardRow>, StoreError> {
                self.leaderboard_in(tenant, variant, limit, after).await
            }

            async fn standing(
                &self,
                tenant: &str,
                variant: engine::Variant,
                participant: &str,
                above: u32,
                below: u32,
            ) -> Result<Option<Standing>, StoreError> {
                self.standing_in(tenant, variant, participant, above, below).await
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
                if let Some(player) = &listing.player {
                    query = query.bind(player.as_str());
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

            async fn transact<T, E, F>(&self, on: On<'_>, lock: Lock, act: F) -> Result<Option<T>, E>
            where
                E: From<StoreError>,
                F: FnMut(&GameRow) -> Result<Outcome<T>, E>,
            {
                match lock {
                    Lock::Optimistic => self.transact_optimistic(on, act).await,
                    Lock::Row | Lock::Due { .. } => self.transact_held(on, lock, act).await,
                }
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
                .execute(self.writer_of(id).await)
                .await?;
                Ok(leased.rows_affected() > 0)
            }

            async fn set_aside(&self, id: Uuid, at: i64) -> Result<bool, StoreError> {
                let marked = sqlx::query(
                    "UPDATE games SET deadline = NULL, set_aside_at = $2 WHERE id = $1 AND set_aside_at IS NULL",
                )
                .bind(id)
                .bind(at)
                .execute(self.writer_of(id).await)
                .await?;
                Ok(marked.rows_affected() > 0)
            }

            async fn claim_deliveries(&self, now: i64, lease: i64, limit: i64) -> Result<Vec<Delivery>, StoreError> {
                let lease_until = now.saturating_add(lease);
                let claimed = self.claim_heads(now, lease_until, limit).await?;
                let mut out = Vec::with_capacity(claimed.len());
                for c in claimed {
                    let (game, at) = match c {
                        Claimed::Delivery(d) => {
                            out.push(d);
                            continue;
                        }
                        Claimed::NotYet(game, at) => (game, Some(at)),
                        Claimed::Empty(game) => (game, None),
                    };
                    // Rare: given back at once, each on its own, and logged if that fails (the
                    // lease then runs out).
                    let given = match at {
                        Some(at) => sqlx::query(HEAD_RELEASE)
                            .bind(game)
                            .bind(lease_until)
                            .bind(at)
                            .execute(self.writer_of(game).await)
                            .await
                            .map(|_| ())
                            .map_err(StoreError::from),
                        None => self.recheck_head(game, lease_until, now).await,
                    };
                    if let Err(e) = given {
                        tracing::warn!(game = %game, error = %e, "a webhook head could not be given back; its lease runs out");
                    }
                }
                Ok(out)
            }

            async fn settle_delivery(&self, d: &Delivery, attempt: &Attempt) -> Result<(), StoreError> {
                let (status, next, error) = match attempt {
                    Attempt::Delivered => ("delivered", 0, None),
                    Attempt::Retry { at, error } => ("pending", *at, Some(error.as_str())),
                    Attempt::GivenUp { error } => ("failed", 0, Some(error.as_str())),
                };
                self.settle(d, status, next, error, now_ms()).await
            }

            async fn backlog(&self, now: i64) -> Result<Backlog, StoreError> {
                let count = |sql: &'static str| sqlx::query_scalar::<_, i64>(sql).fetch_one(&self.pool);
                Ok(Backlog {
                    webhooks: count("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'").await?,
                    due: sqlx::query_scalar("SELECT count(*) FROM games WHERE deadline IS NOT NULL AND deadline <= $1")
                        .bind(now)
                        .fetch_one(&self.pool)
                        .await?,
                    tickets: count("SELECT count(*) FROM tickets WHERE status = 'waiting'").await?,
                })
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
            pub(super) async fn due_in_one(&self, now: i64, after: Option<DueGame>, limit: i64) -> Result<Vec<DueGame>, StoreError> {
                let sql = due_sql("games", "$1", after.is_some().then_some(("$3", "$4")), "$2");
                let mut query = sqlx::query(AssertSqlSafe(sql)).bind(now).bind(limit);
                if let Some(after) = after {
                    query = query.bind(after.next_due).bind(after.id);
                }
                let rows = query.fetch_all(&self.pool).await?;
                rows.iter()
                    .map(|r| {
                        Ok(DueGame {
                            id: r.try_get("id")?,
                            next_due: r.try_get("deadline")?,
                        })
                    })
                    .collect()
            }

            /// The candidates of [`Store::claim_deliveries`], by one query of the whole table.
            pub(super) async fn delivery_candidates_in_one(&self, now: i64, limit: i64) -> Result<Vec<Candidate>, StoreError> {
                let sql = delivery_candidates_sql("webhook_heads", "$1", "$2");
                let rows = sqlx::query(AssertSqlSafe(sql))
                    .bind(now)
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter()
                    .map(|r| {
                        Ok(Candidate {
                            game_id: r.try_get("game_id")?,
                            due_at: r.try_get("due_at")?,
                        })
                    })
                    .collect()
            }

            /// Claims the heads of `candidates` one by one, each by a conditional statement on
            /// its game's row ([`HEAD_LEASE`]), and reads each one's first pending delivery: a
            /// head another replica leased meanwhile is not taken.
            pub(super) async fn claim_each(&self, candidates: Vec<Candidate>, now: i64, lease_until: i64) -> Result<Vec<Claimed>, StoreError> {
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
                    let first = sqlx::query(FIRST_PENDING).bind(game_id).fetch_optional(pool).await?;
                    out.push(Claimed::of(game_id, lease_until, now, first.as_ref())?);
                }
                Ok(out)
            }

            /// Game `game`'s head, leased until `lease_until` and found with nothing pending:
            /// its row locked, then read again by a statement of its own ([`HEAD_RECHECK`]),
            /// so that a write that queued deliveries meanwhile is seen (it holds the row until
            /// it commits), and one that comes after finds the head idle and makes it due.
            pub(super) async fn recheck_head(&self, game: Uuid, lease_until: i64, now: i64) -> Result<(), StoreError> {
                let mut tx = self.writer_of(game).await.begin_with($begin).await?;
                sqlx::query(concat!("SELECT game_id FROM webhook_heads WHERE game_id = $1 AND due_at = $2", $lock))
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

            /// Deletes the rows of `purge` whose value of the column the table is spread by is
            /// one of `values` and that expired before `before`, one statement per value (one
            /// game, or one key), skipping rows another replica or a request holds. Returns
            /// how many went.
            pub(super) async fn delete_expired<V>(&self, purge: &Purge, values: Vec<V>, before: i64) -> Result<u64, StoreError>
            where
                V: for<'q> sqlx::Encode<'q, $db> + sqlx::Type<$db> + Send + 'static,
            {
                let delete = purge.delete($skip_locked);
                let mut deleted = 0;
                for value in values {
                    let done = sqlx::query(AssertSqlSafe(delete.as_str()))
                        .bind(value)
                        .bind(before)
                        .execute(self.writer())
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
            pub(super) async fn purge<V>(&self, purge: &Purge, before: i64) -> Result<u64, StoreError>
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

            /// [`Store::transact`] under [`Lock::Row`] or [`Lock::Due`]: one transaction that
            /// holds the game's row from the read to the commit (on SQLite, the database, since
            /// `BEGIN IMMEDIATE`); under `Due`, only a row still due that no other transaction
            /// holds, which it skips rather than waits for (one that committed first has moved
            /// the deadline on, so the game is no longer due: each expiry counts once).
            pub(super) async fn transact_held<T, E, F>(&self, on: On<'_>, lock: Lock, mut act: F) -> Result<Option<T>, E>
            where
                E: From<StoreError>,
                F: FnMut(&GameRow) -> Result<Outcome<T>, E>,
            {
                let (due, row_lock) = match lock {
                    Lock::Due { now } => (Some(now), $skip_locked),
                    Lock::Row | Lock::Optimistic => (None, $lock),
                };
                let mut tx = self.writer_of(on.id).await.begin_with($begin).await.map_err(StoreError::from)?;
                let read = Self::read_game(&mut tx, on, due, ("", row_lock), None).await?;
                let Some((game, taken, _)) = read else {
                    return Ok(None);
                };
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
                    return Ok(Some(value));
                };
                let guard = match &update.bot_tables {
                    Some(limit) => self.admit(&mut tx, on.id, limit).await?,
                    None => None,
                };
                let last = self.write_update(&mut tx, &game, on.key, &update).await?;
                tx.commit()
                    .traced_statement(Self::SYSTEM, "COMMIT", "")
                    .await
                    .map_err(StoreError::from)?;
                Self::release(guard).await;
                // Streams hear of every change, a timed-out turn's as a move's.
                if !update.events.is_empty() {
                    self.announce(on.id, last, &update.events);
                }
                Ok(Some(value))
            }

            /// Takes the limit's lock in `tx` (see `BOT_TABLES_LOCK_SQL`), then counts
            /// `limit.tenant`'s tables of bots alone in play or finished since
            /// `limit.finished_since`, game `id` aside: a write that would
            /// make one more than `limit.limit` is [`StoreError::BotTablesFull`].
            pub(super) async fn count_bot_tables(
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
                    .bind(limit.finished_since)
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
            pub(super) async fn release(guard: Option<sqlx::Transaction<'static, $db>>) {
                if let Some(guard) = guard
                    && let Err(e) = guard.commit().await
                {
                    // The lock ends with the connection anyway; the write stands.
                    tracing::debug!(error = %e, "the lock on tables of bots alone ended with its connection");
                }
            }

            /// Reads game `on.id` (of `on.tenant` only, when given; with its deadline at or
            /// before `due`, when given), with `extra` columns before its own and `lock` after the
            /// query (a row lock until the transaction ends, one that skips a held row, or
            /// nothing); with `on.key`, also whether that key is stored already, in the same
            /// statement (one round trip fewer per keyed action); with `shards`, from the game's
            /// own shards, on the node that holds them (not found there once they moved).
            /// Returns the game, whether the key is taken, and the row for the extra columns;
            /// `None` when no such game is found.
            pub(super) async fn read_game(
                conn: &mut <$db as sqlx::Database>::Connection,
                on: On<'_>,
                due: Option<i64>,
                (extra, lock): (&str, &str),
                shards: Option<&GameShards>,
            ) -> Result<Option<(GameRow, bool, <$db as sqlx::Database>::Row)>, StoreError> {
                let On { id, tenant, key } = on;
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
                let mut n = if key.is_some() { 3 } else { 1 };
                let mut conditions = String::new();
                if tenant.is_some() {
                    n += 1;
                    conditions.push_str(&format!(" AND tenant = ${n}"));
                }
                if due.is_some() {
                    n += 1;
                    conditions.push_str(&format!(" AND deadline IS NOT NULL AND deadline <= ${n}"));
                }
                let mut query = sqlx::query(AssertSqlSafe(format!(
                    "SELECT {extra}{GAME_FIELDS}{} FROM {games} WHERE id = $1{conditions}{placed_here}{lock}",
                    taken.as_deref().unwrap_or("")
                )))
                .bind(id);
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
                let taken = match key {
                    Some(_) => row.try_get::<bool, _>("taken")?,
                    None => false,
                };
                Ok(Some((game_row(&row)?, taken, row)))
            }

            /// Appends game `game`'s `events`, queues its webhook deliveries `outbox` and keeps
            /// `key`, in `tx`, one statement each: the rows a creation adds, and those of an
            /// action on SQLite.
            pub(super) async fn insert_rows(
                tx: &mut <$db as sqlx::Database>::Connection,
                game: Uuid,
                events: &[EventWrite<'_>],
                outbox: &[DeliveryWrite<'_>],
                key: Option<&KeyWrite<'_>>,
            ) -> Result<(), StoreError> {
                if !events.is_empty() {
                    let mut insert = sqlx::QueryBuilder::<$db>::new(EVENT_INSERT);
                    push_event_values(&mut insert, game, events);
                    insert
                        .build()
                        .execute(&mut *tx)
                        .traced_statement(Self::SYSTEM, "INSERT", "events")
                        .await?;
                }
                if !outbox.is_empty() {
                    let mut insert = sqlx::QueryBuilder::<$db>::new(OUTBOX_INSERT);
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
                    let mut insert = sqlx::QueryBuilder::<$db>::new(key_insert(key.table));
                    push_key_values(&mut insert, key);
                    insert.build().execute(&mut *tx).await.map_err(|e| key_taken(e, None))?;
                }
                Ok(())
            }
        }
    };
}

pub(super) use sql_store;

/// A fresh webhook delivery id: the `webhook-id` its receiver sees on every attempt.
pub(super) fn delivery_id() -> String {
    format!("msg_{}", Uuid::new_v4().simple())
}

/// A stored event from a row holding its `seq` and `body`.
pub(super) fn event_row<R: Row>(r: &R) -> Result<EventRow, StoreError>
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

/// The start of an `INSERT` of events, before their rows ([`push_event_values`]).
pub(super) const EVENT_INSERT: &str = "INSERT INTO events (game_id, seq, seat, body, step, created_at) ";

/// Queues game `$1` for rating, due at `$2` (unix ms), with its tenant: what a change that
/// finishes a rated game writes besides (the write of SQLite; PostgreSQL's one statement and
/// the cluster's function say the same).
pub(super) const RATING_DUE_INSERT: &str = "INSERT INTO ratings_due (game_id, tenant, due_at) \
    SELECT id, tenant, $2 FROM games WHERE id = $1 ON CONFLICT (game_id) DO NOTHING";

/// The start of an `INSERT` of webhook deliveries, before their rows ([`push_outbox_values`]).
pub(super) const OUTBOX_INSERT: &str =
    "INSERT INTO webhook_deliveries (id, game_id, seq, version, event, status, next_attempt_at, created_at) ";

/// The start of an `INSERT` of a kept idempotency key into `table`, before its row
/// ([`push_key_values`]).
pub(super) fn key_insert(table: &str) -> String {
    format!(
        "INSERT INTO {table} (game_id, seat, key, request_hash, status, response_status, response_headers, \
         response_body, created_at) "
    )
}

/// Pushes the `VALUES` of game `game`'s `events` onto `sql`.
pub(super) fn push_event_values<DB>(sql: &mut QueryBuilder<DB>, game: Uuid, events: &[EventWrite<'_>])
where
    DB: sqlx::Database,
    Uuid: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    i64: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<i64>: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    for<'a> &'a str: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    for<'a> Option<&'a str>: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
{
    sql.push_values(events, |mut row, e| {
        row.push_bind(game)
            .push_bind(e.seq)
            .push_bind(e.seat)
            .push_bind(e.body)
            .push_bind(e.step)
            .push_bind(e.created_at);
    });
}

/// Pushes the `VALUES` of game `game`'s webhook deliveries `outbox` onto `sql`.
pub(super) fn push_outbox_values<DB>(sql: &mut QueryBuilder<DB>, game: Uuid, outbox: &[DeliveryWrite<'_>])
where
    DB: sqlx::Database,
    Uuid: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    i64: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    for<'a> &'a str: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
{
    sql.push_values(outbox, |mut row, o| {
        row.push_bind(o.id.as_str())
            .push_bind(game)
            .push_bind(o.seq)
            .push_bind(o.version)
            .push_bind(o.event)
            .push_bind(o.status)
            .push_bind(o.next_attempt_at)
            .push_bind(o.created_at);
    });
}

/// Pushes the `VALUES` of the kept idempotency key `key` onto `sql`.
pub(super) fn push_key_values<DB>(sql: &mut QueryBuilder<DB>, key: &KeyWrite<'_>)
where
    DB: sqlx::Database,
    Uuid: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    i64: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    for<'a> &'a str: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    for<'a> Option<&'a str>: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    for<'a> &'a [u8]: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
{
    sql.push_values([key], |mut row, k| {
        row.push_bind(k.game)
            .push_bind(k.seat)
            .push_bind(k.key)
            .push_bind(k.request_hash)
            .push_bind(k.status)
            .push_bind(k.response_status)
            .push_bind(k.response_headers)
            .push_bind(k.response_body)
            .push_bind(k.created_at);
    });
}

/// A failed write of an idempotency key's row: a copy of the request that kept the key first
/// (its unique primary key) is [`StoreError::KeyTaken`]; with `table`, only a violation the
/// database names on that table is (PostgreSQL's one statement writes other rows too).
pub(super) fn key_taken(e: sqlx::Error, table: Option<&str>) -> StoreError {
    match &e {
        sqlx::Error::Database(db)
            if db.is_unique_violation() && table.is_none_or(|t| db.table() == Some(t)) =>
        {
            StoreError::KeyTaken
        }
        _ => StoreError::from(e),
    }
}

/// The query of a listing page: the tenant's games, newest first, from the cursor on, with
/// the status filter if any, served by the indexes `games_by_tenant(_status)`, and the games of
/// one player if asked (their seats found by `seats_by_player`). Parameters: `$1` tenant, then
/// the status, then the player, then the cursor's time and id, then the limit.
pub fn list_sql(listing: &GameListing) -> String {
    let mut sql = format!("SELECT {GAME_FIELDS}, created_us FROM games WHERE tenant = $1");
    let mut n = 1;
    if listing.status.is_some() {
        n += 1;
        sql.push_str(&format!(" AND status = ${n}"));
    }
    if listing.player.is_some() {
        n += 1;
        sql.push_str(&format!(
            " AND id IN (SELECT game_id FROM seats WHERE player = ${n})"
        ));
    }
    if listing.after.is_some() {
        sql.push_str(&format!(" AND (created_us, id) < (${}, ${})", n + 1, n + 2));
        n += 2;
    }
    sql.push_str(&format!(" ORDER BY created_us DESC, id DESC LIMIT ${}", n + 1));
    sql
}
