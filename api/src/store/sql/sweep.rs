//! The sweep's statements: which tables it purges and how, in bounded batches read in the
//! order of an index, each batch deleted one value of the column the table is spread by at a
//! time.

use crate::store::StoreError;

/// Rows a sweep reads per batch before it deletes them.
pub(in crate::store) const SWEEP_BATCH: i64 = 500;

/// A table the sweep purges, and how: see `purge`.
pub(in crate::store) struct Purge {
    pub(in crate::store) table: &'static str,
    /// The column the table is spread by across a cluster's shards: each delete names one value
    /// of it, so that it runs on one shard.
    pub(in crate::store) route: &'static str,
    /// The time a row expires by (seconds since the epoch), indexed with `route` after it.
    pub(in crate::store) time: &'static str,
    /// What else a row must be to go.
    pub(in crate::store) only: &'static str,
    /// The row's primary key.
    pub(in crate::store) key: &'static str,
}

/// Idempotency keys of moves and joins, by game.
pub(in crate::store) const IDEMPOTENCY_KEYS: Purge = Purge {
    table: "idempotency_keys",
    route: "game_id",
    time: "created_at",
    only: "",
    key: "game_id, seat, key",
};

/// Idempotency keys of creations, by key: they belong to no game yet.
pub(in crate::store) const CREATION_KEYS: Purge = Purge {
    table: "creation_keys",
    route: "key",
    time: "created_at",
    only: "",
    key: "game_id, seat, key",
};

/// Finished and void games (with their seats, events, keys and deliveries, by cascade).
pub(in crate::store) const GAMES_OVER: Purge = Purge {
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
    pub(in crate::store) fn candidates(&self, after: bool) -> String {
        self.candidates_in(self.table, "$1", after.then_some(("$2", "$3")))
    }

    /// [`Purge::candidates`] from `table` (the table itself, or one of its shards), with the
    /// time bound and the cursor as given (parameters, or literals).
    pub(in crate::store) fn candidates_in(
        &self,
        table: &str,
        before: &str,
        after: Option<(&str, &str)>,
    ) -> String {
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
    pub(in crate::store) fn delete(&self, skip_locked: &str) -> String {
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
        <super::super::PgStore as super::Dialect>::SKIP_LOCKED
    } else {
        <super::super::SqliteStore as super::Dialect>::SKIP_LOCKED
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

/// A batch of candidates (`rows` of [`Purge::candidates`], each its time and its value of the
/// column the table is spread by): the values to delete, each once, in order; and the last row,
/// where the next batch starts.
pub(in crate::store) fn batch_of<V: Clone + PartialEq>(rows: &[(i64, V)]) -> (Vec<V>, Option<(i64, V)>) {
    let mut batch: Vec<V> = Vec::with_capacity(rows.len());
    for (_, value) in rows {
        if !batch.contains(value) {
            batch.push(value.clone());
        }
    }
    (batch, rows.last().cloned())
}

/// How many rows one delete of [`Purge::delete`] (`done`) swept. The database refused this one
/// delete (a row it cannot let go, a lock it gave up on): the sweep goes on with the others,
/// and tries it again next time. A database that does not answer ends the sweep.
pub(in crate::store) fn swept(purge: &Purge, done: Result<u64, sqlx::Error>) -> Result<u64, StoreError> {
    match done {
        Ok(rows) => Ok(rows),
        Err(sqlx::Error::Database(e)) => {
            tracing::warn!(table = purge.table, error = %e, "an expired row could not be swept; trying again next sweep");
            Ok(0)
        }
        Err(e) => Err(e.into()),
    }
}
