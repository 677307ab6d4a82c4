//! Runs recorded under one kernel name on different devices (lab disks served as /dev/loop0 in
//! turn, each over its own file) are different drives: `runs` tells them apart in its device
//! column and says the path held different devices, and serve's drive page gives each its own
//! history. The runs are a real run's document (a lab raid-cache disk,
//! crates/analysis/tests/fixtures/diagnose-raid-cache.json), placed on each backing file.

use common::scratch::{run, TestDir};
use common::serve::{get, serve};
use drivescope_record::Document;
use drivescope_testkit as common;

const FIXTURE: &str = include_str!("../../analysis/tests/fixtures/diagnose-raid-cache.json");

/// The fixture as if it had run on /dev/loop0 over `backing`.
fn on(backing: &str) -> Document {
    let text = FIXTURE.replace("/tmp/lab-raid-cache/disk.img", backing);
    serde_json::from_str(&text).expect("the fixture reads as a document")
}

#[test]
fn different_devices_under_one_kernel_name_keep_their_own_histories() {
    let d = TestDir::new("dh", "store");
    let store = d.file("runs.sqlite");
    {
        let mut st = drivescope_store::Store::open(store.as_str()).unwrap();
        // Runs 1 and 3 on one disk, run 2 on another, all as /dev/loop0.
        for backing in [
            "/tmp/lab-a/disk.img",
            "/tmp/lab-b/disk.img",
            "/tmp/lab-a/disk.img",
        ] {
            st.save(&on(backing)).unwrap();
        }
    }

    // `runs`: the device column names each one's file; a line says they are not one device.
    let (code, out, err) = run(&["runs", "--store", &store]);
    assert_eq!(code, 0, "{err}");
    let row = |id: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("no run {id}:\n{out}"))
            .to_string()
    };
    assert!(row("1").contains("loop0 (/tmp/lab-a/disk.img"), "{out}");
    assert!(row("2").contains("loop0 (/tmp/lab-b/disk.img"), "{out}");
    assert!(row("3").contains("loop0 (/tmp/lab-a/disk.img"), "{out}");
    assert!(
        out.contains(
            "note: /dev/loop0 held 2 different devices in these runs: not the same device"
        ),
        "{out}"
    );
    let (code, json, err) = run(&["runs", "--json", "--store", &store]);
    assert_eq!(code, 0, "{err}");
    let list: serde_json::Value = serde_json::from_str(&json).unwrap();
    let key = |id: i64| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap()["drive"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(key(1), key(3));
    assert_ne!(key(1), key(2));

    // serve: the drive page of /dev/loop0 has two histories, each with its own runs.
    let s = serve(&["--store", &store, "--listen", "127.0.0.1:0"]);
    let page = get(&s.addr, "/drives/%2Fdev%2Floop0", "");
    assert_eq!(page.status, 200, "{}", page.text());
    let page = page.text().replace("&#x2f;", "/");
    assert!(
        page.contains("/dev/loop0 held 2 different devices: not the same device"),
        "{page}"
    );
    let sections: Vec<&str> = page.split("<h2 class=\"device\">").skip(1).collect();
    assert_eq!(sections.len(), 2, "{page}");
    let runs_in = |s: &str| -> Vec<i64> {
        s.split("<a href=\"/runs/")
            .skip(1)
            .filter_map(|r| r.split('"').next()?.parse().ok())
            .collect()
    };
    let a = sections
        .iter()
        .find(|s| s.contains("/tmp/lab-a/disk.img"))
        .unwrap();
    let b = sections
        .iter()
        .find(|s| s.contains("/tmp/lab-b/disk.img"))
        .unwrap();
    assert_eq!(runs_in(a), vec![3, 1]);
    assert_eq!(runs_in(b), vec![2]);
}
