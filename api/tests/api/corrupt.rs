//! A stored game the rules could not have made is neither played nor shown: `500
//! corrupt_game`, while every other game plays on.

use serde_json::{Value, json};

use crate::helpers::{TestApp, create, draw, edit_state};
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
