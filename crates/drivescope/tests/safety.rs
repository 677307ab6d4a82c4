//! The destructive gate on loop devices the test creates: every unsafe case is refused with
//! exit code 3 and the device's content unchanged; the confirmed case writes.
//! Needs root (loop devices, mount, swapon); fails loudly without it.

use common::typed::{check_scan, drivescope_record};
use common::*;
use drivescope_record::ScanRecord;
use drivescope_testkit as common;
use std::path::{Path, PathBuf};
use std::process::Command;

const MIB: u64 = 1 << 20;

/// The confirmation a loop device takes: it has no serial and no model, so its kernel name
/// and its size as `drivescope info` shows them.
fn confirmation(dev: &Path) -> String {
    let name = dev.file_name().unwrap().to_string_lossy().into_owned();
    let size = std::fs::read_to_string(format!("/sys/class/block/{name}/size"))
        .unwrap()
        .trim()
        .parse::<u64>()
        .unwrap()
        * 512;
    format!("{name} {:.1} MiB", size as f64 / MIB as f64)
}

/// Run drivescope with `args` and assert a refusal naming `needle`, with the device's content
/// unchanged.
fn assert_refused(dev: &Path, args: &[&str], needle: &str) {
    assert_refused_by(dev, args, needle, checksum);
}

/// The device's first 4 KiB: an active swap device's header, where a write scan would begin,
/// and the one page of it the kernel does not write while swapping.
fn header(dev: &Path) -> Vec<u8> {
    let mut page = vec![0u8; 4096];
    std::fs::File::open(dev)
        .and_then(|f| std::os::unix::fs::FileExt::read_exact_at(&f, &mut page, 0))
        .expect("read the device's first page");
    page
}

/// [`assert_refused`], the device's content compared by `content`.
fn assert_refused_by<T: PartialEq + std::fmt::Debug>(
    dev: &Path,
    args: &[&str],
    needle: &str,
    content: fn(&Path) -> T,
) {
    let before = content(dev);
    let out = drivescope(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{args:?} not refused: {err}");
    assert!(
        err.contains(needle),
        "{args:?}: expected {needle:?} in: {err}"
    );
    assert_eq!(
        err.trim().lines().count(),
        1,
        "one line naming the reason: {err}"
    );
    assert!(!err.contains("panicked"));
    assert_eq!(content(dev), before, "{args:?} changed the device");
}

fn write_scan<'a>(dev: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["scan", dev, "--write", "--quiet", "--no-store"];
    v.extend_from_slice(extra);
    v
}

fn mkfs_ext4(dev: &Path) {
    let st = Command::new("mkfs.ext4")
        // No lazy inode-table or journal initialisation: a mounted ext4 would otherwise go on
        // writing to the device in the background and the before/after checksums would differ.
        .args([
            "-q",
            "-F",
            "-E",
            "nodiscard,lazy_itable_init=0,lazy_journal_init=0",
        ])
        .arg(dev)
        .status()
        .expect("mkfs.ext4 (e2fsprogs) is needed");
    assert!(st.success());
}

struct Mounted(PathBuf);
impl Mounted {
    fn new(dev: &Path) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "drivescope-safety-mnt-{}-{}",
            std::process::id(),
            dev.file_name().unwrap().to_string_lossy()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        // Read-only: a mounted file system is refused either way, and read-only the kernel
        // itself writes nothing (superblock times, journal), so the checksum compares only
        // what drivescope might have written.
        let st = Command::new("mount")
            .args(["-o", "ro"])
            .arg(dev)
            .arg(&dir)
            .status()
            .unwrap();
        assert!(st.success(), "mount {}", dev.display());
        Mounted(dir)
    }
}
impl Drop for Mounted {
    fn drop(&mut self) {
        unmount(&self.0);
        let _ = std::fs::remove_dir(&self.0);
    }
}

struct SwapOn(PathBuf);
impl Drop for SwapOn {
    fn drop(&mut self) {
        let _ = Command::new("swapoff").arg(&self.0).status();
    }
}

/// A loop device over a /dev/shm file holding an MBR with one partition (LBA 2048 to the
/// end); detached and removed on drop. The partition is also added with `addpart` (BLKPG),
/// because a kernel without the MBR parser (CONFIG_MSDOS_PARTITION) would not create it.
struct PartitionedLoop {
    dev: PathBuf,
    file: PathBuf,
}
impl PartitionedLoop {
    fn new(size: u64) -> Self {
        require_root();
        let file = PathBuf::from(format!(
            "/dev/shm/drivescope-safety-part-{}.img",
            std::process::id()
        ));
        let mut mbr = vec![0u8; 512];
        let e = &mut mbr[446..462];
        e[4] = 0x83; // Linux
        e[8..12].copy_from_slice(&2048u32.to_le_bytes());
        e[12..16].copy_from_slice(&((size / 512 - 2048) as u32).to_le_bytes());
        mbr[510] = 0x55;
        mbr[511] = 0xAA;
        std::fs::write(&file, &mbr).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&file)
            .unwrap()
            .set_len(size)
            .unwrap();
        let out = Command::new("losetup")
            .args(["--find", "--show", "--partscan"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "losetup --partscan");
        let dev = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        let p = PartitionedLoop { dev, file };
        if !p.part1().exists() {
            let st = Command::new("addpart")
                .arg(&p.dev)
                .args(["1", "2048", &(size / 512 - 2048).to_string()])
                .status()
                .expect("addpart (util-linux)");
            assert!(st.success(), "addpart");
        }
        for _ in 0..50 {
            if p.part1().exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(
            p.part1().exists(),
            "{} has no partition node",
            p.dev.display()
        );
        p
    }
    fn part1(&self) -> PathBuf {
        PathBuf::from(format!("{}p1", self.dev.display()))
    }
}
impl Drop for PartitionedLoop {
    fn drop(&mut self) {
        let _ = drivescope_core::loopdev::detach(&self.dev);
        let _ = std::fs::remove_file(&self.file);
    }
}

#[test]
fn refusal_matrix() {
    if skip_without_root("creates loop devices") {
        return;
    }
    // A blank device: the confirmation is what stands between the user and the data.
    let blank = TmpfsLoop::new(16 * MIB);
    fill_random(blank.path(), MIB); // first MiB random, so a write would show
    let b = blank.path().to_str().unwrap();
    let good = confirmation(blank.path());
    assert_refused(blank.path(), &write_scan(b, &[]), "--destructive");
    assert_refused(
        blank.path(),
        &write_scan(b, &["--destructive"]),
        "confirm with --confirm",
    );
    assert_refused(
        blank.path(),
        &write_scan(b, &["--destructive", "--confirm", "WD-WCAZA1234567"]),
        "does not name this device",
    );
    // a confirmation naming another device (same kind, other name) is wrong too
    let other = good.replacen("loop", "loop9", 1);
    assert_refused(
        blank.path(),
        &write_scan(b, &["--destructive", "--confirm", &other]),
        "does not name this device",
    );
    // bench's write tests go through the same gate
    assert_refused(
        blank.path(),
        &[
            "bench",
            b,
            "--size",
            "8M",
            "--runs",
            "1",
            "--duration",
            "50ms",
        ],
        "--destructive",
    );

    // A file-system signature: refused, even with the right confirmation, unless --force.
    let fs = TmpfsLoop::new(32 * MIB);
    mkfs_ext4(fs.path());
    let f = fs.path().to_str().unwrap();
    let fs_ok = confirmation(fs.path());
    assert_refused(
        fs.path(),
        &write_scan(f, &["--destructive", "--confirm", &fs_ok]),
        "ext2/3/4 file system",
    );

    // Mounted: refused even with --force.
    let mounted = Mounted::new(fs.path());
    assert_refused(
        fs.path(),
        &write_scan(f, &["--destructive", "--confirm", &fs_ok, "--force"]),
        "is mounted on",
    );
    drop(mounted);

    // A partition of it mounted: refused for the whole device, even with --force.
    let parted = PartitionedLoop::new(32 * MIB);
    mkfs_ext4(&parted.part1());
    let p = parted.dev.to_str().unwrap();
    let p_ok = confirmation(&parted.dev);
    assert_refused(
        &parted.dev,
        &write_scan(p, &["--destructive", "--confirm", &p_ok]),
        "partition table",
    );
    let mounted = Mounted::new(&parted.part1());
    assert_refused(
        &parted.dev,
        &write_scan(p, &["--destructive", "--confirm", &p_ok, "--force"]),
        "partition",
    );
    let out = drivescope(&write_scan(
        p,
        &["--destructive", "--confirm", &p_ok, "--force"],
    ));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is mounted on"));
    drop(mounted);

    // Used as swap: refused even with --force.
    let swap = TmpfsLoop::new(16 * MIB);
    let st = Command::new("mkswap")
        .arg(swap.path())
        .stdout(std::process::Stdio::null())
        .status()
        .expect("mkswap (util-linux)");
    assert!(st.success());
    let s = swap.path().to_str().unwrap();
    let s_ok = confirmation(swap.path());
    assert_refused(
        swap.path(),
        &write_scan(s, &["--destructive", "--confirm", &s_ok]),
        "swap signature",
    );
    let st = Command::new("swapon").arg(swap.path()).status().unwrap();
    assert!(st.success(), "swapon");
    let on = SwapOn(swap.path().to_path_buf());
    // The kernel may swap pages out to it meanwhile: what must not change is its header, where a
    // write scan begins.
    assert_refused_by(
        swap.path(),
        &write_scan(s, &["--destructive", "--confirm", &s_ok, "--force"]),
        "in use as swap",
        header,
    );
    drop(on);

    // The confirmed case writes, and the signature rule was the only thing in the way.
    let before = checksum(fs.path());
    let out = drivescope(&write_scan(
        f,
        &[
            "--destructive",
            "--confirm",
            &fs_ok,
            "--force",
            "--length",
            "4M",
        ],
    ));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_ne!(
        checksum(fs.path()),
        before,
        "the confirmed write scan wrote"
    );
    let before = checksum(blank.path());
    let out = drivescope(&[
        "bench",
        b,
        "--size",
        "8M",
        "--runs",
        "1",
        "--duration",
        "50ms",
        "--profile",
        "peak",
        "--destructive",
        "--confirm",
        &good,
        "--no-store",
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_ne!(checksum(blank.path()), before, "the confirmed bench wrote");
}

#[test]
fn reads_never_need_the_gate() {
    if skip_without_root("creates loop devices") {
        return;
    }
    let dev = TmpfsLoop::new(8 * MIB);
    mkfs_ext4(dev.path());
    let before = checksum(dev.path());
    let d: ScanRecord = drivescope_record(&["scan", dev.path().to_str().unwrap(), "--no-store"]);
    check_scan(&d);
    assert!(!d.write);
    assert_eq!(checksum(dev.path()), before);
}

/// The `--confirm` example that `scan --help` shows (`"loop3 1.0 GiB"`): name and size text.
fn help_example() -> (String, String) {
    let out = drivescope(&["scan", "--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    let line = help
        .lines()
        .find(|l| l.contains("--confirm <"))
        .unwrap_or_else(|| panic!("no --confirm in: {help}"));
    let start = line.rfind("(\"").expect("an example in quotes") + 2;
    let end = start + line[start..].find("\")").expect("closing quote");
    let (name, size) = line[start..end].split_once(' ').expect("name and size");
    (name.to_string(), size.to_string())
}

#[test]
fn the_help_example_is_accepted_on_a_device_of_its_size() {
    if skip_without_root("creates loop devices") {
        return;
    }
    let (name, size_text) = help_example();
    // The example names a loop device; ours has another number, and the size exactly as
    // the help spells it.
    assert!(name.starts_with("loop"), "{name}");
    let (number, unit) = size_text.split_once(' ').expect("number and unit");
    let unit_bytes = drivescope_core::units::parse_size(&format!("1{unit}")).unwrap();
    let size = (number.parse::<f64>().unwrap() * unit_bytes as f64) as u64;
    let dev = TmpfsLoop::new(size);
    let kname = dev
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let confirm = format!("{kname} {size_text}");
    let d = dev.path().to_str().unwrap();
    let before = checksum(dev.path());
    let out = drivescope(&write_scan(
        d,
        &["--destructive", "--confirm", &confirm, "--length", "4M"],
    ));
    assert!(
        out.status.success(),
        "--confirm {confirm:?} (the --help example) was refused: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_ne!(
        checksum(dev.path()),
        before,
        "the confirmed write scan wrote"
    );
    // The other usual spellings of the same size are accepted; another size is not.
    for spelling in [
        format!("{kname} {}", size_text.replace(".0 ", " ")),
        format!("{kname} {}", size_text.replace(".0 ", ".00 ")),
        format!("{kname} {}", size_text.replace(' ', "")),
        format!("{kname} {}", size_text.to_lowercase()),
    ] {
        let out = drivescope(&write_scan(
            d,
            &["--destructive", "--confirm", &spelling, "--length", "1M"],
        ));
        assert!(
            out.status.success(),
            "--confirm {spelling:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_refused(
        dev.path(),
        &write_scan(
            d,
            &[
                "--destructive",
                "--confirm",
                &format!("{kname} 2 {unit}"),
                "--length",
                "1M",
            ],
        ),
        "does not name this device",
    );
}
