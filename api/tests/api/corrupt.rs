//! A stored game the rules could not have made is neither played nor shown: `500
//! corrupt_game`, while every other game plays on. Bookkeeping derived from the game (what a
//! seat is known to hold, the running totals) that drifted is rebuilt as the game loads.

use serde_json::{Value, json};

use crate::helpers::{
    ACME, Backend, TestApp, create, create_with, draw, edit_state, on_game_rows, on_studio_backends,
};
use crate::on_every_backend;

/// A change made to a stored table's state.
type Edit = fn(&mut Value);

async fn a_corrupt_game_is_refused_and_the_others_play_on(app: &TestApp) {
    let edits: [(&str, Edit); 3] = [
        ("an emptied stock", |s| s["game"]["stock"] = json!([])),
        ("a card twice", |s| {
            let copy = s["game"]["hands"][1][0].clone();
            s["game"]["hands"][0].as_array_mut().expect("a hand").push(copy);
        }),
        ("a turn out of range", |s| s["game"]["turn"] = json!(5)),
    ];
    for (what, edit) in edits {
        let other = create(app, "may_i", 3, 8, json!({})).await;
        let table = create(app, "may_i", 3, 7, json!({})).await;
        let seat = app.in_turn(&table).await;
        edit_state(app, &table.id, edit).await;
        let view = app.view(&table, seat).await;
        view.assert_problem(500, "corrupt_game", &format!("{what}: the view"));
        assert!(
            !view.text().contains("\"hand\""),
            "{what}: nothing of the game is shown: {}",
            view.text()
        );
        app.act(&table, seat, &draw(engine::DrawSource::Stock), &[])
            .await
            .assert_problem(500, "corrupt_game", &format!("{what}: a move"));
        // Another game is untouched by it.
        let in_turn = app.in_turn(&other).await;
        let held = async || {
            let view = app.view(&other, in_turn).await.ok("the other game's view");
            view["you"]["hand"].as_array().map(Vec::len)
        };
        let before = held().await;
        app.draw_in_turn(&other).await;
        assert_eq!(
            held().await,
            before.map(|n| n + 1),
            "{what}: the other game plays on"
        );
    }
}
on_every_backend!(
    a_corrupt_game_is_refused_and_the_others_play_on_every_backend,
    a_corrupt_game_is_refused_and_the_others_play_on
);

/// A studio's listing shows a game that does not load as its row says (`corrupt`, no seats),
/// and every other game as usual: one bad row does not take the listing down.
#[actix_web::test]
async fn a_corrupt_game_is_listed_apart_and_the_listing_stands() {
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}]});
        let sound = create_with(app, ACME, &body).await;
        let broken = create_with(app, ACME, &body).await;
        let broken_id = broken["id"].as_str().expect("id");
        edit_state(app, broken_id, |s| s["game"]["turn"] = json!(5)).await;
        let listing = app.get_with_key("/v1/games", ACME).await.ok("the listing");
        let games = listing["games"].as_array().expect("games");
        let find = |id: &Value| games.iter().find(|g| g["id"] == *id).expect("listed");
        let listed = find(&broken["id"]);
        assert_eq!(listed["corrupt"], json!(true), "{backend:?}: {listed}");
        assert_eq!(
            listed["seats"],
            json!([]),
            "{backend:?}: nothing of its state is shown"
        );
        assert_eq!(listed["status"], "playing", "{backend:?}: what its row says");
        let fine = find(&sound["id"]);
        assert!(fine.get("corrupt").is_none(), "{backend:?}: {fine}");
        assert_eq!(fine["seats"].as_array().map(Vec::len), Some(2), "{backend:?}");
    })
    .await;
}

/// What a seat is known to hold is derived from the game: a stored list that drifted (a card
/// "known" in a hand that does not hold it, a total off its deals) is rebuilt as the game
/// loads, and the game plays on; its next write stores it repaired.
async fn a_game_whose_derived_facts_drifted_still_plays(app: &TestApp) {
    let table = create(app, "may_i", 3, 7, json!({})).await;
    let seat = app.in_turn(&table).await;
    let other = (seat + 1) % 3;
    let mut drifted = None;
    edit_state(app, &table.id, |s| {
        let card = s["game"]["hands"][other][0].clone();
        let mut known = vec![json!([]); 3];
        known[seat] = json!([card]);
        s["game"]["public"]["known"] = json!(known);
        s["game"]["totals"][other] = json!(40);
        drifted = Some(card);
    })
    .await;
    let drifted = drifted.expect("a card");
    let view = app.view(&table, seat).await.ok("the view");
    assert_eq!(view["status"], "playing", "{view}");
    let turn = app
        .act(&table, seat, &draw(engine::DrawSource::Stock), &[])
        .await
        .ok("the seat in turn draws");
    assert_eq!(turn["you"]["hand"].as_array().map(Vec::len), Some(13), "{turn}");
    let stored = on_game_rows(app, &table.id, "SELECT state FROM games WHERE id = $1", None)
        .await
        .expect("the game");
    let stored: Value = serde_json::from_str(&stored).expect("stored JSON");
    let known = &stored["game"]["public"]["known"];
    assert!(
        known[seat].as_array().is_none_or(|k| !k.contains(&drifted)),
        "stored repaired: {known}"
    );
    assert_eq!(stored["game"]["totals"][other], json!(0), "summed again");
}
on_every_backend!(
    a_game_whose_derived_facts_drifted_still_plays_every_backend,
    a_game_whose_derived_facts_drifted_still_plays
);
