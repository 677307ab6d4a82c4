//! `diagnose` on targets other than a lab disk: a directory (its test file takes the write experiments) and an
//! existing file (read only). Needs root for the loop-mounted file system.

mod common;
use common::*;
use serde_json::Value;

fn diagnose(args: &[&str]) -> (Value, std::process::Output) {
    let out = drivescope_cmd()
        .arg("diagnose")
        .args(args)
        .args(["--json", "--quiet", "--no-store"])
        .output()
        .expect("run drivescope");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    let d = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}); stderr: {err}"));
    (d, out)
}

fn verdict(d: &Value, experiment: &str) -> String {
    d["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["experiment"] == experiment)
        .map(|o| o["verdict"].as_str().unwrap().to_string())
        .unwrap_or_else(|| panic!("no outcome for {experiment}: {}", d["outcomes"]))
}

#[test]
fn a_directory_gets_a_test_file_with_write_experiments_and_no_zones() {
    if skip_without_root("mounts ext4 on a loop device") {
        return;
    }
    let fs = Ext4Mount::new(256 << 20);
    let (d, out) = diagnose(&[fs.path(), "--size", "64M", "--budget", "12s"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(d["kind"], "diagnose");
    assert_eq!(d["writes"], true);
    assert_eq!(d["size"], 64 << 20);
    assert!(
        d["write_cache"]["written"].as_u64().unwrap() > 0,
        "{}",
        d["write_cache"]
    );
    assert_eq!(
        verdict(&d, "zones"),
        "skipped",
        "a file's positions are not the device's"
    );
    assert!(d["warm_up"]["points"].as_array().unwrap().len() > 10);
    // The test file is gone afterwards.
    let left: Vec<_> = std::fs::read_dir(fs.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("drivescope"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn an_existing_file_is_only_read() {
    if skip_without_root("mounts ext4 on a loop device") {
        return;
    }
    let fs = Ext4Mount::new(128 << 20);
    let file = format!("{}/data.bin", fs.path());
    std::fs::write(&file, vec![7u8; 32 << 20]).unwrap();
    let before = checksum(std::path::Path::new(&file));
    let (d, out) = diagnose(&[&file, "--budget", "6s"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(d["writes"], false);
    assert_eq!(verdict(&d, "write_cache"), "skipped");
    assert!(d["write_cache"].is_null());
    assert_eq!(checksum(std::path::Path::new(&file)), before);
}
