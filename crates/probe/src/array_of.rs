//! The array a drive belongs to, as the system shows it: an md or device-mapper device that holds it (or one
//! of its partitions) in sysfs `holders/`, or a btrfs file system that lists it under
//! `/sys/fs/btrfs/<UUID>/devices/`, or a ZFS pool whose `zpool status` lists it. For `screen`, which reads drives one by one and together and so reads an
//! array's members: it names the array, so that what the members do together is read as the array's.

use crate::roots::Roots;
use crate::sysfs;
use std::fs;
use std::path::Path;

/// `md0 (md raid1)`, `dm-2 (device-mapper)`, `btrfs 5b0d… (raid1)`, `zfs tank (mirror)` for each array `target` (a device path
/// or kernel name) or one of its partitions is a member of; empty for a drive in no array.
pub fn arrays_of(target: &Path, roots: &Roots) -> Vec<String> {
    let name = crate::kernel_name(target, roots).or_else(|| {
        let n = target.to_string_lossy();
        (target.components().count() == 1 && roots.class_block(&n).exists()).then(|| n.into_owned())
    });
    let Some(name) = name else {
        return Vec::new();
    };
    let Ok(dir) = fs::canonicalize(roots.class_block(&name)) else {
        return Vec::new();
    };
    // The drive and its partitions (subdirectories with a `partition` file).
    let mut parts = vec![name.clone()];
    parts.extend(
        sysfs::list(&dir)
            .into_iter()
            .filter(|p| dir.join(p).join("partition").is_file()),
    );
    let mut out = Vec::new();
    for p in &parts {
        for h in sysfs::list(&roots.class_block(p).join("holders")) {
            let hd = roots.class_block(&h);
            let said = if hd.join("md").is_dir() {
                match sysfs::read(&hd.join("md/level")) {
                    Some(level) => format!("{h} (md {level})"),
                    None => format!("{h} (md)"),
                }
            } else if hd.join("dm").is_dir() {
                format!("{h} (device-mapper)")
            } else {
                continue;
            };
            if !out.contains(&said) {
                out.push(said);
            }
        }
    }
    let base = roots.sys.join("fs/btrfs");
    for uuid in sysfs::list(&base) {
        let devices = base.join(&uuid).join("devices");
        if !parts
            .iter()
            .any(|p| fs::symlink_metadata(devices.join(p)).is_ok())
        {
            continue;
        }
        let counted = sysfs::list(&devices)
            .len()
            .max(sysfs::list(&base.join(&uuid).join("devinfo")).len());
        if counted < 2 {
            // One device: a file system, no array.
            continue;
        }
        let data = base.join(&uuid).join("allocation/data");
        let profiles: Vec<String> = sysfs::list(&data)
            .into_iter()
            .filter(|p| data.join(p).is_dir())
            .collect();
        out.push(match profiles.as_slice() {
            [] => format!("btrfs {uuid}"),
            _ => format!("btrfs {uuid} ({})", profiles.join(", ")),
        });
    }
    out.extend(crate::array_zfs::pools_of(&parts, roots));
    out
}
