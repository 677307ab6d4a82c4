//! A durability run: what a commit costs (every mode, at one committer and at several, at small
//! and larger sizes), then the flush-honesty experiment, within one time budget.
//!
//! In a directory everything goes to test files drivescope creates there and removes (never an
//! existing file); on a block device (which the caller let through the write gate) the commits
//! and the experiment overwrite its first bytes.

use super::commit::{self, CommitCost, CommitInto, CommitMode, CommitPlan};
use super::device_flushes;
use super::file_device::FileFlushDevice;
use super::flush::{self, FlushPlan, FlushRun};
use crate::target::TargetError;
use crate::testfile::{self, TestFile};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Where a run writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A directory: test files made and removed there.
    Dir(PathBuf),
    /// A block device the write gate let through, `size` bytes.
    Device { path: PathBuf, size: u64 },
}

/// What a run does.
#[derive(Debug, Clone, PartialEq)]
pub struct DurabilityPlan {
    pub place: Place,
    /// Time the whole run may take (ns).
    pub budget_ns: u64,
    /// Bytes per commit, each measured.
    pub sizes: Vec<usize>,
    /// Committer counts, each measured (1: one commit at a time).
    pub committers: Vec<usize>,
    /// Most bytes the flush experiment writes to (from offset 0).
    pub region: u64,
    /// The flush experiment (its budget is what the commits leave).
    pub flush: FlushPlan,
    /// The devices under the target whose block-layer flush counts are read around each measurement
    /// (kernel names of whole devices); none: not counted.
    pub watch: Vec<String>,
}

impl DurabilityPlan {
    /// The defaults at `place` within `budget_ns`: 4 KiB, 64 KiB and 1 MiB commits, 1 and 4 committers,
    /// the flush experiment over up to 1 GiB.
    pub fn new(place: Place, budget_ns: u64) -> DurabilityPlan {
        DurabilityPlan {
            place,
            budget_ns,
            sizes: vec![4096, 65536, 1 << 20],
            committers: vec![1, 4],
            region: 1 << 30,
            flush: FlushPlan::default(),
            watch: Vec::new(),
        }
    }
}

/// What a run measured.
#[derive(Debug, Clone)]
pub struct DurabilityRun {
    pub commits: Vec<CommitCost>,
    pub flush: FlushRun,
    /// The flush experiment's writes bypassed the page cache (O_DIRECT).
    pub direct: bool,
    /// Bytes the flush experiment wrote to.
    pub region: u64,
    pub on: On,
    pub duration_ns: u64,
    /// Flush requests the block layer counted on the watched devices during the flush experiment.
    pub device_flushes: Option<u64>,
}

/// What a run wrote to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum On {
    /// Test files in a directory.
    File,
    /// A block device.
    Device,
}

impl DurabilityRun {
    /// Bytes written in all.
    pub fn bytes_written(&self) -> u64 {
        self.commits
            .iter()
            .map(|c| c.bytes + c.prewritten)
            .sum::<u64>()
            + self.flush.bytes_written
    }

    /// `fdatasync`/`fsync` calls in all.
    pub fn flushes(&self) -> u64 {
        self.commits.iter().map(|c| c.flushes).sum::<u64>() + self.flush.flushes
    }
}

/// Share of the budget the commits may take.
const COMMIT_SHARE: f64 = 0.3;
/// Commits per committer in one measurement: at least, at most.
const MIN_COMMITS: u64 = 4;
const MAX_COMMITS: u64 = 1000;
/// Commits of the first measurement, which tells roughly what one costs.
const PROBE_COMMITS: u64 = 16;

/// What one commit costs for planning (ns): its median (a few slow commits would make the mean,
/// and the wall time would count opening the file and starting threads). A measurement whose
/// commits run slower stops at its deadline.
fn typical(c: &CommitCost) -> u64 {
    c.p50_ns().max(1)
}

/// What one commit of a cell will roughly cost, from the cells measured so far: the same mode, size and
/// committers (a file state's twin), else the same mode and committers, else the last cell. A cell of
/// another kind (several committers against one, or a stall in the one before) would plan too few.
fn planned_cost(done: &[CommitCost], mode: CommitMode, size: usize, k: usize) -> Option<u64> {
    let like = |f: &dyn Fn(&CommitCost) -> bool| done.iter().rev().find(|c| f(c)).map(typical);
    like(&|c| c.mode == mode && c.size == size && c.committers == k)
        .or_else(|| like(&|c| c.mode == mode && c.committers == k))
        .or_else(|| done.last().map(typical))
}

/// Most bytes one commit measurement writes.
const MAX_COMMIT_BYTES: u64 = 64 << 20;

/// The measurements: every size, mode and committer count; in a directory, the smallest size's also
/// into written blocks (a recycled log's commits; new files' are the others).
fn commit_cells(plan: &DurabilityPlan) -> Vec<(CommitMode, usize, usize, CommitInto)> {
    let mut out = Vec::new();
    let smallest = plan.sizes.iter().copied().min();
    for &size in &plan.sizes {
        let mut intos = vec![CommitInto::New];
        if matches!(plan.place, Place::Dir(_)) && Some(size) == smallest {
            intos.push(CommitInto::Written);
        }
        for into in intos {
            for mode in CommitMode::ALL {
                for &k in &plan.committers {
                    out.push((mode, size, k, into));
                }
            }
        }
    }
    out
}

fn measure(plan: &CommitPlan, place: &Place) -> Result<CommitCost, TargetError> {
    match place {
        Place::Dir(_) => commit::measure(plan),
        Place::Device { path, .. } => commit::measure_at(plan, path),
    }
}

/// Runs the commits, then the flush experiment; `say` hears what starts.
pub fn run(
    plan: &DurabilityPlan,
    stop: &AtomicBool,
    say: &mut dyn FnMut(String),
) -> Result<DurabilityRun, TargetError> {
    let begin = Instant::now();
    let elapsed = |b: &Instant| b.elapsed().as_nanos() as u64;
    let dir = match &plan.place {
        Place::Dir(d) => d.clone(),
        Place::Device { path, .. } => path.clone(),
    };
    let space = match &plan.place {
        Place::Device { size, .. } => *size,
        Place::Dir(d) => testfile::free_space(d)
            .map_err(|error| TargetError::Io {
                path: d.display().to_string(),
                error,
            })?
            .map_or(u64::MAX, testfile::room),
    };
    // The first commit tells roughly what one costs; the cells share the commits' time.
    let cells = commit_cells(plan);
    say(format!("commit cost: {} measurements", cells.len()));
    let probe = CommitPlan {
        dir: dir.clone(),
        mode: CommitMode::Fdatasync,
        size: plan.sizes.first().copied().unwrap_or(4096),
        commits: PROBE_COMMITS,
        committers: 1,
        until: None,
        into: CommitInto::New,
    };
    let probe_ns = typical(&measure(&probe, &plan.place)?);
    let commit_budget = (plan.budget_ns as f64 * COMMIT_SHARE) as u64;
    let mut commits = Vec::new();
    for (i, &(mode, size, k, into)) in cells.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let left = commit_budget.saturating_sub(elapsed(&begin));
        let share = left / (cells.len() - i) as u64;
        let room = (MAX_COMMIT_BYTES.min(space / 2) / (size as u64 * k as u64)).max(1);
        let per_commit = planned_cost(&commits, mode, size, k).unwrap_or(probe_ns);
        let n = (share / per_commit.max(1) / k as u64)
            .clamp(MIN_COMMITS, MAX_COMMITS)
            .min(room);
        // A measurement takes at most its share, then its committers stop: one that ran over would
        // leave the last cells (the 1 MiB ones) a commit or two.
        let until = Instant::now() + std::time::Duration::from_nanos(share);
        let counted = flushes_now(&plan.watch);
        let mut c = measure(
            &CommitPlan {
                dir: dir.clone(),
                mode,
                size,
                commits: n,
                committers: k,
                until: Some(until),
                into,
            },
            &plan.place,
        )?;
        c.device_flushes = device_flushes::between(counted, flushes_now(&plan.watch));
        commits.push(c);
    }
    let region = plan.region.min(space / 2) / 4096 * 4096;
    if region < 2 * plan.flush.first {
        return Err(TargetError::BadSpec(format!(
            "{}: {} bytes of room is too little for the flush experiment (it needs {})",
            dir.display(),
            space,
            4 * plan.flush.first
        )));
    }
    let fplan = FlushPlan {
        budget_ns: plan.budget_ns.saturating_sub(elapsed(&begin)),
        ..plan.flush.clone()
    };
    say(format!(
        "flush honesty: a sustained write, then writes of growing size each followed by a flush ({} left)",
        drivescope_units::format_latency(fplan.budget_ns as f64)
    ));
    let io = |path: &std::path::Path, error: std::io::Error| TargetError::Io {
        path: path.display().to_string(),
        error,
    };
    let counted = flushes_now(&plan.watch);
    let (flushed, direct) = match &plan.place {
        Place::Dir(d) => {
            let file = TestFile::create(d, region)?;
            let mut dev = FileFlushDevice::open(file.path(), region, plan.flush.chunk as usize)
                .map_err(|e| io(file.path(), e))?;
            let r = flush::run(&mut dev, &fplan, stop).map_err(|e| io(file.path(), e))?;
            (r, dev.direct)
        }
        Place::Device { path, .. } => {
            let mut dev = FileFlushDevice::open(path, region, plan.flush.chunk as usize)
                .map_err(|e| io(path, e))?;
            let r = flush::run(&mut dev, &fplan, stop).map_err(|e| io(path, e))?;
            (r, dev.direct)
        }
    };
    let device_flushes = device_flushes::between(counted, flushes_now(&plan.watch));
    let interrupted = stop.load(Ordering::Relaxed);
    Ok(DurabilityRun {
        commits,
        flush: FlushRun {
            interrupted: flushed.interrupted || interrupted,
            ..flushed
        },
        direct,
        region,
        on: match plan.place {
            Place::Dir(_) => On::File,
            Place::Device { .. } => On::Device,
        },
        duration_ns: elapsed(&begin),
        device_flushes,
    })
}

/// The watched devices' flush count now (none without devices to watch).
fn flushes_now(watch: &[String]) -> Option<u64> {
    device_flushes::count(watch)
}

impl DurabilityRun {
    /// The run as a record (without a verdict: the rule gives that).
    pub fn into_record(
        self,
        header: drivescope_record::Header,
        cache: drivescope_record::durability::CacheWord,
        budget_ns: u64,
    ) -> drivescope_record::durability::DurabilityRecord {
        use drivescope_record::durability::{DurabilityData, DurabilityRecord};
        let (bytes_written, flushes) = (self.bytes_written(), self.flushes());
        DurabilityRecord {
            header,
            on: match self.on {
                On::File => "file".into(),
                On::Device => "device".into(),
            },
            data: DurabilityData {
                commits: self.commits.iter().map(CommitCost::to_row).collect(),
                flush_honesty: None,
            },
            cache,
            sustained: self.flush.sustained_record(),
            pairs: self.flush.pair_records(),
            bytes_written,
            flushes,
            device_flushes: self.device_flushes,
            budget_ns,
            duration_ns: self.duration_ns,
            interrupted: self.flush.interrupted,
            power_cut: None,
            need_commits_per_s: None,
        }
    }
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
