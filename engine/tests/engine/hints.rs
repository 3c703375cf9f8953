//! Hints (issue 8): what the engine suggests to a seat is what `apply` accepts, and no
//! suggestion breaks a rule the engine enforces (`contract_7`'s last card).

use engine::{Action, DrawSource, Game, Phase, Ruleset, RunEnd, Seat, Status, Variant, bot};

use crate::play_helpers::{draw, meld, new_game, play_all, stacked_deck, stacked_game};

/// Every hint for the player in turn, in the play phase, is accepted as it stands.
fn assert_hints_accepted(game: &Game, context: &str) -> usize {
    let Some((seat, Phase::Play)) = game.turn() else {
        return 0;
    };
    let hints = game.hints(seat);
    let mut tried = 0;
    if let Some(action) = hints.meld(game.rules()) {
        let result = game.apply(seat, action.clone());
        assert!(
            result.is_ok(),
            "{context}: hinted {action:?} refused: {:?}",
            result.err()
        );
        tried += 1;
    }
    for layoff in &hints.layoffs {
        let result = game.apply(seat, layoff.action());
        assert!(
            result.is_ok(),
            "{context}: hinted {layoff:?} refused: {:?}",
            result.err()
        );
        let after = result.expect("accepted").0;
        if after.deal() == game.deal() && after.status() == Status::Playing {
            let laid = after.table().iter().find(|m| m.id == layoff.meld_id);
            assert_eq!(
                laid.map(|m| &m.reading),
                Some(&layoff.reading),
                "{context}: the lay-off lies as hinted"
            );
        }
        tried += 1;
    }
    for swap in &hints.swaps {
        let accepted = [None, Some(RunEnd::Low), Some(RunEnd::High)]
            .into_iter()
            .any(|end| {
                let action = Action::Swap {
                    meld_id: swap.meld_id,
                    card: swap.card,
                    end,
                };
                game.apply(seat, action).is_ok()
            });
        assert!(accepted, "{context}: hinted {swap:?} refused");
        tried += 1;
    }
    tried
}

#[test]
fn every_hint_in_bot_games_is_accepted() {
    for variant in Variant::ALL {
        let players = if variant == Variant::Push { 4 } else { 3 };
        let mut tried = 0;
        for seed in 0..6 {
            let mut game = new_game(variant, players, seed);
            let mut steps = 0;
            while game.status() == Status::Playing && steps < 3000 {
                tried += assert_hints_accepted(&game, &format!("{variant} seed {seed} step {steps}"));
                let (seat, _) = game.turn().expect("playing");
                let action = game
                    .bot_choice(seat, bot::Level::Normal)
                    .expect("the bot acts in turn");
                game = game.apply(seat, action).expect("the bot's action is accepted").0;
                steps += 1;
            }
        }
        assert!(tried > 0, "{variant}: some hints were tried");
    }
}

#[test]
fn contract_7_hints_keep_the_last_card() {
    let rules = Ruleset::default_for(Variant::Contract7);
    let deck = stacked_deck(&rules, 2, 0, 1, &["", "3C 3D 3S 4C 4D 4S 4H"], "KS", "3H");
    let (game, _) = stacked_game(rules.clone(), 2, 0, vec![deck]);
    let (game, _) = play_all(&game, &[(1, draw(DrawSource::Stock))]);
    let hints = game.hints(Seat(1));
    if let Some(melds) = &hints.contract {
        let laid: usize = melds.iter().map(|m| m.len()).sum();
        assert!(
            laid < game.hand(Seat(1)).len(),
            "§3: a hinted contract leaves a card to discard"
        );
        assert!(
            game.apply(Seat(1), hints.meld(&rules).expect("the action"))
                .is_ok()
        );
    }
    let (game, _) = play_all(&game, &[(1, meld(&["3C 3D 3S", "4C 4D 4S 4H"]))]);
    assert_eq!(game.hand(Seat(1)).len(), 1, "3H left");
    assert!(
        game.hints(Seat(1)).layoffs.is_empty(),
        "§3: 3H fits the set of threes, but the last card must be discarded"
    );

    // The same hand in may_i may lay its last card off.
    let rules = Ruleset::default_for(Variant::MayI);
    let deck = stacked_deck(
        &rules,
        2,
        0,
        1,
        &["", "3C 3D 3S 4C 4D 4S 4H JS JH QS QH"],
        "KS",
        "3H",
    );
    let (game, _) = stacked_game(rules, 2, 0, vec![deck]);
    let (game, _) = play_all(
        &game,
        &[
            (1, draw(DrawSource::Stock)),
            (1, meld(&["3C 3D 3S", "4C 4D 4S 4H"])),
        ],
    );
    let hints = game.hints(Seat(1));
    assert!(
        hints.layoffs.iter().any(|l| l.card.to_string() == "3H"),
        "may_i has no last-card rule: {hints:?}"
    );
}

/// `push` lets a player who went down lay new melds: the hints suggest one the hand holds
/// (issue 52: "No meld or lay-off in this hand yet." with Q♦ Q♣ Q♦ in hand after going down),
/// and it is accepted as it stands.
#[test]
fn push_hints_a_new_meld_after_going_down() {
    let rules = crate::helpers::rules_with(Variant::Push, serde_json::json!({"ten_every_deal": true}));
    let deck = stacked_deck(&rules, 4, 0, 1, &["", "3C 3D 3S 4C 4D 4S QD QC QD 8H"], "KS", "");
    let (game, _) = stacked_game(rules, 4, 0, vec![deck]);
    let (game, _) = play_all(
        &game,
        &[
            (1, draw(DrawSource::Discard)),
            (1, meld(&["3C 3D 3S", "4C 4D 4S"])),
        ],
    );
    let hints = game.hints(Seat(1));
    assert!(hints.contract.is_none(), "down: no contract to suggest");
    let suggested = hints
        .new_meld
        .clone()
        .expect("a new meld of the queens is suggested");
    let mut cards: Vec<engine::Card> = suggested.cards().collect();
    cards.sort();
    let mut expected = crate::helpers::cards("QC QD QD");
    expected.sort();
    assert_eq!(cards, expected, "{suggested:?}");
    let action = hints
        .new_meld_action(game.rules())
        .expect("the new meld as an action");
    let (after, _) = game
        .apply(Seat(1), action)
        .expect("the suggested meld is accepted");
    assert_eq!(after.table().len(), 3);
    assert!(
        after.hints(Seat(1)).new_meld.is_none(),
        "no meld is left in the hand"
    );
}
