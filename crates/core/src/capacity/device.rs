//! What the capacity probe reads and writes: a device of fixed size, addressed in bytes.

use crate::aligned::AlignedBuffers;
use crate::target::Target;
use std::io;
use std::os::unix::fs::FileExt;

/// A device the probe writes to and reads from. Offsets and lengths are whole probe blocks.
pub trait BlockDevice {
    /// Bytes the device reports.
    fn size(&self) -> u64;
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()>;
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()>;
    /// Make every write so far durable.
    fn sync(&mut self) -> io::Result<()>;
    /// The device's clock in ns, read before and after a command to time it: the monotonic
    /// clock for a real device, a model's virtual clock for a modelled one.
    fn now_ns(&self) -> u64 {
        static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        EPOCH
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_nanos() as u64
    }
}

/// Largest single command the file device issues.
pub const CHUNK: usize = 1 << 20;

/// An opened target (O_DIRECT), through one aligned bounce buffer.
pub struct FileDevice<'a> {
    target: &'a Target,
    buf: AlignedBuffers,
}

impl<'a> FileDevice<'a> {
    pub fn new(target: &'a Target) -> io::Result<FileDevice<'a>> {
        if target.file().is_none() {
            return Err(io::Error::other(
                "the capacity probe needs a device or a file",
            ));
        }
        Ok(FileDevice {
            target,
            buf: AlignedBuffers::new(1, CHUNK, target.buffer_align),
        })
    }

    fn file(&self) -> &std::fs::File {
        self.target.file().expect("checked in new")
    }
}

impl BlockDevice for FileDevice<'_> {
    fn size(&self) -> u64 {
        self.target.size
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        for (i, piece) in buf.chunks_mut(CHUNK).enumerate() {
            let at = offset + (i * CHUNK) as u64;
            let n = piece.len();
            let file = self.target.file().expect("checked in new");
            file.read_exact_at(&mut self.buf.slice_mut(0)[..n], at)?;
            piece.copy_from_slice(&self.buf.slice(0)[..n]);
        }
        Ok(())
    }

    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        for (i, piece) in data.chunks(CHUNK).enumerate() {
            let at = offset + (i * CHUNK) as u64;
            let n = piece.len();
            self.buf.slice_mut(0)[..n].copy_from_slice(piece);
            let file = self.target.file().expect("checked in new");
            file.write_all_at(&self.buf.slice(0)[..n], at)?;
        }
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        self.file().sync_all()
    }
}
