//! Errors in one style and the small things next to them, as a user meets them: a usage error is
//! one `drivescope: …` line naming the help to read (exit 2), like every other error; a dashed
//! value or a bad duration says what is wrong in words; a block size of 0 says a command is at
//! least one sector; the screen's CSV keeps the bands in their order with whole-number counts;
//! compare marks no difference inside the noise; no zone ratio where offsets are no disk's.

use common::drivescope_cmd;
use common::scratch::TestDir;
use drivescope_record::Document;
use drivescope_report::sample;
use drivescope_store::Store;
use drivescope_testkit as common;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = drivescope_cmd()
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("run drivescope");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `args` fail with `code` and exactly the one line `want` on stderr.
fn says(args: &[&str], code: i32, want: &str) {
    let (got, out, err) = run(args);
    assert_eq!(got, code, "{args:?}: {err}");
    assert_eq!(out, "", "{args:?}");
    assert_eq!(err, format!("{want}\n"), "{args:?}");
}

#[test]
fn usage_errors_are_one_line_in_the_tools_style() {
    says(
        &["scan", "null:1G", "--bogus"],
        2,
        "drivescope: unexpected argument '--bogus'; see 'drivescope scan --help'",
    );
    says(
        &["scan", "null:1G", "--lenght", "1M"],
        2,
        "drivescope: unexpected argument '--lenght' (did you mean '--length'?); see 'drivescope scan --help'",
    );
    says(
        &["scan"],
        2,
        "drivescope: missing <TARGET>; see 'drivescope scan --help'",
    );
    says(
        &["frobnicate"],
        2,
        "drivescope: unrecognized subcommand 'frobnicate'; see 'drivescope --help'",
    );
    says(
        &["scan", "null:1G", "--engine", "foo"],
        2,
        "drivescope: invalid value 'foo' for '--engine <ENGINE>' (possible values: auto, io_uring, psync, null); see 'drivescope scan --help'",
    );
    // A negative size reaches the size check: no `-- -1` advice, which fails too.
    says(
        &["scan", "null:1G", "--length", "-1"],
        2,
        "drivescope: invalid value '-1' for '--length <LENGTH>': '-1' is not a size: expected a number such as 4096, 64K, 1M or 2GiB; see 'drivescope scan --help'",
    );
    // A duration's fault in words, not `(expected number at 0)`.
    says(
        &["bench", "null:1G", "--duration", "abc"],
        2,
        "drivescope: invalid value 'abc' for '--duration <DURATION>': 'abc' is not a duration: expected e.g. 3s, 500ms, 10m or 1h 30m; see 'drivescope bench --help'",
    );
    says(
        &["bench", "null:1G", "--duration", "3x"],
        2,
        "drivescope: invalid value '3x' for '--duration <DURATION>': '3x' is not a duration (unknown unit 'x'): expected e.g. 3s, 500ms, 10m or 1h 30m; see 'drivescope bench --help'",
    );
    // Help and the version still print as they do, and succeed.
    let (code, out, _) = run(&["scan", "--help"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("Read a whole device"), "{out}");
}

#[test]
fn a_block_size_below_a_sector_says_so() {
    // No device's sector divides these: bad numbers, refused as usage errors (exit 2).
    says(
        &["scan", "null:1G", "--block-size", "0", "--no-store"],
        2,
        "drivescope: invalid value '0' for '--block-size <BLOCK_SIZE>': 0 is too small: a command is at least one sector (512 B); see 'drivescope scan --help'",
    );
    says(
        &["scan", "null:1G", "--block-size", "256", "--no-store"],
        2,
        "drivescope: invalid value '256' for '--block-size <BLOCK_SIZE>': 256 is too small: a command is at least one sector (512 B); see 'drivescope scan --help'",
    );
    says(
        &["scan", "null:1G", "--block-size", "1000", "--no-store"],
        2,
        "drivescope: invalid value '1000' for '--block-size <BLOCK_SIZE>': 1000 is not a whole number of 512-byte sectors; see 'drivescope scan --help'",
    );
}

#[test]
fn the_screen_csv_keeps_the_band_order_and_whole_counts() {
    let d = TestDir::new("ue", "csv");
    let store = d.file("runs.sqlite");
    let (code, out, err) = run(&[
        "screen",
        "null:32M",
        "null:16M",
        "--shared-path",
        "0",
        "--store",
        &store,
    ]);
    assert_eq!(code, 0, "{err}");
    // null: offsets are no medium's positions: no zone ratio row
    assert!(!out.contains("zone ratio"), "{out}");
    // The screen is saved first, then each drive's scan.
    let (code, csv, err) = run(&["export", "1", "--format", "csv", "--store", &store]);
    assert_eq!(code, 0, "{err}");
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let bands: Vec<&str> = head
        .iter()
        .copied()
        .filter(|c| c.starts_with("band."))
        .collect();
    assert_eq!(
        bands,
        [
            "band.<1ms",
            "band.<3ms",
            "band.<10ms",
            "band.<20ms",
            "band.<50ms",
            "band.<150ms",
            "band.<500ms",
            "band.>=500ms",
            "band.failed"
        ]
    );
    assert!(!head.contains(&"zone_ratio"), "{head:?}");
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = |c: &str| row[head.iter().position(|h| *h == c).unwrap()];
    // 512 commands of the null target, each microseconds: one the scheduler held back past a
    // millisecond (a busy host) is counted in a later band, so the bands are checked as a sum.
    let bands: u64 = head
        .iter()
        .filter(|h| h.starts_with("band.") && **h != "band.failed")
        .map(|h| at(h).parse::<u64>().unwrap())
        .sum();
    assert_eq!(bands, 512);
    assert!(at("band.<1ms").parse::<u64>().unwrap() >= 500, "{row:?}");
    assert_eq!(at("band.failed"), "0");
    assert_eq!(at("size"), "33554432");
}

/// A bench of `seed` with every rate and IOPS scaled by `f` (a run of the same drive, `f` apart).
fn bench_scaled(seed: u64, f: f64) -> Document {
    let mut b = sample::bench(seed);
    for t in &mut b.tests {
        t.mb_per_s *= f;
        t.iops *= f;
        t.mean_mb_per_s *= f;
        for r in &mut t.runs {
            r.mb_per_s *= f;
            r.iops *= f;
        }
    }
    b.into()
}

#[test]
fn compare_marks_no_difference_inside_the_noise() {
    let d = TestDir::new("ue", "noise");
    let path = d.file("runs.sqlite");
    {
        let mut store = Store::open(&path).unwrap();
        for doc in [
            bench_scaled(1, 1.0),
            bench_scaled(1, 1.03),
            bench_scaled(1, 1.3),
        ] {
            store.save(&doc).unwrap();
        }
    }
    // 3 % apart, the same latencies: nothing marked, no legend.
    let (code, out, err) = run(&["compare", "1", "2", "--store", &path]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains('▲') && !out.contains('▼'), "{out}");
    assert!(!out.contains("noise"), "{out}");
    // 30 % apart: the faster marked best, and the legend says what is left unmarked.
    let (code, out, err) = run(&["compare", "1", "3", "--store", &path]);
    assert_eq!(code, 0, "{err}");
    let row = out
        .lines()
        .find(|l| l.starts_with("SEQ1M Q8T1 read") && l.contains("MB/s"))
        .unwrap();
    assert!(row.ends_with(" ▲") && row.contains(" ▼ "), "{row}");
    assert_eq!(
        out.lines().last().unwrap(),
        "(▲ best, ▼ worst of a row; a difference under 5 %, or within the runs' own spread (a bench test's runs), is noise and not marked)"
    );
}

#[test]
fn no_zone_ratio_on_a_null_or_tmpfs_target() {
    let d = TestDir::new("ue", "zone");
    let store = d.file("runs.sqlite");
    let shm = format!("/dev/shm/drivescope-ue-{}.img", std::process::id());
    std::fs::write(&shm, vec![3u8; 4 << 20]).unwrap();
    for target in ["null:64M", shm.as_str()] {
        let (code, out, err) = run(&["scan", target, "--store", &store]);
        assert_eq!(code, 0, "{target}: {err}");
        assert!(!out.contains("zone ratio"), "{target}: {out}");
        let (code, md, err) = run(&["export", "last", "--format", "md", "--store", &store]);
        assert_eq!(code, 0, "{err}");
        assert!(!md.contains("Zone ratio"), "{target}: {md}");
    }
    let (code, cmp, err) = run(&["compare", "1", "2", "--store", &store]);
    assert_eq!(code, 0, "{err}");
    assert!(!cmp.contains("Zone ratio"), "{cmp}");
    let _ = std::fs::remove_file(&shm);
}
