//! Frames drawn into ratatui's test backend from a known stream of commands fed through the
//! scan's own live counters: 1 GiB in 1 MiB commands, 400 MB/s over the first half and
//! 100 MB/s after, one slow command at 300 MiB and one failed at 400 MiB, stopped at 60 %.

use super::render::{self, areas, KEYS};
use super::view::{Shown, ViewState};
use super::widgets::marks::{column_of_bin, FAILED_MARK, SLOW_MARK};
use crate::progress::{Status, Total};
use drivescope_core::scan::live::{Done, Live, LIVE_BINS};
use drivescope_core::scan::Progress;
use drivescope_stats::Histogram;
use drivescope_units::format_ns;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::Terminal;
use std::sync::atomic::Ordering;
use std::time::Duration;

const MIB: u64 = 1 << 20;
const LEN: u64 = 1024 * MIB;
const SLOW_AT: u64 = 300 * MIB;
const FAILED_AT: u64 = 400 * MIB;
const REACHED: u64 = 614 * MIB;

fn shown() -> Shown {
    fed().0
}

/// The frame's data, and a histogram of the successful commands' latencies kept beside the
/// live counters.
fn fed() -> (Shown, Histogram) {
    let live = Live::new(0, LEN, 512);
    let mut h = Histogram::new();
    let p = Progress::default();
    let (mut t, mut bytes) = (0u64, 0u64);
    for off in (0..REACHED).step_by(MIB as usize) {
        let lat = if off == SLOW_AT {
            80_000_000
        } else if off < LEN / 2 {
            MIB * 1000 / 400 // ns for 1 MiB at 400 MB/s
        } else {
            MIB * 1000 / 100
        };
        let ok = off != FAILED_AT;
        live.command(Done {
            offset: off,
            bytes: ok.then_some(MIB),
            issue_ns: t,
            done_ns: t + lat,
            latency_ns: lat,
            slow: off == SLOW_AT,
            paced: true,
        });
        t += lat;
        bytes += if ok { MIB } else { 0 };
        if ok {
            h.record(lat);
        }
    }
    p.position.store(REACHED, Ordering::Relaxed);
    p.bytes.store(bytes, Ordering::Relaxed);
    p.slow.store(1, Ordering::Relaxed);
    p.failed.store(1, Ordering::Relaxed);
    let elapsed = Duration::from_nanos(t);
    let s = Shown {
        title: "drivescope scan /dev/sdz — ACME Disk 1000, serial X1".into(),
        snap: live.snapshot(),
        status: Status::of(&p, Total::Bytes(LEN), elapsed),
        elapsed,
        current_mb_s: Some(104.9),
    };
    (s, h)
}

fn frame(w: u16, h: u16, v: &ViewState) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    let s = shown();
    t.draw(|f| render::draw(f, &s, v)).unwrap();
    t.backend().buffer().clone()
}

fn row(b: &Buffer, y: u16) -> String {
    (0..b.area.width).map(|x| b[(x, y)].symbol()).collect()
}

fn text(b: &Buffer) -> String {
    (0..b.area.height)
        .map(|y| row(b, y))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether any cell of column `x` in the plot holds part of the curve.
fn curve_in_column(b: &Buffer, plot: ratatui::layout::Rect, x: u16) -> bool {
    (plot.y..plot.y + plot.height).any(|y| {
        let s = b[(x, y)].symbol();
        s.chars().any(|c| ('\u{2801}'..='\u{28ff}').contains(&c))
    })
}

fn check(w: u16, h: u16) {
    let v = ViewState::default();
    let b = frame(w, h, &v);
    let all = text(&b);
    let a = areas(b.area);
    assert!(row(&b, 0).starts_with("drivescope scan /dev/sdz — ACME Disk 1000, serial X1"));
    assert!(all.contains("MB/s by position"), "{all}");
    assert!(row(&b, h - 1).starts_with(KEYS), "{all}");
    // Bands, each label with its exact count: the first half's 512 commands take 2.6 ms but
    // the slow and the failed one; the 102 after it 10.5 ms.
    let want = [
        ("<1ms", 0),
        ("<3ms", 510),
        ("<10ms", 0),
        ("<20ms", 102),
        ("<150ms", 1),
        ("failed", 1),
    ];
    for (label, n) in want {
        let line = format!("{label:>7} {n:>9}");
        assert!(all.contains(&line), "no `{line}` in\n{all}");
    }
    // Rates and position.
    assert!(all.contains("now 104.9 MB/s"), "{all}");
    // The slowest bin passed: the slow command's, 2 MiB in 82.6 ms.
    assert!(all.contains("min 25.4 MB/s"), "{all}");
    assert!(
        all.contains("60.0%  at 614.0 MiB (LBA 1257472) of 1.0 GiB"),
        "{all}"
    );
    // Percentiles as a histogram of the same latencies gives them (its bucket midpoints, as
    // the record has them); p99.9 where it fits.
    let h = fed().1;
    let q = |q| format_ns(h.quantile(q));
    let (p50, p99, p999) = (q(0.5), q(0.99), q(0.999));
    assert_eq!((p50.as_str(), p99.as_str()), ("2.64 ms", "10.55 ms"));
    let line = format!("p50 {p50}  p99 {p99}  p99.9 {p999}  slow 1  failed 1");
    assert!(all.contains(&line), "no `{line}` in\n{all}");
    assert!(all.contains("elapsed 0:00:02  ETA 0:00:01"), "{all}");
    // The marks sit in the columns of their offsets, nowhere else.
    let bin = |off: u64| (off * LIVE_BINS as u64 / LEN) as usize;
    let marks = row(&b, a.marks.y);
    let col = |off| (a.marks.x + column_of_bin(bin(off), LIVE_BINS, a.marks.width)) as usize;
    let chars: Vec<char> = marks.chars().collect();
    assert_eq!(chars[col(SLOW_AT)], SLOW_MARK, "{marks}");
    assert_eq!(chars[col(FAILED_AT)], FAILED_MARK, "{marks}");
    let in_plot = &chars[a.marks.x as usize..(a.marks.x + a.marks.width) as usize];
    assert_eq!(in_plot.iter().filter(|c| **c != ' ').count(), 2, "{marks}");
    // The offset's column is where a plain fraction of the plot puts it.
    let frac_col = |off: u64| a.marks.x as usize + (off * a.marks.width as u64 / LEN) as usize;
    assert!(col(SLOW_AT).abs_diff(frac_col(SLOW_AT)) <= 1);
    // The curve has filled in to the position reached and not past it.
    let reached = a.plot.x + (REACHED * a.plot.width as u64 / LEN) as u16;
    assert!(curve_in_column(&b, a.plot, a.plot.x + 1));
    assert!(curve_in_column(&b, a.plot, reached - 2));
    for x in reached + 2..a.plot.x + a.plot.width {
        assert!(
            !curve_in_column(&b, a.plot, x),
            "curve at column {x}\n{all}"
        );
    }
    // The first half sits higher than the second.
    let top_row = |x: u16| {
        (a.plot.y..a.plot.y + a.plot.height)
            .find(|&y| b[(x, y)].symbol() != " ")
            .unwrap()
    };
    assert!(top_row(a.plot.x + a.plot.width / 4) < top_row(reached - 3));
}

#[test]
fn draws_curve_marks_bands_and_keys_at_80_by_24() {
    check(80, 24);
}

#[test]
fn draws_curve_marks_bands_and_keys_at_200_by_60() {
    check(200, 60);
}

#[test]
fn p99_9_is_left_out_where_it_does_not_fit() {
    let all = text(&frame(52, 24, &ViewState::default()));
    assert!(
        all.contains("p50 2.64 ms  p99 10.55 ms  slow 1  failed 1"),
        "{all}"
    );
    assert!(!all.contains("p99.9"), "{all}");
}

#[test]
fn keys_change_the_frame() {
    let log = frame(
        80,
        24,
        &ViewState {
            log: true,
            help: false,
        },
    );
    assert!(text(&log).contains("response time (log)"));
    let lin = frame(80, 24, &ViewState::default());
    // A count well under the largest has a longer bar on the log scale.
    let bar = |b: &Buffer| {
        let t = text(b);
        let line = t
            .lines()
            .find(|l| l.contains(" <20ms "))
            .unwrap()
            .to_string();
        line.matches('█').count()
    };
    assert!(bar(&log) > bar(&lin), "{} vs {}", bar(&log), bar(&lin));
    let help = text(&frame(
        80,
        24,
        &ViewState {
            log: false,
            help: true,
        },
    ));
    assert!(help.contains("q, Ctrl-C  stop"), "{help}");
    assert!(!text(&lin).contains("q, Ctrl-C  stop"));
}

#[test]
fn a_quick_scan_shows_its_regions_joined_and_counts_by_region() {
    // 16 regions of 64 MiB, 4 MiB read at the head of each at 200 MB/s; region 9 is slow.
    let live = Live::new(0, LEN, 512);
    let p = Progress::default();
    let region = LEN / 16;
    let mut t = 0;
    for r in 0..16u64 {
        for k in 0..4 {
            let off = r * region + k * MIB;
            let lat = if r == 9 { 60_000_000 } else { MIB * 1000 / 200 };
            live.command(Done {
                offset: off,
                bytes: Some(MIB),
                issue_ns: t,
                done_ns: t + lat,
                latency_ns: lat,
                slow: r == 9,
                paced: true,
            });
            t += lat;
        }
    }
    p.position.store(16, Ordering::Relaxed);
    p.bytes.store(64 * MIB, Ordering::Relaxed);
    p.slow.store(4, Ordering::Relaxed);
    let elapsed = Duration::from_nanos(t);
    let s = Shown {
        title: "drivescope quick scan /dev/sdz".into(),
        snap: live.snapshot(),
        status: Status::of(&p, Total::Regions(16), elapsed),
        elapsed,
        current_mb_s: None,
    };
    let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
    term.draw(|f| render::draw(f, &s, &ViewState::default()))
        .unwrap();
    let b = term.backend().buffer().clone();
    let all = text(&b);
    assert!(all.contains("100.0%  region 16 of 16  elapsed"), "{all}");
    // The slowest region's rate: 4 MiB in 240 ms.
    assert!(all.contains("min 17.5 MB/s"), "{all}");
    // The curve runs from the first region to the last, between the regions too.
    let a = areas(b.area);
    let bin = |off: u64| (off * LIVE_BINS as u64 / LEN) as usize;
    let col = |off| a.plot.x + column_of_bin(bin(off), LIVE_BINS, a.plot.width);
    let gaps = (col(0) + 1..col(15 * region))
        .filter(|&x| !curve_in_column(&b, a.plot, x))
        .count();
    assert_eq!(gaps, 0, "{all}");
    let marks: Vec<char> = row(&b, a.marks.y).chars().collect();
    assert_eq!(marks[col(9 * region) as usize], SLOW_MARK, "{all}");
}
