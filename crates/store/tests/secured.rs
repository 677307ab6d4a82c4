//! A PostgreSQL store on a server that asks for a password and takes TCP only with TLS: the
//! password from the connection string, PGPASSWORD or the password file (not from one others
//! may read), and TLS whose server certificate is verified against PGSSLROOTCERT. One test:
//! the environment it sets is the process's.

mod pg;

use drivescope_store::{Location, Store};
use std::os::unix::fs::PermissionsExt;

const PASSWORD: &str = "s3cret:with colon";

fn open(conn: &str) -> Result<Store, String> {
    Store::open(Location::parse(conn)).map_err(|e| e.to_string())
}

/// The error of a connection that must fail.
fn refused(conn: &str, why: &str) -> String {
    match open(conn) {
        Ok(_) => panic!("{why}: {conn} opened"),
        Err(e) => e,
    }
}

/// Sets (or removes) environment variables for the rest of the test.
fn env(name: &str, value: Option<&str>) {
    match value {
        Some(v) => std::env::set_var(name, v),
        None => std::env::remove_var(name),
    }
}

#[test]
fn passwords_and_tls_as_libpq_users_expect() {
    let server = pg::secured(PASSWORD);
    let conn = server.database("secured");
    let port = server.port().expect("a TCP port");
    let dir = server.dir().to_path_buf();
    // Nothing of the machine's own: no password file, no root certificate of the user's.
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    env("HOME", home.to_str());
    for v in ["PGPASSWORD", "PGPASSFILE", "PGSSLROOTCERT"] {
        env(v, None);
    }

    // The socket asks for the password.
    let e = refused(&conn, "no password, no store");
    assert!(e.contains("password"), "{e}");
    // In the string (quoted: it holds a space and a colon).
    open(&format!("{conn} password='{PASSWORD}'")).expect("the string's password");
    // PGPASSWORD.
    env("PGPASSWORD", Some(PASSWORD));
    open(&conn).expect("PGPASSWORD");
    env("PGPASSWORD", None);

    // The password file: a socket connection looks up host "localhost"; `:` escaped.
    let pgpass = home.join("pgpass");
    let db = conn
        .split_whitespace()
        .find_map(|w| w.strip_prefix("dbname="))
        .unwrap();
    std::fs::write(
        &pgpass,
        format!(
            "otherhost:{port}:{db}:drivescope:wrong\nlocalhost:{port}:{db}:drivescope:{}\n",
            PASSWORD.replace(':', "\\:")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();
    env("PGPASSFILE", pgpass.to_str());
    open(&conn).expect("the password file");
    // One that others may read is ignored.
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o644)).unwrap();
    let e = refused(&conn, "a password file others may read is ignored");
    assert!(e.contains("password"), "{e}");
    // ~/.pgpass when PGPASSFILE is not set.
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::rename(&pgpass, home.join(".pgpass")).unwrap();
    env("PGPASSFILE", None);
    open(&conn).expect("~/.pgpass");

    // TCP: TLS only, the server's certificate verified against PGSSLROOTCERT.
    let tcp = format!("host=localhost port={port} user=drivescope dbname={db} sslmode=require");
    let e = refused(&tcp, "the test CA is in no system store");
    assert!(e.to_lowercase().contains("certificate"), "{e}");
    env("PGSSLROOTCERT", dir.join("ca.crt").to_str());
    let store = open(&tcp).expect("TLS with the server's CA");
    assert!(store.schema_version().unwrap() > 0);
    // The server takes no plain TCP: the store above came over TLS.
    let e = refused(&format!("{tcp} sslmode=disable"), "plain TCP is refused");
    assert!(e.contains("no encryption") || e.contains("pg_hba"), "{e}");
    // The default (prefer) goes with TLS too, in the URI form as well.
    open(&format!("postgresql://drivescope@localhost:{port}/{db}")).expect("sslmode prefer, URI");
    // A root file without certificates is said so.
    let empty = home.join("empty.pem");
    std::fs::write(&empty, "").unwrap();
    env("PGSSLROOTCERT", empty.to_str());
    let e = refused(&tcp, "no roots");
    assert!(e.contains("no certificate"), "{e}");
}
