//! What the heuristics read of a game, from one seat: [`SeatView`]. A bot's decision reads its
//! seat's [`Knowledge`]; `hard`'s playouts read the games it samples from that knowledge
//! ([`Sample`]), where `normal` plays every seat. Nothing here reaches a real game: a bot is
//! handed a `Knowledge`, and the only games it can hold are the ones it samples.

use crate::card::Card;
use crate::game::{Action, Game, Hints, Knowledge, LegalAction, Phase, Seat, Status, TableMeld};
use crate::ruleset::Ruleset;

/// A game as one seat reads it: its own hand and what the whole table saw.
pub(super) trait SeatView {
    /// What an accepted action leaves behind: nothing from a seat's knowledge, the next game
    /// from a sample (the playouts go on from it).
    type After;

    /// The seat deciding.
    fn seat(&self) -> Seat;
    /// Variant and options.
    fn rules(&self) -> &Ruleset;
    /// Number of seats.
    fn players(&self) -> usize;
    /// Playing, suspended, finished or void.
    fn status(&self) -> Status;
    /// The deal being played (1-based).
    fn deal(&self) -> u8;
    /// Whose turn it is and in which phase.
    fn turn(&self) -> Option<(Seat, Phase)>;
    /// Whether `seat` is still in the game.
    fn is_active(&self, seat: Seat) -> bool;
    /// Whether `seat` has gone down this deal.
    fn is_down(&self, seat: Seat) -> bool;
    /// The deciding seat's hand.
    fn hand(&self) -> &[Card];
    /// The melds on the table.
    fn table(&self) -> &[TableMeld];
    /// The discard pile, bottom first.
    fn discard_pile(&self) -> &[Card];
    /// The card the next draw from the stock takes, when every seat knows it (the stock is
    /// the turned-over pile).
    fn next_stock_card(&self) -> Option<Card>;
    /// Freed wilds the player in turn must still play.
    fn must_play(&self) -> &[Card];
    /// Claims won by each seat this deal.
    fn claims_won(&self) -> &[u32];
    /// The cards `seat` is publicly known to hold.
    fn known(&self, seat: Seat) -> &[Card];
    /// What the deciding seat may do now.
    fn legal_actions(&self) -> Vec<LegalAction>;
    /// What the deciding seat's hand allows now: [`Hints`], whose lay-offs may stop at the
    /// first (the one `normal` plays).
    fn hints(&self) -> Hints;
    /// `action` by the deciding seat, if the game takes it, and what it leaves behind.
    fn try_apply(&self, action: &Action) -> Option<Self::After>;
}

impl SeatView for Knowledge {
    type After = ();

    fn seat(&self) -> Seat {
        Knowledge::seat(self)
    }
    fn rules(&self) -> &Ruleset {
        Knowledge::rules(self)
    }
    fn players(&self) -> usize {
        Knowledge::players(self)
    }
    fn status(&self) -> Status {
        Knowledge::status(self)
    }
    fn deal(&self) -> u8 {
        Knowledge::deal(self)
    }
    fn turn(&self) -> Option<(Seat, Phase)> {
        Knowledge::turn(self)
    }
    fn is_active(&self, seat: Seat) -> bool {
        Knowledge::is_active(self, seat)
    }
    fn is_down(&self, seat: Seat) -> bool {
        Knowledge::is_down(self, seat)
    }
    fn hand(&self) -> &[Card] {
        Knowledge::hand(self)
    }
    fn table(&self) -> &[TableMeld] {
        Knowledge::table(self)
    }
    fn discard_pile(&self) -> &[Card] {
        Knowledge::discard_pile(self)
    }
    fn next_stock_card(&self) -> Option<Card> {
        Knowledge::next_stock_card(self)
    }
    fn must_play(&self) -> &[Card] {
        Knowledge::must_play(self)
    }
    fn claims_won(&self) -> &[u32] {
        Knowledge::claims_won(self)
    }
    fn known(&self, seat: Seat) -> &[Card] {
        Knowledge::known(self, seat)
    }
    fn legal_actions(&self) -> Vec<LegalAction> {
        Knowledge::legal_actions(self)
    }
    fn hints(&self) -> Hints {
        Knowledge::hints(self)
    }
    fn try_apply(&self, action: &Action) -> Option<()> {
        self.accepts(action).then_some(())
    }
}

/// A game `hard` sampled from its knowledge ([`Knowledge::determinize`]), read from `seat`.
#[derive(Clone, Copy)]
pub(super) struct Sample<'a> {
    pub(super) game: &'a Game,
    pub(super) seat: Seat,
}

impl SeatView for Sample<'_> {
    type After = Game;

    fn seat(&self) -> Seat {
        self.seat
    }
    fn rules(&self) -> &Ruleset {
        self.game.rules()
    }
    fn players(&self) -> usize {
        self.game.players()
    }
    fn status(&self) -> Status {
        self.game.status()
    }
    fn deal(&self) -> u8 {
        self.game.deal()
    }
    fn turn(&self) -> Option<(Seat, Phase)> {
        self.game.turn()
    }
    fn is_active(&self, seat: Seat) -> bool {
        self.game.is_active(seat)
    }
    fn is_down(&self, seat: Seat) -> bool {
        self.game.is_down(seat)
    }
    fn hand(&self) -> &[Card] {
        self.game.hand(self.seat)
    }
    fn table(&self) -> &[TableMeld] {
        self.game.table()
    }
    fn discard_pile(&self) -> &[Card] {
        self.game.discard_pile()
    }
    fn next_stock_card(&self) -> Option<Card> {
        self.game.public_stock().last().copied()
    }
    fn must_play(&self) -> &[Card] {
        self.game.must_play()
    }
    fn claims_won(&self) -> &[u32] {
        self.game.claims_won()
    }
    fn known(&self, seat: Seat) -> &[Card] {
        self.game.known_cards(seat)
    }
    fn legal_actions(&self) -> Vec<LegalAction> {
        self.game.legal_actions(self.seat)
    }
    fn hints(&self) -> Hints {
        self.game.hints_up_to(self.seat, 1)
    }
    fn try_apply(&self, action: &Action) -> Option<Game> {
        self.game
            .apply(self.seat, action.clone())
            .ok()
            .map(|(next, _)| next)
    }
}
