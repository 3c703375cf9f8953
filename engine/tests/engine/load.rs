//! A stored game loads only if the rules could have made it (docs/rules.md#conservation).

use engine::{Game, Variant};
use serde_json::{Value, json};

use crate::play_helpers::{draw, meld, new_game, play_all, stacked_deck, stacked_game};

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
    let edits: [(&str, Edit, &str); 9] = [
        ("an emptied stock", |s| s["stock"] = json!([]), "missing ["),
        (
            "a stock run out twice in a deal still played",
            |s| s["exhaustions"] = json!(2),
            "the stock ran out 2 times in a deal still played, where this variant turns it over 1 times at most",
        ),
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
    // `push` kept no buried wilds before: such a save loads with none known.
    let buried = buried_two();
    let mut earlier = serde_json::to_value(&buried).expect("json");
    assert!(earlier["public"]["buried"].is_object(), "{}", earlier["public"]);
    earlier["public"]
        .as_object_mut()
        .expect("public")
        .remove("buried");
    let (loaded, repairs) = repaired(earlier);
    assert!(repairs.is_empty(), "{repairs:?}");
    assert!(loaded.knowledge(engine::Seat(0)).buried_wilds().0.is_empty());
    assert_eq!(loaded.census(), buried.census());
    let format = {
        let mut newer = now;
        newer["format"] = json!(engine::GAME_FORMAT + 1);
        refusal(newer)
    };
    assert!(format.contains("newer than this release reads"), "{format}");
}

/// A game of `push` for four whose upcard, a 2H, was buried in the stock.
fn buried_two() -> Game {
    let rules = engine::Ruleset::default_for(Variant::Push);
    let deck = stacked_deck(&rules, 4, 3, 1, &[], "2H", "");
    let (game, _) = stacked_game(rules, 4, 3, vec![deck]);
    let seen = game.knowledge(engine::Seat(0));
    assert_eq!(seen.buried_wilds().0, [crate::helpers::card("2H")]);
    game
}

/// A game of `may_i` for three in which the first seat in turn took the discard: a card the
/// whole table knows it holds. As JSON, with that seat.
fn with_a_known_card() -> (Value, usize) {
    let game = new_game(Variant::MayI, 3, 11);
    let seat = game.turn().expect("a turn").0;
    let (game, _) = play_all(&game, &[(seat.0, draw(engine::DrawSource::Discard))]);
    let known = game.knowledge(seat).known(seat).to_vec();
    assert_eq!(known.len(), 1, "the discard it took: {known:?}");
    (serde_json::to_value(&game).expect("json"), seat.index())
}

/// Loads `state`, which must load, and what loading repaired, as text.
fn repaired(state: Value) -> (Game, Vec<String>) {
    let mut game: Game = serde_json::from_value(state).expect("derived facts never refuse a game");
    let repairs = game.take_repairs().iter().map(ToString::to_string).collect();
    (game, repairs)
}

#[test]
fn derived_facts_that_drifted_are_rebuilt_on_load_and_said() {
    let (state, seat) = with_a_known_card();
    let (game, repairs) = repaired(state.clone());
    assert!(repairs.is_empty(), "a game as the rules made it: {repairs:?}");
    let other = (seat + 1) % 3;
    let elsewhere = game.hand(engine::Seat(other as u8))[0].to_string();
    let edits: [(&str, Edit, String); 4] = [
        (
            "a wild buried in the stock of a variant that buries none",
            |s| s["public"]["buried"] = json!({ "wilds": ["2H"], "among": 70 }),
            "[2H] were kept as buried in the stock, which the rules could not have made: forgotten"
                .to_owned(),
        ),
        (
            "a card known in a hand that does not hold it",
            |s| {
                let (seat, other) = (known_seat(s), (known_seat(s) + 1) % 3);
                let card = s["hands"][other][0].clone();
                s["public"]["known"][seat]
                    .as_array_mut()
                    .expect("known")
                    .push(card);
            },
            format!("seat {seat} was known to hold [{elsewhere}], which is not in its hand: forgotten"),
        ),
        (
            "what the table saw kept for a seat too many",
            |s| {
                s["public"]["known"]
                    .as_array_mut()
                    .expect("known")
                    .resize(5, json!([]));
            },
            "what the table saw was kept for 5 seats of 3".to_owned(),
        ),
        (
            "a running total that is not the sum of the deals",
            |s| s["totals"][1] = json!(35),
            "seat 1's total was 35, not the sum of its deals' scores, 0".to_owned(),
        ),
    ];
    for (what, edit, says) in edits {
        let mut drifted = state.clone();
        edit(&mut drifted);
        let (loaded, repairs) = repaired(drifted);
        assert!(repairs.iter().any(|r| r.contains(&says)), "{what}: {repairs:?}");
        // Rebuilt as the rules would have kept it: the game it was, saved and loaded clean.
        assert_eq!(loaded, game, "{what}");
        let (_, again) = repaired(serde_json::to_value(&loaded).expect("json"));
        assert!(again.is_empty(), "{what}: repaired once for good: {again:?}");
    }
}

/// The seat that knows of a card in `state`, as [`with_a_known_card`] made it.
fn known_seat(state: &Value) -> usize {
    state["public"]["known"]
        .as_array()
        .expect("known")
        .iter()
        .position(|k| k.as_array().is_some_and(|k| !k.is_empty()))
        .expect("a seat knows of a card")
}

#[test]
fn what_the_game_itself_holds_still_refuses_it() {
    let (state, _) = with_a_known_card();
    let edits: [(&str, Edit, &str); 2] = [
        (
            "a known card lost from the hand that held it",
            |s| {
                let seat = known_seat(s);
                let card = s["public"]["known"][seat][0].clone();
                let hand = s["hands"][seat].as_array_mut().expect("a hand");
                let at = hand.iter().position(|c| *c == card).expect("held");
                hand.remove(at);
            },
            "missing [",
        ),
        (
            "a turn of a seat that does not exist",
            |s| s["turn"] = json!(3),
            "the turn is seat 3 at a table of 3",
        ),
    ];
    for (what, edit, says) in edits {
        let mut state = state.clone();
        edit(&mut state);
        let refused = refusal(state);
        assert!(
            refused.contains("the stored game is corrupt") && refused.contains(says),
            "{what}: {refused}"
        );
    }
}

/// The next meld id is derived from the melds on the table: one behind them is moved past
/// them as the game loads, so that the next meld never takes a laid meld's id.
#[test]
fn a_next_meld_id_behind_the_table_is_moved_past_it() {
    let rules = engine::Ruleset::default_for(Variant::MayI);
    let hands = ["3H 8C 8D 8S", "3C 3D 3S 4C 4D 4S 5C 5D 5S 3C"];
    let deck = stacked_deck(&rules, 2, 0, 1, &hands, "KS", "9C 4H");
    let (game, _) = stacked_game(rules, 2, 0, vec![deck]);
    let (game, _) = play_all(
        &game,
        &[
            (1, draw(engine::DrawSource::Stock)),
            (1, meld(&["3C 3D 3S", "4C 4D 4S"])),
        ],
    );
    let mut state = serde_json::to_value(&game).expect("json");
    let ids: Vec<u64> = game.table().iter().map(|m| u64::from(m.id)).collect();
    assert_eq!(ids, [1, 2], "two melds laid");
    state["next_meld_id"] = json!(1);
    let (loaded, repairs) = repaired(state);
    assert_eq!(
        repairs,
        ["the next meld id was 1, not past every meld's: now 3"],
        "{repairs:?}"
    );
    assert_eq!(loaded, game, "as the rules kept it");
}
