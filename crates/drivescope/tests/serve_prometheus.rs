//! `/metrics` of `drivescope serve` scraped by a real Prometheus server (Debian's `prometheus`),
//! over a store of runs: two scans of a file, a bench of the null target, a screen of two lab disks
//! (one with a bad sector), all run here, and a real run's diagnosis of a lab disk with a cache,
//! stored for a third lab disk. Queried through Prometheus' HTTP API, each series holds the stored
//! value. The Grafana dashboard in contrib/grafana names only series this scrape exports. Needs root
//! (lab disks) and prometheus; fails loudly without them.

use common::serve::{ds, get, serve};
use common::*;
use drivescope_lab::{check_environment, LabDevice, Model};
use drivescope_record::{BenchRecord, DiagnoseRecord, Grade, ScanRecord, ScreenRecord};
use drivescope_store::{ListFilter, Location, Store};
use drivescope_testkit as common;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TOKEN: &str = "metrics-test-token-0123456789abcdef";

struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Prometheus(Child);

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn program(name: &str) -> PathBuf {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!("{name} is not installed (Debian: apt-get install {name}); .ci/run installs it")
        })
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Every byte but letters and digits as %XX.
fn encode(q: &str) -> String {
    q.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The instant vector of `query`: each series' labels and value.
fn query(prom: &str, q: &str) -> Vec<(Value, f64)> {
    let r = get(prom, &format!("/api/v1/query?query={}", encode(q)), "");
    assert_eq!(r.status, 200, "{q}: {}", r.text());
    let v: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(v["status"], "success", "{v}");
    v["data"]["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let value = s["value"][1].as_str().unwrap().parse().unwrap();
            (s["metric"].clone(), value)
        })
        .collect()
}

/// The one value of `q`.
fn one(prom: &str, q: &str) -> f64 {
    let r = query(prom, q);
    assert_eq!(r.len(), 1, "{q}: {r:?}");
    r[0].1
}

fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-9 * want.abs().max(1e-12)
}

fn lab(toml: &str) -> LabDevice {
    if let Err(e) = check_environment(true) {
        panic!("lab disks need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    LabDevice::start_temp_on(&Model::from_toml_str(toml, "test").unwrap(), true, None)
        .expect("start lab device")
}

fn path_of(dev: &LabDevice) -> String {
    dev.loop_device().unwrap().to_str().unwrap().to_string()
}

/// The store filled by real runs; returns the file and the two screened disks' paths.
fn fill(dir: &Path, store: &str) -> (String, String, String) {
    let file = dir.join("disk.img").to_str().unwrap().to_string();
    std::fs::File::create(&file)
        .unwrap()
        .set_len(32 << 20)
        .unwrap();
    for _ in 0..2 {
        ds(&["scan", &file, "--quiet", "--store", store]);
    }
    ds(&[
        "bench",
        "null:1G",
        "--test",
        "RND4K Q1T1",
        "--test",
        "SEQ1M Q8T1",
        "--runs",
        "1",
        "--duration",
        "100ms",
        "--quiet",
        "--store",
        store,
    ]);
    let flat = "name = 'm'\nsize = '48M'\nzones = { rates_mb_s = [200] }\noverhead = '5us'\n";
    let good = lab(flat);
    let bad = lab(&format!(
        "{flat}bad = [{{ offset = '20M', length = '4K', latency = '1ms' }}]\n"
    ));
    let (g, b) = (path_of(&good), path_of(&bad));
    let out = drivescope_cmd()
        .args([
            "screen",
            &g,
            &b,
            "--shared-path",
            "0",
            "--quiet",
            "--store",
            store,
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(5),
        "a failed drive: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The screened disks stay attached while the diagnosed one is, so that it gets a kernel name of
    // its own: `/metrics` keeps a serial-less name's series to the device its newest run was on. Its
    // diagnosis is a real run's document of the lab's raid-cache disk placed on this disk (the testkit's
    // `cached`): what is checked is the export of stored findings, and a diagnosis short enough for a
    // test may find nothing on a busy host.
    let cached = lab(flat);
    let c = path_of(&cached);
    let mut st = Store::open(store).unwrap();
    st.save(&common::cached::diagnosis_on(
        &c,
        cached.image().to_str().unwrap(),
    ))
    .unwrap();
    drop(st);
    drop((good, bad, cached));
    (file, g, b)
}

fn config(dir: &Path, target: &str) -> PathBuf {
    let p = dir.join("prometheus.yml");
    std::fs::write(
        &p,
        format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n\
             scrape_configs:\n  - job_name: drivescope\n    authorization:\n      \
             credentials: {TOKEN}\n    static_configs:\n      - targets: ['{target}']\n"
        ),
    )
    .unwrap();
    p
}

#[test]
fn prometheus_scrapes_each_drive_s_stored_values() {
    if skip_without_root("screens and diagnoses FUSE lab disks on loop devices") {
        return;
    }
    let prometheus = program("prometheus");
    let dir = Dir(PathBuf::from(format!(
        "/dev/shm/ds-prometheus-{}",
        std::process::id()
    )));
    let _ = std::fs::remove_dir_all(&dir.0);
    std::fs::create_dir_all(&dir.0).unwrap();
    let store = dir.0.join("runs.sqlite").to_str().unwrap().to_string();
    let (file, good, bad) = fill(&dir.0, &store);

    let s = serve(&[
        "--store",
        &store,
        "--listen",
        "127.0.0.1:0",
        "--token",
        TOKEN,
    ]);
    // The same token rules as the pages.
    assert_eq!(get(&s.addr, "/metrics", "").status, 401);
    let direct = get(
        &s.addr,
        "/metrics",
        &format!("Authorization: Bearer {TOKEN}\r\n"),
    );
    assert_eq!(direct.status, 200);
    assert_eq!(
        direct.header("content-type").as_deref(),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    let exported = direct.text();

    let port = free_port();
    let prom_addr = format!("127.0.0.1:{port}");
    let _p = Prometheus(
        Command::new(prometheus)
            .arg(format!(
                "--config.file={}",
                config(&dir.0, &s.addr).display()
            ))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.0.join("tsdb").display()
            ))
            .arg(format!("--web.listen-address={prom_addr}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    // Up, scraped: `up` is 1 and the store's run count is there.
    let t0 = Instant::now();
    loop {
        // A Prometheus that is still starting answers queries with 503 (its storage not ready yet).
        let ready = std::net::TcpStream::connect(&prom_addr).is_ok()
            && get(&prom_addr, "/-/ready", "").status == 200
            && query(&prom_addr, "drivescope_store_runs").len() == 1;
        if ready {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "prometheus did not scrape serve within 60 s"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    assert_eq!(one(&prom_addr, "up{job=\"drivescope\"}"), 1.0);

    let st = Store::open_read_only(Location::Sqlite(store.clone().into())).unwrap();
    let all = st.list(&ListFilter::default()).unwrap();
    assert_eq!(one(&prom_addr, "drivescope_store_runs"), all.len() as f64);

    // The file's latest scan, and the lab disks' scans (each saved by the screen).
    let scans: Vec<(i64, ScanRecord)> = st
        .runs_of::<ScanRecord>(&ListFilter::default())
        .unwrap()
        .map(|r| r.map(|(id, s)| (id.0, s)).unwrap())
        .collect();
    for target in [&file, &good, &bad] {
        let (id, s) = scans
            .iter()
            .find(|(_, s)| &s.header.target.path == target)
            .unwrap_or_else(|| panic!("no scan of {target}"));
        let sel = format!("{{target=\"{target}\",kind=\"scan\",direction=\"read\"}}");
        let mean = one(
            &prom_addr,
            &format!("drivescope_scan_mean_bytes_per_second{sel}"),
        );
        assert!(close(mean, s.mb_per_s.mean * 1e6), "{target}: {mean}");
        let min = one(
            &prom_addr,
            &format!("drivescope_scan_min_bytes_per_second{sel}"),
        );
        assert!(close(min, s.mb_per_s.min * 1e6), "{target}: {min}");
        let p99 = one(
            &prom_addr,
            &format!("drivescope_scan_latency_p99_seconds{sel}"),
        );
        assert!(close(p99, s.latency.percentiles_ns["99"] as f64 / 1e9));
        let failed = one(&prom_addr, &format!("drivescope_scan_failed_commands{sel}"));
        assert_eq!(failed, s.failed_total as f64, "{target}");
        let slow = one(&prom_addr, &format!("drivescope_scan_slow_commands{sel}"));
        assert_eq!(slow, s.slow_total as f64, "{target}");
        let run = format!("{{target=\"{target}\",kind=\"scan\"}}");
        assert_eq!(
            one(&prom_addr, &format!("drivescope_run_id{run}")),
            *id as f64
        );
        let age = one(&prom_addr, &format!("drivescope_run_age_seconds{run}"));
        assert!((0.0..600.0).contains(&age), "{target}: {age}");
    }
    let bad_scan = &scans
        .iter()
        .find(|(_, s)| s.header.target.path == bad)
        .unwrap()
        .1;
    assert!(bad_scan.failed_total > 0, "the bad sector failed");

    // The screen's verdicts, as number and label.
    let (_, screen) = st
        .latest::<ScreenRecord>(&ListFilter::default())
        .unwrap()
        .unwrap();
    for m in &screen.members {
        let g = m.verdict.as_ref().unwrap().grade;
        let r = query(
            &prom_addr,
            &format!("drivescope_screen_verdict{{target=\"{}\"}}", m.target),
        );
        assert_eq!(r.len(), 1, "{}: {r:?}", m.target);
        assert_eq!(r[0].0["verdict"], g.as_str());
        let want = match g {
            Grade::Pass => 0.0,
            Grade::Warn => 1.0,
            Grade::Incomplete => 2.0,
            Grade::Fail => 3.0,
        };
        assert_eq!(r[0].1, want, "{}", m.target);
    }
    assert_eq!(
        one(
            &prom_addr,
            &format!("drivescope_screen_verdict{{target=\"{bad}\"}}")
        ),
        3.0
    );

    // The bench: each test.
    let (_, bench) = st
        .latest::<BenchRecord>(&ListFilter::default())
        .unwrap()
        .unwrap();
    assert_eq!(bench.tests.len(), 4, "two tests, each read and written");
    for t in &bench.tests {
        let sel = format!(
            "{{target=\"null:1G\",test=\"{}\",direction=\"{}\"}}",
            t.name,
            t.rw.as_str()
        );
        let rate = one(
            &prom_addr,
            &format!("drivescope_bench_bytes_per_second{sel}"),
        );
        assert!(close(rate, t.mb_per_s * 1e6), "{}: {rate}", t.name);
        let iops = one(
            &prom_addr,
            &format!("drivescope_bench_operations_per_second{sel}"),
        );
        assert!(close(iops, t.iops), "{}: {iops}", t.name);
    }

    // The diagnosis: one series per finding code.
    let (_, diag) = st
        .latest::<DiagnoseRecord>(&ListFilter::default())
        .unwrap()
        .unwrap();
    let codes: BTreeSet<&str> = diag
        .header
        .findings
        .iter()
        .map(|f| f.code.as_str())
        .collect();
    assert!(!codes.is_empty(), "the cache's diagnosis found something");
    let series = query(&prom_addr, "drivescope_diagnose_finding");
    let got: BTreeSet<&str> = series
        .iter()
        .map(|(m, _)| m["code"].as_str().unwrap())
        .collect();
    assert_eq!(got, codes);

    dashboard_names_only_exported_series(&exported);
}

/// Every metric name in the dashboard's queries is a family the scrape exported.
fn dashboard_names_only_exported_series(exported: &str) {
    let families: BTreeSet<&str> = exported
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split(' ').next())
        .collect();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../contrib/grafana/drivescope.json"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let dash: Value = serde_json::from_str(&text).expect("the dashboard is JSON");
    let mut exprs = Vec::new();
    collect_exprs(&dash, &mut exprs);
    assert!(exprs.len() >= 6, "{exprs:?}");
    let mut used = BTreeSet::new();
    for e in &exprs {
        let names = metric_names(e);
        assert!(!names.is_empty(), "a query naming no series: {e}");
        for n in names {
            assert!(
                families.contains(n.as_str()),
                "{e}: {n} is not exported: {families:?}"
            );
            used.insert(n);
        }
    }
    assert!(used.len() >= 6, "{used:?}");
}

fn collect_exprs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            // A panel's query, and a template variable's (of type `query`).
            let variable = m.get("type").and_then(Value::as_str) == Some("query");
            for (k, x) in m {
                match (k.as_str(), x) {
                    ("expr", Value::String(s)) => out.push(s.clone()),
                    ("query", Value::String(s)) if variable => out.push(s.clone()),
                    (_, x) => collect_exprs(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| collect_exprs(x, out)),
        _ => {}
    }
}

/// The identifiers of a PromQL expression that start with `drivescope_` (label values inside
/// quotes left out).
fn metric_names(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut quoted = false;
    let mut word = String::new();
    for c in expr.chars().chain(std::iter::once(' ')) {
        if c == '"' {
            quoted = !quoted;
            word.clear();
            continue;
        }
        if !quoted && (c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            word.push(c);
        } else {
            if word.starts_with("drivescope_") {
                out.push(std::mem::take(&mut word));
            }
            word.clear();
        }
    }
    out
}
