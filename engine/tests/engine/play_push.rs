//! Scenarios for docs/rules.md#push on stacked decks, one per rule.

use engine::{Action, Card, DealEnd, DrawSource, Event, Ruleset, Seat, Variant, Viewer};

use crate::helpers::{card, rules_with};
use crate::play_helpers::{
    deal_ended, deal_scores, discard, draw, layoff, layoff_as, meld, meld_as, play_all, refused,
    stacked_deck, stacked_game,
};

fn push() -> Ruleset {
    Ruleset::default_for(Variant::Push)
}

fn value(rules: &Ruleset, hand: &[Card]) -> i32 {
    hand.iter().map(|c| rules.card_value(*c).expect("value")).sum()
}

/// The deal the scoring tests stack (seat 1 holds `3C 3D 3S 4C 4D 4S`, the upcard is `9C`):
/// seat 1 takes the upcard, lays down its sets of 3s and 4s, and goes out with the 9C.
fn seat_1_goes_out(game: &engine::Game) -> (engine::Game, Vec<Event>) {
    play_all(
        game,
        &[
            (1, draw(DrawSource::Discard)),
            (1, meld(&["3C 3D 3S", "4C 4D 4S"])),
            (1, discard("9C")),
        ],
    )
}

#[test]
fn rules_5_card_values() {
    let rules = push();
    let rows = [
        ("3C", 5, "3-9 count 5"),
        ("KD", 10, "T-K 10"),
        ("AS", 15, "aces 15"),
        ("2H", 20, "twos 20"),
        ("JK", 20, "jokers 20"),
    ];
    for (c, v, why) in rows {
        assert_eq!(rules.card_value(card(c)), Some(v), "§5 {why}");
    }
}

#[test]
fn rules_5_the_team_of_the_player_out_scores_zero() {
    let rules = push();
    let deck = stacked_deck(&rules, 4, 0, 1, &["", "3C 3D 3S 4C 4D 4S"], "9C", "");
    let (game, _) = stacked_game(rules.clone(), 4, 0, vec![deck]);
    assert_eq!(game.hand(Seat(1)).len(), 6, "§5 deal 1 deals 6");
    let team0 = value(&rules, game.hand(Seat(0))) + value(&rules, game.hand(Seat(2)));
    let (game, events) = seat_1_goes_out(&game);
    assert_eq!(deal_ended(&events), Some(DealEnd::WentOut { seat: Seat(1) }));
    assert_eq!(
        deal_scores(&events),
        vec![team0, 0, team0, 0],
        "§5 partners opposite; the out team scores 0, the other adds both hands"
    );
    assert_eq!(game.hand(Seat(1)).len(), 7, "§5 deal 2 deals 7");
    let view = game.view(Viewer::Spectator);
    assert_eq!(
        view.players.iter().map(|p| p.team).collect::<Vec<_>>(),
        vec![Some(0), Some(1), Some(0), Some(1)]
    );
}

#[test]
fn rules_5_a_wild_upcard_is_buried_in_the_stock() {
    let rules = push();
    let deck = stacked_deck(&rules, 4, 0, 1, &[], "2C JK 9C", "");
    let (game, events) = stacked_game(rules, 4, 0, vec![deck]);
    let buried: Vec<Card> = events
        .iter()
        .filter_map(|e| match e {
            Event::UpcardBuried { card } => Some(*card),
            _ => None,
        })
        .collect();
    assert_eq!(
        buried,
        vec![card("2C"), Card::JOKER],
        "§5 a deuce or joker turned up is buried"
    );
    assert_eq!(
        game.discard_pile(),
        &[card("9C")],
        "§5 the next card is turned up"
    );
    assert_eq!(
        game.stock_count(),
        108 - 24 - 1,
        "§5 the wilds went back into the stock"
    );
}

#[test]
fn rules_5_the_push_draw() {
    let rules = push();
    let deck = stacked_deck(&rules, 4, 0, 1, &[], "9C", "KD 5S");
    let (game, _) = stacked_game(rules, 4, 0, vec![deck]);
    let (game, events) = play_all(&game, &[(1, draw(DrawSource::Stock))]);
    let pushed = Event::Pushed {
        from: Seat(1),
        to: Seat(2),
        discard: card("9C"),
        stock: Some(card("KD")),
    };
    assert!(
        events.contains(&pushed),
        "§5 the top discard and the stock card go to the left: {events:?}"
    );
    assert_eq!(game.hand(Seat(2)).len(), 8, "§5 the player on the left adds both");
    assert_eq!(
        game.hand(Seat(1)).last(),
        Some(&card("5S")),
        "§5 then the pusher takes the next stock card"
    );
    assert!(game.discard_pile().is_empty());
    let hidden = pushed.redacted_for(Viewer::Seat(Seat(1)));
    assert!(
        matches!(hidden, Event::Pushed { stock: None, .. }),
        "the face-down card is hidden from the pusher"
    );
    let (game, _) = play_all(
        &game,
        &[
            (1, discard("5S")),
            (2, draw(DrawSource::Discard)),
            (2, discard("5S")),
        ],
    );
    let (game, events) = play_all(&game, &[(3, draw(DrawSource::Stock))]);
    assert!(events.iter().any(|e| matches!(e, Event::Pushed { .. })));
    let (game, _) = play_all(
        &game,
        &[(
            3,
            Action::Discard {
                card: *game.hand(Seat(3)).last().expect("c"),
            },
        )],
    );
    let (_, events) = play_all(
        &game,
        &[
            (0, draw(DrawSource::Discard)),
            (
                0,
                Action::Discard {
                    card: *game.hand(Seat(0)).last().expect("c"),
                },
            ),
        ],
    );
    assert!(!events.iter().any(|e| matches!(e, Event::Pushed { .. })));
}

#[test]
fn rules_5_an_empty_pile_means_a_plain_stock_draw() {
    let rules = push();
    let deck = stacked_deck(&rules, 4, 0, 1, &[], "9C", "KD");
    let (game, _) = stacked_game(rules, 4, 0, vec![deck]);
    let (game, _) = play_all(&game, &[(1, draw(DrawSource::Discard))]);
    let (game, _) = play_all(
        &game,
        &[
            (1, Action::Discard { card: card("9C") }),
            (2, draw(DrawSource::Discard)),
        ],
    );
    let (game, _) = play_all(&game, &[(2, discard("9C"))]);
    let (game, _) = play_all(
        &game,
        &[
            (3, draw(DrawSource::Discard)),
            (3, discard("9C")),
            (0, draw(DrawSource::Discard)),
        ],
    );
    assert!(game.discard_pile().is_empty());
    let (_, events) = play_all(
        &game,
        &[
            (0, discard("9C")),
            (1, draw(DrawSource::Discard)),
            (1, discard("9C")),
        ],
    );
    assert!(!events.iter().any(|e| matches!(e, Event::Pushed { .. })));
}

#[test]
fn rules_5_after_the_contract_new_melds_and_lay_offs() {
    let rules = rules_with(Variant::Push, serde_json::json!({"ten_every_deal": true}));
    let deck = stacked_deck(&rules, 4, 0, 1, &["", "3C 3D 3S 4C 4D 4S 7H 8H 9H 3H"], "KS", "");
    let (game, _) = stacked_game(rules, 4, 0, vec![deck]);
    assert_eq!(game.hand(Seat(1)).len(), 10, "§5 option ten_every_deal");
    let (game, _) = play_all(&game, &[(1, draw(DrawSource::Discard))]);
    assert_eq!(
        refused(&game, 1, meld(&["7H 8H 9H"])),
        "contract_not_met",
        "§5 each player must fulfil their own contract first"
    );
    // A choice docs/rules.md#contracts writes down: going down is exactly the contract, so more
    // melds in the same request are refused; they follow in a second request of the same turn
    // (below).
    assert_eq!(
        refused(&game, 1, meld(&["3C 3D 3S", "4C 4D 4S", "7H 8H 9H"])),
        "contract_not_met",
        "more melds than the contract in one request"
    );
    let (game, _) = play_all(
        &game,
        &[(1, meld(&["3C 3D 3S", "4C 4D 4S"])), (1, meld(&["7H 8H 9H"]))],
    );
    assert_eq!(
        game.table().len(),
        3,
        "§5 new melds after the contract, the same turn"
    );
    let (game, _) = play_all(&game, &[(1, layoff(1, "3H"))]);
    assert_eq!(game.table()[0].reading.len(), 4, "§5 lay off after the contract");
    let (_, events) = play_all(&game, &[(1, discard("KS"))]);
    assert_eq!(
        deal_ended(&events),
        Some(DealEnd::WentOut { seat: Seat(1) }),
        "§5 going out"
    );
}

#[test]
fn rules_5_rescuing_a_wild_and_playing_it_this_turn() {
    let rules = rules_with(Variant::Push, serde_json::json!({"ten_every_deal": true}));
    let deck = stacked_deck(&rules, 4, 0, 1, &["", "5C 5D 2H KD KH AS 2S 3S 5S 2S"], "KS", "");
    let (game, _) = stacked_game(rules, 4, 0, vec![deck]);
    let (game, _) = play_all(&game, &[(1, draw(DrawSource::Discard))]);
    let (game, _) = play_all(
        &game,
        &[
            (1, meld_as(&[("5C 5D 2H", "2H=5"), ("KS KD KH", "")])),
            (1, meld(&["AS 2S 3S"])),
        ],
    );
    let (set, kings, run) = (game.table()[0].id, game.table()[1].id, game.table()[2].id);
    let swap = |meld_id, c: &str| Action::Swap {
        meld_id,
        card: card(c),
        end: None,
    };
    assert_eq!(
        refused(&game, 1, swap(run, "2S")),
        "no_wild_for_card",
        "§5 a two used as a natural card cannot be rescued"
    );
    let (game, _) = play_all(&game, &[(1, swap(set, "5S"))]);
    assert_eq!(
        game.must_play(),
        &[card("2H")],
        "§5 the rescued wild comes to hand"
    );
    assert_eq!(
        refused(&game, 1, discard("2S")),
        "freed_wild_in_hand",
        "§5 it must be used on the table this turn"
    );
    let (game, _) = play_all(&game, &[(1, layoff_as(kings, "2H", "2H=K"))]);
    assert_eq!(
        game.table()[1].reading.len(),
        4,
        "§5 the rescued wild is laid off"
    );
    let (_, events) = play_all(&game, &[(1, discard("2S"))]);
    assert_eq!(
        deal_ended(&events),
        Some(DealEnd::WentOut { seat: Seat(1) }),
        "§5 all but one melded, the last discarded"
    );
}

#[test]
fn rules_5_stock_exhausted_ends_the_deal_and_both_teams_score() {
    let rules = push();
    let (mut game, _) = stacked_game(
        rules.clone(),
        4,
        0,
        vec![stacked_deck(&rules, 4, 0, 1, &[], "9C", "")],
    );
    for _ in 0..500 {
        let (seat, _) = game.turn().expect("playing");
        let hands: Vec<Vec<Card>> = (0..4).map(|s| game.hand(Seat(s)).to_vec()).collect();
        let (g, events) = play_all(&game, &[(seat.0, draw(DrawSource::Stock))]);
        if let Some(end) = deal_ended(&events) {
            assert_eq!(
                end,
                DealEnd::StockExhausted,
                "§5 drawing from an empty stock ends the deal"
            );
            let team0 = value(&rules, &hands[0]) + value(&rules, &hands[2]);
            let team1 = value(&rules, &hands[1]) + value(&rules, &hands[3]);
            let ended = events
                .iter()
                .find_map(|e| match e {
                    Event::DealEnded { hands, .. } => Some(hands.clone()),
                    _ => None,
                })
                .expect("hands");
            let t0 = value(&rules, &ended[0]) + value(&rules, &ended[2]);
            let t1 = value(&rules, &ended[1]) + value(&rules, &ended[3]);
            assert!(t0 >= team0 && t1 >= team1, "hands only grew in the last draw");
            assert_eq!(
                deal_scores(&events),
                vec![t0, t1, t0, t1],
                "§5 if the stock ran out, both teams score"
            );
            return;
        }
        let drawn = *g.hand(seat).last().expect("drawn");
        game = play_all(&g, &[(seat.0, Action::Discard { card: drawn })]).0;
    }
    panic!("the deal never ended");
}

#[test]
fn rules_5_individual_play_each_scores_their_own_hand() {
    let rules = rules_with(Variant::Push, serde_json::json!({"individual": true}));
    let deck = stacked_deck(&rules, 5, 0, 1, &["", "3C 3D 3S 4C 4D 4S"], "9C", "");
    let (game, _) = stacked_game(rules.clone(), 5, 0, vec![deck]);
    assert_eq!(
        game.census().len(),
        162,
        "§5 individual: a third pack with its 2 jokers"
    );
    let hands: Vec<i32> = (0..5).map(|s| value(&rules, game.hand(Seat(s)))).collect();
    let (_, events) = seat_1_goes_out(&game);
    assert_eq!(
        deal_scores(&events),
        vec![hands[0], 0, hands[2], hands[3], hands[4]],
        "§5 individual scores"
    );
}

/// A game whose seat 1, down and in the play phase, holds `hand`, with `table` (owned by
/// seat 1) as the only melds: built through the saved form (`Game` serialises, format 1), with
/// the other cards dealt out to the other hands, the discard pile and the stock.
fn crafted(rules: &Ruleset, hand: &str, table: &[engine::Reading]) -> engine::Game {
    let (game, _) = stacked_game(
        rules.clone(),
        4,
        0,
        vec![stacked_deck(rules, 4, 0, 1, &[], "9C", "")],
    );
    let hand = crate::helpers::cards(hand);
    let mut rest = game.census();
    for c in hand
        .iter()
        .copied()
        .chain(table.iter().flat_map(engine::Reading::cards))
    {
        let k = rest.iter().position(|r| *r == c).expect("a card of the pack");
        rest.remove(k);
    }
    let mut state = serde_json::to_value(&game).expect("a game serialises");
    state["hands"] = serde_json::json!([&rest[..6], hand, &rest[6..12], &rest[12..18]]);
    state["discard"] = serde_json::json!([rest[18]]);
    state["stock"] = serde_json::json!(&rest[19..]);
    state["table"] = serde_json::json!(
        table
            .iter()
            .enumerate()
            .map(|(k, r)| serde_json::json!({"id": k + 1, "owner": 1, "reading": r}))
            .collect::<Vec<_>>()
    );
    state["next_meld_id"] = serde_json::json!(table.len() + 1);
    state["down"] = serde_json::json!([false, true, false, false]);
    state["turn"] = serde_json::json!(1);
    state["phase"] = serde_json::json!("play");
    let game: engine::Game = serde_json::from_value(state).expect("the crafted game loads");
    crate::play_helpers::assert_conserved(&game, "crafted game");
    game
}

#[test]
fn rules_5_rescuing_a_wild_that_fits_only_a_new_meld() {
    let rules = push();
    // A full run of clubs (13 cards) with the joker as 7C: no wild fits on it any more, and
    // it is the only meld on the table. The rescued joker can only start a new meld.
    let full = engine::analyse(
        &rules,
        &engine::ProposedMeld {
            cards: crate::helpers::cards("AC 2C 3C 4C 5C 6C JK 8C 9C TC JC QC KC"),
            kind: Some(engine::MeldKind::Run),
            wilds: vec![engine::Designation {
                card: Card::JOKER,
                represents: engine::Stands::Card(card("7C")),
            }],
        },
    )
    .readings
    .into_iter()
    .next()
    .expect("a legal full run");
    let game = crafted(&rules, "7C 9H 9S 5D", &[full]);
    let swap = Action::Swap {
        meld_id: 1,
        card: card("7C"),
        end: None,
    };
    let (game, _) = play_all(&game, &[(1, swap)]);
    assert_eq!(
        game.must_play(),
        &[Card::JOKER],
        "§5 rescuing a wild: allowed when it can go into a new meld after the contract"
    );
    assert_eq!(
        refused(&game, 1, discard("5D")),
        "freed_wild_in_hand",
        "§5 the rescued wild must be used on the table in the same turn"
    );
    let legal = game.legal_actions(Seat(1));
    assert!(
        legal.contains(&engine::LegalAction::Leave)
            && !legal
                .iter()
                .any(|a| matches!(a, engine::LegalAction::Discard { .. })),
        "§5 no discard while the wild is in hand; leaving is always legal: {legal:?}"
    );
    let (game, _) = play_all(&game, &[(1, meld(&["JK 9H 9S"]))]);
    assert!(game.must_play().is_empty(), "§5 the wild is used in a new meld");
    let (_, events) = play_all(&game, &[(1, discard("5D"))]);
    assert_eq!(
        deal_ended(&events),
        Some(DealEnd::WentOut { seat: Seat(1) }),
        "§5 the turn ends, here by going out"
    );
}

#[test]
fn rules_5_rescuing_a_wild_refused_when_it_could_go_nowhere() {
    let rules = push();
    let full = engine::analyse(
        &rules,
        &engine::ProposedMeld {
            cards: crate::helpers::cards("AC 2C 3C 4C 5C 6C JK 8C 9C TC JC QC KC"),
            kind: Some(engine::MeldKind::Run),
            wilds: vec![engine::Designation {
                card: Card::JOKER,
                represents: engine::Stands::Card(card("7C")),
            }],
        },
    )
    .readings
    .into_iter()
    .next()
    .expect("a legal full run");
    // 9H and 5D make no meld with the joker: the turn could never end.
    let game = crafted(&rules, "7C 9H 5D", &[full]);
    let swap = Action::Swap {
        meld_id: 1,
        card: card("7C"),
        end: None,
    };
    assert_eq!(
        refused(&game, 1, swap),
        "swap_not_allowed",
        "§5 a rescue whose wild could go nowhere this turn is refused (push has no taking back)"
    );
}

#[test]
fn rules_5_an_all_wild_set_takes_its_rank_from_the_first_natural_laid_off() {
    let rules = push();
    // Deal 2 (a set and a run of four): seat 2 goes down with three jokers named only as a
    // set, then lays off a natural nine on them.
    let deal2 = stacked_deck(&rules, 4, 1, 2, &["", "", "JK JK JK 5H 6H 7H 8H"], "9C", "");
    let (game, _) = stacked_game(
        rules.clone(),
        4,
        0,
        vec![
            stacked_deck(&rules, 4, 0, 1, &["", "3C 3D 3S 4C 4D 4S"], "9D", ""),
            deal2,
        ],
    );
    let (game, _) = play_all(
        &game,
        &[
            (1, draw(DrawSource::Discard)),
            (1, meld(&["3C 3D 3S", "4C 4D 4S"])),
            (1, discard("9D")),
        ],
    );
    assert_eq!((game.deal(), game.turn().expect("playing").0), (2, Seat(2)));
    let set_of_jokers = engine::ProposedMeld {
        cards: crate::helpers::cards("JK JK JK"),
        kind: Some(engine::MeldKind::Set),
        wilds: Vec::new(),
    };
    let go_down = Action::Meld {
        melds: vec![
            set_of_jokers,
            engine::ProposedMeld::of(&crate::helpers::cards("5H 6H 7H 8H")),
        ],
    };
    let (game, _) = play_all(&game, &[(2, draw(DrawSource::Discard)), (2, go_down)]);
    let set = &game.table()[0];
    assert_eq!(
        set.reading.rank(),
        None,
        "§5 an all-wild set naming only its kind has no rank yet"
    );
    // Laying off the last card goes out; the event holds the set as it then lay.
    let (_, events) = play_all(&game, &[(2, layoff(set.id, "9C"))]);
    let set = events
        .iter()
        .find_map(|e| match e {
            Event::LaidOff { reading, .. } => Some(reading.clone()),
            _ => None,
        })
        .expect("laid off");
    assert_eq!(
        set.rank(),
        Some(engine::Rank::Nine),
        "§5 the first natural laid off fixes the rank"
    );
    assert!(
        set.slots()
            .iter()
            .all(|s| s.represents == engine::Stands::Rank(engine::Rank::Nine)),
        "§5 every joker now stands for a nine"
    );
}

/// A choice written down in docs/rules.md#push-draw: the push draw with one stock card left pushes
/// the top discard and that last card to the left; the drawer then finds the stock empty and the
/// deal ends there (§5 "Stock exhausted"), the pushed cards counting in the left player's hand.
#[test]
fn choice_push_draw_with_one_stock_card_left() {
    let rules = push();
    let (game, _) = stacked_game(
        rules.clone(),
        4,
        0,
        vec![stacked_deck(&rules, 4, 0, 1, &[], "9C", "")],
    );
    let game = crate::play_helpers::with_stock(&game, 1);
    let state = serde_json::to_value(&game).expect("json");
    let last: Card = serde_json::from_value(state["stock"][0].clone()).expect("the one stock card");
    let left_hand = game.hand(Seat(2)).len();
    let (game, events) = play_all(&game, &[(1, draw(DrawSource::Stock))]);
    let pushed = events.iter().find_map(|e| match e {
        Event::Pushed {
            to, discard, stock, ..
        } => Some((*to, *discard, *stock)),
        _ => None,
    });
    assert_eq!(
        pushed,
        Some((Seat(2), card("9C"), Some(last))),
        "the upcard and the last stock card go left"
    );
    assert_eq!(
        deal_ended(&events),
        Some(DealEnd::StockExhausted),
        "then the stock is empty"
    );
    let hands = events
        .iter()
        .find_map(|e| match e {
            Event::DealEnded { hands, .. } => Some(hands.clone()),
            _ => None,
        })
        .expect("the hands at the end");
    assert_eq!(
        hands[2].len(),
        left_hand + 2,
        "the pushed cards count for the left player"
    );
    assert_eq!(hands[1].len(), 6, "the drawer got nothing");
    let team0 = value(&rules, &hands[0]) + value(&rules, &hands[2]);
    let team1 = value(&rules, &hands[1]) + value(&rules, &hands[3]);
    assert_eq!(
        deal_scores(&events),
        vec![team0, team1, team0, team1],
        "both teams score"
    );
    assert_eq!(game.deal(), 2);
}

/// A choice written down in docs/rules.md#push-leaving: a leaver in push partnerships. The leaver's
/// hand is set aside and still counts for the team in the deal they left (leaving never sheds a
/// heavy hand); the partner plays on for the team, whose deal score is added to the partner's total
/// only (the leaver's deal score is 0).
#[test]
fn choice_push_a_leaver_in_partnerships() {
    let rules = push();
    let deck = stacked_deck(&rules, 4, 0, 1, &["", "3C 3D 3S 4C 4D 4S"], "9C", "");
    let (game, _) = stacked_game(rules.clone(), 4, 0, vec![deck]);
    let leaver = value(&rules, game.hand(Seat(2)));
    let (game, _) = play_all(&game, &[(2, Action::Leave {})]);
    let opponents = value(&rules, game.hand(Seat(1))) + value(&rules, game.hand(Seat(3)));
    let partner = value(&rules, game.hand(Seat(0)));
    let (game, events) = seat_1_goes_out(&game);
    assert_eq!(deal_ended(&events), Some(DealEnd::WentOut { seat: Seat(1) }));
    assert!(opponents > 0 && leaver > 0);
    assert_eq!(
        deal_scores(&events),
        vec![partner + leaver, 0, 0, 0],
        "team 0 scores the partner's hand and the leaver's set-aside hand; the leaver's deal score is 0"
    );
    assert_eq!(
        game.totals()[..3],
        [partner + leaver, 0, 0],
        "only the partner's total grows"
    );
}

/// The same leaver, played to the end of the game: in later deals the team is the partner's
/// hand alone; the partner is placed among the finishers by the team's total, and the leaver
/// takes the two highest finishers' totals (§2) and the last place.
#[test]
fn choice_push_a_leaver_in_partnerships_to_the_end() {
    let rules = push();
    let deck = stacked_deck(&rules, 4, 0, 1, &["", "3C 3D 3S 4C 4D 4S"], "9C", "");
    let (game, _) = stacked_game(rules.clone(), 4, 0, vec![deck]);
    let leaver = value(&rules, game.hand(Seat(2)));
    let (mut game, _) = play_all(&game, &[(2, Action::Leave {})]);
    let partner = value(&rules, game.hand(Seat(0)));
    let mut scores = Vec::new();
    let mut steps = 0;
    while game.status() == engine::Status::Playing {
        let (seat, _) = game.turn().expect("a seat in turn");
        assert_ne!(seat, Seat(2), "the leaver is out of the rotation");
        let action = game
            .bot_choice(seat, engine::bot::Level::Normal)
            .expect("a bot move");
        let (next, events) = crate::play_helpers::play_checked(&game, seat, action, "bots");
        for e in &events {
            if let Event::DealEnded { scores: s, .. } = e {
                scores.push(s.clone());
            }
        }
        game = next;
        steps += 1;
        assert!(steps < 20_000, "the game ends");
    }
    assert_eq!(game.status(), engine::Status::Finished);
    assert_eq!(scores.len(), 5, "five deals");
    assert_eq!(
        scores[0][0],
        partner + leaver,
        "deal 1 counts the leaver's set-aside hand for the team"
    );
    assert!(
        scores.iter().all(|s| s[2] == 0 && s[1] == s[3]),
        "the leaver scores nothing per deal; the opponents share their team's score: {scores:?}"
    );
    let team = |seat: usize| scores.iter().map(|s| s[seat]).sum::<i32>();
    let totals = game.totals();
    assert_eq!(
        (totals[0], totals[1], totals[3]),
        (team(0), team(1), team(1)),
        "the partner's total is the team's: {scores:?}"
    );
    let highest_two = team(0).max(team(1)) + team(1);
    assert_eq!(
        totals[2], highest_two,
        "§2 the leaver takes the two highest finishers' totals"
    );
    let standings = game.standings().expect("standings");
    let place = |seat: u8| {
        standings
            .iter()
            .find(|s| s.seat == Seat(seat))
            .map(|s| (s.place, s.left))
            .expect("a standing")
    };
    let (partner_place, opponents_place) = match team(0).cmp(&team(1)) {
        std::cmp::Ordering::Less => (1, 2),
        std::cmp::Ordering::Equal => (1, 1),
        std::cmp::Ordering::Greater => (3, 1),
    };
    assert_eq!(
        (place(0), place(1), place(3)),
        (
            (partner_place, false),
            (opponents_place, false),
            (opponents_place, false)
        ),
        "finishers placed by their team totals: {standings:?}"
    );
    assert_eq!(place(2), (4, true), "the leaver is placed last");
}

/// §5: once a natural laid off in an earlier turn has given an all-wild set its rank, a natural
/// of another rank no longer fits it.
#[test]
fn rules_5_an_all_wild_set_keeps_the_rank_its_first_natural_gave() {
    let rules = crate::helpers::rules_with(Variant::Push, serde_json::json!({"ten_every_deal": true}));
    let hand = "JK JK JK 4C 4D 4S 9C KD QS 5H";
    let deck = stacked_deck(&rules, 4, 0, 1, &["", hand], "TS", "");
    let (game, _) = stacked_game(rules, 4, 0, vec![deck]);
    let set_of_jokers = engine::ProposedMeld {
        cards: crate::helpers::cards("JK JK JK"),
        kind: Some(engine::MeldKind::Set),
        wilds: Vec::new(),
    };
    let go_down = Action::Meld {
        melds: vec![
            set_of_jokers,
            engine::ProposedMeld::of(&crate::helpers::cards("4C 4D 4S")),
        ],
    };
    let (game, _) = play_all(&game, &[(1, draw(DrawSource::Discard)), (1, go_down)]);
    let set = game.table()[0].id;
    assert_eq!(game.table()[0].reading.rank(), None, "no rank yet");
    let (game, _) = play_all(&game, &[(1, layoff(set, "9C")), (1, discard("QS"))]);
    assert_eq!(
        game.table()[0].reading.rank(),
        Some(engine::Rank::Nine),
        "§5 the first natural fixed the rank"
    );
    // The others take the queen and throw it back; seat 1 takes it again.
    let around: Vec<(u8, Action)> = [2, 3, 0]
        .into_iter()
        .flat_map(|s| [(s, draw(DrawSource::Discard)), (s, discard("QS"))])
        .chain([(1, draw(DrawSource::Discard))])
        .collect();
    let (game, _) = play_all(&game, &around);
    assert_eq!(
        refused(&game, 1, layoff(set, "KD")),
        "illegal_meld",
        "§5 a king no longer fits a set of nines"
    );
    assert_eq!(
        refused(&game, 1, layoff(set, "QS")),
        "illegal_meld",
        "§5 nor a queen"
    );
}
