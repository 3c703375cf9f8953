//! Settings from the environment, each also accepted as a command-line flag.

use std::fmt;
use std::num::NonZeroU32;
use std::str::FromStr;
use std::time::Duration;

use crate::server_keys::ServerKeys;

/// Where games are stored.
#[derive(Clone, PartialEq, Eq)]
pub enum DatabaseSettings {
    /// An embedded SQLite file (the default: `continental.db` in the working directory).
    Sqlite {
        /// File path.
        path: String,
    },
    /// A PostgreSQL server.
    Postgres {
        /// `postgres://` URL.
        url: String,
    },
}

impl fmt::Debug for DatabaseSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DatabaseSettings::Sqlite { path } => write!(f, "sqlite:{path}"),
            // The URL may hold a password.
            DatabaseSettings::Postgres { .. } => f.write_str("postgres://…"),
        }
    }
}

impl DatabaseSettings {
    /// Reads a `DATABASE_URL`: unset → SQLite `continental.db`; `postgres://` or `postgresql://`
    /// → PostgreSQL; `sqlite:` → that SQLite file.
    ///
    /// # Errors
    /// A message for any other scheme.
    pub fn from_url(url: Option<&str>) -> Result<DatabaseSettings, String> {
        match url.map(str::trim) {
            None | Some("") => Ok(DatabaseSettings::Sqlite {
                path: "continental.db".into(),
            }),
            Some(u) if u.starts_with("postgres://") || u.starts_with("postgresql://") => {
                Ok(DatabaseSettings::Postgres { url: u.to_owned() })
            }
            Some(u) if u.starts_with("sqlite:") => {
                let path = u.trim_start_matches("sqlite://").trim_start_matches("sqlite:");
                Ok(DatabaseSettings::Sqlite {
                    path: path.to_owned(),
                })
            }
            Some(_) => Err("DATABASE_URL must start with postgres:// or sqlite:".into()),
        }
    }
}

/// Everything the service needs to start.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The database.
    pub database: DatabaseSettings,
    /// Address to listen on (`CONTINENTAL_BIND`, default `127.0.0.1:8080`).
    pub bind: String,
    /// The test mode of docs/api.md#test-mode: `seed`, `first_dealer` and `stacked_decks` accepted
    /// on create.
    pub test_mode: bool,
    /// Secret for seat tokens; `None`: the one stored in the database (generated once).
    pub jwt_secret: Option<Secret>,
    /// Webhooks and turn deadlines.
    pub asynchronous: AsyncSettings,
    /// How log lines are written (`CONTINENTAL_LOG_FORMAT`).
    pub log_format: LogFormat,
    /// Timeouts, caps and retention.
    pub limits: Limits,
    /// Server keys (`CONTINENTAL_API_KEYS`, `tenant:secret,...`); none: creation is open.
    pub api_keys: ServerKeys,
    /// Origins browsers may call from (`CONTINENTAL_CORS_ORIGINS`, comma-separated, `*` for
    /// any); empty: no CORS.
    pub cors_origins: Vec<String>,
}

/// How log lines are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// One human-readable line per event (the default).
    #[default]
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// Timeouts, caps and retention: what keeps the service answering when clients or the
/// database misbehave, and its storage bounded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Requests per second allowed to one client (seat token subject, server key's tenant or address), with
    /// bursts of as many; `None`: no limit (`CONTINENTAL_RATE_LIMIT`).
    pub rate_limit: Option<NonZeroU32>,
    /// Open connections accepted at once, across workers (`CONTINENTAL_MAX_CONNECTIONS`).
    pub max_connections: usize,
    /// Time a client has to send a request's headers, and again its body
    /// (`CONTINENTAL_REQUEST_TIMEOUT_MS`).
    pub request_timeout: Duration,
    /// How long a request waits for a database connection before answering 503
    /// (`CONTINENTAL_DB_TIMEOUT_MS`).
    pub db_acquire_timeout: Duration,
    /// PostgreSQL `statement_timeout` of every connection (`CONTINENTAL_STATEMENT_TIMEOUT_MS`).
    pub statement_timeout: Duration,
    /// PostgreSQL `lock_timeout` (and SQLite's busy timeout): how long a move waits for its
    /// game's lock (`CONTINENTAL_LOCK_TIMEOUT_MS`).
    pub lock_timeout: Duration,
    /// How long an idempotency key and its response are kept (`CONTINENTAL_IDEMPOTENCY_TTL_S`).
    pub idempotency_ttl: Duration,
    /// How long a finished or void game is kept, with its events (`CONTINENTAL_RETENTION_DAYS`).
    pub retention: Duration,
    /// How often expired keys and games are swept (`CONTINENTAL_SWEEP_INTERVAL_S`).
    pub sweep_interval: Duration,
    /// Database connections in the pool (`CONTINENTAL_DB_POOL`); `None`: [`default_db_pool`].
    pub db_pool: Option<u32>,
    /// Event streams one replica keeps open at most (`CONTINENTAL_MAX_STREAMS`); more answer 503.
    pub max_streams: usize,
    /// A background pass (a sweep, the turn deadlines, the webhook outbox) that takes longer
    /// logs what it did and how long it took (`CONTINENTAL_SLOW_PASS_MS`).
    pub slow_pass: Duration,
}

/// The pool size when none is configured: four connections per core, at least 8 and at most
/// 64. A move holds its connection for a few round trips, mostly waiting on the database, so a
/// few per core keep the cores busy without queueing inside PostgreSQL.
pub fn default_db_pool() -> u32 {
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    u32::try_from(cores * 4).unwrap_or(64).clamp(8, 64)
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            rate_limit: None,
            max_connections: 4096,
            request_timeout: Duration::from_secs(5),
            db_acquire_timeout: Duration::from_millis(1500),
            statement_timeout: Duration::from_secs(5),
            lock_timeout: Duration::from_secs(1),
            // The IETF idempotency-key draft suggests 24 hours.
            idempotency_ttl: Duration::from_secs(24 * 3600),
            retention: Duration::from_secs(30 * 24 * 3600),
            sweep_interval: Duration::from_secs(300),
            db_pool: None,
            max_streams: 10_000,
            slow_pass: Duration::from_secs(1),
        }
    }
}

/// How webhooks are delivered and turn deadlines kept.
#[derive(Clone, Debug, PartialEq)]
pub struct AsyncSettings {
    /// `CONTINENTAL_WEBHOOK_ALLOW_PRIVATE=1`: webhook hosts may resolve to loopback, private,
    /// link-local or unspecified addresses (tests, private networks).
    pub webhook_allow_private: bool,
    /// `CONTINENTAL_WEBHOOK_RETRY_S`: the first retry's delay in seconds, doubled at each
    /// further one (default 2).
    pub webhook_retry_s: f64,
    /// `CONTINENTAL_WEBHOOK_GIVE_UP_S`: how long after its event a failing delivery is still
    /// retried, in seconds; a failure after that gives it up (default 86400, a day; 0: a
    /// single attempt).
    pub webhook_give_up_s: u64,
    /// Test only (`CONTINENTAL_TEST_SECOND_MS`, honoured in test mode alone): how many
    /// milliseconds a second of `turn_seconds` lasts, so tests need not wait whole seconds.
    pub test_second_ms: Option<u64>,
}

impl Default for AsyncSettings {
    fn default() -> Self {
        AsyncSettings {
            webhook_allow_private: false,
            webhook_retry_s: 2.0,
            webhook_give_up_s: 24 * 3600,
            test_second_ms: None,
        }
    }
}

/// The shortest seat-token secret, in bytes: RFC 7518 (3.2) asks for a key of at least 256
/// bits for HS256, which signs every seat and spectator token.
pub const MIN_SECRET_BYTES: usize = 32;

/// A seat-token secret of at least [`MIN_SECRET_BYTES`], that never prints.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// `value` as a secret.
    ///
    /// # Errors
    /// A message naming `setting` (where the value came from) and the minimum when `value` is
    /// shorter.
    pub fn new(value: String, setting: &str) -> Result<Secret, String> {
        if value.len() < MIN_SECRET_BYTES {
            return Err(format!(
                "{setting} is {} bytes long: the seat-token secret needs at least {MIN_SECRET_BYTES} \
                 (a 256-bit key for HS256, RFC 7518 section 3.2)",
                value.len()
            ));
        }
        Ok(Secret(value))
    }

    /// The secret's bytes, to sign and verify with.
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// Where the seat-token secret is given: its value, or a file that holds it.
enum SecretSource {
    Value(String),
    File(String),
}

impl SecretSource {
    /// The secret given, read from its file if need be; `setting` names where it came from.
    fn read(self, setting: &str) -> Result<Secret, String> {
        match self {
            SecretSource::Value(value) => Secret::new(value, setting),
            SecretSource::File(path) => {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("{setting}: cannot read {path}: {e}"))?;
                // Files written by `echo` and editors, and mounted secrets, often end with one.
                let value = text.strip_suffix('\n').unwrap_or(&text);
                let value = value.strip_suffix('\r').unwrap_or(value);
                Secret::new(value.to_owned(), &format!("the secret in {path} ({setting})"))
            }
        }
    }
}

/// What `--help` prints.
pub const USAGE: &str = "\
continental: the Continental Rummy HTTP service

Usage: continental [--database-url URL] [--bind ADDR] [--test-mode] [--jwt-secret SECRET | --jwt-secret-file PATH]
                   [--api-keys TENANT:SECRET,...] [--webhook-allow-private] [--webhook-retry-s SECONDS]
                   [--webhook-give-up-s SECONDS]
                   [OPTION VALUE]...

Each flag may instead be given in the environment:
  --database-url URL   DATABASE_URL           postgres://... or sqlite:FILE (default: sqlite continental.db)
  --bind ADDR          CONTINENTAL_BIND       address to listen on (default 127.0.0.1:8080)
  --test-mode          CONTINENTAL_TEST_MODE  1 accepts seed, first_dealer, stacked_decks on create
  --jwt-secret SECRET  CONTINENTAL_JWT_SECRET  seat-token secret, 32 bytes or more (default: generated once,
                                               kept in the database)
  --jwt-secret-file PATH  CONTINENTAL_JWT_SECRET_FILE  a file holding the seat-token secret (one line ending
                                               ignored), instead of CONTINENTAL_JWT_SECRET
  --log-format FORMAT  CONTINENTAL_LOG_FORMAT  text or json (default text)
  --rate-limit N       CONTINENTAL_RATE_LIMIT  requests per second per client, 0 for none (default none)
  --max-connections N  CONTINENTAL_MAX_CONNECTIONS  open connections at once (default 4096)
  --request-timeout-ms N    CONTINENTAL_REQUEST_TIMEOUT_MS    to send headers, and again the body (default 5000)
  --db-timeout-ms N         CONTINENTAL_DB_TIMEOUT_MS         wait for a database connection (default 1500)
  --statement-timeout-ms N  CONTINENTAL_STATEMENT_TIMEOUT_MS  longest statement (default 5000)
  --lock-timeout-ms N       CONTINENTAL_LOCK_TIMEOUT_MS       wait for a game's lock (default 1000)
  --idempotency-ttl-s N     CONTINENTAL_IDEMPOTENCY_TTL_S     keep idempotency keys (default 86400)
  --retention-days N        CONTINENTAL_RETENTION_DAYS        keep finished games (default 30)
  --sweep-interval-s N      CONTINENTAL_SWEEP_INTERVAL_S      sweep expired keys and games (default 300)
  --db-pool N               CONTINENTAL_DB_POOL               database connections (default 4 per core, 8 to 64)
  --max-streams N           CONTINENTAL_MAX_STREAMS           event streams open at once, more get 503 (default 10000)
  --slow-pass-ms N          CONTINENTAL_SLOW_PASS_MS          log a background pass that takes longer (default 1000)
  --api-keys LIST      CONTINENTAL_API_KEYS    server keys, tenant:secret comma-separated (secrets of 16+
                                               characters; a tenant may have two while rotating); when set,
                                               creating a game needs X-Api-Key (default: none, creation open)
  --cors-origins ORIGINS  CONTINENTAL_CORS_ORIGINS  comma-separated origins browsers may call from, * for any (default: none)
  --webhook-allow-private    CONTINENTAL_WEBHOOK_ALLOW_PRIVATE  1 lets webhook URLs reach loopback and private addresses
  --webhook-retry-s SECONDS  CONTINENTAL_WEBHOOK_RETRY_S        first webhook retry after this long, doubling (default 2)
  --webhook-give-up-s SECONDS  CONTINENTAL_WEBHOOK_GIVE_UP_S    stop retrying a delivery this long after its event (default 86400)
Test only, in test mode: CONTINENTAL_TEST_SECOND_MS makes a second of turn_seconds last that many ms.
Flags win over the environment.";

/// A numeric setting: its flag, its environment variable, and where its value goes.
type NumberSetting = (&'static str, &'static str, fn(&mut Limits, u64));

/// The numeric settings.
const NUMBERS: [NumberSetting; 12] = [
    ("--rate-limit", "CONTINENTAL_RATE_LIMIT", |l, n| {
        l.rate_limit = u32::try_from(n).ok().and_then(NonZeroU32::new);
    }),
    ("--max-connections", "CONTINENTAL_MAX_CONNECTIONS", |l, n| {
        l.max_connections = usize::try_from(n).unwrap_or(usize::MAX).max(1);
    }),
    (
        "--request-timeout-ms",
        "CONTINENTAL_REQUEST_TIMEOUT_MS",
        |l, n| {
            l.request_timeout = Duration::from_millis(n.max(1));
        },
    ),
    ("--db-timeout-ms", "CONTINENTAL_DB_TIMEOUT_MS", |l, n| {
        l.db_acquire_timeout = Duration::from_millis(n.max(1));
    }),
    (
        "--statement-timeout-ms",
        "CONTINENTAL_STATEMENT_TIMEOUT_MS",
        |l, n| {
            l.statement_timeout = Duration::from_millis(n.max(1));
        },
    ),
    ("--lock-timeout-ms", "CONTINENTAL_LOCK_TIMEOUT_MS", |l, n| {
        l.lock_timeout = Duration::from_millis(n.max(1));
    }),
    ("--idempotency-ttl-s", "CONTINENTAL_IDEMPOTENCY_TTL_S", |l, n| {
        l.idempotency_ttl = Duration::from_secs(n);
    }),
    ("--retention-days", "CONTINENTAL_RETENTION_DAYS", |l, n| {
        l.retention = Duration::from_secs(n.saturating_mul(24 * 3600));
    }),
    ("--sweep-interval-s", "CONTINENTAL_SWEEP_INTERVAL_S", |l, n| {
        l.sweep_interval = Duration::from_secs(n.max(1));
    }),
    ("--db-pool", "CONTINENTAL_DB_POOL", |l, n| {
        l.db_pool = Some(u32::try_from(n).unwrap_or(u32::MAX).max(1));
    }),
    ("--max-streams", "CONTINENTAL_MAX_STREAMS", |l, n| {
        l.max_streams = usize::try_from(n).unwrap_or(usize::MAX).max(1);
    }),
    ("--slow-pass-ms", "CONTINENTAL_SLOW_PASS_MS", |l, n| {
        l.slow_pass = Duration::from_millis(n);
    }),
];

/// A whole number from a flag or variable, or a message naming it.
fn number(name: &str, value: &str) -> Result<u64, String> {
    u64::from_str(value.trim()).map_err(|_| format!("{name} must be a whole number, not {value:?}"))
}

impl FromStr for LogFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<LogFormat, String> {
        match s.trim() {
            "" | "text" => Ok(LogFormat::Text),
            "json" => Ok(LogFormat::Json),
            other => Err(format!("the log format is text or json, not {other:?}")),
        }
    }
}

impl Settings {
    /// Reads flags (`args` without the program name) over environment variables (`env`).
    ///
    /// # Errors
    /// A message for an unknown flag, a flag without its value, or a bad `DATABASE_URL`.
    pub fn from_sources(
        args: impl IntoIterator<Item = String>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Settings, String> {
        let mut database_url = env("DATABASE_URL");
        let mut bind = env("CONTINENTAL_BIND");
        let mut test_mode = env("CONTINENTAL_TEST_MODE").map(|v| matches!(v.trim(), "1" | "true" | "yes"));
        let given = |name: &str| env(name).filter(|v| !v.is_empty());
        let mut jwt_secret = match (
            given("CONTINENTAL_JWT_SECRET"),
            given("CONTINENTAL_JWT_SECRET_FILE"),
        ) {
            (Some(_), Some(_)) => {
                return Err("set CONTINENTAL_JWT_SECRET or CONTINENTAL_JWT_SECRET_FILE, not both".into());
            }
            (Some(v), None) => Some(("CONTINENTAL_JWT_SECRET", SecretSource::Value(v))),
            (None, Some(path)) => Some(("CONTINENTAL_JWT_SECRET_FILE", SecretSource::File(path))),
            (None, None) => None,
        };
        let truthy = |v: &str| matches!(v.trim(), "1" | "true" | "yes");
        let mut allow_private = env("CONTINENTAL_WEBHOOK_ALLOW_PRIVATE").map(|v| truthy(&v));
        let mut retry_s = env("CONTINENTAL_WEBHOOK_RETRY_S");
        let mut give_up_s = env("CONTINENTAL_WEBHOOK_GIVE_UP_S");
        let second_ms = env("CONTINENTAL_TEST_SECOND_MS");
        let mut log_format = env("CONTINENTAL_LOG_FORMAT");
        let mut numbers: Vec<(&str, String)> = NUMBERS
            .iter()
            .filter_map(|(_, var, _)| env(var).map(|v| (*var, v)))
            .collect();
        let mut api_keys = env("CONTINENTAL_API_KEYS");
        let mut cors_origins = env("CONTINENTAL_CORS_ORIGINS");
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) => (f.to_owned(), Some(v.to_owned())),
                None => (arg.clone(), None),
            };
            let mut value = |name: &str| {
                inline
                    .clone()
                    .or_else(|| args.next())
                    .ok_or_else(|| format!("{name} needs a value"))
            };
            match flag.as_str() {
                "--database-url" => database_url = Some(value("--database-url")?),
                "--bind" => bind = Some(value("--bind")?),
                "--jwt-secret" => {
                    jwt_secret = Some(("--jwt-secret", SecretSource::Value(value("--jwt-secret")?)));
                }
                "--jwt-secret-file" => {
                    jwt_secret = Some((
                        "--jwt-secret-file",
                        SecretSource::File(value("--jwt-secret-file")?),
                    ));
                }
                "--log-format" => log_format = Some(value("--log-format")?),
                "--api-keys" => api_keys = Some(value("--api-keys")?),
                "--cors-origins" => cors_origins = Some(value("--cors-origins")?),
                "--test-mode" => test_mode = Some(inline.as_deref().is_none_or(|v| v == "1" || v == "true")),
                "--webhook-allow-private" => allow_private = Some(inline.as_deref().is_none_or(truthy)),
                "--webhook-retry-s" => retry_s = Some(value("--webhook-retry-s")?),
                "--webhook-give-up-s" => give_up_s = Some(value("--webhook-give-up-s")?),
                "-h" | "--help" => return Err(USAGE.to_owned()),
                other => match NUMBERS.iter().find(|(name, _, _)| *name == other) {
                    Some((name, _, _)) => numbers.push((name, value(name)?)),
                    None => return Err(format!("unknown flag {other}\n\n{USAGE}")),
                },
            }
        }
        let mut limits = Limits::default();
        // Environment first, then flags in order: the last word wins.
        for (name, v) in numbers {
            let n = number(name, &v)?;
            if let Some((_, _, set)) = NUMBERS
                .iter()
                .find(|(flag, var, _)| *flag == name || *var == name)
            {
                set(&mut limits, n);
            }
        }
        let webhook_retry_s = match retry_s {
            None => AsyncSettings::default().webhook_retry_s,
            Some(v) => v
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s > 0.0 && *s <= 3600.0)
                .ok_or("CONTINENTAL_WEBHOOK_RETRY_S must be a number of seconds above 0, at most 3600")?,
        };
        let webhook_give_up_s = match give_up_s {
            None => AsyncSettings::default().webhook_give_up_s,
            Some(v) => number("CONTINENTAL_WEBHOOK_GIVE_UP_S", &v)?,
        };
        let test_second_ms = match second_ms {
            None => None,
            Some(v) => Some(
                v.trim()
                    .parse::<u64>()
                    .ok()
                    .filter(|ms| (1..=1000).contains(ms))
                    .ok_or("CONTINENTAL_TEST_SECOND_MS must be 1 to 1000")?,
            ),
        };
        let test_mode = test_mode.unwrap_or(false);
        Ok(Settings {
            asynchronous: AsyncSettings {
                webhook_allow_private: allow_private.unwrap_or(false),
                webhook_retry_s,
                webhook_give_up_s,
                test_second_ms: test_second_ms.filter(|_| test_mode),
            },
            database: DatabaseSettings::from_url(database_url.as_deref())?,
            bind: bind.unwrap_or_else(|| "127.0.0.1:8080".to_owned()),
            test_mode,
            // An empty value is no value: the stored secret is used.
            jwt_secret: jwt_secret
                .filter(|(_, source)| !matches!(source, SecretSource::Value(v) if v.is_empty()))
                .map(|(setting, source)| source.read(setting))
                .transpose()?,
            log_format: log_format.as_deref().unwrap_or_default().parse()?,
            limits,
            api_keys: ServerKeys::parse(api_keys.as_deref().unwrap_or_default())?,
            cors_origins: cors_origins
                .iter()
                .flat_map(|o| o.split(','))
                .map(|o| o.trim().trim_end_matches('/').to_owned())
                .filter(|o| !o.is_empty())
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| (*v).to_owned())
    }

    #[test]
    fn defaults_are_sqlite_localhost_and_no_test_mode() {
        let s = Settings::from_sources(Vec::new(), env_of(&[])).expect("defaults");
        assert_eq!(
            s.database,
            DatabaseSettings::Sqlite {
                path: "continental.db".into()
            }
        );
        assert_eq!(s.bind, "127.0.0.1:8080");
        assert!(!s.test_mode);
        assert!(s.jwt_secret.is_none());
        assert!(!s.api_keys.enabled());
    }

    #[test]
    fn api_keys_from_the_environment_or_the_flag() {
        let env = env_of(&[("CONTINENTAL_API_KEYS", "acme:0123456789abcdef")]);
        let s = Settings::from_sources(Vec::new(), env).expect("env");
        assert_eq!(s.api_keys.tenants(), ["acme"]);
        let env = env_of(&[("CONTINENTAL_API_KEYS", "acme:0123456789abcdef")]);
        let s = Settings::from_sources(["--api-keys=beta:fedcba9876543210".to_owned()], env).expect("flag");
        assert_eq!(s.api_keys.tenants(), ["beta"], "the flag wins");
        let env = env_of(&[("CONTINENTAL_API_KEYS", "acme:short")]);
        assert!(
            Settings::from_sources(Vec::new(), env).is_err(),
            "a short secret is refused"
        );
        assert_eq!(s.asynchronous, AsyncSettings::default());
    }

    #[test]
    fn the_token_secret_is_32_bytes_or_more_from_a_value_or_a_file() {
        let long = "0123456789abcdef0123456789abcdef";
        let env = env_of(&[("CONTINENTAL_JWT_SECRET", "abc")]);
        let refused = Settings::from_sources(Vec::new(), env).expect_err("a short secret");
        assert!(
            refused.contains("CONTINENTAL_JWT_SECRET") && refused.contains("32"),
            "the message names the setting and the minimum: {refused}"
        );
        let env = env_of(&[("CONTINENTAL_JWT_SECRET", "abc")]);
        let flagged = Settings::from_sources(["--jwt-secret".to_owned(), long.to_owned()], env);
        assert_eq!(
            flagged
                .expect("the flag wins")
                .jwt_secret
                .map(|s| s.as_bytes().to_vec()),
            Some(long.as_bytes().to_vec())
        );
        let dir = std::env::temp_dir().join(format!("continental-secret-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).expect("a directory");
        let file = dir.join("jwt");
        std::fs::write(&file, format!("{long}\n")).expect("the file");
        let path = file.display().to_string();
        let env = move |k: &str| (k == "CONTINENTAL_JWT_SECRET_FILE").then(|| path.clone());
        let s = Settings::from_sources(Vec::new(), env).expect("a secret file");
        assert_eq!(
            s.jwt_secret.map(|s| s.as_bytes().to_vec()),
            Some(long.as_bytes().to_vec()),
            "read without its line ending"
        );
        std::fs::write(&file, "short\r\n").expect("the file");
        let path = file.display().to_string();
        let env = move |k: &str| (k == "CONTINENTAL_JWT_SECRET_FILE").then(|| path.clone());
        let refused = Settings::from_sources(Vec::new(), env).expect_err("a short secret in a file");
        assert!(
            refused.contains("CONTINENTAL_JWT_SECRET_FILE") && refused.contains("32"),
            "{refused}"
        );
        let path = file.display().to_string();
        let both = move |k: &str| match k {
            "CONTINENTAL_JWT_SECRET_FILE" => Some(path.clone()),
            "CONTINENTAL_JWT_SECRET" => Some(long.to_owned()),
            _ => None,
        };
        assert!(
            Settings::from_sources(Vec::new(), both).is_err(),
            "one or the other"
        );
        let missing = [
            "--jwt-secret-file".to_owned(),
            dir.join("none").display().to_string(),
        ];
        assert!(
            Settings::from_sources(missing, env_of(&[])).is_err(),
            "an unreadable file"
        );
        std::fs::remove_dir_all(&dir).expect("cleaned up");
        let empty = Settings::from_sources(Vec::new(), env_of(&[("CONTINENTAL_JWT_SECRET", "")]));
        assert!(empty.expect("unset").jwt_secret.is_none(), "empty is unset");
    }

    #[test]
    fn webhook_and_clock_settings() {
        let env = env_of(&[
            ("CONTINENTAL_WEBHOOK_ALLOW_PRIVATE", "1"),
            ("CONTINENTAL_WEBHOOK_RETRY_S", "0.05"),
            ("CONTINENTAL_WEBHOOK_GIVE_UP_S", "60"),
            ("CONTINENTAL_TEST_SECOND_MS", "20"),
        ]);
        let s = Settings::from_sources(["--test-mode".to_owned()], env).expect("settings");
        assert!(s.asynchronous.webhook_allow_private);
        assert!((s.asynchronous.webhook_retry_s - 0.05).abs() < 1e-9);
        assert_eq!(s.asynchronous.webhook_give_up_s, 60);
        let env = env_of(&[("CONTINENTAL_WEBHOOK_GIVE_UP_S", "60")]);
        let flagged = Settings::from_sources(["--webhook-give-up-s=5".to_owned()], env).expect("flag");
        assert_eq!(flagged.asynchronous.webhook_give_up_s, 5, "the flag wins");
        let defaults = Settings::from_sources(Vec::new(), env_of(&[])).expect("defaults");
        assert_eq!(defaults.asynchronous.webhook_give_up_s, 86_400, "a day");
        assert!(
            Settings::from_sources(Vec::new(), env_of(&[("CONTINENTAL_WEBHOOK_GIVE_UP_S", "a day")]))
                .is_err()
        );
        assert_eq!(s.asynchronous.test_second_ms, Some(20));
        let outside = Settings::from_sources(Vec::new(), env_of(&[("CONTINENTAL_TEST_SECOND_MS", "20")]))
            .expect("settings");
        assert_eq!(outside.asynchronous.test_second_ms, None, "test mode only");
        for bad in ["0", "-1", "soon"] {
            let env = move |k: &str| (k == "CONTINENTAL_WEBHOOK_RETRY_S").then(|| bad.to_owned());
            assert!(Settings::from_sources(Vec::new(), env).is_err(), "retry {bad}");
        }
    }

    #[test]
    fn flags_win_over_the_environment() {
        let env = env_of(&[
            ("CONTINENTAL_BIND", "0.0.0.0:1"),
            ("DATABASE_URL", "postgres://x/y"),
        ]);
        let args = [
            "--bind",
            "127.0.0.1:9",
            "--test-mode",
            "--database-url=sqlite:a.db",
        ]
        .map(String::from);
        let s = Settings::from_sources(args, env).expect("flags");
        assert_eq!(s.bind, "127.0.0.1:9");
        assert!(s.test_mode);
        assert_eq!(s.database, DatabaseSettings::Sqlite { path: "a.db".into() });
    }

    #[test]
    fn postgres_urls_and_bad_schemes() {
        let s =
            Settings::from_sources(Vec::new(), env_of(&[("DATABASE_URL", "postgres://u@h/db")])).expect("pg");
        assert!(matches!(s.database, DatabaseSettings::Postgres { .. }));
        assert!(Settings::from_sources(Vec::new(), env_of(&[("DATABASE_URL", "mysql://h")])).is_err());
        assert!(Settings::from_sources(["--nope".to_owned()], env_of(&[])).is_err());
    }

    #[test]
    fn limits_come_from_the_environment_and_flags() {
        let env = env_of(&[
            ("CONTINENTAL_RATE_LIMIT", "20"),
            ("CONTINENTAL_IDEMPOTENCY_TTL_S", "60"),
            ("CONTINENTAL_LOG_FORMAT", "json"),
        ]);
        let args = [
            "--rate-limit",
            "0",
            "--retention-days=2",
            "--db-timeout-ms",
            "900",
        ]
        .map(String::from);
        let s = Settings::from_sources(args, env).expect("limits");
        assert_eq!(s.limits.rate_limit, None, "the flag's 0 turns the limit off");
        assert_eq!(s.limits.idempotency_ttl, Duration::from_secs(60));
        assert_eq!(s.limits.retention, Duration::from_secs(2 * 24 * 3600));
        assert_eq!(s.limits.db_acquire_timeout, Duration::from_millis(900));
        let every = Settings::from_sources(["--slow-pass-ms=0".to_owned()], env_of(&[])).expect("flag");
        assert_eq!(every.limits.slow_pass, Duration::ZERO, "0 logs every pass");
        assert_eq!(s.log_format, LogFormat::Json);
        let defaults = Settings::from_sources(Vec::new(), env_of(&[])).expect("defaults");
        assert_eq!(defaults.limits, Limits::default());
        assert_eq!(defaults.limits.idempotency_ttl, Duration::from_secs(86_400));
        assert!(Settings::from_sources(Vec::new(), env_of(&[("CONTINENTAL_RATE_LIMIT", "many")])).is_err());
        assert!(Settings::from_sources(Vec::new(), env_of(&[("CONTINENTAL_LOG_FORMAT", "xml")])).is_err());
    }

    #[test]
    fn pool_and_stream_cap_from_flags_or_environment() {
        let env = env_of(&[("CONTINENTAL_DB_POOL", "24"), ("CONTINENTAL_MAX_STREAMS", "5")]);
        let s = Settings::from_sources(Vec::new(), env).expect("env");
        assert_eq!((s.limits.db_pool, s.limits.max_streams), (Some(24), 5));
        let env = env_of(&[("CONTINENTAL_DB_POOL", "24")]);
        let s = Settings::from_sources(["--db-pool=3".to_owned()], env).expect("flag");
        assert_eq!(s.limits.db_pool, Some(3), "the flag wins");
        let defaults = Settings::from_sources(Vec::new(), env_of(&[])).expect("defaults");
        assert_eq!(defaults.limits.db_pool, None);
        assert!((8..=64).contains(&default_db_pool()));
        assert!(Settings::from_sources(Vec::new(), env_of(&[("CONTINENTAL_DB_POOL", "many")])).is_err());
    }
}
