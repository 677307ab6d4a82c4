//! The members of an array: the block devices a mirror or a stripe is made of, as the kernel shows them.
//!
//! - md (Linux software RAID) and device-mapper: the array's `slaves/` in sysfs, and `md/level`;
//! - btrfs over several devices: `/sys/fs/btrfs/<UUID>/devices/`, the file system found by the device its
//!   mount names, and the data profile from the subdirectories of `allocation/data/` (`raid1`, `raid0`, …);
//! - a device with none of these shows no members: a single device, or a hardware RAID whose controller hides
//!   them. That is said in words, never guessed.
//!
//! A partition leads to its whole device, and a device-mapper layer over exactly one md or dm device (dm-crypt
//! over md, LVM over md) to the array below it. Everything is read under [`Roots`], so tests run on fixture
//! trees. Nothing here opens a device.

use crate::error::{ProbeError, Result};
use crate::mounts::{self, MountEntry};
use crate::roots::Roots;
use crate::sysfs;
use serde::{Deserialize, Serialize};
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// What holds the members together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArrayKind {
    /// Linux software RAID.
    Md,
    /// Device-mapper (LVM, dm-raid, striped or mirrored mappings).
    Dm,
    /// A btrfs file system over one or more devices.
    Btrfs,
    /// A ZFS pool (kernel ZFS or zfs-fuse), its members from `zpool status`.
    Zfs,
    /// A device the system shows no members of.
    Device,
    /// Members named by the user (`--members`), where the system cannot say them.
    Named,
}

/// One member as the kernel names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    /// The kernel name (`sdb`, `nvme0n1p2`, `loop3`).
    pub name: String,
    /// Its node under the device root (`/dev/sdb`).
    pub dev_path: PathBuf,
    /// `MAJ:MIN`, when sysfs says it.
    pub major_minor: Option<String>,
}

/// An array and its members, or a device that shows none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Array {
    /// The target it was found from.
    pub target: PathBuf,
    pub kind: ArrayKind,
    /// The array's own name: the kernel name of an md or dm device (`md0`, `dm-2`), a btrfs file system's UUID,
    /// the device's kernel name.
    pub name: String,
    /// The layout where the system says it: md's `level` (`raid1`, `raid0`, `raid10`, `linear`), btrfs's data
    /// profile (`raid1`, `raid0`, `raid10`, `single`, `dup`, …). `None` where it is not said (device-mapper keeps
    /// its mapping out of sysfs) or is mixed.
    pub level: Option<String>,
    /// btrfs: every data profile that holds chunks; more than one while a conversion is under way.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub profiles: Vec<String>,
    /// Sorted by kernel name. A device that shows no members is its own one member.
    pub members: Vec<Member>,
    /// The driver of a hardware RAID controller the device hangs off (`megaraid_sas`, `hpsa`): its members are
    /// behind the controller, out of the system's sight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<String>,
    /// Sentences a person reads: why no members were found, a missing member, a level not said.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Members the array counts but the system cannot find, as the array knows them (`devid 3` of a btrfs
    /// mounted `-o degraded`, `slot 1` of an md array): the array is degraded. Empty when every member is there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
    /// Where the members' paths meet below the machine's root bus, as [`crate::shared_parent`] says it (`2-1
    /// (hub)`, `0000:00:17.0 (ahci)`): the one device every command to them passes. None for members on paths
    /// that meet only at the root bus, and for virtual members (loop, zram), which show no such path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paths_meet: Option<String>,
}

impl Array {
    /// True when there is more than one member to measure.
    pub fn is_array(&self) -> bool {
        self.members.len() > 1
    }
}

/// The btrfs profile names the kernel uses under `allocation/data/` (fs/btrfs/volumes.c's raid table).
const BTRFS_PROFILES: &[&str] = &[
    "single", "dup", "raid0", "raid1", "raid1c3", "raid1c4", "raid10", "raid5", "raid6",
];

/// SCSI host drivers of hardware RAID controllers, whose block devices are logical drives over disks the
/// controller keeps to itself (the kernel's drivers/scsi names).
const RAID_HOST_DRIVERS: &[&str] = &[
    "megaraid_sas",
    "megaraid",
    "hpsa",
    "cciss",
    "smartpqi",
    "aacraid",
    "3w-9xxx",
    "3w-sas",
    "3w-xxxx",
    "arcmsr",
    "ips",
    "ipr",
    "pmcraid",
    "hptiop",
    "esas2r",
    "stex",
];

/// The RAID controller driver of the SCSI host a block device sits under (`…/host0/target0:2:0/0:2:0:0/block/sda`
/// with `host0/scsi_host/host0/proc_name`), when it is one.
fn raid_controller(canon: &Path, roots: &Roots) -> Option<String> {
    let sys = fs::canonicalize(&roots.sys).ok()?;
    sysfs::ancestors_within(canon, &sys).iter().find_map(|dir| {
        let host = sysfs::name_of(dir);
        let digits = host.strip_prefix("host")?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let driver = sysfs::read(&dir.join("scsi_host").join(&host).join("proc_name"))?;
        RAID_HOST_DRIVERS
            .contains(&driver.as_str())
            .then_some(driver)
    })
}

/// The members of `target`: a block device (a `/dev` path or a bare kernel name), or a file or directory on a
/// mounted file system.
pub fn members(target: &Path, roots: &Roots) -> Result<Array> {
    found(target, roots).map(|a| with_meeting(a, roots))
}

/// The array with where its members' paths meet, when they do below the root bus.
fn with_meeting(mut a: Array, roots: &Roots) -> Array {
    if a.members.len() > 1 {
        let names: Vec<String> = a.members.iter().map(|m| m.name.clone()).collect();
        a.paths_meet = crate::shared_parent::shared_parent(roots, &names);
    }
    a
}

fn found(target: &Path, roots: &Roots) -> Result<Array> {
    let (name, mount) = resolve(target, roots)?;
    if let Some(m) = mount.as_ref().filter(|m| m.fstype == "btrfs") {
        return btrfs(target, m, roots);
    }
    if let Some(m) = mount.as_ref().filter(|m| crate::array_zfs::is_zfs(m)) {
        return Ok(crate::array_zfs::zfs(target, m, roots));
    }
    let name = name.ok_or_else(|| ProbeError::NotADevice(target.to_path_buf()))?;
    block(target, &name, roots)
}

/// The kernel name of the block device under `target`, and the mount when it is a file or directory.
fn resolve(target: &Path, roots: &Roots) -> Result<(Option<String>, Option<MountEntry>)> {
    let md = match fs::metadata(target) {
        Ok(md) => md,
        Err(error) => {
            let name = target.to_string_lossy();
            if target.components().count() == 1 && roots.class_block(&name).exists() {
                return Ok((Some(name.into_owned()), None));
            }
            return Err(ProbeError::Unreadable {
                path: target.to_path_buf(),
                error,
            });
        }
    };
    if md.file_type().is_block_device() {
        let (maj, min) = split_dev(md.rdev());
        let name = fs::canonicalize(roots.dev_block(maj, min))
            .ok()
            .map(|p| sysfs::name_of(&p))
            .ok_or_else(|| ProbeError::NotInSysfs {
                target: target.to_path_buf(),
                major: maj,
                minor: min,
                sys: roots.sys.clone(),
            })?;
        return Ok((Some(name), None));
    }
    if let Some(name) = crate::kernel_name(target, roots) {
        return Ok((Some(name), None));
    }
    let canon = fs::canonicalize(target).map_err(|error| ProbeError::Unreadable {
        path: target.to_path_buf(),
        error,
    })?;
    let all = mounts::read_mountinfo(&roots.proc).map_err(|error| ProbeError::Unreadable {
        path: roots.mountinfo(),
        error,
    })?;
    let m = mounts::mount_for(&all, &canon, Some(split_dev(md.dev())))
        .cloned()
        .ok_or_else(|| ProbeError::NotADevice(target.to_path_buf()))?;
    let name = mount_device(&m, roots);
    Ok((name, Some(m)))
}

/// The kernel name of the device a mount names: by its number, else by its source under the device root.
fn mount_device(m: &MountEntry, roots: &Roots) -> Option<String> {
    let by_dev = (m.major != 0)
        .then(|| fs::canonicalize(roots.dev_block(m.major, m.minor)).ok())
        .flatten()
        .map(|p| sysfs::name_of(&p));
    by_dev.or_else(|| {
        let rel = m.source.strip_prefix("/dev/")?;
        crate::kernel_name(&roots.dev.join(rel), roots).or_else(|| {
            let name = sysfs::name_of(Path::new(rel));
            roots.class_block(&name).exists().then_some(name)
        })
    })
}

/// A block device by kernel name: through a partition to its disk and through single-member dm layers.
fn block(target: &Path, name: &str, roots: &Roots) -> Result<Array> {
    let mut name = name.to_string();
    let mut notes = Vec::new();
    for _ in 0..32 {
        let dir = roots.class_block(&name);
        let canon = fs::canonicalize(&dir).map_err(|error| ProbeError::NoBlockDevice {
            name: name.clone(),
            dir: dir.clone(),
            error,
        })?;
        if canon.join("partition").is_file() {
            let parent = canon.parent().map(sysfs::name_of).unwrap_or_default();
            notes.push(format!("{name} is a partition of {parent}"));
            name = parent;
            continue;
        }
        let slaves = sysfs::list(&canon.join("slaves"));
        if canon.join("md").is_dir() {
            let level = sysfs::read(&canon.join("md/level"));
            let mut missing = Vec::new();
            if let Some(want) = sysfs::read_u64(&canon.join("md/raid_disks")) {
                if (slaves.len() as u64) < want {
                    notes.push(format!(
                        "{name} shows {} of its {want} members: the others are missing or failed",
                        slaves.len()
                    ));
                    missing = crate::array_missing::md(&canon.join("md"), want, slaves.len());
                }
            }
            let mut a = array(target, ArrayKind::Md, &name, level, &slaves, roots, notes);
            a.missing = missing;
            return Ok(a);
        }
        if canon.join("dm").is_dir() {
            if let [only] = slaves.as_slice() {
                let below = roots.class_block(only);
                if below.join("md").is_dir() || below.join("dm").is_dir() {
                    notes.push(format!("{name} is a mapping over {only}"));
                    name = only.clone();
                    continue;
                }
            }
            if slaves.len() > 1 {
                notes.push(format!(
                    "{name}: device-mapper keeps its mapping (linear, striped, mirrored) out of sysfs; \
                     `dmsetup table` says it"
                ));
            }
            return Ok(array(
                target,
                ArrayKind::Dm,
                &name,
                None,
                &slaves,
                roots,
                notes,
            ));
        }
        let controller = raid_controller(&canon, roots);
        notes.push(match &controller {
            Some(driver) => format!(
                "{name} is a logical drive of a hardware RAID controller ({driver}): \
                 the controller keeps its members out of the system's sight"
            ),
            None => format!(
                "{name} shows no members: a single device, or a hardware RAID whose controller hides its members"
            ),
        });
        let mut a = array(
            target,
            ArrayKind::Device,
            &name,
            None,
            std::slice::from_ref(&name),
            roots,
            notes,
        );
        a.controller = controller;
        return Ok(a);
    }
    Err(ProbeError::TooDeep(name))
}

/// A btrfs file system: the one whose `devices/` holds the device its mount names.
fn btrfs(target: &Path, m: &MountEntry, roots: &Roots) -> Result<Array> {
    let base = roots.sys.join("fs/btrfs");
    let source = mount_device(m, roots).unwrap_or_else(|| sysfs::name_of(Path::new(&m.source)));
    let found = sysfs::list(&base).into_iter().find(|uuid| {
        let devices = base.join(uuid).join("devices");
        fs::symlink_metadata(devices.join(&source)).is_ok()
    });
    let Some(uuid) = found else {
        let note = format!(
            "{} is btrfs from {}, but no file system in {} lists {source} among its devices",
            m.mount_point.display(),
            m.source,
            base.display()
        );
        return Ok(Array {
            target: target.to_path_buf(),
            kind: ArrayKind::Btrfs,
            name: String::new(),
            level: None,
            profiles: Vec::new(),
            members: Vec::new(),
            controller: None,
            notes: vec![note],
            missing: Vec::new(),
            paths_meet: None,
        });
    };
    let fs_dir = base.join(&uuid);
    let devices = sysfs::list(&fs_dir.join("devices"));
    let data = fs_dir.join("allocation/data");
    let profiles: Vec<String> = sysfs::list(&data)
        .into_iter()
        .filter(|p| BTRFS_PROFILES.contains(&p.as_str()) && data.join(p).is_dir())
        .collect();
    let mut notes = Vec::new();
    let level = match profiles.as_slice() {
        [] => {
            notes.push(format!("{uuid}: {} names no data profile", data.display()));
            None
        }
        [one] => Some(one.clone()),
        many => {
            notes.push(format!(
                "{uuid}: data is held in several profiles ({}): a conversion under way or unfinished",
                many.join(", ")
            ));
            None
        }
    };
    let (counted, missing) = crate::array_missing::btrfs(&fs_dir);
    if !missing.is_empty() {
        notes.push(format!(
            "{uuid} counts {counted} devices and cannot find {} ({}): it is mounted degraded",
            missing.len(),
            missing.join(", ")
        ));
    }
    let mut a = array(
        target,
        ArrayKind::Btrfs,
        &uuid,
        level,
        &devices,
        roots,
        notes,
    );
    a.profiles = profiles;
    a.missing = missing;
    Ok(a)
}

/// An array of the members the user names (`/dev/sdb` or `sdb`), where the system cannot say them (a
/// hardware RAID's disks on another path, a ZFS pool): each must be a block device or a readable file.
pub fn named(target: &Path, names: &[String], roots: &Roots) -> Result<Array> {
    let mut members = Vec::new();
    for n in names {
        let path = Path::new(n);
        let (name, dev_path) = if path.components().count() == 1 && !path.exists() {
            (n.clone(), roots.dev.join(n))
        } else {
            let name = crate::kernel_name(path, roots).unwrap_or_else(|| sysfs::name_of(path));
            (name, path.to_path_buf())
        };
        fs::metadata(&dev_path).map_err(|error| ProbeError::Unreadable {
            path: dev_path.clone(),
            error,
        })?;
        members.push(Member {
            major_minor: sysfs::read(&roots.class_block(&name).join("dev")),
            name,
            dev_path,
        });
    }
    let a = Array {
        target: target.to_path_buf(),
        kind: ArrayKind::Named,
        name: sysfs::name_of(target),
        level: None,
        profiles: Vec::new(),
        members,
        controller: None,
        notes: Vec::new(),
        missing: Vec::new(),
        paths_meet: None,
    };
    Ok(with_meeting(a, roots))
}

fn array(
    target: &Path,
    kind: ArrayKind,
    name: &str,
    level: Option<String>,
    names: &[String],
    roots: &Roots,
    notes: Vec<String>,
) -> Array {
    let mut members: Vec<Member> = names
        .iter()
        .map(|n| Member {
            name: n.clone(),
            dev_path: Path::new("/dev").join(n),
            major_minor: sysfs::read(&roots.class_block(n).join("dev")),
        })
        .collect();
    members.sort_by(|a, b| a.name.cmp(&b.name));
    Array {
        target: target.to_path_buf(),
        kind,
        name: name.to_string(),
        level,
        profiles: Vec::new(),
        members,
        controller: None,
        notes,
        missing: Vec::new(),
        paths_meet: None,
    }
}

/// Linux `dev_t` to (major, minor) (glibc's gnu_dev_major/minor encoding).
fn split_dev(dev: u64) -> (u32, u32) {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    (major as u32, minor as u32)
}

#[cfg(test)]
#[path = "array_tests.rs"]
mod tests;
