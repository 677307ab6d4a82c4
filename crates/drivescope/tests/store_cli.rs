//! End to end: a scan is saved in the store, and runs/show/compare/export/report read it back.

use common::typed::{document, same};
use drivescope_record::Document;
use drivescope_report::sample;
use drivescope_store::{RunId, Store};
use drivescope_testkit as common;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_drivescope"));
    c.env("NO_COLOR", "1");
    c
}

fn ok(out: Output) -> (String, String) {
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(
        out.status.success(),
        "exit {:?}\nstdout:\n{o}\nstderr:\n{e}",
        out.status
    );
    (o, e)
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "drivescope-store-cli-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Database plus WAL: what the store occupies on disk.
fn store_bytes(path: &Path) -> u64 {
    let wal = PathBuf::from(format!("{}-wal", path.display()));
    [path.to_path_buf(), wal]
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

#[test]
fn scan_is_stored_and_reported() {
    let d = dir("scan");
    let store = d.join("runs.sqlite");
    let s = store.to_str().unwrap();
    drop(Store::open(&store).unwrap());
    let before = store_bytes(&store);

    let (stdout, stderr) = ok(bin()
        .args([
            "scan", "null:64G", "--json", "--quiet", "--points", "1000", "--store", s,
        ])
        .output()
        .unwrap());
    // --json --quiet: the run is saved without a word on stderr.
    assert_eq!(stderr, "", "stderr");
    let printed = document(stdout.as_bytes());
    let grew = store_bytes(&store) - before;
    eprintln!("null:64G scan: store grew {grew} bytes");
    assert!(grew < 2 << 20, "a stored scan added {grew} bytes");
    let stored = Store::open(&store).unwrap();
    assert!(
        same(&stored.get(RunId(1)).unwrap(), &printed),
        "the stored document is the printed one"
    );
    let Document::Scan(scan) = stored.get(RunId(1)).unwrap() else {
        panic!("run 1 reads back as a scan");
    };
    let points = scan.curve.len();
    assert_eq!(points, 1000);

    // --no-store saves nothing, not even a default store.
    let xdg = d.join("xdg");
    let (_, stderr) = ok(bin()
        .env("XDG_DATA_HOME", &xdg)
        .args(["scan", "null:1G", "--json", "--quiet", "--no-store"])
        .output()
        .unwrap());
    assert!(!stderr.contains("saved as"), "{stderr}");
    assert!(!xdg.exists());

    // Quick scan of the same target: a second run.
    ok(bin()
        .args([
            "scan", "null:64G", "--quick", "--dwell", "10ms", "--json", "--quiet", "--store", s,
        ])
        .output()
        .unwrap());

    let (runs, _) = ok(bin().args(["runs", "--store", s]).output().unwrap());
    assert_eq!(runs.lines().count(), 3, "{runs}");
    let (runs, _) = ok(bin()
        .args(["runs", "--kind", "quick_scan", "--store", s])
        .output()
        .unwrap());
    assert_eq!(runs.lines().count(), 2, "{runs}");

    let (show, _) = ok(bin().args(["show", "1", "--store", s]).output().unwrap());
    assert!(
        show.contains("run 1 · scan") && show.contains("null:64G"),
        "{show}"
    );
    let (json, _) = ok(bin()
        .args(["export", "1", "--format", "json", "--store", s])
        .output()
        .unwrap());
    assert!(same(&document(json.as_bytes()), &printed));
    let (csv, _) = ok(bin()
        .args(["export", "1", "--format", "csv", "--store", s])
        .output()
        .unwrap());
    assert_eq!(csv.lines().count(), 1 + points);

    // The target (report on a stored full scan in under 1 s) is measured by bench/store_report.sh
    // on a release build; here only a bound of an order of magnitude more, for a debug build on a
    // busy machine.
    let html = d.join("report.html");
    let t = Instant::now();
    ok(bin()
        .args([
            "report",
            "1",
            "2",
            "-o",
            html.to_str().unwrap(),
            "--store",
            s,
        ])
        .output()
        .unwrap());
    let took = t.elapsed();
    eprintln!("report of a stored null:64G scan: {took:?}");
    // A hang guard: how fast a report renders is bench/store_report.sh's measurement.
    assert!(took.as_secs_f64() < 120.0, "report took {took:?}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains(&format!("data-points=\"{points}\"")));
    assert!(page.contains("id=\"chart-regions-run2\""));
}

#[test]
fn default_store_follows_xdg_and_compare_marks_best() {
    let d = dir("xdg");
    let data = d.join("data");
    let store_path = data.join("drivescope").join("runs.sqlite");
    let mut store = Store::open(&store_path).unwrap();
    for seed in 1..=3 {
        store.save(&sample::bench(seed).into()).unwrap();
    }
    store.save(&sample::sweep(4).into()).unwrap();
    store.save(&sample::soak(5, 120).into()).unwrap();
    drop(store);
    let xdg = |args: &[&str]| {
        ok(bin()
            .env("XDG_DATA_HOME", &data)
            .args(args)
            .output()
            .unwrap())
    };
    let (runs, _) = xdg(&["runs"]);
    assert_eq!(runs.lines().count(), 6, "{runs}");
    let (md, _) = xdg(&["compare", "1", "2", "3", "--format", "md"]);
    assert!(md.contains("** ▲") && md.contains(" ▼"), "{md}");
    let (text, _) = xdg(&["compare", "1", "2", "3"]);
    assert!(
        text.contains('▲'),
        "no colour off a terminal: markers instead\n{text}"
    );
    let (html, _) = xdg(&["compare", "1", "2", "--format", "html"]);
    assert!(html.contains("class=\"num best\""));
    let (show, _) = xdg(&["show", "5"]);
    // A soak shows as the soak command printed it, then names the run.
    assert!(
        show.starts_with("drivescope soak /dev/sdx SEQ1M Q8T1 ")
            && show.contains("\n  steady    ")
            && show.ends_with("(run 5 · soak · ACME HD4005 (SAMPLE-0005))\n"),
        "{show}"
    );
    let png = d.join("png");
    xdg(&[
        "report",
        "1",
        "2",
        "4",
        "5",
        "-o",
        d.join("r.html").to_str().unwrap(),
        "--png",
        png.to_str().unwrap(),
    ]);
    let mut files: Vec<String> = std::fs::read_dir(&png)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(
        files,
        ["bench.png", "series-run5.png", "sweep-run4.png"].map(String::from)
    );
    let out = bin()
        .env("XDG_DATA_HOME", &data)
        .args(["show", "99"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("run 99 not found"));
}
