//! The psync engine: one `pread` at a time.

use super::{AlignedBuffers, Clock, Completion, EngineError, Job, Next};
use crate::target::Target;
use std::os::unix::io::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};

pub fn run<J: Job>(
    target: &Target,
    max_len: usize,
    clock: &Clock,
    stop: &AtomicBool,
    job: &mut J,
) -> Result<(), EngineError> {
    let fd = target.file().ok_or(EngineError::NullOnly)?.as_raw_fd();
    let bufs = AlignedBuffers::new(1, max_len, target.buffer_align);
    let buf = bufs.ptr(0);
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        let cmd = match job.next(clock.now_ns(), 0) {
            Next::Issue(c) => c,
            Next::Wait | Next::Done => return Ok(()),
        };
        debug_assert!(cmd.len as usize <= bufs.size());
        let submit_ns = clock.now_ns();
        let result = loop {
            // SAFETY: buf holds at least cmd.len bytes (max_len) and is aligned.
            let n = unsafe {
                libc::pread(
                    fd,
                    buf as *mut libc::c_void,
                    cmd.len as usize,
                    cmd.offset as libc::off_t,
                )
            };
            if n < 0 {
                let e = std::io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EIO);
                if e == libc::EINTR {
                    continue;
                }
                break Err(e);
            }
            break if n as u32 == cmd.len {
                Ok(cmd.len)
            } else {
                Err(libc::EIO)
            };
        };
        let done_ns = clock.now_ns();
        job.complete(&Completion {
            cmd,
            issue_ns: submit_ns,
            submit_ns,
            done_ns,
            result,
        });
    }
}
