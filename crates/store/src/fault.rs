//! Why a store could not be opened or written, in words a person can act on.
//!
//! SQLite reports some causes directly (a full disk, a lock, a file that is no database) and hides others behind
//! "unable to open database file" or "disk I/O error" (WAL mode creates and grows `-wal` and `-shm` files next to
//! the database, and a failure there surfaces that way). For those the place itself is examined: a read-only
//! mount, a file system without free space, a file or directory this process may not write.
//!
//! PostgreSQL names its causes with SQLSTATE codes; the server's own message is kept for the rest.

use crate::error::Error;
use crate::Location;
use postgres::error::SqlState;
use rusqlite::ErrorCode;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// How long saving waits for another process that holds the store's write lock.
pub const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Below this many free bytes a file system that made SQLite fail counts as full.
const NEARLY_FULL: u64 = 1 << 20;

/// The cause of a store failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// The file system holding the store is mounted read-only.
    ReadOnlyFileSystem,
    /// This process may not write the store file.
    FileNotWritable,
    /// This process may not create files in the store's directory (SQLite keeps `-wal` and `-shm` files there).
    DirectoryNotWritable,
    /// No space left on the file system (or the quota is spent).
    Full,
    /// Another process held the write lock for longer than [`BUSY_TIMEOUT`].
    Locked,
    /// The file is not a SQLite database.
    NotADatabase,
    /// A SQLite database, but damaged; SQLite's words.
    Damaged(String),
    /// Anything else, as the store reported it.
    Other(String),
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::ReadOnlyFileSystem => f.write_str("the file system is read-only"),
            Fault::FileNotWritable => f.write_str("the file is read-only (no permission to write it)"),
            Fault::DirectoryNotWritable => f.write_str(
                "its directory is read-only (no permission to create the store's -wal and -shm files there)",
            ),
            Fault::Full => f.write_str("the file system is full"),
            Fault::Locked => write!(
                f,
                "another process kept the store locked for more than {} s",
                BUSY_TIMEOUT.as_secs()
            ),
            Fault::NotADatabase => f.write_str("the file is not a SQLite database"),
            Fault::Damaged(why) => write!(f, "the database is damaged ({why})"),
            Fault::Other(why) => f.write_str(why),
        }
    }
}

impl Error {
    /// Why the store at `at` failed, examining the place where SQLite's own report is vague.
    pub fn fault(&self, at: &Location) -> Fault {
        let path = at.path().unwrap_or(Path::new(""));
        match self {
            Error::Postgres(e) => match e.code() {
                Some(c) if *c == SqlState::DISK_FULL => Fault::Full,
                Some(c) if *c == SqlState::DATA_CORRUPTED || *c == SqlState::INDEX_CORRUPTED => {
                    Fault::Damaged(crate::error::postgres_words(e))
                }
                _ => Fault::Other(crate::error::postgres_words(e)),
            },
            Error::Sqlite(rusqlite::Error::SqliteFailure(e, msg)) => {
                let words = msg.clone().unwrap_or_else(|| e.to_string());
                match e.code {
                    ErrorCode::DiskFull => Fault::Full,
                    ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => Fault::Locked,
                    ErrorCode::NotADatabase => Fault::NotADatabase,
                    ErrorCode::DatabaseCorrupt => Fault::Damaged(words),
                    ErrorCode::ReadOnly
                    | ErrorCode::CannotOpen
                    | ErrorCode::SystemIoFailure
                    | ErrorCode::PermissionDenied => examine(path).unwrap_or(Fault::Other(words)),
                    _ => Fault::Other(words),
                }
            }
            Error::Io(dir, e) => match e.raw_os_error() {
                Some(libc::EROFS) => Fault::ReadOnlyFileSystem,
                Some(libc::ENOSPC | libc::EDQUOT) => Fault::Full,
                Some(libc::EACCES | libc::EPERM) => Fault::DirectoryNotWritable,
                _ => Fault::Other(format!("{}: {e}", dir.display())),
            },
            other => Fault::Other(other.to_string().trim_start_matches("store: ").to_string()),
        }
    }
}

/// The cause found at the store's place, if any: a read-only mount, no free space, no permission to write.
fn examine(path: &Path) -> Option<Fault> {
    let dir = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(d) => d.to_path_buf(),
        None => PathBuf::from("."),
    };
    let existing = path
        .ancestors()
        .skip(1)
        .find(|a| a.exists())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| dir.clone());
    let fs = statvfs(&existing)?;
    if fs.f_flag & libc::ST_RDONLY != 0 {
        return Some(Fault::ReadOnlyFileSystem);
    }
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let blocks = if root { fs.f_bfree } else { fs.f_bavail };
    #[allow(clippy::unnecessary_cast)] // the statvfs fields are 32-bit on some targets
    let free = (blocks as u64).saturating_mul(fs.f_frsize as u64);
    if free < NEARLY_FULL {
        return Some(Fault::Full);
    }
    if path.exists() && !writable(path) {
        return Some(Fault::FileNotWritable);
    }
    if !writable(&existing) {
        return Some(Fault::DirectoryNotWritable);
    }
    None
}

fn c_path(p: &Path) -> Option<CString> {
    CString::new(p.as_os_str().as_bytes()).ok()
}

fn statvfs(p: &Path) -> Option<libc::statvfs> {
    let c = c_path(p)?;
    // SAFETY: `c` is a valid NUL-terminated path and `st` is written by statvfs before it is read.
    unsafe {
        let mut st: libc::statvfs = std::mem::zeroed();
        (libc::statvfs(c.as_ptr(), &mut st) == 0).then_some(st)
    }
}

/// Whether this process (its effective ids) may write `p`; immutable files count as not writable.
fn writable(p: &Path) -> bool {
    let Some(c) = c_path(p) else { return false };
    // SAFETY: `c` is a valid NUL-terminated path.
    unsafe { libc::faccessat(libc::AT_FDCWD, c.as_ptr(), libc::W_OK, libc::AT_EACCESS) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqlite(code: std::os::raw::c_int, msg: &str) -> Error {
        Error::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(code),
            Some(msg.into()),
        ))
    }

    #[test]
    fn sqlite_codes_name_their_cause() {
        let p = &Location::Sqlite("/nonexistent-dir/runs.sqlite".into());
        assert_eq!(
            sqlite(rusqlite::ffi::SQLITE_FULL, "database or disk is full").fault(p),
            Fault::Full
        );
        assert_eq!(
            sqlite(rusqlite::ffi::SQLITE_BUSY, "database is locked").fault(p),
            Fault::Locked
        );
        assert_eq!(
            sqlite(rusqlite::ffi::SQLITE_NOTADB, "file is not a database").fault(p),
            Fault::NotADatabase
        );
        assert_eq!(
            sqlite(
                rusqlite::ffi::SQLITE_CORRUPT,
                "database disk image is malformed"
            )
            .fault(p),
            Fault::Damaged("database disk image is malformed".into())
        );
        assert_eq!(
            sqlite(rusqlite::ffi::SQLITE_MISMATCH, "datatype mismatch").fault(p),
            Fault::Other("datatype mismatch".into())
        );
    }

    #[test]
    fn io_errors_name_their_cause() {
        let io = |errno| Error::Io("/x".into(), std::io::Error::from_raw_os_error(errno));
        let p = &Location::Sqlite("/x/runs.sqlite".into());
        assert_eq!(io(libc::EROFS).fault(p), Fault::ReadOnlyFileSystem);
        assert_eq!(io(libc::ENOSPC).fault(p), Fault::Full);
        assert_eq!(io(libc::EACCES).fault(p), Fault::DirectoryNotWritable);
    }

    #[test]
    fn every_fault_reads_as_one_line() {
        for f in [
            Fault::ReadOnlyFileSystem,
            Fault::FileNotWritable,
            Fault::DirectoryNotWritable,
            Fault::Full,
            Fault::Locked,
            Fault::NotADatabase,
            Fault::Damaged("database disk image is malformed".into()),
        ] {
            let s = f.to_string();
            assert!(!s.is_empty() && !s.contains('\n'), "{s:?}");
        }
        assert_eq!(
            Error::TooNew { found: 9, known: 1 }
                .fault(&Location::Sqlite("runs.sqlite".into()))
                .to_string(),
            "schema version 9 is newer than this drivescope knows (1); upgrade drivescope"
        );
    }
}
