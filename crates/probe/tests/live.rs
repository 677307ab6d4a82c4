//! identify() on the running kernel: a loop device over a tmpfs file, a file in the
//! working directory, zram. Needs root for losetup; fails (does not skip) without it.
//! Nothing here opens a device; the loop device is attached read-only.

#[path = "../../testkit/src/root.rs"]
mod root;

use drivescope_core::loopdev::LoopDevice;
use drivescope_probe::block::{BlockRole, Transport};
use drivescope_probe::{identify_with, list_block_devices, Identity, Node, Options, Roots};
use root::skip_without_root;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

fn opts() -> Options {
    Options {
        smart: false,
        dns: false,
    }
}

/// A file this test creates in /dev/shm and removes on drop.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn split_dev(dev: u64) -> (u64, u64) {
    (
        ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff),
        (dev & 0xff) | ((dev >> 12) & !0xff),
    )
}

fn fs_layer(id: &Identity) -> (&str, &Path) {
    id.layers
        .iter()
        .find_map(|l| match &l.node {
            Node::Filesystem {
                fstype,
                mount_point,
                ..
            } => Some((fstype.as_str(), mount_point.as_path())),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no file system layer in {:#?}", id.layers))
}

#[test]
fn loop_over_tmpfs_file_resolves_to_tmpfs() {
    if skip_without_root("attaches a loop device") {
        return;
    }
    let path = PathBuf::from(format!(
        "/dev/shm/drivescope-probe-live-{}.img",
        std::process::id()
    ));
    let file = std::fs::File::create(&path).expect("create /dev/shm image");
    let tmp = TempFile(path.clone());
    file.set_len(8 << 20).expect("size the image");
    drop(file);
    let lo =
        LoopDevice::attach(&tmp.0, true, false).expect("losetup (needs root and loop devices)");
    let id = identify_with(lo.path(), &Roots::default(), &opts())
        .unwrap_or_else(|e| panic!("identify {}: {e:#}", lo.path().display()));
    let top = id.target_block().expect("the loop device");
    assert_eq!(top.role, BlockRole::Loop);
    assert_eq!(top.transport, Transport::Loop);
    assert_eq!(top.size_bytes, Some(8 << 20));
    assert_eq!(top.read_only, Some(true));
    let backing = top.loop_dev.as_ref().and_then(|l| l.backing_file.clone());
    assert_eq!(backing.as_deref(), Some(path.as_path()));
    match &id.layers[top_below(&id)].node {
        Node::File {
            path: p,
            reachable,
            size_bytes,
        } => {
            assert_eq!(p, &path);
            assert!(reachable);
            assert_eq!(*size_bytes, Some(8 << 20));
        }
        n => panic!("expected the backing file under the loop device, got {n:?}"),
    }
    let (fstype, mp) = fs_layer(&id);
    assert_eq!(fstype, "tmpfs");
    assert_eq!(mp, Path::new("/dev/shm"));
    assert_eq!(id.devices().count(), 0, "tmpfs has no device under it");
    assert_eq!(id.path_ceiling_mb_per_s, None);
    lo.detach().expect("detach");
}

fn top_below(id: &Identity) -> usize {
    *id.layers[0]
        .below
        .first()
        .expect("something under the loop device")
}

#[test]
fn working_directory_file_resolves_to_its_disk() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let id = identify_with(&file, &Roots::default(), &opts()).expect("identify a file");
    let (maj, min) = split_dev(std::fs::metadata(&file).expect("stat").dev());
    // The mount found must be the one stat() names.
    let mm = id
        .layers
        .iter()
        .find_map(|l| match &l.node {
            Node::Filesystem { major_minor, .. } => Some(major_minor.clone()),
            _ => None,
        })
        .expect("file system layer");
    assert_eq!(mm, format!("{maj}:{min}"));
    if maj == 0 {
        return; // not on a block device (overlay, tmpfs, network): nothing more to check
    }
    // The bottom device is the one the kernel links from /sys/dev/block/MAJ:MIN, and if
    // that lives under a virtio device, the transport says so.
    let sys = std::fs::canonicalize(format!("/sys/dev/block/{maj}:{min}")).expect("sysfs dev");
    let dev = id.devices().next().expect("a device under the file");
    let whole = if sys.join("partition").exists() {
        sys.parent().expect("disk").to_path_buf()
    } else {
        sys.clone()
    };
    assert_eq!(
        dev.name,
        whole.file_name().expect("name").to_string_lossy(),
        "{:#?}",
        id.layers
    );
    let under_virtio = whole
        .components()
        .any(|c| c.as_os_str().to_string_lossy().starts_with("virtio"));
    assert_eq!(dev.transport == Transport::Virtio, under_virtio);
    let size: u64 = std::fs::read_to_string(whole.join("size"))
        .expect("size")
        .trim()
        .parse()
        .expect("number");
    assert_eq!(dev.size_bytes, Some(size * 512));
}

#[test]
fn zram_is_recognised() {
    let sys = Path::new("/sys/block/zram0");
    assert!(
        sys.exists(),
        "/sys/block/zram0 missing: load the zram module (modprobe zram) for this test"
    );
    let id = identify_with(Path::new("/dev/zram0"), &Roots::default(), &opts())
        .expect("identify /dev/zram0");
    let z = id.target_block().expect("zram0");
    assert_eq!(z.role, BlockRole::Zram);
    assert_eq!(z.transport, Transport::Zram);
    let info = z.zram.as_ref().expect("zram attributes");
    let algo = info.comp_algorithm.as_deref().expect("algorithm");
    // The chosen algorithm is the bracketed one.
    assert!(algo.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    assert!(algo_file_contains(&algo_text(sys), algo));
    if z.size_bytes == Some(0) {
        assert!(id.notes.iter().any(|n| n.contains("not configured")));
    }
}

fn algo_text(sys: &Path) -> String {
    std::fs::read_to_string(sys.join("comp_algorithm")).expect("comp_algorithm")
}

fn algo_file_contains(text: &str, algo: &str) -> bool {
    text.contains(&format!("[{algo}]"))
}

#[test]
fn listing_covers_sys_block() {
    let list = list_block_devices(&Roots::default()).expect("list");
    let listed: Vec<String> = list
        .iter()
        .filter_map(|i| i.target_block().map(|b| b.name.clone()))
        .collect();
    for e in std::fs::read_dir("/sys/block").expect("/sys/block") {
        let name = e.expect("entry").file_name().to_string_lossy().into_owned();
        let unattached_loop =
            name.starts_with("loop") && !Path::new("/sys/block").join(&name).join("loop").exists();
        if !unattached_loop {
            // A loop device may be detached by someone else between the two reads.
            if name.starts_with("loop") && !listed.contains(&name) {
                continue;
            }
            assert!(listed.contains(&name), "{name} missing from {listed:?}");
        }
    }
}
