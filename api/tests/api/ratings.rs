//! Players and ratings (issue 44, docs/ratings.md): the store's ratings with their fallbacks.

use std::time::Duration;

use continental::config::{DatabaseSettings, Limits};
use continental::domain::{Participant, PlayerId, RatedSeat, Rating, RatingModel, bot_seed};
use continental::store::{Database, Live, Store};
use engine::bot::Level;
use engine::{Ruleset, Standing, Variant};
use serde_json::{Value, json};
use sqlx::Connection;

use crate::helpers::{
    ACME, Table, TestApp, backends, create_with, deck_with, drop_database, eventually, fresh_database,
    on_studio_backends,
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
async fn the_store_answers_a_rating_per_participant_with_the_unrated_ones_filled_in() {
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
            (
                player("ann"),
                Rating {
                    mean: 31.5,
                    deviation: 4.25,
                },
            ),
            // Bob is rated at another tenant and in another variant only.
            (player("bob"), Rating::initial()),
            (
                Participant::Bot(Level::Hard),
                Rating {
                    mean: 29.0,
                    deviation: 1.5,
                },
            ),
            (
                Participant::Bot(Level::Easy),
                bot_seed(Variant::MayI, Level::Easy),
            ),
        ];
        assert_eq!(
            got, want,
            "{backend:?}: in the order asked, the missing ones unrated"
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
    let hand: Vec<&str> = OUT_AT_ONCE.iter().flat_map(|m| m.iter().copied()).collect();
    let (seat, deck) = deck_with(Variant::Continental, 3, &hand);
    assert_eq!(seat.0, 1, "Bob leads");
    let deck: Vec<String> = deck.iter().map(ToString::to_string).collect();
    let body = json!({"variant": "continental", "rated": true,
        "seats": [{"name": "Ann", "player": "u-ann"}, {"name": "Bob", "player": "u-bob"}, {"bot": "hard"}],
        "seed": 1, "first_dealer": 0, "stacked_decks": [deck]});
    Table::of_created(&create_with(app, ACME, &body).await)
}

/// Bob goes out at once: the game is finished. Returns the finished view.
async fn bob_goes_out(app: &TestApp, table: &Table) -> Value {
    let body = json!({"melds": OUT_AT_ONCE.iter().map(|m| json!({"cards": m})).collect::<Vec<_>>()});
    let out = app
        .post_as(&format!("{}/melds", table.path()), &table.tokens[1], &body, &[])
        .await
        .ok("Bob goes out");
    assert_eq!(out["status"], "finished", "{out}");
    out
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
            .rate(&Ruleset::default_for(Variant::Continental), &seats, &standings)
            .expect("rated");
        for (i, change) in want.seats.iter().enumerate() {
            let got = &view["players"][i]["rating_change"];
            assert_close(
                rating(&got["before"]),
                change.before,
                &format!("{backend:?}: seat {i} before"),
            );
            assert_close(
                rating(&got["after"]),
                change.after,
                &format!("{backend:?}: seat {i} after"),
            );
            assert_eq!(
                got["after"]["display"],
                change.after.display(),
                "{backend:?}: seat {i}"
            );
        }
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
        for ((_, got), want) in stored.iter().zip(&want.seats) {
            assert_close(*got, want.after, &format!("{backend:?}: kept"));
        }
        assert_eq!(
            count(app, "SELECT COUNT(*) FROM ratings_due").await,
            0,
            "{backend:?}: the queue is empty once the game is told"
        );
        assert_eq!(
            count(
                app,
                "SELECT COUNT(*) FROM ratings WHERE tenant = 'acme' AND games = 1"
            )
            .await,
            3,
            "{backend:?}: each participant rated once"
        );
        assert_eq!(
            count(app, "SELECT COUNT(*) FROM ratings WHERE won = 1").await,
            1,
            "{backend:?}: one winner, Bob"
        );
    })
    .await;
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
