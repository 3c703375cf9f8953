//! Settings from the environment, each also accepted as a command-line flag, all declared
//! once in [`SETTINGS`].

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
    /// Where the migrations run when not on `database` (`CONTINENTAL_MIGRATIONS_URL`): a Citus
    /// cluster's coordinator, when `database` names one of its workers
    /// (docs/operations.md#scaling-out).
    pub migrations: Option<DatabaseSettings>,
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
    /// Quick play: how long tickets wait, when bots fill a table, how often tickets are matched.
    pub matchmaking: MatchmakingSettings,
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
    /// On a Citus cluster, connections in the pool to each worker (`CONTINENTAL_DB_POOL_PER_WORKER`);
    /// `None`: as many as [`Limits::db_pool`].
    pub db_pool_per_worker: Option<u32>,
    /// Event streams one replica keeps open at most (`CONTINENTAL_MAX_STREAMS`); more answer 503.
    pub max_streams: usize,
    /// Threads that may think for bots at once on this replica (`CONTINENTAL_BOT_THREADS`; 0:
    /// this replica leaves the bots that search to the others); `None`: [`default_bot_threads`].
    pub bot_threads: Option<usize>,
    /// With no bot threads here, other replicas think for the bots that search
    /// (`CONTINENTAL_BOTS_ELSEWHERE=1`): this replica then seats them; otherwise it refuses them
    /// `409 hard_bots_unavailable`, since nothing would play them.
    pub bots_elsewhere: bool,
    /// On a server open to anyone (no server keys), tables of bots only in play at once at most
    /// (`CONTINENTAL_OPEN_BOT_TABLES`); one more is refused `409 bot_tables_full`.
    pub open_bot_tables: u32,
    /// A background pass (a sweep, the turn deadlines, the webhook outbox) that takes longer
    /// logs what it did and how long it took (`CONTINENTAL_SLOW_PASS_MS`).
    pub slow_pass: Duration,
}

/// The bots' threads when none is configured: half the cores, at least one, so that the
/// bots that search never take more than that share of the machine.
pub fn default_bot_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    (cores / 2).max(1)
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
            db_pool_per_worker: None,
            max_streams: 10_000,
            bot_threads: None,
            bots_elsewhere: false,
            open_bot_tables: 8,
            slow_pass: Duration::from_secs(1),
        }
    }
}

/// Quick play's settings (docs/operations.md#matchmaking).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchmakingSettings {
    /// How long a live ticket waits before it expires (`CONTINENTAL_TICKET_TTL_S`).
    pub ticket_ttl: Duration,
    /// How long an asynchronous ticket waits (`CONTINENTAL_ASYNC_TICKET_TTL_S`).
    pub async_ticket_ttl: Duration,
    /// After this wait a ticket with no full table of people sits down with bots
    /// (`CONTINENTAL_MATCHMAKING_BOTS_AFTER_S`); `None`: never.
    pub bots_after: Option<Duration>,
    /// The soonest a pool is matched again for its clock alone, and the least time between two
    /// of a replica's matching backstops (`CONTINENTAL_MATCHMAKING_INTERVAL_MS`).
    pub interval: Duration,
}

impl Default for MatchmakingSettings {
    fn default() -> Self {
        MatchmakingSettings {
            ticket_ttl: Duration::from_secs(600),
            async_ticket_ttl: Duration::from_secs(24 * 3600),
            bots_after: Some(Duration::from_secs(30)),
            interval: Duration::from_millis(500),
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
    /// Test only (`CONTINENTAL_TEST_WEBHOOK_LEASE_MS`, honoured in test mode alone): how long a
    /// claimed webhook delivery is its replica's (30 s otherwise), so that tests of a lease
    /// running out need not wait for one.
    pub test_webhook_lease_ms: Option<u64>,
}

impl Default for AsyncSettings {
    fn default() -> Self {
        AsyncSettings {
            webhook_allow_private: false,
            webhook_retry_s: 2.0,
            webhook_give_up_s: 24 * 3600,
            test_second_ms: None,
            test_webhook_lease_ms: None,
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

/// A value given for a setting, named by the flag or variable it came from (for messages).
struct Given<'a> {
    name: &'a str,
    value: String,
}

impl Given<'_> {
    /// The value as a whole number, or a message naming where it came from.
    fn number(&self) -> Result<u64, String> {
        number(self.name, &self.value)
    }

    /// The value as a switch: `1`, `true` or `yes` turn it on.
    fn on(&self) -> bool {
        matches!(self.value.trim(), "1" | "true" | "yes")
    }
}

/// The settings while they are read: what is resolved only once every value is known.
struct Draft {
    settings: Settings,
    database_url: Option<String>,
    migrations_url: Option<String>,
    /// The seat-token secret last given, with the setting that gave it.
    jwt_secret: Option<(String, SecretSource)>,
}

/// One setting: how it is given, what `--help` says of it, and where its value goes.
struct Setting {
    /// Its environment variable.
    env: &'static str,
    /// Its flag, if it has one.
    flag: Option<&'static str>,
    /// What the flag takes, for `--help`; `None`: a switch, on by itself.
    takes: Option<&'static str>,
    /// What it does (and its default, when no value gives it).
    help: &'static str,
    /// A value that does what leaving it unset does, for `--help`.
    default: Option<&'static str>,
    /// Puts a value given for it into the settings.
    set: fn(&mut Draft, Given<'_>) -> Result<(), String>,
}

/// Every setting, each once: `--help` is made from this list, `from_sources` reads by it, and
/// a test holds the tables of docs/operations.md#configuration to it.
const SETTINGS: &[Setting] = &[
    Setting {
        env: "DATABASE_URL",
        flag: Some("--database-url"),
        takes: Some("URL"),
        help: "postgres://... or sqlite:FILE",
        default: Some("sqlite:continental.db"),
        set: |d, g| {
            d.database_url = Some(g.value);
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_MIGRATIONS_URL",
        flag: Some("--migrations-url"),
        takes: Some("URL"),
        help: "where the migrations run, if not on DATABASE_URL: the Citus coordinator of the worker it names",
        default: None,
        set: |d, g| {
            d.migrations_url = Some(g.value);
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_BIND",
        flag: Some("--bind"),
        takes: Some("ADDR"),
        help: "address to listen on",
        default: Some("127.0.0.1:8080"),
        set: |d, g| {
            d.settings.bind = g.value;
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_TEST_MODE",
        flag: Some("--test-mode"),
        takes: None,
        help: "1 accepts seed, first_dealer, stacked_decks on create (default: off)",
        default: None,
        set: |d, g| {
            d.settings.test_mode = g.on();
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_JWT_SECRET",
        flag: Some("--jwt-secret"),
        takes: Some("SECRET"),
        help: "seat-token secret, 32 bytes or more (default: generated once, kept in the database)",
        default: None,
        set: |d, g| {
            d.jwt_secret = Some((g.name.to_owned(), SecretSource::Value(g.value)));
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_JWT_SECRET_FILE",
        flag: Some("--jwt-secret-file"),
        takes: Some("PATH"),
        help: "a file holding the seat-token secret (one line ending ignored), instead of CONTINENTAL_JWT_SECRET",
        default: None,
        set: |d, g| {
            // An empty path names no file: the secret given otherwise, or the stored one, is used.
            if !g.value.is_empty() {
                d.jwt_secret = Some((g.name.to_owned(), SecretSource::File(g.value)));
            }
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_LOG_FORMAT",
        flag: Some("--log-format"),
        takes: Some("FORMAT"),
        help: "text or json",
        default: Some("text"),
        set: |d, g| {
            d.settings.log_format = g.value.parse()?;
            Ok(())
        },
    },
    Setting {
        env: "RUST_LOG",
        flag: None,
        takes: None,
        // Read where the log is set up (`telemetry::init`), before anything logs.
        help: "log filter, such as info,continental::access=warn",
        default: Some("info"),
        set: |_, _| Ok(()),
    },
    Setting {
        env: "CONTINENTAL_RATE_LIMIT",
        flag: Some("--rate-limit"),
        takes: Some("N"),
        help: "requests per second per client, 0 for none",
        default: Some("0"),
        set: |d, g| {
            d.settings.limits.rate_limit = u32::try_from(g.number()?).ok().and_then(NonZeroU32::new);
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_MAX_CONNECTIONS",
        flag: Some("--max-connections"),
        takes: Some("N"),
        help: "open connections at once",
        default: Some("4096"),
        set: |d, g| {
            d.settings.limits.max_connections = usize::try_from(g.number()?).unwrap_or(usize::MAX).max(1);
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_REQUEST_TIMEOUT_MS",
        flag: Some("--request-timeout-ms"),
        takes: Some("N"),
        help: "to send headers, and again the body",
        default: Some("5000"),
        set: |d, g| {
            d.settings.limits.request_timeout = Duration::from_millis(g.number()?.max(1));
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_DB_TIMEOUT_MS",
        flag: Some("--db-timeout-ms"),
        takes: Some("N"),
        help: "wait for a database connection",
        default: Some("1500"),
        set: |d, g| {
            d.settings.limits.db_acquire_timeout = Duration::from_millis(g.number()?.max(1));
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_STATEMENT_TIMEOUT_MS",
        flag: Some("--statement-timeout-ms"),
        takes: Some("N"),
        help: "longest statement",
        default: Some("5000"),
        set: |d, g| {
            d.settings.limits.statement_timeout = Duration::from_millis(g.number()?.max(1));
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_LOCK_TIMEOUT_MS",
        flag: Some("--lock-timeout-ms"),
        takes: Some("N"),
        help: "wait for a game's lock",
        default: Some("1000"),
        set: |d, g| {
            d.settings.limits.lock_timeout = Duration::from_millis(g.number()?.max(1));
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_IDEMPOTENCY_TTL_S",
        flag: Some("--idempotency-ttl-s"),
        takes: Some("N"),
        help: "keep idempotency keys",
        default: Some("86400"),
        set: |d, g| {
            d.settings.limits.idempotency_ttl = Duration::from_secs(g.number()?);
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_RETENTION_DAYS",
        flag: Some("--retention-days"),
        takes: Some("N"),
        help: "keep finished games",
        default: Some("30"),
        set: |d, g| {
            d.settings.limits.retention = Duration::from_secs(g.number()?.saturating_mul(24 * 3600));
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_SWEEP_INTERVAL_S",
        flag: Some("--sweep-interval-s"),
        takes: Some("N"),
        help: "sweep expired keys and games",
        default: Some("300"),
        set: |d, g| {
            d.settings.limits.sweep_interval = Duration::from_secs(g.number()?.max(1));
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_DB_POOL",
        flag: Some("--db-pool"),
        takes: Some("N"),
        help: "database connections (default 4 per core, 8 to 64)",
        default: None,
        set: |d, g| {
            d.settings.limits.db_pool = Some(u32::try_from(g.number()?).unwrap_or(u32::MAX).max(1));
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_DB_POOL_PER_WORKER",
        flag: Some("--db-pool-per-worker"),
        takes: Some("N"),
        help: "on a Citus cluster, database connections to each worker (default as many as --db-pool)",
        default: None,
        set: |d, g| {
            d.settings.limits.db_pool_per_worker =
                Some(u32::try_from(g.number()?).unwrap_or(u32::MAX).max(1));
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_MAX_STREAMS",
        flag: Some("--max-streams"),
        takes: Some("N"),
        help: "event streams open at once, more get 503",
        default: Some("10000"),
        set: |d, g| {
            d.settings.limits.max_streams = usize::try_from(g.number()?).unwrap_or(usize::MAX).max(1);
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_BOT_THREADS",
        flag: Some("--bot-threads"),
        takes: Some("N"),
        help: "threads thinking for bots at once (default half the cores; 0: none here)",
        default: None,
        set: |d, g| {
            d.settings.limits.bot_threads = Some(usize::try_from(g.number()?).unwrap_or(usize::MAX));
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_BOTS_ELSEWHERE",
        flag: Some("--bots-elsewhere"),
        takes: None,
        help: "1: with no bot threads here, other replicas think for hard bots (default: off)",
        default: None,
        set: |d, g| {
            d.settings.limits.bots_elsewhere = g.on();
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_OPEN_BOT_TABLES",
        flag: Some("--open-bot-tables"),
        takes: Some("N"),
        help: "without server keys, tables of bots only in play at once",
        default: Some("8"),
        set: |d, g| {
            d.settings.limits.open_bot_tables = u32::try_from(g.number()?).unwrap_or(u32::MAX);
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_SLOW_PASS_MS",
        flag: Some("--slow-pass-ms"),
        takes: Some("N"),
        help: "log a background pass that takes longer",
        default: Some("1000"),
        set: |d, g| {
            d.settings.limits.slow_pass = Duration::from_millis(g.number()?);
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_API_KEYS",
        flag: Some("--api-keys"),
        takes: Some("LIST"),
        help: "server keys, tenant:secret comma-separated (secrets of 16+ characters; a tenant may have two \
               while rotating); when set, creating a game needs X-Api-Key (default: none, creation open)",
        default: None,
        set: |d, g| {
            d.settings.api_keys = ServerKeys::parse(&g.value)?;
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_CORS_ORIGINS",
        flag: Some("--cors-origins"),
        takes: Some("ORIGINS"),
        help: "comma-separated origins browsers may call from, * for any (default: none, no CORS)",
        default: None,
        set: |d, g| {
            d.settings.cors_origins = g
                .value
                .split(',')
                .map(|o| o.trim().trim_end_matches('/').to_owned())
                .filter(|o| !o.is_empty())
                .collect();
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_WEBHOOK_ALLOW_PRIVATE",
        flag: Some("--webhook-allow-private"),
        takes: None,
        help: "1 lets webhook URLs reach loopback and private addresses (default: off)",
        default: None,
        set: |d, g| {
            d.settings.asynchronous.webhook_allow_private = g.on();
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_WEBHOOK_RETRY_S",
        flag: Some("--webhook-retry-s"),
        takes: Some("SECONDS"),
        help: "first webhook retry after this long, doubling",
        default: Some("2"),
        set: |d, g| {
            d.settings.asynchronous.webhook_retry_s = g
                .value
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s > 0.0 && *s <= 3600.0)
                .ok_or("CONTINENTAL_WEBHOOK_RETRY_S must be a number of seconds above 0, at most 3600")?;
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_WEBHOOK_GIVE_UP_S",
        flag: Some("--webhook-give-up-s"),
        takes: Some("SECONDS"),
        help: "stop retrying a delivery this long after its event",
        default: Some("86400"),
        set: |d, g| {
            d.settings.asynchronous.webhook_give_up_s = g.number()?;
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_TICKET_TTL_S",
        flag: Some("--ticket-ttl-s"),
        takes: Some("N"),
        help: "a quick-play ticket nobody matches expires after this long",
        default: Some("600"),
        set: |d, g| {
            d.settings.matchmaking.ticket_ttl = Duration::from_secs(g.number()?.max(1));
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_ASYNC_TICKET_TTL_S",
        flag: Some("--async-ticket-ttl-s"),
        takes: Some("N"),
        help: "an asynchronous quick-play ticket nobody matches expires after this long",
        default: Some("86400"),
        set: |d, g| {
            d.settings.matchmaking.async_ticket_ttl = Duration::from_secs(g.number()?.max(1));
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_MATCHMAKING_BOTS_AFTER_S",
        flag: Some("--matchmaking-bots-after-s"),
        takes: Some("N"),
        help: "a quick-play ticket waiting this long sits down with bots; 0 or none: never",
        default: Some("30"),
        set: |d, g| {
            d.settings.matchmaking.bots_after = match g.value.trim() {
                "none" => None,
                _ => Some(g.number()?).filter(|s| *s > 0).map(Duration::from_secs),
            };
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_MATCHMAKING_INTERVAL_MS",
        flag: Some("--matchmaking-interval-ms"),
        takes: Some("N"),
        help: "the soonest a quick-play pool is matched again for its clock alone, and the least time between two matching backstops",
        default: Some("500"),
        set: |d, g| {
            d.settings.matchmaking.interval = Duration::from_millis(g.number()?.max(10));
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_TEST_SECOND_MS",
        flag: None,
        takes: None,
        help: "test only, in test mode: a second of turn_seconds lasts that many ms (default: a second)",
        default: None,
        set: |d, g| {
            let ms = g
                .value
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|ms| (1..=1000).contains(ms))
                .ok_or("CONTINENTAL_TEST_SECOND_MS must be 1 to 1000")?;
            d.settings.asynchronous.test_second_ms = Some(ms);
            Ok(())
        },
    },
    Setting {
        env: "CONTINENTAL_TEST_WEBHOOK_LEASE_MS",
        flag: None,
        takes: None,
        help: "test only, in test mode: a claimed webhook delivery is its replica's for that many ms (default: 30 s)",
        default: None,
        set: |d, g| {
            let ms = g
                .value
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|ms| (1..=30_000).contains(ms))
                .ok_or("CONTINENTAL_TEST_WEBHOOK_LEASE_MS must be 1 to 30000")?;
            d.settings.asynchronous.test_webhook_lease_ms = Some(ms);
            Ok(())
        },
    },
];

/// What `--help` prints: every setting of [`SETTINGS`], its flag and its variable.
pub fn usage() -> String {
    let flag = |s: &Setting| match (s.flag, s.takes) {
        (Some(flag), Some(takes)) => format!("{flag} {takes}"),
        (Some(flag), None) => flag.to_owned(),
        (None, _) => String::new(),
    };
    let flags = SETTINGS.iter().map(|s| flag(s).len()).max().unwrap_or_default();
    let envs = SETTINGS.iter().map(|s| s.env.len()).max().unwrap_or_default();
    let mut text = String::from(
        "continental: the Continental Rummy HTTP service\n\n\
         Usage: continental [--FLAG [VALUE] | --FLAG=VALUE]...\n\n\
         Each setting is a flag or an environment variable; flags win over the environment.\n",
    );
    for s in SETTINGS {
        text.push_str(&format!("  {:flags$}  {:envs$}  {}", flag(s), s.env, s.help));
        if let Some(default) = s.default {
            text.push_str(&format!(" (default {default})"));
        }
        text.push('\n');
    }
    text.truncate(text.trim_end().len());
    text
}

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
    /// Reads flags (`args` without the program name) over environment variables (`env`), by
    /// [`SETTINGS`]; `-h` or `--help` gives [`usage`] as the error.
    ///
    /// # Errors
    /// A message for an unknown flag, a flag without its value, or a value a setting refuses.
    pub fn from_sources(
        args: impl IntoIterator<Item = String>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Settings, String> {
        let given = |name: &str| env(name).filter(|v| !v.is_empty());
        if given("CONTINENTAL_JWT_SECRET").is_some() && given("CONTINENTAL_JWT_SECRET_FILE").is_some() {
            return Err("set CONTINENTAL_JWT_SECRET or CONTINENTAL_JWT_SECRET_FILE, not both".into());
        }
        let mut draft = Draft::defaults()?;
        // The environment first, then the flags in order: the last word wins.
        for setting in SETTINGS {
            if let Some(value) = env(setting.env) {
                (setting.set)(
                    &mut draft,
                    Given {
                        name: setting.env,
                        value,
                    },
                )?;
            }
        }
        draft.read_flags(args)?;
        draft.resolve()
    }
}

impl Draft {
    /// The settings no source has given yet.
    fn defaults() -> Result<Draft, String> {
        Ok(Draft {
            settings: Settings {
                database: DatabaseSettings::from_url(None)?,
                migrations: None,
                bind: "127.0.0.1:8080".to_owned(),
                test_mode: false,
                jwt_secret: None,
                asynchronous: AsyncSettings::default(),
                log_format: LogFormat::default(),
                limits: Limits::default(),
                api_keys: ServerKeys::default(),
                matchmaking: MatchmakingSettings::default(),
                cors_origins: Vec::new(),
            },
            database_url: None,
            migrations_url: None,
            jwt_secret: None,
        })
    }

    /// Sets what the flags `args` give, in order (`--flag value`, `--flag=value`, or a switch
    /// alone); `-h` or `--help` gives [`usage`] as the error.
    fn read_flags(&mut self, args: impl IntoIterator<Item = String>) -> Result<(), String> {
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            if arg == "-h" || arg == "--help" {
                return Err(usage());
            }
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) => (f, Some(v.to_owned())),
                None => (arg.as_str(), None),
            };
            let Some(setting) = SETTINGS.iter().find(|s| s.flag == Some(flag)) else {
                return Err(format!("unknown flag {flag}\n\n{}", usage()));
            };
            let value = match (inline, setting.takes) {
                (Some(value), _) => value,
                (None, None) => "1".to_owned(),
                (None, Some(_)) => args.next().ok_or_else(|| format!("{flag} needs a value"))?,
            };
            (setting.set)(self, Given { name: flag, value })?;
        }
        Ok(())
    }

    /// The settings once every value is known: the databases from their URLs, the seat-token
    /// secret read, the test second only in test mode.
    fn resolve(self) -> Result<Settings, String> {
        let Draft {
            mut settings,
            database_url,
            migrations_url,
            jwt_secret,
        } = self;
        settings.database = DatabaseSettings::from_url(database_url.as_deref())?;
        settings.migrations = match migrations_url.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(url) => match (&settings.database, DatabaseSettings::from_url(Some(url))) {
                (DatabaseSettings::Postgres { .. }, Ok(m @ DatabaseSettings::Postgres { .. })) => Some(m),
                _ => {
                    return Err(
                        "CONTINENTAL_MIGRATIONS_URL must be a postgres:// URL, with DATABASE_URL one too"
                            .into(),
                    );
                }
            },
        };
        // An empty value is no value: the stored secret is used.
        settings.jwt_secret = jwt_secret
            .filter(|(_, source)| !matches!(source, SecretSource::Value(v) if v.is_empty()))
            .map(|(setting, source)| source.read(&setting))
            .transpose()?;
        if !settings.test_mode {
            settings.asynchronous.test_second_ms = None;
            settings.asynchronous.test_webhook_lease_ms = None;
        }
        Ok(settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| (*v).to_owned())
    }

    #[test]
    fn the_docs_list_every_setting_and_no_other() {
        let docs = include_str!("../../docs/operations.md");
        let start = docs
            .find("## Configuration")
            .expect("docs/operations.md#configuration");
        let section = &docs[start..];
        let section = &section[..section[3..].find("\n## ").map_or(section.len(), |end| end + 3)];
        let unquote = |cell: &str| cell.trim().trim_matches('`').to_owned();
        let documented: Vec<(String, String)> = section
            .lines()
            .filter(|line| line.starts_with("| `"))
            .map(|line| {
                let cells: Vec<&str> = line.split('|').collect();
                (unquote(cells[1]), unquote(cells[2]))
            })
            .collect();
        let declared: Vec<(String, String)> = SETTINGS
            .iter()
            .map(|s| (s.env.to_owned(), s.flag.unwrap_or_default().to_owned()))
            .collect();
        for row in &documented {
            assert!(
                declared.contains(row),
                "docs/operations.md lists {row:?}, which SETTINGS does not"
            );
        }
        for setting in &declared {
            assert!(
                documented.contains(setting),
                "SETTINGS has {setting:?}, which docs/operations.md#configuration does not list (variable, flag)"
            );
        }
    }

    #[test]
    fn the_default_help_names_is_what_an_unset_setting_gives() {
        let unset = format!(
            "{:?}",
            Settings::from_sources(Vec::new(), env_of(&[])).expect("defaults")
        );
        for setting in SETTINGS {
            let Some(default) = setting.default else { continue };
            let env = |k: &str| (k == setting.env).then(|| default.to_owned());
            let given = Settings::from_sources(Vec::new(), env).expect("the default is a value");
            assert_eq!(format!("{given:?}"), unset, "{}={default}", setting.env);
        }
    }

    #[test]
    fn help_names_every_setting_by_its_flag_and_its_variable() {
        let help = Settings::from_sources(["--help".to_owned()], env_of(&[])).expect_err("help");
        assert_eq!(help, usage());
        for setting in SETTINGS {
            let line = help
                .lines()
                .find(|l| l.split_whitespace().any(|word| word == setting.env))
                .unwrap_or_else(|| panic!("--help names {}", setting.env));
            if let Some(flag) = setting.flag {
                assert!(
                    line.trim_start().starts_with(flag),
                    "{flag} beside {}: {line}",
                    setting.env
                );
            }
        }
        let unknown = Settings::from_sources(["--nope=1".to_owned()], env_of(&[])).expect_err("unknown");
        assert!(unknown.starts_with("unknown flag --nope\n\n"), "{unknown}");
    }

    #[test]
    fn secrets_never_reach_debug() {
        let env = env_of(&[
            ("DATABASE_URL", "postgres://user:hunter2hunter2@db/continental"),
            ("CONTINENTAL_JWT_SECRET", "0123456789abcdef0123456789abcdef"),
            ("CONTINENTAL_API_KEYS", "acme:fedcba9876543210"),
        ]);
        let s = Settings::from_sources(Vec::new(), env).expect("settings");
        let debug = format!("{s:?}");
        for secret in ["hunter2", "0123456789abcdef", "fedcba9876543210"] {
            assert!(!debug.contains(secret), "{secret} in {debug}");
        }
        assert!(debug.contains("acme"), "the tenant is no secret: {debug}");
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
            ("CONTINENTAL_TEST_WEBHOOK_LEASE_MS", "300"),
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
        assert_eq!(s.asynchronous.test_webhook_lease_ms, Some(300));
        let outside = Settings::from_sources(
            Vec::new(),
            env_of(&[("CONTINENTAL_TEST_WEBHOOK_LEASE_MS", "300")]),
        )
        .expect("settings");
        assert_eq!(outside.asynchronous.test_webhook_lease_ms, None, "test mode only");
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
    fn a_migrations_url_is_postgres_beside_postgres() {
        const WORKER: (&str, &str) = ("DATABASE_URL", "postgres://u@worker/db");
        const COORDINATOR: (&str, &str) = ("CONTINENTAL_MIGRATIONS_URL", "postgres://u@coordinator/db");
        let s = Settings::from_sources(Vec::new(), env_of(&[WORKER, COORDINATOR]))
            .expect("a worker and its coordinator");
        assert_eq!(
            s.migrations,
            Some(DatabaseSettings::Postgres {
                url: "postgres://u@coordinator/db".into()
            })
        );
        let s = Settings::from_sources(Vec::new(), env_of(&[WORKER])).expect("no migrations URL");
        assert_eq!(s.migrations, None, "the migrations run on DATABASE_URL");
        let on_sqlite = Settings::from_sources(Vec::new(), env_of(&[COORDINATOR]));
        assert!(on_sqlite.is_err(), "a migrations URL beside SQLite");
        let to_sqlite = Settings::from_sources(
            Vec::new(),
            env_of(&[WORKER, ("CONTINENTAL_MIGRATIONS_URL", "sqlite:a.db")]),
        );
        assert!(to_sqlite.is_err(), "migrations on SQLite beside PostgreSQL");
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
        assert_eq!(defaults.limits.db_pool_per_worker, None, "as many as the pool");
        let env = env_of(&[("CONTINENTAL_DB_POOL_PER_WORKER", "6")]);
        let s = Settings::from_sources(Vec::new(), env).expect("env");
        assert_eq!(s.limits.db_pool_per_worker, Some(6));
        let s = Settings::from_sources(["--db-pool-per-worker=2".to_owned()], env_of(&[])).expect("flag");
        assert_eq!(s.limits.db_pool_per_worker, Some(2));
        assert!(
            Settings::from_sources(Vec::new(), env_of(&[("CONTINENTAL_DB_POOL_PER_WORKER", "some")]))
                .is_err()
        );
        assert!((8..=64).contains(&default_db_pool()));
        assert!(Settings::from_sources(Vec::new(), env_of(&[("CONTINENTAL_DB_POOL", "many")])).is_err());
    }
}
