//! The psync engine: one `pread` at a time.

use super::{fill_buffers, Clock, Completion, EngineConfig, EngineError, Job, Next};
use crate::aligned::AlignedBuffers;
use crate::target::Target;
use std::os::unix::io::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};

pub fn run<J: Job>(
    target: &Target,
    cfg: &EngineConfig,
    seed: u64,
    clock: &Clock,
    stop: &AtomicBool,
    job: &mut J,
) -> Result<(), EngineError> {
    let fd = target.file().ok_or(EngineError::NullOnly)?.as_raw_fd();
    let mut bufs = AlignedBuffers::new(1, cfg.max_len, target.buffer_align);
    if target.writable() {
        fill_buffers(&mut bufs, cfg.data, seed);
    }
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        let cmd = match job.next(clock.now_ns(), 0) {
            Next::Issue(c) => c,
            Next::Pause(ns) => {
                super::pause(ns, stop);
                continue;
            }
            Next::Wait | Next::Done => return Ok(()),
        };
        debug_assert!(cmd.len as usize <= bufs.size());
        if cmd.write && !target.writable() {
            return Err(EngineError::ReadOnly);
        }
        if J::HOOKS && cmd.write {
            job.fill(&cmd, &mut bufs.slice_mut(0)[..cmd.len as usize]);
        }
        let submit_ns = clock.now_ns();
        let result = transfer(fd, bufs.ptr(0), cmd.len, cmd.offset, cmd.write);
        let done_ns = clock.now_ns();
        let c = Completion {
            cmd,
            issue_ns: submit_ns,
            submit_ns,
            done_ns,
            result,
        };
        if J::HOOKS && !cmd.write && result.is_ok() {
            job.check(&c, &bufs.slice(0)[..cmd.len as usize]);
        }
        job.complete(&c);
    }
}

/// One positioned read or write of `len` bytes at `buf`, retried when a signal interrupts it: the
/// bytes moved, or the errno (`EIO` for a short transfer). The caller keeps `buf` valid, aligned for
/// the file's I/O and at least `len` bytes long.
#[inline]
pub(crate) fn transfer(
    fd: std::os::unix::io::RawFd,
    buf: *mut u8,
    len: u32,
    offset: u64,
    write: bool,
) -> Result<u32, i32> {
    loop {
        // SAFETY: the caller's buffer holds at least len bytes.
        let n = unsafe {
            if write {
                libc::pwrite(
                    fd,
                    buf as *const libc::c_void,
                    len as usize,
                    offset as libc::off_t,
                )
            } else {
                libc::pread(
                    fd,
                    buf as *mut libc::c_void,
                    len as usize,
                    offset as libc::off_t,
                )
            }
        };
        if n < 0 {
            let e = std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO);
            if e == libc::EINTR {
                continue;
            }
            return Err(e);
        }
        return if n as u32 == len {
            Ok(len)
        } else {
            Err(libc::EIO)
        };
    }
}
