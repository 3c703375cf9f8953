//! Scenarios for docs/rules.md#continental on stacked decks, one per rule.

use engine::{Action, DealEnd, DrawSource, Event, Ruleset, Seat, Status, Variant};

use crate::helpers::rules_with;
use crate::play_helpers::{
    deal_ended, deal_scores, draw, layoff, meld, play_all, refused, stacked_deck, stacked_game,
};

fn continental() -> Ruleset {
    Ruleset::default_for(Variant::Continental)
}

/// Fifteen clubs and diamonds without a wild: 3C..KC and 3D..6D (4+4+3 and 4).
const NO_WILD: &str = "3C 4C 5C 6C 7C 8C 9C TC JC QC KC 3D 4D 5D 6D";
const NO_WILD_MELDS: [&str; 2] = ["3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "3D 4D 5D 6D"];

#[test]
fn rules_4_deal_fifteen_three_at_a_time() {
    let rules = continental();
    let (game, _) = stacked_game(
        rules.clone(),
        3,
        0,
        vec![stacked_deck(&rules, 3, 0, 1, &[], "KS", "")],
    );
    let deck = &game.config().stacked_decks.as_ref().expect("stacked")[0];
    let seat1 = game.hand(Seat(1));
    assert_eq!(seat1.len(), 15, "§4 15 cards each");
    assert_eq!(&seat1[..3], &deck[..3], "§4 three at a time: the first packet");
    assert_eq!(&seat1[3..6], &deck[9..12], "§4 three at a time: the second round");
    assert_eq!(
        game.discard_pile(),
        &deck[45..46],
        "§4 the next card is turned up"
    );
}

#[test]
fn rules_4_going_out_before_drawing_with_bonuses() {
    let rules = continental();
    let (game, _) = stacked_game(
        rules.clone(),
        2,
        0,
        vec![stacked_deck(&rules, 2, 0, 1, &["", NO_WILD], "KS", "")],
    );
    let (game, events) = play_all(&game, &[(1, meld(&NO_WILD_MELDS))]);
    assert_eq!(
        deal_ended(&events),
        Some(DealEnd::WentOut { seat: Seat(1) }),
        "§4 out with the 15 dealt cards"
    );
    // 1 for the game, 10 for no draw, 10 for no wild.
    assert_eq!(
        deal_scores(&events),
        vec![-21, 21],
        "§4 payments: game, no draw, no wild"
    );
    assert_eq!(game.status(), Status::Finished, "§4 one deal by default");
    assert_eq!(
        game.standings().expect("standings")[0].seat,
        Seat(1),
        "§4 the highest total wins"
    );
}

#[test]
fn rules_4_going_out_after_one_draw_pays_wilds_and_one_suit() {
    let rules = continental();
    let hand = "3H 4H JK 6H 7H 8H 9H 2S JH QH KH AH 3H 4H 5H";
    let (game, _) = stacked_game(
        rules.clone(),
        2,
        0,
        vec![stacked_deck(&rules, 2, 0, 1, &["", hand], "KS", "9C")],
    );
    let (game, _) = play_all(&game, &[(1, draw(DrawSource::Stock))]);
    let melds = ["3H 4H JK 6H 7H", "8H 9H 2S JH", "QH KH AH", "3H 4H 5H"];
    let (_, events) = play_all(&game, &[(1, meld(&melds))]);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Discarded { seat: Seat(1), .. })),
        "§4 the 16th card is discarded"
    );
    // 1 + 2 (joker) + 1 (deuce as wild) + 7 (one draw) + 10 (all hearts).
    assert_eq!(
        deal_scores(&events),
        vec![-21, 21],
        "§4 payments for wilds and bonuses"
    );
}

#[test]
fn rules_4_bonuses_option_off_pays_only_game_and_wilds() {
    let rules = rules_with(Variant::Continental, serde_json::json!({"bonuses": false}));
    let (game, _) = stacked_game(
        rules.clone(),
        2,
        0,
        vec![stacked_deck(&rules, 2, 0, 1, &["", NO_WILD], "KS", "")],
    );
    let (_, events) = play_all(&game, &[(1, meld(&NO_WILD_MELDS))]);
    assert_eq!(
        deal_scores(&events),
        vec![-1, 1],
        "§4 bonuses off: 1 for the game"
    );
}

#[test]
fn rules_4_all_at_once_in_sequences_only_no_claims_no_lay_offs() {
    let rules = continental();
    let hand = "3C 4C 5C 6C 7C 8C 9C TC JC QC KC 3D 4D 5D 7S";
    let (game, _) = stacked_game(
        rules.clone(),
        2,
        0,
        vec![stacked_deck(&rules, 2, 0, 1, &["", hand], "KS", "6D")],
    );
    assert_eq!(
        refused(&game, 0, Action::Claim {}),
        "not_in_variant",
        "§4 no claims"
    );
    assert_eq!(
        refused(&game, 1, meld(&["3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "3D 4D 5D"])),
        "contract_not_met",
        "§4 all 15 cards"
    );
    let (game, _) = play_all(&game, &[(1, draw(DrawSource::Stock))]);
    assert_eq!(
        refused(&game, 1, meld(&["3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "3D 4D 5D"])),
        "contract_not_met",
        "§4 no partial melding"
    );
    assert_eq!(
        refused(&game, 1, layoff(1, "7S")),
        "not_in_variant",
        "§4 no lay-offs"
    );
    let (_, events) = play_all(
        &game,
        &[(1, meld(&["3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "3D 4D 5D 6D"]))],
    );
    assert!(events.contains(&Event::Discarded {
        seat: Seat(1),
        card: "7S".parse().expect("card")
    }));
}

#[test]
fn rules_4_only_a_player_who_has_not_drawn_goes_out_before_drawing() {
    let rules = continental();
    let (game, _) = stacked_game(
        rules.clone(),
        2,
        0,
        vec![stacked_deck(&rules, 2, 0, 1, &["", NO_WILD], "KS", "9C 8D 7D")],
    );
    let (game, _) = play_all(
        &game,
        &[
            (1, draw(DrawSource::Stock)),
            (
                1,
                Action::Discard {
                    card: "9C".parse().expect("c"),
                },
            ),
        ],
    );
    let (game, _) = play_all(&game, &[(0, draw(DrawSource::Stock))]);
    let drawn = *game.hand(Seat(0)).last().expect("drawn");
    let (game, _) = play_all(&game, &[(0, Action::Discard { card: drawn })]);
    assert_eq!(
        refused(&game, 1, meld(&NO_WILD_MELDS)),
        "wrong_phase",
        "§4 after a draw in the deal, draw first"
    );
}

#[test]
fn rules_4_winner_deals_next_or_the_deal_passes_left() {
    for (options, dealer, why) in [
        (serde_json::json!({"deals": 2}), 2, "§4 the winner deals next"),
        (
            serde_json::json!({"deals": 2, "deal_passes_left": true}),
            1,
            "§4 option deal_passes_left",
        ),
    ] {
        let rules = rules_with(Variant::Continental, options);
        let deck = stacked_deck(&rules, 3, 0, 1, &["", "", NO_WILD], "KS", "9C");
        let (game, _) = stacked_game(rules, 3, 0, vec![deck]);
        let (game, _) = play_all(
            &game,
            &[
                (1, draw(DrawSource::Stock)),
                (
                    1,
                    Action::Discard {
                        card: "9C".parse().expect("c"),
                    },
                ),
            ],
        );
        let (game, events) = play_all(&game, &[(2, meld(&NO_WILD_MELDS))]);
        assert_eq!(
            deal_scores(&events),
            vec![-21, -21, 42],
            "the winner collects from every player"
        );
        assert_eq!(game.dealer(), Seat(dealer), "{why}");
        assert_eq!(game.totals(), &[-21, -21, 42], "§4 totals accumulate");
    }
}

#[test]
fn rules_4_stock_exhausted_turns_over_all_but_the_top() {
    let rules = continental();
    let (mut game, _) = stacked_game(
        rules.clone(),
        2,
        0,
        vec![stacked_deck(&rules, 2, 0, 1, &[], "KS", "")],
    );
    let mut turned = false;
    while !turned {
        let (seat, _) = game.turn().expect("playing");
        let pile = game.discard_pile().to_vec();
        let (g, events) = play_all(&game, &[(seat.0, draw(DrawSource::Stock))]);
        if let Some(Event::StockTurnedOver { stock_count }) =
            events.iter().find(|e| matches!(e, Event::StockTurnedOver { .. }))
        {
            assert_eq!(
                *stock_count,
                pile.len() - 1,
                "§4 the pile except its top card becomes the stock"
            );
            assert_eq!(g.discard_pile(), &pile[pile.len() - 1..], "§4 the top card stays");
            assert_eq!(
                g.hand(seat).last(),
                pile.first(),
                "turned over without shuffling: the bottom card comes first"
            );
            turned = true;
        }
        let drawn = *g.hand(seat).last().expect("drawn");
        game = play_all(&g, &[(seat.0, Action::Discard { card: drawn })]).0;
    }
}

#[test]
fn rules_4_no_stock_left_ends_the_deal_without_winner() {
    // Play never empties both piles in continental (the pile holds every card not in a
    // hand), so the state is built: the stock's cards set aside, one card on the pile.
    let rules = continental();
    let (game, _) = stacked_game(
        rules.clone(),
        2,
        0,
        vec![stacked_deck(&rules, 2, 0, 1, &[], "KS", "")],
    );
    let game = crate::play_helpers::with_stock(&game, 0);
    let (_, events) = play_all(&game, &[(1, draw(DrawSource::Stock))]);
    assert_eq!(
        deal_ended(&events),
        Some(DealEnd::StockExhausted),
        "§4 no stock left: the deal ends"
    );
    assert_eq!(deal_scores(&events), vec![0, 0], "§4 no winner and no payments");
}

#[test]
fn rules_2_leaving_in_continental_the_leaver_scores_the_two_lowest_totals() {
    let rules = continental();
    let (game, _) = stacked_game(
        rules.clone(),
        4,
        0,
        vec![stacked_deck(&rules, 4, 0, 1, &["", NO_WILD], "KS", "")],
    );
    let (game, _) = play_all(&game, &[(3, Action::Leave {}), (1, meld(&NO_WILD_MELDS))]);
    assert_eq!(game.status(), Status::Finished);
    let totals = game.totals();
    assert_eq!(&totals[..3], &[-21, 42, -21], "§4 payments among the finishers");
    // The mirror of the two-highest rule (docs/rules.md#leaving): where the highest total wins, a
    // leaver must not profit from leaving, so they take the two lowest finishers' totals.
    assert_eq!(
        totals[3], -42,
        "§2 leaving (continental): the leaver scores the sum of the two lowest totals"
    );
    let leaver = game
        .standings()
        .expect("standings")
        .iter()
        .find(|s| s.seat == Seat(3))
        .expect("the leaver is placed");
    assert!(
        leaver.left && leaver.place == 4,
        "§2 leavers are placed after finishers"
    );
}

#[test]
fn rules_1_inner_gaps_take_the_wilds_in_the_order_laid_down() {
    let rules = continental();
    let hand = "5S 2C 7S JK 9S 3H 4H 5H 6H 8D 9D TD JC QC KC";
    let (game, _) = stacked_game(
        rules.clone(),
        2,
        0,
        vec![stacked_deck(&rules, 2, 0, 1, &["", hand], "KS", "")],
    );
    let (_, events) = play_all(
        &game,
        &[(
            1,
            meld(&["5S 2C 7S JK 9S", "3H 4H 5H 6H", "8D 9D TD", "JC QC KC"]),
        )],
    );
    let run = events
        .iter()
        .find_map(|e| match e {
            Event::Melded { melds, .. } => Some(melds[0].reading.clone()),
            _ => None,
        })
        .expect("melded");
    assert_eq!(
        crate::play_helpers::places(&run),
        ["5S=5S", "2C=6S", "7S=7S", "JK=8S", "9S=9S"],
        "§1 one reading: the deuce fills the first gap, the joker the second"
    );
    assert_eq!(deal_ended(&events), Some(DealEnd::WentOut { seat: Seat(1) }));
}

/// A choice written down in docs/rules.md#continental-deal: a deal with no winner (no stock left)
/// passes the deal to the left, even where the winner would deal next.
#[test]
fn choice_continental_a_deal_without_winner_passes_left() {
    let rules = rules_with(Variant::Continental, serde_json::json!({"deals": 2}));
    let (game, _) = stacked_game(
        rules.clone(),
        3,
        0,
        vec![stacked_deck(&rules, 3, 0, 1, &[], "KS", "")],
    );
    let game = crate::play_helpers::with_stock(&game, 0);
    let (game, events) = play_all(&game, &[(1, draw(DrawSource::Stock))]);
    assert_eq!(deal_ended(&events), Some(DealEnd::StockExhausted));
    assert_eq!(deal_scores(&events), vec![0, 0, 0], "no winner, no payments");
    assert_eq!(
        (game.deal(), game.dealer()),
        (2, Seat(1)),
        "no winner to deal: the deal passes left"
    );
}
