//! Stacked decks for test-mode games, and the engine's own copy of such a game.

use engine::{Card, Game, GameConfig, Ruleset, Seat, Seed, Variant};

/// Cards from a space-separated list of names, like `"5H 6H JK"`.
pub fn cards(list: &str) -> Vec<Card> {
    list.split_whitespace()
        .map(|c| c.parse().unwrap_or_else(|e| panic!("a card, not {c:?}: {e}")))
        .collect()
}

/// A deal-1 deck of `variant` for `players` (seat 0 dealing) in which the seat in turn holds
/// `wanted`: start from the sorted pack and swap card names throughout the pack (each name
/// appears as often as any other, so the result is still a permutation of the pack).
pub fn deck_with(variant: Variant, players: usize, wanted: &[&str]) -> (Seat, Vec<Card>) {
    let ruleset = Ruleset::default_for(variant);
    let mut deck = ruleset.pack(players);
    let game = local_game(variant, players, 1, Some(vec![deck.clone()]));
    let (seat, _) = game.turn().expect("someone leads");
    let wanted = cards(&wanted.join(" "));
    let mut hand: Vec<Card> = game.hand(seat).to_vec();
    let mut spare: Vec<Card> = hand
        .iter()
        .copied()
        .filter(|c| !wanted.contains(c) && !c.is_joker())
        .collect();
    for w in wanted {
        if let Some(i) = hand.iter().position(|c| *c == w) {
            hand.swap_remove(i);
            continue;
        }
        let x = spare.pop().expect("a card to trade");
        for c in &mut deck {
            if *c == x {
                *c = w;
            } else if *c == w {
                *c = x;
            }
        }
    }
    (seat, deck)
}

/// A deal's deck of `rules` for `players` (cards dealt one at a time from `dealer`'s left) in which
/// `seat` holds `hand`, the upcard is `upcard` and the stock's top card `stock_top` (either
/// may be empty). Cards are moved by swapping places, so the deck stays a permutation of the
/// pack whatever the duplicates.
pub fn dealt_deck(
    rules: &Ruleset,
    (players, dealer, seat): (usize, usize, usize),
    hand: &str,
    upcard: &str,
    stock_top: &str,
) -> Vec<String> {
    let mut deck = rules.pack(players);
    let size = rules.hand_size(1);
    let order = (seat + 2 * players - dealer - 1) % players;
    let mut wanted: Vec<(usize, &str)> = hand
        .split_whitespace()
        .enumerate()
        .map(|(k, c)| (k * players + order, c))
        .collect();
    wanted.extend(
        [(size * players, upcard), (size * players + 1, stock_top)]
            .into_iter()
            .filter(|(_, c)| !c.is_empty()),
    );
    let mut fixed: Vec<usize> = Vec::new();
    for (place, name) in wanted {
        let card: Card = name.parse().expect("a card");
        let from = (0..deck.len())
            .find(|&i| deck[i] == card && !fixed.contains(&i))
            .expect("the card is in the pack");
        deck.swap(place, from);
        fixed.push(place);
    }
    deck.iter().map(ToString::to_string).collect()
}

/// A first deal from a sorted pack (consecutive cards make melds early): for the engine,
/// and as `stacked_decks` JSON.
pub fn sorted_first_deal(variant: Variant, players: usize) -> (Vec<Vec<Card>>, Vec<Vec<String>>) {
    let stacked = vec![Ruleset::default_for(variant).pack(players)];
    let json = stacked
        .iter()
        .map(|d| d.iter().map(ToString::to_string).collect())
        .collect();
    (stacked, json)
}

/// The engine's own copy of a test-mode game created with `first_dealer` 0.
pub fn local_game(variant: Variant, players: usize, seed: u64, stacked: Option<Vec<Vec<Card>>>) -> Game {
    Game::new(local_config(variant, players, stacked), Seed::from_u64(seed))
        .expect("a valid local game")
        .0
}

/// The configuration of a test-mode game created with `first_dealer` 0 and dealt this year.
pub fn local_config(variant: Variant, players: usize, stacked: Option<Vec<Vec<Card>>>) -> GameConfig {
    GameConfig {
        ruleset: Ruleset::default_for(variant),
        players,
        first_dealer: Some(Seat(0)),
        stacked_decks: stacked,
        start_year: Some(time::OffsetDateTime::now_utc().year()),
    }
}
