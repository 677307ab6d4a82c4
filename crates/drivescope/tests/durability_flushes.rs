//! The flushes a durability run's commits reached the device as, counted by the block layer
//! (`/sys/class/block/DEV/stat`), on devices and file systems the test makes: a loop device over a tmpfs file
//! written raw, where each commit at one committer is exactly one flush request (`fdatasync` and `fsync` flush
//! the device; an `O_DSYNC` write on a queue without FUA is followed by one), and ext4 over such a device,
//! whose journal sends its flushes with barriers on (`data=ordered` and `data=journal`: no finding) and none
//! with `barrier=0` (the finding `commits_unflushed`, exit code 5); xfs, which no longer takes `nobarrier`
//! (Linux 4.19), sends its flushes. Needs root (loop devices, mount), e2fsprogs and xfsprogs.

use common::typed::record_of;
use common::{drivescope_cmd, skip_without_root, unmount, TmpfsLoop};
use drivescope_core::safety::DeviceName;
use drivescope_record::durability::{CommitModeName, DurabilityRecord};
use drivescope_testkit as common;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MIB: u64 = 1 << 20;

fn durability(target: &Path, extra: &[&str]) -> (Output, DurabilityRecord) {
    durability_within(target, "2s", extra)
}

fn durability_within(target: &Path, budget: &str, extra: &[&str]) -> (Output, DurabilityRecord) {
    let out = drivescope_cmd()
        .arg("durability")
        .arg(target)
        .args(["--budget", budget, "--json", "--quiet", "--no-store"])
        .args(extra)
        .output()
        .expect("run drivescope durability");
    let rec = record_of(&out);
    (out, rec)
}

fn unflushed(r: &DurabilityRecord) -> bool {
    r.header
        .findings
        .iter()
        .any(|f| format!("{:?}", f.code).contains("commits_unflushed"))
}

#[test]
fn each_commit_at_one_committer_is_one_flush_request_on_a_raw_device() {
    if skip_without_root("attaches a loop device and writes it raw") {
        return;
    }
    let dev = TmpfsLoop::new(256 * MIB);
    let id = drivescope_probe::identify(dev.path(), &drivescope_probe::Roots::default()).unwrap();
    let confirm = DeviceName::of(&id).unwrap().confirmation();
    let (out, r) = durability(dev.path(), &["--destructive", "--confirm", &confirm]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(r.cache.write_cache.as_deref(), Some("write back"));
    assert!(!r.data.commits.is_empty());
    for c in &r.data.commits {
        let seen = c.device_flushes.expect("the block layer's count");
        if c.committers == 1 {
            // fdatasync and fsync flush the device once; an O_DSYNC write without FUA is followed by a flush.
            assert_eq!(seen, c.count, "{c:?}");
            if c.mode != CommitModeName::ODsync {
                assert_eq!(c.flushes, c.count, "{c:?}");
            }
        } else {
            // Committers at once: the block layer may serve flushes that meet with one.
            assert!(seen > 0 && seen <= c.count, "{c:?}");
        }
    }
    assert!(
        r.device_flushes.is_some_and(|d| d > 0),
        "{:?}",
        r.device_flushes
    );
    assert!(!unflushed(&r));
}

/// A file system made by `mkfs` (its program and arguments before the device) over a tmpfs loop device, mounted
/// with `opts` on a fresh directory; undone on drop. `None` when the mount refuses `opts`.
struct Fs {
    dir: PathBuf,
    _dev: TmpfsLoop,
}

fn ext4(opts: &str) -> Fs {
    Fs::new(&["mkfs.ext4", "-q", "-F", "-E", "nodiscard"], opts).expect("ext4 takes the options")
}

impl Fs {
    fn new(mkfs: &[&str], opts: &str) -> Option<Fs> {
        let dev = TmpfsLoop::new(512 * MIB);
        let st = Command::new(mkfs[0])
            .args(&mkfs[1..])
            .arg(dev.path())
            .status()
            .unwrap_or_else(|e| panic!("{}: {e}", mkfs[0]));
        assert!(st.success(), "{mkfs:?}");
        let dir = std::env::temp_dir().join(format!(
            "drivescope-durability-{}-{}-{}",
            std::process::id(),
            mkfs[0],
            opts.replace([',', '='], "-")
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let st = Command::new("mount")
            .args(["-o", opts])
            .arg(dev.path())
            .arg(&dir)
            .stderr(std::process::Stdio::null())
            .status()
            .expect("mount");
        if !st.success() {
            let _ = std::fs::remove_dir(&dir);
            return None;
        }
        Some(Fs { dir, _dev: dev })
    }
}

impl Drop for Fs {
    fn drop(&mut self) {
        unmount(&self.dir);
        let _ = std::fs::remove_dir(&self.dir);
    }
}

#[test]
fn ext4_with_barriers_sends_its_commits_flushes_and_without_them_none_which_is_said() {
    if skip_without_root("attaches loop devices and mounts ext4") {
        return;
    }
    for opts in ["data=ordered", "data=journal"] {
        let fs = ext4(opts);
        let (out, r) = durability(&fs.dir, &[]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{opts}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for c in r.data.commits.iter().filter(|c| c.committers == 1) {
            // The journal's commit: a flush before it and one for its commit block (no FUA on loop).
            let seen = c.device_flushes.expect("counted");
            assert!(seen >= c.count, "{opts}: {c:?}");
        }
        assert!(!unflushed(&r), "{opts}: {:?}", r.header.findings);
        if opts == "data=ordered" {
            written_blocks_take_no_journal_commit(&r);
        }
    }
    let fs = ext4("barrier=0");
    // A longer budget than the others: commits enough for the rule on a loaded machine.
    let (out, r) = durability_within(&fs.dir, "4s", &[]);
    let rows: Vec<_> = r
        .data
        .commits
        .iter()
        .map(|c| (c.mode, c.committers, c.size, c.count, c.device_flushes))
        .collect();
    assert_eq!(
        out.status.code(),
        Some(5),
        "{rows:?}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let f = r
        .header
        .findings
        .iter()
        .find(|f| format!("{:?}", f.code).contains("commits_unflushed"))
        .unwrap_or_else(|| panic!("{rows:?}: {:?}", r.header.findings));
    // None of the file system's own; other programs' flushes on the device may add a few.
    let (seen, commits) = (
        f.number("device_flushes").unwrap(),
        f.number("commits").unwrap(),
    );
    assert!(seen * 10.0 < commits, "{rows:?}");
    assert!(f.claim.contains("barrier=0"), "{}", f.claim);
}

/// On ext4 `data=ordered` a 4 KiB commit into a new file allocates its block, so its `fdatasync` commits
/// the journal (a flush before the commit block and one for it); into written blocks there is nothing
/// to journal and `fdatasync` sends the device one flush.
fn written_blocks_take_no_journal_commit(r: &DurabilityRecord) {
    use drivescope_record::durability::CommitInto;
    let per_commit = |into| {
        let c = r
            .data
            .commits
            .iter()
            .find(|c| {
                c.mode == CommitModeName::Fdatasync
                    && c.committers == 1
                    && c.size == 4096
                    && c.into == Some(into)
            })
            .unwrap_or_else(|| panic!("a 4 KiB row into {into:?}: {:?}", r.data.commits));
        c.device_flushes.expect("counted") as f64 / c.count as f64
    };
    let (new, written) = (per_commit(CommitInto::New), per_commit(CommitInto::Written));
    assert!(new >= 1.5, "new file: {new} flushes per commit");
    assert!(
        written <= 1.25,
        "written blocks: {written} flushes per commit"
    );
}

#[test]
fn xfs_sends_its_commits_flushes_and_takes_no_nobarrier() {
    if skip_without_root("attaches loop devices and mounts xfs") {
        return;
    }
    let mkfs = ["mkfs.xfs", "-q", "-f"];
    assert!(
        Fs::new(&mkfs, "nobarrier").is_none(),
        "this kernel's xfs took nobarrier"
    );
    let fs = Fs::new(&mkfs, "defaults").expect("xfs mounts");
    let (out, r) = durability(&fs.dir, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for c in r.data.commits.iter().filter(|c| c.committers == 1) {
        assert!(c.device_flushes.expect("counted") >= 1, "{c:?}");
    }
    let fdatasync = r
        .data
        .commits
        .iter()
        .find(|c| c.committers == 1 && c.mode == CommitModeName::Fdatasync)
        .unwrap();
    assert!(
        fdatasync.device_flushes.unwrap() >= fdatasync.count,
        "{fdatasync:?}"
    );
    assert!(!unflushed(&r), "{:?}", r.header.findings);
}
