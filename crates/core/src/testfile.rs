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
                source: e,
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
                        source: e,
                    })?;
                    return Ok(test);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(TargetError::Io {
                        path: path.display().to_string(),
                        source: e,
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
}
