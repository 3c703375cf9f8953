//! A studio's tournaments in the store ([`Tournaments`]): the tournament, its entries and the
//! tables of its rounds. The statements are written once for both dialects, and so is the
//! code that runs them (one `impl` of the trait for every [`SqlTournaments`] store), since
//! neither store announces anything of a tournament but the wake of the tournament pass.
//!
//! A tournament is claimed by a conditional update of its own row (`round = $expected`), so
//! that of two replicas starting a round at once, one plans it and the other finds nothing
//! to do. The round's tables are written in that transaction with the ids their games will
//! have; the games are made after it, each idempotently, and marked `made`.

use sqlx::{
    AssertSqlSafe, ColumnIndex, Database, Decode, Encode, Executor, FromRow, IntoArguments, QueryBuilder,
    Type,
};
use uuid::Uuid;

use super::hub::{CHANNEL, Signal, Work, note};
use super::run::Conn;
use super::sql::{Dialect, RowsAffected as _, key_insert, key_taken, now, push_key_values};
use super::{KeyRef, PgStore, SqliteStore, StoreError, StoredResponse, write};
use crate::domain::GameStatus;

/// The hub's feed that wakes every replica's tournament pass: a tournament was created,
/// cancelled or changed its due time. No ticket or game has this id.
pub const TOURNAMENTS_DUE: Uuid = Uuid::from_u128(2);

/// A tournament as stored.
#[derive(Clone, Debug, PartialEq, FromRow)]
pub struct TournamentRow {
    /// Its id.
    pub id: Uuid,
    /// The tenant of the server key that made it.
    pub tenant: String,
    /// Its name.
    pub name: String,
    /// The variant's id.
    pub variant: String,
    /// The ruleset and turn clock as JSON.
    pub rules: String,
    /// Seats at each table.
    pub table_size: i64,
    /// `duplicate` or `points`.
    pub format: String,
    /// How many rounds.
    pub rounds: i64,
    /// Deals in each round's game.
    pub deals_per_round: i64,
    /// When the first round starts (unix ms).
    pub starts_at: i64,
    /// Most entrants.
    pub max_entrants: i64,
    /// The bots' level.
    pub bot_level: String,
    /// How long a round may last before its tables are played out by autopilot (seconds).
    pub round_seconds: i64,
    /// Where its tables' games send their events.
    pub webhook_url: Option<String>,
    /// Their signing secret.
    pub webhook_secret: Option<String>,
    /// The seed every round's seeds derive from (hex): never shown.
    pub secret: String,
    /// `open`, `running`, `finished` or `cancelled`.
    pub status: String,
    /// The round being played (0 before the start).
    pub round: i64,
    /// When the round being played must end (unix ms).
    pub round_deadline: Option<i64>,
    /// When the tournament pass must look at it next (unix ms).
    pub due_at: Option<i64>,
    /// When it was made (unix ms).
    pub created_at: i64,
    /// Entrants who have not withdrawn.
    pub entrants: i64,
}

/// An entry as stored.
#[derive(Clone, Debug, PartialEq, FromRow)]
pub struct EntryRow {
    /// The tournament.
    pub tournament_id: Uuid,
    /// The entry's id: its holder's capability.
    pub id: Uuid,
    /// The studio's player.
    pub player: String,
    /// The name the tables show.
    pub name: String,
    /// `entered` or `withdrawn`.
    pub status: String,
    /// Its index in the field, from the start.
    pub place: Option<i64>,
    /// When it entered (unix ms).
    pub created_at: i64,
}

/// A table of a round as stored.
#[derive(Clone, Debug, PartialEq, FromRow)]
pub struct TableRow {
    /// The tournament.
    pub tournament_id: Uuid,
    /// The round, from 1.
    pub round: i64,
    /// The table, from 0.
    pub table_no: i64,
    /// The game it plays.
    pub game_id: Uuid,
    /// Who sits where, seat by seat: an entrant's place, or null for a bot (JSON).
    pub seats: String,
    /// Whether its game has been made.
    pub made: bool,
}

/// One of a tournament's own webhook deliveries (docs/tournaments.md#webhooks), the first
/// pending of its tournament, and where it goes.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct TournamentDelivery {
    /// The tournament.
    pub tournament_id: Uuid,
    /// Its place in the tournament's deliveries, from 1.
    pub seq: i64,
    /// The delivery id (`webhook-id`), stable across retries.
    pub id: String,
    /// The event (JSON text).
    pub event: String,
    /// Attempts made before this one.
    pub attempts: i64,
    /// When it was written (unix ms).
    pub created_at: i64,
    /// Where to POST.
    pub webhook_url: String,
    /// The tournament's `whsec_` secret.
    pub webhook_secret: String,
}

/// An entrant's standing after a round, as stored when the round closed.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct StandingRow {
    /// Its index in the standings' order, from 0.
    pub position: i64,
    /// Its rank (ties share one).
    pub rank: i64,
    /// The entrant's player.
    pub player: String,
    /// The entrant's name.
    pub name: String,
    /// Matchpoints (duplicate) or points (points).
    pub score: f64,
}

/// What the transaction that closes a round writes besides: the standings after it, and the
/// webhook events `notes` gives (the round that ended, the one that starts), queued when the
/// tournament has a webhook.
pub struct Closing<'a, N> {
    /// The standings after the round that ended (none at the start).
    pub standings: &'a [StandingRow],
    /// The webhook events, from the tournament as claimed and the tables planned.
    pub notes: N,
}

/// What an entry asked for became.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entered {
    /// Written.
    Done,
    /// No such tournament (of the tenant).
    NotFound,
    /// The tournament is not open: its status.
    NotOpen(&'static str),
    /// The start time has come.
    Started,
    /// The player has an entry already.
    Twice,
    /// The field is full.
    Full,
}

/// What a withdrawal or a cancellation became.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closed {
    /// Done (or done before).
    Done,
    /// No such tournament or entry.
    NotFound,
    /// Too late: the tournament started (or its start time came).
    Started,
}

/// A tournament's rows: made, listed, entered, claimed round by round.
#[allow(async_fn_in_trait)]
pub trait Tournaments {
    /// Stores new tournament `t`, with the response of its idempotency key, if any.
    async fn create_tournament(
        &self,
        t: &TournamentRow,
        key: Option<(&KeyRef, &StoredResponse)>,
    ) -> Result<(), StoreError>;
    /// Tournament `id`, of `tenant` when given.
    async fn tournament(&self, tenant: Option<&str>, id: Uuid) -> Result<Option<TournamentRow>, StoreError>;
    /// A page of `tenant`'s tournaments, newest first, after `(created_at, id)`: at most
    /// `limit + 1`, so that the caller knows whether another page follows.
    async fn list_tournaments(
        &self,
        tenant: &str,
        limit: i64,
        after: Option<(i64, Uuid)>,
    ) -> Result<Vec<TournamentRow>, StoreError>;
    /// Cancels `tenant`'s tournament `id` if it has not started by `now`.
    async fn cancel_tournament(&self, tenant: &str, id: Uuid, now: i64) -> Result<Closed, StoreError>;
    /// Enters `entry` into its tournament (of `tenant`), with the response of its idempotency
    /// key, in one transaction holding the tournament's row.
    async fn enter(
        &self,
        tenant: &str,
        entry: &EntryRow,
        now: i64,
        key: Option<(&KeyRef, &StoredResponse)>,
    ) -> Result<Entered, StoreError>;
    /// Entry `id` of tournament `tournament`.
    async fn entry(&self, tournament: Uuid, id: Uuid) -> Result<Option<EntryRow>, StoreError>;
    /// Withdraws entry `id` of `tournament` if it has not started by `now`.
    async fn withdraw(&self, tournament: Uuid, id: Uuid, now: i64) -> Result<Closed, StoreError>;
    /// The tournaments due by `now` (open ones at their start, running ones at their round's
    /// deadline), soonest first, at most `limit`; and those running.
    async fn tournaments_due(&self, now: i64, limit: i64) -> Result<Vec<TournamentRow>, StoreError>;
    /// When the soonest tournament is due, if any is.
    async fn next_tournament_due(&self) -> Result<Option<i64>, StoreError>;
    /// Moves tournament `id` from round `from` to the next in one transaction, if it is still
    /// at `from` and open or running: the entrants placed in the field (at the start), the
    /// tables `plan` gives written, the round's deadline set `deadline_ms` from `now` per
    /// second of `round_seconds`; finished when `plan` gives none; what `closing` holds
    /// written (the standings after round `from`, when it is not 0; the webhook events when
    /// the tournament has a webhook). `None` when another replica moved it first.
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
        N: FnOnce(&TournamentRow, &[TableRow]) -> Vec<String>;
    /// Clears the due time of tournament `id` at round `round` (its deadline was acted on).
    async fn deadline_passed(&self, id: Uuid, round: i64) -> Result<(), StoreError>;
    /// Marks tournament `id` finished after round `round`, if it is still there, queuing the
    /// webhook events `notes` in the same transaction when it has a webhook.
    async fn finish_tournament(
        &self,
        id: Uuid,
        round: i64,
        notes: &[String],
        standings: &[StandingRow],
    ) -> Result<bool, StoreError>;
    /// The last round of tournament `id` whose standings are stored, if any.
    async fn standings_round(&self, id: Uuid) -> Result<Option<i64>, StoreError>;
    /// Up to `limit` standings of tournament `id` after `round`, from `position` on.
    async fn standings_page(
        &self,
        id: Uuid,
        round: i64,
        position: i64,
        limit: i64,
    ) -> Result<Vec<StandingRow>, StoreError>;
    /// `player`'s standing in tournament `id` after `round`.
    async fn standing_of(
        &self,
        id: Uuid,
        round: i64,
        player: &str,
    ) -> Result<Option<StandingRow>, StoreError>;
    /// The first pending delivery of each tournament, when it is due by `now` (not leased,
    /// not waiting for a retry), soonest first, at most `limit`.
    async fn due_tournament_deliveries(
        &self,
        now: i64,
        limit: i64,
    ) -> Result<Vec<TournamentDelivery>, StoreError>;
    /// When the soonest first pending delivery of a tournament is due, if any is.
    async fn next_tournament_delivery(&self) -> Result<Option<i64>, StoreError>;
    /// Leases delivery `seq` of `tournament` until `until` if it is still pending and due at
    /// `now`: one replica's claim.
    async fn lease_tournament_delivery(
        &self,
        tournament: Uuid,
        seq: i64,
        now: i64,
        until: i64,
    ) -> Result<bool, StoreError>;
    /// Records an attempt at delivery `seq` of `tournament`, leased until `lease`: its new
    /// `status`, the retry's time `next` (when still pending) and the `error`; nothing when
    /// the lease is no longer the claim's.
    async fn settle_tournament_delivery(
        &self,
        tournament: Uuid,
        seq: i64,
        lease: i64,
        status: &str,
        next: i64,
        error: Option<&str>,
    ) -> Result<(), StoreError>;
    /// The tables of `round` of tournament `tournament`, in order.
    async fn round_tables(&self, tournament: Uuid, round: i64) -> Result<Vec<TableRow>, StoreError>;
    /// How many of `games` are over (finished or void): one statement for a round's tables.
    async fn games_over(&self, games: &[Uuid]) -> Result<usize, StoreError>;
    /// Table `table_no` of `tournament`'s round `round`.
    async fn round_table(
        &self,
        tournament: Uuid,
        round: i64,
        table_no: i64,
    ) -> Result<Option<TableRow>, StoreError>;
    /// The entrants of `tournament` by place (once started).
    async fn entrants(&self, tournament: Uuid) -> Result<Vec<EntryRow>, StoreError>;
    /// Marks the tables of `games` made: one statement for many tables, each game's insert
    /// being a commit of its own already.
    async fn tables_made(&self, tournament: Uuid, games: &[Uuid]) -> Result<(), StoreError>;
    /// Tables whose game is not made yet, at most `limit`.
    async fn unmade_tables(&self, limit: i64) -> Result<Vec<TableRow>, StoreError>;
}

/// A tournament's columns, with its count of entrants (kept by [`Tournaments::enter`] and
/// [`Tournaments::withdraw`]).
const TOURNAMENT: &str = "SELECT t.id, t.tenant, t.name, t.variant, t.rules, t.table_size, t.format, \
    t.rounds, t.deals_per_round, t.starts_at, t.max_entrants, t.bot_level, t.round_seconds, \
    t.webhook_url, t.webhook_secret, t.secret, t.status, t.round, t.round_deadline, t.due_at, \
    t.created_at, t.entrants FROM tournaments t";

const INSERT_TOURNAMENT: &str = "INSERT INTO tournaments (id, tenant, name, variant, rules, table_size, \
    format, rounds, deals_per_round, starts_at, max_entrants, bot_level, round_seconds, webhook_url, \
    webhook_secret, secret, status, round, due_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, \
    $9, $10, $11, $12, $13, $14, $15, $16, 'open', 0, $10, $17)";

const CANCEL: &str = "UPDATE tournaments SET status = 'cancelled', due_at = NULL \
    WHERE id = $1 AND tenant = $2 AND status = 'open' AND starts_at > $3";

const ENTRY: &str =
    "SELECT tournament_id, id, player, name, status, place, created_at FROM tournament_entries";

const INSERT_ENTRY: &str = "INSERT INTO tournament_entries (tournament_id, id, player, name, status, \
    created_at) VALUES ($1, $2, $3, $4, 'entered', $5)";

/// Adds `$2` to tournament `$1`'s count of entrants, in the transaction that enters or
/// withdraws one.
const COUNT_ENTRANTS: &str = "UPDATE tournaments SET entrants = entrants + $2 WHERE id = $1";

/// The most game ids one statement of [`Tournaments::games_over`] or
/// [`Tournaments::tables_made`] names.
const GAMES_PER_STATEMENT: usize = 1_000;

const WITHDRAW: &str = "UPDATE tournament_entries SET status = 'withdrawn' \
    WHERE tournament_id = $1 AND id = $2 AND status = 'entered'";

/// The claim of a round: the row moves on only from the round read, so one replica claims it.
const CLAIM_ROUND: &str = "UPDATE tournaments SET status = 'running', round = round + 1, \
    round_deadline = $3 + round_seconds * $4, due_at = $3 + round_seconds * $4 \
    WHERE id = $1 AND round = $2 AND status IN ('open', 'running') AND round < rounds";

/// The field in the order of entry, given its places at the start.
const PLACE_ENTRANTS: &str = "UPDATE tournament_entries SET place = ranked.p FROM (SELECT id AS eid, \
    row_number() OVER (ORDER BY created_at, id) - 1 AS p FROM tournament_entries \
    WHERE tournament_id = $1 AND status = 'entered') ranked \
    WHERE tournament_entries.tournament_id = $1 AND tournament_entries.id = ranked.eid";

const INSERT_TABLE: &str = "INSERT INTO tournament_tables (tournament_id, round, table_no, game_id, seats) \
    VALUES ($1, $2, $3, $4, $5)";

const TABLE: &str = "SELECT tournament_id, round, table_no, game_id, seats, made FROM tournament_tables";

const FINISH: &str = "UPDATE tournaments SET status = 'finished', due_at = NULL, round_deadline = NULL \
    WHERE id = $1 AND round = $2 AND status IN ('open', 'running')";

/// Queues webhook event `$3` (delivery id `$2`) of tournament `$1` after its last, at `$4`,
/// if it has a webhook. Run in the transaction that holds the tournament's row, so the
/// numbering has one writer.
const QUEUE_NOTE: &str = "INSERT INTO tournament_deliveries (tournament_id, seq, id, event, status, \
    next_attempt_at, created_at) SELECT $1, COALESCE((SELECT MAX(seq) FROM tournament_deliveries \
    WHERE tournament_id = $1), 0) + 1, $2, $3, 'pending', $4, $4 FROM tournaments \
    WHERE id = $1 AND webhook_url IS NOT NULL AND webhook_secret IS NOT NULL";

/// The first pending delivery of each tournament (its head: the ones behind wait for it).
const HEADS: &str = "FROM tournament_deliveries d JOIN tournaments t ON t.id = d.tournament_id \
    WHERE d.status = 'pending' AND d.seq = (SELECT MIN(p.seq) FROM tournament_deliveries p \
    WHERE p.tournament_id = d.tournament_id AND p.status = 'pending')";

/// Unique violations of the one entry per player.
fn entered_twice(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(db) if db.is_unique_violation()
        && db.constraint().is_none_or(|c| c == "tournament_entries_one_per_player"))
}

/// Writes `standings`, those of tournament `id` after `round`, in transaction `tx`, in batches
/// that stay under SQLite's limit on a statement's parameters.
macro_rules! save_standings {
    ($tx:expr, $id:expr, $round:expr, $standings:expr, $err:path) => {
        for batch in $standings.chunks(1_000) {
            let mut sql = QueryBuilder::new(
                "INSERT INTO tournament_standings (tournament_id, round, position, rank, player, name, score) ",
            );
            sql.push_values(batch, |mut row, s| {
                row.push_bind($id)
                    .push_bind($round)
                    .push_bind(s.position)
                    .push_bind(s.rank)
                    .push_bind(s.player.as_str())
                    .push_bind(s.name.as_str())
                    .push_bind(s.score);
            });
            sql.build().execute(&mut **$tx).await.map_err($err)?;
        }
    };
}

/// A SQL store's tournaments: its own ways are the methods without a body.
pub(in crate::store) trait SqlTournaments: Dialect
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
    /// Announces in `tx` (heard only if it commits) that the tournaments' due times changed.
    async fn wake_tournaments(&self, tx: &mut Conn<Self>) -> Result<(), StoreError>;

    /// Tells, after the commit, where nothing in the transaction did, that the tournaments'
    /// due times changed.
    fn woken(&self);

    /// Writes round `row.round` of tournament `row` in `tx`, which claimed it: its `tables`
    /// (none: the tournament is over), and its webhook `notes` queued at `now`.
    async fn write_round(
        tx: &mut Conn<Self>,
        row: &TournamentRow,
        tables: &[TableRow],
        notes: &[String],
        now: i64,
    ) -> Result<(), StoreError> {
        for t in tables {
            sqlx::query(INSERT_TABLE)
                .bind(t.tournament_id)
                .bind(t.round)
                .bind(t.table_no)
                .bind(t.game_id)
                .bind(&t.seats)
                .execute(&mut *tx)
                .await?;
        }
        if tables.is_empty() {
            sqlx::query(FINISH)
                .bind(row.id)
                .bind(row.round)
                .execute(&mut *tx)
                .await?;
        }
        for note in notes {
            sqlx::query(QUEUE_NOTE)
                .bind(row.id)
                .bind(format!("tmsg_{}", Uuid::new_v4().simple()))
                .bind(note.as_str())
                .bind(now)
                .execute(&mut *tx)
                .await?;
        }
        Ok(())
    }
}

/// [`Tournaments`] for both SQL stores: what a read that holds a tournament's row adds is the
/// dialect's `FOR_UPDATE` (nothing on SQLite, whose writer holds the database).
impl<S> Tournaments for S
where
    S: SqlTournaments,
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
    async fn create_tournament(
        &self,
        t: &TournamentRow,
        key: Option<(&KeyRef, &StoredResponse)>,
    ) -> Result<(), StoreError> {
        let mut tx = S::begin(self.writer()).await?;
        sqlx::query(INSERT_TOURNAMENT)
            .bind(t.id)
            .bind(&t.tenant)
            .bind(&t.name)
            .bind(&t.variant)
            .bind(&t.rules)
            .bind(t.table_size)
            .bind(&t.format)
            .bind(t.rounds)
            .bind(t.deals_per_round)
            .bind(t.starts_at)
            .bind(t.max_entrants)
            .bind(&t.bot_level)
            .bind(t.round_seconds)
            .bind(&t.webhook_url)
            .bind(&t.webhook_secret)
            .bind(&t.secret)
            .bind(t.created_at)
            .execute(&mut *tx)
            .await?;
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
        self.wake_tournaments(&mut tx).await?;
        tx.commit().await?;
        self.woken();
        Ok(())
    }

    async fn tournament(&self, tenant: Option<&str>, id: Uuid) -> Result<Option<TournamentRow>, StoreError> {
        let sql = match tenant {
            Some(_) => format!("{TOURNAMENT} WHERE t.id = $1 AND t.tenant = $2"),
            None => format!("{TOURNAMENT} WHERE t.id = $1"),
        };
        let mut query = sqlx::query_as::<_, TournamentRow>(AssertSqlSafe(sql)).bind(id);
        if let Some(tenant) = tenant {
            query = query.bind(tenant);
        }
        Ok(query.fetch_optional(self.pool()).await?)
    }

    async fn list_tournaments(
        &self,
        tenant: &str,
        limit: i64,
        after: Option<(i64, Uuid)>,
    ) -> Result<Vec<TournamentRow>, StoreError> {
        let page = match after {
            Some(_) => " AND (t.created_at < $3 OR (t.created_at = $3 AND t.id < $4))",
            None => "",
        };
        let sql =
            format!("{TOURNAMENT} WHERE t.tenant = $1{page} ORDER BY t.created_at DESC, t.id DESC LIMIT $2");
        let mut query = sqlx::query_as::<_, TournamentRow>(AssertSqlSafe(sql))
            .bind(tenant)
            .bind(limit + 1);
        if let Some((created_at, id)) = after {
            query = query.bind(created_at).bind(id);
        }
        Ok(query.fetch_all(self.pool()).await?)
    }

    async fn cancel_tournament(&self, tenant: &str, id: Uuid, now: i64) -> Result<Closed, StoreError> {
        let mut tx = S::begin(self.writer()).await?;
        let done = sqlx::query(CANCEL)
            .bind(id)
            .bind(tenant)
            .bind(now)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        let status: Option<String> =
            sqlx::query_scalar("SELECT status FROM tournaments WHERE id = $1 AND tenant = $2")
                .bind(id)
                .bind(tenant)
                .fetch_optional(&mut *tx)
                .await?;
        if done > 0 {
            self.wake_tournaments(&mut tx).await?;
        }
        tx.commit().await?;
        if done > 0 {
            self.woken();
        }
        Ok(match status.as_deref() {
            None => Closed::NotFound,
            Some("cancelled") => Closed::Done,
            Some(_) => Closed::Started,
        })
    }

    async fn enter(
        &self,
        tenant: &str,
        entry: &EntryRow,
        now: i64,
        key: Option<(&KeyRef, &StoredResponse)>,
    ) -> Result<Entered, StoreError> {
        let mut tx = S::begin(self.writer()).await?;
        let held: Option<(String, i64, i64, i64)> = sqlx::query_as(AssertSqlSafe(format!(
            "SELECT status, starts_at, max_entrants, entrants FROM tournaments WHERE id = $1 AND tenant = $2{}",
            S::FOR_UPDATE
        )))
        .bind(entry.tournament_id)
        .bind(tenant)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((status, starts_at, max_entrants, count)) = held else {
            return Ok(Entered::NotFound);
        };
        match status.as_str() {
            "open" if starts_at > now => {}
            "open" | "running" | "finished" => return Ok(Entered::Started),
            _ => return Ok(Entered::NotOpen("cancelled")),
        }
        let twice: Option<i64> = sqlx::query_scalar(
            "SELECT created_at FROM tournament_entries WHERE tournament_id = $1 AND player = $2 AND status = 'entered'",
        )
        .bind(entry.tournament_id)
        .bind(&entry.player)
        .fetch_optional(&mut *tx)
        .await?;
        if twice.is_some() {
            return Ok(Entered::Twice);
        }
        if count >= max_entrants {
            return Ok(Entered::Full);
        }
        let inserted = sqlx::query(INSERT_ENTRY)
            .bind(entry.tournament_id)
            .bind(entry.id)
            .bind(&entry.player)
            .bind(&entry.name)
            .bind(entry.created_at)
            .execute(&mut *tx)
            .await;
        match inserted {
            Err(e) if entered_twice(&e) => return Ok(Entered::Twice),
            other => {
                other?;
            }
        }
        sqlx::query(COUNT_ENTRANTS)
            .bind(entry.tournament_id)
            .bind(1_i64)
            .execute(&mut *tx)
            .await?;
        if let Some((key, response)) = key {
            let kept = write::kept(key, response, now);
            let mut insert = QueryBuilder::<S::Db>::new(key_insert(kept.table));
            push_key_values(&mut insert, &kept);
            insert
                .build()
                .execute(&mut *tx)
                .await
                .map_err(|e| key_taken(e, None))?;
        }
        tx.commit().await?;
        Ok(Entered::Done)
    }

    async fn entry(&self, tournament: Uuid, id: Uuid) -> Result<Option<EntryRow>, StoreError> {
        Ok(sqlx::query_as::<_, EntryRow>(AssertSqlSafe(format!(
            "{ENTRY} WHERE tournament_id = $1 AND id = $2"
        )))
        .bind(tournament)
        .bind(id)
        .fetch_optional(self.pool())
        .await?)
    }

    async fn withdraw(&self, tournament: Uuid, id: Uuid, now: i64) -> Result<Closed, StoreError> {
        let mut tx = S::begin(self.writer()).await?;
        let held: Option<(String, i64)> = sqlx::query_as(AssertSqlSafe(format!(
            "SELECT status, starts_at FROM tournaments WHERE id = $1{}",
            S::FOR_UPDATE
        )))
        .bind(tournament)
        .fetch_optional(&mut *tx)
        .await?;
        let exists: Option<i64> = sqlx::query_scalar(
            "SELECT created_at FROM tournament_entries WHERE tournament_id = $1 AND id = $2",
        )
        .bind(tournament)
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?;
        let closed = match (held, exists) {
            (None, _) | (_, None) => Closed::NotFound,
            (Some((status, starts_at)), Some(_)) => {
                if (status == "open" && starts_at > now) || status == "cancelled" {
                    let withdrawn = sqlx::query(WITHDRAW)
                        .bind(tournament)
                        .bind(id)
                        .execute(&mut *tx)
                        .await?;
                    if withdrawn.rows_affected() > 0 {
                        sqlx::query(COUNT_ENTRANTS)
                            .bind(tournament)
                            .bind(-1_i64)
                            .execute(&mut *tx)
                            .await?;
                    }
                    Closed::Done
                } else {
                    Closed::Started
                }
            }
        };
        tx.commit().await?;
        Ok(closed)
    }

    async fn tournaments_due(&self, now: i64, limit: i64) -> Result<Vec<TournamentRow>, StoreError> {
        Ok(sqlx::query_as::<_, TournamentRow>(AssertSqlSafe(format!(
            "{TOURNAMENT} WHERE (t.due_at IS NOT NULL AND t.due_at <= $1) OR t.status = 'running' \
             ORDER BY t.due_at LIMIT $2"
        )))
        .bind(now)
        .bind(limit)
        .fetch_all(self.pool())
        .await?)
    }

    async fn next_tournament_due(&self) -> Result<Option<i64>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT MIN(due_at) FROM tournaments WHERE due_at IS NOT NULL")
                .fetch_one(self.pool())
                .await?,
        )
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
        let mut tx = S::begin(self.writer()).await.map_err(StoreError::from)?;
        let claimed = sqlx::query(CLAIM_ROUND)
            .bind(id)
            .bind(from)
            .bind(now)
            .bind(second_ms)
            .execute(&mut *tx)
            .await
            .map_err(StoreError::from)?
            .rows_affected();
        if claimed == 0 {
            return Ok(None);
        }
        if from > 0 {
            save_standings!(&mut tx, id, from, closing.standings, StoreError::from);
        }
        if from == 0 {
            sqlx::query(PLACE_ENTRANTS)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(StoreError::from)?;
        }
        let row = sqlx::query_as::<_, TournamentRow>(AssertSqlSafe(format!("{TOURNAMENT} WHERE t.id = $1")))
            .bind(id)
            .fetch_one(&mut *tx)
            .await
            .map_err(StoreError::from)?;
        let entrants = sqlx::query_as::<_, EntryRow>(AssertSqlSafe(format!(
            "{ENTRY} WHERE tournament_id = $1 AND status = 'entered' ORDER BY place"
        )))
        .bind(id)
        .fetch_all(&mut *tx)
        .await
        .map_err(StoreError::from)?;
        let tables = plan(&row, &entrants)?;
        let notes = match row.webhook_url {
            Some(_) => (closing.notes)(&row, &tables),
            None => Vec::new(),
        };
        S::write_round(&mut tx, &row, &tables, &notes, now).await?;
        tx.commit().await.map_err(StoreError::from)?;
        Ok(Some((row, tables)))
    }

    async fn deadline_passed(&self, id: Uuid, round: i64) -> Result<(), StoreError> {
        sqlx::query("UPDATE tournaments SET due_at = NULL WHERE id = $1 AND round = $2")
            .bind(id)
            .bind(round)
            .execute(self.writer())
            .await?;
        Ok(())
    }

    async fn finish_tournament(
        &self,
        id: Uuid,
        round: i64,
        notes: &[String],
        standings: &[StandingRow],
    ) -> Result<bool, StoreError> {
        let mut tx = S::begin(self.writer()).await?;
        let done = sqlx::query(FINISH)
            .bind(id)
            .bind(round)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if done > 0 {
            save_standings!(&mut tx, id, round, standings, StoreError::from);
            let now = super::now_ms();
            for note in notes {
                sqlx::query(QUEUE_NOTE)
                    .bind(id)
                    .bind(format!("tmsg_{}", Uuid::new_v4().simple()))
                    .bind(note.as_str())
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        tx.commit().await?;
        Ok(done > 0)
    }

    async fn standings_round(&self, id: Uuid) -> Result<Option<i64>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT MAX(round) FROM tournament_standings WHERE tournament_id = $1")
                .bind(id)
                .fetch_one(self.pool())
                .await?,
        )
    }

    async fn standings_page(
        &self,
        id: Uuid,
        round: i64,
        position: i64,
        limit: i64,
    ) -> Result<Vec<StandingRow>, StoreError> {
        Ok(sqlx::query_as::<_, StandingRow>(
            "SELECT position, rank, player, name, score FROM tournament_standings \
             WHERE tournament_id = $1 AND round = $2 AND position >= $3 ORDER BY position LIMIT $4",
        )
        .bind(id)
        .bind(round)
        .bind(position)
        .bind(limit)
        .fetch_all(self.pool())
        .await?)
    }

    async fn standing_of(
        &self,
        id: Uuid,
        round: i64,
        player: &str,
    ) -> Result<Option<StandingRow>, StoreError> {
        Ok(sqlx::query_as::<_, StandingRow>(
            "SELECT position, rank, player, name, score FROM tournament_standings \
             WHERE tournament_id = $1 AND round = $2 AND player = $3",
        )
        .bind(id)
        .bind(round)
        .bind(player)
        .fetch_optional(self.pool())
        .await?)
    }

    async fn due_tournament_deliveries(
        &self,
        now: i64,
        limit: i64,
    ) -> Result<Vec<TournamentDelivery>, StoreError> {
        Ok(sqlx::query_as::<_, TournamentDelivery>(AssertSqlSafe(format!(
            "SELECT d.tournament_id, d.seq, d.id, d.event, d.attempts, d.created_at, t.webhook_url, \
             t.webhook_secret {HEADS} AND d.next_attempt_at <= $1 AND t.webhook_url IS NOT NULL \
             AND t.webhook_secret IS NOT NULL ORDER BY d.next_attempt_at LIMIT $2"
        )))
        .bind(now)
        .bind(limit)
        .fetch_all(self.pool())
        .await?)
    }

    async fn next_tournament_delivery(&self) -> Result<Option<i64>, StoreError> {
        Ok(
            sqlx::query_scalar(AssertSqlSafe(format!("SELECT MIN(d.next_attempt_at) {HEADS}")))
                .fetch_one(self.pool())
                .await?,
        )
    }

    async fn lease_tournament_delivery(
        &self,
        tournament: Uuid,
        seq: i64,
        now: i64,
        until: i64,
    ) -> Result<bool, StoreError> {
        let leased = sqlx::query(
            "UPDATE tournament_deliveries SET next_attempt_at = $4 WHERE tournament_id = $1 \
             AND seq = $2 AND status = 'pending' AND next_attempt_at <= $3",
        )
        .bind(tournament)
        .bind(seq)
        .bind(now)
        .bind(until)
        .execute(self.writer())
        .await?
        .rows_affected();
        Ok(leased > 0)
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
        sqlx::query(
            "UPDATE tournament_deliveries SET status = $4, attempts = attempts + 1, \
             next_attempt_at = $5, last_error = COALESCE($6, last_error) WHERE tournament_id = $1 \
             AND seq = $2 AND status = 'pending' AND next_attempt_at = $3",
        )
        .bind(tournament)
        .bind(seq)
        .bind(lease)
        .bind(status)
        .bind(next)
        .bind(error)
        .execute(self.writer())
        .await?;
        Ok(())
    }

    async fn round_tables(&self, tournament: Uuid, round: i64) -> Result<Vec<TableRow>, StoreError> {
        Ok(sqlx::query_as::<_, TableRow>(AssertSqlSafe(format!(
            "{TABLE} WHERE tournament_id = $1 AND round = $2 ORDER BY table_no"
        )))
        .bind(tournament)
        .bind(round)
        .fetch_all(self.pool())
        .await?)
    }

    async fn games_over(&self, games: &[Uuid]) -> Result<usize, StoreError> {
        let mut over = 0;
        for some in games.chunks(GAMES_PER_STATEMENT) {
            let mut query = QueryBuilder::<S::Db>::new(
                "SELECT COUNT(*) FROM games WHERE status IN ('finished', 'void') AND id IN (",
            );
            let mut ids = query.separated(", ");
            for id in some {
                ids.push_bind(*id);
            }
            query.push(")");
            let count: i64 = query.build_query_scalar().fetch_one(self.pool()).await?;
            over += usize::try_from(count).unwrap_or_default();
        }
        Ok(over)
    }

    async fn round_table(
        &self,
        tournament: Uuid,
        round: i64,
        table_no: i64,
    ) -> Result<Option<TableRow>, StoreError> {
        Ok(sqlx::query_as::<_, TableRow>(AssertSqlSafe(format!(
            "{TABLE} WHERE tournament_id = $1 AND round = $2 AND table_no = $3"
        )))
        .bind(tournament)
        .bind(round)
        .bind(table_no)
        .fetch_optional(self.pool())
        .await?)
    }

    async fn entrants(&self, tournament: Uuid) -> Result<Vec<EntryRow>, StoreError> {
        Ok(sqlx::query_as::<_, EntryRow>(AssertSqlSafe(format!(
            "{ENTRY} WHERE tournament_id = $1 AND status = 'entered' ORDER BY place, created_at, id"
        )))
        .bind(tournament)
        .fetch_all(self.pool())
        .await?)
    }

    async fn tables_made(&self, tournament: Uuid, games: &[Uuid]) -> Result<(), StoreError> {
        for some in games.chunks(GAMES_PER_STATEMENT) {
            let mut query =
                QueryBuilder::<S::Db>::new("UPDATE tournament_tables SET made = TRUE WHERE tournament_id = ");
            query.push_bind(tournament).push(" AND game_id IN (");
            let mut ids = query.separated(", ");
            for id in some {
                ids.push_bind(*id);
            }
            query.push(")");
            query.build().execute(self.writer()).await?;
        }
        Ok(())
    }

    async fn unmade_tables(&self, limit: i64) -> Result<Vec<TableRow>, StoreError> {
        Ok(sqlx::query_as::<_, TableRow>(AssertSqlSafe(format!(
            "{TABLE} WHERE NOT made ORDER BY tournament_id, round, table_no LIMIT $1"
        )))
        .bind(limit)
        .fetch_all(self.pool())
        .await?)
    }
}

impl SqlTournaments for PgStore {
    async fn wake_tournaments(&self, tx: &mut sqlx::PgConnection) -> Result<(), StoreError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(CHANNEL)
            .bind(note(TOURNAMENTS_DUE, 0, &[], Work::default()))
            .execute(&mut *tx)
            .await?;
        Ok(())
    }

    /// Nothing more: the `NOTIFY` was sent in the transaction.
    fn woken(&self) {}
}

impl SqlTournaments for SqliteStore {
    /// Nothing in the transaction: this process is told after the commit ([`Self::woken`]).
    async fn wake_tournaments(&self, _tx: &mut sqlx::SqliteConnection) -> Result<(), StoreError> {
        Ok(())
    }

    fn woken(&self) {
        self.live.publish(TOURNAMENTS_DUE, Signal::Resync);
    }
}
