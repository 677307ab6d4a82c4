//! A watched steady run on the scripted engine: at every snapshot the live view's counters hold
//! the bytes the record says were written, and its phase says where the run is (the purge, the
//! precondition's bytes of the planned, the round and cell).

use super::tests::{device, options, settles, SIZE};
use super::*;
use crate::bench::watch::Watch;
use drivescope_analysis::steady_state::verdict;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

#[test]
fn the_watch_follows_the_purge_the_precondition_and_every_cell_of_every_round() {
    let watch = Watch::leaked();
    let matrix = vec![
        SteadyCellSpec {
            read_pct: 0,
            block_size: 8192,
        },
        TRACKED,
    ];
    let mut o = options(10, matrix, 25);
    o.common.watch = Some(watch);
    let dev = device(Arc::new(AtomicU64::new(0)), settles);
    let target = Target::open_read(&format!("null:{SIZE}")).unwrap();
    let seen = Mutex::new(Vec::new());
    let mut purge = || {
        seen.lock().unwrap().push(None);
        purge::skipped()
    };
    let judge = |v: &[f64], max: u32| verdict(v, max);
    let mut snapshot = |r: &SteadyRecord| {
        seen.lock()
            .unwrap()
            .push(Some((r.clone(), watch.snapshot())));
    };
    let run = SteadyRun {
        prior: None,
        purge: &mut purge,
        judge: &judge,
        snapshot: &mut snapshot,
        smart: &mut SmartWrites::default,
    };
    let rec = steady_on(&dev, &target, &o, run, &AtomicBool::new(false)).unwrap();
    assert_eq!(rec.verdict.state, SteadyState::Reached, "{:?}", rec.verdict);
    let seen = seen.into_inner().unwrap();
    assert!(seen[0].is_none(), "the purge runs first");
    let snaps: Vec<_> = seen.into_iter().flatten().collect();
    // After the purge: its phase, nothing written.
    let (r, s) = &snaps[0];
    assert_eq!((s.phase.what.as_str(), s.bytes), ("purge", 0));
    assert!(r.rounds.is_empty() && r.precondition.written_bytes == 0);
    // After each precondition pass: what it wrote of the planned, every byte counted.
    for (r, s) in &snaps[1..3] {
        let p = &r.precondition;
        assert!(s.phase.what.starts_with("precondition"), "{:?}", s.phase);
        assert_eq!(
            s.phase.step,
            precondition::step(p.written_bytes, p.planned_bytes)
        );
        assert_eq!(s.bytes, p.written_bytes);
        assert_eq!(s.failed, 0);
    }
    assert_eq!(snaps[2].0.precondition.written_bytes, 2 * SIZE);
    // After each undecided round: its last cell's step, the bytes of the record so far, and
    // the phase's response times those of the last cell alone.
    let rounds = &snaps[3..];
    assert_eq!(rounds.len(), rec.rounds.len() - 1);
    for (r, s) in rounds {
        let last = r.rounds.last().unwrap();
        assert_eq!(s.phase.step, cell_step(last.round, 25, 1, 2));
        assert_eq!(s.phase.what, "RND4K Q4T1 write");
        assert_eq!(s.bytes, last.total_bytes_written);
        let cell = &last.cells[1];
        assert_eq!(s.hist.count(), (cell.bytes_written / 4096));
        assert_eq!(s.bands.iter().sum::<u64>(), cell.bytes_written / 4096);
    }
    assert_eq!(cell_step(3, 25, 0, 6), "round 3 of at most 25, cell 1 of 6");
}

#[test]
fn the_watch_follows_the_idle_recovery_to_its_last_wait_state() {
    let watch = Watch::leaked();
    let mut o = super::idle_tests::options();
    o.common.watch = Some(watch);
    let (rec, _) = super::idle_tests::run_on(&super::idle_tests::device(true), &o, None, None);
    let h = rec.idle_recovery.as_ref().unwrap();
    assert!(idle::finished(h), "{h:?}");
    let s = watch.snapshot();
    assert_eq!(s.phase.what, "RND4K Q4T1 write");
    assert_eq!(
        s.phase.step,
        "idle recovery WS10 (5 of 5): writes back to the baseline"
    );
    assert_eq!(s.failed, 0);
}
