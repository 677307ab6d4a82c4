//! How a connection string becomes a connection, with the password and TLS sources a libpq user
//! expects:
//! - the password: the connection string's own, else `PGPASSWORD`, else the password file
//!   (`PGPASSFILE`, default `~/.pgpass`: `host:port:database:user:password` lines, `*` for any,
//!   `\` escaping `:` and `\`; a file that group or others may read is ignored, as libpq does);
//! - TLS over TCP (`sslmode` `prefer`, the default, or `require`; never over a Unix socket): the
//!   server's certificate is always verified, against `PGSSLROOTCERT` (a PEM file), else
//!   `~/.postgresql/root.crt` when it exists, else the system's CA roots. A server whose
//!   certificate cannot be verified is refused, also with `prefer` (libpq would go on unverified).

use crate::error::{Error, Result};
use postgres::config::Host;
use postgres::tls::MakeTlsConnect;
use postgres::{Config, Socket};
use rustls::pki_types::pem::PemObject;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::Arc;
use tokio_postgres_rustls::MakeRustlsConnect;

/// Connects as `conn` says.
pub(crate) fn connect(conn: &str) -> Result<postgres::Client> {
    let mut config: Config = conn.parse()?;
    if config.get_password().is_none() {
        if let Some(p) = password(&config) {
            config.password(p);
        }
    }
    Ok(config.connect(tls()?)?)
}

/// The password of `PGPASSWORD` or of the password file's first line that matches.
fn password(config: &Config) -> Option<String> {
    if let Some(p) = std::env::var_os("PGPASSWORD") {
        return Some(p.to_string_lossy().into_owned());
    }
    let file = match std::env::var_os("PGPASSFILE") {
        Some(f) => PathBuf::from(f),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".pgpass"),
    };
    let meta = std::fs::metadata(&file).ok()?;
    if meta.permissions().mode() & 0o077 != 0 {
        eprintln!(
            "drivescope: warning: password file {} has group or world access; it is ignored \
             (chmod 0600 it)",
            file.display()
        );
        return None;
    }
    let text = std::fs::read_to_string(&file).ok()?;
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        // A socket directory, or no host: libpq looks up "localhost".
        _ => "localhost".to_string(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config
        .get_user()
        .map(str::to_string)
        .or_else(|| std::env::var("USER").ok())
        .unwrap_or_default();
    let db = config.get_dbname().unwrap_or(&user).to_string();
    lookup(&text, &host, port, &db, &user)
}

/// The password of the first line of a password file that matches host, port, database and
/// user (each field equal, or `*`).
pub(crate) fn lookup(text: &str, host: &str, port: u16, db: &str, user: &str) -> Option<String> {
    let port = port.to_string();
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(fields)
        .filter(|f| f.len() == 5)
        .find(|f| {
            [host, port.as_str(), db, user]
                .iter()
                .zip(f)
                .all(|(want, field)| field == "*" || field == want)
        })
        .map(|f| f[4].clone())
}

/// The fields of one line: split at `:`, a `\` taking the next character as it is.
fn fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    out.last_mut().expect("one field").push(n);
                }
            }
            // The password is the rest of the line, colons and all.
            ':' if out.len() < 5 => out.push(String::new()),
            c => out.last_mut().expect("one field").push(c),
        }
    }
    out
}

/// rustls over TCP. A Unix socket has no host name to check (and PostgreSQL no TLS there: the
/// server declines it, so no handshake follows); its connector gets a name that parses.
struct Tls(MakeRustlsConnect);

impl MakeTlsConnect<Socket> for Tls {
    type Stream = <MakeRustlsConnect as MakeTlsConnect<Socket>>::Stream;
    type TlsConnect = <MakeRustlsConnect as MakeTlsConnect<Socket>>::TlsConnect;
    type Error = <MakeRustlsConnect as MakeTlsConnect<Socket>>::Error;

    fn make_tls_connect(
        &mut self,
        host: &str,
    ) -> std::result::Result<Self::TlsConnect, Self::Error> {
        let host = if host.is_empty() { "localhost" } else { host };
        MakeTlsConnect::<Socket>::make_tls_connect(&mut self.0, host)
    }
}

/// The TLS connector: rustls, the roots as the module says.
fn tls() -> Result<Tls> {
    let mut roots = rustls::RootCertStore::empty();
    let home_root = std::env::var_os("HOME")
        .map(|h| PathBuf::from(h).join(".postgresql").join("root.crt"))
        .filter(|p| p.is_file());
    match std::env::var_os("PGSSLROOTCERT")
        .map(PathBuf::from)
        .or(home_root)
    {
        Some(file) => {
            let certs = rustls::pki_types::CertificateDer::pem_file_iter(&file)
                .and_then(|it| it.collect::<std::result::Result<Vec<_>, _>>())
                .map_err(|e| Error::Tls(format!("{}: {e}", file.display())))?;
            let (added, _) = roots.add_parsable_certificates(certs);
            if added == 0 {
                return Err(Error::Tls(format!(
                    "{}: no certificate in it",
                    file.display()
                )));
            }
        }
        None => {
            // The certificates that load; a store over a Unix socket needs none.
            roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Tls(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Tls(MakeRustlsConnect::new(config)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "\
# comment:line:x:y:z
db.example:5432:runs:alice:first
*:*:other:*:any\\:colon
h\\:x:5433:runs:bob:esc\\\\aped:rest
";

    #[test]
    fn the_first_matching_line_gives_the_password() {
        assert_eq!(
            lookup(FILE, "db.example", 5432, "runs", "alice").as_deref(),
            Some("first")
        );
        assert_eq!(
            lookup(FILE, "elsewhere", 1, "other", "x").as_deref(),
            Some("any:colon")
        );
        assert_eq!(
            lookup(FILE, "h:x", 5433, "runs", "bob").as_deref(),
            Some("esc\\aped:rest")
        );
        assert_eq!(lookup(FILE, "db.example", 5433, "runs", "alice"), None);
        assert_eq!(lookup(FILE, "comment", 0, "x", "y"), None);
    }
}
