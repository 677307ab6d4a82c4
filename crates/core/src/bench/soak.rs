//! `soak`: one test sustained over time, with its time series and the steps in its rate;
//! saved at checkpoints while it runs (a cut of the series at an interval boundary, the
//! commands never stopped) and continued after a stop, the series going on past a marked gap.

use super::cut::CutResult;
use super::run::{run_continued, Continued, RunResult};
use super::{check_errors, end, start, steps, Common, Rw, TestSpec};
use crate::checkpoint::Checkpoints;
use crate::engine::{EngineError, Live};
use crate::target::Target;
use drivescope_record::now_rfc3339 as now;
use drivescope_record::{Kind, Load, SoakGap, SoakRecord, SoakResume};
use drivescope_stats::{Histogram, SeriesPoint};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Settings of `soak`.
#[derive(Debug, Clone)]
pub struct SoakOptions {
    pub common: Common,
    pub test: TestSpec,
    pub rw: Rw,
    pub duration: Duration,
    pub interval: Duration,
    /// Relative change that counts as a step (0.2 = 20 %).
    pub step_threshold: f64,
}

/// Why a stored soak cannot be continued.
#[derive(Debug, thiserror::Error)]
pub enum SoakResumeError {
    #[error("the soak ran its whole duration; nothing to resume")]
    Finished,
    #[error(transparent)]
    Test(#[from] super::PatternError),
    #[error("a {0} soak without its read share")]
    NoReadShare(drivescope_record::Direction),
}

impl SoakOptions {
    /// The settings of the stopped soak `r`, to continue it over `common` (its target opened
    /// again; engine, region, data and seed as `r` had them).
    pub fn of_record(r: &SoakRecord, mut common: Common) -> Result<SoakOptions, SoakResumeError> {
        let resume = r.resume.as_ref().ok_or(SoakResumeError::Finished)?;
        let test = TestSpec::parse(&r.test)?;
        let rw = match (r.rw, resume.read_pct) {
            (drivescope_record::Direction::Read, _) => Rw::Read,
            (drivescope_record::Direction::Write, _) => Rw::Write,
            (_, Some(p)) => Rw::Mix(p),
            (d, None) => return Err(SoakResumeError::NoReadShare(d)),
        };
        common.engine = r.load.engine;
        common.reap = r.load.reap;
        common.data = r.workload.data;
        common.size = r.workload.size;
        Ok(SoakOptions {
            common,
            test,
            rw,
            duration: Duration::from_nanos(resume.planned_ns),
            interval: Duration::from_nanos(r.interval_ns),
            step_threshold: resume.step_threshold,
        })
    }
}

/// What a soak continues and where its checkpoints go.
#[derive(Default)]
pub struct SoakRun {
    /// The stopped soak to continue (killed at a checkpoint, or interrupted): its record, with
    /// its resume state. The result is that soak, whole: its series, then the new part after
    /// a gap.
    pub prior: Option<SoakRecord>,
    /// Where the running soak's snapshots go.
    pub checkpoints: Option<Checkpoints<SoakRecord>>,
}

/// One long run with a time series.
pub fn soak(
    target: &Target,
    o: &SoakOptions,
    stop: &AtomicBool,
) -> Result<SoakRecord, EngineError> {
    soak_run(target, o, SoakRun::default(), stop)
}

/// [`soak`], continuing `run.prior` and saving checkpoints as `run` says.
pub fn soak_run(
    target: &Target,
    o: &SoakOptions,
    run: SoakRun,
    stop: &AtomicBool,
) -> Result<SoakRecord, EngineError> {
    Ok(soak_inner(target, o, None, run, stop)?.expect("without a gate the run starts"))
}

/// [`soak`] with its run passed through `gate` (a run several processes make together). `None`
/// when the gate let no run start (another process stopped or failed first).
pub fn soak_gated(
    target: &Target,
    o: &SoakOptions,
    gate: Option<&mut dyn super::RunGate>,
    stop: &AtomicBool,
) -> Result<Option<SoakRecord>, EngineError> {
    soak_inner(target, o, gate, SoakRun::default(), stop)
}

/// The measured part of a soak: before a stop, or since the resume.
struct Part {
    duration_ns: u64,
    bytes: u64,
    commands: u64,
    errors: u64,
    hist: Histogram,
    series: Vec<SeriesPoint>,
    /// The interval of `series`' points.
    interval_ns: u64,
}

impl Part {
    fn of_record(r: &SoakRecord) -> Part {
        Part {
            duration_ns: r.duration_ns,
            bytes: r.bytes,
            commands: r.commands,
            errors: r.errors,
            hist: r
                .resume
                .as_ref()
                .map(|s| Histogram::from_out(&s.histogram))
                .unwrap_or_default(),
            series: r.series.clone(),
            interval_ns: r.interval_ns,
        }
    }

    fn of_run(r: &RunResult) -> Part {
        Part {
            duration_ns: r.duration_ns,
            bytes: r.bytes,
            commands: r.commands,
            errors: r.errors,
            hist: r.hist.clone(),
            series: r.series.clone().unwrap_or_default(),
            interval_ns: r.series_interval_ns,
        }
    }

    fn of_cut(c: CutResult, interval_ns: u64) -> Part {
        Part {
            duration_ns: c.intervals * interval_ns,
            bytes: c.bytes,
            commands: c.commands,
            errors: c.errors,
            hist: c.hist,
            series: c.series,
            interval_ns: c.series_interval_ns,
        }
    }

    /// This part, then `next` (its series shifted to go on after this one's; the part with
    /// the shorter interval merged up to the other's).
    fn then(&self, next: Part) -> Part {
        let mut hist = self.hist.clone();
        hist.merge(&next.hist);
        let shift = self.duration_ns;
        let interval_ns = self.interval_ns.max(next.interval_ns);
        let coarse = |mut i: u64, mut points: Vec<SeriesPoint>| {
            while i > 0 && i < interval_ns {
                points = drivescope_stats::merge_pairs(&points);
                i *= 2;
            }
            points
        };
        let series = coarse(self.interval_ns, self.series.clone())
            .into_iter()
            .chain(
                coarse(next.interval_ns, next.series)
                    .into_iter()
                    .map(|mut p| {
                        p.t_ns += shift;
                        p
                    }),
            )
            .collect();
        Part {
            duration_ns: self.duration_ns + next.duration_ns,
            bytes: self.bytes + next.bytes,
            commands: self.commands + next.commands,
            errors: self.errors + next.errors,
            hist,
            series,
            interval_ns,
        }
    }
}

/// The most points a soak's document keeps: a soak longer than this many intervals has its
/// neighbouring intervals merged and its interval doubled (the record says which), so a soak
/// of days keeps the document, the checkpoints and the store's copy as small as one of hours.
pub const SERIES_MAX_POINTS: usize = 16_384;

/// `series` at `interval_ns`, neighbouring points merged until at most [`SERIES_MAX_POINTS`]
/// remain, with the interval they end at.
fn capped(mut interval_ns: u64, mut series: Vec<SeriesPoint>) -> (u64, Vec<SeriesPoint>) {
    while series.len() > SERIES_MAX_POINTS {
        series = drivescope_stats::merge_pairs(&series);
        interval_ns *= 2;
    }
    (interval_ns, series)
}

/// What every document of one soak run shares.
struct Shape<'a> {
    o: &'a SoakOptions,
    interval_ns: u64,
    load: Load,
    gaps: Vec<SoakGap>,
}

impl Shape<'_> {
    /// The document of `part`; with `next_blocks` a stopped one that `soak --resume` goes on
    /// from.
    fn record(
        &self,
        header: drivescope_record::Header,
        workload: drivescope_record::Workload,
        part: Part,
        next_blocks: Option<Vec<u64>>,
    ) -> SoakRecord {
        let (interval_ns, series) = capped(part.interval_ns.max(self.interval_ns), part.series);
        let steady_mb_per_s = steps::steady(&series);
        let first_to_steady = series
            .first()
            .filter(|_| steady_mb_per_s > 0.0)
            .map(|p| p.mb_per_s / steady_mb_per_s);
        let found = steps::find(&series, self.o.step_threshold);
        let resume = next_blocks.map(|next_blocks| SoakResume {
            planned_ns: self.o.duration.as_nanos() as u64,
            step_threshold: self.o.step_threshold,
            read_pct: match self.o.rw {
                Rw::Mix(p) => Some(p),
                _ => None,
            },
            histogram: part.hist.to_out(),
            next_blocks,
            saved_unix_ns: unix_ns(),
        });
        SoakRecord {
            header,
            workload,
            test: self.o.test.name(),
            rw: self.o.rw.into(),
            load: self.load,
            duration_ns: part.duration_ns,
            interval_ns,
            bytes: part.bytes,
            commands: part.commands,
            errors: part.errors,
            mb_per_s: crate::units::mb_per_s(part.bytes, part.duration_ns),
            iops: if part.duration_ns == 0 {
                0.0
            } else {
                (part.commands - part.errors) as f64 * 1e9 / part.duration_ns as f64
            },
            latency: part.hist.summary(),
            series,
            temperature: None,
            steady_mb_per_s,
            first_to_steady,
            steps: found,
            resumed: self.gaps.clone(),
            resume,
            checkpoint: None,
        }
    }
}

fn unix_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

fn soak_inner(
    target: &Target,
    o: &SoakOptions,
    mut gate: Option<&mut dyn super::RunGate>,
    run: SoakRun,
    stop: &AtomicBool,
) -> Result<Option<SoakRecord>, EngineError> {
    let (mut header, workload) = start(Kind::Soak, target, &o.common);
    let interval_ns = (o.interval.as_nanos() as u64).max(1_000_000);
    let planned_ns = o.duration.as_nanos() as u64;
    let before = run.prior.as_ref().map(Part::of_record);
    let done_ns = before.as_ref().map_or(0, |p| p.duration_ns);
    let mut gaps = Vec::new();
    let mut next_blocks = Vec::new();
    let mut seed = o.common.seed;
    if let Some(p) = &run.prior {
        header.started_at = p.header.started_at.clone();
        gaps = p.resumed.clone();
        let saved = p.resume.as_ref().map_or(0, |s| s.saved_unix_ns);
        gaps.push(SoakGap {
            at_ns: done_ns,
            gap_ns: unix_ns().saturating_sub(saved),
            started_at: now(),
        });
        next_blocks = p
            .resume
            .as_ref()
            .map(|s| s.next_blocks.clone())
            .unwrap_or_default();
        // Random tests draw new places after each gap.
        seed = seed.wrapping_add(0x9E37_79B9 * gaps.len() as u64);
    }
    let left = Duration::from_nanos(planned_ns.saturating_sub(done_ns).max(interval_ns));
    let mut opts = o.common.run_options(left, Some(interval_ns));
    opts.seed = seed;
    if let Some(g) = gate.as_deref_mut() {
        match g.before_run(opts.duration_ns, stop) {
            Some(d) => opts.duration_ns = d,
            None => return Ok(None),
        }
    }
    let engine = crate::engine::resolve(opts.engine, target, o.test.queue_depth as usize)?;
    let mut shape = Shape {
        o,
        interval_ns,
        load: Load {
            block_size: o.test.block_size,
            queue_depth: o.test.queue_depth,
            threads: o.test.threads,
            engine,
            reap: crate::engine::resolve_reap(
                opts.reap,
                engine,
                o.test.queue_depth as usize,
                o.test.threads as usize,
            ),
        },
        gaps,
    };
    let whole = |part: Part| match &before {
        Some(b) => b.then(part),
        None => part,
    };
    let mut save = run.checkpoints.map(|c| (c.every_ns, c.save));
    let every = save
        .as_ref()
        .map(|(every_ns, _)| Duration::from_nanos(*every_ns));
    let r = {
        let (shape, whole, header, workload) = (&shape, &whole, &header, &workload);
        let mut on_cut = |c: CutResult| {
            if let Some((_, save)) = save.as_mut() {
                let next_blocks = c.next_blocks.clone();
                let part = whole(Part::of_cut(c, interval_ns));
                let mut w = workload.clone();
                w.interrupted = true;
                let mut h = header.clone();
                h.ended_at = now();
                save(shape.record(h, w, part, Some(next_blocks)));
            }
        };
        let cont = Continued {
            next_blocks: &next_blocks,
            cuts: every.map(|e| (e, &mut on_cut as &mut (dyn FnMut(CutResult) + Send))),
        };
        run_continued(&Live(target), target, &o.test, o.rw, &opts, stop, cont)?
    };
    check_errors(&r, &o.test.name())?;
    if let Some(g) = gate {
        g.after_run(&r);
    }
    shape.load.engine = r.engine;
    shape.load.reap = r.reap;
    let part = whole(Part::of_run(&r));
    let mut workload = workload;
    end(&mut header, &mut workload, stop);
    // A soak stopped with at least an interval to go can be continued.
    let short = part.duration_ns.saturating_add(interval_ns) <= planned_ns;
    let resumable = stop.load(Ordering::Relaxed) && short;
    Ok(Some(shape.record(
        header,
        workload,
        part,
        resumable.then_some(r.next_blocks),
    )))
}

#[cfg(test)]
mod cap_tests {
    use super::*;

    #[test]
    fn a_series_past_the_cap_merges_to_a_longer_interval_and_keeps_its_totals() {
        // 86400 points of 1 s (a day) end as 10800 points of 8 s.
        let points: Vec<SeriesPoint> = (0..86_400u64)
            .map(|i| SeriesPoint {
                t_ns: (i + 1) * 1_000_000_000,
                bytes: 1_000_000 + i,
                commands: 10,
                mb_per_s: (1_000_000 + i) as f64 / 1e6,
                iops: 10.0,
                p99_ns: i,
            })
            .collect();
        let bytes: u64 = points.iter().map(|p| p.bytes).sum();
        let (interval, s) = capped(1_000_000_000, points);
        assert_eq!((interval, s.len()), (8_000_000_000, 10_800));
        assert_eq!(s.iter().map(|p| p.bytes).sum::<u64>(), bytes);
        assert_eq!(s.iter().map(|p| p.commands).sum::<u64>(), 864_000);
        assert_eq!(s.last().unwrap().t_ns, 86_400_000_000_000);
        assert!((s[0].iops - 10.0).abs() < 1e-9);
        assert_eq!(s[0].p99_ns, 7, "the highest p99 of the merged points");
        // Under the cap nothing changes.
        let few = s[..100].to_vec();
        assert_eq!(capped(8_000_000_000, few.clone()), (8_000_000_000, few));
    }
}
