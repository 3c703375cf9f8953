//! A game as the service stores it: the seats (who sits where, open seats, bots) around the
//! engine's [`Game`], which exists once every seat is taken.

use engine::bot::Level;
use engine::{Action, ActionError, Game, GameConfig, Seat, Seed, SetupError, Standing, Step};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::GameStatus;
use super::events::{Logged, TableEvent};
use super::player::PlayerId;
use super::ratings::{Participant, Rating, RatingChange};

/// Fewest and most seconds a turn may be given (`options.turn_seconds`).
pub const TURN_SECONDS: std::ops::RangeInclusive<u32> = 5..=604_800;

/// Fewest and most seconds of reserve a seat may be given (`options.bank_seconds`).
pub const BANK_SECONDS: std::ops::RangeInclusive<u32> = 1..=604_800;

/// Fewest and most seconds the claim window may last (`options.claim_window_seconds`).
pub const CLAIM_WINDOW_SECONDS: std::ops::RangeInclusive<u32> = 0..=30;

/// The claim window where the game's options do not set one: time enough for a person to say
/// "May I?" (docs/api.md#the-claim-window-and-the-bots-pace).
pub const DEFAULT_CLAIM_WINDOW_SECONDS: u32 = 3;

/// Fewest and most milliseconds the bots' pace may be (`options.bot_pace_ms`).
pub const BOT_PACE_MS: std::ops::RangeInclusive<u32> = 0..=3000;

/// How long a bot's move at a person's table waits after the change before it, where the
/// game's options do not say (`options.bot_pace_ms`): enough for a person to see each move,
/// short enough not to keep them waiting (docs/api.md#the-claim-window-and-the-bots-pace).
pub const DEFAULT_BOT_PACE_MS: u32 = 400;

/// The reason of the `called_off` event that ends a table its last person abandoned (their
/// turn timed out into autopilot) while the open server played as many tables of bots alone as
/// it may (docs/operations.md#bots).
pub const ABANDONED: &str =
    "abandoned: no person is left at the table, and this server plays no more tables of bots alone now";

/// The turn clock and the pace a game is created with (docs/api.md#turn-deadlines).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnClock {
    /// `options.turn_seconds`: how long each turn may last; `None`: no clock.
    pub turn_seconds: Option<u32>,
    /// `options.bank_seconds`: each seat's reserve, drawn on past `turn_seconds`.
    pub bank_seconds: Option<u32>,
    /// `options.autopilot_after_timeouts`: timeouts in a row before a bot takes the seat, if
    /// ever.
    pub autopilot_after_timeouts: Option<u32>,
    /// `options.claim_window_seconds`: how long the discard stays on offer before a bot in
    /// turn takes its turn, where a person may claim it; `None`: the default.
    pub claim_window_seconds: Option<u32>,
    /// `options.bot_pace_ms`: how long each bot move at a person's table waits after the change
    /// before it; `None`: the default.
    pub bot_pace_ms: Option<u32>,
}

/// The turn whose clock runs: its seat, and when it started (unix ms).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunningTurn {
    /// The seat in turn.
    pub seat: u8,
    /// When its clock started (unix ms).
    pub since: i64,
}

/// Why the hosted game refuses a request. Mapped to a status in `error.rs`.
#[derive(Debug, thiserror::Error)]
pub enum HostedGameError {
    /// Every seat is taken.
    #[error("every seat of this game is taken")]
    NoOpenSeat,
    /// The game has been dealt: a seat can no longer be given up.
    #[error("the game has started")]
    Started,
    /// Seats are still open: there is no game to play yet.
    #[error("the game starts when every seat is taken")]
    NotStarted,
    /// A seat index outside the table.
    #[error("no such seat")]
    NoSuchSeat,
    /// The token's seat is open or a bot's.
    #[error("this token's seat is not a player's seat of this game")]
    NotAPlayer,
    /// The seat was given up, or its token reissued, since this token was issued.
    #[error("this seat token has been replaced: the seat was given up or its token reissued")]
    TokenReplaced,
    /// A seat number the game does not have.
    #[error("this game has no seat {0}")]
    UnknownSeat(u8),
    /// Only a player's seat has a token: not an open seat, not a bot's.
    #[error("seat {seat} is {kind}: only a player's seat has a token")]
    NoToken {
        /// The seat.
        seat: u8,
        /// `open` or `bot`.
        kind: &'static str,
    },
    /// The engine refuses the setup (player count, first dealer, stacked deck).
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The engine refuses the action.
    #[error(transparent)]
    Action(#[from] ActionError),
    /// A rematch of a game that is not finished (void, or still waiting or played).
    #[error("only a finished game has a rematch; this one is {0}")]
    NotFinished(&'static str),
    /// A rematch of a tournament table's game: the tournament seats its next round itself.
    #[error("a tournament table's game has no rematch: the tournament seats its next round")]
    TournamentGame,
    /// A rematch seat asked for by a seat that is no longer a player's at the new table.
    #[error("seat {0} of the rematch is no longer a player's")]
    NotReserved(u8),
    /// A rematch seat whose token was reissued (or that changed hands): only its newer token
    /// opens it, never again the finished game's.
    #[error(
        "seat {0} of the rematch has had its token reissued: only that token opens it, no longer this game's"
    )]
    RematchSeatReissued(u8),
    /// A replay of a game dealt before the service kept each game's record.
    #[error("this game was dealt before the service kept the record a replay plays again")]
    NoRecord,
    /// The stored state is not a table of this release, or holds what the rules could not
    /// have made (the engine's check as a game loads).
    #[error("stored game {game} does not load: {cause}")]
    Corrupt {
        /// The game's id.
        game: uuid::Uuid,
        /// What failed.
        cause: String,
    },
    /// One player named at two seats of one game.
    #[error("player {0} is named at two seats of this game")]
    PlayerSeatedTwice(PlayerId),
    /// A rated game with a person's seat that names no player.
    #[error("a rated game names a player at every person's seat: seat {0} names none")]
    RatedNeedsPlayers(u8),
    /// An end asked rated of a game its creator did not make rated.
    #[error("this game is not rated: it can only be ended void")]
    NotRated,
    /// An end asked rated before the first deal ended: no standings to rate.
    #[error("no deal of this game has ended yet: there are no standings to rate it on")]
    NoDealEnded,
    /// A table that does not serialise (never in practice).
    #[error("the table does not serialise: {0}")]
    Unwritable(#[from] serde_json::Error),
}

/// Who sits in a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeatKind {
    /// A person with a seat token.
    Player,
    /// Waiting for someone to join.
    Open,
    /// Played by the server.
    Bot,
}

impl SeatKind {
    /// The kind as the API and the database write it.
    pub const fn as_str(self) -> &'static str {
        match self {
            SeatKind::Player => "player",
            SeatKind::Open => "open",
            SeatKind::Bot => "bot",
        }
    }
}

/// One seat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatRecord {
    /// The name shown to others.
    pub name: Option<String>,
    /// Who sits there.
    pub kind: SeatKind,
    /// Bumped each time the seat is given up before the start: tokens carry it, so a token
    /// of an earlier holder no longer opens the seat.
    #[serde(default)]
    pub generation: u32,
    /// Turns in a row the server played for this seat because its deadline passed; a move
    /// of its own sets it back to 0.
    #[serde(default)]
    pub timeouts: u32,
    /// A bot's level (docs/bots.md); `None` on a bot's seat is `normal`, as before levels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    /// A player's seat handed to a bot of this level until the player acts or takes it back
    /// (docs/api.md#autopilot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub autopilot: Option<Level>,
    /// A rematch's player seat kept for the player of the game before until they ask for it:
    /// no one else can take it, and the game waits for it before it deals.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reserved: bool,
    /// With `options.bank_seconds`: the reserve this seat has left, in thousandths of a clock
    /// second, once a turn of it drew on it; `None`: the whole reserve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserve_ms: Option<i64>,
    /// The studio's id of the person at this seat, when it named one (never shown to the
    /// other seats).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<PlayerId>,
    /// The rating in the game's variant of whoever sat down here (its player, or its bot
    /// level), as it was when they sat down: what the seat's view shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<Rating>,
}

impl SeatRecord {
    /// A seat as it is first taken: `kind`, with its `name`, a bot's `level` and a person's
    /// `player`; no token given yet, no turn timed out, no clock reserve drawn on, no rating
    /// read.
    pub fn taken(
        kind: SeatKind,
        name: Option<String>,
        level: Option<Level>,
        player: Option<PlayerId>,
    ) -> SeatRecord {
        SeatRecord {
            name,
            kind,
            generation: 0,
            timeouts: 0,
            level,
            autopilot: None,
            reserved: false,
            reserve_ms: None,
            player,
            rating: None,
        }
    }

    /// The level the server plays this seat at: a bot's, or a player's autopilot; `None`
    /// while a person plays it (or nobody sits there).
    pub fn plays_as(&self) -> Option<Level> {
        match self.kind {
            SeatKind::Bot => Some(self.level.unwrap_or_default()),
            SeatKind::Player => self.autopilot,
            SeatKind::Open => None,
        }
    }
}

/// Everything stored about a game, as the `state` JSON of its row.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HostedGame {
    /// Rules, players and test-mode hooks.
    pub config: GameConfig,
    /// The shuffle seed, secret until the game ends.
    pub seed: Seed,
    /// The seats in order.
    pub seats: Vec<SeatRecord>,
    /// The engine's game, once every seat is taken.
    pub game: Option<Game>,
    /// `options.turn_seconds`: how long each turn may last; `None`: no clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_seconds: Option<u32>,
    /// `options.bank_seconds`: each seat's reserve on the clock; `None`: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank_seconds: Option<u32>,
    /// When the seat in turn times out (unix milliseconds), while a clock runs: the turn's
    /// own time and the seat's reserve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<i64>,
    /// `options.autopilot_after_timeouts`: after that many timeouts in a row a bot takes the
    /// seat over until the player acts again; `None`: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub autopilot_after_timeouts: Option<u32>,
    /// The turn whose clock runs, for charging its seat's reserve when it ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running: Option<RunningTurn>,
    /// The next game at this table, once a seat or the studio asked for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch: Option<Uuid>,
    /// `options.claim_window_seconds`; `None`: [`DEFAULT_CLAIM_WINDOW_SECONDS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_window_seconds: Option<u32>,
    /// `options.bot_pace_ms`; `None`: [`DEFAULT_BOT_PACE_MS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot_pace_ms: Option<u32>,
    /// Until when (unix ms) the discard on offer stays on offer before the bot in turn plays,
    /// while a person may claim it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_until: Option<i64>,
    /// At a person's table, when (unix ms) the server plays the next move of the seat in turn
    /// it plays: after the pace and the claim window (see [`HostedGame::rearm`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot_at: Option<i64>,
    /// The creator asked for the game to be rated (docs/ratings.md#rated-games): every
    /// person's seat names a player.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// Once the finished game has been rated, each seat's rating before and after, in seat
    /// order (`None` for a seat without a rating).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating_changes: Option<Vec<Option<RatingChange>>>,
    /// A rated game its studio ended saying it is rated (docs/ratings.md#rated-end): the
    /// standings it is rated on, the engine's [`Game::called_off_standings`] as it was called
    /// off (kept, as announced in its `called_off` event).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub called_off_standings: Option<Vec<Standing>>,
    /// A tournament table's game whose round other tables may still be playing
    /// (docs/tournaments.md#what-stays-secret-and-until-when): its seed, its record and its
    /// spectators stay closed, even once it is over, until the tournament pass lifts this when
    /// every table of the round is over.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sealed: bool,
    /// The tournament whose table this game is: its next game is the tournament's next round,
    /// never a rematch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<Uuid>,
}

/// What a request changed in the engine: its events, the steps of the game's record they
/// came from, and how many actions were accepted (the request's own, if any, plus every bot
/// move it set off), by which the version grows.
#[derive(Clone, Debug, Default)]
pub struct Applied {
    /// Every event, in order: the engine's, with the table's `turn` and `game_finished`.
    pub events: Vec<Logged>,
    /// Each step of the game's record this change took, with the index in `events` of the
    /// first event it made (every step makes one): where the log keeps it, for the replay.
    pub steps: Vec<(usize, Step)>,
    /// Accepted actions.
    pub actions: i64,
    /// Whether the turn passed (or a deal began): the next turn's clock starts.
    pub turn_passed: bool,
    /// The level of each bot whose proposal the game refused in this change (played as the
    /// engine's fallback chose, and logged): for the service to count.
    pub bots_refused: Vec<Level>,
}

/// Where the game stands between two actions, to tell when the turn passed or the game ended.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Mark {
    deal: u8,
    turn: Option<Seat>,
    playing: bool,
    /// Finished or void: a suspended game is not over.
    over: bool,
}

impl Mark {
    fn of(game: &Game) -> Mark {
        Mark {
            deal: game.deal(),
            turn: game.turn().map(|(s, _)| s),
            playing: game.status() == engine::Status::Playing,
            over: matches!(game.status(), engine::Status::Finished | engine::Status::Void),
        }
    }
}

impl Applied {
    /// Table events only: no step of the game's record.
    pub fn table(events: impl IntoIterator<Item = Logged>) -> Applied {
        Applied {
            events: events.into_iter().collect(),
            ..Applied::default()
        }
    }

    /// `entries` logged first, then this change.
    pub fn after(mut self, entries: impl IntoIterator<Item = Logged>) -> Applied {
        let mut events: Vec<Logged> = entries.into_iter().collect();
        let shift = events.len();
        events.append(&mut self.events);
        self.events = events;
        for (at, _) in &mut self.steps {
            *at += shift;
        }
        self
    }

    /// Adds what `more` changed after this.
    pub fn append(&mut self, more: Applied) {
        let shift = self.events.len();
        self.events.extend(more.events);
        self.steps
            .extend(more.steps.into_iter().map(|(at, step)| (at + shift, step)));
        self.actions += more.actions;
        self.turn_passed |= more.turn_passed;
    }

    /// The log's entries in order, each with the step of the record that begins there.
    pub fn entries(self) -> impl Iterator<Item = (Logged, Option<Step>)> {
        let mut steps = self.steps.into_iter().peekable();
        self.events.into_iter().enumerate().map(move |(i, entry)| {
            let step = steps.next_if(|(at, _)| *at == i).map(|(_, step)| step);
            (entry, step)
        })
    }

    /// Records what changed from `before` to `game`: a `turn` when another seat (or a new
    /// deal) is in turn, `game_finished` when the game ended.
    fn mark(&mut self, before: Option<Mark>, game: &Game) {
        let after = Mark::of(game);
        if after.playing
            && let Some(seat) = after.turn
            && before.is_none_or(|b| (b.deal, b.turn) != (after.deal, after.turn))
        {
            self.events.push(Logged::Table(TableEvent::Turn { seat: seat.0 }));
            self.turn_passed = true;
        }
        if before.is_none_or(|b| !b.over) && after.over {
            let status = match game.status() {
                engine::Status::Void => GameStatus::Void,
                _ => GameStatus::Finished,
            };
            self.events
                .push(Logged::Table(TableEvent::GameFinished { status }));
        }
    }
}

impl HostedGame {
    /// A table for `seats`, after checking that the engine accepts the setup: a bad stacked
    /// deck is the creator's error, not the last joiner's, even if the deal waits for open seats.
    ///
    /// # Errors
    /// The engine's setup errors.
    pub fn new(
        config: GameConfig,
        seed: Seed,
        mut seats: Vec<SeatRecord>,
    ) -> Result<HostedGame, HostedGameError> {
        Game::new(config.clone(), seed.clone())?;
        for (i, s) in seats.iter_mut().enumerate() {
            if s.kind == SeatKind::Bot && s.name.is_none() {
                s.name = Some(format!("Bot {}", i + 1));
            }
        }
        Ok(HostedGame {
            config,
            seed,
            seats,
            game: None,
            turn_seconds: None,
            bank_seconds: None,
            deadline: None,
            autopilot_after_timeouts: None,
            running: None,
            rematch: None,
            claim_window_seconds: None,
            bot_pace_ms: None,
            claim_until: None,
            bot_at: None,
            rated: false,
            rating_changes: None,
            called_off_standings: None,
            sealed: false,
            tournament: None,
        })
    }

    /// Checks the seats' players: no player at two seats, and in a rated game a player at
    /// every person's seat (an open seat names one when it is joined).
    ///
    /// # Errors
    /// [`HostedGameError::PlayerSeatedTwice`], [`HostedGameError::RatedNeedsPlayers`].
    pub fn check_players(&self) -> Result<(), HostedGameError> {
        for (i, seat) in self.seats.iter().enumerate() {
            if let Some(player) = &seat.player
                && self.seats[..i].iter().any(|s| s.player.as_ref() == Some(player))
            {
                return Err(HostedGameError::PlayerSeatedTwice(player.clone()));
            }
            if self.rated && seat.kind == SeatKind::Player && seat.player.is_none() {
                return Err(HostedGameError::RatedNeedsPlayers(
                    u8::try_from(i).map_err(|_| HostedGameError::NoSuchSeat)?,
                ));
            }
        }
        Ok(())
    }

    /// The standings a rated game is rated on once it is over (docs/ratings.md#rated-games):
    /// its final standings, or those its studio ended it on, rated. `None` for an unrated
    /// game, one not over, and a void one its studio did not end rated.
    pub fn rated_standings(&self) -> Option<Vec<Standing>> {
        if !self.rated {
            return None;
        }
        match self.status() {
            GameStatus::Finished => self.game.as_ref()?.standings().map(<[Standing]>::to_vec),
            GameStatus::Void => self.called_off_standings.clone(),
            GameStatus::Waiting | GameStatus::Playing | GameStatus::Suspended => None,
        }
    }

    /// Who is rated for each seat: its player, or its bot level; `None` when a seat has
    /// neither (a person who named no player, a seat still open).
    pub fn participants(&self) -> Option<Vec<Participant>> {
        self.seats
            .iter()
            .map(|s| match s.kind {
                SeatKind::Player => s.player.clone().map(Participant::Player),
                SeatKind::Bot => Some(Participant::Bot(s.level.unwrap_or_default())),
                SeatKind::Open => None,
            })
            .collect()
    }

    /// Reads the `state` JSON of game `id`'s row: the engine checks its game as it loads.
    ///
    /// # Errors
    /// [`HostedGameError::Corrupt`] if the stored JSON is not a game of this release, or holds what
    /// the rules could not have made (derived facts that drifted are repaired instead, with a
    /// warning).
    pub fn load(id: uuid::Uuid, text: &str) -> Result<HostedGame, HostedGameError> {
        let corrupt = |cause: String| HostedGameError::Corrupt { game: id, cause };
        let mut table: HostedGame = serde_json::from_str(text).map_err(|e| corrupt(e.to_string()))?;
        // Bookkeeping the engine rebuilt as it loaded: said on every load until a change
        // writes the game back repaired.
        if let Some(game) = &mut table.game {
            for repair in game.take_repairs() {
                tracing::warn!(game = %id, %repair, "stored game repaired on load");
            }
        }
        let players = table.seats.len();
        if table.config.players != players {
            return Err(corrupt(format!(
                "{players} seats at a table of {}",
                table.config.players
            )));
        }
        if let Some(game) = &table.game
            && game.players() != players
        {
            return Err(corrupt(format!(
                "a game of {} at a table of {players}",
                game.players()
            )));
        }
        Ok(table)
    }

    /// The `state` JSON.
    ///
    /// # Errors
    /// Never in practice: every field serialises.
    pub fn to_json(&self) -> Result<String, HostedGameError> {
        Ok(serde_json::to_string(self)?)
    }

    /// Where the game is.
    pub fn status(&self) -> GameStatus {
        match &self.game {
            None => GameStatus::Waiting,
            Some(g) => match g.status() {
                engine::Status::Playing => GameStatus::Playing,
                engine::Status::Suspended => GameStatus::Suspended,
                engine::Status::Finished => GameStatus::Finished,
                engine::Status::Void => GameStatus::Void,
            },
        }
    }

    /// Who plays seat `i` now, in the words of the seats table's `kind`, which mirrors it
    /// for the limit on tables of bots alone (docs/operations.md#bots): `player` (a person),
    /// `open`, `bot`, `autopilot` (a player's seat a bot plays for now) or `left` (a player
    /// out of the game).
    pub fn played_by(&self, i: usize) -> &'static str {
        let Some(record) = self.seats.get(i) else {
            return SeatKind::Open.as_str();
        };
        let left = self
            .game
            .as_ref()
            .is_some_and(|g| u8::try_from(i).is_ok_and(|s| !g.is_active(Seat(s))));
        match record.kind {
            SeatKind::Player if left => "left",
            SeatKind::Player if record.autopilot.is_some() => "autopilot",
            kind => kind.as_str(),
        }
    }

    /// Whether the table plays with no person at it: in play, and every seat a bot's, on
    /// autopilot or left. What the open server's limit counts (docs/operations.md#bots).
    pub fn bots_alone(&self) -> bool {
        self.status() == GameStatus::Playing
            && (0..self.seats.len()).all(|i| !matches!(self.played_by(i), "player" | "open"))
    }

    /// Whether the server alone plays this table, or played it to its end: every seat a
    /// bot's, on autopilot or left, in play or finished. What a change that leaves a table so
    /// is counted as on an open server (docs/operations.md#bots): a table of `easy` or
    /// `normal` bots plays to its end inside the request that leaves it to them.
    pub fn bots_only(&self) -> bool {
        matches!(self.status(), GameStatus::Playing | GameStatus::Finished)
            && (0..self.seats.len()).all(|i| !matches!(self.played_by(i), "player" | "open"))
    }

    /// The seed commitment clients get when the game is created.
    pub fn seed_commitment(&self) -> String {
        Game::seed_commitment(&self.seed)
    }

    /// The engine's game.
    ///
    /// # Errors
    /// [`HostedGameError::NotStarted`] while seats are open.
    pub fn game(&self) -> Result<&Game, HostedGameError> {
        self.game.as_ref().ok_or(HostedGameError::NotStarted)
    }

    /// Checks that a token for `seat` issued at `generation` still opens a player's seat.
    ///
    /// # Errors
    /// [`HostedGameError::TokenReplaced`] for a token of an earlier generation,
    /// [`HostedGameError::NotAPlayer`] for a seat that is not a player's.
    pub fn check_player(&self, seat: u8, generation: u32) -> Result<(), HostedGameError> {
        match self.seats.get(usize::from(seat)) {
            Some(s) if s.generation != generation => Err(HostedGameError::TokenReplaced),
            Some(s) if s.kind == SeatKind::Player => Ok(()),
            _ => Err(HostedGameError::NotAPlayer),
        }
    }

    /// The generation of `seat` whose token a quick-play ticket seated there may still have:
    /// the seat's first, while it is a player's. Once the studio reissued its token or gave it
    /// to a bot, the ticket's id no longer opens it (`None`), as a rematch's first token
    /// stops opening a reissued seat ([`HostedGame::take_reserved`]).
    pub fn ticket_generation(&self, seat: u8) -> Option<u32> {
        match self.seats.get(usize::from(seat)) {
            Some(s) if s.kind == SeatKind::Player && s.generation == 0 => Some(0),
            _ => None,
        }
    }

    /// Starts a new generation of a player's seat, for a fresh token: every token issued
    /// before stops opening it. Returns the new generation.
    ///
    /// # Errors
    /// [`HostedGameError::UnknownSeat`] past the last seat, [`HostedGameError::NoToken`] for an open
    /// seat or a bot's.
    pub fn reissue(&mut self, seat: u8) -> Result<u32, HostedGameError> {
        let record = self
            .seats
            .get_mut(usize::from(seat))
            .ok_or(HostedGameError::UnknownSeat(seat))?;
        if record.kind != SeatKind::Player {
            return Err(HostedGameError::NoToken {
                seat,
                kind: record.kind.as_str(),
            });
        }
        record.generation += 1;
        Ok(record.generation)
    }

    /// Deals when no seat is open any more, then lets the bots play. Returns the events and the
    /// bots' accepted actions (dealing is not an action). `year` is the calendar year (UTC) now:
    /// when the game deals, it is the year the game started in (docs/rules.md#suspension), not the
    /// year it was created in, which may be earlier for a game that waited for players.
    ///
    /// # Errors
    /// The engine's setup errors (bad player count, first dealer or stacked deck).
    pub fn start_if_full(&mut self, year: i32) -> Result<Applied, HostedGameError> {
        if self.game.is_some() || self.seats.iter().any(|s| s.kind == SeatKind::Open || s.reserved) {
            return Ok(Applied::default());
        }
        self.config.start_year = Some(year);
        let (game, events) = Game::new(self.config.clone(), self.seed.clone())?;
        let mut applied = Applied {
            events: events.into_iter().map(Logged::Engine).collect(),
            steps: vec![(0, Step::Deal)],
            ..Applied::default()
        };
        applied.mark(None, &game);
        self.game = Some(game);
        self.run_bots(&mut applied, None);
        Ok(applied)
    }

    /// The first open seat, given to `name`.
    ///
    /// # Errors
    /// [`HostedGameError::NoOpenSeat`] when every seat is taken.
    ///
    /// The seat names `player` when given, with their `rating` then; a rated game takes no
    /// seat without a player.
    ///
    /// # Errors
    /// [`HostedGameError::NoOpenSeat`] when every seat is taken; the players' checks
    /// ([`HostedGame::check_players`]), with nothing changed.
    pub fn join(&mut self, name: String, player: Option<(PlayerId, Rating)>) -> Result<u8, HostedGameError> {
        let i = self
            .seats
            .iter()
            .position(|s| s.kind == SeatKind::Open)
            .ok_or(HostedGameError::NoOpenSeat)?;
        let before = self.seats[i].clone();
        let seat = &mut self.seats[i];
        seat.kind = SeatKind::Player;
        seat.name = Some(name);
        (seat.player, seat.rating) = player.unzip();
        if let Err(e) = self.check_players() {
            self.seats[i] = before;
            return Err(e);
        }
        u8::try_from(i).map_err(|_| HostedGameError::NoSuchSeat)
    }

    /// Gives up `seat` before the game starts: it is open again, under a new generation.
    ///
    /// # Errors
    /// [`HostedGameError::Started`] once the game has been dealt.
    pub fn vacate(&mut self, seat: u8) -> Result<(), HostedGameError> {
        if self.game.is_some() {
            return Err(HostedGameError::Started);
        }
        let record = self
            .seats
            .get_mut(usize::from(seat))
            .ok_or(HostedGameError::NoSuchSeat)?;
        record.kind = SeatKind::Open;
        record.name = None;
        record.player = None;
        record.rating = None;
        record.generation += 1;
        Ok(())
    }

    /// Applies `action` for `seat`, then lets the bots play. Returns every event in order and
    /// the number of accepted actions (this one and the bots').
    ///
    /// # Errors
    /// [`HostedGameError::NotStarted`] while seats are open; the engine's refusal otherwise.
    pub fn apply(&mut self, seat: Seat, action: Action) -> Result<Applied, HostedGameError> {
        let mut applied = Applied::default();
        // A move of the player's own takes the seat back from the autopilot.
        if self
            .seats
            .get(seat.index())
            .is_some_and(|r| r.autopilot.is_some())
        {
            applied
                .events
                .push(Logged::Table(TableEvent::AutopilotOff { seat: seat.0 }));
        }
        self.step(seat, action.clone(), &mut applied)?;
        if action.is_suspension() {
            self.second_by_bots(&action, &mut applied);
        }
        // A move of the player's own: they are back.
        if let Some(record) = self.seats.get_mut(seat.index()) {
            record.timeouts = 0;
            record.autopilot = None;
        }
        self.run_bots(&mut applied, None);
        Ok(applied)
    }

    /// Plays the move a bot of `level` that thinks apart chose for `seat` (see
    /// [`HostedGame::bot_due`]), settled by the engine (`None`, or a move the game refuses, falls
    /// back to `normal`'s move, then the simplest), then lets the other bots play as after
    /// any change.
    ///
    /// # Errors
    /// [`HostedGameError::NotStarted`] when there is no game.
    pub fn play_bot(
        &mut self,
        seat: Seat,
        level: Level,
        chosen: Option<Action>,
    ) -> Result<Applied, HostedGameError> {
        self.game()?;
        // Its move is made: the next one waits for its own pace.
        self.bot_at = None;
        let mut applied = Applied::default();
        self.play_for_bot(seat, level, chosen, &mut applied);
        self.run_bots(&mut applied, None);
        Ok(applied)
    }

    /// Hands player `seat` to a bot of `level`, or takes it back with `None`; then the bots
    /// play, the seat's own bot among them. Nothing changes (no event, no action) when the
    /// seat is already so.
    ///
    /// # Errors
    /// [`HostedGameError::NotStarted`] before the deal, [`HostedGameError::NotAPlayer`] for a seat that
    /// is not a player's.
    pub fn set_autopilot(&mut self, seat: Seat, level: Option<Level>) -> Result<Applied, HostedGameError> {
        self.game()?;
        let record = self
            .seats
            .get_mut(seat.index())
            .filter(|r| r.kind == SeatKind::Player)
            .ok_or(HostedGameError::NotAPlayer)?;
        let mut applied = Applied::default();
        if record.autopilot == level {
            return Ok(applied);
        }
        record.autopilot = level;
        applied.actions = 1;
        applied.events.push(Logged::Table(match level {
            Some(level) => TableEvent::AutopilotOn { seat: seat.0, level },
            None => TableEvent::AutopilotOff { seat: seat.0 },
        }));
        self.run_bots(&mut applied, None);
        Ok(applied)
    }

    /// When the server must act next on this table, for the row's `deadline` (unix ms): at
    /// once (within `grace_ms` of `now`, by which any replica takes it up; the replica that
    /// wrote it starts at once) when a bot that thinks apart is in turn, `now` when the table
    /// is to be played out ([`HostedGame::play_out_due`]), else the turn's deadline.
    pub fn due_at(&self, now: i64, grace_ms: i64) -> Option<i64> {
        if self.play_out_due() {
            return Some(now);
        }
        match (self.bot_due(), self.deadline, self.bot_at) {
            (Some(_), _, _) => Some(now.saturating_add(grace_ms)),
            (None, Some(deadline), Some(at)) => Some(deadline.min(at)),
            (None, deadline, at) => deadline.or(at),
        }
    }

    /// Plays one action into `applied`: the engine's events, then `turn` and `game_finished`
    /// as they follow from it.
    pub(super) fn step(
        &mut self,
        seat: Seat,
        action: Action,
        applied: &mut Applied,
    ) -> Result<(), HostedGameError> {
        let game = self.game()?;
        let before = Mark::of(game);
        let (next, events) = game.apply(seat, action.clone())?;
        applied
            .steps
            .push((applied.events.len(), Step::Act { seat, action }));
        applied.events.extend(events.into_iter().map(Logged::Engine));
        applied.actions += 1;
        applied.mark(Some(before), &next);
        self.game = Some(next);
        Ok(())
    }

    /// The id of this finished game's rematch: the one already asked for, or `fresh()` made
    /// the rematch now (and `true` with it, for the caller to create it and log it).
    ///
    /// # Errors
    /// [`HostedGameError::TournamentGame`] for a tournament table's game;
    /// [`HostedGameError::NotFinished`] unless the game is finished.
    pub fn rematch_id(&mut self, fresh: impl FnOnce() -> Uuid) -> Result<(Uuid, bool), HostedGameError> {
        if self.tournament.is_some() {
            return Err(HostedGameError::TournamentGame);
        }
        let status = self.status();
        if status != GameStatus::Finished {
            return Err(HostedGameError::NotFinished(status.as_str()));
        }
        match self.rematch {
            Some(id) => Ok((id, false)),
            None => {
                let id = fresh();
                self.rematch = Some(id);
                Ok((id, true))
            }
        }
    }

    /// The next game at this table: the same rules, options and seats in the same order
    /// (bots with their level, each player's seat reserved for them under their name), dealt
    /// first as the variant passes the deal, from `seed`.
    ///
    /// # Errors
    /// [`HostedGameError::NotStarted`] for a game never dealt; the engine's setup errors.
    pub fn rematch(&self, seed: Seed) -> Result<HostedGame, HostedGameError> {
        let config = self.game()?.rematch_config();
        let seats = self
            .seats
            .iter()
            .map(|s| SeatRecord {
                reserved: s.kind == SeatKind::Player,
                ..SeatRecord::taken(s.kind, s.name.clone(), s.level, s.player.clone())
            })
            .collect();
        let mut next = HostedGame::new(config, seed, seats)?;
        next.set_clock(self.clock());
        next.rated = self.rated;
        Ok(next)
    }

    /// The player of the game before takes their reserved seat of this rematch: `true` if it
    /// was reserved until now, `false` if they had already asked. The finished game's token
    /// is good for the seat's first generation only: once its token is reissued (say, because
    /// it leaked) or the seat is given up, only the newer token opens it, here and in every
    /// later rematch.
    ///
    /// # Errors
    /// [`HostedGameError::NotReserved`] when the seat is no longer a player's (a studio gave it to
    /// a bot); [`HostedGameError::RematchSeatReissued`] past its first generation.
    pub fn take_reserved(&mut self, seat: u8) -> Result<bool, HostedGameError> {
        match self.seats.get_mut(usize::from(seat)) {
            Some(s) if s.kind == SeatKind::Player && s.generation != 0 => {
                Err(HostedGameError::RematchSeatReissued(seat))
            }
            Some(s) if s.kind == SeatKind::Player => Ok(std::mem::take(&mut s.reserved)),
            _ => Err(HostedGameError::NotReserved(seat)),
        }
    }

    /// The seat whose deadline runs, while a clock runs and someone is in turn.
    pub fn clocked_seat(&self) -> Option<Seat> {
        self.turn_seconds?;
        let game = self.game.as_ref()?;
        if game.status() != engine::Status::Playing {
            return None;
        }
        // A paced bot waits for the claim window, which may outlast a turn: it never times out;
        // nor does a table the server is to play out, due at once.
        if self.paced_seat().is_some() || self.play_out_due() {
            return None;
        }
        game.turn().map(|(s, _)| s)
    }

    /// The game's turn clock.
    pub fn clock(&self) -> TurnClock {
        TurnClock {
            turn_seconds: self.turn_seconds,
            bank_seconds: self.bank_seconds,
            autopilot_after_timeouts: self.autopilot_after_timeouts,
            claim_window_seconds: self.claim_window_seconds,
            bot_pace_ms: self.bot_pace_ms,
        }
    }

    /// Sets the game's turn clock (before the deal).
    pub fn set_clock(&mut self, clock: TurnClock) {
        self.turn_seconds = clock.turn_seconds;
        self.bank_seconds = clock.bank_seconds;
        self.autopilot_after_timeouts = clock.autopilot_after_timeouts;
        self.claim_window_seconds = clock.claim_window_seconds;
        self.bot_pace_ms = clock.bot_pace_ms;
    }

    /// The claim window in seconds: the option's, or the default.
    pub fn claim_window(&self) -> u32 {
        self.claim_window_seconds.unwrap_or(DEFAULT_CLAIM_WINDOW_SECONDS)
    }

    /// The bots' pace in milliseconds: the option's, or the default.
    pub fn bot_pace(&self) -> u32 {
        self.bot_pace_ms.unwrap_or(DEFAULT_BOT_PACE_MS)
    }

    /// The reserve `seat` has left, in thousandths of a clock second; `None` without one.
    pub fn reserve_left(&self, seat: Seat) -> Option<i64> {
        let whole = i64::from(self.bank_seconds?).saturating_mul(1000);
        let left = self.seats.get(seat.index()).and_then(|s| s.reserve_ms);
        Some(left.unwrap_or(whole))
    }

    /// Sets the deadline after a change made at `now` (unix ms): a fresh one when the turn
    /// passed (or none ran), none when no one is in turn; `second_ms` is how long a second
    /// lasts (1000 but in tests). A fresh deadline is the turn's `turn_seconds` and then its
    /// seat's reserve; the turn that ended (or stopped, when the game is suspended or over)
    /// first pays what it took past `turn_seconds` from its seat's reserve.
    pub fn rearm(&mut self, turn_passed: bool, now: i64, second_ms: i64) {
        let seat = self.clocked_seat();
        let fresh = seat.is_some() && (turn_passed || self.deadline.is_none());
        if fresh || seat.is_none() {
            self.charge_overrun(now, second_ms);
        }
        self.deadline = match (seat, self.turn_seconds) {
            (Some(seat), Some(secs)) if fresh => {
                self.running = Some(RunningTurn {
                    seat: seat.0,
                    since: now,
                });
                let reserve = self.reserve_left(seat).unwrap_or(0);
                let ms = i64::from(secs)
                    .saturating_mul(second_ms)
                    .saturating_add(reserve.saturating_mul(second_ms) / 1000);
                Some(now.saturating_add(ms))
            }
            (Some(_), Some(_)) => self.deadline,
            _ => None,
        };
        self.pace(turn_passed, now, second_ms);
    }

    /// At a person's table, sets when the server plays the seat in turn that it plays
    /// ([`HostedGame::bot_at`]): a pace after the change that gave it the move, so that a person
    /// sees each move, and not before the claim window ends. The window opens when the turn
    /// passes (a discard, or a new deal's upcard, is then on offer) if a person may claim the
    /// discard, and closes once none may. Closed by passes (every person who could claim passed,
    /// none asked), it ends at once: the bot moves a pace after the last pass.
    fn pace(&mut self, turn_passed: bool, now: i64, second_ms: i64) {
        if self.paced_seat().is_none() {
            self.claim_until = None;
            self.bot_at = None;
            return;
        }
        let pace = i64::from(self.bot_pace()).saturating_mul(second_ms) / 1000;
        let person_may_claim = self.person_may_claim();
        let mut passed = false;
        if turn_passed {
            let window = i64::from(self.claim_window()).saturating_mul(second_ms);
            self.claim_until = (window > 0 && person_may_claim).then(|| now.saturating_add(window));
        } else if !person_may_claim || self.claim_until.is_some_and(|until| until <= now) {
            passed = self.claim_until.is_some_and(|until| until > now) && !self.person_asked();
            self.claim_until = None;
        }
        let at = match self.bot_at {
            Some(at) if !turn_passed && !passed => at,
            _ => now.saturating_add(pace),
        };
        self.bot_at = Some(self.claim_until.map_or(at, |until| at.max(until)));
    }

    /// Whether a seat a person plays has a "May I?" waiting for the stock draw.
    fn person_asked(&self) -> bool {
        let Some(game) = &self.game else { return false };
        game.pending_claims().iter().any(|seat| {
            self.seats
                .get(seat.index())
                .is_some_and(|s| s.kind == SeatKind::Player && s.autopilot.is_none())
        })
    }

    /// Whether a seat a person plays (neither a bot nor on autopilot) may claim the discard.
    fn person_may_claim(&self) -> bool {
        let Some(game) = &self.game else { return false };
        self.seats.iter().enumerate().any(|(i, s)| {
            s.kind == SeatKind::Player
                && s.autopilot.is_none()
                && u8::try_from(i).is_ok_and(|i| game.may_claim(Seat(i)))
        })
    }

    /// Ends the running turn's clock at `now`: what it took past `turn_seconds` comes off its
    /// seat's reserve (down to none).
    fn charge_overrun(&mut self, now: i64, second_ms: i64) {
        let Some(RunningTurn { seat, since }) = self.running.take() else {
            return;
        };
        let (Some(turn), Some(left)) = (self.turn_seconds, self.reserve_left(Seat(seat))) else {
            return;
        };
        let over = now
            .saturating_sub(since)
            .saturating_sub(i64::from(turn).saturating_mul(second_ms));
        if over > 0
            && let Some(record) = self.seats.get_mut(usize::from(seat))
        {
            // Kept in thousandths of a clock second, whatever a second lasts.
            let over = over.saturating_mul(1000) / second_ms.max(1);
            record.reserve_ms = Some(left.saturating_sub(over).max(0));
        }
    }

    /// A studio ends the game before it is over: a `called_off` event with its reason, then
    /// the engine's void end (docs/rules.md#leaving). With `rated`, a rated game keeps the
    /// standings the engine gives a game called off, to be rated on as a finished game's
    /// (docs/ratings.md#rated-end).
    ///
    /// # Errors
    /// [`HostedGameError::NotStarted`] before the deal; the engine's `game_over` for a game
    /// over; with `rated`, [`HostedGameError::NotRated`] for an unrated game and
    /// [`HostedGameError::NoDealEnded`] before the first deal's end.
    pub fn call_off(&mut self, reason: String, rated: bool) -> Result<Applied, HostedGameError> {
        let game = self.game()?;
        let before = Mark::of(game);
        let (next, events) = game.call_off()?;
        let standings = match (rated, self.rated) {
            (false, _) => None,
            (true, false) => return Err(HostedGameError::NotRated),
            (true, true) => Some(game.called_off_standings().ok_or(HostedGameError::NoDealEnded)?),
        };
        let mut applied = Applied {
            steps: vec![(0, Step::CallOff)],
            ..Applied::default()
        };
        applied.events.push(Logged::Table(TableEvent::CalledOff {
            reason,
            rated,
            standings: standings.clone(),
        }));
        self.called_off_standings = standings;
        applied.events.extend(events.into_iter().map(Logged::Engine));
        applied.mark(Some(before), &next);
        self.game = Some(next);
        Ok(applied)
    }

    /// A studio puts a bot of `level` in `seat`: every token of the seat stops opening it (its
    /// generation moves on), and the bot plays from now on: at once if the seat is in turn or
    /// was the last the game waited for (dealt in `year`).
    ///
    /// # Errors
    /// [`HostedGameError::UnknownSeat`] past the last seat; the engine's `game_over` for a game over.
    pub fn seat_bot(&mut self, seat: u8, level: Level, year: i32) -> Result<Applied, HostedGameError> {
        if matches!(self.status(), GameStatus::Finished | GameStatus::Void) {
            return Err(ActionError::GameOver.into());
        }
        let record = self
            .seats
            .get_mut(usize::from(seat))
            .ok_or(HostedGameError::UnknownSeat(seat))?;
        record.kind = SeatKind::Bot;
        record.level = Some(level);
        // The bot is rated as its level from now on; the person it replaced no longer.
        record.player = None;
        record.rating = None;
        record.autopilot = None;
        record.reserved = false;
        record.timeouts = 0;
        record.generation += 1;
        record
            .name
            .get_or_insert_with(|| format!("Bot {}", u16::from(seat) + 1));
        let mut applied = Applied::default();
        applied
            .events
            .push(Logged::Table(TableEvent::BotSeated { seat, level }));
        if self.game.is_none() {
            let started = self.start_if_full(year)?;
            applied.append(started);
        } else {
            self.run_bots(&mut applied, None);
        }
        Ok(applied)
    }

    /// The seat in turn let its deadline pass: a `timed_out` event, then its turn played as the
    /// server's bot would play it (other bots' claims as usual), then the bots' turns after it.
    ///
    /// # Errors
    /// [`HostedGameError::NotStarted`] when there is no game; nothing happens (and `None` comes
    /// back) when no clocked seat is in turn.
    pub fn time_out(&mut self) -> Result<Option<Applied>, HostedGameError> {
        let Some(seat) = self.clocked_seat() else {
            return Ok(None);
        };
        let was_alone = self.bots_alone();
        let mut applied = Applied::default();
        applied
            .events
            .push(Logged::Table(TableEvent::TimedOut { seat: seat.0 }));
        let after = self.autopilot_after_timeouts;
        if let Some(record) = self.seats.get_mut(seat.index()) {
            record.timeouts += 1;
            // Absent that many turns in a row: a bot plays the seat until the player acts.
            if record.autopilot.is_none() && after.is_some_and(|n| record.timeouts >= n) {
                let level = Level::Normal;
                record.autopilot = Some(level);
                applied
                    .events
                    .push(Logged::Table(TableEvent::AutopilotOn { seat: seat.0, level }));
            }
        }
        // The last person's seat handed to a bot: nobody waits for the bots now, and their
        // whole game is played as a change of its own ([`HostedGame::play_out`]), which the
        // deadline pass bounds, not inside the timeout.
        if !was_alone && self.bots_alone() {
            return Ok(Some(applied));
        }
        self.stand_in(seat, &mut applied);
        self.run_bots(&mut applied, None);
        Ok(Some(applied))
    }

    /// The seat in turn let its deadline pass, and handing it to a bot would leave the table to
    /// bots alone where the server plays no more such tables now (an open server's limit,
    /// docs/operations.md#bots): a `timed_out` event, then the game called off with
    /// [`ABANDONED`] as its reason, unrated, so that no bot plays a game nobody is at.
    ///
    /// # Errors
    /// [`HostedGameError::NotStarted`] when there is no game; nothing happens (and `None` comes
    /// back) when no clocked seat is in turn.
    pub fn abandon(&mut self) -> Result<Option<Applied>, HostedGameError> {
        let Some(seat) = self.clocked_seat() else {
            return Ok(None);
        };
        if let Some(record) = self.seats.get_mut(seat.index()) {
            record.timeouts += 1;
        }
        let mut applied = Applied::table([Logged::Table(TableEvent::TimedOut { seat: seat.0 })]);
        applied.append(self.call_off(ABANDONED.to_owned(), false)?);
        Ok(Some(applied))
    }
}

#[cfg(test)]
impl HostedGame {
    /// A dealt two-seat `may_i` table: Ann at seat 0, a `hard` bot at seat 1, in turn.
    pub(crate) fn ann_and_a_hard_bot() -> HostedGame {
        use engine::{Ruleset, Variant};
        let seat =
            |kind, name: Option<&str>, level| SeatRecord::taken(kind, name.map(Into::into), level, None);
        let mut config = GameConfig::new(Ruleset::default_for(Variant::MayI), 2);
        config.first_dealer = Some(Seat(0));
        let seats = vec![
            seat(SeatKind::Player, Some("Ann"), None),
            seat(SeatKind::Bot, None, Some(Level::Hard)),
        ];
        let mut table = HostedGame::new(config, Seed::from_u64(3), seats).expect("a table");
        table.start_if_full(2026).expect("dealt");
        table
    }
}

#[cfg(test)]
mod tests {
    use engine::{Action, DrawSource, GameConfig, Ruleset, Seed, Variant};

    use super::*;

    /// A dealt two-player `may_i` table with 5 s turns and `bank` s of reserve, at `now`.
    fn clocked(bank: u32, now: i64) -> HostedGame {
        let players = |name: &str| SeatRecord::taken(SeatKind::Player, Some(name.into()), None, None);
        let config = GameConfig::new(Ruleset::default_for(Variant::MayI), 2);
        let mut table = HostedGame::new(config, Seed::from_u64(1), vec![players("Ann"), players("Bob")])
            .expect("a table");
        table.set_clock(TurnClock {
            turn_seconds: Some(5),
            bank_seconds: Some(bank),
            autopilot_after_timeouts: None,
            claim_window_seconds: None,
            bot_pace_ms: None,
        });
        let started = table.start_if_full(2026).expect("dealt");
        table.rearm(started.turn_passed, now, 1000);
        table
    }

    /// A dealt two-seat `may_i` table of Ann (seat 0, first to play) and a `normal` bot, with 5 s
    /// turns and a bot taking Ann's seat at her first timeout, at 0.
    fn ann_and_a_bot_on_the_clock() -> HostedGame {
        let mut config = GameConfig::new(Ruleset::default_for(Variant::MayI), 2);
        config.first_dealer = Some(Seat(1));
        let seats = vec![
            SeatRecord::taken(SeatKind::Player, Some("Ann".into()), None, None),
            SeatRecord::taken(SeatKind::Bot, None, Some(Level::Normal), None),
        ];
        let mut table = HostedGame::new(config, Seed::from_u64(3), seats).expect("a table");
        table.set_clock(TurnClock {
            turn_seconds: Some(5),
            autopilot_after_timeouts: Some(1),
            ..TurnClock::default()
        });
        let started = table.start_if_full(2026).expect("dealt");
        table.rearm(started.turn_passed, 0, 1000);
        assert_eq!(table.clocked_seat(), Some(Seat(0)), "Ann leads");
        table
    }

    #[test]
    fn the_last_persons_timeout_only_hands_the_seat_over_and_the_table_is_played_out_apart() {
        let mut table = ann_and_a_bot_on_the_clock();
        let applied = table.time_out().expect("timed out").expect("Ann in turn");
        let kinds: Vec<_> = applied.events.iter().map(|e| format!("{e:?}")).collect();
        assert_eq!(applied.actions, 0, "no move inside the timeout: {kinds:?}");
        assert_eq!(kinds.len(), 2, "timed_out, autopilot_on: {kinds:?}");
        assert!(table.bots_alone() && table.play_out_due());
        table.deadline = None;
        table.rearm(true, 5_000, 1000);
        assert_eq!(
            (table.clocked_seat(), table.deadline, table.due_at(5_000, 1000)),
            (None, None, Some(5_000)),
            "no clock on the bots: due at once, to be played out"
        );
        let played = table.play_out().expect("played out");
        assert!(played.actions > 0);
        assert_eq!(table.status(), GameStatus::Finished);
        assert!(!table.play_out_due());
    }

    #[test]
    fn an_abandoned_table_is_called_off_with_its_timeout_first() {
        let mut table = ann_and_a_bot_on_the_clock();
        let applied = table.abandon().expect("called off").expect("Ann in turn");
        assert!(matches!(
            applied.events.first(),
            Some(Logged::Table(TableEvent::TimedOut { seat: 0 }))
        ));
        assert!(matches!(
            applied.events.get(1),
            Some(Logged::Table(TableEvent::CalledOff { reason, rated: false, .. })) if reason == ABANDONED
        ));
        assert_eq!(table.status(), GameStatus::Void);
        assert_eq!(table.seats[0].autopilot, None, "nobody was handed the seat");
        assert_eq!(table.seats[0].timeouts, 1);
        assert_eq!(table.clocked_seat(), None);
    }

    /// Plays `seat`'s turn (draw, discard its first card) at `now`.
    fn play_turn(table: &mut HostedGame, now: i64) -> Seat {
        let seat = table.clocked_seat().expect("a seat in turn");
        let applied = table
            .apply(
                seat,
                Action::Draw {
                    source: DrawSource::Stock,
                },
            )
            .expect("draw");
        table.rearm(applied.turn_passed, now, 1000);
        let card = table.game().expect("a game").hand(seat)[0];
        let applied = table.apply(seat, Action::Discard { card }).expect("discard");
        table.rearm(applied.turn_passed, now, 1000);
        seat
    }

    #[test]
    fn a_turn_past_its_time_draws_on_its_seats_reserve_and_the_deadline_counts_it() {
        let mut table = clocked(60, 0);
        let first = table.clocked_seat().expect("in turn");
        assert_eq!(table.deadline, Some(65_000), "5 s and the whole reserve of 60 s");
        let seat = play_turn(&mut table, 8_500);
        assert_eq!(seat, first);
        assert_eq!(table.reserve_left(seat), Some(56_500), "3.5 s over its 5");
        let next = table.clocked_seat().expect("the next seat");
        assert_eq!(table.reserve_left(next), Some(60_000), "untouched");
        assert_eq!(
            table.deadline,
            Some(8_500 + 65_000),
            "its turn and its whole reserve"
        );
        let seat = play_turn(&mut table, 10_000);
        assert_eq!(
            table.reserve_left(seat),
            Some(60_000),
            "within its 5 s: no overrun"
        );
        assert_eq!(
            table.deadline,
            Some(10_000 + 5_000 + 56_500),
            "the first seat again, with what it has left"
        );
    }

    #[test]
    fn a_bot_in_turn_waits_for_its_pace_and_for_the_window_where_a_person_may_claim() {
        let seat = |kind| SeatRecord::taken(kind, None, None, None);
        let mut config = GameConfig::new(Ruleset::default_for(Variant::MayI), 3);
        // Seat 0 deals: bot 1 leads, and Ann (seat 0) may claim the upcard.
        config.first_dealer = Some(Seat(0));
        let seats = vec![seat(SeatKind::Player), seat(SeatKind::Bot), seat(SeatKind::Bot)];
        let mut table = HostedGame::new(config, Seed::from_u64(3), seats).expect("a table");
        table.set_clock(TurnClock {
            claim_window_seconds: Some(3),
            ..TurnClock::default()
        });
        let started = table.start_if_full(2026).expect("dealt");
        assert_eq!(
            table.game().expect("a game").turn(),
            Some((Seat(1), engine::Phase::Draw)),
            "bot 1 does not play in the change that dealt"
        );
        table.rearm(started.turn_passed, 10_000, 1000);
        assert_eq!(table.claim_until, Some(13_000), "the upcard on offer to Ann");
        assert_eq!(table.bot_at, Some(13_000), "bot 1 waits for the window");
        assert_eq!(table.due_at(10_000, 1000), Some(13_000));
        let played = table.play_paced().expect("bot 1 moves");
        assert_eq!(played.actions, 1, "one move: the draw");
        table.rearm(played.turn_passed, 13_000, 1000);
        assert_eq!(table.claim_until, None, "the window has passed");
        assert_eq!(table.bot_at, Some(13_400), "its next move a pace later");
        // Ann hands her seat to a bot: no person is left, and the bots play the game out.
        let applied = table
            .set_autopilot(Seat(0), Some(Level::Normal))
            .expect("autopilot");
        table.rearm(applied.turn_passed, 13_100, 1000);
        assert_eq!(table.status(), GameStatus::Finished);
        assert_eq!((table.bot_at, table.claim_until), (None, None));
    }

    #[test]
    fn a_timed_out_turn_spends_the_whole_reserve() {
        let mut table = clocked(10, 0);
        let seat = table.clocked_seat().expect("in turn");
        let due = table.deadline.expect("a deadline");
        table.time_out().expect("played").expect("a clocked seat");
        table.deadline = None;
        table.rearm(true, due, 1000);
        assert_eq!(table.reserve_left(seat), Some(0));
    }
}
