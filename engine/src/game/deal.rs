//! Randomness and dealing: every shuffle comes from ChaCha20 keyed by the game's seed, one stream
//! per purpose, so a revealed seed lets anyone replay every shuffle (docs/rules.md#randomness).

use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use sha2::{Digest, Sha256};

use super::{Seat, Seed};
use crate::card::{Card, Rank};
use crate::ruleset::{FirstDealerDraw, Ruleset};

/// The stream used for the first-dealer draw; deal `n` shuffles on stream `n`.
const FIRST_DEALER_STREAM: u64 = 0;

/// The generator for `stream` of `seed`.
pub(super) fn rng(seed: &Seed, stream: u64) -> ChaCha20Rng {
    let mut rng = ChaCha20Rng::from_seed(seed.0);
    rng.set_stream(stream);
    rng
}

/// The generator of deal `deal` (1-based).
pub(super) fn deal_rng(seed: &Seed, deal: u8) -> ChaCha20Rng {
    rng(seed, u64::from(deal))
}

/// A uniform integer in `0..n` (rejection sampling: no modulo bias). `n` must be positive.
pub(super) fn below(rng: &mut ChaCha20Rng, n: usize) -> usize {
    let n = u64::try_from(n).expect("sizes fit in u64");
    let zone = u64::MAX - (u64::MAX % n);
    loop {
        let x = rng.next_u64();
        if x < zone {
            return usize::try_from(x % n).expect("below n");
        }
    }
}

/// Fisher-Yates. Written here rather than taken from `rand` so that the order a seed gives
/// never changes with a dependency's release.
pub(super) fn shuffle(rng: &mut ChaCha20Rng, cards: &mut [Card]) {
    for i in (1..cards.len()).rev() {
        let j = below(rng, i + 1);
        cards.swap(i, j);
    }
}

/// Hex SHA-256 of the seed.
pub(super) fn commitment(seed: &Seed) -> String {
    hex::encode(Sha256::digest(seed.0))
}

/// A card's rank in the draw for dealer: aces low, a joker above the king. Suits do not
/// break ties (equal ranks draw again).
fn draw_rank(card: Card) -> u8 {
    card.rank().map_or(14, Rank::number)
}

/// Chooses the first dealer as docs/rules.md#dealer says: `push` a random seat; `may_i` the highest
/// card; `contract_7` and `continental` the lowest; tied seats draw again from the same pack.
pub(super) fn first_dealer(rules: &Ruleset, players: usize, seed: &Seed) -> (Seat, Vec<Vec<(Seat, Card)>>) {
    let mut rng = rng(seed, FIRST_DEALER_STREAM);
    let seat = |i: usize| Seat(u8::try_from(i).expect("at most 12 seats"));
    let highest = match rules.first_dealer_draw() {
        FirstDealerDraw::RandomSeat => return (seat(below(&mut rng, players)), Vec::new()),
        FirstDealerDraw::HighestCard => true,
        FirstDealerDraw::LowestCard => false,
    };
    let mut pack = rules.pack(players);
    shuffle(&mut rng, &mut pack);
    let mut in_draw: Vec<usize> = (0..players).collect();
    let mut rounds = Vec::new();
    let mut next = pack.into_iter().cycle();
    loop {
        let round: Vec<(Seat, Card)> = in_draw
            .iter()
            .map(|&i| (seat(i), next.next().expect("a cycled pack never ends")))
            .collect();
        let ranks = round.iter().map(|(_, c)| draw_rank(*c));
        let best = if highest { ranks.max() } else { ranks.min() }.expect("two or more seats");
        in_draw = round
            .iter()
            .filter(|(_, c)| draw_rank(*c) == best)
            .map(|(s, _)| usize::from(s.0))
            .collect();
        rounds.push(round);
        if let [only] = in_draw[..] {
            return (seat(only), rounds);
        }
    }
}

/// The bots' own generator: keyed by SHA-256 of a label and the seed, so that no bot's sample
/// of the hidden cards ever comes from the stream that dealt them (docs/bots.md#randomness).
/// `place` is the decision's place in the game.
pub(super) fn bot_rng(seed: &Seed, place: u64) -> ChaCha20Rng {
    let key: [u8; 32] = Sha256::new()
        .chain_update(b"continental bot")
        .chain_update(seed.0)
        .finalize()
        .into();
    let mut rng = ChaCha20Rng::from_seed(key);
    rng.set_stream(place);
    rng
}

/// A uniform integer in `0..n` from any of the engine's generators (bots included).
pub(crate) fn uniform(rng: &mut ChaCha20Rng, n: usize) -> usize {
    below(rng, n)
}
