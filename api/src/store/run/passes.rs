//! Background work's statements, run once for both stores ([`SqlPasses`]): the games due, the
//! webhook heads to claim and give back, the sweep's batches and deletes. PostgreSQL holds a
//! head's row and skips rows another transaction holds; SQLite, one writer at a time, has
//! none to hold or skip. A Citus cluster uses these where it does not read shard by shard
//! (`citus/`).

use sqlx::{AssertSqlSafe, ColumnIndex, Database, Decode, Encode, Executor, IntoArguments, Type};
use uuid::Uuid;

use super::Conn;
use crate::domain::GameStatus;
use crate::store::sql::{
    Candidate, Claimed, Dialect, FIRST_PENDING, HEAD_LEASE, HEAD_RECHECK, HEAD_RELEASE, Purge,
    RowsAffected as _, SWEEP_BATCH, batch_of, delivery_candidates_sql, due_game, due_sql, swept,
};
use crate::store::{DueGame, StoreError};

/// Holds game `$1`'s head while it is leased until `$2`, until the transaction ends: its
/// dialect's hold follows.
const HEAD_HOLD: &str = "SELECT game_id FROM webhook_heads WHERE game_id = $1 AND due_at = $2";

/// Background work's statements, run by each SQL store.
pub(in crate::store) trait SqlPasses: Dialect
where
    for<'c> &'c mut Conn<Self>: Executor<'c, Database = Self::Db>,
    <Self::Db as Database>::Arguments: Default + IntoArguments<Self::Db>,
    for<'a> &'a str: ColumnIndex<<Self::Db as Database>::Row>,
    usize: ColumnIndex<<Self::Db as Database>::Row>,
    for<'a, 't> &'a str: Encode<'t, Self::Db> + Type<Self::Db>,
    for<'a> &'a [u8]: Encode<'a, Self::Db> + Type<Self::Db>,
    for<'a> Option<&'a str>: Encode<'a, Self::Db> + Type<Self::Db>,
    Option<String>: for<'t> Encode<'t, Self::Db> + Type<Self::Db>,
    Option<i64>: for<'t> Encode<'t, Self::Db> + Type<Self::Db>,
    i32: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    i64: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    f64: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    bool: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    String: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    Vec<u8>: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    Uuid: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    GameStatus: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    for<'r> Candidate: sqlx::FromRow<'r, <Self::Db as Database>::Row>,
{
    /// [`Store::due_games`](crate::store::Store::due_games), by one query of the whole table.
    async fn due_in_one(
        &self,
        now: i64,
        after: Option<DueGame>,
        limit: i64,
    ) -> Result<Vec<DueGame>, StoreError> {
        let sql = due_sql("games", "$1", after.is_some().then_some(("$3", "$4")), "$2");
        let mut query = sqlx::query(AssertSqlSafe(sql)).bind(now).bind(limit);
        if let Some(after) = after {
            query = query.bind(after.next_due).bind(after.id);
        }
        let rows = query.fetch_all(self.pool()).await?;
        rows.iter().map(due_game).collect()
    }

    /// The candidates of [`Store::claim_deliveries`](crate::store::Store::claim_deliveries), by
    /// one query of the whole table.
    async fn delivery_candidates_in_one(&self, now: i64, limit: i64) -> Result<Vec<Candidate>, StoreError> {
        let sql = delivery_candidates_sql("webhook_heads", "$1", "$2");
        let candidates = sqlx::query_as(AssertSqlSafe(sql))
            .bind(now)
            .bind(limit)
            .fetch_all(self.pool())
            .await?;
        Ok(candidates)
    }

    /// Claims the heads of `candidates` one by one, each by a conditional statement on its
    /// game's row ([`HEAD_LEASE`]), and reads each one's first pending delivery: a head another
    /// replica leased meanwhile is not taken.
    async fn claim_each(
        &self,
        candidates: Vec<Candidate>,
        now: i64,
        lease_until: i64,
    ) -> Result<Vec<Claimed>, StoreError> {
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
            let first = sqlx::query(FIRST_PENDING)
                .bind(game_id)
                .fetch_optional(pool)
                .await?;
            out.push(Claimed::of(game_id, lease_until, now, first.as_ref())?);
        }
        Ok(out)
    }

    /// Gives back game `game`'s head, leased until `lease_until` and found with nothing to
    /// deliver now: due `at` its first pending delivery's time ([`HEAD_RELEASE`]), or, with
    /// none read, as [`SqlPasses::recheck_head`] finds it.
    async fn give_back(
        &self,
        game: Uuid,
        lease_until: i64,
        at: Option<i64>,
        now: i64,
    ) -> Result<(), StoreError> {
        let Some(at) = at else {
            return self.recheck_head(game, lease_until, now).await;
        };
        sqlx::query(HEAD_RELEASE)
            .bind(game)
            .bind(lease_until)
            .bind(at)
            .execute(self.writer_of(game).await)
            .await?;
        Ok(())
    }

    /// Game `game`'s head, leased until `lease_until` and found with nothing pending: its row
    /// locked, then read again by a statement of its own ([`HEAD_RECHECK`]), so that a write
    /// that queued deliveries meanwhile is seen (it holds the row until it commits), and one
    /// that comes after finds the head idle and makes it due.
    async fn recheck_head(&self, game: Uuid, lease_until: i64, now: i64) -> Result<(), StoreError> {
        let mut tx = Self::begin(self.writer_of(game).await).await?;
        sqlx::query(AssertSqlSafe(format!("{HEAD_HOLD}{}", Self::FOR_UPDATE)))
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

    /// Deletes the rows of `purge` whose value of the column the table is spread by is one of
    /// `values` and that expired before `before`, one statement per value (one game, or one
    /// key), skipping rows another replica or a request holds. Returns how many went.
    async fn delete_expired<V>(&self, purge: &Purge, values: Vec<V>, before: i64) -> Result<u64, StoreError>
    where
        V: for<'q> sqlx::Encode<'q, Self::Db> + sqlx::Type<Self::Db> + Send + 'static,
    {
        let delete = purge.delete(Self::SKIP_LOCKED);
        let mut deleted = 0;
        for value in values {
            let done = sqlx::query(AssertSqlSafe(delete.as_str()))
                .bind(value)
                .bind(before)
                .execute(self.writer())
                .await;
            deleted += swept(purge, done.map(|done| done.rows_affected()))?;
        }
        Ok(deleted)
    }

    /// Deletes the rows of `purge` older than `before`, in bounded batches read in the order of
    /// its `(time, route)` index without a lock; each batch's rows are then deleted by one
    /// statement per value of the column the table is spread by (one game, or one key), which
    /// skips rows another replica or a request holds. Returns how many went.
    async fn purge<V>(&self, purge: &Purge, before: i64) -> Result<u64, StoreError>
    where
        V: for<'r> sqlx::Decode<'r, Self::Db> + for<'q> sqlx::Encode<'q, Self::Db> + sqlx::Type<Self::Db>,
        V: Clone + PartialEq + Send + Sync + Unpin + 'static,
    {
        let mut deleted = 0;
        let mut after: Option<(i64, V)> = None;
        loop {
            let mut candidates =
                sqlx::query_as(AssertSqlSafe(purge.candidates(after.is_some()))).bind(before);
            if let Some((at, route)) = &after {
                candidates = candidates.bind(*at).bind(route.clone());
            }
            let rows: Vec<(i64, V)> = candidates.fetch_all(self.pool()).await?;
            let (batch, last) = batch_of(&rows);
            after = last.or(after);
            deleted += self.delete_expired(purge, batch, before).await?;
            if (rows.len() as i64) < SWEEP_BATCH {
                return Ok(deleted);
            }
        }
    }
}
