//! Quick play (docs/api.md#matchmaking): tickets queued, read, followed, cancelled, expired and
//! matched into games, on one replica (SQLite, PostgreSQL), and on two replicas of one
//! PostgreSQL database, one of them killed by SIGKILL while it matches.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use continental::config::MatchmakingSettings;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};

use continental::config::DatabaseSettings;
use sqlx::Connection;

use crate::helpers::{
    ACME, Api, BETA, Backend, Binary, Receiver, STUDIO_KEYS, Spawn, TestApp, backends, connect, database_url,
    drop_database, eventually, fresh_database, server_backends, verifies,
};

const TICKETS: &str = "/v1/matchmaking/tickets";

/// How long the tickets of a test may take to be settled: a bound, not a measure.
const SETTLED_WITHIN: Duration = Duration::from_secs(90);

/// Quick play with tickets that expire after `ttl` seconds, bots after `bots_after` seconds (or
/// never) and a pass every 50 ms.
fn settings(bots_after: Option<u64>, ttl: u64) -> MatchmakingSettings {
    MatchmakingSettings {
        ticket_ttl: Duration::from_secs(ttl),
        async_ticket_ttl: Duration::from_secs(ttl),
        bots_after: bots_after.map(Duration::from_secs),
        interval: Duration::from_millis(50),
    }
}

/// The service on `backend` with these settings, with the studio tests' server keys when
/// `keyed`.
async fn spawn(backend: &Backend, matchmaking: MatchmakingSettings, keyed: bool) -> TestApp {
    TestApp::spawn_with(
        backend,
        Spawn {
            test_mode: true,
            api_keys: if keyed { STUDIO_KEYS.into() } else { String::new() },
            matchmaking: Some(matchmaking),
            ..Spawn::default()
        },
    )
    .await
}

/// Queues `body` (with server key `key`, if any); it must answer 201. Returns the ticket.
async fn queue(api: &Api, key: Option<&str>, body: &Value) -> Value {
    let reply = match key {
        Some(key) => api.post_with_key(TICKETS, key, body, &[]).await,
        None => api.post(TICKETS, body).await,
    };
    assert_eq!(reply.status.as_u16(), 201, "{body}: {}", reply.text());
    let ticket = reply.json()["ticket"].clone();
    assert_eq!(
        reply.header("location").as_deref(),
        Some(format!("{TICKETS}/{}", ticket["id"].as_str().expect("an id")).as_str()),
        "the ticket's URL"
    );
    ticket
}

/// Ticket `id` as read with server key `key`, if any.
async fn read(api: &Api, key: Option<&str>, id: &str) -> Value {
    let path = format!("{TICKETS}/{id}");
    let reply = match key {
        Some(key) => api.get_with_key(&path, key).await,
        None => api.get(&path).await,
    };
    assert_eq!(reply.status.as_u16(), 200, "{id}: {}", reply.text());
    reply.json()
}

/// Waits until ticket `id` is no longer waiting, and returns it.
async fn settled(api: &Api, key: Option<&str>, id: &str) -> Value {
    eventually(SETTLED_WITHIN, "the ticket is settled", async || {
        let ticket = read(api, key, id).await;
        match ticket["status"].as_str() {
            Some("waiting") => Err(ticket),
            _ => Ok(ticket),
        }
    })
    .await
}

/// The game of a matched ticket as its seat sees it.
async fn seat_view(api: &Api, ticket: &Value) -> Value {
    let m = &ticket["match"];
    let game = m["game_id"].as_str().expect("a game");
    let token = m["token"].as_str().expect("a token");
    api.get_as(&format!("/v1/games/{game}"), token)
        .await
        .ok("the seat's view")
}

/// The first event of a matched ticket's game, as its seat reads it.
async fn first_event(api: &Api, ticket: &Value) -> Value {
    let m = &ticket["match"];
    let game = m["game_id"].as_str().expect("a game");
    let token = m["token"].as_str().expect("a token");
    let events = api
        .get_as(&format!("/v1/games/{game}/events?limit=1"), token)
        .await
        .ok("the events");
    events["events"][0]["event"].clone()
}

async fn delete(api: &Api, key: Option<&str>, id: &str) -> crate::helpers::Reply {
    let headers: Vec<(&str, &str)> = key.map(|k| ("x-api-key", k)).into_iter().collect();
    api.send("DELETE", &format!("{TICKETS}/{id}"), None, &headers)
        .await
}

#[actix_web::test]
async fn two_waiting_tickets_meet_at_one_table_and_each_reads_its_seat() {
    for backend in backends() {
        let app = spawn(&backend, settings(None, 600), false).await;
        let ann = queue(
            &app,
            None,
            &json!({"name": "Ann", "variant": "may_i", "sizes": [2]}),
        )
        .await;
        assert_eq!(ann["status"], "waiting", "{backend:?}");
        assert_eq!(ann["match"], Value::Null, "{backend:?}");
        assert_eq!(ann["sizes"], json!([2]), "{backend:?}");
        let bob = queue(
            &app,
            None,
            &json!({"name": "Bob", "variant": "may_i", "sizes": [3, 2]}),
        )
        .await;
        let ann = settled(&app, None, ann["id"].as_str().expect("an id")).await;
        let bob = settled(&app, None, bob["id"].as_str().expect("an id")).await;
        for t in [&ann, &bob] {
            assert_eq!(t["status"], "matched", "{backend:?}: {t}");
        }
        assert_eq!(
            ann["match"]["game_id"], bob["match"]["game_id"],
            "{backend:?}: one table"
        );
        let seats: BTreeSet<u64> = [&ann, &bob]
            .iter()
            .map(|t| t["match"]["seat"].as_u64().expect("a seat"))
            .collect();
        assert_eq!(seats, BTreeSet::from([0, 1]), "{backend:?}: a seat each");
        for (t, name) in [(&ann, "Ann"), (&bob, "Bob")] {
            let view = seat_view(&app, t).await;
            let seat = t["match"]["seat"].as_u64().expect("a seat");
            assert_eq!(
                view["you"]["seat"].as_u64(),
                Some(seat),
                "{backend:?}: the token opens its seat"
            );
            assert_eq!(view["players"][seat as usize]["name"], name, "{backend:?}");
            assert_eq!(view["players"].as_array().map(Vec::len), Some(2), "{backend:?}");
            assert_eq!(view["rated"], false, "{backend:?}: no players named, not rated");
            let first = first_event(&app, t).await;
            assert_eq!(
                first["type"], "matched",
                "{backend:?}: the game's log starts with the match"
            );
            assert!(
                first["seats"]
                    .as_array()
                    .expect("seats")
                    .iter()
                    .all(|s| s["ticket"].is_null() && s["player"].is_null()),
                "{backend:?}: a seat never reads another's ticket: {first}"
            );
        }
        // Seated: it stays.
        delete(&app, None, ann["id"].as_str().expect("an id"))
            .await
            .assert_problem(409, "ticket_matched", "a matched ticket");
        // The refusals of a ticket's request.
        let rows = [
            (
                json!({"name": "Cy", "variant": "push", "sizes": [3]}),
                422,
                "size_not_seated",
                "push seats four",
            ),
            (
                json!({"name": "Cy", "variant": "may_i", "sizes": []}),
                400,
                "invalid_body",
                "no size",
            ),
            (
                json!({"name": "Cy", "player": "u-1", "variant": "may_i", "sizes": [2]}),
                422,
                "player_needs_server_key",
                "no keys",
            ),
            (
                json!({"name": "", "variant": "may_i", "sizes": [2]}),
                400,
                "invalid_name",
                "no name",
            ),
            (
                json!({"name": "Cy", "variant": "may_i", "sizes": [2], "options": {"deuces_wild": 3}}),
                400,
                "invalid_options",
                "a bad option",
            ),
        ];
        for (body, status, code, why) in rows {
            app.post(TICKETS, &body).await.assert_problem(status, code, why);
        }
        let unknown = uuid::Uuid::new_v4();
        app.get(&format!("{TICKETS}/{unknown}")).await.assert_problem(
            404,
            "ticket_not_found",
            "no such ticket",
        );
        delete(&app, None, &unknown.to_string()).await.assert_problem(
            404,
            "ticket_not_found",
            "no such ticket to cancel",
        );
        app.clean_up().await;
    }
}

#[actix_web::test]
async fn a_ticket_cancelled_or_expired_waits_no_more() {
    for backend in backends() {
        let app = spawn(&backend, settings(None, 2), false).await;
        let cy = queue(
            &app,
            None,
            &json!({"name": "Cy", "variant": "contract_7", "sizes": [2]}),
        )
        .await;
        let id = cy["id"].as_str().expect("an id").to_owned();
        let mut stream = app.ticket_stream(&id).await;
        let first = stream.next().await.expect("the ticket now");
        assert_eq!(first.event, "ticket", "{backend:?}");
        let now: Value = serde_json::from_str(&first.data).expect("JSON");
        assert_eq!(now["status"], "waiting", "{backend:?}");
        let cancelled = delete(&app, None, &id).await;
        assert_eq!(
            cancelled.status.as_u16(),
            204,
            "{backend:?}: {}",
            cancelled.text()
        );
        let change = stream.next().await.expect("the change");
        let change: Value = serde_json::from_str(&change.data).expect("JSON");
        assert_eq!(change["status"], "cancelled", "{backend:?}");
        assert!(
            stream.next().await.is_none(),
            "{backend:?}: the stream ends with the ticket"
        );
        assert_eq!(
            delete(&app, None, &id).await.status.as_u16(),
            204,
            "{backend:?}: again, done"
        );
        // Gone: read or followed again, it is 410, as a deleted resource is.
        for path in [format!("{TICKETS}/{id}"), format!("{TICKETS}/{id}/events")] {
            let gone = app.get(&path).await;
            assert_eq!(gone.status.as_u16(), 410, "{backend:?} {path}: {}", gone.text());
            assert_eq!(gone.json()["code"], "ticket_cancelled", "{backend:?} {path}");
        }

        // One that accepts what the cancelled one did waits alone, then expires.
        let dee = queue(
            &app,
            None,
            &json!({"name": "Dee", "variant": "contract_7", "sizes": [2]}),
        )
        .await;
        let dee_id = dee["id"].as_str().expect("an id");
        let mut stream = app.ticket_stream(dee_id).await;
        let dee = settled(&app, None, dee_id).await;
        assert_eq!(dee["status"], "expired", "{backend:?}: {dee}");
        assert_eq!(dee["match"], Value::Null, "{backend:?}");
        assert!(
            dee["waited_seconds"].as_i64().is_some_and(|s| s >= 1),
            "{backend:?}: {dee}"
        );
        let mut last = None;
        while let Some(e) = stream.next().await {
            last = Some(e);
        }
        let last: Value = serde_json::from_str(&last.expect("events").data).expect("JSON");
        assert_eq!(last["status"], "expired", "{backend:?}: the stream's last word");
        assert_eq!(
            delete(&app, None, dee_id).await.status.as_u16(),
            204,
            "{backend:?}"
        );
        app.clean_up().await;
    }
}

#[actix_web::test]
async fn settled_tickets_are_swept_once_kept_for_their_holders() {
    for backend in backends() {
        // Kept no time past their expiry, swept every second.
        let limits = continental::config::Limits {
            idempotency_ttl: Duration::ZERO,
            sweep_interval: Duration::from_secs(1),
            ..continental::config::Limits::default()
        };
        let app = TestApp::spawn_with(
            &backend,
            Spawn {
                test_mode: true,
                limits: Some(limits),
                matchmaking: Some(settings(None, 1)),
                ..Spawn::default()
            },
        )
        .await;
        let gus = queue(
            &app,
            None,
            &json!({"name": "Gus", "variant": "push", "sizes": [4]}),
        )
        .await;
        let gus = gus["id"].as_str().expect("an id").to_owned();
        let hal = queue(
            &app,
            None,
            &json!({"name": "Hal", "variant": "continental", "sizes": [5]}),
        )
        .await;
        let hal = hal["id"].as_str().expect("an id").to_owned();
        assert_eq!(delete(&app, None, &hal).await.status.as_u16(), 204, "{backend:?}");
        for id in [&gus, &hal] {
            eventually(SETTLED_WITHIN, "the settled ticket is swept", async || {
                let reply = app.get(&format!("{TICKETS}/{id}")).await;
                match reply.status.as_u16() {
                    404 => Ok(()),
                    _ => Err(reply.text()),
                }
            })
            .await;
        }
        app.clean_up().await;
    }
}

#[actix_web::test]
async fn past_the_wait_a_ticket_sits_down_with_bots() {
    for backend in backends() {
        let app = spawn(&backend, settings(Some(1), 600), false).await;
        let eve = queue(
            &app,
            None,
            &json!({"name": "Eve", "variant": "may_i", "sizes": [3]}),
        )
        .await;
        let eve = settled(&app, None, eve["id"].as_str().expect("an id")).await;
        assert_eq!(eve["status"], "matched", "{backend:?}: {eve}");
        assert!(
            eve["waited_seconds"].as_i64().is_some_and(|s| s >= 1),
            "{backend:?}: {eve}"
        );
        let view = seat_view(&app, &eve).await;
        let kinds: Vec<&str> = view["players"]
            .as_array()
            .expect("players")
            .iter()
            .map(|p| p["kind"].as_str().unwrap_or_default())
            .collect();
        assert_eq!(kinds.len(), 3, "{backend:?}: a table of the size asked");
        assert_eq!(
            kinds.iter().filter(|k| **k == "bot").count(),
            2,
            "{backend:?}: {kinds:?}"
        );
        assert_eq!(view["status"], "playing", "{backend:?}: dealt at once");
        app.clean_up().await;
    }
}

/// `POST /v1/matchmaking/tickets/{id}/bots` with server key `key`, if any.
async fn bots_now(api: &Api, key: Option<&str>, id: &str) -> crate::helpers::Reply {
    let headers: Vec<(&str, &str)> = key.map(|k| ("x-api-key", k)).into_iter().collect();
    api.send("POST", &format!("{TICKETS}/{id}/bots"), None, &headers)
        .await
}

/// The kinds of a matched ticket's table, seat by seat.
async fn table_kinds(api: &Api, ticket: &Value) -> Vec<String> {
    seat_view(api, ticket).await["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| p["kind"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Past the wait, bots fill the largest table the ticket accepts, not the smallest.
#[actix_web::test]
async fn past_the_wait_bots_fill_the_largest_table_the_ticket_accepts() {
    for backend in backends() {
        let app = spawn(&backend, settings(Some(1), 600), false).await;
        let eve = queue(
            &app,
            None,
            &json!({"name": "Eve", "variant": "may_i", "sizes": [2, 3, 4]}),
        )
        .await;
        let eve = settled(&app, None, eve["id"].as_str().expect("an id")).await;
        assert_eq!(eve["status"], "matched", "{backend:?}: {eve}");
        assert_eq!(
            table_kinds(&app, &eve).await,
            ["player", "bot", "bot", "bot"],
            "{backend:?}: a table of four, three bots"
        );
        app.clean_up().await;
    }
}

/// A waiting ticket says how many others wait for the same game, and sits down with them and
/// bots at once when asked, long before its bots' wait.
#[actix_web::test]
async fn play_with_bots_now_seats_a_waiting_ticket_with_the_people_it_finds() {
    for backend in backends() {
        let app = spawn(&backend, settings(Some(600), 600), false).await;
        let ann = queue(
            &app,
            None,
            &json!({"name": "Ann", "variant": "may_i", "sizes": [2, 3, 4]}),
        )
        .await;
        assert_eq!(ann["waiting"], 0, "{backend:?}: nobody else yet: {ann}");
        let ann_id = ann["id"].as_str().expect("an id").to_owned();
        // Bob takes three or four: with Ann alone, no full table of people.
        let bob = queue(
            &app,
            None,
            &json!({"name": "Bob", "variant": "may_i", "sizes": [3, 4]}),
        )
        .await;
        assert_eq!(bob["waiting"], 1, "{backend:?}: Ann waits: {bob}");
        let bob_id = bob["id"].as_str().expect("an id").to_owned();
        // Another game's ticket is in another pool.
        let cy = queue(
            &app,
            None,
            &json!({"name": "Cy", "variant": "contract_7", "sizes": [2]}),
        )
        .await;
        assert_eq!(cy["waiting"], 0, "{backend:?}: another game: {cy}");
        let cy_id = cy["id"].as_str().expect("an id").to_owned();
        assert_eq!(read(&app, None, &ann_id).await["waiting"], 1, "{backend:?}");

        let seated = bots_now(&app, None, &ann_id).await;
        assert_eq!(seated.status.as_u16(), 200, "{backend:?}: {}", seated.text());
        let ann = seated.json();
        assert_eq!(ann["status"], "matched", "{backend:?}: {ann}");
        assert_eq!(ann["waiting"], Value::Null, "{backend:?}: it waits no more");
        assert!(ann["match"]["token"].is_string(), "{backend:?}: its seat's token");
        let bob = settled(&app, None, &bob_id).await;
        assert_eq!(
            bob["match"]["game_id"], ann["match"]["game_id"],
            "{backend:?}: Bob sits with Ann"
        );
        assert_eq!(
            table_kinds(&app, &ann).await,
            ["player", "player", "bot", "bot"],
            "{backend:?}: the largest size both accept, bots in the other seats"
        );
        assert_eq!(read(&app, None, &cy_id).await["status"], "waiting", "{backend:?}");

        // Once only; and only a ticket that waits.
        bots_now(&app, None, &ann_id)
            .await
            .assert_problem(409, "ticket_matched", "seated already");
        delete(&app, None, &cy_id).await;
        bots_now(&app, None, &cy_id)
            .await
            .assert_problem(410, "ticket_cancelled", "cancelled");
        bots_now(&app, None, &uuid::Uuid::new_v4().to_string())
            .await
            .assert_problem(404, "ticket_not_found", "no such ticket");
        app.clean_up().await;

        // A server that seats no bots at quick play says so; the ticket goes on waiting.
        let app = spawn(&backend, settings(None, 1), false).await;
        let dan = queue(
            &app,
            None,
            &json!({"name": "Dan", "variant": "may_i", "sizes": [2]}),
        )
        .await;
        let dan_id = dan["id"].as_str().expect("an id");
        bots_now(&app, None, dan_id)
            .await
            .assert_problem(409, "no_quick_play_bots", "no bots");
        assert_eq!(read(&app, None, dan_id).await["status"], "waiting", "{backend:?}");
        let dan = settled(&app, None, dan_id).await;
        assert_eq!(dan["status"], "expired", "{backend:?}: {dan}");
        assert_eq!(dan["waiting"], Value::Null, "{backend:?}: {dan}");
        bots_now(&app, None, dan_id)
            .await
            .assert_problem(409, "ticket_expired", "expired");
        app.clean_up().await;

        // With server keys, a tenant's ticket is its own.
        let app = spawn(&backend, settings(Some(600), 600), true).await;
        let eve = queue(
            &app,
            Some(ACME),
            &json!({"player": "u-eve", "name": "Eve", "variant": "may_i", "sizes": [2]}),
        )
        .await;
        let eve_id = eve["id"].as_str().expect("an id");
        bots_now(&app, Some(BETA), eve_id)
            .await
            .assert_problem(404, "ticket_not_found", "another tenant's");
        let seated = bots_now(&app, Some(ACME), eve_id).await;
        assert_eq!(seated.status.as_u16(), 200, "{backend:?}: {}", seated.text());
        let eve = seated.json();
        assert_eq!(table_kinds(&app, &eve).await, ["player", "bot"], "{backend:?}");
        app.clean_up().await;
    }
}

/// Tickets asked to sit down with bots now while the matching pass seats them too: each in
/// exactly one game.
#[actix_web::test]
async fn play_with_bots_now_racing_the_pass_seats_each_ticket_once() {
    for backend in backends() {
        let app = spawn(&backend, settings(Some(1), 600), true).await;
        let mut rng = StdRng::seed_from_u64(52);
        let mut queued = Vec::new();
        for i in 0..40 {
            let sizes = some_sizes(&mut rng);
            let name = format!("Player {i}");
            let body = json!({"player": format!("p-{i}"), "name": name, "variant": "may_i", "sizes": sizes});
            let ticket = queue(&app, Some(ACME), &body).await;
            queued.push(Queued {
                id: ticket["id"].as_str().expect("an id").to_owned(),
                name,
                sizes,
            });
        }
        // Around the bots' wait, when the pass seats them too.
        tokio::time::sleep(Duration::from_millis(800)).await;
        let answers =
            futures_util::future::join_all(queued.iter().map(|q| bots_now(&app, Some(ACME), &q.id))).await;
        for (q, a) in queued.iter().zip(&answers) {
            match a.status.as_u16() {
                200 => assert_eq!(a.json()["status"], "matched", "{backend:?}: {}", q.id),
                _ => a.assert_problem(409, "ticket_matched", "seated by the pass or another's table"),
            }
        }
        let tickets = all_settled(&[&app], &queued).await;
        assert_each_in_one_game(&app, &queued, &tickets).await;
        assert_each_at_one_seat_of_all_games(&app.database, &queued).await;
        app.clean_up().await;
    }
}

/// A waiting ticket says which bots its table gets if nobody comes, and when: the level and
/// rating its table's bot seats then have. A ticket no longer waiting, and every ticket of a
/// server that seats no bots, says none.
#[actix_web::test]
async fn a_waiting_ticket_says_which_bots_fill_its_table_and_when() {
    for backend in backends() {
        let app = spawn(&backend, settings(Some(1), 600), false).await;
        let body = json!({"name": "Eve", "variant": "may_i", "sizes": [2]});
        let queued = queue(&app, None, &body).await;
        let id = queued["id"].as_str().expect("an id");
        // A new player's 25 is nearest may_i's normal level (docs/bots.md#ratings).
        let bots = queued["bots"].clone();
        assert_eq!(bots["level"], "normal", "{backend:?}: {queued}");
        assert_eq!(bots["after_seconds"], 1, "{backend:?}: {queued}");
        let eve = settled(&app, None, id).await;
        assert_eq!(eve["status"], "matched", "{backend:?}: {eve}");
        assert_eq!(eve["bots"], Value::Null, "{backend:?}: matched, no bots to come");
        let view = seat_view(&app, &eve).await;
        let bot = &view["players"][1];
        assert_eq!(
            (&bot["kind"], &bot["level"], &bot["rating"]),
            (&json!("bot"), &bots["level"], &bots["rating"]),
            "{backend:?}: the bots the ticket said: {view}"
        );
        app.clean_up().await;

        let app = spawn(&backend, settings(None, 600), false).await;
        let lonely = queue(&app, None, &body).await;
        assert_eq!(lonely["bots"], Value::Null, "{backend:?}: no bots ever: {lonely}");
        let read_again = read(&app, None, lonely["id"].as_str().expect("an id")).await;
        assert_eq!(read_again["bots"], Value::Null, "{backend:?}: {read_again}");
        app.clean_up().await;
    }
}

/// A quick-play table shows each seat's rating as a table set by hand does: on a studio's
/// server its person names the ticket's player (never shown) and the game is rated; on an open
/// server only the bots have a rating and nothing is rated.
#[actix_web::test]
async fn a_quick_play_table_shows_each_seats_rating_and_a_studios_is_rated() {
    for backend in backends() {
        for keyed in [true, false] {
            let app = spawn(&backend, settings(Some(1), 600), keyed).await;
            let key = keyed.then_some(ACME);
            let body = if keyed {
                json!({"player": "u-rated-1", "name": "Ann", "variant": "may_i", "sizes": [2]})
            } else {
                json!({"name": "Ann", "variant": "may_i", "sizes": [2]})
            };
            let ticket = queue(&app, key, &body).await;
            let ticket = settled(&app, key, ticket["id"].as_str().expect("an id")).await;
            assert_eq!(
                ticket["status"], "matched",
                "{backend:?}, keyed {keyed}: {ticket}"
            );
            let view = seat_view(&app, &ticket).await;
            let case = format!("{backend:?}, keyed {keyed}: {view}");
            assert_eq!(view["rated"], keyed, "{case}: rated only on a studio's server");
            let ann = &view["players"][0];
            let bot = &view["players"][1];
            assert_eq!(bot["kind"], "bot", "{case}");
            assert!(
                bot["rating"]["display"].as_i64().is_some(),
                "{case}: the bot's level's rating"
            );
            if keyed {
                assert_eq!(ann["rating"]["display"], 1500, "{case}: a new player's rating");
            } else {
                assert!(
                    ann["rating"].is_null(),
                    "{case}: a person with no player has no rating"
                );
            }
            assert!(
                !view.to_string().contains("u-rated-1"),
                "{case}: the player id is never shown"
            );
            app.clean_up().await;
        }
    }
}

#[actix_web::test]
async fn a_studios_tickets_are_its_own_and_one_per_waiting_player() {
    for backend in backends() {
        let app = spawn(&backend, settings(None, 600), true).await;
        let body = json!({"player": "u-1", "name": "Ann", "variant": "may_i", "sizes": [2]});
        app.post(TICKETS, &body)
            .await
            .assert_problem(401, "unauthorized", "keys configured, none sent");
        for (bad, status, why) in [
            (
                json!({"name": "Ann", "variant": "may_i", "sizes": [2]}),
                422,
                "no player",
            ),
            (
                json!({"player": "", "name": "Ann", "variant": "may_i", "sizes": [2]}),
                400,
                "empty",
            ),
            (
                json!({"player": "x".repeat(129), "name": "Ann", "variant": "may_i", "sizes": [2]}),
                400,
                "too long",
            ),
        ] {
            app.post_with_key(TICKETS, ACME, &bad, &[])
                .await
                .assert_problem(status, "invalid_player", why);
        }
        let first = app
            .post_with_key(TICKETS, ACME, &body, &[("idempotency-key", "k-1")])
            .await;
        assert_eq!(first.status.as_u16(), 201, "{backend:?}: {}", first.text());
        let again = app
            .post_with_key(TICKETS, ACME, &body, &[("idempotency-key", "k-1")])
            .await;
        assert_eq!(again.status.as_u16(), 201, "{backend:?}: a retry");
        assert_eq!(again.body, first.body, "{backend:?}: the same answer");
        app.post_with_key(TICKETS, ACME, &body, &[]).await.assert_problem(
            409,
            "already_waiting",
            "a second ticket",
        );
        app.post_with_key(TICKETS, ACME, &body, &[("idempotency-key", "k-2")])
            .await
            .assert_problem(409, "already_waiting", "a second ticket under another key");
        let id = first.json()["ticket"]["id"].as_str().expect("an id").to_owned();
        // Another tenant's ticket is none of its business; the id alone opens it.
        app.get_with_key(&format!("{TICKETS}/{id}"), BETA)
            .await
            .assert_problem(404, "ticket_not_found", "another tenant's");
        delete(&app, Some(BETA), &id).await.assert_problem(
            404,
            "ticket_not_found",
            "another tenant's, to cancel",
        );
        // The same player id at another tenant is another player.
        queue(&app, Some(BETA), &body).await;
        let bob = queue(
            &app,
            Some(ACME),
            &json!({"player": "u-2", "name": "Bob", "variant": "may_i", "sizes": [2]}),
        )
        .await;
        let ann = settled(&app, Some(ACME), &id).await;
        let bob = settled(&app, None, bob["id"].as_str().expect("an id")).await;
        assert_eq!(
            ann["match"]["game_id"], bob["match"]["game_id"],
            "{backend:?}: acme's two meet"
        );
        let first = first_event(&app, &ann).await;
        assert!(
            first["seats"]
                .as_array()
                .expect("seats")
                .iter()
                .all(|s| s["player"].is_null()),
            "{backend:?}: a seat never reads a player id: {first}"
        );
        let view = seat_view(&app, &ann).await;
        assert_eq!(
            view["rated"], true,
            "{backend:?}: a studio's players' game is rated"
        );
        assert!(
            view["players"]
                .as_array()
                .expect("players")
                .iter()
                .all(|p| p["rating"]["display"].is_i64()),
            "{backend:?}: each seat shows its rating: {}",
            view["players"]
        );
        // Seated, the player may queue again.
        queue(&app, Some(ACME), &body).await;
        app.clean_up().await;
    }
}

/// A ticket's id opens its seat only until the studio reissues that seat's token: then the
/// ticket, read with no key, says so and mints no token, and only the studio's token opens it.
#[actix_web::test]
async fn a_ticket_opens_its_seat_no_more_once_the_studio_reissued_its_token() {
    for backend in backends() {
        let app = spawn(&backend, settings(None, 600), true).await;
        let ann = queue(
            &app,
            Some(ACME),
            &json!({"player": "u-1", "name": "Ann", "variant": "may_i", "sizes": [2]}),
        )
        .await;
        queue(
            &app,
            Some(ACME),
            &json!({"player": "u-2", "name": "Bob", "variant": "may_i", "sizes": [2]}),
        )
        .await;
        let id = ann["id"].as_str().expect("an id");
        let matched = settled(&app, None, id).await;
        assert_eq!(
            matched["match"]["token_replaced"], false,
            "{backend:?}: {matched}"
        );
        let first = matched["match"]["token"].as_str().expect("a token").to_owned();
        let game = matched["match"]["game_id"].as_str().expect("a game").to_owned();
        let seat = matched["match"]["seat"].as_u64().expect("a seat");
        let view = format!("/v1/games/{game}");
        app.get_as(&view, &first)
            .await
            .ok("the ticket's token opens the seat");

        let reissued = app
            .post_with_key(&format!("{view}/seats/{seat}/token"), ACME, &json!({}), &[])
            .await
            .ok("the studio reissues the seat's token");
        let studios = reissued["token"].as_str().expect("a token");
        let after = read(&app, None, id).await;
        assert_eq!(after["status"], "matched", "{backend:?}: {after}");
        assert_eq!(after["match"]["game_id"], game.as_str(), "{backend:?}: {after}");
        assert_eq!(
            after["match"]["token"],
            Value::Null,
            "{backend:?}: the ticket mints no token after the reissue: {after}"
        );
        assert_eq!(after["match"]["token_replaced"], true, "{backend:?}: {after}");
        let followed = app.get(&format!("{TICKETS}/{id}/events")).await.text();
        assert!(
            followed.contains(r#""token":null"#) && followed.contains(r#""token_replaced":true"#),
            "{backend:?}: the stream says the same: {followed}"
        );
        app.get_as(&view, &first)
            .await
            .assert_problem(401, "unauthorized", "the ticket's token, reissued");
        assert_eq!(
            app.get_as(&view, studios).await.ok("the studio's token")["you"]["seat"].as_u64(),
            Some(seat),
            "{backend:?}"
        );
        app.clean_up().await;
    }
}

#[actix_web::test]
async fn the_studios_webhook_hears_of_each_match_and_asynchronous_tables_keep_a_clock() {
    for backend in backends() {
        let app = spawn(&backend, settings(Some(1), 600), true).await;
        let receiver = Receiver::start(200);
        let body = json!({"player": "u-9", "name": "Ann", "variant": "contract_7", "sizes": [3],
            "async": true, "webhook_url": receiver.url});
        let created = app.post_with_key(TICKETS, ACME, &body, &[]).await;
        assert_eq!(created.status.as_u16(), 201, "{backend:?}: {}", created.text());
        let created = created.json();
        let secret = created["webhook_secret"].as_str().expect("a secret").to_owned();
        let id = created["ticket"]["id"].as_str().expect("an id").to_owned();
        assert_eq!(created["ticket"]["async"], true, "{backend:?}");
        let ticket = settled(&app, Some(ACME), &id).await;
        assert_eq!(ticket["status"], "matched", "{backend:?}: {ticket}");
        let game = ticket["match"]["game_id"].as_str().expect("a game");
        // Once the bots have played up to the person, the person's turn runs on the clock.
        let view = eventually(SETTLED_WITHIN, "the person's turn, on the clock", async || {
            let view = seat_view(&app, &ticket).await;
            match view["turn"]["deadline"].is_string() {
                true => Ok(view),
                false => Err(view["turn"].clone()),
            }
        })
        .await;
        assert_eq!(
            view["options"]["turn_seconds"], 86_400,
            "{backend:?}: a day a turn"
        );
        let delivered = receiver
            .wait_for("the match's delivery", |r| r.iter().any(|d| d.seq() == 1))
            .await;
        let first = delivered.iter().find(|d| d.seq() == 1).expect("the first event");
        assert!(
            verifies(&secret, first),
            "{backend:?}: signed with the ticket's secret"
        );
        let delivery = first.json();
        assert_eq!(delivery["game_id"], game, "{backend:?}");
        assert_eq!(delivery["event"]["type"], "matched", "{backend:?}");
        assert_eq!(
            delivery["event"]["seats"],
            json!([{"seat": 0, "ticket": id, "player": "u-9"}]),
            "{backend:?}: the studio hears whose ticket sits where"
        );
        app.clean_up().await;
    }
}

/// How many pools of quick play the service has matched (`continental_pools_matched_total`).
async fn pools_matched(api: &Api) -> u64 {
    let text = api.get("/metrics").await.text();
    text.lines()
        .find_map(|l| l.strip_prefix("continental_pools_matched_total "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("the metric of pools matched: {text}"))
}

#[actix_web::test]
async fn a_waiting_pool_is_matched_when_something_changes_not_at_every_pass() {
    for backend in backends() {
        // A pass every 50 ms, no bots, ten minutes to wait.
        let app = spawn(&backend, settings(None, 600), false).await;
        // Twenty pools of one ticket each: nobody to meet, nothing for the clock to change.
        for i in 0..20 {
            let body = json!({"name": format!("Idle {i}"), "variant": "may_i", "sizes": [2],
                "options": {"turn_seconds": 60 + i}});
            queue(&app, None, &body).await;
        }
        eventually(
            SETTLED_WITHIN,
            "each pool matched for its arrival",
            async || match pools_matched(&app).await {
                n if n >= 20 => Ok(n),
                n => Err(n),
            },
        )
        .await;
        // Five pairs meet, each in a pool of its own, over passes after passes.
        for round in 0..5 {
            let body = json!({"name": "Pair", "variant": "may_i", "sizes": [2],
                "options": {"turn_seconds": 200 + round}});
            let one = queue(&app, None, &body).await;
            let two = queue(&app, None, &body).await;
            for t in [&one, &two] {
                let t = settled(&app, None, t["id"].as_str().expect("an id")).await;
                assert_eq!(t["status"], "matched", "{backend:?}: {t}");
            }
        }
        // One pass per arrival at most: the idle pools were not matched again.
        let matched = pools_matched(&app).await;
        assert!(
            matched <= 20 + 2 * 5,
            "{backend:?}: {matched} pools matched for 30 arrivals"
        );
        app.clean_up().await;
    }
}

/// Sizes from 2 to 4, at least one, drawn by `rng`.
fn some_sizes(rng: &mut StdRng) -> Vec<u64> {
    let sizes: Vec<u64> = (2..=4).filter(|_| rng.random_bool(0.5)).collect();
    if sizes.is_empty() {
        vec![rng.random_range(2..=4)]
    } else {
        sizes
    }
}

/// What a test knows of the tickets it queued: each one's id, name and sizes.
struct Queued {
    id: String,
    name: String,
    sizes: Vec<u64>,
}

/// Checks the settled `tickets`: each matched; no seat of a game taken twice; each game of a
/// size its tickets accept, its people's names at their seats and bots in the other seats.
/// Returns how many games had bots.
async fn assert_each_in_one_game(api: &Api, queued: &[Queued], tickets: &[Value]) -> usize {
    let mut games: BTreeMap<String, Vec<(&Queued, &Value)>> = BTreeMap::new();
    for (q, t) in queued.iter().zip(tickets) {
        assert_eq!(t["status"], "matched", "ticket {}: {t}", q.id);
        let game = t["match"]["game_id"].as_str().expect("a game").to_owned();
        games.entry(game).or_default().push((q, t));
    }
    let mut with_bots = 0;
    for (game, seated) in &games {
        let seats: BTreeSet<u64> = seated
            .iter()
            .map(|(_, t)| t["match"]["seat"].as_u64().expect("a seat"))
            .collect();
        assert_eq!(seats.len(), seated.len(), "game {game}: no seat taken twice");
        let view = seat_view(api, seated[0].1).await;
        let players = view["players"].as_array().expect("players");
        let size = players.len() as u64;
        for (q, t) in seated {
            assert!(
                q.sizes.contains(&size),
                "ticket {} accepts {:?}, not {size}",
                q.id,
                q.sizes
            );
            let seat = t["match"]["seat"].as_u64().expect("a seat") as usize;
            assert_eq!(players[seat]["name"], q.name.as_str(), "game {game}: seat {seat}");
            assert_eq!(players[seat]["kind"], "player", "game {game}: seat {seat}");
        }
        let bots = players.iter().filter(|p| p["kind"] == "bot").count();
        assert_eq!(
            bots + seated.len(),
            players.len(),
            "game {game}: the other seats are bots"
        );
        with_bots += usize::from(bots > 0);
        assert_eq!(
            first_event(api, seated[0].1).await["type"],
            "matched",
            "game {game}"
        );
    }
    with_bots
}

/// Waits until every ticket of `queued` is settled, reading from `apis` in turn.
async fn all_settled(apis: &[&Api], queued: &[Queued]) -> Vec<Value> {
    let mut out = Vec::with_capacity(queued.len());
    for (i, q) in queued.iter().enumerate() {
        out.push(settled(apis[i % apis.len()], Some(ACME), &q.id).await);
    }
    out
}

/// Every `matched` event in the database (every game quick play made, whichever replica made
/// it): each ticket of `queued` is at exactly one seat of them.
async fn assert_each_at_one_seat_of_all_games(database: &DatabaseSettings, queued: &[Queued]) {
    let bodies: Vec<String> = match database {
        DatabaseSettings::Sqlite { .. } => {
            let mut conn = sqlx::SqliteConnection::connect(&database_url(database))
                .await
                .expect("the SQLite file");
            sqlx::query_scalar("SELECT body FROM events WHERE body LIKE '%\"matched\"%'")
                .fetch_all(&mut conn)
                .await
                .expect("the events")
        }
        DatabaseSettings::Postgres { url } => {
            sqlx::query_scalar("SELECT body FROM events WHERE body LIKE '%\"matched\"%'")
                .fetch_all(&mut connect(url).await)
                .await
                .expect("the events")
        }
    };
    let mut seats: BTreeMap<String, usize> = BTreeMap::new();
    for body in bodies {
        let event: Value = serde_json::from_str(&body).expect("an event");
        if event["type"] != "matched" {
            continue;
        }
        for seat in event["seats"].as_array().expect("seats") {
            *seats
                .entry(seat["ticket"].as_str().expect("a ticket").to_owned())
                .or_default() += 1;
        }
    }
    for q in queued {
        assert_eq!(
            seats.get(&q.id),
            Some(&1),
            "ticket {} at one seat of one game",
            q.id
        );
    }
    assert_eq!(seats.len(), queued.len(), "no other ticket was seated");
}

#[actix_web::test]
async fn two_replicas_seat_every_ticket_in_exactly_one_game() {
    for backend in backends() {
        let database = fresh_database(&backend).await;
        let env = [
            ("CONTINENTAL_API_KEYS", STUDIO_KEYS),
            ("CONTINENTAL_MATCHMAKING_BOTS_AFTER_S", "1"),
            ("CONTINENTAL_MATCHMAKING_INTERVAL_MS", "100"),
        ];
        let one = Binary::start_testing(&database, &env).await;
        let two = Binary::start_testing(&database, &env).await;
        let replicas = [&one.api, &two.api];
        let mut rng = StdRng::seed_from_u64(44);
        let mut queued = Vec::new();
        // 199 players arriving over a few seconds, at either replica, in three pools.
        for i in 0..199 {
            let sizes = some_sizes(&mut rng);
            let name = format!("Player {i}");
            let body = json!({"player": format!("p-{i}"), "name": name, "variant": "may_i", "sizes": sizes,
                "options": {"turn_seconds": 60 + i % 3}});
            let ticket = queue(replicas[i % 2], Some(ACME), &body).await;
            queued.push(Queued {
                id: ticket["id"].as_str().expect("an id").to_owned(),
                name,
                sizes,
            });
            tokio::time::sleep(Duration::from_millis(15)).await;
        }
        let mut tickets = all_settled(&replicas, &queued).await;
        // The last one comes when no one else waits: it sits down with bots.
        let body = json!({"player": "p-199", "name": "Player 199", "variant": "may_i", "sizes": [4]});
        let last = queue(&two, Some(ACME), &body).await;
        queued.push(Queued {
            id: last["id"].as_str().expect("an id").to_owned(),
            name: "Player 199".into(),
            sizes: vec![4],
        });
        tickets.push(settled(&one, Some(ACME), &queued[199].id).await);
        let with_bots = assert_each_in_one_game(&one, &queued, &tickets).await;
        assert!(with_bots >= 1, "{backend:?}: the last ticket's table has bots");
        assert_each_at_one_seat_of_all_games(&database, &queued).await;
        drop((one, two));
        drop_database(&database).await;
    }
}

#[actix_web::test]
async fn a_replica_killed_while_it_matches_loses_no_ticket() {
    for backend in server_backends() {
        let database = fresh_database(&backend).await;
        let env = [
            ("CONTINENTAL_API_KEYS", STUDIO_KEYS),
            ("CONTINENTAL_MATCHMAKING_BOTS_AFTER_S", "1"),
            ("CONTINENTAL_MATCHMAKING_INTERVAL_MS", "20"),
        ];
        let mut first = Binary::start_testing(&database, &env).await;
        let mut rng = StdRng::seed_from_u64(7);
        let mut queued = Vec::new();
        for i in 0..120 {
            let sizes = some_sizes(&mut rng);
            let name = format!("Player {i}");
            let body = json!({"player": format!("p-{i}"), "name": name, "variant": "may_i", "sizes": sizes});
            let ticket = queue(&first, Some(ACME), &body).await;
            queued.push(Queued {
                id: ticket["id"].as_str().expect("an id").to_owned(),
                name,
                sizes,
            });
        }
        // Killed as its passes seat these tickets and make their games.
        let status = first.kill();
        assert!(!status.success(), "{backend:?}: killed: {status}");
        // A table seated and its game never made, as if the process died in between: two
        // tickets of the queue, waiting still, marked as the pass marks them.
        let url = database_url(&database);
        let mut conn = connect(&url).await;
        let game = uuid::Uuid::new_v4();
        let marked: Vec<String> = sqlx::query_scalar(
            "SELECT id::text FROM tickets WHERE status = 'waiting' ORDER BY created_at LIMIT 2",
        )
        .fetch_all(&mut conn)
        .await
        .expect("waiting tickets");
        if marked.len() == 2 {
            let plan = json!([{"ticket": marked[0]}, {"ticket": marked[1]}]).to_string();
            for (seat, id) in marked.iter().enumerate() {
                sqlx::query(
                    "UPDATE tickets SET status = 'placing', matched_at = 0, game_id = $1, seat = $2, plan = $3, \
                     sizes = '[2]' WHERE id = $4::uuid",
                )
                .bind(game)
                .bind(seat as i64)
                .bind(&plan)
                .bind(id)
                .execute(&mut conn)
                .await
                .expect("marked");
            }
            for q in &mut queued {
                if marked.contains(&q.id) {
                    q.sizes = vec![2];
                }
            }
        }
        let second = Binary::start_testing(&database, &env).await;
        let tickets = all_settled(&[&second.api], &queued).await;
        assert_each_in_one_game(&second, &queued, &tickets).await;
        if marked.len() == 2 {
            let made = queued
                .iter()
                .zip(&tickets)
                .filter(|(q, _)| marked.contains(&q.id));
            for (_, t) in made {
                assert_eq!(
                    t["match"]["game_id"],
                    game.to_string(),
                    "{backend:?}: the marked table's game was made"
                );
            }
        }
        drop(second);
        drop_database(&database).await;
    }
}
