//! What the SQL stores share: the statements both dialects take (PostgreSQL, on one server or a
//! Citus cluster, and SQLite), written once as constants or small functions that render them,
//! and the mapping of their rows to the store's types. The code that runs them is written once
//! too (`run/`), over the [`Dialect`] (`dialect.rs`), which names what each database says
//! differently. Here: the games' reads and writes (`games.rs`), the rows a write adds
//! (`writes.rs`), the outbox (`outbox.rs`), the sweep (`sweep.rs`), and below, the limit on
//! tables of bots alone, the due games, the clock, a game row's columns and a listing page.

mod dialect;
mod games;
mod outbox;
mod sweep;
mod writes;

use sqlx::Row;
use uuid::Uuid;

use super::{DueGame, EventRow, GameListing, GameRow, StoreError};
use crate::domain::GameStatus;

pub(super) use dialect::{BEGIN_IMMEDIATE, Dialect, RowsAffected};
pub(super) use games::{
    DELIVERIES_BY_STATUS, DUE_GAMES, EVENTS_AFTER, GAME_INSERT, GameRead, JWT_SECRET, JWT_SECRET_INSERT,
    KeyRow, LAST_DELIVERY_ERROR, LEASE, ORIGIN, OriginRow, PENDING_DELIVERIES, READY, RECORD, SEAT_INSERT,
    SET_ASIDE, StatusCount, WAITING_TICKETS, game_in_sql, game_sql, key_sql, listed_row, read_row,
    recorded_event, webhook_counts,
};
pub(super) use outbox::{
    Candidate, Claimed, FIRST_PENDING, HEAD_LEASE, HEAD_RECHECK, HEAD_RELEASE, HEAD_UPSERT, OUTBOX_INSERT,
    PG_SETTLE, SQLITE_SETTLE_DELIVERY, SQLITE_SETTLE_HEAD, delivery_candidates_sql, push_outbox_values,
};
pub(super) use sweep::{CREATION_KEYS, GAMES_OVER, IDEMPOTENCY_KEYS, Purge, SWEEP_BATCH, batch_of, swept};
pub use sweep::{SweepStatement, sweep_sql};
pub(super) use writes::{
    EVENT_INSERT, RATING_DUE_INSERT, key_insert, key_taken, push_event_values, push_key_values,
};

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

/// A row of [`due_sql`].
pub(super) fn due_game<R: Row>(r: &R) -> Result<DueGame, StoreError>
where
    for<'a> &'a str: sqlx::ColumnIndex<R>,
    Uuid: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    i64: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
{
    Ok(DueGame {
        id: r.try_get("id")?,
        next_due: r.try_get("deadline")?,
    })
}

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
