//! Bad input reaching the binary (option values, test names, model files, run names, store
//! filters, stored documents of odd shapes, `--confirm` text): one line on stderr and the exit
//! code the README documents (1 wrong input for the target, 2 bad syntax, 3 refused), never a
//! panic or a backtrace. Runs with RUST_BACKTRACE=1, so a panic would show one.

use common::typed::{listed_runs_in, record_of};
use common::*;
use drivescope_record::{Direction, Document, ScanRecord};
use drivescope_report::sample;
use drivescope_store::Store;
use drivescope_testkit as common;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Output;

/// A directory of the test's own, removed when dropped.
struct TestDir(PathBuf);

impl TestDir {
    fn new(name: &str) -> TestDir {
        let d = std::env::temp_dir().join(format!("drivescope-bad-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TestDir(d)
    }
    fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    drivescope_cmd()
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("run drivescope")
}

/// No panic and no backtrace; exit `code`; one line carrying `needle`, in the tool's own
/// style (`drivescope: …`) whatever found the fault; a usage error (exit 2) ends by naming the
/// help to read.
fn one_line(out: &Output, args: &[String], code: i32, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    for bad in ["panicked", "stack backtrace", "RUST_BACKTRACE"] {
        assert!(!err.contains(bad), "{args:?}: {err}");
    }
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    let mut lines = err.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next().unwrap_or_default();
    assert!(first.contains(needle), "{args:?}: no {needle:?} in {err}");
    assert!(first.starts_with("drivescope: "), "{args:?}: {err}");
    if code == 2 {
        assert!(first.ends_with(" --help'"), "{args:?}: {err}");
    }
    assert_eq!(lines.count(), 0, "{args:?}: more than one line: {err}");
}

fn refused(args: &[&str], code: i32, needle: &str) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    one_line(&run(&args), &args, code, needle);
}

#[test]
fn bad_option_values() {
    for (args, code, needle) in [
        (
            &["scan", "null:1G", "--block-size", "12X"][..],
            2,
            "unknown size suffix",
        ),
        (
            &["scan", "null:1G", "--block-size", "99999999999P"],
            2,
            "too large",
        ),
        (&["scan", "null:1G", "--block-size", "µ"], 2, "not a size"),
        (
            &["scan", "null:1G", "--length", "150%"],
            2,
            "between 0% and 100%",
        ),
        (
            &["scan", "null:1G", "--slow", "5 parsecs"],
            2,
            "not a duration",
        ),
        (
            &["scan", "null:1G", "--slow", "99999999999h"],
            2,
            "out of range",
        ),
        (
            &["scan", "null:1G", "--points", "100000000000"],
            2,
            "--points",
        ),
        (
            &["scan", "null:1T", "--points", "18446744073709551615"],
            2,
            "--points",
        ),
        (&["bench", "null:1G", "--duration", ""], 2, "not a duration"),
        (
            &["bench", "null:1G", "--test", "SEQ1X Q1T1"],
            2,
            "unknown size suffix",
        ),
        (
            &["bench", "null:1G", "--test", "RND4K Q0T1"],
            2,
            "queue depth",
        ),
        (
            &["bench", "null:1G", "--test", "RND4K Q1T99999999999"],
            2,
            "not a test name",
        ),
        (
            &["bench", "null:1G", "--profile", "fast"],
            2,
            "unknown profile",
        ),
        (&["bench", "null:1G", "--mix", "101"], 2, "percentage"),
        (&["sweep", "null:1G", "--pattern", ""], 2, "not a test name"),
        (&["sweep", "null:1G", "--qd", "1,x"], 2, "list of numbers"),
        (
            &["soak", "null:1G", "--test", "SEQ1M Q8T1 x"],
            2,
            "not a test name",
        ),
    ] {
        refused(args, code, needle);
    }
}

#[test]
fn bad_model_files() {
    let d = TestDir::new("models");
    let cases: [(&str, &[u8], &str); 5] = [
        (
            "syntax.toml",
            b"name = \"x\"\nsize = \n",
            "line 2, column 8",
        ),
        (
            "field.toml",
            b"name = \"x\"\nsize = \"1G\"\nfoo = 1\n",
            "unknown field `foo`",
        ),
        (
            "suffix.toml",
            b"name = \"x\"\nsize = \"1Q\"\n",
            "unknown size suffix",
        ),
        (
            "zones.toml",
            b"name = \"x\"\nsize = \"1M\"\nzones = { count = 0, outer_mb_s = 1, inner_mb_s = 2 }\n",
            "zones.count",
        ),
        ("binary.toml", b"\xff\xfe\x00", "UTF-8"),
    ];
    for (name, text, needle) in cases {
        let f = d.file(name);
        std::fs::write(&f, text).unwrap();
        refused(&["lab", "truth", f.to_str().unwrap()], 1, needle);
    }
    refused(&["lab", "truth", "no-such-model"], 1, "neither a preset");
    refused(
        &["lab", "truth", d.0.to_str().unwrap()],
        1,
        "Is a directory",
    );
    refused(
        &["lab", "truth", "hdd-7200", "--size", "1"],
        1,
        "size must be",
    );
    refused(&["lab", "presets", "--toml", "nosuch"], 1, "no preset");
    for rate in ["0", "-5", "nan", "fast"] {
        let bus = format!("--bus={rate}");
        refused(
            &["lab", "truth", "hdd-7200", &bus],
            2,
            "not a positive rate",
        );
        refused(
            &["lab", "serve", "hdd-7200", "hdd-7200", &bus, "--mount", "x"],
            2,
            "not a positive rate",
        );
    }
}

/// A real record as JSON, changed by `change`: the odd shapes are made in the JSON itself,
/// since the record types cannot hold them.
fn changed(doc: impl Into<Document>, change: impl FnOnce(&mut Value)) -> Document {
    let mut v = doc.into().to_value();
    change(&mut v);
    Document::from_value(v).unwrap()
}

/// Stored documents an older or newer version, or a damaged file, might hold.
fn odd_documents() -> Vec<Document> {
    let scan = || sample::scan(1, 1 << 30, 8, 2, 1, Direction::Read);
    vec![
        sample::bench(2).into(),
        // a kind a newer version writes
        changed(sample::bench(2), |v| {
            v["kind"] = "fleet".into();
            v["drives"] = json!([{"verdict": "fail"}]);
        }),
        // a newer version's extra field
        changed(scan(), |v| v["x_future"] = json!({"a": [1, 2]})),
        // an older version's document without fields added since
        changed(scan(), |v| {
            for k in ["failed_extents", "slow_regions", "submit_latency", "series"] {
                v.as_object_mut().unwrap().remove(k);
            }
        }),
        // a field of another type: kept as it came, shown generically
        changed(sample::bench(2), |v| v["tests"] = "none".into()),
        // numbers no run writes: buckets that end before they start, counts beyond u64
        changed(scan(), |v| {
            v["histogram"]["buckets"] = json!([
                {"low_ns": 5000, "high_ns": 10, "count": u64::MAX},
                {"low_ns": u64::MAX, "high_ns": 0, "count": u64::MAX},
            ]);
            v["points"] = 0.into();
            v["curve"] = json!([]);
            v["block_size"] = 0.into();
        }),
        changed(sample::sweep(3), |v| v["cells"] = json!([])),
        changed(sample::soak(4, 3), |v| v["series"] = json!([])),
    ]
}

#[test]
fn run_names_filters_and_stored_documents() {
    let d = TestDir::new("store");
    let path = d.file("runs.sqlite");
    let empty = d.file("empty.sqlite");
    let store_arg = path.to_str().unwrap();
    let docs = odd_documents();
    {
        let mut store = Store::open(&path).unwrap();
        for doc in &docs {
            store.save(doc).unwrap();
        }
        Store::open(&empty).unwrap();
    }
    // `COMMAND --store PATH ARGS…`, so a `--` among the arguments stays last
    let with_store = |args: &[&str]| {
        let mut v = vec![args[0].to_string(), "--store".into(), store_arg.to_string()];
        v.extend(args[1..].iter().map(|s| s.to_string()));
        v
    };
    for (args, code, needle) in [
        (&["show", "last~2"][..], 1, "\"last~2\" is not a run number"),
        (&["show", "99999999999999999999"], 1, "is not a run number"),
        (&["show", "0x1"], 1, "is not a run number"),
        (&["show", ""], 1, "is not a run number"),
        (&["show", "424242"], 1, "run 424242 not found"),
        (&["show", "--", "-1"], 1, "run -1 not found"),
        (
            &["compare", "1", "banana"],
            1,
            "\"banana\" is not a run number",
        ),
        (
            &["report", "1", "last~1", "-o", "/nonexistent/r.html"],
            1,
            "not a run number",
        ),
        (
            &["export", "1", "--format", "csv", "--table", "nosuch"],
            1,
            "no table \"nosuch\"",
        ),
        (
            &["export", "1", "--format", "yaml"],
            2,
            "invalid value 'yaml'",
        ),
        (
            &["runs", "--limit", "-1"],
            2,
            "invalid value '-1' for '--limit <LIMIT>'",
        ),
        // Only the kinds a run is saved as (a newer version's kind is listed, not filtered).
        (&["runs", "--kind", "fleet"], 2, "invalid value 'fleet'"),
        (
            &["runs", "--limit", "99999999999999999999999"],
            2,
            "invalid value",
        ),
    ] {
        let args = with_store(args);
        one_line(&run(&args), &args, code, needle);
    }
    let args: Vec<String> = ["show", "last", "--store", empty.to_str().unwrap()]
        .map(String::from)
        .into();
    one_line(&run(&args), &args, 1, "the store holds no runs yet");
    let args: Vec<String> = ["runs", "--store", d.0.to_str().unwrap()]
        .map(String::from)
        .into();
    one_line(&run(&args), &args, 1, "no results store at");

    // filters are text to find, whatever their characters; a limit beyond i64 is no limit
    for (args, listed) in [
        (
            &["runs", "--limit", "18446744073709551615", "--json"][..],
            docs.len(),
        ),
        (&["runs", "--device", "%", "--json"], 0),
        (&["runs", "--device", "_", "--json"], 0),
        (&["runs", "--device", "' OR 1=1 --", "--json"], 0),
        (&["runs", "--kind", "screen", "--json"], 0),
        (&["runs", "--since", "\u{10ffff}", "--json"], 0),
    ] {
        let out = run(&with_store(args));
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(listed_runs_in(&out).len(), listed, "{args:?}");
    }

    // every stored document shows, exports and compares, or says in one line why not
    let html = d.file("report.html");
    for id in 1..=docs.len() {
        let id = id.to_string();
        for args in [
            vec!["show", &id],
            vec!["show", &id, "--json"],
            vec!["export", &id, "--format", "json"],
            vec!["export", &id, "--format", "csv"],
            vec!["export", &id, "--format", "md"],
            vec!["export", &id, "--format", "fio-json"],
            vec!["compare", &id, "1"],
            vec!["compare", &id, "1", "--format", "html"],
            vec!["report", &id, "1", "-o", html.to_str().unwrap()],
        ] {
            let args = with_store(&args);
            let out = run(&args);
            if out.status.success() {
                let err = String::from_utf8_lossy(&out.stderr);
                assert!(!err.contains("panicked"), "{args:?}: {err}");
            } else {
                one_line(&out, &args, 1, "drivescope: ");
            }
        }
    }
}

/// `--confirm` text that does not name the device: refused in one line (exit 3), the device
/// unchanged. Needs root (a loop device).
#[test]
fn confirmations_that_do_not_name_the_device() {
    if skip_without_root("creates loop devices") {
        return;
    }
    let dev = TmpfsLoop::new(4 << 20);
    fill_random(dev.path(), 1 << 20);
    let before = checksum(dev.path());
    let p = dev.path().to_str().unwrap();
    let name = dev
        .path()
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let long = "x".repeat(100_000);
    for confirm in [
        "",
        " ",
        "'",
        "\"",
        "\"\"",
        "µ",
        &long,
        &format!("{name} 0.0000000000000000001 B"),
        &format!("{name} 99999999999999999999 PiB"),
        &format!("{name} 4.0 MiB extra"),
        &format!("'{name} 4.0 MiB\""),
        &format!("{name}\t4.0\tMiB\u{7f}"),
    ] {
        refused(
            &[
                "scan",
                p,
                "--write",
                "--destructive",
                "--confirm",
                confirm,
                "--no-store",
                "--quiet",
            ],
            3,
            "refused",
        );
    }
    assert_eq!(checksum(dev.path()), before, "the device was written");
}

/// An interrupted scan of `null:1G` as the store keeps one, its resume point at `next`.
fn interrupted(next: u64, change: impl FnOnce(&mut drivescope_record::ScanRecord)) -> Document {
    let mut r = sample::scan(5, 1 << 30, 16, 0, 0, Direction::Read);
    r.header.target = drivescope_record::TargetInfo {
        path: "null:1G".into(),
        kind: drivescope_record::TargetType::Null,
        size: 1 << 30,
        logical_block_size: 512,
    };
    r.header.device = None;
    r.engine = drivescope_record::EngineKind::Null;
    r.interrupted = true;
    r.covered = next;
    r.resume = Some(drivescope_record::ResumeState {
        next_offset: next,
        last_bin: None,
        submit_histogram: drivescope_stats::Histogram::new().to_out(),
        bins: Vec::new(),
        passes: None,
    });
    change(&mut r);
    r.into()
}

/// `scan --resume` of a stored run whose resume point or totals no scan writes: refused in one
/// line, or continued to a whole result.
#[test]
fn damaged_resume_points() {
    let d = TestDir::new("resume");
    let path = d.file("runs.sqlite");
    let refused_docs = [
        interrupted(0, |r| {
            r.offset = 1 << 20;
            r.length -= 1 << 20;
        }),
        interrupted(1 << 30, |_| {}),
        interrupted(u64::MAX, |_| {}),
        interrupted(4097, |_| {}),
        interrupted(1 << 20, |r| r.block_size = 0),
        interrupted(1 << 20, |r| r.length = u64::MAX),
    ];
    let continued = interrupted(1 << 29, |r| {
        // counts no run writes, in the parts that the continued scan adds to
        r.histogram.buckets[0].count = u64::MAX;
        r.histogram.buckets[1].high_ns = 0;
        r.bands[0].count = u64::MAX;
        r.points = 0;
    });
    let mut store = Store::open(&path).unwrap();
    for doc in refused_docs.iter().chain([&continued]) {
        store.save(doc).unwrap();
    }
    drop(store);
    let s = path.to_str().unwrap();
    for id in 1..=refused_docs.len() {
        let args: Vec<String> = ["scan", "--resume", &id.to_string(), "--store", s, "--quiet"]
            .map(String::from)
            .into();
        one_line(&run(&args), &args, 1, "drivescope: ");
    }
    let id = (refused_docs.len() + 1).to_string();
    let out = run(&["scan", "--resume", &id, "--store", s, "--quiet", "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let doc: ScanRecord = record_of(&out);
    assert_eq!(doc.covered, 1u64 << 30, "{err}");
}
