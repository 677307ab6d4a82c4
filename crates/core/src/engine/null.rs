//! The null engine: every command completes as soon as it is issued. Commands are issued
//! in batches up to the queue depth, stamped, and completed, as a queue would.

use super::{Clock, Cmd, Completion, Job, Next};
use std::sync::atomic::{AtomicBool, Ordering};

pub fn run<J: Job>(clock: &Clock, qd: usize, stop: &AtomicBool, job: &mut J) {
    let mut batch: Vec<Cmd> = Vec::with_capacity(qd);
    loop {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let submit_ns = clock.now_ns();
        let mut done = false;
        let mut paused = false;
        while batch.len() < qd {
            match job.next(submit_ns, batch.len()) {
                Next::Issue(c) => batch.push(c),
                Next::Wait => break,
                Next::Pause(ns) if batch.is_empty() => {
                    super::pause(ns, stop);
                    paused = true;
                    break;
                }
                Next::Pause(_) => break,
                Next::Done => {
                    done = true;
                    break;
                }
            }
        }
        if batch.is_empty() {
            if paused && !done {
                continue;
            }
            return;
        }
        let done_ns = clock.now_ns();
        for cmd in batch.drain(..) {
            job.complete(&Completion {
                cmd,
                issue_ns: submit_ns,
                submit_ns,
                done_ns,
                result: Ok(cmd.len),
            });
        }
        if done {
            return;
        }
    }
}
