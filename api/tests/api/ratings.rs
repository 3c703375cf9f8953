//! Players and ratings (issue 44, docs/ratings.md): the store's rows and what is read from them.

use std::time::Duration;

use continental::config::{DatabaseSettings, Limits};
use continental::domain::{Participant, PlayerId, RatedGame, RatedSeat, Rating, RatingModel, bot_seed};
use continental::store::{Database, Live, Store};
use engine::bot::Level;
use engine::{Ruleset, Standing, Variant};
use serde_json::{Value, json};
use sqlx::Connection;

use crate::helpers::{
    ACME, BETA, Table, TestApp, backends, create_with, deck_with, drop_database, eventually, fresh_database,
    on_game_rows, on_studio_backends,
};

/// Runs `sql` on `database` (a statement that writes).
async fn execute(database: &DatabaseSettings, sql: &str) {
    match database {
        DatabaseSettings::Sqlite { path } => {
            let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite:{path}"))
                .await
                .expect("the test database");
            sqlx::query(sqlx::AssertSqlSafe(sql.to_owned()))
                .execute(&mut conn)
                .await
                .expect(sql);
        }
        DatabaseSettings::Postgres { url } => {
            let mut conn = sqlx::PgConnection::connect(url).await.expect("the test database");
            sqlx::query(sqlx::AssertSqlSafe(sql.to_owned()))
                .execute(&mut conn)
                .await
                .expect(sql);
        }
    }
}

#[tokio::test]
async fn the_store_answers_each_participants_stored_rating_in_the_order_asked() {
    for backend in backends() {
        let database = fresh_database(&backend).await;
        let store = Database::connect(&database, None, &Limits::default(), &Live::new(8))
            .await
            .expect("the store");
        execute(
            &database,
            "INSERT INTO ratings (tenant, variant, participant, mean, deviation, games, won, updated_at) VALUES \
             ('acme', 'may_i', 'player:ann', 31.5, 4.25, 3, 2, 0), \
             ('acme', 'may_i', 'bot:hard', 29.0, 1.5, 9, 4, 0), \
             ('beta', 'may_i', 'player:bob', 40.0, 2.0, 1, 1, 0), \
             ('acme', 'push', 'player:bob', 20.0, 3.0, 1, 0, 0)",
        )
        .await;
        let player = |s: &str| Participant::Player(PlayerId::try_from(s).expect("id"));
        let asked = [
            player("ann"),
            player("bob"),
            Participant::Bot(Level::Hard),
            Participant::Bot(Level::Easy),
        ];

        let got = store
            .ratings("acme", Variant::MayI, &asked)
            .await
            .expect("ratings");

        let want = [
            Some(Rating {
                mean: 31.5,
                deviation: 4.25,
            }),
            // Bob is rated at another tenant and in another variant only.
            None,
            Some(Rating {
                mean: 29.0,
                deviation: 1.5,
            }),
            None,
        ];
        assert_eq!(
            got, want,
            "{backend:?}: in the order asked, none for a participant without a row"
        );
        assert!(
            store
                .ratings("acme", Variant::MayI, &[])
                .await
                .expect("none")
                .is_empty(),
            "{backend:?}: nothing asked, nothing answered"
        );
        drop_database(&database).await;
    }
}

/// The hand with which the seat in turn goes out of a `continental` deal in one action.
const OUT_AT_ONCE: [&[&str]; 4] = [
    &["5S", "2C", "7S", "JK", "9S"],
    &["3H", "4H", "5H", "6H"],
    &["8D", "9D", "TD"],
    &["JC", "QC", "KC"],
];

/// A rated one-deal `continental` game of `acme`: Ann (`u-ann`), Bob (`u-bob`) and a hard bot,
/// seat 0 dealing so that Bob leads, with Bob's hand going out at once.
async fn rated_table(app: &TestApp) -> Table {
    rated_table_of(app, 1).await
}

/// [`rated_table`] of `deals` deals, the first stacked.
async fn rated_table_of(app: &TestApp, deals: u8) -> Table {
    let hand: Vec<&str> = OUT_AT_ONCE.iter().flat_map(|m| m.iter().copied()).collect();
    let (seat, deck) = deck_with(Variant::Continental, 3, &hand);
    assert_eq!(seat.0, 1, "Bob leads");
    let deck: Vec<String> = deck.iter().map(ToString::to_string).collect();
    let body = json!({"variant": "continental", "rated": true, "options": {"deals": deals},
        "seats": [{"name": "Ann", "player": "u-ann"}, {"name": "Bob", "player": "u-bob"}, {"bot": "hard"}],
        "seed": 1, "first_dealer": 0, "stacked_decks": [deck]});
    Table::of_created(&create_with(app, ACME, &body).await)
}

/// Bob goes out at once: the game is finished. Returns the finished view.
async fn bob_goes_out(app: &TestApp, table: &Table) -> Value {
    let out = bob_goes_out_of_the_first_deal(app, table).await;
    assert_eq!(out["status"], "finished", "{out}");
    out
}

/// Bob goes out of the first deal at once. Returns his view.
async fn bob_goes_out_of_the_first_deal(app: &TestApp, table: &Table) -> Value {
    let body = json!({"melds": OUT_AT_ONCE.iter().map(|m| json!({"cards": m})).collect::<Vec<_>>()});
    app.post_as(&format!("{}/melds", table.path()), &table.tokens[1], &body, &[])
        .await
        .ok("Bob goes out")
}

/// The view of `table` as Ann's seat, once every seat shows its rating change.
async fn rated_view(app: &TestApp, table: &Table) -> Value {
    eventually(Duration::from_secs(20), "the game rated", async || {
        let view = app.get_as(&table.path(), &table.tokens[0]).await.ok("the view");
        let players = view["players"].as_array().cloned().unwrap_or_default();
        if players.iter().all(|p| p["rating_change"].is_object()) {
            Ok(view)
        } else {
            Err(view["players"].clone())
        }
    })
    .await
}

/// A rating as the view shows it.
fn rating(v: &Value) -> Rating {
    Rating {
        mean: v["mean"].as_f64().expect("a mean"),
        deviation: v["deviation"].as_f64().expect("a deviation"),
    }
}

#[actix_web::test]
async fn a_finished_rated_game_is_rated_once_with_the_models_numbers() {
    on_studio_backends(async |app, backend| {
        // Arrange: a rated table whose seats show their ratings going in.
        let table = rated_table(app).await;
        let before = app.get_as(&table.path(), &table.tokens[0]).await.ok("the view");
        assert_eq!(before["rated"], true, "{backend:?}");
        let hard = bot_seed(Variant::Continental, Level::Hard);
        let shown: Vec<Rating> = (0..3).map(|i| rating(&before["players"][i]["rating"])).collect();
        assert_eq!(
            shown,
            [Rating::initial(), Rating::initial(), hard],
            "{backend:?}: ratings going in"
        );
        assert_eq!(
            before["players"][2]["rating"]["display"],
            hard.display(),
            "{backend:?}"
        );
        assert!(
            !before.to_string().contains("u-ann") && !before.to_string().contains("u-bob"),
            "{backend:?}: a view never shows a player id: {before}"
        );

        // Act: Bob goes out, which finishes the game.
        let finished = bob_goes_out(app, &table).await;
        let version = finished["version"].as_i64().expect("a version");
        let view = rated_view(app, &table).await;

        // Assert: the model's numbers for these standings, kept once.
        let standings: Vec<Standing> =
            serde_json::from_value(view["standings"].clone()).expect("the standings");
        let want = assert_rated_as_the_model(&view, &standings, hard, &format!("{backend:?}"));
        assert!(want.seats[1].after.mean > 25.0, "Bob won and gains");
        assert_eq!(
            view["version"].as_i64(),
            Some(version + 1),
            "{backend:?}: the rating is one new version of the game"
        );
        let stored = store_of(app)
            .await
            .ratings(
                "acme",
                Variant::Continental,
                &[player("u-ann"), player("u-bob"), Participant::Bot(Level::Hard)],
            )
            .await
            .expect("ratings");
        for (got, want) in stored.iter().zip(&want.seats) {
            let got = got.unwrap_or_else(|| panic!("{backend:?}: a row for each seat"));
            assert_close(got, want.after, &format!("{backend:?}: kept"));
        }
        assert_eq!(
            count(app, "SELECT COUNT(*) FROM ratings_due").await,
            0,
            "{backend:?}: the queue is empty once the game is told"
        );
        assert_rated_once(app, &format!("{backend:?}")).await;

        // The rematch is rated too, its seats showing the ratings the game left.
        let rematch = app
            .post_as(
                &format!("{}/rematch", table.path()),
                &table.tokens[0],
                &json!({}),
                &[],
            )
            .await
            .json();
        let next = format!("/v1/games/{}", rematch["id"].as_str().expect("the rematch"));
        let token = rematch["token"].as_str().expect("Ann's seat of it");
        let next = app.get_as(&next, token).await.ok("the rematch's view");
        assert_eq!(next["rated"], true, "{backend:?}");
        assert_close(
            rating(&next["players"][1]["rating"]),
            want.seats[1].after,
            &format!("{backend:?}: Bob's rating in the rematch"),
        );
    })
    .await;
}

/// The view of a rated game of Ann, Bob (both new) and a hard bot rated `hard` shows each
/// seat's change as the model makes it for `standings`; returns the model's changes.
fn assert_rated_as_the_model(view: &Value, standings: &[Standing], hard: Rating, why: &str) -> RatedGame {
    let seats = [
        RatedSeat {
            participant: player("u-ann"),
            rating: Rating::initial(),
        },
        RatedSeat {
            participant: player("u-bob"),
            rating: Rating::initial(),
        },
        RatedSeat {
            participant: Participant::Bot(Level::Hard),
            rating: hard,
        },
    ];
    let want = RatingModel::default()
        .rate(&Ruleset::default_for(Variant::Continental), &seats, standings)
        .expect("rated");
    for (i, change) in want.seats.iter().enumerate() {
        let got = &view["players"][i]["rating_change"];
        assert_close(
            rating(&got["before"]),
            change.before,
            &format!("{why}: seat {i} before"),
        );
        assert_close(
            rating(&got["after"]),
            change.after,
            &format!("{why}: seat {i} after"),
        );
        assert_eq!(got["after"]["display"], change.after.display(), "{why}: seat {i}");
    }
    want
}

/// `got` is `want` but for the last bits a JSON text or a database's double may round.
fn assert_close(got: Rating, want: Rating, why: &str) {
    assert!(
        (got.mean - want.mean).abs() < 1e-9 && (got.deviation - want.deviation).abs() < 1e-9,
        "{why}: {got:?} is not {want:?}"
    );
}

/// A player of `acme`'s.
fn player(id: &str) -> Participant {
    Participant::Player(PlayerId::try_from(id).expect("id"))
}

/// A store on `app`'s database.
async fn store_of(app: &TestApp) -> Database {
    Database::connect(&app.database, None, &Limits::default(), &Live::new(8))
        .await
        .expect("the store")
}

/// One game rated, once: each of its three participants has one game, and Bob won it.
async fn assert_rated_once(app: &TestApp, why: &str) {
    assert_eq!(
        count(app, "SELECT COUNT(*) FROM rated_games").await,
        1,
        "{why}: one game rated"
    );
    assert_eq!(
        count(
            app,
            "SELECT COUNT(*) FROM ratings WHERE tenant = 'acme' AND games = 1"
        )
        .await,
        3,
        "{why}: each participant rated once"
    );
    assert_eq!(
        count(app, "SELECT COUNT(*) FROM ratings WHERE won = 1").await,
        1,
        "{why}: one winner, Bob"
    );
}

/// The number `sql` counts on `app`'s database.
async fn count(app: &TestApp, sql: &str) -> i64 {
    match &app.database {
        DatabaseSettings::Sqlite { path } => {
            let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite:{path}"))
                .await
                .expect("the test database");
            sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_owned()))
                .fetch_one(&mut conn)
                .await
                .expect(sql)
        }
        DatabaseSettings::Postgres { url } => {
            let mut conn = sqlx::PgConnection::connect(url).await.expect("the test database");
            sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_owned()))
                .fetch_one(&mut conn)
                .await
                .expect(sql)
        }
    }
}

#[tokio::test]
async fn two_stores_rating_one_game_at_once_rate_it_once() {
    use continental::store::{RatedRow, RatingWrite, StoreError};
    use std::sync::atomic::{AtomicUsize, Ordering};

    for backend in backends() {
        let database = fresh_database(&backend).await;
        let open = async || {
            Database::connect(&database, None, &Limits::default(), &Live::new(8))
                .await
                .expect("the store")
        };
        let (one, two) = (open().await, open().await);
        let game = uuid::Uuid::new_v4();
        // Each with the rating its row starts from: its unrated one.
        let seats = [
            player("ann"),
            Participant::Bot(Level::Easy),
            Participant::Bot(Level::Easy),
        ]
        .map(|p| {
            let unrated = p.unrated(Variant::MayI);
            (p, unrated)
        });
        let decided = AtomicUsize::new(0);
        // Each rating moves every participant up by one from what it read.
        let decide = |ratings: &[(Participant, Rating)]| -> Result<RatingWrite, StoreError> {
            decided.fetch_add(1, Ordering::SeqCst);
            let mut rows: Vec<RatedRow> = Vec::new();
            for (p, r) in ratings {
                if !rows.iter().any(|row| &row.participant == p) {
                    rows.push(RatedRow {
                        participant: p.clone(),
                        rating: Rating {
                            mean: r.mean + 1.0,
                            deviation: r.deviation,
                        },
                        won: matches!(p, Participant::Player(_)),
                    });
                }
            }
            Ok(RatingWrite {
                changes: format!("[{}]", ratings.len()),
                rows,
            })
        };

        // Act: both stores rate the game at once, then one of them again (a retry).
        let (a, b) = tokio::join!(
            one.rate_game("acme", game, Variant::MayI, &seats, decide),
            two.rate_game("acme", game, Variant::MayI, &seats, decide),
        );
        let again = one
            .rate_game("acme", game, Variant::MayI, &seats, decide)
            .await
            .expect("rated again");

        // Assert: one rating kept, every caller answered with its changes.
        let (a, b) = (a.expect("one rates"), b.expect("the other rates"));
        assert_eq!(
            (a.as_str(), b.as_str(), again.as_str()),
            ("[3]", "[3]", "[3]"),
            "{backend:?}"
        );
        assert!(
            decided.load(Ordering::SeqCst) <= 2,
            "{backend:?}: the retry found the marker first"
        );
        let got = one
            .ratings(
                "acme",
                Variant::MayI,
                &[player("ann"), Participant::Bot(Level::Easy)],
            )
            .await
            .expect("ratings");
        let got: Vec<Rating> = got.into_iter().map(|r| r.expect("a row for each")).collect();
        let easy = bot_seed(Variant::MayI, Level::Easy);
        assert_eq!(
            got[0].mean,
            Rating::initial().mean + 1.0,
            "{backend:?}: ann moved once"
        );
        assert_eq!(got[1].mean, easy.mean + 1.0, "{backend:?}: the level moved once");
        drop_database(&database).await;
    }
}

#[actix_web::test]
async fn a_rated_game_finished_on_one_replica_is_rated_once_by_two() {
    for backend in crate::helpers::server_backends() {
        // Arrange: two replicas on one database, both running the rating pass.
        let app = TestApp::spawn_studio(&backend, None).await;
        let other = TestApp::spawn_studio(&backend, Some(app.database.clone())).await;
        let table = rated_table(&app).await;

        // Act: the game finishes; then, as a retried finish would, it is queued once more.
        bob_goes_out(&other, &table).await;
        let rated = rated_view(&app, &table).await;
        let id = table.id.clone();
        on_game_rows(
            &app,
            &id,
            "INSERT INTO ratings_due (game_id, tenant, due_at) VALUES ($1, 'acme', 0)",
            None,
        )
        .await;
        eventually(
            Duration::from_secs(20),
            "the queue emptied again",
            async || match count(&app, "SELECT COUNT(*) FROM ratings_due").await {
                0 => Ok(()),
                n => Err(n),
            },
        )
        .await;

        // Assert: each participant rated once, the game told once.
        assert_eq!(
            count(&app, "SELECT COUNT(*) FROM ratings WHERE games = 1").await,
            3,
            "{backend:?}"
        );
        assert_eq!(
            count(&app, "SELECT COUNT(*) FROM ratings WHERE games > 1").await,
            0,
            "{backend:?}"
        );
        assert_eq!(
            count(&app, "SELECT COUNT(*) FROM rated_games").await,
            1,
            "{backend:?}"
        );
        let now = app.get_as(&table.path(), &table.tokens[0]).await.ok("the view");
        assert_eq!(
            now["version"], rated["version"],
            "{backend:?}: no second change of the game"
        );
        other.clean_up().await;
    }
}

#[actix_web::test]
async fn players_need_a_server_key_valid_ids_and_one_seat_each() {
    // A server without keys takes no player and rates nothing.
    let open = TestApp::spawn(&crate::helpers::Backend::Sqlite).await;
    let rows = [
        (
            json!({"variant": "may_i", "seats": [{"name": "Ann", "player": "u-1"}, {"name": "Bob"}]}),
            "a player",
        ),
        (
            json!({"variant": "may_i", "rated": true, "seats": [{"name": "Ann"}, {"name": "Bob"}]}),
            "a rated game",
        ),
    ];
    for (body, why) in rows {
        open.post("/v1/games", &body)
            .await
            .assert_problem(422, "player_needs_server_key", why);
    }
    let game = open
        .post(
            "/v1/games",
            &json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"open": true}]}),
        )
        .await
        .json();
    let join = format!("/v1/games/{}/join", game["id"].as_str().expect("an id"));
    open.post(&join, &json!({"name": "Bob", "player": "u-2"}))
        .await
        .assert_problem(422, "player_needs_server_key", "a join naming a player");
    open.clean_up().await;

    on_studio_backends(async |app, backend| {
        let long = "x".repeat(129);
        let rows = [
            (json!([{"name": "Ann", "player": ""}, {"name": "Bob"}]), false, 400, "invalid_player", "an empty id"),
            (json!([{"name": "Ann", "player": long}, {"name": "Bob"}]), false, 400, "invalid_player", "129 bytes"),
            (json!([{"name": "Ann", "player": "a\tb"}, {"name": "Bob"}]), false, 400, "invalid_player", "a tab"),
            (json!([{"name": "Ann", "player": "u-1"}, {"bot": true, "player": "u-2"}]), false, 422, "invalid_seat", "a bot's seat"),
            (json!([{"name": "Ann", "player": "u-1"}, {"name": "Bob", "player": "u-1"}]), false, 422, "player_seated_twice", "twice"),
            (json!([{"name": "Ann", "player": "u-1"}, {"name": "Bob"}]), true, 422, "rated_needs_players", "Bob names none"),
        ];
        for (seats, rated, status, code, why) in rows {
            let body = json!({"variant": "may_i", "seats": seats, "rated": rated});
            app.post_with_key("/v1/games", ACME, &body, &[])
                .await
                .assert_problem(status, code, &format!("{backend:?}: {why}"));
        }

        // A rated game waiting for a seat: its joiner names a player, of the game's tenant.
        let body = json!({"variant": "may_i", "rated": true, "seats": [{"name": "Ann", "player": "u-1"}, {"open": true}]});
        let created = create_with(app, ACME, &body).await;
        let join = format!("/v1/games/{}/join", created["id"].as_str().expect("an id"));
        let refusals = [
            (json!({"name": "Bob"}), Some(ACME), 422, "rated_needs_players", "no player"),
            (json!({"name": "Bob", "player": "u-2"}), None, 422, "player_needs_server_key", "no key"),
            (json!({"name": "Bob", "player": "u-2"}), Some(crate::helpers::BETA), 404, "game_not_found", "another tenant's game"),
            (json!({"name": "Bob", "player": "u-1"}), Some(ACME), 422, "player_seated_twice", "Ann again"),
            (json!({"name": "Bob", "player": ""}), Some(ACME), 400, "invalid_player", "an empty id"),
        ];
        for (body, key, status, code, why) in refusals {
            let reply = match key {
                Some(key) => app.post_with_key(&join, key, &body, &[]).await,
                None => app.post(&join, &body).await,
            };
            reply.assert_problem(status, code, &format!("{backend:?}: {why}"));
        }
        let joined = app
            .post_with_key(&join, ACME, &json!({"name": "Bob", "player": "u-2"}), &[])
            .await
            .ok("Bob joins");
        let view = app
            .get_as(&format!("/v1/games/{}", created["id"].as_str().expect("an id")), joined["token"].as_str().expect("a token"))
            .await
            .ok("Bob's view");
        assert_eq!(view["status"], "playing", "{backend:?}: the last seat deals");
        assert_eq!(view["players"][1]["rating"]["display"], 1500, "{backend:?}: a new player");
        assert!(!view.to_string().contains("u-1"), "{backend:?}: no player id shown: {view}");

        // The studio's listing finds a player's games, and only theirs.
        let listed = app.get_with_key("/v1/games?player=u-2", ACME).await.ok("the listing");
        let ids: Vec<&str> = listed["games"].as_array().expect("games").iter().filter_map(|g| g["id"].as_str()).collect();
        assert_eq!(ids, [created["id"].as_str().expect("an id")], "{backend:?}");
        let none = app.get_with_key("/v1/games?player=u-2", crate::helpers::BETA).await.ok("beta's listing");
        assert_eq!(none["games"], json!([]), "{backend:?}: another tenant's player");
        app.get_with_key("/v1/games?player=", ACME)
            .await
            .assert_problem(400, "invalid_player", "an empty id in the listing");
    })
    .await;
}

#[actix_web::test]
async fn a_player_their_games_and_the_leaderboard_are_their_tenants_alone() {
    on_studio_backends(async |app, backend| {
        // Arrange: a rated game played out, and ratings of beta's players, one with acme's id.
        let table = rated_table(app).await;
        bob_goes_out(app, &table).await;
        let view = rated_view(app, &table).await;
        execute(
            &app.database,
            "INSERT INTO ratings (tenant, variant, participant, mean, deviation, games, won, updated_at) VALUES \
             ('beta', 'continental', 'player:u-bob', 50.0, 1.0, 9, 9, 0), \
             ('beta', 'continental', 'player:u-zed', 40.0, 1.0, 3, 1, 0), \
             ('acme', 'continental', 'player:u-cid', 26.0, 0.5, 4, 2, 0), \
             ('acme', 'continental', 'player:u-abe', 26.0, 0.5, 4, 2, 0)",
        )
        .await;

        // A player: ratings per variant and the record.
        let bob = app.get_with_key("/v1/players/u-bob", ACME).await.ok("Bob");
        let after = rating(&view["players"][1]["rating_change"]["after"]);
        assert_eq!(bob["player"], "u-bob", "{backend:?}");
        assert_eq!(bob["ratings"][0]["variant"], "continental", "{backend:?}");
        assert_close(rating(&bob["ratings"][0]["rating"]), after, &format!("{backend:?}: Bob's rating"));
        assert_eq!(bob["ratings"][0]["conservative"], after.conservative_display(), "{backend:?}");
        assert_eq!(bob["ratings"][0]["games"], 1, "{backend:?}");
        assert_eq!(bob["record"], json!({"games": 1, "finished": 1, "won": 1}), "{backend:?}");
        let ann = app.get_with_key("/v1/players/u-ann", ACME).await.ok("Ann");
        assert_eq!(ann["record"], json!({"games": 1, "finished": 1, "won": 0}), "{backend:?}");
        for (path, key, why) in [
            ("/v1/players/u-zed", ACME, "beta's player"),
            ("/v1/players/u-nobody", ACME, "no one"),
            ("/v1/players/u-ann", crate::helpers::BETA, "acme's player"),
        ] {
            app.get_with_key(path, key)
                .await
                .assert_problem(404, "player_not_found", &format!("{backend:?}: {why}"));
        }
        let beta_bob = app.get_with_key("/v1/players/u-bob", crate::helpers::BETA).await.ok("beta's Bob");
        assert_eq!(beta_bob["record"], json!({"games": 0, "finished": 0, "won": 9}), "{backend:?}: beta's own");

        // Their games: acme's only.
        let games = app.get_with_key("/v1/players/u-bob/games?limit=1", ACME).await.ok("Bob's games");
        assert_eq!(games["games"][0]["id"].as_str(), Some(table.id.as_str()), "{backend:?}");
        assert_eq!(games["next_cursor"], Value::Null, "{backend:?}: one game");
        let none = app.get_with_key("/v1/players/u-bob/games", crate::helpers::BETA).await.ok("beta's");
        assert_eq!(none["games"], json!([]), "{backend:?}");

        // The leaderboard: players only, by conservative value, ties by id, paged.
        let mut seen = Vec::new();
        let mut path = "/v1/leaderboards/continental?limit=2".to_owned();
        loop {
            let page = app.get_with_key(&path, ACME).await.ok("a page");
            for e in page["entries"].as_array().expect("entries") {
                seen.push((e["rank"].as_u64().expect("a rank"), e["player"].as_str().expect("an id").to_owned()));
            }
            match page["next_cursor"].as_str() {
                Some(c) => path = format!("/v1/leaderboards/continental?limit=2&cursor={c}"),
                None => break,
            }
        }
        let ranks: Vec<u64> = seen.iter().map(|(r, _)| *r).collect();
        let players: Vec<&str> = seen.iter().map(|(_, p)| p.as_str()).collect();
        assert_eq!(ranks, [1, 2, 3, 4], "{backend:?}");
        assert_eq!(players[..2], ["u-abe", "u-cid"], "{backend:?}: equal values by id: {players:?}");
        let mut rest = players[2..].to_vec();
        rest.sort_unstable();
        assert_eq!(rest, ["u-ann", "u-bob"], "{backend:?}: no bot, no other tenant: {players:?}");
        let beta = app.get_with_key("/v1/leaderboards/continental", crate::helpers::BETA).await.ok("beta's");
        assert_eq!(beta["entries"][0]["player"], "u-bob", "{backend:?}");
        assert_eq!(beta["entries"].as_array().map(Vec::len), Some(2), "{backend:?}");
        app.get_with_key("/v1/leaderboards/poker", ACME)
            .await
            .assert_problem(404, "unknown_variant", "a variant the service does not have");
        app.get_with_key("/v1/leaderboards/may_i?cursor=AAAA", ACME)
            .await
            .assert_problem(400, "invalid_cursor", "a cursor no page gave");
        app.get("/v1/leaderboards/may_i").await.assert_problem(401, "unauthorized", "no key");
    })
    .await;
}

/// A studio's board token lets its players read that one board with no server key: not the
/// board of another variant, nor another tenant's, nor a player's record or the games; an
/// altered token, and a token asked for without a key, are refused.
#[actix_web::test]
async fn a_board_token_reads_its_studios_board_of_its_variant_alone() {
    on_studio_backends(async |app, backend| {
        // Arrange: players of acme's and beta's may_i boards, and of acme's push board.
        execute(
            &app.database,
            "INSERT INTO ratings (tenant, variant, participant, mean, deviation, games, won, updated_at) VALUES \
             ('acme', 'may_i', 'player:u-ann', 30.0, 1.0, 3, 2, 0), \
             ('acme', 'may_i', 'player:u-bob', 25.0, 1.0, 3, 1, 0), \
             ('acme', 'push', 'player:u-cid', 30.0, 1.0, 1, 1, 0), \
             ('beta', 'may_i', 'player:u-zed', 40.0, 1.0, 9, 9, 0)",
        )
        .await;

        // Act: acme asks for a token of its may_i board.
        let made = app.post_with_key("/v1/leaderboards/may_i/tokens", ACME, &json!({}), &[]).await;
        assert_eq!(made.status.as_u16(), 201, "{backend:?}: {}", made.text());
        let made = made.json();
        let token = made["token"].as_str().expect("a token").to_owned();
        assert_eq!(made["variant"], "may_i", "{backend:?}");
        assert_eq!(made["page"], format!("/play#/board/{token}"), "{backend:?}: the board in the browser");
        assert!(made["expires_at"].as_str().is_some_and(|t| t.ends_with('Z')), "{backend:?}: {made}");

        // Assert: the token reads acme's may_i board, no key needed.
        let board = app.get_as("/v1/leaderboards/may_i", &token).await.ok("the board by its token");
        let players: Vec<&str> = board["entries"].as_array().expect("entries").iter().map(|e| e["player"].as_str().expect("an id")).collect();
        assert_eq!(players, ["u-ann", "u-bob"], "{backend:?}: acme's may_i players alone");
        let with_key = app.get_with_key("/v1/leaderboards/may_i", ACME).await.ok("the board by the key");
        assert_eq!(board["entries"], with_key["entries"], "{backend:?}: the same board as the key reads");
        // And nothing else.
        app.get_as("/v1/leaderboards/push", &token)
            .await
            .assert_problem(403, "forbidden", &format!("{backend:?}: another variant's board"));
        for path in ["/v1/players/u-ann", "/v1/players/u-ann/games", "/v1/games"] {
            app.get_as(path, &token)
                .await
                .assert_problem(401, "unauthorized", &format!("{backend:?}: {path} with a board token"));
        }
        let beta = app.post_with_key("/v1/leaderboards/may_i/tokens", BETA, &json!({}), &[]).await.json();
        let beta_board = app.get_as("/v1/leaderboards/may_i", beta["token"].as_str().expect("beta's token")).await.ok("beta's");
        assert_eq!(beta_board["entries"].as_array().map(Vec::len), Some(1), "{backend:?}: {beta_board}");
        assert_eq!(beta_board["entries"][0]["player"], "u-zed", "{backend:?}: beta's token reads beta's board");
        let mut altered = token.clone();
        let last = altered.pop().expect("a character");
        altered.push(if last == 'A' { 'B' } else { 'A' });
        app.get_as("/v1/leaderboards/may_i", &altered)
            .await
            .assert_problem(401, "unauthorized", &format!("{backend:?}: an altered token"));
        app.post("/v1/leaderboards/may_i/tokens", &json!({}))
            .await
            .assert_problem(401, "unauthorized", &format!("{backend:?}: a token needs a server key"));
        app.post_with_key("/v1/leaderboards/poker/tokens", ACME, &json!({}), &[])
            .await
            .assert_problem(404, "unknown_variant", &format!("{backend:?}: no such board"));
    })
    .await;
}

/// Cursors no page gave, on every paged read: a `400 invalid_cursor` with its reason on each
/// backend, never a `500` (24 `A`s once read as a row whose key held NUL bytes, which
/// PostgreSQL refuses in text); a cursor of one board is none of another's.
#[actix_web::test]
async fn a_cursor_the_server_did_not_give_is_refused_on_every_listing() {
    on_studio_backends(async |app, backend| {
        let table = rated_table(app).await;
        bob_goes_out(app, &table).await;
        rated_view(app, &table).await;
        let first = app
            .get_with_key("/v1/leaderboards/continental?limit=1", ACME)
            .await
            .ok("the first page");
        let given = first["next_cursor"].as_str().expect("a second page").to_owned();
        let second = app
            .get_with_key(
                &format!("/v1/leaderboards/continental?limit=1&cursor={given}"),
                ACME,
            )
            .await
            .ok("the cursor the server gave");
        assert_eq!(second["entries"][0]["rank"], 2, "{backend:?}: {second}");
        let games = app
            .get_with_key("/v1/games?limit=1", ACME)
            .await
            .ok("the listing");
        assert_eq!(games["next_cursor"], Value::Null, "{backend:?}: one game");
        let mut edited = given.clone().into_bytes();
        edited[2] = if edited[2] == b'B' { b'C' } else { b'B' };
        let edited = String::from_utf8(edited).expect("ASCII");
        for cursor in [
            "A".repeat(24),
            "A".repeat(48),
            "_".repeat(60),
            "AAAA".to_owned(),
            edited,
        ] {
            for path in [
                "/v1/leaderboards/continental",
                "/v1/leaderboards/may_i",
                "/v1/games",
                "/v1/players/u-bob/games",
            ] {
                let reply = app.get_with_key(&format!("{path}?cursor={cursor}"), ACME).await;
                reply.assert_problem(
                    400,
                    "invalid_cursor",
                    &format!("{backend:?}: {path} with {cursor}"),
                );
                assert!(
                    reply.json()["detail"]
                        .as_str()
                        .is_some_and(|d| d.contains("start again")),
                    "{backend:?}: a reason: {}",
                    reply.text()
                );
            }
        }
        app.get_with_key(&format!("/v1/leaderboards/may_i?cursor={given}"), ACME)
            .await
            .assert_problem(400, "invalid_cursor", "another board's cursor");
        app.get_with_key(&format!("/v1/games?cursor={given}"), ACME)
            .await
            .assert_problem(400, "invalid_cursor", "a board's cursor in the listing");
    })
    .await;
}

/// The players seeded on `acme`'s `continental` board before its rated game: `(id, mean,
/// deviation)`, with ties (equal values, ordered by id), values in one bucket of the counts,
/// a value below zero, and Ann and Bob, whom the game then moves.
fn seeded_board() -> Vec<(String, f64, f64)> {
    let mut players = vec![
        ("u-ann".to_owned(), 27.0, 3.0),
        ("u-bob".to_owned(), 24.0, 4.0),
        ("u-low".to_owned(), 10.0, 5.0),
        ("u-tie-b".to_owned(), 26.0, 2.0),
        ("u-tie-a".to_owned(), 26.0, 2.0),
        ("u-tie-c".to_owned(), 26.0, 2.0),
        ("u-near".to_owned(), 26.001, 2.0),
    ];
    for i in 0..33_u32 {
        let i = f64::from(i);
        players.push((
            format!("u-{i:02}"),
            18.0 + (i * 7.0) % 17.0,
            1.0 + (i * 3.0) % 5.0 / 2.0,
        ));
    }
    players
}

/// The bucket of the board's counts a conservative value is counted in (64 a unit).
fn bucket_of(mean: f64, deviation: f64) -> i64 {
    #[expect(clippy::cast_possible_truncation, reason = "a small value")]
    let bucket = ((mean - 3.0 * deviation) * 64.0).floor() as i64;
    bucket
}

/// Puts `board`'s players (`(id, mean, deviation)`) on `tenant`'s board of `variant`, with
/// the board's counts as the migration makes them.
async fn seed_board(app: &TestApp, tenant: &str, variant: &str, board: &[(String, f64, f64)]) {
    let rows: Vec<String> = board
        .iter()
        .map(|(id, mean, dev)| format!("('{tenant}', '{variant}', 'player:{id}', {mean}, {dev}, 3, 1, 0)"))
        .collect();
    execute(
        &app.database,
        &format!(
            "INSERT INTO ratings (tenant, variant, participant, mean, deviation, games, won, updated_at) VALUES {}",
            rows.join(", ")
        ),
    )
    .await;
    let mut buckets = std::collections::BTreeMap::<i64, i64>::new();
    for (_, mean, dev) in board {
        *buckets.entry(bucket_of(*mean, *dev)).or_default() += 1;
    }
    let counts: Vec<String> = buckets
        .iter()
        .map(|(b, n)| format!("('{tenant}', '{variant}', {b}, {n})"))
        .collect();
    execute(
        &app.database,
        &format!(
            "INSERT INTO board_counts (tenant, variant, bucket, players) VALUES {}",
            counts.join(", ")
        ),
    )
    .await;
}

/// Moves `id`'s rating on `acme`'s `continental` board from `from` to `to` (mean, deviation),
/// the counts with it, as a rated game would.
async fn move_player(app: &TestApp, id: &str, from: (f64, f64), to: (f64, f64)) {
    execute(
        &app.database,
        &format!(
            "UPDATE ratings SET mean = {}, deviation = {} WHERE tenant = 'acme' AND variant = 'continental' \
             AND participant = 'player:{id}'",
            to.0, to.1
        ),
    )
    .await;
    for (bucket, change) in [(bucket_of(from.0, from.1), -1), (bucket_of(to.0, to.1), 1)] {
        execute(
            &app.database,
            &format!(
                "INSERT INTO board_counts (tenant, variant, bucket, players) VALUES ('acme', 'continental', {bucket}, {change}) \
                 ON CONFLICT (tenant, variant, bucket) DO UPDATE SET players = board_counts.players + excluded.players"
            ),
        )
        .await;
    }
}

/// `board` in the board's order (the conservative value down, then the id's bytes), each with
/// its rank: what every page must show.
fn ranked(board: &[(String, f64, f64)]) -> Vec<(u64, String, f64)> {
    let mut rows: Vec<(String, f64)> = board.iter().map(|(id, m, d)| (id.clone(), m - 3.0 * d)).collect();
    rows.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then_with(|| a.0.as_bytes().cmp(b.0.as_bytes()))
    });
    rows.into_iter()
        .zip(1..)
        .map(|((id, c), rank)| (rank, id, c))
        .collect()
}

/// The `(rank, player)` of each entry of a leaderboard's page.
fn ranks_of(page: &Value) -> Vec<(u64, String)> {
    page["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["rank"].as_u64().expect("a rank"),
                e["player"].as_str().expect("an id").to_owned(),
            )
        })
        .collect()
}

/// docs/api.md#cursors: a leaderboard's cursor is a pure keyset. Between two pages the board
/// moves (two players above the cursor fall to its bottom, one below it rises to the top): the
/// next page goes on from the cursor's key, each entry at the rank the board now gives it; the
/// players who fell are met again where they now stand, the one who rose is not, and every
/// player who did not move is listed once.
#[actix_web::test]
async fn a_board_cursor_goes_on_from_its_key_as_the_board_moves() {
    on_studio_backends(async |app, backend| {
        // Arrange: the seeded board and its first page of five.
        let mut board = seeded_board();
        seed_board(app, "acme", "continental", &board).await;
        let before = ranked(&board);
        let first = app
            .get_with_key("/v1/leaderboards/continental?limit=5", ACME)
            .await
            .ok("the first page");
        let want: Vec<(u64, String)> = before[..5].iter().map(|(r, p, _)| (*r, p.clone())).collect();
        assert_eq!(ranks_of(&first), want, "{backend:?}: the first page");
        let cursor = first["next_cursor"].as_str().expect("a next page").to_owned();
        let (_, last_id, last_value) = before[4].clone();

        // Act: the board moves, then the walk goes on from the cursor.
        let fall = [before[0].1.clone(), before[2].1.clone()];
        let rise = before[11].1.clone();
        for (id, to) in [
            (&fall[0], (2.0, 6.0)),
            (&fall[1], (2.5, 6.0)),
            (&rise, (90.0, 1.0)),
        ] {
            let row = board.iter_mut().find(|(p, _, _)| p == id).expect("on the board");
            move_player(app, id, (row.1, row.2), to).await;
            (row.1, row.2) = to;
        }
        let after = ranked(&board);
        let mut walked = Vec::new();
        let mut path = format!("/v1/leaderboards/continental?limit=5&cursor={cursor}");
        loop {
            let page = app
                .get_with_key(&path, ACME)
                .await
                .ok("a page after the board moved");
            walked.extend(ranks_of(&page));
            match page["next_cursor"].as_str() {
                Some(c) => path = format!("/v1/leaderboards/continental?limit=5&cursor={c}"),
                None => break,
            }
        }

        // Assert: the rest of the board as it now stands, after the cursor's key, at its ranks.
        let rest: Vec<(u64, String)> = after
            .iter()
            .filter(|(_, p, c)| *c < last_value || (*c == last_value && p.as_bytes() > last_id.as_bytes()))
            .map(|(r, p, _)| (*r, p.clone()))
            .collect();
        assert_eq!(
            walked, rest,
            "{backend:?}: the walk goes on from the cursor's key, each at its rank now"
        );
        assert_eq!(
            walked[0].0, 5,
            "{backend:?}: of the five up to the cursor two fell behind it, one rose ahead: {walked:?}"
        );
        for id in &fall {
            assert!(
                walked.iter().any(|(_, p)| p == id),
                "{backend:?}: {id} fell past the cursor and is met again"
            );
        }
        assert!(
            !walked.iter().any(|(_, p)| *p == rise),
            "{backend:?}: {rise} rose past the cursor: not met again"
        );
        let mut seen: Vec<&String> = want.iter().chain(walked.iter()).map(|(_, p)| p).collect();
        seen.retain(|p| !fall.contains(p) && **p != rise);
        let unmoved = seen.len();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(
            (seen.len(), unmoved),
            (board.len() - 3, board.len() - 3),
            "{backend:?}: every other player once"
        );
    })
    .await;
}

/// docs/api.md#cursors: a leaderboard's cursor reads only on the board it was given for, its
/// tenant's in its variant: another tenant's cursor, or another variant's, is `400
/// invalid_cursor` saying which, even where that board has a place for it.
#[actix_web::test]
async fn a_board_cursor_of_another_tenant_or_variant_is_refused_saying_which() {
    on_studio_backends(async |app, backend| {
        let board = seeded_board();
        for (tenant, variant) in [
            ("acme", "continental"),
            ("acme", "may_i"),
            ("beta", "continental"),
        ] {
            seed_board(app, tenant, variant, &board).await;
        }
        let first = app
            .get_with_key("/v1/leaderboards/continental?limit=5", ACME)
            .await
            .ok("acme's first page");
        let cursor = first["next_cursor"].as_str().expect("a next page");
        let path = format!("/v1/leaderboards/continental?limit=5&cursor={cursor}");
        let second = app.get_with_key(&path, ACME).await.ok("acme's own cursor");
        assert_eq!(second["entries"][0]["rank"], 6, "{backend:?}: {second}");

        for (path, key, why, says) in [
            (path.clone(), BETA, "acme's cursor sent by beta", "another tenant"),
            (
                format!("/v1/leaderboards/may_i?limit=5&cursor={cursor}"),
                ACME,
                "continental's cursor on may_i's board",
                "of the continental leaderboard",
            ),
        ] {
            let reply = app.get_with_key(&path, key).await;
            reply.assert_problem(400, "invalid_cursor", &format!("{backend:?}: {why}"));
            let detail = reply.json()["detail"].as_str().unwrap_or_default().to_owned();
            assert!(
                detail.contains(says) && detail.contains("start again"),
                "{backend:?}: {why}: the reason says `{says}`: {detail}"
            );
        }
    })
    .await;
}

/// Where a player stands: their rank and the page around them match the board read page by
/// page, for every player, after a rated game moved two of them (the counts move in the
/// rating's own transaction); the board's size; and the refusals.
#[actix_web::test]
async fn a_player_sees_their_rank_and_the_page_around_them() {
    on_studio_backends(async |app, backend| {
        // Arrange: the seeded board, its counts as the migration makes them (64 buckets a
        // unit), then Ann and Bob's rated game.
        let board = seeded_board();
        seed_board(app, "acme", "continental", &board).await;
        let table = rated_table(app).await;
        bob_goes_out(app, &table).await;
        rated_view(app, &table).await;
        assert_eq!(
            count(app, "SELECT CAST(SUM(players) AS BIGINT) FROM board_counts WHERE tenant = 'acme' AND variant = 'continental'").await,
            count(app, "SELECT COUNT(*) FROM ratings WHERE tenant = 'acme' AND variant = 'continental' AND participant LIKE 'player:%'").await,
            "{backend:?}: the counts hold every player once"
        );

        // The board, page by page.
        let mut truth: Vec<Value> = Vec::new();
        let mut path = "/v1/leaderboards/continental?limit=7".to_owned();
        loop {
            let page = app.get_with_key(&path, ACME).await.ok("a page");
            assert!(page.get("player").is_none() && page.get("players").is_none(), "{backend:?}: {page}");
            truth.extend(page["entries"].as_array().expect("entries").iter().cloned());
            match page["next_cursor"].as_str() {
                Some(c) => path = format!("/v1/leaderboards/continental?limit=7&cursor={c}"),
                None => break,
            }
        }
        assert_eq!(truth.len(), board.len(), "{backend:?}: every player once");
        let ties: Vec<&str> = truth
            .iter()
            .filter_map(|e| e["player"].as_str().filter(|p| p.starts_with("u-tie")))
            .collect();
        assert_eq!(ties, ["u-tie-a", "u-tie-b", "u-tie-c"], "{backend:?}: equal values by id");

        // Act and assert: each player's page around them.
        for limit in [5_usize, 4, 1] {
            for (at, entry) in truth.iter().enumerate() {
                let id = entry["player"].as_str().expect("an id");
                let page = app
                    .get_with_key(&format!("/v1/leaderboards/continental?around={id}&limit={limit}"), ACME)
                    .await
                    .ok("the page around a player");
                assert_eq!(&page["player"], entry, "{backend:?}: {id}'s own entry, at rank {}", at + 1);
                assert_eq!(page["players"], board.len(), "{backend:?}");
                let start = at.saturating_sub(limit / 2).min(truth.len().saturating_sub(limit));
                let want = &truth[start..(start + limit).min(truth.len())];
                assert_eq!(
                    page["entries"].as_array().map(Vec::as_slice),
                    Some(want),
                    "{backend:?}: around {id} (limit {limit})"
                );
                let next = page["next_cursor"].as_str();
                assert_eq!(next.is_some(), start + limit < truth.len(), "{backend:?}: around {id}");
                if let Some(next) = next {
                    let after = app
                        .get_with_key(&format!("/v1/leaderboards/continental?limit=1&cursor={next}"), ACME)
                        .await
                        .ok("the page after the one around");
                    assert_eq!(after["entries"][0], truth[start + limit], "{backend:?}: after {id}'s page");
                }
            }
        }

        // The refusals.
        app.get_with_key("/v1/leaderboards/continental?around=u-nobody", ACME)
            .await
            .assert_problem(404, "player_not_found", "no rating");
        app.get_with_key("/v1/leaderboards/may_i?around=u-ann", ACME)
            .await
            .assert_problem(404, "player_not_found", "no rating in this variant");
        app.get_with_key("/v1/leaderboards/continental?around=u-ann", crate::helpers::BETA)
            .await
            .assert_problem(404, "player_not_found", "another tenant's player");
        app.get_with_key("/v1/leaderboards/continental?around=", ACME)
            .await
            .assert_problem(400, "invalid_player", "an empty id");
        app.get_with_key("/v1/leaderboards/continental?around=u-ann&cursor=AAAA", ACME)
            .await
            .assert_problem(400, "invalid_query", "around and a cursor");
    })
    .await;
}

#[actix_web::test]
async fn a_game_a_studio_ends_is_never_rated() {
    on_studio_backends(async |app, backend| {
        // Arrange: a rated game in play.
        let table = rated_table(app).await;

        // Act: the studio ends it (void).
        let ended = app
            .post_with_key(
                &format!("{}/end", table.path()),
                ACME,
                &json!({"reason": "a reported cheat"}),
                &[],
            )
            .await
            .ok("ended");
        assert_eq!(ended["status"], "void", "{backend:?}: {ended}");

        // Assert: nothing queued for rating (the finishing write queues it in the same write),
        // and no rating.
        assert_eq!(
            count(app, "SELECT COUNT(*) FROM ratings_due").await,
            0,
            "{backend:?}"
        );
        assert_eq!(count(app, "SELECT COUNT(*) FROM ratings").await, 0, "{backend:?}");
        let view = app.get_as(&table.path(), &table.tokens[0]).await.ok("the view");
        assert_eq!(view["players"][0]["rating_change"], Value::Null, "{backend:?}");
    })
    .await;
}

#[actix_web::test]
async fn a_rated_game_its_studio_ends_rated_is_rated_once_on_the_deals_played() {
    on_studio_backends(async |app, backend| {
        // Arrange: a rated game of two deals; Bob goes out of the first, the second is dealt.
        let table = rated_table_of(app, 2).await;
        let out = bob_goes_out_of_the_first_deal(app, &table).await;
        assert_eq!(out["status"], "playing", "{backend:?}: the second deal: {out}");
        let end = format!("{}/end", table.path());

        // Act: the studio ends it, rated.
        let ended = app
            .post_with_key(
                &end,
                ACME,
                &json!({"reason": "a player's connection", "rated": true}),
                &[],
            )
            .await
            .ok("ended rated");
        let version = ended["version"].as_i64().expect("a version");
        let view = rated_view(app, &table).await;

        // Assert: void, its `called_off` carrying the first deal's totals as its standings
        // (the second deal counts for nothing), Bob first.
        assert_eq!(ended["status"], "void", "{backend:?}: {ended}");
        assert_eq!(view["status"], "void", "{backend:?}");
        assert_eq!(view["rated"], true, "{backend:?}");
        let log: Vec<Value> = app.log(&table, 0).await.into_iter().map(|e| e.event).collect();
        let totals = log
            .iter()
            .find(|e| e["type"] == "deal_ended")
            .map(|e| e["totals"].clone())
            .expect("the first deal ended");
        let called_off = log
            .iter()
            .find(|e| e["type"] == "called_off")
            .expect("called_off");
        assert_eq!(called_off["rated"], true, "{backend:?}: {called_off}");
        let standings: Vec<Standing> =
            serde_json::from_value(called_off["standings"].clone()).expect("the standings");
        for s in &standings {
            assert_eq!(
                json!(s.total),
                totals[s.seat.index()],
                "{backend:?}: {standings:?}"
            );
        }
        let places: Vec<(u8, usize)> = standings.iter().map(|s| (s.seat.0, s.place)).collect();
        assert_eq!(
            places,
            [(1, 1), (0, 2), (2, 2)],
            "{backend:?}: Bob first, the others paid him"
        );

        // Each seat's change is the model's for those standings, written as one new version.
        let hard = bot_seed(Variant::Continental, Level::Hard);
        assert_rated_as_the_model(&view, &standings, hard, &format!("{backend:?}"));
        assert_eq!(
            view["version"].as_i64(),
            Some(version + 1),
            "{backend:?}: one new version"
        );

        // A retried end changes nothing: the game is rated once.
        app.post_with_key(
            &end,
            ACME,
            &json!({"reason": "a player's connection", "rated": true}),
            &[],
        )
        .await
        .assert_problem(409, "game_over", &format!("{backend:?}: a retried end"));
        eventually(
            Duration::from_secs(20),
            "the queue emptied",
            async || match count(app, "SELECT COUNT(*) FROM ratings_due").await {
                0 => Ok(()),
                n => Err(n),
            },
        )
        .await;
        assert_rated_once(app, &format!("{backend:?}")).await;
        let again = app.get_as(&table.path(), &table.tokens[0]).await.ok("the view");
        assert_eq!(again["version"], view["version"], "{backend:?}: no second change");
    })
    .await;
}

#[actix_web::test]
async fn an_end_asked_rated_of_a_game_that_cannot_be_is_refused_and_changes_nothing() {
    on_studio_backends(async |app, backend| {
        let rated = json!({"reason": "support", "rated": true});
        // An unrated game in play.
        let body = json!({"variant": "may_i",
            "seats": [{"name": "Ann", "player": "u-ann"}, {"name": "Bob", "player": "u-bob"}]});
        let unrated = Table::of_created(&create_with(app, ACME, &body).await);
        app.post_with_key(&format!("{}/end", unrated.path()), ACME, &rated, &[])
            .await
            .assert_problem(409, "game_not_rated", &format!("{backend:?}: an unrated game"));

        // A rated game in its first deal: no standings yet.
        let table = rated_table(app).await;
        let before = app.get_as(&table.path(), &table.tokens[0]).await.ok("the view");
        app.post_with_key(&format!("{}/end", table.path()), ACME, &rated, &[])
            .await
            .assert_problem(409, "no_deal_ended", &format!("{backend:?}: no deal ended"));

        // A game not yet dealt.
        let body =
            json!({"variant": "may_i", "rated": true, "seats": [{"name": "Ann", "player": "u-ann"}, {"open": true}]});
        let waiting = Table::of_created(&create_with(app, ACME, &body).await);
        app.post_with_key(&format!("{}/end", waiting.path()), ACME, &rated, &[])
            .await
            .assert_problem(409, "game_not_started", &format!("{backend:?}: not dealt"));

        // Nothing changed: the games play on, nothing queued.
        for (t, status) in [(&unrated, "playing"), (&table, "playing")] {
            let view = app.get_as(&t.path(), &t.tokens[0]).await.ok("the view");
            assert_eq!(view["status"], status, "{backend:?}: {view}");
        }
        let after = app.get_as(&table.path(), &table.tokens[0]).await.ok("the view");
        assert_eq!(after["version"], before["version"], "{backend:?}");
        assert_eq!(
            count(app, "SELECT COUNT(*) FROM ratings_due").await,
            0,
            "{backend:?}"
        );
    })
    .await;
}

#[actix_web::test]
async fn a_bot_a_studio_seats_shows_its_levels_rating() {
    on_studio_backends(async |app, backend| {
        // Arrange: Bob's seat names a player.
        let body = json!({"variant": "may_i", "seats": [{"name": "Ann", "player": "u-ann"}, {"name": "Bob", "player": "u-bob"}]});
        let table = Table::of_created(&create_with(app, ACME, &body).await);

        // Act: the studio gives Bob's seat to a hard bot.
        app.post_with_key(&format!("{}/seats/1/bot", table.path()), ACME, &json!({"level": "hard"}), &[])
            .await
            .ok("a bot seated");

        // Assert: the seat shows the level's rating, and no longer names Bob.
        let view = app.get_as(&table.path(), &table.tokens[0]).await.ok("the view");
        let hard = bot_seed(Variant::MayI, Level::Hard);
        assert_eq!(view["players"][1]["rating"]["display"], hard.display(), "{backend:?}: {view}");
        let listed = app.get_with_key("/v1/games?player=u-bob", ACME).await.ok("Bob's games");
        assert_eq!(listed["games"], json!([]), "{backend:?}: the seat no longer names Bob");
    })
    .await;
}

/// The rating `GET /v1/bots` shows for `level` in `variant`.
fn bot_rating(bots: &Value, variant: &str, level: &str) -> Rating {
    let rows = bots["bots"].as_array().expect("a list of bots");
    let row = rows
        .iter()
        .find(|b| b["variant"] == variant && b["level"] == level)
        .unwrap_or_else(|| panic!("no {level} bot in {variant}: {bots}"));
    assert_eq!(
        row["rating"]["display"],
        rating(&row["rating"]).display(),
        "the display figure is the mean's"
    );
    rating(&row["rating"])
}

#[actix_web::test]
async fn the_bots_levels_show_their_seed_until_a_rated_game_moves_their_tenants() {
    on_studio_backends(async |app, backend| {
        // Arrange: before any rated game every level shows its seed, at every tenant.
        let seeded = app.get_with_key("/v1/bots", ACME).await.ok("acme's bots");
        assert_eq!(
            seeded["bots"].as_array().map(Vec::len),
            Some(Variant::ALL.len() * 3),
            "{backend:?}: every variant and level: {seeded}"
        );
        for variant in Variant::ALL {
            for (level, name) in [
                (Level::Easy, "easy"),
                (Level::Normal, "normal"),
                (Level::Hard, "hard"),
            ] {
                assert_close(
                    bot_rating(&seeded, variant.id(), name),
                    bot_seed(variant, level),
                    &format!("{backend:?}: {variant:?} {name} before any rated game"),
                );
            }
        }

        // Act: acme's people beat its hard bot in a rated game.
        let table = rated_table(app).await;
        bob_goes_out(app, &table).await;
        let view = rated_view(app, &table).await;

        // Assert: acme's hard bot shows what the game left; the other tenants' do not move.
        let after = rating(&view["players"][2]["rating_change"]["after"]);
        let seed = bot_seed(Variant::Continental, Level::Hard);
        assert_ne!(after, seed, "{backend:?}: the game moved the hard bot");
        let acme = app.get_with_key("/v1/bots", ACME).await.ok("acme's bots");
        assert_close(
            bot_rating(&acme, "continental", "hard"),
            after,
            &format!("{backend:?}: acme's hard bot after the game"),
        );
        assert_close(
            bot_rating(&acme, "continental", "easy"),
            bot_seed(Variant::Continental, Level::Easy),
            &format!("{backend:?}: a level that did not play keeps its seed"),
        );
        let beta = app.get_with_key("/v1/bots", BETA).await.ok("beta's bots");
        let public = app.get("/v1/bots").await.ok("the public tenant's bots");
        for (bots, whose) in [(&beta, "beta"), (&public, "the public tenant")] {
            assert_close(
                bot_rating(bots, "continental", "hard"),
                seed,
                &format!("{backend:?}: {whose}'s hard bot keeps its seed"),
            );
        }
        app.get_with_key("/v1/bots", "not-a-key")
            .await
            .assert_problem(401, "unauthorized", "a bad key");
    })
    .await;
}

/// Rows a player's reads meet on a database in use, with their statistics: `acme`'s 20,000
/// rated players (`player:p1` …) in two variants, 5,000 of its games of four seats each naming a
/// player (each player at one game), and `beta`'s players beside them.
async fn rows_of_players(database: &DatabaseSettings) {
    let postgres = matches!(database, DatabaseSettings::Postgres { .. });
    let numbers = |n: u32| {
        if postgres {
            format!("SELECT i FROM generate_series(1, {n}) AS i")
        } else {
            format!(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n}) SELECT i FROM n"
            )
        }
    };
    let id = if postgres {
        "gen_random_uuid()"
    } else {
        "randomblob(16)"
    };
    for sql in [
        format!(
            "INSERT INTO ratings (tenant, variant, participant, mean, deviation, games, won, updated_at) \
             SELECT t.tenant, v.variant, 'player:p' || i, 25 + (i % 17), 1 + (i % 7), 1, 0, 0 \
             FROM ({}) AS n, (SELECT 'acme' AS tenant UNION ALL SELECT 'beta') AS t, \
             (SELECT 'may_i' AS variant UNION ALL SELECT 'continental') AS v",
            numbers(20_000)
        ),
        format!(
            "INSERT INTO games (id, variant, status, state, version, seed, seed_commitment, created_at, updated_at, tenant, created_us) \
             SELECT {id}, 'may_i', 'finished', '{{}}', 1, 's', 'c', i, i, 'acme', i FROM ({}) AS n",
            numbers(5_000)
        ),
        "INSERT INTO seats (game_id, seat, name, kind, player) \
         SELECT g.id, s.seat, 'p', 'player', 'p' || (4 * g.created_us + s.seat - 3) \
         FROM games AS g, (SELECT 0 AS seat UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3) AS s"
            .to_owned(),
        "ANALYZE".to_owned(),
    ] {
        execute(database, &sql).await;
    }
}

/// The plans PostgreSQL gives `sql` (of parameters `values`, in order): the generic plan a
/// prepared statement is given for any values, and the plan for these values.
async fn postgres_plans(conn: &mut sqlx::PgConnection, sql: &str, values: &[&str]) -> Vec<String> {
    use sqlx::Row;
    let mut plans = Vec::new();
    for mode in ["force_generic_plan", "force_custom_plan"] {
        for s in [
            "BEGIN".to_owned(),
            format!("SET LOCAL plan_cache_mode = {mode}"),
            format!("PREPARE read_of_player AS {sql}"),
        ] {
            sqlx::query(sqlx::AssertSqlSafe(s.as_str()))
                .execute(&mut *conn)
                .await
                .unwrap_or_else(|e| panic!("{s}: {e}"));
        }
        let explain = format!("EXPLAIN EXECUTE read_of_player({})", values.join(", "));
        let plan = sqlx::query(sqlx::AssertSqlSafe(explain.as_str()))
            .fetch_all(&mut *conn)
            .await
            .unwrap_or_else(|e| panic!("{explain}: {e}"))
            .iter()
            .map(|r| r.get::<String, _>(0))
            .collect::<Vec<_>>()
            .join("\n");
        for s in ["DEALLOCATE read_of_player", "ROLLBACK"] {
            sqlx::query(s)
                .execute(&mut *conn)
                .await
                .expect("the plan put away");
        }
        plans.push(format!("{mode}:\n{plan}"));
    }
    plans
}

/// The columns of PostgreSQL's index `name`, in order (an expression as `(expression)`).
async fn index_columns(conn: &mut sqlx::PgConnection, name: &str) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT COALESCE(a.attname::text, '(expression)') FROM pg_index i \
         JOIN pg_class c ON c.oid = i.indexrelid \
         CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n) \
         LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum \
         WHERE c.relname = $1 ORDER BY k.n",
    )
    .bind(name)
    .fetch_all(&mut *conn)
    .await
    .unwrap_or_else(|e| panic!("the columns of {name}: {e}"))
}

/// The plan SQLite gives `sql`, its parameters bound to `values`.
async fn sqlite_plan(path: &str, sql: &str, values: &[&str]) -> String {
    use sqlx::Row;
    let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite:{path}"))
        .await
        .expect("connect");
    let explain = format!("EXPLAIN QUERY PLAN {sql}");
    let mut query = sqlx::query(sqlx::AssertSqlSafe(explain.as_str()));
    for value in values {
        query = query.bind(value.trim_matches('\'').to_owned());
    }
    query
        .fetch_all(&mut conn)
        .await
        .unwrap_or_else(|e| panic!("{explain}: {e}"))
        .iter()
        .map(|r| r.get::<String, _>("detail"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// docs/performance.md#player-reads: every statement of a player's reads (the profile's, a
/// page of their games, first and after a cursor), as the store sends it, finds the player's
/// rows by an index on the player. On tables with rows and statistics, in the plan PostgreSQL
/// gives it for any values (a prepared statement's generic plan) and for a player's values, the
/// player is an index condition (`Index Cond`), never a filter over the tenant's rows (the
/// primary key of `ratings` leads with the tenant and the variant: ranged by the tenant alone it
/// is an index scan too, which is why the condition is read, not the scan's name); in SQLite's
/// plan the index is searched by the player.
#[actix_web::test]
async fn every_player_read_is_served_by_an_index_on_the_player() {
    use crate::helpers::Backend;
    use continental::store::player_sql;
    for backend in backends().into_iter().filter(|b| *b != Backend::Citus) {
        let app = TestApp::spawn(&backend).await;
        rows_of_players(&app.database).await;
        for statement in player_sql() {
            let (sql, by) = (&statement.sql, statement.by);
            let player = if by == "participant" {
                "'player:p4242'"
            } else {
                "'p4242'"
            };
            let values: Vec<&str> = [
                "'acme'",
                player,
                "9000000000",
                "'00000000-0000-0000-0000-000000000000'",
                "51",
            ]
            .into_iter()
            .enumerate()
            .filter(|(n, _)| sql.contains(&format!("${}", n + 1)))
            .map(|(_, v)| v)
            .collect();
            let ctx = format!("{backend:?}: {sql}");
            match &app.database {
                DatabaseSettings::Postgres { url } => {
                    let mut conn = sqlx::PgConnection::connect(url).await.expect("connect");
                    for plan in postgres_plans(&mut conn, sql, &values).await {
                        // Each index read, by the index's columns, with its condition.
                        let mut reads = Vec::new();
                        let mut index = None;
                        for line in plan.lines() {
                            if let Some((_, rest)) = line.split_once(" using ") {
                                index = rest.split_whitespace().next().map(str::to_owned);
                            }
                            if let (Some(name), Some((_, condition))) =
                                (&index, line.split_once("Index Cond: "))
                            {
                                reads.push((index_columns(&mut conn, name).await, condition.to_owned()));
                            }
                        }
                        // The player is a search key: every column of the index before theirs
                        // is held equal (a condition on a later column alone, as the primary
                        // key of `ratings` would take it, walks the range of the earlier ones).
                        let searched = reads.iter().any(|(columns, condition)| {
                            columns.iter().position(|c| c == by).is_some_and(|at| {
                                columns[..=at]
                                    .iter()
                                    .all(|c| condition.contains(&format!("({c} = ")))
                            })
                        });
                        assert!(
                            searched,
                            "{ctx}: an index searched by the player ({by}), each column before it held equal:\n{plan}\n{reads:?}"
                        );
                        assert!(
                            !plan
                                .lines()
                                .any(|l| l.contains("Filter: ") && l.contains(&format!("{by} ="))),
                            "{ctx}: the player is no filter:\n{plan}"
                        );
                        assert!(!plan.contains("Seq Scan"), "{ctx}: no scan of a table:\n{plan}");
                    }
                }
                DatabaseSettings::Sqlite { path } => {
                    let plan = sqlite_plan(path, sql, &values).await;
                    let table = if by == "participant" { "ratings" } else { "seats" };
                    // Searched by the player after columns held equal, not after a skip of
                    // every value of one (`ANY(variant)`, as the primary key of `ratings`
                    // would be read).
                    assert!(
                        plan.lines()
                            .any(|l| l.starts_with(&format!("SEARCH {table} USING"))
                                && l.contains(" INDEX ")
                                && l.contains(&format!("{by}=?"))
                                && !l.contains("ANY(")),
                        "{ctx}: {table} searched by an index on the player ({by}):\n{plan}"
                    );
                    assert!(
                        !plan.lines().any(|l| l.starts_with("SCAN ")),
                        "{ctx}: no scan of a table:\n{plan}"
                    );
                }
            }
        }
        app.clean_up().await;
    }
}
