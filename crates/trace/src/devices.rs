//! Block device names (as /sys/block and /proc/diskstats write them) to the numbers the block trace
//! events carry. A partition's requests are its disk's: the events name the disk and its sectors.

use crate::error::CaptureError;
pub use crate::file::TraceDevice;
use std::path::{Path, PathBuf};

const SYS_CLASS_BLOCK: &str = "/sys/class/block";

fn read_trim(p: &Path) -> Option<String> {
    std::fs::read_to_string(p)
        .ok()
        .map(|s| s.trim().to_string())
}

/// `major << 20 | minor` from a `dev` file's `M:m`.
pub fn parse_dev(text: &str) -> Option<u32> {
    let (ma, mi) = text.trim().split_once(':')?;
    let (ma, mi): (u32, u32) = (ma.parse().ok()?, mi.parse().ok()?);
    (mi < (1 << 20) && ma < (1 << 12)).then_some((ma << 20) | mi)
}

/// The whole disk a block device name is, or is a partition of, under `class` (/sys/class/block).
fn disk_of(class: &Path, name: &str) -> Result<(String, PathBuf), CaptureError> {
    let not = |why: &str| CaptureError::NotABlockDevice {
        name: name.to_string(),
        why: why.to_string(),
    };
    let dir =
        std::fs::canonicalize(class.join(name)).map_err(|_| not("not in /sys/class/block"))?;
    if dir.join("partition").exists() {
        let parent = dir
            .parent()
            .ok_or_else(|| not("a partition without a disk"))?;
        let disk = parent
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| not("a partition without a disk"))?;
        Ok((disk.to_string(), parent.to_path_buf()))
    } else {
        Ok((name.to_string(), dir))
    }
}

/// The disks to trace for these device names, each once, in the order first named.
pub fn resolve(names: &[String]) -> Result<Vec<TraceDevice>, CaptureError> {
    resolve_in(Path::new(SYS_CLASS_BLOCK), names)
}

fn resolve_in(class: &Path, names: &[String]) -> Result<Vec<TraceDevice>, CaptureError> {
    let mut out: Vec<TraceDevice> = Vec::new();
    for name in names {
        let (disk, dir) = disk_of(class, name)?;
        let dev = read_trim(&dir.join("dev"))
            .as_deref()
            .and_then(parse_dev)
            .ok_or_else(|| CaptureError::NotABlockDevice {
                name: disk.clone(),
                why: "no readable dev number".into(),
            })?;
        if out.iter().any(|d| d.dev == dev) {
            continue;
        }
        let logical_block_size = read_trim(&dir.join("queue/logical_block_size"))
            .and_then(|s| s.parse().ok())
            .unwrap_or(512);
        out.push(TraceDevice {
            dev,
            name: disk,
            logical_block_size,
        });
    }
    Ok(out)
}

/// Why a traced device is no longer there (removed, or a loop device detached), if it is not.
pub fn gone(d: &TraceDevice) -> Option<String> {
    let dir = PathBuf::from(format!(
        "/sys/dev/block/{}:{}",
        d.dev >> 20,
        d.dev & 0xfffff
    ));
    if !dir.exists() {
        return Some("it is no longer in /sys/dev/block".into());
    }
    match read_trim(&dir.join("size")).and_then(|s| s.parse::<u64>().ok()) {
        Some(0) => Some("its size is now 0: detached or its medium removed".into()),
        None => Some("its size cannot be read".into()),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_numbers() {
        assert_eq!(parse_dev("7:3\n"), Some((7 << 20) | 3));
        assert_eq!(parse_dev("259:0"), Some(259 << 20));
        assert_eq!(parse_dev("8"), None);
        assert_eq!(parse_dev("x:1"), None);
    }

    #[test]
    fn a_partition_resolves_to_its_disk_once() {
        let tmp =
            std::env::temp_dir().join(format!("drivescope-trace-devs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let devices = tmp.join("devices/sda");
        std::fs::create_dir_all(devices.join("sda1")).unwrap();
        std::fs::create_dir_all(devices.join("queue")).unwrap();
        std::fs::write(devices.join("dev"), "8:0\n").unwrap();
        std::fs::write(devices.join("queue/logical_block_size"), "4096\n").unwrap();
        std::fs::write(devices.join("sda1/dev"), "8:1\n").unwrap();
        std::fs::write(devices.join("sda1/partition"), "1\n").unwrap();
        let class = tmp.join("class");
        std::fs::create_dir_all(&class).unwrap();
        std::os::unix::fs::symlink(&devices, class.join("sda")).unwrap();
        std::os::unix::fs::symlink(devices.join("sda1"), class.join("sda1")).unwrap();
        let got = resolve_in(&class, &["sda1".into(), "sda".into()]).unwrap();
        assert_eq!(
            got,
            [TraceDevice {
                dev: 8 << 20,
                name: "sda".into(),
                logical_block_size: 4096
            }]
        );
        assert!(matches!(
            resolve_in(&class, &["sdz".into()]),
            Err(CaptureError::NotABlockDevice { .. })
        ));
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
