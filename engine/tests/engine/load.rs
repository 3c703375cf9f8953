//! A stored game loads only if the rules could have made it (docs/rules.md#conservation).

use engine::{Game, Variant};
use serde_json::{Value, json};

use crate::play_helpers::{draw, new_game, play_all};

/// A game of `may_i` for three, one draw in, as JSON.
fn stored() -> Value {
    let game = new_game(Variant::MayI, 3, 11);
    let seat = game.turn().expect("a turn").0;
    let (game, _) = play_all(&game, &[(seat.0, draw(engine::DrawSource::Stock))]);
    serde_json::to_value(&game).expect("json")
}

/// A change made to a stored game.
type Edit = fn(&mut Value);

fn refusal(state: Value) -> String {
    serde_json::from_value::<Game>(state)
        .map(|_| ())
        .expect_err("a corrupt game does not load")
        .to_string()
}

#[test]
fn a_game_whose_cards_or_seats_the_rules_could_not_have_made_does_not_load() {
    let edits: [(&str, Edit, &str); 8] = [
        ("an emptied stock", |s| s["stock"] = json!([]), "missing ["),
        (
            "an emptied stock and discard pile",
            |s| {
                s["stock"] = json!([]);
                s["discard"] = json!([]);
            },
            "",
        ),
        (
            "a card twice",
            |s| {
                let copy = s["hands"][1][0].clone();
                s["hands"][0].as_array_mut().expect("a hand").push(copy);
            },
            "besides [",
        ),
        (
            "a turn out of range",
            |s| s["turn"] = json!(5),
            "the turn is seat 5 at a table of 3",
        ),
        (
            "a dealer out of range",
            |s| s["dealer"] = json!(3),
            "the dealer is seat 3",
        ),
        ("deal 0", |s| s["deal"] = json!(0), "deal 0 of a game of 7 deals"),
        (
            "a seat missing from a per-seat list",
            |s| {
                s["totals"].as_array_mut().expect("totals").pop();
            },
            "`totals` has 2 seats, not 3",
        ),
        (
            "a claim by a seat of no table",
            |s| s["pending"] = json!([7]),
            "a pending claim is seat 7",
        ),
    ];
    for (what, edit, says) in edits {
        let mut state = stored();
        edit(&mut state);
        let refused = refusal(state);
        assert!(
            refused.contains("the stored game is corrupt") && refused.contains(says),
            "{what}: {refused}"
        );
    }
    assert!(
        serde_json::from_value::<Game>(stored()).is_ok(),
        "the game as the rules made it loads"
    );
}

/// Rows written by earlier versions lack the fields added since, each with a serde default.
#[test]
fn a_game_saved_by_an_earlier_version_still_loads() {
    let now = stored();
    let mut earlier = now.clone();
    let fields = earlier.as_object_mut().expect("an object");
    for added in ["deal_actions", "suspend_requests", "resume_requests"] {
        fields.remove(added);
    }
    if let Some(turn) = fields.get_mut("turn_state").and_then(Value::as_object_mut) {
        turn.remove("plays");
    }
    let loaded: Game = serde_json::from_value(earlier).expect("an earlier save loads");
    assert_eq!(loaded.census().len(), 108, "with every card");
    let format = {
        let mut newer = now;
        newer["format"] = json!(engine::GAME_FORMAT + 1);
        refusal(newer)
    };
    assert!(format.contains("newer than this release reads"), "{format}");
}
