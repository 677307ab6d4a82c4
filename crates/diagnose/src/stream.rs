//! A sequential stream over `[0, region)` (reads or writes), pass after pass (the first from `start`), cut into stretches: the one
//! measuring job the warm-up, working-set and write experiments share.

use crate::watched::Watch;
use drivescope_core::engine::{
    self, Cmd, Completion, EngineConfig, EngineError, EngineKind, Job, Live, Next, Reap,
};
use drivescope_core::engine::{DataPattern, Engine};
use drivescope_core::scan::lost_watch::LostWatch;
use drivescope_core::target::Target;
use drivescope_record::StreamPoint;
use std::sync::atomic::AtomicBool;

/// What to stream.
#[derive(Debug, Clone, Copy)]
pub struct StreamSpec {
    pub region: u64,
    /// Where in the region the first pass begins (a multiple of the block size); later passes begin at 0.
    pub start: u64,
    pub block_size: u64,
    pub queue_depth: u32,
    pub write: bool,
    /// Bytes per stretch (a multiple of the block size; stretches never cross a pass).
    pub stretch: u64,
    pub max_ns: u64,
    pub max_bytes: u64,
}

/// The stretches of a stream and its totals.
#[derive(Debug, Clone, Default)]
pub struct Streamed {
    pub points: Vec<StreamPoint>,
    pub bytes: u64,
    pub duration_ns: u64,
    /// Commands that failed (a bad spot is read around; its stretch counts what was read).
    pub errors: u64,
}

struct StreamJob<'a> {
    spec: StreamSpec,
    next: u64,
    pass: u32,
    issued: u64,
    start_ns: Option<u64>,
    deadline_ns: u64,
    // The stretch being filled: (pass, stretch index), bytes, offset sum, commands.
    cur: Option<(u32, u64)>,
    cur_bytes: u64,
    cur_offsets: u128,
    cur_cmds: u64,
    last_t: u64,
    out: Streamed,
    check_every_ns: u64,
    next_check_ns: u64,
    enough: &'a mut dyn FnMut(&[StreamPoint]) -> bool,
    done: bool,
}

impl StreamJob<'_> {
    fn close_stretch(&mut self, t_ns: u64) {
        if let Some((pass, _)) = self.cur.take() {
            if self.cur_cmds > 0 {
                let dt = t_ns.saturating_sub(self.last_t).max(1);
                self.out.points.push(StreamPoint {
                    t_ns,
                    offset: (self.cur_offsets / self.cur_cmds as u128) as u64,
                    bytes: self.cur_bytes,
                    mb_per_s: self.cur_bytes as f64 * 1e3 / dt as f64,
                    pass,
                });
                self.last_t = t_ns;
            }
        }
        self.cur_bytes = 0;
        self.cur_offsets = 0;
        self.cur_cmds = 0;
    }
}

impl Job for StreamJob<'_> {
    fn next(&mut self, now_ns: u64, in_flight: usize) -> Next {
        let start = *self.start_ns.get_or_insert(now_ns);
        if self.deadline_ns == 0 {
            self.deadline_ns = start.saturating_add(self.spec.max_ns);
            self.next_check_ns = start + self.check_every_ns;
        }
        if !self.done && now_ns >= self.next_check_ns {
            self.next_check_ns = now_ns + self.check_every_ns;
            if (self.enough)(&self.out.points) {
                self.done = true;
            }
        }
        if self.done || now_ns >= self.deadline_ns || self.issued >= self.spec.max_bytes {
            return if in_flight > 0 {
                Next::Wait
            } else {
                Next::Done
            };
        }
        let bs = self.spec.block_size;
        if self.next + bs > self.spec.region {
            self.next = 0;
            self.pass += 1;
        }
        let c = Cmd {
            offset: self.next,
            len: bs as u32,
            tag: self.pass,
            write: self.spec.write,
        };
        self.next += bs;
        self.issued += bs;
        Next::Issue(c)
    }

    fn complete(&mut self, c: &Completion) {
        let start = self.start_ns.unwrap_or(0);
        let t = c.done_ns.saturating_sub(start);
        match c.result {
            Ok(n) => {
                let key = (c.cmd.tag, c.cmd.offset / self.spec.stretch);
                if self.cur.is_some_and(|k| k != key) {
                    self.close_stretch(t);
                }
                self.cur = Some(key);
                self.cur_bytes += n as u64;
                self.cur_offsets += c.cmd.offset as u128;
                self.cur_cmds += 1;
                self.out.bytes += n as u64;
                self.out.duration_ns = self.out.duration_ns.max(t);
            }
            Err(_) => self.out.errors += 1,
        }
    }
}

/// Stream `spec` on `target` until its time or bytes run out, `stop` is set, or `enough` (asked every
/// `check_every_ns` with the stretches so far) says so.
pub fn stream(
    target: &Target,
    engine_kind: EngineKind,
    data: DataPattern,
    spec: StreamSpec,
    stop: &AtomicBool,
    check_every_ns: u64,
    enough: &mut dyn FnMut(&[StreamPoint]) -> bool,
) -> Result<Streamed, EngineError> {
    stream_on(
        &Live(target),
        target,
        engine_kind,
        data,
        spec,
        stop,
        check_every_ns,
        enough,
    )
}

/// [`stream`] with the commands run on `dev` (`target` is what the engine is chosen for). A failed command is
/// read around unless the scan's lost-device rule says the device is gone, which ends the stream with an error.
#[allow(clippy::too_many_arguments)]
pub fn stream_on<E: Engine>(
    dev: &E,
    target: &Target,
    engine_kind: EngineKind,
    data: DataPattern,
    spec: StreamSpec,
    stop: &AtomicBool,
    check_every_ns: u64,
    enough: &mut dyn FnMut(&[StreamPoint]) -> bool,
) -> Result<Streamed, EngineError> {
    let mut watch = Watch {
        lost: LostWatch::new(
            spec.region,
            u64::from(target.logical_block_size),
            dev.gone_check(),
        ),
        seen: Default::default(),
        refused: None,
    };
    let s = stream_watched(
        dev,
        target,
        (engine_kind, data),
        spec,
        stop,
        check_every_ns,
        enough,
        &mut watch,
    )?;
    match watch.lost_error() {
        Some(e) => Err(e),
        None => Ok(s),
    }
}

/// [`stream_on`] under `watch` (which keeps the verdict when the device is lost).
#[allow(clippy::too_many_arguments)]
pub(crate) fn stream_watched<E: Engine>(
    dev: &E,
    target: &Target,
    (engine_kind, data): (EngineKind, DataPattern),
    spec: StreamSpec,
    stop: &AtomicBool,
    check_every_ns: u64,
    enough: &mut dyn FnMut(&[StreamPoint]) -> bool,
    watch: &mut Watch,
) -> Result<Streamed, EngineError> {
    let kind = engine::resolve(engine_kind, target, spec.queue_depth as usize)?;
    let cfg = EngineConfig {
        kind,
        queue_depth: spec.queue_depth as usize,
        max_len: spec.block_size as usize,
        data,
        reap: Reap::Sleep,
    };
    let job = StreamJob {
        spec,
        next: spec.start,
        pass: 0,
        issued: 0,
        start_ns: None,
        deadline_ns: 0,
        cur: None,
        cur_bytes: 0,
        cur_offsets: 0,
        cur_cmds: 0,
        last_t: 0,
        out: Streamed::default(),
        check_every_ns: check_every_ns.max(1),
        next_check_ns: u64::MAX,
        enough,
        done: false,
    };
    let mut job = watch.run(dev, &cfg, 0x5EED, stop, !spec.write, job)?;
    let end = job.out.duration_ns;
    job.close_stretch(end);
    Ok(job.out)
}
