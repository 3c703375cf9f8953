//! Quick play's tickets on SQLite: a transaction that writes begins `IMMEDIATE`, holding the
//! database to its commit (so no claim needs to skip rows another holds), and what changed is
//! told to this process's hub after the commit.

use sqlx::{AssertSqlSafe, QueryBuilder, Row, Sqlite, SqliteConnection, Transaction};
use uuid::Uuid;

use crate::store::sql::Dialect as _;

use super::super::hub::Signal;
use super::super::sql::{SQLITE_SKIP_LOCKED, key_insert, key_taken, now, push_key_values};
use super::super::write;
use super::super::{KeyRef, SqliteStore, StoreError, StoredResponse};
use super::{
    CANCEL, DuePool, INSERT_TICKET, MARK_DUE, NEXT_POOL_DUE, PLACED, POOL_NEXT_DUE, POOLS_DUE, Pool,
    PoolDecision, ROWS_PER_STATEMENT, SWEEP_POOLS, SWEEP_TICKETS, TicketRow, Tickets, WAITING_IN_POOL,
    all_settled, already_waiting, claim_pool_sql, due_pools_of, due_pools_sql, due_row, expire_statement,
    oldest_placing, placing_sql, pool_tickets_sql, seat_statement, ticket_row, ticket_sql, waiting_pool_sql,
};
use crate::domain::TicketStatus;

/// How a transaction that writes begins: SQLite's write lock taken at once, so that two
/// writers queue instead of both reading and one failing at commit.
const BEGIN: &str = "BEGIN IMMEDIATE";

impl SqliteStore {
    /// Tells this process's matching worker that a pool became due.
    fn pools_changed(&self) {
        self.live.publish(POOLS_DUE, Signal::Resync);
    }

    /// Tells this process's ticket streams that tickets `ids` changed.
    fn tickets_changed(&self, ids: &[Uuid]) {
        for id in ids {
            self.live.publish(*id, Signal::Resync);
        }
    }

    /// The waiting tickets of `pool`, oldest first, at most [`POOL_BATCH`](super::POOL_BATCH),
    /// read by `tx` (which holds the database).
    async fn pool_tickets(tx: &mut SqliteConnection, pool: &Pool) -> Result<Vec<TicketRow>, StoreError> {
        let rows = sqlx::query(AssertSqlSafe(pool_tickets_sql(SQLITE_SKIP_LOCKED)))
            .bind(&pool.tenant)
            .bind(&pool.rules)
            .bind(pool.asynchronous)
            .fetch_all(&mut *tx)
            .await?;
        rows.iter().map(ticket_row).collect()
    }

    /// Writes what a pass decided for `pool`'s tickets, in `tx`, commits, then tells the
    /// streams of the tickets expired.
    async fn settle_pool(
        &self,
        mut tx: Transaction<'static, Sqlite>,
        pool: &Pool,
        decision: &PoolDecision,
    ) -> Result<(), StoreError> {
        // A statement per batch of rows, not per ticket.
        let mut expired = 0;
        for batch in decision.expired.chunks(ROWS_PER_STATEMENT) {
            let mut update = expire_statement::<Sqlite>(&pool.tenant, batch);
            expired += update.build().execute(&mut *tx).await?.rows_affected();
        }
        let at = super::super::now_ms();
        let mut seated = 0;
        for batch in decision.placed.chunks(ROWS_PER_STATEMENT) {
            let mut update = seat_statement::<Sqlite>(&pool.tenant, batch, at);
            seated += update.build().execute(&mut *tx).await?.rows_affected();
        }
        all_settled(decision, expired, seated)?;
        sqlx::query(POOL_NEXT_DUE)
            .bind(&pool.tenant)
            .bind(&pool.rules)
            .bind(pool.asynchronous)
            .bind(decision.next_due)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.tickets_changed(&decision.expired);
        Ok(())
    }
}

impl Tickets for SqliteStore {
    async fn create_ticket(
        &self,
        t: &TicketRow,
        key: Option<(&KeyRef, &StoredResponse)>,
    ) -> Result<(), StoreError> {
        let mut tx = self.writer().begin_with(BEGIN).await?;
        sqlx::query(INSERT_TICKET)
            .bind(&t.tenant)
            .bind(t.id)
            .bind(&t.player)
            .bind(&t.name)
            .bind(&t.variant)
            .bind(&t.rules)
            .bind(&t.sizes)
            .bind(t.asynchronous)
            .bind(t.rating_mean)
            .bind(t.rating_deviation)
            .bind(&t.webhook_url)
            .bind(&t.webhook_secret)
            .bind(t.status.as_str())
            .bind(t.created_at)
            .bind(t.expires_at)
            .execute(&mut *tx)
            .await
            .map_err(already_waiting)?;
        if let Some((key, response)) = key {
            let kept = write::kept(key, response, now());
            let mut insert = QueryBuilder::<Sqlite>::new(key_insert(kept.table));
            push_key_values(&mut insert, &kept);
            insert
                .build()
                .execute(&mut *tx)
                .await
                .map_err(|e| key_taken(e, None))?;
        }
        sqlx::query(MARK_DUE)
            .bind(&t.tenant)
            .bind(&t.rules)
            .bind(t.asynchronous)
            .bind(t.created_at)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.pools_changed();
        Ok(())
    }

    async fn ticket(&self, tenant: Option<&str>, id: Uuid) -> Result<Option<TicketRow>, StoreError> {
        let mut query = sqlx::query(AssertSqlSafe(ticket_sql(tenant))).bind(id);
        if let Some(tenant) = tenant {
            query = query.bind(tenant);
        }
        let row = query.fetch_optional(&self.pool).await?;
        row.map(|r| ticket_row(&r)).transpose()
    }

    async fn cancel_ticket(
        &self,
        tenant: Option<&str>,
        id: Uuid,
    ) -> Result<Option<TicketStatus>, StoreError> {
        let mut tx = self.writer().begin_with(BEGIN).await?;
        let mut find = sqlx::query(AssertSqlSafe(waiting_pool_sql(tenant))).bind(id);
        if let Some(tenant) = tenant {
            find = find.bind(tenant);
        }
        let mut cancelled = false;
        if let Some(row) = find.fetch_optional(&mut *tx).await? {
            let owner: String = row.try_get("tenant")?;
            // The pool marked due, as on PostgreSQL, where this order matters.
            sqlx::query(MARK_DUE)
                .bind(&owner)
                .bind(row.try_get::<String, _>("rules")?)
                .bind(row.try_get::<bool, _>("async")?)
                .bind(super::super::now_ms())
                .execute(&mut *tx)
                .await?;
            cancelled = sqlx::query(CANCEL)
                .bind(&owner)
                .bind(id)
                .execute(&mut *tx)
                .await?
                .rows_affected()
                > 0;
        }
        tx.commit().await?;
        if cancelled {
            self.tickets_changed(&[id]);
            self.pools_changed();
            return Ok(Some(TicketStatus::Cancelled));
        }
        Ok(self.ticket(tenant, id).await?.map(|t| t.status))
    }

    async fn next_pool_due(&self) -> Result<Option<i64>, StoreError> {
        Ok(sqlx::query_scalar(NEXT_POOL_DUE).fetch_one(&self.pool).await?)
    }

    async fn due_pools(&self, until: i64, per_tenant: i64, limit: i64) -> Result<Vec<DuePool>, StoreError> {
        let rows = sqlx::query(AssertSqlSafe(due_pools_sql(
            "ticket_pools",
            until,
            per_tenant,
            limit,
        )))
        .fetch_all(&self.pool)
        .await?;
        let rows = rows.iter().map(due_row).collect::<Result<_, _>>()?;
        Ok(due_pools_of(rows, limit))
    }

    async fn match_pool<E, F>(
        &self,
        pool: &Pool,
        now: i64,
        decide: F,
    ) -> Result<Option<(Vec<TicketRow>, PoolDecision)>, E>
    where
        E: From<StoreError>,
        F: FnOnce(&[TicketRow]) -> Result<PoolDecision, E>,
    {
        let mut tx = self.writer().begin_with(BEGIN).await.map_err(StoreError::from)?;
        let claimed = sqlx::query(AssertSqlSafe(claim_pool_sql(SQLITE_SKIP_LOCKED)))
            .bind(&pool.tenant)
            .bind(&pool.rules)
            .bind(pool.asynchronous)
            .bind(now)
            .fetch_optional(&mut *tx)
            .await
            .map_err(StoreError::from)?;
        if claimed.is_none() {
            return Ok(None);
        }
        let tickets = Self::pool_tickets(&mut tx, pool).await?;
        let decision = decide(&tickets)?;
        self.settle_pool(tx, pool, &decision).await?;
        Ok(Some((tickets, decision)))
    }

    async fn match_ticket_now<E, F>(
        &self,
        pool: &Pool,
        id: Uuid,
        now: i64,
        decide: F,
    ) -> Result<Option<(Vec<TicketRow>, PoolDecision)>, E>
    where
        E: From<StoreError>,
        F: FnOnce(&[TicketRow]) -> Result<PoolDecision, E>,
    {
        let mut tx = self.writer().begin_with(BEGIN).await.map_err(StoreError::from)?;
        sqlx::query(MARK_DUE)
            .bind(&pool.tenant)
            .bind(&pool.rules)
            .bind(pool.asynchronous)
            .bind(now)
            .execute(&mut *tx)
            .await
            .map_err(StoreError::from)?;
        let tickets = Self::pool_tickets(&mut tx, pool).await?;
        if !tickets.iter().any(|t| t.id == id) {
            return Ok(None);
        }
        let decision = decide(&tickets)?;
        self.settle_pool(tx, pool, &decision).await?;
        Ok(Some((tickets, decision)))
    }

    async fn waiting_in_pool(&self, pool: &Pool, cap: i64) -> Result<i64, StoreError> {
        let count: i64 = sqlx::query_scalar(WAITING_IN_POOL)
            .bind(&pool.tenant)
            .bind(&pool.rules)
            .bind(pool.asynchronous)
            .bind(cap)
            .fetch_one(&self.pool)
            .await?;
        Ok(count)
    }

    async fn placing(&self, before: i64) -> Result<Vec<TicketRow>, StoreError> {
        let rows = sqlx::query(AssertSqlSafe(placing_sql(None)))
            .bind(before)
            .fetch_all(&self.pool)
            .await?;
        let placing = rows.iter().map(ticket_row).collect::<Result<_, _>>()?;
        Ok(oldest_placing(placing))
    }

    async fn placed(&self, tenant: &str, game: Uuid) -> Result<(), StoreError> {
        let mut tx = self.writer().begin_with(BEGIN).await?;
        let ids: Vec<Uuid> = sqlx::query_scalar(PLACED)
            .bind(tenant)
            .bind(game)
            .fetch_all(&mut *tx)
            .await?;
        tx.commit().await?;
        self.tickets_changed(&ids);
        Ok(())
    }

    async fn sweep_tickets(&self, before: i64) -> Result<u64, StoreError> {
        let swept = sqlx::query(SWEEP_TICKETS)
            .bind(before)
            .execute(self.writer())
            .await?;
        sqlx::query(SWEEP_POOLS).execute(self.writer()).await?;
        Ok(swept.rows_affected())
    }
}
