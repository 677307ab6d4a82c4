//! The host idle recovery test on the scripted engine: a device whose collector cleans ahead
//! while it rests (a page of credit per 100 µs of idle time past 15 ms, at most 1000; a credited
//! write takes 50 µs, any other 400 µs) runs its bursts faster the longer the wait state; its
//! twin without idle cleaning runs every burst at the steady rate.

use super::*;
use crate::engine::scripted::{Call, Reply, Scripted};
use crate::engine::{DataPattern, EngineKind, Reap};
use drivescope_analysis::steady_state::verdict;
use std::sync::Mutex;

const SIZE: u64 = 8 << 20;
const SLOW_NS: u64 = 400_000;
const FAST_NS: u64 = 50_000;
const IDLE_AFTER_NS: u64 = 15_000_000;
const CLEAN_NS: u64 = 100_000;
const CREDIT_CAP: u64 = 1000;
const QD: u32 = 4;

pub(super) fn options() -> SteadyOptions {
    // 120 ms cells: 10 ms bursts, a 10 ms idle unit, 3 bursts and 30 ms of writes a wait state.
    let cell = Duration::from_millis(120);
    SteadyOptions {
        common: Common {
            engine: EngineKind::Auto,
            reap: Reap::Auto,
            data: DataPattern::Random,
            size: SIZE,
            seed: 3,
            watch: None,
        },
        test: SteadyTest::HostIdleRecovery,
        matrix: Matrix::Full.cells(SteadyTest::HostIdleRecovery),
        queue_depth: QD,
        threads: 1,
        cell_time: cell,
        precondition_passes: 2,
        max_rounds: 25,
        not_conformant: vec!["a test".into()],
        idle: Some(idle::plan(cell, 3)),
    }
}

/// The device of the module docs; `cleans: false` is its twin that never cleans ahead.
pub(super) fn device(cleans: bool) -> Scripted<impl FnMut(&Call) -> Reply + Send> {
    let (mut busy_until, mut credit) = (0u64, 0u64);
    Scripted::new(move |c: &Call| {
        let gap = c.device_ns.saturating_sub(busy_until);
        if cleans && gap > IDLE_AFTER_NS {
            credit = (credit + (gap - IDLE_AFTER_NS) / CLEAN_NS).min(CREDIT_CAP);
        }
        let ns = match (c.write, c.len) {
            (true, 4096) if credit > 0 => {
                credit -= 1;
                FAST_NS
            }
            (true, 4096) => SLOW_NS,
            _ => FAST_NS,
        };
        busy_until = busy_until.max(c.device_ns + ns);
        Reply::ok(ns)
    })
    .unlogged()
}

pub(super) fn run_on<E: crate::engine::Engine>(
    dev: &E,
    o: &SteadyOptions,
    prior: Option<SteadyRecord>,
    stop_after_segments: Option<usize>,
) -> (SteadyRecord, Vec<SteadyRecord>) {
    let target = Target::open_read(&format!("null:{SIZE}")).unwrap();
    let stop = AtomicBool::new(false);
    let seen = Mutex::new(Vec::new());
    let mut purge = purge::skipped;
    let judge = |v: &[f64], max: u32| verdict(v, max);
    let mut snapshot = |r: &SteadyRecord| {
        let done = r.idle_recovery.as_ref().map_or(0, |h| h.segments.len());
        if stop_after_segments.is_some_and(|k| done >= k) {
            stop.store(true, Ordering::Relaxed);
        }
        seen.lock().unwrap().push(r.clone());
    };
    let run = SteadyRun {
        prior,
        purge: &mut purge,
        judge: &judge,
        snapshot: &mut snapshot,
        smart: &mut drivescope_probe::smart_writes::SmartWrites::default,
    };
    let rec = steady_on(dev, &target, o, run, &stop).unwrap();
    (rec, seen.into_inner().unwrap())
}

fn recoveries(rec: &SteadyRecord) -> Vec<f64> {
    let h = rec.idle_recovery.as_ref().unwrap();
    h.segments.iter().map(|s| s.recovery).collect()
}

#[test]
fn bursts_after_longer_idle_times_run_faster_on_a_device_that_cleans_while_idle() {
    let o = options();
    let (rec, _) = run_on(&device(true), &o, None, None);
    assert_eq!(rec.verdict.state, SteadyState::Reached, "{:?}", rec.verdict);
    assert!(rec.resume.is_none() && !rec.workload.interrupted);
    let h = rec.idle_recovery.as_ref().unwrap();
    let steady = QD as f64 * 1e9 / SLOW_NS as f64;
    assert!((h.baseline_iops / steady - 1.0).abs() < 0.02, "{h:?}");
    assert_eq!(
        (h.burst_ns, h.idle_unit_ns, h.cycles),
        (10_000_000, 10_000_000, 3)
    );
    assert_eq!(h.baseline_ns, 30_000_000);
    let waits: Vec<u32> = h.segments.iter().map(|s| s.wait_state).collect();
    assert_eq!(waits, idle::SPEC_WAIT_STATES);
    // Bursts one after another, a burst and the wait state's idle time apart.
    let mut last_end = 0;
    for s in &h.segments {
        assert_eq!(s.idle_ns, s.wait_state as u64 * h.idle_unit_ns);
        assert_eq!(s.bursts.len(), 3);
        assert!(s.bursts[0].at_ns >= last_end);
        for pair in s.bursts.windows(2) {
            let step = pair[1].at_ns - pair[0].at_ns;
            assert!(step >= h.burst_ns + s.idle_ns, "{step}");
            assert!(step <= h.burst_ns + s.idle_ns + 2 * SLOW_NS, "{step}");
        }
        assert!(s.end_ns >= s.bursts[2].at_ns + h.burst_ns + s.idle_ns + h.baseline_ns);
        last_end = s.end_ns;
        assert!(s.bursts.iter().all(|b| b.bytes_written > 0));
    }
    // WS1 rests 10 ms, less than the 15 ms before the collector starts: no recovery. Every
    // longer one recovers more.
    let r = recoveries(&rec);
    assert!((r[0] - 1.0).abs() < 0.05, "{r:?}");
    assert!(r.windows(2).all(|p| p[1] > p[0] * 1.1), "{r:?}");
    assert!(r[4] > 4.0, "{r:?}");
}

#[test]
fn a_device_that_does_not_clean_while_idle_shows_no_recovery() {
    let (rec, _) = run_on(&device(false), &options(), None, None);
    let r = recoveries(&rec);
    assert_eq!(r.len(), 5);
    assert!(r.iter().all(|x| (x - 1.0).abs() < 0.05), "{r:?}");
}

#[test]
fn a_run_stopped_between_wait_states_resumes_with_the_rest() {
    let o = options();
    let dev = device(true);
    let whole = run_on(&device(true), &o, None, None).0;
    let (stopped, seen) = run_on(&dev, &o, None, Some(2));
    assert!(stopped.resume.is_some() && stopped.workload.interrupted);
    assert_eq!(stopped.verdict.state, SteadyState::Reached);
    let last = seen.last().unwrap().clone();
    assert_eq!(last.idle_recovery.as_ref().unwrap().segments.len(), 2);
    assert!(last.resume.is_some());
    let again = options_of(&last, o.common);
    assert_eq!(again.idle.as_ref().unwrap().cycles, 3);
    let rounds = last.rounds.len();
    let (done, _) = run_on(&dev, &again, Some(last.clone()), None);
    assert!(done.resume.is_none());
    assert_eq!(done.rounds.len(), rounds, "no rounds after the verdict");
    let h = done.idle_recovery.as_ref().unwrap();
    assert_eq!(h.segments.len(), 5);
    assert_eq!(
        h.segments[..2],
        last.idle_recovery.as_ref().unwrap().segments[..]
    );
    assert!(h.segments[2].bursts[0].at_ns >= h.segments[1].end_ns);
    // The rest as a run never stopped measured it (its idle time before WS3 aside).
    let (a, b) = (recoveries(&done), recoveries(&whole));
    for k in 2..5 {
        assert!((a[k] / b[k] - 1.0).abs() < 0.25, "{a:?} vs {b:?}");
    }
}
