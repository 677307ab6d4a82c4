//! The backup journal: what the probe overwrote, saved before it overwrites it, so that the
//! device can be put back after a normal end, Ctrl-C, `kill -9` or a pulled drive.
//!
//! Layout: the magic line `drivescope-capacity-journal 1`, one line of JSON ([`JournalHeader`]),
//! then entries, each `b'E'`, offset (u64 LE), length (u32 LE), a checksum (u64 LE) of offset,
//! length and data, and the data; a finished restore appends `b'D'`. Entries are appended and
//! synced before the writes they cover, so an entry cut short by a crash covers writes that never
//! happened and is ignored. Restoring writes the entries back newest first: the oldest content
//! of every block goes back last, which is what the device held before the probe, also where the
//! device maps two addresses onto one place.

use super::device::BlockDevice;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8] = b"drivescope-capacity-journal 1\n";

/// Which device a journal belongs to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalHeader {
    /// The device as the probe was given it.
    pub device: String,
    pub size: u64,
    pub block_size: u64,
    /// The confirmation that names the device (serial, or model and size).
    #[serde(default)]
    pub confirm: Option<String>,
    pub started_at: String,
}

/// Why a journal could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("{0}: exists already; name another --backup file (or restore it with --restore)")]
    Exists(String),
    #[error("{0}: not a drivescope capacity journal")]
    NotAJournal(String),
}

fn io_err(path: &Path) -> impl Fn(io::Error) -> JournalError + '_ {
    move |source| JournalError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// FNV-1a over offset, length and data.
fn checksum(offset: u64, data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: u8| {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    };
    offset.to_le_bytes().into_iter().for_each(&mut eat);
    (data.len() as u32)
        .to_le_bytes()
        .into_iter()
        .for_each(&mut eat);
    data.iter().copied().for_each(eat);
    h
}

/// A journal being written.
pub struct Journal {
    path: PathBuf,
    out: BufWriter<File>,
    /// Bytes of data saved so far.
    pub saved: u64,
}

impl Journal {
    /// Create a new journal at `path` (never over an existing file).
    pub fn create(path: &Path, header: &JournalHeader) -> Result<Journal, JournalError> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| match e.kind() {
                io::ErrorKind::AlreadyExists => JournalError::Exists(path.display().to_string()),
                _ => io_err(path)(e),
            })?;
        let mut j = Journal {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(1 << 20, file),
            saved: 0,
        };
        let mut line = serde_json::to_vec(header).expect("header serializes");
        line.push(b'\n');
        j.out.write_all(MAGIC).map_err(io_err(path))?;
        j.out.write_all(&line).map_err(io_err(path))?;
        j.commit()?;
        Ok(j)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Save what `offset` held (`data`); durable after the next [`Journal::commit`].
    pub fn append(&mut self, offset: u64, data: &[u8]) -> Result<(), JournalError> {
        let p = self.path.clone();
        let w = &mut self.out;
        w.write_all(b"E").map_err(io_err(&p))?;
        w.write_all(&offset.to_le_bytes()).map_err(io_err(&p))?;
        w.write_all(&(data.len() as u32).to_le_bytes())
            .map_err(io_err(&p))?;
        w.write_all(&checksum(offset, data).to_le_bytes())
            .map_err(io_err(&p))?;
        w.write_all(data).map_err(io_err(&p))?;
        self.saved += data.len() as u64;
        Ok(())
    }

    /// Make every entry so far durable: only then may the writes they cover begin.
    pub fn commit(&mut self) -> Result<(), JournalError> {
        let p = self.path.clone();
        self.out.flush().map_err(io_err(&p))?;
        self.out.get_ref().sync_data().map_err(io_err(&p))
    }
}

/// One saved block: what `offset` held before the probe wrote there.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub offset: u64,
    pub data: Vec<u8>,
}

/// A journal read back.
#[derive(Debug)]
pub struct Saved {
    pub header: JournalHeader,
    /// In the order saved; an entry cut short at the end is left out.
    pub entries: Vec<Entry>,
    /// A restore from it finished.
    pub restored: bool,
    /// Bytes of the file up to the end of its last whole entry.
    pub end: u64,
}

/// Read the journal at `path`.
pub fn read(path: &Path) -> Result<Saved, JournalError> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(io_err(path))?;
    let not = || JournalError::NotAJournal(path.display().to_string());
    let rest = bytes.strip_prefix(MAGIC).ok_or_else(not)?;
    let nl = rest.iter().position(|b| *b == b'\n').ok_or_else(not)?;
    let header: JournalHeader = serde_json::from_slice(&rest[..nl]).map_err(|_| not())?;
    let mut at = &rest[nl + 1..];
    let mut entries = Vec::new();
    let mut restored = false;
    while let Some((&tag, body)) = at.split_first() {
        match tag {
            b'D' => {
                restored = true;
                break;
            }
            b'E' if body.len() >= 20 => {
                let offset = u64::from_le_bytes(body[0..8].try_into().expect("8"));
                let len = u32::from_le_bytes(body[8..12].try_into().expect("4")) as usize;
                let sum = u64::from_le_bytes(body[12..20].try_into().expect("8"));
                let Some(data) = body.get(20..20 + len) else {
                    break;
                };
                if checksum(offset, data) != sum {
                    break;
                }
                entries.push(Entry {
                    offset,
                    data: data.to_vec(),
                });
                at = &body[20 + len..];
            }
            _ => break,
        }
    }
    let end = (bytes.len() - at.len()) as u64;
    Ok(Saved {
        header,
        entries,
        restored,
        end,
    })
}

/// What a restore did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Restored {
    /// Entries written back.
    pub entries: u64,
    pub bytes: u64,
    /// Blocks whose content read back differs from what the device held before the probe.
    pub mismatches: u64,
}

/// Write every entry back, newest first, sync, and read each block back against its oldest
/// saved content.
pub fn restore(dev: &mut dyn BlockDevice, entries: &[Entry]) -> io::Result<Restored> {
    let mut r = Restored::default();
    for e in entries.iter().rev() {
        dev.write_at(e.offset, &e.data)?;
        r.entries += 1;
        r.bytes += e.data.len() as u64;
    }
    dev.sync()?;
    let mut seen = std::collections::HashSet::new();
    let mut buf = Vec::new();
    for e in entries {
        if !seen.insert(e.offset) {
            continue;
        }
        buf.resize(e.data.len(), 0);
        match dev.read_at(e.offset, &mut buf) {
            Ok(()) if buf == e.data => {}
            _ => r.mismatches += 1,
        }
    }
    Ok(r)
}

/// Mark the journal at `path` restored: cut off an entry left half written at `end` (see
/// [`Saved::end`]), then `b'D'` appended and synced.
pub fn mark_restored(path: &Path, end: u64) -> Result<(), JournalError> {
    let mut f = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(io_err(path))?;
    f.set_len(end).map_err(io_err(path))?;
    std::io::Seek::seek(&mut f, std::io::SeekFrom::End(0)).map_err(io_err(path))?;
    f.write_all(b"D").map_err(io_err(path))?;
    f.sync_data().map_err(io_err(path))
}
