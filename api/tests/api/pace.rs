//! The claim window and the bots' pace at a person's table
//! (docs/api.md#the-claim-window-and-the-bots-pace): a bot in turn leaves the discard on offer
//! for the window where a person may claim it, each bot move is its own commit a pace after
//! the one before, and a table of bots only plays at full speed. And a deal's end, readable in
//! the view while the next deal is played.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use continental::config::AsyncSettings;

use crate::helpers::{Spawn, TestApp, backends, test_async};
use crate::on_every_backend;

/// `claim_window_seconds` asked for, in seconds of the test's clock.
const WINDOW_SECONDS: u64 = 30;

/// The clock's second where a person claims in the window: 30 ms, so that the window (900 ms)
/// is long next to a commit and to the test's reading of the discard and sending its claim, on
/// a loaded machine too, and short for a test.
const CLAIM_SECOND_MS: u64 = 30;

/// The window in the test's milliseconds, at that second.
const WINDOW: Duration = Duration::from_millis(WINDOW_SECONDS * CLAIM_SECOND_MS);

/// How much shorter than on the server a gap between two events may seem where the test reads
/// the stream: each delivery, and the test's own reading on a busy machine, take their own
/// milliseconds (tens of them under load). The server's own clock is checked exactly
/// (`claim_until`); this measure checks the person's side.
const DELIVERY: Duration = Duration::from_millis(100);

/// One event of the stream and when it arrived.
struct Seen {
    at: Instant,
    event: Value,
}

/// An RFC 3339 time as unix milliseconds.
fn unix_ms(text: &str) -> i128 {
    let at = time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|e| panic!("{text} is RFC 3339: {e}"));
    at.unix_timestamp_nanos() / 1_000_000
}

/// Now, in unix milliseconds.
fn now_ms() -> i128 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970");
    i128::try_from(since.as_millis()).expect("a time")
}

/// Ann and two `normal` bots at `may_i`, Ann dealing (bot 1 leads), with the window.
async fn person_and_two_bots(app: &TestApp, seed: u64) -> (String, String) {
    let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"bot": "normal"}, {"bot": "normal"}],
        "seed": seed, "first_dealer": 0, "options": {"claim_window_seconds": WINDOW_SECONDS}});
    let created = app.post("/v1/games", &body).await;
    assert_eq!(created.status.as_u16(), 201, "create: {}", created.text());
    let created = created.json();
    let id = created["id"].as_str().expect("id").to_owned();
    let ann = created["seats"][0]["token"].as_str().expect("token").to_owned();
    (id, ann)
}

/// Ann's view of game `id`.
async fn view(app: &TestApp, id: &str, ann: &str) -> Value {
    app.get_as(&format!("/v1/games/{id}"), ann).await.ok("view")
}

/// Ann plays her turn from `view`: draws from the stock, discards her first card. Answers the
/// discard's response.
async fn play_turn(app: &TestApp, id: &str, ann: &str) -> Value {
    let drew = app
        .post_as(
            &format!("/v1/games/{id}/draw"),
            ann,
            &json!({"source": "stock"}),
            &[],
        )
        .await
        .ok("Ann draws");
    let card = drew["legal_actions"]
        .as_array()
        .and_then(|legal| legal.iter().find(|a| a["type"] == "discard"))
        .and_then(|a| a["cards"][0].as_str())
        .expect("a card to discard")
        .to_owned();
    app.post_as(
        &format!("/v1/games/{id}/discard"),
        ann,
        &json!({"card": card}),
        &[],
    )
    .await
    .ok("Ann discards")
}

async fn a_person_may_claim_in_the_window_and_the_bots_wait_for_it(app: &TestApp) {
    let (id, ann) = person_and_two_bots(app, 11).await;
    let mut stream = Timed::of(app.stream(&id, &ann, "", &[]).await);
    let mut seen: Vec<Seen> = Vec::new();
    // The discard of bot 1 that Ann asked for, her hand's size when she asked, the stream
    // index of the discard.
    let mut asked: Option<(String, usize)> = None;
    let mut won = None;
    let mut gaps = Vec::new();
    // The `claim_until` of the offer on bot 2's draw, from the view (the server's clock and
    // the test's are the machine's).
    let mut until: Option<String> = None;
    let mut windows_shown = 0;
    let started = Instant::now();
    while won.is_none() || gaps.len() < 3 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "Ann won no claim, or too few offers were seen: {gaps:?}"
        );
        let next = stream.next().await;
        let event = next.event.clone();
        seen.push(next);
        match (event["type"].as_str(), event["seat"].as_u64()) {
            (Some("game_finished"), _) => panic!("the game ended first: {gaps:?}"),
            (Some("turn"), Some(0)) => {
                let discarded = play_turn(app, &id, &ann).await;
                assert_eq!(
                    discarded["turn"]["seat"], 1,
                    "Ann's request does not wait for the bots: bot 1 is in turn as she discards: {discarded}"
                );
            }
            // Bot 1's discard is on offer to Ann while bot 2 is in turn.
            (Some("discarded"), Some(1)) => {
                let offer = view(app, &id, &ann).await;
                if offer["turn"]["seat"] == 2 && offer["turn"]["phase"] == "draw" {
                    let shown = offer["turn"]["claim_until"].as_str();
                    assert!(
                        shown.is_some_and(|t| t.len() == "2026-11-24T09:30:03.250Z".len()),
                        "the view says until when the discard is on offer, to the millisecond: {offer}"
                    );
                    until = shown.map(str::to_owned);
                    windows_shown += 1;
                }
                if won.is_none()
                    && asked.is_none()
                    && offer["legal_actions"].to_string().contains("\"claim\"")
                {
                    let hand = offer["you"]["hand"].as_array().map_or(0, Vec::len);
                    let claimed = app
                        .post_as(&format!("/v1/games/{id}/claims"), &ann, &json!({}), &[])
                        .await
                        .ok("Ann says \"May I?\" in the window");
                    assert_eq!(
                        claimed["claims"]["pending"],
                        json!([0]),
                        "asked before bot 2 drew, Ann's claim waits for its draw (§2): {claimed}"
                    );
                    asked = Some((event["card"].as_str().expect("a card").to_owned(), hand));
                }
            }
            (Some("drew"), Some(2)) => {
                let discard = seen
                    .iter()
                    .rev()
                    .find(|s| s.event["type"] == "discarded")
                    .expect("a discard before");
                // Only a window shown to Ann, and one she did not claim in (it has served its
                // purpose: the bot may draw at once); none opens once she may not claim.
                if discard.event["seat"] == 1 && until.is_some() && asked.is_none() {
                    gaps.push(seen.last().expect("this draw").at - discard.at);
                }
                if let Some(until) = until.take() {
                    let early = unix_ms(&until) - now_ms();
                    assert!(
                        early <= 0,
                        "bot 2 drew {early} ms before the window's end, {until}"
                    );
                }
                if let Some((card, hand)) = asked.take() {
                    if event["source"] == "stock" {
                        let after = view(app, &id, &ann).await;
                        let holds = after["you"]["hand"].as_array().expect("a hand");
                        assert_eq!(
                            holds.len(),
                            hand + 2,
                            "Ann's claim won when bot 2 drew from the stock: the discard and the penalty card (§2): {after}"
                        );
                        assert!(holds.contains(&json!(card)), "Ann holds {card}: {after}");
                        won = Some(card);
                    } else {
                        let refused = |e: &Value| e["type"] == "claim_refused" && e["seat"] == 0;
                        let said = seen.iter().rev().take(3).any(|s| refused(&s.event));
                        let next = after_claim(&mut stream, &mut seen).await;
                        assert!(
                            said || refused(&next),
                            "bot 2 took the discard: Ann's waiting claim is refused (§2): {next}"
                        );
                    }
                }
            }
            _ => {}
        }
    }
    for gap in &gaps {
        assert!(
            *gap + DELIVERY >= WINDOW,
            "between bot 1's discard and bot 2's draw, at least the window of {WINDOW:?} (give or take \
             the stream's delivery): {gaps:?}"
        );
    }
    assert!(windows_shown > 0, "the view showed a window");
    let claims: Vec<&Value> = seen
        .iter()
        .map(|s| &s.event)
        .filter(|e| e["type"] == "claim_won")
        .collect();
    assert!(
        claims.iter().any(|e| e["seat"] == 0 && e["penalty"].is_string()),
        "Ann's claim won, with her penalty card shown to her: {claims:?}"
    );
}
#[actix_web::test]
async fn a_person_may_claim_in_the_window_and_the_bots_wait_for_it_on_every_backend() {
    for backend in backends() {
        let app = TestApp::spawn_with(
            &backend,
            Spawn {
                test_mode: true,
                asynchronous: Some(AsyncSettings {
                    test_second_ms: Some(CLAIM_SECOND_MS),
                    ..test_async()
                }),
                ..Spawn::default()
            },
        )
        .await;
        a_person_may_claim_in_the_window_and_the_bots_wait_for_it(&app).await;
        app.clean_up().await;
    }
}

/// The next event of the stream, kept in `seen`.
async fn after_claim(stream: &mut Timed, seen: &mut Vec<Seen>) -> Value {
    let next = stream.next().await;
    let event = next.event.clone();
    seen.push(next);
    event
}

/// A live stream read by a task of its own, each event stamped as it arrives: the test's own
/// requests meanwhile do not delay the stamps.
struct Timed {
    events: tokio::sync::mpsc::UnboundedReceiver<Seen>,
    reader: actix_web::rt::task::JoinHandle<()>,
}

impl Timed {
    fn of<S>(mut stream: crate::helpers::SseReader<S>) -> Timed
    where
        S: futures_util::Stream<Item = Result<actix_web::web::Bytes, awc::error::PayloadError>>
            + Unpin
            + 'static,
    {
        let (sender, events) = tokio::sync::mpsc::unbounded_channel();
        let reader = actix_web::rt::spawn(async move {
            while let Some(sse) = stream.next().await {
                let at = Instant::now();
                let event: Value = serde_json::from_str(&sse.data).expect("an event");
                let event = event.get("event").cloned().unwrap_or(event);
                if sender.send(Seen { at, event }).is_err() {
                    return;
                }
            }
        });
        Timed { events, reader }
    }

    async fn next(&mut self) -> Seen {
        tokio::time::timeout(Duration::from_secs(30), self.events.recv())
            .await
            .expect("the stream sends within 30 s")
            .expect("the stream goes on")
    }
}

impl Drop for Timed {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

async fn a_table_of_bots_plays_at_full_speed(app: &TestApp) {
    // The longest window: no person sits here, so nothing waits for it.
    let body = json!({"variant": "may_i", "seats": [{"bot": "normal"}, {"bot": "easy"}, {"bot": "normal"}],
        "seed": 3, "options": {"claim_window_seconds": 30}});
    let created = app.post("/v1/games", &body).await.json();
    assert_eq!(
        created["status"], "finished",
        "a table of bots plays its whole game in the request that deals it: {created}"
    );
}
on_every_backend!(
    a_table_of_bots_plays_at_full_speed_on_every_backend,
    a_table_of_bots_plays_at_full_speed
);

async fn once_the_person_leaves_the_bots_play_at_full_speed(app: &TestApp) {
    let (id, ann) = person_and_two_bots(app, 5).await;
    let left = app
        .post_as(&format!("/v1/games/{id}/leave"), &ann, &json!({}), &[])
        .await
        .ok("Ann leaves");
    assert_eq!(
        left["status"], "finished",
        "with no person left, the bots play the game out in the request: {left}"
    );
}
on_every_backend!(
    once_the_person_leaves_the_bots_play_at_full_speed_on_every_backend,
    once_the_person_leaves_the_bots_play_at_full_speed
);

/// A deal's end stays readable in the view: `last_deal` is null until a deal ends, then says
/// what its `deal_ended` event said (every hand's cards left, revealed to every seat, what each
/// cost, the totals) while the next deal is played.
async fn a_deals_end_stays_in_the_view(app: &TestApp) {
    let fresh = crate::helpers::create(app, "may_i", 2, 1, json!({})).await;
    let view = app.view(&fresh, 0).await.ok("a view");
    assert!(
        view.get("last_deal").is_some_and(Value::is_null),
        "no deal has ended: {view}"
    );
    let table = crate::helpers::may_i_between_deals_with(app, json!({})).await;
    let ended = app.events_of(&table, 0, "deal_ended").await;
    let [ended] = ended.as_slice() else {
        panic!("one deal ended: {ended:?}")
    };
    for seat in 0..2 {
        let view = app.view(&table, seat).await.ok("a view");
        assert_eq!(view["deal"], 2, "{view}");
        let last = &view["last_deal"];
        for field in ["deal", "end", "hands", "scores", "totals"] {
            assert_eq!(
                last[field], ended[field],
                "seat {seat}: {field} as the event said: {view}"
            );
        }
        assert_eq!(last["end"], json!({"type": "went_out", "seat": 1}), "{view}");
        assert!(
            last["hands"][0].as_array().is_some_and(|h| !h.is_empty()),
            "seat 0's cards left are shown to seat {seat}: {view}"
        );
    }
}
on_every_backend!(
    a_deals_end_stays_in_the_view_on_every_backend,
    a_deals_end_stays_in_the_view
);

/// A server whose clock's seconds are real ones: a window of 30 s is one that a test sees
/// whether it was waited out, with no timing of its own.
async fn spawn_real_seconds(backend: &crate::helpers::Backend) -> TestApp {
    TestApp::spawn_with(
        backend,
        crate::helpers::Spawn {
            test_mode: true,
            asynchronous: Some(AsyncSettings {
                test_second_ms: Some(1000),
                ..crate::helpers::test_async()
            }),
            ..crate::helpers::Spawn::default()
        },
    )
    .await
}

/// Creates a `may_i` game of `seats` with a 30 s window and no pace, seat 0 dealing; answers
/// its id and the people's tokens by seat.
async fn long_window(app: &TestApp, seats: Value) -> (String, Vec<Option<String>>) {
    let body = json!({"variant": "may_i", "seats": seats, "seed": 4, "first_dealer": 0,
        "options": {"claim_window_seconds": 30, "bot_pace_ms": 0}});
    let created = app.post("/v1/games", &body).await;
    assert_eq!(created.status.as_u16(), 201, "create: {}", created.text());
    let created = created.json();
    let tokens = created["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| s["token"].as_str().map(str::to_owned))
        .collect();
    (created["id"].as_str().expect("id").to_owned(), tokens)
}

/// Waits until bot 1, in turn with the upcard on offer, has drawn: well before the 30 s
/// window ends, or the test fails.
async fn bot_one_draws(app: &TestApp, id: &str, token: &str) -> Value {
    crate::helpers::eventually(Duration::from_secs(10), "bot 1 draws", async || {
        let view = view(app, id, token).await;
        match view["turn"]["seat"] != 1 || view["turn"]["phase"] != "draw" {
            true => Ok(view),
            false => Err(view),
        }
    })
    .await
}

/// "No, go on": a person's pass ends the claim window at once, the bot in turn plays on, and
/// the pass is no claim (docs/api.md#the-claim-window-and-the-bots-pace).
#[actix_web::test]
async fn a_pass_by_the_one_person_who_could_claim_lets_the_bot_play_at_once() {
    for backend in crate::helpers::backends() {
        let app = spawn_real_seconds(&backend).await;
        let (id, tokens) = long_window(
            &app,
            json!([{"name": "Ann"}, {"bot": "normal"}, {"bot": "normal"}]),
        )
        .await;
        let ann = tokens[0].clone().expect("Ann's token");
        let offered = view(&app, &id, &ann).await;
        assert_eq!(offered["turn"]["seat"], 1, "bot 1 leads: {offered}");
        assert!(
            offered["turn"]["claim_until"].is_string(),
            "the window is open: {offered}"
        );
        let legal = offered["legal_actions"].to_string();
        assert!(
            legal.contains("\"claim\"") && legal.contains("\"pass\""),
            "Ann may claim the upcard, or pass: {legal}"
        );
        let passed = app
            .post_as(&format!("/v1/games/{id}/pass"), &ann, &json!({}), &[])
            .await
            .ok("Ann passes");
        assert_eq!(passed["claims"]["passed"], json!([0]), "{passed}");
        assert!(
            passed["turn"]["claim_until"].is_null(),
            "the window ended with the pass: {passed}"
        );
        let legal = passed["legal_actions"].to_string();
        assert!(
            !legal.contains("\"claim\"") && !legal.contains("\"pass\""),
            "{legal}"
        );
        bot_one_draws(&app, &id, &ann).await;
        let events = app
            .get_as(&format!("/v1/games/{id}/events"), &ann)
            .await
            .ok("the log");
        assert!(
            events.to_string().contains("\"passed\""),
            "the log says Ann passed: {events}"
        );
        app.clean_up().await;
    }
}

/// With two people who could claim, one pass leaves the window open for the other; the
/// second pass ends it.
#[actix_web::test]
async fn the_window_ends_when_every_person_who_could_claim_has_passed() {
    for backend in crate::helpers::backends() {
        let app = spawn_real_seconds(&backend).await;
        let (id, tokens) =
            long_window(&app, json!([{"name": "Ann"}, {"bot": "normal"}, {"name": "Bob"}])).await;
        let (ann, bob) = (
            tokens[0].clone().expect("Ann's token"),
            tokens[2].clone().expect("Bob's token"),
        );
        let passed = app
            .post_as(&format!("/v1/games/{id}/pass"), &ann, &json!({}), &[])
            .await
            .ok("Ann passes");
        assert!(
            passed["turn"]["claim_until"].is_string(),
            "Bob may still claim: the window stays: {passed}"
        );
        assert_eq!(passed["turn"]["seat"], 1, "{passed}");
        assert_eq!(passed["turn"]["phase"], "draw", "bot 1 waits: {passed}");
        let claimed = app
            .post_as(&format!("/v1/games/{id}/claims"), &ann, &json!({}), &[])
            .await;
        assert_eq!(
            claimed.status.as_u16(),
            422,
            "Ann passed on this discard: {}",
            claimed.text()
        );
        assert_eq!(claimed.json()["code"], "claim_not_allowed");
        let passed = app
            .post_as(&format!("/v1/games/{id}/pass"), &bob, &json!({}), &[])
            .await
            .ok("Bob passes");
        assert!(passed["turn"]["claim_until"].is_null(), "{passed}");
        assert_eq!(passed["claims"]["passed"], json!([0, 2]), "{passed}");
        bot_one_draws(&app, &id, &ann).await;
        app.clean_up().await;
    }
}
