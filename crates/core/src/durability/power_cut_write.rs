//! The power-cut test's writer: record after record, each written, flushed, then acknowledged
//! to the log; the next only once the log holds the last durably.

use super::power_cut::{encode, LogHeader, FILE_NAME, RECORD_BYTES};
use super::power_cut_log::AckSink;
use crate::aligned::AlignedBuffers;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Why the writer stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stopped {
    /// It wrote the records it was asked for.
    Count,
    /// SIGINT/SIGTERM.
    Interrupted,
    /// A write or flush failed (the power went, the device went away): the message.
    Target(String),
    /// The log could not keep an acknowledgement (a listener gone): the message.
    Log(String),
}

/// What the writer did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// Records acknowledged (0 up to this, exclusive): all in the log.
    pub acknowledged: u64,
    /// Records written, the last perhaps not acknowledged.
    pub written: u64,
    pub stopped: Stopped,
}

/// Make the test file in `dir`: `bytes` of zeros, written and synced with its directory entry
/// before any record goes in, so that only the records are at stake in the cut. Never replaces a
/// file: one left by an earlier test is refused by the caller's message.
pub fn make_test_file(dir: &Path, bytes: u64) -> std::io::Result<PathBuf> {
    let path = dir.join(FILE_NAME);
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)?;
    let zeros = vec![0u8; 1 << 20];
    let mut left = bytes;
    let made = (|| {
        while left > 0 {
            let n = left.min(zeros.len() as u64) as usize;
            f.write_all(&zeros[..n])?;
            left -= n as u64;
        }
        f.sync_all()?;
        File::open(dir)?.sync_all()
    })();
    if let Err(e) = made {
        let _ = std::fs::remove_file(&path);
        return Err(e);
    }
    Ok(path)
}

/// Open the target to write records: O_DIRECT where it is taken (every record then reaches the
/// device, not the page cache), else buffered; either way each is flushed with `fdatasync`.
fn open_target(path: &Path) -> std::io::Result<File> {
    let open = |flags: i32| {
        OpenOptions::new()
            .write(true)
            .custom_flags(flags)
            .open(path)
    };
    match open(libc::O_DIRECT) {
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => open(0),
        r => r,
    }
}

/// Write records 0, 1, … to `path` as `header` lays them out, each flushed and then kept by
/// `sink`, until `count` records, a stop, or a failure. `progress` hears each acknowledged count.
pub fn write(
    path: &Path,
    header: &LogHeader,
    count: Option<u64>,
    sink: &mut dyn AckSink,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> std::io::Result<Written> {
    let file = open_target(path)?;
    let mut buf = AlignedBuffers::new(1, RECORD_BYTES as usize, 4096);
    let mut out = Written {
        acknowledged: 0,
        written: 0,
        stopped: Stopped::Count,
    };
    let failed = |what: &str, n: u64, e: std::io::Error| {
        Stopped::Target(format!(
            "{what} of record {n} to {} failed: {e}",
            path.display()
        ))
    };
    loop {
        let n = out.acknowledged;
        if count.is_some_and(|c| n >= c) {
            break;
        }
        if stop.load(Ordering::Relaxed) {
            out.stopped = Stopped::Interrupted;
            break;
        }
        let sum = encode(header.run, n, buf.slice_mut(0));
        if let Err(e) = file.write_all_at(buf.slice(0), header.offset_of(n)) {
            out.stopped = failed("the write", n, e);
            return Ok(out);
        }
        out.written = n + 1;
        if let Err(e) = file.sync_data() {
            out.stopped = failed("the flush", n, e);
            return Ok(out);
        }
        if let Err(e) = sink.ack(n, sum) {
            out.stopped = Stopped::Log(e);
            return Ok(out);
        }
        out.acknowledged = n + 1;
        progress(out.acknowledged);
    }
    sink.end();
    Ok(out)
}
