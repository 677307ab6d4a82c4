//! Devices without serial numbers are not matched by their kernel name alone: a stored
//! diagnosis of one disk served as a loop device must not speak for another disk attached under
//! the same name later. The stored diagnosis is a real run's document (a lab raid-cache disk,
//! crates/analysis/tests/fixtures/diagnose-raid-cache.json), placed on this test's loop device.

use drivescope_testkit as common;

use common::cached::{bench_text, diagnosis_on};
use common::scratch::TestDir;
use common::{skip_without_root, TmpfsLoop};

#[test]
fn a_cache_found_on_one_disk_is_not_claimed_for_another_under_the_same_name() {
    if skip_without_root("creates loop devices") {
        return;
    }
    // The fixture's disk is 256 MiB: so is this one, so only the backing file tells them apart.
    let lo = TmpfsLoop::new(256 << 20);
    let dev = lo.path().to_str().unwrap().to_string();
    let backing = lo.file.to_str().unwrap().to_string();

    // Stored: the raid-cache disk, once served under this kernel name over its own file.
    let dir = TestDir::new("identity", "other");
    let store = dir.file("runs.sqlite");
    let mut st = drivescope_store::Store::open(store.as_str()).unwrap();
    st.save(&diagnosis_on(&dev, "/tmp/drivescope-lab-1-0/disk.img"))
        .unwrap();
    drop(st);
    let out = bench_text(&dev, &store);
    assert!(
        !out.contains("FROM A CACHE"),
        "another disk's cache claimed for this one:\n{out}"
    );

    // Its twin: the stored diagnosis of this very device (same backing file) does speak for it.
    let dir = TestDir::new("identity", "same");
    let store = dir.file("runs.sqlite");
    let mut st = drivescope_store::Store::open(store.as_str()).unwrap();
    st.save(&diagnosis_on(&dev, &backing)).unwrap();
    drop(st);
    let out = bench_text(&dev, &store);
    assert!(
        out.contains("!! READ RESULTS FROM A CACHE: the 32.0 MiB test fits"),
        "the device's own stored cache:\n{out}"
    );
}
