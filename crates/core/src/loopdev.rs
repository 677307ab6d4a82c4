//! Loop devices that drivescope (or its tests) attach and detach.
//!
//! Attaching goes through `losetup`, which handles the kernel's free-slot races.
//! A [`LoopDevice`] detaches itself when dropped.

use std::path::{Path, PathBuf};
use std::process::Command;

/// An attached loop device; detached on drop.
#[derive(Debug)]
pub struct LoopDevice {
    path: PathBuf,
    detached: bool,
}

impl LoopDevice {
    /// Attach `backing` to a free loop device. `direct_io` asks the loop driver to use
    /// O_DIRECT on its backing file (no double caching), `read_only` attaches it read-only.
    pub fn attach(backing: &Path, read_only: bool, direct_io: bool) -> std::io::Result<Self> {
        let mut cmd = Command::new("losetup");
        cmd.arg("--find").arg("--show");
        if read_only {
            cmd.arg("--read-only");
        }
        if direct_io {
            cmd.arg("--direct-io=on");
        }
        cmd.arg(backing);
        let out = cmd.output()?;
        if !out.status.success() {
            return Err(std::io::Error::other(format!(
                "losetup {}: {}",
                backing.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        Ok(LoopDevice {
            path,
            detached: false,
        })
    }

    /// The device node, e.g. `/dev/loop3`.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Detach now, reporting any error (drop detaches silently).
    pub fn detach(mut self) -> std::io::Result<()> {
        self.detached = true;
        detach(&self.path)
    }
}

/// Detach a loop device by path.
pub fn detach(path: &Path) -> std::io::Result<()> {
    let out = Command::new("losetup").arg("-d").arg(path).output()?;
    if out.status.success() {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "losetup -d {}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        if !self.detached {
            let _ = detach(&self.path);
        }
    }
}
