//! `replay`: a kept trace's requests issued again on a target, closed-loop.
//!
//! Each request is issued, in the trace's issue order, once as many requests have completed in the
//! replay as had completed in the trace a reaction time before its issue (or once fewer are in flight
//! than the trace kept just before it), and after the think time the trace shows beyond that
//! ([`schedule`]); never by the trace's clock alone. Offsets
//! land on the target as they were (aligned to its logical block size), or folded onto it with `wrap`.
//! Reads are always issued; writes only where the target was opened for writing (a device through the
//! destructive gate, or a test file drivescope created), and are skipped otherwise, as are flushes and
//! discards. The trace is held in memory (40 bytes a request in the file, about 100 while replayed).

#[cfg(test)]
mod closed_loop_tests;
mod psync;
pub mod schedule;
pub mod summary;
mod uring;

use crate::target::{Target, TargetError};
use drivescope_record::{Header, ReplayRecord};
use drivescope_trace::{Request, TraceFileError, TraceHeader, TraceReader};
use schedule::{build, reach, Mapping};
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// What can stop a replay before it starts or while it runs.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("{path}: {source}")]
    Trace {
        path: String,
        #[source]
        source: TraceFileError,
    },
    #[error("{0}: the trace holds no requests with data to replay")]
    Empty(String),
    #[error("the trace holds requests of several devices ({0}); name one with --device")]
    SeveralDevices(String),
    #[error("the trace has no requests of {0} (it has {1})")]
    NoSuchDevice(String, String),
    #[error("the trace reaches byte {reach}, past the end of {target} ({size} bytes); pass --wrap to fold its offsets onto it")]
    TooSmall {
        reach: u64,
        target: String,
        size: u64,
    },
    #[error("the null target has no device to replay on")]
    NullTarget,
    #[error("io_uring is not available here ({0}); replay needs it")]
    NoUring(std::io::Error),
    #[error(transparent)]
    Target(#[from] TargetError),
    #[error("replay: {0}")]
    Io(std::io::Error),
}

/// A kept trace read whole: its header, its requests, and a note when its last record was torn.
pub struct Trace {
    pub header: TraceHeader,
    pub requests: Vec<Request>,
    pub note: Option<String>,
}

/// Read the kept trace at `path`.
pub fn read_trace(path: &Path) -> Result<Trace, ReplayError> {
    let err = |source| ReplayError::Trace {
        path: path.display().to_string(),
        source,
    };
    let f = std::fs::File::open(path).map_err(|e| err(TraceFileError::Io(e)))?;
    let mut r = TraceReader::new(std::io::BufReader::new(f)).map_err(err)?;
    let mut requests = Vec::new();
    let mut note = None;
    loop {
        match r.next_request() {
            Ok(Some(q)) => requests.push(q),
            Ok(None) => break,
            Err(e @ TraceFileError::Torn { .. }) => {
                note = Some(format!("{e}; replayed up to it"));
                break;
            }
            Err(e) => return Err(err(e)),
        }
    }
    Ok(Trace {
        header: r.header().clone(),
        requests,
        note,
    })
}

/// What to replay and how.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The traced device to replay (as /sys/block names it); needed when the trace has several.
    pub device: Option<String>,
    pub wrap: bool,
    pub no_think: bool,
}

/// The name of device number `dev` in the trace's header, else `MAJ:MIN`.
fn device_name(h: &TraceHeader, dev: u32) -> String {
    h.devices.iter().find(|d| d.dev == dev).map_or_else(
        || format!("{}:{}", dev >> 20, dev & 0xfffff),
        |d| d.name.clone(),
    )
}

/// The requests of the one device to replay, and its name.
fn select(t: &Trace, o: &Options, path: &str) -> Result<(String, Vec<Request>), ReplayError> {
    let mut devs: Vec<u32> = t.requests.iter().map(|r| r.dev).collect();
    devs.sort_unstable();
    devs.dedup();
    let names = || {
        devs.iter()
            .map(|&d| device_name(&t.header, d))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let dev = match &o.device {
        Some(want) => *devs
            .iter()
            .find(|&&d| device_name(&t.header, d) == *want)
            .ok_or_else(|| ReplayError::NoSuchDevice(want.clone(), names()))?,
        None if devs.len() > 1 => return Err(ReplayError::SeveralDevices(names())),
        None => *devs
            .first()
            .ok_or_else(|| ReplayError::Empty(path.into()))?,
    };
    let reqs: Vec<Request> = t
        .requests
        .iter()
        .filter(|r| r.dev == dev && r.error == 0)
        .copied()
        .collect();
    if !reqs.iter().any(|r| r.bytes > 0) {
        return Err(ReplayError::Empty(path.into()));
    }
    Ok((device_name(&t.header, dev), reqs))
}

/// Bytes the requests of `trace` to be replayed reach on their device (to size a test file).
pub fn reach_of(t: &Trace, o: &Options) -> Result<u64, ReplayError> {
    Ok(reach(&select(t, o, "trace")?.1))
}

/// The deepest the trace's queue went (how many requests the replay may have in flight).
fn max_depth(reqs: &[Request]) -> usize {
    let mut ev: Vec<(u64, i32)> = reqs
        .iter()
        .flat_map(|r| [(r.issue_ns, 1), (r.complete_ns, -1)])
        .collect();
    ev.sort_unstable_by_key(|&(t, d)| (t, d));
    let (mut cur, mut max) = (0i32, 0i32);
    for (_, d) in ev {
        cur += d;
        max = max.max(cur);
    }
    max.max(1) as usize
}

/// Replay the trace `t` (read from `path`) on `target`; `header` is the record's, filled by the caller.
pub fn run(
    t: &Trace,
    path: &str,
    target: &Target,
    header: Header,
    o: &Options,
    stop: &AtomicBool,
) -> Result<ReplayRecord, ReplayError> {
    let (name, reqs) = select(t, o, path)?;
    let far = reach(&reqs);
    if far > target.size && !o.wrap {
        return Err(ReplayError::TooSmall {
            reach: far,
            target: target.spec.clone(),
            size: target.size,
        });
    }
    let m = Mapping {
        size: target.size,
        block: target.logical_block_size,
        wrap: o.wrap,
        writable: target.writable(),
    };
    let s = build(&reqs, &m);
    let mut notes: Vec<String> = t.note.iter().cloned().collect();
    let writes = s.steps.iter().filter(|x| x.write && x.skip).count();
    if writes > 0 {
        notes.push(format!(
            "{writes} writes not issued: {} was opened read-only (writes go to a device only with \
             --destructive, or to a test file in a directory)",
            target.spec
        ));
    }
    let other = s.steps.iter().filter(|x| !x.write && x.skip).count();
    if other > 0 {
        notes.push(format!(
            "{} not issued",
            drivescope_units::count_as(other as u64, "flush or discard", "flushes and discards")
        ));
    }
    let dropped = t.requests.len() - reqs.len();
    if dropped > 0 {
        notes.push(format!(
            "{} of other devices, or that failed when traced, not replayed",
            drivescope_units::count(dropped as u64, "request")
        ));
    }
    let depth = max_depth(&reqs);
    let issued = if depth == 1 {
        psync::run(target, &s, o.no_think, stop)?
    } else {
        uring::run(target, &s, depth, o.no_think, stop)?
    };
    let (original, replayed, classes) = summary::summarize(&s, &issued.timings);
    let errors = issued
        .timings
        .iter()
        .flatten()
        .filter(|x| x.error.is_some())
        .count() as u64;
    Ok(ReplayRecord {
        header,
        trace: path.to_string(),
        traced_command: t.header.command.clone(),
        traced_device: name,
        wrapped: o.wrap && far > target.size,
        no_think: o.no_think,
        skipped: (s.steps.iter().filter(|x| x.skip).count() + dropped) as u64,
        errors,
        original,
        replayed,
        kernel: None,
        classes,
        notes,
        interrupted: issued.interrupted,
    })
}

/// Fill a test file `target` was opened on with data, so that replayed reads come from the disk rather
/// than from holes the file system answers with zeros.
pub fn fill(target: &Target) -> Result<(), ReplayError> {
    use std::os::unix::fs::FileExt;
    let file = target.file().ok_or(ReplayError::NullTarget)?;
    let chunk = 1 << 20;
    let mut buf = crate::aligned::AlignedBuffers::new(1, chunk, target.buffer_align);
    crate::engine::fill_buffers(&mut buf, crate::engine::DataPattern::Random, 11);
    let mut off = 0u64;
    while off < target.size {
        let n = ((target.size - off) as usize).min(chunk);
        file.write_all_at(&buf.slice(0)[..n], off)
            .map_err(ReplayError::Io)?;
        off += n as u64;
    }
    file.sync_all().map_err(ReplayError::Io)
}

#[cfg(test)]
mod tests {
    use super::max_depth;
    use drivescope_trace::{Op, Request};

    fn req(issue: u64, complete: u64) -> Request {
        Request {
            dev: 1,
            sector: 0,
            bytes: 4096,
            op: Op::Read,
            sync: false,
            issue_ns: issue,
            complete_ns: complete,
            error: 0,
        }
    }

    #[test]
    fn the_deepest_queue_counts_overlaps_and_not_back_to_back_requests() {
        assert_eq!(max_depth(&[req(0, 10), req(10, 20), req(20, 30)]), 1);
        assert_eq!(
            max_depth(&[req(0, 10), req(1, 20), req(2, 30), req(25, 40)]),
            3
        );
    }
}
