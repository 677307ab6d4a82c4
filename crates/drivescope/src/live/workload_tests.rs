//! Frames of the bench and sweep live views drawn into ratatui's test backend while a real
//! run goes on: a sweep and a bench of the null target, their workers filling the watch, the
//! report callbacks filling the finished part, the source asked for a frame every 50 ms as the
//! terminal loop asks it.

use super::view::ViewState;
use super::workload::{Done, Finished, WorkShown, WorkloadSource};
use super::workload_render::{self, KEYS};
use drivescope_core::bench::watch::Watch;
use drivescope_core::bench::{self, Access, BenchOptions, Common, Rw, SweepOptions, TestSpec};
use drivescope_core::engine::{DataPattern, EngineKind, Reap};
use drivescope_core::target::Target;
use drivescope_report::text::bench_line;
use drivescope_units::format_ns;
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn common(watch: &'static Watch) -> Common {
    Common {
        engine: EngineKind::Auto,
        reap: Reap::Auto,
        data: DataPattern::Zero,
        size: 64 << 20,
        seed: 3,
        watch: Some(watch),
    }
}

/// Frames while `run` runs, then one after it: the last frame's data and every frame's text
/// at `w`×`h`.
fn watch_run(
    source: &mut WorkloadSource,
    w: u16,
    h: u16,
    run: impl FnOnce() + Send,
) -> (WorkShown, Vec<String>) {
    let t0 = Instant::now();
    let mut frames = Vec::new();
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    let mut draw = |source: &mut WorkloadSource| {
        let s = source.shown(Instant::now(), t0.elapsed());
        term.draw(|f| workload_render::draw(f, &s, &ViewState::default()))
            .unwrap();
        let b = term.backend().buffer().clone();
        frames.push(
            (0..b.area.height)
                .map(|y| {
                    (0..b.area.width)
                        .map(|x| b[(x, y)].symbol())
                        .collect::<String>()
                })
                .collect::<Vec<_>>()
                .join("\n"),
        );
        s
    };
    std::thread::scope(|sc| {
        let h = sc.spawn(run);
        while !h.is_finished() {
            draw(source);
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    let last = draw(source);
    (last, frames)
}

fn braille(s: &str) -> bool {
    s.chars().any(|c| ('\u{2801}'..='\u{28ff}').contains(&c))
}

fn sweep_at(w: u16, h: u16) {
    let watch = Watch::leaked();
    let (qds, threads) = (vec![1u32, 4, 16], vec![1u32, 2]);
    let finished: Finished = Arc::new(Mutex::new(Done::Grid {
        qds: qds.clone(),
        threads: threads.clone(),
        cells: Vec::new(),
    }));
    let mut source = WorkloadSource::new(
        "drivescope sweep null:64M".into(),
        watch,
        Some(Duration::from_millis(1500)),
        finished.clone(),
    );
    let target = Target::open_read("null:64M").unwrap();
    let o = SweepOptions {
        common: common(watch),
        access: Access::Rnd,
        block_size: 4096,
        rw: Rw::Read,
        qds,
        threads,
        duration: Duration::from_millis(200),
    };
    let rec = Mutex::new(None);
    let (last, frames) = watch_run(&mut source, w, h, || {
        let r = bench::sweep(&target, &o, &AtomicBool::new(false), &mut |c| {
            if let Done::Grid { cells, .. } = &mut *finished.lock().unwrap() {
                cells.push(c.clone());
            }
        });
        *rec.lock().unwrap() = Some(r.unwrap());
    });
    let rec = rec.into_inner().unwrap().unwrap();
    let all = frames.last().unwrap();
    assert!(all.starts_with("drivescope sweep null:64M"), "{all}");
    assert!(all.contains("MB/s over time") && braille(all), "{all}");
    assert!(all.lines().last().unwrap().starts_with(KEYS), "{all}");
    // The grid: every cell's IOPS in its row, in the record's order.
    for t in [1u32, 2] {
        let row = all
            .lines()
            .find(|l| l.contains(&format!("│T{t} ")))
            .unwrap_or_else(|| panic!("no T{t} row in\n{all}"));
        let mut at = 0;
        for c in rec.cells.iter().filter(|c| c.threads == t) {
            let v = super::workload_render::compact(c.iops);
            let i = row[at..]
                .find(&v)
                .unwrap_or_else(|| panic!("no {v} after column {at} in `{row}`"));
            at += i + v.len();
        }
    }
    // While it ran, a frame showed a cell running and others still to come.
    assert!(
        frames
            .iter()
            .any(|f| f.contains(" run ") && f.contains("·")),
        "no frame with a running cell"
    );
    // Percentiles of the last cell, as its own histogram gives them.
    let p99 = format_ns(last.snap.hist.quantile(0.99));
    assert!(all.contains(&format!("p99 {p99}")), "{all}");
    assert_eq!(last.snap.phase.what, "RND4K Q16T2 read");
    assert_eq!(last.snap.failed, 0);
}

#[test]
fn a_sweep_fills_its_grid_at_80x24() {
    sweep_at(80, 24);
}

#[test]
fn a_sweep_fills_its_grid_at_200x60() {
    sweep_at(200, 60);
}

#[test]
fn a_bench_lists_its_finished_tests_and_the_one_running() {
    let watch = Watch::leaked();
    let finished: Finished = Arc::new(Mutex::new(Done::Lines {
        title: "finished tests".into(),
        lines: Vec::new(),
    }));
    let mut source = WorkloadSource::new(
        "drivescope bench null:64M".into(),
        watch,
        Some(Duration::from_millis(3000)),
        finished.clone(),
    );
    let target = Target::open_read("null:64M").unwrap();
    let o = BenchOptions {
        common: common(watch),
        profile: "custom".into(),
        tests: vec![
            TestSpec {
                access: Access::Seq,
                block_size: 1 << 20,
                queue_depth: 1,
                threads: 1,
            },
            TestSpec {
                access: Access::Rnd,
                block_size: 4096,
                queue_depth: 4,
                threads: 2,
            },
        ],
        rws: vec![Rw::Read],
        runs: 2,
        // Each run (the preparing one too) outlasts many 50 ms frames, so a frame of each is
        // drawn even while a busy host holds the drawing thread back for a while.
        duration: Duration::from_millis(500),
        pause: Duration::ZERO,
    };
    let rec = Mutex::new(None);
    let (last, frames) = watch_run(&mut source, 200, 60, || {
        let r = bench::bench(&target, &o, &AtomicBool::new(false), &mut |t| {
            if let Done::Lines { lines, .. } = &mut *finished.lock().unwrap() {
                lines.push(bench_line(t, true));
            }
        });
        *rec.lock().unwrap() = Some(r.unwrap());
    });
    let rec = rec.into_inner().unwrap().unwrap();
    let all = frames.last().unwrap();
    for t in &rec.tests {
        let line = bench_line(t, true);
        assert!(all.contains(line.trim_end()), "no `{line}` in\n{all}");
    }
    assert!(
        frames
            .iter()
            .any(|f| f.contains("SEQ1M Q1T1 read · preparing run (not counted)")),
        "no frame with the preparing run"
    );
    assert!(
        frames
            .iter()
            .any(|f| f.contains("RND4K Q4T2 read · run 2 of 2")),
        "no frame with the last run"
    );
    assert!(all.contains("ETA"), "{all}");
    // The watch counted every command of the measured runs, and of the preparing ones.
    let measured: u64 = rec
        .tests
        .iter()
        .flat_map(|t| t.runs.iter().map(|r| r.commands))
        .sum();
    assert!(
        last.snap.commands > measured,
        "{} ≤ {measured}",
        last.snap.commands
    );
    assert!(last.history.len() >= 2, "{:?}", last.history);
}
