//! What one seat may know of a game (docs/bots.md#what-a-seat-may-know): its own hand, and
//! what every seat saw happen: the table, the discard pile, the cards each seat took in view
//! of all, the cards each seat threw, the stock's order once it was the turned-over pile, the
//! wilds buried in it. The bots decide from this only.

use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};

use super::{Action, Game, Hints, LegalAction, Phase, Seat, Seed, Status, TableMeld, TurnState, deal};
use crate::card::{Card, DISTINCT_CARDS};
use crate::ruleset::Ruleset;

/// What the whole table saw each seat take and throw this deal, seat by seat.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Public {
    /// Cards each seat is known to hold: taken from the discard pile, won by a claim, pushed to
    /// it face up, drawn from a stock every seat knows, freed from the table or taken back, and
    /// not played or thrown since.
    #[serde(default)]
    known: Vec<Vec<Card>>,
    /// Cards each seat discarded this deal, in order.
    #[serde(default)]
    discarded: Vec<Vec<Card>>,
    /// `push`: the wild upcards buried in the stock as the deal was dealt, in view of all
    /// (docs/rules.md#push-deal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    buried: Option<Buried>,
}

/// Wild upcards buried in the stock as a deal was dealt: each lies at a place no one saw among
/// the stock's cards then. The stock is drawn from the top only, so a wild whose place is
/// below the stock's size now is in it still.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Buried {
    /// The wilds, in the order they were buried.
    wilds: Vec<Card>,
    /// The stock's size once the deal was dealt.
    among: usize,
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

    /// `wilds` were buried in the stock as the deal was dealt, which then held `among` cards.
    pub(super) fn buried(&mut self, wilds: Vec<Card>, among: usize) {
        self.buried = (!wilds.is_empty()).then_some(Buried { wilds, among });
    }

    /// The stock is the turned-over pile now: what was buried in the old one is spent.
    pub(super) fn stock_turned_over(&mut self) {
        self.buried = None;
    }

    /// The wilds buried in the stock as the deal was dealt, and the stock's size then.
    pub(super) fn buried_wilds(&self) -> (&[Card], usize) {
        self.buried
            .as_ref()
            .map_or((&[], 0), |b| (b.wilds.as_slice(), b.among))
    }

    /// Forgets the buried wilds (a stored fact the rules could not have made): returns them.
    pub(super) fn forget_buried(&mut self) -> Vec<Card> {
        self.buried.take().map(|b| b.wilds).unwrap_or_default()
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
/// publicly known to hold, what each seat discarded this deal, the stock's cards in order once
/// it is the turned-over pile, the wilds buried in it (`push`), the scores, whose turn it is.
///
/// Built by [`Game::knowledge`]. Inside, it keeps a copy of the game with every card the seat
/// cannot see taken out (other hands but their known cards, the stock unless it is the
/// turned-over pile, hands set aside) and with neither the seed nor stacked decks: what is not
/// here cannot leak into a decision. That copy is private to this module: a bot reads a
/// `Knowledge` through its methods only, and the only whole game it can get from it is one it
/// samples ([`Knowledge::determinize`]).
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
        if !self.stock_is_public() {
            seen.stock.clear();
        }
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

    /// Whether every seat knows the stock, card by card: a deal's stock is turned over only
    /// once it is empty, from the discard pile, which lay face up and turns over unshuffled;
    /// from then on it is drawn from the top only, or turned over again from the pile.
    pub(super) fn stock_is_public(&self) -> bool {
        self.exhaustions > 0
    }

    /// The stock's cards every seat knows, bottom first: the whole stock once it is the
    /// turned-over pile, else none.
    pub(crate) fn public_stock(&self) -> &[Card] {
        if self.stock_is_public() { &self.stock } else { &[] }
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
    /// The stock's cards every seat knows, bottom first: the whole stock once it is the
    /// turned-over discard pile (docs/rules.md#may_i-stock, docs/rules.md#continental-stock),
    /// which turns over unshuffled; none before. It loses a card to each draw from the top.
    pub fn stock_known(&self) -> &[Card] {
        self.seen.public_stock()
    }
    /// The card the next draw from the stock takes, when every seat knows it.
    pub fn next_stock_card(&self) -> Option<Card> {
        let known = self.stock_known();
        (known.len() == self.stock_count)
            .then(|| known.last().copied())
            .flatten()
    }
    /// `push`: the wilds buried in the stock as this deal was dealt (docs/rules.md#push-deal),
    /// and the stock's size then. Each lies at a place no one saw among those cards, any
    /// place alike; the stock is drawn from the top only, so one is in it still unless its
    /// place was among the top (size then less [`Knowledge::stock_count`]) drawn since.
    pub fn buried_wilds(&self) -> (&[Card], usize) {
        self.seen.public.buried_wilds()
    }
    /// How many cards `seat` holds.
    pub fn hand_size(&self, seat: Seat) -> usize {
        self.hand_sizes.get(seat.index()).copied().unwrap_or(0)
    }
    /// The cards `seat` is known to hold: taken from the discard pile, won by a claim, pushed
    /// to it face up, drawn from a stock every seat knows ([`Knowledge::stock_known`]), freed
    /// from the table or taken back, and neither played nor thrown since.
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
    /// What the seat's hand allows now, as [`Game::hints`] gives it to the seat (but for the
    /// new meld, which the bots find on their own).
    pub fn hints(&self) -> Hints {
        self.seen.hints_up_to(self.seat, usize::MAX)
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

    /// The cards this seat cannot see: the pack less its hand, the table, the discard pile,
    /// the stock's known cards and every card known to be in another hand. Sorted.
    pub fn unseen(&self) -> Vec<Card> {
        let g = &self.seen;
        let mut left = [0usize; DISTINCT_CARDS];
        for c in g.rules().pack(g.players()) {
            left[c.index()] += 1;
        }
        let mut see = |c: Card| left[c.index()] = left[c.index()].saturating_sub(1);
        g.discard.iter().copied().for_each(&mut see);
        g.stock.iter().copied().for_each(&mut see);
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
    /// other hands beside their known cards, the hands set aside and the stock above its known
    /// cards. A wild buried as the deal was dealt is given a place among the stock's cards
    /// then, each place alike: in the stock at that place if it was not drawn since, else in
    /// a hand (or a hand set aside). The seed is not the game's: a deal after this one would
    /// not be the real one either.
    pub(crate) fn determinize(&self, rng: &mut BotRng) -> Game {
        let mut pool = self.unseen();
        deal::shuffle(&mut rng.0, &mut pool);
        let (wilds, among) = self.buried_wilds();
        let mut places: Vec<usize> = Vec::with_capacity(wilds.len());
        let mut kept: Vec<(usize, Card)> = Vec::new();
        let mut drawn = 0;
        for &wild in wilds {
            // A copy in sight may be the buried one, drawn and played: no place is left for it.
            let Some(at) = pool.iter().position(|c| *c == wild) else {
                continue;
            };
            if among <= places.len() {
                break;
            }
            let card = pool.remove(at);
            let mut place = deal::uniform(&mut rng.0, among);
            while places.contains(&place) {
                place = deal::uniform(&mut rng.0, among);
            }
            places.push(place);
            if place < self.stock_count {
                kept.push((place, card));
            } else {
                // Its place was drawn: it is in a hand. The hands take the pool from its end.
                pool.push(card);
                drawn += 1;
            }
        }
        if drawn > 0 {
            let from = pool.len() - self.hidden_in_hands().clamp(drawn, pool.len());
            deal::shuffle(&mut rng.0, &mut pool[from..]);
        }
        let mut game = self.fill(pool);
        // From the bottom up, so that each wild lands at its own place.
        kept.sort_unstable();
        for (place, wild) in kept {
            game.stock.insert(place.min(game.stock.len()), wild);
        }
        game
    }

    /// How many cards the seat cannot see in the other hands and the hands set aside.
    fn hidden_in_hands(&self) -> usize {
        let g = &self.seen;
        let hands = (0..g.players())
            .filter(|&i| i != self.seat.index())
            .map(|i| {
                let want = self.hand_sizes.get(i).copied().unwrap_or(0);
                want.saturating_sub(g.hands.get(i).map_or(0, Vec::len))
            })
            .sum::<usize>();
        hands + self.set_aside_sizes.iter().sum::<usize>()
    }

    /// This knowledge's game with `pool` dealt into the places the seat cannot see, from its
    /// end: the other hands beside their known cards, the hands set aside, then the stock
    /// above its known cards.
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
        pool.truncate(self.stock_count - game.stock.len());
        game.stock.extend(pool);
        game
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Action, DrawSource, GameConfig, Variant};

    const TWO: &str = "2H";

    /// A game of `push` for four, seat 3 dealing: seat 0 is dealt one 2H and the other is
    /// turned up and buried in the stock, the only one seat 0 cannot see.
    fn buried_two() -> Game {
        let rules = Ruleset::default_for(Variant::Push);
        let two: Card = TWO.parse().expect("a card");
        let mut rest = rules.pack(4);
        for _ in 0..2 {
            let at = rest.iter().position(|c| *c == two).expect("two 2H");
            rest.remove(at);
        }
        // Wilds at the bottom of the deck: no other upcard is buried.
        rest.sort_by_key(|c| rules.is_wild(*c));
        let mut deck = vec![two];
        deck.extend(rest.drain(..23));
        deck.push(two);
        deck.extend(rest);
        let config = GameConfig {
            first_dealer: Some(Seat(3)),
            stacked_decks: Some(vec![deck]),
            ..GameConfig::new(rules, 4)
        };
        let (game, _) = Game::new(config, Seed::from_u64(3)).expect("setup");
        assert_eq!(game.public.buried_wilds(), (&[two][..], game.stock.len()));
        assert_eq!(game.hands[0].iter().filter(|c| **c == two).count(), 1);
        game
    }

    fn twos(cards: &[Card]) -> usize {
        cards
            .iter()
            .filter(|c| **c == TWO.parse().expect("a card"))
            .count()
    }

    #[test]
    fn a_buried_wild_is_in_the_stock_of_every_sample_until_a_card_is_drawn() {
        let game = buried_two();
        let seen = game.knowledge(Seat(0));
        assert_eq!(seen.buried_wilds().0.len(), 1, "the burial was seen by all");
        let mut rng = game.bot_stream(Seat(0));
        for k in 0..300 {
            let sample = seen.determinize(&mut rng);
            assert_eq!(
                twos(&sample.stock),
                1,
                "sample {k}: the buried 2H is in the stock"
            );
            assert_eq!(sample.stock.len(), game.stock.len());
        }
    }

    #[test]
    fn a_buried_wild_is_still_in_the_stock_as_often_as_its_place_is_not_drawn() {
        let mut game = buried_two();
        // Eight turns of stock draws (each a push draw: two stock cards), the card drawn
        // thrown.
        for _ in 0..8 {
            let (seat, _) = game.turn().expect("playing");
            let draw = Action::Draw {
                source: DrawSource::Stock,
            };
            game = game.apply(seat, draw).expect("a draw").0;
            let card = *game.hand(seat).last().expect("drawn");
            game = game.apply(seat, Action::Discard { card }).expect("a throw").0;
        }
        let seen = game.knowledge(Seat(0));
        assert_eq!(twos(&seen.unseen()), 1, "seat 0 did not draw it");
        let (_, among) = seen.buried_wilds();
        let drawn = among - game.stock.len();
        assert!(drawn >= 12, "cards drawn from the stock: {drawn}");
        let mut rng = game.bot_stream(Seat(0));
        let samples = 1_000;
        let mut in_stock = 0;
        for k in 0..samples {
            let sample = seen.determinize(&mut rng);
            let hands: usize = (1..4).map(|s| twos(&sample.hands[s])).sum();
            assert_eq!(twos(&sample.stock) + hands, 1, "sample {k}: one 2H unseen");
            in_stock += twos(&sample.stock);
        }
        #[expect(clippy::cast_precision_loss, reason = "small counts")]
        let (share, want) = (
            in_stock as f64 / f64::from(samples),
            game.stock.len() as f64 / among as f64,
        );
        assert!(
            (share - want).abs() < 0.05,
            "in the stock in {share:.3} of the samples, where its place is undrawn {want:.3}"
        );
    }
}
