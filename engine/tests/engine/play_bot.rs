//! The bot (issue 3): goes down when the search finds the contract, lays off, claims when
//! useful, discards its costliest dead card.

use engine::{Action, DrawSource, Ruleset, Seat, Variant, bot};

use crate::helpers::cards;
use crate::play_helpers::{play_all, stacked_deck, stacked_game};

fn may_i() -> Ruleset {
    Ruleset::default_for(Variant::MayI)
}

#[test]
fn bot_goes_down_with_the_contract_and_lays_off() {
    let rules = may_i();
    let deck = stacked_deck(
        &rules,
        2,
        0,
        1,
        &["", "3C 3D 3S 4C 4D 4S 3H 9C 9D JH JS KC"],
        "QS",
        "2H",
    );
    let (mut game, _) = stacked_game(rules, 2, 0, vec![deck]);
    let mut seen = Vec::new();
    while game.turn().expect("playing").0 == Seat(1) {
        let action = game
            .bot_choice(Seat(1), bot::Level::Normal)
            .expect("the bot acts in turn");
        seen.push(action.kind().name());
        game = play_all(&game, &[(1, action)]).0;
    }
    assert!(game.is_down(Seat(1)), "the bot went down: {seen:?}");
    assert!(
        seen.contains(&"meld") && seen.last() == Some(&"discard"),
        "{seen:?}"
    );
    let laid: usize = game.table().iter().map(|m| m.reading.len()).sum();
    assert_eq!(
        laid, 7,
        "3C 3D 3S 3H and 4C 4D 4S: the spare three is laid off or melded"
    );
}

#[test]
fn bot_discards_its_costliest_dead_card() {
    let rules = may_i();
    let deck = stacked_deck(
        &rules,
        2,
        0,
        1,
        &["", "2C 2D 5H 5S 8C 8D JH JS 3H 3S 6D KC"],
        "QS",
        "4H",
    );
    let (mut game, _) = stacked_game(rules, 2, 0, vec![deck]);
    let mut last = None;
    while game.turn().expect("playing").0 == Seat(1) {
        let action = game
            .bot_choice(Seat(1), bot::Level::Normal)
            .expect("the bot acts in turn");
        last = Some(action.clone());
        game = play_all(&game, &[(1, action)]).0;
    }
    assert_eq!(
        last,
        Some(Action::Discard { card: cards("KC")[0] }),
        "KC is the one card that fits nothing"
    );
}

#[test]
fn bot_claims_a_discard_that_fits_and_only_then() {
    let rules = may_i();
    let deck = stacked_deck(&rules, 3, 0, 1, &["2C 5D 8H JS", "", "KC KD QS"], "KS", "");
    let (game, _) = stacked_game(rules, 3, 0, vec![deck]);
    assert_eq!(
        game.bot_choice(Seat(2), bot::Level::Normal),
        Some(Action::Claim {}),
        "KS fits KC KD: ask May I"
    );
    assert_eq!(
        game.bot_choice(Seat(0), bot::Level::Normal),
        None,
        "KS fits only JS in 2C 5D 8H JS: no claim, and out of turn nothing else"
    );
    let (game, _) = play_all(
        &game,
        &[(
            1,
            Action::Draw {
                source: DrawSource::Stock,
            },
        )],
    );
    assert_eq!(
        game.bot_choice(Seat(2), bot::Level::Normal),
        Some(Action::Claim {}),
        "a claim after the stock draw is still possible"
    );
}

#[test]
fn bot_never_acts_for_a_seat_not_in_turn_except_claims() {
    for variant in [Variant::Continental, Variant::Push] {
        let rules = Ruleset::default_for(variant);
        let (game, _) = stacked_game(
            rules.clone(),
            4,
            0,
            vec![stacked_deck(&rules, 4, 0, 1, &[], "9C", "")],
        );
        assert_eq!(
            game.bot_choice(Seat(2), bot::Level::Normal),
            None,
            "{variant} has no claims"
        );
        assert!(
            game.bot_choice(Seat(1), bot::Level::Normal).is_some(),
            "{variant}: the player in turn always acts"
        );
    }
}

#[test]
fn push_bot_pushes_and_lays_new_melds_after_its_contract() {
    let rules = crate::helpers::rules_with(Variant::Push, serde_json::json!({"ten_every_deal": true}));
    let deck = stacked_deck(
        &rules,
        4,
        0,
        1,
        &["", "3C 3D 3S 4C 4D 4S 7H 8H 9H KS"],
        "QD",
        "5C 6D",
    );
    let (mut game, _) = stacked_game(rules, 4, 0, vec![deck]);
    let mut seen = Vec::new();
    while game.turn().expect("playing").0 == Seat(1) {
        let action = game
            .bot_choice(Seat(1), bot::Level::Normal)
            .expect("the bot acts in turn");
        seen.push(action.clone());
        game = play_all(&game, &[(1, action)]).0;
    }
    assert_eq!(
        seen.first(),
        Some(&Action::Draw {
            source: DrawSource::Stock
        }),
        "QD does nothing for the bot: it pushes it to seat 2 with a stock card"
    );
    assert_eq!(game.hand(Seat(2)).len(), 12, "seat 2 got the QD and a stock card");
    assert!(game.is_down(Seat(1)), "the bot went down: {seen:?}");
    let melds: Vec<Vec<engine::Card>> = game
        .table()
        .iter()
        .filter(|m| m.owner == Seat(1))
        .map(|m| {
            let mut c: Vec<engine::Card> = m.reading.cards().collect();
            c.sort();
            c
        })
        .collect();
    let mut run = cards("7H 8H 9H");
    run.sort();
    assert_eq!(melds.len(), 3, "the contract's two sets and a new meld: {seen:?}");
    assert!(
        melds.contains(&run),
        "7H 8H 9H laid as a new meld after the contract (docs/rules.md#push-after-down): {melds:?}"
    );
}

#[test]
fn continental_hard_takes_the_discard_that_brings_it_nearer_going_out() {
    let rules = Ruleset::default_for(Variant::Continental);
    // Three short: KC, 5H and JD have no partner, and 9S only one three places away. The
    // upcard QS fits nothing within two places, yet 9S _ _ QS is a run of four with two
    // wilds or cards still to come: one card nearer going out.
    let hand = "3C 4C 5C 6C 7C 3D 4D 5D 9H TH JH 9S KC 5H JD";
    let deck = stacked_deck(&rules, 2, 0, 1, &["", hand], "QS", "");
    let (game, _) = stacked_game(rules.clone(), 2, 0, vec![deck]);
    let mut with = game.hand(Seat(1)).to_vec();
    assert_eq!(engine::go_out_shortfall(&rules, &with), 3);
    with.extend(cards("QS"));
    assert_eq!(
        engine::go_out_shortfall(&rules, &with),
        2,
        "with QS, one spare card thrown"
    );
    let take = Action::Draw {
        source: DrawSource::Discard,
    };
    assert_eq!(
        game.bot_choice(Seat(1), bot::Level::Hard),
        Some(take),
        "a sure card nearer going out beats a chance of one"
    );
    assert_eq!(
        game.bot_choice(Seat(1), bot::Level::Normal),
        Some(Action::Draw {
            source: DrawSource::Stock
        }),
        "normal takes only a card within two places of its own: the position tells them apart"
    );
}
