//! A game as the service stores it: the seats (who sits where, open seats, bots) around the
//! engine's [`Game`], which exists once every seat is taken. Pure: no I/O.

use engine::{Action, ActionError, Event, Game, GameConfig, Seat, Seed};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::dto::ReadingView;
use crate::error::{ApiError, Extensions, ProblemReason};

/// Who sits in a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
}

/// Everything stored about a game, as the `state` JSON of its row.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StoredGame {
    /// Rules, players and test-mode hooks.
    pub config: GameConfig,
    /// The shuffle seed, secret until the game ends.
    pub seed: Seed,
    /// The seats in order.
    pub seats: Vec<SeatRecord>,
    /// The engine's game, once every seat is taken.
    pub game: Option<Game>,
}

/// What a request changed in the engine: its events, and how many actions were accepted
/// (the request's own, if any, plus every bot move it set off), by which the version grows.
#[derive(Clone, Debug, Default)]
pub struct Applied {
    /// Every event, in order.
    pub events: Vec<Event>,
    /// Accepted actions.
    pub actions: i64,
}

/// Most actions the bots may take after one request: a guard against a bot that never ends
/// its turn.
const BOT_STEP_LIMIT: usize = 5_000;

impl StoredGame {
    /// Reads the `state` JSON of a row.
    ///
    /// # Errors
    /// An unexpected error if the stored JSON is not a game of this release.
    pub fn from_json(text: &str) -> Result<StoredGame, ApiError> {
        Ok(serde_json::from_str(text)?)
    }

    /// The `state` JSON.
    ///
    /// # Errors
    /// Never in practice: every field serialises.
    pub fn to_json(&self) -> Result<String, ApiError> {
        Ok(serde_json::to_string(self)?)
    }

    /// `waiting`, `playing`, `finished` or `void`.
    pub fn status(&self) -> &'static str {
        match &self.game {
            None => "waiting",
            Some(g) => match g.status() {
                engine::Status::Playing => "playing",
                engine::Status::Finished => "finished",
                engine::Status::Void => "void",
            },
        }
    }

    /// The seed commitment clients get when the game is created.
    pub fn seed_commitment(&self) -> String {
        Game::seed_commitment(&self.seed)
    }

    /// Deals when no seat is open any more, then lets the bots play. Returns the events and
    /// the bots' accepted actions (dealing is not an action).
    ///
    /// # Errors
    /// The engine's setup errors (bad player count, first dealer or stacked deck) as 400s.
    pub fn start_if_full(&mut self) -> Result<Applied, ApiError> {
        if self.game.is_some() || self.seats.iter().any(|s| s.kind == SeatKind::Open) {
            return Ok(Applied::default());
        }
        let (game, events) = Game::new(self.config.clone(), self.seed.clone())
            .map_err(|e| ApiError::bad_request(e.code(), e.to_string()))?;
        self.game = Some(game);
        let mut applied = Applied { events, actions: 0 };
        self.run_bots(&mut applied);
        Ok(applied)
    }

    /// The first open seat, given to `name`.
    ///
    /// # Errors
    /// 409 `no_open_seat` when every seat is taken.
    pub fn join(&mut self, name: String) -> Result<u8, ApiError> {
        let (i, seat) = self
            .seats
            .iter_mut()
            .enumerate()
            .find(|(_, s)| s.kind == SeatKind::Open)
            .ok_or_else(|| ApiError::conflict("no_open_seat", "every seat of this game is taken"))?;
        seat.kind = SeatKind::Player;
        seat.name = Some(name);
        u8::try_from(i).map_err(ApiError::unexpected)
    }

    /// Gives up `seat` before the game starts: it is open again, under a new generation.
    ///
    /// # Errors
    /// 409 `game_started` once the game has been dealt.
    pub fn vacate(&mut self, seat: u8) -> Result<(), ApiError> {
        if self.game.is_some() {
            return Err(ApiError::conflict("game_started", "the game has started"));
        }
        let record = self
            .seats
            .get_mut(usize::from(seat))
            .ok_or_else(|| ApiError::Forbidden("no such seat".into()))?;
        record.kind = SeatKind::Open;
        record.name = None;
        record.generation += 1;
        Ok(())
    }

    /// Applies `action` for `seat`, then lets the bots play. Returns every event in order and
    /// the number of accepted actions (this one and the bots').
    ///
    /// # Errors
    /// 409 `game_not_started` while seats are open; the engine's refusal otherwise.
    pub fn apply(&mut self, seat: Seat, action: Action) -> Result<Applied, ApiError> {
        let game = self.game.as_ref().ok_or_else(|| {
            ApiError::conflict("game_not_started", "the game starts when every seat is taken")
        })?;
        let (next, events) = game.apply(seat, action).map_err(action_error)?;
        self.game = Some(next);
        let mut applied = Applied { events, actions: 1 };
        self.run_bots(&mut applied);
        Ok(applied)
    }

    /// Lets the bot seats play (their turns, and "May I?" claims out of turn) until a person
    /// must act, counting each accepted bot action.
    fn run_bots(&mut self, applied: &mut Applied) {
        for _ in 0..BOT_STEP_LIMIT {
            let Some(game) = &self.game else { return };
            let Some((seat, action)) = self.bot_move(game) else {
                return;
            };
            match game.apply(seat, action.clone()) {
                Ok((next, more)) => {
                    applied.events.extend(more);
                    applied.actions += 1;
                    self.game = Some(next);
                }
                Err(e) => {
                    // The engine's bot only proposes accepted moves; should one be refused,
                    // the bot leaves rather than stall the table.
                    tracing::warn!(
                        seat = seat.0,
                        code = e.code(),
                        ?action,
                        "bot move refused; the bot leaves"
                    );
                    match game.apply(seat, Action::Leave) {
                        Ok((next, more)) => {
                            applied.events.extend(more);
                            applied.actions += 1;
                            self.game = Some(next);
                        }
                        Err(_) => return,
                    }
                }
            }
        }
    }

    /// A bot's claim out of turn first (it must come before the player in turn draws), else the
    /// move of the bot in turn.
    fn bot_move(&self, game: &Game) -> Option<(Seat, Action)> {
        if game.status() != engine::Status::Playing {
            return None;
        }
        let (turn, _) = game.turn()?;
        let bots = self
            .seats
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind == SeatKind::Bot)
            .filter_map(|(i, _)| u8::try_from(i).ok().map(Seat));
        for seat in bots.clone().filter(|s| *s != turn) {
            if let Some(claim @ Action::Claim) = engine::bot::choose(game, seat) {
                return Some((seat, claim));
            }
        }
        if bots.clone().any(|s| s == turn) {
            return engine::bot::choose(game, turn).map(|a| (turn, a));
        }
        None
    }
}

/// Maps the engine's refusal to a status: turn order and phase are conflicts with the game's
/// state (409); everything else is a well-formed move the rules refuse (422), with the
/// readings to choose from or the reasons as problem extension members where the engine
/// gives them (RULES.md §1).
pub fn action_error(e: ActionError) -> ApiError {
    let code = e.code();
    let detail = e.to_string();
    match e {
        ActionError::NotYourTurn
        | ActionError::WrongPhase(_)
        | ActionError::GameOver
        | ActionError::SeatLeft => ApiError::conflict(code, detail),
        ActionError::AmbiguousMeld { meld, readings } => ApiError::unprocessable_with(
            code,
            detail,
            Extensions {
                meld,
                readings: Some(readings.iter().map(ReadingView::from).collect()),
                reasons: None,
            },
        ),
        ActionError::IllegalMeld { meld, reasons } => ApiError::unprocessable_with(
            code,
            detail,
            Extensions {
                meld,
                readings: None,
                reasons: Some(reasons.iter().map(ProblemReason::from).collect()),
            },
        ),
        ActionError::ContractNotMet(reasons) => ApiError::unprocessable_with(
            code,
            detail,
            Extensions {
                meld: None,
                readings: None,
                reasons: Some(reasons.iter().map(ProblemReason::from).collect()),
            },
        ),
        _ => ApiError::unprocessable(code, detail),
    }
}

/// A fresh random seed.
pub fn random_seed() -> Seed {
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    Seed(bytes)
}

/// The `ETag` of a game version.
pub fn etag(version: i64) -> String {
    format!("\"{version}\"")
}

/// Game ids are random v4 UUIDs.
pub fn new_game_id() -> Uuid {
    Uuid::new_v4()
}
