//! `drivescope serve` over HTTP against a store filled by real runs (scans of a tmpfs file, a bench
//! and a sweep of the null target): the runs page filters, sorts and pages; a run's page is its
//! report with downloads; compare overlays; a drive's page has its trend; bad requests get 4xx
//! pages; the store is never changed; beyond loopback a token is asked for; a PostgreSQL store
//! serves the same.

use drivescope_testkit as common;
#[path = "../../store/tests/pg/mod.rs"]
mod pg;

use common::serve::{chart_lines as series_in, ds, filled, get, serve};
use common::typed::{document, listed_runs};
use drivescope_record::Kind;
use std::path::Path;
use std::process::Command;

/// The run numbers of the runs table, in order.
fn listed(html: &str) -> Vec<i64> {
    html.split(r#"name="run" value=""#)
        .skip(1)
        .map(|r| r.split('"').next().unwrap().parse().unwrap())
        .collect()
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
    let doc = document(&json.body);
    assert_eq!(doc.kind(), Kind::Scan);
    assert_eq!(doc.header().expect("a run").target.path, f.file);
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

    // A screen of the file: its drive page shows the verdict beside the screen's scan.
    ds(&[
        "screen", &f.file, "null:64M", "--quiet", "--store", &f.store,
    ]);
    let s = serve(&["--store", &f.store, "--listen", "127.0.0.1:0"]);
    let drive = get(&s.addr, &format!("/drives/{path}"), "").text();
    assert!(drive.contains("3 runs"), "{drive}");
    // The verdict names the screen's own run (stored first, as its checkpoint, so before the
    // scans it made).
    let id: u64 = drive
        .split("pass (screen run ")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a verdict naming its screen run: {drive}"));
    let run = get(&s.addr, &format!("/runs/{id}"), "");
    assert_eq!(run.status, 200);
    assert!(run.text().contains("screen"), "run {id} is the screen");
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

/// A status by the words a page shows.
fn status_named(name: &str) -> drivescope_record::RunStatus {
    use drivescope_record::RunStatus as S;
    [S::Finished, S::Running, S::Interrupted, S::DeviceLost]
        .into_iter()
        .find(|s| s.words() == name)
        .unwrap_or_else(|| panic!("no status is called {name:?}"))
}

#[test]
fn runs_show_and_serve_say_the_same_of_checkpoint_runs() {
    use drivescope_record::{Checkpoint, Direction, Document, RunStatus};
    use drivescope_report::sample;
    let dir = std::path::PathBuf::from(format!("/dev/shm/ds-serve-state-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let store_path = dir.join("runs.sqlite");
    let s = store_path.to_str().unwrap();
    // Two checkpoints of a scan: one saved by this test's own process (running while the test
    // runs), one by a process that has ended; and a scan that finished.
    let mut running = sample::scan(1, 1 << 30, 20, 0, 0, Direction::Read);
    running.interrupted = true;
    running.checkpoint = Some(Checkpoint::this_process(1_000_000_000));
    let mut child = Command::new("true").spawn().unwrap();
    child.wait().unwrap();
    let mut killed = running.clone();
    killed.checkpoint = Some(Checkpoint {
        pid: child.id(),
        ..Checkpoint::this_process(1_000_000_000)
    });
    {
        let mut store = drivescope_store::Store::open(&store_path).unwrap();
        for d in [
            running,
            killed,
            sample::scan(2, 1 << 30, 20, 0, 0, Direction::Read),
        ] {
            store.save(&Document::from(d)).unwrap();
        }
    }
    let want = [
        (1, RunStatus::Running),
        (2, RunStatus::Interrupted),
        (3, RunStatus::Finished),
    ];
    // runs --json
    let mut by_runs: Vec<(i64, RunStatus)> = listed_runs(&["--store", s])
        .iter()
        .map(|r| (r.id, r.state.expect("a run's state")))
        .collect();
    by_runs.sort_by_key(|r| r.0);
    assert_eq!(by_runs, want);
    // serve's runs page: the state column of each row.
    let served = serve(&["--store", s, "--listen", "127.0.0.1:0"]);
    let page = get(&served.addr, "/", "").text();
    let mut by_serve: Vec<(i64, RunStatus)> = page
        .split(r#"<td class="num"><a href="/runs/"#)
        .skip(1)
        .map(|row| {
            let id = row.split('"').next().unwrap().parse().unwrap();
            let state = row
                .split("<td>")
                .nth(2)
                .unwrap()
                .split("</td>")
                .next()
                .unwrap();
            (id, status_named(state))
        })
        .collect();
    by_serve.sort_by_key(|r| r.0);
    assert_eq!(by_serve, want, "serve and runs disagree");
    // show says it of the checkpoint runs, in the same words.
    for (id, status) in &want[..2] {
        let shown = ds(&["show", &id.to_string(), "--store", s]);
        let said = String::from_utf8_lossy(&shown.stderr);
        assert!(
            said.contains(&format!("run {id} is {}", status.words())),
            "{said}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
