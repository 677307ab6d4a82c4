//! Member discovery on the running kernel: btrfs over loop devices (sparse files in /dev/shm), made with
//! mkfs.btrfs and mounted in a temporary directory; a one-device btrfs and an ext4 are the twins that are no
//! array. Needs root (losetup, mount); everything set up is torn down on drop, also when a check fails.

#[path = "../../testkit/src/root.rs"]
mod root;

use drivescope_core::loopdev::LoopDevice;
use drivescope_probe::{members, Array, ArrayKind, Roots};
use root::skip_without_root;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Loop devices over sparse files, a file system made over them and mounted; undone in reverse on drop.
struct Rig {
    files: Vec<PathBuf>,
    loops: Vec<LoopDevice>,
    mnt: PathBuf,
    mounted: bool,
    btrfs: bool,
}

fn run(cmd: &mut Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e} (is the tool installed?)"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    );
}

impl Rig {
    /// `n` devices of 512 MiB; `mkfs` is the program and its arguments before the devices.
    fn new(tag: &str, n: usize, mkfs: &[&str]) -> Rig {
        let stem = format!("drivescope-array-{tag}-{}", std::process::id());
        let mut rig = Rig {
            files: Vec::new(),
            loops: Vec::new(),
            mnt: std::env::temp_dir().join(&stem),
            mounted: false,
            btrfs: mkfs[0] == "mkfs.btrfs",
        };
        for i in 0..n {
            let f = PathBuf::from(format!("/dev/shm/{stem}-{i}.img"));
            rig.files.push(f.clone());
            std::fs::File::create(&f)
                .and_then(|h| h.set_len(512 << 20))
                .expect("a sparse image in /dev/shm");
            rig.loops
                .push(LoopDevice::attach(&f, false, false).expect("losetup (needs root)"));
        }
        let mut cmd = Command::new(mkfs[0]);
        cmd.args(&mkfs[1..]).args(rig.devices());
        run(&mut cmd);
        std::fs::create_dir_all(&rig.mnt).expect("mount point");
        run(Command::new("mount").arg(rig.loops[0].path()).arg(&rig.mnt));
        rig.mounted = true;
        rig
    }

    fn devices(&self) -> Vec<PathBuf> {
        self.loops.iter().map(|l| l.path().to_path_buf()).collect()
    }

    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .loops
            .iter()
            .map(|l| l.path().file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

/// Unmount, waiting out references the kernel drops after the files are closed (an io_uring ring's files
/// are released by a deferred worker); lazily in the end, so that the loop devices still detach.
fn unmount(mnt: &Path) {
    for _ in 0..50 {
        let quiet = Command::new("umount")
            .arg(mnt)
            .stderr(std::process::Stdio::null())
            .status();
        if quiet.is_ok_and(|s| s.success()) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = Command::new("umount").arg("-l").arg(mnt).status();
}

impl Drop for Rig {
    fn drop(&mut self) {
        if self.mounted {
            unmount(&self.mnt);
        }
        let _ = std::fs::remove_dir(&self.mnt);
        if self.btrfs {
            // The kernel keeps scanned btrfs devices listed after unmount; forget ours before detaching.
            for d in self.devices() {
                let _ = Command::new("btrfs")
                    .args(["device", "scan", "--forget"])
                    .arg(&d)
                    .output();
            }
        }
        for l in self.loops.drain(..) {
            let _ = l.detach();
        }
        for f in &self.files {
            let _ = std::fs::remove_file(f);
        }
    }
}

fn found(target: &Path) -> Array {
    members(target, &Roots::default())
        .unwrap_or_else(|e| panic!("members of {}: {e}", target.display()))
}

fn member_names(a: &Array) -> Vec<String> {
    a.members.iter().map(|m| m.name.clone()).collect()
}

#[test]
fn btrfs_mirror_and_stripe_name_exactly_their_devices_and_profile() {
    if skip_without_root("attaches loop devices and mounts btrfs") {
        return;
    }
    for (tag, n, profile) in [("raid1", 3, "raid1"), ("raid0", 2, "raid0")] {
        let rig = Rig::new(
            tag,
            n,
            &["mkfs.btrfs", "-q", "-f", "-d", profile, "-m", "raid1"],
        );
        let file = rig.mnt.join("f");
        std::fs::write(&file, b"x").expect("a file on the array");
        for target in [rig.mnt.clone(), file] {
            let a = found(&target);
            assert_eq!(a.kind, ArrayKind::Btrfs, "{a:?}");
            assert_eq!(member_names(&a), rig.names(), "{a:?}");
            assert_eq!(a.level.as_deref(), Some(profile), "{a:?}");
            assert!(a.is_array());
            let paths: Vec<PathBuf> = a.members.iter().map(|m| m.dev_path.clone()).collect();
            let mut want = rig.devices();
            want.sort();
            assert_eq!(paths, want);
            assert!(a.members.iter().all(|m| m.major_minor.is_some()), "{a:?}");
        }
    }
}

#[test]
fn a_one_device_btrfs_and_an_ext4_are_no_array() {
    if skip_without_root("attaches loop devices and mounts file systems") {
        return;
    }
    let rig = Rig::new("single", 1, &["mkfs.btrfs", "-q", "-f"]);
    let a = found(&rig.mnt);
    assert_eq!(a.kind, ArrayKind::Btrfs);
    assert_eq!(member_names(&a), rig.names());
    assert_eq!(a.level.as_deref(), Some("single"), "{a:?}");
    assert!(!a.is_array());
    drop(rig);
    let rig = Rig::new("ext4", 1, &["mkfs.ext4", "-q", "-F"]);
    let a = found(&rig.mnt);
    assert_eq!(a.kind, ArrayKind::Device, "{a:?}");
    assert_eq!(member_names(&a), rig.names());
    assert!(!a.is_array());
    assert!(a.notes.iter().any(|n| n.contains("shows no members")));
}
