//! The shared widgets on bins built from the scan's own snapshot type.

use super::bands::{self, BANDS_W};
use super::curve::{self, joins, Seg};
use super::gutter::{self, GUTTER};
use super::help::Help;
use super::marks::{self, column_of_bin, FAILED_MARK, SLOW_MARK};
use drivescope_core::scan::live::{BinSnap, BANDS};
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use ratatui::Terminal;

/// A bin read at `mb_s` (1 MB in its busy span).
fn read(mb_s: f64) -> BinSnap {
    BinSnap {
        bytes: 1_000_000,
        busy_ns: (1e9 / mb_s) as u64,
        ..BinSnap::default()
    }
}

/// A bin whose only command failed: read, but without a rate.
fn failed() -> BinSnap {
    BinSnap {
        failed: 1,
        ..BinSnap::default()
    }
}

fn rates(bins: &[BinSnap]) -> Vec<Option<f64>> {
    bins.iter().map(BinSnap::mb_s).collect()
}

#[test]
fn a_full_scan_joins_only_neighbours() {
    let bins = [read(100.0), read(200.0), BinSnap::default(), read(50.0)];
    let next = joins(&bins, &rates(&bins), false);
    assert_eq!(next, [Some(1), None, Some(3), None]);
}

#[test]
fn a_quick_scan_joins_its_regions_across_the_bins_not_read() {
    let bins = [
        read(100.0),
        BinSnap::default(),
        BinSnap::default(),
        read(200.0),
        BinSnap::default(),
        read(50.0),
    ];
    let next = joins(&bins, &rates(&bins), true);
    assert_eq!(next[0], Some(3));
    assert_eq!(next[3], Some(5));
    assert_eq!(next[5], None);
    // Each region's point is joined to the next: a line, not dots.
    let segs = curve::by_position(&bins, &rates(&bins), true);
    assert_eq!(segs.len(), 3);
    assert_eq!(
        segs[0],
        Seg {
            x1: 0.5 / 6.0,
            y1: 100.0,
            x2: 3.5 / 6.0,
            y2: 200.0
        }
    );
}

#[test]
fn a_failed_bin_breaks_the_line_in_a_quick_scan_too() {
    let bins = [read(100.0), failed(), read(200.0)];
    // The first bin's point joins nothing: the failed bin between was read.
    assert_eq!(joins(&bins, &rates(&bins), true)[0], None);
    let segs = curve::by_position(&bins, &rates(&bins), true);
    // Two points, each drawn on its own.
    assert_eq!(segs.len(), 2);
    assert!(segs.iter().all(|s| s.x1 == s.x2 && s.y1 == s.y2));
}

#[test]
fn a_polyline_joins_its_points_and_draws_a_single_one() {
    assert!(curve::polyline(&[]).is_empty());
    let one = curve::polyline(&[(1.0, 5.0)]);
    assert_eq!(
        one,
        [Seg {
            x1: 1.0,
            y1: 5.0,
            x2: 1.0,
            y2: 5.0
        }]
    );
    let three = curve::polyline(&[(0.0, 1.0), (1.0, 2.0), (2.0, 0.0)]);
    assert_eq!(three.len(), 2);
    assert_eq!((three[1].x1, three[1].y2), (1.0, 0.0));
}

#[test]
fn the_curve_is_drawn_in_braille_inside_its_plot_only() {
    let bins = [read(100.0), BinSnap::default(), read(100.0)];
    let mut t = Terminal::new(TestBackend::new(20, 6)).unwrap();
    let plot = Rect::new(5, 1, 10, 4);
    t.draw(|f| {
        curve::draw(
            f,
            plot,
            curve::by_position(&bins, &rates(&bins), true),
            1.0,
            200.0,
        )
    })
    .unwrap();
    let b = t.backend().buffer();
    let braille = |x: u16, y: u16| {
        b[(x, y)]
            .symbol()
            .chars()
            .any(|c| ('\u{2801}'..='\u{28ff}').contains(&c))
    };
    // Joined across the middle bin: every column between the two points (at 1/6 and 5/6 of
    // the width) holds part of the line.
    for x in plot.x + 2..plot.x + 8 {
        assert!(
            (plot.y..plot.y + plot.height).any(|y| braille(x, y)),
            "column {x}"
        );
    }
    for y in 0..6 {
        for x in (0..20).filter(|x| !(plot.x..plot.x + plot.width).contains(x)) {
            assert!(!braille(x, y), "outside the plot at ({x}, {y})");
        }
    }
}

#[test]
fn marks_put_failed_over_slow_in_the_bins_columns() {
    let mut bins = vec![BinSnap::default(); 8];
    bins[1].slow = 1;
    bins[4].slow = 2;
    bins[5].failed = 1;
    // 4 columns for 8 bins: bin 1 in column 0, bins 4 and 5 share column 2.
    assert_eq!(marks::row(&bins, 4), format!("{SLOW_MARK} {FAILED_MARK} "));
    assert_eq!(column_of_bin(7, 8, 4), 3);
    assert_eq!(column_of_bin(0, 0, 4), 0);
    // More columns than bins: each bin's mark in its first column.
    let row: Vec<char> = marks::row(&bins, 16).chars().collect();
    assert_eq!(
        (row[2], row[8], row[10]),
        (SLOW_MARK, SLOW_MARK, FAILED_MARK)
    );
    assert_eq!(row.iter().filter(|c| **c != ' ').count(), 3);
}

#[test]
fn gutter_labels_the_top_the_middle_and_zero() {
    let l: Vec<String> = gutter::value_labels(6, 440.0, 220.0)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(l, ["   440", "", "", "   220", "", "     0"]);
    // Too low for the middle.
    let l = gutter::value_labels(3, 440.0, 220.0);
    assert_eq!(l[1].to_string(), "");
    assert!(gutter::value_labels(0, 1.0, 0.5).is_empty());
    assert_eq!(gutter::axis_value(99_999.0), "99999");
    assert_eq!(gutter::axis_value(250_000.0), "250K");
    let plot = Rect::new(8, 2, 30, 5);
    assert_eq!(
        gutter::left_of(plot),
        Rect::new(8 - GUTTER, 2, GUTTER - 1, 5)
    );
    assert_eq!(gutter::ends("0 B", "1.0 GiB", 14), "0 B    1.0 GiB");
    // Too narrow: the ends touch, nothing is cut.
    assert_eq!(gutter::ends("0 B", "1.0 GiB", 4), "0 B1.0 GiB");
}

#[test]
fn bands_bars_scale_to_the_largest_count() {
    let mut counts = [0u64; BANDS];
    counts[0] = 1000;
    counts[1] = 10;
    counts[2] = 1;
    let w = BANDS_W - 2;
    let bar = |l: &String| l.chars().filter(|c| *c == '█').count();
    let lin = bands::lines(&counts, false, w);
    assert_eq!(lin.len(), BANDS);
    assert_eq!(bar(&lin[0]), (w - 18) as usize);
    // A count above zero always shows; zero shows none.
    assert_eq!((bar(&lin[1]), bar(&lin[2]), bar(&lin[3])), (1, 1, 0));
    assert!(lin[0].contains("1000"), "{}", lin[0]);
    // The log scale lifts the small counts.
    let log = bands::lines(&counts, true, w);
    assert!(bar(&log[1]) > bar(&lin[1]) && bar(&log[1]) < bar(&log[0]));
    assert!(bands::lines(&[0; BANDS], true, w)
        .iter()
        .all(|l| bar(l) == 0));
}

#[test]
fn help_puts_the_common_keys_first_and_aligns_the_text() {
    let h = Help {
        stop: ["stop now", "and resume later"],
        log: "log scale",
        about: vec![("curve", "what it shows".into()), ("", "more".into())],
    };
    let lines = h.lines();
    assert_eq!(
        lines,
        [
            "q, Ctrl-C  stop now",
            "           and resume later",
            "l          log scale",
            "?          this help (Esc closes it)",
            "curve      what it shows",
            "           more",
        ]
    );
    let mut t = Terminal::new(TestBackend::new(80, 12)).unwrap();
    t.draw(|f| h.draw(f)).unwrap();
    let b = t.backend().buffer();
    let text: String = (0..12)
        .map(|y| (0..80).map(|x| b[(x, y)].symbol()).collect::<String>() + "\n")
        .collect();
    assert!(text.contains("┌help"), "{text}");
    assert!(text.contains("│q, Ctrl-C  stop now"), "{text}");
}
