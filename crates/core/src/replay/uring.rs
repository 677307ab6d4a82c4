//! The replay's own io_uring loop: steps are issued in order as enough requests complete (as many as
//! each step waits for, whichever they are) and their think time passes, and the loop waits for
//! whichever comes first, a completion or the next step's time.
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

/// The loop watches the completion ring, instead of sleeping, while its recent waits for a
/// completion were shorter than this (the median of the last [`WAITS`]): a RAM-backed device
/// completes sooner than a task asleep in `io_uring_enter` is woken, and a traced program that was
/// busy issuing saw its completions at once. On a slower device the loop sleeps, and leaves the CPU
/// to whatever serves the device (a loop worker, a FUSE server).
const QUICK_NS: u64 = 8_000;

/// How many recent waits decide whether to watch the ring.
const WAITS: usize = 16;

/// How long the loop waited for its recent completions.
#[derive(Debug, Default)]
struct Waits {
    last: [u64; WAITS],
    seen: usize,
}

impl Waits {
    fn saw(&mut self, ns: u64) {
        self.last[self.seen % WAITS] = ns;
        self.seen += 1;
    }

    /// The median of the recent waits (none before the first).
    fn median(&self) -> Option<u64> {
        let n = self.seen.min(WAITS);
        let mut v = self.last;
        let v = &mut v[..n];
        (n > 0).then(|| *v.select_nth_unstable(n / 2).1)
    }

    /// How long to watch the ring before sleeping (twice the usual wait), or `None` to sleep at once.
    fn watch_ns(&self) -> Option<u64> {
        match self.median() {
            None => Some(2 * QUICK_NS),
            Some(m) if m < QUICK_NS => Some(2 * m.max(1_000)),
            Some(_) => None,
        }
    }
}

/// What the loop did with every step.
#[derive(Debug, Default)]
pub struct Issued {
    pub timings: Vec<Option<Timing>>,
    pub interrupted: bool,
}

/// What has completed so far, and when.
pub(super) struct State {
    /// Steps done (issued and completed, or skipped), by step.
    done: Vec<bool>,
    /// How many steps are done.
    count: usize,
    /// When the count reached each value (replay clock).
    count_at: Vec<u64>,
    /// When the last step was issued.
    last_issue: u64,
}

impl State {
    pub(super) fn new(n: usize) -> Self {
        State {
            done: vec![false; n],
            count: 0,
            count_at: vec![0; n + 1],
            last_issue: 0,
        }
    }

    pub(super) fn finish(&mut self, step: usize, now: u64) {
        debug_assert!(!self.done[step], "step {step} done twice");
        self.done[step] = true;
        self.count += 1;
        self.count_at[self.count] = now;
    }

    pub(super) fn issued(&mut self, now: u64) {
        self.last_issue = now;
    }

    /// When step `i` of `s` may be issued, or `None` while fewer steps are done than it waits for:
    /// its think time after the later of the moment enough were done and the last issue.
    pub(super) fn due(&self, s: &Schedule, i: usize, no_think: bool) -> Option<u64> {
        let after = s.steps[i].after;
        if self.count < after {
            return None;
        }
        Some(self.count_at[after].max(self.last_issue) + s.wait_ns(i, no_think))
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
    let entries = (depth as u32).next_power_of_two().max(2);
    // Cooperative task running: a completion does not interrupt this task while it runs (an
    // interprocessor interrupt, costly in a virtual machine); it sets a flag the loop reads when it
    // watches the ring. Kernels before 5.19 refuse the flags and get a plain ring.
    let mut ring = IoUring::builder()
        .setup_coop_taskrun()
        .setup_taskrun_flag()
        .build(entries)
        .or_else(|_| IoUring::new(entries))
        .map_err(ReplayError::NoUring)?;
    let clock = Clock::new();
    let mut st = State::new(n);
    let mut timings: Vec<Option<Timing>> = vec![None; n];
    let mut slots: Vec<Option<usize>> = vec![None; depth];
    let mut free: Vec<usize> = (0..depth).rev().collect();
    let mut next = 0usize;
    let mut in_flight = 0usize;
    let mut interrupted = false;
    let mut waits = Waits::default();
    loop {
        if stop.load(Ordering::Relaxed) && next < n {
            interrupted = true;
            next = n;
        }
        let now = clock.now_ns();
        let mut due_at = None;
        while next < n {
            let step = &s.steps[next];
            let Some(due) = st.due(s, next, no_think) else {
                break;
            };
            if due > now {
                due_at = Some(due);
                break;
            }
            if step.skip {
                st.finish(next, now);
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
            let issue_ns = clock.now_ns();
            st.issued(issue_ns);
            timings[next] = Some(Timing {
                issue_ns,
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
            if ring.completion().is_empty() {
                let from = clock.now_ns();
                let seen = waits
                    .watch_ns()
                    .is_some_and(|ns| poll(&mut ring, &clock, due_at, ns));
                if !seen {
                    let wait = due_at.map(|d| d.saturating_sub(clock.now_ns()));
                    if wait != Some(0) {
                        submit(&ring, 1, wait)?;
                    }
                }
                if !ring.completion().is_empty() {
                    waits.saw(clock.now_ns() - from);
                }
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
            st.finish(i, done_ns);
        }
    }
    Ok(Issued {
        timings,
        interrupted,
    })
}

/// Watches the completion ring from user space until something completes (true), the next step is
/// due, or `watch_ns` have passed (see [`QUICK_NS`]).
fn poll(ring: &mut IoUring, clock: &Clock, due_at: Option<u64>, watch_ns: u64) -> bool {
    let until = clock.now_ns() + watch_ns;
    let until = due_at.map_or(until, |d| d.min(until));
    loop {
        if ring.submission().taskrun() {
            // completions wait for this task to run the kernel's work for them
            let _ = ring.submitter().submit_and_wait(0);
        }
        if !ring.completion().is_empty() {
            return true;
        }
        if clock.now_ns() >= until {
            return false;
        }
        std::hint::spin_loop();
    }
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

#[cfg(test)]
mod tests {
    use super::super::schedule::{build, Mapping};
    use super::{State, Waits, QUICK_NS, WAITS};
    use drivescope_trace::{Op, Request};

    fn req(issue: u64, complete: u64) -> Request {
        Request {
            dev: 1,
            sector: issue,
            bytes: 4096,
            op: Op::Read,
            sync: false,
            issue_ns: issue,
            complete_ns: complete,
            error: 0,
        }
    }

    const M: Mapping = Mapping {
        size: 1 << 30,
        block: 512,
        wrap: false,
        writable: false,
    };

    #[test]
    fn the_ring_is_watched_while_completions_come_sooner_than_a_wake_up() {
        let mut w = Waits::default();
        assert_eq!(w.watch_ns(), Some(2 * QUICK_NS), "nothing seen yet: watch");
        for _ in 0..WAITS {
            w.saw(3_000);
        }
        assert_eq!(w.watch_ns(), Some(6_000));
        // a preempted wait among quick ones changes nothing
        w.saw(1_000_000);
        assert_eq!(w.watch_ns(), Some(6_000));
        // a device that takes tens of µs: sleep
        for _ in 0..WAITS / 2 + 1 {
            w.saw(60_000);
        }
        assert_eq!(w.watch_ns(), None);
        // and quick again once most recent waits are quick
        for _ in 0..WAITS / 2 + 1 {
            w.saw(2_000);
        }
        assert_eq!(w.watch_ns(), Some(4_000));
        // very short waits still watch a µs or two
        for _ in 0..WAITS {
            w.saw(100);
        }
        assert_eq!(w.watch_ns(), Some(2_000));
    }

    #[test]
    fn a_step_is_due_after_as_many_completions_whichever_they_are() {
        // Two in flight, refilled 5 ns after each completion: A and B, then C after A, D after B.
        let rs = [req(0, 100), req(1, 200), req(105, 300), req(205, 400)];
        let s = build(&rs, &M);
        assert_eq!(s.reaction_ns, 5);
        let after: Vec<usize> = s.steps.iter().map(|x| x.after).collect();
        assert_eq!(after, [0, 0, 1, 2]);
        let mut st = State::new(4);
        assert_eq!(st.due(&s, 0, false), Some(0));
        assert_eq!(st.due(&s, 1, false), Some(1));
        st.issued(0);
        st.issued(1);
        assert_eq!(st.due(&s, 2, false), None, "nothing has completed");
        // In the replay B completes first: C waited for one completion, and one came.
        st.finish(1, 50);
        assert_eq!(st.due(&s, 2, false), Some(50));
        st.issued(52);
        assert_eq!(
            st.due(&s, 3, false),
            None,
            "D waits for a second completion"
        );
        st.finish(0, 70);
        assert_eq!(st.due(&s, 3, false), Some(70));
    }

    #[test]
    fn think_time_runs_from_the_later_of_the_completion_and_the_last_issue() {
        // One at a time, each issued 5 ns after the one before completed, the last after 45 ns.
        let rs = [req(0, 100), req(105, 200), req(245, 300)];
        let s = build(&rs, &M);
        assert_eq!(s.reaction_ns, 5);
        let think: Vec<u64> = s.steps.iter().map(|x| x.think_ns).collect();
        assert_eq!(think, [0, 0, 40]);
        let mut st = State::new(3);
        st.issued(0);
        st.finish(0, 10);
        st.issued(12);
        st.finish(1, 20);
        assert_eq!(st.due(&s, 2, false), Some(60));
        assert_eq!(st.due(&s, 2, true), Some(20));
        // A step issued after the completion it waited for counts its think time from that issue.
        let mut late = State::new(3);
        late.finish(0, 10);
        late.issued(30);
        late.finish(1, 20);
        assert_eq!(late.due(&s, 2, false), Some(70));
    }
}
