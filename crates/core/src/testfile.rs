//! Test files drivescope creates in a directory for write tests, and removes again.
//! A test file is always new (O_EXCL): drivescope never writes to an existing file.

use crate::target::TargetError;
use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// A file created for a test; removed when dropped.
#[derive(Debug)]
pub struct TestFile {
    path: PathBuf,
    size: u64,
}

impl TestFile {
    /// Create `drivescope-test-PID-N.tmp` in `dir`, `size` bytes long (sparse until filled).
    pub fn create(dir: &Path, size: u64) -> Result<TestFile, TargetError> {
        let spec = dir.display().to_string();
        let meta = std::fs::metadata(dir).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => TargetError::NotFound(spec.clone()),
            _ => TargetError::Io {
                path: spec.clone(),
                error: e,
            },
        })?;
        if !meta.is_dir() {
            return Err(TargetError::BadSpec(format!("{spec} is not a directory")));
        }
        for n in 0..1000 {
            let path = dir.join(format!("drivescope-test-{}-{n}.tmp", std::process::id()));
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
            {
                Ok(f) => {
                    let test = TestFile { path, size };
                    f.set_len(size).map_err(|e| TargetError::Io {
                        path: test.path.display().to_string(),
                        error: e,
                    })?;
                    return Ok(test);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(TargetError::Io {
                        path: format!("cannot create a test file in {spec}"),
                        error: e,
                    })
                }
            }
        }
        Err(TargetError::BadSpec(format!(
            "{spec}: could not find a free test file name"
        )))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn size(&self) -> u64 {
        self.size
    }
}

/// The smallest test file drivescope shrinks to on a small file system; below it, the directory
/// is refused.
pub const MIN_SHRUNK: u64 = 8 << 20;

/// What a test file of `wanted` bytes becomes in a directory with `free` bytes available.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// It fits, with room to spare.
    Whole(u64),
    /// The size was not given and the default does not fit: this many bytes do.
    Shrunk(u64),
    /// It does not fit; `room` is the largest test file that would (0: none worth making).
    Refused { room: u64 },
}

/// The largest test file for `free` available bytes: a tenth of the space (at least 4 MiB) is
/// left to the file system, which needs room of its own (metadata, a journal), and the size is
/// whole MiB.
pub fn room(free: u64) -> u64 {
    let spare = (free / 10).max(4 << 20);
    free.saturating_sub(spare) / (1 << 20) * (1 << 20)
}

/// Fit a test file to the free space: a size the user gave is kept or refused, the default is
/// kept or shrunk (never below [`MIN_SHRUNK`]).
pub fn fit(wanted: u64, free: u64, given: bool) -> Fit {
    let room = room(free);
    if wanted <= room {
        Fit::Whole(wanted)
    } else if !given && room >= MIN_SHRUNK {
        Fit::Shrunk(room)
    } else {
        Fit::Refused {
            room: if room >= 4096 { room } else { 0 },
        }
    }
}

/// Bytes available to an unprivileged user in the file system holding `dir` (statvfs); `None`
/// for a file system that keeps no count of its blocks (ramfs, procfs report 0 of 0), where the
/// space is not known and a test file is not fitted to it.
pub fn free_space(dir: &Path) -> std::io::Result<Option<u64>> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    // SAFETY: `c` is a valid NUL-terminated path and `st` is written by statvfs before it is read.
    let st = unsafe {
        let mut st: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(c.as_ptr(), &mut st) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        st
    };
    if st.f_blocks == 0 {
        return Ok(None);
    }
    #[allow(clippy::unnecessary_cast)] // the statvfs fields are 32-bit on some targets
    Ok(Some(st.f_bavail as u64 * st.f_frsize as u64))
}

impl Drop for TestFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_new_and_removed() {
        let dir = std::env::temp_dir();
        let a = TestFile::create(&dir, 8192).unwrap();
        let b = TestFile::create(&dir, 4096).unwrap();
        assert_ne!(a.path(), b.path());
        assert_eq!(std::fs::metadata(a.path()).unwrap().len(), 8192);
        let p = a.path().to_path_buf();
        drop(a);
        assert!(!p.exists());
    }

    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;

    #[test]
    fn a_default_that_fits_is_kept() {
        assert_eq!(fit(GIB, 100 * GIB, false), Fit::Whole(GIB));
        assert_eq!(fit(GIB, 100 * GIB, true), Fit::Whole(GIB));
    }

    #[test]
    fn a_default_that_does_not_fit_shrinks_to_the_room_left() {
        // A 48 MiB tmpfs: 4.8 MiB left to the file system, 43 whole MiB for the test file.
        assert_eq!(fit(GIB, 48 * MIB, false), Fit::Shrunk(43 * MIB));
        // A 500 MiB file system: a tenth stays free.
        assert_eq!(fit(GIB, 500 * MIB, false), Fit::Shrunk(450 * MIB));
    }

    #[test]
    fn a_given_size_that_does_not_fit_is_refused_with_the_room() {
        assert_eq!(fit(GIB, 48 * MIB, true), Fit::Refused { room: 43 * MIB });
    }

    #[test]
    fn no_room_worth_a_test_file_is_refused() {
        assert_eq!(fit(GIB, 10 * MIB, false), Fit::Refused { room: 6 * MIB });
        assert_eq!(fit(GIB, 3 * MIB, false), Fit::Refused { room: 0 });
        assert_eq!(fit(GIB, 0, true), Fit::Refused { room: 0 });
    }

    #[test]
    fn the_room_is_whole_mib_below_the_free_space_over_a_wide_range() {
        let mut free = 1u64;
        while free < 1 << 44 {
            let r = room(free);
            assert_eq!(r % MIB, 0, "{free}");
            assert!(r <= free.saturating_sub(4 * MIB), "{free}: {r}");
            assert!(r as f64 <= free as f64 * 0.9 + 1.0, "{free}: {r}");
            free = free * 3 + 7;
        }
    }

    #[test]
    fn free_space_of_the_temp_dir_is_read() {
        let free = free_space(&std::env::temp_dir()).unwrap();
        assert!(free.is_some_and(|f| f > 0), "{free:?}");
        // procfs keeps no count of blocks.
        assert_eq!(free_space(Path::new("/proc")).unwrap(), None);
        assert!(free_space(Path::new("/nonexistent-drivescope-dir")).is_err());
    }
}
