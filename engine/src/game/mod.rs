//! A game in play: state that changes only through legal actions (RULES.md §1 to §5).
//!
//! [`Game::apply`] takes `&self` and returns a new game with the events the action caused, or
//! an [`ActionError`]; the game it was called on never changes.

mod action;
mod deal;
mod event;
mod play;
mod score;
mod view;

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use action::{Action, ActionError, DrawSource};
pub use event::{DealEnd, Event, LaidMeld};
pub use play::{meld_with, wild_places};
pub use view::{
    ClaimsView, DiscardView, LegalAction, MeldView, PlayerView, TurnPlayView, TurnView, View, YouView,
};

use crate::card::Card;
use crate::reading::Reading;
use crate::ruleset::{Ruleset, RulesetError, Variant};

/// The current layout of [`Game`]'s serialised form. A later release that changes the layout
/// bumps it and keeps reading every earlier one.
pub const GAME_FORMAT: u32 = 1;

/// A place at the table, 0-based; play passes to seat + 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
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
        deal::hex(&self.0)
    }

    /// Parses 64 hex digits.
    ///
    /// # Errors
    /// A message when the text is not 64 hex digits.
    pub fn from_hex(s: &str) -> Result<Seed, String> {
        let bytes = s.as_bytes();
        if bytes.len() != 64 || !s.is_ascii() {
            return Err("a seed is 64 hex digits".into());
        }
        let mut out = [0u8; 32];
        for (i, pair) in bytes.chunks(2).enumerate() {
            let text = std::str::from_utf8(pair).map_err(|e| e.to_string())?;
            out[i] = u8::from_str_radix(text, 16).map_err(|_| "a seed is 64 hex digits".to_owned())?;
        }
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
#[serde(rename_all = "snake_case")]
pub enum Viewer {
    /// A player, who sees their own hand.
    Seat(Seat),
    /// Someone with no hand.
    Spectator,
}

/// Everything fixed when a game is created.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
}

impl GameConfig {
    /// A game of `ruleset` for `players` with no test-mode hooks.
    pub fn new(ruleset: Ruleset, players: usize) -> GameConfig {
        GameConfig {
            ruleset,
            players,
            first_dealer: None,
            stacked_decks: None,
        }
    }
}

/// Why a game cannot be created.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// The variant is not played by this many players.
    #[error(transparent)]
    Players(#[from] RulesetError),
    /// The first dealer is not a seat of the game.
    #[error("first_dealer {0} is not a seat of this game")]
    FirstDealer(u8),
    /// A stacked deck is not a permutation of the game's pack.
    #[error("stacked deck {deal} is not a permutation of the {size}-card pack of this game")]
    StackedDeck {
        /// 1-based deal of the deck.
        deal: usize,
        /// Cards in the pack.
        size: usize,
    },
}

impl SetupError {
    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            SetupError::Players(e) => e.code(),
            SetupError::FirstDealer(_) => "invalid_first_dealer",
            SetupError::StackedDeck { .. } => "invalid_stacked_deck",
        }
    }
}

/// Whether the game goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Deals are being played.
    Playing,
    /// Every deal was played; standings are known.
    Finished,
    /// Fewer than two players finished: no standings (RULES.md §2 "Leaving").
    Void,
}

/// The two halves of a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Before the draw.
    Draw,
    /// After the draw: meld, lay off, discard.
    Play,
}

/// A meld on the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
pub struct Game {
    #[serde(deserialize_with = "known_format")]
    format: u32,
    config: GameConfig,
    seed: Seed,
    status: Status,
    deal: u8,
    dealer: Seat,
    turn: Seat,
    phase: Phase,
    hands: Vec<Vec<Card>>,
    /// Leavers' hands, face down for the rest of the deal.
    set_aside: Vec<Vec<Card>>,
    /// Top card last.
    stock: Vec<Card>,
    /// Top card last.
    discard: Vec<Card>,
    dead: bool,
    offer: Option<Offer>,
    pending: Vec<Seat>,
    table: Vec<TableMeld>,
    next_meld_id: u32,
    down: Vec<bool>,
    active: Vec<bool>,
    turn_state: TurnState,
    claims_won: Vec<u32>,
    draws: Vec<u32>,
    exhaustions: u8,
    /// Actions accepted since the current deal was dealt (0: between deals, RULES.md §2
    /// "Suspend and resume"). Absent in early saves of format 1, hence the default.
    #[serde(default)]
    deal_actions: u32,
    deal_scores: Vec<Vec<i32>>,
    totals: Vec<i32>,
    standings: Option<Vec<Standing>>,
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
            hands: vec![Vec::new(); players],
            set_aside: vec![Vec::new(); players],
            stock: Vec::new(),
            discard: Vec::new(),
            dead: false,
            offer: None,
            pending: Vec::new(),
            table: Vec::new(),
            next_meld_id: 1,
            down: vec![false; players],
            active: vec![true; players],
            turn_state: TurnState::default(),
            claims_won: vec![0; players],
            draws: vec![0; players],
            exhaustions: 0,
            deal_actions: 0,
            deal_scores: Vec::new(),
            totals: vec![0; players],
            standings: None,
        };
        game.start_deal(&mut events);
        Ok((game, events))
    }

    /// Hex SHA-256 of `seed`: published at creation, checked against the seed at the end.
    pub fn seed_commitment(seed: &Seed) -> String {
        deal::commitment(seed)
    }

    /// This game's seed commitment.
    pub fn commitment(&self) -> String {
        deal::commitment(&self.seed)
    }

    /// The seed, once the game is over (finished or void); `None` while it is played.
    pub fn revealed_seed(&self) -> Option<&Seed> {
        (self.status != Status::Playing).then_some(&self.seed)
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
        let deal = next.deal;
        next.act(seat, action, &mut events)?;
        if next.deal == deal {
            next.deal_actions += 1;
        }
        Ok((next, events))
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
    /// Every card of the game, wherever it is (for the conservation invariant, RULES.md §1).
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
    /// acted in it yet. The only moment a game may be suspended (RULES.md §2 "Suspend and
    /// resume"; the consent and the calendar year are the service's to check).
    pub fn between_deals(&self) -> bool {
        self.status == Status::Playing && self.deal_actions == 0
    }
    /// Cards drawn by each seat in this deal (`continental`'s bonuses).
    pub fn draws(&self) -> &[u32] {
        &self.draws
    }

    fn seat_of(i: usize) -> Seat {
        Seat(u8::try_from(i).expect("at most 12 seats"))
    }

    /// The next seat still in the game, left of `seat`.
    fn next_active(&self, seat: Seat) -> Seat {
        let n = self.players();
        (1..=n)
            .map(|k| Self::seat_of((seat.index() + k) % n))
            .find(|s| self.active[s.index()])
            .unwrap_or(seat)
    }

    /// Seats still in, in rotation order starting left of `seat`.
    fn rotation_from(&self, seat: Seat) -> Vec<Seat> {
        let n = self.players();
        (1..=n)
            .map(|k| Self::seat_of((seat.index() + k) % n))
            .filter(|s| self.active[s.index()])
            .collect()
    }

    fn active_count(&self) -> usize {
        self.active.iter().filter(|a| **a).count()
    }

    /// Deals the current deal (`self.deal`, `self.dealer`) as the variant deals.
    fn start_deal(&mut self, events: &mut Vec<Event>) {
        let rules = self.config.ruleset.clone();
        let players = self.players();
        let mut rng = deal::deal_rng(&self.seed, self.deal);
        let stacked = self
            .config
            .stacked_decks
            .as_ref()
            .and_then(|d| d.get(usize::from(self.deal) - 1));
        // Top card last.
        let mut deck: Vec<Card> = match stacked {
            Some(deck) => deck.iter().rev().copied().collect(),
            None => {
                let mut pack = rules.pack(players);
                deal::shuffle(&mut rng, &mut pack);
                pack
            }
        };
        self.hands = vec![Vec::new(); players];
        self.set_aside = vec![Vec::new(); players];
        self.discard.clear();
        self.dead = false;
        self.offer = None;
        self.pending.clear();
        self.table.clear();
        self.next_meld_id = 1;
        self.down = vec![false; players];
        self.turn_state = TurnState::default();
        self.claims_won = vec![0; players];
        self.draws = vec![0; players];
        self.exhaustions = 0;
        self.deal_actions = 0;
        let size = rules.hand_size(self.deal);
        events.push(Event::DealStarted {
            deal: self.deal,
            dealer: self.dealer,
            hand_size: size,
        });
        let order = self.rotation_from(self.dealer);
        // Continental deals three at a time; the others one at a time.
        let packet = if rules.variant() == Variant::Continental {
            3
        } else {
            1
        };
        let mut dealt = 0;
        while dealt < size {
            let take = packet.min(size - dealt);
            for seat in &order {
                for _ in 0..take {
                    let card = deck.pop().expect("every pack holds enough cards for the deal");
                    self.hands[seat.index()].push(card);
                }
            }
            dealt += take;
        }
        for seat in &order {
            events.push(Event::Dealt {
                seat: *seat,
                cards: Some(self.hands[seat.index()].clone()),
            });
        }
        let mut up = deck.pop().expect("a card for the upcard");
        // Push: a wild upcard is buried at a random place in the stock (never on top).
        while rules.variant() == Variant::Push && rules.is_wild(up) && !deck.is_empty() {
            events.push(Event::UpcardBuried { card: up });
            let place = deal::below(&mut rng, deck.len());
            deck.insert(place, up);
            up = deck.pop().expect("the stock is not empty");
        }
        self.discard.push(up);
        self.stock = deck;
        events.push(Event::Upcard {
            card: up,
            stock_count: self.stock.len(),
        });
        if rules.has_claims() {
            self.offer = Some(Offer {
                card: up,
                discarder: None,
            });
        }
        self.turn = self.next_active(self.dealer);
        self.phase = Phase::Draw;
    }
}
