//! Quick play's tickets, run once for both stores ([`SqlTickets`]): PostgreSQL announces what
//! changed by `NOTIFY` in the writing transaction (so that only a commit is heard), and skips
//! the pools and tickets another transaction holds; SQLite holds the database from `BEGIN
//! IMMEDIATE` to the commit and tells this process's hub after it.

use sqlx::{
    AssertSqlSafe, ColumnIndex, Database, Decode, Encode, Executor, IntoArguments, QueryBuilder, Row,
    Transaction, Type,
};
use uuid::Uuid;

use super::super::run::Conn;
use super::super::sql::{Dialect, RowsAffected as _, key_insert, key_taken, now, push_key_values};
use super::super::write;
use super::super::{KeyRef, StoreError, StoredResponse};
use super::{
    CANCEL, DuePool, DueRow, INSERT_TICKET, MARK_DUE, NEXT_POOL_DUE, PLACED, POOL_NEXT_DUE, Pool,
    PoolDecision, ROWS_PER_STATEMENT, SWEEP_POOLS, SWEEP_TICKETS, TicketRow, Tickets, WAITING_IN_POOL,
    all_settled, already_waiting, claim_pool_sql, due_pools_of, due_pools_sql, due_row, expire_statement,
    oldest_placing, placing_condition, placing_sql, pool_tickets_sql, seat_statement, ticket_row, ticket_sql,
    waiting_pool_sql,
};
use crate::domain::{GameStatus, TicketStatus};

/// Quick play's statements, run by each SQL store: its own ways are the methods without a
/// body.
pub(in crate::store) trait SqlTickets: Dialect
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
{
    /// Announces in `tx` (heard only if it commits) that a pool became due: every replica's
    /// matching worker wakes.
    async fn notify_pools(&self, tx: &mut Conn<Self>) -> Result<(), StoreError>;

    /// Announces in `tx` (heard only if it commits) that tickets `ids` changed: their
    /// streams read them again.
    async fn notify_tickets(&self, tx: &mut Conn<Self>, ids: &[Uuid]) -> Result<(), StoreError>;

    /// Tells, after the commit, where nothing in the transaction did, that a pool became due.
    fn pools_changed(&self);

    /// Tells, after the commit, where nothing in the transaction did, that tickets `ids`
    /// changed.
    fn tickets_changed(&self, ids: &[Uuid]);

    /// The pools due (on a cluster, read shard by shard).
    async fn due_pool_rows(&self, until: i64, per_tenant: i64, limit: i64)
    -> Result<Vec<DueRow>, StoreError>;

    /// The tenants whose tickets meet `condition`, each one shard's query on a cluster; one
    /// `None` (every tenant in one query) otherwise.
    async fn ticket_tenants(&self, condition: &str) -> Result<Vec<Option<String>>, StoreError>;

    /// The pools due, read from one database in one query (on a cluster, `due_pool_rows`
    /// reads them shard by shard).
    async fn due_pools_in_one(
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
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(due_row).collect()
    }

    /// The waiting tickets of `pool` no other transaction holds, oldest first, at most
    /// [`POOL_BATCH`](super::POOL_BATCH), held by `tx` (on SQLite, `tx` holds the database).
    async fn pool_tickets(tx: &mut Conn<Self>, pool: &Pool) -> Result<Vec<TicketRow>, StoreError> {
        let rows = sqlx::query(AssertSqlSafe(pool_tickets_sql(Self::SKIP_LOCKED)))
            .bind(&pool.tenant)
            .bind(&pool.rules)
            .bind(pool.asynchronous)
            .fetch_all(&mut *tx)
            .await?;
        rows.iter().map(ticket_row).collect()
    }

    /// Writes what a pass decided for `pool`'s tickets, held by `tx`, commits, and tells the
    /// streams of the tickets expired.
    async fn settle_pool(
        &self,
        mut tx: Transaction<'static, Self::Db>,
        pool: &Pool,
        decision: &PoolDecision,
    ) -> Result<(), StoreError> {
        // A statement per batch of rows, not per ticket: a pool's pass stays a few round
        // trips however many tickets it settles.
        let mut expired = 0;
        for batch in decision.expired.chunks(ROWS_PER_STATEMENT) {
            let mut update = expire_statement::<Self::Db>(&pool.tenant, batch);
            expired += update.build().execute(&mut *tx).await?.rows_affected();
        }
        let at = super::super::now_ms();
        let mut seated = 0;
        for batch in decision.placed.chunks(ROWS_PER_STATEMENT) {
            let mut update = seat_statement::<Self::Db>(&pool.tenant, batch, at);
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
        self.notify_tickets(&mut tx, &decision.expired).await?;
        tx.commit().await?;
        self.tickets_changed(&decision.expired);
        Ok(())
    }
}

impl<S> Tickets for S
where
    S: SqlTickets,
    for<'c> &'c mut Conn<S>: Executor<'c, Database = S::Db>,
    <S::Db as Database>::Arguments: Default + IntoArguments<S::Db>,
    for<'a> &'a str: ColumnIndex<<S::Db as Database>::Row>,
    usize: ColumnIndex<<S::Db as Database>::Row>,
    for<'a, 't> &'a str: Encode<'t, S::Db> + Type<S::Db>,
    for<'a> &'a [u8]: Encode<'a, S::Db> + Type<S::Db>,
    for<'a> Option<&'a str>: Encode<'a, S::Db> + Type<S::Db>,
    Option<String>: for<'t> Encode<'t, S::Db> + Type<S::Db>,
    Option<i64>: for<'t> Encode<'t, S::Db> + Type<S::Db>,
    i32: for<'t> Encode<'t, S::Db> + for<'r> Decode<'r, S::Db> + Type<S::Db>,
    i64: for<'t> Encode<'t, S::Db> + for<'r> Decode<'r, S::Db> + Type<S::Db>,
    f64: for<'t> Encode<'t, S::Db> + for<'r> Decode<'r, S::Db> + Type<S::Db>,
    bool: for<'t> Encode<'t, S::Db> + for<'r> Decode<'r, S::Db> + Type<S::Db>,
    String: for<'t> Encode<'t, S::Db> + for<'r> Decode<'r, S::Db> + Type<S::Db>,
    Vec<u8>: for<'t> Encode<'t, S::Db> + for<'r> Decode<'r, S::Db> + Type<S::Db>,
    Uuid: for<'t> Encode<'t, S::Db> + for<'r> Decode<'r, S::Db> + Type<S::Db>,
    GameStatus: for<'t> Encode<'t, S::Db> + for<'r> Decode<'r, S::Db> + Type<S::Db>,
{
    async fn create_ticket(
        &self,
        t: &TicketRow,
        key: Option<(&KeyRef, &StoredResponse)>,
    ) -> Result<(), StoreError> {
        let mut tx = Self::begin(self.writer()).await?;
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
            let mut insert = QueryBuilder::<S::Db>::new(key_insert(kept.table));
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
        self.notify_pools(&mut tx).await?;
        tx.commit().await?;
        self.pools_changed();
        Ok(())
    }

    async fn ticket(&self, tenant: Option<&str>, id: Uuid) -> Result<Option<TicketRow>, StoreError> {
        let mut query = sqlx::query(AssertSqlSafe(ticket_sql(tenant))).bind(id);
        if let Some(tenant) = tenant {
            query = query.bind(tenant);
        }
        let row = query.fetch_optional(self.pool()).await?;
        row.map(|r| ticket_row(&r)).transpose()
    }

    async fn cancel_ticket(
        &self,
        tenant: Option<&str>,
        id: Uuid,
    ) -> Result<Option<TicketStatus>, StoreError> {
        let mut tx = Self::begin(self.writer()).await?;
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
            self.notify_tickets(&mut tx, &[id]).await?;
            self.notify_pools(&mut tx).await?;
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
        Ok(sqlx::query_scalar(NEXT_POOL_DUE).fetch_one(self.pool()).await?)
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
        let mut tx = Self::begin(self.writer()).await.map_err(StoreError::from)?;
        // The pool's row, held to the commit: no other replica matches it meanwhile.
        let claimed = sqlx::query(AssertSqlSafe(claim_pool_sql(Self::SKIP_LOCKED)))
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
        let mut tx = Self::begin(self.writer()).await.map_err(StoreError::from)?;
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
            .fetch_one(self.pool())
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
            for r in &query.fetch_all(self.pool()).await? {
                placing.push(ticket_row(r)?);
            }
        }
        Ok(oldest_placing(placing))
    }

    async fn placed(&self, tenant: &str, game: Uuid) -> Result<(), StoreError> {
        let mut tx = Self::begin(self.writer()).await?;
        let ids: Vec<Uuid> = sqlx::query_scalar(PLACED)
            .bind(tenant)
            .bind(game)
            .fetch_all(&mut *tx)
            .await?;
        self.notify_tickets(&mut tx, &ids).await?;
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
