//! The latency test on the scripted engine: six cells at QD1 × 1 thread, the 4 KiB write mean
//! latency tracked, and each cell's mean, percentiles and maximum as the device gave them.

use super::*;
use crate::engine::scripted::{Call, Reply, Scripted};
use crate::engine::{DataPattern, EngineKind, Reap};
use drivescope_analysis::steady_state::verdict;

const SIZE: u64 = 8 << 20;
const READ_NS: u64 = 100_000;
const WRITE_NS: u64 = 300_000;
const OUTLIER_NS: u64 = 5_000_000;

fn options(cell_ms: u64) -> SteadyOptions {
    let (queue_depth, threads) = queue_of(SteadyTest::Latency, 32, 4);
    SteadyOptions {
        common: Common {
            engine: EngineKind::Auto,
            reap: Reap::Auto,
            data: DataPattern::Random,
            size: SIZE,
            seed: 7,
            watch: None,
        },
        test: SteadyTest::Latency,
        matrix: Matrix::Full.cells(SteadyTest::Latency),
        queue_depth,
        threads,
        cell_time: Duration::from_millis(cell_ms),
        precondition_passes: 2,
        max_rounds: 25,
        not_conformant: vec!["a test".into()],
        idle: None,
    }
}

/// Reads take 100 µs; 4 KiB writes 300 µs, every 100th of them 5 ms; 8 KiB ones 500 µs; the
/// preconditioning's 128 KiB writes 50 µs.
fn device() -> Scripted<impl FnMut(&Call) -> Reply + Send> {
    let mut small_writes = 0u64;
    Scripted::new(move |c: &Call| match (c.write, c.len) {
        (false, _) => Reply::ok(READ_NS),
        (true, 4096) => {
            small_writes += 1;
            Reply::ok(if small_writes.is_multiple_of(100) {
                OUTLIER_NS
            } else {
                WRITE_NS
            })
        }
        (true, 8192) => Reply::ok(500_000),
        (true, _) => Reply::ok(50_000),
    })
    .unlogged()
}

fn near(got: f64, want: f64, tol: f64) -> bool {
    (got / want - 1.0).abs() <= tol
}

#[test]
fn the_latency_test_runs_six_cells_at_qd1_and_tracks_the_4k_write_mean() {
    assert_eq!(queue_of(SteadyTest::Latency, 32, 4), (1, 1));
    assert_eq!(queue_of(SteadyTest::Iops, 32, 4), (32, 4));
    let cells = Matrix::Full.cells(SteadyTest::Latency);
    let shape: Vec<(u8, u64)> = cells.iter().map(|c| (c.read_pct, c.block_size)).collect();
    assert_eq!(
        shape,
        [
            (100, 8192),
            (100, 4096),
            (65, 8192),
            (65, 4096),
            (0, 8192),
            (0, 4096)
        ]
    );
    assert_eq!(Matrix::Reduced.cells(SteadyTest::Latency), cells);
    assert_eq!(Matrix::Tracked.cells(SteadyTest::Latency), vec![TRACKED]);

    let o = options(400);
    let dev = device();
    let target = Target::open_read(&format!("null:{SIZE}")).unwrap();
    let mut purge = purge::skipped;
    let judge = |v: &[f64], max: u32| verdict(v, max);
    let mut snapshot = |_: &SteadyRecord| {};
    let run = SteadyRun {
        prior: None,
        purge: &mut purge,
        judge: &judge,
        snapshot: &mut snapshot,
        smart: &mut drivescope_probe::smart_writes::SmartWrites::default,
    };
    let rec = steady_on(&dev, &target, &o, run, &AtomicBool::new(false)).unwrap();
    assert_eq!((rec.queue_depth, rec.threads), (1, 1));
    assert_eq!(rec.tracked, "RND4K write mean latency");
    // A device whose latencies never change is steady at the first window.
    assert_eq!(rec.verdict.state, SteadyState::Reached, "{:?}", rec.verdict);
    assert_eq!(rec.verdict.round, Some(5));
    let write_mean = WRITE_NS as f64 + (OUTLIER_NS - WRITE_NS) as f64 / 100.0;
    let steady = rec.steady_value.unwrap();
    assert!(near(steady, write_mean, 0.02), "{steady} vs {write_mean}");
    for r in &rec.rounds {
        assert_eq!(r.cells.len(), 6);
        let at = |read: u8, bs: u64| {
            r.cells
                .iter()
                .find(|c| c.read_pct == read && c.block_size == bs)
                .unwrap()
        };
        let w = at(0, 4096);
        assert_eq!(r.tracked, w.mean_ns);
        // QD1: one command at a time, so IOPS is one over the mean latency.
        assert!(near(w.iops, 1e9 / w.mean_ns, 0.01), "{w:?}");
        // The percentiles as the histogram keeps them (within its 0.8 %).
        assert!(near(w.max_ns as f64, OUTLIER_NS as f64, 0.01), "{w:?}");
        assert!(near(w.p999_ns as f64, OUTLIER_NS as f64, 0.01), "{w:?}");
        assert!(near(w.p9999_ns as f64, OUTLIER_NS as f64, 0.01), "{w:?}");
        assert!(w.p99_ns <= w.p999_ns && w.p999_ns <= w.p9999_ns && w.p9999_ns <= w.max_ns);
        let rd = at(100, 4096);
        assert!(near(rd.mean_ns, READ_NS as f64, 0.01), "{rd:?}");
        assert!(near(rd.max_ns as f64, READ_NS as f64, 0.01), "{rd:?}");
        assert_eq!(rd.bytes_written, 0);
        // The mix: 65 % reads at 100 µs, 35 % writes at the write mean.
        let mix = at(65, 4096);
        let want = 0.65 * READ_NS as f64 + 0.35 * write_mean;
        assert!(near(mix.mean_ns, want, 0.05), "{} vs {want}", mix.mean_ns);
        assert!(near(at(0, 8192).mean_ns, 500_000.0, 0.01));
    }
}
