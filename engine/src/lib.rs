//! The rules of Continental Rummy in four variants (`may_i`, `contract_7`, `continental`,
//! `push`), as a pure library: no I/O, no async, no clock.
//!
//! Cards are written as RULES.md §1 writes them. A submitted meld is a [`ProposedMeld`]; the
//! only way to a [`Reading`] (a meld as it lies on the table) is [`analyse`], which checks
//! every rule of the variant and explains with stable [`ReasonCode`]s when the cards make no
//! meld.
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

mod card;
mod contract;
mod game;
mod reading;
mod replay;
mod ruleset;

pub use card::{Card, CardError, DISTINCT_CARDS, Rank, Suit, parse_cards};
pub use contract::{
    Contract, ContractCode, ContractReason, GO_OUT_CARDS, GO_OUT_PATTERNS, Requirement,
    check as check_contract, check_proposed as check_proposed_contract,
};
pub use game::{
    Action, ActionError, ClaimsView, DealEnd, DiscardView, DrawSource, Event, GAME_FORMAT, Game, GameConfig,
    LaidMeld, LegalAction, MeldView, Phase, PlayerView, Seat, Seed, SetupError, Standing, Status, TableMeld,
    TurnView, View, Viewer, YouView, pinned, wild_places,
};
pub use reading::{
    Analysis, Designation, MAX_RUN, MeldError, MeldKind, ProposedMeld, Reading, Reason, ReasonCode, RunEnd,
    Slot, Stands, SwapError, analyse, read,
};
pub use replay::{ReplayError, replay};
pub use ruleset::{
    ContinentalOptions, Contract7Options, MayIOptions, PushOptions, Ruleset, RulesetError, Variant, WildLimit,
};
