//! Whether the kernel says a block device is gone: the engine and the target know where to ask
//! (their sysfs directory), the scan's lost-device rule (`scan::lost`) asks. It lives below both,
//! so the I/O layer does not depend on the scan logic above it.

use std::path::PathBuf;

/// The kernel's own word on whether a block device is still there, read from sysfs.
#[derive(Debug, Clone, Default)]
pub struct GoneCheck {
    /// The device's sysfs directory (`/sys/dev/block/MAJ:MIN`); none for files and `null:`.
    pub sysfs: Option<PathBuf>,
}

impl GoneCheck {
    /// Why the kernel says the device is gone, or `None` while it says nothing of the kind.
    pub fn says_gone(&self) -> Option<String> {
        let dir = self.sysfs.as_ref()?;
        if !dir.exists() {
            return Some("the kernel removed the block device".into());
        }
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
        if read("size").is_some_and(|s| s.trim() == "0") {
            return Some("the kernel reports a size of 0 (no medium)".into());
        }
        // SCSI disks say `offline`, NVMe controllers `dead` or `deleting`; a partition's
        // device is its disk's.
        let state = read("device/state").or_else(|| {
            dir.join("partition")
                .exists()
                .then(|| std::fs::read_to_string(dir.join("../device/state")).ok())
                .flatten()
        })?;
        let state = state.trim();
        matches!(
            state,
            "offline" | "dead" | "deleting" | "deleting (no IO)" | "transport-offline"
        )
        .then(|| format!("the kernel reports the device {state}"))
    }
}
