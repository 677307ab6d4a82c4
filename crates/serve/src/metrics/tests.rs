//! `/metrics` over a store of records built from the real types (the report's samples) and a
//! diagnosis saved by a real run: each drive's latest values, the verdicts, one series per
//! finding code, the ages at the time asked, and the cache following the store.

use super::*;
use crate::exposition::Family;
use drivescope_record::{Direction, Document};
use drivescope_report::sample;
use drivescope_store::{Location, Store};
use std::path::PathBuf;

struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn dir(name: &str) -> Dir {
    let d = std::env::temp_dir().join(format!("ds-metrics-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    Dir(d)
}

fn diagnosis() -> Document {
    let text = include_str!("../../../analysis/tests/fixtures/diagnose-raid-cache.json");
    Document::from_value(serde_json::from_str(text).unwrap()).unwrap()
}

/// The value of the sample of `name` whose labels include each of `labels` (`k="v"`).
fn value(text: &str, name: &str, labels: &[&str]) -> Option<f64> {
    let mut found = text.lines().filter(|l| {
        l.starts_with(&format!("{name}{{"))
            && labels
                .iter()
                .all(|want| l.contains(&format!("{want},")) || l.contains(&format!("{want}}}")))
    });
    let line = found.next()?;
    assert!(
        found.next().is_none(),
        "{name} {labels:?}: more than one series"
    );
    line.rsplit(' ').next()?.parse().ok()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn each_drive_s_latest_runs_with_their_values() {
    let d = dir("latest");
    let path = d.0.join("runs.sqlite");
    let mut store = Store::open(Location::Sqlite(path.clone())).unwrap();
    let old = sample::scan(1, 1 << 30, 50, 0, 0, Direction::Read);
    let mut new = sample::scan(1, 1 << 30, 50, 7, 2, Direction::Read);
    new.header.started_at = "2026-11-20T10:00:00Z".into();
    new.header.ended_at = "2026-11-20T10:05:00Z".into();
    store.save(&old.clone().into()).unwrap();
    let new_id = store.save(&new.clone().into()).unwrap();
    let bench = sample::bench(3);
    store.save(&bench.clone().into()).unwrap();
    let screen = sample::screen(4, 3);
    store.save(&screen.clone().into()).unwrap();
    let diag = diagnosis();
    store.save(&diag).unwrap();
    drop(store);

    let store = Store::open_read_only(Location::Sqlite(path)).unwrap();
    let cache = Cache::default();
    let now = 1_795_000_000.0; // 2026-11-18T…
    let text = document(&store, &cache, now).unwrap();

    // The scan: the newer of the drive's two.
    let serial = format!("serial=\"{}\"", "SAMPLE-0001");
    let l = [serial.as_str(), "kind=\"scan\"", "direction=\"read\""];
    let mean = value(&text, "drivescope_scan_mean_bytes_per_second", &l).unwrap();
    assert!(close(mean, new.mb_per_s.mean * 1e6), "{mean}");
    let min = value(&text, "drivescope_scan_min_bytes_per_second", &l).unwrap();
    assert!(close(min, new.mb_per_s.min * 1e6), "{min}");
    let p99 = value(&text, "drivescope_scan_latency_p99_seconds", &l).unwrap();
    assert!(close(p99, new.latency.percentiles_ns["99"] as f64 / 1e9));
    assert_eq!(value(&text, "drivescope_scan_slow_commands", &l), Some(7.0));
    assert_eq!(
        value(&text, "drivescope_scan_failed_commands", &l),
        Some(2.0)
    );
    let run = [serial.as_str(), "kind=\"scan\""];
    assert_eq!(
        value(&text, "drivescope_run_id", &run),
        Some(new_id.0 as f64)
    );
    let ended = 1_795_169_100.0; // 2026-11-20T10:05:00Z
    assert_eq!(
        value(&text, "drivescope_run_age_seconds", &run),
        Some((now - ended).max(0.0))
    );
    let later = document(&store, &cache, ended + 60.0).unwrap();
    assert_eq!(
        value(&later, "drivescope_run_age_seconds", &run),
        Some(60.0)
    );

    // The bench: each test, read and write.
    let serial = "serial=\"SAMPLE-0003\"";
    for t in &bench.tests {
        let test = format!("test=\"{}\"", t.name);
        let dir = format!("direction=\"{}\"", t.rw.as_str());
        let l = [serial, test.as_str(), dir.as_str()];
        let rate = value(&text, "drivescope_bench_bytes_per_second", &l).unwrap();
        assert!(close(rate, t.mb_per_s * 1e6));
        let iops = value(&text, "drivescope_bench_operations_per_second", &l).unwrap();
        assert!(close(iops, t.iops));
    }
    assert_eq!(
        text.lines()
            .filter(|l| l.starts_with("drivescope_bench_bytes_per_second{"))
            .count(),
        bench.tests.len()
    );

    // The screen: each member's verdict as number and label.
    for m in &screen.members {
        let s = m.scan.as_ref().unwrap();
        let serial = drivescope_record::DeviceSummary::of(s.header.device.as_ref().unwrap())
            .serial
            .unwrap();
        let g = m.verdict.as_ref().unwrap().grade;
        let l = [format!("serial=\"{serial}\""), format!("verdict=\"{g}\"")];
        let l: Vec<&str> = l.iter().map(String::as_str).collect();
        let v = value(&text, "drivescope_screen_verdict", &l).unwrap_or_else(|| panic!("{text}"));
        let want = match g.as_str() {
            "pass" => 0.0,
            "warn" => 1.0,
            "incomplete" => 2.0,
            _ => 3.0,
        };
        assert_eq!(v, want, "{serial}");
    }
    assert!(text.contains("verdict=\"fail\"} 3\n"), "{text}");

    // The diagnosis: one series per finding code.
    let h = diag.header().unwrap();
    let codes: std::collections::BTreeSet<&str> =
        h.findings.iter().map(|f| f.code.as_str()).collect();
    assert!(!codes.is_empty());
    for code in &codes {
        let l = format!("code=\"{code}\"");
        let surest = h
            .findings
            .iter()
            .filter(|f| f.code.as_str() == *code)
            .map(|f| f.confidence)
            .max()
            .unwrap();
        let c = format!("confidence=\"{}\"", surest.as_str());
        assert!(
            value(&text, "drivescope_diagnose_finding", &[&l, &c]).is_some(),
            "{code}: {text}"
        );
    }
    assert_eq!(
        text.lines()
            .filter(|l| l.starts_with("drivescope_diagnose_finding{"))
            .count(),
        codes.len()
    );
    assert_eq!(value_plain(&text, "drivescope_store_runs"), Some(5.0));
}

fn value_plain(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .and_then(|v| v.parse().ok())
}

#[test]
fn the_cache_follows_the_store() {
    let d = dir("cache");
    let path = d.0.join("runs.sqlite");
    let mut writer = Store::open(Location::Sqlite(path.clone())).unwrap();
    writer
        .save(&sample::scan(1, 1 << 30, 20, 0, 0, Direction::Read).into())
        .unwrap();
    let mut reader = Store::open_read_only(Location::Sqlite(path)).unwrap();
    let cache = Cache::default();
    let first = document(&reader, &cache, 0.0).unwrap();
    assert_eq!(value_plain(&first, "drivescope_store_runs"), Some(1.0));
    assert_eq!(document(&reader, &cache, 0.0).unwrap(), first);
    let mut newer = sample::scan(1, 1 << 30, 20, 5, 0, Direction::Read);
    newer.header.started_at = "2026-11-25T10:00:00Z".into();
    writer.save(&newer.into()).unwrap();
    reader.refresh().unwrap();
    let second = document(&reader, &cache, 0.0).unwrap();
    assert_eq!(value_plain(&second, "drivescope_store_runs"), Some(2.0));
    let l = ["serial=\"SAMPLE-0001\"", "kind=\"scan\""];
    assert_eq!(
        value(&second, "drivescope_scan_slow_commands", &l),
        Some(5.0)
    );
}

#[test]
fn family_names_follow_the_conventions() {
    for f in families::ALL {
        let f: &Family = f;
        assert!(crate::exposition::valid_name(f.name, true), "{}", f.name);
        assert!(f.name.starts_with("drivescope_"), "{}", f.name);
        for l in f.labels {
            assert!(crate::exposition::valid_name(l, false), "{l}");
            assert!(!l.starts_with("__"), "{l}");
        }
        // Base units: no milli-, mega- or MB in a name.
        for unit in ["_ms", "_mb", "_ns", "_us", "milli", "mega", "_percent"] {
            assert!(!f.name.contains(unit), "{}", f.name);
        }
        assert!(!f.name.ends_with("_total"), "gauges only: {}", f.name);
        assert!(!f.help.is_empty());
    }
    let mut names: Vec<_> = families::ALL.iter().map(|f| f.name).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), families::ALL.len());
}

/// A capacity probe is a drive's run like any other: its reported and real sizes, and whether it
/// is counterfeit, per drive, from its latest probe.
#[test]
fn capacity_probes_have_their_series() {
    let d = dir("capacity");
    let path = d.0.join("runs.sqlite");
    let mut store = Store::open(Location::Sqlite(path.clone())).unwrap();
    let genuine = sample::capacity(5, 64 << 30, 64 << 30);
    let fake = sample::capacity(6, 256 << 30, 8 << 30);
    store.save(&genuine.clone().into()).unwrap();
    let fake_id = store.save(&fake.clone().into()).unwrap();
    drop(store);
    let store = Store::open_read_only(Location::Sqlite(path)).unwrap();
    let text = document(&store, &Cache::default(), 1_795_000_000.0).unwrap();
    let serial = |r: &drivescope_record::CapacityRecord| {
        let s = drivescope_record::DeviceSummary::of(r.header.device.as_ref().unwrap())
            .serial
            .unwrap();
        format!("serial=\"{s}\"")
    };
    let g = serial(&genuine);
    let l = [g.as_str(), "class=\"genuine\""];
    assert_eq!(
        value(&text, "drivescope_capacity_reported_bytes", &l),
        Some((64u64 << 30) as f64),
        "{text}"
    );
    assert_eq!(
        value(&text, "drivescope_capacity_real_bytes", &l),
        Some((64u64 << 30) as f64)
    );
    assert_eq!(
        value(&text, "drivescope_capacity_counterfeit", &l),
        Some(0.0)
    );
    let f = serial(&fake);
    let l = [f.as_str(), "class=\"drop\""];
    assert_eq!(
        value(&text, "drivescope_capacity_real_bytes", &l),
        Some((8u64 << 30) as f64)
    );
    assert_eq!(
        value(&text, "drivescope_capacity_counterfeit", &l),
        Some(1.0)
    );
    let run = [f.as_str(), "kind=\"capacity\""];
    assert_eq!(
        value(&text, "drivescope_run_id", &run),
        Some(fake_id.0 as f64)
    );
}

/// The raid-cache diagnosis as if it had run on /dev/loop0 over `backing`.
fn diagnosis_over(backing: &str) -> Document {
    let text = include_str!("../../../analysis/tests/fixtures/diagnose-raid-cache.json")
        .replace("/tmp/lab-raid-cache/disk.img", backing);
    Document::from_value(serde_json::from_str(&text).unwrap()).unwrap()
}

/// A later scan of /dev/loop0 over `backing` (no serial number, as a loop device has none).
fn scan_over(backing: &str) -> Document {
    let Document::Diagnose(d) = diagnosis_over(backing) else {
        unreachable!()
    };
    let mut scan = sample::scan(9, 1 << 28, 50, 0, 0, Direction::Read);
    scan.header.target = d.header.target.clone();
    scan.header.device = d.header.device.clone();
    scan.header.started_at = "2026-11-24T10:00:00Z".into();
    scan.header.ended_at = "2026-11-24T10:05:00Z".into();
    scan.into()
}

#[test]
fn a_kernel_name_s_series_are_of_the_device_it_last_named() {
    let finding = ["target=\"/dev/loop0\"", "code=\"read_cache\""];
    let scanned = ["target=\"/dev/loop0\"", "kind=\"scan\""];
    for (later, same) in [
        ("/tmp/lab-b/disk.img", false),
        ("/tmp/lab-a/disk.img", true),
    ] {
        let d = dir(if same { "same-device" } else { "other-device" });
        let path = d.0.join("runs.sqlite");
        let mut store = Store::open(Location::Sqlite(path.clone())).unwrap();
        store.save(&diagnosis_over("/tmp/lab-a/disk.img")).unwrap();
        store.save(&scan_over(later)).unwrap();
        drop(store);
        let store = Store::open_read_only(Location::Sqlite(path)).unwrap();
        let text = document(&store, &Cache::default(), 1_795_000_000.0).unwrap();
        assert!(
            value(&text, "drivescope_run_id", &scanned).is_some(),
            "{text}"
        );
        let cache = value(&text, "drivescope_diagnose_finding", &finding);
        if same {
            assert_eq!(cache, Some(3.0), "the device's own diagnosis:\n{text}");
        } else {
            assert_eq!(cache, None, "another device's diagnosis:\n{text}");
        }
    }
}

/// A durability run of `/dev/loop7` whose 4 KiB fdatasync commits at one committer took `p99_ns`
/// at the 99th percentile, with the flush verdict `verdict`, ended at `ended`.
fn durability(
    p99_ns: u64,
    verdict: drivescope_record::durability::FlushHonestyVerdict,
    ended: &str,
) -> Document {
    use drivescope_record::durability::*;
    let info = drivescope_record::TargetInfo {
        path: "/dev/loop7".into(),
        kind: drivescope_record::TargetType::Block,
        size: 64 << 20,
        logical_block_size: 512,
    };
    let mut header = drivescope_record::Header::now(drivescope_record::Kind::Durability, info);
    header.started_at = ended.into();
    header.ended_at = ended.into();
    DurabilityRecord {
        data: DurabilityData {
            commits: vec![CommitCostRow {
                mode: CommitModeName::Fdatasync,
                committers: 1,
                size: 4096,
                count: 100,
                bytes: 409_600,
                flushes: 100,
                device_flushes: None,
                p50_ns: p99_ns / 4,
                p99_ns,
                max_ns: p99_ns * 2,
                into: None,
                mean_ns: 0,
            }],
            flush_honesty: Some(FlushHonesty {
                verdict,
                early_by: None,
                media_bytes_per_s: None,
                reason: None,
                sizes: Vec::new(),
            }),
        },
        budget_ns: 1,
        duration_ns: 1,
        ..DurabilityRecord::empty(header, "device")
    }
    .into()
}

#[test]
fn the_newest_durability_run_gives_commit_p99_and_the_flush_verdict() {
    use drivescope_record::durability::FlushHonestyVerdict;
    let d = dir("durability");
    let path = d.0.join("runs.sqlite");
    let mut store = Store::open(Location::Sqlite(path.clone())).unwrap();
    store
        .save(&durability(
            2_000_000,
            FlushHonestyVerdict::Early,
            "2026-11-20T10:00:00Z",
        ))
        .unwrap();
    store
        .save(&durability(
            12_000_000,
            FlushHonestyVerdict::Honest,
            "2026-11-21T10:00:00Z",
        ))
        .unwrap();
    drop(store);
    let store = Store::open_read_only(Location::Sqlite(path.clone())).unwrap();
    let text = document(&store, &Cache::default(), 1_795_000_000.0).unwrap();
    let target = "target=\"/dev/loop7\"";
    let l = [
        target,
        "mode=\"fdatasync\"",
        "committers=\"1\"",
        "size=\"4096\"",
    ];
    let p99 = value(&text, "drivescope_durability_commit_p99_seconds", &l).unwrap();
    assert!(close(p99, 0.012), "the newer run's: {p99}");
    let honest = [target, "verdict=\"honest\""];
    assert_eq!(
        value(&text, "drivescope_durability_flush_early", &honest),
        Some(0.0)
    );
    assert!(
        !text.contains("verdict=\"early\""),
        "the older run is passed over: {text}"
    );
    // A newer run that finds early flushes says 1.
    drop(store);
    let mut store = Store::open(Location::Sqlite(path.clone())).unwrap();
    store
        .save(&durability(
            1_000_000,
            FlushHonestyVerdict::Early,
            "2026-11-22T10:00:00Z",
        ))
        .unwrap();
    let text = document(&store, &Cache::default(), 1_795_000_000.0).unwrap();
    let early = [target, "verdict=\"early\""];
    assert_eq!(
        value(&text, "drivescope_durability_flush_early", &early),
        Some(1.0)
    );
}

#[test]
fn a_directory_s_two_file_states_are_two_commit_series() {
    use drivescope_record::durability::{CommitCostRow, CommitInto, FlushHonestyVerdict};
    let d = dir("durability-states");
    let path = d.0.join("runs.sqlite");
    let Document::Durability(mut run) = durability(
        2_000_000,
        FlushHonestyVerdict::Honest,
        "2026-11-20T10:00:00Z",
    ) else {
        panic!("a durability document")
    };
    run.on = "file".into();
    let new = run.data.commits[0].clone();
    run.data.commits = vec![
        CommitCostRow {
            into: Some(CommitInto::New),
            ..new.clone()
        },
        CommitCostRow {
            into: Some(CommitInto::Written),
            p99_ns: 1_000_000,
            ..new
        },
    ];
    let mut store = Store::open(Location::Sqlite(path.clone())).unwrap();
    store.save(&Document::Durability(run)).unwrap();
    drop(store);
    let store = Store::open_read_only(Location::Sqlite(path)).unwrap();
    let text = document(&store, &Cache::default(), 1_795_000_000.0).unwrap();
    let at = |file: &str| {
        let l = [
            "mode=\"fdatasync\"",
            "size=\"4096\"",
            &format!("file=\"{file}\"")[..],
        ];
        value(&text, "drivescope_durability_commit_p99_seconds", &l)
    };
    assert!(at("new").is_some_and(|v| close(v, 0.002)), "{text}");
    assert!(at("written").is_some_and(|v| close(v, 0.001)), "{text}");
    assert_eq!(at("device"), None);
}
