//! A group screen in every format: the text table (drives in order, best and worst marked on the right
//! columns, the verdicts and their reasons, 80 columns for four drives), `drivescope show`, CSV, the compare
//! rows and the HTML page with its charts. Records from `sample::screen`, built from the record types.

use drivescope_record::{Document, Grade, ScreenRecord};
use drivescope_report::{csv::Csv, html, sample, text, Exporter, Run};

fn text_of(r: &ScreenRecord) -> String {
    let mut out = Vec::new();
    text::print_screen(r, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// The line of the table whose label is `label` (the first block's), split into its cells.
fn row<'a>(t: &'a str, label: &str) -> Vec<&'a str> {
    let line = t
        .lines()
        .find(|l| l.starts_with(label) && l[label.len()..].starts_with("  "))
        .unwrap_or_else(|| panic!("no row {label:?} in\n{t}"));
    line[14..].split_whitespace().collect()
}

/// The cells of a row whose numbers may hold spaces (`16 763 569`, `444.4 µs`): 16 characters each.
fn cells(t: &str, label: &str) -> Vec<String> {
    let line = t
        .lines()
        .find(|l| l.starts_with(label) && l[label.len()..].starts_with("  "))
        .unwrap_or_else(|| panic!("no row {label:?} in\n{t}"));
    let chars: Vec<char> = line.chars().skip(14).collect();
    chars
        .chunks(16)
        .map(|c| c.iter().collect::<String>().trim().to_string())
        .collect()
}

#[test]
fn the_drives_are_columns_in_order_with_their_identity() {
    let t = text_of(&sample::screen(1, 4));
    assert!(
        t.starts_with("drivescope screen: 4 drives, read scan, "),
        "{t}"
    );
    assert_eq!(
        row(&t, "drive"),
        vec!["/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde"]
    );
    assert_eq!(
        row(&t, "serial"),
        vec!["SCR-0001-0", "SCR-0001-1", "SCR-0001-2", "SCR-0001-3"]
    );
    assert_eq!(cells(&t, "model"), vec!["ACME HD4000"; 4]);
    assert_eq!(cells(&t, "size"), vec!["1.0 TiB"; 4]);
    // The rows, in order.
    let labels: Vec<&str> = t
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with('('))
        .map(|l| l[..14].trim_end())
        .collect();
    assert_eq!(
        labels,
        vec![
            "drive",
            "model",
            "serial",
            "size",
            "mean MB/s",
            "min MB/s",
            "zone ratio",
            "p50",
            "p99",
            "max latency",
            "<1ms",
            "<3ms",
            "<10ms",
            "<20ms",
            "<50ms",
            "<150ms",
            "<500ms",
            ">=500ms",
            "failed cmds",
            "slow commands",
            "failed sectors",
            "duration",
            "verdict"
        ]
    );
}

#[test]
fn best_and_worst_are_marked_on_their_columns() {
    let mut r = sample::screen(1, 4);
    // One drive clearly slower: the sample's drives alone are within 1 % of each other, which
    // is noise and not marked.
    r.members[2].scan.as_mut().unwrap().mb_per_s.mean *= 0.7;
    let t = text_of(&r);
    assert_eq!(cells(&t, "failed sectors"), vec!["0*", "3!", "0*", "0*"]);
    assert_eq!(cells(&t, "slow commands"), vec!["2*", "2*", "25!", "2*"]);
    assert_eq!(
        cells(&t, "verdict"),
        vec!["pass*", "fail!", "warn", "pass*"]
    );
    // The fastest mean rate is best, the slowest worst, wherever they are.
    let means: Vec<f64> = r
        .members
        .iter()
        .map(|m| m.scan.as_ref().unwrap().mb_per_s.mean)
        .collect();
    let best = (0..4)
        .max_by(|&a, &b| means[a].total_cmp(&means[b]))
        .unwrap();
    let worst = (0..4)
        .min_by(|&a, &b| means[a].total_cmp(&means[b]))
        .unwrap();
    assert_ne!(best, worst);
    let got = cells(&t, "mean MB/s");
    for (i, c) in got.iter().enumerate() {
        let want = format!(
            "{:.1}{}",
            means[i],
            if i == best {
                "*"
            } else if i == worst {
                "!"
            } else {
                ""
            }
        );
        assert_eq!(*c, want, "column {i}: {got:?}");
    }
    // Equal everywhere: no marks (the zone ratios print alike).
    assert!(cells(&t, "zone ratio")
        .iter()
        .all(|c| !c.ends_with(['*', '!'])));
    assert!(t.contains("\n(* best, ! worst)\n"), "{t}");
    // Values that print alike are not marked, whatever lies under the last digit.
    let mut alike = r.clone();
    for (m, p99) in alike
        .members
        .iter_mut()
        .zip([700_400, 700_449, 700_400, 700_400])
    {
        m.scan
            .as_mut()
            .unwrap()
            .latency
            .percentiles_ns
            .insert("99".into(), p99);
    }
    assert_eq!(cells(&text_of(&alike), "p99"), vec!["700.4 µs"; 4]);
    // One drive: nothing to mark.
    let one = text_of(&sample::screen(1, 1));
    assert!(!one.contains('*') && !one.contains('!'), "{one}");
}

#[test]
fn the_reasons_of_each_verdict_other_than_pass_follow() {
    let r = sample::screen(1, 4);
    let t = text_of(&r);
    let fail = &r.members[1].verdict.as_ref().unwrap().reasons[0].text;
    assert!(fail.starts_with("3 unreadable sectors, the first at offset "));
    let at = t.find(
        "verdicts:\n  /dev/sdc: FAIL\n    fail       3 unreadable sectors, the first at offset ",
    );
    assert!(at.is_some(), "{t}");
    assert!(
        t.contains("\n  /dev/sdd: WARN\n    warn       25 commands took 50.00 ms or longer"),
        "{t}"
    );
    assert!(!t.contains("/dev/sdb: PASS"), "{t}");
    // The shared path and its finding.
    assert!(t.contains("\n  sum                  "), "{t}");
    assert!(t.contains("(60 % of alone)"), "{t}");
    assert!(
        t.contains("\nfindings:\n  ✔ shared path  4 drives together "),
        "{t}"
    );
    assert!(!t.contains("criteria"), "the defaults go unsaid: {t}");
    let mut strict = r.clone();
    strict.criteria.max_slow_commands = 3;
    strict.criteria.max_latency_ns = 200_000_000;
    let st = text_of(&strict);
    assert!(
        st.ends_with(
            "\ncriteria (not the defaults): max_slow_commands = 3, max_latency = 200.00 ms\n"
        ),
        "{st}"
    );
}

#[test]
fn four_drives_fit_80_columns_and_eight_stay_in_blocks_of_four() {
    let mut r = sample::screen(1, 4);
    for (i, m) in r.members.iter_mut().enumerate() {
        m.target = format!("/dev/disk/by-id/ata-ACME_HD4000_SCR-0001-{i}");
    }
    let t = text_of(&r);
    for l in t.lines() {
        assert!(
            l.chars().count() <= 80,
            "{} columns: {l}",
            l.chars().count()
        );
    }
    // Long targets keep their ends, where they differ.
    assert_eq!(
        row(&t, "drive"),
        vec![
            "…0_SCR-0001-0",
            "…0_SCR-0001-1",
            "…0_SCR-0001-2",
            "…0_SCR-0001-3"
        ]
    );
    let eight = text_of(&sample::screen(1, 8));
    for l in eight.lines().take_while(|l| !l.starts_with('(')) {
        assert!(l.chars().count() <= 80, "{l}");
    }
    let heads: Vec<Vec<&str>> = eight
        .lines()
        .filter(|l| l.starts_with("drive "))
        .map(|l| l[14..].split_whitespace().collect())
        .collect();
    assert_eq!(
        heads,
        vec![
            vec!["/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde"],
            vec!["/dev/sdf", "/dev/sdg", "/dev/sdh", "/dev/sdi"]
        ]
    );
    assert_eq!(eight.matches("\nverdict ").count(), 2);
}

#[test]
fn show_prints_the_screen_then_names_the_run() {
    let run = Run::new(Some(12), sample::screen(1, 3));
    let out = String::from_utf8(
        text::Text::Summary
            .to_bytes(std::slice::from_ref(&run))
            .unwrap(),
    )
    .unwrap();
    let Document::Screen(r) = &run.doc else {
        unreachable!()
    };
    assert!(out.starts_with(&text_of(r)), "{out}");
    assert!(
        out.ends_with("(run 12 · screen · /dev/sdb, /dev/sdc, /dev/sdd)\n"),
        "{out}"
    );
    assert_eq!(out.matches("findings:").count(), 1);
}

#[test]
fn csv_has_a_row_per_drive_and_the_shared_path() {
    let run = Run::new(Some(3), sample::screen(1, 4));
    let csv = |t: Option<&str>| {
        let c = Csv {
            table: t.map(String::from),
        };
        String::from_utf8(c.to_bytes(std::slice::from_ref(&run)).unwrap()).unwrap()
    };
    let members = csv(None);
    let lines: Vec<&str> = members.lines().collect();
    assert_eq!(lines.len(), 1 + 4, "{members}");
    let cols: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(&cols[..2], &["index", "target"]);
    for c in [
        "mean_mb_per_s",
        "failed_sectors",
        "slow_commands",
        "band.<1ms",
        "grade",
        "rule",
        "serial",
    ] {
        assert!(cols.contains(&c), "{c} in {cols:?}");
    }
    assert!(
        !cols
            .iter()
            .any(|c| c.starts_with("curve") || c.starts_with("scan")),
        "{cols:?}"
    );
    let at = |line: &str, col: &str| {
        let i = cols.iter().position(|c| *c == col).unwrap();
        line.split(',').nth(i).unwrap().to_string()
    };
    assert_eq!(at(lines[2], "target"), "/dev/sdc");
    // Counts as whole numbers, the bands from the fastest up as the text shows them.
    assert_eq!(at(lines[2], "failed_sectors"), "3");
    let bands: Vec<&str> = cols
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
    assert!(!at(lines[1], "band.<1ms").contains('.'), "{}", lines[1]);
    assert_eq!(at(lines[2], "grade"), "fail");
    assert_eq!(at(lines[2], "rule"), "failed_sectors");
    assert_eq!(at(lines[1], "rule"), "");
    let shared = csv(Some("shared_path"));
    assert_eq!(
        shared.lines().next().unwrap(),
        "index,target,alone_mb_per_s,together_mb_per_s"
    );
    assert_eq!(shared.lines().count(), 1 + 4);
}

#[test]
fn the_page_has_the_table_marked_and_the_drives_curves_and_bands() {
    let r = sample::screen(1, 4);
    let points: usize = r
        .members
        .iter()
        .map(|m| m.scan.as_ref().unwrap().curve.len())
        .sum();
    let bars: usize = r
        .members
        .iter()
        .flat_map(|m| m.scan.as_ref().unwrap().bands.iter())
        .filter(|b| b.count > 0)
        .count();
    let (page, charts) = html::render(&[Run::new(Some(5), r.clone())], "screen").unwrap();
    assert!(page.contains("<h2>Screen — run 5</h2>"), "{page}");
    // The failed sectors row: the second drive worst, the others best.
    let row = page
        .split("<tr><th>failed sectors</th>")
        .nth(1)
        .and_then(|s| s.split("</tr>").next())
        .expect("the failed sectors row");
    assert_eq!(
        row,
        r#"<td class="num best">0</td><td class="num worst">3</td><td class="num best">0</td><td class="num best">0</td>"#
    );
    // Text is escaped (`/` too).
    assert!(
        page.contains("<li><b>&#x2f;dev&#x2f;sdc: fail</b><ul><li>fail: 3 unreadable sectors"),
        "{page}"
    );
    let curve = charts
        .iter()
        .find(|c| c.id == "screen-curve-run5")
        .expect("curves");
    assert_eq!(curve.marks, points);
    for m in &r.members {
        assert!(
            curve.svg.contains(&format!("{} · ACME HD4000", m.target)),
            "legend"
        );
    }
    let bands = charts
        .iter()
        .find(|c| c.id == "screen-bands-run5")
        .expect("bands");
    assert_eq!(bands.marks, bars);
    assert_eq!(bands.svg.matches("<rect class=\"mark\"").count(), bars);
    assert!(page.contains(&format!(
        "id=\"chart-screen-bands-run5\" data-marks=\"{bars}\""
    )));
}

#[test]
fn a_screen_of_drives_of_another_size_draws_by_share_of_each_drive() {
    let mut r = sample::screen(2, 2);
    let s = r.members[1].scan.as_mut().unwrap();
    s.length /= 2;
    let (_, charts) = html::render(&[Run::new(Some(1), r)], "screen").unwrap();
    let curve = charts.iter().find(|c| c.id == "screen-curve-run1").unwrap();
    assert!(curve.svg.contains("Position (% of each drive)"));
    // Verdicts of every kind print.
    let mut r = sample::screen(2, 2);
    r.members[0].verdict.as_mut().unwrap().grade = Grade::Incomplete;
    assert!(text_of(&r).contains("\n  /dev/sdb: INCOMPLETE\n"));
}

#[test]
fn drives_that_belong_to_an_array_name_it() {
    let mut r = sample::screen(1, 4);
    let t = text_of(&r);
    assert!(!t.contains("array: "), "{t}");
    for m in &mut r.members[1..3] {
        m.arrays = vec!["md0 (md raid1)".into()];
    }
    let t = text_of(&r);
    let line = t
        .lines()
        .find(|l| l.starts_with("array: "))
        .unwrap_or_else(|| panic!("no array line in\n{t}"));
    assert!(
        line.starts_with("array: /dev/sdc, /dev/sdd belong to md0 (md raid1)"),
        "{line}"
    );
    // Kept in the document; absent when none.
    let json = serde_json::to_string(&r).unwrap();
    assert_eq!(json.matches("\"arrays\":[\"md0 (md raid1)\"]").count(), 2);
}
