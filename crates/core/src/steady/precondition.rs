//! Workload-independent preconditioning: sequential 128 KiB writes over the whole device, twice
//! (SNIA PTS), from where a stopped run left off. A live view watching the run sees the writes'
//! rate, their response times and the bytes written of the planned.

use crate::bench::watch::{LaneWriter, Watch};
use crate::engine::{Cmd, Completion, DataPattern, Engine, EngineConfig, EngineError, Job, Next};
use crate::target::Target;
use drivescope_stats::Histogram;
use drivescope_units::format_size;
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
    /// The live view's counters, when one watches.
    live: Option<Live>,
}

/// What the precondition tells a live view: its lane, and the bytes written of the planned.
struct Live {
    watch: &'static Watch,
    lane: LaneWriter,
    /// Bytes written before this call, and of the whole precondition.
    before: u64,
    planned: u64,
    commands: u64,
    failed: u64,
    hist: Histogram,
}

impl Live {
    fn new(watch: &'static Watch, before: u64, planned: u64) -> Live {
        watch.begin(format!(
            "precondition SEQ{}K Q{QUEUE_DEPTH} write",
            BLOCK >> 10
        ));
        let live = Live {
            watch,
            lane: LaneWriter::new(watch.lane(0)),
            before,
            planned,
            commands: 0,
            failed: 0,
            hist: Histogram::new(),
        };
        live.publish(0);
        live
    }

    fn publish(&self, done: u64) {
        self.lane
            .publish(done, self.commands, self.failed, &self.hist);
        self.watch.step(step(self.before + done, self.planned));
    }
}

/// The precondition's step as a live view shows it.
pub fn step(written: u64, planned: u64) -> String {
    format!(
        "{} of {} written",
        format_size(written),
        format_size(planned)
    )
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
        if let Some(l) = &mut self.live {
            let ok = c.result.is_ok();
            l.commands += 1;
            l.failed += u64::from(!ok);
            l.lane.command(ok, c.latency_ns());
            if ok {
                l.hist.record(c.latency_ns());
            }
            if l.lane.due(c.done_ns) {
                l.publish(self.done);
            }
        }
    }
}

/// Where a precondition call starts and ends, of how much, and who watches it.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    /// Bytes of the precondition written before this call.
    pub written: u64,
    /// Where this call stops.
    pub until: u64,
    /// Bytes of the whole precondition.
    pub planned: u64,
    pub watch: Option<&'static Watch>,
}

/// Write sequentially from `span.written` up to `span.until` bytes of the precondition (offsets
/// wrap at the device's end). Returns the bytes written by now; stops early when `stop` is set.
pub fn run<E: Engine>(
    dev: &E,
    target: &Target,
    data: DataPattern,
    span: Span,
    stop: &AtomicBool,
) -> Result<u64, EngineError> {
    let Span { written, until, .. } = span;
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
        live: span
            .watch
            .map(|w| Live::new(w, written, span.planned.max(until))),
    };
    let clock = dev.clock();
    let ran = dev.run(&cfg, 0x9C0D, &clock, stop, &mut job);
    if let Some(l) = &job.live {
        l.publish(job.done);
    }
    ran?;
    debug_assert!(job.planned >= job.next);
    if let Some(e) = job.errno {
        return Err(EngineError::Io(std::io::Error::from_raw_os_error(e)));
    }
    Ok(written + job.done)
}
