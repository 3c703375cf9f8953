//! Safe retries and races: ETag / If-Match, Idempotency-Key, concurrent copies, two servers.

use futures_util::future::join_all;
use serde_json::json;

use crate::helpers::{Spawn, TestApp, create, local_game};
use crate::on_every_backend;

async fn etag_and_if_match(app: &TestApp) {
    let table = create(app, "may_i", 3, 4, json!({})).await;
    let path = format!("/v1/games/{}", table.id);
    let seat = app.in_turn(&table).await;
    let view = app.get_as(&path, &table.tokens[seat]).await;
    assert_eq!(
        view.header("etag").as_deref(),
        Some("\"1\""),
        "the ETag is the version"
    );
    let not_modified = app
        .send(
            "GET",
            &path,
            None,
            &[
                ("authorization", &format!("Bearer {}", table.tokens[seat])),
                ("if-none-match", "\"1\""),
            ],
        )
        .await;
    assert_eq!(
        not_modified.status.as_u16(),
        304,
        "If-None-Match with the current ETag"
    );
    let draw = format!("{path}/draw");
    let stale = app
        .post_as(
            &draw,
            &table.tokens[seat],
            &json!({"source": "stock"}),
            &[("if-match", "\"0\"")],
        )
        .await;
    stale.assert_problem(412, "stale_version", "If-Match with an old version");
    assert_eq!(app.version(&table).await, 1, "a stale request changes nothing");
    let fresh = app
        .post_as(
            &draw,
            &table.tokens[seat],
            &json!({"source": "stock"}),
            &[("if-match", "\"1\"")],
        )
        .await;
    assert_eq!(fresh.status.as_u16(), 200, "{}", fresh.text());
    assert_eq!(
        fresh.header("etag").as_deref(),
        Some("\"2\""),
        "the answer carries the new ETag"
    );
    assert_eq!(fresh.json()["version"], 2, "and the new version");
}
on_every_backend!(etag_and_if_match_on_every_backend, etag_and_if_match);

async fn idempotency_keys(app: &TestApp) {
    let table = create(app, "may_i", 3, 5, json!({})).await;
    let seat = app.in_turn(&table).await;
    let draw = format!("/v1/games/{}/draw", table.id);
    let key = [("idempotency-key", "draw-1")];
    let first = app
        .post_as(&draw, &table.tokens[seat], &json!({"source": "stock"}), &key)
        .await;
    assert_eq!(first.status.as_u16(), 200, "{}", first.text());
    let again = app
        .post_as(&draw, &table.tokens[seat], &json!({"source": "stock"}), &key)
        .await;
    assert_eq!(again.status, first.status, "a retry gets the first status");
    assert_eq!(
        again.body, first.body,
        "a retry gets the first response byte for byte"
    );
    assert_eq!(again.header("etag"), first.header("etag"), "and its ETag");
    assert_eq!(app.version(&table).await, 2, "the retry did not act twice");
    let other = app
        .post_as(&draw, &table.tokens[seat], &json!({"source": "discard"}), &key)
        .await;
    other.assert_problem(422, "idempotency_key_reused", "the same key with another body");
    // A refused move keeps no key: its retry is judged afresh, and refused for the same reason.
    let discard = format!("/v1/games/{}/discard", table.id);
    let hand = app.view(&table, seat).await.json()["you"]["hand"].clone();
    let missing = engine::Card::suited()
        .map(|c| c.to_string())
        .find(|c| !hand.as_array().expect("hand").contains(&json!(c)))
        .expect("13 cards never hold all 52");
    let bad_key = [("idempotency-key", "discard-bad")];
    let refused = app
        .post_as(&discard, &table.tokens[seat], &json!({"card": missing}), &bad_key)
        .await;
    refused.assert_problem(422, "card_not_in_hand", "discarding a card not held");
    let retry = app
        .post_as(&discard, &table.tokens[seat], &json!({"card": missing}), &bad_key)
        .await;
    assert_eq!(
        (retry.status, retry.body),
        (refused.status, refused.body),
        "a refused request's retry, judged afresh, is refused the same way"
    );
}
on_every_backend!(idempotency_keys_on_every_backend, idempotency_keys);

async fn twenty_concurrent_copies(app: &TestApp) {
    let table = create(app, "may_i", 3, 6, json!({})).await;
    let seat = app.in_turn(&table).await;
    let draw = format!("/v1/games/{}/draw", table.id);
    let body = json!({"source": "stock"});
    let replies = join_all((0..20).map(|_| app.post_as(&draw, &table.tokens[seat], &body, &[]))).await;
    let ok = replies.iter().filter(|r| r.status.as_u16() == 200).count();
    assert_eq!(
        ok,
        1,
        "exactly one of twenty copies applies: {:?}",
        replies.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    for r in replies.iter().filter(|r| r.status.as_u16() != 200) {
        r.assert_problem(409, "wrong_phase", "the others find the card already drawn");
    }
    assert_eq!(app.version(&table).await, 2, "one update, none lost or doubled");

    // The same with one Idempotency-Key: one applies, the rest get its response or a 409.
    let table = create(app, "may_i", 3, 7, json!({})).await;
    let seat = app.in_turn(&table).await;
    let draw = format!("/v1/games/{}/draw", table.id);
    let key = [("idempotency-key", "the-one-draw")];
    let replies = join_all((0..20).map(|_| app.post_as(&draw, &table.tokens[seat], &body, &key))).await;
    let firsts: Vec<_> = replies.iter().filter(|r| r.status.as_u16() == 200).collect();
    assert!(!firsts.is_empty(), "one applies");
    for r in &firsts {
        assert_eq!(
            r.body, firsts[0].body,
            "every 200 is the first response, byte for byte"
        );
    }
    for r in replies.iter().filter(|r| r.status.as_u16() != 200) {
        r.assert_problem(
            409,
            "request_in_progress",
            "a copy that arrives while the first runs",
        );
    }
    assert_eq!(app.version(&table).await, 2, "the key made it act once");
}
on_every_backend!(
    twenty_concurrent_copies_on_every_backend,
    twenty_concurrent_copies
);

async fn two_servers_on_one_database(app: &TestApp) {
    let second = TestApp::spawn_with(
        &app.backend,
        Spawn {
            test_mode: true,
            database: Some(app.database.clone()),
            ..Spawn::default()
        },
    )
    .await;
    let table = create(app, "may_i", 2, 8, json!({})).await;
    let servers = [app, &second];
    let mut game = local_game(engine::Variant::MayI, 2, 8, None);
    for step in 0..40 {
        let server = servers[step % 2];
        let (seat, _) = game.turn().expect("in turn");
        let action = game.bot_choice(seat, engine::bot::Level::Normal).expect("a move");
        let view = server
            .act(
                &table,
                usize::from(seat.0),
                &action,
                &[("if-match", &format!("\"{}\"", step + 1))],
            )
            .await
            .ok(&format!("step {step} on server {}", step % 2));
        game = game.apply(seat, action).expect("engine agrees").0;
        assert_eq!(
            view["version"],
            step as i64 + 2,
            "each server sees the other's writes"
        );
    }
}
on_every_backend!(
    two_servers_on_one_database_on_every_backend,
    two_servers_on_one_database
);

#[actix_web::test]
async fn a_stored_secret_is_shared_by_every_replica() {
    for backend in crate::helpers::backends() {
        let spawn = Spawn {
            stored_secret: true,
            ..Spawn::default()
        };
        let first = TestApp::spawn_with(&backend, spawn.clone()).await;
        let second = TestApp::spawn_with(
            &backend,
            Spawn {
                database: Some(first.database.clone()),
                ..spawn
            },
        )
        .await;
        let created = first
            .post(
                "/v1/games",
                &json!({"variant": "may_i", "seats": [{"name": "A"}, {"name": "B"}]}),
            )
            .await
            .json();
        let token = created["seats"][0]["token"].as_str().expect("token");
        let id = created["id"].as_str().expect("id");
        let reply = second.get_as(&format!("/v1/games/{id}"), token).await;
        assert_eq!(
            reply.status.as_u16(),
            200,
            "{backend:?}: the second replica accepts the first one's token"
        );
        first.clean_up().await;
    }
}

/// docs/api.md#idempotency: only a request that acted keeps its key. A refused one (here a stale
/// `If-Match`) changed nothing, so a retry with the same key is judged afresh, acts once, and from
/// then on replays.
async fn a_refused_request_keeps_no_key(app: &TestApp) {
    let table = create(app, "may_i", 3, 10, json!({})).await;
    let seat = app.in_turn(&table).await;
    let path = format!("/v1/games/{}/draw", table.id);
    let body = json!({"source": "stock"});
    let key = ("idempotency-key", "refused-first");
    let stale = app
        .post_as(&path, &table.tokens[seat], &body, &[key, ("if-match", "\"0\"")])
        .await;
    stale.assert_problem(412, "stale_version", "a stale If-Match");
    let retry = app.post_as(&path, &table.tokens[seat], &body, &[key]).await;
    assert_eq!(
        retry.status.as_u16(),
        200,
        "the refusal kept no key: the retry acts: {}",
        retry.text()
    );
    let again = app.post_as(&path, &table.tokens[seat], &body, &[key]).await;
    assert_eq!(again.body, retry.body, "the key that acted replays");
    assert_eq!(app.version(&table).await, 2, "one draw in all");
}
on_every_backend!(
    a_refused_request_keeps_no_key_on_every_backend,
    a_refused_request_keeps_no_key
);

/// docs/api.md#idempotency: a retried `POST /v1/games` with the same `Idempotency-Key` and body
/// returns the first response and creates no second game; another body with that key is a 422.
async fn idempotent_create(app: &TestApp) {
    let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}, {"open": true}]});
    let key = [("idempotency-key", "create-1")];
    let bytes = serde_json::to_vec(&body).expect("JSON");
    let first = app.send("POST", "/v1/games", Some(&bytes), &key).await;
    assert_eq!(first.status.as_u16(), 201, "{}", first.text());
    let again = app.send("POST", "/v1/games", Some(&bytes), &key).await;
    assert_eq!(again.status, first.status, "a retry gets the first status");
    assert_eq!(again.body, first.body, "the same game and tokens, byte for byte");
    assert_eq!(again.header("etag"), first.header("etag"), "and its ETag");
    assert_eq!(
        again.header("location"),
        first.header("location"),
        "and its Location"
    );
    // Racing copies of one keyed create: one game, the others get its response or a 409.
    let key2 = [("idempotency-key", "create-2")];
    let replies = join_all((0..8).map(|_| app.send("POST", "/v1/games", Some(&bytes), &key2))).await;
    let mut ids: Vec<String> = replies
        .iter()
        .filter(|r| r.status.as_u16() == 201)
        .map(|r| r.json()["id"].as_str().expect("id").to_owned())
        .collect();
    assert!(
        replies.iter().all(|r| matches!(r.status.as_u16(), 201 | 409)),
        "each copy gets the first response (or, at worst, request_in_progress)"
    );
    ids.dedup();
    assert_eq!(ids.len(), 1, "one key, one game: {ids:?}");
    let other = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}]});
    app.send(
        "POST",
        "/v1/games",
        Some(&serde_json::to_vec(&other).expect("JSON")),
        &key,
    )
    .await
    .assert_problem(422, "idempotency_key_reused", "the same key with another body");
    let fresh = app
        .send(
            "POST",
            "/v1/games",
            Some(&bytes),
            &[("idempotency-key", "create-3")],
        )
        .await;
    assert_ne!(
        fresh.json()["id"],
        first.json()["id"],
        "another key creates another game"
    );
}
on_every_backend!(idempotent_create_on_every_backend, idempotent_create);

/// docs/api.md#idempotency: a retried join with the same key and body returns the same seat and
/// token and takes no second seat; another body with that key is a 422. Keys are per game.
async fn idempotent_join(app: &TestApp) {
    let created = app
        .post(
            "/v1/games",
            &json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"open": true}, {"open": true}]}),
        )
        .await
        .json();
    let id = created["id"].as_str().expect("id");
    let path = format!("/v1/games/{id}/join");
    let key = [("idempotency-key", "join-1")];
    let cleo = serde_json::to_vec(&json!({"name": "Cleo"})).expect("JSON");
    let first = app.send("POST", &path, Some(&cleo), &key).await;
    assert_eq!(first.status.as_u16(), 200, "{}", first.text());
    assert_eq!(first.json()["seat"], 1, "the first open seat");
    let again = app.send("POST", &path, Some(&cleo), &key).await;
    assert_eq!(again.status, first.status, "a retry gets the first status");
    assert_eq!(again.body, first.body, "the same seat and token, byte for byte");
    assert_eq!(again.header("etag"), first.header("etag"), "and its ETag");
    let dan = serde_json::to_vec(&json!({"name": "Dan"})).expect("JSON");
    app.send("POST", &path, Some(&dan), &key).await.assert_problem(
        422,
        "idempotency_key_reused",
        "the same key with another body",
    );
    let next = app.send("POST", &path, Some(&dan), &[]).await;
    assert_eq!(
        next.json()["seat"],
        2,
        "the retry took no second seat: seat 2 is still open: {}",
        next.text()
    );
    assert_eq!(next.json()["status"], "playing", "the last seat deals");
}
on_every_backend!(idempotent_join_on_every_backend, idempotent_join);

/// An action on a game that another replica changed between its read and its write (on
/// PostgreSQL the read takes no lock) is decided once more, on the game as it is now: nothing
/// written in between is overwritten, and no event number is taken twice.
#[tokio::test]
async fn a_change_between_read_and_write_is_decided_again() {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use continental::config::{DatabaseSettings, Limits};
    use continental::store::{
        Database, GameRow, GameUpdate, Live, Lock, NewEvent, NewGame, On, Outcome, Store, StoreError,
    };
    use sqlx::Connection;

    use crate::helpers::{Backend, drop_database, fresh_database, postgres_url};

    /// One event by `by`, on top of whatever the game is when decided.
    fn step(row: &GameRow, by: &str) -> Result<Outcome<i64>, StoreError> {
        Ok(Outcome {
            update: Some(GameUpdate {
                version: row.version + 1,
                status: row.status,
                state: format!(r#"{{"last":"{by}"}}"#),
                seats: Vec::new(),
                events: vec![NewEvent {
                    seat: None,
                    body: format!(r#"{{"by":"{by}"}}"#),
                    public: None,
                    step: None,
                }],
                next_due: None,
                response: None,
                bot_tables: None,
                rated: false,
                sealed: false,
            }),
            value: row.version,
        })
    }

    if postgres_url().is_none() {
        return;
    }
    let database = fresh_database(&Backend::Postgres).await;
    let store = Database::connect(&database, None, &Limits::default(), &Live::new(8))
        .await
        .expect("the store");
    let id = uuid::Uuid::new_v4();
    let game = GameRow {
        id,
        variant: "may_i".into(),
        status: continental::domain::GameStatus::Playing,
        state: "{}".into(),
        version: 1,
        last_seq: 0,
        seed: "00".into(),
        seed_commitment: "00".into(),
        webhook_url: None,
        next_due: None,
    };
    let new = NewGame {
        game,
        tenant: String::new(),
        seats: Vec::new(),
        events: Vec::new(),
        webhook: None,
        bot_tables: None,
        rated: false,
    };
    store.create_game(&new, None).await.expect("a game");

    let DatabaseSettings::Postgres { url } = &database else {
        unreachable!("a PostgreSQL database")
    };
    // Another replica's move, made while this one decides: its own connection, on a thread
    // of its own, so that it is in before this one writes.
    let other_replica_moves = || {
        let url = url.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let mut conn = sqlx::PgConnection::connect(&url).await.expect("a connection");
                sqlx::query(
                    r#"WITH g AS (UPDATE games SET version = version + 1, last_seq = last_seq + 1,
                       state = '{"last":"other"}' WHERE id = $1 RETURNING last_seq)
                       INSERT INTO events (game_id, seq, body, created_at) SELECT $1, last_seq, '{"by":"other"}', 0 FROM g"#,
                )
                .bind(id)
                .execute(&mut conn)
                .await
                .expect("the other replica's move");
            });
        })
        .join()
        .expect("the other replica");
    };
    let decided = AtomicUsize::new(0);
    let read_version = store
        .transact(On::game(id), Lock::Optimistic, |row| {
            if decided.fetch_add(1, Ordering::SeqCst) == 0 {
                other_replica_moves();
            }
            step(row, "this")
        })
        .await
        .expect("the action")
        .expect("the game");

    assert_eq!(decided.load(Ordering::SeqCst), 2, "decided again");
    assert_eq!(read_version, 2, "the second time on the other replica's version");
    let now = store.game(id).await.expect("read").expect("the game");
    assert_eq!((now.version, now.last_seq), (3, 2));
    assert_eq!(now.state, r#"{"last":"this"}"#);
    let events: Vec<(i64, String)> = store
        .events_after(id, 0, 10)
        .await
        .expect("events")
        .into_iter()
        .map(|e| (e.seq, e.body))
        .collect();
    assert_eq!(
        events,
        [
            (1, r#"{"by":"other"}"#.to_owned()),
            (2, r#"{"by":"this"}"#.to_owned())
        ]
    );
    drop(store);
    drop_database(&database).await;
}
