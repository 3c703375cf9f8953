//! Players and ratings (issue 44, docs/ratings.md): the store's ratings with their fallbacks.

use continental::config::{DatabaseSettings, Limits};
use continental::domain::{Participant, PlayerId, Rating, bot_seed};
use continental::store::{Database, Live, Store};
use engine::Variant;
use engine::bot::Level;
use sqlx::Connection;

use crate::helpers::{backends, drop_database, fresh_database};

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
