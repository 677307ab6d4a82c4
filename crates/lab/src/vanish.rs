//! A disk that goes away in the middle of a run (`vanish` in a model): once it has served
//! `after_read` bytes of reads, every command fails with `errno` (`EIO` by default, as a dead
//! disk behind a bridge answers; `ENODEV` as a device the kernel has dropped). The loop device
//! stays attached and the kernel says nothing of it, so a scan must tell it from damage by
//! its own probes.

use crate::units::de_size;
use drivescope_record::VanishTruth;
use serde::{Deserialize, Serialize};

/// When and how the disk goes away.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vanish {
    /// Bytes of reads served before it goes.
    #[serde(deserialize_with = "de_size")]
    pub after_read: u64,
    /// What every command fails with after: `EIO` or `ENODEV`.
    #[serde(default = "eio")]
    pub errno: String,
}

fn eio() -> String {
    "EIO".into()
}

impl Vanish {
    /// The error number every command fails with once the disk is gone.
    pub fn errno(&self) -> i32 {
        match self.errno.as_str() {
            "ENODEV" => libc::ENODEV,
            _ => libc::EIO,
        }
    }

    /// Why the section is invalid, if it is.
    pub fn check(&self, size: u64) -> Result<(), String> {
        if !matches!(self.errno.as_str(), "EIO" | "ENODEV") {
            return Err(format!(
                "vanish.errno must be EIO or ENODEV, not {}",
                self.errno
            ));
        }
        if self.after_read == 0 || self.after_read >= size {
            return Err("vanish.after_read must lie between 0 and the size".into());
        }
        Ok(())
    }

    pub fn truth(&self) -> VanishTruth {
        VanishTruth {
            after_read: self.after_read,
            errno: self.errno(),
        }
    }

    /// Whether the disk has gone, `read` bytes of reads served.
    pub fn gone(&self, read: u64) -> bool {
        read >= self.after_read
    }
}
