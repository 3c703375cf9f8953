//! What each SQL store says its own way ([`Dialect`]), named once: the code that runs a
//! statement is written once, generic over the store, and asks its dialect for these.

use std::future::Future;

use sqlx::{Database, Pool, Postgres, Sqlite, Transaction};
use uuid::Uuid;

use super::super::{PgStore, SqliteStore};
use crate::telemetry::traces::{POSTGRESQL, SQLITE};

/// A SQL store: its database, its pools, how a writing transaction begins and the words its
/// dialect says differently. PostgreSQL holds rows (`FOR UPDATE`) and skips those another
/// transaction holds; SQLite holds the whole database from `BEGIN IMMEDIATE` to the commit,
/// so it has no row to hold or to skip.
pub(in crate::store) trait Dialect: Sync {
    /// The database it speaks to.
    type Db: Database<QueryResult: RowsAffected>;

    /// Its `db.system.name` in traces.
    const SYSTEM: &'static str;

    /// What ends a read that holds its rows until the commit.
    const FOR_UPDATE: &'static str;
    /// What ends a claim's read that holds its rows and passes over those another
    /// transaction holds.
    const SKIP_LOCKED: &'static str;
    /// What follows a text compared or ordered by its bytes, as a [`PlayerId`] compares.
    ///
    /// [`PlayerId`]: crate::domain::PlayerId
    const BYTE_ORDER: &'static str;

    /// The pool that reads.
    fn pool(&self) -> &Pool<Self::Db>;

    /// The pool a transaction begins on.
    fn writer(&self) -> &Pool<Self::Db>;

    /// The pool a transaction of game `id` begins on.
    fn writer_of(&self, id: Uuid) -> impl Future<Output = &Pool<Self::Db>> + Send;

    /// Begins a writing transaction on `pool`.
    fn begin(
        pool: &Pool<Self::Db>,
    ) -> impl Future<Output = Result<Transaction<'static, Self::Db>, sqlx::Error>> + Send;
}

/// What a statement that writes reports, as both databases say it.
pub(in crate::store) trait RowsAffected {
    /// How many rows it wrote.
    fn rows_affected(&self) -> u64;
}

impl RowsAffected for sqlx::postgres::PgQueryResult {
    fn rows_affected(&self) -> u64 {
        self.rows_affected()
    }
}

impl RowsAffected for sqlx::sqlite::SqliteQueryResult {
    fn rows_affected(&self) -> u64 {
        self.rows_affected()
    }
}

/// How a transaction that writes begins on SQLite: its write lock taken at once, so that two
/// writers queue instead of both reading and one failing at commit.
pub(in crate::store) const BEGIN_IMMEDIATE: &str = "BEGIN IMMEDIATE";

impl Dialect for PgStore {
    type Db = Postgres;
    const SYSTEM: &'static str = POSTGRESQL;
    const FOR_UPDATE: &'static str = " FOR UPDATE";
    const SKIP_LOCKED: &'static str = " FOR UPDATE SKIP LOCKED";
    const BYTE_ORDER: &'static str = r#" COLLATE "C""#;

    fn pool(&self) -> &Pool<Postgres> {
        &self.pool
    }

    fn writer(&self) -> &Pool<Postgres> {
        &self.pool
    }

    async fn writer_of(&self, id: Uuid) -> &Pool<Postgres> {
        self.pool_of(id).await
    }

    async fn begin(pool: &Pool<Postgres>) -> Result<Transaction<'static, Postgres>, sqlx::Error> {
        pool.begin().await
    }
}

impl Dialect for SqliteStore {
    type Db = Sqlite;
    const SYSTEM: &'static str = SQLITE;
    const FOR_UPDATE: &'static str = "";
    const SKIP_LOCKED: &'static str = "";
    const BYTE_ORDER: &'static str = "";

    fn pool(&self) -> &Pool<Sqlite> {
        &self.pool
    }

    fn writer(&self) -> &Pool<Sqlite> {
        &self.writer
    }

    async fn writer_of(&self, _id: Uuid) -> &Pool<Sqlite> {
        &self.writer
    }

    async fn begin(pool: &Pool<Sqlite>) -> Result<Transaction<'static, Sqlite>, sqlx::Error> {
        pool.begin_with(BEGIN_IMMEDIATE).await
    }
}
