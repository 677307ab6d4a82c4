//! Queueing: random reads at Q32 against Q1; a path that serves one command at a time gains nothing.

use super::model::*;
use super::support::*;
use drivescope_record::{Confidence, Experiment, FindingCode, Verdict};

#[test]
fn a_device_that_serialises_commands_gains_nothing_from_a_deep_queue() {
    let d = diagnose(hdd(), &options(60));
    let code = FindingCode::NoQueueing;
    assert_eq!(d.found(code.clone()).confidence, Confidence::High);
    near("gain", d.number(code.clone(), "gain"), 1.0, 0.02);
    // An 8 ms seek and the 4 KiB transfer per command, whatever the depth.
    let iops = 1e9 / (8e6 + 4096.0 * 1e3 / 150.0);
    near("Q1", d.number(code.clone(), "iops_q1"), iops, 0.03);
    near("Q32", d.number(code.clone(), "iops_deep"), iops, 0.03);
    assert_eq!(d.number(code, "queue_depth"), 32.0);
}

#[test]
fn a_device_with_eight_lanes_gains_eightfold_and_stays_silent() {
    let d = diagnose(ssd(), &options(60));
    assert!(
        d.finding(FindingCode::NoQueueing).is_none(),
        "{:?}",
        d.codes()
    );
    assert_eq!(d.verdict(Experiment::Queueing), Verdict::NotFound);
    let q = d.rec.queueing.unwrap();
    near("gain", q.deep_iops / q.q1_iops, 8.0, 0.02);
    near("Q1", q.q1_iops, 1e9 / (1e6 + 4096.0 * 1e3 / 500.0), 0.02);
}

#[test]
fn a_serialising_device_whose_deep_queue_reaches_its_bandwidth_is_not_blamed_on_queueing() {
    // No access time: 4 KiB commands move at the media's 20 MB/s, at any depth. A deep queue that reaches the
    // bandwidth says nothing about queueing.
    let m = Model {
        outer: 20.0,
        inner: 20.0,
        access_ns: 0,
        lanes: 1,
        ..ssd()
    };
    let d = diagnose(m, &options(60));
    let q = d.rec.queueing.unwrap();
    near("gain", q.deep_iops / q.q1_iops, 1.0, 0.02);
    near("deep rate", q.deep_mb_per_s, 20.0, 0.02);
    assert!(
        d.finding(FindingCode::NoQueueing).is_none(),
        "{:?}",
        d.codes()
    );
}

#[test]
fn a_read_cache_does_not_serve_the_deep_run_what_the_q1_run_read() {
    // One command at a time behind a 64 MiB read cache on a large disk: the deep run reads offsets of its own,
    // which the cache never held, and gains nothing.
    let m = Model {
        size: 4_000_000_000_000,
        read_cache: Some((64 * MIB, 1000.0)),
        ..hdd()
    };
    let o = crate::DiagnoseOptions {
        size: m.size,
        ..options(60)
    };
    let d = diagnose(m, &o);
    let q = d.rec.queueing.as_ref().unwrap();
    near("gain", q.deep_iops / q.q1_iops, 1.0, 0.05);
    assert_eq!(
        d.found(FindingCode::NoQueueing).confidence,
        Confidence::High
    );
}
