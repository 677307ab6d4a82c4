//! The array experiment inside a diagnosis: it runs first, on members found or named, within the budget, and
//! leaves its reads, its outcome line and a clear sentence when the array shows no members.

use super::model::ssd;
use super::support::{diagnose_with, options};
use crate::array_step::Found;
use crate::DiagnoseRun;
use drivescope_record::{Experiment, Verdict};
use std::sync::atomic::AtomicBool;

fn with(found: Found) -> DiagnoseRun {
    DiagnoseRun {
        array: Some(found),
        ..DiagnoseRun::default()
    }
}

#[test]
fn the_members_and_the_array_are_read_first_and_explained() {
    let a = crate::array::array(3);
    let d = diagnose_with(
        ssd(),
        &options(12),
        with(Found::Members(a.clone())),
        &AtomicBool::new(false),
        |_| {},
    );
    assert_eq!(d.said.first(), Some(&Experiment::Array), "{:?}", d.said);
    let r = d.rec.array.as_ref().expect("the array's reads");
    assert_eq!(r.array, a);
    assert_eq!((r.alone_mb_per_s.len(), r.together_mb_per_s.len()), (3, 3));
    assert_eq!(r.readers, 3);
    assert!(r.array_mb_per_s.is_some() && r.readers_mb_per_s.is_some());
    // A 12 s budget: a quarter of it over the six reads.
    assert_eq!(r.duration_ns, 500_000_000);
    // The outcome line comes first and names every member with its rate.
    let o = &d.rec.outcomes[0];
    assert_eq!(o.experiment, Experiment::Array);
    for m in ["m0 ", "m1 ", "m2 "] {
        assert!(o.text.contains(m), "{}", o.text);
    }
    assert!(o.text.contains("with 3 readers"), "{}", o.text);
    // The other experiments ran after it.
    assert!(d.rec.warm_up.is_some());
}

#[test]
fn an_array_that_shows_no_members_says_why_and_reads_nothing() {
    let why = "sda is a logical drive of a hardware RAID controller (megaraid_sas): the controller keeps its \
               members out of the system's sight";
    let d = diagnose_with(
        ssd(),
        &options(12),
        with(Found::NoMembers(why.into())),
        &AtomicBool::new(false),
        |_| {},
    );
    assert!(d.rec.array.is_none());
    assert!(!d.said.contains(&Experiment::Array));
    assert_eq!(d.skipped(Experiment::Array), Some(why));
    assert_eq!(d.verdict(Experiment::Array), Verdict::Skipped);
    assert_eq!(d.outcome(Experiment::Array).text, why);
}

#[test]
fn a_budget_too_small_for_the_reads_skips_them_and_no_array_reads_nothing() {
    let d = diagnose_with(
        ssd(),
        &options(1),
        with(Found::Members(crate::array::array(8))),
        &AtomicBool::new(false),
        |_| {},
    );
    assert!(d.rec.array.is_none());
    assert!(d
        .skipped(Experiment::Array)
        .is_some_and(|w| w.contains("too little budget")));
    // A plain device: no array line at all.
    let d = diagnose_with(
        ssd(),
        &options(12),
        DiagnoseRun::default(),
        &AtomicBool::new(false),
        |_| {},
    );
    assert!(d.rec.array.is_none());
    assert!(d
        .rec
        .outcomes
        .iter()
        .all(|o| o.experiment != Experiment::Array));
}

#[test]
fn a_resumed_diagnosis_keeps_the_array_reads_it_has() {
    let first = diagnose_with(
        ssd(),
        &options(12),
        with(Found::Members(crate::array::array(2))),
        &AtomicBool::new(false),
        |_| {},
    );
    let mut prior = first.rec.clone();
    // Stopped after the array: everything else left to run.
    prior.resume = Some(drivescope_record::DiagnoseResume {
        planned: Experiment::ALL.to_vec(),
        finished: Vec::new(),
        finished_ns: 0,
        directory: None,
        test_file: None,
    });
    let again = diagnose_with(
        ssd(),
        &options(12),
        DiagnoseRun {
            prior: Some(prior),
            array: Some(Found::Members(crate::array::array(2))),
            ..DiagnoseRun::default()
        },
        &AtomicBool::new(false),
        |_| {},
    );
    assert_eq!(again.rec.array, first.rec.array);
    assert!(!again.said.contains(&Experiment::Array));
}
