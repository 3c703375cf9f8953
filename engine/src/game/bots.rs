//! A bot at a game: its seat's knowledge and the bots' stream handed to its level
//! ([`crate::bot`]), which sees nothing else; and what is played when the game refuses what a
//! level proposed, so that a bot's mistake never ends a game (docs/bots.md#fallback).

use super::{Action, ActionError, DrawSource, Game, LegalAction, Seat, Status};
use crate::bot::Level;

/// What a bot plays now, as the game takes it ([`Game::settle_bot_move`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotMove {
    /// The action to play, one the game accepts; `None` when the bot has nothing to do (out of
    /// turn, no claim) or, in its turn, when no action at all was accepted.
    pub action: Option<Action>,
    /// Set when the level's own proposal is not what is played.
    pub refused: Option<Refused>,
}

/// A bot's proposal the game did not take, and what was played instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// What the level proposed: `None` when it found no move in its turn.
    pub proposed: Option<Action>,
    /// Why the game refused the proposal (`None` when there was none).
    pub error: Option<ActionError>,
    /// What stands in for it.
    pub instead: Instead,
}

/// What stands in for a refused proposal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Instead {
    /// `normal`'s move.
    Normal,
    /// The simplest legal move: a draw (the stock first), a discard (the first card the game
    /// takes), taking the turn back.
    Simplest,
    /// Nothing: out of turn a refused claim is simply not asked; in turn, nothing at all was
    /// accepted (never seen: the caller decides what the seat does then).
    Nothing,
}

impl Game {
    /// What a bot of `level` in `seat` proposes now: [`Level::choose`] given `seat`'s
    /// [`knowledge`](Game::knowledge) and its [`bot_stream`](Game::bot_stream), nothing else.
    pub fn bot_choice(&self, seat: Seat, level: Level) -> Option<Action> {
        level.choose(&self.knowledge(seat), &mut self.bot_stream(seat))
    }

    /// What a bot of `level` in `seat` plays now: its level's proposal
    /// ([`Game::bot_choice`]), settled by [`Game::settle_bot_move`]. The one entry point of
    /// the service's bots (their turns, their claims, the stand-in of a timed-out seat) and of
    /// the strength harness.
    pub fn bot_move(&self, seat: Seat, level: Level) -> BotMove {
        self.settle_bot_move(seat, self.bot_choice(seat, level))
    }

    /// The strength harness's ceiling in `seat` (docs/bots.md#ceiling): `hard`'s search on
    /// the true deal ([`crate::bot::ceiling`]), settled as any bot's move is. Only with the
    /// `ceiling` feature, which the service's engine does not have.
    #[cfg(feature = "ceiling")]
    pub fn ceiling_move(&self, seat: Seat) -> BotMove {
        let choice = crate::bot::ceiling(
            &self.knowledge(seat),
            &mut self.bot_stream(seat),
            &self.true_deal(),
            true,
        );
        self.settle_bot_move(seat, choice)
    }

    /// What a bot in `seat` plays now, `proposed` being what its level chose: the proposal when
    /// the game accepts it; else, in the seat's turn, `normal`'s move, then the simplest legal
    /// move (a refusal, or no move at all, never makes the bot leave); out of turn, nothing.
    /// What was refused is said in [`BotMove::refused`], for the caller to log and count.
    pub fn settle_bot_move(&self, seat: Seat, proposed: Option<Action>) -> BotMove {
        let error = match &proposed {
            Some(action) => match self.apply(seat, action.clone()) {
                Ok(_) => {
                    return BotMove {
                        action: proposed,
                        refused: None,
                    };
                }
                Err(e) => Some(e),
            },
            None => None,
        };
        let in_turn = self.status() == Status::Playing && self.turn().is_some_and(|(turn, _)| turn == seat);
        if !in_turn {
            // Out of turn a bot only ever claims, and not claiming is always allowed.
            return BotMove {
                action: None,
                refused: error.map(|error| Refused {
                    proposed,
                    error: Some(error),
                    instead: Instead::Nothing,
                }),
            };
        }
        let accepted = |a: &Action| Some(a) != proposed.as_ref() && self.apply(seat, a.clone()).is_ok();
        let (action, instead) = match self.bot_choice(seat, Level::Normal).filter(accepted) {
            Some(normal) => (Some(normal), Instead::Normal),
            None => match self.simplest_moves(seat).into_iter().find(accepted) {
                Some(simplest) => (Some(simplest), Instead::Simplest),
                None => (None, Instead::Nothing),
            },
        };
        BotMove {
            action,
            refused: Some(Refused {
                proposed,
                error,
                instead,
            }),
        }
    }

    /// The simplest moves for `seat` in its turn, in order: draw from the stock, then from the
    /// discard pile; discard each card it may discard; take the whole turn back.
    fn simplest_moves(&self, seat: Seat) -> Vec<Action> {
        let mut out = Vec::new();
        for legal in self.legal_actions(seat) {
            match legal {
                LegalAction::Draw { source } => out.push(Action::Draw { source }),
                LegalAction::Discard { cards } => {
                    out.extend(cards.into_iter().map(|card| Action::Discard { card }))
                }
                LegalAction::TakeBack => out.push(Action::TakeBack { play: None }),
                _ => {}
            }
        }
        // The stock first, whatever the order listed.
        out.sort_by_key(|a| {
            !matches!(
                a,
                Action::Draw {
                    source: DrawSource::Stock
                }
            )
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(feature = "ceiling")]
    use crate::bot::Level;
    use crate::game::{GameConfig, Seed};
    use crate::ruleset::{Ruleset, Variant};

    #[test]
    fn the_last_fallback_always_has_a_move_in_turn() {
        for variant in Variant::ALL {
            let config = GameConfig::new(Ruleset::default_for(variant), 4);
            let (mut game, _) = Game::new(config, Seed::from_u64(4)).expect("setup");
            let mut moves = 0;
            // A table that plays nothing but the simplest moves plays on, deal after deal.
            while game.status() == Status::Playing && moves < 2_000 {
                let (turn, _) = game.turn().expect("playing");
                let simplest = game
                    .simplest_moves(turn)
                    .into_iter()
                    .find(|a| game.apply(turn, a.clone()).is_ok())
                    .unwrap_or_else(|| panic!("{variant} move {moves}: a simplest move in turn"));
                game = game.apply(turn, simplest).expect("accepted").0;
                moves += 1;
            }
            assert!(moves > 100, "{variant}: the table played ({moves} moves)");
        }
    }

    /// Games of `normal` bots, every variant, heads-up and at four, stopped after every
    /// `every`-th move until `moves`: the positions the ceiling's tests look at.
    #[cfg(feature = "ceiling")]
    fn positions(every: usize, moves: usize) -> Vec<Game> {
        let mut out = Vec::new();
        for variant in Variant::ALL {
            for players in [2, 4] {
                let config = GameConfig::new(Ruleset::default_for(variant), players);
                let Ok((mut game, _)) = Game::new(config, Seed::from_u64(7)) else {
                    continue;
                };
                for k in 1..=moves {
                    let Some((turn, _)) = game.turn() else { break };
                    let action = game.bot_move(turn, Level::Normal).action.expect("in turn");
                    game = game.apply(turn, action).expect("accepted").0;
                    if k % every == 0 {
                        out.push(game.clone());
                    }
                }
            }
        }
        out
    }

    #[cfg(feature = "ceiling")]
    #[test]
    fn the_ceilings_deal_is_the_true_deal_and_agrees_with_what_each_seat_knows() {
        let positions = positions(7, 120);
        assert!(positions.len() > 40, "{} positions", positions.len());
        for game in positions {
            let truth = game.true_deal();
            assert_eq!(truth.hands, game.hands, "every hand as dealt and drawn");
            assert_eq!(truth.set_aside, game.set_aside);
            assert_eq!(truth.stock, game.stock, "the stock in its order");
            assert_eq!(truth.discard, game.discard);
            assert_ne!(truth.seed, game.seed, "no later deal is the real one");
            for i in 0..game.players() {
                let seat = Game::seat_of(i);
                // A deal the seat could be in: what it sees of it is what it sees of the game.
                assert_eq!(truth.knowledge(seat), game.knowledge(seat));
            }
        }
    }

    #[cfg(feature = "ceiling")]
    #[test]
    fn the_ceilings_one_playout_a_round_chooses_as_its_whole_budget() {
        let mut searched = 0;
        for game in positions(5, 60) {
            let Some((turn, _)) = game.turn() else { continue };
            let knowledge = game.knowledge(turn);
            let truth = game.true_deal();
            let choose = |exact| crate::bot::ceiling(&knowledge, &mut game.bot_stream(turn), &truth, exact);
            let full = choose(false);
            assert_eq!(choose(true), full, "{:?} seat {turn:?}", game.rules().variant());
            searched += usize::from(full.is_some());
        }
        assert!(searched > 20, "{searched} decisions");
    }
}
