//! Where a store lives: a SQLite file, or a PostgreSQL database named by a connection string.
//!
//! The rule that tells them apart (`--store` documents it too):
//! - `postgresql://…` or `postgres://…` is a PostgreSQL connection URI;
//! - a value that starts with `KEYWORD=…` (spaces allowed around `=`), with KEYWORD one of libpq's connection keywords (`host`,
//!   `hostaddr`, `port`, `dbname`, `user`, `password`, …), is a libpq keyword/value string
//!   (`host=/run/postgresql dbname=drivescope user=drivescope`);
//! - anything else is the path of a SQLite file (write `./host=x` for a file of that name).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The connection keywords libpq knows (PostgreSQL 15): a first word `KEYWORD=` with one of these
/// makes a keyword/value connection string.
const LIBPQ_KEYWORDS: &[&str] = &[
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "passfile",
    "channel_binding",
    "connect_timeout",
    "client_encoding",
    "options",
    "application_name",
    "fallback_application_name",
    "keepalives",
    "keepalives_idle",
    "keepalives_interval",
    "keepalives_count",
    "tcp_user_timeout",
    "replication",
    "gssencmode",
    "sslmode",
    "requiressl",
    "sslcompression",
    "sslcert",
    "sslkey",
    "sslpassword",
    "sslrootcert",
    "sslcrl",
    "sslcrldir",
    "sslsni",
    "requirepeer",
    "ssl_min_protocol_version",
    "ssl_max_protocol_version",
    "krbsrvname",
    "gsslib",
    "service",
    "target_session_attrs",
    "load_balance_hosts",
];

/// A store's place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// An embedded SQLite database file.
    Sqlite(PathBuf),
    /// A PostgreSQL database: a connection URI or a libpq keyword/value string.
    Postgres(String),
}

impl Location {
    /// Reads a `--store` value by the rule in this module's documentation.
    pub fn parse(value: impl AsRef<OsStr>) -> Location {
        let value = value.as_ref();
        match value.to_str() {
            Some(s) if is_postgres(s) => Location::Postgres(s.to_string()),
            _ => Location::Sqlite(PathBuf::from(value)),
        }
    }

    /// The SQLite file, if this is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Location::Sqlite(p) => Some(p),
            Location::Postgres(_) => None,
        }
    }
}

fn is_postgres(s: &str) -> bool {
    if s.starts_with("postgresql://") || s.starts_with("postgres://") {
        return true;
    }
    // libpq allows spaces around `=`: the keyword is what comes before the first `=`, trimmed
    match s.split_once('=') {
        Some((key, _)) => LIBPQ_KEYWORDS.contains(&key.trim()),
        None => false,
    }
}

impl std::str::FromStr for Location {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Location, Self::Err> {
        Ok(Location::parse(s))
    }
}

/// A path is a SQLite store, whatever its text.
impl From<PathBuf> for Location {
    fn from(p: PathBuf) -> Location {
        Location::Sqlite(p)
    }
}

impl From<&Path> for Location {
    fn from(p: &Path) -> Location {
        Location::Sqlite(p.to_path_buf())
    }
}

impl From<&PathBuf> for Location {
    fn from(p: &PathBuf) -> Location {
        Location::Sqlite(p.clone())
    }
}

/// Text is read by the rule: a PostgreSQL connection string, else a path.
impl From<&str> for Location {
    fn from(s: &str) -> Location {
        Location::parse(s)
    }
}

impl From<String> for Location {
    fn from(s: String) -> Location {
        Location::parse(s)
    }
}

impl From<&String> for Location {
    fn from(s: &String) -> Location {
        Location::parse(s)
    }
}

impl From<std::ffi::OsString> for Location {
    fn from(s: std::ffi::OsString) -> Location {
        Location::parse(s)
    }
}

impl From<&Location> for Location {
    fn from(l: &Location) -> Location {
        l.clone()
    }
}

/// The file's path, or the connection string with any password left out.
impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Sqlite(p) => p.display().fmt(f),
            Location::Postgres(s) => f.write_str(&without_password(s)),
        }
    }
}

/// `postgresql://u:secret@h/db` → `postgresql://u:***@h/db`; `password=secret` → `password=***`.
fn without_password(s: &str) -> String {
    if let Some(rest) = s.split_once("://") {
        let (scheme, rest) = rest;
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (auth_host, tail) = rest.split_at(end);
        if let Some((auth, host)) = auth_host.rsplit_once('@') {
            if let Some((user, _)) = auth.split_once(':') {
                return format!("{scheme}://{user}:***@{host}{tail}");
            }
        }
        let (path, query) = match tail.split_once('?') {
            Some((p, q)) => (p, q),
            None => return s.to_string(),
        };
        let query: Vec<String> = query
            .split('&')
            .map(|kv| match kv.split_once('=') {
                Some(("password", _)) => "password=***".to_string(),
                _ => kv.to_string(),
            })
            .collect();
        return format!("{scheme}://{auth_host}{path}?{}", query.join("&"));
    }
    let mut out = String::new();
    let mut words = s.split_ascii_whitespace().peekable();
    while let Some(w) = words.next() {
        if let Some(("password", v)) = w.split_once('=').map(|(k, v)| (k.trim(), v)) {
            out += "password=***";
            // a quoted password may hold spaces: skip to its closing quote
            if v.starts_with('\'') && (v.len() == 1 || !v.ends_with('\'')) {
                for next in words.by_ref() {
                    if next.ends_with('\'') {
                        break;
                    }
                }
            }
        } else {
            out += w;
        }
        if words.peek().is_some() {
            out.push(' ');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_keyword_strings_are_postgres_everything_else_a_path() {
        for pg in [
            "postgresql://drivescope@db.lab/runs",
            "postgres://u:p@10.0.0.1:5432/runs?sslmode=disable",
            "postgresql:///runs?host=/run/postgresql",
            "host=/run/postgresql dbname=runs user=drivescope",
            "dbname=runs",
            "user = drivescope",
            "service=drivescope",
        ] {
            assert_eq!(Location::parse(pg), Location::Postgres(pg.into()), "{pg}");
        }
        for path in [
            "runs.sqlite",
            "/var/lib/drivescope/runs.sqlite",
            "./host=x",
            "/tmp/host=x dbname=y",
            "x=1",
            "data dir/runs.sqlite",
            "postgresql:/not-a-url",
            "",
        ] {
            assert_eq!(
                Location::parse(path),
                Location::Sqlite(path.into()),
                "{path}"
            );
        }
        // A value typed as a path is a path.
        let p = PathBuf::from("host=/run/postgresql dbname=x");
        assert_eq!(Location::from(&p), Location::Sqlite(p.clone()));
        assert_eq!(Location::parse("dbname=x").path(), None);
    }

    #[test]
    fn passwords_are_not_shown() {
        let shown = |s: &str| Location::parse(s).to_string();
        assert_eq!(
            shown("postgresql://u:secret@h:5432/db"),
            "postgresql://u:***@h:5432/db"
        );
        assert_eq!(shown("postgresql://u@h/db"), "postgresql://u@h/db");
        assert_eq!(
            shown("postgres://h/db?user=u&password=secret&sslmode=require"),
            "postgres://h/db?user=u&password=***&sslmode=require"
        );
        assert_eq!(
            shown("host=h password=secret dbname=db"),
            "host=h password=*** dbname=db"
        );
        assert_eq!(
            shown("host=h password='a secret' dbname=db"),
            "host=h password=*** dbname=db"
        );
        assert_eq!(shown("/x/runs.sqlite"), "/x/runs.sqlite");
    }
}
