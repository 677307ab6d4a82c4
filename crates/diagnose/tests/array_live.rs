//! The array read experiment on the running kernel: a btrfs stripe over two loop devices (sparse files in
//! /dev/shm), its members found by the probe, each member read alone and both together at their devices, and
//! the array through a file on it. Needs root (losetup, mount); torn down on drop, also when a check fails.
//! Asserts what was read (one rate per member, every rate measured), never how fast.

#[path = "../../testkit/src/root.rs"]
mod root;

use drivescope_core::loopdev::LoopDevice;
use drivescope_core::screen::SharedOptions;
use drivescope_core::target::Target;
use drivescope_diagnose::array::{array_reads, open_members};
use drivescope_probe::{members, ArrayKind, Roots};
use root::skip_without_root;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;

struct Rig {
    files: Vec<PathBuf>,
    loops: Vec<LoopDevice>,
    mnt: PathBuf,
    mounted: bool,
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    );
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
        for l in &self.loops {
            let _ = Command::new("btrfs")
                .args(["device", "scan", "--forget"])
                .arg(l.path())
                .output();
        }
        for l in self.loops.drain(..) {
            let _ = l.detach();
        }
        for f in &self.files {
            let _ = std::fs::remove_file(f);
        }
    }
}

#[test]
fn a_btrfs_stripe_is_read_member_by_member_together_and_whole() {
    if skip_without_root("attaches loop devices and mounts btrfs") {
        return;
    }
    let stem = format!("drivescope-array-reads-{}", std::process::id());
    let mut rig = Rig {
        files: Vec::new(),
        loops: Vec::new(),
        mnt: std::env::temp_dir().join(&stem),
        mounted: false,
    };
    for i in 0..2 {
        let f = PathBuf::from(format!("/dev/shm/{stem}-{i}.img"));
        rig.files.push(f.clone());
        std::fs::File::create(&f)
            .and_then(|h| h.set_len(512 << 20))
            .expect("a sparse image in /dev/shm");
        rig.loops
            .push(LoopDevice::attach(&f, false, false).expect("losetup"));
    }
    let mut mkfs = Command::new("mkfs.btrfs");
    mkfs.args(["-q", "-f", "-d", "raid0", "-m", "raid1"]);
    mkfs.args(rig.loops.iter().map(|l| l.path()));
    run(&mut mkfs);
    std::fs::create_dir_all(&rig.mnt).expect("mount point");
    run(Command::new("mount").arg(rig.loops[0].path()).arg(&rig.mnt));
    rig.mounted = true;
    let file = rig.mnt.join("data");
    std::fs::write(&file, vec![0x5a_u8; 32 << 20]).expect("a file on the stripe");
    run(Command::new("sync").arg(&file));

    let array = members(&rig.mnt, &Roots::default()).expect("the stripe's members");
    assert_eq!(array.kind, ArrayKind::Btrfs);
    assert_eq!(array.level.as_deref(), Some("raid0"));
    assert_eq!(array.members.len(), 2);
    let targets = open_members(&array).expect("open the members for reading");
    let refs: Vec<&Target> = targets.iter().collect();
    let whole = Target::open_read(&file.to_string_lossy()).expect("open the file on the stripe");
    let o = SharedOptions {
        duration_ns: 100_000_000,
        ..SharedOptions::default()
    };
    let r = array_reads(
        &array,
        &refs,
        Some(&whole),
        2,
        false,
        &o,
        &AtomicBool::new(false),
    )
    .expect("the reads ran to the end");
    assert_eq!(r.alone_mb_per_s.len(), 2, "{r:?}");
    assert_eq!(r.together_mb_per_s.len(), 2, "{r:?}");
    assert!(
        r.alone_mb_per_s
            .iter()
            .chain(&r.together_mb_per_s)
            .all(|x| x.is_finite() && *x > 0.0),
        "{r:?}"
    );
    assert!(r.array_mb_per_s.is_some_and(|x| x > 0.0), "{r:?}");
    assert!(r.readers_mb_per_s.is_some_and(|x| x > 0.0), "{r:?}");
    assert_eq!(r.array, array);
    drop(whole);
    drop(targets);
}
