//! Workload-independent preconditioning: sequential 128 KiB writes over the whole device, twice
//! (SNIA PTS), from where a stopped run left off.

use crate::engine::{Cmd, Completion, DataPattern, Engine, EngineConfig, EngineError, Job, Next};
use crate::target::Target;
use std::sync::atomic::AtomicBool;

/// Block size of the preconditioning writes.
pub const BLOCK: u64 = 128 << 10;
/// Commands in flight while preconditioning.
pub const QUEUE_DEPTH: usize = 8;

struct Seq {
    size: u64,
    /// Bytes written so far of `planned` (offset = done % size).
    next: u64,
    planned: u64,
    done: u64,
    errno: Option<i32>,
    /// Where to stop this call (a pass boundary, for a checkpoint).
    until: u64,
}

impl Job for Seq {
    fn next(&mut self, _now: u64, in_flight: usize) -> Next {
        if self.next >= self.until || self.errno.is_some() {
            return if in_flight > 0 {
                Next::Wait
            } else {
                Next::Done
            };
        }
        let at = self.next % self.size;
        let len = BLOCK.min(self.size - at).min(self.until - self.next);
        self.next += len;
        Next::Issue(Cmd {
            offset: at,
            len: len as u32,
            tag: 0,
            write: true,
        })
    }

    fn complete(&mut self, c: &Completion) {
        match c.result {
            Ok(n) => self.done += n as u64,
            Err(e) => {
                self.errno.get_or_insert(e);
            }
        }
    }
}

/// Write sequentially from `written` up to `until` bytes of the precondition (offsets wrap at
/// the device's end). Returns the bytes written by now; stops early when `stop` is set.
pub fn run<E: Engine>(
    dev: &E,
    target: &Target,
    data: DataPattern,
    written: u64,
    until: u64,
    stop: &AtomicBool,
) -> Result<u64, EngineError> {
    let size = target.size / BLOCK * BLOCK;
    if size == 0 || until <= written {
        return Ok(written);
    }
    let kind = crate::engine::resolve(crate::engine::EngineKind::Auto, target, QUEUE_DEPTH)?;
    let cfg = EngineConfig {
        kind,
        queue_depth: QUEUE_DEPTH,
        max_len: BLOCK as usize,
        data,
        reap: crate::engine::Reap::Sleep,
    };
    let mut job = Seq {
        size,
        next: written,
        planned: until,
        done: 0,
        errno: None,
        until,
    };
    let clock = dev.clock();
    dev.run(&cfg, 0x9C0D, &clock, stop, &mut job)?;
    debug_assert!(job.planned >= job.next);
    if let Some(e) = job.errno {
        return Err(EngineError::Io(std::io::Error::from_raw_os_error(e)));
    }
    Ok(written + job.done)
}
