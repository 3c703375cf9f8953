//! Settings from the environment, each also accepted as a command-line flag.

use std::fmt;

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
    /// API.md's test mode: `seed`, `first_dealer` and `stacked_decks` accepted on create.
    pub test_mode: bool,
    /// Secret for seat tokens; `None`: the one stored in the database (generated once).
    pub jwt_secret: Option<Secret>,
}

/// A secret that never prints.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// What `--help` prints.
pub const USAGE: &str = "\
continental: the Continental Rummy HTTP service

Usage: continental [--database-url URL] [--bind ADDR] [--test-mode] [--jwt-secret SECRET]

Each flag may instead be given in the environment:
  --database-url URL   DATABASE_URL           postgres://... or sqlite:FILE (default: sqlite continental.db)
  --bind ADDR          CONTINENTAL_BIND       address to listen on (default 127.0.0.1:8080)
  --test-mode          CONTINENTAL_TEST_MODE  1 accepts seed, first_dealer, stacked_decks on create
  --jwt-secret SECRET  CONTINENTAL_JWT_SECRET  seat-token secret (default: generated once, kept in the database)
Flags win over the environment.";

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
        let mut jwt_secret = env("CONTINENTAL_JWT_SECRET");
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
                "--jwt-secret" => jwt_secret = Some(value("--jwt-secret")?),
                "--test-mode" => test_mode = Some(inline.as_deref().is_none_or(|v| v == "1" || v == "true")),
                "-h" | "--help" => return Err(USAGE.to_owned()),
                other => return Err(format!("unknown flag {other}\n\n{USAGE}")),
            }
        }
        Ok(Settings {
            database: DatabaseSettings::from_url(database_url.as_deref())?,
            bind: bind.unwrap_or_else(|| "127.0.0.1:8080".to_owned()),
            test_mode: test_mode.unwrap_or(false),
            jwt_secret: jwt_secret.filter(|s| !s.is_empty()).map(Secret),
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
}
