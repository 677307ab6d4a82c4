//! Frames of the screen view drawn into ratatui's test backend, each drive fed a known stream
//! of commands through a scan's own live counters and progress: A, 1 GiB in 1 MiB commands at
//! 400 MB/s with one slow command at 300 MiB, stopped at 60 % while it runs; B, 512 MiB at
//! 100 MB/s with one failed command at 100 MiB, done.

use super::screen::{DriveShown, End, GroupShown, State};
use super::screen_render::{self, areas, Areas, KEYS};
use super::view::ViewState;
use super::widgets::marks::{column_of_bin, FAILED_MARK, SLOW_MARK};
use crate::progress::{Status, Total};
use drivescope_core::scan::live::{Done, Live, LIVE_BINS};
use drivescope_core::scan::Progress;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::Terminal;
use std::sync::atomic::Ordering;
use std::time::Duration;

const MIB: u64 = 1 << 20;
const A_LEN: u64 = 1024 * MIB;
const A_SLOW: u64 = 300 * MIB;
const A_REACHED: u64 = 614 * MIB;
const B_LEN: u64 = 512 * MIB;
const B_FAILED: u64 = 100 * MIB;

/// A drive fed 1 MiB commands at `mb_s` up to `reached`, one slow and one failed where asked.
fn drive(
    device: &str,
    len: u64,
    reached: u64,
    mb_s: u64,
    slow: Option<u64>,
    failed: Option<u64>,
    state: State,
) -> DriveShown {
    let live = Live::new(0, len, 512);
    let p = Progress::default();
    let (mut t, mut bytes) = (0u64, 0u64);
    for off in (0..reached).step_by(MIB as usize) {
        let is_slow = Some(off) == slow;
        let lat = if is_slow {
            80_000_000
        } else {
            MIB * 1000 / mb_s
        };
        let ok = Some(off) != failed;
        live.command(Done {
            offset: off,
            bytes: ok.then_some(MIB),
            issue_ns: t,
            done_ns: t + lat,
            latency_ns: lat,
            slow: is_slow,
            paced: true,
        });
        t += lat;
        bytes += if ok { MIB } else { 0 };
        p.slow.fetch_add(u64::from(is_slow), Ordering::Relaxed);
        p.failed.fetch_add(u64::from(!ok), Ordering::Relaxed);
    }
    p.position.store(reached, Ordering::Relaxed);
    p.bytes.store(bytes, Ordering::Relaxed);
    DriveShown {
        device: device.into(),
        snap: live.snapshot(),
        status: Status::of(&p, Total::Bytes(len), Duration::from_nanos(t)),
        current_mb_s: (state == State::Running).then_some(399.0),
        state,
    }
}

fn a(name: &str) -> DriveShown {
    drive(
        name,
        A_LEN,
        A_REACHED,
        400,
        Some(A_SLOW),
        None,
        State::Running,
    )
}

fn b(name: &str) -> DriveShown {
    drive(
        name,
        B_LEN,
        B_LEN,
        100,
        None,
        Some(B_FAILED),
        State::Ended(End::Done),
    )
}

fn group(drives: Vec<DriveShown>, phase: Option<&str>) -> GroupShown {
    GroupShown {
        title: "drivescope screen".into(),
        phase: phase.map(str::to_string),
        elapsed: Duration::from_secs(75),
        drives,
    }
}

fn pair() -> GroupShown {
    group(
        vec![
            a("/dev/sdy — ACME Disk 1000, serial A1"),
            b("/dev/sdz — ACME Disk 500, serial B2"),
        ],
        None,
    )
}

fn frame(w: u16, h: u16, s: &GroupShown, v: &ViewState) -> (Buffer, Areas) {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| screen_render::draw(f, s, v)).unwrap();
    let b = t.backend().buffer().clone();
    let a = areas(b.area, s.drives.len(), s.phase.is_some());
    (b, a)
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

fn braille(s: &str) -> bool {
    s.chars().any(|c| ('\u{2801}'..='\u{28ff}').contains(&c))
}

/// Whether any cell of column `x` in the plot holds part of a curve.
fn curve_in_column(b: &Buffer, plot: Rect, x: u16) -> bool {
    (plot.y..plot.y + plot.height).any(|y| braille(b[(x, y)].symbol()))
}

/// The first row of the plot, counted from its top, with a curve in column `x`.
fn height_at(b: &Buffer, plot: Rect, x: u16) -> u16 {
    (plot.y..plot.y + plot.height)
        .find(|&y| braille(b[(x, y)].symbol()))
        .unwrap_or_else(|| panic!("no curve in column {x}\n{}", text(b)))
        - plot.y
}

/// The marks in a panel's row: (column from the plot's left, mark).
fn marks(b: &Buffer, r: Rect) -> Vec<(u16, char)> {
    (0..r.width)
        .filter_map(|i| {
            let c = b[(r.x + i, r.y)].symbol().chars().next().unwrap_or(' ');
            (c != ' ').then_some((i, c))
        })
        .collect()
}

fn check(w: u16, h: u16) {
    let s = pair();
    let (b, a) = frame(w, h, &s, &ViewState::default());
    let all = text(&b);
    assert!(
        row(&b, 0)
            .starts_with("drivescope screen  2 drives  now 399.0 MB/s together  elapsed 0:01:15"),
        "{all}"
    );
    assert!(row(&b, h - 1).starts_with(KEYS), "{all}");
    assert_eq!(a.panels.len(), 2);
    assert!(a.more.is_none() && !all.contains("more drive"), "{all}");
    let (pa, pb) = (a.panels[0], a.panels[1]);
    assert!(
        row(&b, pa.head.y).contains(" /dev/sdy — ACME Disk 1000, serial A1 (MB/s) "),
        "{all}"
    );
    assert!(
        row(&b, pb.head.y).contains(" /dev/sdz — ACME Disk 500, serial B2 (MB/s) "),
        "{all}"
    );
    // Status lines: A runs at 400 MB/s but for its one slow command (80 ms), p99 in the 2.64 ms
    // of the rest; B is done, its
    // failed command's time counted in its mean.
    assert!(
        row(&b, pa.status.y).starts_with(
            " 60.0%  ETA 0:00:01  now 399.0  mean 381.7 MB/s  p99 2.64 ms  slow 1  failed 0"
        ),
        "{all}"
    );
    assert!(
        row(&b, pb.status.y)
            .starts_with("100.0%  done  now -  mean 99.8 MB/s  p99 10.49 ms  slow 0  failed 1"),
        "{all}"
    );
    // Marks in the columns of their offsets within each drive's own range, nowhere else.
    let col = |off: u64, len: u64, r: Rect| {
        column_of_bin((off * LIVE_BINS as u64 / len) as usize, LIVE_BINS, r.width)
    };
    assert_eq!(
        marks(&b, pa.marks),
        [(col(A_SLOW, A_LEN, pa.marks), SLOW_MARK)],
        "{all}"
    );
    assert_eq!(
        marks(&b, pb.marks),
        [(col(B_FAILED, B_LEN, pb.marks), FAILED_MARK)],
        "{all}"
    );
    // A's curve stops where its scan is; B's reaches the end of its range.
    let reached = pa.plot.x + (A_REACHED * pa.plot.width as u64 / A_LEN) as u16;
    assert!(curve_in_column(&b, pa.plot, pa.plot.x + 1), "{all}");
    assert!(curve_in_column(&b, pa.plot, reached - 2), "{all}");
    for x in reached + 2..pa.plot.x + pa.plot.width {
        assert!(!curve_in_column(&b, pa.plot, x), "A's curve at {x}\n{all}");
    }
    let end = pb.plot.x + pb.plot.width - 2;
    assert!(curve_in_column(&b, pb.plot, end), "{all}");
    // One scale for both: A's 400 MB/s near the top of its plot, B's 100 a quarter as high.
    let x = pa.plot.x + pa.plot.width / 8;
    let (ha, hb) = (height_at(&b, pa.plot, x), height_at(&b, pb.plot, x));
    assert!(ha <= pa.plot.height / 5, "A at row {ha}\n{all}");
    assert!(hb >= pb.plot.height * 3 / 5, "B at row {hb}\n{all}");
    // The shared scale's top labels both curves: 440 MB/s.
    assert!(row(&b, pa.plot.y).starts_with("   440"), "{all}");
    assert!(row(&b, pb.plot.y).starts_with("   440"), "{all}");
}

#[test]
fn draws_each_drives_curve_marks_and_status_at_80_by_24() {
    check(80, 24);
}

#[test]
fn draws_each_drives_curve_marks_and_status_at_200_by_60() {
    check(200, 60);
}

#[test]
fn drives_that_do_not_fit_are_counted_on_a_line() {
    let six: Vec<DriveShown> = (0..6)
        .map(|i| {
            let name = format!("/dev/sd{i}");
            if i % 2 == 0 {
                a(&name)
            } else {
                b(&name)
            }
        })
        .collect();
    let s = group(six, None);
    let (buf, ar) = frame(80, 24, &s, &ViewState::default());
    let all = text(&buf);
    assert_eq!(ar.panels.len(), 4, "{all}");
    for (i, p) in ar.panels.iter().enumerate() {
        assert!(
            row(&buf, p.head.y).contains(&format!(" /dev/sd{i} ")),
            "{all}"
        );
        assert!(curve_in_column(&buf, p.plot, p.plot.x + 2), "{all}");
    }
    assert!(
        !all.contains("/dev/sd4") && !all.contains("/dev/sd5"),
        "{all}"
    );
    let more = ar.more.expect("a line for the rest");
    assert!(
        row(&buf, more.y).starts_with("+2 more drives below (a taller terminal shows them)"),
        "{all}"
    );
    assert!(row(&buf, 23).starts_with(KEYS), "{all}");
    // A taller terminal shows all six.
    let (buf, ar) = frame(200, 60, &s, &ViewState::default());
    assert_eq!(ar.panels.len(), 6);
    assert!(!text(&buf).contains("more drive"));
}

#[test]
fn the_shared_path_phase_shows_while_the_drives_wait() {
    let waiting = |name: &str| {
        let mut d = a(name);
        let p = Progress::default();
        d.snap = Live::new(0, A_LEN, 512).snapshot();
        d.status = Status::of(&p, Total::Bytes(A_LEN), Duration::ZERO);
        d.state = State::Waiting;
        d.current_mb_s = None;
        d
    };
    let what = "shared path: reading each drive alone for 3.00 s, then all 2 together";
    let s = group(vec![waiting("/dev/sdy"), waiting("/dev/sdz")], Some(what));
    let (b, a) = frame(80, 24, &s, &ViewState::default());
    let all = text(&b);
    assert!(row(&b, 1).starts_with(what), "{all}");
    for p in &a.panels {
        assert!(
            row(&b, p.status.y).starts_with("  0.0%  waiting  now -"),
            "{all}"
        );
        assert!(p.head.y > 1, "{all}");
    }
    assert!(row(&b, 23).starts_with(KEYS), "{all}");
}

#[test]
fn l_puts_the_shared_scale_on_a_log_axis_and_help_opens() {
    let s = pair();
    let (lin, a) = frame(80, 24, &s, &ViewState::default());
    let v = ViewState {
        log: true,
        help: false,
    };
    let (log, _) = frame(80, 24, &s, &v);
    let pb = a.panels[1];
    assert!(
        row(&log, pb.head.y).contains("(MB/s, log)"),
        "{}",
        text(&log)
    );
    // B's 100 MB/s beside A's 400 sits much higher on the log axis.
    let x = pb.plot.x + 3;
    assert!(height_at(&log, pb.plot, x) + 3 <= height_at(&lin, pb.plot, x));
    let v = ViewState {
        log: false,
        help: true,
    };
    let help = text(&frame(80, 24, &s, &v).0);
    assert!(help.contains("q, Ctrl-C  stop every drive"), "{help}");
    assert!(help.contains("a taller terminal shows them"), "{help}");
    assert!(!text(&lin).contains("q, Ctrl-C"));
}

#[test]
fn small_terminals_get_what_fits() {
    let s = pair();
    for (w, h) in [(1, 1), (12, 2), (40, 4), (80, 8), (80, 12)] {
        let (b, a) = frame(w, h, &s, &ViewState::default());
        let want = if h >= 12 {
            2
        } else if h >= 8 {
            1
        } else {
            0
        };
        assert_eq!(a.panels.len(), want, "{w}×{h}\n{}", text(&b));
    }
}

#[test]
fn a_quick_scan_drive_shows_its_regions_joined() {
    // 16 regions of 64 MiB, 4 MiB read at the head of each at 200 MB/s, counted by region.
    let live = Live::new(0, A_LEN, 512);
    let p = Progress::default();
    let region = A_LEN / 16;
    let mut t = 0;
    for r in 0..16u64 {
        for k in 0..4 {
            let lat = MIB * 1000 / 200;
            live.command(Done {
                offset: r * region + k * MIB,
                bytes: Some(MIB),
                issue_ns: t,
                done_ns: t + lat,
                latency_ns: lat,
                slow: false,
                paced: true,
            });
            t += lat;
        }
    }
    p.position.store(16, Ordering::Relaxed);
    p.bytes.store(64 * MIB, Ordering::Relaxed);
    let quick = DriveShown {
        device: "/dev/sdy".into(),
        snap: live.snapshot(),
        status: Status::of(&p, Total::Regions(16), Duration::from_nanos(t)),
        current_mb_s: None,
        state: State::Ended(End::Done),
    };
    let (b, a) = frame(80, 24, &group(vec![quick], None), &ViewState::default());
    let all = text(&b);
    let plot = a.panels[0].plot;
    // The curve runs from the first region to the last, between the regions too.
    let col = |off: u64| {
        plot.x
            + column_of_bin(
                (off * LIVE_BINS as u64 / A_LEN) as usize,
                LIVE_BINS,
                plot.width,
            )
    };
    let gaps = (col(0) + 1..col(15 * region))
        .filter(|&x| !curve_in_column(&b, plot, x))
        .count();
    assert_eq!(gaps, 0, "{all}");
}
