//! What one seat may know of a game (docs/bots.md#what-a-seat-may-know): its own hand, and
//! what every seat saw happen: the table, the discard pile, the cards each seat took in view
//! of all, the cards each seat threw. The bots decide from this only.

use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};

use super::{Action, Game, Hints, LegalAction, Phase, Seat, Seed, Status, TableMeld, TurnState, deal};
use crate::card::{Card, DISTINCT_CARDS};
use crate::ruleset::Ruleset;

/// What the whole table saw each seat take and throw this deal, seat by seat.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Public {
    /// Cards each seat is known to hold: taken from the discard pile, won by a claim, pushed to
    /// it face up, freed from the table or taken back, and not played or thrown since.
    #[serde(default)]
    known: Vec<Vec<Card>>,
    /// Cards each seat discarded this deal, in order.
    #[serde(default)]
    discarded: Vec<Vec<Card>>,
}

fn slot(per_seat: &mut Vec<Vec<Card>>, seat: Seat) -> &mut Vec<Card> {
    if per_seat.len() <= seat.index() {
        per_seat.resize(seat.index() + 1, Vec::new());
    }
    &mut per_seat[seat.index()]
}

impl Public {
    /// `seat` took `card` in view of all.
    pub(super) fn took(&mut self, seat: Seat, card: Card) {
        slot(&mut self.known, seat).push(card);
    }

    /// `cards` left `seat`'s hand face up: what was known of them is spent.
    pub(super) fn played(&mut self, seat: Seat, cards: &[Card]) {
        let known = slot(&mut self.known, seat);
        for c in cards {
            if let Some(k) = known.iter().position(|h| h == c) {
                known.remove(k);
            }
        }
    }

    /// `seat` discarded `card`.
    pub(super) fn discarded(&mut self, seat: Seat, card: Card) {
        self.played(seat, &[card]);
        slot(&mut self.discarded, seat).push(card);
    }

    /// `seat` left: its hand lies face down, out of play.
    pub(super) fn left(&mut self, seat: Seat) {
        slot(&mut self.known, seat).clear();
    }

    /// Forgets what `seat` is known to hold beyond `held` (its hand and what it set aside):
    /// returns the cards forgotten.
    pub(super) fn forget_unheld(&mut self, seat: Seat, held: &[Card]) -> Vec<Card> {
        let Some(known) = self.known.get_mut(seat.index()) else {
            return Vec::new();
        };
        let mut left = held.to_vec();
        let mut forgotten = Vec::new();
        known.retain(|c| match left.iter().position(|h| h == c) {
            Some(i) => {
                left.swap_remove(i);
                true
            }
            None => {
                forgotten.push(*c);
                false
            }
        });
        forgotten
    }

    /// Drops what is kept for seats past the first `players`.
    pub(super) fn keep_seats(&mut self, players: usize) {
        self.known.truncate(players);
        self.discarded.truncate(players);
    }

    /// How many seats it keeps anything for.
    pub(super) fn seats(&self) -> usize {
        self.known.len().max(self.discarded.len())
    }

    /// What `seat` is known to hold.
    pub(super) fn known_of(&self, seat: Seat) -> &[Card] {
        Public::of(&self.known, seat)
    }

    fn of(per_seat: &[Vec<Card>], seat: Seat) -> &[Card] {
        per_seat.get(seat.index()).map_or(&[], Vec::as_slice)
    }
}

/// Everything one seat may know of a game, and nothing else: its own hand, the table, the
/// discard pile, how many cards every other hand and the stock hold, which cards each seat is
/// publicly known to hold, what each seat discarded this deal, the scores, whose turn it is.
///
/// Built by [`Game::knowledge`]. Inside, it keeps a copy of the game with every card the seat
/// cannot see taken out (other hands but their known cards, the stock, hands set aside) and
/// with neither the seed nor stacked decks: what is not here cannot leak into a decision. That
/// copy is private to this module: a bot reads a `Knowledge` through its methods only, and
/// the only whole game it can get from it is one it samples ([`Knowledge::determinize`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Knowledge {
    seat: Seat,
    /// The game with the unseen cards taken out.
    seen: Game,
    /// Each seat's number of cards in hand.
    hand_sizes: Vec<usize>,
    /// Each seat's number of cards set aside (seats that left this deal).
    set_aside_sizes: Vec<usize>,
    stock_count: usize,
}

impl Game {
    /// What `seat` may know of this game now.
    pub fn knowledge(&self, seat: Seat) -> Knowledge {
        let mut seen = self.clone();
        seen.seed = Seed([0; 32]);
        seen.config.stacked_decks = None;
        for (i, hand) in seen.hands.iter_mut().enumerate() {
            if i != seat.index() {
                *hand = Public::of(&self.public.known, Game::seat_of(i)).to_vec();
            }
        }
        seen.set_aside.iter_mut().for_each(Vec::clear);
        seen.stock.clear();
        if self.turn != seat {
            // Another seat's turn: what it may take back holds its hand as it was.
            seen.turn_state = TurnState {
                must_play: self.turn_state.must_play.clone(),
                went_down: self.turn_state.went_down,
                ..TurnState::default()
            };
        }
        Knowledge {
            seat,
            hand_sizes: self.hands.iter().map(Vec::len).collect(),
            set_aside_sizes: self.set_aside.iter().map(Vec::len).collect(),
            stock_count: self.stock.len(),
            seen,
        }
    }

    /// The bots' own random stream for `seat`'s decision now (docs/bots.md#randomness): keyed
    /// by SHA-256 of a label and the seed, never the deal's stream, at the decision's place in
    /// the game (deal, actions in the deal, seat). Replaying the game replays it.
    pub fn bot_stream(&self, seat: Seat) -> BotRng {
        let place = (u64::from(self.deal) << 48) | (u64::from(self.deal_actions) << 8) | u64::from(seat.0);
        BotRng(deal::bot_rng(&self.seed, place))
    }
}

#[cfg(feature = "ceiling")]
impl Game {
    /// The strength harness's ceiling (docs/bots.md#ceiling): the deal as it truly lies, every
    /// hand, hand set aside and the stock in its order, made as [`Knowledge::determinize`]
    /// makes a sample (the seed and stacked decks dropped, so no later deal is the real one).
    /// Only with the `ceiling` feature, which the service's engine does not have.
    pub(crate) fn true_deal(&self) -> Game {
        let mut truth = self.clone();
        truth.seed = Seed([0; 32]);
        truth.config.stacked_decks = None;
        truth
    }
}

/// The bots' own random stream (docs/bots.md#randomness): what a bot draws its chances and its
/// samples of the hidden cards from. Only [`Game::bot_stream`] makes one, and it gives no way
/// back to the game, its seed or its deals. Cloning one gives a second stream that draws the
/// same numbers: a decision made twice from the same knowledge and the same stream is the same.
#[derive(Clone, Debug)]
pub struct BotRng(ChaCha20Rng);

impl BotRng {
    /// A uniform integer in `0..n` (`n` above 0).
    pub fn below(&mut self, n: usize) -> usize {
        deal::uniform(&mut self.0, n)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        use rand_chacha::rand_core::Rng;
        self.0.next_u64()
    }
}

impl Knowledge {
    /// The seat this is the knowledge of.
    pub fn seat(&self) -> Seat {
        self.seat
    }
    /// Variant and options.
    pub fn rules(&self) -> &Ruleset {
        self.seen.rules()
    }
    /// Number of seats.
    pub fn players(&self) -> usize {
        self.seen.players()
    }
    /// The deal being played (1-based).
    pub fn deal(&self) -> u8 {
        self.seen.deal
    }
    /// Playing, suspended, finished or void.
    pub fn status(&self) -> Status {
        self.seen.status
    }
    /// Whose turn it is and in which phase, while the game is played.
    pub fn turn(&self) -> Option<(Seat, Phase)> {
        self.seen.turn()
    }
    /// The seat's own hand.
    pub fn hand(&self) -> &[Card] {
        self.seen.hand(self.seat)
    }
    /// The melds on the table.
    pub fn table(&self) -> &[TableMeld] {
        self.seen.table()
    }
    /// The discard pile, bottom first.
    pub fn discard_pile(&self) -> &[Card] {
        self.seen.discard_pile()
    }
    /// Cards in the stock.
    pub fn stock_count(&self) -> usize {
        self.stock_count
    }
    /// How many cards `seat` holds.
    pub fn hand_size(&self, seat: Seat) -> usize {
        self.hand_sizes.get(seat.index()).copied().unwrap_or(0)
    }
    /// The cards `seat` is known to hold: taken from the discard pile, won by a claim, pushed
    /// to it face up, freed from the table or taken back, and neither played nor thrown since.
    pub fn known(&self, seat: Seat) -> &[Card] {
        Public::of(&self.seen.public.known, seat)
    }
    /// The cards `seat` discarded this deal, in order.
    pub fn discarded(&self, seat: Seat) -> &[Card] {
        Public::of(&self.seen.public.discarded, seat)
    }
    /// Whether `seat` has gone down this deal.
    pub fn is_down(&self, seat: Seat) -> bool {
        self.seen.is_down(seat)
    }
    /// Whether `seat` is still in the game.
    pub fn is_active(&self, seat: Seat) -> bool {
        self.seen.is_active(seat)
    }
    /// Each seat's running total.
    pub fn totals(&self) -> &[i32] {
        self.seen.totals()
    }
    /// Freed wilds the player in turn must still play to the table.
    pub fn must_play(&self) -> &[Card] {
        self.seen.must_play()
    }
    /// Claims won by each seat in this deal.
    pub fn claims_won(&self) -> &[u32] {
        self.seen.claims_won()
    }
    /// Cards drawn by each seat in this deal.
    pub fn draws(&self) -> &[u32] {
        self.seen.draws()
    }
    /// What the seat may do now, as [`Game::legal_actions`] lists it for the seat: the same
    /// list whatever the cards it cannot see.
    pub fn legal_actions(&self) -> Vec<LegalAction> {
        self.stand_in().legal_actions(self.seat)
    }
    /// What the seat's hand allows now, as [`Game::hints`] gives it to the seat.
    pub fn hints(&self) -> Hints {
        self.seen.hints(self.seat)
    }
    /// Whether the game takes `action` from the seat now. Whether an action is legal never
    /// hangs on a card the seat cannot see, so this is [`Game::apply`]'s answer in the real
    /// game.
    pub fn accepts(&self, action: &Action) -> bool {
        self.stand_in().apply(self.seat, action.clone()).is_ok()
    }

    /// A game consistent with this knowledge in which to ask what is legal: the unseen cards
    /// in their order, never shuffled (which card lies where is not the question).
    fn stand_in(&self) -> Game {
        self.fill(self.unseen())
    }

    /// The cards this seat cannot see: the pack less its hand, the table, the discard pile
    /// and every card known to be in another hand. Sorted.
    pub fn unseen(&self) -> Vec<Card> {
        let g = &self.seen;
        let mut left = [0usize; DISTINCT_CARDS];
        for c in g.rules().pack(g.players()) {
            left[c.index()] += 1;
        }
        let mut see = |c: Card| left[c.index()] = left[c.index()].saturating_sub(1);
        g.discard.iter().copied().for_each(&mut see);
        g.hands.iter().flatten().copied().for_each(&mut see);
        g.table.iter().flat_map(|m| m.reading.cards()).for_each(&mut see);
        let mut pool = g.rules().pack(g.players());
        pool.sort();
        pool.dedup();
        pool.into_iter()
            .flat_map(|c| std::iter::repeat_n(c, left[c.index()]))
            .collect()
    }

    /// A game consistent with this knowledge: the unseen cards, shuffled by `rng`, fill the
    /// other hands beside their known cards, the hands set aside and the stock. The seed is
    /// not the game's: a deal after this one would not be the real one either.
    pub(crate) fn determinize(&self, rng: &mut BotRng) -> Game {
        let mut pool = self.unseen();
        deal::shuffle(&mut rng.0, &mut pool);
        self.fill(pool)
    }

    /// This knowledge's game with `pool` dealt into the places the seat cannot see, from its
    /// end: the other hands beside their known cards, the hands set aside, then the stock.
    fn fill(&self, mut pool: Vec<Card>) -> Game {
        let mut game = self.seen.clone();
        for (i, hand) in game.hands.iter_mut().enumerate() {
            if i == self.seat.index() {
                continue;
            }
            let want = self.hand_sizes.get(i).copied().unwrap_or(0);
            while hand.len() < want {
                let Some(c) = pool.pop() else { break };
                hand.push(c);
            }
        }
        for (i, aside) in game.set_aside.iter_mut().enumerate() {
            let want = self.set_aside_sizes.get(i).copied().unwrap_or(0);
            while aside.len() < want {
                let Some(c) = pool.pop() else { break };
                aside.push(c);
            }
        }
        pool.truncate(self.stock_count);
        game.stock = pool;
        game
    }
}
