//! `drivescope serve` over HTTP against a store filled by real runs (scans of a tmpfs file, a bench
//! and a sweep of the null target): the runs page filters, sorts and pages; a run's page is its
//! report with downloads; compare overlays; a drive's page has its trend; bad requests get 4xx
//! pages; the store is never changed; beyond loopback a token is asked for; a PostgreSQL store
//! serves the same.

#[path = "../../store/tests/pg/mod.rs"]
mod pg;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

fn ds(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_drivescope"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "drivescope {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A directory of its own under /dev/shm with a store of five real runs: two scans of one file
/// (runs 1 and 2), a bench (3), a sweep (4) and a scan of the null target (5).
struct Filled {
    dir: PathBuf,
    store: String,
    file: String,
}

impl Drop for Filled {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn filled(name: &str) -> Filled {
    let dir = PathBuf::from(format!("/dev/shm/ds-serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let store = dir.join("runs.sqlite").to_str().unwrap().to_string();
    let file = dir.join("disk.img").to_str().unwrap().to_string();
    std::fs::File::create(&file)
        .unwrap()
        .set_len(32 << 20)
        .unwrap();
    let s = store.as_str();
    for _ in 0..2 {
        ds(&["scan", &file, "--quiet", "--store", s]);
    }
    ds(&[
        "bench",
        "null:1G",
        "--test",
        "RND4K Q1T1",
        "--rw",
        "read",
        "--runs",
        "1",
        "--duration",
        "100ms",
        "--quiet",
        "--store",
        s,
    ]);
    ds(&[
        "sweep",
        "null:1G",
        "--qd",
        "1,2",
        "--threads",
        "1",
        "--duration",
        "100ms",
        "--quiet",
        "--store",
        s,
    ]);
    ds(&["scan", "null:64M", "--quiet", "--store", s]);
    Filled { dir, store, file }
}

/// A running `drivescope serve`, killed when dropped.
struct Serve {
    child: Child,
    addr: String,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `serve ARGS` started; its address read from the line it prints.
fn serve(args: &[&str]) -> Serve {
    let mut child = Command::new(env!("CARGO_BIN_EXE_drivescope"))
        .arg("serve")
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    Serve { child, addr }
}

struct Reply {
    status: u16,
    headers: String,
    body: Vec<u8>,
}

impl Reply {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    fn header(&self, name: &str) -> Option<String> {
        self.headers.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    }
}

/// One GET with `extra` header lines.
fn get(addr: &str, path: &str, extra: &str) -> Reply {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{extra}\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header");
    let headers = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = unchunk(&body);
    }
    let status = headers
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap();
    Reply {
        status,
        headers,
        body,
    }
}

fn unchunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let eol = b.windows(2).position(|w| w == b"\r\n").unwrap();
        let n = usize::from_str_radix(std::str::from_utf8(&b[..eol]).unwrap().trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + n]);
        b = &b[eol + 2 + n + 2..];
    }
}

/// The run numbers of the runs table, in order.
fn listed(html: &str) -> Vec<i64> {
    html.split(r#"name="run" value=""#)
        .skip(1)
        .map(|r| r.split('"').next().unwrap().parse().unwrap())
        .collect()
}

/// The lines of series of one chart of a page (`data-points` per line).
fn series_in(html: &str, chart: &str) -> usize {
    html.split(&format!(r#"id="chart-{chart}""#))
        .nth(1)
        .unwrap_or_else(|| panic!("no chart {chart}"))
        .split("</svg>")
        .next()
        .unwrap()
        .matches("data-points=")
        .count()
}

fn sha(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[test]
fn browsing_a_store_of_real_runs() {
    let f = filled("browse");
    let before = sha(Path::new(&f.store));
    let s = serve(&["--store", &f.store, "--listen", "127.0.0.1:0"]);
    let a = s.addr.as_str();

    // Runs: every one, newest first; filters; oldest first; pages.
    let r = get(a, "/", "");
    assert_eq!(r.status, 200);
    assert_eq!(listed(&r.text()), vec![5, 4, 3, 2, 1]);
    assert!(r.text().contains("5 runs"));
    assert_eq!(listed(&get(a, "/?kind=scan", "").text()), vec![5, 2, 1]);
    assert_eq!(listed(&get(a, "/?kind=sweep", "").text()), vec![4]);
    let disk = f.file.rsplit('/').next().unwrap();
    assert_eq!(
        listed(&get(a, &format!("/?device={disk}"), "").text()),
        vec![2, 1]
    );
    assert_eq!(
        listed(&get(a, "/?sort=oldest", "").text()),
        vec![1, 2, 3, 4, 5]
    );
    assert!(listed(&get(a, "/?until=2000-01-01", "").text()).is_empty());
    let p1 = get(a, "/?per=2", "").text();
    assert_eq!(listed(&p1), vec![5, 4]);
    assert!(
        p1.contains("page 1 of 3") && p1.contains("per=2&amp;page=2"),
        "{p1}"
    );
    assert_eq!(listed(&get(a, "/?per=2&page=3", "").text()), vec![1]);

    // A run: its report page, the raw JSON, the downloads.
    let run = get(a, "/runs/1", "").text();
    assert!(run.contains("<h1>drivescope run 1</h1>"));
    assert_eq!(series_in(&run, "curve"), 1);
    assert!(run.contains(r#"href="/runs/1/json""#));
    let json = get(a, "/runs/1/json", "");
    assert_eq!(
        json.header("content-type").as_deref(),
        Some("application/json")
    );
    let doc: serde_json::Value = serde_json::from_slice(&json.body).unwrap();
    assert_eq!(doc["kind"], "scan");
    assert_eq!(doc["target"]["path"], f.file.as_str());
    let csv = get(a, "/runs/1/csv", "");
    assert_eq!(csv.status, 200);
    assert!(csv.text().lines().count() > 10, "the curve's rows");
    let html = get(a, "/runs/1/html", "");
    assert!(html
        .header("content-disposition")
        .unwrap()
        .contains("attachment"));
    assert!(
        !html.text().contains("nav class=\"browse\""),
        "the plain report file"
    );
    let png = get(a, "/runs/1/png/curve", "");
    assert_eq!(png.status, 200);
    assert_eq!(&png.body[..8], b"\x89PNG\r\n\x1a\n");

    // Compare: the two scans' curves in one chart, the table with best and worst.
    let cmp = get(a, "/compare?run=1&run=2", "").text();
    assert_eq!(series_in(&cmp, "curve"), 2);
    assert!(cmp.contains(r#"class="compare""#));

    // The file's page: both scans over time.
    let path: String = f
        .file
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    let drive = get(a, &format!("/drives/{path}"), "");
    assert_eq!(drive.status, 200, "{}", drive.text());
    let drive = drive.text();
    assert!(drive.contains("2 runs"), "{drive}");
    assert_eq!(series_in(&drive, "trend-rate"), 1);
    assert_eq!(
        drive
            .split(r#"id="chart-trend-rate""#)
            .nth(1)
            .unwrap()
            .split("</svg>")
            .next()
            .unwrap()
            .matches("<circle")
            .count(),
        2
    );
    assert!(run.contains(&format!(r#"href="/drives/{path}""#)));

    // Bad requests: a page with a 4xx status, and the server goes on.
    for (path, status) in [
        ("/runs/abc", 400),
        ("/runs/0", 400),
        ("/runs/999", 404),
        ("/runs/1/exe", 404),
        ("/runs/1/png/..%2F..%2Fetc%2Fpasswd", 400),
        ("/runs/1/png/nochart", 404),
        ("/?kind=scan%27%20OR%201%3D1", 400),
        ("/?page=0", 400),
        ("/?per=100000", 400),
        ("/?since=2026%3B%20DROP", 400),
        ("/compare?run=1", 400),
        ("/compare?run=1&run=x", 400),
        ("/drives/nothing-here", 404),
        ("/../../etc/passwd", 404),
        ("/nope", 404),
    ] {
        let r = get(a, path, "");
        assert_eq!(r.status, status, "{path}: {}", r.text());
        assert!(r.text().contains("<h1>"), "{path}: a page");
    }
    assert_eq!(get(a, "/", "").status, 200);
    drop(s);
    // Nothing was written to the store.
    assert_eq!(sha(Path::new(&f.store)), before);
}

#[test]
fn beyond_loopback_a_token_is_asked_for() {
    let f = filled("token");
    // Without a token it does not start.
    let out = Command::new(env!("CARGO_BIN_EXE_drivescope"))
        .args(["serve", "--store", &f.store, "--listen", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--token"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let token = "0123456789abcdef-token";
    let s = serve(&[
        "--store",
        &f.store,
        "--listen",
        "0.0.0.0:0",
        "--token",
        token,
    ]);
    let port = s.addr.rsplit(':').next().unwrap();
    let a = format!("127.0.0.1:{port}");
    assert_eq!(get(&a, "/", "").status, 401);
    assert_eq!(get(&a, "/runs/1/json", "").status, 401);
    assert_eq!(get(&a, "/?token=wrong-token-wrong-token", "").status, 401);
    let with_query = get(&a, &format!("/?token={token}"), "");
    assert_eq!(with_query.status, 200);
    let cookie = with_query.header("set-cookie").expect("a cookie");
    let cookie = cookie.split(';').next().unwrap();
    assert_eq!(
        get(&a, "/runs/1", &format!("Cookie: {cookie}\r\n")).status,
        200
    );
    assert_eq!(
        get(
            &a,
            "/runs/1/json",
            &format!("Authorization: Bearer {token}\r\n")
        )
        .status,
        200
    );
    drop(s);
    // `auto` makes one and prints it in the address.
    let s = serve(&[
        "--store",
        &f.store,
        "--listen",
        "0.0.0.0:0",
        "--token",
        "auto",
    ]);
    let port = s.addr.rsplit(':').next().unwrap();
    assert_eq!(get(&format!("127.0.0.1:{port}"), "/", "").status, 401);
}

#[test]
fn a_postgresql_store_serves_the_same() {
    let f = filled("pg");
    let place = pg::Place::postgres("serve");
    ds(&["store", "copy", &f.store, place.conn()]);
    let s = serve(&["--store", place.conn(), "--listen", "127.0.0.1:0"]);
    let a = s.addr.as_str();
    assert_eq!(listed(&get(a, "/", "").text()).len(), 5);
    let scans = listed(&get(a, "/?kind=scan&per=2", "").text());
    assert_eq!(scans.len(), 2);
    let cmp = get(
        a,
        &format!("/compare?run={}&run={}", scans[0], scans[1]),
        "",
    )
    .text();
    assert_eq!(series_in(&cmp, "curve"), 2);
}
