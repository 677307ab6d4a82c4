//! A scripted device for tests: each command completes after the latency, and with the
//! result, that a script chooses for it, on a virtual clock that only those latencies move.
//! Workloads run on it through [`Engine`] as they run on a real target, in microseconds of
//! real time and with exactly repeatable timestamps, so their accounting (retries, device-lost
//! detection, quick-scan regions, bench rates, a diagnosis's experiments and budget) can be
//! checked against exact expectations.
//!
//! Compiled for this crate's tests, and for other crates behind the `testing` feature:
//! `drivescope-core = { workspace = true, features = ["testing"] }` in `[dev-dependencies]`.
//!
//! The device serves every command in flight at once: a command issued at `t` completes at
//! `t + latency`, whatever else is in flight (a script that models a device which serves
//! one command at a time keeps its own "busy until" and answers with the wait included). Like
//! the io_uring engine, it fills the queue up to the queue depth, then reaps every command
//! that completes at the earliest completion time in one batch (in the order they were
//! issued). Submission takes no time (issue == submit). Writes store nothing and reads bring
//! back zeros.
//!
//! Time: the device keeps one virtual timeline from its creation. Every clock it hands out
//! reads that timeline (from the clock's own start), so a clock taken before several runs,
//! each on a clock of its own, has seen all of them, as a monotonic clock would; the script
//! sees both the run's time ([`Call::at_ns`]) and the device's ([`Call::device_ns`]).

use super::{Cmd, Completion, Engine, EngineConfig, EngineError, Job, Next, Now};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A command as the script sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    pub offset: u64,
    pub len: u32,
    pub write: bool,
    /// How many times the same command (offset, length, direction) was issued before.
    pub attempt: u32,
    /// Virtual time of the submission, on the run's clock.
    pub at_ns: u64,
    /// Virtual time of the submission on the device's timeline (since the device was made,
    /// across every run on it): what a model of a device's state over time (a warm-up, a
    /// cache draining) reads.
    pub device_ns: u64,
}

/// The script's answer for one command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reply {
    pub latency_ns: u64,
    /// `Err(errno)` fails the command.
    pub result: Result<(), i32>,
}

impl Reply {
    pub fn ok(latency_ns: u64) -> Reply {
        Reply {
            latency_ns,
            result: Ok(()),
        }
    }

    pub fn err(latency_ns: u64, errno: i32) -> Reply {
        Reply {
            latency_ns,
            result: Err(errno),
        }
    }
}

/// The device's virtual time, shared by every clock it hands out.
#[derive(Debug, Default)]
struct Timeline {
    /// Nanoseconds since the device was made.
    now: AtomicU64,
    /// A run is in progress on the device.
    busy: AtomicBool,
}

/// The virtual clock of a scripted run: it stands still between commands and jumps to each
/// completion time. It reads the device's timeline from the clock's start.
#[derive(Debug)]
pub struct VirtualClock {
    timeline: Arc<Timeline>,
    /// Timeline time at which this clock reads 0 (wrapping: a clock may start ahead).
    origin: u64,
}

impl VirtualClock {
    fn of_device(&self, device_ns: u64) -> u64 {
        device_ns.wrapping_sub(self.origin)
    }
}

impl Now for VirtualClock {
    fn now_ns(&self) -> u64 {
        self.of_device(self.timeline.now.load(Ordering::Relaxed))
    }
}

/// A device whose every command is answered by `script`.
pub struct Scripted<F> {
    script: Mutex<F>,
    attempts: Mutex<HashMap<(u64, u32, bool), u32>>,
    calls: Mutex<Vec<Call>>,
    start_ns: u64,
    /// Keep the calls and count attempts (off for runs of millions of commands).
    log: bool,
    /// What the kernel says of the device (a directory standing in for its sysfs one).
    gone: crate::gone::GoneCheck,
    timeline: Arc<Timeline>,
}

impl<F: FnMut(&Call) -> Reply + Send> Scripted<F> {
    pub fn new(script: F) -> Self {
        Scripted {
            script: Mutex::new(script),
            attempts: Mutex::new(HashMap::new()),
            calls: Mutex::new(Vec::new()),
            start_ns: 0,
            log: true,
            gone: Default::default(),
            timeline: Arc::default(),
        }
    }

    /// Let the kernel's word on the device be read from `sysfs` (a directory the test makes
    /// and removes, or writes a `device/state` into).
    pub fn with_sysfs(mut self, sysfs: std::path::PathBuf) -> Self {
        self.gone = crate::gone::GoneCheck { sysfs: Some(sysfs) };
        self
    }

    /// Keep no calls and count no attempts (every `attempt` is 0): a run of millions of
    /// commands then takes no memory per command here either.
    pub fn unlogged(mut self) -> Self {
        self.log = false;
        self
    }

    /// Start each new clock at `ns` instead of 0, as a real run's clock has run a little
    /// before its first command is issued.
    pub fn starting_at(mut self, ns: u64) -> Self {
        self.start_ns = ns;
        self
    }

    /// Every command issued so far, in order.
    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    /// Virtual time since the device was made (every run on it, every pause).
    pub fn device_ns(&self) -> u64 {
        self.timeline.now.load(Ordering::Relaxed)
    }

    fn answer(&self, cmd: &Cmd, at_ns: u64, device_ns: u64) -> Reply {
        let attempt = if !self.log {
            0
        } else {
            let mut a = self.attempts.lock().unwrap();
            let n = a.entry((cmd.offset, cmd.len, cmd.write)).or_insert(0);
            *n += 1;
            *n - 1
        };
        let call = Call {
            offset: cmd.offset,
            len: cmd.len,
            write: cmd.write,
            attempt,
            at_ns,
            device_ns,
        };
        if self.log {
            self.calls.lock().unwrap().push(call);
        }
        (self.script.lock().unwrap())(&call)
    }
}

/// A command in flight.
struct Flight {
    cmd: Cmd,
    submit_ns: u64,
    done_ns: u64,
    result: Result<u32, i32>,
}

impl<F: FnMut(&Call) -> Reply + Send> Engine for Scripted<F> {
    type Clock = VirtualClock;

    fn gone_check(&self) -> crate::gone::GoneCheck {
        self.gone.clone()
    }

    fn clock(&self) -> VirtualClock {
        VirtualClock {
            timeline: self.timeline.clone(),
            origin: self.device_ns().wrapping_sub(self.start_ns),
        }
    }

    /// One worker at a time: a run continues the device's time from where the last one left
    /// it (concurrent workers would each need their own timeline, so a second one panics).
    fn run<J: Job>(
        &self,
        cfg: &EngineConfig,
        _seed: u64,
        clock: &VirtualClock,
        stop: &AtomicBool,
        job: &mut J,
    ) -> Result<(), EngineError> {
        let timeline = &self.timeline;
        assert!(
            Arc::ptr_eq(timeline, &clock.timeline),
            "a scripted run takes a clock of its own device"
        );
        assert!(
            !timeline.busy.swap(true, Ordering::AcqRel),
            "the scripted engine runs one worker at a time"
        );
        // Times below are the device's; the job sees them on the run's clock.
        let at = |device_ns: u64| clock.of_device(device_ns);
        let qd = cfg.queue_depth.max(1);
        let mut buf = vec![0u8; if J::HOOKS { cfg.max_len } else { 0 }];
        let mut flights: Vec<Flight> = Vec::with_capacity(qd);
        let mut now = timeline.now.load(Ordering::Relaxed);
        let mut finished = false;
        loop {
            let mut paused = false;
            if !finished && !stop.load(Ordering::Relaxed) {
                while flights.len() < qd {
                    match job.next(at(now), flights.len()) {
                        Next::Issue(cmd) => {
                            assert!(cmd.len as usize <= cfg.max_len, "command over max_len");
                            if J::HOOKS && cmd.write {
                                job.fill(&cmd, &mut buf[..cmd.len as usize]);
                            }
                            let reply = self.answer(&cmd, at(now), now);
                            flights.push(Flight {
                                cmd,
                                submit_ns: now,
                                done_ns: now + reply.latency_ns,
                                result: reply.result.map(|()| cmd.len),
                            });
                        }
                        Next::Wait => break,
                        Next::Pause(ns) if flights.is_empty() => {
                            // Virtual time: the pause passes at once.
                            now += ns;
                            timeline.now.store(now, Ordering::Relaxed);
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
            let Some(t) = flights.iter().map(|f| f.done_ns).min() else {
                if paused {
                    continue;
                }
                break;
            };
            now = t;
            timeline.now.store(now, Ordering::Relaxed);
            let mut i = 0;
            while i < flights.len() {
                if flights[i].done_ns != t {
                    i += 1;
                    continue;
                }
                let f = flights.remove(i);
                let c = Completion {
                    cmd: f.cmd,
                    issue_ns: at(f.submit_ns),
                    submit_ns: at(f.submit_ns),
                    done_ns: at(f.done_ns),
                    result: f.result,
                };
                if J::HOOKS && !c.cmd.write && c.result.is_ok() {
                    let data = &mut buf[..c.cmd.len as usize];
                    data.fill(0);
                    job.check(&c, data);
                }
                job.complete(&c);
            }
        }
        timeline.busy.store(false, Ordering::Release);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{DataPattern, EngineKind, Reap};

    fn cfg(qd: usize) -> EngineConfig {
        EngineConfig {
            kind: EngineKind::Null,
            queue_depth: qd,
            max_len: 4096,
            data: DataPattern::Zero,
            reap: Reap::Sleep,
        }
    }

    /// Issues `n` 4 KiB reads at offsets 0, 4096, … and keeps their completions.
    struct Reads {
        left: u32,
        next: u64,
        seen: Vec<Completion>,
    }

    impl Job for Reads {
        fn next(&mut self, _now: u64, in_flight: usize) -> Next {
            if self.left == 0 {
                return if in_flight > 0 {
                    Next::Wait
                } else {
                    Next::Done
                };
            }
            self.left -= 1;
            let c = Cmd {
                offset: self.next,
                len: 4096,
                tag: 0,
                write: false,
            };
            self.next += 4096;
            Next::Issue(c)
        }
        fn complete(&mut self, c: &Completion) {
            self.seen.push(*c);
        }
    }

    #[test]
    fn completions_come_at_submit_plus_the_scripted_latency() {
        // Latency 10 µs, 30 µs for the second command; it fails with EIO on its first try.
        let dev = Scripted::new(|c: &Call| match c.offset {
            4096 => Reply::err(30_000, libc::EIO),
            _ => Reply::ok(10_000),
        });
        let clock = dev.clock();
        let mut job = Reads {
            left: 4,
            next: 0,
            seen: Vec::new(),
        };
        dev.run(&cfg(2), 0, &clock, &AtomicBool::new(false), &mut job)
            .unwrap();
        let got: Vec<(u64, u64, u64, Result<u32, i32>)> = job
            .seen
            .iter()
            .map(|c| (c.cmd.offset, c.submit_ns, c.done_ns, c.result))
            .collect();
        // QD2: 0 and 4096 go at 0; 0 is done at 10 µs and 8192 goes; it is done at 20 µs and
        // 12288 goes; 4096 is done at 30 µs, then 12288 at 30 µs too (reaped in issue order).
        assert_eq!(
            got,
            vec![
                (0, 0, 10_000, Ok(4096)),
                (8192, 10_000, 20_000, Ok(4096)),
                (4096, 0, 30_000, Err(libc::EIO)),
                (12288, 20_000, 30_000, Ok(4096)),
            ]
        );
        assert_eq!(clock.now_ns(), 30_000);
        assert!(dev.calls().iter().all(|c| c.attempt == 0));
    }

    #[test]
    fn commands_done_at_the_same_time_complete_in_issue_order() {
        let dev = Scripted::new(|_: &Call| Reply::ok(5_000));
        let clock = dev.clock();
        let mut job = Reads {
            left: 6,
            next: 0,
            seen: Vec::new(),
        };
        dev.run(&cfg(3), 0, &clock, &AtomicBool::new(false), &mut job)
            .unwrap();
        let got: Vec<(u64, u64)> = job.seen.iter().map(|c| (c.cmd.offset, c.done_ns)).collect();
        let want: Vec<(u64, u64)> = (0..6).map(|i| (i * 4096, (i / 3 + 1) * 5_000)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn attempts_count_repeats_of_the_same_command() {
        let dev = Scripted::new(|_: &Call| Reply::ok(1));
        let clock = dev.clock();
        for _ in 0..3 {
            let mut job = Reads {
                left: 1,
                next: 0,
                seen: Vec::new(),
            };
            dev.run(&cfg(1), 0, &clock, &AtomicBool::new(false), &mut job)
                .unwrap();
        }
        let attempts: Vec<u32> = dev.calls().iter().map(|c| c.attempt).collect();
        assert_eq!(attempts, vec![0, 1, 2]);
        // The clock runs on from one run to the next.
        assert_eq!(clock.now_ns(), 3);
    }

    #[test]
    fn every_clock_of_a_device_reads_its_one_timeline() {
        // Each run on a clock of its own, as a workload takes one per run; a clock taken
        // first (a budget's) sees both runs, and the script sees the device's time go on.
        let dev = Scripted::new(|_: &Call| Reply::ok(1_000)).starting_at(5);
        let outer = dev.clock();
        for _ in 0..2 {
            let clock = dev.clock();
            assert_eq!(clock.now_ns(), 5);
            let mut job = Reads {
                left: 1,
                next: 0,
                seen: Vec::new(),
            };
            dev.run(&cfg(1), 0, &clock, &AtomicBool::new(false), &mut job)
                .unwrap();
            assert_eq!((job.seen[0].submit_ns, job.seen[0].done_ns), (5, 1_005));
            assert_eq!(clock.now_ns(), 1_005);
        }
        assert_eq!(outer.now_ns(), 2_005);
        assert_eq!(dev.device_ns(), 2_000);
        let seen: Vec<(u64, u64)> = dev.calls().iter().map(|c| (c.at_ns, c.device_ns)).collect();
        assert_eq!(seen, vec![(5, 0), (5, 1_000)]);
    }
}
