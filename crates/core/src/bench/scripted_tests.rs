//! Bench runs on scripted devices (see [`crate::engine::scripted`]): with a known latency per
//! command and a virtual clock, IOPS and MB/s have exact expected values.

use super::run::run_once_on;
use super::{bench_on, Access, BenchOptions, Common, RunOptions, Rw, TestSpec};
use crate::engine::scripted::{Call, Reply, Scripted};
use crate::engine::{DataPattern, EngineError, EngineKind, Reap};
use crate::target::Target;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

const GIB: u64 = 1 << 30;
/// The scripted device's latency per command.
const LAT: u64 = 100_000;
/// The length of each run (virtual time).
const RUN_NS: u64 = 100_000_000;

/// Relative tolerance on rates: on virtual time they are exact but for floating-point rounding.
const TOL: f64 = 1e-12;

fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= want.abs() * TOL
}

fn common(size: u64) -> Common {
    Common {
        engine: EngineKind::Auto,
        reap: Reap::Auto,
        data: DataPattern::Zero,
        size,
        seed: 7,
        watch: None,
    }
}

fn spec(access: Access, qd: u32) -> TestSpec {
    TestSpec {
        access,
        block_size: 4096,
        queue_depth: qd,
        threads: 1,
    }
}

fn opts(size: u64) -> RunOptions {
    common(size).run_options(Duration::from_nanos(RUN_NS), None)
}

#[test]
fn a_fixed_latency_gives_exact_iops_and_mb_per_s_at_qd1_and_qd8() {
    let t = Target::open_read(&format!("null:{GIB}")).unwrap();
    for qd in [1u32, 8] {
        // The clock has run 3 µs when the first command goes, as it has on a real run.
        let dev = Scripted::new(|_: &Call| Reply::ok(LAT)).starting_at(3_000);
        let r = run_once_on(
            &dev,
            &t,
            &spec(Access::Rnd, qd),
            Rw::Read,
            &opts(GIB),
            &AtomicBool::new(false),
        )
        .unwrap();
        // The queue refills every 100 µs: 1000 rounds of `qd` commands in 100 ms.
        let n = 1000 * qd as u64;
        assert_eq!(r.commands, n, "QD{qd}");
        assert_eq!(r.errors, 0);
        assert_eq!(r.bytes, n * 4096);
        assert_eq!(r.read_bytes, r.bytes);
        assert_eq!(r.duration_ns, RUN_NS, "QD{qd}");
        let iops = qd as f64 * 1e9 / LAT as f64;
        assert!(close(r.iops(), iops), "QD{qd}: {} IOPS", r.iops());
        assert!(
            close(r.mb_per_s(), iops * 4096.0 / 1e6),
            "QD{qd}: {} MB/s",
            r.mb_per_s()
        );
        assert_eq!(r.hist.count(), n);
        assert_eq!((r.hist.min(), r.hist.max()), (Some(LAT), Some(LAT)));
        // Random offsets: 4 KiB aligned, inside the region.
        let calls = dev.calls();
        assert_eq!(calls.len() as u64, n);
        assert!(calls
            .iter()
            .all(|c| c.offset % 4096 == 0 && c.offset < GIB && !c.write));
    }
}

#[test]
fn a_sequential_job_streams_through_its_region_and_wraps() {
    // 1 MiB region: 256 blocks; 1000 commands at QD1 go round it almost four times.
    let t = Target::open_read(&format!("null:{GIB}")).unwrap();
    let dev = Scripted::new(|_: &Call| Reply::ok(LAT));
    let r = run_once_on(
        &dev,
        &t,
        &spec(Access::Seq, 1),
        Rw::Write,
        &opts(1 << 20),
        &AtomicBool::new(false),
    )
    .unwrap();
    let offsets: Vec<u64> = dev.calls().iter().map(|c| c.offset).collect();
    let want: Vec<u64> = (0..1000).map(|k| (k % 256) * 4096).collect();
    assert_eq!(offsets, want);
    assert!(dev.calls().iter().all(|c| c.write));
    assert_eq!((r.write_bytes, r.read_bytes), (1000 * 4096, 0));
}

#[test]
fn failed_commands_count_as_errors_not_as_iops_or_bytes() {
    // Blocks whose number ends in 3 fail.
    let t = Target::open_read(&format!("null:{GIB}")).unwrap();
    let fails = |off: u64| (off / 4096) % 10 == 3;
    let dev = Scripted::new(|c: &Call| {
        if fails(c.offset) {
            Reply::err(LAT, libc::EIO)
        } else {
            Reply::ok(LAT)
        }
    });
    let r = run_once_on(
        &dev,
        &t,
        &spec(Access::Rnd, 4),
        Rw::Read,
        &opts(GIB),
        &AtomicBool::new(false),
    )
    .unwrap();
    let bad = dev.calls().iter().filter(|c| fails(c.offset)).count() as u64;
    assert!(bad > 0);
    assert_eq!((r.commands, r.errors), (4000, bad));
    assert_eq!(r.first_errno, Some(libc::EIO));
    assert_eq!(r.bytes, (4000 - bad) * 4096);
    assert_eq!(r.hist.count(), 4000 - bad);
    assert!(close(r.iops(), (4000 - bad) as f64 * 1e9 / RUN_NS as f64));
    assert!(close(
        r.mb_per_s(),
        ((4000 - bad) * 4096) as f64 * 1e3 / RUN_NS as f64
    ));
}

#[test]
fn bench_summarizes_its_measured_runs_and_discards_the_preparing_one() {
    let t = Target::open_read(&format!("null:{GIB}")).unwrap();
    let dev = Scripted::new(|_: &Call| Reply::ok(LAT));
    let o = BenchOptions {
        common: common(GIB),
        profile: "scripted".into(),
        tests: vec![spec(Access::Rnd, 1), spec(Access::Rnd, 8)],
        rws: vec![Rw::Read],
        runs: 3,
        duration: Duration::from_nanos(RUN_NS),
        pause: Duration::ZERO,
    };
    let mut heard = Vec::new();
    let rec = bench_on(&dev, &t, &o, None, &AtomicBool::new(false), &mut |r| {
        heard.push(r.name.clone())
    })
    .unwrap();
    assert_eq!(heard, vec!["RND4K Q1T1", "RND4K Q8T1"]);
    assert_eq!(rec.tests.len(), 2);
    for (test, qd) in rec.tests.iter().zip([1u64, 8]) {
        let iops = qd as f64 * 1e9 / LAT as f64;
        assert!(close(test.iops, iops), "QD{qd}: {}", test.iops);
        assert!(close(test.mean_iops, iops), "QD{qd}: {}", test.mean_iops);
        assert!(close(test.mb_per_s, iops * 4096.0 / 1e6));
        assert!(close(test.mean_mb_per_s, iops * 4096.0 / 1e6));
        assert_eq!(test.stddev_mb_per_s, 0.0);
        assert_eq!(test.runs.len(), 3);
        assert!(test.runs.iter().all(|r| r.commands == 1000 * qd));
        // Three measured runs, not the preparing one.
        assert_eq!(test.latency.count, 3 * 1000 * qd);
        assert_eq!((test.latency.min_ns, test.latency.max_ns), (LAT, LAT));
        assert_eq!(test.errors, 0);
    }
    // Preparing run + 3 measured, for each test.
    assert_eq!(dev.calls().len() as u64, 4 * 1000 + 4 * 8000);
}

#[test]
fn bench_refuses_a_test_whose_every_command_failed() {
    let t = Target::open_read(&format!("null:{GIB}")).unwrap();
    let dev = Scripted::new(|_: &Call| Reply::err(LAT, libc::EIO));
    let o = BenchOptions {
        common: common(GIB),
        profile: "scripted".into(),
        tests: vec![spec(Access::Rnd, 1)],
        rws: vec![Rw::Read],
        runs: 1,
        duration: Duration::from_nanos(RUN_NS),
        pause: Duration::ZERO,
    };
    let err = bench_on(&dev, &t, &o, None, &AtomicBool::new(false), &mut |_| {}).unwrap_err();
    let EngineError::Io(e) = err else {
        panic!("expected an I/O error, got {err}")
    };
    assert!(e.to_string().contains("every command failed"), "{e}");
}

#[test]
fn a_gate_sets_each_measured_run_length_and_can_end_the_bench() {
    struct Halving {
        asked: Vec<u64>,
        finished: Vec<u64>,
        open_for: usize,
    }
    impl super::RunGate for Halving {
        fn before_run(&mut self, duration_ns: u64, _stop: &AtomicBool) -> Option<u64> {
            self.asked.push(duration_ns);
            (self.asked.len() <= self.open_for).then_some(duration_ns / 2)
        }
        fn after_run(&mut self, r: &super::RunResult) {
            self.finished.push(r.commands);
        }
    }
    let t = Target::open_read(&format!("null:{GIB}")).unwrap();
    let dev = Scripted::new(|_: &Call| Reply::ok(LAT));
    let o = BenchOptions {
        common: common(GIB),
        profile: "scripted".into(),
        tests: vec![spec(Access::Rnd, 1), spec(Access::Rnd, 8)],
        rws: vec![Rw::Read],
        runs: 2,
        duration: Duration::from_nanos(RUN_NS),
        pause: Duration::ZERO,
    };
    let mut gate = Halving {
        asked: Vec::new(),
        finished: Vec::new(),
        open_for: 3,
    };
    let rec = bench_on(
        &dev,
        &t,
        &o,
        Some(&mut gate),
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap();
    // Two runs of the first test, one of the second, then the gate closed: the bench ends
    // with what it measured.
    assert_eq!(gate.asked, vec![RUN_NS; 4]);
    assert_eq!(gate.finished, vec![500, 500, 4000]);
    assert_eq!(rec.tests.len(), 2);
    assert_eq!(rec.tests[1].runs.len(), 1);
    assert!(rec
        .tests
        .iter()
        .flat_map(|t| &t.runs)
        .all(|r| r.duration_ns == RUN_NS / 2));
}

#[test]
fn a_long_series_merges_intervals_and_still_covers_the_run() {
    // 2 s of virtual time at 100 µs intervals is 20000 intervals: past the cap, so the
    // series merges once, to 10000 points of 200 µs.
    const INTERVAL: u64 = 100_000;
    const LONG: u64 = 2_000_000_000;
    let t = Target::open_read(&format!("null:{GIB}")).unwrap();
    let dev = Scripted::new(|_: &Call| Reply::ok(LAT)).starting_at(3_000);
    let o = common(GIB).run_options(Duration::from_nanos(LONG), Some(INTERVAL));
    let stop = AtomicBool::new(false);
    let r = run_once_on(&dev, &t, &spec(Access::Rnd, 1), Rw::Read, &o, &stop).unwrap();
    let s = r.series.as_ref().expect("a series was asked for");
    assert!(
        s.len() <= super::soak::SERIES_MAX_POINTS,
        "{} points",
        s.len()
    );
    assert_eq!(r.series_interval_ns, 2 * INTERVAL);
    assert_eq!(s.len() as u64, LONG / (2 * INTERVAL));
    assert_eq!(s.iter().map(|p| p.commands).sum::<u64>(), r.commands);
    assert_eq!(s.iter().map(|p| p.bytes).sum::<u64>(), r.bytes);
    assert_eq!(
        s.last().unwrap().t_ns,
        LONG,
        "the points reach the run's end"
    );
    for (i, p) in s.iter().enumerate() {
        assert_eq!(p.t_ns, (i as u64 + 1) * 2 * INTERVAL);
        // One command per 100 µs: two in every merged interval of 200 µs, 10000 IOPS. The
        // first completion lands 100 µs in, and one on an interval's end counts in the
        // next: the first interval holds one, the last also the one at the deadline.
        let want = match i {
            0 => 1,
            _ if i == s.len() - 1 => 3,
            _ => 2,
        };
        assert_eq!(p.commands, want, "point {i}");
        let iops = want as f64 * 1e9 / (2 * INTERVAL) as f64;
        assert!((p.iops - iops).abs() < 1e-6, "point {i}: {} IOPS", p.iops);
    }
}

#[test]
fn threads_that_merged_a_different_number_of_times_join_at_the_longer_interval() {
    use drivescope_stats::SeriesPoint;
    const MS: u64 = 1_000_000;
    // a point of `commands` ending at `t_ms`, over `span_ms`
    let pt = |t_ms: u64, span_ms: u64, commands: u64| SeriesPoint {
        t_ns: t_ms * MS,
        bytes: commands * 4096,
        commands,
        mb_per_s: (commands * 4096) as f64 / 1e3 / span_ms as f64,
        iops: commands as f64 * 1e3 / span_ms as f64,
        p99_ns: t_ms * 1000,
    };
    // one thread at 1 ms (4 points), the other merged once already (2 points of 2 ms)
    let fine = (MS, vec![pt(1, 1, 1), pt(2, 1, 2), pt(3, 1, 3), pt(4, 1, 4)]);
    let coarse = (2 * MS, vec![pt(2, 2, 10), pt(4, 2, 20)]);
    let (interval, s) = super::run::merge_series(vec![fine, coarse]);
    assert_eq!(interval, 2 * MS);
    assert_eq!(s.len(), 2);
    assert_eq!((s[0].t_ns, s[0].commands), (2 * MS, 1 + 2 + 10));
    assert_eq!((s[1].t_ns, s[1].commands), (4 * MS, 3 + 4 + 20));
    // rates of the two threads summed, each over the 2 ms
    assert!((s[0].iops - 13.0 / 2e-3).abs() < 1e-6, "{}", s[0].iops);
    assert!((s[1].iops - 27.0 / 2e-3).abs() < 1e-6, "{}", s[1].iops);
    assert_eq!(s[1].p99_ns, 4000);
}
