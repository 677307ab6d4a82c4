//! Frames of the steady-state live view drawn into ratatui's test backend: the convergence panel
//! of constructed series (one that settles, one that drifts and is never steady, windows at the
//! rule's limits), the phase line and the chart of the test that runs now, and a real run on the
//! null target whose snapshots fill the panel as the command's do.

use super::view::ViewState;
use super::workload::{Done, Finished, Span, WorkShown, WorkloadSource};
use super::workload_render;
use drivescope_analysis::steady_state::{verdict, MAX_ROUNDS, WINDOW_ROUNDS};
use drivescope_core::bench::watch::Watch;
use drivescope_core::bench::Common;
use drivescope_core::engine::{DataPattern, EngineKind, Reap};
use drivescope_core::steady::{self, purge, SteadyOptions, SteadyRun, TRACKED};
use drivescope_core::target::Target;
use drivescope_record::{SteadyRecord, SteadyTest};
use drivescope_report::text::{convergence, Convergence};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A record of rounds that measured `values`, judged as the run judges them.
fn judged(test: SteadyTest, values: &[f64]) -> SteadyRecord {
    let mut r = drivescope_report::sample::steady(1, values);
    r.test = test;
    r.tracked = steady::tracked_name(test);
    r.verdict = verdict(values, MAX_ROUNDS as u32);
    r
}

fn panel(r: &SteadyRecord) -> Convergence {
    convergence(r, MAX_ROUNDS as u32, WINDOW_ROUNDS as u32)
}

/// A frame's data with `done`, the watch's phase as it is.
fn shown(watch: &'static Watch, done: Done) -> WorkShown {
    WorkShown {
        title: "drivescope steady /dev/sdx".into(),
        snap: watch.snapshot(),
        elapsed: Duration::from_secs(600),
        planned: None,
        now_mb_s: Some(120.0),
        now_iops: Some(30_000.0),
        history: vec![(0.0, 110.0), (1.0, 120.0), (2.0, 118.0)],
        span: Span::Phase {
            planned: Some(Duration::from_secs(60)),
        },
        phase_elapsed: Duration::from_secs(2),
        done,
    }
}

/// The frame's text at `w`×`h`, one string a row.
fn frame(s: &WorkShown, w: u16, h: u16) -> Vec<String> {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| workload_render::draw(f, s, &ViewState::default()))
        .unwrap();
    let b = term.backend().buffer().clone();
    (0..b.area.height)
        .map(|y| {
            (0..b.area.width)
                .map(|x| b[(x, y)].symbol())
                .collect::<String>()
        })
        .collect()
}

fn rounds_frame(values: &[f64], w: u16, h: u16) -> (Convergence, Vec<String>) {
    let c = panel(&judged(SteadyTest::Iops, values));
    let rows = frame(&shown(Watch::leaked(), Done::Rounds(c.clone())), w, h);
    (c, rows)
}

/// The column (in characters) where `needle` starts in `row`.
fn column(row: &str, needle: &str) -> Option<usize> {
    row.find(needle).map(|i| row[..i].chars().count())
}

/// The row of round numbers and the rounds it shows.
fn numbers(rows: &[String]) -> (usize, Vec<u32>) {
    let i = rows
        .iter()
        .position(|r| r.contains("    round"))
        .unwrap_or_else(|| panic!("no round numbers in\n{}", rows.join("\n")));
    let after = &rows[i][rows[i].find("round").unwrap() + 5..];
    let shown = after
        .split_whitespace()
        .map_while(|t| t.parse().ok())
        .collect();
    (i, shown)
}

/// The characters of row `i` at `col` and the next column (a round's bar).
fn bar(rows: &[String], i: usize, col: usize) -> String {
    rows[i].chars().skip(col).take(2).collect()
}

/// A fresh drive's IOPS falling to its steady rate, then noise of ±1 %: steady at round 9.
const CONVERGING: [f64; 10] = [
    98_000.0, 71_000.0, 52_000.0, 41_000.0, 36_500.0, 35_200.0, 34_800.0, 35_300.0, 34_900.0,
    35_100.0,
];

#[test]
fn a_converging_series_marks_its_window_under_its_rounds_and_says_steady_from_round_9() {
    // The run stops at steady state: rounds 1–9.
    let (c, rows) = rounds_frame(&CONVERGING[..9], 80, 30);
    let all = rows.join("\n");
    assert!(all.contains("convergence of RND4K write IOPS"), "{all}");
    assert!(all.contains("steady from round 9"), "{all}");
    assert!(
        all.contains("window rounds 5–9: average 35 340 IOPS"),
        "{all}"
    );
    assert!(
        all.contains("range 4.8 % of 20 % allowed, excursion 3.5 % of 10 % allowed"),
        "{all}"
    );
    assert!(!all.contains("(over)"), "{all}");
    // The window under rounds 5–9.
    let (i, shown) = numbers(&rows);
    assert_eq!(shown, (1..=9).collect::<Vec<_>>());
    assert_eq!(c.rounds.len(), 9);
    let mark = &rows[i + 1];
    let five = column(&rows[i], " 5 ").unwrap();
    let nine = column(&rows[i], " 9 ").unwrap();
    assert_eq!(column(mark, "└── window ──┘"), Some(five), "{all}");
    assert_eq!(column(mark, "┘").unwrap(), nine + 1, "{all}");
    // The bars, on one scale: round 1 the tallest to the top row, the window's a third as tall.
    let top = i - 4;
    assert_eq!(bar(&rows, top, column(&rows[i], " 1 ").unwrap()), "██");
    for r in [5, 9] {
        let col = column(&rows[i], &format!(" {r} ")).unwrap();
        assert_eq!(bar(&rows, top, col), "  ", "round {r}\n{all}");
        assert_eq!(bar(&rows, i - 1, col), "██", "round {r}\n{all}");
    }
    assert!(rows[top].contains("98.0 K │"), "{all}");
    assert!(rows[i - 1].contains("       0 │"), "{all}");
}

#[test]
fn a_drifting_series_is_never_marked_steady_and_ends_not_reached_at_25() {
    // 3 % less each round: the line moves some 12 % across every window.
    let values: Vec<f64> = (0..25).map(|i| 50_000.0 * 0.97f64.powi(i)).collect();
    for n in [4, 5, 12, 25] {
        let (_, rows) = rounds_frame(&values[..n], 100, 30);
        let all = rows.join("\n");
        assert!(!all.contains("steady from"), "{all}");
        let (i, shown) = numbers(&rows);
        assert_eq!(shown, (1..=n as u32).collect::<Vec<_>>(), "{all}");
        if n < 5 {
            assert!(
                all.contains(&format!("the first window after 5 rounds ({n} finished")),
                "{all}"
            );
            assert!(!all.contains("window ─"), "{all}");
            continue;
        }
        assert!(all.contains("of 10 % allowed (over)"), "{all}");
        let first = column(&rows[i], &format!("{:>2} ", n - 4)).unwrap();
        assert_eq!(column(&rows[i + 1], "└──"), Some(first), "{all}");
        match n {
            25 => assert!(
                all.contains("steady state not reached in 25 rounds"),
                "{all}"
            ),
            _ => assert!(
                all.contains(&format!(
                    "not steady yet: {n} of at most 25 rounds finished"
                )),
                "{all}"
            ),
        }
    }
    // On 60 columns, the latest rounds that fit: 16 of them, the window still marked.
    let (_, rows) = rounds_frame(&values, 60, 30);
    let (i, shown) = numbers(&rows);
    assert_eq!(shown, (10..=25).collect::<Vec<_>>());
    assert_eq!(
        column(&rows[i + 1], "└── window ──┘"),
        column(&rows[i], "21 ")
    );
}

#[test]
fn windows_at_the_limits_are_steady_and_one_past_is_not() {
    let (_, rows) = rounds_frame(&[150.0, 90.0, 110.0, 100.0, 110.0, 90.0], 100, 30);
    let all = rows.join("\n");
    assert!(
        all.contains("range 20.0 % of 20 % allowed, excursion 0.0 % of 10 % allowed"),
        "{all}"
    );
    assert!(all.contains("steady from round 6"), "{all}");
    let (_, rows) = rounds_frame(&[95.0, 97.5, 100.0, 102.5, 105.0], 100, 30);
    let all = rows.join("\n");
    assert!(
        all.contains("range 10.0 % of 20 % allowed, excursion 10.0 % of 10 % allowed"),
        "{all}"
    );
    assert!(all.contains("steady from round 5"), "{all}");
    let (_, rows) = rounds_frame(&[90.0, 110.1, 100.0, 110.0, 90.0], 100, 30);
    let all = rows.join("\n");
    assert!(all.contains("range 20.1 % of 20 % allowed (over)"), "{all}");
    assert!(
        all.contains("not steady yet: 5 of at most 25 rounds"),
        "{all}"
    );
}

#[test]
fn the_latency_test_scales_its_bars_in_latency() {
    let ns = [900e3, 620e3, 505e3, 500e3, 505e3, 498e3, 502e3];
    let c = panel(&judged(SteadyTest::Latency, &ns));
    let rows = frame(&shown(Watch::leaked(), Done::Rounds(c)), 100, 30);
    let all = rows.join("\n");
    assert!(
        all.contains("convergence of RND4K write mean latency"),
        "{all}"
    );
    assert!(all.contains("900.0 µs │"), "{all}");
    assert!(all.contains("average 502.0 µs"), "{all}");
}

#[test]
fn the_phase_line_and_the_chart_follow_the_test_that_runs_now() {
    let watch = Watch::leaked();
    let finished: Finished = Arc::new(Mutex::new(Done::Rounds(Convergence::none(
        "RND4K write IOPS".into(),
        false,
        25,
        5,
    ))));
    let mut source =
        WorkloadSource::new("drivescope steady /dev/sdx".into(), watch, None, finished);
    source.span = Span::Phase {
        planned: Some(Duration::from_secs(60)),
    };
    watch.begin("precondition SEQ128K Q8 write".into());
    watch.step(steady::precondition::step(3 << 30, 128 << 30));
    let t0 = Instant::now();
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    // The run's elapsed time is long past: the chart's times are the phase's.
    let long = Duration::from_secs(100);
    source.shown(at(0), long);
    let s = source.shown(at(500), long);
    assert_eq!(s.history.len(), 1);
    let rows = frame(&s, 100, 30).join("\n");
    assert!(
        rows.contains("precondition SEQ128K Q8 write · 3.0 GiB of 128.0 GiB written"),
        "{rows}"
    );
    assert!(rows.contains("the first window after 5 rounds"), "{rows}");
    // A cell begins: its own chart from nothing, its place among the rounds.
    watch.step(steady::cell_step(3, 25, 1, 6));
    watch.begin("RND4K Q32T1 write".into());
    let s = source.shown(at(1000), long);
    assert_eq!(s.history.len(), 1, "{:?}", s.history);
    // It began after t0: less than a second before this frame.
    assert!(s.history[0].0 <= 1.0, "{:?}", s.history);
    let rows = frame(&s, 100, 30).join("\n");
    assert!(
        rows.contains("RND4K Q32T1 write · round 3 of at most 25, cell 2 of 6"),
        "{rows}"
    );
    assert!(rows.contains("MB/s of the test that runs now"), "{rows}");
    // Its axis to the cell time.
    assert!(rows.contains("0:01:00"), "{rows}");
}

#[test]
fn a_steady_run_on_the_null_target_fills_the_panel_from_its_snapshots() {
    let watch = Watch::leaked();
    let size = 8u64 << 20;
    let target = Target::open_read(&format!("null:{size}")).unwrap();
    let o = SteadyOptions {
        common: Common {
            engine: EngineKind::Auto,
            reap: Reap::Auto,
            data: DataPattern::Zero,
            size,
            seed: 5,
            watch: Some(watch),
        },
        test: SteadyTest::Iops,
        matrix: vec![TRACKED],
        queue_depth: 4,
        threads: 1,
        cell_time: Duration::from_millis(20),
        precondition_passes: 2,
        max_rounds: 8,
        not_conformant: Vec::new(),
        idle: None,
    };
    let none = Convergence::none("RND4K write IOPS".into(), false, 8, 5);
    let finished: Finished = Arc::new(Mutex::new(Done::Rounds(none)));
    let mut source = WorkloadSource::new(
        "drivescope steady null".into(),
        watch,
        None,
        finished.clone(),
    );
    source.span = Span::Phase {
        planned: Some(o.cell_time),
    };
    let mut purge = purge::skipped;
    let judge = |v: &[f64], max: u32| verdict(v, max);
    let snapshots = Mutex::new(Vec::new());
    let mut snapshot = |r: &SteadyRecord| {
        *finished.lock().unwrap() = Done::Rounds(convergence(r, 8, 5));
        snapshots.lock().unwrap().push(r.clone());
    };
    let run = SteadyRun {
        prior: None,
        purge: &mut purge,
        judge: &judge,
        snapshot: &mut snapshot,
        smart: &mut drivescope_probe::smart_writes::SmartWrites::default,
    };
    let rec = steady::steady(&target, &o, run, &AtomicBool::new(false)).unwrap();
    let snapshots = snapshots.into_inner().unwrap();
    // The last snapshot is of the last undecided round; the frame then shows its rounds.
    let last = snapshots.last().unwrap();
    let t0 = Instant::now();
    let s = source.shown(t0, Duration::from_secs(1));
    let rows = frame(&s, 100, 30);
    let all = rows.join("\n");
    let (_, shown) = numbers(&rows);
    assert_eq!(
        shown,
        last.rounds.iter().map(|r| r.round).collect::<Vec<_>>(),
        "{all}"
    );
    for line in convergence(last, 8, 5).lines() {
        assert!(all.contains(&line), "no `{line}` in\n{all}");
    }
    // The verdict's record, as the command shows it at the end.
    *finished.lock().unwrap() = Done::Rounds(convergence(&rec, 8, 5));
    let all = frame(&source.shown(t0, Duration::from_secs(1)), 100, 30).join("\n");
    let end = convergence(&rec, 8, 5).standing_line();
    assert!(all.contains(&end), "no `{end}` in\n{all}");
    assert_eq!(
        s.snap.phase.step,
        steady::cell_step(rec.rounds.len() as u32, 8, 0, 1)
    );
    assert_eq!(s.snap.bytes, rec.rounds.last().unwrap().total_bytes_written);
}
