//! The differential write test: the same requests on every backend (SQLite, PostgreSQL when
//! `DATABASE_URL` names one, Citus when `CITUS_URL` does) leave the same rows, every column of
//! every table a game's requests write (the game, its seats, events, idempotency keys, webhook
//! outbox and its heads, the creation key), compared with SQLite's after what differs by nature is normalised:
//! ids, times, secrets and tokens. Each store renders what an action writes (`store::Write`) its
//! own way; a column one of them forgets, or fills otherwise, fails here.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{
    ACME, Backend, Receiver, Reply, Table, TestApp, backends, discard, draw, edit_state, eventually, keyed,
    on_game_rows,
};
use continental::config::DatabaseSettings;
use engine::DrawSource;

/// The tables a game's requests write, and which of their rows are the game's (`$1`, its id).
const TABLES: &[(&str, &str)] = &[
    ("games", "id = $1"),
    ("seats", "game_id = $1"),
    ("events", "game_id = $1"),
    ("idempotency_keys", "game_id = $1"),
    ("webhook_deliveries", "game_id = $1"),
    ("webhook_heads", "game_id = $1"),
    // A creation's key belongs to no game yet: the test's database holds that one.
    ("creation_keys", "$1 IS NOT NULL"),
];

/// Columns that hold a time (of the clock, not of the game): compared as present or not.
const TIMES: &[&str] = &[
    "created_at",
    "updated_at",
    "created_us",
    "next_attempt_at",
    "due_at",
    "deadline",
    "set_aside_at",
];

/// The rows of each table, each row its columns by name, normalised, in order.
type Rows = BTreeMap<String, Vec<BTreeMap<String, String>>>;

/// The rows of each table as read, each row its columns by name, each value as text (`None`:
/// NULL).
type Read = Vec<(String, Vec<BTreeMap<String, Option<String>>>)>;

/// Plays the same requests on `app`: a studio's creation with a key, a webhook and an open
/// seat; a keyed join (the deal); a keyed draw and discard; a turn timed out by the deadline
/// pass; a studio's reissued token and the game called off. Returns the game's id once every
/// delivery of its events is settled (delivered: the worker's columns then hold still).
async fn play(app: &TestApp, hook: &Receiver) -> String {
    // Arrange: a studio's game with a turn clock and a webhook, its second seat open.
    let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"open": true}], "seed": 11,
        "first_dealer": 0, "options": {"turn_seconds": 604_800}, "webhook_url": hook.url});
    let created = app
        .post_with_key("/v1/games", ACME, &body, &keyed("create-1"))
        .await;
    assert_eq!(
        created.status.as_u16(),
        201,
        "a keyed creation: {}",
        created.text()
    );
    let created = created.json();
    let id = created["id"].as_str().expect("an id").to_owned();
    let ann = created["seats"][0]["token"]
        .as_str()
        .expect("Ann's token")
        .to_owned();

    // Act: the join deals (an action under the optimistic lock that changes a seat).
    let join = format!("/v1/games/{id}/join");
    let bytes = serde_json::to_vec(&json!({"name": "Bob"})).expect("JSON");
    let joined = app.send("POST", &join, Some(&bytes), &keyed("join-1")).await;
    let bob = succeeded(&joined, "a keyed join")["token"]
        .as_str()
        .expect("Bob's token")
        .to_owned();
    let table = Table {
        id: id.clone(),
        tokens: vec![ann, bob],
    };
    // A keyed draw and discard by whoever is in turn.
    let seat = app.in_turn(&table).await;
    let drew = app
        .act(&table, seat, &draw(DrawSource::Stock), &keyed("draw-1"))
        .await;
    let drew = succeeded(&drew, "a keyed draw");
    let card = drew["you"]["hand"][0].as_str().expect("a card").to_owned();
    let discarded = app.act(&table, seat, &discard(&card), &keyed("discard-1")).await;
    succeeded(&discarded, "a keyed discard");
    // The next turn's deadline passed (in the state and the row alike): the deadline pass
    // claims the game (its due lock) and plays the turn as the bot would.
    edit_state(app, &id, |s| s["deadline"] = json!(1)).await;
    on_game_rows(app, &id, "UPDATE games SET deadline = 1 WHERE id = $1", None).await;
    eventually(Duration::from_secs(30), "the turn timed out", async || {
        let log = app.log(&table, 0).await;
        match log.iter().any(|e| e.event["type"] == "timed_out") {
            true => Ok(()),
            false => Err(log.len()),
        }
    })
    .await;
    // A studio's calls, under the row lock: a token reissued, the game called off.
    let reissue = format!("/v1/games/{id}/seats/0/token");
    let reissued = app.post_with_key(&reissue, ACME, &json!({}), &[]).await;
    succeeded(&reissued, "a reissued token");
    let end = format!("/v1/games/{id}/end");
    let ended = app
        .post_with_key(&end, ACME, &json!({"reason": "the differential test"}), &[])
        .await;
    succeeded(&ended, "called off");
    let status = format!("/v1/games/{id}/webhook");
    eventually(Duration::from_secs(30), "every delivery settled", async || {
        let counts = app.get_with_key(&status, ACME).await.json();
        match counts["pending"] == 0 && counts["failed"] == 0 {
            true => Ok(()),
            false => Err(counts),
        }
    })
    .await;
    id
}

/// The body of a successful reply; panics with `what` and the reply otherwise.
fn succeeded(reply: &Reply, what: &str) -> Value {
    assert!(
        reply.status.is_success(),
        "{what}: {} {}",
        reply.status,
        reply.text()
    );
    reply.json()
}

/// Every row of [`TABLES`] for game `id` in `database`, each value as text (bytes as hex).
async fn rows(database: &DatabaseSettings, id: &str) -> Read {
    let id: uuid::Uuid = id.parse().expect("a game id");
    // The same reading on either backend's connection type.
    macro_rules! read_on {
        ($conn:expr) => {{
            use sqlx::{Column, Connection, Row};
            let mut conn = $conn.await.expect("the test database");
            let mut out = Vec::new();
            for (table, which) in TABLES {
                let sql = format!("SELECT * FROM {table} WHERE {which}");
                let found = sqlx::query(sqlx::AssertSqlSafe(sql))
                    .bind(id)
                    .fetch_all(&mut conn)
                    .await
                    .unwrap_or_else(|e| panic!("the rows of {table}: {e}"));
                let mut rows = Vec::new();
                for row in &found {
                    let mut values = BTreeMap::new();
                    for (i, column) in row.columns().iter().enumerate() {
                        // The first type the column's value decodes as: the values are the
                        // same whatever type each database gives them.
                        let value = row
                            .try_get::<Option<i64>, _>(i)
                            .map(|v| v.map(|v| v.to_string()))
                            // PostgreSQL's booleans as SQLite stores them.
                            .or_else(|_| {
                                row.try_get::<Option<bool>, _>(i)
                                    .map(|v| v.map(|v| i64::from(v).to_string()))
                            })
                            .or_else(|_| row.try_get::<Option<String>, _>(i))
                            .or_else(|_| {
                                row.try_get::<Option<uuid::Uuid>, _>(i)
                                    .map(|v| v.map(|v| v.to_string()))
                            })
                            .or_else(|_| row.try_get::<Option<Vec<u8>>, _>(i).map(|v| v.map(hex)))
                            .unwrap_or_else(|e| panic!("{table}.{}: {e}", column.name()));
                        values.insert(column.name().to_owned(), value);
                    }
                    rows.push(values);
                }
                out.push((table.to_string(), rows));
            }
            out
        }};
    }
    match database {
        DatabaseSettings::Sqlite { path } => {
            read_on!(sqlx::SqliteConnection::connect(&format!("sqlite:{path}")))
        }
        DatabaseSettings::Postgres { url } => read_on!(sqlx::PgConnection::connect(url)),
    }
}

/// Bytes as text: UTF-8 when they are (a kept response's body), else hex.
fn hex(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| e.into_bytes().iter().map(|b| format!("{b:02x}")).collect())
}

/// `rows` of game `id` with what differs by nature replaced by what it is: the game's id,
/// delivery ids, signed tokens and secrets by a name, times by whether there is one (in a
/// column or in a stored JSON document); rows in order.
fn normalised(id: &str, rows: Read) -> Rows {
    let mut out = Rows::new();
    for (table, found) in rows {
        let mut rows: Vec<BTreeMap<String, String>> = found
            .into_iter()
            .map(|row| {
                row.into_iter()
                    .map(|(column, value)| {
                        let value = match value {
                            None => "NULL".to_owned(),
                            Some(_) if TIMES.contains(&column.as_str()) => "<time>".to_owned(),
                            Some(_) if column == "webhook_secret" => "<secret>".to_owned(),
                            // A digest of the request, whose path names the game.
                            Some(_) if column == "request_hash" => "<hash>".to_owned(),
                            Some(_) if table == "webhook_deliveries" && column == "id" => {
                                "<delivery>".to_owned()
                            }
                            Some(v) => text(id, &v),
                        };
                        (column, value)
                    })
                    .collect()
            })
            .collect();
        rows.sort();
        out.insert(table, rows);
    }
    out
}

/// A value's text with the game's id and signed tokens named, and, when it is JSON, its times
/// too.
fn text(id: &str, value: &str) -> String {
    let value = tokens_named(&value.replace(id, "<game>"));
    match serde_json::from_str::<Value>(&value) {
        Ok(mut json) if json.is_object() || json.is_array() => {
            times_named(&mut json);
            json.to_string()
        }
        _ => value,
    }
}

/// `text` with every signed token (a JWT: `eyJ...`) replaced by `<token>`: each database signs
/// with its own secret.
fn tokens_named(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("eyJ") {
        out.push_str(&rest[..at]);
        out.push_str("<token>");
        let token = &rest[at..];
        let end = token
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
            .unwrap_or(token.len());
        rest = &token[end..];
    }
    out.push_str(rest);
    out
}

/// The times in a stored JSON document (a game's deadline, a paced move's time) replaced by
/// `<time>`, and a webhook's secret (in a kept creation's response) by `<secret>`.
fn times_named(json: &mut Value) {
    match json {
        Value::Object(o) => {
            for (k, v) in o.iter_mut() {
                if ["deadline", "bot_at", "claim_until", "timestamp"].contains(&k.as_str()) && !v.is_null() {
                    *v = json!("<time>");
                } else if k == "webhook_secret" && v.is_string() {
                    *v = json!("<secret>");
                } else {
                    times_named(v);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(times_named),
        _ => {}
    }
}

#[actix_web::test]
async fn every_backend_writes_the_same_rows() {
    let mut written: Vec<(Backend, Rows)> = Vec::new();
    // One receiver for all: the games' webhook URLs are the same.
    let hook = Receiver::start(200);
    for backend in backends() {
        let app = TestApp::spawn_studio(&backend, None).await;
        let id = play(&app, &hook).await;
        let rows = normalised(&id, rows(&app.database, &id).await);
        for (table, _) in TABLES {
            assert!(
                !rows[*table].is_empty(),
                "{backend:?}: the requests wrote no row of {table}: the test checks nothing there"
            );
        }
        written.push((backend, rows));
        app.clean_up().await;
    }
    let ((first, expected), others) = written.split_first().expect("SQLite at least");
    let mut differ = Vec::new();
    for (backend, rows) in others {
        for (table, _) in TABLES {
            if rows[*table] != expected[*table] {
                differ.push(format!(
                    "{table} on {backend:?}:\n  {:?}\non {first:?}:\n  {:?}",
                    rows[*table], expected[*table]
                ));
            }
        }
    }
    assert!(differ.is_empty(), "rows that differ:\n{}", differ.join("\n"));
}
