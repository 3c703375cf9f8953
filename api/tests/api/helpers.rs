//! Everything the tests share: the service spawned on port 0 with a fresh database, typed
//! request helpers, stacked decks, bounded waits, a webhook receiver and a database proxy.
//! Test files use these and nothing of each other.

mod decks;
mod game;
mod otlp;
mod proxy;
mod receiver;
mod stream;
mod studio;
mod unavailable;
mod wait;

pub use decks::{dealt_deck, deck_with, local_config, local_game, sorted_first_deal};
pub use game::{
    QUICK_OUT, Table, create, discard, draw, go_out_quickly, keyed, may_i_between_deals_with, meld,
    play_turns,
};
pub use otlp::{Collector, Exported};
pub use proxy::{Proxy, upstream_of};
pub use receiver::{Received, Receiver, verified_by_the_library, verifies};
pub use stream::{Sse, SseReader};
pub use studio::{create_with, on_studio_backends};
pub use unavailable::{HUNG_WITHIN, assert_unavailable, hold_game, once_available, quick};
pub use wait::{eventually, timed, within};

use std::str::FromStr;
use std::time::Duration;

use awc::Client;
use awc::http::StatusCode;
use continental::config::{
    AsyncSettings, DatabaseSettings, Limits, LogFormat, MatchmakingSettings, Secret, Settings,
};
use continental::server_keys::ServerKeys;
use continental::startup::{Application, KillSwitch, Stopper};
use serde_json::Value;
use sqlx::Connection;
use uuid::Uuid;

/// The secret tests sign forged tokens with.
pub const TEST_SECRET: &str = "test-secret-0123456789abcdef-0123456789";

/// Which database a test app runs on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    /// A fresh SQLite file.
    Sqlite,
    /// A fresh database on the PostgreSQL server of `DATABASE_URL`.
    Postgres,
    /// A fresh distributed database on the Citus cluster whose coordinator `CITUS_URL` names.
    Citus,
}

/// The backends to run each test on: SQLite always, PostgreSQL when `DATABASE_URL` names one,
/// Citus when `CITUS_URL` names a coordinator.
pub fn backends() -> Vec<Backend> {
    let mut out = vec![Backend::Sqlite];
    if postgres_url().is_some() {
        out.push(Backend::Postgres);
    }
    if citus_url().is_some() {
        out.push(Backend::Citus);
    }
    out
}

/// The backends that are database servers (PostgreSQL, Citus), for tests of what only a
/// server does: replicas, row locks, a connection killed.
pub fn server_backends() -> Vec<Backend> {
    backends().into_iter().filter(|b| *b != Backend::Sqlite).collect()
}

/// `url` if it names a PostgreSQL server.
fn postgres_scheme(url: String) -> Option<String> {
    (url.starts_with("postgres://") || url.starts_with("postgresql://")).then_some(url)
}

/// The PostgreSQL server of `DATABASE_URL`, if it names one.
pub fn postgres_url() -> Option<String> {
    std::env::var("DATABASE_URL").ok().and_then(postgres_scheme)
}

/// The coordinator of the Citus cluster of `CITUS_URL`, if it names one.
pub fn citus_url() -> Option<String> {
    std::env::var("CITUS_URL").ok().and_then(postgres_scheme)
}

/// `url` with its database replaced by `name` (its query kept).
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b.to_owned(), format!("?{q}")),
        None => (url.to_owned(), String::new()),
    };
    let after_scheme = base.find("://").map_or(0, |i| i + 3);
    let base = match base[after_scheme..].find('/') {
        Some(i) => base[..after_scheme + i].to_owned(),
        None => base,
    };
    format!("{base}/{name}{query}")
}

/// The server part of `url`: what it names but the database.
fn server_of(url: &str) -> String {
    with_database(url, "")
}

/// A connection to the server of `url`, as named.
pub async fn connect(url: &str) -> sqlx::PgConnection {
    sqlx::PgConnection::connect_with(
        &sqlx::postgres::PgConnectOptions::from_str(url).expect("a PostgreSQL URL"),
    )
    .await
    .unwrap_or_else(|e| panic!("PostgreSQL answers at {url}: {e}"))
}

/// Creates database `name` on the Citus cluster of `CITUS_URL`, on every node, with the
/// extension and the cluster's nodes, as an operator sets up a database for the service: the
/// service's migrations distribute its tables. Few shards, so that each test's migrations are
/// quick; still spread over every worker.
///
/// With `reroute`, the database knows the worker of that port by the other address (a proxy
/// in front of it): what the coordinator and the other workers send it passes there.
pub async fn fresh_citus_database(reroute: Option<(i32, std::net::SocketAddr)>) -> DatabaseSettings {
    let name = format!("test_{}", Uuid::new_v4().simple());
    let url = citus_url().expect("CITUS_URL names a Citus coordinator");
    let mut admin = connect(&url).await;
    let nodes = citus_nodes(&mut admin).await;
    for sql in [
        "SET citus.enable_create_database_propagation TO on".to_owned(),
        format!("CREATE DATABASE {name}"),
        format!("ALTER DATABASE {name} SET citus.shard_count TO 4"),
    ] {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&mut admin)
            .await
            .expect("create a test database on every node");
    }
    let db_url = with_database(&url, &name);
    let mut conn = connect(&db_url).await;
    let workers: Vec<&(String, i32, i32)> = nodes.iter().filter(|(_, _, group)| *group != 0).collect();
    let hosts: Vec<&str> = workers.iter().map(|(h, _, _)| h.as_str()).collect();
    let ports: Vec<i32> = workers.iter().map(|(_, p, _)| *p).collect();
    let commands = vec!["CREATE EXTENSION IF NOT EXISTS citus"; workers.len()];
    // Two nodes set up in two databases at once must not both change the cluster's roles.
    for sql in [
        "CREATE EXTENSION IF NOT EXISTS citus",
        "SET citus.enable_create_role_propagation TO off",
        "SET citus.enable_alter_role_propagation TO off",
    ] {
        sqlx::query(sql)
            .execute(&mut conn)
            .await
            .expect("the citus extension");
    }
    sqlx::query("SELECT master_run_on_worker($1, $2, $3, false)")
        .bind(&hosts)
        .bind(&ports)
        .bind(&commands)
        .execute(&mut conn)
        .await
        .expect("the citus extension on every worker");
    for (host, port, group) in &nodes {
        let add = if *group == 0 {
            "SELECT citus_set_coordinator_host($1, $2)"
        } else {
            "SELECT citus_add_node($1, $2)"
        };
        let (host, port) = match reroute {
            Some((from, to)) if from == *port => (to.ip().to_string(), i32::from(to.port())),
            _ => (host.clone(), *port),
        };
        sqlx::query(add)
            .bind(host)
            .bind(port)
            .execute(&mut conn)
            .await
            .expect("the cluster's nodes");
    }
    DatabaseSettings::Postgres { url: db_url }
}

/// The primary nodes of the cluster as the database of `conn` knows them: host, port and
/// group (0: the coordinator).
pub async fn citus_nodes(conn: &mut sqlx::PgConnection) -> Vec<(String, i32, i32)> {
    sqlx::query_as(
        "SELECT nodename::text, nodeport, groupid FROM pg_dist_node WHERE noderole = 'primary' AND isactive ORDER BY groupid, nodeport",
    )
    .fetch_all(conn)
    .await
    .expect("a Citus database with its nodes added")
}

/// The coordinator of `CITUS_URL`, connected.
pub async fn citus_admin() -> sqlx::PgConnection {
    connect(&citus_url().expect("CITUS_URL names a Citus coordinator")).await
}

/// Creates a fresh database and returns its settings.
pub async fn fresh_database(backend: &Backend) -> DatabaseSettings {
    match backend {
        Backend::Sqlite => {
            let path = std::env::temp_dir().join(format!("continental-test-{}.db", Uuid::new_v4()));
            DatabaseSettings::Sqlite {
                path: path.to_string_lossy().into_owned(),
            }
        }
        Backend::Postgres => {
            let url = postgres_url().expect("DATABASE_URL names a PostgreSQL server");
            let name = format!("test_{}", Uuid::new_v4().simple());
            sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                .execute(&mut connect(&url).await)
                .await
                .expect("create a test database");
            DatabaseSettings::Postgres {
                url: with_database(&url, &name),
            }
        }
        Backend::Citus => fresh_citus_database(None).await,
    }
}

/// A running service and a client for it.
pub struct TestApp {
    /// Its API, at `http://127.0.0.1:port`.
    pub api: Api,
    /// The database it runs on.
    pub backend: Backend,
    /// Its database settings, to start a second instance on the same database.
    pub database: DatabaseSettings,
    /// Stops it as a crash would.
    pub kill_switch: KillSwitch,
    /// Stops the service (streams first), as SIGTERM does.
    pub stopper: Stopper,
    /// The running server: it completes once the service has stopped.
    pub server: actix_web::rt::task::JoinHandle<std::io::Result<()>>,
}

impl std::ops::Deref for TestApp {
    type Target = Api;

    fn deref(&self) -> &Api {
        &self.api
    }
}

/// A response read whole.
#[derive(Debug)]
pub struct Reply {
    /// Status.
    pub status: StatusCode,
    /// Headers.
    pub headers: awc::http::header::HeaderMap,
    /// Body bytes.
    pub body: Vec<u8>,
}

impl Reply {
    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {}", self.text()))
    }

    /// The body as text, for a failure's message.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body with every `id` written `{id}`: two replies about different games compared.
    pub fn without(&self, id: &str) -> String {
        self.text().replace(id, "{id}")
    }

    /// The JSON body of a `200`; any other status fails the test, naming `what`.
    pub fn ok(&self, what: &str) -> Value {
        assert_eq!(self.status.as_u16(), 200, "{what}: {}", self.text());
        self.json()
    }

    /// The body of a `200` read as `T`; any other status fails the test, naming `what`.
    pub fn typed<T: serde::de::DeserializeOwned>(&self, what: &str) -> T {
        let body = self.ok(what);
        serde_json::from_value(body.clone())
            .unwrap_or_else(|e| panic!("{what}: not the documented shape ({e}): {body}"))
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    }

    /// Asserts a problem+json error with this status and code.
    pub fn assert_problem(&self, status: u16, code: &str, context: &str) {
        assert_eq!(
            self.status.as_u16(),
            status,
            "{context}: expected {status} {code}, got {}: {}",
            self.status,
            self.text()
        );
        assert_eq!(
            self.header("content-type").as_deref(),
            Some("application/problem+json"),
            "{context}: errors are problem+json"
        );
        let body = self.json();
        assert_eq!(body["code"], code, "{context}: {body}");
        assert_eq!(body["status"], status, "{context}: {body}");
        assert!(
            documented_codes().iter().any(|c| c == code),
            "{context}: the document lists the code `{code}` in Problem.code"
        );
        for field in ["type", "title", "detail"] {
            assert!(
                body[field].is_string(),
                "{context}: problem lacks {field}: {body}"
            );
        }
    }
}

/// The generated OpenAPI document.
pub fn document() -> Value {
    serde_json::from_str(&continental::openapi::document()).expect("the document is JSON")
}

/// The `code`s the document lists for a problem.
pub fn documented_codes() -> &'static [String] {
    static CODES: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
        let doc = document();
        let problem = &doc["components"]["schemas"]["Problem"];
        // The extension members make the schema an `allOf`: the code is in one of its parts.
        let parts = problem["allOf"]
            .as_array()
            .map_or_else(|| vec![problem], |p| p.iter().collect());
        parts
            .iter()
            .find_map(|p| p["properties"]["code"]["enum"].as_array())
            .expect("Problem.code is an enum")
            .iter()
            .filter_map(|c| c.as_str().map(str::to_owned))
            .collect()
    });
    &CODES
}

/// Options for spawning.
#[derive(Clone, Debug, Default)]
pub struct Spawn {
    /// Start in test mode.
    pub test_mode: bool,
    /// Leave the token secret to the database.
    pub stored_secret: bool,
    /// Reuse this database instead of a fresh one.
    pub database: Option<DatabaseSettings>,
    /// Webhooks and deadlines; `None`: [`test_async`].
    pub asynchronous: Option<AsyncSettings>,
    /// Limits other than the defaults.
    pub limits: Option<Limits>,
    /// Server keys, as `CONTINENTAL_API_KEYS` writes them (empty: none).
    pub api_keys: String,
    /// Origins allowed by CORS.
    pub cors_origins: Vec<String>,
    /// Quick play's settings other than the defaults.
    pub matchmaking: Option<MatchmakingSettings>,
}

/// What tests run with: private webhook hosts allowed (the receivers listen on 127.0.0.1),
/// retries after 50 ms (given up after a day, as by default), and a `turn_seconds` second of
/// 10 ms.
pub fn test_async() -> AsyncSettings {
    AsyncSettings {
        webhook_allow_private: true,
        webhook_retry_s: 0.05,
        webhook_give_up_s: 24 * 3600,
        test_second_ms: Some(10),
        test_webhook_lease_ms: None,
    }
}

impl TestApp {
    /// Starts the service on `backend` with a fresh database, in test mode.
    pub async fn spawn(backend: &Backend) -> TestApp {
        TestApp::spawn_with(
            backend,
            Spawn {
                test_mode: true,
                ..Spawn::default()
            },
        )
        .await
    }

    /// Starts the service with these options.
    pub async fn spawn_with(backend: &Backend, spawn: Spawn) -> TestApp {
        let database = match spawn.database {
            Some(d) => d,
            None => fresh_database(backend).await,
        };
        let settings = Settings {
            database: database.clone(),
            migrations: None,
            bind: "127.0.0.1:0".into(),
            test_mode: spawn.test_mode,
            jwt_secret: (!spawn.stored_secret)
                .then(|| Secret::new(TEST_SECRET.into(), "TEST_SECRET").expect("a long enough secret")),
            asynchronous: spawn.asynchronous.unwrap_or_else(test_async),
            log_format: LogFormat::Text,
            limits: spawn.limits.unwrap_or_default(),
            api_keys: ServerKeys::parse(&spawn.api_keys).expect("valid test server keys"),
            cors_origins: spawn.cors_origins,
            matchmaking: spawn.matchmaking.unwrap_or_default(),
        };
        let app = Application::build(settings).await.expect("the service starts");
        let address = format!("http://127.0.0.1:{}", app.port());
        let stopper = app.stopper();
        let kill_switch = app.kill_switch();
        let server = actix_web::rt::spawn(app.run_until_stopped());
        TestApp {
            api: Api::at(address),
            backend: backend.clone(),
            database,
            kill_switch,
            stopper,
            server,
        }
    }

    /// Another replica of this service, on its database, in test mode, with these webhook and
    /// deadline settings.
    pub async fn replica(&self, asynchronous: AsyncSettings) -> TestApp {
        TestApp::spawn_with(
            &self.backend,
            Spawn {
                test_mode: true,
                database: Some(self.database.clone()),
                asynchronous: Some(asynchronous),
                ..Spawn::default()
            },
        )
        .await
    }
}

/// The service's API at an address, with a client for it: what a test sends its requests
/// through, whether the service runs in the test's process ([`TestApp`]) or as a child
/// process ([`Binary`]); both dereference to it.
pub struct Api {
    /// `http://127.0.0.1:port`.
    pub address: String,
    /// A client that never follows a redirect, with a bound on each request.
    pub client: Client,
}

impl Api {
    /// The API at `address`.
    fn at(address: String) -> Api {
        Api {
            address,
            client: Client::builder()
                .disable_redirects()
                .timeout(Duration::from_secs(60))
                .finish(),
        }
    }

    /// Sends a request with an optional raw body (JSON unless `headers` give a type) and extra
    /// headers, and reads the answer whole.
    pub async fn send(
        &self,
        method: &str,
        path: &str,
        body: Option<&[u8]>,
        headers: &[(&str, &str)],
    ) -> Reply {
        let method = awc::http::Method::from_bytes(method.as_bytes()).expect("a method");
        let mut req = self.client.request(method, format!("{}{path}", self.address));
        for (k, v) in headers {
            req = req.insert_header((*k, *v));
        }
        let typed = headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("content-type"));
        let sent = match body {
            Some(b) if typed => req.send_body(b.to_vec()).await,
            Some(b) => {
                req.insert_header(("content-type", "application/json"))
                    .send_body(b.to_vec())
                    .await
            }
            None => req.send().await,
        };
        let mut res = sent.unwrap_or_else(|e| panic!("request to {path} failed: {e}"));
        let body = res.body().limit(16 * 1024 * 1024).await.expect("a body").to_vec();
        Reply {
            status: res.status(),
            headers: res.headers().clone(),
            body,
        }
    }

    /// GET.
    pub async fn get(&self, path: &str) -> Reply {
        self.send("GET", path, None, &[]).await
    }

    /// GET with a bearer token.
    pub async fn get_as(&self, path: &str, token: &str) -> Reply {
        let auth = format!("Bearer {token}");
        self.send("GET", path, None, &[("authorization", &auth)]).await
    }

    /// POST JSON.
    pub async fn post(&self, path: &str, body: &Value) -> Reply {
        let bytes = serde_json::to_vec(body).expect("JSON");
        self.send("POST", path, Some(&bytes), &[]).await
    }

    /// POST JSON with a bearer token and extra headers.
    pub async fn post_as(&self, path: &str, token: &str, body: &Value, headers: &[(&str, &str)]) -> Reply {
        let bytes = serde_json::to_vec(body).expect("JSON");
        let auth = format!("Bearer {token}");
        let mut all = vec![("authorization", auth.as_str())];
        all.extend_from_slice(headers);
        self.send("POST", path, Some(&bytes), &all).await
    }

    /// GET with a server key.
    pub async fn get_with_key(&self, path: &str, key: &str) -> Reply {
        self.send("GET", path, None, &[("x-api-key", key)]).await
    }

    /// POST JSON with a server key and extra headers.
    pub async fn post_with_key(
        &self,
        path: &str,
        key: &str,
        body: &Value,
        headers: &[(&str, &str)],
    ) -> Reply {
        let bytes = serde_json::to_vec(body).expect("JSON");
        let mut all = vec![("x-api-key", key)];
        all.extend_from_slice(headers);
        self.send("POST", path, Some(&bytes), &all).await
    }

    /// The value of one series of `/metrics` (`name{labels}` as exposed), if it is there.
    pub async fn metric(&self, series: &str) -> Option<f64> {
        let text = self.get("/metrics").await.text();
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.trim().parse().ok())
    }
}

/// Server keys of the studio tests: `acme` with two secrets (a rotation), and `beta`.
pub const STUDIO_KEYS: &str =
    "acme:acme-secret-0000000001,acme:acme-secret-0000000002,beta:beta-secret-0000000001";
/// `acme`'s first secret.
pub const ACME: &str = "acme-secret-0000000001";
/// `acme`'s second secret (the one rotated in).
pub const ACME_ROTATED: &str = "acme-secret-0000000002";
/// `beta`'s secret.
pub const BETA: &str = "beta-secret-0000000001";

impl TestApp {
    /// Starts the service in test mode with [`STUDIO_KEYS`], on `database` if given (a second
    /// replica) or a fresh one.
    pub async fn spawn_studio(backend: &Backend, database: Option<DatabaseSettings>) -> TestApp {
        TestApp::spawn_with(
            backend,
            Spawn {
                test_mode: true,
                database,
                api_keys: STUDIO_KEYS.into(),
                ..Spawn::default()
            },
        )
        .await
    }
}

impl TestApp {
    /// Drops the test's database (PostgreSQL) or deletes its file (SQLite), once it passed.
    pub async fn clean_up(&self) {
        drop_database(&self.database).await;
    }
}

/// Drops a test database made by [`fresh_database`] (PostgreSQL) or deletes its file (SQLite).
pub async fn drop_database(database: &DatabaseSettings) {
    match database {
        DatabaseSettings::Sqlite { path } => {
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{path}{suffix}"));
            }
        }
        DatabaseSettings::Postgres { url } => {
            let name = url
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .split('?')
                .next()
                .unwrap_or_default();
            if !name.starts_with("test_") {
                return;
            }
            let citus = citus_url().filter(|c| server_of(c) == server_of(url));
            let Some(server) = citus.clone().or_else(postgres_url) else {
                return;
            };
            // On Citus the drop goes to every node; a worker still busy with the database
            // may refuse it once.
            let attempts = if citus.is_some() { 3 } else { 1 };
            let mut dropped = Ok(());
            for _ in 0..attempts {
                dropped = match sqlx::PgConnection::connect(&server).await {
                    Ok(mut conn) => {
                        let mut result = Ok(());
                        let propagate = citus
                            .is_some()
                            .then_some("SET citus.enable_create_database_propagation TO on");
                        let drop = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
                        for sql in propagate.into_iter().map(str::to_owned).chain([drop]) {
                            result = sqlx::query(sqlx::AssertSqlSafe(sql))
                                .execute(&mut conn)
                                .await
                                .map(|_| ());
                            if result.is_err() {
                                break;
                            }
                        }
                        result
                    }
                    Err(e) => Err(e),
                };
                if dropped.is_ok() {
                    break;
                }
            }
            if let Err(e) = dropped {
                eprintln!("could not drop test database {name}: {e}");
            }
        }
    }
}

/// Runs `check` once per backend, each on a fresh app whose database is dropped after.
#[macro_export]
macro_rules! on_every_backend {
    ($name:ident, $check:path) => {
        #[actix_web::test]
        async fn $name() {
            for backend in $crate::helpers::backends() {
                let app = $crate::helpers::TestApp::spawn(&backend).await;
                $check(&app).await;
                app.clean_up().await;
            }
        }
    };
}

/// The `DATABASE_URL` that names `database` to the binary.
pub fn database_url(database: &DatabaseSettings) -> String {
    match database {
        DatabaseSettings::Sqlite { path } => format!("sqlite:{path}"),
        DatabaseSettings::Postgres { url } => url.clone(),
    }
}

/// Lines a process wrote, gathered by the thread that reads its pipe.
type Lines = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

/// The built `continental` binary as a child process, for the tests that need the real process
/// (its log on stdout, a SIGKILL, a restart): killed when dropped, so that a failing test
/// leaves none behind, with every line it writes kept as it comes.
pub struct Binary {
    child: std::process::Child,
    stdout: Lines,
    stderr: Lines,
    readers: Vec<std::thread::JoinHandle<()>>,
    /// Its API, on the port it chose.
    pub api: Api,
}

impl std::ops::Deref for Binary {
    type Target = Api;

    fn deref(&self) -> &Api {
        &self.api
    }
}

impl Binary {
    /// How long it may take to start (migrations on a busy machine included), or to exit
    /// when it refuses to.
    const START_WITHIN: Duration = Duration::from_secs(60);

    /// Starts it with only `env` and JSON logs on a port of its own choosing, and waits for
    /// its `listening` line.
    pub async fn start(env: &[(&str, &str)]) -> Binary {
        let mut binary = Binary::spawn(env);
        let port = eventually(Self::START_WITHIN, "the binary listens", async || {
            if let Ok(Some(status)) = binary.child.try_wait() {
                panic!(
                    "the binary exited before listening ({status}): {}",
                    binary.output()
                );
            }
            binary
                .json_lines()
                .iter()
                .find(|l| l["message"] == "listening")
                .and_then(|l| l["port"].as_u64())
                .ok_or_else(|| binary.output())
        })
        .await;
        binary.api.address = format!("http://127.0.0.1:{port}");
        binary
    }

    /// Starts it on `database` in test mode, with webhooks allowed to reach this machine and
    /// retried 50 ms apart (as [`test_async`] has them), and `env` besides.
    pub async fn start_testing(database: &DatabaseSettings, env: &[(&str, &str)]) -> Binary {
        let url = database_url(database);
        let mut all = vec![
            ("DATABASE_URL", url.as_str()),
            ("CONTINENTAL_TEST_MODE", "1"),
            ("CONTINENTAL_WEBHOOK_ALLOW_PRIVATE", "1"),
            ("CONTINENTAL_WEBHOOK_RETRY_S", "0.05"),
        ];
        all.extend_from_slice(env);
        Binary::start(&all).await
    }

    /// Starts it with only `env`, as [`Binary::start`] does, expecting it to refuse to start:
    /// answers how it exited and everything it wrote, stdout then stderr. Panics if it listens.
    pub async fn refused(env: &[(&str, &str)]) -> (std::process::ExitStatus, String) {
        let mut binary = Binary::spawn(env);
        let status = eventually(Self::START_WITHIN, "the binary exits", async || {
            assert!(
                !binary.lines().iter().any(|l| l.contains("\"listening\"")),
                "the binary started: {}",
                binary.output()
            );
            match binary.child.try_wait() {
                Ok(Some(status)) => Ok(status),
                _ => Err(binary.output()),
            }
        })
        .await;
        for reader in std::mem::take(&mut binary.readers) {
            let _ = reader.join();
        }
        (status, binary.output())
    }

    /// The lines written to stdout so far that are JSON (every line of the service's own).
    pub fn json_lines(&self) -> Vec<Value> {
        self.lines()
            .iter()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// The JSON lines with `message`, once there is one at least (15 s at most: none fails the
    /// test).
    pub async fn lines_saying(&self, message: &str) -> Vec<Value> {
        eventually(
            Duration::from_secs(15),
            &format!("a {message:?} line"),
            async || {
                let lines: Vec<Value> = self
                    .json_lines()
                    .into_iter()
                    .filter(|l| l["message"] == message)
                    .collect();
                if lines.is_empty() {
                    Err(self.output())
                } else {
                    Ok(lines)
                }
            },
        )
        .await
    }

    /// The process, started with only `env` and JSON logs on a port of its own choosing, its
    /// pipes read.
    fn spawn(env: &[(&str, &str)]) -> Binary {
        use std::io::{BufRead, BufReader, Read};
        use std::process::{Command, Stdio};
        use std::sync::{Arc, Mutex};

        let mut child = Command::new(env!("CARGO_BIN_EXE_continental"))
            .env_clear()
            .env("CONTINENTAL_BIND", "127.0.0.1:0")
            .env("CONTINENTAL_LOG_FORMAT", "json")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the continental binary starts");
        let (stdout, stderr) = (Arc::new(Mutex::new(Vec::new())), Arc::new(Mutex::new(Vec::new())));
        let pipes: [(Box<dyn Read + Send>, &Lines); 2] = [
            (Box::new(child.stdout.take().expect("its stdout")), &stdout),
            (Box::new(child.stderr.take().expect("its stderr")), &stderr),
        ];
        // Both pipes are read to their end, so that the service never blocks on a full one.
        let readers = pipes
            .into_iter()
            .map(|(pipe, sink)| {
                let sink = sink.clone();
                std::thread::spawn(move || {
                    for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                        sink.lock().expect("the lines").push(line);
                    }
                })
            })
            .collect();
        Binary {
            child,
            stdout,
            stderr,
            readers,
            api: Api::at(String::new()),
        }
    }

    /// Every line written to stdout so far.
    pub fn lines(&self) -> Vec<String> {
        self.stdout.lock().expect("the lines").clone()
    }

    /// Everything written so far, stdout then stderr.
    pub fn output(&self) -> String {
        let mut all = self.lines();
        all.extend(self.stderr.lock().expect("the lines").iter().cloned());
        all.join("\n")
    }

    /// Kills it with SIGKILL (what `Child::kill` sends on Unix: no shutdown of any kind) and
    /// waits for it and for the last of its output; answers how it ended.
    pub fn kill(&mut self) -> std::process::ExitStatus {
        let _ = self.child.kill();
        let status = self.child.wait().expect("the process reaped");
        for reader in std::mem::take(&mut self.readers) {
            let _ = reader.join();
        }
        status
    }

    /// Stops it with SIGTERM, as an orchestrator does, and waits for it (at most `within`,
    /// then it is killed) and for the last of its output; answers how it ended, if it did.
    pub fn terminate(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "SIGTERM sent");
        let until = std::time::Instant::now() + within;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("the process's state") {
                break Some(status);
            }
            if std::time::Instant::now() > until {
                self.kill();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        for reader in std::mem::take(&mut self.readers) {
            let _ = reader.join();
        }
        status
    }
}

impl Drop for Binary {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Changes a stored game's state straight in the app's database: what play cannot reach
/// quickly (a new calendar year, an almost empty stock) is set up this way.
pub async fn edit_state(app: &TestApp, id: &str, change: impl FnOnce(&mut Value)) {
    let mut state = None;
    let read = on_game_rows(app, id, "SELECT state FROM games WHERE id = $1", None).await;
    if let Some(text) = read {
        let mut v: Value = serde_json::from_str(&text).expect("stored JSON");
        change(&mut v);
        state = Some(v.to_string());
    }
    let state = state.expect("the game");
    on_game_rows(app, id, "UPDATE games SET state = $2 WHERE id = $1", Some(&state)).await;
}

/// Runs `sql` straight on the app's database, with game `id` as `$1` (and `text` as `$2`, if
/// given): answers the first column of its first row when it reads one (as text). For what
/// play cannot reach: a row an earlier release wrote, a row edited by hand.
pub async fn on_game_rows(app: &TestApp, id: &str, sql: &str, text: Option<&str>) -> Option<String> {
    let id: uuid::Uuid = id.parse().expect("a game id");
    // The same statement on either backend's connection type.
    macro_rules! run_on {
        ($conn:expr) => {{
            use sqlx::{Connection, Row};
            let mut conn = $conn.await.expect("the test database");
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.to_owned())).bind(id);
            if let Some(text) = text {
                query = query.bind(text);
            }
            let rows = query
                .fetch_all(&mut conn)
                .await
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
            rows.first()
                .map(|r| r.try_get::<String, _>(0).expect("a text column"))
        }};
    }
    match &app.database {
        continental::config::DatabaseSettings::Sqlite { path } => {
            run_on!(sqlx::SqliteConnection::connect(&format!("sqlite:{path}")))
        }
        continental::config::DatabaseSettings::Postgres { url } => run_on!(sqlx::PgConnection::connect(url)),
    }
}
