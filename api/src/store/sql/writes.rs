//! The rows an action or a creation adds besides its game's: events, a kept idempotency key, a
//! game queued for rating. Each statement is an `INSERT` whose `VALUES` are pushed on.

use sqlx::QueryBuilder;
use uuid::Uuid;

use crate::store::StoreError;
use crate::store::write::{EventWrite, KeyWrite};

/// The start of an `INSERT` of events, before their rows ([`push_event_values`]).
pub(in crate::store) const EVENT_INSERT: &str =
    "INSERT INTO events (game_id, seq, seat, body, step, created_at) ";

/// Queues game `$1` for rating, due at `$2` (unix ms), with its tenant: what a change that
/// finishes a rated game writes besides (the write of SQLite; PostgreSQL's one statement and
/// the cluster's function say the same).
pub(in crate::store) const RATING_DUE_INSERT: &str = "INSERT INTO ratings_due (game_id, tenant, due_at) \
    SELECT id, tenant, $2 FROM games WHERE id = $1 ON CONFLICT (game_id) DO NOTHING";

/// The start of an `INSERT` of a kept idempotency key into `table`, before its row
/// ([`push_key_values`]).
pub(in crate::store) fn key_insert(table: &str) -> String {
    format!(
        "INSERT INTO {table} (game_id, seat, key, request_hash, status, response_status, response_headers, \
         response_body, created_at) "
    )
}

/// Pushes the `VALUES` of game `game`'s `events` onto `sql`.
pub(in crate::store) fn push_event_values<DB>(
    sql: &mut QueryBuilder<DB>,
    game: Uuid,
    events: &[EventWrite<'_>],
) where
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

/// Pushes the `VALUES` of the kept idempotency key `key` onto `sql`.
pub(in crate::store) fn push_key_values<DB>(sql: &mut QueryBuilder<DB>, key: &KeyWrite<'_>)
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
pub(in crate::store) fn key_taken(e: sqlx::Error, table: Option<&str>) -> StoreError {
    match &e {
        sqlx::Error::Database(db)
            if db.is_unique_violation() && table.is_none_or(|t| db.table() == Some(t)) =>
        {
            StoreError::KeyTaken
        }
        _ => StoreError::from(e),
    }
}
