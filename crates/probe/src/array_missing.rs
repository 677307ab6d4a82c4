//! The members an array counts but the system cannot find: a btrfs device the kernel marks missing (a file
//! system mounted `-o degraded` without it), an md slot with no device in it.

use crate::sysfs;
use std::path::Path;

/// btrfs: every device the file system counts is a `devinfo/<devid>` directory; one the kernel has not found
/// has `missing` = 1. The devices counted, and the missing ones as `devid N`, in devid order.
pub(crate) fn btrfs(fs_dir: &Path) -> (usize, Vec<String>) {
    let info = fs_dir.join("devinfo");
    let mut ids: Vec<u64> = sysfs::list(&info)
        .iter()
        .filter_map(|d| d.parse().ok())
        .collect();
    ids.sort_unstable();
    let missing = ids
        .iter()
        .filter(|id| sysfs::read_u64(&info.join(id.to_string()).join("missing")) == Some(1))
        .map(|id| format!("devid {id}"))
        .collect();
    (ids.len(), missing)
}

/// md: `md/rd<k>` links the device in slot `k`; with `raid_disks` slots and `present` devices, the missing
/// ones as `slot k` where the slots are shown, else one `a member` for each device short.
pub(crate) fn md(md_dir: &Path, raid_disks: u64, present: usize) -> Vec<String> {
    let short = (raid_disks as usize).saturating_sub(present);
    if short == 0 {
        return Vec::new();
    }
    let shown = |k: u64| std::fs::symlink_metadata(md_dir.join(format!("rd{k}"))).is_ok();
    if (0..raid_disks).any(shown) {
        (0..raid_disks)
            .filter(|k| !shown(*k))
            .map(|k| format!("slot {k}"))
            .collect()
    } else {
        vec!["a member".to_string(); short]
    }
}
