//! Scenarios for docs/rules.md#may_i on stacked decks, one per rule.

use engine::{Action, Card, DealEnd, DrawSource, Event, Ruleset, Seat, Status, Variant, Viewer};

use crate::helpers::{card, rules_with};
use crate::play_helpers::{
    deal_ended, deal_scores, discard, draw, layoff, layoff_as, meld, play_all, quick_out_actions,
    quick_out_deck, refused, stacked_deck, stacked_game,
};

fn may_i() -> Ruleset {
    Ruleset::default_for(Variant::MayI)
}

#[test]
fn rules_2_going_out_by_discarding_the_last_card_scores_hands() {
    let rules = may_i();
    let (game, _) = stacked_game(rules.clone(), 2, 0, vec![quick_out_deck(&rules, 2, 0)]);
    let left_over: i32 = game
        .hand(Seat(0))
        .iter()
        .map(|c| rules.card_value(*c).expect("value"))
        .sum();
    let (game, events) = play_all(&game, &quick_out_actions(&rules, 2, 0));
    assert_eq!(
        deal_ended(&events),
        Some(DealEnd::WentOut { seat: Seat(1) }),
        "§2 going out by discarding"
    );
    assert_eq!(
        deal_scores(&events),
        vec![left_over, 0],
        "§2 score: cards left; the player out scores 0"
    );
    assert_eq!(game.deal(), 2, "the next deal follows");
    assert_eq!(game.dealer(), Seat(1), "the deal passes to the left");
}

#[test]
fn rules_2_card_values() {
    let rules = may_i();
    let rows = [
        ("5C", 5, "2-9 count 5"),
        ("TD", 10, "T-K count 10"),
        ("KS", 10, "K counts 10"),
        ("AS", 20, "aces 20"),
        ("AH", 20, "red aces too"),
        ("JK", 50, "jokers 50"),
    ];
    for (c, v, why) in rows {
        assert_eq!(rules.card_value(card(c)), Some(v), "§2 {why}");
    }
}

#[test]
fn rules_2_a_joker_upcard_is_an_ordinary_first_discard() {
    let rules = may_i();
    let deck = stacked_deck(&rules, 2, 0, 1, &[], "JK", "");
    let (game, _) = stacked_game(rules, 2, 0, vec![deck]);
    assert_eq!(game.view(Viewer::Spectator).board.discard.top, Some(Card::JOKER));
    let (game, _) = play_all(&game, &[(1, draw(DrawSource::Discard))]);
    assert!(
        game.hand(Seat(1)).contains(&Card::JOKER),
        "the first player may take it"
    );
}

#[test]
fn rules_2_wild_limit_in_every_meld() {
    let rules = may_i();
    let deck = stacked_deck(&rules, 2, 0, 1, &["", "5C JK AH 7C 7D 7S JK JK AD"], "KS", "9C");
    let (game, _) = stacked_game(rules, 2, 0, vec![deck]);
    let (game, _) = play_all(&game, &[(1, draw(DrawSource::Stock))]);
    assert_eq!(
        refused(&game, 1, meld(&["5C JK AH", "7C 7D 7S"])),
        "illegal_meld",
        "§2 wilds may not outnumber naturals"
    );
    let (game, _) = play_all(&game, &[(1, meld(&["JK JK AD", "7C 7D 7S"]))]);
    assert_eq!(game.table().len(), 2, "§2 a wild trio is legal");
    assert_eq!(
        refused(&game, 1, layoff(1, "5C")),
        "illegal_meld",
        "§2 only wilds go on a wild trio"
    );
}

#[test]
fn rules_2_contract_exactly_its_melds() {
    let rules = may_i();
    let deck = stacked_deck(
        &rules,
        2,
        0,
        1,
        &["", "3C 3D 3S 4C 4D 4S 5C 5D 5S 5H"],
        "KS",
        "9C",
    );
    let (game, _) = stacked_game(rules, 2, 0, vec![deck]);
    let (game, _) = play_all(&game, &[(1, draw(DrawSource::Stock))]);
    assert_eq!(
        refused(&game, 1, meld(&["3C 3D 3S", "4C 4D 4S", "5C 5D 5S"])),
        "contract_not_met",
        "§2 three sets in deal 1 are illegal"
    );
    assert_eq!(
        refused(&game, 1, meld(&["3C 3D 3S"])),
        "contract_not_met",
        "§2 all the contract at once"
    );
    assert_eq!(
        refused(&game, 1, meld(&["3C 3D 3S", "5C 5D 5S 5H 5H"])),
        "card_not_in_hand",
        "from the own hand"
    );
    let (game, events) = play_all(&game, &[(1, meld(&["3C 3D 3S", "5C 5D 5S 5H"]))]);
    assert!(
        game.is_down(Seat(1)),
        "§1 contract melds may be longer than the minimum"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Melded { contract: true, .. }))
    );
}

#[test]
fn rules_2_after_going_down_only_lay_offs() {
    let rules = may_i();
    let deck = stacked_deck(
        &rules,
        2,
        0,
        1,
        &["3H 8C 8D 8S", "3C 3D 3S 4C 4D 4S 5C 5D 5S 3C"],
        "KS",
        "9C 4H",
    );
    let (game, _) = stacked_game(rules, 2, 0, vec![deck]);
    let (game, _) = play_all(
        &game,
        &[(1, draw(DrawSource::Stock)), (1, meld(&["3C 3D 3S", "4C 4D 4S"]))],
    );
    assert_eq!(
        refused(&game, 1, meld(&["5C 5D 5S"])),
        "already_down",
        "§2 no new meld after going down"
    );
    let (game, _) = play_all(&game, &[(1, layoff(1, "3C")), (1, discard("9C"))]);
    assert_eq!(game.table()[0].reading.len(), 4, "§2 lay off in the same turn");
    let (game, _) = play_all(&game, &[(0, draw(DrawSource::Stock))]);
    assert_eq!(
        refused(&game, 0, layoff(1, "3H")),
        "not_down",
        "§2 a player who has not gone down may not lay off"
    );
}

#[test]
fn rules_2_claims_settle_at_the_stock_draw_by_rotation() {
    let rules = may_i();
    let deck = stacked_deck(&rules, 3, 0, 1, &[], "KS", "9C QD 7H");
    let (game, _) = stacked_game(rules, 3, 0, vec![deck]);
    // Seat 1 is in turn; seats 2 and 0 ask for the upcard before seat 1 draws.
    let (game, events) = play_all(&game, &[(0, Action::Claim {}), (2, Action::Claim {})]);
    assert_eq!(events.len(), 2);
    assert_eq!(
        game.view(Viewer::Spectator).board.claims.pending,
        vec![Seat(0), Seat(2)],
        "pending claims are shown"
    );
    let (game, events) = play_all(&game, &[(1, draw(DrawSource::Stock))]);
    assert!(
        events.contains(&Event::ClaimWon {
            seat: Seat(2),
            card: card("KS"),
            penalty: Some(card("QD"))
        }),
        "§2 the claimant nearest after the player in turn wins, with the stock's top card as penalty: {events:?}"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::ClaimRefused { seat: Seat(0), .. })),
        "§2 the others are refused"
    );
    assert_eq!(
        game.hand(Seat(2)).len(),
        14,
        "§2 the claimant takes two cards and does not discard"
    );
    assert_eq!(
        game.turn(),
        Some((Seat(1), engine::Phase::Play)),
        "§2 order of play does not change"
    );
    let (game, _) = play_all(&game, &[(1, discard("9C"))]);
    assert_eq!(game.turn().expect("playing").0, Seat(2));
}

#[test]
fn rules_2_taking_the_discard_refuses_pending_claims() {
    let rules = may_i();
    let deck = stacked_deck(&rules, 3, 0, 1, &[], "KS", "");
    let (game, _) = stacked_game(rules, 3, 0, vec![deck]);
    let (game, events) = play_all(&game, &[(2, Action::Claim {}), (1, draw(DrawSource::Discard))]);
    assert!(
        events.contains(&Event::ClaimRefused {
            seat: Seat(2),
            reason: "taken".into()
        }),
        "§2 refused when taken"
    );
    assert_eq!(game.hand(Seat(2)).len(), 12);
}

#[test]
fn rules_2_claims_after_the_draw_settle_at_once_and_kill_the_pile() {
    let rules = may_i();
    let deck = stacked_deck(&rules, 3, 0, 1, &["", "6D"], "KS", "9C QD 7H 8H");
    let (game, _) = stacked_game(rules, 3, 0, vec![deck]);
    let (game, _) = play_all(&game, &[(1, draw(DrawSource::Stock)), (1, discard("6D"))]);
    // Seat 2 in turn; the pile is KS 6D.
    assert_eq!(
        refused(&game, 1, Action::Claim {}),
        "claim_not_allowed",
        "§2 the discarder may not claim it back"
    );
    assert_eq!(
        refused(&game, 2, Action::Claim {}),
        "claim_not_allowed",
        "the player in turn does not claim"
    );
    let (game, events) = play_all(&game, &[(2, draw(DrawSource::Stock)), (0, Action::Claim {})]);
    assert!(
        events.contains(&Event::ClaimWon {
            seat: Seat(0),
            card: card("6D"),
            penalty: Some(card("7H"))
        }),
        "§2 settled at once"
    );
    let view = game.view(Viewer::Spectator);
    assert!(
        view.board.discard.dead && view.board.discard.top == Some(card("KS")),
        "§2 the cards left are dead"
    );
    assert_eq!(
        refused(&game, 1, Action::Claim {}),
        "claim_not_allowed",
        "§2 nothing to claim in a dead pile"
    );
    let top = game.hand(Seat(2))[0];
    let (game, _) = play_all(&game, &[(2, Action::Discard { card: top })]);
    assert!(
        !game.view(Viewer::Spectator).board.discard.dead,
        "§2 dead until the next discard"
    );
}

#[test]
fn rules_2_claim_options_limit_claims() {
    let disabled = rules_with(
        Variant::MayI,
        serde_json::json!({"claims_disabled_last_deals": 7}),
    );
    let (game, _) = stacked_game(
        disabled,
        3,
        0,
        vec![stacked_deck(&may_i(), 3, 0, 1, &[], "KS", "")],
    );
    assert_eq!(
        refused(&game, 2, Action::Claim {}),
        "claim_not_allowed",
        "§2 no May I in the last deals"
    );
    let once = rules_with(Variant::MayI, serde_json::json!({"max_claims_per_deal": 1}));
    let (game, _) = stacked_game(
        once,
        3,
        0,
        vec![stacked_deck(&may_i(), 3, 0, 1, &["", "6D"], "KS", "9C")],
    );
    let (game, _) = play_all(
        &game,
        &[
            (2, Action::Claim {}),
            (1, draw(DrawSource::Stock)),
            (1, discard("6D")),
        ],
    );
    assert_eq!(game.claims_won()[2], 1);
    let (game, _) = play_all(&game, &[(2, draw(DrawSource::Stock))]);
    assert!(
        game.apply(Seat(0), Action::Claim {}).is_ok(),
        "another player may still claim"
    );
    let (game, _) = play_all(&game, &[(2, discard(&game.hand(Seat(2))[0].to_string()))]);
    let (game, _) = play_all(&game, &[(0, draw(DrawSource::Stock))]);
    assert_eq!(
        refused(&game, 2, Action::Claim {}),
        "claim_not_allowed",
        "§2 max_claims_per_deal"
    );
}

#[test]
fn rules_2_replacing_a_wild_in_a_run_and_playing_it() {
    let rules = may_i();
    let deal2 = stacked_deck(&rules, 2, 1, 2, &["7C 7D JK 5H 6H JK 8H 7H 9D", ""], "KS", "2C");
    let (game, _) = stacked_game(rules.clone(), 2, 0, vec![quick_out_deck(&rules, 2, 0), deal2]);
    let (game, _) = play_all(&game, &quick_out_actions(&rules, 2, 0));
    assert_eq!((game.deal(), game.turn().expect("playing").0), (2, Seat(0)));
    let (game, _) = play_all(
        &game,
        &[
            (0, draw(DrawSource::Stock)),
            (0, meld(&["7C 7D JK", "5H 6H JK 8H"])),
        ],
    );
    let set = game.table()[0].id;
    let run = game.table()[1].id;
    let swap = |meld_id, c: &str| Action::Swap {
        meld_id,
        card: card(c),
        end: None,
    };
    assert_eq!(
        refused(&game, 0, swap(set, "7H")),
        "swap_not_allowed",
        "§2 wilds in sets are never replaced"
    );
    let (game, events) = play_all(&game, &[(0, swap(run, "7H"))]);
    assert!(events.iter().any(|e| matches!(
        e,
        Event::Swapped {
            freed: Some(Card::Joker),
            ..
        }
    )));
    assert_eq!(game.must_play(), &[Card::JOKER]);
    assert_eq!(
        refused(&game, 0, discard("JK")),
        "freed_wild_in_hand",
        "§2 the freed wild cannot be discarded"
    );
    assert_eq!(
        refused(&game, 0, discard("9D")),
        "freed_wild_in_hand",
        "§2 the turn cannot end with it in hand"
    );
    let (game, _) = play_all(&game, &[(0, layoff_as(set, "JK", "JK=7")), (0, discard("9D"))]);
    assert_eq!(game.table()[0].reading.len(), 4, "§2 laid off to any meld");
}

#[test]
fn rules_2_taking_back_this_turns_table_plays() {
    let rules = may_i();
    let deck = stacked_deck(&rules, 2, 0, 1, &["", "3C 3D 3S 4C 4D 4S 3H"], "KS", "9C");
    let (game, _) = stacked_game(rules, 2, 0, vec![deck]);
    let before = game.hand(Seat(1)).len();
    let (game, _) = play_all(
        &game,
        &[
            (1, draw(DrawSource::Stock)),
            (1, meld(&["3C 3D 3S", "4C 4D 4S"])),
            (1, layoff(1, "3H")),
        ],
    );
    let (game, events) = play_all(&game, &[(1, Action::TakeBack { play: None })]);
    assert!(
        !game.is_down(Seat(1)) && game.table().is_empty(),
        "§2 going down is taken back whole"
    );
    assert_eq!(
        game.hand(Seat(1)).len(),
        before + 1,
        "every card played this turn comes back"
    );
    assert!(matches!(&events[0], Event::TookBack { cards, .. } if cards.len() == 7));
    let (game, _) = play_all(
        &game,
        &[(1, meld(&["3C 3D 3S 3H", "4C 4D 4S"])), (1, discard("9C"))],
    );
    let (game, _) = play_all(&game, &[(0, draw(DrawSource::Stock))]);
    assert_eq!(
        refused(&game, 0, Action::TakeBack { play: None }),
        "nothing_to_take_back",
        "§2 earlier turns stay where they are"
    );
}

#[test]
fn rules_2_going_out_by_laying_off_every_card() {
    let rules = may_i();
    let deck = stacked_deck(
        &rules,
        2,
        0,
        1,
        &["", "3C 3D 3S 4C 4D 4S 3H 4H 3C 4C 3D 4D"],
        "KS",
        "3S",
    );
    let (game, _) = stacked_game(rules, 2, 0, vec![deck]);
    let (_, events) = play_all(
        &game,
        &[
            (1, draw(DrawSource::Stock)),
            (1, meld(&["3C 3D 3S", "4C 4D 4S"])),
            (1, layoff(1, "3H 3C 3D 3S")),
            (1, layoff(2, "4H 4C 4D")),
        ],
    );
    assert_eq!(
        deal_ended(&events),
        Some(DealEnd::WentOut { seat: Seat(1) }),
        "§2 going out by laying off all"
    );
    assert_eq!(deal_scores(&events)[1], 0);
}

#[test]
fn rules_2_stock_exhausted_turns_the_pile_once_then_ends() {
    let rules = may_i();
    let (mut game, _) = stacked_game(rules, 2, 0, vec![stacked_deck(&may_i(), 2, 0, 1, &[], "KS", "")]);
    let mut turned = 0;
    let mut ended = None;
    for _ in 0..400 {
        let (seat, _) = game.turn().expect("playing");
        if game.stock_count() == 0 && game.discard_pile().last().is_some() {
            let other = Seat(1 - seat.0);
            if game.legal_actions(other).contains(&engine::LegalAction::Claim) {
                panic!("§2 a claim is refused when the stock is empty");
            }
        }
        let (g, events) = play_all(&game, &[(seat.0, draw(DrawSource::Stock))]);
        turned += events
            .iter()
            .filter(|e| matches!(e, Event::StockTurnedOver { .. }))
            .count();
        if let Some(end) = deal_ended(&events) {
            ended = Some((end, deal_scores(&events), game.clone()));
            break;
        }
        let drawn = *g.hand(seat).last().expect("drawn");
        game = play_all(&g, &[(seat.0, Action::Discard { card: drawn })]).0;
    }
    let (end, scores, before) = ended.expect("the deal ends");
    assert_eq!(turned, 1, "§2 the pile is turned over the first time");
    assert_eq!(
        end,
        DealEnd::StockExhausted,
        "§2 the second time the deal ends at once"
    );
    for s in 0..2u8 {
        let value: i32 = before
            .hand(Seat(s))
            .iter()
            .map(|c| may_i().card_value(*c).expect("v"))
            .sum();
        assert_eq!(
            scores[usize::from(s)],
            value,
            "§2 every player scores the cards in hand"
        );
    }
}

#[test]
fn rules_2_leaving_two_highest_rule_and_void_game() {
    let (game, _) = stacked_game(may_i(), 2, 0, vec![]);
    let (game, events) = play_all(&game, &[(0, Action::Leave {})]);
    assert_eq!(game.status(), Status::Void, "§2 fewer than two finish: void");
    assert!(game.standings().is_none() && game.revealed_seed().is_some());
    assert!(events.iter().any(|e| matches!(e, Event::GameVoid { .. })));

    let (game, _) = stacked_game(may_i(), 3, 0, vec![]);
    let (mut game, _) = play_all(&game, &[(2, Action::Leave {})]);
    assert_eq!(game.hand(Seat(2)).len(), 0, "§2 the leaver's hand is set aside");
    assert_eq!(game.turn().expect("playing").0, Seat(1), "§2 the game goes on");
    // Play the rest out: each turn draws and discards the drawn card.
    while game.status() == Status::Playing {
        let (seat, _) = game.turn().expect("playing");
        assert_ne!(seat, Seat(2), "§2 the leaver is out of the rotation");
        let (g, _) = play_all(&game, &[(seat.0, draw(DrawSource::Stock))]);
        game = match g.turn() {
            Some((s, engine::Phase::Play)) if s == seat => {
                let drawn = *g.hand(seat).last().expect("drawn");
                play_all(&g, &[(seat.0, Action::Discard { card: drawn })]).0
            }
            _ => g,
        };
    }
    let standings = game.standings().expect("finished");
    let totals = game.totals();
    assert_eq!(
        totals[2],
        totals[0] + totals[1],
        "§2 the leaver scores the two highest totals"
    );
    let leaver = standings
        .iter()
        .find(|s| s.seat == Seat(2))
        .expect("leaver placed");
    assert!(
        leaver.left && leaver.place == 3,
        "leavers are placed after finishers"
    );
}

#[test]
fn rules_2_two_runs_of_one_suit_fulfil_deal_3() {
    let rules = may_i();
    let deal2 = stacked_deck(
        &rules,
        2,
        1,
        2,
        &["9C 9D 9H 9C 9D 2S 3S 4S 5S 6S 7S 8S", ""],
        "KS",
        "KC",
    );
    let deal3 = stacked_deck(&rules, 2, 0, 3, &["", "3H 4H 5H 6H 8H 9H TH JH"], "KS", "KC");
    let (game, _) = stacked_game(
        rules.clone(),
        2,
        0,
        vec![quick_out_deck(&rules, 2, 0), deal2, deal3],
    );
    let (game, _) = play_all(&game, &quick_out_actions(&rules, 2, 0));
    let (game, _) = play_all(
        &game,
        &[
            (0, draw(DrawSource::Stock)),
            (0, meld(&["9C 9D 9H 9C 9D", "2S 3S 4S 5S 6S 7S 8S"])),
            (0, discard("KC")),
        ],
    );
    assert_eq!(game.deal(), 3, "deal 2 went out at once");
    let (game, _) = play_all(
        &game,
        &[
            (1, draw(DrawSource::Stock)),
            (1, meld(&["3H 4H 5H 6H", "8H 9H TH JH"])),
        ],
    );
    assert!(
        game.is_down(Seat(1)),
        "§2 runs of the same suit are allowed in a contract"
    );
    assert_eq!(game.table().len(), 2, "§1 two runs of one suit stay two melds");
}

#[test]
fn rules_2_deuces_wild_option() {
    let hand = "5C 5D 2S 7C 7D 7S";
    for (options, legal, why) in [
        (serde_json::json!({}), false, "§2 deuces are not wild by default"),
        (
            serde_json::json!({"deuces_wild": true}),
            true,
            "§2 option deuces_wild",
        ),
    ] {
        let rules = rules_with(Variant::MayI, options);
        let deck = stacked_deck(&rules, 2, 0, 1, &["", hand], "KS", "9C");
        let (game, _) = stacked_game(rules, 2, 0, vec![deck]);
        let (game, _) = play_all(&game, &[(1, draw(DrawSource::Stock))]);
        let result = game.apply(Seat(1), meld(&["5C 5D 2S", "7C 7D 7S"]));
        assert_eq!(result.is_ok(), legal, "{why}");
    }
}

#[test]
fn rules_2_players_two_to_eight() {
    for (players, ok) in [(1, false), (2, true), (8, true), (9, false)] {
        let result = engine::Game::new(
            engine::GameConfig::new(may_i(), players),
            engine::Seed::from_u64(1),
        );
        assert_eq!(result.is_ok(), ok, "§2 {players} players");
        if let Err(e) = result {
            assert_eq!(e.code(), "player_count");
        }
    }
}

#[test]
fn rules_2_suspend_only_between_deals() {
    let rules = may_i();
    let (game, _) = stacked_game(rules.clone(), 2, 0, vec![quick_out_deck(&rules, 2, 0)]);
    assert!(game.between_deals(), "§2 a fresh deal may be suspended");
    let actions = quick_out_actions(&rules, 2, 0);
    let (mid, _) = play_all(&game, &actions[..1]);
    assert!(!mid.between_deals(), "§2 not in the middle of a deal");
    let (next, _) = play_all(&game, &actions);
    assert_eq!(next.deal(), 2);
    assert!(
        next.between_deals(),
        "§2 between deals once the last deal is scored"
    );
}

#[test]
fn rules_2_the_hints_name_the_card_that_swaps_into_a_run_and_no_set() {
    let rules = may_i();
    let deal2 = stacked_deck(&rules, 2, 1, 2, &["7C 7D JK 5H 6H JK 8H 7H 9D", ""], "KS", "2C");
    let (game, _) = stacked_game(rules.clone(), 2, 0, vec![quick_out_deck(&rules, 2, 0), deal2]);
    let (game, _) = play_all(&game, &quick_out_actions(&rules, 2, 0));
    let (game, _) = play_all(
        &game,
        &[
            (0, draw(DrawSource::Stock)),
            (0, meld(&["7C 7D JK", "5H 6H JK 8H"])),
        ],
    );
    let (set, run) = (game.table()[0].id, game.table()[1].id);
    let swaps = game.hints(Seat(0)).swaps;
    assert!(
        swaps.contains(&engine::SwapHint {
            meld_id: run,
            card: card("7H"),
        }),
        "§2 7H takes the joker's place in 5H 6H JK 8H: {swaps:?}"
    );
    assert!(
        swaps.iter().all(|s| s.meld_id != set && s.card != card("9D")),
        "§2 no wild of a set is replaced, and 9D replaces none: {swaps:?}"
    );
    assert!(
        game.hints(Seat(1)).swaps.is_empty(),
        "a seat not down swaps nothing"
    );
}

#[test]
fn rules_2_taking_back_a_swap_returns_the_freed_wild_to_its_run() {
    let rules = may_i();
    let deal2 = stacked_deck(&rules, 2, 1, 2, &["7C 7D JK 5H 6H JK 8H 7H 9D", ""], "KS", "2C");
    let (game, _) = stacked_game(rules.clone(), 2, 0, vec![quick_out_deck(&rules, 2, 0), deal2]);
    let (game, _) = play_all(&game, &quick_out_actions(&rules, 2, 0));
    let (game, _) = play_all(
        &game,
        &[
            (0, draw(DrawSource::Stock)),
            (0, meld(&["7C 7D JK", "5H 6H JK 8H"])),
        ],
    );
    let run = game.table()[1].id;
    let (game, _) = play_all(&game, &[(0, discard("9D")), (1, draw(DrawSource::Stock))]);
    let (game, _) = play_all(
        &game,
        &[(
            1,
            Action::Discard {
                card: *game.hand(Seat(1)).last().expect("card"),
            },
        )],
    );
    let (game, _) = play_all(&game, &[(0, draw(DrawSource::Stock))]);
    let table = game.table().to_vec();
    let (game, _) = play_all(
        &game,
        &[(
            0,
            Action::Swap {
                meld_id: run,
                card: card("7H"),
                end: None,
            },
        )],
    );
    let (game, events) = play_all(&game, &[(0, Action::TakeBack { play: None })]);
    assert_eq!(
        events,
        vec![Event::TookBack {
            seat: Seat(0),
            cards: vec![card("7H")],
            to_table: vec![Card::JOKER],
            play: None,
        }],
        "§2 the natural comes back to hand and the freed wild goes back to its run"
    );
    assert_eq!(
        game.table(),
        &table[..],
        "§2 the table is as it was before this turn"
    );
    assert!(
        game.must_play().is_empty() && game.is_down(Seat(0)),
        "§2 earlier turns' plays stay"
    );
}

fn take_back(play: u32) -> Action {
    Action::TakeBack { play: Some(play) }
}

#[test]
fn rules_2_taking_back_one_lay_off_keeps_going_down() {
    let rules = may_i();
    let deck = stacked_deck(&rules, 2, 0, 1, &["", "3C 3D 3S 4C 4D 4S 3H 4H"], "KS", "9C");
    let (game, _) = stacked_game(rules, 2, 0, vec![deck]);
    let start = [(1, draw(DrawSource::Stock)), (1, meld(&["3C 3D 3S", "4C 4D 4S"]))];
    let (down, _) = play_all(&game, &start);
    let (game, _) = play_all(&down, &[(1, layoff(1, "3H")), (1, layoff(2, "4H"))]);
    // The same turn with the 3H lay-off never made.
    let (never, _) = play_all(&down, &[(1, layoff(2, "4H"))]);
    let (game, events) = play_all(&game, &[(1, take_back(1))]);
    assert_eq!(
        events,
        vec![Event::TookBack {
            seat: Seat(1),
            cards: vec![card("3H")],
            to_table: Vec::new(),
            play: Some(1),
        }],
        "§2 taking back: only the 3H comes back"
    );
    assert!(
        game.is_down(Seat(1)),
        "§2 taking back one lay-off keeps going down"
    );
    assert_eq!(
        game.table(),
        never.table(),
        "§2 taking back: the table is exactly as if the lay-off had not been made"
    );
    let mut hand = game.hand(Seat(1)).to_vec();
    let mut want = never.hand(Seat(1)).to_vec();
    hand.sort();
    want.sort();
    assert_eq!(hand, want, "§2 taking back: the hand too");
    let plays: Vec<Action> = game.turn_plays(Seat(1)).into_iter().map(|p| p.action).collect();
    assert_eq!(
        plays,
        vec![meld(&["3C 3D 3S", "4C 4D 4S"]), layoff(2, "4H")],
        "the view lists the plays left this turn"
    );
    // The card taken back may be played elsewhere.
    let (game, _) = play_all(&game, &[(1, layoff(1, "3H"))]);
    assert_eq!(game.table()[0].reading.len(), 4);
    assert_eq!(
        refused(&game, 1, take_back(3)),
        "unknown_play",
        "§2 only plays made this turn can be taken back"
    );
    let (game, events) = play_all(&game, &[(1, take_back(0))]);
    assert!(
        !game.is_down(Seat(1)) && game.table().is_empty(),
        "§2 going down is taken back only whole, with every play that needed it"
    );
    assert!(matches!(&events[0], Event::TookBack { cards, play: Some(0), .. } if cards.len() == 8));
    assert!(game.turn_plays(Seat(1)).is_empty());
}

#[test]
fn rules_2_taking_back_a_lay_off_a_later_play_depends_on_is_refused() {
    let rules = may_i();
    let deck = stacked_deck(&rules, 2, 0, 1, &["", "3C 3D JK 4C 4D 4S 3H JK AH"], "KS", "9C");
    let (game, _) = stacked_game(rules, 2, 0, vec![deck]);
    let (game, _) = play_all(
        &game,
        &[
            (1, draw(DrawSource::Stock)),
            (1, meld(&["3C 3D JK", "4C 4D 4S"])),
            (1, layoff(1, "3H")),
            // Three naturals hold three wilds; without the 3H they could not.
            (1, layoff(1, "JK AH")),
        ],
    );
    let table = game.table().to_vec();
    assert_eq!(
        refused(&game, 1, take_back(1)),
        "take_back_blocked",
        "§2 taking back: a play that a later play of the turn needs is refused (wild limit)"
    );
    assert_eq!(game.table(), &table[..], "a refused take back changes nothing");
    let listed: Vec<(u32, bool)> = game
        .turn_plays(Seat(1))
        .into_iter()
        .map(|p| (p.play, p.can_take_back))
        .collect();
    assert_eq!(
        listed,
        vec![(0, true), (1, false), (2, true)],
        "the view says which plays may be taken back alone"
    );
    let (game, _) = play_all(&game, &[(1, take_back(2)), (1, take_back(1))]);
    assert!(game.is_down(Seat(1)), "§2 going down stays");
    assert_eq!(
        game.table()[0].reading.len(),
        3,
        "§2 taken back in reverse order, both lay-offs are undone"
    );
}

#[test]
fn rules_2_taking_back_only_a_swap() {
    let rules = may_i();
    let deal2 = stacked_deck(
        &rules,
        2,
        1,
        2,
        &["7C 7D JK 5H 6H JK 8H 7H 9D 7S", ""],
        "KS",
        "2C",
    );
    let (game, _) = stacked_game(rules.clone(), 2, 0, vec![quick_out_deck(&rules, 2, 0), deal2]);
    let (game, _) = play_all(&game, &quick_out_actions(&rules, 2, 0));
    let (game, _) = play_all(
        &game,
        &[
            (0, draw(DrawSource::Stock)),
            (0, meld(&["7C 7D JK", "5H 6H JK 8H"])),
        ],
    );
    let (set, run) = (game.table()[0].id, game.table()[1].id);
    let (game, _) = play_all(&game, &[(0, discard("9D")), (1, draw(DrawSource::Stock))]);
    let last = *game.hand(Seat(1)).last().expect("card");
    let (game, _) = play_all(
        &game,
        &[(1, Action::Discard { card: last }), (0, draw(DrawSource::Stock))],
    );
    let swap = Action::Swap {
        meld_id: run,
        card: card("7H"),
        end: None,
    };
    let (before, _) = play_all(&game, &[(0, layoff(set, "7S"))]);
    let (game, _) = play_all(&before, &[(0, swap.clone()), (0, layoff(set, "JK"))]);
    assert_eq!(
        refused(&game, 0, take_back(1)),
        "take_back_blocked",
        "§2 a swap whose freed wild was played since cannot be taken back alone"
    );
    let (game, events) = play_all(&game, &[(0, take_back(2))]);
    assert_eq!(
        game.must_play(),
        &[Card::JOKER],
        "§2 the freed wild is back in hand"
    );
    assert!(matches!(&events[0], Event::TookBack { cards, play: Some(2), .. } if cards == &[Card::JOKER]));
    let (game, events) = play_all(&game, &[(0, take_back(1))]);
    assert_eq!(
        events,
        vec![Event::TookBack {
            seat: Seat(0),
            cards: vec![card("7H")],
            to_table: vec![Card::JOKER],
            play: Some(1),
        }],
        "§2 taking back just the swap: the natural to hand, the wild to its run"
    );
    assert_eq!(
        game.table(),
        before.table(),
        "§2 the 7S lay-off made before the swap stays on the table"
    );
    assert!(game.must_play().is_empty() && game.is_down(Seat(0)));
    let (_, events) = play_all(&game, &[(0, discard("2C"))]);
    assert!(
        events.iter().any(|e| matches!(e, Event::Discarded { .. })),
        "the turn can end"
    );
}

#[test]
fn rules_2_taking_back_in_a_game_saved_before_plays_were_recorded() {
    let rules = may_i();
    let deck = stacked_deck(&rules, 2, 0, 1, &["", "3C 3D 3S 4C 4D 4S 3H"], "KS", "9C");
    let (game, _) = stacked_game(rules, 2, 0, vec![deck]);
    let (game, _) = play_all(
        &game,
        &[
            (1, draw(DrawSource::Stock)),
            (1, meld(&["3C 3D 3S", "4C 4D 4S"])),
            (1, layoff(1, "3H")),
        ],
    );
    let mut saved = serde_json::to_value(&game).expect("json");
    let turn = saved["turn_state"].as_object_mut().expect("turn state");
    assert!(turn.remove("plays").is_some(), "plays are saved");
    let old: engine::Game = serde_json::from_value(saved).expect("an earlier save still loads");
    assert_eq!(
        refused(&old, 1, take_back(0)),
        "unknown_play",
        "plays not recorded cannot be taken back one by one"
    );
    let (old, _) = play_all(&old, &[(1, Action::TakeBack { play: None })]);
    assert!(
        !old.is_down(Seat(1)) && old.table().is_empty(),
        "§2 the whole turn still comes back"
    );
}

#[test]
fn rules_1_inner_gaps_take_the_wilds_in_the_order_laid_down() {
    let rules = may_i();
    let deal2 = stacked_deck(&rules, 2, 1, 2, &["3C 3D 3S 5S AH 7S JK 9S KD", ""], "KS", "QC");
    let (game, _) = stacked_game(rules.clone(), 2, 0, vec![quick_out_deck(&rules, 2, 0), deal2]);
    let (game, _) = play_all(&game, &quick_out_actions(&rules, 2, 0));
    let (game, _) = play_all(
        &game,
        &[
            (0, draw(DrawSource::Stock)),
            (0, meld(&["3C 3D 3S", "5S AH 7S JK 9S"])),
        ],
    );
    assert_eq!(
        crate::play_helpers::places(&game.table()[1].reading),
        ["5S=5S", "AH=6S", "7S=7S", "JK=8S", "9S=9S"],
        "§1 one reading, no choice: the first wild laid fills the first gap"
    );
}

/// A 3-player `may_i` game started in 2026, between deals 1 and 2.
fn between_deals_of_2026() -> engine::Game {
    let rules = may_i();
    let (game, _) = stacked_game(rules.clone(), 3, 0, vec![quick_out_deck(&rules, 3, 0)]);
    let mut config = game.config().clone();
    config.start_year = Some(2026);
    let (game, _) = engine::Game::new(config, engine::Seed::from_u64(7)).expect("setup");
    let (game, _) = play_all(&game, &quick_out_actions(&rules, 3, 0));
    assert_eq!(game.deal(), 2);
    game
}

#[test]
fn rules_2_suspend_between_deals_with_every_player_and_resume_within_the_year() {
    let game = between_deals_of_2026();
    assert!(
        game.legal_actions(Seat(0))
            .contains(&engine::LegalAction::Suspend)
    );
    let (game, _) = play_all(&game, &[(0, Action::Suspend {}), (2, Action::Suspend {})]);
    assert_eq!(game.suspend_requests(), &[Seat(0), Seat(2)]);
    assert_eq!(game.status(), Status::Playing, "§2 not until every player agrees");
    assert_eq!(refused(&game, 0, Action::Suspend {}), "already_asked");
    let (game, events) = play_all(&game, &[(1, Action::Suspend {})]);
    assert!(events.contains(&Event::Suspended));
    assert_eq!(game.status(), Status::Suspended, "§2 every player agreed");
    assert!(game.suspend_requests().is_empty());
    assert!(
        game.revealed_seed().is_none(),
        "a suspended game keeps its seed secret"
    );
    let first = Seat((game.dealer().0 + 1) % 3);
    assert_eq!(
        refused(&game, first.0, draw(DrawSource::Stock)),
        "game_suspended",
        "§2 nothing but resume while suspended"
    );
    assert_eq!(refused(&game, 0, Action::Leave {}), "game_suspended");
    assert_eq!(game.legal_actions(Seat(0)), vec![engine::LegalAction::Resume]);
    let view = game.view(Viewer::Seat(Seat(0)));
    assert_eq!(game.status(), Status::Suspended);
    assert!(view.turn.is_none());
    let resume = Action::Resume { year: 2026 };
    let (game, _) = play_all(&game, &[(2, resume.clone()), (0, resume.clone())]);
    assert_eq!(game.resume_requests(), &[Seat(2), Seat(0)]);
    assert_eq!(
        game.status(),
        Status::Suspended,
        "§2 only when every player is back"
    );
    assert_eq!(refused(&game, 0, resume.clone()), "already_asked");
    assert!(game.legal_actions(Seat(0)).is_empty());
    let (game, events) = play_all(&game, &[(1, resume)]);
    assert!(events.contains(&Event::Resumed));
    assert_eq!(game.status(), Status::Playing, "§2 play goes on");
    assert!(game.resume_requests().is_empty());
    let (game, _) = play_all(&game, &[(first.0, draw(DrawSource::Stock))]);
    assert_eq!(game.hand(first).len(), 13, "the deal goes on where it stood");
    assert_eq!(
        refused(&game, 0, Action::Suspend {}),
        "not_between_deals",
        "§2 never in the middle of a deal"
    );
    assert_eq!(refused(&game, 0, Action::Resume { year: 2026 }), "not_suspended");
}

#[test]
fn rules_2_resuming_after_the_calendar_year_is_refused() {
    let game = between_deals_of_2026();
    let (game, _) = play_all(
        &game,
        &[
            (0, Action::Suspend {}),
            (1, Action::Suspend {}),
            (2, Action::Suspend {}),
        ],
    );
    assert_eq!(
        refused(&game, 0, Action::Resume { year: 2027 }),
        "suspension_expired",
        "§2 only within the calendar year it started in"
    );
    assert_eq!(game.status(), Status::Suspended);
}

#[test]
fn rules_2_asking_to_suspend_lapses_when_play_goes_on() {
    let game = between_deals_of_2026();
    let first = Seat((game.dealer().0 + 1) % 3);
    let asker = Seat((first.0 + 1) % 3);
    let (game, _) = play_all(&game, &[(asker.0, Action::Suspend {})]);
    assert_eq!(game.suspend_requests(), &[asker]);
    let (game, _) = play_all(&game, &[(first.0, draw(DrawSource::Stock))]);
    assert!(
        game.suspend_requests().is_empty(),
        "§2 the deal began: no suspending now"
    );
    assert!(!game.legal_actions(asker).contains(&engine::LegalAction::Suspend));
}

#[test]
fn rules_2_only_may_i_is_suspended() {
    for variant in [Variant::Contract7, Variant::Continental, Variant::Push] {
        let game = crate::play_helpers::new_game(variant, 4, 3);
        assert_eq!(
            refused(&game, 0, Action::Suspend {}),
            "not_in_variant",
            "{variant}"
        );
        assert!(
            !game
                .legal_actions(Seat(0))
                .contains(&engine::LegalAction::Suspend)
        );
    }
}

#[test]
fn house_option_first_upcard_claims() {
    for (variant, on) in [
        (Variant::MayI, true),
        (Variant::MayI, false),
        (Variant::Contract7, true),
        (Variant::Contract7, false),
    ] {
        let rules = rules_with(variant, serde_json::json!({ "first_upcard_claims": on }));
        let deck = stacked_deck(&rules, 3, 0, 1, &[], "KS", "9C QD 7H");
        let (game, _) = stacked_game(rules, 3, 0, vec![deck]);
        // Seat 1 is in turn; seat 2 would like the upcard.
        assert_eq!(
            game.legal_actions(Seat(2)).contains(&engine::LegalAction::Claim),
            on,
            "{variant}: the upcard is on offer only with the option on"
        );
        if on {
            let (game, _) = play_all(&game, &[(2, Action::Claim {}), (1, draw(DrawSource::Stock))]);
            assert_eq!(
                game.hand(Seat(2)).len(),
                rules_hand(variant) + 2,
                "{variant}: claimed"
            );
        } else {
            assert_eq!(
                refused(&game, 2, Action::Claim {}),
                "claim_not_allowed",
                "{variant}"
            );
            // The next discard is on offer as usual.
            let (game, _) = play_all(&game, &[(1, draw(DrawSource::Stock)), (1, discard("9C"))]);
            assert!(
                game.legal_actions(Seat(0)).contains(&engine::LegalAction::Claim),
                "{variant}"
            );
        }
    }
    assert!(
        Ruleset::default_for(Variant::MayI).first_upcard_claims(),
        "default: the first upcard may be claimed, as before"
    );
}

fn rules_hand(variant: Variant) -> usize {
    Ruleset::default_for(variant).hand_size(1)
}

#[test]
fn rules_2_a_pass_gives_up_the_discard_on_offer_until_the_next_discard() {
    let rules = may_i();
    let deck = stacked_deck(&rules, 3, 0, 1, &["", "6D"], "KS", "9C QD 7H 8H");
    let (game, _) = stacked_game(rules, 3, 0, vec![deck]);
    let legal = |game: &engine::Game, seat: u8| game.legal_actions(Seat(seat));
    // Seat 1 is in turn; the upcard KS is on offer to seats 2 and 0.
    assert!(
        legal(&game, 0).contains(&engine::LegalAction::Pass),
        "a seat that may claim may pass: {:?}",
        legal(&game, 0)
    );
    assert!(
        !legal(&game, 1).contains(&engine::LegalAction::Pass),
        "the player in turn neither claims nor passes"
    );
    assert_eq!(refused(&game, 1, Action::Pass {}), "claim_not_allowed");
    let (after, events) = play_all(&game, &[(0, Action::Pass {})]);
    assert_eq!(events, vec![Event::Passed { seat: Seat(0) }]);
    assert_eq!(
        after.view(Viewer::Spectator).board.claims.passed,
        vec![Seat(0)],
        "the view says who passed"
    );
    assert_eq!(
        refused(&after, 0, Action::Claim {}),
        "claim_not_allowed",
        "a seat that passed may not claim that discard"
    );
    assert_eq!(
        refused(&after, 0, Action::Pass {}),
        "claim_not_allowed",
        "nor pass twice"
    );
    assert!(!after.may_claim(Seat(0)));
    assert!(
        !legal(&after, 0).contains(&engine::LegalAction::Claim)
            && !legal(&after, 0).contains(&engine::LegalAction::Pass)
    );
    assert!(after.may_claim(Seat(2)), "another seat may still claim");
    // Nothing else changed: the hands and the other seats' bot decisions are the same.
    for seat in 0..3 {
        assert_eq!(after.hand(Seat(seat)), game.hand(Seat(seat)));
    }
    for seat in 1..3 {
        assert_eq!(
            after.bot_choice(Seat(seat), engine::bot::Level::Normal),
            game.bot_choice(Seat(seat), engine::bot::Level::Normal)
        );
    }
    assert_eq!(
        after.deal_actions(),
        game.deal_actions(),
        "a pass plays nothing of the deal"
    );
    let (after, _) = play_all(&after, &[(1, draw(DrawSource::Stock)), (1, discard("6D"))]);
    assert!(after.may_claim(Seat(0)), "the pass lapses with the next discard");
    assert!(after.view(Viewer::Spectator).board.claims.passed.is_empty());
}
