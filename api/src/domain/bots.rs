//! The server's bots at a table: after every change the cheap ones play until a person, or a
//! bot that searches, must act; a bot that searches plays apart, one move at a time
//! (`service::bots`). The same bot stands in for a person whose turn timed out, and plays a
//! seat on autopilot. At a person's table the bot in turn plays one move at a time, each when
//! its pace and the claim window allow ([`HostedGame::bot_at`], played by `service::deadlines`).

use engine::bot::{BotMove, Level, Refused};
use engine::{Action, Game, LegalAction, Seat};

use super::hosted_game::{Applied, HostedGame, HostedGameError, SeatKind};

/// Most actions the bots may take after one request: a guard against a bot that never ends
/// its turn.
const BOT_STEP_LIMIT: usize = 5_000;

/// Whether a bot of `level` thinks apart from the requests: a search costs up to tens of
/// milliseconds a decision (docs/bots.md#cost), which no person's request may wait for.
pub fn thinks_apart(level: Level) -> bool {
    matches!(level, Level::Hard)
}

impl HostedGame {
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
            let Some((seat, level, settled)) = self.bot_move(game, stand_in, applied) else {
                break;
            };
            self.play_settled(seat, level, settled, applied);
        }
        applied.turn_passed |= turns_before;
    }

    /// Plays for bot `seat` (of `level`) what its level proposed, as the engine settles it
    /// ([`Game::settle_bot_move`]): the proposal if the game takes it, else `normal`'s move,
    /// else the simplest legal one. A bot's mistake never ends the game.
    pub(super) fn play_for_bot(
        &mut self,
        seat: Seat,
        level: Level,
        proposed: Option<Action>,
        applied: &mut Applied,
    ) {
        let Some(game) = &self.game else { return };
        let settled = game.settle_bot_move(seat, proposed);
        self.play_settled(seat, level, settled, applied);
    }

    /// Plays a settled bot move, logging and counting (in `applied`) a refused proposal. Only
    /// when the game takes nothing at all from the seat in its turn (never seen) does the bot
    /// leave rather than stall the table.
    fn play_settled(&mut self, seat: Seat, level: Level, settled: BotMove, applied: &mut Applied) {
        if let Some(refused) = &settled.refused {
            note_refused(seat, level, refused, applied);
        }
        let in_turn = self
            .game
            .as_ref()
            .and_then(Game::turn)
            .is_some_and(|(turn, _)| turn == seat);
        let played = match settled.action {
            Some(action) => self.step(seat, action, applied).is_ok(),
            None => !in_turn,
        };
        if !played {
            tracing::warn!(
                seat = seat.0,
                ?level,
                "the game takes no move from the bot in turn; the bot leaves"
            );
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
    /// person's table, not before its pace ([`HostedGame::bot_at`]).
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
    /// move of the bot in turn, unless it thinks apart. Both through the engine's
    /// [`Game::bot_move`], claims by `engine::bot::claim` at every level (a `hard` bot's too:
    /// cheap, docs/bots.md#claims), as the strength harness plays them. A refused claim is
    /// noted in `applied` and not asked.
    fn bot_move(
        &self,
        game: &Game,
        stand_in: Option<Seat>,
        applied: &mut Applied,
    ) -> Option<(Seat, Level, BotMove)> {
        if game.status() != engine::Status::Playing {
            return None;
        }
        let (turn, _) = game.turn()?;
        let bots = self.played_by_server(stand_in);
        for (seat, level) in bots.clone().filter(|(s, _)| *s != turn) {
            let settled = claim_of(game, seat, level);
            match (&settled.action, &settled.refused) {
                (Some(_), _) => return Some((seat, level, settled)),
                (None, Some(refused)) => note_refused(seat, level, refused, applied),
                (None, None) => {}
            }
        }
        let (seat, level) = bots.into_iter().find(|(s, _)| *s == turn)?;
        // At a person's table the bot in turn moves at its pace, not in this change; a
        // stand-in plays its whole turn at once.
        if thinks_apart(level) || (self.paces() && stand_in != Some(seat)) {
            return None;
        }
        Some((seat, level, game.bot_move(seat, level)))
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

    /// Plays the paced move that is due ([`HostedGame::bot_at`]): one move of the bot in turn, then
    /// the bots' claims as after any change. A bot that thinks apart is only made due
    /// ([`HostedGame::bot_due`]): its worker plays it.
    ///
    /// # Errors
    /// [`HostedGameError::NotStarted`] when there is no game.
    pub fn play_paced(&mut self) -> Result<Applied, HostedGameError> {
        self.bot_at = None;
        let game = self.game()?;
        let mut applied = Applied::default();
        if let Some((seat, level)) = self.paced_seat()
            && !thinks_apart(level)
        {
            let settled = game.bot_move(seat, level);
            self.play_settled(seat, level, settled, &mut applied);
        }
        self.run_bots(&mut applied, None);
        Ok(applied)
    }

    /// Whether the server is to play this table out: no person is left at it, and a bot that
    /// plays within a change (not one that thinks apart) is in turn. Only the timeout that
    /// handed the last person's seat to a bot leaves a table so ([`HostedGame::time_out`]):
    /// any other change lets such bots play on at once.
    pub fn play_out_due(&self) -> bool {
        let Some((turn, _)) = self.game.as_ref().and_then(Game::turn) else {
            return false;
        };
        self.bots_alone()
            && self
                .played_by_server(None)
                .any(|(seat, level)| seat == turn && !thinks_apart(level))
    }

    /// Plays the table out ([`HostedGame::play_out_due`]): the bots play until the game ends,
    /// or a bot that thinks apart is in turn.
    ///
    /// # Errors
    /// [`HostedGameError::NotStarted`] when there is no game.
    pub fn play_out(&mut self) -> Result<Applied, HostedGameError> {
        self.game()?;
        let mut applied = Applied::default();
        self.run_bots(&mut applied, None);
        Ok(applied)
    }
}

/// What bot `seat` of `level` does out of turn: its claim, by the engine's one claim path
/// ([`Game::bot_move`], which asks `engine::bot::claim`), settled.
pub(super) fn claim_of(game: &Game, seat: Seat, level: Level) -> BotMove {
    game.bot_move(seat, level)
}

/// Logs a bot's refused proposal and keeps it in `applied`, for the service to count
/// (`continental_bot_moves_refused_total`).
fn note_refused(seat: Seat, level: Level, refused: &Refused, applied: &mut Applied) {
    let instead: &'static str = refused.instead.into();
    match &refused.error {
        Some(error) => tracing::warn!(
            seat = seat.0, ?level, proposed = ?refused.proposed, %error, instead,
            "bot move refused; played instead"
        ),
        None => tracing::warn!(
            seat = seat.0,
            ?level,
            instead,
            "bot found no move in its turn; played instead"
        ),
    }
    applied.bots_refused.push(level);
}

#[cfg(test)]
mod tests {
    use engine::bot::{self, Level};
    use engine::{Action, GameConfig, Phase, Ruleset, Seat, Seed, Status, Variant};

    use super::*;

    #[test]
    fn a_refused_bot_move_falls_back_and_the_game_goes_on() {
        let mut table = HostedGame::ann_and_a_hard_bot();
        let game = table.game().expect("a game");
        assert_eq!(game.turn(), Some((Seat(1), Phase::Draw)), "the bot leads");
        // A discard before the draw: the game refuses it.
        let card = game.hand(Seat(1))[0];
        let applied = table
            .play_bot(Seat(1), Level::Hard, Some(Action::Discard { card }))
            .expect("played");
        assert_eq!(
            applied.bots_refused,
            vec![Level::Hard],
            "the refusal is kept to be counted"
        );
        let game = table.game().expect("a game");
        assert_eq!(game.status(), Status::Playing);
        assert!(game.is_active(Seat(1)), "the bot did not leave");
        assert_eq!(
            game.turn(),
            Some((Seat(1), Phase::Play)),
            "normal's move, a draw, stood in"
        );
        // No move at all in its turn: normal's again.
        let applied = table.play_bot(Seat(1), Level::Hard, None).expect("played");
        assert_eq!(applied.bots_refused, vec![Level::Hard]);
        assert!(applied.actions >= 1, "a move was played");
        let game = table.game().expect("a game");
        assert!(game.is_active(Seat(1)) && game.status() == Status::Playing);
    }

    #[test]
    fn the_service_asks_a_hard_bots_claim_of_the_engines_claim_path() {
        let config = GameConfig::new(Ruleset::default_for(Variant::MayI), 4);
        let (mut game, _) = Game::new(config, Seed::from_u64(21)).expect("setup");
        let mut claims = 0;
        for _ in 0..300 {
            if game.status() != Status::Playing {
                break;
            }
            let (turn, _) = game.turn().expect("playing");
            for seat in (0..4).map(Seat).filter(|s| *s != turn) {
                let engine = bot::claim(Level::Hard, &game.knowledge(seat), &mut game.bot_stream(seat));
                assert_eq!(claim_of(&game, seat, Level::Hard).action, engine, "seat {seat}");
                claims += usize::from(engine.is_some());
            }
            let action = game.bot_move(turn, Level::Normal).action.expect("a move in turn");
            game = game.apply(turn, action).expect("accepted").0;
        }
        assert!(claims > 0, "claims were asked ({claims})");
    }
}
