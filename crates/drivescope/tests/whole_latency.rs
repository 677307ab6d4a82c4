//! A bench's latency is each command's whole time (fio's lat), split in the JSON into the
//! submission call's time and the completion's: no command is quicker than either part of
//! it, and the means add up. A command completed inside its submission call no longer shows
//! a latency of a few dozen nanoseconds.

use common::scratch::{run, TestDir};
use drivescope_testkit as common;

#[test]
fn bench_latency_is_submission_plus_completion() {
    let d = TestDir::new("wl", "bench");
    let dir = d.0.to_string_lossy().into_owned();
    for (engine, tests) in [
        ("io_uring", &["RND64K Q1T1", "SEQ1M Q4T1"][..]),
        ("psync", &["RND64K Q1T1"][..]),
    ] {
        let mut args = vec![
            "bench",
            &dir,
            "--size",
            "8M",
            "--runs",
            "1",
            "--duration",
            "100ms",
            "--rw",
            "read",
            "--engine",
            engine,
            "--no-store",
            "--json",
        ];
        for t in tests {
            args.extend(["--test", t]);
        }
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{engine}: {err}");
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
        for t in doc["tests"].as_array().unwrap() {
            let n = |k: &str, f: &str| t[k][f].as_f64().unwrap_or_else(|| panic!("{k}.{f}: {t}"));
            let name = format!("{engine} {}", t["name"]);
            for part in ["submit_latency", "completion_latency"] {
                assert!(
                    n("latency", "min_ns") >= n(part, "min_ns"),
                    "{name}: the quickest command is quicker than its {part}: {t}"
                );
                assert!(n("latency", "max_ns") >= n(part, "max_ns"), "{name}: {t}");
            }
            let sum = n("submit_latency", "mean_ns") + n("completion_latency", "mean_ns");
            let whole = n("latency", "mean_ns");
            assert!(
                (whole - sum).abs() <= 0.01 * whole + 1.0,
                "{name}: mean {whole} is not {sum}, the sum of its parts"
            );
        }
    }
}
