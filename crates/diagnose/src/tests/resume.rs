//! A resumed diagnosis keeps the experiments the stopped one finished, runs the rest with the budget they
//! left, and checkpoints hold each finished experiment.

use super::model::*;
use super::support::*;
use crate::DiagnoseRun;
use drivescope_core::checkpoint::Checkpoints;
use drivescope_record::{DiagnoseRecord, Experiment, FindingCode};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A diagnosis of `m` stopped as `at` starts.
fn stopped_at(m: Model, o: &crate::DiagnoseOptions, at: Experiment) -> DiagnoseRecord {
    let stop = AtomicBool::new(false);
    diagnose_with(m, o, DiagnoseRun::default(), &stop, |e| {
        if e == at {
            stop.store(true, Ordering::Relaxed);
        }
    })
    .rec
}

fn resumed(prior: DiagnoseRecord) -> DiagnoseRun {
    DiagnoseRun {
        prior: Some(prior),
        ..DiagnoseRun::default()
    }
}

#[test]
fn a_resumed_run_keeps_the_finished_experiments_and_runs_only_the_rest() {
    let first = stopped_at(hdd(), &options(60), Experiment::Queueing);
    let d = diagnose_with(
        hdd(),
        &options(60),
        resumed(first.clone()),
        &AtomicBool::new(false),
        |_| {},
    );
    assert_eq!(d.said, vec![Experiment::Queueing, Experiment::ReadCache]);
    assert_eq!(d.rec.warm_up, first.warm_up);
    assert_eq!(d.rec.zones, first.zones);
    assert_eq!(d.rec.link, first.link);
    // Findings over every experiment: the kept zones and the new queueing.
    assert!(d.finding(FindingCode::Zones).is_some());
    assert!(d.finding(FindingCode::NoQueueing).is_some());
    assert!(!d.rec.workload.interrupted);
    assert!(d.rec.resume.is_none());
    assert_eq!(d.rec.device_error, None);
    // The budget goes on from what the finished experiments used.
    let spent = first.resume.unwrap().finished_ns;
    assert_eq!(d.rec.elapsed_ns, spent + d.device_ns);
}

#[test]
fn a_resumed_run_has_only_the_budget_the_finished_experiments_left() {
    // The warm-up of a 60 s diagnosis took 12 s; continued within a 12 s budget, nothing is left.
    let first = stopped_at(hdd(), &options(60), Experiment::Queueing);
    assert!(first.resume.as_ref().unwrap().finished_ns >= 12_000_000_000);
    let d = diagnose_with(
        hdd(),
        &options(12),
        resumed(first),
        &AtomicBool::new(false),
        |_| {},
    );
    assert_eq!(d.seen.reads() + d.seen.writes(), 0);
    for e in [Experiment::Queueing, Experiment::ReadCache] {
        assert_eq!(d.skipped(e), Some("the 12 s budget was spent"), "{e:?}");
    }
    assert!(d.finding(FindingCode::Zones).is_some());
}

/// A diagnosis of `m` that keeps every checkpoint.
fn checkpointed(m: Model) -> (DiagnoseRecord, Vec<DiagnoseRecord>) {
    let saved = Arc::new(Mutex::new(Vec::new()));
    let into = saved.clone();
    let run = DiagnoseRun {
        checkpoints: Some(Checkpoints {
            every_ns: 0,
            save: Box::new(move |r| into.lock().unwrap().push(r)),
        }),
        ..DiagnoseRun::default()
    };
    let d = diagnose_with(m, &options(60), run, &AtomicBool::new(false), |_| {});
    let saved = saved.lock().unwrap().clone();
    (d.rec, saved)
}

#[test]
fn a_checkpoint_is_saved_at_the_start_and_after_each_finished_experiment() {
    let (rec, saved) = checkpointed(hdd());
    assert_eq!(saved.len(), Experiment::ALL.len() + 1);
    for (i, s) in saved.iter().enumerate() {
        assert!(s.workload.interrupted, "checkpoint {i}");
        match &s.resume {
            Some(r) => assert_eq!(r.finished, Experiment::ALL[..i].to_vec()),
            None => assert_eq!(i, Experiment::ALL.len(), "only the last has nothing left"),
        }
        // The experiments not yet run are listed as such.
        for e in &Experiment::ALL[i..] {
            let why = s
                .skipped
                .iter()
                .find(|k| k.experiment == *e)
                .map(|k| &k.why);
            assert_eq!(
                why.map(String::as_str),
                Some("not run: the diagnosis stopped before it")
            );
        }
    }
    // The zones are found from the third checkpoint on (after the warm-up, throttle and zones).
    assert!(saved[1].header.findings.is_empty());
    assert!(saved[2].header.findings.is_empty());
    assert!(saved[3]
        .header
        .findings
        .iter()
        .any(|f| f.code == FindingCode::Zones));
    assert_eq!(saved[7].header.findings, rec.header.findings);
}

#[test]
fn a_killed_run_resumes_from_its_last_checkpoint() {
    let (whole, saved) = checkpointed(hdd());
    // Killed during the queueing runs: the last checkpoint is the one after the link.
    let d = diagnose_with(
        hdd(),
        &options(60),
        resumed(saved[3].clone()),
        &AtomicBool::new(false),
        |_| {},
    );
    assert_eq!(d.said, vec![Experiment::Queueing, Experiment::ReadCache]);
    assert_eq!(d.rec.header.findings, whole.header.findings);
    assert_eq!(d.rec.queueing, whole.queueing);
    assert!(d.rec.resume.is_none());
}
