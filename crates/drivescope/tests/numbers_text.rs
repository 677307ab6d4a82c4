//! Numbers for people, the same everywhere: sizes and offsets in IEC units with the LBA beside
//! them, rates in GB/s where MB/s would need six digits, counts and IOPS grouped by thousands in
//! every output, one spelling for a measured duration (scan, screen, compare), sizes in errors
//! as the user typed them, and settings in words in Markdown. Each checked on the text a user
//! sees from the built binary.

use common::scratch::run;
use common::scratch::TestDir;
use drivescope_testkit as common;

/// The line of `text` that starts with `prefix` (after its indent).
fn line<'a>(text: &'a str, prefix: &str) -> &'a str {
    text.lines()
        .find(|l| l.trim_start().starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting {prefix:?} in:\n{text}"))
}

/// Whether `s` is a measured duration as every output writes one: `850 ns`, `299.3 µs`,
/// `21.38 ms`, `12.40 s`, or whole minutes and seconds (`3m 12s`).
fn is_elapsed(s: &str) -> bool {
    let (n, unit) = s.split_once(' ').unwrap_or((s, ""));
    match unit {
        "ns" => n.parse::<u64>().is_ok(),
        "µs" => n.split_once('.').is_some_and(|(_, f)| f.len() == 1),
        "ms" | "s" => n.split_once('.').is_some_and(|(_, f)| f.len() == 2),
        _ => s
            .split(' ')
            .all(|w| w.len() > 1 && w.trim_end_matches(['h', 'm', 's']).parse::<u64>().is_ok()),
    }
}

#[test]
fn a_scan_writes_its_range_rate_counts_and_duration_for_people() {
    let d = TestDir::new("num", "scan");
    let store = d.file("runs.sqlite");
    let (code, out, err) = run(&["scan", "null:64M", "--store", &store]);
    assert_eq!(code, 0, "{err}");
    // The range as sizes, the exact position as LBAs.
    assert_eq!(
        line(&out, "range"),
        "  range     0 B .. 64.0 MiB (LBA 0 .. 131072)"
    );
    // 1024 commands, grouped; the duration of a run of microseconds is no `0.00 s`.
    let read = line(&out, "read ");
    let (head, took) = read.rsplit_once(", ").unwrap();
    assert_eq!(head, "  read      64.0 MiB in 1 024 commands");
    assert!(is_elapsed(took) && !took.starts_with("0.0"), "{read}");
    // The null target moves hundreds of GB/s: never `494127.0 MB/s`.
    let rate = line(&out, "rate ");
    for part in rate.trim_start_matches("  rate      ").split(", ") {
        let (_, v) = part.rsplit_once(' ').map_or(("", part), |_| ("", part));
        let mut words = v.split_whitespace().rev();
        let unit = words.next().unwrap();
        let n: f64 = words.next().unwrap().parse().unwrap();
        assert!(["MB/s", "GB/s", "TB/s"].contains(&unit), "{rate}");
        assert!(unit != "MB/s" || n < 100_000.0, "{rate}");
    }
    // Every command of the null target takes microseconds; one the scheduler held back past a
    // millisecond (a busy host) lands in the next band, so the first band holds "1 0xx" of them.
    let bands = line(&out, "bands");
    let first = bands.split(" | ").next().unwrap();
    assert!(first.starts_with("  bands     <1ms 1 0"), "{bands}");
    assert_eq!(first.len(), "  bands     <1ms 1 024".len(), "{bands}");

    // compare writes the same duration as the scan did.
    let (code, cmp, err) = run(&["compare", "last", "last", "--store", &store]);
    assert_eq!(code, 0, "{err}");
    let row = line(&cmp, "Duration");
    assert!(row.ends_with(took), "scan said {took:?}, compare: {row}");
    // and the same IOPS-free counts, grouped alike
    let count = first.rsplit_once("<1ms ").unwrap().1;
    assert!(
        line(&cmp, "Commands <1ms").contains(&format!(" {count} ")),
        "{cmp}"
    );
}

#[test]
fn a_quick_scan_places_its_slowest_region_by_size_and_lba() {
    let (code, out, err) = run(&["scan", "--quick", "null:64M", "--no-store"]);
    assert_eq!(code, 0, "{err}");
    let l = line(&out, "slowest seek in: region ");
    // `region 93 at 23.3 MiB (LBA 47616, 290 ns)`, never the raw offset in bytes.
    let at = l.split(" at ").nth(1).unwrap();
    let (size, rest) = at.split_once(" (LBA ").unwrap();
    assert!(
        size.ends_with(" MiB") || size.ends_with(" KiB") || size == "0 B",
        "{l}"
    );
    let lba: u64 = rest.split(',').next().unwrap().parse().unwrap();
    assert!(lba < 131072, "{l}");
}

#[test]
fn a_range_past_the_end_is_told_in_the_sizes_typed() {
    let d = TestDir::new("num", "range");
    let f = d.file("scratch.img");
    std::fs::File::create(&f)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    let (code, out, err) = run(&[
        "scan",
        &f,
        "--offset",
        "60M",
        "--length",
        "8M",
        "--no-store",
    ]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(out, "");
    assert_eq!(
        err,
        format!("drivescope: offset + length (60M + 8M) runs past the end of {f} (64.0 MiB)\n")
    );
    let (code, _, err) = run(&["scan", &f, "--offset", "2G", "--no-store"]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!("drivescope: offset 2G is at or beyond the end of {f} (64.0 MiB)\n")
    );
}

#[test]
fn bench_and_compare_group_iops_alike() {
    let d = TestDir::new("num", "iops");
    let store = d.file("runs.sqlite");
    let bench = |_: u32| {
        let (code, out, err) = run(&[
            "bench",
            "null:64M",
            "--test",
            "RND4K Q1T1",
            "--rw",
            "read",
            "--runs",
            "1",
            "--duration",
            "200ms",
            "--store",
            &store,
        ]);
        assert_eq!(code, 0, "{err}");
        (out, err)
    };
    let (out, err) = bench(1);
    // The progress line: a rate and grouped IOPS with their units.
    let progress = line(&err, "RND4K Q1T1");
    let iops = progress.split("  p99").next().unwrap().trim_end();
    assert!(iops.ends_with(" IOPS"), "{progress}");
    // The details table: the same count, grouped the same way.
    let row = out
        .lines()
        .filter(|l| l.trim_start().starts_with("RND4K Q1T1"))
        .nth(1)
        .unwrap();
    let count = iops
        .trim_end_matches(" IOPS")
        .rsplit("MB/s ")
        .next()
        .unwrap()
        .trim();
    assert!(
        count.contains(' '),
        "a null target does more than 1000 IOPS: {progress}"
    );
    assert!(row.contains(&format!("  {count}  ")), "{row} / {progress}");
    bench(2);
    let (code, cmp, err) = run(&["compare", "1", "2", "--store", &store]);
    assert_eq!(code, 0, "{err}");
    let cell = line(&cmp, "RND4K Q1T1 read").to_string();
    let iops_row = cmp
        .lines()
        .find(|l| l.starts_with("RND4K Q1T1 read") && l.contains(" IOPS"))
        .unwrap_or_else(|| panic!("{cmp}"));
    assert!(
        iops_row.contains(&format!("{count} IOPS")),
        "{iops_row} / {cell}"
    );
}

#[test]
fn a_short_screen_says_how_long_it_took_and_markdown_settings_are_words() {
    let d = TestDir::new("num", "screen");
    let store = d.file("runs.sqlite");
    let (code, out, err) = run(&[
        "screen",
        "null:64M",
        "null:32M",
        "--shared-path",
        "0",
        "--store",
        &store,
    ]);
    assert_eq!(code, 0, "{err}");
    let head = line(&out, "drivescope screen: 2 drives, read scan, ");
    let took = head.trim_start_matches("drivescope screen: 2 drives, read scan, ");
    assert!(is_elapsed(took) && !took.starts_with("0.0"), "{head}");
    let row = line(&out, "duration ");
    for cell in row
        .trim_start_matches("duration")
        .split("  ")
        .filter(|c| !c.trim().is_empty())
    {
        let cell = cell.trim().trim_end_matches(['*', '!']);
        assert!(is_elapsed(cell) && !cell.starts_with("0.0"), "{row}");
    }
    let (code, md, err) = run(&["export", "last", "--format", "md", "--store", &store]);
    assert_eq!(code, 0, "{err}");
    let params = line(&md, "- **Parameters:**");
    assert!(params.contains("slow threshold 50ms"), "{params}");
    assert!(!md.contains("_ns="), "{md}");
}
