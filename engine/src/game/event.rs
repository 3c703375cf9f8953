//! What happened: the events `apply` returns, and how each viewer may see them.

use serde::{Deserialize, Serialize};

use super::{Seat, Standing, Viewer};
use crate::card::Card;
use crate::reading::{Reading, RunEnd};

/// How a deal ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum DealEnd {
    /// A player went out.
    WentOut {
        /// Who.
        seat: Seat,
    },
    /// A card had to come from an exhausted stock: every hand is scored (`continental`: no
    /// winner, no payments).
    StockExhausted,
}

/// A meld as laid on the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct LaidMeld {
    /// The table meld's id.
    pub id: u32,
    /// Its reading.
    pub reading: Reading,
}

/// Something that happened in the game. Private cards are `null` in another viewer's copy
/// (see [`Event::redacted_for`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The draw for the first dealer
    /// ([rules](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#dealer)):
    /// each round lists the cards the seats still in the draw turned; `push` picks a random seat
    /// and has no rounds.
    FirstDealer {
        /// Rounds of draws, each `(seat, card)`.
        #[cfg_attr(feature = "utoipa", schema(schema_with = crate::schema::dealer_rounds))]
        rounds: Vec<Vec<(Seat, Card)>>,
        /// The dealer chosen.
        dealer: Seat,
    },
    /// A deal began.
    DealStarted {
        /// 1-based deal number.
        deal: u8,
        /// The dealer.
        dealer: Seat,
        /// Cards dealt to each seat in the deal.
        hand_size: usize,
    },
    /// A seat's dealt hand (`null` cards for others).
    Dealt {
        /// The seat.
        seat: Seat,
        /// The cards, or `None` when hidden.
        cards: Option<Vec<Card>>,
    },
    /// `push`: a wild upcard was buried in the stock and another turned up.
    UpcardBuried {
        /// The buried wild.
        card: Card,
    },
    /// The upcard that starts the discard pile.
    Upcard {
        /// The card.
        card: Card,
        /// Cards left in the stock.
        stock_count: usize,
    },
    /// A seat drew a card.
    Drew {
        /// Who.
        seat: Seat,
        /// From where.
        source: super::DrawSource,
        /// The card (`null` for others when from the stock).
        card: Option<Card>,
    },
    /// `push`: the top discard and a face-down stock card went to the next player.
    Pushed {
        /// The pusher.
        from: Seat,
        /// The player on the left, who takes both.
        to: Seat,
        /// The top discard.
        discard: Card,
        /// The stock card (`null` except for the receiver).
        stock: Option<Card>,
    },
    /// A seat asked "May I?" before the stock draw.
    ClaimAsked {
        /// Who.
        seat: Seat,
    },
    /// A seat passed on the discard on offer: it will not claim it.
    Passed {
        /// Who.
        seat: Seat,
    },
    /// A claim was granted: the discard plus a penalty card from the stock.
    ClaimWon {
        /// Who.
        seat: Seat,
        /// The claimed discard.
        card: Card,
        /// The penalty card (`null` for others).
        penalty: Option<Card>,
    },
    /// A pending claim was refused.
    ClaimRefused {
        /// Who.
        seat: Seat,
        /// Why: `taken` (the player in turn took it), `outranked`, `stock_empty`, `gone`.
        reason: String,
    },
    /// Melds laid from hand (going down, later melds, or going out in `continental`).
    Melded {
        /// Who.
        seat: Seat,
        /// Whether this was the player's contract (going down).
        contract: bool,
        /// The melds as they lie.
        melds: Vec<LaidMeld>,
    },
    /// Cards laid off on a meld.
    LaidOff {
        /// Who.
        seat: Seat,
        /// The meld.
        meld_id: u32,
        /// The cards added.
        cards: Vec<Card>,
        /// The meld's new reading.
        reading: Reading,
    },
    /// A natural card replaced a wild; in `may_i`/`push` the wild came to hand.
    Swapped {
        /// Who.
        seat: Seat,
        /// The meld.
        meld_id: u32,
        /// The natural card played.
        card: Card,
        /// The wild taken to hand, if any (`contract_7` moves it within the run instead).
        freed: Option<Card>,
        /// The meld's new reading.
        reading: Reading,
    },
    /// `contract_7`: a joker moved from the end of one run to another.
    JokerMoved {
        /// Who.
        seat: Seat,
        /// The run it left.
        from_meld: u32,
        /// Which end it left.
        end: RunEnd,
        /// The run it joined.
        to_meld: u32,
        /// The first run's new reading.
        from_reading: Reading,
        /// The second run's new reading.
        to_reading: Reading,
    },
    /// `may_i`: this turn's table plays went back to hand.
    TookBack {
        /// Who.
        seat: Seat,
        /// The cards returned to hand.
        cards: Vec<Card>,
        /// Freed wilds that went back from hand to the table.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        to_table: Vec<Card>,
        /// The play taken back ([`super::Action::TakeBack`] with a `play`); absent when every play of the turn
        /// was.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        play: Option<u32>,
    },
    /// A discard, ending the turn.
    Discarded {
        /// Who.
        seat: Seat,
        /// The card.
        card: Card,
    },
    /// The stock ran out and the discard pile was turned over to become it.
    StockTurnedOver {
        /// Cards in the new stock.
        stock_count: usize,
    },
    /// A seat left the game.
    Left {
        /// Who.
        seat: Seat,
    },
    /// A seat asked to suspend the game, between deals
    /// ([suspending](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#suspension)).
    SuspendAsked {
        /// Who.
        seat: Seat,
    },
    /// Every seat still in the game asked: the game is suspended.
    Suspended,
    /// A seat asked to resume the suspended game.
    ResumeAsked {
        /// Who.
        seat: Seat,
    },
    /// Every seat still in the game asked: play goes on.
    Resumed,
    /// A deal ended and was scored.
    DealEnded {
        /// 1-based deal number.
        deal: u8,
        /// How.
        end: DealEnd,
        /// Cards left in each hand (empty for the player who went out and for leavers).
        hands: Vec<Vec<Card>>,
        /// Each seat's score for this deal.
        scores: Vec<i32>,
        /// Totals after this deal.
        totals: Vec<i32>,
    },
    /// The game ended; the seed is revealed so any client can replay every shuffle.
    GameEnded {
        /// Places.
        standings: Vec<Standing>,
        /// The seed, hex.
        seed: String,
    },
    /// The game ended void: fewer than two players finished.
    GameVoid {
        /// The seed, hex.
        seed: String,
    },
}

impl Event {
    /// The seat that acted or was acted on (a pushed card's giver), for filing and filtering
    /// events by seat; `None` for events of the whole table.
    pub fn seat(&self) -> Option<Seat> {
        match self {
            Event::Dealt { seat, .. }
            | Event::Drew { seat, .. }
            | Event::ClaimAsked { seat }
            | Event::Passed { seat }
            | Event::ClaimWon { seat, .. }
            | Event::ClaimRefused { seat, .. }
            | Event::Melded { seat, .. }
            | Event::LaidOff { seat, .. }
            | Event::Swapped { seat, .. }
            | Event::JokerMoved { seat, .. }
            | Event::TookBack { seat, .. }
            | Event::Discarded { seat, .. }
            | Event::Left { seat }
            | Event::SuspendAsked { seat }
            | Event::ResumeAsked { seat } => Some(*seat),
            Event::Pushed { from, .. } => Some(*from),
            Event::FirstDealer { .. }
            | Event::DealStarted { .. }
            | Event::UpcardBuried { .. }
            | Event::Upcard { .. }
            | Event::StockTurnedOver { .. }
            | Event::DealEnded { .. }
            | Event::GameEnded { .. }
            | Event::GameVoid { .. }
            | Event::Suspended
            | Event::Resumed => None,
        }
    }

    /// This event as `viewer` may see it: cards from the stock and dealt hands are hidden
    /// from everyone but their holder.
    pub fn redacted_for(&self, viewer: Viewer) -> Event {
        let sees = |seat: Seat| viewer == Viewer::Seat(seat);
        let mut e = self.clone();
        // Every event named: a new one does not compile until someone decides what each
        // viewer sees of it.
        match &mut e {
            Event::Dealt { seat, cards } => {
                if !sees(*seat) {
                    *cards = None;
                }
            }
            Event::Drew { seat, source, card } => {
                if *source == super::DrawSource::Stock && !sees(*seat) {
                    *card = None;
                }
            }
            Event::Pushed { to, stock, .. } => {
                if !sees(*to) {
                    *stock = None;
                }
            }
            Event::ClaimWon { seat, penalty, .. } => {
                if !sees(*seat) {
                    *penalty = None;
                }
            }
            // Public to every viewer: what they carry is on the table or in a discard pile.
            Event::FirstDealer { .. }
            | Event::DealStarted { .. }
            | Event::UpcardBuried { .. }
            | Event::Upcard { .. }
            | Event::ClaimAsked { .. }
            | Event::Passed { .. }
            | Event::ClaimRefused { .. }
            | Event::Melded { .. }
            | Event::LaidOff { .. }
            | Event::Swapped { .. }
            | Event::JokerMoved { .. }
            | Event::TookBack { .. }
            | Event::Discarded { .. }
            | Event::StockTurnedOver { .. }
            | Event::Left { .. }
            | Event::SuspendAsked { .. }
            | Event::Suspended
            | Event::ResumeAsked { .. }
            | Event::Resumed
            | Event::DealEnded { .. }
            | Event::GameEnded { .. }
            | Event::GameVoid { .. } => {}
        }
        e
    }
}
