//! Two different lab disks served under one kernel name in turn: a read-cache disk, then a
//! plain one, each attached to the same loop device over its own FUSE file. A diagnosis stored
//! for the first speaks for the first (its bench of a test inside the cache is flagged) and
//! never for the second; `runs` tells the two apart. The stored diagnosis is a real run's
//! document of the lab's raid-cache disk (crates/analysis/tests/fixtures/diagnose-raid-cache.json),
//! placed on this test's loop device and file. Needs root and FUSE; fails loudly without them.

use drivescope_testkit as common;

use common::cached::{bench_text, diagnosis_on};
use common::lab::one_at_a_time;
use common::scratch::{run, TestDir};
use common::skip_without_root;
use drivescope_lab::{check_environment, LabDevice, Model};
use std::path::Path;
use std::process::Command;

/// The loop device `dev` over `image` (direct I/O, as the lab attaches its own).
fn attach(dev: &str, image: &Path) -> bool {
    Command::new("losetup")
        .args(["--direct-io=on", dev])
        .arg(image)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn detach(dev: &str) {
    let ok = Command::new("losetup")
        .args(["-d", dev])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "losetup -d {dev}");
}

/// Detaches the loop device when dropped, also when the test fails.
struct Attached(String);

impl Drop for Attached {
    fn drop(&mut self) {
        let _ = Command::new("losetup")
            .args(["-d", &self.0])
            .stderr(std::process::Stdio::null())
            .status();
    }
}

#[test]
fn a_diagnosed_cache_follows_its_disk_not_the_kernel_name() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    if let Err(e) = check_environment(false) {
        panic!("lab tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    let _one = one_at_a_time();
    // Both 256 MiB, as the fixture's disk: only what the kernel says of the backing file tells
    // them apart.
    let cached = Model::preset("raid-cache").unwrap();
    let plain = Model::from_toml_str(
        "name = 'plain'\nsize = '256M'\nzones = { rates_mb_s = [90] }\n",
        "test",
    )
    .unwrap();
    let a = LabDevice::start_temp(&cached, false).expect("serve the cached disk");
    let b = LabDevice::start_temp(&plain, false).expect("serve the plain disk");

    // A loop device far above the ones other tests take with `losetup -f`.
    let (dev, guard) = (200..260)
        .map(|n| format!("/dev/loop{}", n + std::process::id() % 40))
        .find_map(|dev| attach(&dev, a.image()).then(|| (dev.clone(), Attached(dev))))
        .expect("a free loop device");
    let dir = TestDir::new("lab-identity", "store");
    let store = dir.file("runs.sqlite");
    let mut st = drivescope_store::Store::open(store.as_str()).unwrap();
    st.save(&diagnosis_on(&dev, a.image().to_str().unwrap()))
        .unwrap();
    drop(st);

    // The diagnosed disk: its bench inside the cache is flagged.
    let out = bench_text(&dev, &store);
    assert!(
        out.contains("!! READ RESULTS FROM A CACHE: the 32.0 MiB test fits"),
        "the disk's own stored cache:\n{out}"
    );

    // The other disk under the same name: nothing of the first one's cache.
    detach(&dev);
    // The kernel lets go of a detached loop device once its last opener (udev's probe) closes it.
    let reattached = (0..100).any(|_| {
        attach(&dev, b.image()) || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            false
        }
    });
    assert!(reattached, "{dev} over the plain disk's file");
    let out = bench_text(&dev, &store);
    assert!(
        !out.contains("FROM A CACHE"),
        "another disk's cache claimed for this one:\n{out}"
    );

    // `runs`: the name held two devices, each run named by its own file.
    let (code, out, err) = run(&["runs", "--store", &store]);
    assert_eq!(code, 0, "{err}");
    let name = dev.trim_start_matches("/dev/");
    let row = |id: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("no run {id}:\n{out}"))
            .to_string()
    };
    let a_file = a.image().to_str().unwrap();
    let b_file = b.image().to_str().unwrap();
    assert!(row("1").contains(&format!("{name} ({a_file}")), "{out}");
    assert!(row("2").contains(&format!("{name} ({a_file}")), "{out}");
    assert!(row("3").contains(&format!("{name} ({b_file}")), "{out}");
    assert!(
        out.contains(&format!("{dev} held 2 different devices")),
        "{out}"
    );
    drop(guard);
}
