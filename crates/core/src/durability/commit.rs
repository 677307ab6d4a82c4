//! What a commit costs: N writes of S bytes, each made durable before the next, timed one by one.
//!
//! The commits go to a test file drivescope creates in the given directory (never an existing file)
//! and removes afterwards: a new file, whose every commit also makes the file system allocate the
//! block it fills, or a file first written in full and made durable, whose commits overwrite data as
//! a recycled log's do (the file system then has no block to allocate, and `fdatasync` may need no
//! journal commit: on ext4 about half the time, one device flush per commit instead of two). Three ways to make a write durable are measured, as databases and logs use
//! them: `write` then `fdatasync`, `write` then `fsync`, and writes to a file opened with `O_DSYNC`
//! (each write returns once durable, with no separate flush call). With one committer every commit
//! waits alone (QD1); with K committers at once, each in its own region of the same file, the file
//! system may serve several waiting commits with one journal commit and one device flush (group commit).
//!
//! Each commit's latency runs from just before the write to the return of the call that made it
//! durable; the latencies go into the project's histogram. The flush calls issued (`fdatasync` or
//! `fsync`) are counted exactly.

use crate::target::TargetError;
use crate::testfile::TestFile;
pub use drivescope_record::durability::CommitInto;
use drivescope_record::durability::{CommitCostRow, CommitModeName};
use drivescope_stats::Histogram;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::PathBuf;
use std::sync::Barrier;
use std::time::Instant;

/// How a commit is made durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CommitMode {
    /// `pwrite`, then `fdatasync` (data and the metadata needed to read it back).
    Fdatasync,
    /// `pwrite`, then `fsync` (data and all metadata).
    Fsync,
    /// `pwrite` to a file opened `O_DSYNC`: the write returns once durable.
    ODsync,
}

impl CommitMode {
    pub const ALL: [CommitMode; 3] = [CommitMode::Fdatasync, CommitMode::Fsync, CommitMode::ODsync];

    pub fn as_str(self) -> &'static str {
        match self {
            CommitMode::Fdatasync => "write+fdatasync",
            CommitMode::Fsync => "write+fsync",
            CommitMode::ODsync => "o_dsync",
        }
    }
}

/// One measurement: `commits` commits of `size` bytes by each of `committers` threads at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitPlan {
    /// The directory the test file is created in.
    pub dir: PathBuf,
    pub mode: CommitMode,
    /// Bytes per commit.
    pub size: usize,
    /// Commits per committer.
    pub commits: u64,
    /// Threads committing at once (1: QD1).
    pub committers: usize,
    /// Each committer stops at this time, after its first commit, even short of `commits`.
    pub until: Option<Instant>,
    /// What a test file's commits write into (a device's commits overwrite it whatever this says).
    pub into: CommitInto,
}

impl CommitPlan {
    /// Bytes the test file holds: every committer's region.
    pub fn file_bytes(&self) -> u64 {
        self.size as u64 * self.commits * self.committers as u64
    }

    fn check(&self) -> Result<(), TargetError> {
        if self.size == 0 || self.commits == 0 || self.committers == 0 {
            return Err(TargetError::BadSpec(format!(
                "a commit measurement needs a size, a count and a committer (got {} B × {} × {})",
                self.size, self.commits, self.committers
            )));
        }
        Ok(())
    }
}

/// What the commits cost.
#[derive(Debug, Clone)]
pub struct CommitCost {
    pub mode: CommitMode,
    pub committers: usize,
    pub size: usize,
    /// Commits done, all committers together.
    pub commits: u64,
    /// Bytes written, all committers together.
    pub bytes: u64,
    /// `fdatasync`/`fsync` calls issued (0 for `O_DSYNC`).
    pub flushes: u64,
    /// Flush requests the block layer counted on the watched devices meanwhile (see
    /// [`super::device_flushes`]); none where not counted.
    pub device_flushes: Option<u64>,
    /// Per-commit latency (ns).
    pub latency: Histogram,
    /// Wall time of the whole measurement (ns), first write to last commit.
    pub wall_ns: u64,
    /// What the commits wrote into; none on a device.
    pub into: Option<CommitInto>,
    /// Bytes written (untimed) to fill the test file before commits into written blocks.
    pub prewritten: u64,
}

impl CommitCost {
    pub fn p50_ns(&self) -> u64 {
        self.latency.quantile(0.50)
    }
    pub fn p99_ns(&self) -> u64 {
        self.latency.quantile(0.99)
    }
    pub fn max_ns(&self) -> u64 {
        self.latency.max().unwrap_or(0)
    }

    /// The record's row for these commits.
    pub fn to_row(&self) -> CommitCostRow {
        CommitCostRow {
            mode: match self.mode {
                CommitMode::Fdatasync => CommitModeName::Fdatasync,
                CommitMode::Fsync => CommitModeName::Fsync,
                CommitMode::ODsync => CommitModeName::ODsync,
            },
            into: self.into,
            committers: self.committers as u32,
            size: self.size as u64,
            count: self.commits,
            bytes: self.bytes,
            flushes: self.flushes,
            device_flushes: self.device_flushes,
            p50_ns: self.p50_ns(),
            p99_ns: self.p99_ns(),
            max_ns: self.max_ns(),
            mean_ns: self.latency.mean().round() as u64,
        }
    }
}

struct Committed {
    latency: Histogram,
    commits: u64,
    bytes: u64,
    flushes: u64,
}

fn io_err(path: &std::path::Path, error: std::io::Error) -> TargetError {
    TargetError::Io {
        path: path.display().to_string(),
        error,
    }
}

/// One committer: its commits, each at the next offset of its own region.
fn commit_loop(
    f: &File,
    plan: &CommitPlan,
    region: u64,
    start: &Barrier,
) -> Result<Committed, std::io::Error> {
    let mut buf: Vec<u8> = (0..plan.size).map(|i| pattern(region, i)).collect();
    let mut out = Committed {
        latency: Histogram::new(),
        commits: 0,
        bytes: 0,
        flushes: 0,
    };
    let base = region * plan.commits * plan.size as u64;
    start.wait();
    for i in 0..plan.commits {
        if i > 0 && plan.until.is_some_and(|u| Instant::now() >= u) {
            break;
        }
        let off = base + i * plan.size as u64;
        stamp(&mut buf, region, i);
        let t0 = Instant::now();
        f.write_all_at(&buf, off)?;
        match plan.mode {
            CommitMode::Fdatasync => {
                f.sync_data()?;
                out.flushes += 1;
            }
            CommitMode::Fsync => {
                f.sync_all()?;
                out.flushes += 1;
            }
            CommitMode::ODsync => {}
        }
        out.latency.record(t0.elapsed().as_nanos() as u64);
        out.commits += 1;
        out.bytes += plan.size as u64;
    }
    Ok(out)
}

/// Runs the plan on a new test file in `plan.dir`, removed afterwards (also on error); for commits
/// into written blocks the file is first written in full and made durable (not timed).
pub fn measure(plan: &CommitPlan) -> Result<CommitCost, TargetError> {
    plan.check()?;
    let file = TestFile::create(&plan.dir, plan.file_bytes())?;
    let begin = Instant::now();
    let prewritten = match plan.into {
        CommitInto::New => 0,
        CommitInto::Written => {
            prewrite(file.path(), plan.file_bytes()).map_err(|e| io_err(file.path(), e))?
        }
    };
    // The committers' deadline counts from their first commit, not from before the filling.
    let plan = &CommitPlan {
        until: plan.until.map(|u| u + begin.elapsed()),
        ..plan.clone()
    };
    let mut cost = commit_on(plan, file.path())?;
    cost.into = Some(plan.into);
    cost.prewritten = prewritten;
    Ok(cost)
}

/// Writes `path`'s first `bytes` in 1 MiB writes and makes them durable; returns the bytes written.
fn prewrite(path: &std::path::Path, bytes: u64) -> std::io::Result<u64> {
    const CHUNK: u64 = 1 << 20;
    let f = OpenOptions::new().write(true).open(path)?;
    let buf: Vec<u8> = (0..CHUNK as usize)
        .map(|i| pattern(u64::MAX >> 24, i))
        .collect();
    let mut off = 0;
    while off < bytes {
        let n = CHUNK.min(bytes - off) as usize;
        f.write_all_at(&buf[..n], off)?;
        off += n as u64;
    }
    f.sync_all()?;
    Ok(bytes)
}

/// Runs the plan's commits on `path` from offset 0, which must hold `plan.file_bytes()`: a
/// block device that the write gate let through (its data there is overwritten). `plan.dir` is
/// not used.
pub fn measure_at(plan: &CommitPlan, path: &std::path::Path) -> Result<CommitCost, TargetError> {
    plan.check()?;
    commit_on(plan, path)
}

/// Bytes at the start of each 512-byte sector that every commit makes its own.
const STAMP: usize = 8;

/// Makes commit `commit` of committer `region` unlike every other: the first [`STAMP`] bytes of each
/// 512-byte sector become a SplitMix64 word of (committer, commit, sector), as a log's records
/// differ (storage that dedupes or caches by content must not see the same block twice; zram's
/// `fdatasync` cost less for a block written again).
fn stamp(buf: &mut [u8], region: u64, commit: u64) {
    for (sector, chunk) in buf.chunks_mut(512).enumerate() {
        let word = stamp_word(region, commit, sector as u64).to_le_bytes();
        let n = chunk.len().min(STAMP);
        chunk[..n].copy_from_slice(&word[..n]);
    }
}

fn stamp_word(region: u64, commit: u64, sector: u64) -> u64 {
    let mut z = (region << 48 ^ commit << 20 ^ sector).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The byte committer `region` writes at `i` within each of its commits (but the stamps): a SplitMix64 stream keyed by
/// the committer, so that storage which compresses (zram, a compressing file system or SSD) pays for
/// the data as it would for a real log's, and no two committers write alike.
fn pattern(region: u64, i: usize) -> u8 {
    let mut z = (region << 40 ^ (i / 8) as u64)
        .wrapping_add(1)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> (8 * (i % 8))) as u8
}

/// Runs the plan's commits on `file` (at least `plan.file_bytes()` long).
fn commit_on(plan: &CommitPlan, file: &std::path::Path) -> Result<CommitCost, TargetError> {
    let mut opts = OpenOptions::new();
    opts.write(true);
    if plan.mode == CommitMode::ODsync {
        opts.custom_flags(libc::O_DSYNC);
    }
    let f = opts.open(file).map_err(|e| io_err(file, e))?;
    let start = Barrier::new(plan.committers);
    let t0 = Instant::now();
    let results: Vec<Result<Committed, std::io::Error>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..plan.committers)
            .map(|k| {
                let (f, start) = (&f, &start);
                s.spawn(move || commit_loop(f, plan, k as u64, start))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a committer thread panicked"))
            .collect()
    });
    let wall_ns = t0.elapsed().as_nanos() as u64;
    let mut cost = CommitCost {
        mode: plan.mode,
        committers: plan.committers,
        size: plan.size,
        commits: 0,
        bytes: 0,
        flushes: 0,
        device_flushes: None,
        latency: Histogram::new(),
        wall_ns,
        into: None,
        prewritten: 0,
    };
    for r in results {
        let c = r.map_err(|e| io_err(file, e))?;
        cost.latency.merge(&c.latency);
        cost.commits += c.commits;
        cost.bytes += c.bytes;
        cost.flushes += c.flushes;
    }
    Ok(cost)
}

/// Every mode at every committer count, `commits` commits of `size` bytes per committer, in order.
pub fn matrix(
    dir: &std::path::Path,
    size: usize,
    commits: u64,
    committers: &[usize],
) -> Result<Vec<CommitCost>, TargetError> {
    let mut out = Vec::new();
    for mode in CommitMode::ALL {
        for &k in committers {
            out.push(measure(&CommitPlan {
                dir: dir.to_path_buf(),
                mode,
                size,
                commits,
                committers: k,
                until: None,
                into: CommitInto::New,
            })?);
        }
    }
    Ok(out)
}

#[cfg(test)]
#[path = "commit_tests.rs"]
mod tests;
