//! Simulations (issue 3): complete games with random legal actions and the bot, checking the
//! invariants after every action.

use engine::{Action, Card, Game, Seat, Status, Variant};

use crate::play_helpers::{TestRng, assert_conserved, concrete_actions, new_game, play_checked};

/// Plays one game with uniformly random concrete actions; returns the number of actions.
fn random_game(variant: Variant, players: usize, seed: u64, leave: bool) -> usize {
    let mut game = new_game(variant, players, seed);
    assert_conserved(&game, "after setup");
    let mut rng = TestRng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut steps = 0;
    while game.status() == Status::Playing {
        steps += 1;
        assert!(steps < 100_000, "{variant} game {seed} does not end");
        let mut choices: Vec<(Seat, Action)> = Vec::new();
        for s in 0..players {
            let seat = Seat(s as u8);
            for a in concrete_actions(&game, seat) {
                if a == Action::Leave && !(leave && rng.below(2000) == 0) {
                    continue;
                }
                choices.push((seat, a));
            }
        }
        assert!(!choices.is_empty(), "someone can always act");
        let (seat, action) = choices[rng.below(choices.len())].clone();
        let context = format!("{variant} {players}p seed {seed} step {steps}");
        check_refusals(&game, &mut rng, &context);
        game = play_checked(&game, seat, action, &context).0;
    }
    steps
}

/// A sample of unlisted actions must be refused.
fn check_refusals(game: &Game, rng: &mut TestRng, context: &str) {
    let Some((turn, _)) = game.turn() else { return };
    let players = game.players();
    let other = Seat(((turn.index() + 1 + rng.below(players - 1)) % players) as u8);
    for a in [
        Action::Draw {
            source: engine::DrawSource::Stock,
        },
        Action::Discard { card: Card::JOKER },
        Action::TakeBack,
    ] {
        assert!(
            game.apply(other, a.clone()).is_err(),
            "{context}: {a:?} out of turn accepted"
        );
    }
    let listed = concrete_actions(game, turn);
    for a in [
        Action::Draw {
            source: engine::DrawSource::Discard,
        },
        Action::Draw {
            source: engine::DrawSource::Stock,
        },
        Action::Claim,
        Action::TakeBack,
    ] {
        if !listed.contains(&a) {
            assert!(
                game.apply(turn, a.clone()).is_err(),
                "{context}: unlisted {a:?} accepted"
            );
        }
    }
    let missing = engine::Card::suited().find(|c| !game.hand(turn).contains(c));
    if let Some(card) = missing {
        let e = game
            .apply(turn, Action::Discard { card })
            .expect_err("card not in hand");
        assert!(
            matches!(
                e.code(),
                "card_not_in_hand" | "wrong_phase" | "freed_wild_in_hand"
            ),
            "{context}: {e}"
        );
    }
}

#[test]
fn random_play_keeps_every_invariant() {
    for variant in Variant::ALL {
        let rules = engine::Ruleset::default_for(variant);
        let range = rules.players();
        for k in 0..20u64 {
            let players = range.start() + (k as usize % (range.end() - range.start() + 1));
            random_game(variant, players, k, true);
        }
    }
}
