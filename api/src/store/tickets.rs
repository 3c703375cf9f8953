//! Quick play's tickets in the store ([`Tickets`]): one text of SQL for PostgreSQL (one server or
//! a Citus cluster, where `tickets` is distributed by tenant) and SQLite, like `sql.rs`.
//!
//! A pool (a tenant's waiting tickets of equal rules and asynchrony) has a row of its own in
//! `ticket_pools`, with the time it must next be matched (`due_at`): now when a ticket arrives
//! or leaves (written in that ticket's transaction, which announces it to every replica, see
//! [`POOLS_DUE`]), else the next moment the clock alone could seat someone, as the pool's last
//! pass found; none when only a ticket arriving or leaving can. The pools due are found by that
//! time's index, whatever the number of idle ones.
//!
//! The matching pass takes a due pool in one transaction: the pool's row claimed `FOR UPDATE
//! SKIP LOCKED` on condition that it is still due, so that one replica matches a pool at a time
//! (on a Citus cluster too: the row lives on its tenant's shard, beside the tickets); its
//! waiting tickets locked `FOR UPDATE SKIP LOCKED`; the tables it forms written onto the
//! tickets (`placing`, with the planned game and seat) and the pool's next time written before
//! the transaction commits. The games are made after, each idempotently, and only then are its
//! tickets `matched`. Whatever writes a pool's row and its tickets takes the pool's row first:
//! "play with bots now" ([`Tickets::match_ticket_now`]) is the same pass, on a row it waits for
//! instead of skipping, so that a ticket is seated by one of them only.

use sqlx::{AssertSqlSafe, QueryBuilder, Row};
use uuid::Uuid;

use super::hub::{CHANNEL, Signal, note};
use super::sql::{PG_SKIP_LOCKED, SQLITE_SKIP_LOCKED, key_insert, key_taken, now, push_key_values};
use super::write;
use super::{KeyRef, PgStore, SqliteStore, StoreError, StoredResponse};
use crate::domain::TicketStatus;

/// Most waiting tickets of one pool a pass takes at once: the matcher's work stays bounded
/// whatever the queue holds; the rest wait for the next pass.
pub const POOL_BATCH: i64 = 10_000;

/// Rows one statement settles at most: four parameters each stay under SQLite's limit of
/// 32,766.
const ROWS_PER_STATEMENT: usize = 1_000;

/// A ticket as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct TicketRow {
    /// Whose: the tenant of the server key that queued it (`""` without server keys).
    pub tenant: String,
    /// Its id, the capability to read or cancel it.
    pub id: Uuid,
    /// The studio's player, with a server key.
    pub player: Option<String>,
    /// The name the table shows.
    pub name: String,
    /// The variant's id.
    pub variant: String,
    /// The ruleset and turn clock as JSON: only tickets with equal rules meet.
    pub rules: String,
    /// The table sizes accepted, as a JSON array.
    pub sizes: String,
    /// Whether the player plays asynchronously.
    pub asynchronous: bool,
    /// The player's rating mean when queued.
    pub rating_mean: f64,
    /// The player's rating deviation when queued.
    pub rating_deviation: f64,
    /// Where its game's events go, if anywhere.
    pub webhook_url: Option<String>,
    /// The secret they are signed with.
    pub webhook_secret: Option<String>,
    /// Where it is.
    pub status: TicketStatus,
    /// When it was queued (unix ms).
    pub created_at: i64,
    /// When it expires if still waiting (unix ms).
    pub expires_at: i64,
    /// When the matching pass seated it (unix ms).
    pub matched_at: Option<i64>,
    /// Its game, once seated.
    pub game_id: Option<Uuid>,
    /// Its seat there.
    pub seat: Option<i64>,
    /// The table its game is made from (JSON), once seated.
    pub plan: Option<String>,
}

/// The hub's feed (a `NOTIFY` of [`CHANNEL`] on PostgreSQL, a call after the commit on
/// SQLite) that says a pool became due: every replica's matching worker follows it. No ticket
/// or game has this id (theirs are random, of version 4).
pub const POOLS_DUE: Uuid = Uuid::from_u128(1);

/// The tickets that may meet: one tenant's, of equal rules and asynchrony.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pool {
    /// The tenant.
    pub tenant: String,
    /// The rules, as stored.
    pub rules: String,
    /// Live or asynchronous.
    pub asynchronous: bool,
}

/// A pool due by a time asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuePool {
    /// The pool.
    pub pool: Pool,
    /// When it is due (unix ms).
    pub due_at: i64,
}

/// A pool as `due_pools_sql` answers it (as JSON from a cluster's shards).
#[derive(serde::Deserialize)]
pub(super) struct DueRow {
    tenant: String,
    rules: String,
    #[serde(rename = "async")]
    asynchronous: bool,
    due_at: i64,
    /// Its place among its tenant's pools due, by time, from 1.
    turn: i64,
}

/// The pools of `table` due by `until`, at most `per_tenant` of each tenant and `limit` in all:
/// every tenant's first before any tenant's second, so that one tenant's pools never hold up
/// another's.
pub(super) fn due_pools_sql(table: &str, until: i64, per_tenant: i64, limit: i64) -> String {
    format!(
        "SELECT tenant, rules, async, due_at, turn FROM (SELECT tenant, rules, async, due_at, \
         row_number() OVER (PARTITION BY tenant ORDER BY due_at, rules, async) AS turn \
         FROM {table} WHERE due_at <= {until}) d WHERE turn <= {per_tenant} ORDER BY turn, due_at LIMIT {limit}"
    )
}

/// The pools of `rows`, in the order of `due_pools_sql` (rows merged from several shards
/// sorted again), at most `limit`.
pub(super) fn due_pools_of(mut rows: Vec<DueRow>, limit: i64) -> Vec<DuePool> {
    rows.sort_by(|a, b| {
        (a.turn, a.due_at, &a.tenant, &a.rules).cmp(&(b.turn, b.due_at, &b.tenant, &b.rules))
    });
    rows.truncate(usize::try_from(limit).unwrap_or(0));
    rows.into_iter()
        .map(|r| DuePool {
            pool: Pool {
                tenant: r.tenant,
                rules: r.rules,
                asynchronous: r.asynchronous,
            },
            due_at: r.due_at,
        })
        .collect()
}

/// Marks a pool due at `$4` (sooner only), made if it has no row: in the transaction of a
/// ticket that arrives or leaves. It waits for a pass that holds the pool.
const MARK_DUE: &str = "INSERT INTO ticket_pools (tenant, rules, async, due_at) VALUES ($1, $2, $3, $4) \
    ON CONFLICT (tenant, rules, async) DO UPDATE SET due_at = excluded.due_at \
    WHERE ticket_pools.due_at IS NULL OR ticket_pools.due_at > excluded.due_at";

/// A ticket seated by the matching pass.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// The ticket.
    pub ticket: Uuid,
    /// The game planned for its table.
    pub game: Uuid,
    /// Its seat there.
    pub seat: i64,
    /// The table, as JSON (the same for every ticket of it).
    pub plan: String,
}

/// What a pass decided for a pool's waiting tickets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PoolDecision {
    /// Tickets past their time: expired.
    pub expired: Vec<Uuid>,
    /// Tickets seated at the tables formed.
    pub placed: Vec<Placement>,
    /// When the pool must be matched again though no ticket arrives or leaves (unix ms); `None`:
    /// only when one does.
    pub next_due: Option<i64>,
}

/// Quick play's tickets, as the service asks for them.
#[expect(async_fn_in_trait, reason = "used only inside this crate, on concrete types")]
pub trait Tickets {
    /// Queues `ticket`, and in the same transaction keeps the response of the request's
    /// idempotency key, if it has one. [`StoreError::AlreadyWaiting`] (nothing written) when
    /// its player has a waiting ticket already.
    async fn create_ticket(
        &self,
        ticket: &TicketRow,
        key: Option<(&KeyRef, &StoredResponse)>,
    ) -> Result<(), StoreError>;
    /// Ticket `id`, of `tenant` only when given.
    async fn ticket(&self, tenant: Option<&str>, id: Uuid) -> Result<Option<TicketRow>, StoreError>;
    /// Cancels ticket `id` (of `tenant` only when given) if it is waiting. Returns its status
    /// after: `Cancelled` when cancelled now or before, else the status that kept it (a ticket
    /// seated, or expired); `None` when there is no such ticket.
    async fn cancel_ticket(&self, tenant: Option<&str>, id: Uuid)
    -> Result<Option<TicketStatus>, StoreError>;
    /// The pools due by `until` (unix ms), read without a lock: at most `per_tenant` of each
    /// tenant and `limit` in all, every tenant's soonest first.
    async fn due_pools(&self, until: i64, per_tenant: i64, limit: i64) -> Result<Vec<DuePool>, StoreError>;
    /// One pass over `pool` if it is due at `now`, in one transaction: its waiting tickets
    /// (those no other transaction holds, oldest first, at most [`POOL_BATCH`]) handed to
    /// `decide`, and what it decides written before the commit, the pool's next time
    /// included; those tickets are returned with the decision. `None` when another replica is
    /// matching the pool, or matched it since it was found due.
    async fn match_pool<E, F>(
        &self,
        pool: &Pool,
        now: i64,
        decide: F,
    ) -> Result<Option<(Vec<TicketRow>, PoolDecision)>, E>
    where
        E: From<StoreError>,
        F: FnOnce(&[TicketRow]) -> Result<PoolDecision, E>;
    /// Seats ticket `id` of `pool` now, as a pass over `pool` would ("play with bots now"), in
    /// one transaction: the pool's row taken first and waited for (a pass or a cancel that
    /// holds it finishes first), marked due, then its waiting tickets handed to `decide` and what
    /// it decides written as [`Tickets::match_pool`] writes it. `None` (nothing written) when
    /// the ticket is no longer waiting by then.
    async fn match_ticket_now<E, F>(
        &self,
        pool: &Pool,
        id: Uuid,
        now: i64,
        decide: F,
    ) -> Result<Option<(Vec<TicketRow>, PoolDecision)>, E>
    where
        E: From<StoreError>,
        F: FnOnce(&[TicketRow]) -> Result<PoolDecision, E>;
    /// How many tickets wait in `pool`, counted up to `cap`: by the index of the waiting
    /// tickets by pool, never a scan of the others.
    async fn waiting_in_pool(&self, pool: &Pool, cap: i64) -> Result<i64, StoreError>;
    /// Tickets seated at or before `before` (unix ms) whose game is not known to exist: a
    /// replica may have stopped between the seating and the game.
    async fn placing(&self, before: i64) -> Result<Vec<TicketRow>, StoreError>;
    /// Game `game` of `tenant` exists: its tickets are `matched`.
    async fn placed(&self, tenant: &str, game: Uuid) -> Result<(), StoreError>;
    /// Deletes the tickets settled (matched, expired or cancelled) that expired or would have
    /// expired before `before` (unix ms), and the rows of pools no ticket waits in. Returns how
    /// many tickets went.
    async fn sweep_tickets(&self, before: i64) -> Result<u64, StoreError>;
}

/// The columns of a ticket row, as [`ticket_row`] reads them.
const TICKET_FIELDS: &str = "tenant, id, player, name, variant, rules, sizes, async, rating_mean, rating_deviation, \
    webhook_url, webhook_secret, status, created_at, expires_at, matched_at, game_id, seat, plan";

/// A ticket read by the names of [`TICKET_FIELDS`].
fn ticket_row<R: Row>(r: &R) -> Result<TicketRow, StoreError>
where
    for<'a> &'a str: sqlx::ColumnIndex<R>,
    Uuid: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    String: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    bool: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    f64: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    i64: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    Option<Uuid>: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    Option<String>: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    Option<i64>: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
{
    let status: String = r.try_get("status")?;
    Ok(TicketRow {
        tenant: r.try_get("tenant")?,
        id: r.try_get("id")?,
        player: r.try_get("player")?,
        name: r.try_get("name")?,
        variant: r.try_get("variant")?,
        rules: r.try_get("rules")?,
        sizes: r.try_get("sizes")?,
        asynchronous: r.try_get("async")?,
        rating_mean: r.try_get("rating_mean")?,
        rating_deviation: r.try_get("rating_deviation")?,
        webhook_url: r.try_get("webhook_url")?,
        webhook_secret: r.try_get("webhook_secret")?,
        status: TicketStatus::named(&status).ok_or_else(|| {
            StoreError::Database(sqlx::Error::Decode(
                format!("no ticket status is named {status:?}").into(),
            ))
        })?,
        created_at: r.try_get("created_at")?,
        expires_at: r.try_get("expires_at")?,
        matched_at: r.try_get("matched_at")?,
        game_id: r.try_get("game_id")?,
        seat: r.try_get("seat")?,
        plan: r.try_get("plan")?,
    })
}

/// A failed insert of a ticket: the index of one waiting ticket per player is
/// [`StoreError::AlreadyWaiting`].
fn already_waiting(e: sqlx::Error) -> StoreError {
    match &e {
        sqlx::Error::Database(db)
            if db.is_unique_violation()
                && db
                    .constraint()
                    .is_none_or(|c| c == "tickets_one_waiting_per_player") =>
        {
            StoreError::AlreadyWaiting
        }
        _ => StoreError::from(e),
    }
}

impl PgStore {
    /// Announces, in `tx` (heard only if it commits), that a pool became due: every replica's
    /// matching worker wakes.
    async fn notify_pools(tx: &mut sqlx::PgConnection) -> Result<(), StoreError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(CHANNEL)
            .bind(note(POOLS_DUE, 0, &[]))
            .execute(&mut *tx)
            .await?;
        Ok(())
    }

    /// Nothing to do: `NOTIFY` in the transaction announced it on commit.
    fn pools_changed(&self) {}

    /// Announces, in `tx` (heard only if it commits), that tickets `ids` changed: their
    /// streams read them again.
    async fn notify_tickets(tx: &mut sqlx::PgConnection, ids: &[Uuid]) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let notes: Vec<String> = ids.iter().map(|id| note(*id, 0, &[])).collect();
        sqlx::query("SELECT pg_notify('continental_events', n) FROM unnest($1::text[]) AS n")
            .bind(notes)
            .execute(&mut *tx)
            .await?;
        Ok(())
    }

    /// Nothing to do: `NOTIFY` in the transaction announced the change on commit.
    fn tickets_changed(&self, _ids: &[Uuid]) {}
}

impl SqliteStore {
    /// The tenants with tickets where `condition` holds, to be read one by one: on one
    /// database, `[None]`, every tenant in one query.
    async fn ticket_tenants(&self, _condition: &str) -> Result<Vec<Option<String>>, StoreError> {
        Ok(vec![None])
    }

    /// The pools due, from the one database.
    pub(super) async fn due_pool_rows(
        &self,
        until: i64,
        per_tenant: i64,
        limit: i64,
    ) -> Result<Vec<DueRow>, StoreError> {
        self.due_pools_in_one(until, per_tenant, limit).await
    }

    /// Nothing in the transaction: [`SqliteStore::pools_changed`] tells after the commit.
    async fn notify_pools(_tx: &mut sqlx::SqliteConnection) -> Result<(), StoreError> {
        Ok(())
    }

    /// Tells this process's matching worker that a pool became due.
    fn pools_changed(&self) {
        self.live.publish(POOLS_DUE, Signal::Resync);
    }

    /// Nothing in the transaction: [`SqliteStore::tickets_changed`] tells after the commit.
    async fn notify_tickets(_tx: &mut sqlx::SqliteConnection, _ids: &[Uuid]) -> Result<(), StoreError> {
        Ok(())
    }

    /// Tells this process's ticket streams that tickets `ids` changed.
    fn tickets_changed(&self, ids: &[Uuid]) {
        for id in ids {
            self.live.publish(*id, Signal::Resync);
        }
    }
}

/// The one SQL text of both stores' tickets, with how a transaction that will write begins and
/// how a claim skips rows another transaction holds.
macro_rules! ticket_store {
    ($store:ty, $db:ty, $begin:literal, $skip_locked:expr) => {
        impl $store {
            /// The pools due, read from one database (one server, or SQLite) in one query.
            pub(super) async fn due_pools_in_one(&self, until: i64, per_tenant: i64, limit: i64) -> Result<Vec<DueRow>, StoreError> {
                let rows = sqlx::query(AssertSqlSafe(due_pools_sql("ticket_pools", until, per_tenant, limit)))
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter()
                    .map(|r| {
                        Ok(DueRow {
                            tenant: r.try_get("tenant")?,
                            rules: r.try_get("rules")?,
                            asynchronous: r.try_get("async")?,
                            due_at: r.try_get("due_at")?,
                            turn: r.try_get("turn")?,
                        })
                    })
                    .collect()
            }

            /// The waiting tickets of `pool` no other transaction holds, oldest first, at most
            /// [`POOL_BATCH`], held by `tx`.
            async fn pool_tickets(
                tx: &mut sqlx::Transaction<'static, $db>,
                pool: &Pool,
            ) -> Result<Vec<TicketRow>, StoreError> {
                let rows = sqlx::query(AssertSqlSafe(format!(
                    "SELECT {TICKET_FIELDS} FROM tickets WHERE tenant = $1 AND status = 'waiting' AND rules = $2 \
                     AND async = $3 ORDER BY created_at, id LIMIT {POOL_BATCH}{}",
                    $skip_locked
                )))
                .bind(&pool.tenant)
                .bind(&pool.rules)
                .bind(pool.asynchronous)
                .fetch_all(&mut **tx)
                .await?;
                rows.iter().map(ticket_row).collect()
            }

            /// Writes what a pass decided for `pool`'s tickets, held by `tx`, and commits.
            async fn settle_pool(
                &self,
                mut tx: sqlx::Transaction<'static, $db>,
                pool: &Pool,
                decision: &PoolDecision,
            ) -> Result<(), StoreError> {
                // A statement per batch of rows, not per ticket: a pool's pass stays a few round
                // trips however many tickets it settles.
                let mut expired = 0;
                for batch in decision.expired.chunks(ROWS_PER_STATEMENT) {
                    let mut update = QueryBuilder::<$db>::new(
                        "UPDATE tickets SET status = 'expired' WHERE status = 'waiting' AND tenant = ",
                    );
                    update.push_bind(&pool.tenant).push(" AND id IN (");
                    let mut ids = update.separated(", ");
                    for id in batch {
                        ids.push_bind(*id);
                    }
                    update.push(")");
                    expired += update.build().execute(&mut *tx).await.map_err(StoreError::from)?.rows_affected();
                }
                let at = super::now_ms();
                let mut seated = 0;
                for batch in decision.placed.chunks(ROWS_PER_STATEMENT) {
                    let mut update = QueryBuilder::<$db>::new("UPDATE tickets SET status = 'placing', matched_at = ");
                    update
                        .push_bind(at)
                        .push(", game_id = v.column2, seat = v.column3, plan = v.column4 FROM (");
                    update.push_values(batch, |mut row, p| {
                        row.push_bind(p.ticket).push_bind(p.game).push_bind(p.seat).push_bind(p.plan.as_str());
                    });
                    update
                        .push(") AS v WHERE tickets.tenant = ")
                        .push_bind(&pool.tenant)
                        .push(" AND tickets.id = v.column1 AND tickets.status = 'waiting'");
                    seated += update.build().execute(&mut *tx).await.map_err(StoreError::from)?.rows_affected();
                }
                // Every ticket handed to `decide` is held by this transaction: one not settled
                // now would leave its table short, so nothing is written.
                if expired != decision.expired.len() as u64 || seated != decision.placed.len() as u64 {
                    return Err(StoreError::Database(sqlx::Error::Protocol(format!(
                        "{} of {} tickets were not waiting when their tables were formed",
                        (decision.expired.len() + decision.placed.len()) as u64 - expired - seated,
                        decision.expired.len() + decision.placed.len(),
                    ))));
                }
                sqlx::query("UPDATE ticket_pools SET due_at = $4 WHERE tenant = $1 AND rules = $2 AND async = $3")
                    .bind(&pool.tenant)
                    .bind(&pool.rules)
                    .bind(pool.asynchronous)
                    .bind(decision.next_due)
                    .execute(&mut *tx)
                    .await
                    .map_err(StoreError::from)?;
                let changed: Vec<Uuid> = decision.expired.iter().copied().collect();
                Self::notify_tickets(&mut tx, &changed).await?;
                tx.commit().await.map_err(StoreError::from)?;
                self.tickets_changed(&changed);
                Ok(())
            }
        }

        impl Tickets for $store {
            async fn create_ticket(
                &self,
                t: &TicketRow,
                key: Option<(&KeyRef, &StoredResponse)>,
            ) -> Result<(), StoreError> {
                let mut tx = self.writer().begin_with($begin).await?;
                sqlx::query(
                    "INSERT INTO tickets (tenant, id, player, name, variant, rules, sizes, async, rating_mean, \
                     rating_deviation, webhook_url, webhook_secret, status, created_at, expires_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
                )
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
                    let mut insert = QueryBuilder::<$db>::new(key_insert(kept.table));
                    push_key_values(&mut insert, &kept);
                    insert.build().execute(&mut *tx).await.map_err(|e| key_taken(e, None))?;
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
                self.pools_changed();
                Ok(())
            }

            async fn ticket(&self, tenant: Option<&str>, id: Uuid) -> Result<Option<TicketRow>, StoreError> {
                let of_tenant = if tenant.is_some() { " AND tenant = $2" } else { "" };
                let mut query = sqlx::query(AssertSqlSafe(format!(
                    "SELECT {TICKET_FIELDS} FROM tickets WHERE id = $1{of_tenant}"
                )))
                .bind(id);
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
                let of_tenant = if tenant.is_some() { " AND tenant = $2" } else { "" };
                let mut tx = self.writer().begin_with($begin).await?;
                let mut find = sqlx::query(AssertSqlSafe(format!(
                    "SELECT tenant, rules, async FROM tickets WHERE id = $1{of_tenant} AND status = 'waiting'"
                )))
                .bind(id);
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
                        .bind(super::now_ms())
                        .execute(&mut *tx)
                        .await?;
                    cancelled = sqlx::query(
                        "UPDATE tickets SET status = 'cancelled' WHERE tenant = $1 AND id = $2 AND status = 'waiting'",
                    )
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
                    self.tickets_changed(&[id]);
                    self.pools_changed();
                    return Ok(Some(TicketStatus::Cancelled));
                }
                Ok(self.ticket(tenant, id).await?.map(|t| t.status))
            }

            async fn due_pools(&self, until: i64, per_tenant: i64, limit: i64) -> Result<Vec<DuePool>, StoreError> {
                Ok(due_pools_of(self.due_pool_rows(until, per_tenant, limit).await?, limit))
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
                let mut tx = self.writer().begin_with($begin).await.map_err(StoreError::from)?;
                // The pool's row, held to the commit: no other replica matches it meanwhile.
                let claimed = sqlx::query(AssertSqlSafe(format!(
                    "SELECT due_at FROM ticket_pools WHERE tenant = $1 AND rules = $2 AND async = $3 \
                     AND due_at <= $4{}",
                    $skip_locked
                )))
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
                let mut tx = self.writer().begin_with($begin).await.map_err(StoreError::from)?;
                // The pool's row first, as a pass takes it, but waited for: a pass that holds
                // it commits first, and the ticket is then found seated, or still waiting here.
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
                let count: i64 = sqlx::query_scalar(
                    "SELECT count(*) FROM (SELECT 1 FROM tickets WHERE status = 'waiting' AND tenant = $1 \
                     AND rules = $2 AND async = $3 LIMIT $4) w",
                )
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
                for tenant in self.ticket_tenants(&format!("status = 'placing' AND matched_at <= {before}")).await? {
                    let sql = format!(
                        "SELECT {TICKET_FIELDS} FROM tickets WHERE status = 'placing' AND matched_at <= $1{} \
                         ORDER BY matched_at, id LIMIT {POOL_BATCH}",
                        if tenant.is_some() { " AND tenant = $2" } else { "" }
                    );
                    let mut query = sqlx::query(AssertSqlSafe(sql)).bind(before);
                    if let Some(tenant) = tenant {
                        query = query.bind(tenant);
                    }
                    let rows = query.fetch_all(&self.pool).await?;
                    for r in &rows {
                        placing.push(ticket_row(r)?);
                    }
                }
                placing.sort_by_key(|t| (t.matched_at, t.id));
                placing.truncate(usize::try_from(POOL_BATCH).unwrap_or(usize::MAX));
                Ok(placing)
            }

            async fn placed(&self, tenant: &str, game: Uuid) -> Result<(), StoreError> {
                let mut tx = self.writer().begin_with($begin).await?;
                let ids: Vec<Uuid> = sqlx::query_scalar(
                    "UPDATE tickets SET status = 'matched' WHERE tenant = $1 AND game_id = $2 \
                     AND status = 'placing' RETURNING id",
                )
                .bind(tenant)
                .bind(game)
                .fetch_all(&mut *tx)
                .await?;
                Self::notify_tickets(&mut tx, &ids).await?;
                tx.commit().await?;
                self.tickets_changed(&ids);
                Ok(())
            }

            async fn sweep_tickets(&self, before: i64) -> Result<u64, StoreError> {
                let swept = sqlx::query(
                    "DELETE FROM tickets WHERE status IN ('matched', 'expired', 'cancelled') AND expires_at < $1",
                )
                .bind(before)
                .execute(self.writer())
                .await?;
                // A ticket that arrives marks its pool due in its own transaction: a pool due is
                // never one of these, and one deleted is made again by the next ticket.
                sqlx::query(
                    "DELETE FROM ticket_pools WHERE due_at IS NULL AND NOT EXISTS (SELECT 1 FROM tickets t \
                     WHERE t.tenant = ticket_pools.tenant AND t.status = 'waiting' \
                     AND t.rules = ticket_pools.rules AND t.async = ticket_pools.async)",
                )
                .execute(self.writer())
                .await?;
                Ok(swept.rows_affected())
            }
        }
    };
}

ticket_store!(PgStore, sqlx::Postgres, "BEGIN", PG_SKIP_LOCKED);
ticket_store!(SqliteStore, sqlx::Sqlite, "BEGIN IMMEDIATE", SQLITE_SKIP_LOCKED);
