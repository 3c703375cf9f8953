//! The rules of Continental Rummy in four variants (`may_i`, `contract_7`, `continental`,
//! `push`), as a pure library: no I/O, no async, no clock.
//!
//! Cards are written as docs/rules.md#cards writes them. A submitted meld is a [`ProposedMeld`];
//! the only way to a [`Reading`] (a meld as it lies on the table) is [`analyse`], which checks
//! every rule of the variant and explains with stable [`ReasonCode`]s when the cards make no meld.
//!
//! ```
//! use engine::{Card, MeldKind, ProposedMeld, Ruleset, Variant, analyse, parse_cards};
//!
//! let rules = Ruleset::default_for(Variant::MayI);
//! // A joker fills the gap: 5H 6H JK 8H is a run with the joker as 7H.
//! let cards = parse_cards(&["8H", "JK", "5H", "6H"]).unwrap();
//! let analysis = analyse(&rules, &ProposedMeld::of(&cards));
//! assert_eq!(analysis.readings.len(), 1);
//! let run = &analysis.readings[0];
//! assert_eq!(run.kind(), MeldKind::Run);
//! assert_eq!(run.slots()[2].represents.to_string(), "7H");
//!
//! // Three wilds and one natural break may_i's wild limit.
//! let cards = parse_cards(&["5H", "JK", "JK", "AD"]).unwrap();
//! let analysis = analyse(&rules, &ProposedMeld::of(&cards));
//! assert!(!analysis.is_legal());
//! assert!(analysis.reasons.iter().any(|r| r.code == engine::ReasonCode::TooManyWilds));
//! ```
//!
//! The search finds melds in a hand: the contract of a deal, `continental`'s way out, and
//! lay-offs. What it returns is what [`analyse`] and [`check_contract`] accept.
//!
//! ```
//! use engine::{MeldKind, Ruleset, Variant, check_contract, find_contract, find_go_out, parse_cards};
//!
//! // may_i deal 2: one set and one run. The 7H is wanted by both; the 7S frees it.
//! let rules = Ruleset::default_for(Variant::MayI);
//! let hand = parse_cards(&["7C", "7D", "7H", "5H", "6H", "8H", "9S", "7S", "3C", "4D", "KD", "QC"]).unwrap();
//! let melds = find_contract(&rules, 2, &hand).expect("a set of sevens and 5H-8H");
//! assert!(check_contract(&rules, &rules.contract(2), &melds).is_ok());
//! assert!(melds.iter().any(|m| m.kind() == MeldKind::Run && m.len() == 4));
//!
//! // continental: 16 cards after the draw; lay down 15 in a pattern and discard the last.
//! let rules = Ruleset::default_for(Variant::Continental);
//! let names = "3C 4C 5C 6C 7C 8C 9C TC 4D 5D JK 7D 8D 9D TD KS";
//! let hand = parse_cards(&names.split(' ').collect::<Vec<_>>()).unwrap();
//! let out = find_go_out(&rules, &hand).expect("two long sequences, split");
//! assert_eq!(out.discard.map(|c| c.to_string()).as_deref(), Some("KS"));
//! assert_eq!(out.melds.iter().map(|m| m.len()).sum::<usize>(), 15);
//! ```
//!
//! A game is a [`Game`], changed only by [`Game::apply`]; [`Game::hints`] suggests what a
//! seat's hand allows, as actions `apply` accepts. Each variant's house options are declared
//! once and listed by [`Variant::house_options`]; how variants differ is asked of the
//! [`Ruleset`] (`goes_out_all_at_once`, `takes_back`, `wild_swap`, ...). With the feature
//! `utoipa` the wire types derive `ToSchema`; with `ceiling`, which only the engine's own
//! examples and tests turn on, the strength harness's `hard` that sees every card
//! (`Game::ceiling_move`, docs/bots.md#ceiling).

pub mod bot;
mod bounded;
mod card;
mod contract;
mod game;
mod hand;
mod options;
mod reading;
mod replay;
mod ruleset;
#[cfg(feature = "utoipa")]
mod schema;
mod search;
mod supply;
mod vocabulary;

pub use bounded::{MAX_CARDS, MAX_MELDS, MAX_WILDS, at_most};
pub use card::{Card, CardError, DISTINCT_CARDS, Rank, Suit, parse_cards};
pub use contract::{
    Contract, ContractCode, ContractReason, ContractView, GO_OUT_CARDS, GO_OUT_PATTERNS, Requirement,
    check as check_contract, check_proposed as check_proposed_contract,
};
pub use game::{
    Action, ActionError, ActionKind, Board, BySeat, ClaimsView, CorruptGame, DealEnd, DiscardView,
    DrawSource, Event, GAME_FORMAT, Game, GameConfig, Hints, LaidMeld, LastDeal, LayoffHint, LegalAction,
    MeldView, Phase, PlayerView, Repair, Seat, Seed, SetupError, Standing, Status, SwapHint, TableMeld,
    TurnPlayView, TurnView, View, Viewer, YouView, meld_with, wild_places,
};
pub use hand::{Arrangement, arrange};
pub use options::{
    ContinentalOptions, Contract7Options, HouseOption, MayIOptions, OptionKind, OptionValue, PushOptions,
};
pub use reading::{
    Analysis, Designation, MAX_RUN, MeldError, MeldKind, ProposedMeld, Reading, Reason, ReasonCode, RunEnd,
    Slot, Stands, SwapError, analyse, read,
};
pub use replay::{Replay, ReplayError, Step, replay, replay_record};
pub use ruleset::{
    ClaimLimits, FirstDealerDraw, RanklessSet, Restock, Ruleset, RulesetError, Scoring, Variant, WildLimit,
    WildSwap,
};
pub use search::{
    GoOut, Layoff, contract_shortfall, find_contract, find_go_out, find_layoffs, find_meld, go_out_shortfall,
};
