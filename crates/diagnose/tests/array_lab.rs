//! The array experiment and its rule on real btrfs over lab disks: a mirror (`raid1`) and a stripe (`raid0`)
//! of three 256 MiB lab disks, each a loop device with its own timing, on independent paths or behind one
//! lab bus; a mirror mounted `-o degraded` with one of its disks gone; a `raid10` of four. The members are found by the probe, read by the experiment, and judged by the rule, against the
//! lab's array truth: the parallel or serialized verdict, the slow member named, the rates within 10 %, and
//! no finding on a healthy mirror on independent paths. The verdicts come from timings, so each check is
//! tried up to three times and a try on a host too busy to serve the lab's timing is void (see
//! `common/busy.rs`). Needs root, FUSE and btrfs-progs; torn down on drop, also when a check fails.

#[path = "../../testkit/src/busy.rs"]
#[allow(dead_code)] // the helpers this file does not call
mod busy;
#[path = "../../testkit/src/root.rs"]
mod root;

use drivescope_analysis::array::{assess, findings, Together};
use drivescope_core::screen::SharedOptions;
use drivescope_core::target::Target;
use drivescope_core::testfile::TestFile;
use drivescope_diagnose::array::{array_reads, open_members};
use drivescope_lab::array::{preset, ArrayPreset, ArrayTruth, Layout, Paths};
use drivescope_lab::{check_environment, LabDevice};
use drivescope_probe::{members, ArrayKind, Roots};
use drivescope_record::{ArrayReads, FindingCode};
use root::skip_without_root;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;

/// Member rate and size: three members at once stay within what a 2-core host's FUSE and loop path serves.
const MB_S: f64 = 40.0;
const SIZE: u64 = 256 << 20;
/// The file on the array its own reads use.
const FILE: usize = 48 << 20;

/// The lab disks (each with its index in the preset), btrfs over them, mounted; torn down in reverse.
struct Rig {
    disks: Vec<(usize, LabDevice)>,
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

impl Rig {
    fn loops(&self) -> Vec<PathBuf> {
        self.disks
            .iter()
            .map(|d| d.1.loop_device().expect("a loop device").to_path_buf())
            .collect()
    }

    /// Serve `p`'s members and make btrfs with its layout over them, a file of [`FILE`] bytes on it; with a
    /// member missing, unmount, forget and stop that member's disk, and mount the rest `-o degraded`.
    fn up(p: &ArrayPreset) -> Rig {
        if let Err(e) = check_environment(true) {
            panic!("array lab tests need root, /dev/fuse and losetup: {e}");
        }
        let mnt = std::env::temp_dir().join(format!(
            "drivescope-array-lab-{}-{}",
            std::process::id(),
            p.name
        ));
        let mut rig = Rig {
            disks: p
                .serve()
                .expect("serve the members")
                .into_iter()
                .enumerate()
                .collect(),
            mnt,
            mounted: false,
        };
        let mut mkfs = Command::new("mkfs.btrfs");
        // No discard: the lab disks would be written over whole.
        mkfs.args([
            "-q",
            "-f",
            "-K",
            "-d",
            p.layout.btrfs_profile(),
            "-m",
            "raid1",
        ]);
        mkfs.args(rig.loops());
        run(&mut mkfs);
        std::fs::create_dir_all(&rig.mnt).expect("mount point");
        run(Command::new("mount").arg(&rig.loops()[0]).arg(&rig.mnt));
        rig.mounted = true;
        let file = rig.file();
        std::fs::write(&file, vec![0xa5_u8; FILE]).expect("a file on the array");
        run(Command::new("sync").arg(&file));
        if let Some(gone) = p.missing {
            unmount(&rig.mnt);
            rig.mounted = false;
            let at = rig
                .disks
                .iter()
                .position(|d| d.0 == gone)
                .expect("a member");
            let disk = rig.disks.remove(at);
            let dev = disk.1.loop_device().expect("a loop device").to_path_buf();
            run(Command::new("btrfs")
                .args(["device", "scan", "--forget"])
                .arg(&dev));
            // The disk detaches its loop device and stops serving as it drops.
            drop(disk);
            run(Command::new("mount")
                .args(["-o", "degraded"])
                .arg(&rig.loops()[0])
                .arg(&rig.mnt));
            rig.mounted = true;
        }
        rig
    }

    fn file(&self) -> PathBuf {
        self.mnt.join("data")
    }
}

/// Unmount, waiting out references the kernel drops after the files are closed; lazily in the end.
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
        for l in self.loops() {
            let _ = Command::new("btrfs")
                .args(["device", "scan", "--forget"])
                .arg(l)
                .output();
        }
        // Each lab disk detaches its loop device and stops serving as it drops.
        self.disks.clear();
    }
}

/// The experiment on the rig's members and file, 1 s a read; with `write`, on a test file of [`FILE`] bytes
/// made for it (filled, so that its reads reach the members), written through too.
fn measure(rig: &Rig, write: bool) -> ArrayReads {
    let array = members(&rig.mnt, &Roots::default()).expect("the array's members");
    assert_eq!(array.kind, ArrayKind::Btrfs);
    let mut found: Vec<PathBuf> = array.members.iter().map(|m| m.dev_path.clone()).collect();
    let mut want = rig.loops();
    found.sort();
    want.sort();
    assert_eq!(found, want, "the members are the lab disks");
    let targets = open_members(&array).expect("open the members for reading");
    let refs: Vec<&Target> = targets.iter().collect();
    let test = write.then(|| {
        let t = TestFile::create(&rig.mnt, FILE as u64).expect("a test file on the array");
        std::fs::write(t.path(), vec![0x5a_u8; FILE]).expect("fill the test file");
        run(Command::new("sync").arg(t.path()));
        t
    });
    let whole = match &test {
        Some(t) => Target::open_test_file(t, false).expect("open the test file"),
        None => Target::open_read(&rig.file().to_string_lossy()).expect("open the file"),
    };
    let o = SharedOptions {
        duration_ns: 1_000_000_000,
        ..SharedOptions::default()
    };
    let n = array.members.len() as u32;
    array_reads(
        &array,
        &refs,
        Some(&whole),
        n,
        write,
        &o,
        &AtomicBool::new(false),
    )
    .expect("the reads ran to the end")
}

fn within(what: &str, got: f64, want: f64) -> Result<(), String> {
    if (got / want - 1.0).abs() <= 0.10 {
        Ok(())
    } else {
        Err(format!("{what}: {got:.1} MB/s, truth {want:.1} MB/s"))
    }
}

/// The member order of the record against the preset's: the lab disk behind each member's loop device.
fn preset_index(rig: &Rig, r: &ArrayReads, member: usize) -> usize {
    let loops = rig.loops();
    let dev = &r.array.members[member].dev_path;
    rig.disks[loops.iter().position(|l| l == dev).expect("a lab disk")].0
}

/// The rule's verdict and the rates against the truth.
fn judge(rig: &Rig, r: &ArrayReads, t: &ArrayTruth) -> Result<(), String> {
    let v = assess(r);
    let seen = format!("{r:?} {v:?}");
    for (i, got) in r.alone_mb_per_s.iter().enumerate() {
        within(
            &format!("member {i} alone"),
            *got,
            t.alone_mb_per_s[preset_index(rig, r, i)],
        )?;
    }
    let together: f64 = r.together_mb_per_s.iter().sum();
    within("together", together, t.together_mb_per_s)?;
    let verdict_ok = match (t.paths, v.together) {
        (Paths::Parallel, Together::Parallel { .. }) => true,
        (Paths::Serialized, Together::Capped { serialized, .. }) => serialized,
        (Paths::Capped, Together::Capped { serialized, .. }) => !serialized,
        _ => false,
    };
    if !verdict_ok {
        return Err(format!(
            "verdict {:?} for {:?}: {seen}",
            v.together, t.paths
        ));
    }
    let slow = v.slow.as_ref().map(|s| preset_index(rig, r, s.index));
    if slow != t.slow_member {
        return Err(format!(
            "slow member {slow:?}, truth {:?}: {seen}",
            t.slow_member
        ));
    }
    between(
        "the array by one reader",
        r.array_mb_per_s,
        t.one_reader_mb_per_s,
    )?;
    between(
        "the array by several readers",
        r.readers_mb_per_s,
        t.readers_mb_per_s,
    )
}

/// `got` within 10 % of the truth's range.
fn between(what: &str, got: Option<f64>, (lo, hi): (f64, f64)) -> Result<(), String> {
    let got = got.unwrap_or(0.0);
    if got >= 0.9 * lo && got <= 1.1 * hi {
        Ok(())
    } else {
        Err(format!("{what}: {got:.1} MB/s, truth {lo:.1}–{hi:.1} MB/s"))
    }
}

/// One array at a time: the timings are the point, and the host may have two cores.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn check(p: &ArrayPreset, extra: impl Fn(&ArrayReads, &ArrayTruth) -> Result<(), String>) {
    check_with(p, false, extra)
}

fn check_with(
    p: &ArrayPreset,
    write: bool,
    extra: impl Fn(&ArrayReads, &ArrayTruth) -> Result<(), String>,
) {
    let _serial = one_at_a_time();
    let rig = Rig::up(p);
    let t = p.truth();
    busy::timing_tries(
        3,
        |_| {},
        || {
            let r = measure(&rig, write);
            eprintln!("{}: {r:?}", p.name);
            judge(&rig, &r, &t)?;
            extra(&r, &t)
        },
    );
}

#[test]
fn a_healthy_mirror_on_independent_paths_reads_in_parallel_and_gives_no_finding() {
    if skip_without_root("serves lab disks and mounts btrfs") {
        return;
    }
    let p = preset(Layout::Mirror, 3, MB_S, SIZE, None, None).unwrap();
    check(&p, |r, t| {
        let f = findings(r);
        if !f.is_empty() {
            return Err(format!("findings on a healthy mirror: {f:?}"));
        }
        // btrfs serves one reader from one copy: one member's rate.
        let one = r.array_mb_per_s.unwrap_or(0.0);
        within("the array by one reader", one, t.one_reader_mb_per_s.1)
    });
}

#[test]
fn a_mirror_behind_one_bus_takes_turns_and_the_path_is_named() {
    if skip_without_root("serves lab disks and mounts btrfs") {
        return;
    }
    let p = preset(Layout::Mirror, 3, MB_S, SIZE, Some(MB_S), None).unwrap();
    check(&p, |r, _| {
        let f = findings(r);
        match f.as_slice() {
            [one] if one.code == FindingCode::SharedPath && one.claim.contains("take turns") => {
                Ok(())
            }
            _ => Err(format!("not one shared-path finding: {f:?}")),
        }
    });
}

#[test]
fn a_stripe_with_a_slow_member_names_it() {
    if skip_without_root("serves lab disks and mounts btrfs") {
        return;
    }
    let p = preset(Layout::Stripe, 3, MB_S, SIZE, None, Some((1, 1.0 / 3.0))).unwrap();
    check(&p, |r, _| {
        let f = findings(r);
        let codes: Vec<FindingCode> = f.iter().map(|f| f.code.clone()).collect();
        if codes != [FindingCode::SlowMember] {
            return Err(format!("not one slow-member finding: {f:?}"));
        }
        Ok(())
    });
}

#[test]
fn a_mirror_with_a_member_gone_is_said_degraded_and_the_rest_read_against_truth() {
    if skip_without_root("serves lab disks and mounts btrfs") {
        return;
    }
    let p = preset(Layout::Mirror, 3, MB_S, SIZE, None, None)
        .unwrap()
        .degraded(2)
        .unwrap();
    check(&p, |r, _| {
        // mkfs numbers the devices in the order given: the third is devid 3.
        if r.array.missing != ["devid 3"] || r.array.members.len() != 2 {
            return Err(format!(
                "not two members and devid 3 missing: {:?}",
                r.array
            ));
        }
        let f = findings(r);
        match f.as_slice() {
            [one] if one.code == FindingCode::Degraded && one.claim.contains("(devid 3)") => Ok(()),
            _ => Err(format!("not one degraded finding: {f:?}")),
        }
    });
}

#[test]
fn a_raid10_of_four_reads_in_parallel_and_one_reader_gets_half_its_members() {
    if skip_without_root("serves lab disks and mounts btrfs") {
        return;
    }
    // Four members at 30 MB/s: the same sum as three at 40.
    let p = preset(Layout::Raid10, 4, 30.0, SIZE, None, None).unwrap();
    check(&p, |r, t| {
        if r.array.level.as_deref() != Some("raid10") {
            return Err(format!("level {:?}", r.array.level));
        }
        let f = findings(r);
        if !f.is_empty() {
            return Err(format!("findings on a healthy raid10: {f:?}"));
        }
        within(
            "the array by one reader",
            r.array_mb_per_s.unwrap_or(0.0),
            t.one_reader_mb_per_s.1,
        )
    });
}

#[test]
fn a_stripe_written_through_its_file_system_writes_with_every_member() {
    if skip_without_root("serves lab disks and mounts btrfs") {
        return;
    }
    let p = preset(Layout::Stripe, 3, MB_S, SIZE, None, None).unwrap();
    check_with(&p, true, |r, t| {
        between("one writer", r.write_mb_per_s, t.write_mb_per_s)?;
        let f = findings(r);
        if !f.is_empty() {
            return Err(format!("findings on a healthy stripe's writes: {f:?}"));
        }
        Ok(())
    });
}
