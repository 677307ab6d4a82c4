//! `steady`: an SSD's steady state by the SNIA PTS method. Purge, precondition (twice the
//! capacity in 128 KiB sequential writes), then rounds of the test's cells until the
//! steady-state rule holds over a window of rounds, or the round limit ends the run as "not
//! reached". A snapshot of the record goes to the caller after the precondition's every pass and
//! after every round (checkpoints), and a stopped run continues from its last snapshot.
//!
//! The rule itself is `drivescope_analysis::steady_state`; the caller hands it in as `judge`, so
//! this loop stays with the commands.

pub mod idle;
#[cfg(test)]
mod idle_tests;
#[cfg(test)]
mod latency_tests;
pub mod precondition;
pub mod purge;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod watch_tests;

use crate::bench::{run_once_on, Access, Common, Rw, TestSpec};
use crate::engine::EngineError;
use crate::target::Target;
use drivescope_probe::smart_writes::{self, SmartWrites};
use drivescope_record::{
    Header, Kind, SteadyCell, SteadyCellSpec, SteadyPrecondition, SteadyPurge, SteadyRecord,
    SteadyResume, SteadyRound, SteadyState, SteadyTest, SteadyVerdict, SteadyWriteAmplification,
    Workload,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Block sizes of the PTS IOPS test, largest first.
pub const IOPS_BLOCKS: [u64; 8] = [
    1 << 20,
    128 << 10,
    64 << 10,
    32 << 10,
    16 << 10,
    8 << 10,
    4 << 10,
    512,
];
/// Read shares (percent) of the PTS IOPS test's mixes, 100/0 … 0/100.
pub const IOPS_MIXES: [u8; 7] = [100, 95, 65, 50, 35, 5, 0];
/// Block sizes of the PTS latency test, largest first.
pub const LATENCY_BLOCKS: [u64; 2] = [8 << 10, 4 << 10];
/// Read shares (percent) of the PTS latency test's mixes.
pub const LATENCY_MIXES: [u8; 3] = [100, 65, 0];

/// Commands in flight per thread and threads the test runs with: the latency test's are fixed
/// at one and one (QD1 × 1 thread); the others take the asked ones.
pub fn queue_of(test: SteadyTest, queue_depth: u32, threads: u32) -> (u32, u32) {
    match test {
        SteadyTest::Latency => (1, 1),
        _ => (queue_depth, threads),
    }
}

/// The specification's time per cell.
pub const SPEC_CELL_TIME: Duration = Duration::from_secs(60);
/// The tracked cell: random 4 KiB, all writes.
pub const TRACKED: SteadyCellSpec = SteadyCellSpec {
    read_pct: 0,
    block_size: 4096,
};

/// Which cells each round runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matrix {
    /// Every mix × every block size (56 cells).
    Full,
    /// 100/0, 65/35 and 0/100 at 4 KiB and 64 KiB (6 cells).
    Reduced,
    /// The tracked cell alone.
    Tracked,
}

impl Matrix {
    /// The cells in the order a round runs them (mixes outer, blocks largest first).
    pub fn cells(self, test: SteadyTest) -> Vec<SteadyCellSpec> {
        if matches!(
            test,
            SteadyTest::WriteSaturation | SteadyTest::HostIdleRecovery
        ) || self == Matrix::Tracked
        {
            return vec![TRACKED];
        }
        let (mixes, blocks): (&[u8], &[u64]) = match (test, self) {
            // The latency test has six cells: no reduced form.
            (SteadyTest::Latency, _) => (&LATENCY_MIXES, &LATENCY_BLOCKS),
            (_, Matrix::Full) => (&IOPS_MIXES, &IOPS_BLOCKS),
            _ => (&[100, 65, 0], &[64 << 10, 4 << 10]),
        };
        mixes
            .iter()
            .flat_map(|&read_pct| {
                blocks.iter().map(move |&block_size| SteadyCellSpec {
                    read_pct,
                    block_size,
                })
            })
            .collect()
    }
}

/// Settings of `steady`.
#[derive(Debug, Clone)]
pub struct SteadyOptions {
    pub common: Common,
    pub test: SteadyTest,
    pub matrix: Vec<SteadyCellSpec>,
    pub queue_depth: u32,
    pub threads: u32,
    /// Time per cell.
    pub cell_time: Duration,
    /// Whole-device sequential passes before the rounds (the specification: 2).
    pub precondition_passes: u32,
    pub max_rounds: u32,
    /// Where the run departs from the specification (a shorter cell time, a reduced matrix,
    /// no purge), one line each.
    pub not_conformant: Vec<String>,
    /// The host idle recovery test's plan ([`idle::plan`]), for that test.
    pub idle: Option<drivescope_record::IdleRecovery>,
}

/// What a run continues and whom it tells.
pub struct SteadyRun<'a> {
    /// The stopped run to continue (its purge and what preconditioning it did are kept).
    pub prior: Option<SteadyRecord>,
    /// Purges the device (a fresh run only).
    pub purge: &'a mut dyn FnMut() -> SteadyPurge,
    /// The steady-state rule over the tracked values so far.
    pub judge: &'a dyn Fn(&[f64], u32) -> SteadyVerdict,
    /// Hears a snapshot after each precondition pass and each round (the checkpoint), with
    /// its resume state.
    pub snapshot: &'a mut dyn FnMut(&SteadyRecord),
    /// Reads the drive's host and media write counters (SMART) now.
    pub smart: &'a mut dyn FnMut() -> SmartWrites,
}

fn rw_of(read_pct: u8) -> Rw {
    match read_pct {
        100 => Rw::Read,
        0 => Rw::Write,
        p => Rw::Mix(p),
    }
}

fn unix_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// The name of the tracked variable.
pub fn tracked_name(test: SteadyTest) -> String {
    match test {
        SteadyTest::Iops => "RND4K write IOPS".into(),
        SteadyTest::WriteSaturation => "RND4K write IOPS (write saturation)".into(),
        SteadyTest::Latency => "RND4K write mean latency".into(),
        SteadyTest::HostIdleRecovery => "RND4K write IOPS (host idle recovery)".into(),
    }
}

/// The tracked variable's value in a round's `cells`: the tracked cell's IOPS, or its mean
/// latency for the latency test.
pub fn tracked_of(test: SteadyTest, cells: &[SteadyCell]) -> f64 {
    let c = cells
        .iter()
        .find(|c| c.read_pct == TRACKED.read_pct && c.block_size == TRACKED.block_size);
    match test {
        SteadyTest::Latency => c.map_or(0.0, |c| c.mean_ns),
        _ => c.map_or(0.0, |c| c.iops),
    }
}

/// A new record for `o` on `target`.
fn fresh(target: &Target, o: &SteadyOptions) -> SteadyRecord {
    let header = Header::now(Kind::Steady, target.info());
    SteadyRecord {
        header,
        workload: Workload {
            size: o.common.size,
            data: o.common.data,
            direct: target.direct,
            interrupted: false,
            test_file: None,
        },
        test: o.test,
        conformant: o.not_conformant.is_empty(),
        not_conformant: o.not_conformant.clone(),
        purge: SteadyPurge::default(),
        precondition: SteadyPrecondition {
            planned_bytes: o.precondition_passes as u64
                * (o.common.size / precondition::BLOCK)
                * precondition::BLOCK,
            written_bytes: 0,
            block_size: precondition::BLOCK,
            duration_ns: 0,
            mb_per_s: 0.0,
        },
        matrix: o.matrix.clone(),
        tracked: tracked_name(o.test),
        round_time_ns: o.cell_time.as_nanos() as u64,
        queue_depth: o.queue_depth,
        threads: o.threads,
        engine: o.common.engine,
        rounds: Vec::new(),
        verdict: SteadyVerdict {
            state: SteadyState::Undecided,
            round: None,
            window: None,
            why: "no rounds yet".into(),
        },
        steady_value: None,
        idle_recovery: o.idle.clone(),
        write_amplification: None,
        duration_ns: 0,
        resume: None,
        checkpoint: None,
    }
}

/// The options a stopped run `r` was made with, over `common` (the target opened again).
pub fn options_of(r: &SteadyRecord, mut common: Common) -> SteadyOptions {
    common.data = r.workload.data;
    common.size = r.workload.size;
    common.engine = r.engine;
    let resume = r.resume.as_ref();
    SteadyOptions {
        common,
        test: r.test,
        matrix: r.matrix.clone(),
        queue_depth: r.queue_depth,
        threads: r.threads,
        cell_time: Duration::from_nanos(r.round_time_ns),
        precondition_passes: (r.precondition.planned_bytes
            / (r.workload.size / precondition::BLOCK * precondition::BLOCK).max(1))
            as u32,
        max_rounds: resume.map_or(25, |s| s.max_rounds),
        not_conformant: r.not_conformant.clone(),
        idle: r.idle_recovery.clone(),
    }
}

/// Tell a live view watching the run (if one does) what begins, `what` (a new phase: its
/// counters start from nothing), and where it stands.
pub(crate) fn tell(o: &SteadyOptions, what: Option<&str>, step: String) {
    if let Some(w) = o.common.watch {
        if let Some(what) = what {
            w.begin(what.into());
        }
        w.step(step);
    }
}

/// Where a round's cell stands: `round 3 of at most 25, cell 2 of 6` (cells from 0 in `cell`).
pub fn cell_step(round: u32, max_rounds: u32, cell: usize, cells: usize) -> String {
    format!(
        "round {round} of at most {max_rounds}, cell {} of {cells}",
        cell + 1
    )
}

/// Whether the run has ended by the rule.
fn decided(v: &SteadyVerdict) -> bool {
    v.state != SteadyState::Undecided
}

/// Whether the run has done all it planned: a verdict, and the idle recovery test's bursts.
fn complete(rec: &SteadyRecord) -> bool {
    decided(&rec.verdict) && rec.idle_recovery.as_ref().is_none_or(idle::finished)
}

/// The record as a snapshot that `--resume` continues.
fn with_resume(mut rec: SteadyRecord, o: &SteadyOptions) -> SteadyRecord {
    rec.workload.interrupted = true;
    rec.header.end_now();
    rec.resume = Some(SteadyResume {
        queue_depth: o.queue_depth,
        threads: o.threads,
        max_rounds: o.max_rounds,
        saved_unix_ns: unix_ns(),
    });
    rec
}

/// Run `steady` on `dev` (the live engines, or a scripted device in tests).
pub fn steady_on<E: crate::engine::Engine>(
    dev: &E,
    target: &Target,
    o: &SteadyOptions,
    run: SteadyRun<'_>,
    stop: &AtomicBool,
) -> Result<SteadyRecord, EngineError> {
    let begin = Instant::now();
    let mut rec = match run.prior {
        Some(mut p) => {
            p.resume = None;
            p.checkpoint = None;
            p.workload.interrupted = false;
            p
        }
        None => {
            let mut r = fresh(target, o);
            tell(
                o,
                Some("purge"),
                "returning the drive to its fresh state".into(),
            );
            r.purge = (run.purge)();
            if r.purge.method.is_none() && !r.purge.skipped {
                r.not_conformant.insert(
                    0,
                    "no purge: the device took none of the methods (purge.refused says why)".into(),
                );
                r.conformant = false;
            }
            (run.snapshot)(&with_resume(r.clone(), o));
            r
        }
    };
    let spent_before = rec.duration_ns;
    let elapsed = |_: &SteadyRecord| spent_before + begin.elapsed().as_nanos() as u64;

    // Preconditioning, a pass at a time (a snapshot after each).
    let size = (o.common.size / precondition::BLOCK) * precondition::BLOCK;
    while rec.precondition.written_bytes < rec.precondition.planned_bytes
        && !stop.load(Ordering::Relaxed)
    {
        let written = rec.precondition.written_bytes;
        let until = ((written / size.max(1)) + 1) * size;
        let until = until.min(rec.precondition.planned_bytes);
        let t0 = Instant::now();
        let span = precondition::Span {
            written,
            until,
            planned: rec.precondition.planned_bytes,
            watch: o.common.watch,
        };
        let now = precondition::run(dev, target, o.common.data, span, stop)?;
        let p = &mut rec.precondition;
        p.duration_ns += t0.elapsed().as_nanos() as u64;
        p.written_bytes = now;
        p.mb_per_s = crate::units::mb_per_s(p.written_bytes, p.duration_ns);
        rec.duration_ns = elapsed(&rec);
        (run.snapshot)(&with_resume(rec.clone(), o));
        if now == written {
            break;
        }
    }

    // The write counters as the measured rounds begin (a resumed run keeps its first reading).
    if rec.precondition.written_bytes >= rec.precondition.planned_bytes
        && rec.write_amplification.is_none()
        && !stop.load(Ordering::Relaxed)
    {
        rec.write_amplification = Some(SteadyWriteAmplification {
            before: (run.smart)(),
            ..SteadyWriteAmplification::default()
        });
    }

    // Rounds until the rule decides.
    let mut total_written = rec
        .rounds
        .last()
        .map_or(rec.precondition.written_bytes, |r| r.total_bytes_written);
    while !decided(&rec.verdict)
        && (rec.rounds.len() as u32) < o.max_rounds
        && rec.precondition.written_bytes >= rec.precondition.planned_bytes
        && !stop.load(Ordering::Relaxed)
    {
        let round = rec.rounds.len() as u32 + 1;
        let t0 = Instant::now();
        let mut cells = Vec::with_capacity(o.matrix.len());
        for (i, c) in o.matrix.iter().enumerate() {
            let spec = TestSpec {
                access: Access::Rnd,
                block_size: c.block_size,
                queue_depth: o.queue_depth,
                threads: o.threads,
            };
            tell(o, None, cell_step(round, o.max_rounds, i, o.matrix.len()));
            let mut opts = o.common.run_options(o.cell_time, None);
            opts.seed = o
                .common
                .seed
                .wrapping_add((round as u64) << 16)
                .wrapping_add(i as u64);
            let r = run_once_on(dev, target, &spec, rw_of(c.read_pct), &opts, stop)?;
            if r.errors > 0 && r.errors == r.commands {
                let e = r.first_errno.unwrap_or(libc::EIO);
                return Err(EngineError::Io(std::io::Error::from_raw_os_error(e)));
            }
            total_written += r.write_bytes;
            cells.push(SteadyCell {
                read_pct: c.read_pct,
                block_size: c.block_size,
                iops: r.iops(),
                mb_per_s: r.mb_per_s(),
                mean_ns: r.hist.mean(),
                p99_ns: r.hist.quantile(0.99),
                p999_ns: r.hist.quantile(0.999),
                p9999_ns: r.hist.quantile(0.9999),
                max_ns: r.hist.max().unwrap_or(0),
                bytes_written: r.write_bytes,
                errors: r.errors,
            });
            if stop.load(Ordering::Relaxed) {
                break;
            }
        }
        // A round cut short by a stop is not a round.
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let tracked = tracked_of(o.test, &cells);
        rec.rounds.push(SteadyRound {
            round,
            cells,
            tracked,
            total_bytes_written: total_written,
            duration_ns: t0.elapsed().as_nanos() as u64,
        });
        let values: Vec<f64> = rec.rounds.iter().map(|r| r.tracked).collect();
        rec.verdict = (run.judge)(&values, o.max_rounds);
        rec.duration_ns = elapsed(&rec);
        if !decided(&rec.verdict) {
            (run.snapshot)(&with_resume(rec.clone(), o));
        }
    }
    rec.steady_value = match rec.verdict.state {
        SteadyState::Reached => rec.verdict.window.as_ref().map(|w| w.average),
        _ => None,
    };
    if decided(&rec.verdict) && !stop.load(Ordering::Relaxed) {
        let mut save = |r: &SteadyRecord| (run.snapshot)(&with_resume(r.clone(), o));
        idle::run(dev, target, o, &mut rec, &mut save, stop)?;
    }
    rec.duration_ns = elapsed(&rec);
    rec.header.end_now();
    let stopped = stop.load(Ordering::Relaxed) && !complete(&rec);
    if let Some(wa) = rec.write_amplification.as_mut().filter(|_| !stopped) {
        let after = (run.smart)();
        wa.interval = Some(smart_writes::interval(&wa.before, &after));
        wa.after = Some(after);
    }
    if stopped {
        rec = with_resume(rec, o);
    } else {
        rec.workload.interrupted = false;
    }
    Ok(rec)
}

/// [`steady_on`] on the live engines of `target`.
pub fn steady(
    target: &Target,
    o: &SteadyOptions,
    run: SteadyRun<'_>,
    stop: &AtomicBool,
) -> Result<SteadyRecord, EngineError> {
    steady_on(&crate::engine::Live(target), target, o, run, stop)
}
