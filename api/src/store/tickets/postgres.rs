//! Quick play's tickets on PostgreSQL (one server or a Citus cluster): what changed is
//! announced by `NOTIFY` in the writing transaction, so that only a commit is heard.

use sqlx::{AssertSqlSafe, PgConnection, Postgres, QueryBuilder, Row, Transaction};
use uuid::Uuid;

use crate::store::sql::Dialect as _;

use super::super::hub::{CHANNEL, Work, note};
use super::super::sql::{PG_SKIP_LOCKED, key_insert, key_taken, now, push_key_values};
use super::super::write;
use super::super::{KeyRef, PgStore, StoreError, StoredResponse};
use super::{
    CANCEL, DuePool, DueRow, INSERT_TICKET, MARK_DUE, NEXT_POOL_DUE, PLACED, POOL_NEXT_DUE, POOLS_DUE, Pool,
    PoolDecision, ROWS_PER_STATEMENT, SWEEP_POOLS, SWEEP_TICKETS, TicketRow, Tickets, WAITING_IN_POOL,
    all_settled, already_waiting, claim_pool_sql, due_pools_of, due_pools_sql, due_row, expire_statement,
    oldest_placing, placing_condition, placing_sql, pool_tickets_sql, seat_statement, ticket_row, ticket_sql,
    waiting_pool_sql,
};
use crate::domain::TicketStatus;

impl PgStore {
    /// Announces, in `tx` (heard only if it commits), that a pool became due: every replica's
    /// matching worker wakes.
    async fn notify_pools(tx: &mut PgConnection) -> Result<(), StoreError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(CHANNEL)
            .bind(note(POOLS_DUE, 0, &[], Work::default()))
            .execute(&mut *tx)
            .await?;
        Ok(())
    }

    /// Announces, in `tx` (heard only if it commits), that tickets `ids` changed: their
    /// streams read them again.
    async fn notify_tickets(tx: &mut PgConnection, ids: &[Uuid]) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let notes: Vec<String> = ids.iter().map(|id| note(*id, 0, &[], Work::default())).collect();
        sqlx::query("SELECT pg_notify('continental_events', n) FROM unnest($1::text[]) AS n")
            .bind(notes)
            .execute(&mut *tx)
            .await?;
        Ok(())
    }

    /// The pools due, read from one database in one query (on a cluster, `due_pool_rows`
    /// reads them shard by shard).
    pub(in crate::store) async fn due_pools_in_one(
        &self,
        until: i64,
        per_tenant: i64,
        limit: i64,
    ) -> Result<Vec<DueRow>, StoreError> {
        let rows = sqlx::query(AssertSqlSafe(due_pools_sql(
            "ticket_pools",
            until,
            per_tenant,
            limit,
        )))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(due_row).collect()
    }

    /// The waiting tickets of `pool` no other transaction holds, oldest first, at most
    /// [`POOL_BATCH`](super::POOL_BATCH), held by `tx`.
    async fn pool_tickets(tx: &mut PgConnection, pool: &Pool) -> Result<Vec<TicketRow>, StoreError> {
        let rows = sqlx::query(AssertSqlSafe(pool_tickets_sql(PG_SKIP_LOCKED)))
            .bind(&pool.tenant)
            .bind(&pool.rules)
            .bind(pool.asynchronous)
            .fetch_all(&mut *tx)
            .await?;
        rows.iter().map(ticket_row).collect()
    }

    /// Writes what a pass decided for `pool`'s tickets, held by `tx`, and commits.
    async fn settle_pool(
        &self,
        mut tx: Transaction<'static, Postgres>,
        pool: &Pool,
        decision: &PoolDecision,
    ) -> Result<(), StoreError> {
        // A statement per batch of rows, not per ticket: a pool's pass stays a few round
        // trips however many tickets it settles.
        let mut expired = 0;
        for batch in decision.expired.chunks(ROWS_PER_STATEMENT) {
            let mut update = expire_statement::<Postgres>(&pool.tenant, batch);
            expired += update.build().execute(&mut *tx).await?.rows_affected();
        }
        let at = super::super::now_ms();
        let mut seated = 0;
        for batch in decision.placed.chunks(ROWS_PER_STATEMENT) {
            let mut update = seat_statement::<Postgres>(&pool.tenant, batch, at);
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
        Self::notify_tickets(&mut tx, &decision.expired).await?;
        tx.commit().await?;
        Ok(())
    }
}

impl Tickets for PgStore {
    async fn create_ticket(
        &self,
        t: &TicketRow,
        key: Option<(&KeyRef, &StoredResponse)>,
    ) -> Result<(), StoreError> {
        let mut tx = self.writer().begin().await?;
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
            let mut insert = QueryBuilder::<Postgres>::new(key_insert(kept.table));
            push_key_values(&mut insert, &kept);
            insert
                .build()
                .execute(&mut *tx)
                .await
                .map_err(|e| key_taken(e, None))?;
        }
        // Last, so that the pool's row is held for the commit alone.
        sqlx::query(MARK_DUE)
            .bind(&t.tenant)
            .bind(&t.rules)
            .bind(t.asynchronous)
            .bind(t.created_at)
            .execute(&mut *tx)
            .await?;
        Self::notify_pools(&mut tx).await?;
        tx.commit().await?;
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
        let mut tx = self.writer().begin().await?;
        let mut find = sqlx::query(AssertSqlSafe(waiting_pool_sql(tenant))).bind(id);
        if let Some(tenant) = tenant {
            find = find.bind(tenant);
        }
        let mut cancelled = false;
        if let Some(row) = find.fetch_optional(&mut *tx).await? {
            let owner: String = row.try_get("tenant")?;
            // The pool first, as a pass takes it: this waits for a pass that holds the
            // pool, then finds the ticket seated, or cancels it and leaves the pool due.
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
        if cancelled {
            Self::notify_tickets(&mut tx, &[id]).await?;
            Self::notify_pools(&mut tx).await?;
        }
        tx.commit().await?;
        if cancelled {
            return Ok(Some(TicketStatus::Cancelled));
        }
        Ok(self.ticket(tenant, id).await?.map(|t| t.status))
    }

    async fn next_pool_due(&self) -> Result<Option<i64>, StoreError> {
        Ok(sqlx::query_scalar(NEXT_POOL_DUE).fetch_one(&self.pool).await?)
    }

    async fn due_pools(&self, until: i64, per_tenant: i64, limit: i64) -> Result<Vec<DuePool>, StoreError> {
        Ok(due_pools_of(
            self.due_pool_rows(until, per_tenant, limit).await?,
            limit,
        ))
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
        let mut tx = self.writer().begin().await.map_err(StoreError::from)?;
        // The pool's row, held to the commit: no other replica matches it meanwhile.
        let claimed = sqlx::query(AssertSqlSafe(claim_pool_sql(PG_SKIP_LOCKED)))
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
        let mut tx = self.writer().begin().await.map_err(StoreError::from)?;
        // The pool's row first, as a pass takes it, but waited for: a pass that holds it
        // commits first, and the ticket is then found seated, or still waiting here.
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
        let mut placing = Vec::new();
        // On a cluster, tenant by tenant: each one shard's query.
        for tenant in self.ticket_tenants(&placing_condition(before)).await? {
            let mut query = sqlx::query(AssertSqlSafe(placing_sql(tenant.as_deref()))).bind(before);
            if let Some(tenant) = tenant {
                query = query.bind(tenant);
            }
            for r in &query.fetch_all(&self.pool).await? {
                placing.push(ticket_row(r)?);
            }
        }
        Ok(oldest_placing(placing))
    }

    async fn placed(&self, tenant: &str, game: Uuid) -> Result<(), StoreError> {
        let mut tx = self.writer().begin().await?;
        let ids: Vec<Uuid> = sqlx::query_scalar(PLACED)
            .bind(tenant)
            .bind(game)
            .fetch_all(&mut *tx)
            .await?;
        Self::notify_tickets(&mut tx, &ids).await?;
        tx.commit().await?;
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
