//! Scenarios for RULES.md §2 (`may_i`) on stacked decks.

use engine::{Action, DealEnd, DrawSource, Event, ProposedMeld, Ruleset, Seat, Variant};

use crate::play_helpers::{cards, deal_ended, discard, draw, play_all, stacked_deck, stacked_game};

fn meld(names: &[&str]) -> Action {
    Action::Meld {
        melds: names.iter().map(|n| ProposedMeld::of(&cards(n))).collect(),
    }
}

#[test]
fn rules_2_going_out_by_discarding_the_last_card_scores_hands() {
    let rules = Ruleset::default_for(Variant::MayI);
    let deck = stacked_deck(
        &rules,
        2,
        0,
        1,
        &["", "3C 3D 3S 3H 3C 3D 4C 4D 4S 4H 4C 4D"],
        "KS",
        "9C",
    );
    let (game, _) = stacked_game(rules.clone(), 2, 0, vec![deck]);
    let left_over: i32 = game
        .hand(Seat(0))
        .iter()
        .map(|c| rules.card_value(*c).expect("value"))
        .sum();
    let (game, events) = play_all(
        &game,
        &[
            (1, draw(DrawSource::Stock)),
            (1, meld(&["3C 3D 3S 3H 3C 3D", "4C 4D 4S 4H 4C 4D"])),
            (1, discard("9C")),
        ],
    );
    assert_eq!(
        deal_ended(&events),
        Some(DealEnd::WentOut { seat: Seat(1) }),
        "§2 going out by discarding"
    );
    let scores = events
        .iter()
        .find_map(|e| match e {
            Event::DealEnded { scores, .. } => Some(scores.clone()),
            _ => None,
        })
        .expect("scored");
    assert_eq!(
        scores,
        vec![left_over, 0],
        "§2 score: cards left in hand; the player out scores 0"
    );
    assert_eq!(game.deal(), 2, "the next deal follows");
    assert_eq!(game.dealer(), Seat(1), "the deal passes to the left");
}
