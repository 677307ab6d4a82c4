//! The flush requests the block layer counted on a device: the 16th field of `/sys/class/block/DEV/stat`
//! ("flush requests completed successfully", Linux 5.5 and later; Documentation/block/stat.rst). A flush the
//! file system or the kernel never sent does not appear there, whatever the program asked for.

use std::path::Path;

/// The flush count of each device in `names` added, under the sysfs root `sys`; none when any of them has
/// no such counter (an older kernel, a name sysfs does not know).
pub fn count_under(sys: &Path, names: &[String]) -> Option<u64> {
    if names.is_empty() {
        return None;
    }
    let mut total = 0;
    for n in names {
        let text = std::fs::read_to_string(sys.join("class/block").join(n).join("stat")).ok()?;
        total += text.split_whitespace().nth(15)?.parse::<u64>().ok()?;
    }
    Some(total)
}

/// [`count_under`] the running system's `/sys`.
pub fn count(names: &[String]) -> Option<u64> {
    count_under(Path::new("/sys"), names)
}

/// The flushes counted between two readings.
pub fn between(before: Option<u64>, after: Option<u64>) -> Option<u64> {
    after?.checked_sub(before?)
}

/// The devices whose flush requests the block layer counts for the target: the bottom devices under it (the
/// disks a partition, LVM or dm-crypt sits on; a loop device), whose request queues count every flush that
/// reaches them. Device-mapper and md pass flushes down without counting them, and a partition's are its
/// disk's: neither is watched.
pub fn watched(id: Option<&drivescope_probe::Identity>) -> Vec<String> {
    use drivescope_probe::block::BlockRole;
    let Some(id) = id else {
        return Vec::new();
    };
    let queue = |b: &&drivescope_probe::BlockInfo| {
        matches!(b.role, BlockRole::Disk | BlockRole::Loop | BlockRole::Zram)
    };
    let mut out: Vec<String> = Vec::new();
    let bottom: Vec<&drivescope_probe::BlockInfo> = id.devices().filter(queue).collect();
    let all: Vec<&drivescope_probe::BlockInfo> = if bottom.is_empty() {
        id.block_devices().filter(queue).collect()
    } else {
        bottom
    };
    for b in all {
        if !out.contains(&b.name) {
            out.push(b.name.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sixteenth_field_of_each_device_is_added_and_a_short_line_or_a_missing_device_is_none() {
        let dir =
            std::env::temp_dir().join(format!("drivescope-flushcount-{}", std::process::id()));
        let stat = |name: &str, text: &str| {
            let d = dir.join("class/block").join(name);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("stat"), text).unwrap();
        };
        // As the kernel writes it: 17 fields, aligned with spaces.
        stat("loop0", "  181  0  1439881054  12887587  1198477  0  119310358  10020638  0  2240536  22930247  54  0  9912336  3  118370  22017\n");
        stat("sdb", "1 2 3 4 5 6 7 8 0 10 11 12 13 14 15 7 17\n");
        // A kernel before 5.5: 15 fields, no flush count.
        stat("sdc", "1 2 3 4 5 6 7 8 0 10 11 12 13 14 15\n");
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(count_under(&dir, &names(&["loop0"])), Some(118370));
        assert_eq!(count_under(&dir, &names(&["loop0", "sdb"])), Some(118377));
        assert_eq!(count_under(&dir, &names(&["sdc"])), None);
        assert_eq!(count_under(&dir, &names(&["nosuch"])), None);
        assert_eq!(count_under(&dir, &[]), None);
        assert_eq!(between(Some(5), Some(9)), Some(4));
        assert_eq!(between(Some(9), Some(5)), None, "a counter that went back");
        assert_eq!(between(None, Some(5)), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
