//! Games through HTTP: creating, joining, views, moves, events, hints, and full games.

use engine::{Action, DrawSource, Game, Seat, Seed, Status, Variant};
use serde_json::{Value, json};

use crate::helpers::{Table, TestApp, create, deck_with, discard, draw, local_game, meld, sorted_first_deal};
use crate::on_every_backend;

/// Plays a whole game through HTTP, every seat driven by the service's own simple bot on a
/// local copy of the game; the service must agree with the engine at every step and end in
/// the same standings.
async fn full_game(app: &TestApp, variant: Variant, players: usize) {
    let seed = 20_261_121;
    let (stacked, stacked_json) = sorted_first_deal(variant, players);
    let table = create(
        app,
        variant.id(),
        players,
        seed,
        json!({"stacked_decks": stacked_json}),
    )
    .await;
    let mut game = local_game(variant, players, seed, Some(stacked));
    let mut version = 1;
    let ctx = format!("{variant} on {:?}", app.backend);
    for step in 0..20_000 {
        if game.status() != Status::Playing {
            break;
        }
        let (seat, _) = game.turn().expect("someone is in turn while playing");
        let action = game
            .bot_choice(seat, engine::bot::Level::Normal)
            .unwrap_or_else(|| panic!("{ctx}: the bot has a move at step {step}"));
        let view = app
            .act(&table, usize::from(seat.0), &action, &[])
            .await
            .ok(&format!("{ctx} step {step}: {action:?}"));
        game = game
            .apply(seat, action)
            .expect("the engine accepts what the service accepted")
            .0;
        version += 1;
        assert_eq!(
            view["version"], version,
            "{ctx}: every accepted action bumps the version once"
        );
        let hand: Vec<String> = game.hand(seat).iter().map(ToString::to_string).collect();
        assert_eq!(
            view["you"]["hand"],
            json!(hand),
            "{ctx} step {step}: the seat's hand agrees with the engine"
        );
    }
    assert_eq!(game.status(), Status::Finished, "{ctx}: the game finishes");
    let view = app.view(&table, 0).await.ok(&ctx);
    assert_eq!(view["status"], "finished", "{ctx}");
    let expected: Vec<Value> = game
        .standings()
        .expect("standings once finished")
        .iter()
        .map(|s| json!({"seat": s.seat.0, "place": s.place, "total": s.total, "left": s.left}))
        .collect();
    assert_eq!(
        view["standings"],
        json!(expected),
        "{ctx}: the standings are the engine's"
    );
    let places: Vec<u64> = view["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .filter_map(|s| s["place"].as_u64())
        .collect();
    assert_eq!(places.first(), Some(&1), "{ctx}: someone wins");
    assert_eq!(
        view["seed"],
        Seed::from_u64(seed).to_hex(),
        "{ctx}: the seed is revealed at the end"
    );
    assert_eq!(
        view["seed_commitment"],
        Game::seed_commitment(&Seed::from_u64(seed)),
        "{ctx}: the revealed seed matches the commitment"
    );
    assert!(!app.log(&table, 0).await.is_empty(), "{ctx}: the game has events");
}

async fn full_games_of_every_variant(app: &TestApp) {
    full_game(app, Variant::MayI, 3).await;
    full_game(app, Variant::Contract7, 3).await;
    full_game(app, Variant::Continental, 2).await;
    full_game(app, Variant::Push, 4).await;
}
on_every_backend!(
    full_games_of_every_variant_on_every_backend,
    full_games_of_every_variant
);

/// Lets `bot` play on a local copy as the service does (a claim out of turn, or its turn)
/// until a person must act; returns how many actions the engine accepted.
fn play_bot_locally(game: &mut Game, bot: Seat) -> i64 {
    let mut actions = 0;
    while game.status() == Status::Playing {
        let Some((turn, _)) = game.turn() else { break };
        let action = match game.bot_choice(bot, engine::bot::Level::Normal) {
            Some(a @ Action::Claim {}) if turn != bot => a,
            Some(a) if turn == bot => a,
            _ => break,
        };
        *game = game.apply(bot, action).expect("the bot's move is legal").0;
        actions += 1;
    }
    actions
}

/// docs/api.md#versions: `version` is incremented by every accepted action, the bots' included: a
/// human move raises it by one, and the bot moves it sets off (each its own commit, at its pace)
/// by one per action; the ETag follows.
async fn version_counts_bot_actions(app: &TestApp) {
    let seed = 77;
    let reply = app
        .post(
            "/v1/games",
            &json!({"variant": "contract_7", "seats": [{"name": "Ann"}, {"bot": true}], "seed": seed, "first_dealer": 0}),
        )
        .await;
    assert_eq!(reply.status.as_u16(), 201, "{}", reply.text());
    let created = reply.json();
    let table = Table::of_created(&created);
    let bot = Seat(1);
    let mut game = local_game(Variant::Contract7, 2, seed, None);
    let mut version = 1 + play_bot_locally(&mut game, bot);
    at_version(app, &table, version, "the bot's first moves count").await;
    let mut bot_actions = 0;
    for step in 0..12 {
        let Some((turn, _)) = game.turn() else { break };
        assert_eq!(
            turn,
            Seat(0),
            "step {step}: the person is in turn after the bot played"
        );
        let action = game
            .bot_choice(turn, engine::bot::Level::Normal)
            .expect("a move for the person");
        let reply = app.act(&table, 0, &action, &[]).await;
        let view = reply.ok(&format!("step {step}"));
        game = game.apply(turn, action).expect("legal").0;
        version += 1;
        assert_eq!(
            view["version"], version,
            "step {step}: one version for the person's action"
        );
        assert_eq!(
            reply.header("etag"),
            Some(format!("\"{version}\"")),
            "step {step}: the ETag follows"
        );
        let by_bot = play_bot_locally(&mut game, bot);
        bot_actions += by_bot;
        version += by_bot;
        at_version(
            app,
            &table,
            version,
            &format!("step {step}: one version per accepted action ({by_bot} by the bot)"),
        )
        .await;
        if game.status() != Status::Playing {
            break;
        }
    }
    assert!(
        bot_actions >= 2,
        "the bot played a turn (draw and discard) in the test"
    );
}

/// Waits until game `table` is at `version`, as the bots play at their pace.
async fn at_version(app: &TestApp, table: &Table, version: i64, what: &str) {
    crate::helpers::eventually(std::time::Duration::from_secs(20), what, async || {
        let view = app.view(table, 0).await.ok("the view");
        match view["version"] == version {
            true => Ok(()),
            false => Err(view),
        }
    })
    .await;
}
on_every_backend!(
    version_counts_bot_actions_on_every_backend,
    version_counts_bot_actions
);

/// docs/rules.md#contract_7-play: a player may not lay off their last card, so `/hints` offers no
/// lay-off of it; with a card to spare the same lay-off is offered.
async fn hints_keep_the_last_card_in_contract_7(app: &TestApp) {
    let wanted = ["7H", "7S", "7D", "QC", "QD", "QH", "7C"];
    let (seat, deck) = deck_with(Variant::Contract7, 2, &wanted);
    let deck: Vec<String> = deck.iter().map(ToString::to_string).collect();
    let table = create(app, "contract_7", 2, 1, json!({"stacked_decks": [deck]})).await;
    let seat = usize::from(seat.0);
    let token = &table.tokens[seat];
    let game = table.path();
    app.act(&table, seat, &draw(DrawSource::Stock), &[])
        .await
        .ok("a draw");
    let down = app
        .act(&table, seat, &meld(&["7H 7S 7D", "QC QD QH"]), &[])
        .await
        .ok("going down");
    let hand: Vec<String> = down["you"]["hand"]
        .as_array()
        .expect("a hand")
        .iter()
        .map(|c| c.as_str().expect("a card").to_owned())
        .collect();
    assert_eq!(hand.len(), 2, "7C and the drawn card: {hand:?}");
    let offers_7c = |hints: &Value| {
        hints["layoffs"]
            .as_array()
            .expect("layoffs")
            .iter()
            .any(|l| l["card"] == "7C")
    };
    let hints = app.get_as(&format!("{game}/hints"), token).await.json();
    assert!(
        offers_7c(&hints),
        "with two cards, 7C may go on the sevens: {hints}"
    );
    let spare = if hand[0] == "7C" { &hand[1] } else { &hand[0] };
    app.act(&table, seat, &discard(spare), &[])
        .await
        .ok("discarding the spare card");
    let hints = app.get_as(&format!("{game}/hints"), token).await.json();
    assert!(
        !offers_7c(&hints),
        "§3: the last card may not be laid off, so it is not suggested: {hints}"
    );
}
on_every_backend!(
    hints_keep_the_last_card_in_contract_7_on_every_backend,
    hints_keep_the_last_card_in_contract_7
);

/// docs/rules.md#taking-back (`may_i`): before discarding, a player may take back one play of this
/// turn (`{"play": n}`) and keep the rest, going down included; `you.plays` lists the plays.
async fn taking_back_one_play(app: &TestApp) {
    let wanted = ["3C", "3D", "3S", "4C", "4D", "4S", "3H", "4H"];
    let (seat, deck) = deck_with(Variant::MayI, 2, &wanted);
    let deck: Vec<String> = deck.iter().map(ToString::to_string).collect();
    let table = create(app, "may_i", 2, 1, json!({"stacked_decks": [deck]})).await;
    let token = &table.tokens[usize::from(seat.0)];
    let game = format!("/v1/games/{}", table.id);
    let act = |path: &'static str, body: Value| {
        let url = format!("{game}/{path}");
        async move { app.post_as(&url, token, &body, &[]).await }
    };
    act("draw", json!({"source": "stock"})).await.ok("draw");
    let down = act(
        "melds",
        json!({"melds": [{"cards": ["3C", "3D", "3S"]}, {"cards": ["4C", "4D", "4S"]}]}),
    )
    .await
    .ok("going down");
    let threes = down["table"][0]["id"].as_u64().expect("a meld id");
    let fours = down["table"][1]["id"].as_u64().expect("a meld id");
    act("layoffs", json!({"meld_id": threes, "cards": ["3H"]}))
        .await
        .ok("3H");
    let before = act("layoffs", json!({"meld_id": fours, "cards": ["4H"]}))
        .await
        .ok("4H");
    let plays = before["you"]["plays"].as_array().expect("plays");
    assert_eq!(plays.len(), 3, "going down and two lay-offs: {plays:?}");
    assert_eq!(
        plays[1]["action"]["cards"],
        json!(["3H"]),
        "play 1 is the 3H lay-off"
    );
    assert_eq!(plays[1]["can_take_back"], json!(true));

    let after = act("take_back", json!({"play": 1}))
        .await
        .ok("taking back the 3H");
    let hand = after["you"]["hand"].as_array().expect("hand");
    assert!(hand.contains(&json!("3H")), "the 3H is back in hand: {hand:?}");
    assert!(
        !hand.contains(&json!("4H")),
        "the 4H stays on the table: {hand:?}"
    );
    let me = &after["players"][usize::from(seat.0)];
    assert_eq!(me["down"], json!(true), "going down is kept");
    assert_eq!(
        after["table"][0]["cards"].as_array().map(Vec::len),
        Some(3),
        "threes as melded"
    );
    assert_eq!(
        after["table"][1]["cards"].as_array().map(Vec::len),
        Some(4),
        "fours keep the 4H"
    );

    act("take_back", json!({"play": 9}))
        .await
        .assert_problem(422, "unknown_play", "no such play");
    act("take_back", json!({"play": "one"}))
        .await
        .assert_problem(400, "invalid_body", "play is a number");
}
on_every_backend!(taking_back_one_play_on_every_backend, taking_back_one_play);

/// On PostgreSQL a game's state, about 2 KB of JSON compressed on every write, is compressed
/// with lz4 (migration `20261124000001`), on its creation and on each move.
#[actix_web::test]
async fn the_stored_state_is_compressed_with_lz4() {
    use continental::config::DatabaseSettings;
    use sqlx::{Connection, Row};

    use crate::helpers::{Backend, postgres_url};

    if postgres_url().is_none() {
        return;
    }
    let app = TestApp::spawn(&Backend::Postgres).await;
    let DatabaseSettings::Postgres { url } = &app.database else {
        unreachable!("a PostgreSQL app")
    };
    let mut conn = sqlx::PgConnection::connect(url).await.expect("a connection");
    let table = create(&app, "may_i", 4, 7, json!({})).await;
    let compression = async |conn: &mut sqlx::PgConnection| -> Option<String> {
        sqlx::query("SELECT pg_column_compression(state) AS c FROM games WHERE id = $1::uuid")
            .bind(&table.id)
            .fetch_one(conn)
            .await
            .expect("the game's row")
            .get("c")
    };
    assert_eq!(compression(&mut conn).await.as_deref(), Some("lz4"), "as created");
    app.draw_in_turn(&table).await;
    assert_eq!(
        compression(&mut conn).await.as_deref(),
        Some("lz4"),
        "after a move"
    );
    app.clean_up().await;
}
