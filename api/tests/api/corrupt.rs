//! A stored game the rules could not have made is neither played nor shown: `500
//! corrupt_game`, while every other game plays on.

use serde_json::{Value, json};

use crate::helpers::{ACME, Backend, TestApp, create, create_with, draw, edit_state, on_studio_backends};
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
