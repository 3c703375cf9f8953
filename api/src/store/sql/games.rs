//! The statements of a game's reads and writes that both dialects take, and the rows they read.

use sqlx::{FromRow, Row};
use uuid::Uuid;

use super::{GAME_COLUMNS, GAME_FIELDS, event_row, game_row};
use crate::store::{
    GameRow, KeyClaim, KeyRef, ListedRow, On, Origin, RecordedEvent, StoreError, StoredResponse,
    WebhookCounts,
};

/// Checks the database answers.
pub(in crate::store) const READY: &str = "SELECT 1";

/// Stores `$1` as the seat-token secret if there is none yet.
pub(in crate::store) const JWT_SECRET_INSERT: &str =
    "INSERT INTO settings (name, value) VALUES ('jwt_secret', $1) ON CONFLICT (name) DO NOTHING";

/// The seat-token secret stored.
pub(in crate::store) const JWT_SECRET: &str = "SELECT value FROM settings WHERE name = 'jwt_secret'";

/// A new game's row: `$1` id, `$2` variant, `$3` status, `$4` state, `$5` version, `$6` seed,
/// `$7` its commitment, `$8` the time (created and updated), `$9` the last seq, `$10` tenant,
/// `$11` the time in microseconds, `$12` and `$13` the webhook's URL and secret, `$14` the next
/// due time, `$15` rated; nothing when a game with its id exists already.
pub(in crate::store) const GAME_INSERT: &str = "INSERT INTO games (id, variant, status, state, version, last_seq, seed, \
    seed_commitment, created_at, updated_at, tenant, created_us, webhook_url, webhook_secret, deadline, rated) \
    VALUES ($1, $2, $3, $4, $5, $9, $6, $7, $8, $8, $10, $11, $12, $13, $14, $15) \
    ON CONFLICT (id) DO NOTHING";

/// A new game's seat: `$1` game, `$2` seat, `$3` name, `$4` kind, `$5` player.
pub(in crate::store) const SEAT_INSERT: &str =
    "INSERT INTO seats (game_id, seat, name, kind, player) VALUES ($1, $2, $3, $4, $5)";

/// Whose game `$1` is and where its events go.
pub(in crate::store) const ORIGIN: &str =
    "SELECT tenant, webhook_url, webhook_secret FROM games WHERE id = $1";

/// Game `$1`.
pub(in crate::store) fn game_sql() -> String {
    format!("{GAME_COLUMNS} WHERE id = $1")
}

/// Game `$1` if it belongs to tenant `$2`.
pub(in crate::store) fn game_in_sql() -> String {
    format!("{GAME_COLUMNS} WHERE id = $1 AND tenant = $2")
}

/// Events of game `$1` after seq `$2`, at most `$3`.
pub(in crate::store) const EVENTS_AFTER: &str =
    "SELECT seq, body FROM events WHERE game_id = $1 AND seq > $2 ORDER BY seq LIMIT $3";

/// Every event of game `$1`, with its step.
pub(in crate::store) const RECORD: &str =
    "SELECT seq, body, step FROM events WHERE game_id = $1 ORDER BY seq";

/// The response kept in `table` for key `$3` of seat `$2` of game `$1`, once its request acted.
pub(in crate::store) fn key_sql(table: &str) -> String {
    format!(
        "SELECT request_hash, response_status, response_headers, response_body \
         FROM {table} WHERE game_id = $1 AND seat = $2 AND key = $3 AND status = 'done'"
    )
}

/// Leases game `$1`'s bot turn: its deadline from `$3` to `$4`, if it is still at version `$2`.
pub(in crate::store) const LEASE: &str =
    "UPDATE games SET deadline = $4 WHERE id = $1 AND version = $2 AND deadline = $3";

/// Sets game `$1` aside at `$2`, unless it is already.
pub(in crate::store) const SET_ASIDE: &str =
    "UPDATE games SET deadline = NULL, set_aside_at = $2 WHERE id = $1 AND set_aside_at IS NULL";

/// The webhook deliveries pending.
pub(in crate::store) const PENDING_DELIVERIES: &str =
    "SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'";

/// The games due at `$1`.
pub(in crate::store) const DUE_GAMES: &str =
    "SELECT count(*) FROM games WHERE deadline IS NOT NULL AND deadline <= $1";

/// Quick play's tickets waiting.
pub(in crate::store) const WAITING_TICKETS: &str = "SELECT count(*) FROM tickets WHERE status = 'waiting'";

/// Game `$1`'s webhook deliveries, counted by status.
pub(in crate::store) const DELIVERIES_BY_STATUS: &str =
    "SELECT status, COUNT(*) AS n FROM webhook_deliveries WHERE game_id = $1 GROUP BY status";

/// The latest error of game `$1`'s webhook deliveries.
pub(in crate::store) const LAST_DELIVERY_ERROR: &str = "SELECT last_error FROM webhook_deliveries \
    WHERE game_id = $1 AND last_error IS NOT NULL ORDER BY seq DESC LIMIT 1";

/// The read of an action's game (see [`GameRead::sql`]).
pub(in crate::store) struct GameRead<'a> {
    /// Columns read before the game's own (each with its `, `), or none.
    pub extra: &'a str,
    /// Where the game is read: `games`, or on a cluster its shard on the node that runs the
    /// statement, with `placed_here`.
    pub games: &'a str,
    /// A condition that holds only while that shard is placed there (`""` for `games`).
    pub placed_here: &'a str,
    /// The table of the request's idempotency key, when it has one.
    pub keys: Option<&'a str>,
    /// The game must belong to a tenant.
    pub tenant: bool,
    /// The game must be due.
    pub due: bool,
    /// After the query: a row lock until the transaction ends, one that skips a held row, or
    /// nothing.
    pub lock: &'a str,
}

impl GameRead<'_> {
    /// The read of game `$1` with, given a key, whether seat `$2`'s key `$3` is stored already
    /// (`taken`: one round trip fewer per keyed action); then the tenant and the due time, in
    /// that order, each the next parameter when asked for.
    pub(in crate::store) fn sql(&self) -> String {
        let GameRead {
            extra,
            games,
            placed_here,
            keys,
            tenant,
            due,
            lock,
        } = self;
        let taken = keys
            .map(|keys| {
                format!(
                    ", EXISTS (SELECT 1 FROM {keys} WHERE game_id = $1 AND seat = $2 AND key = $3) AS taken"
                )
            })
            .unwrap_or_default();
        let mut n = if keys.is_some() { 3 } else { 1 };
        let mut conditions = String::new();
        if *tenant {
            n += 1;
            conditions.push_str(&format!(" AND tenant = ${n}"));
        }
        if *due {
            n += 1;
            conditions.push_str(&format!(" AND deadline IS NOT NULL AND deadline <= ${n}"));
        }
        format!(
            "SELECT {extra}{GAME_FIELDS}{taken} FROM {games} WHERE id = $1{conditions}{placed_here}{lock}"
        )
    }
}

/// The game an action read, whether its request's key is taken (false without one), and the
/// row for the columns read before the game's own.
pub(in crate::store) fn read_row<R: Row>(on: On<'_>, row: R) -> Result<(GameRow, bool, R), StoreError>
where
    for<'a> &'a str: sqlx::ColumnIndex<R>,
    Uuid: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    String: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    i64: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    bool: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    Option<String>: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    Option<i64>: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    crate::domain::GameStatus: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
{
    let taken = match on.key {
        Some(_) => row.try_get::<bool, _>("taken")?,
        None => false,
    };
    Ok((game_row(&row)?, taken, row))
}

/// A game of a listing page, with its place in the listing.
pub(in crate::store) fn listed_row<R: Row>(r: &R) -> Result<ListedRow, StoreError>
where
    for<'a> &'a str: sqlx::ColumnIndex<R>,
    Uuid: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    String: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    i64: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    Option<String>: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    Option<i64>: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    crate::domain::GameStatus: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
{
    Ok(ListedRow {
        game: game_row(r)?,
        created_us: r.try_get("created_us")?,
    })
}

/// An event of a game's record, with its step.
pub(in crate::store) fn recorded_event<R: Row>(r: &R) -> Result<RecordedEvent, StoreError>
where
    for<'a> &'a str: sqlx::ColumnIndex<R>,
    i64: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    String: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    Option<String>: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
{
    Ok(RecordedEvent {
        event: event_row(r)?,
        step: r.try_get("step")?,
    })
}

/// A row of [`ORIGIN`].
#[derive(FromRow)]
pub(in crate::store) struct OriginRow {
    tenant: String,
    webhook_url: Option<String>,
    webhook_secret: Option<String>,
}

impl From<OriginRow> for Origin {
    fn from(row: OriginRow) -> Self {
        Origin {
            tenant: row.tenant,
            webhook: row.webhook_url.zip(row.webhook_secret),
        }
    }
}

/// A row of [`key_sql`].
#[derive(FromRow)]
pub(in crate::store) struct KeyRow {
    request_hash: String,
    response_status: Option<i64>,
    response_headers: Option<String>,
    response_body: Option<Vec<u8>>,
}

impl KeyRow {
    /// What the row means to a request with `key`: its response, or a key used with another
    /// request.
    pub(in crate::store) fn claim(self, key: &KeyRef) -> KeyClaim {
        if self.request_hash != key.request_hash {
            return KeyClaim::Mismatch;
        }
        KeyClaim::Replay(StoredResponse {
            status: u16::try_from(self.response_status.unwrap_or(500)).unwrap_or(500),
            etag: self.response_headers,
            body: self.response_body.unwrap_or_default(),
        })
    }
}

/// A row of [`DELIVERIES_BY_STATUS`].
#[derive(FromRow)]
pub(in crate::store) struct StatusCount {
    status: String,
    n: i64,
}

/// Game's deliveries counted from `rows` of [`DELIVERIES_BY_STATUS`], with its latest error.
pub(in crate::store) fn webhook_counts(rows: Vec<StatusCount>, last_error: Option<String>) -> WebhookCounts {
    let mut counts = WebhookCounts::default();
    for StatusCount { status, n } in rows {
        match status.as_str() {
            "delivered" => counts.delivered = n,
            "failed" => counts.failed = n,
            _ => counts.pending += n,
        }
    }
    counts.last_error = last_error;
    counts
}
