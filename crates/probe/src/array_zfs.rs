//! The members of a ZFS pool, from `zpool status POOL`: the leaf devices of its data vdevs (a mirror, a
//! raidz, disks striped at the top), not its log, cache or spare devices; a leaf the pool cannot open
//! (`UNAVAIL`, `FAULTED`, `REMOVED`, `OFFLINE`) is a missing member. ZFS keeps its layout out of sysfs, so the
//! pool's own word is read: kernel ZFS (`zfs` mounts) and zfs-fuse (`fuse.zfs` mounts) print the same table.

use crate::array::{Array, ArrayKind, Member};
use crate::mounts::MountEntry;
use crate::roots::Roots;
use crate::sysfs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One leaf of the data vdevs as `zpool status` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leaf {
    /// As the pool names it: `sdb`, `ata-WDC_…-part1`, `/dev/loop3`, a file path, or a GUID for a device
    /// it cannot find.
    pub name: String,
    pub state: String,
    /// `was /dev/sdc` after a GUID: where the pool last saw it.
    pub was: Option<String>,
}

/// A top-level data vdev: `mirror`, `raidz1`, `raidz2`, `raidz3`, or `disk` (a leaf striped on its own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vdev {
    pub kind: String,
    pub leaves: Vec<Leaf>,
}

/// The config table of `zpool status`, data vdevs only.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PoolStatus {
    pub pool: String,
    pub state: String,
    pub vdevs: Vec<Vdev>,
}

/// States of a leaf whose data the pool cannot read now.
const GONE: &[&str] = &["UNAVAIL", "FAULTED", "REMOVED", "OFFLINE"];

/// A vdev type from its name in the table (`mirror-0`, `raidz2-1`, `mirror`, `raidz`).
fn vdev_kind(name: &str) -> Option<String> {
    let base = name.split('-').next().unwrap_or(name);
    match base {
        "mirror" => Some("mirror".into()),
        "raidz" | "raidz1" => Some("raidz1".into()),
        "raidz2" | "raidz3" => Some(base.into()),
        "draid" | "draid1" | "draid2" | "draid3" => Some(base.into()),
        _ if base.starts_with("draid") => Some("draid".into()),
        _ => None,
    }
}

/// Parses `zpool status POOL`: the table under `config:`, indentation giving the tree. Sections after the
/// pool's own tree (`logs`, `cache`, `spares`, `special`, `dedup`) are left out, as they hold no data
/// copies of the pool's blocks (special and dedup vdevs hold metadata).
pub fn parse_status(text: &str) -> PoolStatus {
    let mut st = PoolStatus::default();
    let mut lines = text.lines();
    for l in lines.by_ref() {
        let t = l.trim();
        if let Some(p) = t.strip_prefix("pool:") {
            st.pool = p.trim().to_string();
        } else if let Some(s) = t.strip_prefix("state:") {
            st.state = s.trim().to_string();
        } else if t == "config:" {
            break;
        }
    }
    // Rows: NAME STATE READ WRITE CKSUM [note]; the indentation of NAME is the depth.
    let mut pool_indent: Option<usize> = None;
    let mut in_pool = false;
    for l in lines {
        let t = l.trim_start();
        if t.is_empty() {
            if pool_indent.is_some() {
                break;
            }
            continue;
        }
        if t.starts_with("errors:") {
            break;
        }
        let indent = l.len() - t.len();
        let cols: Vec<&str> = t.split_whitespace().collect();
        if cols.first() == Some(&"NAME") {
            continue;
        }
        let Some(pi) = pool_indent else {
            if cols.first() == Some(&st.pool.as_str()) || st.pool.is_empty() {
                pool_indent = Some(indent);
                in_pool = true;
            }
            continue;
        };
        if indent <= pi {
            // `logs`, `cache`, `spares`, …: a section of its own.
            in_pool = false;
            continue;
        }
        if !in_pool {
            continue;
        }
        let name = cols[0].to_string();
        let state = cols.get(1).unwrap_or(&"").to_string();
        let was = t.split_once(" was ").map(|(_, w)| w.trim().to_string());
        let top = st.vdevs.last().map(|v| v.kind.as_str());
        let depth_top = indent <= pi + 2;
        match vdev_kind(&name) {
            Some(kind) if depth_top => st.vdevs.push(Vdev {
                kind,
                leaves: Vec::new(),
            }),
            _ if depth_top => st.vdevs.push(Vdev {
                kind: "disk".into(),
                leaves: vec![Leaf { name, state, was }],
            }),
            _ if top.is_some() => st
                .vdevs
                .last_mut()
                .expect("a vdev above")
                .leaves
                .push(Leaf { name, state, was }),
            _ => {}
        }
    }
    st
}

/// The array's level in the words the array rule uses: one mirror of k is `raid1` (k = 2), `raid1c3`, `raid1c4`
/// (every block on each of the k); leaves striped at the top `raid0`; mirrors of two striped `raid10`; a raidz
/// by its own name; anything mixed none (said in a note).
pub fn level(st: &PoolStatus) -> Option<String> {
    let kinds: Vec<&str> = st.vdevs.iter().map(|v| v.kind.as_str()).collect();
    match kinds.as_slice() {
        [] => None,
        ["mirror"] => match st.vdevs[0].leaves.len() {
            2 => Some("raid1".into()),
            3 => Some("raid1c3".into()),
            4 => Some("raid1c4".into()),
            _ => None,
        },
        [one] if *one != "disk" && *one != "mirror" => Some(one.to_string()),
        all if all.iter().all(|k| *k == "disk") => Some("raid0".into()),
        all if all.iter().all(|k| *k == "mirror")
            && st.vdevs.iter().all(|v| v.leaves.len() == 2) =>
        {
            Some("raid10".into())
        }
        _ => None,
    }
}

/// The kernel name of a leaf, where it is a block device the system shows: an absolute path (`-P`), or a name
/// under the device root or one of its `disk/by-*` directories, or a device-mapper name.
fn kernel_name(leaf: &str, roots: &Roots) -> Option<(String, PathBuf)> {
    let dev = &roots.dev;
    let mut tries: Vec<PathBuf> = Vec::new();
    if leaf.starts_with('/') {
        tries.push(PathBuf::from(leaf));
    } else {
        tries.push(dev.join(leaf));
        for d in [
            "by-id",
            "by-vdev",
            "by-path",
            "by-partuuid",
            "by-uuid",
            "by-label",
        ] {
            tries.push(dev.join("disk").join(d).join(leaf));
        }
        tries.push(dev.join("mapper").join(leaf));
    }
    tries.into_iter().find_map(|p| {
        let real = std::fs::canonicalize(&p).ok()?;
        let name = sysfs::name_of(&real);
        roots
            .class_block(&name)
            .exists()
            .then(|| (name, dev.join(sysfs::name_of(&real))))
    })
}

/// The members of the pool `st` describes: its readable leaves as block devices, the others missing.
pub fn array_of(target: &Path, st: &PoolStatus, roots: &Roots) -> Array {
    let mut members = Vec::new();
    let mut missing = Vec::new();
    let mut notes = Vec::new();
    for leaf in st.vdevs.iter().flat_map(|v| &v.leaves) {
        if GONE.contains(&leaf.state.as_str()) {
            missing.push(match &leaf.was {
                Some(w) => format!("{} ({}, was {w})", leaf.name, leaf.state),
                None => format!("{} ({})", leaf.name, leaf.state),
            });
            continue;
        }
        match kernel_name(&leaf.name, roots) {
            Some((name, dev_path)) => members.push(Member {
                major_minor: sysfs::read(&roots.class_block(&name).join("dev")),
                name,
                dev_path,
            }),
            None => notes.push(format!(
                "{}: a member of pool {} that is no block device here (a file, or a name not under {})",
                leaf.name,
                st.pool,
                roots.dev.display()
            )),
        }
    }
    members.sort_by(|a, b| a.name.cmp(&b.name));
    let level = level(st);
    let layout = st
        .vdevs
        .iter()
        .map(|v| format!("{} of {}", v.kind, v.leaves.len()))
        .collect::<Vec<_>>();
    if level.is_none() && !st.vdevs.is_empty() {
        notes.push(format!(
            "pool {}: {}: a layout the array rule does not judge",
            st.pool,
            layout.join(", ")
        ));
    }
    if !missing.is_empty() {
        notes.push(format!(
            "pool {} is {}: it cannot use {}",
            st.pool,
            st.state,
            missing.join(", ")
        ));
    }
    Array {
        target: target.to_path_buf(),
        kind: ArrayKind::Zfs,
        name: st.pool.clone(),
        level,
        profiles: st.vdevs.iter().map(|v| v.kind.clone()).collect(),
        members,
        controller: None,
        notes,
        missing,
        paths_meet: None,
    }
}

/// Is this mount a ZFS dataset (kernel ZFS or zfs-fuse)?
pub fn is_zfs(m: &MountEntry) -> bool {
    m.fstype == "zfs" || m.fstype == "fuse.zfs" || m.fstype == "fuse.zfs-fuse"
}

/// The members of the pool a ZFS dataset is on, from `zpool status` (full device paths where the `zpool`
/// takes `-P`, its plain names otherwise). Where `zpool` cannot be run, the array says why in a note.
pub fn zfs(target: &Path, m: &MountEntry, roots: &Roots) -> Array {
    let pool = m.source.split('/').next().unwrap_or(&m.source).to_string();
    let run = |args: &[&str]| {
        Command::new("zpool")
            .args(args)
            .arg(&pool)
            .env("LC_ALL", "C")
            .output()
            .ok()
            .filter(|o| o.status.success())
    };
    match run(&["status", "-P"]).or_else(|| run(&["status"])) {
        Some(out) => array_of(target, &parse_status(&String::from_utf8_lossy(&out.stdout)), roots),
        None => Array {
            target: target.to_path_buf(),
            kind: ArrayKind::Zfs,
            name: pool.clone(),
            level: None,
            profiles: Vec::new(),
            members: Vec::new(),
            controller: None,
            notes: vec![format!(
                "{} is ZFS pool {pool}, but `zpool status {pool}` could not be read (is zpool installed, and \
                 are you root?)",
                m.mount_point.display()
            )],
            missing: Vec::new(),
            paths_meet: None,
        },
    }
}

/// `zpool status` of every pool, one table each: split where each `pool:` line begins.
pub fn split_pools(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in text.lines() {
        if l.trim_start().starts_with("pool:") || out.is_empty() {
            out.push(String::new());
        }
        let last = out.last_mut().expect("one table");
        last.push_str(l);
        last.push('\n');
    }
    out.retain(|t| t.contains("pool:"));
    out
}

/// `zfs POOL (mirror)` for each pool of more than one data device that holds one of `parts` (a drive and
/// its partitions, as kernel names), from `zpool status` of every pool; empty where `zpool` cannot be run.
pub fn pools_of(parts: &[String], roots: &Roots) -> Vec<String> {
    let Some(out) = Command::new("zpool")
        .arg("status")
        .env("LC_ALL", "C")
        .output()
        .ok()
        .filter(|o| o.status.success())
    else {
        return Vec::new();
    };
    pools_in(&String::from_utf8_lossy(&out.stdout), parts, roots)
}

/// [`pools_of`] over a `zpool status` text.
pub fn pools_in(text: &str, parts: &[String], roots: &Roots) -> Vec<String> {
    let mut said = Vec::new();
    for table in split_pools(text) {
        let st = parse_status(&table);
        let leaves: Vec<&Leaf> = st.vdevs.iter().flat_map(|v| &v.leaves).collect();
        if leaves.len() < 2 {
            continue;
        }
        let holds = leaves
            .iter()
            .any(|l| kernel_name(&l.name, roots).is_some_and(|(n, _)| parts.contains(&n)));
        if holds {
            let mut kinds: Vec<&str> = st.vdevs.iter().map(|v| v.kind.as_str()).collect();
            kinds.dedup();
            said.push(format!("zfs {} ({})", st.pool, kinds.join(", ")));
        }
    }
    said
}

#[cfg(test)]
#[path = "array_zfs_tests.rs"]
mod tests;
