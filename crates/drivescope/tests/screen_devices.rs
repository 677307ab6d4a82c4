//! `drivescope screen` on loop devices over tmpfs files the test creates: each drive of a group
//! reads exactly what a scan of it alone reads, and the write gate holds for every drive of a
//! group (one refusal refuses the group, nothing written anywhere). Needs root; fails loudly
//! without it.

use common::typed::record_of;
use common::*;
use drivescope_record::{ScanRecord, ScreenRecord};
use drivescope_testkit as common;
use std::path::Path;
use std::process::Command;

const MIB: u64 = 1 << 20;

fn screen_json(args: &[&str]) -> ScreenRecord {
    let mut all = vec!["screen"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", "--quiet", "--no-store"]);
    let out = drivescope(&all);
    assert!(
        out.status.success(),
        "drivescope {all:?} failed ({:?}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    record_of(&out)
}

fn scan_json(dev: &str) -> ScanRecord {
    let out = drivescope(&["scan", dev, "--json", "--quiet", "--no-store"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    record_of(&out)
}

#[test]
fn four_loops_scanned_together_read_exactly_what_each_reads_alone() {
    if skip_without_root("creates loop devices") {
        return;
    }
    let sizes = [32 * MIB, 48 * MIB, 64 * MIB, 40 * MIB];
    let loops: Vec<TmpfsLoop> = sizes.iter().map(|&s| TmpfsLoop::new(s)).collect();
    for l in &loops {
        fill_random(l.path(), 8 * MIB);
    }
    let paths: Vec<&str> = loops.iter().map(|l| l.path().to_str().unwrap()).collect();
    let mut args = paths.clone();
    args.extend_from_slice(&["--shared-path", "300ms"]);
    let pressure = common::busy::Pressure::start();
    let g = screen_json(&args);
    assert_eq!(g.members.len(), 4);
    assert!(!g.interrupted);
    for ((m, &size), path) in g.members.iter().zip(&sizes).zip(&paths) {
        assert_eq!(m.target, *path, "members in the order given");
        let s = m.scan.as_ref().expect("each drive scanned");
        assert_eq!(s.header.target.path, *path);
        assert_eq!((s.bytes, s.covered, s.length), (size, size, size), "{path}");
        assert_eq!(s.commands, size / (64 << 10), "{path}");
        assert_eq!((s.failed_commands, s.failed_total), (0, 0), "{path}");
        assert!(!s.interrupted && s.device_lost.is_none());
        let curve_bytes: u64 = s.curve.iter().map(|c| c.length).sum();
        assert_eq!(curve_bytes, size, "{path}: the curve covers the drive");
        let h = s.histogram.buckets.iter().map(|b| b.count).sum::<u64>();
        assert_eq!(h, s.commands, "{path}: every command in the histogram");
        // The same drive alone: the same totals and the same curve positions.
        let alone = scan_json(path);
        assert_eq!(
            (alone.bytes, alone.commands, alone.curve.len()),
            (s.bytes, s.commands, s.curve.len())
        );
        let offsets = |r: &ScanRecord| r.curve.iter().map(|c| c.offset).collect::<Vec<_>>();
        assert_eq!(offsets(&alone), offsets(s));
        common::verdicts::assert_pass(m.verdict.as_ref().expect("a verdict"), &pressure, path);
    }
    let sp = g
        .shared_path
        .expect("two or more drives: the shared-path reads");
    assert_eq!(sp.alone_mb_per_s.len(), 4);
    assert_eq!(sp.together_mb_per_s.len(), 4);
    assert!(
        sp.alone_mb_per_s
            .iter()
            .chain(&sp.together_mb_per_s)
            .all(|r| *r > 0.0),
        "{sp:?}"
    );
    assert_eq!(sp.parent, None, "loop devices share no hardware path");
}

/// A loop device's confirmation: its kernel name and size as `drivescope info` shows them.
fn confirmation(dev: &Path) -> String {
    let name = dev.file_name().unwrap().to_string_lossy().into_owned();
    let sectors: u64 = std::fs::read_to_string(format!("/sys/class/block/{name}/size"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    format!("{name} {:.1} MiB", (sectors * 512) as f64 / MIB as f64)
}

struct ReadOnlyMount(std::path::PathBuf);
impl ReadOnlyMount {
    fn new(dev: &Path) -> Self {
        let st = Command::new("mkfs.ext4")
            .args([
                "-q",
                "-F",
                "-E",
                "nodiscard,lazy_itable_init=0,lazy_journal_init=0",
            ])
            .arg(dev)
            .status()
            .expect("mkfs.ext4 (e2fsprogs)");
        assert!(st.success());
        let dir =
            std::env::temp_dir().join(format!("drivescope-screen-mnt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let st = Command::new("mount")
            .args(["-o", "ro"])
            .arg(dev)
            .arg(&dir)
            .status()
            .unwrap();
        assert!(st.success());
        ReadOnlyMount(dir)
    }
}
impl Drop for ReadOnlyMount {
    fn drop(&mut self) {
        unmount(&self.0);
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[test]
fn one_refusal_refuses_the_whole_group_and_nothing_is_written_anywhere() {
    if skip_without_root("creates loop devices") {
        return;
    }
    let loops: Vec<TmpfsLoop> = (0..4).map(|_| TmpfsLoop::new(16 * MIB)).collect();
    for l in &loops[..3] {
        fill_random(l.path(), MIB);
    }
    let _mounted = ReadOnlyMount::new(loops[3].path());
    let paths: Vec<&str> = loops.iter().map(|l| l.path().to_str().unwrap()).collect();
    let confirms: Vec<String> = loops.iter().map(|l| confirmation(l.path())).collect();
    let sums = || loops.iter().map(|l| checksum(l.path())).collect::<Vec<_>>();
    let before = sums();
    let refused = |extra: &[&str], needle: &str| {
        let mut args = vec!["screen"];
        args.extend_from_slice(&paths);
        args.extend_from_slice(&["--write", "--quiet", "--no-store", "--shared-path", "0"]);
        args.extend_from_slice(extra);
        let out = drivescope(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{extra:?} not refused: {err}");
        assert!(
            err.contains(needle),
            "{extra:?}: expected {needle:?} in: {err}"
        );
        assert!(!err.contains("panicked"));
        assert_eq!(sums(), before, "{extra:?} wrote to a drive");
    };
    let mut all_confirmed = vec!["--destructive"];
    for c in &confirms {
        all_confirmed.extend_from_slice(&["--confirm", c]);
    }
    // The fourth drive is mounted: the first three are confirmed and blank, yet nothing is written.
    refused(&all_confirmed, "mounted");
    refused(&[], "--destructive");
    refused(
        &["--destructive", "--confirm", &confirms[0]],
        "one --confirm per drive",
    );
    // The confirmations in another order name other devices.
    let mut swapped = vec!["--destructive"];
    for c in [&confirms[1], &confirms[0], &confirms[2], &confirms[3]] {
        swapped.extend_from_slice(&["--confirm", c]);
    }
    refused(&swapped, "does not name this device");
    // An existing file among the drives is never written.
    let file = std::env::temp_dir().join(format!("drivescope-screen-file-{}", std::process::id()));
    std::fs::write(&file, vec![7u8; MIB as usize]).unwrap();
    let out = drivescope(&[
        "screen",
        paths[0],
        file.to_str().unwrap(),
        "--write",
        "--destructive",
        "--confirm",
        &confirms[0],
        "--confirm",
        "x",
        "--quiet",
        "--no-store",
    ]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&file).unwrap(), vec![7u8; MIB as usize]);
    std::fs::remove_file(&file).unwrap();
    assert_eq!(sums(), before);
}

#[test]
fn a_confirmed_group_is_written_and_verified_on_every_drive() {
    if skip_without_root("creates loop devices") {
        return;
    }
    let loops: Vec<TmpfsLoop> = (0..3).map(|_| TmpfsLoop::new(16 * MIB)).collect();
    let paths: Vec<&str> = loops.iter().map(|l| l.path().to_str().unwrap()).collect();
    let confirms: Vec<String> = loops.iter().map(|l| confirmation(l.path())).collect();
    let before: Vec<String> = loops.iter().map(|l| checksum(l.path())).collect();
    let mut args = paths.clone();
    args.extend_from_slice(&["--write", "--verify", "--destructive", "--shared-path", "0"]);
    for c in &confirms {
        args.extend_from_slice(&["--confirm", c]);
    }
    let pressure = common::busy::Pressure::start();
    let g = screen_json(&args);
    assert!(g.write && g.verify);
    for (i, m) in g.members.iter().enumerate() {
        let s = m.scan.as_ref().unwrap();
        assert!(s.write);
        let v = s.verify.as_ref().expect("verified");
        assert_eq!(
            v.totals.ok,
            16 * MIB / 512,
            "{}: every sector read back",
            m.target
        );
        assert_eq!(v.totals.wrong + v.totals.misplaced + v.totals.lost, 0);
        assert_ne!(checksum(loops[i].path()), before[i], "{} written", m.target);
        common::verdicts::assert_pass(m.verdict.as_ref().expect("a verdict"), &pressure, &m.target);
    }
}
