//! The replay of a trace that never had more than one request in flight: one `pread`/`pwrite` at a
//! time, each after the one before it completed and the think time the trace shows. Synchronous calls
//! are how such workloads (fio's psync engine, `dd`, a database's reads) issue them, and on devices that
//! complete quickly an io_uring round trip would add to every request's service time.

use super::schedule::Schedule;
use super::summary::Timing;
use super::uring::Issued;
use super::ReplayError;
use crate::aligned::AlignedBuffers;
use crate::engine::Clock;
use crate::target::Target;
use std::os::unix::io::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};

/// Below this a wait spins instead of sleeping.
const SPIN_NS: u64 = 50_000;

pub fn run(
    target: &Target,
    s: &Schedule,
    no_think: bool,
    stop: &AtomicBool,
) -> Result<Issued, ReplayError> {
    let file = target.file().ok_or(ReplayError::NullTarget)?;
    let fd = file.as_raw_fd();
    let max_len = s.steps.iter().map(|x| x.len as usize).max().unwrap_or(4096);
    let mut bufs = AlignedBuffers::new(1, max_len, target.buffer_align);
    if target.writable() {
        crate::engine::fill_buffers(&mut bufs, crate::engine::DataPattern::Random, 7);
    }
    let clock = Clock::new();
    let mut timings = vec![None; s.steps.len()];
    let mut last_done = 0u64;
    for (i, step) in s.steps.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            return Ok(Issued {
                timings,
                interrupted: true,
            });
        }
        let due = last_done + s.wait_ns(i, no_think);
        loop {
            let now = clock.now_ns();
            if now >= due {
                break;
            }
            if due - now > SPIN_NS {
                std::thread::sleep(std::time::Duration::from_nanos(due - now - SPIN_NS / 2));
            } else {
                std::hint::spin_loop();
            }
        }
        if step.skip {
            last_done = clock.now_ns();
            continue;
        }
        let issue_ns = clock.now_ns();
        // The buffer holds max_len ≥ step.len bytes and is aligned for O_DIRECT.
        let result = crate::engine::transfer(fd, bufs.ptr(0), step.len, step.offset, step.write);
        let done_ns = clock.now_ns();
        let error = result.err();
        timings[i] = Some(Timing {
            issue_ns,
            done_ns,
            error,
        });
        last_done = done_ns;
    }
    Ok(Issued {
        timings,
        interrupted: false,
    })
}
