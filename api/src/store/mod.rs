//! Storage: one [`Store`] trait, implemented for PostgreSQL ([`PgStore`]) and SQLite
//! ([`SqliteStore`]) by the same SQL, and [`Database`] choosing between them at start.
//!
//! Every action is one transaction ([`Store::transact`], holding its game as a [`Lock`] says):
//! read the game (on PostgreSQL without a lock, the write then conditional on the row being
//! unchanged; `BEGIN IMMEDIATE` on SQLite), let the caller apply the action, write what it
//! writes (one `Write`, `write.rs`, which each store renders once), commit. On a Citus cluster
//! every statement of it names the game, so it runs on that game's worker. Nothing about a game is kept in the process.

mod citus;
mod database;
mod hub;
mod postgres;
mod ratings;
mod run;
mod sql;
mod sqlite;
mod status;
mod tickets;
mod tournaments;
mod write;

use uuid::Uuid;

use crate::domain::{GameStatus, Participant, Rating};

pub use database::Database;
pub use hub::{Full, Live, Signal, Subscription, Wakes, Work};
pub use postgres::PgStore;
pub use ratings::{PlayerStatement, player_sql};
pub use sql::{SweepStatement, list_sql, now, now_ms, sweep_sql};
pub use sqlite::SqliteStore;
pub use tickets::{DuePool, POOL_BATCH, POOLS_DUE, Placement, Pool, PoolDecision, TicketRow, Tickets};
pub use tournaments::{
    Closed, Closing, Entered, EntryRow, StandingRow, TOURNAMENTS_DUE, TableRow, TournamentDelivery,
    TournamentRow, Tournaments,
};

/// Why the store failed. It knows nothing of HTTP: `error.rs` maps it to a status.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No game with this id.
    #[error("no game {0}")]
    GameNotFound(Uuid),
    /// The database failed or refused a statement.
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    /// A migration failed at start.
    #[error(transparent)]
    Migration(#[from] sqlx::migrate::MigrateError),
    /// Another request with this idempotency key acted first (it held the game, or created
    /// first): this one changed nothing.
    #[error("a request with this Idempotency-Key has already acted")]
    KeyTaken,
    /// A write would leave one table of bots alone more than the open server's limit.
    #[error("this server plays at most {0} tables of bots alone at once")]
    BotTablesFull(u32),
    /// The ticket's player has a waiting ticket already.
    #[error("this player is already waiting for a table")]
    AlreadyWaiting,
    /// A call took longer than its bound: the database is hung or unreachable.
    #[error("the database did not answer in time")]
    TimedOut(#[from] tokio::time::error::Elapsed),
}

/// What one sweep removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Swept {
    /// Idempotency keys past their time to live.
    pub keys: u64,
    /// Finished or void games past their retention, with their seats, events and keys.
    pub games: u64,
}

/// A game as stored.
#[derive(Clone, Debug)]
pub struct GameRow {
    /// Game id.
    pub id: Uuid,
    /// Variant id.
    pub variant: String,
    /// Where the game is.
    pub status: GameStatus,
    /// The serialised game as JSON text.
    pub state: String,
    /// Incremented by every accepted action.
    pub version: i64,
    /// The last event's sequence number (0: none yet).
    pub last_seq: i64,
    /// The shuffle seed (hex), secret until the game ends.
    pub seed: String,
    /// Public commitment to the seed.
    pub seed_commitment: String,
    /// Where its events are POSTed, if anywhere.
    pub webhook_url: Option<String>,
    /// When the server must next act on the game (unix ms; the column `deadline`): the turn's
    /// deadline while a clock runs, the paced move of a bot at a person's table, at once (within
    /// a grace) when a bot that thinks apart is in turn, or the end of the lease of the replica
    /// thinking for it; the earliest of them (`HostedGame::due_at`). The deadline pass finds
    /// the game by it.
    pub next_due: Option<i64>,
}

/// A seat as stored (a mirror of the seats in the game state, for queries).
#[derive(Clone, Debug)]
pub struct SeatRow {
    /// Seat index from 0.
    pub seat: i64,
    /// The player's name, once known.
    pub name: Option<String>,
    /// Who plays it now: `player` (a person), `open`, `bot`, `autopilot` (a player's seat a
    /// bot plays for now) or `left` (a player out of the game): what the limit on tables of
    /// bots alone counts.
    pub kind: String,
    /// The studio's id of the person at the seat, when it named one.
    pub player: Option<String>,
}

/// How long a table of bots alone keeps its place under the open server's limit once it is
/// over: a table of `easy` or `normal` bots plays to its end inside the request that makes it,
/// so that without this hold it would never count, and a loop of such requests could take
/// every core (docs/operations.md#bots).
pub const BOT_TABLE_HOLD_SECS: i64 = 60;

/// The open server's limit on tables of bots alone (docs/operations.md#bots), which a write
/// that leaves a table to bots alone is admitted under: only while fewer than `limit` other
/// tables of `tenant` play with bots alone or finished so since `finished_since`, counted
/// under a lock that every such write takes in its own transaction, so that two at once
/// cannot both take the last place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotTableLimit {
    /// The tenant whose tables count.
    pub tenant: String,
    /// How many may play at once.
    pub limit: u32,
    /// Unix seconds: a table of bots alone that finished at or after this still holds its
    /// place.
    pub finished_since: i64,
}

/// A game as a tenant's listing shows it.
#[derive(Clone, Debug)]
pub struct ListedRow {
    /// The game row.
    pub game: GameRow,
    /// When it was created, microseconds since the epoch.
    pub created_us: i64,
}

/// An event to append.
#[derive(Clone, Debug)]
pub struct NewEvent {
    /// The seat the event concerns, if any.
    pub seat: Option<i64>,
    /// The event as JSON text.
    pub body: String,
    /// The event as a spectator sees it, when the game has a webhook: written to the outbox.
    pub public: Option<String>,
    /// The step of the game's record that begins at this event, as JSON (`engine::Step`),
    /// if one does: what the replay plays again.
    pub step: Option<String>,
}

/// A stored event.
#[derive(Clone, Debug)]
pub struct EventRow {
    /// Sequence number from 1, per game.
    pub seq: i64,
    /// The event as JSON text.
    pub body: String,
}

/// A stored event with the step of the game's record that begins at it, if one does.
#[derive(Clone, Debug)]
pub struct RecordedEvent {
    /// The event.
    pub event: EventRow,
    /// The step as JSON (`engine::Step`).
    pub step: Option<String>,
}

/// A response kept for an idempotency key, returned byte for byte on a retry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredResponse {
    /// HTTP status.
    pub status: u16,
    /// The `ETag` header, if any.
    pub etag: Option<String>,
    /// The body.
    pub body: Vec<u8>,
}

/// Where an idempotency key lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyScope {
    /// Per game and seat (moves; joins use seat -1, as the seat is not known yet).
    Game,
    /// Per tenant, for creating a game (game is the tenant's creation scope, seat -1).
    Creation,
}

/// An idempotency key as presented by a request.
#[derive(Clone, Debug)]
pub struct KeyRef {
    /// Which table holds it.
    pub scope: KeyScope,
    /// The game.
    pub game: Uuid,
    /// The acting seat.
    pub seat: i64,
    /// The client's key.
    pub key: String,
    /// Hash of method, path and body.
    pub request_hash: String,
}

/// Why a request's idempotency key does not let it run.
#[derive(Debug, thiserror::Error)]
pub enum KeyRefused {
    /// The key was used with another request.
    #[error("this Idempotency-Key was used with another request")]
    Reused,
}

/// What the store holds for an idempotency key: only a request that acted leaves one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyClaim {
    /// A request with this key and body acted: answer with its response.
    Replay(StoredResponse),
    /// The key was used with another request.
    Mismatch,
}

impl KeyRef {
    /// The table of this key's scope.
    pub(crate) fn table(&self) -> &'static str {
        match self.scope {
            KeyScope::Game => "idempotency_keys",
            KeyScope::Creation => "creation_keys",
        }
    }
}

/// A new game with its seats and first events.
#[derive(Clone, Debug)]
pub struct NewGame {
    /// The game row (its version is the starting version).
    pub game: GameRow,
    /// The tenant it belongs to (`""`: the default tenant, when no server keys are set).
    pub tenant: String,
    /// Its seats.
    pub seats: Vec<SeatRow>,
    /// Its first events.
    pub events: Vec<NewEvent>,
    /// Its webhook's URL and signing secret, if it has one.
    pub webhook: Option<(String, String)>,
    /// A table of bots alone on a server open to anyone: created only under the limit.
    pub bot_tables: Option<BotTableLimit>,
    /// The game is rated when it finishes.
    pub rated: bool,
}

/// Whose a game is and where its events go: what a rematch inherits from the game before.
#[derive(Clone, Debug)]
pub struct Origin {
    /// The tenant it belongs to.
    pub tenant: String,
    /// Its webhook's URL and signing secret, if it has one.
    pub webhook: Option<(String, String)>,
}

/// What an accepted action changes. Made (in `service`) by `GameUpdate::of`, which takes the
/// status and the state from the game it writes, or by `GameUpdate::keeping_status`, which
/// keeps the status the row was read with; the seats, the key's response and the limit on
/// tables of bots alone are added by `with_seats`, `with_response` and `with_bot_tables`.
#[derive(Clone, Debug)]
pub struct GameUpdate {
    /// The new version: the old one plus the number of actions accepted.
    pub version: i64,
    /// New status.
    pub status: GameStatus,
    /// New state JSON.
    pub state: String,
    /// Seats whose name or kind changed.
    pub seats: Vec<SeatRow>,
    /// Events to append, in order.
    pub events: Vec<NewEvent>,
    /// The row's next due time after the change (unix ms; see [`GameRow::next_due`]).
    pub next_due: Option<i64>,
    /// The response to keep for the request's idempotency key, if it has one.
    pub response: Option<StoredResponse>,
    /// The change leaves the table to bots alone on a server open to anyone: written only
    /// under the limit, else [`StoreError::BotTablesFull`] and nothing written.
    pub bot_tables: Option<BotTableLimit>,
    /// The game is over and to be rated (finished, or ended rated by its studio:
    /// `HostedGame::rated_standings`): the change that ends it queues it for rating
    /// (`ratings_due`), in the same write.
    pub rated: bool,
    /// The game is a tournament table's, sealed while its round plays: the change that ends
    /// it announces its round may be over ([`hub::Work::round`]).
    pub sealed: bool,
}

/// The result of a transaction: maybe an update, and what the caller wants back.
#[derive(Debug)]
pub struct Outcome<T> {
    /// The change to write (none: nothing changes, the version stays).
    pub update: Option<GameUpdate>,
    /// The caller's result.
    pub value: T,
}

/// A game whose next due time has come, and that time: also where the next page of due games
/// starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
pub struct DueGame {
    /// The game.
    pub id: Uuid,
    /// Its next due time (unix ms; [`GameRow::next_due`], read from the column `deadline`).
    #[serde(rename = "deadline")]
    pub next_due: i64,
}

/// A webhook delivery claimed from the outbox by one worker, under a lease.
#[derive(Clone, Debug)]
pub struct Delivery {
    /// The delivery id (`webhook-id`), stable across retries.
    pub id: String,
    /// The game.
    pub game_id: Uuid,
    /// The event's sequence number.
    pub seq: i64,
    /// The game's version after the action that made the event.
    pub version: i64,
    /// The event as a spectator sees it (JSON text).
    pub event: String,
    /// Attempts made before this one.
    pub attempts: i64,
    /// When the event was written (unix ms): retries stop a day after.
    pub created_at: i64,
    /// The end of this claim's lease on the game's head (unix ms): the claim's own mark, by
    /// which its outcome is recorded on the head only while the head is still its.
    pub lease: i64,
    /// Where to POST.
    pub url: String,
    /// The game's `whsec_` secret.
    pub secret: String,
}

/// What became of an attempt's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settled {
    /// Recorded on the delivery and its game's head.
    Recorded,
    /// Not recorded: the claim's lease had been taken by another claim (which attempts the
    /// delivery itself), or the delivery was no longer pending.
    Late,
}

/// How a delivery attempt ended.
#[derive(Clone, Debug)]
pub enum Attempt {
    /// The receiver answered 2xx.
    Delivered,
    /// It failed; try again at this time (unix ms).
    Retry {
        /// When.
        at: i64,
        /// What went wrong.
        error: String,
    },
    /// It failed for the last time: given up.
    GivenUp {
        /// What went wrong.
        error: String,
    },
}

/// What waits for the background passes, counted at one moment (each count read apart).
#[derive(Clone, Copy, Debug, Default)]
pub struct Backlog {
    /// Webhook deliveries pending (to be attempted, retried, or in flight).
    pub webhooks: i64,
    /// Games whose turn deadline has passed: a timed-out turn, a bot's move (paced, or of a
    /// bot that thinks apart) not yet played.
    pub due: i64,
    /// Quick play's tickets waiting for a table.
    pub tickets: i64,
}

/// A game's webhook deliveries, counted.
#[derive(Clone, Debug, Default)]
pub struct WebhookCounts {
    /// Delivered (answered 2xx).
    pub delivered: i64,
    /// Waiting to be delivered or retried.
    pub pending: i64,
    /// Given up after a day of failures.
    pub failed: i64,
    /// The latest error, if any attempt failed.
    pub last_error: Option<String>,
}

/// How a transaction holds its game ([`Store::transact`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lock {
    /// The game read without a lock, the write made only if its row is still the one read
    /// (PostgreSQL's `xmin`; on a cluster its version too), else the action decided again under
    /// [`Lock::Row`]: two round trips where holding the row takes four. For what a seat or a bot
    /// does (moves, joins, a rematch a player asks for, the bots that think apart), where two
    /// writers of one game at once are rare: each replica queues a game's moves
    /// (`queue.rs`). SQLite holds the database from the read, as under `Row`.
    Optimistic,
    /// The game's row held from the read to the commit (`FOR UPDATE`; SQLite's `BEGIN
    /// IMMEDIATE`): for a studio's calls on its games (reissuing a token, seating a bot, ending
    /// a game, asking a rematch), which come seldom and need not be retried, and for an action
    /// decided again after its optimistic write lost (or that leaves a table to bots alone,
    /// admitted under a lock only a transaction holds).
    Row,
    /// The deadline pass's claim of a due game: its row held only if its deadline is still at
    /// or before `now` (unix ms), and skipped, not waited for, when another replica holds it
    /// (`FOR UPDATE SKIP LOCKED`), so that each expiry is played once across replicas.
    Due {
        /// The pass's time (unix ms).
        now: i64,
    },
}

/// The game a transaction acts on: by id, of one tenant only when given, under the request's
/// idempotency key when it has one (checked in the statement that reads the game).
#[derive(Clone, Copy, Debug)]
pub struct On<'a> {
    /// The game.
    pub id: Uuid,
    /// Only if it belongs to this tenant.
    pub tenant: Option<&'a str>,
    /// The request's idempotency key, of this game.
    pub key: Option<&'a KeyRef>,
}

impl<'a> On<'a> {
    /// Game `id`, whoever's it is, with no key.
    pub fn game(id: Uuid) -> Self {
        On {
            id,
            tenant: None,
            key: None,
        }
    }

    /// Only if it belongs to `tenant`.
    pub fn of_tenant(self, tenant: &'a str) -> Self {
        On {
            tenant: Some(tenant),
            ..self
        }
    }

    /// Under the request's idempotency key, if it has one.
    pub fn keyed(self, key: Option<&'a KeyRef>) -> Self {
        On { key, ..self }
    }
}

/// Everything the service asks of a database.
#[expect(async_fn_in_trait, reason = "used only inside this crate, on concrete types")]
pub trait Store {
    /// Checks the database answers.
    async fn ready(&self) -> Result<(), StoreError>;
    /// The seat-token secret stored in the database; `generated` is stored first if there is none.
    async fn jwt_secret(&self, generated: String) -> Result<String, StoreError>;
    /// Inserts a new game, its seats and its first events, and in the same transaction the
    /// response of the request's idempotency key, if it has one; `false` (and nothing
    /// written) when a game with its id exists already: a rematch made by another request.
    async fn create_game(
        &self,
        new: &NewGame,
        key: Option<(&KeyRef, &StoredResponse)>,
    ) -> Result<bool, StoreError>;
    /// Whose game `id` is, and its webhook's URL and secret: what its rematch inherits.
    async fn origin(&self, id: Uuid) -> Result<Option<Origin>, StoreError>;
    /// The game, if it exists.
    async fn game(&self, id: Uuid) -> Result<Option<GameRow>, StoreError>;
    /// Game `id` if it belongs to `tenant`: one query either way, so that another tenant's
    /// game and no game at all look the same.
    async fn game_in(&self, tenant: &str, id: Uuid) -> Result<Option<GameRow>, StoreError>;
    /// A page of `tenant`'s games, newest first, by keyset (no offset): at most
    /// `listing.limit + 1`, so that the caller knows whether another page follows.
    async fn list_games(&self, tenant: &str, listing: &GameListing) -> Result<Vec<ListedRow>, StoreError>;
    /// Events of `id` with `seq > after`, at most `limit`.
    async fn events_after(&self, id: Uuid, after: i64, limit: i64) -> Result<Vec<EventRow>, StoreError>;
    /// Every event of `id` in order, each with the step of the game's record that begins
    /// there, if one does: what the replay reads.
    async fn record(&self, id: Uuid) -> Result<Vec<RecordedEvent>, StoreError>;
    /// What is stored for an idempotency key: nothing unless a request with it acted.
    async fn find_key(&self, key: &KeyRef) -> Result<Option<KeyClaim>, StoreError>;
    /// Deletes idempotency keys created before `keys_before` and finished or void games last
    /// changed before `games_before` (seconds since the epoch). Rows are found in bounded
    /// batches without a lock, then deleted game by game (key by key for creations), each
    /// statement on one game's rows; rows another replica's sweep or a request holds are
    /// skipped (`FOR UPDATE SKIP LOCKED`), never swept twice.
    async fn sweep(&self, keys_before: i64, games_before: i64) -> Result<Swept, StoreError>;
    /// One action as one transaction, the one way into a game's transaction: read game `on`,
    /// call `act` with it, write its update (its version, events, idempotent response under
    /// `on.key`) and commit, holding the game as `lock` says (see [`Lock`]: which caller uses
    /// which). `act` may be called again, on the newer game, when something changed it in
    /// between (under [`Lock::Optimistic`]). An error from `act` changes nothing. `None`, with
    /// nothing written, when there is no such game to act on: none with this id (of
    /// `on.tenant`, when given: another tenant's game is found by the same one query as none),
    /// or under [`Lock::Due`], none still due that no other replica holds.
    async fn transact<T, E, F>(&self, on: On<'_>, lock: Lock, act: F) -> Result<Option<T>, E>
    where
        E: From<StoreError>,
        F: FnMut(&GameRow) -> Result<Outcome<T>, E>;
    /// Up to `limit` games whose turn deadline is at or before `now` (unix ms), earliest
    /// first (by deadline, then id), after `after` if given, read without a lock: candidates
    /// for [`Store::transact`] under [`Lock::Due`].
    async fn due_games(
        &self,
        now: i64,
        after: Option<DueGame>,
        limit: i64,
    ) -> Result<Vec<DueGame>, StoreError>;
    /// Leases game `id`'s bot turn to this replica: moves its deadline from `held` to `until`
    /// (unix ms), only if the game is still at `version` and its deadline still `held` (one
    /// column written); `false` when another replica or a change came first.
    async fn lease(&self, id: Uuid, version: i64, held: i64, until: i64) -> Result<bool, StoreError>;
    /// Sets game `id` aside (its stored state does not load): clears its deadline, so that no
    /// pass finds it due again, and marks when (`at`, unix ms); `false` when it was set aside
    /// already (by another replica's pass, say).
    async fn set_aside(&self, id: Uuid, at: i64) -> Result<bool, StoreError>;
    /// Claims up to `limit` due deliveries for `lease` ms: of each game only the first one not
    /// yet delivered or given up, so that a game's events go out in order. The games are found
    /// by their heads (`webhook_heads`, one row per game, an index of those due), each leased
    /// by a conditional update of its own row; on one PostgreSQL all in one statement.
    async fn claim_deliveries(&self, now: i64, lease: i64, limit: i64) -> Result<Vec<Delivery>, StoreError>;
    /// Records how an attempt at delivery `d` ended, and with it its game's head: due at once
    /// when more is pending, at the retry's time after a failure, idle when it was the last.
    /// Only while the delivery is still pending and its head still carries `d`'s lease: an
    /// outcome that comes after another claim took the head changes nothing
    /// ([`Settled::Late`]).
    async fn settle_delivery(&self, d: &Delivery, attempt: &Attempt) -> Result<Settled, StoreError>;
    /// What waits for the background passes at `now` (unix ms): each count read from a
    /// partial index (the deliveries pending, the games due, the tickets waiting).
    async fn backlog(&self, now: i64) -> Result<Backlog, StoreError>;
    /// The counts of game `id`'s deliveries.
    async fn webhook_counts(&self, id: Uuid) -> Result<WebhookCounts, StoreError>;
    /// The stored rating in `variant` at `tenant` of each of `participants`, in the order
    /// asked; `None` for one without a row (what that means is the domain's:
    /// [`Participant::unrated`]).
    async fn ratings(
        &self,
        tenant: &str,
        variant: engine::Variant,
        participants: &[Participant],
    ) -> Result<Vec<Option<Rating>>, StoreError>;
    /// Claims up to `limit` finished, rated games due for rating for `lease` ms (candidates
    /// read without a lock, each claimed by a conditional update of its row).
    async fn claim_ratings(&self, now: i64, lease: i64, limit: i64) -> Result<Vec<RatingDue>, StoreError>;
    /// Rates game `game` of `tenant` once, in one transaction on the tenant's rows: `decide`
    /// gets each of `participants`' rating in `variant` (held until the commit: its row's, or
    /// for one without a row the rating given with it, which its new row starts from) and says
    /// what to write. Returns the game's changes: those written now, or those of the rating
    /// that came first (then `decide` wrote nothing, or was not called).
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
        F: FnOnce(&[(Participant, Rating)]) -> Result<RatingWrite, E>;
    /// Removes game `game` from the games due for rating: rated, and the game told.
    async fn rating_done(&self, game: Uuid) -> Result<(), StoreError>;
    /// `player`'s ratings at `tenant` and their games counted.
    async fn player(
        &self,
        tenant: &str,
        player: &crate::domain::PlayerId,
    ) -> Result<PlayerRecord, StoreError>;
    /// A page of `tenant`'s leaderboard in `variant` (players only): at most `limit + 1` rows,
    /// by the conservative value down, then the participant key's bytes, after `after` (a
    /// keyset: the board as it stands now, wherever that place's row went), with how many
    /// players are ahead of the first, read in the same snapshot.
    async fn leaderboard(
        &self,
        tenant: &str,
        variant: engine::Variant,
        limit: u32,
        after: Option<&BoardCursor>,
    ) -> Result<BoardPage, StoreError>;
    /// Where `participant` (a player's key) stands on `tenant`'s leaderboard in `variant`: their
    /// row, how many players are ahead of them and on the board, the `above` rows just ahead
    /// and up to `below + 1` rows just behind, all read in one snapshot; `None` when they have
    /// no rating in the variant.
    async fn standing(
        &self,
        tenant: &str,
        variant: engine::Variant,
        participant: &str,
        above: u32,
        below: u32,
    ) -> Result<Option<Standing>, StoreError>;
}

/// A finished, rated game claimed for rating ([`Store::claim_ratings`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RatingDue {
    /// The game.
    pub game: Uuid,
    /// Its tenant, whose ratings it changes.
    pub tenant: String,
}

/// What rating one game writes ([`Store::rate_game`]).
#[derive(Clone, Debug)]
pub struct RatingWrite {
    /// Each seat's change, as the game keeps it (JSON text): the marker's `changes`.
    pub changes: String,
    /// Each participant's new rating once, and whether it won.
    pub rows: Vec<RatedRow>,
}

/// One participant's new rating after a game.
#[derive(Clone, Debug)]
pub struct RatedRow {
    /// Who.
    pub participant: Participant,
    /// The new rating.
    pub rating: Rating,
    /// Their seat (or team) placed first.
    pub won: bool,
}

/// A player's ratings and record at a tenant ([`Store::player`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerRecord {
    /// Their rating in each variant they were rated in, by variant id.
    pub ratings: Vec<PlayerRating>,
    /// Games with a seat naming them.
    pub games: i64,
    /// Of those, the finished ones.
    pub finished: i64,
}

/// A player's rating in one variant.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerRating {
    /// The variant's id.
    pub variant: String,
    /// The rating.
    pub rating: Rating,
    /// Rated games played.
    pub games: i64,
    /// Rated games won.
    pub won: i64,
}

/// Where a page of a leaderboard starts: after this conservative value (as the database
/// computed it) and participant key.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardCursor {
    /// The conservative value of the last row of the page before.
    pub conservative: f64,
    /// Its participant key (`player:<id>`).
    pub participant: String,
}

/// A page of a leaderboard ([`Store::leaderboard`]).
#[derive(Clone, Debug, PartialEq)]
pub struct BoardPage {
    /// The rows, in the board's order.
    pub rows: Vec<BoardRow>,
    /// Players ahead of the first row: its rank less one.
    pub ahead: u64,
}

/// Where a player stands on a leaderboard ([`Store::standing`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// Their row.
    pub own: BoardRow,
    /// Players ahead of them: their rank less one.
    pub ahead: u64,
    /// Players on the board.
    pub players: u64,
    /// The rows just ahead of them, in the board's order.
    pub above: Vec<BoardRow>,
    /// The rows just behind them, in the board's order.
    pub below: Vec<BoardRow>,
}

/// A row of a leaderboard.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardRow {
    /// The participant key (`player:<id>`).
    pub participant: String,
    /// The rating.
    pub rating: Rating,
    /// Rated games played.
    pub games: i64,
    /// The mean less three deviations, as the database computed it.
    pub conservative: f64,
}

/// Where a page of a listing starts: after the game created at `created_us` with `id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// Creation time of the last game of the page before, microseconds since the epoch.
    pub created_us: i64,
    /// Its id, which orders games created in the same microsecond.
    pub id: Uuid,
}

/// A listing as the store takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameListing {
    /// Only games in this status.
    pub status: Option<GameStatus>,
    /// Only games with a seat naming this player.
    pub player: Option<crate::domain::PlayerId>,
    /// Games per page.
    pub limit: u32,
    /// Where the page starts; none for the newest.
    pub after: Option<Cursor>,
}
