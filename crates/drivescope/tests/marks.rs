//! Best and worst are marked only where they mean something, as a user reads the tables: a
//! screen does not mark 57.6 against 57.9 MB/s (noise), but does mark a drive a third slower
//! and any difference in failed sectors; compare and the HTML report never shade a zone ratio
//! (an end-to-start ratio has no better direction) nor a diagnosis' zone ratio or cache size.

use common::scratch::{run, TestDir};
use drivescope_record::{Direction, Document};
use drivescope_report::sample;
use drivescope_store::Store;
use drivescope_testkit as common;

/// The line of `out` whose label is `label` (the row label and then the cells).
fn row<'a>(out: &'a str, label: &str) -> &'a str {
    out.lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no row {label} in\n{out}"))
}

#[test]
fn a_screen_marks_no_difference_inside_the_noise() {
    let d = TestDir::new("mk", "screen");
    let path = d.file("runs.sqlite");
    // Two drives whose scans differ by 0.5 % in rate, then by a third.
    let close = {
        let mut r = sample::screen(7, 2);
        for (m, mean) in r.members.iter_mut().zip([57.6, 57.9]) {
            let s = m.scan.as_mut().unwrap();
            s.mb_per_s.mean = mean;
            s.mb_per_s.min = 50.0 + mean / 100.0;
        }
        r
    };
    let apart = {
        let mut r = close.clone();
        r.members[1].scan.as_mut().unwrap().mb_per_s.mean = 86.4;
        r
    };
    {
        let mut store = Store::open(&path).unwrap();
        store.save(&Document::from(close)).unwrap();
        store.save(&Document::from(apart)).unwrap();
    }
    let (code, out, err) = run(&["show", "1", "--store", &path]);
    assert_eq!(code, 0, "{err}");
    let mean = row(&out, "mean MB/s");
    assert!(!mean.contains('*') && !mean.contains('!'), "{mean}");
    let min = row(&out, "min MB/s");
    assert!(!min.contains('*') && !min.contains('!'), "{min}");
    // The second drive of the sample has 3 failed sectors, the first none: exact, marked.
    let failed = row(&out, "failed sectors");
    assert!(failed.contains('*') && failed.contains('!'), "{failed}");

    let (code, out, err) = run(&["show", "2", "--store", &path]);
    assert_eq!(code, 0, "{err}");
    let mean = row(&out, "mean MB/s");
    assert!(mean.contains("57.6!") && mean.contains("86.4*"), "{mean}");
}

#[test]
fn a_zone_ratio_is_never_marked_in_compare_or_the_report() {
    let d = TestDir::new("mk", "zone");
    let path = d.file("runs.sqlite");
    let html = d.file("report.html");
    {
        let mut store = Store::open(&path).unwrap();
        for (seed, z) in [(1, 0.48), (2, 0.81)] {
            let mut s = sample::scan(seed, 1 << 30, 100, 0, 0, Direction::Read);
            s.zone_ratio = Some(z);
            store.save(&Document::from(s)).unwrap();
        }
    }
    let (code, out, err) = run(&["compare", "1", "2", "--store", &path]);
    assert_eq!(code, 0, "{err}");
    let zone = row(&out, "Zone ratio");
    assert!(zone.contains("0.48") && zone.contains("0.81"), "{zone}");
    assert!(!zone.contains('▲') && !zone.contains('▼'), "{zone}");

    let (code, _, err) = run(&["report", "1", "2", "-o", &html, "--store", &path]);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(&html).unwrap();
    let tr = page
        .split("<tr>")
        .find(|r| r.contains("Zone ratio"))
        .unwrap_or_else(|| panic!("no zone ratio row in the report"));
    assert!(!tr.contains("best") && !tr.contains("worst"), "{tr}");
    // Other rows with a direction are still shaded where they differ beyond the noise.
    assert!(page.contains("num best") || page.contains("num worst"));
}
