//! The request log of the built binary, read from its stdout: one JSON line per request at the
//! default level, with the matched route, the status, the latency, the request id (a client's
//! own kept) and a refusal's code; never a secret; `continental::access=warn` silences them.
//! A background pass that is slow says so.

use std::time::Duration;

use continental::config::DatabaseSettings;
use serde_json::{Value, json};
use sqlx::Connection;

use crate::helpers::{
    ACME, Backend, Binary, Table, backends, database_url, drop_database, eventually, fresh_database,
    hold_game, server_backends,
};

/// How long a line may take to reach stdout through the log writer's thread.
const WRITTEN_WITHIN: Duration = Duration::from_secs(10);

/// The binary as a child process, with every line of its stdout.
struct Logged(Binary);

impl Logged {
    /// Starts the binary on `database` with JSON logs, the studio key `acme`, and `RUST_LOG`
    /// if given (else its default). A request held up by another writer gives up after
    /// 300 ms, so that the 503s these tests ask for come quickly.
    async fn start(database: &DatabaseSettings, rust_log: Option<&str>) -> Logged {
        let url = database_url(database);
        let keys = format!("acme:{ACME}");
        let mut env = vec![
            ("DATABASE_URL", url.as_str()),
            ("CONTINENTAL_API_KEYS", keys.as_str()),
            ("CONTINENTAL_LOCK_TIMEOUT_MS", "300"),
        ];
        if let Some(filter) = rust_log {
            env.push(("RUST_LOG", filter));
        }
        Logged(Binary::start(&env).await)
    }

    /// Every line so far, as JSON (a line that is not JSON fails the test).
    fn json(&self) -> Vec<Value> {
        self.0
            .lines()
            .iter()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("a JSON line, not {l:?}: {e}")))
            .collect()
    }

    /// The whole output as text.
    fn text(&self) -> String {
        self.0.lines().join("\n")
    }

    /// Sends a request with these headers; answers the status, the `X-Request-Id` echoed
    /// and the JSON body.
    async fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&Value>,
    ) -> (u16, String, Value) {
        let body = body.map(|b| b.to_string().into_bytes());
        let reply = self.0.send(method, path, body.as_deref(), headers).await;
        let id = reply
            .header("x-request-id")
            .expect("every response carries X-Request-Id");
        (
            reply.status.as_u16(),
            id,
            serde_json::from_slice(&reply.body).unwrap_or(Value::Null),
        )
    }

    /// Sends a request answered `503` (another writer holds the game past the lock timeout):
    /// its request id.
    async fn answered_503(&self, database: &DatabaseSettings) -> String {
        let game = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"bot": true}]});
        let key = [("x-api-key", ACME)];
        let (status, id, _) = match database {
            // The whole file: even a creation waits.
            DatabaseSettings::Sqlite { .. } => {
                let holder = hold_game(database, "").await;
                let answer = self.send("POST", "/v1/games", &key, Some(&game)).await;
                holder.release().await;
                answer
            }
            // One game's row: Ann's draw (she is in turn once the bot has played) waits.
            DatabaseSettings::Postgres { .. } => {
                let (status, _, created) = self.send("POST", "/v1/games", &key, Some(&game)).await;
                assert_eq!(status, 201, "{created}");
                let table = Table::of_created(&created);
                // At a person's table the bot plays after the creation, at its pace.
                self.0.when_in_turn(&table, 0, 0).await;
                let holder = hold_game(database, &table.id).await;
                let bearer = format!("Bearer {}", table.tokens[0]);
                let draw = json!({"source": "stock"});
                let answer = self
                    .send(
                        "POST",
                        &format!("{}/draw", table.path()),
                        &[("authorization", &bearer)],
                        Some(&draw),
                    )
                    .await;
                holder.release().await;
                answer
            }
        };
        assert_eq!(status, 503, "a request while another writer holds the game");
        id
    }

    /// The access lines, once there are at least `count` of them.
    async fn access_lines(&self, count: usize) -> Vec<Value> {
        eventually(WRITTEN_WITHIN, &format!("{count} access lines"), async || {
            let lines = self.access();
            if lines.len() >= count {
                Ok(lines)
            } else {
                Err(lines)
            }
        })
        .await
    }

    /// The access lines so far.
    fn access(&self) -> Vec<Value> {
        self.json()
            .into_iter()
            .filter(|l| l["target"] == "continental::access")
            .collect()
    }
}

#[actix_web::test]
async fn every_request_is_one_json_line_with_its_route_status_latency_and_id_and_no_secret() {
    for backend in backends() {
        let database = fresh_database(&backend).await;
        let service = Logged::start(&database, None).await;
        let game = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"bot": true}]});
        let (status, created_id, created) = service
            .send(
                "POST",
                "/v1/games",
                &[("x-api-key", ACME), ("x-request-id", "client-id-42")],
                Some(&game),
            )
            .await;
        assert_eq!(status, 201, "{backend:?}: {created}");
        assert_eq!(
            created_id, "client-id-42",
            "{backend:?}: the client's request id is kept"
        );
        let id = created["id"].as_str().expect("an id");
        let token = created["seats"][0]["token"].as_str().expect("a seat token");
        let bearer = format!("Bearer {token}");
        let (status, read_id, _) = service
            .send(
                "GET",
                &format!("/v1/games/{id}"),
                &[("authorization", &bearer)],
                None,
            )
            .await;
        assert_eq!(status, 200, "{backend:?}: the read");
        let (status, refused_id, _) = service
            .send(
                "GET",
                &format!("/v1/games/{id}"),
                &[("authorization", "Bearer nope")],
                None,
            )
            .await;
        assert_eq!(status, 401, "{backend:?}: the refusal");
        let mut sent = vec![
            (created_id, "POST", "/v1/games", 201, None, "INFO"),
            (read_id, "GET", "/v1/games/{id}", 200, None, "INFO"),
            (
                refused_id,
                "GET",
                "/v1/games/{id}",
                401,
                Some("unauthorized"),
                "INFO",
            ),
        ];
        if let DatabaseSettings::Sqlite { .. } = &database {
            let failed_id = service.answered_503(&database).await;
            sent.push((
                failed_id,
                "POST",
                "/v1/games",
                503,
                Some("service_unavailable"),
                "WARN",
            ));
        }

        let lines = service.access_lines(sent.len()).await;
        assert_eq!(
            lines.len(),
            sent.len(),
            "{backend:?}: one access line per request: {lines:#?}"
        );
        let all = service.json();
        // The background workers (sweeps, deadlines, deliveries) may hit the locked file too,
        // and sqlx warns of their slow statements: those lines are theirs, not a request's.
        let background = [
            "continental::startup",
            "continental::service::deadlines",
            "continental::service::webhooks",
        ];
        let warnings: Vec<&Value> = all
            .iter()
            .filter(|l| l["level"] != "INFO")
            .filter(|l| l["target"].as_str().is_some_and(|t| t.starts_with("continental")))
            .filter(|l| !background.iter().any(|t| l["target"] == *t))
            .collect();
        assert_eq!(
            warnings.len(),
            sent.iter().filter(|s| s.5 != "INFO").count(),
            "{backend:?}: a 5xx is one line, not its access line and another: {warnings:#?}"
        );
        for (request_id, method, route, status, code, level) in &sent {
            let of_request: Vec<&Value> = all.iter().filter(|l| l["request_id"] == **request_id).collect();
            assert_eq!(
                of_request.len(),
                1,
                "{backend:?}: exactly one line for {request_id}: {of_request:#?}"
            );
            let line = of_request[0];
            let context = format!("{backend:?}: {line}");
            assert_eq!(line["target"], "continental::access", "{context}");
            assert_eq!(line["level"], *level, "{context}");
            assert_eq!(line["method"], *method, "{context}");
            assert_eq!(
                line["route"], *route,
                "{context}: the matched pattern, not the path"
            );
            assert_eq!(line["status"], *status, "{context}");
            assert!(
                line["latency_ms"].as_f64().is_some_and(|ms| ms >= 0.0),
                "{context}: a latency"
            );
            assert_eq!(
                line["code"].as_str(),
                *code,
                "{context}: a refusal's code, only then"
            );
            assert_eq!(
                line["cause"].is_string(),
                *status >= 500,
                "{context}: a 5xx's cause in its own line, and only then"
            );
        }
        let text = service.text();
        assert!(
            !text.contains(ACME),
            "{backend:?}: the X-Api-Key secret is never logged"
        );
        assert!(
            !text.contains(token),
            "{backend:?}: the seat token is never logged"
        );
        drop(service);

        // Only the 5xx lines at `continental::access=warn`.
        let quiet = Logged::start(&database, Some("info,continental::access=warn")).await;
        let (status, _, _) = quiet.send("GET", "/healthz", &[], None).await;
        assert_eq!(status, 200, "{backend:?}");
        let (status, _, _) = quiet.send("GET", "/v1/games/x", &[], None).await;
        assert_eq!(status, 404, "{backend:?}");
        // A 5xx's line is written, after any the requests before it had.
        let failed_id = quiet.answered_503(&database).await;
        let lines = quiet.access_lines(1).await;
        assert!(
            lines.iter().all(|l| l["request_id"] == failed_id.as_str()),
            "{backend:?}: no 2xx or 4xx line at warn, only the 5xx: {lines:#?}"
        );
        drop(quiet);
        drop_database(&database).await;
    }
}

/// docs/operations.md#logs: every background pass that takes longer than
/// `CONTINENTAL_SLOW_PASS_MS` (0 here: every pass) logs one line with what it did and how
/// long it took: the sweep, the turn deadlines and the webhook outbox.
#[actix_web::test]
async fn a_slow_background_pass_logs_what_it_did_and_how_long_it_took() {
    for backend in backends() {
        let database = fresh_database(&backend).await;
        let url = database_url(&database);
        let service = Binary::start(&[
            ("DATABASE_URL", url.as_str()),
            ("CONTINENTAL_SLOW_PASS_MS", "0"),
            ("CONTINENTAL_SWEEP_INTERVAL_S", "1"),
        ])
        .await;
        let passes: [(&str, &[&str]); 3] = [
            ("slow sweep of expired keys and games", &["keys", "games"]),
            ("slow pass over turn deadlines", &["turns"]),
            ("slow pass over the webhook outbox", &["claimed"]),
        ];
        for (message, counts) in passes {
            let lines = service.lines_saying(message).await;
            let line = lines
                .first()
                .unwrap_or_else(|| panic!("{backend:?}: no {message:?} line: {}", service.output()));
            assert_eq!(line["level"], "WARN", "{backend:?}: {line}");
            assert!(line["took_ms"].is_u64(), "{backend:?}: how long: {line}");
            for count in counts {
                assert!(line[count].is_u64(), "{backend:?}: what it did ({count}): {line}");
            }
        }
        drop(service);
        drop_database(&database).await;
    }
}

/// A sweep held up by a locked table (as by a long statement or a migration) is slow for real:
/// past a threshold of 300 ms, it logs its line with the time it waited.
#[actix_web::test]
async fn a_sweep_held_up_by_a_locked_table_logs_its_line() {
    const HELD: Duration = Duration::from_millis(1500);
    for backend in server_backends() {
        let database = fresh_database(&backend).await;
        let url = database_url(&database);
        let service = Binary::start(&[
            ("DATABASE_URL", url.as_str()),
            ("CONTINENTAL_SLOW_PASS_MS", "300"),
            ("CONTINENTAL_SWEEP_INTERVAL_S", "1"),
            ("CONTINENTAL_LOCK_TIMEOUT_MS", "5000"),
        ])
        .await;
        let mut holder = sqlx::PgConnection::connect(&url).await.expect("connect");
        for sql in ["BEGIN", "LOCK TABLE idempotency_keys IN ACCESS EXCLUSIVE MODE"] {
            sqlx::query(sql)
                .execute(&mut holder)
                .await
                .expect("the table locked");
        }
        // On a cluster the sweep reads each shard on its worker, which a lock taken on the
        // coordinator does not hold: its shards are locked there too, as a migration's would be.
        let mut shard_holders = Vec::new();
        if backend == Backend::Citus {
            let shards: Vec<(String, i32, String)> = sqlx::query_as(
                "SELECT nodename::text, nodeport, shard_name::text FROM citus_shards \
                 WHERE table_name = 'idempotency_keys'::regclass",
            )
            .fetch_all(&mut holder)
            .await
            .expect("the shards");
            let (base, name) = url.rsplit_once('/').expect("a database URL");
            let base = base.rsplit_once('@').map_or("postgres://", |(user, _)| user);
            for (host, port, shard) in shards {
                let mut conn = sqlx::PgConnection::connect(&format!("{base}@{host}:{port}/{name}"))
                    .await
                    .expect("the shard's worker");
                for sql in [
                    "BEGIN".to_owned(),
                    "SET LOCAL citus.enable_manual_changes_to_shards TO on".to_owned(),
                    format!("LOCK TABLE {shard} IN ACCESS EXCLUSIVE MODE"),
                ] {
                    sqlx::query(sqlx::AssertSqlSafe(sql))
                        .execute(&mut conn)
                        .await
                        .expect("the shard locked");
                }
                shard_holders.push(conn);
            }
        }
        // The held lock is the fault: a sweep begins within the first second, and waits for
        // the rest at least.
        actix_web::rt::time::sleep(HELD).await;
        for conn in std::iter::once(&mut holder).chain(shard_holders.iter_mut()) {
            sqlx::query("COMMIT").execute(conn).await.expect("released");
        }
        let lines = service.lines_saying("slow sweep of expired keys and games").await;
        assert!(
            lines
                .iter()
                .any(|l| l["took_ms"].as_u64().is_some_and(|ms| ms >= 500)),
            "{backend:?}: the sweep that waited logs how long: {lines:?}\n{}",
            service.output()
        );
        drop(service);
        drop_database(&database).await;
    }
}
