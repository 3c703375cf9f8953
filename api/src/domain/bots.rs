//! The server's bots at a table: after every request they play until a person must act. The
//! same bot stands in for a person whose turn timed out.

use engine::{Action, Game, LegalAction, Seat};

use super::table::{Applied, SeatKind, Table};

/// Most actions the bots may take after one request: a guard against a bot that never ends
/// its turn.
const BOT_STEP_LIMIT: usize = 5_000;

impl Table {
    /// Lets the bot seats play (their turns, and "May I?" claims out of turn) until a person
    /// must act, counting each accepted bot action. With `stand_in`, that seat plays as a bot
    /// too, until its turn has passed.
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
            if let Err(e) = self.step(seat, action.clone(), applied) {
                // The engine's bot only proposes accepted moves; should one be refused,
                // the bot leaves rather than stall the table.
                tracing::warn!(seat = seat.0, error = %e, ?action, "bot move refused; the bot leaves");
                if self.step(seat, Action::Leave {}, applied).is_err() {
                    break;
                }
            }
        }
        applied.turn_passed |= turns_before;
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

    /// A bot's claim out of turn first (it must come before the player in turn draws), else the
    /// move of the bot in turn.
    fn bot_move(&self, game: &Game, stand_in: Option<Seat>) -> Option<(Seat, Action)> {
        if game.status() != engine::Status::Playing {
            return None;
        }
        let (turn, _) = game.turn()?;
        let bots = self
            .seats
            .iter()
            .enumerate()
            .filter_map(|(i, s)| u8::try_from(i).ok().map(|i| (Seat(i), s.kind)))
            .filter(|(seat, kind)| *kind == SeatKind::Bot || Some(*seat) == stand_in)
            .map(|(seat, _)| seat);
        for seat in bots.clone().filter(|s| *s != turn) {
            if let Some(claim @ Action::Claim {}) = engine::bot::choose(game, seat) {
                return Some((seat, claim));
            }
        }
        if bots.clone().any(|s| s == turn) {
            return engine::bot::choose(game, turn).map(|a| (turn, a));
        }
        None
    }
}
