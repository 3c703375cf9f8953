//! A game in play: state that changes only through legal actions (docs/rules.md, §1 to §5).
//!
//! [`Game::apply`] takes `&self` and returns a new game with the events the action caused, or
//! an [`ActionError`]; the game it was called on never changes.

mod action;
mod bots;
mod check;
mod deal;
mod event;
mod hints;
mod knowledge;
mod play;
mod score;
mod seats;
mod view;

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use strum::IntoEnumIterator;

pub use action::{Action, ActionError, ActionKind, DrawSource};
pub use bots::{BotMove, Instead, Refused};
pub use event::{DealEnd, Event, LaidMeld};
pub use hints::{Hints, LayoffHint, SwapHint};
pub use knowledge::{BotRng, Knowledge};
pub use play::{meld_with, wild_places};
pub use seats::BySeat;
pub use view::{
    Board, ClaimsView, DiscardView, LastDeal, LegalAction, MeldView, PlayerView, TurnPlayView, TurnView,
    View, YouView,
};

use crate::card::Card;
use crate::reading::Reading;
use crate::ruleset::{Ruleset, RulesetError, Variant};

/// The current layout of [`Game`]'s serialised form. A later release that changes the layout
/// bumps it and keeps reading every earlier one.
pub const GAME_FORMAT: u32 = 1;

/// A place at the table, 0-based; play passes to seat + 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct Seat(pub u8);

impl Seat {
    /// The seat as an index into per-seat tables.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The 32-byte ChaCha20 seed of a game, secret until the game ends. Serialised as hex;
/// `Debug` does not print it.
#[derive(Clone, PartialEq, Eq)]
pub struct Seed(pub [u8; 32]);

impl Seed {
    /// A seed from a small integer (test mode: `"seed": 42`), little-endian in the first bytes.
    pub fn from_u64(n: u64) -> Seed {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&n.to_le_bytes());
        Seed(bytes)
    }

    /// Lower-case hex of the 32 bytes.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// Parses 64 hex digits.
    ///
    /// # Errors
    /// A message when the text is not 64 hex digits.
    pub fn from_hex(s: &str) -> Result<Seed, String> {
        let mut out = [0u8; 32];
        hex::decode_to_slice(s, &mut out).map_err(|_| "a seed is 64 hex digits".to_owned())?;
        Ok(Seed(out))
    }
}

impl fmt::Debug for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Seed(..)")
    }
}

impl Serialize for Seed {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Seed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Seed::from_hex(&s).map_err(serde::de::Error::custom)
    }
}

/// Who is looking at the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Viewer {
    /// A player, who sees their own hand.
    Seat(Seat),
    /// Someone with no hand.
    Spectator,
}

/// Everything fixed when a game is created.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct GameConfig {
    /// Variant and options.
    pub ruleset: Ruleset,
    /// Number of seats.
    pub players: usize,
    /// Test mode: the first dealer, instead of the draw for dealer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_dealer: Option<Seat>,
    /// Test mode: one deck per deal, each a permutation of the game's full pack, top card
    /// first. Deals past the last deck given are shuffled from the seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stacked_decks: Option<Vec<Vec<Card>>>,
    /// The calendar year (UTC) the game started in, from the creator's clock (the engine reads
    /// none): a suspended game resumes only within it (docs/rules.md#suspension). `None`: no limit
    /// known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_year: Option<i32>,
}

impl GameConfig {
    /// A game of `ruleset` for `players` with no test-mode hooks.
    pub fn new(ruleset: Ruleset, players: usize) -> GameConfig {
        GameConfig {
            ruleset,
            players,
            first_dealer: None,
            stacked_decks: None,
            start_year: None,
        }
    }
}

/// Why a game cannot be created.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, strum::EnumDiscriminants)]
#[strum_discriminants(
    name(SetupCode),
    vis(pub(crate)),
    derive(strum::EnumIter, strum::IntoStaticStr)
)]
pub enum SetupError {
    /// The variant is not played by this many players.
    #[error(transparent)]
    #[strum_discriminants(strum(disabled))]
    Players(#[from] RulesetError),
    /// The first dealer is not a seat of the game.
    #[error("first_dealer {0} is not a seat of this game")]
    #[strum_discriminants(strum(serialize = "invalid_first_dealer"))]
    FirstDealer(u8),
    /// A stacked deck is not a permutation of the game's pack.
    #[error("stacked deck {deal} is not a permutation of the {size}-card pack of this game")]
    #[strum_discriminants(strum(serialize = "invalid_stacked_deck"))]
    StackedDeck {
        /// 1-based deal of the deck.
        deal: usize,
        /// Cards in the pack.
        size: usize,
    },
}

impl SetupError {
    /// Stable machine-readable code: a player count's is its [`RulesetError`]'s.
    pub fn code(&self) -> &'static str {
        match self {
            SetupError::Players(e) => e.code(),
            other => SetupCode::from(other).into(),
        }
    }

    /// Every code a setup error can have.
    pub fn codes() -> impl Iterator<Item = &'static str> {
        SetupCode::iter().map(<&str>::from).chain(RulesetError::codes())
    }
}

/// Whether the game goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Deals are being played.
    Playing,
    /// Every seat asked to suspend between deals; only `resume` is accepted
    /// (docs/rules.md#suspension).
    Suspended,
    /// Every deal was played; standings are known.
    Finished,
    /// Fewer than two players finished: no standings (docs/rules.md#leaving).
    Void,
}

/// The two halves of a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Before the draw.
    Draw,
    /// After the draw: meld, lay off, discard.
    Play,
}

/// A meld on the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct TableMeld {
    /// Its id, unique within the deal.
    pub id: u32,
    /// Who laid it.
    pub owner: Seat,
    /// How its cards lie.
    pub reading: Reading,
}

/// One line of the final standings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Standing {
    /// The seat.
    pub seat: Seat,
    /// 1 is first; equal totals share a place.
    pub place: usize,
    /// The final total.
    pub total: i32,
    /// Whether the seat left (scored by the two-highest rule and placed after finishers).
    pub left: bool,
}

/// The discard that may be claimed ("May I?").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Offer {
    card: Card,
    discarder: Option<Seat>,
}

/// The table as it was before this turn's first table play (`may_i` taking back).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Snapshot {
    hand: Vec<Card>,
    table: Vec<TableMeld>,
    down: bool,
    next_meld_id: u32,
    must_play: Vec<Card>,
}

/// One table play of this turn (`may_i`): the action, and the game as it was just before it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct TurnPlay {
    action: Action,
    before: Snapshot,
}

/// What the player in turn did so far this turn.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct TurnState {
    /// Set on the first table play: what taking back restores.
    snapshot: Option<Box<Snapshot>>,
    /// Went down this turn (`contract_7`'s -10).
    went_down: bool,
    /// Freed wilds that must reach the table before the turn ends.
    must_play: Vec<Card>,
    /// `may_i`: this turn's table plays in order, each with what taking it back restores.
    /// Absent in saves made before plays could be taken back one by one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    plays: Vec<TurnPlay>,
}

/// A game of Continental Rummy in any variant: serialisable, and changed only by
/// [`Game::apply`].
///
/// ```
/// use engine::{Action, DrawSource, Game, GameConfig, Ruleset, Seat, Seed, Variant, Viewer};
///
/// let config = GameConfig::new(Ruleset::default_for(Variant::MayI), 4);
/// let (game, _events) = Game::new(config, Seed::from_u64(1)).expect("4 players play may_i");
/// let (seat, _phase) = game.turn().expect("the game is on");
/// let draw = Action::Draw { source: DrawSource::Stock };
///
/// // Out of turn: refused with a stable code, and `game` is as it was.
/// let other = Seat((seat.0 + 1) % 4);
/// assert_eq!(game.apply(other, draw.clone()).unwrap_err().code(), "not_your_turn");
///
/// let (after, events) = game.apply(seat, draw).expect("the player in turn draws");
/// assert_eq!(after.hand(seat).len(), 13);
/// // The drawn card is shown to the drawer only.
/// let seen_by_other = events[0].redacted_for(Viewer::Seat(other));
/// assert!(serde_json::to_string(&seen_by_other).unwrap().contains("\"card\":null"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "StoredGame")]
pub struct Game {
    format: u32,
    config: GameConfig,
    seed: Seed,
    status: Status,
    deal: u8,
    dealer: Seat,
    turn: Seat,
    phase: Phase,
    hands: BySeat<Vec<Card>>,
    /// Leavers' hands, face down for the rest of the deal.
    set_aside: BySeat<Vec<Card>>,
    /// Top card last.
    stock: Vec<Card>,
    /// Top card last.
    discard: Vec<Card>,
    dead: bool,
    offer: Option<Offer>,
    pending: Vec<Seat>,
    /// Seats that passed on the discard on offer ([`Action::Pass`]), until the next discard.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    passed: Vec<Seat>,
    table: Vec<TableMeld>,
    next_meld_id: u32,
    down: BySeat<bool>,
    active: BySeat<bool>,
    turn_state: TurnState,
    claims_won: BySeat<u32>,
    draws: BySeat<u32>,
    exhaustions: u8,
    /// Actions accepted since the current deal was dealt (0: between deals,
    /// docs/rules.md#suspension). Absent in early saves of format 1, hence the default.
    #[serde(default)]
    deal_actions: u32,
    deal_scores: Vec<Vec<i32>>,
    /// How the last deal ended (its `deal_ended` event). Absent in saves made before it was
    /// kept, and until a deal has ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_deal: Option<LastDeal>,
    totals: BySeat<i32>,
    standings: Option<Vec<Standing>>,
    /// Seats that asked to suspend, between deals (docs/rules.md#suspension), in the order they
    /// asked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    suspend_requests: Vec<Seat>,
    /// While suspended: seats that asked to resume, in the order they asked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    resume_requests: Vec<Seat>,
    /// What every seat has seen the others take and throw this deal (docs/bots.md).
    public: knowledge::Public,
    /// What loading repaired of the stored game's derived facts; never stored, and empty
    /// once the caller took it ([`Game::take_repairs`]).
    #[serde(skip)]
    repairs: Vec<Repair>,
}

/// A game as stored, not yet checked: the only way from it to a [`Game`] is
/// [`Game::try_from`], which refuses a state the rules could not have made. A field of
/// [`Game`] is added here too (the conversion does not compile without it).
#[derive(Deserialize)]
struct StoredGame {
    #[serde(deserialize_with = "known_format")]
    format: u32,
    config: GameConfig,
    seed: Seed,
    status: Status,
    deal: u8,
    dealer: Seat,
    turn: Seat,
    phase: Phase,
    hands: BySeat<Vec<Card>>,
    /// Leavers' hands, face down for the rest of the deal.
    set_aside: BySeat<Vec<Card>>,
    /// Top card last.
    stock: Vec<Card>,
    /// Top card last.
    discard: Vec<Card>,
    dead: bool,
    offer: Option<Offer>,
    pending: Vec<Seat>,
    /// Seats that passed on the discard on offer ([`Action::Pass`]), until the next discard.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    passed: Vec<Seat>,
    table: Vec<TableMeld>,
    next_meld_id: u32,
    down: BySeat<bool>,
    active: BySeat<bool>,
    turn_state: TurnState,
    claims_won: BySeat<u32>,
    draws: BySeat<u32>,
    exhaustions: u8,
    /// Actions accepted since the current deal was dealt (0: between deals,
    /// docs/rules.md#suspension). Absent in early saves of format 1, hence the default.
    #[serde(default)]
    deal_actions: u32,
    deal_scores: Vec<Vec<i32>>,
    /// How the last deal ended (its `deal_ended` event). Absent in saves made before it was
    /// kept, and until a deal has ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_deal: Option<LastDeal>,
    totals: BySeat<i32>,
    standings: Option<Vec<Standing>>,
    /// Seats that asked to suspend, between deals (docs/rules.md#suspension), in the order they
    /// asked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    suspend_requests: Vec<Seat>,
    /// While suspended: seats that asked to resume, in the order they asked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    resume_requests: Vec<Seat>,
    /// What every seat has seen the others take and throw this deal (docs/bots.md). Absent in
    /// saves made before it was kept: nothing known then.
    #[serde(default)]
    public: knowledge::Public,
}

/// A derived fact of a stored game that did not follow from the game's own facts, and was
/// rebuilt from them as it loaded: bookkeeping that drifted, never a card or a turn.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Repair {
    /// A seat was recorded as known to hold cards that are not in its hand: forgotten.
    #[error("seat {seat} was known to hold [{cards}], which is not in its hand: forgotten")]
    Known {
        /// The seat.
        seat: Seat,
        /// The cards forgotten, as written.
        cards: String,
    },
    /// What the table saw was kept for seats the game does not have: dropped.
    #[error("what the table saw was kept for {kept} seats of {players}: the others dropped")]
    Seen {
        /// Seats it was kept for.
        kept: usize,
        /// Seats of the game.
        players: usize,
    },
    /// Wilds were kept as buried in the stock where the rules could not have buried them (not
    /// `push`, not wild, or a stock larger than it was dealt): forgotten.
    #[error("[{cards}] were kept as buried in the stock, which the rules could not have made: forgotten")]
    Buried {
        /// The wilds forgotten, as written.
        cards: String,
    },
    /// The next meld id was not past every meld on the table: moved on.
    #[error("the next meld id was {was}, not past every meld's: now {now}")]
    NextMeldId {
        /// As stored.
        was: u32,
        /// As rebuilt.
        now: u32,
    },
    /// A seat's running total was not the sum of its scores of the deals played: summed again.
    #[error("seat {seat}'s total was {was}, not the sum of its deals' scores, {now}")]
    Total {
        /// The seat.
        seat: Seat,
        /// As stored.
        was: i32,
        /// As rebuilt.
        now: i32,
    },
}

/// Why a stored game does not load: the first thing found that the rules could not have
/// made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the stored game is corrupt: {0}")]
pub struct CorruptGame(pub String);

impl TryFrom<StoredGame> for Game {
    type Error = CorruptGame;

    fn try_from(stored: StoredGame) -> Result<Game, CorruptGame> {
        let mut game = Game {
            format: stored.format,
            config: stored.config,
            seed: stored.seed,
            status: stored.status,
            deal: stored.deal,
            dealer: stored.dealer,
            turn: stored.turn,
            phase: stored.phase,
            hands: stored.hands,
            set_aside: stored.set_aside,
            stock: stored.stock,
            discard: stored.discard,
            dead: stored.dead,
            offer: stored.offer,
            pending: stored.pending,
            passed: stored.passed,
            table: stored.table,
            next_meld_id: stored.next_meld_id,
            down: stored.down,
            active: stored.active,
            turn_state: stored.turn_state,
            claims_won: stored.claims_won,
            draws: stored.draws,
            exhaustions: stored.exhaustions,
            deal_actions: stored.deal_actions,
            deal_scores: stored.deal_scores,
            last_deal: stored.last_deal,
            totals: stored.totals,
            standings: stored.standings,
            suspend_requests: stored.suspend_requests,
            resume_requests: stored.resume_requests,
            public: stored.public,
            repairs: Vec::new(),
        };
        // Derived facts are rebuilt from the game's own, which alone can make it corrupt.
        game.repairs = game.repair();
        game.check().map_err(CorruptGame)?;
        Ok(game)
    }
}

fn known_format<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let format = u32::deserialize(d)?;
    if (1..=GAME_FORMAT).contains(&format) {
        Ok(format)
    } else {
        Err(serde::de::Error::custom(format!(
            "game format {format} is newer than this release reads ({GAME_FORMAT})"
        )))
    }
}

impl Game {
    /// Creates a game and deals its first deal.
    ///
    /// # Errors
    /// [`SetupError`] for a player count the variant does not allow, or test-mode hooks
    /// that do not fit the game.
    pub fn new(config: GameConfig, seed: Seed) -> Result<(Game, Vec<Event>), SetupError> {
        let rules = &config.ruleset;
        rules.check_players(config.players)?;
        let players = config.players;
        if let Some(d) = config.first_dealer
            && d.index() >= players
        {
            return Err(SetupError::FirstDealer(d.0));
        }
        if let Some(decks) = &config.stacked_decks {
            let mut pack = rules.pack(players);
            pack.sort();
            for (i, deck) in decks.iter().enumerate() {
                let mut sorted = deck.clone();
                sorted.sort();
                if sorted != pack {
                    return Err(SetupError::StackedDeck {
                        deal: i + 1,
                        size: pack.len(),
                    });
                }
            }
        }
        let mut events = Vec::new();
        let dealer = match config.first_dealer {
            Some(d) => {
                events.push(Event::FirstDealer {
                    rounds: Vec::new(),
                    dealer: d,
                });
                d
            }
            None => {
                let (d, rounds) = deal::first_dealer(rules, players, &seed);
                events.push(Event::FirstDealer { rounds, dealer: d });
                d
            }
        };
        let mut game = Game {
            format: GAME_FORMAT,
            config,
            seed,
            status: Status::Playing,
            deal: 1,
            dealer,
            turn: dealer,
            phase: Phase::Draw,
            hands: BySeat::new(players, Vec::new()),
            set_aside: BySeat::new(players, Vec::new()),
            stock: Vec::new(),
            discard: Vec::new(),
            dead: false,
            offer: None,
            pending: Vec::new(),
            passed: Vec::new(),
            table: Vec::new(),
            next_meld_id: 1,
            down: BySeat::new(players, false),
            active: BySeat::new(players, true),
            turn_state: TurnState::default(),
            claims_won: BySeat::new(players, 0),
            draws: BySeat::new(players, 0),
            exhaustions: 0,
            deal_actions: 0,
            deal_scores: Vec::new(),
            last_deal: None,
            totals: BySeat::new(players, 0),
            standings: None,
            suspend_requests: Vec::new(),
            resume_requests: Vec::new(),
            public: knowledge::Public::default(),
            repairs: Vec::new(),
        };
        game.start_deal(&mut events);
        Ok((game, events))
    }

    /// Hex SHA-256 of `seed`: published at creation, checked against the seed at the end.
    pub fn seed_commitment(seed: &Seed) -> String {
        deal::commitment(seed)
    }

    /// What loading this game repaired of its stored derived facts (the known cards, the
    /// counters), taken out so that the caller says so once; empty for a game made here.
    pub fn take_repairs(&mut self) -> Vec<Repair> {
        std::mem::take(&mut self.repairs)
    }

    /// This game's seed commitment.
    pub fn commitment(&self) -> String {
        deal::commitment(&self.seed)
    }

    /// The seed, once the game is over (finished or void); `None` while it is played or
    /// suspended.
    pub fn revealed_seed(&self) -> Option<&Seed> {
        matches!(self.status, Status::Finished | Status::Void).then_some(&self.seed)
    }

    /// Plays `action` for `seat`: the new game and what happened, or why not (and `self` is
    /// unchanged either way).
    ///
    /// # Errors
    /// [`ActionError`] with a stable code when the rules refuse the action.
    pub fn apply(&self, seat: Seat, action: Action) -> Result<(Game, Vec<Event>), ActionError> {
        // The checks that need no copy come first: refusals stay cheap.
        self.precheck(seat, &action)?;
        let mut next = self.clone();
        let mut events = Vec::new();
        next.play_action(seat, action, &mut events)?;
        Ok((next, events))
    }

    /// [`Game::apply`] on this very game, for the bots' simulations, which need neither the
    /// game before nor a copy of it: the events go to `events` (appended), and a refused action
    /// leaves the game as it was, for every rule refuses before it changes anything.
    pub(crate) fn apply_in_place(
        &mut self,
        seat: Seat,
        action: Action,
        events: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.precheck(seat, &action)?;
        self.play_action(seat, action, events)
    }

    /// `action` by its rule ([`Game::precheck`] passed) and the count of the deal's actions.
    fn play_action(
        &mut self,
        seat: Seat,
        action: Action,
        events: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        let deal = self.deal;
        let playing = action.plays_the_deal();
        self.act(seat, action, events)?;
        if playing {
            // Play went on: the moment between deals, and any asking to suspend in it, is over.
            self.suspend_requests.clear();
            if self.deal == deal {
                self.deal_actions += 1;
            }
        }
        Ok(())
    }

    /// The configuration the game was created with.
    pub fn config(&self) -> &GameConfig {
        &self.config
    }
    /// Variant and options.
    pub fn rules(&self) -> &Ruleset {
        &self.config.ruleset
    }
    /// The variant.
    pub fn variant(&self) -> Variant {
        self.config.ruleset.variant()
    }
    /// Number of seats.
    pub fn players(&self) -> usize {
        self.config.players
    }
    /// Playing, finished or void.
    pub fn status(&self) -> Status {
        self.status
    }
    /// The deal being played (1-based; the last deal once the game is over).
    pub fn deal(&self) -> u8 {
        self.deal
    }
    /// The dealer of the current deal.
    pub fn dealer(&self) -> Seat {
        self.dealer
    }
    /// Whose turn it is and in which phase, while the game is played.
    pub fn turn(&self) -> Option<(Seat, Phase)> {
        (self.status == Status::Playing).then_some((self.turn, self.phase))
    }
    /// A seat's hand (server side only: views show each seat only its own).
    pub fn hand(&self, seat: Seat) -> &[Card] {
        self.hands.get(seat.index()).map_or(&[], Vec::as_slice)
    }
    /// The melds on the table.
    pub fn table(&self) -> &[TableMeld] {
        &self.table
    }
    /// Cards in the stock.
    pub fn stock_count(&self) -> usize {
        self.stock.len()
    }
    /// The discard pile, bottom first.
    pub fn discard_pile(&self) -> &[Card] {
        &self.discard
    }
    /// Whether a seat has gone down this deal.
    pub fn is_down(&self, seat: Seat) -> bool {
        self.down.get(seat.index()).copied().unwrap_or(false)
    }
    /// Whether a seat is still in the game (has not left).
    pub fn is_active(&self, seat: Seat) -> bool {
        self.active.get(seat.index()).copied().unwrap_or(false)
    }
    /// Each seat's running total.
    pub fn totals(&self) -> &[i32] {
        &self.totals
    }
    /// Each finished deal's scores, per seat.
    pub fn deal_scores(&self) -> &[Vec<i32>] {
        &self.deal_scores
    }
    /// The final standings, once finished.
    pub fn standings(&self) -> Option<&[Standing]> {
        self.standings.as_deref()
    }
    /// Claims won by each seat in this deal.
    pub fn claims_won(&self) -> &[u32] {
        &self.claims_won
    }
    /// Seats whose "May I?" waits for the stock draw.
    pub fn pending_claims(&self) -> &[Seat] {
        &self.pending
    }
    /// Seats that passed on the discard on offer.
    pub fn passed_claims(&self) -> &[Seat] {
        &self.passed
    }
    /// Whether `seat` may ask "May I?" for the discard on offer now (docs/rules.md#claims).
    pub fn may_claim(&self, seat: Seat) -> bool {
        self.status == Status::Playing && self.is_active(seat) && self.check_claim(seat).is_ok()
    }
    /// Every card of the game, wherever it is (for the conservation invariant,
    /// docs/rules.md#conservation).
    pub fn census(&self) -> Vec<Card> {
        let mut all: Vec<Card> = self.stock.iter().chain(&self.discard).copied().collect();
        for hand in self.hands.iter().chain(&self.set_aside) {
            all.extend_from_slice(hand);
        }
        for meld in &self.table {
            all.extend(meld.reading.cards());
        }
        all
    }
    /// Cards a seat must still play to the table this turn (freed wilds).
    pub fn must_play(&self) -> &[Card] {
        &self.turn_state.must_play
    }
    /// Whether the game stands between deals: the current deal has been dealt and nobody has
    /// acted in it yet. The only moment a game may be suspended
    /// (docs/rules.md#suspension).
    pub fn between_deals(&self) -> bool {
        self.status == Status::Playing && self.deal_actions == 0
    }
    /// Seats that asked to suspend the game, between deals.
    pub fn suspend_requests(&self) -> &[Seat] {
        &self.suspend_requests
    }
    /// Seats that asked to resume the suspended game.
    pub fn resume_requests(&self) -> &[Seat] {
        &self.resume_requests
    }
    /// Cards drawn by each seat in this deal (`continental`'s bonuses).
    pub fn draws(&self) -> &[u32] {
        &self.draws
    }
    /// Actions accepted since the current deal was dealt.
    pub fn deal_actions(&self) -> u32 {
        self.deal_actions
    }
    /// The cards `seat` is publicly known to hold (see [`Knowledge::known`]).
    pub(crate) fn known_cards(&self, seat: Seat) -> &[Card] {
        self.public.known_of(seat)
    }

    /// The setup of the next game at this table (a rematch, docs/rules.md#dealer): the same
    /// rules and seats, the first deal dealt as the variant passes the deal. Where the deal
    /// passes to the left, by the seat left of this game's first dealer; where the winner of a
    /// deal deals the next (`continental`), by this game's winner, or to the left when none.
    pub fn rematch_config(&self) -> GameConfig {
        let players = self.players();
        let first = self
            .config
            .first_dealer
            .unwrap_or_else(|| deal::first_dealer(self.rules(), players, &self.seed).0);
        let winner = self
            .standings()
            .and_then(|s| s.iter().find(|s| s.place == 1 && !s.left))
            .map(|s| s.seat);
        let dealer = match winner {
            Some(w) if !self.rules().deal_passes_left() => w,
            _ => Self::seat_of((first.index() + 1) % players),
        };
        GameConfig {
            ruleset: self.config.ruleset.clone(),
            players,
            first_dealer: Some(dealer),
            stacked_decks: None,
            start_year: None,
        }
    }

    /// Ends a game that is not over as void, by a decision outside the rules (a studio's
    /// support, a reported cheat): no standings, the seed revealed (docs/rules.md#leaving).
    /// A caller that rates it all the same takes [`Game::called_off_standings`] first.
    ///
    /// # Errors
    /// [`ActionError::GameOver`] for a game already finished or void.
    pub fn call_off(&self) -> Result<(Game, Vec<Event>), ActionError> {
        if matches!(self.status, Status::Finished | Status::Void) {
            return Err(ActionError::GameOver);
        }
        let mut next = self.clone();
        next.status = Status::Void;
        next.pending.clear();
        next.passed.clear();
        next.offer = None;
        let events = vec![Event::GameVoid {
            seed: next.seed.to_hex(),
        }];
        Ok((next, events))
    }

    fn seat_of(i: usize) -> Seat {
        Seat(u8::try_from(i).expect("at most 12 seats"))
    }

    /// The next seat still in the game, left of `seat`.
    fn next_active(&self, seat: Seat) -> Seat {
        let n = self.players();
        (1..=n)
            .map(|k| Self::seat_of((seat.index() + k) % n))
            .find(|s| self.active[*s])
            .unwrap_or(seat)
    }

    /// Seats still in, in rotation order starting left of `seat`.
    fn rotation_from(&self, seat: Seat) -> Vec<Seat> {
        let n = self.players();
        (1..=n)
            .map(|k| Self::seat_of((seat.index() + k) % n))
            .filter(|s| self.active[*s])
            .collect()
    }

    fn active_count(&self) -> usize {
        self.active.iter().filter(|a| **a).count()
    }

    /// Deals the current deal (`self.deal`, `self.dealer`) as the variant deals. The steps: the
    /// deck, a clean table, the hands, the upcard and the first turn.
    fn start_deal(&mut self, events: &mut Vec<Event>) {
        let mut rng = deal::deal_rng(&self.seed, self.deal);
        let mut deck = self.deck(&mut rng);
        self.clear_for_deal();
        let size = self.rules().hand_size(self.deal);
        events.push(Event::DealStarted {
            deal: self.deal,
            dealer: self.dealer,
            hand_size: size,
        });
        self.deal_hands(&mut deck, size, events);
        self.turn_upcard(deck, &mut rng, events);
        // docs/rules.md#turn: the first player of a deal sits left of the dealer.
        self.turn = self.next_active(self.dealer);
        self.phase = Phase::Draw;
    }

    /// The deal's deck, top card last: the stacked deck the game was set up with, or the
    /// variant's packs shuffled by the deal's own stream (docs/rules.md#randomness).
    fn deck(&self, rng: &mut rand_chacha::ChaCha20Rng) -> Vec<Card> {
        let stacked = self
            .config
            .stacked_decks
            .as_ref()
            .and_then(|d| d.get(usize::from(self.deal) - 1));
        match stacked {
            Some(deck) => deck.iter().rev().copied().collect(),
            None => {
                let mut pack = self.rules().pack(self.players());
                deal::shuffle(rng, &mut pack);
                pack
            }
        }
    }

    /// Forgets the last deal: no hands, no table, no claims, nothing known, nothing counted.
    fn clear_for_deal(&mut self) {
        let players = self.players();
        self.hands = BySeat::new(players, Vec::new());
        self.set_aside = BySeat::new(players, Vec::new());
        self.discard.clear();
        self.dead = false;
        self.offer = None;
        self.pending.clear();
        self.passed.clear();
        self.table.clear();
        self.next_meld_id = 1;
        self.down = BySeat::new(players, false);
        self.turn_state = TurnState::default();
        self.claims_won = BySeat::new(players, 0);
        self.draws = BySeat::new(players, 0);
        self.exhaustions = 0;
        self.deal_actions = 0;
        self.public = knowledge::Public::default();
    }

    /// Deals `size` cards to each seat still in from the top of `deck`, starting left of the
    /// dealer: one at a time (docs/rules.md#may_i-deal), three at a time in `continental`
    /// (docs/rules.md#continental-deal).
    fn deal_hands(&mut self, deck: &mut Vec<Card>, size: usize, events: &mut Vec<Event>) {
        let order = self.rotation_from(self.dealer);
        let packet = self.rules().deal_packet();
        let mut dealt = 0;
        while dealt < size {
            let take = packet.min(size - dealt);
            for seat in &order {
                for _ in 0..take {
                    let card = deck.pop().expect("every pack holds enough cards for the deal");
                    self.hands[*seat].push(card);
                }
            }
            dealt += take;
        }
        for seat in &order {
            events.push(Event::Dealt {
                seat: *seat,
                cards: Some(self.hands[*seat].clone()),
            });
        }
    }

    /// Turns up the next card of `deck` to start the discard pile; the rest is the stock
    /// (docs/rules.md#turn). docs/rules.md#push-deal: a wild upcard is buried at a random place
    /// in the stock (never on top). docs/rules.md#claims: the first upcard is on offer where
    /// the variant lets it be claimed.
    fn turn_upcard(
        &mut self,
        mut deck: Vec<Card>,
        rng: &mut rand_chacha::ChaCha20Rng,
        events: &mut Vec<Event>,
    ) {
        let rules = self.rules();
        let mut up = deck.pop().expect("a card for the upcard");
        let mut buried = Vec::new();
        while rules.buries_wild_upcard() && rules.is_wild(up) && !deck.is_empty() {
            events.push(Event::UpcardBuried { card: up });
            buried.push(up);
            let place = deal::below(rng, deck.len());
            deck.insert(place, up);
            up = deck.pop().expect("the stock is not empty");
        }
        let first_upcard_claims = rules.first_upcard_claims();
        self.discard.push(up);
        self.stock = deck;
        self.public.buried(buried, self.stock.len());
        events.push(Event::Upcard {
            card: up,
            stock_count: self.stock.len(),
        });
        if first_upcard_claims {
            self.offer = Some(Offer {
                card: up,
                discarder: None,
            });
        }
    }
}
