//! Turn deadlines (docs/api.md#turn-deadlines): `options.turn_seconds`, `turn.deadline`, and the
//! server playing an expired turn once, with no request, however many replicas run. Tests
//! run with a `turn_seconds` second of 10 ms (the test-only `CONTINENTAL_TEST_SECOND_MS`).

use std::time::Duration;

use serde_json::{Value, json};

use engine::DrawSource;

use crate::helpers::{
    Table, TestApp, backends, create, draw, eventually, may_i_between_deals_with, test_async,
};
use crate::on_every_backend;

async fn turn_seconds_are_checked_and_shown(app: &TestApp) {
    let seats = json!([{"name": "Ann"}, {"name": "Bob"}]);
    for (value, why) in [
        (json!(4), "below 5"),
        (json!(604_801), "above a week"),
        (json!("60"), "not a number"),
        (json!(7.5), "not whole"),
    ] {
        let body = json!({"variant": "may_i", "seats": seats, "options": {"turn_seconds": value}});
        app.post("/v1/games", &body)
            .await
            .assert_problem(400, "invalid_options", why);
    }
    let clocked = create(app, "may_i", 2, 3, json!({"options": {"turn_seconds": 604_800}})).await;
    let view = app.view(&clocked, 0).await.ok("a clocked game");
    let deadline = view["turn"]["deadline"].as_str().expect("a deadline");
    assert!(
        deadline.ends_with('Z') && deadline.contains('T'),
        "RFC 3339: {deadline}"
    );
    assert_eq!(view["options"]["turn_seconds"], 604_800, "{view}");
    assert!(
        view["players"]
            .as_array()
            .expect("players")
            .iter()
            .all(|p| p["timeouts"] == 0)
    );
    let free = create(app, "may_i", 2, 3, json!({})).await;
    let view = app.view(&free, 0).await.ok("a game without a clock");
    assert!(
        view["turn"].get("deadline").is_none(),
        "no clock, no deadline: {view}"
    );
}
on_every_backend!(
    turn_seconds_is_checked_and_shown,
    turn_seconds_are_checked_and_shown
);

/// The game's log as seat 0 reads it: the events alone.
async fn log(app: &TestApp, table: &Table) -> Vec<Value> {
    app.log(table, 0).await.into_iter().map(|e| e.event).collect()
}

/// Waits (60 s at most) until the log holds `n` `timed_out` events; returns the log.
async fn wait_for_timeouts(app: &TestApp, table: &Table, n: usize) -> Vec<Value> {
    eventually(Duration::from_secs(60), &format!("{n} timeouts"), async || {
        let events = log(app, table).await;
        let timed_out = events.iter().filter(|e| e["type"] == "timed_out").count();
        if timed_out >= n {
            Ok(events)
        } else {
            Err(timed_out)
        }
    })
    .await
}

/// The view (as seat 0) and the log of a game that may be moving on its own, read at one
/// moment: the log read before and after the view has the same length.
async fn view_and_log(app: &TestApp, table: &Table) -> (Value, Vec<Value>) {
    for _ in 0..200 {
        let before = log(app, table).await;
        let view = app.view(table, 0).await.ok("the view");
        let after = log(app, table).await;
        if before.len() == after.len() {
            return (view, after);
        }
    }
    panic!("the game never stood still between two reads");
}

/// Each seat's `players[].timeouts` in the view.
fn timeouts(view: &Value) -> Vec<(u64, u64)> {
    view["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| {
            (
                p["seat"].as_u64().expect("a seat"),
                p["timeouts"].as_u64().expect("timeouts"),
            )
        })
        .collect()
}

/// How many `timed_out` events of `seat` the log holds.
fn timed_out_of(events: &[Value], seat: u64) -> u64 {
    let n = events
        .iter()
        .filter(|e| e["type"] == "timed_out" && e["seat"] == seat)
        .count();
    u64::try_from(n).expect("a count")
}

/// The events by which a seat plays its turn.
const MOVES: [&str; 7] = [
    "drew",
    "melded",
    "laid_off",
    "swapped",
    "joker_moved",
    "took_back",
    "discarded",
];

/// Checks, over the log of a game in which no one moves, that every deadline was played
/// exactly once: each turn that has passed holds one `timed_out`, of the seat in turn, before
/// any move, and every move in it is that seat's (the one bot turn played for it).
fn assert_one_bot_turn_per_deadline(events: &[Value], context: &str) {
    let starts: Vec<usize> = (0..events.len())
        .filter(|&i| events[i]["type"] == "turn")
        .collect();
    assert!(starts.len() >= 2, "{context}: no turn has passed: {events:?}");
    for pair in starts.windows(2) {
        let turn = &events[pair[0]..pair[1]];
        let seat = &turn[0]["seat"];
        let timeouts: Vec<usize> = (0..turn.len())
            .filter(|&i| turn[i]["type"] == "timed_out")
            .collect();
        assert_eq!(
            timeouts.len(),
            1,
            "{context}: one timeout in the turn of seat {seat}: {turn:?}"
        );
        assert_eq!(&turn[timeouts[0]]["seat"], seat, "{context}: {turn:?}");
        for (i, e) in turn.iter().enumerate() {
            if e["type"].as_str().is_some_and(|t| MOVES.contains(&t)) {
                assert!(
                    i > timeouts[0] && &e["seat"] == seat,
                    "{context}: only the timed-out seat's bot turn in its turn: {turn:?}"
                );
            }
        }
    }
}

/// Checks, over the log, that each expired turn was played once: every `timed_out` names the
/// seat in turn, at most one per turn, followed by that seat's own action before the turn passes.
pub(crate) fn assert_each_timeout_played_once(events: &[Value], context: &str) {
    let mut in_turn: Option<u64> = None;
    let mut timed_out_this_turn = false;
    let mut awaiting_move: Option<u64> = None;
    for e in events {
        match e["type"].as_str() {
            Some("turn") => {
                assert!(
                    awaiting_move.is_none(),
                    "{context}: a timed-out turn passed with no move: {events:?}"
                );
                in_turn = e["seat"].as_u64();
                timed_out_this_turn = false;
            }
            Some("timed_out") => {
                assert_eq!(
                    e["seat"].as_u64(),
                    in_turn,
                    "{context}: the seat in turn times out"
                );
                assert!(
                    !timed_out_this_turn,
                    "{context}: one timeout per turn, not two: {events:?}"
                );
                timed_out_this_turn = true;
                awaiting_move = in_turn;
            }
            _ => {
                let actor = e["seat"].as_u64().or_else(|| e["from"].as_u64());
                if actor.is_some() && actor == awaiting_move {
                    awaiting_move = None;
                }
            }
        }
    }
}

/// docs/rules.md#suspension: a suspended game has no one in turn, so no clock runs and it never
/// times out, however long it waits; resumed, the turn's clock runs again.
async fn a_suspended_game_never_times_out(app: &TestApp) {
    // 200 s a turn (2 s in tests): time enough to go out in deal 1 and suspend in between.
    let clock = json!({"options": {"turn_seconds": 200}});
    let table = may_i_between_deals_with(app, clock.clone()).await;
    let game = format!("/v1/games/{}", table.id);
    let post = |seat: usize, path: &str| {
        let url = format!("{game}/{path}");
        let token = table.tokens[seat].clone();
        async move {
            let r = app.post_as(&url, &token, &json!({}), &[]).await;
            assert_eq!(r.status.as_u16(), 200, "{url}: {}", r.text());
            r.json()
        }
    };
    post(0, "suspend").await;
    let suspended = post(1, "suspend").await;
    assert_eq!(suspended["status"], "suspended", "{suspended}");
    assert!(
        suspended["turn"]["deadline"].is_null(),
        "no deadline while suspended: {suspended}"
    );
    // A game whose clock starts now times out: the server has played every deadline due
    // since the suspension, and would have played the suspended game's had its clock run.
    let running = create(app, "may_i", 2, 3, clock).await;
    wait_for_timeouts(app, &running, 1).await;
    let (view, events) = view_and_log(app, &table).await;
    assert_eq!(view["status"], "suspended", "{view}");
    assert!(
        events.iter().all(|e| e["type"] != "timed_out"),
        "no timeout while suspended: {events:?}"
    );
    post(0, "resume").await;
    let resumed = post(1, "resume").await;
    assert!(
        resumed["turn"]["deadline"].is_string(),
        "resumed, the clock runs: {resumed}"
    );
    let events = wait_for_timeouts(app, &table, 1).await;
    assert_each_timeout_played_once(&events, "after resuming");
}
on_every_backend!(
    a_suspended_game_never_times_out_on_every_backend,
    a_suspended_game_never_times_out
);

#[actix_web::test]
async fn expired_turns_are_played_once_with_two_replicas() {
    for backend in backends() {
        for (variant, players) in [("may_i", 2), ("contract_7", 2), ("continental", 2), ("push", 4)] {
            let one = TestApp::spawn(&backend).await;
            let two = one.replica(test_async()).await;
            // 5 "seconds" of 10 ms: nobody moves, the server plays every turn.
            let table = create(
                &one,
                variant,
                players,
                11,
                json!({"options": {"turn_seconds": 5}}),
            )
            .await;
            wait_for_timeouts(&two, &table, 2 * players).await;
            let context = format!("{backend:?} {variant}");
            let (view, events) = view_and_log(&one, &table).await;
            assert_each_timeout_played_once(&events, &context);
            assert_one_bot_turn_per_deadline(&events, &context);
            // Nobody moves: every timeout of a seat is one more in a row.
            let counts = timeouts(&view);
            for &(seat, count) in &counts {
                assert_eq!(
                    count,
                    timed_out_of(&events, seat),
                    "{context}: seat {seat}'s timeouts in a row: {view}"
                );
            }
            assert!(
                counts.iter().any(|&(_, count)| count >= 2),
                "{context}: a seat timed out twice in a row: {view}"
            );
            let metrics = String::from_utf8_lossy(&one.get("/metrics").await.body).into_owned()
                + &String::from_utf8_lossy(&two.get("/metrics").await.body);
            assert!(metrics.contains("continental_turns_timed_out_total"), "{metrics}");
            one.kill_switch.kill().await;
            two.kill_switch.kill().await;
            one.clean_up().await;
        }
    }
}

#[actix_web::test]
async fn deadlines_outlive_every_replica_and_a_move_resets_the_count() {
    for backend in backends() {
        let first = TestApp::spawn(&backend).await;
        // Seat 0 is a person who never moves; seat 1 a bot.
        let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"bot": true}], "seed": 5, "first_dealer": 1,
            "options": {"turn_seconds": 5}});
        let created = first.post("/v1/games", &body).await;
        assert_eq!(created.status.as_u16(), 201, "{}", created.text());
        let created = created.json();
        let table = Table::of_created(&created);
        // Every replica stops, as in a crash, before the deadline has been played.
        first.kill_switch.kill().await;
        // Started again with whole seconds: the expired deadline is played, and the next
        // one is 5 s away, time enough for a move.
        let second = first
            .replica(continental::config::AsyncSettings {
                test_second_ms: Some(1000),
                ..test_async()
            })
            .await;
        let events = wait_for_timeouts(&second, &table, 1).await;
        assert_each_timeout_played_once(&events, &format!("{backend:?} after the restart"));
        // Ann is a person: the bot plays its turn at its pace, after the timeout.
        second.when_in_turn(&table, 0, 0).await;
        let (view, events) = view_and_log(&second, &table).await;
        let missed = timed_out_of(&events, 0);
        assert_eq!(
            timeouts(&view)[0],
            (0, missed),
            "{backend:?}: Ann's timeouts in a row"
        );
        // The bot has played its turn: Ann is in turn again, with 5 s to draw.
        assert_eq!(view["turn"]["seat"], 0, "{view}");
        assert_eq!(view["turn"]["phase"], "draw", "{view}");
        let drew = second
            .act(&table, 0, &draw(DrawSource::Stock), &[])
            .await
            .ok("Ann draws");
        assert_eq!(
            drew["players"][0]["timeouts"], 0,
            "a move of one's own resets the count"
        );
        // Ann does not discard: her turn times out again (within 5 s), and the count starts
        // again from the move, at one.
        let events = wait_for_timeouts(&second, &table, usize::try_from(missed).expect("a count") + 1).await;
        assert_each_timeout_played_once(&events, &format!("{backend:?} after the move"));
        let (view, _) = view_and_log(&second, &table).await;
        assert_eq!(
            timeouts(&view)[0],
            (0, 1),
            "{backend:?}: one timeout since her move: {view}"
        );
        second.clean_up().await;
    }
}

/// Each seat's `players[].bank_seconds_left` in the view.
fn reserves(view: &Value) -> Vec<f64> {
    view["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| p["bank_seconds_left"].as_f64().expect("a reserve"))
        .collect()
}

/// docs/api.md#turn-deadlines: a turn that outlasts `turn_seconds` draws on its seat's
/// reserve, by as much as it overran; the other seat's reserve is untouched.
async fn an_overrun_comes_off_the_reserve(app: &TestApp) {
    // 5 s a turn and 1000 s of reserve: 50 ms and 10 s in tests.
    let alone = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}], "options": {"bank_seconds": 60}});
    app.post("/v1/games", &alone).await.assert_problem(
        422,
        "invalid_options",
        "a reserve without a turn clock",
    );
    let clock = json!({"options": {"turn_seconds": 5, "bank_seconds": 1000}});
    let asked = std::time::Instant::now();
    let table = create(app, "may_i", 2, 3, clock).await;
    // The turn's clock started before the answer came.
    let created = std::time::Instant::now();
    let view = app.view(&table, 0).await.ok("the view");
    assert_eq!(view["options"]["bank_seconds"], 1000, "{view}");
    assert_eq!(
        reserves(&view),
        [1000.0, 1000.0],
        "the whole reserve to start: {view}"
    );
    let seat = app.in_turn(&table).await;
    // The turn outlasts its 50 ms by at least 50 ms (5 clock seconds) before the move.
    eventually(Duration::from_secs(5), "100 ms", async || {
        if created.elapsed() >= Duration::from_millis(100) {
            Ok(())
        } else {
            Err(())
        }
    })
    .await;
    let drawn = app
        .act(&table, seat, &draw(DrawSource::Stock), &[])
        .await
        .ok("draw");
    let card = drawn["you"]["hand"][0].as_str().expect("a card").to_owned();
    app.act(&table, seat, &crate::helpers::discard(&card), &[])
        .await
        .ok("discard");
    // At most as long as the whole exchange took, in clock seconds, past the turn's 5.
    let most = asked.elapsed().as_secs_f64() * 100.0 - 5.0;
    let view = app.view(&table, 0).await.ok("the view after");
    let left = reserves(&view);
    let used = 1000.0 - left[seat];
    assert!(
        (5.0..=most).contains(&used),
        "the overrun came off: {used} of at most {most}: {view}"
    );
    assert_eq!(
        left[1 - seat],
        1000.0,
        "the other seat's reserve is whole: {view}"
    );
    assert!(
        view["turn"]["deadline"].is_string(),
        "the next turn's deadline: {view}"
    );
}
on_every_backend!(
    an_overrun_comes_off_the_reserve_on_every_backend,
    an_overrun_comes_off_the_reserve
);

/// A turn times out only once its seat's `turn_seconds` and reserve are both spent, exactly
/// once with two replicas; after that the seat has no reserve left and its turns time out
/// after `turn_seconds` alone.
#[actix_web::test]
async fn a_turn_times_out_once_its_reserve_is_spent_too() {
    for backend in backends() {
        let one = TestApp::spawn(&backend).await;
        let two = one.replica(test_async()).await;
        // 5 s a turn and 100 s of reserve: 50 ms and 1 s in tests.
        let asked = std::time::Instant::now();
        let table = create(
            &one,
            "may_i",
            2,
            11,
            json!({"options": {"turn_seconds": 5, "bank_seconds": 100}}),
        )
        .await;
        let first = one.in_turn(&table).await;
        wait_for_timeouts(&two, &table, 1).await;
        assert!(
            asked.elapsed() >= Duration::from_millis(1050),
            "{backend:?}: not before both were spent: {:?}",
            asked.elapsed()
        );
        let events = wait_for_timeouts(&two, &table, 4).await;
        let context = format!("{backend:?}");
        assert_each_timeout_played_once(&events, &context);
        assert_one_bot_turn_per_deadline(&events, &context);
        let (view, _) = view_and_log(&one, &table).await;
        assert_eq!(
            reserves(&view),
            [0.0, 0.0],
            "{context}: both reserves spent (seat {first} first): {view}"
        );
        one.kill_switch.kill().await;
        two.kill_switch.kill().await;
        one.clean_up().await;
    }
}
