//! `export --format fio-json` read by fio's own reader: `fio_jsonplus_clat2csv` from the Debian `fio` package
//! turns the exported documents of real scans and benches into CSV, and the CSV agrees with drivescope's
//! histograms (every command counted; percentiles within the histogram's 1/128 relative error). Without
//! `fio_jsonplus_clat2csv` this test FAILS: CI installs the `fio` package.

use common::typed::drivescope_doc;
use common::*;
use drivescope_record::{Direction, Document};
use drivescope_stats::LatencySummary;
use drivescope_testkit as common;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const MIB: u64 = 1 << 20;

fn clat2csv() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("fio_jsonplus_clat2csv"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "fio_jsonplus_clat2csv not found: this test reads the fio json+ export with fio's own reader. \
                 Install the Debian package `fio` (apt-get install -y fio)."
            )
        })
}

/// A store in a fresh directory of this test.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d =
            std::env::temp_dir().join(format!("drivescope-fio-json-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }

    fn store(&self) -> String {
        self.0.join("runs.sqlite").display().to_string()
    }

    /// Runs a measuring command saved to this store; returns its document.
    fn run(&self, args: &[&str]) -> Document {
        let store = self.store();
        let mut all = args.to_vec();
        all.extend(["--store", &store]);
        drivescope_doc(&all)
    }

    /// The last stored run exported as fio json+; returns the file and its JSON.
    fn export_last(&self, name: &str) -> (PathBuf, Value) {
        let file = self.0.join(format!("{name}.json"));
        let store = self.store();
        let out = drivescope(&[
            "export",
            "last",
            "--format",
            "fio-json",
            "--store",
            &store,
            "-o",
            file.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "export failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        (file, json)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One job's CSV as fio_jsonplus_clat2csv writes it: the header's column names and the rows.
struct Csv {
    cols: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Csv {
    /// (nsec, count, cumulative) of the rows that have a value in `column` (e.g. "read_clat_ns").
    fn series(&self, column: &str) -> Vec<(u64, u64, u64)> {
        let at = |name: String| {
            self.cols
                .iter()
                .position(|c| *c == name)
                .unwrap_or_else(|| panic!("no column {name} in {:?}", self.cols))
        };
        let (count, cum) = (
            at(format!("{column}_count")),
            at(format!("{column}_cumulative")),
        );
        self.rows
            .iter()
            .filter(|r| !r[count].is_empty())
            .map(|r| {
                (
                    r[0].parse().unwrap(),
                    r[count].parse().unwrap(),
                    r[cum].parse().unwrap(),
                )
            })
            .collect()
    }
}

/// Runs fio's reader on `file` (as its documentation shows: input file, output stub), checks its own
/// validation of the CSV against the document, and returns one CSV per job.
fn read_with_fio(file: &Path, jobs: usize) -> Vec<Csv> {
    let stub = file.with_extension("csv");
    let run = |extra: &[&str]| {
        let out = Command::new(clat2csv())
            .arg(file)
            .arg(&stub)
            .args(extra)
            .output()
            .expect("run fio_jsonplus_clat2csv");
        assert!(
            out.status.success(),
            "fio_jsonplus_clat2csv {} failed: {}{}",
            file.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    run(&[]);
    let validated = run(&["--validate"]);
    assert_eq!(validated.matches("validated").count(), jobs, "{validated}");
    (0..jobs)
        .map(|j| {
            let path = stub.with_file_name(format!(
                "{}_job{j}.csv",
                stub.file_stem().unwrap().to_str().unwrap()
            ));
            let text = std::fs::read_to_string(&path).unwrap();
            let mut lines = text.lines().filter(|l| !l.trim().is_empty());
            let split = |l: &str| {
                l.split(',')
                    .map(|c| c.trim().to_string())
                    .collect::<Vec<_>>()
            };
            Csv {
                cols: split(lines.next().unwrap()),
                rows: lines.map(split).collect(),
            }
        })
        .collect()
}

/// The CSV's completion latencies of one direction agree with our summary: every command counted, and each
/// of our percentiles where fio's cumulative counts say it is, within the histogram's relative error.
fn agrees(csv: &Csv, dir: &str, ours: &LatencySummary, what: &str) {
    let s = csv.series(&format!("{dir}_clat_ns"));
    let n: u64 = s.iter().map(|r| r.1).sum();
    assert_eq!(n, ours.count, "{what}: commands in fio's CSV");
    assert_eq!(s.last().unwrap().2, ours.count, "{what}: cumulative");
    assert!(ours.count > 0, "{what}: the run measured something");
    let close = |fio: u64, ours: u64| fio.abs_diff(ours) as f64 <= ours as f64 / 128.0 + 1.0;
    for (label, &value) in &ours.percentiles_ns {
        let q: f64 = label.parse::<f64>().unwrap() / 100.0;
        let rank = ((q * n as f64).ceil() as u64).max(1);
        let fio = s.iter().find(|r| r.2 >= rank).unwrap().0;
        assert!(
            close(fio, value),
            "{what}: p{label} fio {fio} ns, ours {value} ns"
        );
    }
    assert!(
        close(s[0].0, ours.min_ns),
        "{what}: min {} vs {}",
        s[0].0,
        ours.min_ns
    );
    let top = s.last().unwrap().0;
    assert!(
        close(top, ours.max_ns),
        "{what}: max {top} vs {}",
        ours.max_ns
    );
    // the other directions are empty
    for other in ["read", "write", "trim"].iter().filter(|d| **d != dir) {
        assert!(
            csv.series(&format!("{other}_clat_ns")).is_empty(),
            "{what}: {other}"
        );
    }
}

/// The confirmation `scan --write` takes for a loop device without a serial: its name and size.
fn confirmation(dev: &Path) -> String {
    let name = dev.file_name().unwrap().to_string_lossy().into_owned();
    let sectors: u64 = std::fs::read_to_string(format!("/sys/class/block/{name}/size"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    format!("{name} {:.1} MiB", (sectors * 512) as f64 / MIB as f64)
}

fn dir_name(d: Direction) -> &'static str {
    match d {
        Direction::Write => "write",
        _ => "read",
    }
}

/// Rate fields as fio writes them: total_ios and bw_bytes from the record, bw in KiB/s.
fn rates_agree(section: &Value, ios: u64, mb_per_s: f64, what: &str) {
    assert_eq!(section["total_ios"], ios, "{what}");
    let bw_bytes = section["bw_bytes"].as_f64().unwrap();
    assert!(
        (bw_bytes / 1e6 / mb_per_s - 1.0).abs() < 0.01,
        "{what}: {bw_bytes} B/s vs {mb_per_s} MB/s"
    );
    assert_eq!(
        section["bw"].as_u64().unwrap(),
        section["bw_bytes"].as_u64().unwrap() / 1024
    );
}

#[test]
fn scans_export_as_fio_reads_them() {
    if skip_without_root("creates loop devices") {
        return;
    }
    let d = Dir::new("scan");
    let lo = TmpfsLoop::new(64 * MIB);
    fill_random(lo.path(), 64 * MIB);
    let dev = lo.path().to_str().unwrap().to_string();
    // a device of this test's own to write
    let blank = TmpfsLoop::new(16 * MIB);
    let wdev = blank.path().to_str().unwrap().to_string();
    let confirm = confirmation(blank.path());
    for (name, args) in [
        ("null", vec!["scan", "null:2G", "--queue-depth", "4"]),
        ("loop", vec!["scan", &dev, "--block-size", "128K"]),
        ("quick", vec!["scan", &dev, "--quick", "--dwell", "5ms"]),
        (
            "write",
            vec![
                "scan",
                &wdev,
                "--write",
                "--destructive",
                "--confirm",
                &confirm,
            ],
        ),
    ] {
        let Document::Scan(rec) = d.run(&args) else {
            panic!("{name}: not a scan")
        };
        let dir = dir_name(rec.direction());
        let (file, fio) = d.export_last(name);
        let job = &fio["jobs"][0];
        assert_eq!(fio["jobs"].as_array().unwrap().len(), 1);
        rates_agree(&job[dir], rec.latency.count, rec.mb_per_s.mean, name);
        assert_eq!(job[dir]["io_bytes"], rec.bytes);
        let csv = read_with_fio(&file, 1);
        agrees(&csv[0], dir, &rec.latency, name);
        let bins: u64 = rec.histogram.buckets.iter().map(|b| b.count).sum();
        assert_eq!(
            bins, rec.latency.count,
            "{name}: the histogram is the summary's"
        );
    }
}

#[test]
fn bench_tests_export_as_fio_reads_them() {
    if skip_without_root("creates loop devices") {
        return;
    }
    let d = Dir::new("bench");
    let lo = TmpfsLoop::new(32 * MIB);
    fill_random(lo.path(), 32 * MIB);
    let dev = lo.path().to_str().unwrap().to_string();
    let null = [
        "bench",
        "null:1G",
        "--rw",
        "both",
        "--test",
        "RND4K Q4T1",
        "--test",
        "SEQ128K Q2T2",
        "--runs",
        "2",
        "--duration",
        "100ms",
    ];
    let on_loop = [
        "bench",
        &dev,
        "--rw",
        "read",
        "--size",
        "32M",
        "--test",
        "RND4K Q1T1",
        "--test",
        "SEQ1M Q4T1",
        "--runs",
        "2",
        "--duration",
        "200ms",
    ];
    for (name, args) in [("null", &null[..]), ("loop", &on_loop[..])] {
        let Document::Bench(rec) = d.run(args) else {
            panic!("{name}: not a bench")
        };
        let (file, fio) = d.export_last(name);
        let jobs = fio["jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), rec.tests.len());
        let csv = read_with_fio(&file, jobs.len());
        for ((t, job), csv) in rec.tests.iter().zip(jobs).zip(&csv) {
            let what = format!("{name} {} {}", t.name, t.rw);
            assert_eq!(job["jobname"], format!("{} {}", t.name, t.rw));
            let h = t
                .histogram
                .as_ref()
                .expect("bench tests keep their histogram");
            assert_eq!(
                h.buckets.iter().map(|b| b.count).sum::<u64>(),
                t.latency.count
            );
            agrees(csv, dir_name(t.rw), &t.latency, &what);
            let pooled_ns: u64 = t.runs.iter().map(|r| r.duration_ns).sum();
            let mb_per_s = (t.latency.count * t.load.block_size) as f64 * 1e3 / pooled_ns as f64;
            rates_agree(&job[dir_name(t.rw)], t.latency.count, mb_per_s, &what);
            let best = job[dir_name(t.rw)]["bw_max"].as_f64().unwrap();
            assert!(
                (best * 1024.0 / 1e6 / t.mb_per_s - 1.0).abs() < 0.01,
                "{what}: bw_max is the best run"
            );
        }
    }
}

#[test]
fn sweeps_and_soaks_export_without_bins() {
    if skip_without_root("creates loop devices") {
        return;
    }
    let d = Dir::new("sweep-soak");
    let lo = TmpfsLoop::new(32 * MIB);
    fill_random(lo.path(), 32 * MIB);
    let dev = lo.path().to_str().unwrap().to_string();
    let Document::Sweep(sweep) = d.run(&[
        "sweep",
        &dev,
        "--size",
        "32M",
        "--qd",
        "1,4",
        "--threads",
        "1",
        "--duration",
        "100ms",
    ]) else {
        panic!("not a sweep")
    };
    let (file, fio) = d.export_last("sweep");
    let jobs = fio["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), sweep.cells.len());
    for (c, job) in sweep.cells.iter().zip(jobs) {
        let read = &job["read"];
        assert_eq!(read["clat_ns"]["percentile"]["99.000000"], c.p99_ns);
        assert!(read["clat_ns"].get("bins").is_none());
        let bw = read["bw_bytes"].as_f64().unwrap();
        assert!((bw / 1e6 / c.mb_per_s - 1.0).abs() < 0.01);
    }
    let csv = read_with_fio(&file, jobs.len());
    assert!(csv.iter().all(|c| c.rows.is_empty()), "no bins, no rows");

    let Document::Soak(soak) = d.run(&[
        "soak",
        &dev,
        "--size",
        "32M",
        "--test",
        "SEQ128K Q4T1",
        "--duration",
        "1s",
        "--interval",
        "200ms",
    ]) else {
        panic!("not a soak")
    };
    let (file, fio) = d.export_last("soak");
    let read = &fio["jobs"][0]["read"];
    rates_agree(read, soak.latency.count, soak.mb_per_s, "soak");
    assert_eq!(
        read["clat_ns"]["percentile"]["99.000000"],
        soak.latency.percentiles_ns["99"]
    );
    assert_eq!(read["bw_samples"], soak.series.len());
    read_with_fio(&file, 1);
}
