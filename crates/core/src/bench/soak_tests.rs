//! Soak checkpoints on the null target over two worker threads: every checkpoint is a whole
//! number of intervals whose series adds up to its totals and is, point for point, the start
//! of the finished soak's series; a soak resumed from one keeps it and marks the gap.

use super::{soak_run, Access, Common, Rw, SoakOptions, SoakRun, TestSpec};
use crate::checkpoint::Checkpoints;
use crate::engine::{DataPattern, EngineKind, Reap};
use crate::target::Target;
use drivescope_record::SoakRecord;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const INTERVAL_NS: u64 = 50_000_000;

fn options(duration: Duration) -> SoakOptions {
    SoakOptions {
        common: Common {
            engine: EngineKind::Auto,
            reap: Reap::Auto,
            data: DataPattern::Zero,
            size: 1 << 30,
            seed: 5,
            watch: None,
        },
        test: TestSpec {
            access: Access::Seq,
            block_size: 4096,
            queue_depth: 4,
            threads: 2,
        },
        rw: Rw::Read,
        duration,
        interval: Duration::from_nanos(INTERVAL_NS),
        step_threshold: 0.2,
    }
}

/// Soak with a checkpoint every 150 ms; the result and the checkpoints taken.
fn soak_saving(o: &SoakOptions, prior: Option<SoakRecord>) -> (SoakRecord, Vec<SoakRecord>) {
    let t = Target::open_read("null:1G").unwrap();
    let saved = Arc::new(Mutex::new(Vec::new()));
    let into = saved.clone();
    let run = SoakRun {
        prior,
        checkpoints: Some(Checkpoints {
            every_ns: 150_000_000,
            save: Box::new(move |r| into.lock().unwrap().push(r)),
        }),
    };
    let rec = soak_run(&t, o, run, &AtomicBool::new(false)).unwrap();
    let saved = std::mem::take(&mut *saved.lock().unwrap());
    (rec, saved)
}

fn sums(r: &SoakRecord) -> (u64, u64) {
    (
        r.series.iter().map(|p| p.bytes).sum(),
        r.series.iter().map(|p| p.commands).sum(),
    )
}

#[test]
fn checkpoints_are_whole_intervals_that_the_result_keeps_and_a_resume_goes_on_from() {
    let o = options(Duration::from_secs(1));
    let (whole, saved) = soak_saving(&o, None);
    assert!(saved.len() >= 3, "{} checkpoints", saved.len());
    assert!(whole.resume.is_none() && !whole.workload.interrupted);
    assert_eq!(sums(&whole), (whole.bytes, whole.commands));
    for c in &saved {
        assert!(c.workload.interrupted && c.resume.is_some());
        assert_eq!(c.duration_ns % INTERVAL_NS, 0);
        assert_eq!(c.series.len() as u64, c.duration_ns / INTERVAL_NS);
        assert_eq!(sums(c), (c.bytes, c.commands));
        assert_eq!(whole.series[..c.series.len()], c.series[..]);
        let hist = &c.resume.as_ref().unwrap().histogram;
        assert_eq!(
            drivescope_stats::Histogram::from_out(hist).count(),
            c.commands - c.errors
        );
        assert_eq!(c.resume.as_ref().unwrap().next_blocks.len(), 2);
    }
    // Resumed from the second checkpoint: its intervals kept, the rest run, the gap marked.
    let from = saved[1].clone();
    let (resumed, again) = soak_saving(&o, Some(from.clone()));
    assert_eq!(resumed.series[..from.series.len()], from.series[..]);
    assert_eq!(resumed.resumed.len(), 1);
    assert_eq!(resumed.resumed[0].at_ns, from.duration_ns);
    // The whole planned second, less the moment between the part's deadline being set and its
    // first command: a few ms, which a busy machine (two worker threads to start) can stretch, so
    // the bound allows a tenth of the second.
    assert!(
        resumed.duration_ns >= 900_000_000,
        "{}",
        resumed.duration_ns
    );
    assert_eq!(sums(&resumed), (resumed.bytes, resumed.commands));
    assert_eq!(resumed.header.started_at, from.header.started_at);
    // Its own checkpoints hold the first part too.
    for c in &again {
        assert_eq!(c.series[..from.series.len()], from.series[..]);
        assert_eq!(c.resumed, resumed.resumed);
    }
}
