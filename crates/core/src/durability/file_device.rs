//! The flush experiment's device on a real file or block device: direct writes (O_DIRECT where
//! the file system takes it, so the writes reach the device rather than the page cache) from one
//! aligned buffer, `fdatasync` as the flush, the wall clock.
//!
//! It writes to whatever path it is given: the caller passes a test file drivescope created, or
//! a block device the write gate let through.

use crate::aligned::AlignedBuffers;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::time::Instant;

/// Alignment of the write buffer and of every offset and length (covers 4 KiB sectors).
pub const ALIGN: usize = 4096;

pub struct FileFlushDevice {
    file: File,
    buf: AlignedBuffers,
    len: u64,
    epoch: Instant,
    /// Opened with O_DIRECT (false: the file system refused it, writes go through the page cache
    /// and the flush writes them back).
    pub direct: bool,
}

impl FileFlushDevice {
    /// Opens `path` to write its first `len` bytes in writes of at most `chunk` bytes.
    pub fn open(path: &Path, len: u64, chunk: usize) -> std::io::Result<FileFlushDevice> {
        let open = |flags: i32| {
            OpenOptions::new()
                .write(true)
                .custom_flags(flags)
                .open(path)
        };
        let (file, direct) = match open(libc::O_DIRECT) {
            Ok(f) => (f, true),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => (open(0)?, false),
            Err(e) => return Err(e),
        };
        let mut buf = AlignedBuffers::new(1, chunk, ALIGN);
        for (i, b) in buf.slice_mut(0).iter_mut().enumerate() {
            *b = (i as u8) ^ 0xa5;
        }
        Ok(FileFlushDevice {
            file,
            buf,
            len: len / ALIGN as u64 * ALIGN as u64,
            epoch: Instant::now(),
            direct,
        })
    }
}

impl super::flush::FlushDevice for FileFlushDevice {
    fn room(&self) -> u64 {
        self.len
    }

    fn write(&mut self, offset: u64, len: usize) -> std::io::Result<()> {
        let len = len.next_multiple_of(ALIGN).min(self.buf.size());
        self.file.write_all_at(&self.buf.slice(0)[..len], offset)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.sync_data()
    }

    fn now_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    fn idle(&mut self, ns: u64) {
        std::thread::sleep(std::time::Duration::from_nanos(ns));
    }
}
