//! `drivescope time` on a file system over several devices: btrfs raid1 over two loop devices the test makes.
//! The file system's own device is one member of it, so a cold read of a file counts on the members together:
//! the run names the members, its bytes read are the file's (not the share one member served), and the text
//! says what each member read. Its twin, btrfs on one device, names no members. Needs root (cold runs, loop
//! devices, mount) and btrfs-progs.

use common::btrfs::BtrfsMount;
use common::typed::record_of_ok;
use common::{drivescope_cmd, skip_without_root};
use drivescope_record::{TimeMode, TimeRecord};
use drivescope_testkit as common;
use std::io::Write;
use std::path::Path;

const MIB: u64 = 1 << 20;
const FILES: u64 = 4;
const FILE: u64 = 16 * MIB;

/// Cold runs drop the page cache for everyone: one test at a time.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// Files of data that does not compress, written and synced.
fn fill(dir: &Path) {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..FILES {
        let mut f = std::fs::File::create(dir.join(format!("f{i}"))).unwrap();
        let mut buf = vec![0u8; MIB as usize];
        for _ in 0..FILE / MIB {
            for c in buf.chunks_mut(8) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                c.copy_from_slice(&x.to_le_bytes());
            }
            f.write_all(&buf).unwrap();
        }
        f.sync_all().unwrap();
    }
}

/// Four readers at once, as a parallel build or `git` reads a tree: on a mirror they may each be served by
/// another copy.
fn time_cold(dir: &Path) -> (TimeRecord, String) {
    let line = "for f in f0 f1 f2 f3; do cat $f > /dev/null & done; wait";
    let run = |json: bool| {
        let mut c = drivescope_cmd();
        c.arg("time").arg("--cwd").arg(dir).args([
            "--cold",
            "--runs",
            "2",
            "--quiet",
            "--no-store",
            "--shell",
            line,
        ]);
        if json {
            c.arg("--json");
        }
        let out = c.output().expect("run drivescope time");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    let rec = record_of_ok(&run(true));
    let text = String::from_utf8_lossy(&run(false).stdout).into_owned();
    (rec, text)
}

#[test]
fn a_cold_read_on_a_btrfs_mirror_counts_every_member_and_says_what_each_read() {
    if skip_without_root("attaches loop devices, mounts btrfs and drops the page cache") {
        return;
    }
    let _one = one_at_a_time();
    let fs = BtrfsMount::new(2, 512 * MIB, "raid1");
    fill(fs.path());
    let (rec, text) = time_cold(fs.path());
    assert_eq!(rec.members, fs.names(), "{text}");
    let cold = &rec.mode(TimeMode::Cold).expect("cold runs").summary;
    let data = (FILES * FILE) as f64;
    assert!(
        cold.read_bytes.mean >= 0.95 * data && cold.read_bytes.mean < 1.5 * data,
        "read {} of {data} bytes\n{text}",
        cold.read_bytes.mean
    );
    // Each run's sum over the members is what the summary counts.
    for run in &rec.mode(TimeMode::Cold).unwrap().runs {
        let sum: u64 = fs
            .names()
            .iter()
            .map(|n| run.device(n).expect("a member's counters").read_bytes)
            .sum();
        assert!(
            sum as f64 >= 0.95 * data,
            "run {}: {sum}\n{text}",
            run.index
        );
    }
    assert!(text.contains("a file system over 2 members"), "{text}");
    let by_member = text
        .lines()
        .find(|l| l.trim_start().starts_with("cold by member:"))
        .unwrap_or_else(|| panic!("no member line\n{text}"));
    for n in fs.names() {
        assert!(by_member.contains(&format!("{n} ")), "{n}: {by_member}");
    }
}

#[test]
fn a_btrfs_on_one_device_names_no_members_and_counts_that_device() {
    if skip_without_root("attaches loop devices, mounts btrfs and drops the page cache") {
        return;
    }
    let _one = one_at_a_time();
    let fs = BtrfsMount::new(1, 512 * MIB, "single");
    fill(fs.path());
    let (rec, text) = time_cold(fs.path());
    assert!(rec.members.is_empty(), "{:?}\n{text}", rec.members);
    assert_eq!(rec.devices.first(), fs.names().first(), "{text}");
    let cold = &rec.mode(TimeMode::Cold).expect("cold runs").summary;
    assert!(
        cold.read_bytes.mean >= 0.95 * (FILES * FILE) as f64,
        "{text}"
    );
    assert!(!text.contains("by member"), "{text}");
}
