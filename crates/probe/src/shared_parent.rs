//! Where the paths of several block devices meet: the deepest device in sysfs above all of them
//! (a host adapter, a port multiplier's port, a USB hub), when they meet below the machine's
//! root bus. Virtual devices (loop, zram) have no such path.

use crate::roots::Roots;
use std::path::{Component, PathBuf};

/// The sysfs device path of block device `name` (a disk or a partition), without its
/// `block/…` tail: `/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0`.
/// None for virtual devices and names sysfs does not know.
fn device_path(roots: &Roots, name: &str) -> Option<PathBuf> {
    let real = std::fs::canonicalize(roots.sys.join("class/block").join(name)).ok()?;
    let devices = std::fs::canonicalize(roots.sys.join("devices")).ok()?;
    let rel = real.strip_prefix(&devices).ok()?;
    let mut out = PathBuf::new();
    for c in rel.components() {
        match c {
            Component::Normal(s) if s == "block" => break,
            Component::Normal(s) => out.push(s),
            _ => return None,
        }
    }
    if out.starts_with("virtual") || out.as_os_str().is_empty() {
        return None;
    }
    Some(out)
}

/// The longest common leading part of `paths` (relative to `/sys/devices`) that goes below the
/// root bus (`pci0000:00`, `platform`): at least two parts. Pure.
pub fn common_parent(paths: &[PathBuf]) -> Option<PathBuf> {
    let (first, rest) = paths.split_first()?;
    if rest.is_empty() {
        return None;
    }
    let mut common: Vec<Component> = first.components().collect();
    for p in rest {
        let n = common
            .iter()
            .zip(p.components())
            .take_while(|(a, b)| **a == *b)
            .count();
        common.truncate(n);
    }
    // Every path goes on below the common part: otherwise one device sits above the others.
    if common.len() < 2 || paths.iter().any(|p| p.components().count() <= common.len()) {
        return None;
    }
    Some(common.iter().collect())
}

/// Where the block devices `names` meet, in words: the device's sysfs name and its driver,
/// `0000:00:17.0 (ahci)`, `2-1 (hub)`. None for fewer than two devices, virtual devices, or
/// paths that meet only at the root bus.
pub fn shared_parent(roots: &Roots, names: &[String]) -> Option<String> {
    let paths: Vec<PathBuf> = names
        .iter()
        .map(|n| device_path(roots, n))
        .collect::<Option<_>>()?;
    let common = common_parent(&paths)?;
    let name = common.file_name()?.to_string_lossy().into_owned();
    let driver = std::fs::read_link(roots.sys.join("devices").join(&common).join("driver"))
        .ok()
        .and_then(|d| Some(d.file_name()?.to_string_lossy().into_owned()));
    Some(match driver {
        Some(d) => format!("{name} ({d})"),
        None => name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> PathBuf {
        PathBuf::from(s)
    }

    #[test]
    fn paths_meet_at_the_deepest_shared_device_below_the_root_bus() {
        let sata = |n: u32| {
            p(&format!(
                "pci0000:00/0000:00:17.0/ata{n}/host{n}/target{n}:0:0/{n}:0:0:0"
            ))
        };
        assert_eq!(
            common_parent(&[sata(1), sata(2), sata(3)]),
            Some(p("pci0000:00/0000:00:17.0"))
        );
        let hub = |port: u32| {
            p(&format!("pci0000:00/0000:00:14.0/usb2/2-1/2-1.{port}/2-1.{port}:1.0/host9/target9:0:0/9:0:0:0"))
        };
        assert_eq!(
            common_parent(&[hub(1), hub(2)]),
            Some(p("pci0000:00/0000:00:14.0/usb2/2-1"))
        );
        // Two NVMe drives on their own root ports meet only at the root bus.
        assert_eq!(
            common_parent(&[
                p("pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme0/nvme0n1"),
                p("pci0000:01/0000:40:01.0/0000:41:00.0/nvme/nvme1/nvme1n1")
            ]),
            None
        );
        assert_eq!(common_parent(&[sata(1)]), None);
        // The same device twice is no shared path.
        assert_eq!(common_parent(&[sata(1), sata(1)]), None);
    }

    #[test]
    fn loop_devices_share_no_path() {
        // Virtual devices have no device path at all (whether or not loop0 exists here).
        let roots = Roots::default();
        assert_eq!(device_path(&roots, "loop0"), None);
        assert_eq!(
            shared_parent(&roots, &["loop0".into(), "loop1".into()]),
            None
        );
    }
}
