//! A game as the service stores it: the seats (who sits where, open seats, bots) around the
//! engine's [`Game`], which exists once every seat is taken.

use engine::{Action, ActionError, Game, GameConfig, Seat, Seed, SetupError};
use serde::{Deserialize, Serialize};

use super::GameStatus;
use super::events::{Logged, TableEvent};

/// Fewest and most seconds a turn may be given (`options.turn_seconds`).
pub const TURN_SECONDS: std::ops::RangeInclusive<u32> = 5..=604_800;

/// Why the table refuses a request. Mapped to a status in `error.rs`.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
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
    /// The stored state is not a table of this release, or holds what the rules could not
    /// have made (the engine's check as a game loads).
    #[error("stored game {game} does not load: {cause}")]
    Corrupt {
        /// The game's id.
        game: uuid::Uuid,
        /// What failed.
        cause: String,
    },
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
}

/// Everything stored about a game, as the `state` JSON of its row.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Table {
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
    /// When the seat in turn times out (unix milliseconds), while a clock runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<i64>,
}

/// What a request changed in the engine: its events, and how many actions were accepted
/// (the request's own, if any, plus every bot move it set off), by which the version grows.
#[derive(Clone, Debug, Default)]
pub struct Applied {
    /// Every event, in order: the engine's, with the table's `turn` and `game_finished`.
    pub events: Vec<Logged>,
    /// Accepted actions.
    pub actions: i64,
    /// Whether the turn passed (or a deal began): the next turn's clock starts.
    pub turn_passed: bool,
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

impl Table {
    /// A table for `seats`, after checking that the engine accepts the setup: a bad stacked
    /// deck is the creator's error, not the last joiner's, even if the deal waits for open seats.
    ///
    /// # Errors
    /// The engine's setup errors.
    pub fn new(config: GameConfig, seed: Seed, mut seats: Vec<SeatRecord>) -> Result<Table, TableError> {
        Game::new(config.clone(), seed.clone())?;
        for (i, s) in seats.iter_mut().enumerate() {
            if s.kind == SeatKind::Bot && s.name.is_none() {
                s.name = Some(format!("Bot {}", i + 1));
            }
        }
        Ok(Table {
            config,
            seed,
            seats,
            game: None,
            turn_seconds: None,
            deadline: None,
        })
    }

    /// Reads the `state` JSON of game `id`'s row: the engine checks its game as it loads.
    ///
    /// # Errors
    /// [`TableError::Corrupt`] if the stored JSON is not a game of this release, or holds what
    /// the rules could not have made.
    pub fn load(id: uuid::Uuid, text: &str) -> Result<Table, TableError> {
        let corrupt = |cause: String| TableError::Corrupt { game: id, cause };
        let table: Table = serde_json::from_str(text).map_err(|e| corrupt(e.to_string()))?;
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
    pub fn to_json(&self) -> Result<String, TableError> {
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

    /// The seed commitment clients get when the game is created.
    pub fn seed_commitment(&self) -> String {
        Game::seed_commitment(&self.seed)
    }

    /// The engine's game.
    ///
    /// # Errors
    /// [`TableError::NotStarted`] while seats are open.
    pub fn game(&self) -> Result<&Game, TableError> {
        self.game.as_ref().ok_or(TableError::NotStarted)
    }

    /// Checks that a token for `seat` issued at `generation` still opens a player's seat.
    ///
    /// # Errors
    /// [`TableError::TokenReplaced`] for a token of an earlier generation,
    /// [`TableError::NotAPlayer`] for a seat that is not a player's.
    pub fn check_player(&self, seat: u8, generation: u32) -> Result<(), TableError> {
        match self.seats.get(usize::from(seat)) {
            Some(s) if s.generation != generation => Err(TableError::TokenReplaced),
            Some(s) if s.kind == SeatKind::Player => Ok(()),
            _ => Err(TableError::NotAPlayer),
        }
    }

    /// Starts a new generation of a player's seat, for a fresh token: every token issued
    /// before stops opening it. Returns the new generation.
    ///
    /// # Errors
    /// [`TableError::UnknownSeat`] past the last seat, [`TableError::NoToken`] for an open
    /// seat or a bot's.
    pub fn reissue(&mut self, seat: u8) -> Result<u32, TableError> {
        let record = self
            .seats
            .get_mut(usize::from(seat))
            .ok_or(TableError::UnknownSeat(seat))?;
        if record.kind != SeatKind::Player {
            return Err(TableError::NoToken {
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
    pub fn start_if_full(&mut self, year: i32) -> Result<Applied, TableError> {
        if self.game.is_some() || self.seats.iter().any(|s| s.kind == SeatKind::Open) {
            return Ok(Applied::default());
        }
        self.config.start_year = Some(year);
        let (game, events) = Game::new(self.config.clone(), self.seed.clone())?;
        let mut applied = Applied {
            events: events.into_iter().map(Logged::Engine).collect(),
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
    /// [`TableError::NoOpenSeat`] when every seat is taken.
    pub fn join(&mut self, name: String) -> Result<u8, TableError> {
        let (i, seat) = self
            .seats
            .iter_mut()
            .enumerate()
            .find(|(_, s)| s.kind == SeatKind::Open)
            .ok_or(TableError::NoOpenSeat)?;
        seat.kind = SeatKind::Player;
        seat.name = Some(name);
        u8::try_from(i).map_err(|_| TableError::NoSuchSeat)
    }

    /// Gives up `seat` before the game starts: it is open again, under a new generation.
    ///
    /// # Errors
    /// [`TableError::Started`] once the game has been dealt.
    pub fn vacate(&mut self, seat: u8) -> Result<(), TableError> {
        if self.game.is_some() {
            return Err(TableError::Started);
        }
        let record = self
            .seats
            .get_mut(usize::from(seat))
            .ok_or(TableError::NoSuchSeat)?;
        record.kind = SeatKind::Open;
        record.name = None;
        record.generation += 1;
        Ok(())
    }

    /// Applies `action` for `seat`, then lets the bots play. Returns every event in order and
    /// the number of accepted actions (this one and the bots').
    ///
    /// # Errors
    /// [`TableError::NotStarted`] while seats are open; the engine's refusal otherwise.
    pub fn apply(&mut self, seat: Seat, action: Action) -> Result<Applied, TableError> {
        let mut applied = Applied::default();
        self.step(seat, action.clone(), &mut applied)?;
        if action.is_suspension() {
            self.second_by_bots(&action, &mut applied);
        }
        // A move of the player's own: they are back.
        if let Some(record) = self.seats.get_mut(seat.index()) {
            record.timeouts = 0;
        }
        self.run_bots(&mut applied, None);
        Ok(applied)
    }

    /// Plays one action into `applied`: the engine's events, then `turn` and `game_finished`
    /// as they follow from it.
    pub(super) fn step(
        &mut self,
        seat: Seat,
        action: Action,
        applied: &mut Applied,
    ) -> Result<(), TableError> {
        let game = self.game()?;
        let before = Mark::of(game);
        let (next, events) = game.apply(seat, action)?;
        applied.events.extend(events.into_iter().map(Logged::Engine));
        applied.actions += 1;
        applied.mark(Some(before), &next);
        self.game = Some(next);
        Ok(())
    }

    /// The seat whose deadline runs, while a clock runs and someone is in turn.
    pub fn clocked_seat(&self) -> Option<Seat> {
        self.turn_seconds?;
        let game = self.game.as_ref()?;
        if game.status() != engine::Status::Playing {
            return None;
        }
        game.turn().map(|(s, _)| s)
    }

    /// Sets the deadline after a change made at `now` (unix ms): a fresh one when the turn
    /// passed (or none ran), none when no one is in turn; `second_ms` is how long a second
    /// lasts (1000 but in tests).
    pub fn rearm(&mut self, turn_passed: bool, now: i64, second_ms: i64) {
        self.deadline = match (self.clocked_seat(), self.turn_seconds) {
            (Some(_), Some(secs)) if turn_passed || self.deadline.is_none() => {
                Some(now.saturating_add(i64::from(secs).saturating_mul(second_ms)))
            }
            (Some(_), Some(_)) => self.deadline,
            _ => None,
        };
    }

    /// The seat in turn let its deadline pass: a `timed_out` event, then its turn played as the
    /// server's bot would play it (other bots' claims as usual), then the bots' turns after it.
    ///
    /// # Errors
    /// [`TableError::NotStarted`] when there is no game; nothing happens (and `None` comes
    /// back) when no clocked seat is in turn.
    pub fn time_out(&mut self) -> Result<Option<Applied>, TableError> {
        let Some(seat) = self.clocked_seat() else {
            return Ok(None);
        };
        let mut applied = Applied::default();
        applied
            .events
            .push(Logged::Table(TableEvent::TimedOut { seat: seat.0 }));
        if let Some(record) = self.seats.get_mut(seat.index()) {
            record.timeouts += 1;
        }
        self.stand_in(seat, &mut applied);
        self.run_bots(&mut applied, None);
        Ok(Some(applied))
    }
}
