//! A stop (the stop flag: a signal) ends the diagnosis with what was finished.

use super::model::*;
use super::support::*;
use crate::DiagnoseRun;
use drivescope_record::{Experiment, FindingCode};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const LATER: [Experiment; 3] = [
    Experiment::Queueing,
    Experiment::ReadCache,
    Experiment::WriteCache,
];

#[test]
fn a_stop_as_the_link_experiment_starts_keeps_the_two_before_it() {
    // Flat flash (so the link experiment runs its reads) that warms up for 4 s.
    let m = Model {
        outer: 200.0,
        inner: 200.0,
        warm_up: Some((4_000_000_000, 0.5)),
        ..ssd()
    };
    let stop = AtomicBool::new(false);
    let d = diagnose_with(m, &options(60), DiagnoseRun::default(), &stop, |e| {
        if e == Experiment::Link {
            stop.store(true, Ordering::Relaxed);
        }
    });
    assert!(d.rec.workload.interrupted);
    let r = d.rec.resume.as_ref().unwrap();
    assert_eq!(
        r.finished,
        vec![Experiment::WarmUp, Experiment::Throttle, Experiment::Zones]
    );
    assert_eq!(r.finished_ns, d.rec.warm_up.as_ref().unwrap().duration_ns);
    for e in LATER {
        assert_eq!(d.skipped(e), Some("interrupted"), "{e:?}");
    }
    // What was finished still speaks; nothing after the stop was measured.
    assert!(d.finding(FindingCode::WarmUp).is_some());
    assert!(d.rec.queueing.is_none() && d.rec.read_cache.is_none());
    assert_eq!(d.said.last(), Some(&Experiment::Link));
}

#[test]
fn a_stop_in_the_middle_of_the_queueing_runs_ends_the_diagnosis_there() {
    // The warm-up takes 12 s; the queueing runs start right after and are stopped at 13 s.
    let stop = Arc::new(AtomicBool::new(false));
    let m = Model {
        stop_at: Some((13_000_000_000, stop.clone())),
        ..hdd()
    };
    let d = diagnose_with(m, &options(60), DiagnoseRun::default(), &stop, |_| {});
    assert!(d.rec.workload.interrupted);
    let r = d.rec.resume.as_ref().unwrap();
    assert_eq!(
        r.finished,
        vec![
            Experiment::WarmUp,
            Experiment::Throttle,
            Experiment::Zones,
            Experiment::Link
        ]
    );
    // The command in flight at the stop finishes (one seek), then nothing more is issued.
    let elapsed = d.rec.elapsed_ns as f64 / 1e9;
    assert!((13.0..13.02).contains(&elapsed), "{elapsed} s");
    assert_eq!(d.skipped(Experiment::ReadCache), Some("interrupted"));
    assert_eq!(d.said.last(), Some(&Experiment::Queueing));
}

#[test]
fn a_stop_before_the_start_runs_nothing() {
    let stop = AtomicBool::new(true);
    let d = diagnose_with(ssd(), &options(60), DiagnoseRun::default(), &stop, |_| {});
    assert_eq!(d.seen.reads() + d.seen.writes(), 0);
    assert!(d.said.is_empty());
    assert_eq!(d.rec.skipped.len(), Experiment::ALL.len());
    assert!(d.rec.skipped.iter().all(|s| s.why == "interrupted"));
    assert!(d.rec.header.findings.is_empty());
    assert!(d.rec.resume.as_ref().unwrap().finished.is_empty());
}
