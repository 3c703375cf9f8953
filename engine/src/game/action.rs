//! What a seat may ask of the game ([`Action`]) and why it may be refused ([`ActionError`]).

use serde::{Deserialize, Serialize};
use strum::IntoEnumIterator;

use crate::bounded::{MAX_CARDS, MAX_MELDS, MAX_WILDS, at_most};
use crate::card::Card;
use crate::contract::ContractReason;
use crate::reading::{Designation, ProposedMeld, Reading, Reason, RunEnd, SwapError};

/// Where a drawn card comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum DrawSource {
    /// The top of the stock (in `push`, with a discard to push: the push draw).
    Stock,
    /// The top of the discard pile.
    Discard,
}

/// Everything a seat can do: the one closed set of moves (a turn and each variant's own:
/// [rules](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#turn)).
///
/// In JSON each action is an object whose `type` names it: `{"type": "take_back"}` takes back
/// the whole turn and `{"type": "take_back", "play": 2}` one play of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, strum::EnumDiscriminants)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[strum_discriminants(
    name(ActionKind),
    derive(
        Hash,
        PartialOrd,
        Ord,
        strum::EnumIter,
        strum::EnumCount,
        strum::IntoStaticStr,
        strum::Display
    ),
    strum(serialize_all = "snake_case"),
    doc = "A kind of [`Action`], named as the API writes its `type` (`draw`, `claim`, `layoff`, ...): \
           what metrics' series, the move endpoints and the legal actions are keyed by."
)]
pub enum Action {
    /// Draw one card (`push`: from the stock with a discard on the pile, the push draw).
    Draw {
        /// Stock or discard pile.
        source: DrawSource,
    },
    /// "May I?": ask for the top discard out of turn (`may_i`, `contract_7`).
    Claim {},
    /// "No, go on": say you will not claim the discard on offer (`may_i`, `contract_7`), which
    /// then stays yours to refuse until the next discard. It changes nothing else; at a table
    /// with bots, once every person who could claim has claimed or passed, the bot in turn
    /// plays on without waiting out the claim window
    /// ([claims](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#claims)).
    Pass {},
    /// Lay new melds: going down with the contract, later melds (`push`), or going out all at
    /// once (`continental`).
    Meld {
        /// The melds, laid at once.
        #[serde(deserialize_with = "at_most::<MAX_MELDS, _, _>")]
        #[cfg_attr(feature = "utoipa", schema(max_items = 6))]
        melds: Vec<ProposedMeld>,
    },
    /// Add cards from hand to a meld on the table.
    #[serde(rename = "layoff")]
    #[strum_discriminants(strum(serialize = "layoff"))]
    LayOff {
        /// The table meld's id.
        #[cfg_attr(feature = "utoipa", schema(value_type = u64, maximum = 4294967295_i64))]
        meld_id: u32,
        /// The cards to add.
        #[serde(deserialize_with = "at_most::<MAX_CARDS, _, _>")]
        #[cfg_attr(feature = "utoipa", schema(max_items = 40))]
        cards: Vec<Card>,
        /// What the added wilds represent, when more than one place fits.
        #[serde(
            default,
            skip_serializing_if = "Vec::is_empty",
            deserialize_with = "at_most::<MAX_WILDS, _, _>"
        )]
        #[cfg_attr(feature = "utoipa", schema(max_items = 20))]
        wilds: Vec<Designation>,
    },
    /// Replace a wild in a meld by the natural card it represents (`may_i` runs, `push` any
    /// meld: the wild comes to hand and must be played this turn); in `contract_7` the joker
    /// moves to `end` of the same run instead.
    Swap {
        /// The table meld's id.
        meld_id: u32,
        /// The natural card from hand.
        card: Card,
        /// `contract_7`: the end of the run the joker goes to (needed when both are free).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        end: Option<RunEnd>,
    },
    /// `contract_7`: move the joker at an end of a run you dropped to another run.
    MoveJoker {
        /// The run the joker leaves (yours).
        from_meld: u32,
        /// Which end of it the joker is at.
        end: RunEnd,
        /// The run it goes to (anyone's).
        to_meld: u32,
        /// Which end of that run it goes to (needed when both are free).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to_end: Option<RunEnd>,
    },
    /// `may_i`: without `play`, pick up every card played to the table this turn (going down
    /// comes back whole). With `play`, take back that one of this turn's table plays
    /// (0-based, in the order they were made; the view's `you.plays` lists them), leaving
    /// the table as if it had never been made. Going down comes back whole, with every play
    /// made after it this turn (they all needed it). Any other play is refused
    /// (`take_back_blocked`) while a later play of the turn depends on it: take that one back
    /// first.
    TakeBack {
        /// Which play of this turn; absent for all of them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "utoipa", schema(value_type = Option<u64>, maximum = 4294967295_i64))]
        play: Option<u32>,
    },
    /// Discard one card, ending the turn.
    Discard {
        /// The card.
        card: Card,
    },
    /// Leave the game for good
    /// ([leaving](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#leaving)).
    Leave {},
    /// `may_i`, between deals: ask to suspend the game
    /// ([suspending](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#suspension)).
    /// When every seat still in the game has asked, the game is suspended.
    Suspend {},
    /// Ask to resume a suspended game; when every seat still in the game has asked, play goes
    /// on. `year` is the calendar year (UTC) now, from the caller's clock: a game resumes only
    /// within the year it started in ([`super::GameConfig::start_year`]).
    Resume {
        /// The calendar year (UTC) of the request.
        year: i32,
    },
}

impl Action {
    /// The action's kind, whose name is its `type` in JSON.
    pub fn kind(&self) -> ActionKind {
        ActionKind::from(self)
    }

    /// Whether the action plays the deal: neither about suspending the game nor a pass, which
    /// changes nothing of the deal (so a bot decides the same after it, docs/bots.md#randomness).
    pub fn plays_the_deal(&self) -> bool {
        !self.is_suspension() && !matches!(self, Action::Pass {})
    }

    /// Whether the action is about suspending the game rather than playing the deal.
    pub fn is_suspension(&self) -> bool {
        matches!(self, Action::Suspend {} | Action::Resume { .. })
    }
}

/// Why an action was refused. The game is left exactly as it was.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, strum::EnumDiscriminants)]
#[strum_discriminants(
    name(ActionCode),
    vis(pub(crate)),
    derive(strum::EnumIter, strum::IntoStaticStr),
    strum(serialize_all = "snake_case")
)]
pub enum ActionError {
    /// The game is over (finished or void).
    #[error("the game is over")]
    GameOver,
    /// No such seat at this table.
    #[error("there is no seat {0} in this game")]
    UnknownSeat(u8),
    /// The seat has left the game.
    #[error("this seat has left the game")]
    SeatLeft,
    /// Only the player in turn may do this.
    #[error("it is not your turn")]
    NotYourTurn,
    /// Not at this point of the turn.
    #[error("not now: {0}")]
    WrongPhase(&'static str),
    /// Some cards of the action are not in the player's hand.
    #[error("not in your hand: {}", list(.0))]
    CardNotInHand(Vec<Card>),
    /// The discard pile is empty.
    #[error("the discard pile is empty")]
    DiscardEmpty,
    /// The discard pile is dead after a claim, until the next discard.
    #[error("the discard pile is dead after a claim until the next discard")]
    DiscardDead,
    /// A claim that the rules do not allow now.
    #[error("you may not claim now: {0}")]
    ClaimNotAllowed(&'static str),
    /// The variant has no such action.
    #[error("{0}")]
    NotInVariant(&'static str),
    /// One of the submitted melds is not legal.
    #[error("meld {} is not legal: {}", .meld.map_or(1, |m| m + 1), reasons_text(.reasons))]
    IllegalMeld {
        /// Index of the meld in the request, if several.
        meld: Option<usize>,
        /// Why not.
        reasons: Vec<Reason>,
    },
    /// A meld can be read several ways: the request must fix its kind or wilds.
    #[error("the cards can be read {} ways: fix the kind or what each wild represents", .readings.len())]
    AmbiguousMeld {
        /// Index of the meld in the request, if several.
        meld: Option<usize>,
        /// The readings to choose from.
        readings: Vec<Reading>,
    },
    /// The melds do not fulfil the deal's contract.
    #[error("contract not met: {}", .0.iter().map(|r| r.message.as_str()).collect::<Vec<_>>().join("; "))]
    ContractNotMet(Vec<ContractReason>),
    /// Laying off (or swapping) before going down.
    #[error("you must go down with the contract first")]
    NotDown,
    /// A new meld after going down, where the variant forbids it.
    #[error("after going down you may not start new melds this deal")]
    AlreadyDown,
    /// No meld with that id on the table.
    #[error("there is no meld {0} on the table")]
    UnknownMeld(u32),
    /// A meld that is not the player's own, where that matters.
    #[error("meld {0} is not yours")]
    NotYourMeld(u32),
    /// A wild cannot be replaced or moved like that.
    #[error("{0}")]
    #[strum_discriminants(strum(disabled))]
    Swap(SwapError),
    /// The freed wild is still in hand: it must go to the table this turn.
    #[error("the freed wild {0} must be played on the table before the turn ends")]
    FreedWildInHand(Card),
    /// `contract_7`: the last card must be discarded, not melded or laid off.
    #[error("your last card must be discarded: you may not meld or lay it off")]
    FinalDiscardRequired,
    /// Nothing was played to the table this turn.
    #[error("nothing played this turn to take back")]
    NothingToTakeBack,
    /// No such play this turn.
    #[error("there is no play {0} this turn to take back")]
    UnknownPlay(u32),
    /// A later play of this turn depends on the one to take back.
    #[error("play {later} of this turn depends on play {play}: take it back first")]
    TakeBackBlocked {
        /// The play asked for.
        play: u32,
        /// The first later play that could not be made without it.
        later: u32,
    },
    /// The action holds no cards.
    #[error("the action names no cards")]
    NoCards,
    /// The game is suspended: only `resume` is accepted.
    #[error("the game is suspended: only resume is accepted")]
    #[strum_discriminants(strum(serialize = "game_suspended"))]
    Suspended,
    /// Suspending is asked only between deals (before anyone acts in the new deal).
    #[error("a game is suspended only between deals, not in the middle of one")]
    NotBetweenDeals,
    /// The seat has already asked this.
    #[error("this seat has already asked to {0}")]
    AlreadyAsked(&'static str),
    /// Resuming a game that is not suspended.
    #[error("the game is not suspended")]
    NotSuspended,
    /// The calendar year (UTC) in which the game started is over.
    #[error("a game resumes only within the calendar year it started in ({started}), not in {year}")]
    SuspensionExpired {
        /// The year the game started.
        started: i32,
        /// The year of the request.
        year: i32,
    },
}

impl ActionError {
    /// Stable machine-readable code: its variant's name in snake case, unless renamed; a
    /// swap's is its [`SwapError`]'s.
    pub fn code(&self) -> &'static str {
        match self {
            ActionError::Swap(e) => e.code(),
            other => ActionCode::from(other).into(),
        }
    }

    /// Every code an action error can have.
    pub fn codes() -> impl Iterator<Item = &'static str> {
        ActionCode::iter().map(<&str>::from).chain(SwapError::codes())
    }
}

fn list(cards: &[Card]) -> String {
    cards.iter().map(Card::to_string).collect::<Vec<_>>().join(" ")
}

fn reasons_text(reasons: &[Reason]) -> String {
    reasons
        .iter()
        .map(|r| r.message.as_str())
        .collect::<Vec<_>>()
        .join("; ")
}

impl ActionKind {
    /// The kind's name, its actions' `type` in JSON.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An action of `kind`: the match is exhaustive, so a new kind has its sample.
    fn sample(kind: ActionKind) -> Action {
        let card = Card::JOKER;
        match kind {
            ActionKind::Draw => Action::Draw {
                source: DrawSource::Stock,
            },
            ActionKind::Claim => Action::Claim {},
            ActionKind::Pass => Action::Pass {},
            ActionKind::Meld => Action::Meld { melds: Vec::new() },
            ActionKind::LayOff => Action::LayOff {
                meld_id: 1,
                cards: vec![card],
                wilds: Vec::new(),
            },
            ActionKind::Swap => Action::Swap {
                meld_id: 1,
                card,
                end: None,
            },
            ActionKind::MoveJoker => Action::MoveJoker {
                from_meld: 1,
                end: RunEnd::Low,
                to_meld: 2,
                to_end: None,
            },
            ActionKind::TakeBack => Action::TakeBack { play: None },
            ActionKind::Discard => Action::Discard { card },
            ActionKind::Leave => Action::Leave {},
            ActionKind::Suspend => Action::Suspend {},
            ActionKind::Resume => Action::Resume { year: 2026 },
        }
    }

    #[test]
    fn a_kinds_name_is_its_actions_type_in_json() {
        for kind in ActionKind::iter() {
            let action = sample(kind);
            assert_eq!(action.kind(), kind);
            let json = serde_json::to_value(&action).expect("json");
            assert_eq!(json["type"], kind.name(), "{json}");
            assert_eq!(kind.to_string(), kind.name());
        }
    }

    #[test]
    fn every_code_an_action_error_can_have_is_listed_once() {
        let codes: Vec<&str> = ActionError::codes().collect();
        let samples = [
            ActionError::GameOver,
            ActionError::Suspended,
            ActionError::TakeBackBlocked { play: 1, later: 2 },
            ActionError::Swap(SwapError::NotAllowed("no")),
            ActionError::Swap(SwapError::RunTooShort),
        ];
        for e in &samples {
            assert!(codes.contains(&e.code()), "{}", e.code());
        }
        assert_eq!(
            samples.map(|e| e.code()),
            [
                "game_over",
                "game_suspended",
                "take_back_blocked",
                "swap_not_allowed",
                "run_too_short"
            ]
        );
        // A swap's kind is no code of its own: its swap error's are.
        assert!(!codes.contains(&"swap"), "{codes:?}");
        let mut distinct = codes.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), codes.len(), "{codes:?}");
    }
}
