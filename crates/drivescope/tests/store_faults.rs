//! End to end: a results store that cannot be written costs nothing measured. The run still prints its full
//! result (the JSON document with `--json`), exits 0, and says in exactly one stderr line why it was not saved
//! and where. Each store fault is real: a read-only file and directory, a read-only mount, a full file system,
//! a store locked by another connection, a file that is no database and a store with a damaged first page.

use drivescope_testkit as common;

use common::typed::{check_scan, record};
use common::{drivescope_cmd, require_root, skip_without_root, unmount, Ext4Mount};
use drivescope_record::{BenchRecord, ScanRecord};
use drivescope_store::{Fault, ListFilter, Store, BUSY_TIMEOUT};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// An unprivileged user: root writes through file modes, so read-only modes are tried as this user.
const NOBODY: u32 = 65534;

/// A fresh directory of this test, removed on drop (also when the test fails).
struct TestDir(PathBuf);

impl TestDir {
    fn new(name: &str) -> TestDir {
        let d = std::env::temp_dir().join(format!(
            "drivescope-store-faults-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TestDir(d)
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        let _ = std::fs::set_permissions(&self.0, std::fs::Permissions::from_mode(0o755));
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A tmpfs of `size` bytes mounted on a fresh directory; unmounted and removed on drop.
struct TmpfsMount(PathBuf);

impl TmpfsMount {
    fn new(size: u64) -> TmpfsMount {
        require_root();
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "drivescope-store-faults-{}-tmpfs-{}",
            std::process::id(),
            N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let st = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .status()
            .expect("mount");
        assert!(st.success(), "mounting a tmpfs failed");
        TmpfsMount(dir)
    }
}

impl Drop for TmpfsMount {
    fn drop(&mut self) {
        unmount(&self.0);
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// A file in /dev/shm, removed on drop.
struct ShmFile(PathBuf);

impl Drop for ShmFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn scan_args(store: &Path) -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = [
        "scan", "null:1G", "--json", "--quiet", "--points", "200", "--store",
    ]
    .map(Into::into)
    .into();
    args.push(store.into());
    args
}

fn scan(store: &Path) -> Command {
    let mut c = drivescope_cmd();
    c.args(scan_args(store));
    c
}

/// A store holding one real run, closed (its WAL checkpointed into the file).
fn store_with_one_run(path: &Path) {
    let out = scan(path).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(runs_in(path), 1);
    assert!(
        !PathBuf::from(format!("{}-wal", path.display())).exists(),
        "the store was closed with its WAL checkpointed"
    );
}

fn runs_in(path: &Path) -> usize {
    Store::open(path)
        .unwrap()
        .list(&ListFilter::default())
        .unwrap()
        .len()
}

/// The run ended well and was not saved: exit 0, one complete scan document on stdout, and one stderr line,
/// `drivescope: the run was not saved in PATH: WHY`.
fn assert_scan_not_saved(out: &Output, store: &Path, why: &Fault) {
    let stdout = assert_not_saved(out, store, why);
    let scan: ScanRecord = record(stdout.as_bytes());
    check_scan(&scan);
    assert_eq!(scan.length, 1 << 30, "the whole range is in the document");
}

fn assert_not_saved(out: &Output, store: &Path, why: &Fault) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "a good measurement exits 0 even when it is not saved\nstderr:\n{stderr}"
    );
    let shown = std::path::absolute(store).unwrap();
    let want = format!(
        "drivescope: the run was not saved in {}: {why}",
        shown.display()
    );
    // Every message of drivescope's own starts `drivescope: `; with --json the failure to save is the only one.
    let messages: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("drivescope:") || l.contains("saved"))
        .collect();
    assert_eq!(messages, [want.as_str()], "stderr:\n{stderr}");
    for bad in ["panicked", "backtrace", "RUST_BACKTRACE", "Error code"] {
        assert!(!stderr.contains(bad), "stderr has {bad:?}:\n{stderr}");
    }
    stdout
}

#[test]
fn read_only_store_file_and_directory() {
    if skip_without_root("runs drivescope as another user") {
        return;
    }
    let d = TestDir::new("ro");
    let store = d.0.join("runs.sqlite");
    store_with_one_run(&store);
    let mode =
        |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
    let chown = |p: &Path, uid: u32| std::os::unix::fs::chown(p, Some(uid), Some(uid)).unwrap();
    // The build directory may sit in a home the unprivileged user cannot enter: it runs a linked copy.
    let bin_dir = TestDir::new("ro-bin");
    let bin = bin_dir.0.join("drivescope");
    std::fs::hard_link(env!("CARGO_BIN_EXE_drivescope"), &bin)
        .or_else(|_| std::fs::copy(env!("CARGO_BIN_EXE_drivescope"), &bin).map(|_| ()))
        .unwrap();
    let scan_as_nobody = |store: &Path| {
        Command::new(&bin)
            .args(scan_args(store))
            .uid(NOBODY)
            .gid(NOBODY)
            .output()
            .unwrap()
    };

    // File and directory read-only (both root's, 0444 and 0555).
    mode(&store, 0o444);
    mode(&d.0, 0o555);
    let out = scan_as_nobody(&store);
    assert_scan_not_saved(&out, &store, &Fault::FileNotWritable);

    // Only the file read-only: the directory is the user's.
    chown(&d.0, NOBODY);
    mode(&d.0, 0o755);
    let out = scan_as_nobody(&store);
    assert_scan_not_saved(&out, &store, &Fault::FileNotWritable);

    // Only the directory read-only: SQLite cannot create the store's -wal and -shm files.
    chown(&d.0, 0);
    mode(&d.0, 0o555);
    chown(&store, NOBODY);
    mode(&store, 0o644);
    let out = scan_as_nobody(&store);
    assert_scan_not_saved(&out, &store, &Fault::DirectoryNotWritable);

    mode(&d.0, 0o755);
    assert_eq!(runs_in(&store), 1, "nothing was written");
}

#[test]
fn store_on_a_read_only_mount() {
    if skip_without_root("mounts ext4 on a loop device") {
        return;
    }
    let m = Ext4Mount::new(4 << 20);
    let store = m.dir.join("runs.sqlite");
    store_with_one_run(&store);
    let st = Command::new("mount")
        .args(["-o", "remount,ro"])
        .arg(&m.dir)
        .status()
        .unwrap();
    assert!(st.success(), "remounting read-only failed");

    let out = scan(&store).output().unwrap();
    assert_scan_not_saved(&out, &store, &Fault::ReadOnlyFileSystem);
    // A new store there, beside the old one.
    let fresh = m.dir.join("new.sqlite");
    let out = scan(&fresh).output().unwrap();
    assert_scan_not_saved(&out, &fresh, &Fault::ReadOnlyFileSystem);
}

/// Fill the file system under `dir` until it answers ENOSPC.
fn fill(dir: &Path) {
    let mut f = std::fs::File::create(dir.join("filler")).unwrap();
    let chunk = vec![0x5au8; 64 << 10];
    loop {
        match f.write_all(&chunk).and_then(|_| f.sync_all()) {
            Ok(()) => continue,
            Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => break,
            Err(e) => panic!("filling the file system: {e}"),
        }
    }
}

#[test]
fn store_on_a_full_file_system() {
    if skip_without_root("mounts tmpfs file systems") {
        return;
    }
    let m = TmpfsMount::new(3 << 20);
    let store = m.0.join("runs.sqlite");
    store_with_one_run(&store);
    fill(&m.0);

    let out = scan(&store).output().unwrap();
    assert_scan_not_saved(&out, &store, &Fault::Full);
    let fresh = m.0.join("other.sqlite");
    let out = scan(&fresh).output().unwrap();
    assert_scan_not_saved(&out, &fresh, &Fault::Full);

    // A bench of a file in /dev/shm: its whole table comes out as well.
    let target = ShmFile(PathBuf::from(format!(
        "/dev/shm/drivescope-store-faults-{}.img",
        std::process::id()
    )));
    std::fs::write(&target.0, vec![0xa5u8; 8 << 20]).unwrap();
    let out = drivescope_cmd()
        .arg("bench")
        .arg(&target.0)
        .args([
            "--rw",
            "read",
            "--test",
            "RND4K Q1T1",
            "--test",
            "SEQ1M Q1T1",
        ])
        .args([
            "--runs",
            "1",
            "--duration",
            "200ms",
            "--json",
            "--quiet",
            "--store",
        ])
        .arg(&store)
        .output()
        .unwrap();
    let stdout = assert_not_saved(&out, &store, &Fault::Full);
    let bench: BenchRecord = record(stdout.as_bytes());
    let names: Vec<&str> = bench.tests.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["RND4K Q1T1", "SEQ1M Q1T1"]);
    for t in &bench.tests {
        assert!(t.iops > 0.0 && t.latency.count > 0, "{} measured", t.name);
    }

    std::fs::remove_file(m.0.join("filler")).unwrap();
    assert_eq!(runs_in(&store), 1, "nothing was written");
}

#[test]
fn checkpoints_of_a_scan_on_a_full_file_system() {
    if skip_without_root("mounts tmpfs file systems") {
        return;
    }
    let m = TmpfsMount::new(3 << 20);
    let store = m.0.join("runs.sqlite");
    store_with_one_run(&store);
    fill(&m.0);
    // A scan long enough for several checkpoints, none of which can be written.
    let out = drivescope_cmd()
        .args(["scan", "null:512G", "--json", "--quiet", "--points", "200"])
        .args(["--checkpoint", "100ms", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let doc: ScanRecord = record(&out.stdout);
    check_scan(&doc);
    assert_eq!(doc.length, 512u64 << 30);
    let taken = doc.checkpoints.as_ref().expect("checkpoints were on").count;
    assert!(taken >= 2, "{taken} checkpoints");
    // One line for the checkpoints (not one per checkpoint), one for the result.
    let shown = std::path::absolute(&store).unwrap();
    let messages: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("drivescope:"))
        .collect();
    assert_eq!(
        messages,
        [
            format!(
                "drivescope: a checkpoint was not saved in {}: {}; the scan goes on",
                shown.display(),
                Fault::Full
            ),
            format!(
                "drivescope: the run was not saved in {}: {}",
                shown.display(),
                Fault::Full
            )
        ],
        "stderr:\n{stderr}"
    );
    std::fs::remove_file(m.0.join("filler")).unwrap();
    assert_eq!(runs_in(&store), 1, "nothing was written");
}

#[test]
fn store_locked_by_another_process() {
    let d = TestDir::new("locked");
    let store = d.0.join("runs.sqlite");
    store_with_one_run(&store);
    let holder = rusqlite::Connection::open(&store).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE").unwrap();

    let t0 = Instant::now();
    let out = scan(&store).output().unwrap();
    let waited = t0.elapsed();
    assert_scan_not_saved(&out, &store, &Fault::Locked);
    assert!(
        waited >= BUSY_TIMEOUT && waited < BUSY_TIMEOUT + Duration::from_secs(20),
        "waited {waited:?} for the lock"
    );
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    assert_eq!(runs_in(&store), 1, "nothing was written");
}

#[test]
fn corrupt_store() {
    let d = TestDir::new("corrupt");

    // Random bytes: no SQLite database at all.
    let random = d.0.join("random.sqlite");
    let mut bytes = vec![0u8; 64 << 10];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
        .unwrap();
    std::fs::write(&random, &bytes).unwrap();
    let out = scan(&random).output().unwrap();
    assert_scan_not_saved(&out, &random, &Fault::NotADatabase);
    assert!(std::fs::read(&random).unwrap() == bytes, "left as it was");

    // A real store whose first page (after the 100-byte file header: the schema table) is overwritten.
    let damaged = d.0.join("damaged.sqlite");
    store_with_one_run(&damaged);
    let mut image = std::fs::read(&damaged).unwrap();
    image[100..4096].fill(0xff);
    std::fs::write(&damaged, &image).unwrap();
    let out = scan(&damaged).output().unwrap();
    assert_scan_not_saved(
        &out,
        &damaged,
        &Fault::Damaged("database disk image is malformed".into()),
    );
    assert!(std::fs::read(&damaged).unwrap() == image, "left as it was");
}
