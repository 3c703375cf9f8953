//! Scenarios for docs/rules.md#contract_7 on stacked decks, one per rule.

use engine::{Action, DealEnd, DrawSource, Event, Ruleset, RunEnd, Seat, Variant};

use crate::helpers::card;
use crate::play_helpers::{
    deal_ended, deal_scores, discard, draw, layoff, meld, meld_as, play_all, quick_out_actions,
    quick_out_deck, refused, stacked_deck, stacked_game,
};

fn c7() -> Ruleset {
    Ruleset::default_for(Variant::Contract7)
}

#[test]
fn rules_3_card_values() {
    let rules = c7();
    let rows = [
        ("2C", 2, "2-9 face value"),
        ("9D", 9, "face value"),
        ("TD", 10, "T-K 10"),
        ("AS", 11, "aces 11"),
        ("JK", 50, "jokers 50"),
    ];
    for (c, v, why) in rows {
        assert_eq!(rules.card_value(card(c)), Some(v), "§3 {why}");
    }
}

#[test]
fn rules_3_going_out_needs_a_final_discard() {
    let rules = c7();
    let deck = stacked_deck(&rules, 2, 0, 1, &["", "3C 3D 3S 4C 4D 4S 4H"], "KS", "3H");
    let (game, _) = stacked_game(rules.clone(), 2, 0, vec![deck]);
    assert_eq!(game.hand(Seat(1)).len(), 7, "§3 deal 1 deals 7 cards");
    let (game, _) = play_all(&game, &[(1, draw(DrawSource::Stock))]);
    assert_eq!(
        refused(&game, 1, meld(&["3C 3D 3S 3H", "4C 4D 4S 4H"])),
        "final_discard_required",
        "§3 may not meld the last card"
    );
    let (game, _) = play_all(&game, &[(1, meld(&["3C 3D 3S", "4C 4D 4S 4H"]))]);
    assert_eq!(
        refused(&game, 1, layoff(1, "3H")),
        "final_discard_required",
        "§3 may not lay off the last card"
    );
    let before: i32 = game
        .hand(Seat(0))
        .iter()
        .map(|c| rules.card_value(*c).expect("v"))
        .sum();
    let (_, events) = play_all(&game, &[(1, discard("3H"))]);
    assert_eq!(deal_ended(&events), Some(DealEnd::WentOut { seat: Seat(1) }));
    assert_eq!(
        deal_scores(&events),
        vec![before, -10],
        "§3 dropping the contract and going out in one turn scores -10"
    );
}

#[test]
fn rules_3_going_out_in_a_later_turn_scores_zero() {
    let rules = c7();
    let deck = stacked_deck(&rules, 2, 0, 1, &["", "3C 3D 3S 4C 4D 4S 8H"], "KS", "9C 8D 3H");
    let (game, _) = stacked_game(rules, 2, 0, vec![deck]);
    let (game, _) = play_all(
        &game,
        &[(1, draw(DrawSource::Stock)), (1, meld(&["3C 3D 3S", "4C 4D 4S"]))],
    );
    let (game, _) = play_all(&game, &[(1, discard("9C")), (0, draw(DrawSource::Stock))]);
    let (game, _) = play_all(
        &game,
        &[(
            0,
            Action::Discard {
                card: *game.hand(Seat(0)).last().expect("card"),
            },
        )],
    );
    let (game, events) = play_all(&game, &[(1, draw(DrawSource::Stock)), (1, layoff(1, "3H"))]);
    assert!(deal_ended(&events).is_none(), "§3 laying off is not going out");
    let (_, events) = play_all(&game, &[(1, discard("8H"))]);
    assert_eq!(
        deal_ended(&events),
        Some(DealEnd::WentOut { seat: Seat(1) }),
        "§3 out by the final discard"
    );
    assert_eq!(
        deal_scores(&events)[1],
        0,
        "§3 going out in a later turn scores 0, not -10"
    );
}

#[test]
fn rules_3_jokers_only_wild_and_sets_of_jokers() {
    let rules = c7();
    let deck = stacked_deck(&rules, 2, 0, 1, &["", "TC JK JK AH AD AS 9C"], "KS", "5D");
    let (game, _) = stacked_game(rules, 2, 0, vec![deck]);
    let (game, _) = play_all(&game, &[(1, draw(DrawSource::Stock))]);
    let (game, _) = play_all(
        &game,
        &[(1, meld_as(&[("TC JK JK", "JK=T JK=T"), ("AH AD AS", "")]))],
    );
    let set = &game.table()[0].reading;
    assert_eq!(
        (set.naturals(), set.wilds()),
        (1, 2),
        "§3 T JK JK is a trio of tens"
    );
    assert_eq!(
        game.table()[1].reading.wilds(),
        0,
        "§3 red aces are natural in contract_7"
    );
}

#[test]
fn rules_3_joker_moves_to_an_end_of_its_own_run() {
    let rules = c7();
    let deal2 = stacked_deck(&rules, 2, 1, 2, &["7C 7D 7S 5H 6H JK 8H 7H", ""], "KS", "2C");
    let (game, _) = stacked_game(rules.clone(), 2, 0, vec![quick_out_deck(&rules, 2, 0), deal2]);
    let (game, _) = play_all(&game, &quick_out_actions(&rules, 2, 0));
    assert_eq!(game.hand(Seat(0)).len(), 8, "§3 deal 2 deals 8 cards");
    let (game, _) = play_all(
        &game,
        &[
            (0, draw(DrawSource::Stock)),
            (0, meld(&["7C 7D 7S", "5H 6H JK 8H"])),
        ],
    );
    let run = game.table()[1].id;
    let swap = |end| Action::Swap {
        meld_id: run,
        card: card("7H"),
        end,
    };
    assert_eq!(
        refused(&game, 0, swap(None)),
        "end_required",
        "§3 the joker goes to either end: say which"
    );
    let (game, events) = play_all(&game, &[(0, swap(Some(RunEnd::High)))]);
    let cards: Vec<String> = game.table()[1].reading.cards().map(|c| c.to_string()).collect();
    assert_eq!(
        cards,
        ["5H", "6H", "7H", "8H", "JK"],
        "§3 A 2 3 JK 5 + 4 becomes A 2 3 4 5 JK"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Swapped { freed: None, .. })),
        "the joker stays on the table"
    );
}

#[test]
fn rules_3_joker_moves_to_another_run_never_below_four() {
    let rules = c7();
    let deal1 = stacked_deck(&rules, 2, 0, 1, &["", "3C 3D 3S 4C 4D 4S 4H"], "KS", "9C");
    // Deal 2 (dealer 1): seat 0 goes out at once; deal 3 (dealer 0): seat 1 holds two runs.
    let deal2 = stacked_deck(&rules, 2, 1, 2, &["7C 7D 7S 7H 5H 6H JK 8H", ""], "KS", "2C");
    let deal3 = stacked_deck(&rules, 2, 0, 3, &["", "6H 7H 8H JK 9C TC JC QC JK"], "KS", "3S");
    let (game, _) = stacked_game(rules.clone(), 2, 0, vec![deal1, deal2, deal3]);
    let (game, _) = play_all(&game, &quick_out_actions(&rules, 2, 0));
    let (game, _) = play_all(
        &game,
        &[
            (0, draw(DrawSource::Stock)),
            (0, meld_as(&[("7C 7D 7S 7H", ""), ("5H 6H JK 8H", "JK=7H")])),
            (0, discard("2C")),
        ],
    );
    assert_eq!(game.deal(), 3);
    let (game, _) = play_all(
        &game,
        &[
            (1, draw(DrawSource::Stock)),
            (
                1,
                meld_as(&[("6H 7H 8H JK", "JK=9H"), ("9C TC JC QC JK", "JK=KC")]),
            ),
        ],
    );
    let (short, long) = (game.table()[0].id, game.table()[1].id);
    let mv = |from_meld, to_meld, to_end| Action::MoveJoker {
        from_meld,
        end: RunEnd::High,
        to_meld,
        to_end,
    };
    assert_eq!(
        refused(&game, 1, mv(short, long, None)),
        "run_too_short",
        "§3 no move may leave a run under 4 cards"
    );
    let (game, _) = play_all(&game, &[(1, mv(long, short, Some(RunEnd::Low)))]);
    let cards: Vec<String> = game.table()[0].reading.cards().map(|c| c.to_string()).collect();
    assert_eq!(
        cards,
        ["JK", "6H", "7H", "8H", "JK"],
        "§3 an end joker moves to another run"
    );
    assert_eq!(game.table()[1].reading.len(), 4);
}

#[test]
fn rules_3_claims_as_in_may_i_with_a_penalty_card() {
    let rules = c7();
    let deck = stacked_deck(&rules, 3, 0, 1, &[], "KS", "9C QD");
    let (game, _) = stacked_game(rules, 3, 0, vec![deck]);
    let (game, events) = play_all(&game, &[(0, Action::Claim {}), (1, draw(DrawSource::Stock))]);
    assert!(
        events.contains(&Event::ClaimWon {
            seat: Seat(0),
            card: card("KS"),
            penalty: Some(card("QD"))
        }),
        "§3 claims with a penalty card"
    );
    assert_eq!(game.hand(Seat(0)).len(), 9);
}

#[test]
fn rules_3_seven_and_eight_players_use_three_packs() {
    for (players, cards) in [(6, 106), (7, 159), (8, 159)] {
        let (game, _) = engine::Game::new(engine::GameConfig::new(c7(), players), engine::Seed::from_u64(5))
            .expect("setup");
        assert_eq!(game.census().len(), cards, "§3 {players} players");
        assert!(
            (0..players).all(|s| game.hand(Seat(s as u8)).len() == 7),
            "§3 deal 1 deals 7"
        );
    }
}
