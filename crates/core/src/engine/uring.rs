//! The io_uring engine: registered file and buffers, fixed reads, up to `qd` in flight.
//!
//! Submission and waiting are separate calls, as fio does them: new commands are stamped
//! before (`issue`) and after (`submit`) the `io_uring_enter` that submits them, then the
//! engine reaps what has completed, waiting for one completion only when none is there;
//! completions are stamped once per reaped batch.

use super::poll_gate::PollGate;
use super::{
    fill_buffers, Clock, Cmd, Completion, EngineConfig, EngineError, Job, Next, Reap,
    POLL_BUDGET_NS,
};
use crate::aligned::AlignedBuffers;
use crate::target::Target;
use io_uring::{opcode, types, IoUring};
use std::os::unix::io::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether this kernel lets us create a ring.
pub fn available() -> bool {
    IoUring::new(2).is_ok()
}

/// A ring for this thread alone, set up as fio's io_uring engine sets up its own: single
/// issuer, completions run as deferred task work in the `io_uring_enter` that waits for them
/// (no task_work interrupt per completion; on a 2-vCPU VM it cut the submitter's CPU per 64 KiB
/// command by about a fifth and won 8 of 10 alternating QD1 runs against COOP_TASKRUN alone),
/// plus the task-run flag that [`poll_completions`] watches. Older kernels fall back to
/// cooperative task work (5.19+), then to a plain ring. The flag says whether the ring can be
/// polled.
fn build_ring(entries: u32) -> std::io::Result<(IoUring, bool)> {
    IoUring::builder()
        .setup_single_issuer()
        .setup_coop_taskrun()
        .setup_taskrun_flag()
        .setup_defer_taskrun()
        .build(entries)
        .map(|r| (r, true))
        .or_else(|_| {
            IoUring::builder()
                .setup_single_issuer()
                .setup_coop_taskrun()
                .build(entries)
                .map(|r| (r, false))
        })
        .or_else(|_| IoUring::new(entries).map(|r| (r, false)))
}

struct Slot {
    cmd: Cmd,
    issue_ns: u64,
    submit_ns: u64,
}

pub fn run<J: Job>(
    target: &Target,
    cfg: &EngineConfig,
    seed: u64,
    clock: &Clock,
    stop: &AtomicBool,
    job: &mut J,
) -> Result<(), EngineError> {
    let qd = cfg.queue_depth.max(1);
    let file = target.file().ok_or(EngineError::NullOnly)?;
    let entries = (qd as u32).next_power_of_two().max(2);
    let (mut ring, pollable) = build_ring(entries).map_err(EngineError::NoUring)?;
    let mut bufs = AlignedBuffers::new(qd, cfg.max_len, target.buffer_align);
    if target.writable() {
        fill_buffers(&mut bufs, cfg.data, seed);
    }
    let iovecs = bufs.iovecs();
    // SAFETY: the buffers outlive the ring (dropped after it, below in this function).
    unsafe { ring.submitter().register_buffers(&iovecs)? };
    ring.submitter().register_files(&[file.as_raw_fd()])?;

    let mut slots: Vec<Option<Slot>> = (0..qd).map(|_| None).collect();
    let mut free: Vec<usize> = (0..qd).rev().collect();
    let mut fresh: Vec<usize> = Vec::with_capacity(qd);
    let mut in_flight = 0usize;
    let mut finished = false;
    let mut gate = PollGate::default();
    let poll = cfg.reap == Reap::Poll && pollable;

    loop {
        let mut paused = false;
        // Fill the queue.
        if !finished && !stop.load(Ordering::Relaxed) {
            let now = clock.now_ns();
            while let Some(&slot) = free.last() {
                match job.next(now, in_flight) {
                    Next::Issue(cmd) => {
                        if cmd.write && !target.writable() {
                            return Err(EngineError::ReadOnly);
                        }
                        free.pop();
                        if J::HOOKS && cmd.write {
                            job.fill(&cmd, &mut bufs.slice_mut(slot)[..cmd.len as usize]);
                        }
                        let sqe = if cmd.write {
                            opcode::WriteFixed::new(
                                types::Fixed(0),
                                bufs.ptr(slot),
                                cmd.len,
                                slot as u16,
                            )
                            .offset(cmd.offset)
                            .build()
                        } else {
                            opcode::ReadFixed::new(
                                types::Fixed(0),
                                bufs.ptr(slot),
                                cmd.len,
                                slot as u16,
                            )
                            .offset(cmd.offset)
                            .build()
                        }
                        .user_data(slot as u64);
                        // SAFETY: the buffer and slot stay reserved until the completion.
                        unsafe {
                            ring.submission()
                                .push(&sqe)
                                .expect("submission queue sized to the queue depth");
                        }
                        slots[slot] = Some(Slot {
                            cmd,
                            issue_ns: 0,
                            submit_ns: 0,
                        });
                        fresh.push(slot);
                        in_flight += 1;
                    }
                    Next::Wait => break,
                    Next::Pause(ns) if in_flight == 0 => {
                        super::pause(ns, stop);
                        paused = true;
                        break;
                    }
                    Next::Pause(_) => break,
                    Next::Done => {
                        finished = true;
                        break;
                    }
                }
            }
        }
        if in_flight == 0 {
            if paused {
                continue;
            }
            return Ok(());
        }
        if !fresh.is_empty() {
            let issue_ns = clock.now_ns();
            enter(&ring, 0)?;
            let submit_ns = clock.now_ns();
            for &s in &fresh {
                if let Some(slot) = slots[s].as_mut() {
                    slot.issue_ns = issue_ns;
                    slot.submit_ns = submit_ns;
                }
            }
            fresh.clear();
        }
        if ring.completion().is_empty() && poll && gate.should_poll() {
            gate.record(poll_completions(&ring, clock)?);
        }
        if ring.completion().is_empty() {
            enter(&ring, 1)?;
        }
        let done_ns = clock.now_ns();
        for cqe in ring.completion() {
            let s = cqe.user_data() as usize;
            let slot = slots[s].take().expect("completion for an issued slot");
            let res = cqe.result();
            let result = if res < 0 {
                Err(-res)
            } else if res as u32 == slot.cmd.len {
                Ok(slot.cmd.len)
            } else {
                Err(libc::EIO)
            };
            in_flight -= 1;
            free.push(s);
            let c = Completion {
                cmd: slot.cmd,
                issue_ns: slot.issue_ns,
                submit_ns: slot.submit_ns,
                done_ns,
                result,
            };
            if J::HOOKS && !c.cmd.write && c.result.is_ok() {
                job.check(&c, &bufs.slice(s)[..c.cmd.len as usize]);
            }
            job.complete(&c);
        }
    }
}

/// Wait for a completion without sleeping, for up to [`POLL_BUDGET_NS`]; true when one came.
/// The kernel raises the ring's task-run flag when a command has finished and its completion
/// waits to be posted (deferred task work); only then does this enter the kernel to post it,
/// so the poll costs no system call per turn and takes no lock that the kernel's workers need.
fn poll_completions(ring: &IoUring, clock: &Clock) -> Result<bool, EngineError> {
    let t0 = clock.now_ns();
    let mut turns = 0u32;
    loop {
        // SAFETY: reads the shared flags word only.
        if unsafe { ring.submission_shared().taskrun() } {
            enter(ring, 0)?;
            // SAFETY: this thread alone reads the completion queue.
            if !unsafe { ring.completion_shared() }.is_empty() {
                return Ok(true);
            }
        }
        turns = turns.wrapping_add(1);
        if turns.is_multiple_of(64) && clock.now_ns() - t0 >= POLL_BUDGET_NS {
            return Ok(false);
        }
        std::hint::spin_loop();
    }
}

/// `IORING_ENTER_GETEVENTS` from the kernel's io_uring UAPI.
const IORING_ENTER_GETEVENTS: u32 = 1;

/// `io_uring_enter`: submit what is queued and wait for `want` completions (0: do not wait).
/// GETEVENTS is always passed, so completions already done are posted in the same call (as
/// fio's commit does). Retried when interrupted by a signal (the caller checks the stop flag).
fn enter(ring: &IoUring, want: u32) -> Result<(), EngineError> {
    // SAFETY: reading the SQ length only.
    let to_submit = unsafe { ring.submission_shared().len() as u32 };
    loop {
        // SAFETY: no argument is passed; queued SQEs point at live, reserved buffers.
        let r = unsafe {
            ring.submitter()
                .enter::<libc::sigset_t>(to_submit, want, IORING_ENTER_GETEVENTS, None)
        };
        match r {
            Ok(_) => return Ok(()),
            Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR) | Some(libc::EBUSY)) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}
