//! The timed I/O engine: it issues a [`Job`]'s commands against a target and hands every
//! completion, with its submit and completion timestamps, back to the job.
//!
//! Engines: `io_uring` (registered file and buffers, batching), `psync` (one `pread` at a
//! time; faster at QD1 on devices that complete inline, such as zram) and `null` (completes
//! at once; measures the instrument's own ceiling). One engine instance per worker thread.
//!
//! Workloads run on an [`Engine`]: [`Live`] on an opened target, or the scripted device of
//! `scripted` (chosen latencies and errnos on a virtual clock) in tests. The scripted device
//! is compiled for this crate's own tests and, for other crates' tests, behind the `testing`
//! feature (`drivescope-core = { ..., features = ["testing"] }` in `[dev-dependencies]`).

mod clock;
mod null;
mod poll_gate;
mod psync;
pub(crate) use psync::transfer;
#[cfg(any(test, feature = "testing"))]
pub mod scripted;
#[cfg(any(test, feature = "testing"))]
pub mod scripted_damage;
mod uring;

pub use clock::{Clock, Now};

use crate::aligned::AlignedBuffers;
use crate::target::{Target, TargetType};
pub use drivescope_record::{DataPattern, EngineKind, Reap};
use std::sync::atomic::AtomicBool;

/// One command to issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cmd {
    pub offset: u64,
    pub len: u32,
    /// The job's own marker (e.g. main command vs sector re-read).
    pub tag: u32,
    /// Write the slot's buffer instead of reading into it. Only jobs on targets opened for
    /// writing (test files drivescope created) issue writes.
    pub write: bool,
}

/// A finished command. Times are nanoseconds since the run's clock started.
///
/// `issue_ns` is taken just before the command is handed to the kernel and `submit_ns` when
/// the submission call has returned (the kernel has accepted it); `done_ns` when its
/// completion was seen. The command's latency is the whole of it (`done - issue`, fio's lat):
/// a command the kernel completes inside its submission call (a page-cache or tmpfs read,
/// zram) spends its time there, and its completion latency alone (`done - submit`, fio's
/// clat) would be a few dozen nanoseconds for a 64 KiB read. Submission latency (`submit -
/// issue`) is fio's slat. For psync and null, issue == submit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    pub cmd: Cmd,
    pub issue_ns: u64,
    pub submit_ns: u64,
    pub done_ns: u64,
    /// Bytes moved, or the errno of a failure (a short transfer counts as `EIO`).
    pub result: Result<u32, i32>,
}

impl Completion {
    /// The command's latency: from handing it to the kernel to seeing its completion (fio's
    /// lat; submission plus completion latency).
    #[inline]
    pub fn latency_ns(&self) -> u64 {
        self.done_ns.saturating_sub(self.issue_ns)
    }

    /// Completion latency: from accepted submission to completion (fio's clat).
    #[inline]
    pub fn completion_latency_ns(&self) -> u64 {
        self.done_ns.saturating_sub(self.submit_ns)
    }

    /// Submission latency: the submission call's own time (fio's slat).
    #[inline]
    pub fn submit_latency_ns(&self) -> u64 {
        self.submit_ns.saturating_sub(self.issue_ns)
    }
}

/// What a job wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    Issue(Cmd),
    /// Nothing to issue until some in-flight command completes.
    Wait,
    /// Nothing to issue for this many nanoseconds, with nothing in flight (a pause before a
    /// device is asked again); the engine then asks for the next command.
    Pause(u64),
    /// Nothing more, ever.
    Done,
}

/// A workload: produces commands and consumes their completions.
pub trait Job {
    /// The next command, given the time and the commands in flight.
    /// Must not return `Wait` while nothing is in flight.
    fn next(&mut self, now_ns: u64, in_flight: usize) -> Next;
    /// One command finished.
    fn complete(&mut self, c: &Completion);

    /// Whether the job uses [`Job::fill`] and [`Job::check`]. Engines skip both calls when
    /// false, so plain workloads keep their hot path unchanged (the constant is resolved at
    /// compile time for each job type).
    const HOOKS: bool = false;
    /// Fill the buffer of a write command just before it is submitted (`buf` is exactly
    /// `cmd.len` bytes). Only called when `HOOKS` is true.
    #[inline]
    fn fill(&mut self, _cmd: &Cmd, _buf: &mut [u8]) {}
    /// Inspect the data a successful read brought back, before [`Job::complete`] sees its
    /// completion (`buf` is exactly `c.cmd.len` bytes). Only called when `HOOKS` is true.
    #[inline]
    fn check(&mut self, _c: &Completion, _buf: &[u8]) {}
}

/// Sleep `ns` (a job's [`Next::Pause`]), in steps short enough that a stop is seen within
/// 50 ms.
pub(crate) fn pause(ns: u64, stop: &AtomicBool) {
    let until = std::time::Instant::now() + std::time::Duration::from_nanos(ns);
    loop {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let now = std::time::Instant::now();
        if now >= until {
            return;
        }
        std::thread::sleep((until - now).min(std::time::Duration::from_millis(50)));
    }
}

/// Engine errors.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("io_uring is not available here ({0}); use --engine psync")]
    NoUring(std::io::Error),
    #[error(
        "the psync engine issues one command at a time; use --queue-depth 1 or --engine io_uring"
    )]
    PsyncDepth,
    #[error("the null target completes every command itself; it takes no engine other than null")]
    NullOnly,
    #[error("a real target cannot use the null engine")]
    NullNeedsNullTarget,
    #[error("this target was opened read-only; writes go only to test files drivescope creates")]
    ReadOnly,
    #[error("I/O engine: {0}")]
    Io(#[from] std::io::Error),
}

/// Settings for one worker.
#[derive(Debug, Clone, Copy)]
pub struct EngineConfig {
    pub kind: EngineKind,
    pub queue_depth: usize,
    /// Largest command, bytes (buffer size).
    pub max_len: usize,
    /// What write buffers hold.
    pub data: DataPattern,
    /// How the io_uring engine waits for completions (`Auto` is taken as `Sleep` here: resolve
    /// it first with [`resolve_reap`]).
    pub reap: Reap,
}

pub use poll_gate::PROBE_EVERY;

/// The longest a poll goes on without a completion before the engine sleeps.
pub const POLL_BUDGET_NS: u64 = 50_000;
/// The shallowest queue at which `Reap::Auto` polls in `bench`, `sweep` and `soak`: with fewer
/// commands in flight, the gaps between completions are the device's own latency, and
/// sleeping costs little CPU.
pub const POLL_MIN_QD: usize = 8;

/// Whether a run of `threads` busy threads leaves a CPU to the kernel's workers and interrupts.
fn cpu_left(threads: usize) -> bool {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    threads < cpus
}

/// The wait mode for a bench, sweep or soak run: `Auto` polls on io_uring at a queue depth of
/// at least [`POLL_MIN_QD`] when the run's worker threads number fewer than the CPUs it may use
/// (one is left to the kernel's workers and interrupts); every other case sleeps, as fio does.
/// Engines other than io_uring always block in their call (reported as `Sleep`).
pub fn resolve_reap(
    requested: Reap,
    engine: EngineKind,
    queue_depth: usize,
    threads: usize,
) -> Reap {
    resolve_with(requested, engine, || {
        queue_depth >= POLL_MIN_QD && cpu_left(threads)
    })
}

/// The wait mode for a scan: `Auto` polls on io_uring at queue depth 1 when a CPU is left.
/// A scan at QD1 issues each command only when the last one is done, so the submitter's
/// wake-up after each completion is idle time of the device, added to every command and
/// taken off the scan's rate (on a VM, the wake-up of an idle vCPU costs tens of µs against
/// tens of µs for a 64 KiB read from a fast device). With more commands in flight the queue
/// keeps the device busy while the submitter wakes, and the scan sleeps as fio does.
pub fn resolve_scan_reap(requested: Reap, engine: EngineKind, queue_depth: usize) -> Reap {
    resolve_with(requested, engine, || queue_depth == 1 && cpu_left(1))
}

/// What the user asked for on io_uring, `auto` decided by `auto_polls`; other engines block
/// in their own call (`Sleep`).
fn resolve_with(requested: Reap, engine: EngineKind, auto_polls: impl FnOnce() -> bool) -> Reap {
    match requested {
        _ if engine != EngineKind::IoUring => Reap::Sleep,
        Reap::Auto if auto_polls() => Reap::Poll,
        Reap::Auto => Reap::Sleep,
        r => r,
    }
}

/// Fill write buffers for `pattern`; `seed` differs per worker so buffers differ.
pub fn fill_buffers(bufs: &mut AlignedBuffers, pattern: DataPattern, seed: u64) {
    if pattern == DataPattern::Zero {
        return; // allocated zeroed
    }
    let mut rng = crate::rng::Rng::new(seed);
    for i in 0..bufs.count() {
        for chunk in bufs.slice_mut(i).chunks_exact_mut(8) {
            chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
        }
    }
}

/// Choose the concrete engine for `requested` on `target` at `queue_depth`.
///
/// `auto` picks null for the null target, psync at QD1 on devices that complete inline
/// (zram, brd, pmem: there the extra io_uring round trip costs more than it saves), and
/// io_uring otherwise.
pub fn resolve(
    requested: EngineKind,
    target: &Target,
    queue_depth: usize,
) -> Result<EngineKind, EngineError> {
    let null = target.kind == TargetType::Null;
    match requested {
        EngineKind::Auto if null => Ok(EngineKind::Null),
        EngineKind::Null if null => Ok(EngineKind::Null),
        _ if null => Err(EngineError::NullOnly),
        EngineKind::Null => Err(EngineError::NullNeedsNullTarget),
        EngineKind::Psync if queue_depth > 1 => Err(EngineError::PsyncDepth),
        EngineKind::Auto => {
            let inline = target.block_name().is_some_and(|n| {
                n.starts_with("zram") || n.starts_with("ram") || n.starts_with("pmem")
            });
            if queue_depth == 1 && (inline || !uring::available()) {
                Ok(EngineKind::Psync)
            } else {
                Ok(EngineKind::IoUring)
            }
        }
        k => Ok(k),
    }
}

/// What a workload's commands run on, with the clock its timestamps are read from: the
/// engines on an opened target ([`Live`]), or, in unit tests, a scripted device on virtual
/// time (`scripted::Scripted`, compiled for tests and behind the `testing` feature).
/// Workloads take one as a type parameter, so the choice is made at compile time and the
/// engines' per-command path is exactly [`run`]'s.
pub trait Engine: Sync {
    /// The run's clock (shared by the run's workers).
    type Clock: Now + Sync;
    /// A clock starting now (time 0 is the start of the run).
    fn clock(&self) -> Self::Clock;
    /// Run `job` to the end, or until `stop` is set and in-flight commands are drained, on
    /// the calling thread (see [`run`]).
    fn run<J: Job>(
        &self,
        cfg: &EngineConfig,
        seed: u64,
        clock: &Self::Clock,
        stop: &AtomicBool,
        job: &mut J,
    ) -> Result<(), EngineError>;

    /// Where the kernel says whether the device is still there (see `gone`).
    fn gone_check(&self) -> crate::gone::GoneCheck {
        crate::gone::GoneCheck::default()
    }
}

/// The engines on an opened target, on the monotonic clock.
#[derive(Debug, Clone, Copy)]
pub struct Live<'a>(pub &'a Target);

impl Engine for Live<'_> {
    type Clock = Clock;

    #[inline]
    fn clock(&self) -> Clock {
        Clock::new()
    }

    #[inline]
    fn run<J: Job>(
        &self,
        cfg: &EngineConfig,
        seed: u64,
        clock: &Clock,
        stop: &AtomicBool,
        job: &mut J,
    ) -> Result<(), EngineError> {
        run(self.0, cfg, seed, clock, stop, job)
    }

    fn gone_check(&self) -> crate::gone::GoneCheck {
        self.0.gone_check()
    }
}

/// Run `job` to the end (or until `stop` is set and in-flight commands are drained) on one
/// thread. `seed` varies the write data between workers.
pub fn run<J: Job>(
    target: &Target,
    cfg: &EngineConfig,
    seed: u64,
    clock: &Clock,
    stop: &AtomicBool,
    job: &mut J,
) -> Result<(), EngineError> {
    let qd = cfg.queue_depth.max(1);
    match cfg.kind {
        EngineKind::Null => {
            null::run(clock, qd, stop, job);
            Ok(())
        }
        EngineKind::Psync => {
            if qd > 1 {
                return Err(EngineError::PsyncDepth);
            }
            psync::run(target, cfg, seed, clock, stop, job)
        }
        EngineKind::IoUring => uring::run(target, cfg, seed, clock, stop, job),
        EngineKind::Auto => {
            let k = resolve(EngineKind::Auto, target, qd)?;
            run(
                target,
                &EngineConfig { kind: k, ..*cfg },
                seed,
                clock,
                stop,
                job,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{resolve_reap, resolve_scan_reap, Cmd, Completion, EngineKind, Reap};

    /// A command the kernel completes inside its submission call spends its time there: its
    /// latency is the whole of it, not the few nanoseconds between the call's return and the
    /// completion being seen.
    #[test]
    fn latency_is_the_whole_command_time() {
        let c = Completion {
            cmd: Cmd {
                offset: 0,
                len: 65536,
                tag: 0,
                write: false,
            },
            issue_ns: 1_000,
            submit_ns: 13_000,
            done_ns: 13_070,
            result: Ok(65536),
        };
        assert_eq!(c.latency_ns(), 12_070);
        assert_eq!(c.submit_latency_ns(), 12_000);
        assert_eq!(c.completion_latency_ns(), 70);
        assert_eq!(
            c.latency_ns(),
            c.submit_latency_ns() + c.completion_latency_ns()
        );
    }

    #[test]
    fn auto_polls_only_deep_io_uring_queues_that_leave_a_cpu_free() {
        use EngineKind::{IoUring, Null, Psync};
        use Reap::{Auto, Poll, Sleep};
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let deep = if cpus > 1 { Poll } else { Sleep };
        // (asked, engine, queue depth, threads, expected)
        let cases = [
            (Auto, IoUring, 32, 1, deep),
            (Auto, IoUring, 8, 1, deep),
            (Auto, IoUring, 7, 1, Sleep),
            (Auto, IoUring, 1, 1, Sleep),
            (Auto, IoUring, 32, cpus, Sleep),
            // What the user asks for stands, on io_uring.
            (Poll, IoUring, 1, 64, Poll),
            (Sleep, IoUring, 32, 1, Sleep),
            // The other engines block in their own call.
            (Poll, Psync, 1, 1, Sleep),
            (Auto, Null, 32, 1, Sleep),
        ];
        for (asked, engine, qd, threads, want) in cases {
            assert_eq!(
                resolve_reap(asked, engine, qd, threads),
                want,
                "{asked} on {engine} at QD{qd} with {threads} threads"
            );
        }
    }

    #[test]
    fn scans_poll_by_default_only_back_to_back_on_io_uring() {
        use EngineKind::{IoUring, Null, Psync};
        use Reap::{Auto, Poll, Sleep};
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let qd1 = if cpus > 1 { Poll } else { Sleep };
        // (asked, engine, queue depth, expected)
        let cases = [
            (Auto, IoUring, 1, qd1),
            (Auto, IoUring, 2, Sleep),
            (Auto, IoUring, 32, Sleep),
            (Sleep, IoUring, 1, Sleep),
            (Poll, IoUring, 4, Poll),
            (Auto, Psync, 1, Sleep),
            (Poll, Null, 1, Sleep),
        ];
        for (asked, engine, qd, want) in cases {
            assert_eq!(
                resolve_scan_reap(asked, engine, qd),
                want,
                "{asked} on {engine} at QD{qd}"
            );
        }
    }
}
