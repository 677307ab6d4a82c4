//! The round loop and its resume on the scripted engine: a device whose random-write latency
//! follows the 4 KiB writes it has taken, on a virtual clock.

use super::*;
use crate::engine::scripted::{Call, Reply, Scripted};
use crate::engine::{DataPattern, EngineKind, Reap};
use drivescope_analysis::steady_state::verdict;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

pub(super) const SIZE: u64 = 8 << 20;

pub(super) fn options(cell_ms: u64, matrix: Vec<SteadyCellSpec>, max_rounds: u32) -> SteadyOptions {
    SteadyOptions {
        common: Common {
            engine: EngineKind::Auto,
            reap: Reap::Auto,
            data: DataPattern::Random,
            size: SIZE,
            seed: 1,
            watch: None,
        },
        test: SteadyTest::Iops,
        matrix,
        queue_depth: 4,
        threads: 1,
        cell_time: Duration::from_millis(cell_ms),
        precondition_passes: 2,
        max_rounds,
        not_conformant: vec!["a test".into()],
        idle: None,
    }
}

/// A device whose 4 KiB write latency is `latency(writes so far, its time)`, the count kept in `writes`
/// (shared, so a resumed run continues the same device). Everything else takes 50 µs.
pub(super) fn device(
    writes: Arc<AtomicU64>,
    latency: fn(u64, u64) -> u64,
) -> Scripted<impl FnMut(&Call) -> Reply + Send> {
    Scripted::new(move |c: &Call| {
        if c.write && c.len == 4096 {
            let n = writes.fetch_add(1, Ordering::Relaxed);
            Reply::ok(latency(n, c.device_ns))
        } else {
            Reply::ok(50_000)
        }
    })
    .unlogged()
}

/// Falls from 100 µs to 400 µs over a few thousand writes, then holds.
pub(super) fn settles(n: u64, _at: u64) -> u64 {
    (100_000.0 * (1.0 + 3.0 * (1.0 - (-(n as f64) / 1500.0).exp()))) as u64
}

/// Keeps slowing by 4 % every 10 ms of its time (a round of the drift test), forever: every
/// window's range stays under 20 %, its best-fit line moves 16 %.
fn drifts(_n: u64, at: u64) -> u64 {
    (100_000.0 * 1.04f64.powf(at as f64 / 10e6)) as u64
}

#[test]
fn a_device_that_takes_no_purge_is_measured_and_named_not_conformant() {
    let dev = device(Arc::new(AtomicU64::new(0)), settles);
    let target = Target::open_read(&format!("null:{SIZE}")).unwrap();
    let mut o = options(5, vec![TRACKED], 6);
    o.not_conformant.clear();
    let mut purge = || SteadyPurge {
        method: None,
        refused: purge::unavailable(purge::Bus::default()),
        skipped: false,
        duration_ns: 0,
    };
    let judge = |v: &[f64], max: u32| verdict(v, max);
    let mut snapshot = |_: &SteadyRecord| {};
    let run = SteadyRun {
        prior: None,
        purge: &mut purge,
        judge: &judge,
        snapshot: &mut snapshot,
        smart: &mut SmartWrites::default,
    };
    let rec = steady_on(&dev, &target, &o, run, &AtomicBool::new(false)).unwrap();
    assert!(!rec.conformant);
    assert_eq!(rec.not_conformant.len(), 1, "{:?}", rec.not_conformant);
    assert!(rec.not_conformant[0].starts_with("no purge"));
    assert_eq!(rec.purge.refused.len(), 3);
    assert!(!rec.rounds.is_empty());
}

struct Seen {
    purges: u32,
    snapshots: Vec<SteadyRecord>,
}

/// SMART of a drive whose host wrote `pages` 4 KiB pages and whose translation layer programmed
/// half as many again (write amplification 1.5), as a Micron SSD counts them.
fn smart_of(pages: u64) -> SmartWrites {
    let page = |id: u64, name: &str, raw: u64| smart_writes::Counter {
        source: format!("{id} {name}"),
        raw,
        unit_bytes: None,
        unit: smart_writes::PAGE.into(),
    };
    SmartWrites {
        read: true,
        note: None,
        host: Some(page(247, "Host_Program_Page_Count", pages)),
        host_sectors: None,
        media: vec![
            page(247, "Host_Program_Page_Count", pages),
            page(248, "FTL_Program_Page_Count", pages / 2),
        ],
    }
}

fn run_on(
    latency: fn(u64, u64) -> u64,
    o: &SteadyOptions,
    writes: Arc<AtomicU64>,
    prior: Option<SteadyRecord>,
    stop_after_round: Option<u32>,
) -> (SteadyRecord, Seen) {
    let dev = device(writes.clone(), latency);
    let target = Target::open_read(&format!("null:{SIZE}")).unwrap();
    let stop = AtomicBool::new(false);
    let seen = Mutex::new(Seen {
        purges: 0,
        snapshots: vec![],
    });
    let mut purge = || {
        seen.lock().unwrap().purges += 1;
        purge::skipped()
    };
    let judge = |v: &[f64], max: u32| verdict(v, max);
    let mut snapshot = |r: &SteadyRecord| {
        if stop_after_round.is_some_and(|k| r.rounds.len() as u32 >= k) {
            stop.store(true, Ordering::Relaxed);
        }
        seen.lock().unwrap().snapshots.push(r.clone());
    };
    let counted = writes.clone();
    let mut smart = || smart_of(counted.load(Ordering::Relaxed));
    let run = SteadyRun {
        prior,
        purge: &mut purge,
        judge: &judge,
        snapshot: &mut snapshot,
        smart: &mut smart,
    };
    let rec = steady_on(&dev, &target, o, run, &stop).unwrap();
    (rec, seen.into_inner().unwrap())
}

#[test]
fn a_settling_device_is_steady_where_the_rule_says_and_the_record_adds_up() {
    let o = options(20, vec![TRACKED], 25);
    let (rec, seen) = run_on(settles, &o, Arc::new(AtomicU64::new(0)), None, None);
    assert_eq!(seen.purges, 1);
    assert_eq!(rec.verdict.state, SteadyState::Reached, "{:?}", rec.verdict);
    let round = rec.verdict.round.unwrap();
    assert_eq!(
        rec.rounds.len() as u32,
        round,
        "the run stops at steady state"
    );
    let values: Vec<f64> = rec.rounds.iter().map(|r| r.tracked).collect();
    assert_eq!(verdict(&values, 25), rec.verdict);
    // The rounds fell from the fresh rate and the window averages the last five.
    assert!(values[0] > 1.5 * values[values.len() - 1], "{values:?}");
    let w = rec.verdict.window.as_ref().unwrap();
    let mean: f64 = values[values.len() - 5..].iter().sum::<f64>() / 5.0;
    assert!((rec.steady_value.unwrap() - mean).abs() < 1e-9 * mean);
    assert_eq!((w.first_round, w.last_round), (round - 4, round));
    // Preconditioning wrote twice the capacity; every round adds its own writes.
    assert_eq!(rec.precondition.written_bytes, 2 * SIZE);
    let mut before = rec.precondition.written_bytes;
    for r in &rec.rounds {
        let written: u64 = r.cells.iter().map(|c| c.bytes_written).sum();
        assert!(written > 0);
        assert_eq!(r.total_bytes_written, before + written);
        before = r.total_bytes_written;
    }
    // A snapshot after the purge, after each precondition pass, after every undecided round.
    assert_eq!(seen.snapshots.len(), 1 + 2 + rec.rounds.len() - 1);
    assert!(seen.snapshots.iter().all(|s| s.resume.is_some()));
    assert!(rec.resume.is_none() && !rec.workload.interrupted);
    assert!(!rec.conformant);
    // SMART read as the rounds began (no 4 KiB writes yet) and at the end: the rounds' pages.
    let wa = rec.write_amplification.as_ref().unwrap();
    assert_eq!(wa.before.host.as_ref().unwrap().raw, 0);
    let i = wa.interval.as_ref().unwrap();
    let cells: u64 = rec.rounds.iter().map(|r| r.cells[0].bytes_written).sum();
    assert_eq!(i.host_units, Some(cells / 4096));
    assert!((i.wa.unwrap() - 1.5).abs() < 1e-3, "{i:?}");
}

#[test]
fn a_drifting_device_is_never_steady_and_ends_not_reached_at_25_rounds() {
    let o = options(10, vec![TRACKED], 25);
    let (rec, _) = run_on(drifts, &o, Arc::new(AtomicU64::new(0)), None, None);
    assert_eq!(rec.rounds.len(), 25);
    assert_eq!(
        rec.verdict.state,
        SteadyState::NotReached,
        "{:?}",
        rec.verdict
    );
    assert!(
        rec.verdict.why.contains("best-fit line"),
        "{}",
        rec.verdict.why
    );
    assert_eq!(rec.verdict.window.as_ref().unwrap().first_round, 21);
    assert!(rec.steady_value.is_none());
}

#[test]
fn every_round_runs_the_whole_matrix_in_order() {
    let cells = Matrix::Reduced.cells(SteadyTest::Iops);
    assert_eq!(cells.len(), 6);
    assert_eq!(Matrix::Full.cells(SteadyTest::Iops).len(), 56);
    assert_eq!(
        Matrix::Full.cells(SteadyTest::WriteSaturation),
        vec![TRACKED]
    );
    let o = options(5, cells.clone(), 6);
    let (rec, _) = run_on(drifts, &o, Arc::new(AtomicU64::new(0)), None, None);
    assert_eq!(rec.rounds.len(), 6);
    for r in &rec.rounds {
        let got: Vec<SteadyCellSpec> = r
            .cells
            .iter()
            .map(|c| SteadyCellSpec {
                read_pct: c.read_pct,
                block_size: c.block_size,
            })
            .collect();
        assert_eq!(got, cells);
        let t = r
            .cells
            .iter()
            .find(|c| c.read_pct == 0 && c.block_size == 4096);
        assert_eq!(r.tracked, t.unwrap().iops);
        // A read-only cell writes nothing.
        assert!(r
            .cells
            .iter()
            .filter(|c| c.read_pct == 100)
            .all(|c| c.bytes_written == 0));
    }
}

#[test]
fn a_stopped_run_resumes_from_its_last_round_without_purging_again() {
    let o = options(20, vec![TRACKED], 25);
    let whole = run_on(settles, &o, Arc::new(AtomicU64::new(0)), None, None).0;
    let writes = Arc::new(AtomicU64::new(0));
    let (stopped, seen) = run_on(settles, &o, writes.clone(), None, Some(3));
    assert_eq!(stopped.rounds.len(), 3);
    assert_eq!(stopped.verdict.state, SteadyState::Undecided);
    assert!(stopped.resume.is_some() && stopped.workload.interrupted);
    // kill -9 after the third round's checkpoint: continue from that snapshot.
    let last = seen.snapshots.last().unwrap().clone();
    assert_eq!(last.rounds.len(), 3);
    let again = options_of(&last, o.common);
    assert_eq!(again.matrix, o.matrix);
    assert_eq!(again.precondition_passes, 2);
    assert_eq!(again.cell_time, o.cell_time);
    let (done, seen2) = run_on(settles, &again, writes, Some(last), None);
    assert_eq!(seen2.purges, 0, "a resumed run does not purge");
    assert_eq!(done.precondition.written_bytes, 2 * SIZE);
    assert_eq!(done.rounds[..3], stopped.rounds[..3]);
    let rounds: Vec<u32> = done.rounds.iter().map(|r| r.round).collect();
    assert_eq!(rounds, (1..=rounds.len() as u32).collect::<Vec<_>>());
    // The device went on where it was: the same rounds as a run never stopped.
    assert_eq!(done.verdict.round, whole.verdict.round);
    assert_eq!(done.verdict.state, SteadyState::Reached);
    assert!(done.resume.is_none());
    // The first part's reading stays the run's "before"; the interval spans both parts.
    let first = stopped.write_amplification.as_ref().unwrap();
    assert!(first.interval.is_none() && first.after.is_none());
    let wa = done.write_amplification.as_ref().unwrap();
    assert_eq!(wa.before, first.before);
    let cells: u64 = done.rounds.iter().map(|r| r.cells[0].bytes_written).sum();
    let i = wa.interval.as_ref().unwrap();
    assert_eq!(i.host_units, Some(cells / 4096), "{i:?}");
}
