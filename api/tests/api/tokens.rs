//! Seat tokens: every bad token is refused, and no seat sees or acts for another; the secret
//! that signs them is 32 bytes or more, given, read from a file, or stored.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use continental::auth::{AUDIENCE, Claims, ISSUER};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;

use continental::config::DatabaseSettings;
use sqlx::Connection;

use crate::helpers::{
    Backend, Binary, TEST_SECRET, TestApp, backends, create, database_url, drop_database, fresh_database,
};
use crate::on_every_backend;

fn claims(game: &str, seat: u8, exp_offset: i64) -> Claims {
    let now = jsonwebtoken::get_current_timestamp();
    let game = uuid::Uuid::parse_str(game).expect("a game id");
    Claims {
        iss: ISSUER.into(),
        aud: AUDIENCE.into(),
        sub: format!("game/{game}/seat/{seat}"),
        exp: now.saturating_add_signed(exp_offset),
        iat: now,
        game,
        seat,
        generation: 0,
    }
}

fn sign(alg: Algorithm, secret: &str, c: &Claims) -> String {
    jsonwebtoken::encode(&Header::new(alg), c, &EncodingKey::from_secret(secret.as_bytes())).expect("sign")
}

async fn bad_tokens_are_refused(app: &TestApp) {
    let table = create(app, "may_i", 3, 1, json!({})).await;
    let other = create(app, "may_i", 3, 2, json!({})).await;
    let path = format!("/v1/games/{}", table.id);
    let good = &table.tokens[0];
    let parts: Vec<&str> = good.split('.').collect();
    let mut payload: serde_json::Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).expect("base64")).expect("JSON");
    payload["seat"] = json!(1);
    payload["sub"] = json!(format!("game/{}/seat/1", table.id));
    let tampered = format!(
        "{}.{}.{}",
        parts[0],
        URL_SAFE_NO_PAD.encode(payload.to_string()),
        parts[2]
    );
    let none = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#),
        URL_SAFE_NO_PAD.encode(serde_json::to_string(&claims(&table.id, 0, 3600)).expect("JSON"))
    );
    let rows: Vec<(String, u16, &str, &str)> = vec![
        (String::new(), 401, "no token at all", "Authorization: Bearer"),
        ("not.a.jwt".into(), 401, "garbage", "not a well-formed JWT"),
        (none, 401, "alg: none is never accepted", "HS256"),
        (
            sign(Algorithm::HS384, TEST_SECRET, &claims(&table.id, 0, 3600)),
            401,
            "another algorithm (HS384)",
            "HS256",
        ),
        (
            tampered,
            401,
            "a tampered payload breaks the signature",
            "signature",
        ),
        (
            sign(Algorithm::HS256, "another secret", &claims(&table.id, 0, 3600)),
            401,
            "signed with another secret",
            "signature",
        ),
        (
            sign(Algorithm::HS256, TEST_SECRET, &claims(&table.id, 0, -3600)),
            401,
            "expired an hour ago",
            "expired",
        ),
        (
            other.tokens[0].clone(),
            403,
            "a token of another game",
            "another game",
        ),
        (
            sign(Algorithm::HS256, TEST_SECRET, &claims(&table.id, 7, 3600)),
            403,
            "a seat this game does not have",
            "",
        ),
    ];
    for (token, status, what, says) in rows {
        let reply = if token.is_empty() {
            app.get(&path).await
        } else {
            app.get_as(&path, &token).await
        };
        let code = if status == 401 {
            "unauthorized"
        } else {
            "forbidden"
        };
        reply.assert_problem(status, code, what);
        let detail = reply.json()["detail"].as_str().unwrap_or_default().to_owned();
        assert!(
            detail.contains(says),
            "{what}: the detail says {says:?}: {detail}"
        );
        for internal in ["variant", "expected one of", "Error", "Base64", "Json"] {
            assert!(
                !detail.contains(internal),
                "{what}: no library internals: {detail}"
            );
        }
        let draw = app
            .post_as(&format!("{path}/draw"), &token, &json!({"source": "stock"}), &[])
            .await;
        assert_eq!(
            draw.status.as_u16(),
            status,
            "{what}: a move is refused the same way"
        );
    }
    let ok = app.get_as(&path, good).await;
    assert_eq!(ok.status.as_u16(), 200, "the good token still works");
}
on_every_backend!(bad_tokens_are_refused_on_every_backend, bad_tokens_are_refused);

async fn seats_are_isolated(app: &TestApp) {
    let table = create(app, "may_i", 3, 3, json!({})).await;
    let path = format!("/v1/games/{}", table.id);
    let zero = app.get_as(&path, &table.tokens[0]).await.json();
    let one = app.get_as(&path, &table.tokens[1]).await.json();
    assert_eq!(zero["you"]["seat"], 0, "seat 0's token shows seat 0");
    assert_eq!(one["you"]["seat"], 1, "seat 1's token shows seat 1");
    assert_ne!(zero["you"]["hand"], one["you"]["hand"], "each sees its own hand");
    let text = serde_json::to_string(&one).expect("JSON");
    assert!(
        !text.contains(&serde_json::to_string(&zero["you"]["hand"]).expect("JSON")),
        "seat 1 never sees seat 0's hand"
    );
    assert_eq!(one["players"][0]["hand_count"], 12, "other hands are counts");
    // first_dealer 0: seat 1 is in turn. Seat 2 may not act for it.
    let turn = zero["turn"]["seat"].as_u64().expect("a seat in turn");
    let not_in_turn = (turn + 1) % 3;
    let reply = app
        .post_as(
            &format!("{path}/draw"),
            &table.tokens[not_in_turn as usize],
            &json!({"source": "stock"}),
            &[],
        )
        .await;
    reply.assert_problem(409, "not_your_turn", "a seat acts only for itself");
    // Drawing from the stock: the card is seen by the drawer only, in views and events.
    let drew = app
        .post_as(
            &format!("{path}/draw"),
            &table.tokens[turn as usize],
            &json!({"source": "stock"}),
            &[],
        )
        .await;
    assert_eq!(drew.status.as_u16(), 200, "{}", drew.text());
    let mine = app
        .get_as(&format!("{path}/events?after=0"), &table.tokens[turn as usize])
        .await
        .json();
    let theirs = app
        .get_as(
            &format!("{path}/events?after=0"),
            &table.tokens[not_in_turn as usize],
        )
        .await
        .json();
    let drawn = |v: &serde_json::Value| {
        v["events"]
            .as_array()
            .expect("events")
            .iter()
            .find(|e| e["event"]["type"] == "drew")
            .map(|e| e["event"]["card"].clone())
    };
    assert!(
        drawn(&mine).is_some_and(|c| c.is_string()),
        "the drawer sees the card: {mine}"
    );
    assert_eq!(
        drawn(&theirs),
        Some(serde_json::Value::Null),
        "others see a null card"
    );
    let dealt_to_me = theirs["events"]
        .as_array()
        .expect("events")
        .iter()
        .find(|e| e["event"]["type"] == "dealt" && e["event"]["seat"] == turn)
        .map(|e| e["event"]["cards"].clone());
    assert_eq!(
        dealt_to_me,
        Some(serde_json::Value::Null),
        "others' dealt hands are hidden in events"
    );
}
on_every_backend!(seats_are_isolated_on_every_backend, seats_are_isolated);

/// A file in a directory of its own, removed when dropped.
struct SecretFile(std::path::PathBuf);

impl SecretFile {
    /// A file holding `text`.
    fn holding(text: &str) -> SecretFile {
        let dir = std::env::temp_dir().join(format!("continental-secret-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).expect("a directory");
        let file = dir.join("jwt_secret");
        std::fs::write(&file, text).expect("the secret written");
        SecretFile(file)
    }

    fn path(&self) -> String {
        self.0.display().to_string()
    }
}

impl Drop for SecretFile {
    fn drop(&mut self) {
        if let Some(dir) = self.0.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A seat-token secret shorter than 32 bytes, given as a value or in a file, stops the binary
/// before it serves anything: it exits non-zero with a message naming the setting and the
/// minimum (RFC 7518, section 3.2: a 256-bit key for HS256).
#[actix_web::test]
async fn a_short_token_secret_stops_the_binary() {
    let database = fresh_database(&Backend::Sqlite).await;
    let url = database_url(&database);
    let short = SecretFile::holding("abc\n");
    let path = short.path();
    let cases = [
        ("CONTINENTAL_JWT_SECRET", "abc"),
        ("CONTINENTAL_JWT_SECRET_FILE", path.as_str()),
    ];
    for (setting, value) in cases {
        let (status, output) = Binary::refused(&[("DATABASE_URL", url.as_str()), (setting, value)]).await;
        assert!(!status.success(), "{setting}: {status}: {output}");
        assert!(
            output.contains(setting) && output.contains("at least 32"),
            "{setting}: the message names the setting and the minimum: {output}"
        );
    }
    drop_database(&database).await;
}

/// A secret read from a file (as Docker and Kubernetes mount them), without its line ending,
/// signs the tokens.
#[actix_web::test]
async fn a_secret_file_signs_the_tokens() {
    const SECRET: &str = "a-secret-kept-in-a-file-0123456789abcdef";
    let database = fresh_database(&Backend::Sqlite).await;
    let url = database_url(&database);
    let file = SecretFile::holding(&format!("{SECRET}\n"));
    let path = file.path();
    let service = Binary::start(&[
        ("DATABASE_URL", url.as_str()),
        ("CONTINENTAL_JWT_SECRET_FILE", path.as_str()),
    ])
    .await;
    let mut res = awc::Client::default()
        .post(format!("{}/v1/games", service.address))
        .send_json(&json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}]}))
        .await
        .expect("an answer");
    let created: serde_json::Value = res.json().await.expect("JSON");
    let token = created["seats"][0]["token"].as_str().expect("a token");
    let mut validation = jsonwebtoken::Validation::new(Algorithm::HS256);
    validation.set_audience(&[AUDIENCE]);
    let verified = jsonwebtoken::decode::<Claims>(
        token,
        &jsonwebtoken::DecodingKey::from_secret(SECRET.as_bytes()),
        &validation,
    );
    assert!(verified.is_ok(), "signed with the file's secret: {verified:?}");
    drop(service);
    drop_database(&database).await;
}

/// A secret stored in the database shorter than 32 bytes (written by hand, or by another
/// program) stops the binary too, with a message saying how to replace it: it is not replaced
/// behind the back of the replicas still signing with it.
#[actix_web::test]
async fn a_short_stored_secret_stops_the_binary() {
    for backend in backends() {
        // Migrated, with no secret stored yet.
        let app = TestApp::spawn(&backend).await;
        let store = "INSERT INTO settings (name, value) VALUES ('jwt_secret', 'short')";
        match &app.database {
            DatabaseSettings::Postgres { url } => {
                let mut conn = sqlx::PgConnection::connect(url).await.expect("connect");
                sqlx::query(store).execute(&mut conn).await.expect("stored");
            }
            DatabaseSettings::Sqlite { path } => {
                let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite:{path}"))
                    .await
                    .expect("connect");
                sqlx::query(store).execute(&mut conn).await.expect("stored");
            }
        }
        let url = database_url(&app.database);
        let (status, output) = Binary::refused(&[("DATABASE_URL", url.as_str())]).await;
        assert!(!status.success(), "{backend:?}: {status}: {output}");
        assert!(
            output.contains("stored in the database")
                && output.contains("at least 32")
                && output.contains("CONTINENTAL_JWT_SECRET"),
            "{backend:?}: the message says what is wrong and what to do: {output}"
        );
        app.clean_up().await;
    }
}
