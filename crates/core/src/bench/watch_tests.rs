//! The live counters of a bench run against the run's own result: on a scripted device with
//! known latencies and failures (and on the null target over two worker threads), the watch's bytes, commands,
//! failures, bands and percentiles are those of the merged result.

use super::run::run_once_on;
use super::watch::Watch;
use super::{Access, Common, Rw, TestSpec};
use crate::engine::scripted::{Call, Reply, Scripted};
use crate::engine::{DataPattern, EngineKind, Reap};
use crate::scan::live::BANDS;
use crate::target::Target;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

const GIB: u64 = 1 << 30;

#[test]
fn a_watched_run_counts_what_its_result_counts() {
    let t = Target::open_read(&format!("null:{GIB}")).unwrap();
    // Latency by block: most 200 µs, every 50th 4 ms, every 997th 60 ms; every 101st fails.
    let dev = Scripted::new(|c: &Call| {
        let b = c.offset / 4096;
        if b % 101 == 7 {
            Reply::err(300_000, libc::EIO)
        } else if b % 997 == 3 {
            Reply::ok(60_000_000)
        } else if b % 50 == 1 {
            Reply::ok(4_000_000)
        } else {
            Reply::ok(200_000)
        }
    });
    let watch = Watch::leaked();
    let common = Common {
        engine: EngineKind::Auto,
        reap: Reap::Auto,
        data: DataPattern::Zero,
        size: GIB,
        seed: 11,
        watch: Some(watch),
    };
    let spec = TestSpec {
        access: Access::Rnd,
        block_size: 4096,
        queue_depth: 4,
        threads: 1,
    };
    let opts = common.run_options(Duration::from_millis(500), None);
    let r = run_once_on(&dev, &t, &spec, Rw::Read, &opts, &AtomicBool::new(false)).unwrap();
    let s = watch.snapshot();
    assert!(
        r.errors > 0 && r.commands > 5_000,
        "{} commands",
        r.commands
    );
    assert_eq!(
        (s.bytes, s.commands, s.failed),
        (r.bytes, r.commands, r.errors)
    );
    assert_eq!(s.hist.count(), r.hist.count());
    for q in [0.5, 0.9, 0.99, 0.999] {
        assert_eq!(s.hist.quantile(q), r.hist.quantile(q), "quantile {q}");
    }
    // Bands from the script: 200 µs is <1ms, 4 ms <10ms, 60 ms <150ms, then failed.
    let mut want = [0u64; BANDS];
    for c in dev.calls() {
        let b = c.offset / 4096;
        let band = if b % 101 == 7 {
            BANDS - 1
        } else if b % 997 == 3 {
            5
        } else if b % 50 == 1 {
            2
        } else {
            0
        };
        want[band] += 1;
    }
    assert!(want[2] > 0 && want[5] > 0);
    assert_eq!(s.bands, want);
    assert_eq!(s.bands.len(), BANDS);
    assert_eq!(s.phase.what, "RND4K Q4T1 read");

    // The next run begins from nothing for its bands and latencies, not for its bytes.
    let r2 = run_once_on(&dev, &t, &spec, Rw::Read, &opts, &AtomicBool::new(false)).unwrap();
    let s2 = watch.snapshot();
    assert_eq!(s2.bytes, r.bytes + r2.bytes);
    assert_eq!(s2.hist.count(), r2.hist.count());
    assert_eq!(s2.bands.iter().sum::<u64>(), r2.commands);
    assert_eq!(s2.phase.number, 2);
}

#[test]
fn two_workers_fill_two_lanes_that_add_up_to_the_merged_result() {
    let t = Target::open_read(&format!("null:{GIB}")).unwrap();
    let watch = Watch::leaked();
    let common = Common {
        engine: EngineKind::Auto,
        reap: Reap::Auto,
        data: DataPattern::Zero,
        size: GIB,
        seed: 5,
        watch: Some(watch),
    };
    let spec = TestSpec {
        access: Access::Rnd,
        block_size: 4096,
        queue_depth: 8,
        threads: 2,
    };
    let opts = common.run_options(Duration::from_millis(200), None);
    let r = super::run_once(&t, &spec, Rw::Write, &opts, &AtomicBool::new(false)).unwrap();
    let s = watch.snapshot();
    assert!(r.commands > 1000);
    assert_eq!((s.bytes, s.commands, s.failed), (r.bytes, r.commands, 0));
    assert_eq!(s.bands.iter().sum::<u64>(), r.commands);
    for q in [0.5, 0.99, 0.999] {
        assert_eq!(s.hist.quantile(q), r.hist.quantile(q), "quantile {q}");
    }
}
