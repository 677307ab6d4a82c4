//! The shared-path reads: the same sequential read on each drive alone, one after another, then
//! on all drives at once. Together reads start where the drive's alone read ended, so a cache in
//! the drive that kept the first read's data does not serve the second.

use crate::bench::{Access, IoJob, JobSpec, Rw};
use crate::engine::{self, Clock, EngineConfig, EngineError, EngineKind, Reap};
use crate::target::Target;
use crate::units::mb_per_s;
use drivescope_record::DataPattern;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;

/// The read's shape and length.
#[derive(Debug, Clone, Copy)]
pub struct SharedOptions {
    pub block_size: u64,
    pub queue_depth: u32,
    /// How long each read runs: each drive alone, then all together.
    pub duration_ns: u64,
}

impl Default for SharedOptions {
    fn default() -> Self {
        SharedOptions {
            block_size: 1 << 20,
            queue_depth: 4,
            duration_ns: 3_000_000_000,
        }
    }
}

/// Each drive's rate (MB/s) alone and together, in the order given; 0 for a drive that could
/// not be read. Empty lists when stopped before the reads were done.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SharedReads {
    pub alone: Vec<f64>,
    pub together: Vec<f64>,
}

/// What one sequential read did.
#[derive(Debug, Clone, Copy, Default)]
struct Read {
    mb_per_s: f64,
    /// Where it ended (the next byte it would have read).
    end: u64,
}

/// `[lo, hi)` of `target` read in order, `o.duration_ns` long (wrapping at `hi`).
fn read(
    target: &Target,
    o: &SharedOptions,
    lo: u64,
    hi: u64,
    start: Option<&Barrier>,
    stop: &AtomicBool,
) -> Result<Read, EngineError> {
    // Every reader passes the start before anything can fail, so none waits for one that quit.
    if let Some(b) = start {
        b.wait();
    }
    let bs = o.block_size;
    let lo = lo / bs * bs;
    let len = (hi.saturating_sub(lo)) / bs * bs;
    let qd = o.queue_depth.max(1) as usize;
    let kind = engine::resolve(EngineKind::Auto, target, qd)?;
    let cfg = EngineConfig {
        kind,
        queue_depth: qd,
        max_len: bs as usize,
        data: DataPattern::Random,
        reap: engine::resolve_reap(Reap::Auto, kind, qd, 1),
    };
    let mut job = IoJob::new(JobSpec {
        access: Access::Seq,
        rw: Rw::Read,
        block_size: bs,
        lo,
        len: len.max(bs),
        duration_ns: o.duration_ns,
        seed: 0,
        series_interval_ns: None,
    });
    let clock = Clock::new();
    engine::run(target, &cfg, 0, &clock, stop, &mut job)?;
    let s = &job.stats;
    let ns = s
        .last_done_ns
        .saturating_sub(s.first_issue_ns.unwrap_or(s.last_done_ns));
    Ok(Read {
        mb_per_s: mb_per_s(s.bytes, ns),
        end: lo + (s.commands * bs).min(len),
    })
}

/// Each target alone, one after another, then all together. A target too small for a read of
/// one command, or one that fails, reads as 0.
pub fn shared_path(targets: &[&Target], o: &SharedOptions, stop: &AtomicBool) -> SharedReads {
    let usable = |t: &Target| t.size >= 2 * o.block_size;
    let mut alone = Vec::new();
    for t in targets {
        if stop.load(Ordering::Relaxed) {
            return SharedReads::default();
        }
        let r = if usable(t) {
            read(t, o, 0, t.size / 2, None, stop).unwrap_or_default()
        } else {
            Read::default()
        };
        alone.push(r);
    }
    if stop.load(Ordering::Relaxed) {
        return SharedReads::default();
    }
    let live: Vec<usize> = (0..targets.len()).filter(|&i| usable(targets[i])).collect();
    let start = Barrier::new(live.len());
    let mut together = vec![0.0; targets.len()];
    std::thread::scope(|s| {
        let handles: Vec<_> = live
            .iter()
            .map(|&i| {
                let (t, start) = (targets[i], &start);
                // After the alone read's data, so no cache of it serves this one.
                let lo = alone[i].end.min(t.size / 2);
                s.spawn(move || (i, read(t, o, lo, t.size, Some(start), stop)))
            })
            .collect();
        for h in handles {
            if let Ok((i, Ok(r))) = h.join() {
                together[i] = r.mb_per_s;
            }
        }
    });
    if stop.load(Ordering::Relaxed) {
        return SharedReads::default();
    }
    SharedReads {
        alone: alone.iter().map(|r| r.mb_per_s).collect(),
        together,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_targets_read_alone_and_together() {
        let a = Target::open_read("null:1G").unwrap();
        let b = Target::open_read("null:1G").unwrap();
        let o = SharedOptions {
            duration_ns: 50_000_000,
            ..SharedOptions::default()
        };
        let stop = AtomicBool::new(false);
        let r = shared_path(&[&a, &b], &o, &stop);
        assert_eq!(r.alone.len(), 2);
        assert_eq!(r.together.len(), 2);
        assert!(r.alone.iter().chain(&r.together).all(|x| *x > 0.0), "{r:?}");
        stop.store(true, Ordering::Relaxed);
        assert_eq!(shared_path(&[&a, &b], &o, &stop), SharedReads::default());
    }
}
