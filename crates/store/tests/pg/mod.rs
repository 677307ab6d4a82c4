//! A throwaway PostgreSQL server for tests, and the two places a store can live.
//!
//! The server is the real one (Debian package `postgresql`): `initdb` into a fresh directory, `pg_ctl start`
//! listening on a Unix socket in that directory only (no TCP). Running as root, the server runs as `nobody`
//! (PostgreSQL refuses root). One server is shared by the tests of a test binary that run at the same time, each
//! test with its own database; the last test to finish stops it (`pg_ctl stop -m immediate`) and removes the
//! directory, also when a test panics. A machine without PostgreSQL fails the tests with the package to
//! install: they are never skipped.
//!
//! Shared by the store's tests and the binary's (`#[path]`), so not every item is used by each.
#![allow(dead_code)]

use drivescope_store::Location;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// The user the server runs as when the tests run as root.
const SERVER_USER: &str = "nobody";
/// The database superuser `initdb` creates (trust authentication: no password).
pub const DB_USER: &str = "drivescope";

const MISSING: &str =
    "PostgreSQL programs (initdb, pg_ctl, postgres, createdb, psql) not found under `pg_config --bindir` \
     or /usr/lib/postgresql/*/bin: install the Debian package `postgresql`";

/// A running server; stopped and removed when the last handle goes.
pub struct Server {
    dir: PathBuf,
    bin: PathBuf,
    databases: AtomicUsize,
    /// The superuser's password, on a server that asks for one.
    password: Option<String>,
}

static SHARED: Mutex<Weak<Server>> = Mutex::new(Weak::new());
static STARTED: AtomicUsize = AtomicUsize::new(0);

/// The server of this test binary (started when no test holds one).
pub fn server() -> Arc<Server> {
    let mut shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = shared.upgrade() {
        return s;
    }
    let s = Arc::new(Server::start());
    *shared = Arc::downgrade(&s);
    s
}

/// The directory of the PostgreSQL server programs.
fn bindir() -> PathBuf {
    let has_server = |d: &Path| {
        ["initdb", "pg_ctl", "postgres", "createdb", "psql"]
            .iter()
            .all(|p| d.join(p).is_file())
    };
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        let d = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if out.status.success() && has_server(&d) {
            return d;
        }
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse::<u32>().ok()?;
            Some((version, e.path().join("bin")))
        })
        .filter(|(_, d)| has_server(d))
        .collect();
    found.sort();
    found.pop().map(|(_, d)| d).expect(MISSING)
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The uid and gid of `user`.
fn ids(user: &str) -> (u32, u32) {
    let name = std::ffi::CString::new(user).unwrap();
    // SAFETY: `name` is NUL-terminated; the returned entry is read before any other getpw* call.
    unsafe {
        let pw = libc::getpwnam(name.as_ptr());
        assert!(
            !pw.is_null(),
            "no user {user} to run the PostgreSQL server as"
        );
        ((*pw).pw_uid, (*pw).pw_gid)
    }
}

impl Server {
    fn start() -> Server {
        let server = Server::prepare(None);
        server.initdb("trust");
        server.start_on(&format!(
            "-k {} -c listen_addresses='' -c fsync=off -c max_connections=50",
            server.dir.display()
        ));
        server
    }

    /// A fresh directory for a server (owned by [`SERVER_USER`] when root), removed with it.
    fn prepare(password: Option<&str>) -> Server {
        let bin = bindir();
        let n = STARTED.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("drivescope-pg-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        if is_root() {
            let (uid, gid) = ids(SERVER_USER);
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid)).unwrap();
        }
        // From here on the directory is removed whatever happens.
        Server {
            dir,
            bin,
            databases: AtomicUsize::new(0),
            password: password.map(str::to_string),
        }
    }

    /// A file of the server's directory, readable by the server only.
    fn private_file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        if is_root() {
            let (uid, gid) = ids(SERVER_USER);
            std::os::unix::fs::chown(&path, Some(uid), Some(gid)).unwrap();
        }
        path
    }

    /// `initdb` with `auth` for every connection (the password, if any, from a file).
    fn initdb(&self, auth: &str) {
        let data = self.dir.join("data");
        let mut args: Vec<std::ffi::OsString> = vec![
            "-D".into(),
            data.into(),
            "-A".into(),
            auth.into(),
            "-U".into(),
            DB_USER.into(),
            "-E".into(),
            "UTF8".into(),
            "--no-sync".into(),
        ];
        if let Some(p) = &self.password {
            let file = self.private_file("pwfile", p);
            args.push(format!("--pwfile={}", file.display()).into());
        }
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        self.run("initdb", &args);
    }

    /// `pg_ctl start` with the server's `options`.
    fn start_on(&self, options: &str) {
        let data = self.dir.join("data");
        self.run(
            "pg_ctl",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-l".as_ref(),
                self.dir.join("log").as_os_str(),
                "-o".as_ref(),
                options.as_ref(),
                "-w".as_ref(),
                "start".as_ref(),
            ],
        );
    }

    /// Runs one of the server's programs (as [`SERVER_USER`] when root); panics with its output on failure.
    fn run(&self, program: &str, args: &[&std::ffi::OsStr]) {
        let exe = self.bin.join(program);
        let mut cmd = if is_root() {
            let mut c = Command::new("runuser");
            c.args(["-u", SERVER_USER, "--"]).arg(&exe);
            c
        } else {
            Command::new(&exe)
        };
        let out = cmd
            .args(args)
            .current_dir(&self.dir)
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
        if !out.status.success() {
            let log = std::fs::read_to_string(self.dir.join("log")).unwrap_or_default();
            panic!(
                "{program} failed ({}):\n{}{}\n{log}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    /// A connection string (libpq keyword/value) for database `db` of this server, by its socket
    /// (without the password of a server that asks for one).
    pub fn conn(&self, db: &str) -> String {
        match self.port() {
            Some(port) => format!(
                "host={} port={port} user={DB_USER} dbname={db}",
                self.dir.display()
            ),
            None => format!("host={} user={DB_USER} dbname={db}", self.dir.display()),
        }
    }

    /// The TCP port of a server that listens on one.
    pub fn port(&self) -> Option<u16> {
        std::fs::read_to_string(self.dir.join("port"))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// The server's directory (its socket's, and the certificates' of a [`Secured`] one).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Creates a fresh empty database and returns its connection string.
    pub fn database(&self, name: &str) -> String {
        let n = self.databases.fetch_add(1, Ordering::SeqCst);
        let db: String = format!("{name}_{n}")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect();
        let mut createdb = Command::new(self.bin.join("createdb"));
        if let Some(p) = &self.password {
            createdb.env("PGPASSWORD", p);
        }
        if let Some(port) = self.port() {
            createdb.args(["-p", &port.to_string()]);
        }
        let out = createdb
            .args(["-h".as_ref(), self.dir.as_os_str()])
            .args(["-U", DB_USER, &db])
            .output()
            .expect("running createdb");
        assert!(
            out.status.success(),
            "createdb {db}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        self.conn(&db)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let data = self.dir.join("data");
        if data.join("postmaster.pid").exists() {
            let exe = self.bin.join("pg_ctl");
            let mut cmd = if is_root() {
                let mut c = Command::new("runuser");
                c.args(["-u", SERVER_USER, "--"]).arg(&exe);
                c
            } else {
                Command::new(&exe)
            };
            let _ = cmd
                .arg("-D")
                .arg(&data)
                .args(["-m", "immediate", "-w", "stop"])
                .output();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A server that asks for the superuser's password (scram-sha-256) on its socket, and takes TCP on
/// 127.0.0.1 only with TLS: its certificate for `localhost` and 127.0.0.1 is signed by a CA made
/// here (`openssl`), in `ca.crt` of its directory. Not shared.
pub fn secured(password: &str) -> Server {
    let server = Server::prepare(Some(password));
    server.initdb("scram-sha-256");
    let dir = server.dir.clone();
    let openssl = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("openssl must be installed (apt-get install openssl) for the TLS tests");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    openssl(
        &[
            &["req", "-x509"][..],
            &ec,
            &[
                "-keyout",
                "ca.key",
                "-out",
                "ca.crt",
                "-subj",
                "/CN=drivescope test CA",
                "-days",
                "2",
            ],
        ]
        .concat(),
    );
    openssl(
        &[
            &["req"][..],
            &ec,
            &[
                "-keyout",
                "server.key",
                "-out",
                "server.csr",
                "-subj",
                "/CN=localhost",
            ],
        ]
        .concat(),
    );
    std::fs::write(
        dir.join("ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
    )
    .unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "2",
        "-extfile",
        "ext",
    ]);
    let key = std::fs::read_to_string(dir.join("server.key")).unwrap();
    let key = server.private_file("server.key", &key);
    let crt = std::fs::read_to_string(dir.join("server.crt")).unwrap();
    let crt = server.private_file("server.crt", &crt);
    // The socket asks for the password; TCP only with TLS (no `host` line: plain TCP refused).
    server.private_file(
        "data/pg_hba.conf",
        "local all all scram-sha-256\nhostssl all all 127.0.0.1/32 scram-sha-256\n",
    );
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    std::fs::write(dir.join("port"), port.to_string()).unwrap();
    server.start_on(&format!(
        "-k {} -c listen_addresses=127.0.0.1 -p {port} -c ssl=on -c ssl_cert_file={} -c ssl_key_file={} -c fsync=off",
        dir.display(),
        crt.display(),
        key.display()
    ));
    server
}

/// Where a test's store lives, and what keeps it there until the test ends.
pub struct Place {
    pub location: Location,
    /// `sqlite` or `postgres`, for messages.
    pub backend: &'static str,
    _keep: Keep,
}

enum Keep {
    /// A SQLite store's directory, removed when the test ends.
    Dir(PathBuf),
    /// The server a PostgreSQL store's database lives on.
    Server(Arc<Server>),
}

impl Drop for Keep {
    fn drop(&mut self) {
        if let Keep::Dir(d) = self {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

impl Place {
    /// A SQLite store (not created yet) in a fresh directory, `sub/runs.sqlite`.
    pub fn sqlite(name: &str) -> Place {
        let dir =
            std::env::temp_dir().join(format!("drivescope-store-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Place {
            location: Location::Sqlite(dir.join("sub").join("runs.sqlite")),
            backend: "sqlite",
            _keep: Keep::Dir(dir),
        }
    }

    /// A fresh empty database on the shared throwaway server.
    pub fn postgres(name: &str) -> Place {
        let server = server();
        let conn = server.database(name);
        let location = Location::parse(&conn);
        assert!(matches!(location, Location::Postgres(_)), "{conn}");
        Place {
            location,
            backend: "postgres",
            _keep: Keep::Server(server),
        }
    }

    /// The SQLite file, for tests that look at it.
    pub fn path(&self) -> &Path {
        self.location.path().expect("a SQLite store")
    }

    /// Runs `sql` in a PostgreSQL store's database with the server's `psql`; panics when it fails.
    pub fn psql(&self, sql: &str) {
        let Keep::Server(server) = &self._keep else {
            panic!("not a PostgreSQL store")
        };
        let out = Command::new(server.bin.join("psql"))
            .args([
                "-X",
                "-q",
                "-v",
                "ON_ERROR_STOP=1",
                "-d",
                self.conn(),
                "-c",
                sql,
            ])
            .output()
            .expect("running psql");
        assert!(
            out.status.success(),
            "psql {sql}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The connection string of a PostgreSQL store.
    pub fn conn(&self) -> &str {
        match &self.location {
            Location::Postgres(conn) => conn,
            Location::Sqlite(_) => panic!("not a PostgreSQL store"),
        }
    }
}

/// Each named test body, run once on each backend: `on_both!(body, ...)` makes tests `body::sqlite` and
/// `body::postgres` calling `fn body(place: Place)`.
#[macro_export]
macro_rules! on_both {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn sqlite() {
                super::$name(super::pg::Place::sqlite(stringify!($name)))
            }
            #[test]
            fn postgres() {
                super::$name(super::pg::Place::postgres(stringify!($name)))
            }
        }
    )*};
}
