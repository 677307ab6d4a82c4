//! The replay's own io_uring loop: steps are issued in order as their dependencies complete and their
//! think time passes, and the loop waits for whichever comes first, a completion or the next step's time.
//!
//! The timed engine's [`Job`](crate::engine::Job) interface waits for a completion whenever something is in
//! flight; a replay must also wake for a request that is due while others run, hence a loop of its own,
//! with the same clock, O_DIRECT target and aligned buffers.

use super::schedule::Schedule;
use super::summary::Timing;
use super::ReplayError;
use crate::aligned::AlignedBuffers;
use crate::engine::Clock;
use crate::target::Target;
use io_uring::{opcode, types, IoUring};
use std::os::unix::io::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};

/// Below this a wait with nothing in flight spins instead of sleeping.
const SPIN_NS: u64 = 50_000;

/// What the loop did with every step.
#[derive(Debug, Default)]
pub struct Issued {
    pub timings: Vec<Option<Timing>>,
    pub interrupted: bool,
}

struct State {
    /// Steps done (issued and completed, or skipped), by step.
    done: Vec<bool>,
    /// How many steps, in the trace's completion order, are all done.
    prefix: usize,
    /// When the prefix reached each length (replay clock).
    prefix_at: Vec<u64>,
}

impl State {
    fn finish(&mut self, step: usize, now: u64, order: &[usize]) {
        self.done[step] = true;
        while self.prefix < order.len() && self.done[order[self.prefix]] {
            self.prefix += 1;
            self.prefix_at[self.prefix] = now;
        }
    }
}

/// Replay `s` on `target`, at most `depth` requests in flight.
pub fn run(
    target: &Target,
    s: &Schedule,
    depth: usize,
    no_think: bool,
    stop: &AtomicBool,
) -> Result<Issued, ReplayError> {
    let n = s.steps.len();
    let depth = depth.clamp(1, 256);
    let file = target.file().ok_or(ReplayError::NullTarget)?;
    let fd = types::Fd(file.as_raw_fd());
    let max_len = s.steps.iter().map(|x| x.len as usize).max().unwrap_or(4096);
    let mut bufs = AlignedBuffers::new(depth, max_len, target.buffer_align);
    if target.writable() {
        crate::engine::fill_buffers(&mut bufs, crate::engine::DataPattern::Random, 7);
    }
    let mut ring =
        IoUring::new((depth as u32).next_power_of_two().max(2)).map_err(ReplayError::NoUring)?;
    let clock = Clock::new();
    let mut st = State {
        done: vec![false; n],
        prefix: 0,
        prefix_at: vec![0; n + 1],
    };
    let mut timings: Vec<Option<Timing>> = vec![None; n];
    let mut slots: Vec<Option<usize>> = vec![None; depth];
    let mut free: Vec<usize> = (0..depth).rev().collect();
    let mut next = 0usize;
    let mut in_flight = 0usize;
    let mut interrupted = false;
    loop {
        if stop.load(Ordering::Relaxed) && next < n {
            interrupted = true;
            next = n;
        }
        let now = clock.now_ns();
        let mut due_at = None;
        while next < n {
            let step = &s.steps[next];
            if st.prefix < step.after {
                break;
            }
            let due = st.prefix_at[step.after] + if no_think { 0 } else { step.think_ns };
            if due > now {
                due_at = Some(due);
                break;
            }
            if step.skip {
                st.finish(next, now, &s.completion_order);
                next += 1;
                continue;
            }
            let Some(slot) = free.pop() else { break };
            let sqe = if step.write {
                opcode::Write::new(fd, bufs.ptr(slot), step.len)
                    .offset(step.offset)
                    .build()
            } else {
                opcode::Read::new(fd, bufs.ptr(slot), step.len)
                    .offset(step.offset)
                    .build()
            }
            .user_data(slot as u64);
            // SAFETY: the slot's buffer stays reserved until its completion is reaped.
            unsafe {
                ring.submission()
                    .push(&sqe)
                    .expect("submission queue sized to the depth");
            }
            slots[slot] = Some(next);
            // One request per submission, as the trace's were issued: several sequential ones queued
            // in one call would be merged by the block layer's plug into fewer, larger requests.
            timings[next] = Some(Timing {
                issue_ns: clock.now_ns(),
                ..Timing::default()
            });
            submit(&ring, 0, None)?;
            in_flight += 1;
            next += 1;
        }
        if next >= n && in_flight == 0 {
            break;
        }
        if in_flight > 0 {
            let wait = due_at.map(|d| d.saturating_sub(clock.now_ns()));
            if wait != Some(0) && ring.completion().is_empty() {
                submit(&ring, 1, wait)?;
            }
        } else if let Some(d) = due_at {
            let left = d.saturating_sub(clock.now_ns());
            if left > SPIN_NS {
                std::thread::sleep(std::time::Duration::from_nanos(left - SPIN_NS / 2));
            } else {
                std::hint::spin_loop();
            }
            continue;
        }
        let done_ns = clock.now_ns();
        for cqe in ring.completion() {
            let slot = cqe.user_data() as usize;
            let i = slots[slot].take().expect("a completion for an issued slot");
            free.push(slot);
            in_flight -= 1;
            let res = cqe.result();
            let t = timings[i].as_mut().expect("issued");
            t.done_ns = done_ns;
            if res < 0 {
                t.error = Some(-res);
            } else if res as u32 != s.steps[i].len {
                t.error = Some(libc::EIO);
            }
            st.finish(i, done_ns, &s.completion_order);
        }
    }
    Ok(Issued {
        timings,
        interrupted,
    })
}

/// `io_uring_enter`: submit what is queued and wait for `want` completions, for at most `timeout` ns.
fn submit(ring: &IoUring, want: usize, timeout: Option<u64>) -> Result<(), ReplayError> {
    loop {
        let r = match timeout {
            Some(ns) => {
                let ts = types::Timespec::new()
                    .sec(ns / 1_000_000_000)
                    .nsec((ns % 1_000_000_000) as u32);
                let args = types::SubmitArgs::new().timespec(&ts);
                ring.submitter().submit_with_args(want, &args)
            }
            None => ring.submitter().submit_and_wait(want),
        };
        match r {
            Ok(_) => return Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::ETIME) => return Ok(()),
            Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR) | Some(libc::EBUSY)) => {
                if timeout.is_some() {
                    return Ok(());
                }
            }
            Err(e) => return Err(ReplayError::Io(e)),
        }
    }
}
