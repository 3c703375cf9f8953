//! The outbox's statements: webhook deliveries queued with the write that made their events,
//! each game's first pending one found by its head (`webhook_heads`), leased, and read.

use sqlx::{QueryBuilder, Row};
use uuid::Uuid;

use crate::store::write::DeliveryWrite;
use crate::store::{Attempt, Delivery, StoreError};

/// The start of an `INSERT` of webhook deliveries, before their rows ([`push_outbox_values`]).
pub(in crate::store) const OUTBOX_INSERT: &str =
    "INSERT INTO webhook_deliveries (id, game_id, seq, version, event, status, next_attempt_at, created_at) ";

/// Pushes the `VALUES` of game `game`'s webhook deliveries `outbox` onto `sql`.
pub(in crate::store) fn push_outbox_values<DB>(
    sql: &mut QueryBuilder<DB>,
    game: Uuid,
    outbox: &[DeliveryWrite<'_>],
) where
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

/// Up to `limit` games of `heads` (the table `webhook_heads`, or one of its shards) whose first
/// pending delivery is due at `now` and not leased, earliest first: a range scan of the index
/// `webhook_heads_due`, which holds only the games with a delivery pending, so that its cost is
/// that of the games read, however many deliveries wait behind them.
pub(in crate::store) fn delivery_candidates_sql(heads: &str, now: &str, limit: &str) -> String {
    format!(
        "SELECT game_id, due_at FROM {heads} WHERE due_at IS NOT NULL AND due_at <= {now} \
         ORDER BY due_at LIMIT {limit}"
    )
}

/// A game whose first pending delivery may be claimed: a row of [`delivery_candidates_sql`], from
/// the database or, on a cluster, from a shard's JSON.
#[derive(serde::Deserialize, sqlx::FromRow)]
pub(in crate::store) struct Candidate {
    pub(in crate::store) game_id: Uuid,
    pub(in crate::store) due_at: i64,
}

/// What a write that queues webhook deliveries of game `$1` writes besides: the game's head,
/// `$3` the seq of its last delivery queued, and, when it had nothing pending, due at `$2` (its
/// first delivery's time). A head leased or waiting for a retry keeps its time: the new
/// deliveries go after the one it holds. The upsert locks the head's row, so that the settling
/// of the delivery it held, if it comes at once, sees the new `last_seq` (and a settling that
/// came first left `due_at` null, which this fills).
pub(in crate::store) const HEAD_UPSERT: &str = "INSERT INTO webhook_heads (game_id, due_at, last_seq) VALUES ($1, $2, $3) \
    ON CONFLICT (game_id) DO UPDATE SET last_seq = excluded.last_seq, \
    due_at = COALESCE(webhook_heads.due_at, excluded.due_at)";

/// Leases game `$1`'s head until `$3` if it is still due at `$2`: the claim of its first pending
/// delivery, by one conditional statement on the game's row.
pub(in crate::store) const HEAD_LEASE: &str =
    "UPDATE webhook_heads SET due_at = $3 WHERE game_id = $1 AND due_at IS NOT NULL AND due_at <= $2";

/// Game `$1`'s first pending delivery, and where it goes.
pub(in crate::store) const FIRST_PENDING: &str = "SELECT d.id, d.seq, d.version, d.event, d.attempts, d.created_at, \
    d.next_attempt_at, g.webhook_url, g.webhook_secret FROM webhook_deliveries d JOIN games g ON g.id = d.game_id \
    WHERE d.game_id = $1 AND d.status = 'pending' ORDER BY d.seq LIMIT 1";

/// Gives game `$1`'s head, leased until `$2`, the time `$3` (null: nothing pending).
pub(in crate::store) const HEAD_RELEASE: &str =
    "UPDATE webhook_heads SET due_at = $3 WHERE game_id = $1 AND due_at = $2";

/// Game `$1`'s head, leased until `$2` and found with no pending delivery: due at `$3` if one is
/// pending after all (written since the claim read), null otherwise. Run after the head's row
/// is locked, by a statement of its own, so that it reads what was written before the lock.
pub(in crate::store) const HEAD_RECHECK: &str = "UPDATE webhook_heads SET due_at = CASE WHEN EXISTS \
    (SELECT 1 FROM webhook_deliveries d WHERE d.game_id = $1 AND d.status = 'pending') THEN $3 ELSE NULL END \
    WHERE game_id = $1 AND due_at = $2";

/// The record of a claim's outcome on its delivery, the text both dialects share: `$1` the
/// game, `$2` the delivery, `$3` its new status, `$4` the retry's time, `$5` the error, `$6`
/// the end of the claim's lease. It changes the delivery only while it is still pending and
/// its game's head (in `$heads`: the table, or on PostgreSQL the head's row the statement
/// holds) still carries this claim's lease, so that an outcome that comes after another claim
/// took the head (a stalled replica's, say, once another has delivered) changes nothing.
/// Returns the delivery's seq.
macro_rules! settle_delivery {
    ($heads:literal) => {
        concat!(
            "UPDATE webhook_deliveries SET status = $3, attempts = attempts + 1, lease_until = 0, \
             next_attempt_at = CASE WHEN $3 = 'pending' THEN $4 ELSE next_attempt_at END, \
             last_error = COALESCE($5, last_error) WHERE game_id = $1 AND id = $2 AND status = 'pending' \
             AND EXISTS (SELECT 1 FROM ",
            $heads,
            " WHERE game_id = $1 AND due_at = $6) RETURNING seq"
        )
    };
}

/// The record of a claim's outcome on its game's head (`$1`), still leased until `$6`: at the
/// retry's time (`$4`) after a failure (`$3` pending); due at once (`$7`, now) when a later
/// delivery was written than the one settled (of seq `$seq`); idle when that was the last.
macro_rules! settle_head {
    ($seq:literal) => {
        concat!(
            "UPDATE webhook_heads SET due_at = CASE WHEN $3 = 'pending' THEN $4 WHEN last_seq > ",
            $seq,
            " THEN $7 ELSE NULL END WHERE game_id = $1 AND due_at = $6"
        )
    };
}

/// The record of an attempt's outcome on PostgreSQL, one statement: the head's row held first
/// (`FOR UPDATE`), so that a claim that takes it meanwhile is waited for and its lease seen;
/// then the delivery and the head as `settle_delivery!` and `settle_head!` write them.
/// Returns a row when the outcome was recorded, none when it came too late. A write that
/// queues deliveries at the same time holds the head's row too: this waits for it and then
/// reads the head's `last_seq` as that write left it.
pub(in crate::store) const PG_SETTLE: &str = concat!(
    "WITH held AS (SELECT game_id, due_at FROM webhook_heads WHERE game_id = $1 AND due_at = $6 FOR UPDATE), \
     settled AS (",
    settle_delivery!("held"),
    ") ",
    settle_head!("(SELECT seq FROM settled)"),
    " AND EXISTS (SELECT 1 FROM settled) RETURNING game_id"
);

/// The record of an attempt's outcome on its delivery on SQLite, in a transaction that holds
/// the database (`BEGIN IMMEDIATE`); returns its seq, none when the outcome came too late.
pub(in crate::store) const SQLITE_SETTLE_DELIVERY: &str = settle_delivery!("webhook_heads");

/// The record of an attempt's outcome on its game's head on SQLite, after
/// [`SQLITE_SETTLE_DELIVERY`] in the same transaction, `$8` the seq it returned.
pub(in crate::store) const SQLITE_SETTLE_HEAD: &str = settle_head!("$8");

impl Attempt {
    /// How the attempt is recorded: the delivery's new status, the retry's time (0: none) and
    /// the error, if any.
    pub(in crate::store) fn outcome(&self) -> (&'static str, i64, Option<&str>) {
        match self {
            Attempt::Delivered => ("delivered", 0, None),
            Attempt::Retry { at, error } => ("pending", *at, Some(error.as_str())),
            Attempt::GivenUp { error } => ("failed", 0, Some(error.as_str())),
        }
    }
}

/// What a claim found under a game's head it leased.
pub(in crate::store) enum Claimed {
    /// A delivery to attempt.
    Delivery(Delivery),
    /// The first pending delivery is not due until then (a clock ahead of this one wrote it).
    NotYet(Uuid, i64),
    /// Nothing pending was read, or the game has no webhook any more.
    Empty(Uuid),
}

impl Claimed {
    /// What a leased head's first pending delivery (`row`, if any) means, leased until `lease`.
    pub(in crate::store) fn of<R: Row>(
        game_id: Uuid,
        lease: i64,
        now: i64,
        row: Option<&R>,
    ) -> Result<Self, StoreError>
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
