//! Member discovery over sysfs, procfs and devtmpfs trees built as the kernel lays them out.

use super::*;
use std::os::unix::fs::symlink;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fixture tree under the temp directory, removed on drop.
struct Tree {
    dir: PathBuf,
    mountinfo: String,
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

impl Tree {
    fn new() -> Tree {
        let dir = std::env::temp_dir().join(format!(
            "drivescope-array-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        for d in [
            "sys/class/block",
            "sys/dev/block",
            "sys/fs/btrfs",
            "proc/self",
            "dev",
        ] {
            fs::create_dir_all(dir.join(d)).unwrap();
        }
        Tree {
            dir,
            mountinfo: String::new(),
        }
    }

    fn roots(&self) -> Roots {
        fs::write(self.dir.join("proc/self/mountinfo"), &self.mountinfo).unwrap();
        Roots::under(&self.dir)
    }

    fn write(&self, rel: impl AsRef<Path>, text: &str) {
        let p = self.dir.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, format!("{text}\n")).unwrap();
    }

    /// A whole block device at `sys/devices/virtual/block/NAME`, with its class and dev links and node.
    fn disk(&self, name: &str, maj_min: &str) -> PathBuf {
        let d = self.dir.join("sys/devices/virtual/block").join(name);
        self.node(name, maj_min, &d)
    }

    /// A partition inside its disk's directory.
    fn partition(&self, disk: &str, name: &str, maj_min: &str, number: u32) -> PathBuf {
        let d = self
            .dir
            .join("sys/devices/virtual/block")
            .join(disk)
            .join(name);
        let d = self.node(name, maj_min, &d);
        fs::write(d.join("partition"), format!("{number}\n")).unwrap();
        d
    }

    fn node(&self, name: &str, maj_min: &str, d: &Path) -> PathBuf {
        fs::create_dir_all(d.join("slaves")).unwrap();
        fs::write(d.join("dev"), format!("{maj_min}\n")).unwrap();
        symlink(d, self.dir.join("sys/class/block").join(name)).unwrap();
        symlink(d, self.dir.join("sys/dev/block").join(maj_min)).unwrap();
        fs::write(self.dir.join("dev").join(name), "").unwrap();
        d.to_path_buf()
    }

    fn slaves(&self, dir: &Path, names: &[&str]) {
        for n in names {
            symlink(
                self.dir.join("sys/class/block").join(n),
                dir.join("slaves").join(n),
            )
            .unwrap();
        }
    }

    fn md(&self, name: &str, maj_min: &str, level: &str, raid_disks: usize, members: &[&str]) {
        let d = self.disk(name, maj_min);
        self.write(d.join("md/level"), level);
        self.write(d.join("md/raid_disks"), &raid_disks.to_string());
        self.slaves(&d, members);
    }

    fn dm(&self, name: &str, maj_min: &str, uuid: &str, members: &[&str]) {
        let d = self.disk(name, maj_min);
        self.write(d.join("dm/uuid"), uuid);
        self.slaves(&d, members);
    }

    /// A btrfs file system over `devices`, with data chunks in `profiles`, mounted at a directory of the
    /// tree from the first device; returns the mount point.
    fn btrfs(&mut self, uuid: &str, devices: &[&str], profiles: &[&str]) -> PathBuf {
        let fs_dir = self.dir.join("sys/fs/btrfs").join(uuid);
        fs::create_dir_all(fs_dir.join("devices")).unwrap();
        for d in devices {
            symlink(
                self.dir.join("sys/class/block").join(d),
                fs_dir.join("devices").join(d),
            )
            .unwrap();
        }
        let data = fs_dir.join("allocation/data");
        fs::create_dir_all(&data).unwrap();
        fs::write(data.join("total_bytes"), "0\n").unwrap();
        for p in profiles {
            fs::create_dir_all(data.join(p)).unwrap();
            fs::write(data.join(p).join("total_bytes"), "1048576\n").unwrap();
        }
        let mnt = self.dir.join("mnt").join(uuid);
        fs::create_dir_all(&mnt).unwrap();
        self.mount(&mnt, "0:77", "btrfs", &format!("/dev/{}", devices[0]));
        mnt
    }

    fn mount(&mut self, at: &Path, maj_min: &str, fstype: &str, source: &str) {
        let n = self.mountinfo.lines().count() + 30;
        self.mountinfo.push_str(&format!(
            "{n} 1 {maj_min} / {} rw,relatime - {fstype} {source} rw\n",
            at.display()
        ));
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

fn names(a: &Array) -> Vec<&str> {
    a.members.iter().map(|m| m.name.as_str()).collect()
}

fn sd(i: usize) -> String {
    format!("sd{}", (b'b' + i as u8) as char)
}

#[test]
fn md_mirror_over_partitions_names_them_and_its_level() {
    let t = Tree::new();
    t.disk("sdb", "8:16");
    t.disk("sdc", "8:32");
    t.partition("sdb", "sdb1", "8:17", 1);
    t.partition("sdc", "sdc1", "8:33", 1);
    t.md("md0", "9:0", "raid1", 2, &["sdc1", "sdb1"]);
    let r = t.roots();
    let a = members(&r.dev.join("md0"), &r).unwrap();
    assert_eq!(a.kind, ArrayKind::Md);
    assert_eq!(a.name, "md0");
    assert_eq!(a.level.as_deref(), Some("raid1"));
    assert_eq!(names(&a), ["sdb1", "sdc1"]);
    assert_eq!(a.members[1].dev_path, Path::new("/dev/sdc1"));
    assert_eq!(a.members[1].major_minor.as_deref(), Some("8:33"));
    assert!(a.is_array());
    assert!(a.notes.is_empty(), "{:?}", a.notes);
    // By bare kernel name too.
    assert_eq!(members(Path::new("md0"), &r).unwrap().members, a.members);
}

#[test]
fn an_array_says_where_its_members_paths_meet_and_virtual_members_meet_nowhere() {
    let t = Tree::new();
    // Two disks behind one USB hub, each on its own bridge at a port of the hub.
    let hub = t.dir.join("sys/devices/pci0000:00/0000:00:14.0/usb2/2-1");
    for (i, name) in ["sdb", "sdc"].iter().enumerate() {
        let port = hub.join(format!("2-1.{}", i + 1));
        let d = port
            .join(format!(
                "2-1.{}:1.0/host{}/target{}:0:0/{}:0:0:0/block",
                i + 1,
                6 + i,
                6 + i,
                6 + i
            ))
            .join(name);
        t.node(name, &format!("8:{}", 16 * (i + 1)), &d);
    }
    symlink("../../../../../bus/usb/drivers/hub", hub.join("driver")).unwrap();
    t.md("md0", "9:0", "raid1", 2, &["sdb", "sdc"]);
    t.disk("sdd", "8:48");
    t.disk("sde", "8:64");
    t.md("md1", "9:1", "raid1", 2, &["sdd", "sde"]);
    let r = t.roots();
    let a = members(&r.dev.join("md0"), &r).unwrap();
    assert_eq!(names(&a), ["sdb", "sdc"]);
    assert_eq!(a.paths_meet.as_deref(), Some("2-1 (hub)"));
    let v = members(&r.dev.join("md1"), &r).unwrap();
    assert_eq!(v.paths_meet, None, "{v:?}");
    // Named members too.
    let named = named(Path::new("pool"), &["sdb".into(), "sdc".into()], &r).unwrap();
    assert_eq!(named.paths_meet.as_deref(), Some("2-1 (hub)"));
}

#[test]
fn a_partition_of_an_array_leads_to_the_array() {
    let t = Tree::new();
    t.disk("sdb", "8:16");
    t.disk("sdc", "8:32");
    t.md("md0", "9:0", "raid0", 2, &["sdb", "sdc"]);
    t.partition("md0", "md0p1", "259:0", 1);
    let r = t.roots();
    let a = members(&r.dev.join("md0p1"), &r).unwrap();
    assert_eq!((a.kind, a.name.as_str()), (ArrayKind::Md, "md0"));
    assert_eq!(a.level.as_deref(), Some("raid0"));
    assert_eq!(names(&a), ["sdb", "sdc"]);
    assert!(a.notes.iter().any(|n| n.contains("partition of md0")));
}

#[test]
fn a_degraded_md_says_how_many_members_it_shows() {
    let t = Tree::new();
    t.disk("sdb", "8:16");
    t.disk("sdc", "8:32");
    t.md("md1", "9:1", "raid5", 3, &["sdb", "sdc"]);
    let r = t.roots();
    let a = members(&r.dev.join("md1"), &r).unwrap();
    assert_eq!(names(&a), ["sdb", "sdc"]);
    assert!(
        a.notes.iter().any(|n| n.contains("2 of its 3 members")),
        "{:?}",
        a.notes
    );
}

#[test]
fn a_mapping_over_one_array_leads_to_it_and_a_striped_lv_lists_its_disks() {
    let t = Tree::new();
    t.disk("sdb", "8:16");
    t.disk("sdc", "8:32");
    t.disk("sdd", "8:48");
    t.md("md0", "9:0", "raid10", 2, &["sdb", "sdc"]);
    t.dm("dm-0", "253:0", "CRYPT-LUKS2-x", &["md0"]);
    t.dm("dm-1", "253:1", "LVM-abc", &["sdd", "sdc"]);
    t.dm("dm-2", "253:2", "LVM-def", &["sdd"]);
    let r = t.roots();
    let a = members(&r.dev.join("dm-0"), &r).unwrap();
    assert_eq!((a.kind, a.name.as_str()), (ArrayKind::Md, "md0"));
    assert_eq!(a.level.as_deref(), Some("raid10"));
    assert_eq!(names(&a), ["sdb", "sdc"]);
    let a = members(&r.dev.join("dm-1"), &r).unwrap();
    assert_eq!((a.kind, a.level.as_deref()), (ArrayKind::Dm, None));
    assert_eq!(names(&a), ["sdc", "sdd"]);
    assert!(a.notes.iter().any(|n| n.contains("dmsetup table")));
    // A linear volume on one disk is no array.
    let a = members(&r.dev.join("dm-2"), &r).unwrap();
    assert_eq!(names(&a), ["sdd"]);
    assert!(!a.is_array());
}

#[test]
fn a_plain_disk_shows_no_members_and_says_a_hardware_raid_may_hide_them() {
    let mut t = Tree::new();
    t.disk("sda", "8:0");
    t.partition("sda", "sda1", "8:1", 1);
    let mnt = t.dir.join("mnt/ext4");
    fs::create_dir_all(&mnt).unwrap();
    t.mount(&mnt, "8:1", "ext4", "/dev/sda1");
    let r = t.roots();
    for target in [r.dev.join("sda"), r.dev.join("sda1"), mnt.clone()] {
        let a = members(&target, &r).unwrap();
        assert_eq!((a.kind, a.name.as_str()), (ArrayKind::Device, "sda"));
        assert_eq!(names(&a), ["sda"]);
        assert!(!a.is_array());
        assert!(
            a.notes.iter().any(|n| n.contains("hardware RAID")),
            "{:?}",
            a.notes
        );
    }
}

#[test]
fn a_logical_drive_of_a_raid_controller_names_the_controller_and_an_hba_does_not() {
    let t = Tree::new();
    for (host, driver, disk, mm) in [
        ("host0", "megaraid_sas", "sda", "8:0"),
        ("host1", "hpsa", "sdb", "8:16"),
        ("host2", "ahci", "sdc", "8:32"),
        ("host3", "mpt3sas", "sdd", "8:48"),
    ] {
        let h = t.dir.join("sys/devices/pci0000:00/0000:00:01.0").join(host);
        t.write(h.join("scsi_host").join(host).join("proc_name"), driver);
        let d = h.join("target0:2:0/0:2:0:0/block").join(disk);
        t.node(disk, mm, &d);
    }
    let r = t.roots();
    for (disk, want) in [
        ("sda", Some("megaraid_sas")),
        ("sdb", Some("hpsa")),
        ("sdc", None),
        ("sdd", None),
    ] {
        let a = members(&r.dev.join(disk), &r).unwrap();
        assert_eq!(a.kind, ArrayKind::Device);
        assert_eq!(names(&a), [disk]);
        assert_eq!(a.controller.as_deref(), want, "{disk}");
        let said = if want.is_some() {
            "logical drive of a hardware RAID controller"
        } else {
            "shows no members"
        };
        assert!(
            a.notes.iter().any(|n| n.contains(said)),
            "{disk}: {:?}",
            a.notes
        );
    }
}

#[test]
fn btrfs_members_and_profile_come_from_its_sysfs_directory() {
    let mut t = Tree::new();
    for (i, mm) in ["8:16", "8:32", "8:48"].iter().enumerate() {
        t.disk(&sd(i), mm);
    }
    let one = t.btrfs("1111-aaaa", &["sdb", "sdc", "sdd"], &["raid1"]);
    let r = t.roots();
    let a = members(&one.join("."), &r).unwrap();
    assert_eq!((a.kind, a.name.as_str()), (ArrayKind::Btrfs, "1111-aaaa"));
    assert_eq!(a.level.as_deref(), Some("raid1"));
    assert_eq!(a.profiles, ["raid1"]);
    assert_eq!(names(&a), ["sdb", "sdc", "sdd"]);
}

#[test]
fn a_btrfs_mounted_degraded_names_the_missing_device_and_a_whole_one_none() {
    let mut t = Tree::new();
    for (i, mm) in ["8:16", "8:32", "8:48"].iter().enumerate() {
        t.disk(&sd(i), mm);
    }
    // Three devices counted, devid 3 not found: the kernel lists the two it has under devices/.
    let mnt = t.btrfs("5555-eeee", &["sdb", "sdc"], &["raid1"]);
    let info = t.dir.join("sys/fs/btrfs/5555-eeee/devinfo");
    for (id, missing) in [(1, 0), (2, 0), (3, 1), (10, 0)] {
        t.write(
            info.join(id.to_string()).join("missing"),
            &missing.to_string(),
        );
    }
    let r = t.roots();
    let a = members(&mnt, &r).unwrap();
    assert_eq!(names(&a), ["sdb", "sdc"]);
    assert_eq!(a.missing, ["devid 3"]);
    assert!(
        a.notes
            .iter()
            .any(|n| n.contains("counts 4 devices and cannot find 1 (devid 3)")),
        "{:?}",
        a.notes
    );
    // Every device found: nothing missing, nothing said.
    fs::write(info.join("3/missing"), "0\n").unwrap();
    let a = members(&mnt, &r).unwrap();
    assert!(a.missing.is_empty() && a.notes.is_empty(), "{a:?}");
}

#[test]
fn an_md_array_names_its_empty_slots() {
    let t = Tree::new();
    for (i, mm) in ["8:16", "8:32", "8:48"].iter().enumerate() {
        t.disk(&sd(i), mm);
    }
    t.md("md2", "9:2", "raid10", 4, &["sdb", "sdc", "sdd"]);
    let md = t.dir.join("sys/devices/virtual/block/md2/md");
    for (slot, dev) in [(0, "sdb"), (1, "sdc"), (3, "sdd")] {
        symlink(md.join(format!("dev-{dev}")), md.join(format!("rd{slot}"))).unwrap();
    }
    let r = t.roots();
    let a = members(&r.dev.join("md2"), &r).unwrap();
    assert_eq!(a.missing, ["slot 2"]);
    // Without the slot links: how many are short, unnamed.
    t.md("md3", "9:3", "raid1", 3, &["sdb"]);
    let a = members(&r.dev.join("md3"), &r).unwrap();
    assert_eq!(a.missing, ["a member", "a member"]);
}

#[test]
fn a_drive_names_the_arrays_it_or_its_partitions_belong_to() {
    let mut t = Tree::new();
    for (i, mm) in ["8:16", "8:32", "8:48", "8:64"].iter().enumerate() {
        t.disk(&sd(i), mm);
    }
    t.partition("sdb", "sdb1", "8:17", 1);
    t.md("md0", "9:0", "raid1", 2, &["sdb1", "sdc"]);
    let holder = |dev: &str, array: &str| {
        let h = t.dir.join("sys/class/block").join(dev).join("holders");
        fs::create_dir_all(&h).unwrap();
        symlink(t.dir.join("sys/class/block").join(array), h.join(array)).unwrap();
    };
    holder("sdb1", "md0");
    holder("sdc", "md0");
    t.btrfs("7777-aaaa", &["sdd", "sde"], &["raid0"]);
    t.btrfs("8888-bbbb", &["sdb"], &["single"]);
    let r = t.roots();
    let of = |name: &str| crate::arrays_of(&r.dev.join(name), &r);
    assert_eq!(of("sdb"), ["md0 (md raid1)"]);
    assert_eq!(of("sdc"), ["md0 (md raid1)"]);
    assert_eq!(of("sdd"), ["btrfs 7777-aaaa (raid0)"]);
    assert_eq!(
        crate::arrays_of(Path::new("sde"), &r),
        ["btrfs 7777-aaaa (raid0)"]
    );
    // A one-device btrfs is no array; a drive in none names none.
    t.disk("sdg", "8:96");
    assert!(of("sdg").is_empty());
    assert!(crate::arrays_of(Path::new("/nonexistent/drivescope-drive"), &r).is_empty());
}

#[test]
fn a_btrfs_mid_conversion_names_both_profiles_and_no_level() {
    let mut t = Tree::new();
    t.disk("sdb", "8:16");
    t.disk("sdc", "8:32");
    let mnt = t.btrfs("3333-cccc", &["sdb", "sdc"], &["single", "raid1"]);
    let r = t.roots();
    let a = members(&mnt, &r).unwrap();
    assert_eq!(a.level, None);
    assert_eq!(a.profiles, ["raid1", "single"]);
    assert!(a.notes.iter().any(|n| n.contains("conversion")));
}

#[test]
fn a_one_device_btrfs_is_no_array() {
    let mut t = Tree::new();
    t.disk("sdb", "8:16");
    let mnt = t.btrfs("4444-dddd", &["sdb"], &["single"]);
    let r = t.roots();
    let a = members(&mnt, &r).unwrap();
    assert_eq!(
        (a.kind, a.level.as_deref()),
        (ArrayKind::Btrfs, Some("single"))
    );
    assert_eq!(names(&a), ["sdb"]);
    assert!(!a.is_array());
}

/// Drawn arrays (seeded): md or btrfs, 1 to 12 members, any level; discovery finds exactly the drawn members.
#[test]
fn drawn_arrays_give_back_exactly_their_members() {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut draw = |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n
    };
    let levels = ["raid0", "raid1", "raid10", "raid5", "linear"];
    for case in 0..40 {
        let mut t = Tree::new();
        let total = 1 + draw(12) as usize;
        for i in 0..total {
            t.disk(&format!("nvme{i}n1"), &format!("259:{i}"));
        }
        let count = 1 + draw(total as u64) as usize;
        let mut chosen: Vec<String> = (0..total).map(|i| format!("nvme{i}n1")).collect();
        while chosen.len() > count {
            chosen.remove(draw(chosen.len() as u64) as usize);
        }
        let refs: Vec<&str> = chosen.iter().map(String::as_str).collect();
        let level = levels[draw(levels.len() as u64) as usize];
        let a = if draw(2) == 0 {
            t.md("md127", "9:127", level, count, &refs);
            let r = t.roots();
            members(&r.dev.join("md127"), &r).unwrap()
        } else {
            let profile = if level == "linear" { "single" } else { level };
            let mnt = t.btrfs("5555-eeee", &refs, &[profile]);
            let r = t.roots();
            let a = members(&mnt, &r).unwrap();
            assert_eq!(a.level.as_deref(), Some(profile), "case {case}");
            a
        };
        let mut want = chosen.clone();
        want.sort();
        assert_eq!(names(&a), want, "case {case}");
        assert_eq!(a.is_array(), count > 1, "case {case}");
    }
}

#[test]
fn a_missing_target_is_an_error_that_names_it() {
    let t = Tree::new();
    let r = t.roots();
    let e = members(&t.dir.join("nope"), &r).unwrap_err().to_string();
    assert!(e.contains("nope"), "{e}");
}

#[test]
fn json_roundtrip() {
    let mut t = Tree::new();
    t.disk("sdb", "8:16");
    t.disk("sdc", "8:32");
    let mnt = t.btrfs("6666-ffff", &["sdb", "sdc"], &["raid0"]);
    let r = t.roots();
    let a = members(&mnt, &r).unwrap();
    let text = serde_json::to_string(&a).unwrap();
    assert!(text.contains("\"kind\":\"btrfs\""), "{text}");
    let back: Array = serde_json::from_str(&text).unwrap();
    assert_eq!(back, a);
}
