//! The server's bots at a table: after every change the cheap ones play until a person, or a
//! bot that searches, must act; a bot that searches plays apart, one move at a time
//! (`service::bots`). The same bot stands in for a person whose turn timed out, and plays a
//! seat on autopilot. At a person's table the bot in turn plays one move at a time, each when
//! its pace and the claim window allow ([`Table::bot_at`], played by `service::deadlines`).

use engine::bot::Level;
use engine::{Action, Game, LegalAction, Seat};

use super::table::{Applied, SeatKind, Table, TableError};

/// Most actions the bots may take after one request: a guard against a bot that never ends
/// its turn.
const BOT_STEP_LIMIT: usize = 5_000;

/// Whether a bot of `level` thinks apart from the requests: a search costs up to tens of
/// milliseconds a decision (docs/bots.md#cost), which no person's request may wait for.
pub fn thinks_apart(level: Level) -> bool {
    matches!(level, Level::Hard)
}

/// The level at which a bot of `level` decides a claim out of turn: inline, in whichever
/// change offered the discard, because the claim must be asked before the player in turn
/// draws from the stock. A bot that searches weighs it as `normal` does.
fn claims_as(level: Level) -> Level {
    if thinks_apart(level) { Level::Normal } else { level }
}

impl Table {
    /// Lets the bot seats play (their turns, and "May I?" claims out of turn) until a person,
    /// or a bot that thinks apart, must act, counting each accepted bot action. With
    /// `stand_in`, that seat plays as a `normal` bot too, until its turn has passed.
    pub(super) fn run_bots(&mut self, applied: &mut Applied, stand_in: Option<Seat>) {
        let turns_before = applied.turn_passed;
        applied.turn_passed = false;
        for _ in 0..BOT_STEP_LIMIT {
            if stand_in.is_some() && applied.turn_passed {
                break;
            }
            let Some(game) = &self.game else { break };
            let Some((seat, action)) = self.bot_move(game, stand_in) else {
                break;
            };
            self.play_for_bot(seat, action, applied);
        }
        applied.turn_passed |= turns_before;
    }

    /// Plays `action` for bot `seat`. The engine's bot only proposes accepted moves; should
    /// one be refused, the bot leaves rather than stall the table.
    pub(super) fn play_for_bot(&mut self, seat: Seat, action: Action, applied: &mut Applied) {
        if let Err(e) = self.step(seat, action.clone(), applied) {
            tracing::warn!(seat = seat.0, error = %e, ?action, "bot move refused; the bot leaves");
            let _ = self.step(seat, Action::Leave {}, applied);
        }
    }

    /// Plays `seat`'s turn as the bot would, up to the point the turn passes to another seat
    /// (or the game ends).
    pub(super) fn stand_in(&mut self, seat: Seat, applied: &mut Applied) {
        self.run_bots(applied, Some(seat));
    }

    /// The bots go along with a person's request to suspend or resume (docs/rules.md#suspension
    /// asks every seat): each bot seat that may still ask makes the same request.
    pub(super) fn second_by_bots(&mut self, action: &Action, applied: &mut Applied) {
        let wanted = match action {
            Action::Suspend {} => LegalAction::Suspend,
            Action::Resume { .. } => LegalAction::Resume,
            _ => return,
        };
        let bots: Vec<Seat> = self
            .seats
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind == SeatKind::Bot)
            .filter_map(|(i, _)| u8::try_from(i).ok().map(Seat))
            .collect();
        for seat in bots {
            let Some(game) = &self.game else { return };
            if !game.legal_actions(seat).contains(&wanted) {
                continue;
            }
            // A refusal leaves the game as it was; the bot simply does not second.
            let _ = self.step(seat, action.clone(), applied);
        }
    }

    /// Each seat the server plays now, with its level: bots, seats on autopilot, and the
    /// stand-in of a timed-out seat (`normal`).
    fn played_by_server(&self, stand_in: Option<Seat>) -> impl Iterator<Item = (Seat, Level)> + Clone + '_ {
        self.seats.iter().enumerate().filter_map(move |(i, s)| {
            let seat = Seat(u8::try_from(i).ok()?);
            let level = match Some(seat) == stand_in {
                true => Level::Normal,
                false => s.plays_as()?,
            };
            Some((seat, level))
        })
    }

    /// The seat in turn and its level, when a bot that thinks apart must play it now: the
    /// server then plays it after the change that brought the turn to it is committed. At a
    /// person's table, not before its pace ([`Table::bot_at`]).
    pub fn bot_due(&self) -> Option<(Seat, Level)> {
        if self.bot_at.is_some() {
            return None;
        }
        let game = self.game.as_ref()?;
        if game.status() != engine::Status::Playing {
            return None;
        }
        let (turn, _) = game.turn()?;
        self.played_by_server(None)
            .find(|&(seat, level)| seat == turn && thinks_apart(level))
    }

    /// A bot's claim out of turn first (it must come before the player in turn draws), else the
    /// move of the bot in turn, unless it thinks apart.
    fn bot_move(&self, game: &Game, stand_in: Option<Seat>) -> Option<(Seat, Action)> {
        if game.status() != engine::Status::Playing {
            return None;
        }
        let (turn, _) = game.turn()?;
        let bots = self.played_by_server(stand_in);
        for (seat, level) in bots.clone().filter(|(s, _)| *s != turn) {
            if let Some(claim @ Action::Claim {}) = game.bot_choice(seat, claims_as(level)) {
                return Some((seat, claim));
            }
        }
        let (seat, level) = bots.into_iter().find(|(s, _)| *s == turn)?;
        // At a person's table the bot in turn moves at its pace, not in this change; a
        // stand-in plays its whole turn at once.
        if thinks_apart(level) || (self.paces() && stand_in != Some(seat)) {
            return None;
        }
        game.bot_choice(seat, level).map(|a| (seat, a))
    }

    /// Whether a person (a player's seat not on autopilot, still in the game) sits at this
    /// table: then the bots play at a pace a person can follow, and wait for the claim window.
    pub fn paces(&self) -> bool {
        self.seats.iter().enumerate().any(|(i, s)| {
            s.kind == SeatKind::Player
                && s.autopilot.is_none()
                && self
                    .game
                    .as_ref()
                    .is_none_or(|game| u8::try_from(i).is_ok_and(|i| game.is_active(Seat(i))))
        })
    }

    /// At a person's table, the seat in turn and its level when the server plays it.
    pub fn paced_seat(&self) -> Option<(Seat, Level)> {
        let game = self.game.as_ref()?;
        if game.status() != engine::Status::Playing || !self.paces() {
            return None;
        }
        let (turn, _) = game.turn()?;
        self.played_by_server(None).find(|&(seat, _)| seat == turn)
    }

    /// Plays the paced move that is due ([`Table::bot_at`]): one move of the bot in turn, then
    /// the bots' claims as after any change. A bot that thinks apart is only made due
    /// ([`Table::bot_due`]): its worker plays it.
    ///
    /// # Errors
    /// [`TableError::NotStarted`] when there is no game.
    pub fn play_paced(&mut self) -> Result<Applied, TableError> {
        self.bot_at = None;
        let game = self.game()?;
        let mut applied = Applied::default();
        if let Some((seat, level)) = self.paced_seat()
            && !thinks_apart(level)
        {
            // The bot's level always has a move in turn; should it not, it leaves rather than
            // stall the table.
            let action = game
                .bot_choice(seat, level)
                .or_else(|| game.bot_choice(seat, Level::Normal))
                .unwrap_or(Action::Leave {});
            self.play_for_bot(seat, action, &mut applied);
        }
        self.run_bots(&mut applied, None);
        Ok(applied)
    }
}
