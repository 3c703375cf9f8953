//! Shared helpers: stacked decks, invariant checks, a random player.

use crate::helpers::cards;
use engine::{
    Action, Card, DealEnd, DrawSource, Event, Game, GameConfig, LegalAction, Ruleset, Seat, Seed, Status,
    Variant,
};

/// Checks docs/rules.md#conservation: every card of the pack in exactly one place.
pub fn assert_conserved(game: &Game, context: &str) {
    let count = |cards: &[Card]| {
        let mut n = [0u32; engine::DISTINCT_CARDS];
        for c in cards {
            n[c.index()] += 1;
        }
        n
    };
    let all = game.census();
    let pack = game.rules().pack(game.players());
    assert_eq!(all.len(), pack.len(), "conservation (card count): {context}");
    assert_eq!(count(&all), count(&pack), "conservation: {context}");
    // Every state the rules make passes the check a stored game passes as it loads. The round
    // trip through JSON is most of a simulated action's cost: one state in eight is enough, as
    // the simulations play many thousands.
    if game.deal_actions() % 8 != 0 {
        return;
    }
    let stored = serde_json::to_string(game).expect("json");
    let loaded: Game =
        serde_json::from_str(&stored).unwrap_or_else(|e| panic!("{context}: does not load: {e}"));
    assert_eq!(&loaded, game, "{context}: loads as it was");
}

/// Checks that what the table knows of each hand (docs/bots.md) is in it: every card a seat is
/// publicly known to hold is one of its cards, and the cards seat 0 cannot see are exactly as
/// many as the places they may be in.
pub fn assert_known_held(game: &Game, context: &str) {
    let n = game.players();
    let observer = Seat(0);
    let knowledge = game.knowledge(observer);
    let mut hidden = 0;
    for s in 0..n {
        let seat = Seat(s as u8);
        let mut hand = game.hand(seat).to_vec();
        for c in knowledge.known(seat) {
            let k = hand.iter().position(|h| h == c);
            let k = k.unwrap_or_else(|| panic!("{context}: {c} known in seat {seat}'s hand, not there"));
            hand.swap_remove(k);
        }
        assert_eq!(
            knowledge.hand_size(seat),
            game.hand(seat).len(),
            "{context}: hand size"
        );
        if seat != observer {
            hidden += hand.len();
        }
    }
    let aside = game.census().len()
        - game.stock_count()
        - game.discard_pile().len()
        - (0..n).map(|i| game.hand(Seat(i as u8)).len()).sum::<usize>()
        - game.table().iter().map(|m| m.reading.len()).sum::<usize>();
    let stock_known = knowledge.stock_known();
    assert_eq!(
        knowledge.unseen().len(),
        hidden + game.stock_count() - stock_known.len() + aside,
        "{context}: the unseen cards fill the unseen places"
    );
    // The stock's known cards are its bottom cards in order (checked as often as the saved
    // form is: it is the only way to the stock from outside).
    if !stock_known.is_empty() && game.deal_actions() % 8 == 0 {
        let json = serde_json::to_value(game).expect("json");
        let stock: Vec<Card> = serde_json::from_value(json["stock"].clone()).expect("the stock");
        assert_eq!(
            &stock[..stock_known.len()],
            stock_known,
            "{context}: the stock's known cards"
        );
    }
}

/// Checks hand sizes after `events` took `before` to `after`.
pub fn assert_hand_sizes(before: &Game, after: &Game, events: &[Event], context: &str) {
    let n = before.players();
    if after.status() != Status::Playing {
        return;
    }
    if after.deal() != before.deal() {
        let size = after.rules().hand_size(after.deal());
        for s in 0..n {
            let seat = Seat(s as u8);
            let want = if after.is_active(seat) { size } else { 0 };
            assert_eq!(
                after.hand(seat).len(),
                want,
                "fresh deal hand size of {s}: {context}"
            );
        }
        return;
    }
    let mut want: Vec<i64> = (0..n).map(|s| before.hand(Seat(s as u8)).len() as i64).collect();
    for e in events {
        match e {
            Event::Drew { seat, .. } => want[seat.index()] += 1,
            Event::Pushed { to, .. } => want[to.index()] += 2,
            Event::ClaimWon { seat, .. } => want[seat.index()] += 2,
            Event::Melded { seat, melds, .. } => {
                want[seat.index()] -= melds.iter().map(|m| m.reading.len() as i64).sum::<i64>()
            }
            Event::LaidOff { seat, cards, .. } => want[seat.index()] -= cards.len() as i64,
            Event::Swapped { seat, freed, .. } => {
                want[seat.index()] -= 1;
                if freed.is_some() {
                    want[seat.index()] += 1;
                }
            }
            Event::TookBack {
                seat,
                cards,
                to_table,
                ..
            } => want[seat.index()] += cards.len() as i64 - to_table.len() as i64,
            Event::Discarded { seat, .. } => want[seat.index()] -= 1,
            Event::Left { seat } => want[seat.index()] = 0,
            _ => {}
        }
    }
    for (s, want) in want.iter().enumerate() {
        assert_eq!(
            after.hand(Seat(s as u8)).len() as i64,
            *want,
            "hand size of seat {s} after {events:?}: {context}"
        );
    }
}

/// The concrete actions listed for `seat` (draws, claim, take back, each discard, leave), and
/// each play of the turn the view says may be taken back on its own.
pub fn concrete_actions(game: &Game, seat: Seat) -> Vec<Action> {
    let mut out: Vec<Action> = game
        .turn_plays(seat)
        .into_iter()
        .filter(|p| p.can_take_back)
        .map(|p| Action::TakeBack { play: Some(p.play) })
        .collect();
    for la in game.legal_actions(seat) {
        match la {
            LegalAction::Draw { source } => out.push(Action::Draw { source }),
            LegalAction::Claim => out.push(Action::Claim {}),
            LegalAction::TakeBack => out.push(Action::TakeBack { play: None }),
            LegalAction::Discard { cards } => {
                out.extend(cards.into_iter().map(|card| Action::Discard { card }))
            }
            LegalAction::Leave => out.push(Action::Leave {}),
            _ => {}
        }
    }
    out
}

/// Plays `action`, checking the invariants, and returns the new game.
pub fn play_checked(game: &Game, seat: Seat, action: Action, context: &str) -> (Game, Vec<Event>) {
    let (next, events) = game
        .apply(seat, action.clone())
        .unwrap_or_else(|e| panic!("{context}: {action:?} by {seat} refused: {e} ({})", e.code()));
    // A game's record locates each action at its first event (docs/api.md#replay).
    assert!(
        !events.is_empty(),
        "{context}: {action:?} by {seat} made no event"
    );
    assert_conserved(&next, context);
    assert_hand_sizes(game, &next, &events, context);
    assert_known_held(&next, context);
    (next, events)
}

/// A quick new game.
pub fn new_game(variant: Variant, players: usize, seed: u64) -> Game {
    let config = GameConfig::new(Ruleset::default_for(variant), players);
    Game::new(config, Seed::from_u64(seed)).expect("setup").0
}

/// Whether a deal ended in these events.
pub fn deal_ended(events: &[Event]) -> Option<DealEnd> {
    events.iter().find_map(|e| match e {
        Event::DealEnded { end, .. } => Some(*end),
        _ => None,
    })
}

/// A stacked deck (top card first) that deals `hands` (by seat; missing cards are filled from
/// the rest of the pack), turns `upcard` and puts `stock` on top of the stock.
pub fn stacked_deck(
    rules: &Ruleset,
    players: usize,
    dealer: usize,
    deal: u8,
    hands: &[&str],
    upcard: &str,
    stock: &str,
) -> Vec<Card> {
    let mut filler = rules.pack(players);
    let mut take = |c: Card| {
        let i = filler
            .iter()
            .position(|f| *f == c)
            .unwrap_or_else(|| panic!("{c} twice in the stacked deck"));
        filler.remove(i);
    };
    let hands: Vec<Vec<Card>> = hands.iter().map(|h| cards(h)).collect();
    let upcard = cards(upcard);
    let stock = cards(stock);
    for c in hands.iter().flatten().chain(&upcard).chain(&stock) {
        take(*c);
    }
    // Fillers: wilds last, so filled hands hold as few surprises as possible.
    filler.sort_by_key(|c| (rules.is_wild(*c), std::cmp::Reverse(*c)));
    filler.reverse();
    let size = rules.hand_size(deal);
    let packet = if rules.variant() == Variant::Continental {
        3
    } else {
        1
    };
    let mut next = vec![0usize; players];
    let mut deck = Vec::new();
    let mut dealt = 0;
    while dealt < size {
        let n = packet.min(size - dealt);
        for k in 1..=players {
            let seat = (dealer + k) % players;
            for _ in 0..n {
                let card = match hands.get(seat).and_then(|h| h.get(next[seat])) {
                    Some(c) => *c,
                    None => filler.pop().expect("filler"),
                };
                next[seat] += 1;
                deck.push(card);
            }
        }
        dealt += n;
    }
    for (seat, h) in hands.iter().enumerate() {
        assert!(h.len() <= size, "seat {seat} is given more than {size} cards");
    }
    deck.extend(upcard);
    deck.extend(stock);
    filler.reverse();
    deck.extend(filler);
    deck
}

/// A game on stacked decks with a fixed first dealer.
pub fn stacked_game(rules: Ruleset, players: usize, dealer: u8, decks: Vec<Vec<Card>>) -> (Game, Vec<Event>) {
    let config = GameConfig {
        ruleset: rules,
        players,
        first_dealer: Some(Seat(dealer)),
        stacked_decks: Some(decks),
        start_year: None,
    };
    Game::new(config, Seed::from_u64(7)).expect("stacked setup")
}

/// Plays a list of actions, checking invariants; returns the game and all events.
pub fn play_all(game: &Game, actions: &[(u8, Action)]) -> (Game, Vec<Event>) {
    let mut game = game.clone();
    let mut all = Vec::new();
    for (k, (seat, action)) in actions.iter().enumerate() {
        let (next, events) = play_checked(
            &game,
            Seat(*seat),
            action.clone(),
            &format!("scripted action {k}"),
        );
        game = next;
        all.extend(events);
    }
    (game, all)
}

/// A draw action.
pub fn draw(source: DrawSource) -> Action {
    Action::Draw { source }
}

/// A discard action.
pub fn discard(card: &str) -> Action {
    Action::Discard {
        card: card.parse().expect("card"),
    }
}

/// A meld action from card lists.
pub fn meld(melds: &[&str]) -> Action {
    Action::Meld {
        melds: melds
            .iter()
            .map(|m| engine::ProposedMeld::of(&cards(m)))
            .collect(),
    }
}

/// A lay-off action.
pub fn layoff(meld_id: u32, list: &str) -> Action {
    Action::LayOff {
        meld_id,
        cards: cards(list),
        wilds: Vec::new(),
    }
}

/// A lay-off action fixing what a wild represents (`"JK=9H"`).
pub fn layoff_as(meld_id: u32, list: &str, wild: &str) -> Action {
    Action::LayOff {
        meld_id,
        cards: cards(list),
        wilds: crate::helpers::designations(wild),
    }
}

/// The error code of an action that must be refused; the game must not change.
pub fn refused(game: &Game, seat: u8, action: Action) -> &'static str {
    let before = serde_json::to_string(game).expect("json");
    let err = game
        .apply(Seat(seat), action.clone())
        .map(|_| ())
        .expect_err(&format!("{action:?} by {seat} must be refused"));
    assert_eq!(
        serde_json::to_string(game).expect("json"),
        before,
        "a refused action changes nothing"
    );
    err.code()
}

/// The scores of the deal that ended in `events`.
pub fn deal_scores(events: &[Event]) -> Vec<i32> {
    events
        .iter()
        .find_map(|e| match e {
            Event::DealEnded { scores, .. } => Some(scores.clone()),
            _ => None,
        })
        .expect("a deal ended")
}

/// Deal 1's deck in which the first player (left of `dealer`) holds two sets and goes out in
/// one turn with [`quick_out_actions`] (`may_i` and `contract_7`).
pub fn quick_out_deck(rules: &Ruleset, players: usize, dealer: usize) -> Vec<Card> {
    let hand = match rules.variant() {
        Variant::MayI => "3C 3D 3S 3H 3C 3D 4C 4D 4S 4H 4C 4D",
        _ => "3C 3D 3S 4C 4D 4S 4H",
    };
    let mut hands = vec![""; players];
    hands[(dealer + 1) % players] = hand;
    stacked_deck(rules, players, dealer, 1, &hands, "KS", "9C")
}

/// The first player's turn that goes out on [`quick_out_deck`].
pub fn quick_out_actions(rules: &Ruleset, players: usize, dealer: usize) -> Vec<(u8, Action)> {
    let seat = ((dealer + 1) % players) as u8;
    let melds = match rules.variant() {
        Variant::MayI => meld(&["3C 3D 3S 3H 3C 3D", "4C 4D 4S 4H 4C 4D"]),
        _ => meld(&["3C 3D 3S", "4C 4D 4S 4H"]),
    };
    vec![
        (seat, draw(DrawSource::Stock)),
        (seat, melds),
        (seat, discard("9C")),
    ]
}

/// A meld action whose melds may fix wilds: `[("5H 6H 7H JK", "JK=8H")]`.
pub fn meld_as(melds: &[(&str, &str)]) -> Action {
    Action::Meld {
        melds: melds
            .iter()
            .map(|(c, w)| engine::ProposedMeld {
                cards: cards(c),
                kind: None,
                wilds: crate::helpers::designations(w),
            })
            .collect(),
    }
}

/// What each card of a reading stands for, as `card=represents` in table order.
pub fn places(reading: &engine::Reading) -> Vec<String> {
    reading
        .slots()
        .iter()
        .map(|s| format!("{}={}", s.card, s.represents))
        .collect()
}

/// `game` with only the top `keep` cards left in its stock; the rest is set aside (with seat
/// 0's leaver pile), so every card is still counted. For the ends of a stock that play reaches
/// only slowly.
pub fn with_stock(game: &Game, keep: usize) -> Game {
    let mut state = serde_json::to_value(game).expect("json");
    let mut stock: Vec<serde_json::Value> = state["stock"].as_array().expect("stock").clone();
    let kept = stock.split_off(stock.len() - keep);
    state["stock"] = serde_json::Value::Array(kept);
    state["set_aside"][0] = serde_json::Value::Array(stock);
    serde_json::from_value(state).expect("state")
}
