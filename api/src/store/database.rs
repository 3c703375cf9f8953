//! The database chosen at start: PostgreSQL or SQLite, behind one [`Store`].

use std::future::Future;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions};
use tracing::Instrument;
use uuid::Uuid;

use super::citus::nodes::Nodes;
use super::postgres::ADMISSION_CONNECTIONS;
use super::{
    Attempt, Backlog, Delivery, DueGame, EventRow, GameRow, KeyClaim, KeyRef, ListedRow, Lock, NewGame, On,
    Origin, Outcome, PgStore, RecordedEvent, Settled, SqliteStore, Store, StoreError, StoredResponse, Swept,
    WebhookCounts,
};
use super::{
    BoardCursor, BoardPage, DuePool, GameListing, Live, PlayerRecord, Pool, PoolDecision, RatingDue,
    RatingWrite, Standing, TicketRow, Tickets,
};
use super::{
    Closed, Closing, Entered, EntryRow, StandingRow, TableRow, TournamentDelivery, TournamentRow, Tournaments,
};
use crate::config::{DatabaseSettings, Limits, default_db_pool};
use crate::domain::TicketStatus;
use crate::domain::{Participant, Rating};
use crate::telemetry::traces::{self, POSTGRESQL, SQLITE};

/// How each PostgreSQL connection to `url` is made: every wait bounded by `limits`. Set per
/// connection, so a move waiting on a hot game's row gives up after `lock_timeout` instead of
/// holding its pooled connection for as long as it takes.
fn postgres_options(url: &str, limits: &Limits) -> Result<PgConnectOptions, StoreError> {
    Ok(PgConnectOptions::from_str(url)?.options([
        (
            "statement_timeout",
            limits.statement_timeout.as_millis().to_string(),
        ),
        ("lock_timeout", limits.lock_timeout.as_millis().to_string()),
        (
            "idle_in_transaction_session_timeout",
            limits.statement_timeout.as_millis().to_string(),
        ),
        // On a Citus cluster, the wait for a worker that does not answer (30 s by default) is
        // the wait for a connection, so a game on a hung worker is a 503 as soon as one on a
        // stopped worker; PostgreSQL alone keeps the setting unused.
        (
            "citus.node_connection_timeout",
            limits.db_acquire_timeout.as_millis().to_string(),
        ),
    ]))
}

/// The workers of the Citus cluster that `pool` reaches, each with a listener and a pool.
/// An action's `NOTIFY` is sent by the worker of its game: a listener on each, so that a lost
/// worker silences only its own games. A game's statements go to its worker by a pool of each,
/// but for the worker `options` names, if it names one: the service's own pool serves it.
async fn cluster_nodes(
    pool: &sqlx::PgPool,
    options: &PgConnectOptions,
    limits: &Limits,
    live: &Live,
) -> Result<Nodes, StoreError> {
    let workers: Vec<(String, i32, i32, bool)> = sqlx::query_as(
        "SELECT nodename::text, nodeport, groupid, \
            groupid = (SELECT groupid FROM pg_dist_local_group) \
         FROM pg_dist_node \
         WHERE noderole = 'primary' AND isactive AND groupid <> 0 ORDER BY nodeid",
    )
    .fetch_all(pool)
    .await?;
    let per_worker = limits
        .db_pool_per_worker
        .unwrap_or_else(|| limits.db_pool.unwrap_or_else(default_db_pool));
    let mut pools = Vec::new();
    for (host, port, group, own) in workers {
        let on = options
            .clone()
            .host(&host)
            .port(u16::try_from(port).unwrap_or(5432));
        let listener = PgPoolOptions::new()
            .max_connections(1)
            .connect_lazy_with(on.clone());
        live.listen(listener, format!("{host}:{port}"));
        let pool = (!own).then(|| pool_options(per_worker, limits).connect_lazy_with(on));
        pools.push((group, pool));
    }
    let bound = limits.db_acquire_timeout + limits.statement_timeout;
    Ok(Nodes::new(pool.clone(), pools, bound).await)
}

/// A pooled PostgreSQL connection idle longer than this is checked before it is used.
const CHECKED_AFTER_IDLE: Duration = Duration::from_secs(1);

/// The configured database.
#[derive(Clone, Debug)]
pub enum Database {
    /// PostgreSQL.
    Postgres(PgStore),
    /// SQLite.
    Sqlite(SqliteStore),
}

impl Database {
    /// Connects (creating the SQLite file if needed) and runs the embedded migrations, on
    /// `migrations` when given (a Citus worker's coordinator), else on the database. Every
    /// wait is bounded by `limits`: for a connection, a statement, a game's lock. Committed
    /// events reach `live`: on PostgreSQL through a listener of its own, started here.
    ///
    /// # Errors
    /// When the database can't be reached or a migration fails.
    pub async fn connect(
        settings: &DatabaseSettings,
        migrations: Option<&DatabaseSettings>,
        limits: &Limits,
        live: &Live,
    ) -> Result<Database, StoreError> {
        match settings {
            DatabaseSettings::Postgres { url } => Self::connect_postgres(url, migrations, limits, live).await,
            DatabaseSettings::Sqlite { path } => Self::connect_sqlite(path, limits, live).await,
        }
    }

    /// [`Database::connect`] to PostgreSQL at `url`, and on a Citus cluster to each worker.
    async fn connect_postgres(
        url: &str,
        migrations: Option<&DatabaseSettings>,
        limits: &Limits,
        live: &Live,
    ) -> Result<Database, StoreError> {
        let options = postgres_options(url, limits)?;
        // One connection of its own: LISTEN holds it for good.
        let listener = PgPoolOptions::new()
            .max_connections(1)
            .connect_lazy_with(options.clone());
        let size = limits.db_pool.unwrap_or_else(default_db_pool);
        let pool = pool_options(size, limits).connect_with(options.clone()).await?;
        match migrations {
            // A Citus worker's replica: the migrations are the coordinator's to run.
            Some(DatabaseSettings::Postgres { url }) => {
                let mut conn = PgConnection::connect_with(&PgConnectOptions::from_str(url)?).await?;
                sqlx::migrate!("../migrations/postgres").run(&mut conn).await?;
                conn.close().await?;
            }
            _ => sqlx::migrate!("../migrations/postgres").run(&pool).await?,
        }
        let cluster =
            sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')")
                .fetch_one(&pool)
                .await?;
        live.listen(listener, "the database".to_owned());
        let bound = limits.db_acquire_timeout + limits.statement_timeout;
        let nodes = match cluster {
            true => Some(Arc::new(cluster_nodes(&pool, &options, limits, live).await?)),
            false => None,
        };
        let admission =
            cluster.then(|| pool_options(ADMISSION_CONNECTIONS, limits).connect_lazy_with(options));
        Ok(Database::Postgres(PgStore {
            pool,
            bound,
            cluster,
            away: Default::default(),
            nodes,
            admission,
        }))
    }

    /// [`Database::connect`] to the SQLite file at `path`, created if needed.
    async fn connect_sqlite(path: &str, limits: &Limits, live: &Live) -> Result<Database, StoreError> {
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // A file locked by another process answers 503 after this, not a hang.
            .busy_timeout(limits.lock_timeout)
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(limits.db_pool.unwrap_or_else(default_db_pool))
            .acquire_timeout(limits.db_acquire_timeout)
            .connect_with(options.clone())
            .await?;
        sqlx::migrate!("../migrations/sqlite").run(&pool).await?;
        // sqlx hands out a pool's connections first come, first served.
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(limits.db_acquire_timeout)
            .connect_lazy_with(options);
        Ok(Database::Sqlite(SqliteStore {
            pool,
            writer,
            bound: limits.db_acquire_timeout + limits.statement_timeout,
            live: live.clone(),
        }))
    }

    /// The pools' connections now, on a cluster to every node: (in use, idle).
    pub fn pool_connections(&self) -> (u32, u32) {
        let (size, idle) = match self {
            Database::Postgres(s) => s
                .nodes
                .iter()
                .flat_map(|nodes| nodes.pools())
                .chain([&s.pool])
                .chain(&s.admission)
                .fold((0, 0), |(size, idle), p| (size + p.size(), idle + p.num_idle())),
            Database::Sqlite(s) => (
                s.pool.size() + s.writer.size(),
                s.pool.num_idle() + s.writer.num_idle(),
            ),
        };
        let idle = u32::try_from(idle).unwrap_or(u32::MAX);
        (size.saturating_sub(idle), idle)
    }
}

/// `call`, or [`StoreError::TimedOut`] once it has taken longer than `bound` (a connection,
/// then its statements). The server's own timeouts cannot fire when the network to it hangs;
/// this one still does.
/// A pool of `size` connections.
fn pool_options(size: u32, limits: &Limits) -> PgPoolOptions {
    PgPoolOptions::new()
        .max_connections(size)
        .acquire_timeout(limits.db_acquire_timeout)
        // sqlx checks every connection as it comes back to the pool; checking it
        // again as it goes out would be one more round trip in every action. Only
        // one idle for a while is checked, so that a database restarted in a quiet
        // spell costs no request. One that fails the check is closed and another
        // taken, as the database expects after a restart: no warning.
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move { Ok(meta.idle_for <= CHECKED_AFTER_IDLE || conn.ping().await.is_ok()) })
        })
}

async fn bounded<T, E: From<StoreError>>(
    bound: Duration,
    call: impl Future<Output = Result<T, E>>,
) -> Result<T, E> {
    tokio::time::timeout(bound, call)
        .await
        .unwrap_or_else(|elapsed| Err(E::from(StoreError::TimedOut(elapsed))))
}

/// Forwards each method to the store in use, bounded in time; with an operation's name, inside
/// a database span of that name (exported when traces are, `telemetry::traces`).
macro_rules! dispatch {
    ($self:ident, $s:ident => $call:expr) => {
        match $self {
            Database::Postgres($s) => bounded($s.bound, $call).await,
            Database::Sqlite($s) => bounded($s.bound, $call).await,
        }
    };
    ($self:ident, $operation:literal, $s:ident => $call:expr) => {
        match $self {
            Database::Postgres($s) => {
                bounded($s.bound, $call)
                    .instrument(traces::database(POSTGRESQL, $operation))
                    .await
            }
            Database::Sqlite($s) => {
                bounded($s.bound, $call)
                    .instrument(traces::database(SQLITE, $operation))
                    .await
            }
        }
    };
}

impl Store for Database {
    async fn ready(&self) -> Result<(), StoreError> {
        dispatch!(self, s => s.ready())
    }
    async fn jwt_secret(&self, generated: String) -> Result<String, StoreError> {
        dispatch!(self, s => s.jwt_secret(generated))
    }
    async fn create_game(
        &self,
        new: &NewGame,
        key: Option<(&KeyRef, &StoredResponse)>,
    ) -> Result<bool, StoreError> {
        dispatch!(self, s => s.create_game(new, key))
    }
    async fn origin(&self, id: Uuid) -> Result<Option<Origin>, StoreError> {
        dispatch!(self, s => s.origin(id))
    }
    async fn game(&self, id: Uuid) -> Result<Option<GameRow>, StoreError> {
        dispatch!(self, "read game", s => s.game(id))
    }
    async fn game_in(&self, tenant: &str, id: Uuid) -> Result<Option<GameRow>, StoreError> {
        dispatch!(self, s => s.game_in(tenant, id))
    }
    async fn list_games(&self, tenant: &str, listing: &GameListing) -> Result<Vec<ListedRow>, StoreError> {
        dispatch!(self, s => s.list_games(tenant, listing))
    }
    async fn events_after(&self, id: Uuid, after: i64, limit: i64) -> Result<Vec<EventRow>, StoreError> {
        dispatch!(self, s => s.events_after(id, after, limit))
    }
    async fn record(&self, id: Uuid) -> Result<Vec<RecordedEvent>, StoreError> {
        dispatch!(self, s => s.record(id))
    }
    async fn find_key(&self, key: &KeyRef) -> Result<Option<KeyClaim>, StoreError> {
        dispatch!(self, s => s.find_key(key))
    }
    async fn sweep(&self, keys_before: i64, games_before: i64) -> Result<Swept, StoreError> {
        dispatch!(self, "sweep", s => s.sweep(keys_before, games_before))
    }
    async fn transact<T, E, F>(&self, on: On<'_>, lock: Lock, act: F) -> Result<Option<T>, E>
    where
        E: From<StoreError>,
        F: FnMut(&GameRow) -> Result<Outcome<T>, E>,
    {
        dispatch!(self, "transaction", s => s.transact(on, lock, act))
    }
    async fn due_games(
        &self,
        now: i64,
        after: Option<DueGame>,
        limit: i64,
    ) -> Result<Vec<DueGame>, StoreError> {
        dispatch!(self, "due games", s => s.due_games(now, after, limit))
    }

    async fn lease(&self, id: Uuid, version: i64, held: i64, until: i64) -> Result<bool, StoreError> {
        dispatch!(self, "lease", s => s.lease(id, version, held, until))
    }

    async fn set_aside(&self, id: Uuid, at: i64) -> Result<bool, StoreError> {
        dispatch!(self, "set aside", s => s.set_aside(id, at))
    }
    async fn claim_deliveries(&self, now: i64, lease: i64, limit: i64) -> Result<Vec<Delivery>, StoreError> {
        dispatch!(self, "claim deliveries", s => s.claim_deliveries(now, lease, limit))
    }
    async fn backlog(&self, now: i64) -> Result<Backlog, StoreError> {
        dispatch!(self, "count the backlog", s => s.backlog(now))
    }
    async fn settle_delivery(&self, d: &Delivery, attempt: &Attempt) -> Result<Settled, StoreError> {
        dispatch!(self, "settle delivery", s => s.settle_delivery(d, attempt))
    }
    async fn webhook_counts(&self, id: Uuid) -> Result<WebhookCounts, StoreError> {
        dispatch!(self, s => s.webhook_counts(id))
    }
    async fn ratings(
        &self,
        tenant: &str,
        variant: engine::Variant,
        participants: &[Participant],
    ) -> Result<Vec<Option<Rating>>, StoreError> {
        dispatch!(self, "ratings", s => s.ratings(tenant, variant, participants))
    }
    async fn claim_ratings(&self, now: i64, lease: i64, limit: i64) -> Result<Vec<RatingDue>, StoreError> {
        dispatch!(self, "claim ratings", s => s.claim_ratings(now, lease, limit))
    }
    async fn rate_game<E, F>(
        &self,
        tenant: &str,
        game: Uuid,
        variant: engine::Variant,
        participants: &[(Participant, Rating)],
        decide: F,
    ) -> Result<String, E>
    where
        E: From<StoreError>,
        F: FnOnce(&[(Participant, Rating)]) -> Result<RatingWrite, E>,
    {
        dispatch!(self, "rate game", s => s.rate_game(tenant, game, variant, participants, decide))
    }
    async fn rating_done(&self, game: Uuid) -> Result<(), StoreError> {
        dispatch!(self, s => s.rating_done(game))
    }
    async fn player(
        &self,
        tenant: &str,
        player: &crate::domain::PlayerId,
    ) -> Result<PlayerRecord, StoreError> {
        dispatch!(self, s => s.player(tenant, player))
    }
    async fn leaderboard(
        &self,
        tenant: &str,
        variant: engine::Variant,
        limit: u32,
        after: Option<&BoardCursor>,
    ) -> Result<BoardPage, StoreError> {
        dispatch!(self, "leaderboard", s => s.leaderboard(tenant, variant, limit, after))
    }
    async fn standing(
        &self,
        tenant: &str,
        variant: engine::Variant,
        participant: &str,
        above: u32,
        below: u32,
    ) -> Result<Option<Standing>, StoreError> {
        dispatch!(self, "standing", s => s.standing(tenant, variant, participant, above, below))
    }
}

impl Tickets for Database {
    async fn create_ticket(
        &self,
        ticket: &TicketRow,
        key: Option<(&KeyRef, &StoredResponse)>,
    ) -> Result<(), StoreError> {
        dispatch!(self, s => s.create_ticket(ticket, key))
    }
    async fn ticket(&self, tenant: Option<&str>, id: Uuid) -> Result<Option<TicketRow>, StoreError> {
        dispatch!(self, s => s.ticket(tenant, id))
    }
    async fn cancel_ticket(
        &self,
        tenant: Option<&str>,
        id: Uuid,
    ) -> Result<Option<TicketStatus>, StoreError> {
        dispatch!(self, s => s.cancel_ticket(tenant, id))
    }
    async fn due_pools(&self, until: i64, per_tenant: i64, limit: i64) -> Result<Vec<DuePool>, StoreError> {
        dispatch!(self, "due pools", s => s.due_pools(until, per_tenant, limit))
    }
    async fn next_pool_due(&self) -> Result<Option<i64>, StoreError> {
        dispatch!(self, "next pool due", s => s.next_pool_due())
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
        dispatch!(self, "match pool", s => s.match_pool(pool, now, decide))
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
        dispatch!(self, s => s.match_ticket_now(pool, id, now, decide))
    }
    async fn waiting_in_pool(&self, pool: &Pool, cap: i64) -> Result<i64, StoreError> {
        dispatch!(self, s => s.waiting_in_pool(pool, cap))
    }
    async fn placing(&self, before: i64) -> Result<Vec<TicketRow>, StoreError> {
        dispatch!(self, "placing tickets", s => s.placing(before))
    }
    async fn placed(&self, tenant: &str, game: Uuid) -> Result<(), StoreError> {
        dispatch!(self, s => s.placed(tenant, game))
    }
    async fn sweep_tickets(&self, before: i64) -> Result<u64, StoreError> {
        dispatch!(self, "sweep tickets", s => s.sweep_tickets(before))
    }
}

impl Tournaments for Database {
    async fn create_tournament(
        &self,
        t: &TournamentRow,
        key: Option<(&KeyRef, &StoredResponse)>,
    ) -> Result<(), StoreError> {
        dispatch!(self, s => s.create_tournament(t, key))
    }
    async fn tournament(&self, tenant: Option<&str>, id: Uuid) -> Result<Option<TournamentRow>, StoreError> {
        dispatch!(self, s => s.tournament(tenant, id))
    }
    async fn list_tournaments(
        &self,
        tenant: &str,
        limit: i64,
        after: Option<(i64, Uuid)>,
    ) -> Result<Vec<TournamentRow>, StoreError> {
        dispatch!(self, s => s.list_tournaments(tenant, limit, after))
    }
    async fn cancel_tournament(&self, tenant: &str, id: Uuid, now: i64) -> Result<Closed, StoreError> {
        dispatch!(self, s => s.cancel_tournament(tenant, id, now))
    }
    async fn enter(
        &self,
        tenant: &str,
        entry: &EntryRow,
        now: i64,
        key: Option<(&KeyRef, &StoredResponse)>,
    ) -> Result<Entered, StoreError> {
        dispatch!(self, s => s.enter(tenant, entry, now, key))
    }
    async fn entry(&self, tournament: Uuid, id: Uuid) -> Result<Option<EntryRow>, StoreError> {
        dispatch!(self, s => s.entry(tournament, id))
    }
    async fn withdraw(&self, tournament: Uuid, id: Uuid, now: i64) -> Result<Closed, StoreError> {
        dispatch!(self, s => s.withdraw(tournament, id, now))
    }
    async fn tournaments_due(&self, now: i64, limit: i64) -> Result<Vec<TournamentRow>, StoreError> {
        dispatch!(self, "tournaments due", s => s.tournaments_due(now, limit))
    }
    async fn next_tournament_due(&self) -> Result<Option<i64>, StoreError> {
        dispatch!(self, "next tournament due", s => s.next_tournament_due())
    }
    async fn start_round<E, F, N>(
        &self,
        id: Uuid,
        from: i64,
        now: i64,
        second_ms: i64,
        plan: F,
        closing: Closing<'_, N>,
    ) -> Result<Option<(TournamentRow, Vec<TableRow>)>, E>
    where
        E: From<StoreError>,
        F: FnOnce(&TournamentRow, &[EntryRow]) -> Result<Vec<TableRow>, E>,
        N: FnOnce(&TournamentRow, &[TableRow]) -> Vec<String>,
    {
        dispatch!(self, "start round", s => s.start_round(id, from, now, second_ms, plan, closing))
    }
    async fn deadline_passed(&self, id: Uuid, round: i64) -> Result<(), StoreError> {
        dispatch!(self, s => s.deadline_passed(id, round))
    }
    async fn finish_tournament(
        &self,
        id: Uuid,
        round: i64,
        notes: &[String],
        standings: &[StandingRow],
    ) -> Result<bool, StoreError> {
        dispatch!(self, s => s.finish_tournament(id, round, notes, standings))
    }
    async fn standings_round(&self, id: Uuid) -> Result<Option<i64>, StoreError> {
        dispatch!(self, s => s.standings_round(id))
    }
    async fn standings_page(
        &self,
        id: Uuid,
        round: i64,
        position: i64,
        limit: i64,
    ) -> Result<Vec<StandingRow>, StoreError> {
        dispatch!(self, s => s.standings_page(id, round, position, limit))
    }
    async fn standing_of(
        &self,
        id: Uuid,
        round: i64,
        player: &str,
    ) -> Result<Option<StandingRow>, StoreError> {
        dispatch!(self, s => s.standing_of(id, round, player))
    }
    async fn due_tournament_deliveries(
        &self,
        now: i64,
        limit: i64,
    ) -> Result<Vec<TournamentDelivery>, StoreError> {
        dispatch!(self, "tournament deliveries due", s => s.due_tournament_deliveries(now, limit))
    }
    async fn next_tournament_delivery(&self) -> Result<Option<i64>, StoreError> {
        dispatch!(self, s => s.next_tournament_delivery())
    }
    async fn lease_tournament_delivery(
        &self,
        tournament: Uuid,
        seq: i64,
        now: i64,
        until: i64,
    ) -> Result<bool, StoreError> {
        dispatch!(self, s => s.lease_tournament_delivery(tournament, seq, now, until))
    }
    async fn settle_tournament_delivery(
        &self,
        tournament: Uuid,
        seq: i64,
        lease: i64,
        status: &str,
        next: i64,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        dispatch!(self, s => s.settle_tournament_delivery(tournament, seq, lease, status, next, error))
    }
    async fn round_tables(&self, tournament: Uuid, round: i64) -> Result<Vec<TableRow>, StoreError> {
        dispatch!(self, s => s.round_tables(tournament, round))
    }
    async fn games_over(&self, games: &[Uuid]) -> Result<usize, StoreError> {
        dispatch!(self, s => s.games_over(games))
    }
    async fn round_table(
        &self,
        tournament: Uuid,
        round: i64,
        table_no: i64,
    ) -> Result<Option<TableRow>, StoreError> {
        dispatch!(self, s => s.round_table(tournament, round, table_no))
    }
    async fn entrants(&self, tournament: Uuid) -> Result<Vec<EntryRow>, StoreError> {
        dispatch!(self, s => s.entrants(tournament))
    }
    async fn tables_made(&self, tournament: Uuid, games: &[Uuid]) -> Result<(), StoreError> {
        dispatch!(self, s => s.tables_made(tournament, games))
    }
    async fn unmade_tables(&self, limit: i64) -> Result<Vec<TableRow>, StoreError> {
        dispatch!(self, "unmade tables", s => s.unmade_tables(limit))
    }
}
