//! Storage: one [`Store`] trait, implemented for PostgreSQL ([`PgStore`]) and SQLite
//! ([`SqliteStore`]) by the same SQL, and [`Database`] choosing between them at start.
//!
//! Every action is one transaction ([`Store::transact`]): lock the game row (`FOR UPDATE` on
//! PostgreSQL, `BEGIN IMMEDIATE` on SQLite), let the caller apply the action, write the new
//! state, its events, the version and the idempotent response, commit. Nothing about a game
//! is kept in the process.

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions};
use sqlx::{AssertSqlSafe, PgPool, Row, SqlitePool};
use uuid::Uuid;

use crate::config::DatabaseSettings;
use crate::error::ApiError;

/// A game as stored.
#[derive(Clone, Debug)]
pub struct GameRow {
    /// Game id.
    pub id: Uuid,
    /// Variant id.
    pub variant: String,
    /// `waiting`, `playing`, `finished` or `void`.
    pub status: String,
    /// The serialised game as JSON text.
    pub state: String,
    /// Incremented by every accepted action.
    pub version: i64,
    /// The shuffle seed (hex), secret until the game ends.
    pub seed: String,
    /// Public commitment to the seed.
    pub seed_commitment: String,
}

/// A seat as stored (a mirror of the seats in the game state, for queries).
#[derive(Clone, Debug)]
pub struct SeatRow {
    /// Seat index from 0.
    pub seat: i64,
    /// The player's name, once known.
    pub name: Option<String>,
    /// `player`, `open` or `bot`.
    pub kind: String,
}

/// An event to append.
#[derive(Clone, Debug)]
pub struct NewEvent {
    /// The seat the event concerns, if any.
    pub seat: Option<i64>,
    /// The event as JSON text.
    pub body: String,
}

/// A stored event.
#[derive(Clone, Debug)]
pub struct EventRow {
    /// Sequence number from 1, per game.
    pub seq: i64,
    /// The event as JSON text.
    pub body: String,
}

/// A response kept for an idempotency key, returned byte for byte on a retry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredResponse {
    /// HTTP status.
    pub status: u16,
    /// The `ETag` header, if any.
    pub etag: Option<String>,
    /// The body.
    pub body: Vec<u8>,
}

/// Where an idempotency key lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyScope {
    /// Per game and seat (moves; joins use seat -1, as the seat is not known yet).
    Game,
    /// Global, for creating a game (game is the nil UUID, seat -1).
    Creation,
}

/// An idempotency key as presented by a request.
#[derive(Clone, Debug)]
pub struct KeyRef {
    /// Which table holds it.
    pub scope: KeyScope,
    /// The game.
    pub game: Uuid,
    /// The acting seat.
    pub seat: i64,
    /// The client's key.
    pub key: String,
    /// Hash of method, path and body.
    pub request_hash: String,
}

/// What the store knows of an idempotency key when a request presents it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyClaim {
    /// First use: the request may act; the key is now marked running.
    Fresh,
    /// A finished request with this key and body: answer with its response.
    Replay(StoredResponse),
    /// A request with this key is still running.
    Running,
    /// The key was used with another request.
    Mismatch,
}

impl KeyRef {
    /// The table of this key's scope.
    fn table(&self) -> &'static str {
        match self.scope {
            KeyScope::Game => "idempotency_keys",
            KeyScope::Creation => "creation_keys",
        }
    }
}

/// A new game with its seats and first events.
#[derive(Clone, Debug)]
pub struct NewGame {
    /// The game row (its version is the starting version).
    pub game: GameRow,
    /// Its seats.
    pub seats: Vec<SeatRow>,
    /// Its first events.
    pub events: Vec<NewEvent>,
}

/// What an accepted action changes.
#[derive(Clone, Debug)]
pub struct GameUpdate {
    /// The new version: the old one plus the number of actions accepted.
    pub version: i64,
    /// New status.
    pub status: String,
    /// New state JSON.
    pub state: String,
    /// Seats whose name or kind changed.
    pub seats: Vec<SeatRow>,
    /// Events to append, in order.
    pub events: Vec<NewEvent>,
    /// The response to keep for the request's idempotency key, if it has one.
    pub response: Option<StoredResponse>,
}

/// The result of a transaction: maybe an update, and what the caller wants back.
#[derive(Debug)]
pub struct Outcome<T> {
    /// The change to write (none: nothing changes, the version stays).
    pub update: Option<GameUpdate>,
    /// The caller's result.
    pub value: T,
}

/// After this long a request marked running is taken for dead (a request takes milliseconds).
const STALE_RUNNING_SECS: i64 = 60;

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or_default()
}

/// Everything the service asks of a database.
#[expect(async_fn_in_trait, reason = "used only inside this crate, on concrete types")]
pub trait Store {
    /// Checks the database answers.
    async fn ready(&self) -> Result<(), ApiError>;
    /// The seat-token secret stored in the database; `generated` is stored first if there is none.
    async fn jwt_secret(&self, generated: String) -> Result<String, ApiError>;
    /// Inserts a new game, its seats and its first events, and in the same transaction the
    /// response of the request's idempotency key, if it has one.
    async fn create_game(
        &self,
        new: &NewGame,
        key: Option<(&KeyRef, &StoredResponse)>,
    ) -> Result<(), ApiError>;
    /// The game, if it exists.
    async fn game(&self, id: Uuid) -> Result<Option<GameRow>, ApiError>;
    /// Events of `id` with `seq > after`, at most `limit`.
    async fn events_after(&self, id: Uuid, after: i64, limit: i64) -> Result<Vec<EventRow>, ApiError>;
    /// Claims an idempotency key for a request (in its own short transaction).
    async fn claim_key(&self, key: &KeyRef) -> Result<KeyClaim, ApiError>;
    /// Stores the final response of a request whose action did not change the game.
    async fn finish_key(&self, key: &KeyRef, response: &StoredResponse) -> Result<(), ApiError>;
    /// Forgets a key whose request failed unexpectedly, so a retry can run.
    async fn release_key(&self, key: &KeyRef) -> Result<(), ApiError>;
    /// One action as one transaction: lock game `id`, call `act` with it, write its update
    /// (its version, events, idempotent response under `key`), commit. An error from `act`
    /// rolls back and changes nothing.
    async fn transact<T, F>(&self, id: Uuid, key: Option<&KeyRef>, act: F) -> Result<T, ApiError>
    where
        F: FnOnce(&GameRow) -> Result<Outcome<T>, ApiError>;
}

/// PostgreSQL storage.
#[derive(Clone, Debug)]
pub struct PgStore {
    pool: PgPool,
}

/// SQLite storage.
#[derive(Clone, Debug)]
pub struct SqliteStore {
    pool: SqlitePool,
}

/// The one SQL text of both stores, with what differs passed in: how a transaction that will
/// write begins and how the game row is locked.
macro_rules! sql_store {
    ($store:ty, $begin:literal, $lock:literal) => {
        impl Store for $store {
            async fn ready(&self) -> Result<(), ApiError> {
                sqlx::query("SELECT 1").execute(&self.pool).await?;
                Ok(())
            }

            async fn jwt_secret(&self, generated: String) -> Result<String, ApiError> {
                sqlx::query("INSERT INTO settings (name, value) VALUES ('jwt_secret', $1) ON CONFLICT (name) DO NOTHING")
                    .bind(generated)
                    .execute(&self.pool)
                    .await?;
                let row = sqlx::query("SELECT value FROM settings WHERE name = 'jwt_secret'")
                    .fetch_one(&self.pool)
                    .await?;
                Ok(row.try_get("value")?)
            }

            async fn create_game(&self, new: &NewGame, key: Option<(&KeyRef, &StoredResponse)>) -> Result<(), ApiError> {
                let mut tx = self.pool.begin_with($begin).await?;
                let g = &new.game;
                let at = now();
                sqlx::query(
                    "INSERT INTO games (id, variant, status, state, version, seed, seed_commitment, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)",
                )
                .bind(g.id)
                .bind(&g.variant)
                .bind(&g.status)
                .bind(&g.state)
                .bind(g.version)
                .bind(&g.seed)
                .bind(&g.seed_commitment)
                .bind(at)
                .execute(&mut *tx)
                .await?;
                for s in &new.seats {
                    sqlx::query("INSERT INTO seats (game_id, seat, name, kind) VALUES ($1, $2, $3, $4)")
                        .bind(g.id)
                        .bind(s.seat)
                        .bind(&s.name)
                        .bind(&s.kind)
                        .execute(&mut *tx)
                        .await?;
                }
                for (i, e) in new.events.iter().enumerate() {
                    sqlx::query("INSERT INTO events (game_id, seq, seat, body, created_at) VALUES ($1, $2, $3, $4, $5)")
                        .bind(g.id)
                        .bind(i as i64 + 1)
                        .bind(e.seat)
                        .bind(&e.body)
                        .bind(at)
                        .execute(&mut *tx)
                        .await?;
                }
                if let Some((key, response)) = key {
                    store_response(&mut *tx, key, response).await?;
                }
                tx.commit().await?;
                Ok(())
            }

            async fn game(&self, id: Uuid) -> Result<Option<GameRow>, ApiError> {
                let row = sqlx::query(
                    "SELECT id, variant, status, state, version, seed, seed_commitment FROM games WHERE id = $1",
                )
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
                row.map(|r| game_row(&r)).transpose()
            }

            async fn events_after(&self, id: Uuid, after: i64, limit: i64) -> Result<Vec<EventRow>, ApiError> {
                let rows = sqlx::query("SELECT seq, body FROM events WHERE game_id = $1 AND seq > $2 ORDER BY seq LIMIT $3")
                    .bind(id)
                    .bind(after)
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter()
                    .map(|r| {
                        Ok(EventRow {
                            seq: r.try_get("seq")?,
                            body: r.try_get("body")?,
                        })
                    })
                    .collect()
            }

            async fn claim_key(&self, key: &KeyRef) -> Result<KeyClaim, ApiError> {
                let mut tx = self.pool.begin_with($begin).await?;
                let inserted = sqlx::query(AssertSqlSafe(format!(
                    "INSERT INTO {} (game_id, seat, key, request_hash, status, created_at) \
                     VALUES ($1, $2, $3, $4, 'running', $5) ON CONFLICT (game_id, seat, key) DO NOTHING",
                    key.table()
                )))
                .bind(key.game)
                .bind(key.seat)
                .bind(&key.key)
                .bind(&key.request_hash)
                .bind(now())
                .execute(&mut *tx)
                .await?
                .rows_affected();
                let claim = if inserted == 1 {
                    KeyClaim::Fresh
                } else {
                    let row = sqlx::query(AssertSqlSafe(format!(
                        "SELECT request_hash, status, response_status, response_headers, response_body, created_at \
                         FROM {} WHERE game_id = $1 AND seat = $2 AND key = $3",
                        key.table()
                    )))
                    .bind(key.game)
                    .bind(key.seat)
                    .bind(&key.key)
                    .fetch_one(&mut *tx)
                    .await?;
                    let hash: String = row.try_get("request_hash")?;
                    let status: String = row.try_get("status")?;
                    if hash != key.request_hash {
                        KeyClaim::Mismatch
                    } else if status != "done" {
                        let started: i64 = row.try_get("created_at")?;
                        let at = now();
                        // A request that has run this long died with its process: let the
                        // retry take the key over rather than answer 409 forever.
                        let taken = started < at - STALE_RUNNING_SECS
                            && sqlx::query(AssertSqlSafe(format!(
                                "UPDATE {} SET created_at = $4 \
                                 WHERE game_id = $1 AND seat = $2 AND key = $3 AND status = 'running' AND created_at = $5",
                                key.table()
                            )))
                            .bind(key.game)
                            .bind(key.seat)
                            .bind(&key.key)
                            .bind(at)
                            .bind(started)
                            .execute(&mut *tx)
                            .await?
                            .rows_affected()
                                == 1;
                        if taken { KeyClaim::Fresh } else { KeyClaim::Running }
                    } else {
                        let code: Option<i64> = row.try_get("response_status")?;
                        let etag: Option<String> = row.try_get("response_headers")?;
                        let body: Option<Vec<u8>> = row.try_get("response_body")?;
                        KeyClaim::Replay(StoredResponse {
                            status: u16::try_from(code.unwrap_or(500)).unwrap_or(500),
                            etag,
                            body: body.unwrap_or_default(),
                        })
                    }
                };
                tx.commit().await?;
                Ok(claim)
            }

            async fn finish_key(&self, key: &KeyRef, response: &StoredResponse) -> Result<(), ApiError> {
                store_response(&self.pool, key, response).await
            }

            async fn release_key(&self, key: &KeyRef) -> Result<(), ApiError> {
                sqlx::query(AssertSqlSafe(format!(
                    "DELETE FROM {} WHERE game_id = $1 AND seat = $2 AND key = $3",
                    key.table()
                )))
                    .bind(key.game)
                    .bind(key.seat)
                    .bind(&key.key)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn transact<T, F>(&self, id: Uuid, key: Option<&KeyRef>, act: F) -> Result<T, ApiError>
            where
                F: FnOnce(&GameRow) -> Result<Outcome<T>, ApiError>,
            {
                let mut tx = self.pool.begin_with($begin).await?;
                let row = sqlx::query(concat!(
                    "SELECT id, variant, status, state, version, seed, seed_commitment FROM games WHERE id = $1",
                    $lock
                ))
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
                let Some(row) = row else {
                    return Err(ApiError::not_found("game_not_found", format!("no game {id}")));
                };
                let game = game_row(&row)?;
                // On error the transaction is dropped, which rolls it back.
                let Outcome { update, value } = act(&game)?;
                let Some(update) = update else {
                    tx.commit().await?;
                    return Ok(value);
                };
                let at = now();
                sqlx::query("UPDATE games SET status = $2, state = $3, version = $4, updated_at = $5 WHERE id = $1")
                    .bind(id)
                    .bind(&update.status)
                    .bind(&update.state)
                    .bind(update.version)
                    .bind(at)
                    .execute(&mut *tx)
                    .await?;
                for s in &update.seats {
                    sqlx::query("UPDATE seats SET name = $3, kind = $4 WHERE game_id = $1 AND seat = $2")
                        .bind(id)
                        .bind(s.seat)
                        .bind(&s.name)
                        .bind(&s.kind)
                        .execute(&mut *tx)
                        .await?;
                }
                if !update.events.is_empty() {
                    let last: Option<i64> = sqlx::query("SELECT MAX(seq) AS last FROM events WHERE game_id = $1")
                        .bind(id)
                        .fetch_one(&mut *tx)
                        .await?
                        .try_get("last")?;
                    let mut seq = last.unwrap_or(0);
                    for e in &update.events {
                        seq += 1;
                        sqlx::query("INSERT INTO events (game_id, seq, seat, body, created_at) VALUES ($1, $2, $3, $4, $5)")
                            .bind(id)
                            .bind(seq)
                            .bind(e.seat)
                            .bind(&e.body)
                            .bind(at)
                            .execute(&mut *tx)
                            .await?;
                    }
                }
                if let (Some(key), Some(response)) = (key, &update.response) {
                    store_response(&mut *tx, key, response).await?;
                }
                tx.commit().await?;
                Ok(value)
            }
        }
    };
}

/// Marks `key` done with the response to replay.
async fn store_response<'e, E>(executor: E, key: &KeyRef, response: &StoredResponse) -> Result<(), ApiError>
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
        "UPDATE {} SET status = 'done', response_status = $4, response_headers = $5, \
         response_body = $6 WHERE game_id = $1 AND seat = $2 AND key = $3",
        key.table()
    )))
    .bind(key.game)
    .bind(key.seat)
    .bind(key.key.clone())
    .bind(i64::from(response.status))
    .bind(response.etag.clone())
    .bind(response.body.clone())
    .execute(executor)
    .await?;
    Ok(())
}

fn game_row<R: Row>(r: &R) -> Result<GameRow, ApiError>
where
    for<'a> &'a str: sqlx::ColumnIndex<R>,
    Uuid: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    String: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    i64: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
{
    Ok(GameRow {
        id: r.try_get("id")?,
        variant: r.try_get("variant")?,
        status: r.try_get("status")?,
        state: r.try_get("state")?,
        version: r.try_get("version")?,
        seed: r.try_get("seed")?,
        seed_commitment: r.try_get("seed_commitment")?,
    })
}

sql_store!(PgStore, "BEGIN", " FOR UPDATE");
// BEGIN IMMEDIATE takes SQLite's write lock at once, so two writers queue instead of both
// reading the old state and one failing at commit.
sql_store!(SqliteStore, "BEGIN IMMEDIATE", "");

/// The configured database.
#[derive(Clone, Debug)]
pub enum Database {
    /// PostgreSQL.
    Postgres(PgStore),
    /// SQLite.
    Sqlite(SqliteStore),
}

impl Database {
    /// Connects (creating the SQLite file if needed) and runs the embedded migrations.
    ///
    /// # Errors
    /// When the database can't be reached or a migration fails.
    pub async fn connect(settings: &DatabaseSettings) -> Result<Database, ApiError> {
        match settings {
            DatabaseSettings::Postgres { url } => {
                let options = PgConnectOptions::from_str(url)?;
                let pool = PgPoolOptions::new()
                    .max_connections(10)
                    .acquire_timeout(Duration::from_secs(10))
                    .connect_with(options)
                    .await?;
                sqlx::migrate!("../migrations/postgres")
                    .run(&pool)
                    .await
                    .map_err(ApiError::unexpected)?;
                Ok(Database::Postgres(PgStore { pool }))
            }
            DatabaseSettings::Sqlite { path } => {
                let options = SqliteConnectOptions::new()
                    .filename(path)
                    .create_if_missing(true)
                    .journal_mode(SqliteJournalMode::Wal)
                    .busy_timeout(Duration::from_secs(30))
                    .foreign_keys(true);
                let pool = SqlitePoolOptions::new()
                    .max_connections(8)
                    .acquire_timeout(Duration::from_secs(30))
                    .connect_with(options)
                    .await?;
                sqlx::migrate!("../migrations/sqlite")
                    .run(&pool)
                    .await
                    .map_err(ApiError::unexpected)?;
                Ok(Database::Sqlite(SqliteStore { pool }))
            }
        }
    }
}

/// Forwards each method to the store in use.
macro_rules! dispatch {
    ($self:ident, $s:ident => $call:expr) => {
        match $self {
            Database::Postgres($s) => $call,
            Database::Sqlite($s) => $call,
        }
    };
}

impl Store for Database {
    async fn ready(&self) -> Result<(), ApiError> {
        dispatch!(self, s => s.ready().await)
    }
    async fn jwt_secret(&self, generated: String) -> Result<String, ApiError> {
        dispatch!(self, s => s.jwt_secret(generated).await)
    }
    async fn create_game(
        &self,
        new: &NewGame,
        key: Option<(&KeyRef, &StoredResponse)>,
    ) -> Result<(), ApiError> {
        dispatch!(self, s => s.create_game(new, key).await)
    }
    async fn game(&self, id: Uuid) -> Result<Option<GameRow>, ApiError> {
        dispatch!(self, s => s.game(id).await)
    }
    async fn events_after(&self, id: Uuid, after: i64, limit: i64) -> Result<Vec<EventRow>, ApiError> {
        dispatch!(self, s => s.events_after(id, after, limit).await)
    }
    async fn claim_key(&self, key: &KeyRef) -> Result<KeyClaim, ApiError> {
        dispatch!(self, s => s.claim_key(key).await)
    }
    async fn finish_key(&self, key: &KeyRef, response: &StoredResponse) -> Result<(), ApiError> {
        dispatch!(self, s => s.finish_key(key, response).await)
    }
    async fn release_key(&self, key: &KeyRef) -> Result<(), ApiError> {
        dispatch!(self, s => s.release_key(key).await)
    }
    async fn transact<T, F>(&self, id: Uuid, key: Option<&KeyRef>, act: F) -> Result<T, ApiError>
    where
        F: FnOnce(&GameRow) -> Result<Outcome<T>, ApiError>,
    {
        dispatch!(self, s => s.transact(id, key, act).await)
    }
}
