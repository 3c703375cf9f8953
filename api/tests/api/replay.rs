//! `GET /v1/games/{id}/replay`: the engine plays a game again from its seed and its record,
//! and each step shows the game as its reader saw it then, with the events' redaction.

use continental::wire::ReplayResponse;
use engine::{Step, Variant, Viewer};
use serde_json::{Value, json};

use crate::helpers::{
    ACME, Backend, Table, TestApp, create, create_with, deck_with, local_config, on_game_rows,
    on_studio_backends,
};
use crate::on_every_backend;

impl TestApp {
    /// A page of the replay of game `id` as the holder of `token` sees it.
    async fn replay_page(&self, id: &str, token: &str, after: i64, limit: u16) -> ReplayResponse {
        self.get_as(
            &format!("/v1/games/{id}/replay?after={after}&limit={limit}"),
            token,
        )
        .await
        .typed("a page of the replay")
    }

    /// The whole replay of game `id` as the holder of `token` sees it, in pages of `limit`.
    async fn replay_of(&self, id: &str, token: &str, limit: u16) -> ReplayResponse {
        let mut all = self.replay_page(id, token, 0, limit).await;
        loop {
            let page = self.replay_page(id, token, all.last_seq, limit).await;
            if page.steps.is_empty() {
                assert_eq!(
                    page.last_seq, all.last_seq,
                    "an empty page stays where it was asked"
                );
                return all;
            }
            all.last_seq = page.last_seq;
            all.steps.extend(page.steps);
        }
    }
}

/// Whether everything `part` says, `whole` says the same (objects may have more members).
fn said_in(part: &Value, whole: &Value) -> bool {
    match (part, whole) {
        (Value::Object(p), Value::Object(w)) => {
            p.iter().all(|(k, v)| w.get(k).is_some_and(|x| said_in(v, x)))
        }
        (Value::Array(p), Value::Array(w)) => {
            p.len() == w.len() && p.iter().zip(w).all(|(a, b)| said_in(a, b))
        }
        _ => part == whole,
    }
}

/// A `may_i` turn with a partial take-back (the case the page used to get wrong): each step
/// of the replay is the view the seat had live after it, the engine's own replay of the
/// record gives the same views, and the other seat sees none of the first seat's cards.
async fn a_replay_is_what_each_seat_saw(app: &TestApp) {
    let wanted = ["3C", "3D", "3S", "4C", "4D", "4S", "3H", "4H"];
    let (seat, deck) = deck_with(Variant::MayI, 2, &wanted);
    let words: Vec<String> = deck.iter().map(ToString::to_string).collect();
    let table = create(app, "may_i", 2, 1, json!({"stacked_decks": [words]})).await;
    let me = usize::from(seat.0);
    let token = &table.tokens[me];
    let game = table.path();
    let mut live = vec![app.view(&table, me).await.ok("the dealt game")];
    let act = async |path: &str, body: Value| {
        app.post_as(&format!("{game}/{path}"), token, &body, &[])
            .await
            .ok(path)
    };
    live.push(act("draw", json!({"source": "stock"})).await);
    let down = act(
        "melds",
        json!({"melds": [{"cards": ["3C", "3D", "3S"]}, {"cards": ["4C", "4D", "4S"]}]}),
    )
    .await;
    let (threes, fours) = (down["table"][0]["id"].clone(), down["table"][1]["id"].clone());
    live.push(down);
    live.push(act("layoffs", json!({"meld_id": threes, "cards": ["3H"]})).await);
    live.push(act("layoffs", json!({"meld_id": fours, "cards": ["4H"]})).await);
    live.push(act("take_back", json!({"play": 1})).await);

    let replay = app.replay_of(&table.id, token, 1000).await;
    let steps: Vec<Value> = replay.steps.iter().map(|s| json!(s.step)).collect();
    assert_eq!(
        steps[0],
        json!({"step": "deal"}),
        "the record begins with the deal"
    );
    assert_eq!(steps.len(), live.len(), "the deal and each action: {steps:?}");
    for (i, (step, seen)) in replay.steps.iter().zip(&live).enumerate() {
        let view = serde_json::to_value(&step.view).expect("a view");
        assert!(
            said_in(&view, seen),
            "step {i} ({}) is the view the seat had then:\n{view}\nlive:\n{seen}",
            steps[i]
        );
    }
    let last = &replay.steps[replay.steps.len() - 1].view;
    assert_eq!(
        last.board.table[0].cards.len(),
        3,
        "after taking back the 3H the threes are as melded"
    );
    assert_eq!(last.board.table[1].cards.len(), 4, "the fours keep the 4H");

    // The engine's own replay of the same record, for each reader.
    let config = local_config(Variant::MayI, 2, Some(vec![deck]));
    let record: Vec<Step> = replay.steps.iter().map(|s| s.step.clone()).collect();
    let other = 1 - me;
    let theirs = app.replay_of(&table.id, &table.tokens[other], 1000).await;
    for (reader, seen) in [(me, &replay), (other, &theirs)] {
        let viewer = Viewer::Seat(engine::Seat(u8::try_from(reader).expect("a seat")));
        let engine_views: Vec<engine::View> =
            engine::replay_record(config.clone(), engine::Seed::from_u64(1), record.clone())
                .map(|played| played.expect("the engine replays the record").0.view(viewer))
                .collect();
        let served: Vec<&engine::View> = seen.steps.iter().map(|s| &s.view).collect();
        assert_eq!(
            served,
            engine_views.iter().collect::<Vec<_>>(),
            "seat {reader}: the served steps are the engine's replay"
        );
    }
    let their_text = serde_json::to_string(&theirs).expect("JSON");
    for card in ["\"3H\"", "\"4H\""] {
        let shown_in_events = theirs
            .steps
            .iter()
            .any(|s| s.events.iter().any(|e| e.event.to_string().contains(card)));
        assert!(
            shown_in_events || !their_text.contains(card),
            "seat {other} sees {card} only once it is on the table"
        );
    }
    assert!(
        theirs.steps[0]
            .view
            .you
            .as_ref()
            .is_some_and(|y| y.seat.index() == other),
        "the other seat sees its own hand"
    );
}
on_every_backend!(
    a_replay_is_what_each_seat_saw_on_every_backend,
    a_replay_is_what_each_seat_saw
);

/// The steps' events, page after page, are the reader's log from the deal on, each once and
/// redacted as `GET /events` redacts them; a game still waiting has no step.
async fn the_steps_hold_the_log_in_pages(app: &TestApp) {
    let waiting = app
        .post(
            "/v1/games",
            &json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"open": true}]}),
        )
        .await;
    assert_eq!(waiting.status.as_u16(), 201, "a game waiting for a player");
    let waiting = Table::of_created(&waiting.json());
    let empty = app.replay_page(&waiting.id, &waiting.tokens[0], 0, 1000).await;
    assert!(empty.steps.is_empty(), "nothing dealt, nothing to replay");
    assert_eq!(empty.last_seq, 0);

    let table = create(app, "may_i", 3, 5, json!({})).await;
    for _ in 0..3 {
        crate::helpers::play_turns(&[&app.api], &table, 1).await;
    }
    for reader in 0..3 {
        let token = &table.tokens[reader];
        let whole = app.replay_of(&table.id, token, 1000).await;
        let paged = app.replay_of(&table.id, token, 2).await;
        assert_eq!(
            serde_json::to_value(&whole).expect("JSON"),
            serde_json::to_value(&paged).expect("JSON"),
            "seat {reader}: pages of two steps make the same replay"
        );
        let log = app.log(&table, reader).await;
        let first = whole.steps[0].seq;
        let from_deal: Vec<Value> = log.iter().filter(|e| e.seq >= first).map(|e| json!(e)).collect();
        let in_steps: Vec<Value> = whole
            .steps
            .iter()
            .flat_map(|s| s.events.iter().map(|e| json!(e)))
            .collect();
        assert_eq!(
            in_steps, from_deal,
            "seat {reader}: the steps' events are its log"
        );
        for s in &whole.steps {
            assert_eq!(
                Some(s.seq),
                s.events.first().map(|e| e.seq),
                "a step starts at its first event"
            );
        }
    }
    app.get_as(&format!("{}/replay?limit=0", table.path()), &table.tokens[0])
        .await
        .assert_problem(400, "invalid_query", "a limit of 0");
}
on_every_backend!(
    the_steps_hold_the_log_in_pages_on_every_backend,
    the_steps_hold_the_log_in_pages
);

/// A game dealt before games kept their record has no replay (`409 no_record`); a record that
/// does not play again into the stored game is `500 corrupt_game`, and the game's other
/// reads are untouched.
async fn a_game_without_its_record_is_not_replayed(app: &TestApp) {
    for (what, sql, status, code) in [
        (
            "an earlier release's rows",
            "UPDATE events SET step = NULL WHERE game_id = $1",
            409,
            "no_record",
        ),
        (
            "a step edited by hand",
            "UPDATE events SET step = '{\"step\":\"call_off\"}' WHERE game_id = $1 AND seq = \
             (SELECT MAX(seq) FROM events WHERE game_id = $1 AND step IS NOT NULL)",
            500,
            "corrupt_game",
        ),
    ] {
        let table = create(app, "may_i", 2, 3, json!({})).await;
        crate::helpers::play_turns(&[&app.api], &table, 2).await;
        on_game_rows(app, &table.id, sql, None).await;
        app.get_as(&format!("{}/replay", table.path()), &table.tokens[0])
            .await
            .assert_problem(status, code, what);
        app.view(&table, 0)
            .await
            .ok(&format!("{what}: the view is still served"));
    }
}
on_every_backend!(
    a_game_without_its_record_is_not_replayed_on_every_backend,
    a_game_without_its_record_is_not_replayed
);

/// A spectator replays a game of bots played to its end, and a game its studio called off:
/// no hand at any step, and the last step is the game as it ended.
#[actix_web::test]
async fn a_spectator_replays_a_finished_and_a_called_off_game() {
    on_studio_backends(async |app: &TestApp, backend: &Backend| {
        let spectate = async |id: &str| {
            let reply = app
                .post_with_key(&format!("/v1/games/{id}/spectators"), ACME, &json!({}), &[])
                .await;
            reply.ok("a spectator token")["token"]
                .as_str()
                .expect("token")
                .to_owned()
        };
        let bots = create_with(
            app,
            ACME,
            &json!({"variant": "may_i", "seats": [{"bot": "easy"}, {"bot": "normal"}], "seed": 4}),
        )
        .await;
        let people = create_with(
            app,
            ACME,
            &json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": 4}),
        )
        .await;
        let reply = app
            .post_with_key(
                &format!("/v1/games/{}/end", people["id"].as_str().expect("id")),
                ACME,
                &json!({"reason": "a test"}),
                &[],
            )
            .await;
        reply.ok("called off");
        for (created, last) in [(&bots, None), (&people, Some(json!({"step": "call_off"})))] {
            let id = created["id"].as_str().expect("id");
            let token = spectate(id).await;
            let replay = app.replay_of(id, &token, 1000).await;
            let view = app
                .get_as(&format!("/v1/games/{id}"), &token)
                .await
                .ok("the view");
            let end = replay.steps.last().expect("steps");
            assert!(
                said_in(&serde_json::to_value(&end.view).expect("JSON"), &view),
                "{backend:?}: the last step is the game as it ended"
            );
            assert!(
                replay.steps.iter().all(|s| s.view.you.is_none()),
                "{backend:?}: a spectator has no hand at any step"
            );
            if let Some(last) = last {
                assert_eq!(
                    json!(end.step),
                    last,
                    "{backend:?}: the studio's call ends the record"
                );
            } else {
                assert!(
                    end.view.board.standings.is_some(),
                    "{backend:?}: the bots played to the end"
                );
            }
        }
    })
    .await;
}
