//! Quick play's tickets in the store ([`Tickets`]): the statements' text, written once for
//! PostgreSQL (one server or a Citus cluster, where `tickets` is distributed by tenant) and
//! SQLite, and the reading of their rows; both stores run them by the same code (`run.rs`),
//! each announcing what changed in its own way (`postgres.rs`, `sqlite.rs`).
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

mod postgres;
mod run;
mod sqlite;

pub(super) use run::SqlTickets;

use sqlx::{Database, Encode, QueryBuilder, Row, Type};
use uuid::Uuid;

use super::{KeyRef, StoreError, StoredResponse};
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
pub(in crate::store) struct DueRow {
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
pub(in crate::store) fn due_pools_sql(table: &str, until: i64, per_tenant: i64, limit: i64) -> String {
    format!(
        "SELECT tenant, rules, async, due_at, turn FROM (SELECT tenant, rules, async, due_at, \
         row_number() OVER (PARTITION BY tenant ORDER BY due_at, rules, async) AS turn \
         FROM {table} WHERE due_at <= {until}) d WHERE turn <= {per_tenant} ORDER BY turn, due_at LIMIT {limit}"
    )
}

/// The pools of `rows`, in the order of `due_pools_sql` (rows merged from several shards
/// sorted again), at most `limit`.
fn due_pools_of(mut rows: Vec<DueRow>, limit: i64) -> Vec<DuePool> {
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

/// When the soonest pool is due (`ticket_pools_due`).
const NEXT_POOL_DUE: &str = "SELECT min(due_at) FROM ticket_pools WHERE due_at IS NOT NULL";

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
    /// When the soonest pool is due (unix ms), if any is: one read of the index of pools by
    /// due time.
    async fn next_pool_due(&self) -> Result<Option<i64>, StoreError>;
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

/// A pool as [`due_pools_sql`] answers it, read by its columns' names.
fn due_row<R: Row>(r: &R) -> Result<DueRow, StoreError>
where
    for<'a> &'a str: sqlx::ColumnIndex<R>,
    String: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    bool: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    i64: for<'a> sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
{
    Ok(DueRow {
        tenant: r.try_get("tenant")?,
        rules: r.try_get("rules")?,
        asynchronous: r.try_get("async")?,
        due_at: r.try_get("due_at")?,
        turn: r.try_get("turn")?,
    })
}

/// Queues a ticket: `$1` to `$15` its columns, in [`TicketRow`]'s order, `status` and the
/// times last.
const INSERT_TICKET: &str = "INSERT INTO tickets (tenant, id, player, name, variant, rules, sizes, async, rating_mean, \
    rating_deviation, webhook_url, webhook_secret, status, created_at, expires_at) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)";

/// `" AND tenant = $2"` when a statement of ticket `$1` reads only a given tenant's.
fn of_tenant(tenant: Option<&str>) -> &'static str {
    if tenant.is_some() { " AND tenant = $2" } else { "" }
}

/// Ticket `$1` (of tenant `$2` when `tenant` is given).
fn ticket_sql(tenant: Option<&str>) -> String {
    format!(
        "SELECT {TICKET_FIELDS} FROM tickets WHERE id = $1{}",
        of_tenant(tenant)
    )
}

/// The pool of ticket `$1` (of tenant `$2` when `tenant` is given), if it is waiting.
fn waiting_pool_sql(tenant: Option<&str>) -> String {
    format!(
        "SELECT tenant, rules, async FROM tickets WHERE id = $1{} AND status = 'waiting'",
        of_tenant(tenant)
    )
}

/// Cancels ticket `$2` of tenant `$1` if it is waiting.
const CANCEL: &str =
    "UPDATE tickets SET status = 'cancelled' WHERE tenant = $1 AND id = $2 AND status = 'waiting'";

/// The row of pool (`$1`, `$2`, `$3`) if due at `$4`, claimed as `skip_locked` says.
fn claim_pool_sql(skip_locked: &str) -> String {
    format!(
        "SELECT due_at FROM ticket_pools WHERE tenant = $1 AND rules = $2 AND async = $3 AND due_at <= $4{skip_locked}"
    )
}

/// The waiting tickets of pool (`$1`, `$2`, `$3`), oldest first, at most [`POOL_BATCH`], held
/// as `skip_locked` says.
fn pool_tickets_sql(skip_locked: &str) -> String {
    format!(
        "SELECT {TICKET_FIELDS} FROM tickets WHERE tenant = $1 AND status = 'waiting' AND rules = $2 \
         AND async = $3 ORDER BY created_at, id LIMIT {POOL_BATCH}{skip_locked}"
    )
}

/// Expires the tickets `ids` of `tenant` that are still waiting: one statement.
fn expire_statement<DB: Database>(tenant: &str, ids: &[Uuid]) -> QueryBuilder<DB>
where
    DB::Arguments: Default,
    Uuid: for<'t> Encode<'t, DB> + Type<DB>,
    for<'a, 't> &'a str: Encode<'t, DB> + Type<DB>,
{
    let mut update = QueryBuilder::<DB>::new(
        "UPDATE tickets SET status = 'expired' WHERE status = 'waiting' AND tenant = ",
    );
    update.push_bind(tenant).push(" AND id IN (");
    let mut list = update.separated(", ");
    for id in ids {
        list.push_bind(*id);
    }
    update.push(")");
    update
}

/// Seats the tickets of `placed` (of `tenant`) that are still waiting, at `at`: one statement.
fn seat_statement<DB: Database>(tenant: &str, placed: &[Placement], at: i64) -> QueryBuilder<DB>
where
    DB::Arguments: Default,
    Uuid: for<'t> Encode<'t, DB> + Type<DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
    for<'a, 't> &'a str: Encode<'t, DB> + Type<DB>,
{
    let mut update = QueryBuilder::<DB>::new("UPDATE tickets SET status = 'placing', matched_at = ");
    update
        .push_bind(at)
        .push(", game_id = v.column2, seat = v.column3, plan = v.column4 FROM (");
    update.push_values(placed, |mut row, p| {
        row.push_bind(p.ticket)
            .push_bind(p.game)
            .push_bind(p.seat)
            .push_bind(p.plan.as_str());
    });
    update
        .push(") AS v WHERE tickets.tenant = ")
        .push_bind(tenant)
        .push(" AND tickets.id = v.column1 AND tickets.status = 'waiting'");
    update
}

/// Every ticket handed to `decide` is held by the pass's transaction: one not settled (of
/// `expired` and `seated` rows written) would leave its table short, so nothing is written.
fn all_settled(decision: &PoolDecision, expired: u64, seated: u64) -> Result<(), StoreError> {
    let decided = decision.expired.len() + decision.placed.len();
    if expired == decision.expired.len() as u64 && seated == decision.placed.len() as u64 {
        return Ok(());
    }
    Err(StoreError::Database(sqlx::Error::Protocol(format!(
        "{} of {decided} tickets were not waiting when their tables were formed",
        decided as u64 - expired - seated,
    ))))
}

/// Writes pool (`$1`, `$2`, `$3`)'s next time, `$4`.
const POOL_NEXT_DUE: &str =
    "UPDATE ticket_pools SET due_at = $4 WHERE tenant = $1 AND rules = $2 AND async = $3";

/// How many tickets wait in pool (`$1`, `$2`, `$3`), counted up to `$4`.
const WAITING_IN_POOL: &str = "SELECT count(*) FROM (SELECT 1 FROM tickets WHERE status = 'waiting' AND tenant = $1 \
    AND rules = $2 AND async = $3 LIMIT $4) w";

/// The condition of the tickets seated at or before `before` (unix ms), for a cluster's
/// search of the tenants that have some.
fn placing_condition(before: i64) -> String {
    format!("status = 'placing' AND matched_at <= {before}")
}

/// The tickets seated at or before `$1` (of tenant `$2` when `tenant` is given), the oldest
/// first, at most [`POOL_BATCH`].
fn placing_sql(tenant: Option<&str>) -> String {
    format!(
        "SELECT {TICKET_FIELDS} FROM tickets WHERE status = 'placing' AND matched_at <= $1{} \
         ORDER BY matched_at, id LIMIT {POOL_BATCH}",
        if tenant.is_some() { " AND tenant = $2" } else { "" }
    )
}

/// The placing tickets of several tenants' reads, in the order of one read, at most
/// [`POOL_BATCH`].
fn oldest_placing(mut placing: Vec<TicketRow>) -> Vec<TicketRow> {
    placing.sort_by_key(|t| (t.matched_at, t.id));
    placing.truncate(usize::try_from(POOL_BATCH).unwrap_or(usize::MAX));
    placing
}

/// Game `$2` of tenant `$1` exists: its tickets are `matched`; returns their ids.
const PLACED: &str = "UPDATE tickets SET status = 'matched' WHERE tenant = $1 AND game_id = $2 \
    AND status = 'placing' RETURNING id";

/// Deletes the tickets settled that expired, or would have, before `$1`.
const SWEEP_TICKETS: &str =
    "DELETE FROM tickets WHERE status IN ('matched', 'expired', 'cancelled') AND expires_at < $1";

/// Deletes the rows of pools that are not due and that no ticket waits in. A ticket that
/// arrives marks its pool due in its own transaction: a pool due is never one of these, and
/// one deleted is made again by the next ticket.
const SWEEP_POOLS: &str = "DELETE FROM ticket_pools WHERE due_at IS NULL AND NOT EXISTS (SELECT 1 FROM tickets t \
    WHERE t.tenant = ticket_pools.tenant AND t.status = 'waiting' \
    AND t.rules = ticket_pools.rules AND t.async = ticket_pools.async)";
