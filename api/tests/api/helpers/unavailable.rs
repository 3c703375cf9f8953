//! A database out of reach: limits that give up quickly, another writer holding a game, the
//! `503` a client then gets, and a client waiting it out.

use std::time::Duration;

use continental::config::{DatabaseSettings, Limits};
use sqlx::Connection;

use super::{Reply, eventually};

/// Limits that give up quickly, so a fault shows in a second or two.
pub fn quick() -> Limits {
    Limits {
        db_acquire_timeout: Duration::from_millis(800),
        statement_timeout: Duration::from_secs(2),
        lock_timeout: Duration::from_millis(500),
        request_timeout: Duration::from_secs(1),
        ..Limits::default()
    }
}

/// A 503 for a database that hangs arrives within this, not after the 10 s of a pool timeout.
pub const HUNG_WITHIN: Duration = Duration::from_secs(4);

/// Asserts a `503` problem with `code` that says when to retry.
pub fn assert_unavailable(reply: &Reply, code: &str, context: &str) {
    reply.assert_problem(503, code, context);
    let wait: u64 = reply
        .header("retry-after")
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{context}: a 503 says when to retry: {:?}", reply.headers));
    assert!(wait >= 1, "{context}: Retry-After {wait}");
}

/// The first answer of `request` that is not a 503, sent again while it is, within `limit`:
/// what a client does once the database is back.
pub async fn once_available<F: Future<Output = Reply>>(
    limit: Duration,
    what: &str,
    request: impl Fn() -> F,
) -> Reply {
    eventually(limit, what, async || {
        let reply = request().await;
        if reply.status.as_u16() == 503 {
            Err(reply.text())
        } else {
            Ok(reply)
        }
    })
    .await
}

/// Another writer holding a game, as a long move or another process would: its row on
/// PostgreSQL (`FOR UPDATE`), the whole file on SQLite (`BEGIN IMMEDIATE`), until released.
pub enum Holder {
    /// A transaction holding the game's row.
    Postgres(sqlx::PgConnection),
    /// A transaction holding the file's write lock.
    Sqlite(sqlx::SqliteConnection),
}

/// Holds game `id` of `database` (every game, on SQLite) until [`Holder::release`].
pub async fn hold_game(database: &DatabaseSettings, id: &str) -> Holder {
    match database {
        DatabaseSettings::Postgres { url } => {
            let mut conn = sqlx::PgConnection::connect(url)
                .await
                .expect("a second connection");
            sqlx::query("BEGIN").execute(&mut conn).await.expect("begin");
            sqlx::query("SELECT id FROM games WHERE id = $1::uuid FOR UPDATE")
                .bind(id)
                .execute(&mut conn)
                .await
                .expect("lock the game's row");
            Holder::Postgres(conn)
        }
        DatabaseSettings::Sqlite { path } => {
            let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite:{path}"))
                .await
                .expect("open the file");
            sqlx::query("BEGIN IMMEDIATE")
                .execute(&mut conn)
                .await
                .expect("take the write lock");
            Holder::Sqlite(conn)
        }
    }
}

impl Holder {
    /// Lets the game go.
    pub async fn release(self) {
        let released = match self {
            Holder::Postgres(mut conn) => sqlx::query("ROLLBACK").execute(&mut conn).await.map(drop),
            Holder::Sqlite(mut conn) => sqlx::query("ROLLBACK").execute(&mut conn).await.map(drop),
        };
        released.expect("release");
    }
}
