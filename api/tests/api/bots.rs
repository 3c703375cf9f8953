//! Bots by level (docs/bots.md, docs/api.md#bots): levels taken, stored and shown; bots that
//! search (`hard`) play after the response, never inside a person's request, through the
//! exactly-once machinery of turn deadlines; the open server's budget of bot tables; autopilot.

use std::time::Duration;

use continental::config::Limits;
use engine::DrawSource;
use serde_json::{Value, json};

use futures_util::future::join_all;

use crate::helpers::{
    ACME, Backend, Reply, STUDIO_KEYS, Spawn, Table, TestApp, backends, create_with, draw, eventually,
    on_studio_backends, server_backends,
};

/// A test-mode app with the studio keys on `database` (a fresh one if `None`), whose replica
/// thinks for bots on `bot_threads` threads; with none (and other replicas said to think), a
/// hard bot in turn stays due, which lets a test see that state without racing the bots.
async fn studio_thinking(
    backend: &Backend,
    database: Option<continental::config::DatabaseSettings>,
    bot_threads: usize,
) -> TestApp {
    TestApp::spawn_with(
        backend,
        Spawn {
            test_mode: true,
            database,
            api_keys: STUDIO_KEYS.into(),
            limits: Some(Limits {
                bot_threads: Some(bot_threads),
                bots_elsewhere: true,
                ..Limits::default()
            }),
            ..Spawn::default()
        },
    )
    .await
}

/// Creates a test-mode game of the studio with these seats, seat `first_dealer` dealing;
/// answers the created game's JSON.
async fn create_seated(app: &TestApp, variant: &str, seats: Value, first_dealer: u8) -> Value {
    let body = json!({"variant": variant, "seats": seats, "seed": 7, "first_dealer": first_dealer});
    create_with(app, ACME, &body).await
}

/// The game's log as a spectator of no seat sees it, through seat `seat`'s token.
async fn log(app: &TestApp, table: &Table, seat: usize) -> Vec<Value> {
    app.log(table, seat).await.into_iter().map(|e| e.event).collect()
}

/// Waits (300 s at most: hard bots search) until game `table` is over, as seat `seat` sees it;
/// answers its log.
async fn finished(app: &TestApp, table: &Table, seat: usize) -> Vec<Value> {
    eventually(Duration::from_secs(300), "the game ends", async || {
        let events = log(app, table, seat).await;
        match events.iter().any(|e| e["type"] == "game_finished") {
            true => Ok(events),
            false => Err(events.len()),
        }
    })
    .await
}

/// A studio's game of hard bots only, watched through a spectator token: its id and that
/// token as a table.
async fn bots_only(app: &TestApp, variant: &str, seats: usize) -> Table {
    let bots: Vec<Value> = (0..seats).map(|_| json!({"bot": "hard"})).collect();
    let created = create_seated(app, variant, json!(bots), 0).await;
    let id = created["id"].as_str().expect("an id").to_owned();
    let token = app
        .post_with_key(&format!("/v1/games/{id}/spectators"), ACME, &json!({}), &[])
        .await;
    let token = token.ok("a spectator token")["token"]
        .as_str()
        .expect("a token")
        .to_owned();
    Table {
        id,
        tokens: vec![token],
    }
}

/// Checks over a finished game's log that no move was played twice: in each turn, the seat in
/// turn draws at most once and discards at most once, and only it draws or discards.
fn assert_each_move_once(events: &[Value], context: &str) {
    let starts: Vec<usize> = (0..events.len())
        .filter(|&i| events[i]["type"] == "turn")
        .chain([events.len()])
        .collect();
    assert!(starts.len() > 4, "{context}: turns were played: {events:?}");
    for pair in starts.windows(2) {
        let turn = &events[pair[0]..pair[1]];
        let seat = &turn[0]["seat"];
        for kind in ["drew", "discarded"] {
            let moves: Vec<&Value> = turn.iter().filter(|e| e["type"] == kind).collect();
            assert!(moves.len() <= 1, "{context}: one `{kind}` a turn: {turn:?}");
            assert!(
                moves.iter().all(|e| &e["seat"] == seat),
                "{context}: only the seat in turn: {turn:?}"
            );
        }
    }
}

async fn levels_are_taken_stored_and_shown(app: &TestApp) {
    let seats = json!([{"name": "Ann"}, {"bot": "easy"}, {"bot": "hard"}, {"bot": true}]);
    let created = create_seated(app, "may_i", seats, 3).await;
    let table = Table::of_created(&created);
    let view = app.view(&table, 0).await.ok("Ann's view");
    let shown: Vec<(Value, Value)> = view["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| (p["level"].clone(), p["autopilot"].clone()))
        .collect();
    assert_eq!(
        shown,
        [
            (Value::Null, Value::Null),
            (json!("easy"), Value::Null),
            (json!("hard"), Value::Null),
            (json!("normal"), Value::Null)
        ],
        "`bot: true` is a normal bot: {view}"
    );
    for (bot, why) in [
        (json!("expert"), "not a level"),
        (json!("Hard"), "levels are lower case"),
        (json!(3), "neither a flag nor a level"),
    ] {
        let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"bot": bot}]});
        let reply = app.post("/v1/games", &body).await;
        reply.assert_problem(400, "unknown_level", why);
        assert!(
            reply.text().contains("seats[1].bot"),
            "the field is named: {}",
            reply.text()
        );
    }
}
#[actix_web::test]
async fn levels_are_taken_stored_and_shown_on_every_backend() {
    on_studio_backends(async |app, _| levels_are_taken_stored_and_shown(app).await).await;
}

/// A person at a table of three hard bots is answered without their search: the answer to
/// her discard comes back with the next seat, a hard bot, still to draw, while tables of hard
/// bots alone play; the bots' moves then reach her on the stream.
async fn a_person_is_answered_before_hard_bots_think(app: &TestApp) {
    let busy = [
        bots_only(app, "may_i", 2).await,
        bots_only(app, "contract_7", 2).await,
    ];
    let seats = json!([{"name": "Ann"}, {"bot": "hard"}, {"bot": "hard"}, {"bot": "hard"}]);
    // Seat 3 deals: Ann plays first.
    let created = create_seated(app, "may_i", seats, 3).await;
    let table = Table::of_created(&created);
    let drew = app
        .act(&table, 0, &draw(DrawSource::Stock), &[])
        .await
        .ok("Ann draws");
    let card = drew["you"]["hand"][0].as_str().expect("a card").to_owned();
    let discarded = app
        .act(&table, 0, &crate::helpers::discard(&card), &[])
        .await
        .ok("Ann discards");
    assert_eq!(
        (&discarded["turn"]["seat"], &discarded["turn"]["phase"]),
        (&json!(1), &json!("draw")),
        "the answer comes while the hard bot in turn has still to play: {discarded}"
    );
    let answered_at = discarded["version"].as_i64().expect("a version");
    // Then the bots play, each move its own commit, and their events come on the stream
    // after Ann's discard.
    let log = app.log(&table, 0).await;
    let discard = log
        .iter()
        .find(|e| e.event["type"] == "discarded" && e.event["seat"] == 0)
        .expect("Ann's discard is logged");
    let mut stream = app
        .stream(
            &table.id,
            &table.tokens[0],
            &format!("?after={}", discard.seq),
            &[],
        )
        .await;
    let mut seen = Vec::new();
    while !seen
        .iter()
        .any(|e: &crate::helpers::Sse| e.event == "turn" && e.data.contains("\"seat\":0"))
    {
        seen.push(stream.next().await.expect("the stream goes on"));
    }
    assert!(
        seen.iter()
            .any(|e| e.event == "drew" && e.data.contains("\"seat\":1")),
        "the hard bot's draw came on the stream: {seen:?}"
    );
    assert!(
        app.version(&table).await > answered_at,
        "the bots moved after the answer"
    );
    for busy in &busy {
        let view = app.view(busy, 0).await.ok("a table of bots");
        assert!(view["version"].as_i64() > Some(1), "its bots play too: {view}");
    }
    // The tables of bots would play on to their end: stop them with the replica.
    app.kill_switch.kill().await;
}
#[actix_web::test]
async fn a_person_is_answered_before_hard_bots_think_on_every_backend() {
    on_studio_backends(async |app, _| a_person_is_answered_before_hard_bots_think(app).await).await;
}

async fn a_table_of_hard_bots_plays_to_its_end(app: &TestApp) {
    for (variant, seats) in [("may_i", 2), ("continental", 2)] {
        let table = bots_only(app, variant, seats).await;
        let events = finished(app, &table, 0).await;
        assert_each_move_once(&events, variant);
        let view = app.view(&table, 0).await.ok("the finished game");
        assert_eq!(view["status"], "finished", "{view}");
    }
    let metrics = String::from_utf8_lossy(&app.get("/metrics").await.body).into_owned();
    assert!(
        metrics.contains("continental_bot_decision_seconds_count{level=\"hard\"}"),
        "the bots' decisions are measured: {metrics}"
    );
}
#[actix_web::test]
async fn a_table_of_hard_bots_plays_to_its_end_on_every_backend() {
    on_studio_backends(async |app, _| a_table_of_hard_bots_plays_to_its_end(app).await).await;
}

#[actix_web::test]
async fn hard_bots_move_once_with_two_replicas_and_outlive_a_replica() {
    for backend in backends() {
        let one = TestApp::spawn_studio(&backend, None).await;
        let two = TestApp::spawn_studio(&backend, Some(one.database.clone())).await;
        // Every sweep of either replica finds the tables within a "second" (10 ms) of their
        // last move: both think for them, and only the version each read decides who writes.
        let tables = [
            bots_only(&one, "may_i", 2).await,
            bots_only(&two, "contract_7", 2).await,
        ];
        for table in &tables {
            let events = finished(&two, table, 0).await;
            assert_each_move_once(&events, &format!("{backend:?} two replicas"));
        }
        one.kill_switch.kill().await;
        two.kill_switch.kill().await;
        // A replica that thinks for no bot leaves a table due; after it, another plays it.
        let idle = studio_thinking(&backend, Some(one.database.clone()), 0).await;
        let table = bots_only(&idle, "may_i", 2).await;
        let view = idle.view(&table, 0).await.ok("the table of bots");
        assert_eq!(
            (&view["turn"]["seat"], &view["turn"]["phase"]),
            (&json!(1), &json!("draw")),
            "no replica has thought for it: {view}"
        );
        idle.kill_switch.kill().await;
        let three = TestApp::spawn_studio(&backend, Some(one.database.clone())).await;
        let events = finished(&three, &table, 0).await;
        assert_each_move_once(&events, &format!("{backend:?} after a restart"));
        three.clean_up().await;
    }
}

#[actix_web::test]
async fn an_open_server_plays_only_so_many_bot_tables() {
    for backend in backends() {
        // No server keys: anyone may create games. One table of bots only at once, and no
        // thread to think for it, so that it is still in play.
        let app = TestApp::spawn_with(
            &backend,
            Spawn {
                test_mode: true,
                limits: Some(Limits {
                    bot_threads: Some(0),
                    bots_elsewhere: true,
                    open_bot_tables: 1,
                    ..Limits::default()
                }),
                ..Spawn::default()
            },
        )
        .await;
        let body = json!({"variant": "may_i", "seats": [{"bot": "hard"}, {"bot": "hard"}]});
        let reply = app.post("/v1/games", &body).await;
        assert_eq!(
            reply.status.as_u16(),
            201,
            "the first table of bots: {}",
            reply.text()
        );
        let body = json!({"variant": "may_i", "seats": [{"bot": true}, {"bot": "easy"}]});
        app.post("/v1/games", &body).await.assert_problem(
            409,
            "bot_tables_full",
            "a second table of bots only",
        );
        let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"bot": "hard"}]});
        let reply = app.post("/v1/games", &body).await;
        assert_eq!(reply.status.as_u16(), 201, "a person's table: {}", reply.text());
        app.clean_up().await;
    }
}

/// Tables of `easy` and `normal` bots alone play to their end inside the request that makes
/// them: on an open server each keeps its place under the limit for a while after it ends, so
/// that a loop of anonymous requests cannot keep the server's cores busy; a person leaving
/// such a table (which then ends at once) takes a place the same way.
#[actix_web::test]
async fn tables_of_bots_alone_that_end_at_once_still_take_a_place() {
    for backend in backends() {
        let app = TestApp::spawn_with(
            &backend,
            Spawn {
                test_mode: true,
                limits: Some(Limits {
                    open_bot_tables: 2,
                    ..Limits::default()
                }),
                ..Spawn::default()
            },
        )
        .await;
        for level in ["easy", "normal"] {
            let table = created(&app, json!([{"bot": level}, {"bot": "easy"}]), level).await;
            assert_eq!(
                table["status"], "finished",
                "{backend:?}: bots of {level} play to the end in the request"
            );
        }
        open_table(&app, json!([{"bot": "easy"}, {"bot": "easy"}]))
            .await
            .assert_problem(
                409,
                "bot_tables_full",
                &format!("{backend:?}: two tables just ended hold both places"),
            );
        let ann = json!([{"name": "Ann"}, {"bot": "easy"}, {"bot": "normal"}]);
        let ann = Table::of_created(&created(&app, ann, "a person's table is not limited").await);
        app.post_as(&format!("{}/leave", ann.path()), &ann.tokens[0], &json!({}), &[])
            .await
            .assert_problem(
                409,
                "bot_tables_full",
                &format!("{backend:?}: leaving would end a table of bots at once"),
            );
        app.clean_up().await;
    }
}

/// A server open to anyone (no server keys) with one table of bots alone allowed at once and
/// no thread to think for hard bots (told that others do, so that it seats them), so that
/// every table stays in play as it is.
async fn open_with_one_bot_table(backend: &Backend) -> TestApp {
    TestApp::spawn_with(
        backend,
        Spawn {
            test_mode: true,
            limits: Some(Limits {
                bot_threads: Some(0),
                bots_elsewhere: true,
                open_bot_tables: 1,
                ..Limits::default()
            }),
            ..Spawn::default()
        },
    )
    .await
}

/// Asks an open server for a table of `seats`.
async fn open_table(app: &TestApp, seats: Value) -> Reply {
    app.post("/v1/games", &json!({"variant": "may_i", "seats": seats}))
        .await
}

/// An open server's new table of `seats`, which must be created.
async fn created(app: &TestApp, seats: Value, what: &str) -> Value {
    let reply = open_table(app, seats).await;
    assert_eq!(reply.status.as_u16(), 201, "{what}: {}", reply.text());
    reply.json()
}

/// The open server's limit counts every table a person left to bots, whichever way: handing
/// the seat to autopilot or leaving. Each is refused with the limit's code while the one
/// allowed table of bots alone plays, and nothing of it is written; each counts once
/// admitted. (A studio seating a bot has a server key, and a server with keys has no limit.)
#[actix_web::test]
async fn every_way_to_leave_a_table_to_bots_is_held_to_the_open_limit() {
    for backend in backends() {
        let app = open_with_one_bot_table(&backend).await;
        let bob = json!([{"name": "Bob"}, {"bot": "hard"}]);
        let bob = Table::of_created(&created(&app, bob, "Bob at a table of a bot").await);
        let ann = json!([{"name": "Ann"}, {"bot": "hard"}, {"bot": "hard"}]);
        let ann = Table::of_created(&created(&app, ann, "Ann at a table of bots").await);
        let autopilot = |t: &Table| format!("{}/autopilot", t.path());
        let hard = json!({"level": "hard"});
        let on = app
            .post_as(&autopilot(&bob), &bob.tokens[0], &hard, &[])
            .await
            .ok("Bob's table is the one of bots alone");
        assert_eq!(on["players"][0]["autopilot"], "hard", "{backend:?}: {on}");
        open_table(&app, json!([{"bot": "hard"}, {"bot": "hard"}]))
            .await
            .assert_problem(
                409,
                "bot_tables_full",
                &format!("{backend:?}: Bob's table on autopilot counts"),
            );
        app.post_as(&autopilot(&ann), &ann.tokens[0], &hard, &[])
            .await
            .assert_problem(409, "bot_tables_full", &format!("{backend:?}: autopilot"));
        let leave = format!("{}/leave", ann.path());
        app.post_as(&leave, &ann.tokens[0], &json!({}), &[])
            .await
            .assert_problem(409, "bot_tables_full", &format!("{backend:?}: leaving"));
        let view = app.view(&ann, 0).await.ok("Ann still plays her seat");
        assert_eq!(
            (&view["status"], &view["players"][0]["autopilot"]),
            (&json!("playing"), &Value::Null),
            "{backend:?}: nothing was written: {view}"
        );
        app.send(
            "DELETE",
            &autopilot(&bob),
            None,
            &[("authorization", &format!("Bearer {}", bob.tokens[0]))],
        )
        .await
        .ok("Bob takes his seat back: the place is free");
        app.post_as(&leave, &ann.tokens[0], &json!({}), &[])
            .await
            .ok("Ann leaves her bots to play on");
        open_table(&app, json!([{"bot": "hard"}, {"bot": "hard"}]))
            .await
            .assert_problem(
                409,
                "bot_tables_full",
                &format!("{backend:?}: the table Ann left counts"),
            );
        app.post_as(&autopilot(&bob), &bob.tokens[0], &hard, &[])
            .await
            .assert_problem(
                409,
                "bot_tables_full",
                &format!("{backend:?}: Bob's autopilot, now past the limit"),
            );
        app.clean_up().await;
    }
}

/// Issue 58: a write admitted under the open server's limit (a table of bots made, the last
/// person leaving, a seat handed to autopilot) never holds a connection while it waits for
/// another of the same pool. With a pool of one connection, then of two, as many of each at
/// once all finish; none is a `503` after the pool's wait. (On a cluster the limit's lock and
/// count are a transaction of their own beside the write's: docs/operations.md#bots.)
#[actix_web::test]
async fn admissions_at_once_never_wait_on_their_own_pool() {
    for backend in server_backends() {
        for pool in [1u32, 2] {
            let app = TestApp::spawn_with(
                &backend,
                Spawn {
                    test_mode: true,
                    limits: Some(Limits {
                        bot_threads: Some(0),
                        bots_elsewhere: true,
                        open_bot_tables: 64,
                        db_pool: Some(pool),
                        ..Limits::default()
                    }),
                    ..Spawn::default()
                },
            )
            .await;
            let n = usize::try_from(pool).expect("a count");
            let context = format!("{backend:?}, a pool of {pool}");
            let bots = json!([{"bot": "hard"}, {"bot": "hard"}]);
            let made = join_all((0..n).map(|_| open_table(&app, bots.clone()))).await;
            for reply in &made {
                assert_eq!(
                    reply.status.as_u16(),
                    201,
                    "{context}: tables of bots made at once: {}",
                    reply.text()
                );
            }
            let mut tables = Vec::new();
            for _ in 0..2 * n {
                let seats = json!([{"name": "Ann"}, {"bot": "hard"}]);
                tables.push(Table::of_created(&created(&app, seats, "a person's table").await));
            }
            let (leaving, handing) = tables.split_at(n);
            let leaves: Vec<String> = leaving.iter().map(|t| format!("{}/leave", t.path())).collect();
            let nothing = json!({});
            let left = join_all(
                leaving
                    .iter()
                    .zip(&leaves)
                    .map(|(t, path)| app.post_as(path, &t.tokens[0], &nothing, &[])),
            )
            .await;
            for reply in &left {
                reply.ok(&format!("{context}: the last people leave at once"));
            }
            let hard = json!({"level": "hard"});
            let autopilots: Vec<String> = handing
                .iter()
                .map(|t| format!("{}/autopilot", t.path()))
                .collect();
            let handed = join_all(
                handing
                    .iter()
                    .zip(&autopilots)
                    .map(|(t, path)| app.post_as(path, &t.tokens[0], &hard, &[])),
            )
            .await;
            for reply in &handed {
                reply.ok(&format!("{context}: seats handed to autopilot at once"));
            }
            app.clean_up().await;
        }
    }
}

/// Two people at two tables of bots hand their seats to autopilot at the same moment, round
/// after round, with one place left: the count and the write are one step, so exactly one is
/// admitted each time.
#[actix_web::test]
async fn two_autopilots_at_once_take_the_last_place_once() {
    for backend in backends() {
        let app = open_with_one_bot_table(&backend).await;
        let mut tables = Vec::new();
        for _ in 0..2 {
            let seats = json!([{"name": "Ann"}, {"bot": "hard"}]);
            tables.push(Table::of_created(
                &created(&app, seats, "a person at a table of bots").await,
            ));
        }
        for round in 0..12 {
            let ask = |t: &Table| {
                let path = format!("{}/autopilot", t.path());
                let token = t.tokens[0].clone();
                let app = &app;
                async move { app.post_as(&path, &token, &json!({"level": "hard"}), &[]).await }
            };
            let (a, b) = tokio::join!(ask(&tables[0]), ask(&tables[1]));
            let admitted: Vec<usize> = [&a, &b]
                .iter()
                .enumerate()
                .filter(|(_, r)| r.status.as_u16() == 200)
                .map(|(i, _)| i)
                .collect();
            assert_eq!(
                admitted.len(),
                1,
                "{backend:?} round {round}: {} / {}",
                a.text(),
                b.text()
            );
            let refused = if admitted[0] == 0 { &b } else { &a };
            refused.assert_problem(409, "bot_tables_full", &format!("{backend:?} round {round}"));
            let back = format!("{}/autopilot", tables[admitted[0]].path());
            app.send(
                "DELETE",
                &back,
                None,
                &[(
                    "authorization",
                    &format!("Bearer {}", tables[admitted[0]].tokens[0]),
                )],
            )
            .await
            .ok("the seat taken back: the place is free again");
        }
        app.clean_up().await;
    }
}

/// An open server's table of Ann and a bot whose turn clock hands her seat to a bot at her
/// first timeout (`turn_seconds` 5, `autopilot_after_timeouts` 1), Ann first to play.
async fn abandoned_table(app: &TestApp, backend: &Backend) -> Table {
    let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"bot": "easy"}], "seed": 3,
        "first_dealer": 1, "options": {"turn_seconds": 5, "autopilot_after_timeouts": 1}});
    let reply = app.post("/v1/games", &body).await;
    assert_eq!(reply.status.as_u16(), 201, "{backend:?}: {}", reply.text());
    Table::of_created(&reply.json())
}

/// Waits until the game of `table` is over; answers its status and its log as Ann sees it.
async fn over(app: &TestApp, table: &Table) -> (String, Vec<Value>) {
    eventually(Duration::from_secs(60), "the game is over", async || {
        let view = app.view(table, 0).await.ok("Ann's view");
        match view["status"].as_str() {
            Some(status @ ("finished" | "void")) => Ok((status.to_owned(), log(app, table, 0).await)),
            _ => Err(view["status"].clone()),
        }
    })
    .await
}

/// The types of `events`, in order.
fn types(events: &[Value]) -> Vec<&str> {
    events.iter().filter_map(|e| e["type"].as_str()).collect()
}

/// The last person at a table timing out into autopilot leaves it to bots alone: on an open
/// server whose tables of bots alone are all in play (here, one that just ended holds the one
/// place), the game is called off as abandoned rather than played by the bots, with a
/// `timed_out` event and then `called_off` saying why; nothing of the autopilot is written,
/// and the place stays as it was.
#[actix_web::test]
async fn a_turn_timed_out_into_autopilot_at_the_open_limit_calls_the_game_off() {
    for backend in backends() {
        let app = TestApp::spawn_with(
            &backend,
            Spawn {
                test_mode: true,
                limits: Some(Limits {
                    open_bot_tables: 1,
                    ..Limits::default()
                }),
                ..Spawn::default()
            },
        )
        .await;
        let bots = created(
            &app,
            json!([{"bot": "easy"}, {"bot": "easy"}]),
            "the one table of bots",
        )
        .await;
        assert_eq!(bots["status"], "finished", "{backend:?}: played in its creation");
        let table = abandoned_table(&app, &backend).await;
        let (status, events) = over(&app, &table).await;
        let kinds = types(&events);
        assert_eq!(
            status, "void",
            "{backend:?}: called off, not played out by bots: {kinds:?}"
        );
        assert!(!kinds.contains(&"autopilot_on"), "{backend:?}: {kinds:?}");
        let at = kinds
            .iter()
            .position(|k| *k == "called_off")
            .unwrap_or_else(|| panic!("{backend:?}: called off: {kinds:?}"));
        assert_eq!(kinds[at - 1], "timed_out", "{backend:?}: {kinds:?}");
        assert_eq!(events[at - 1]["seat"], 0, "{backend:?}: Ann's turn timed out");
        assert!(
            events[at]["reason"]
                .as_str()
                .is_some_and(|r| r.starts_with("abandoned")),
            "{backend:?}: the reason says why: {}",
            events[at]
        );
        assert_eq!(kinds.last(), Some(&"game_finished"), "{backend:?}: {kinds:?}");
        assert_eq!(
            kinds.iter().filter(|k| **k == "timed_out").count(),
            1,
            "{backend:?}: {kinds:?}"
        );
        let replay = app
            .get_as(&format!("{}/replay", table.path()), &table.tokens[0])
            .await;
        assert_eq!(
            replay.status.as_u16(),
            200,
            "{backend:?}: its record replays: {}",
            replay.text()
        );
        open_table(&app, json!([{"bot": "easy"}, {"bot": "easy"}]))
            .await
            .assert_problem(
                409,
                "bot_tables_full",
                &format!("{backend:?}: the place is still the first table's"),
            );
        app.clean_up().await;
    }
}

/// Two tables whose last person walks away, with one place for a table of bots alone: one is
/// handed to the bots, which play it to its end (a change of its own after the timeout), and
/// takes the place; the other is called off as abandoned. Never both played.
#[actix_web::test]
async fn two_tables_abandoned_with_one_place_play_one_and_call_the_other_off() {
    for backend in backends() {
        let app = TestApp::spawn_with(
            &backend,
            Spawn {
                test_mode: true,
                limits: Some(Limits {
                    open_bot_tables: 1,
                    ..Limits::default()
                }),
                ..Spawn::default()
            },
        )
        .await;
        let first = abandoned_table(&app, &backend).await;
        let second = abandoned_table(&app, &backend).await;
        let mut outcomes = Vec::new();
        for table in [&first, &second] {
            let (status, events) = over(&app, table).await;
            let kinds = types(&events);
            match status.as_str() {
                "finished" => {
                    let on = kinds.iter().position(|k| *k == "autopilot_on");
                    assert!(
                        on.is_some_and(|on| kinds[on - 1] == "timed_out"),
                        "{backend:?}: handed to a bot at the timeout: {kinds:?}"
                    );
                    assert!(!kinds.contains(&"called_off"), "{backend:?}: {kinds:?}");
                }
                _ => assert!(
                    kinds.contains(&"called_off") && !kinds.contains(&"autopilot_on"),
                    "{backend:?}: called off, never handed to a bot: {kinds:?}"
                ),
            }
            outcomes.push(status);
        }
        outcomes.sort();
        assert_eq!(
            outcomes,
            ["finished", "void"],
            "{backend:?}: one place, one table played"
        );
        open_table(&app, json!([{"bot": "easy"}, {"bot": "easy"}]))
            .await
            .assert_problem(
                409,
                "bot_tables_full",
                &format!("{backend:?}: the table played out holds the place"),
            );
        app.clean_up().await;
    }
}

/// A person leaving before the deal opens their seat again: the table waits for someone to
/// take it, so even an open server with no place left lets them go, and no bot plays.
#[actix_web::test]
async fn leaving_before_the_deal_leaves_no_table_to_bots() {
    for backend in backends() {
        let app = open_with_one_bot_table(&backend).await;
        created(
            &app,
            json!([{"bot": "hard"}, {"bot": "hard"}]),
            "the one table of bots",
        )
        .await;
        let ann = json!([{"name": "Ann"}, {"bot": "easy"}, {"open": true}]);
        let ann = Table::of_created(&created(&app, ann, "a table waiting for a player").await);
        let left = app
            .post_as(&format!("{}/leave", ann.path()), &ann.tokens[0], &json!({}), &[])
            .await
            .ok("Ann leaves before the deal");
        assert_eq!(left["status"], "waiting", "{backend:?}: {left}");
        open_table(&app, json!([{"bot": "hard"}, {"bot": "hard"}]))
            .await
            .assert_problem(409, "bot_tables_full", &format!("{backend:?}: still one"));
        app.clean_up().await;
    }
}

#[actix_web::test]
async fn autopilot_on_off_and_a_move_of_ones_own() {
    for backend in backends() {
        let app = studio_thinking(&backend, None, 0).await;
        // Seat 0 deals: Bob plays first.
        let created = create_seated(&app, "may_i", json!([{"name": "Ann"}, {"name": "Bob"}]), 0).await;
        let table = Table::of_created(&created);
        let autopilot = format!("{}/autopilot", table.path());
        app.post_as(&autopilot, &table.tokens[0], &json!({"level": "expert"}), &[])
            .await
            .assert_problem(400, "unknown_level", "not a level");
        app.post_as(&autopilot, &table.tokens[0], &json!({"level": null}), &[])
            .await
            .assert_problem(400, "invalid_body", "a level is a name, never null");
        let on = app
            .post_as(&autopilot, &table.tokens[0], &json!({}), &[])
            .await
            .ok("Ann hands her seat to a bot");
        assert_eq!(
            on["players"][0]["autopilot"], "normal",
            "`normal` unless chosen: {on}"
        );
        let bob = app.view(&table, 1).await.ok("Bob's view");
        assert_eq!(
            bob["players"][0]["autopilot"], "normal",
            "everyone sees it: {bob}"
        );
        // Bob's turn: after his discard, Ann's bot plays hers in his request (a normal bot).
        let drew = app
            .act(&table, 1, &draw(DrawSource::Stock), &[])
            .await
            .ok("Bob draws");
        let card = drew["you"]["hand"][0].as_str().expect("a card").to_owned();
        app.act(&table, 1, &crate::helpers::discard(&card), &[])
            .await
            .ok("Bob discards");
        // Bob is a person: Ann's bot plays at its pace, after his request.
        app.when_in_turn(&table, 1, 1).await;
        let off = app
            .send(
                "DELETE",
                &autopilot,
                None,
                &[("authorization", &format!("Bearer {}", table.tokens[0]))],
            )
            .await
            .ok("Ann takes her seat back");
        assert_eq!(off["players"][0]["autopilot"], Value::Null, "{off}");
        let drew = app
            .act(&table, 1, &draw(DrawSource::Stock), &[])
            .await
            .ok("Bob draws");
        let card = drew["you"]["hand"][0].as_str().expect("a card").to_owned();
        let after = app
            .act(&table, 1, &crate::helpers::discard(&card), &[])
            .await
            .ok("Bob discards");
        assert_eq!(after["turn"]["seat"], 0, "Ann plays her own turn again: {after}");
        // A hard bot thinks apart (and this replica thinks for none): Ann's own draw takes
        // the seat back from it.
        let hard = app
            .post_as(&autopilot, &table.tokens[0], &json!({"level": "hard"}), &[])
            .await
            .ok("a hard bot");
        assert_eq!(hard["players"][0]["autopilot"], "hard", "{hard}");
        assert_eq!(hard["turn"]["seat"], 0, "{hard}");
        let drew = app
            .act(&table, 0, &draw(DrawSource::Stock), &[])
            .await
            .ok("Ann draws herself");
        assert_eq!(
            drew["players"][0]["autopilot"],
            Value::Null,
            "her move takes the seat back: {drew}"
        );
        let events = log(&app, &table, 1).await;
        let autopilot_events: Vec<(&Value, &Value)> = events
            .iter()
            .filter(|e| e["type"].as_str().is_some_and(|t| t.starts_with("autopilot")))
            .map(|e| (&e["type"], &e["level"]))
            .collect();
        assert_eq!(
            autopilot_events,
            [
                (&json!("autopilot_on"), &json!("normal")),
                (&json!("autopilot_off"), &Value::Null),
                (&json!("autopilot_on"), &json!("hard")),
                (&json!("autopilot_off"), &Value::Null),
            ],
            "{events:?}"
        );
        app.clean_up().await;
    }
}

/// `autopilot_after_timeouts`: after that many timeouts in a row a `normal` bot plays the seat,
/// with no more timeouts.
async fn a_bot_takes_over_after_timeouts(app: &TestApp) {
    let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"bot": true}], "seed": 3, "first_dealer": 1,
        "options": {"turn_seconds": 5, "autopilot_after_timeouts": 2}});
    let table = Table::of_created(&create_with(app, ACME, &body).await);
    let view = app.view(&table, 0).await.ok("the view");
    assert_eq!(view["options"]["autopilot_after_timeouts"], 2, "{view}");
    let events = finished(app, &table, 0).await;
    let timed_out: Vec<usize> = (0..events.len())
        .filter(|&i| events[i]["type"] == "timed_out")
        .collect();
    let on: Vec<usize> = (0..events.len())
        .filter(|&i| events[i]["type"] == "autopilot_on")
        .collect();
    assert_eq!(timed_out.len(), 2, "two timeouts, then the bot: {events:?}");
    assert_eq!(on.len(), 1, "{events:?}");
    assert!(
        on[0] > timed_out[1],
        "the bot takes over at the second: {events:?}"
    );
    assert_eq!(events[on[0]]["seat"], 0, "{events:?}");
}
#[actix_web::test]
async fn a_bot_takes_over_after_timeouts_on_every_backend() {
    on_studio_backends(async |app, _| a_bot_takes_over_after_timeouts(app).await).await;
}
