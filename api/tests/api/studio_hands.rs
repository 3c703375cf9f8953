//! A studio's hands on a stuck game (docs/api.md#studio): ending it void with a reason, and
//! putting a bot in a seat whose player is gone, with its server key, on its own games only.

use serde_json::{Value, json};

use crate::helpers::{
    ACME, BETA, Backend, Receiver, Table, TestApp, backends, create_with, on_studio_backends,
};

/// A two-player `may_i` game of `acme` (seat 0 dealing, so seat 1 leads), its events sent to
/// `webhook` if given.
async fn acme_game(app: &TestApp, webhook: Option<&str>) -> Table {
    let mut body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": 3, "first_dealer": 0});
    if let Some(url) = webhook {
        body["webhook_url"] = json!(url);
    }
    Table::of_created(&create_with(app, ACME, &body).await)
}

/// The events of `table` as seat `seat` reads them.
async fn events(app: &TestApp, table: &Table, seat: usize) -> Vec<Value> {
    app.log(table, seat).await.into_iter().map(|e| e.event).collect()
}

/// The studio ends a game: void at once, a `called_off` with the reason to every reader and
/// the webhook; a second end, another tenant, a bad reason or no key are refused.
#[actix_web::test]
async fn a_studio_ends_a_game_void_with_its_reason() {
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        let receiver = Receiver::start(200);
        let table = acme_game(app, Some(&receiver.url)).await;
        let end = format!("{}/end", table.path());
        let reason = json!({"reason": "a reported cheat"});
        app.post_with_key(&end, BETA, &reason, &[]).await.assert_problem(
            404,
            "game_not_found",
            "another tenant's game",
        );
        app.post(&end, &reason)
            .await
            .assert_problem(401, "unauthorized", "no key");
        for bad in [
            json!(""),
            json!("   "),
            json!("a\u{7}bell"),
            json!("x".repeat(201)),
        ] {
            app.post_with_key(&end, ACME, &json!({"reason": bad}), &[])
                .await
                .assert_problem(400, "invalid_reason", &format!("{backend:?}: {bad}"));
        }
        let before = app.version(&table).await;
        let ended = app.post_with_key(&end, ACME, &reason, &[]).await.ok("the end");
        assert_eq!(ended["status"], "void", "{backend:?}: {ended}");
        assert!(
            ended["version"].as_i64().is_some_and(|v| v > before),
            "{backend:?}: {ended}"
        );
        let view = app.view(&table, 0).await.ok("the view after");
        assert_eq!(view["status"], "void", "{backend:?}: {view}");
        assert!(view["turn"].is_null(), "{backend:?}: no one in turn: {view}");
        let log = events(app, &table, 1).await;
        let tail: Vec<&Value> = log.iter().rev().take(3).rev().map(|e| &e["type"]).collect();
        assert_eq!(
            tail,
            ["called_off", "game_void", "game_finished"],
            "{backend:?}: {log:?}"
        );
        let called_off = log
            .iter()
            .find(|e| e["type"] == "called_off")
            .expect("called_off");
        assert_eq!(called_off["reason"], "a reported cheat", "{backend:?}");
        assert_eq!(called_off["rated"], false, "{backend:?}: ended without the flag");
        assert!(called_off.get("standings").is_none(), "{backend:?}: {called_off}");
        let got = receiver
            .wait_for("called_off delivered", |r| {
                r.iter().any(|d| d.json()["type"] == "called_off")
            })
            .await;
        let hooked = got
            .iter()
            .map(|d| d.json())
            .find(|b| b["type"] == "called_off")
            .expect("one");
        assert_eq!(
            hooked["event"]["reason"], "a reported cheat",
            "{backend:?}: {hooked}"
        );
        app.post_with_key(&end, ACME, &reason, &[]).await.assert_problem(
            409,
            "game_over",
            "a game over ends once",
        );
        app.act(&table, 1, &crate::helpers::draw(engine::DrawSource::Stock), &[])
            .await
            .assert_problem(409, "game_over", "no move in a void game");
    })
    .await;
}

/// The studio puts a bot in the seat in turn, on one replica: the seat's token is refused at
/// once on both, the bot plays its turn at once, and a `bot_seated` event says so.
#[actix_web::test]
async fn a_studio_puts_a_bot_in_a_seat() {
    for backend in backends() {
        let one = TestApp::spawn_studio(&backend, None).await;
        let two = TestApp::spawn_studio(&backend, Some(one.database.clone())).await;
        let receiver = Receiver::start(200);
        let table = acme_game(&one, Some(&receiver.url)).await;
        assert_eq!(one.in_turn(&table).await, 1, "{backend:?}: Bob leads");
        let path = format!("{}/seats/1/bot", table.path());
        one.post_with_key(&path, BETA, &json!({}), &[])
            .await
            .assert_problem(404, "game_not_found", "another tenant's game");
        one.post_with_key(&format!("{}/seats/7/bot", table.path()), ACME, &json!({}), &[])
            .await
            .assert_problem(404, "seat_not_found", "no seat 7");
        one.post_with_key(&path, ACME, &json!({"level": "brilliant"}), &[])
            .await
            .assert_problem(400, "unknown_level", "no such level");
        let seated = one
            .post_with_key(&path, ACME, &json!({"level": "easy"}), &[])
            .await
            .ok("a bot in seat 1");
        assert_eq!(seated["status"], "playing", "{backend:?}: {seated}");
        for app in [&one, &two] {
            app.view(&table, 1)
                .await
                .assert_problem(401, "unauthorized", "Bob's token, on either replica");
        }
        // The bot plays seat 1's turn, at its pace at Ann's table: then Ann is in turn.
        let view = two.when_in_turn(&table, 0, 0).await;
        assert_eq!(view["players"][1]["kind"], "bot", "{backend:?}: {view}");
        assert_eq!(
            view["players"][1]["name"], "Bob",
            "{backend:?}: the seat keeps its name"
        );
        let log = events(&two, &table, 0).await;
        let seated_at = log
            .iter()
            .position(|e| e["type"] == "bot_seated")
            .expect("bot_seated");
        assert_eq!(log[seated_at]["seat"], 1, "{backend:?}");
        assert_eq!(log[seated_at]["level"], "easy", "{backend:?}");
        assert!(
            log[seated_at..]
                .iter()
                .any(|e| e["type"] == "discarded" && e["seat"] == 1),
            "{backend:?}: the bot played its turn: {log:?}"
        );
        receiver
            .wait_for("bot_seated delivered", |r| {
                r.iter().any(|d| d.json()["type"] == "bot_seated")
            })
            .await;
        // A bot's seat has no token to reissue.
        one.post_with_key(&format!("{}/seats/1/token", table.path()), ACME, &json!({}), &[])
            .await
            .assert_problem(409, "seat_has_no_token", "a bot's seat");
        one.kill_switch.kill().await;
        two.kill_switch.kill().await;
        one.clean_up().await;
    }
}
