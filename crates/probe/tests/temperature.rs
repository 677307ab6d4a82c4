//! The temperature sources: hwmon sensors found by their `device` link on a tree laid out as the
//! kernel lays it out, real drives' `smartctl --json` documents, and the poller's pace and notes.

use drivescope_probe::temperature::{from_smartctl_json, hwmon_of, parse_millidegrees, Source};
use drivescope_probe::temperature_poll::{Poller, MIN_INTERVAL};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn smartctl(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/smartctl")
        .join(name);
    std::fs::read_to_string(&p).expect("fixture")
}

#[test]
fn smartctl_documents_of_real_drives_give_their_temperature() {
    // A SATA drive's attributes (`smartctl -jA`, what the poller runs).
    assert_eq!(
        from_smartctl_json(&smartctl("ata_attributes.json")),
        Ok(29.0)
    );
    // A drive behind a USB bridge smartctl knows (JMicron): SMART passes through.
    assert_eq!(from_smartctl_json(&smartctl("ata_failing.json")), Ok(25.0));
    // NVMe: the health log's temperature.
    assert_eq!(from_smartctl_json(&smartctl("nvme_healthy.json")), Ok(38.0));
    assert_eq!(
        from_smartctl_json(&smartctl("nvme_media_errors.json")),
        Ok(35.0)
    );
}

#[test]
fn a_usb_bridge_that_hides_smart_says_why_there_is_no_temperature() {
    let why = from_smartctl_json(&smartctl("usb_bridge_unknown.json")).unwrap_err();
    assert!(why.contains("Unknown USB bridge [0x048d:0x1234"), "{why}");
    let why = from_smartctl_json(&smartctl("loop_device.json")).unwrap_err();
    assert!(why.contains("Unable to detect device type"), "{why}");
}

#[test]
fn millidegrees_are_read_as_hwmon_writes_them() {
    assert_eq!(parse_millidegrees("24000\n"), Some(24.0));
    assert_eq!(parse_millidegrees("-1500"), Some(-1.5));
    assert_eq!(parse_millidegrees("hot"), None);
}

/// A fresh directory for one test's tree.
fn tree(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("drivescope-hwmon-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn link(at: &Path, to: &str) {
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    symlink(to, at).unwrap();
}

/// A hwmon device `hwmonN` in `dir` (under sys/devices), registered in sys/class/hwmon, its
/// `device` link pointing at `owner` (relative to the hwmon directory).
fn hwmon(sys: &Path, dir: &str, n: u32, name: &str, owner: &str, inputs: &[(&str, &str)]) {
    let hw = sys.join("devices").join(dir).join(format!("hwmon{n}"));
    write(&hw.join("name"), &format!("{name}\n"));
    for (f, v) in inputs {
        write(&hw.join(f), v);
    }
    link(&hw.join("device"), owner);
    let depth = 2; // class/hwmon
    let up = "../".repeat(depth);
    link(
        &sys.join(format!("class/hwmon/hwmon{n}")),
        &format!("{up}devices/{dir}/hwmon{n}"),
    );
}

#[test]
fn drivetemp_is_found_under_the_scsi_disk_and_other_sensors_are_not() {
    let root = tree("sata");
    let sys = root.join("sys");
    let disk = "pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0";
    let block = sys.join("devices").join(disk).join("block/sda");
    std::fs::create_dir_all(&block).unwrap();
    link(&block.join("device"), "../../../0:0:0:0");
    // The CPU's sensor comes first and belongs to another device.
    hwmon(
        &sys,
        "pci0000:00/0000:00:18.3",
        0,
        "k10temp",
        "../../0000:00:18.3",
        &[("temp1_input", "48000\n")],
    );
    hwmon(
        &sys,
        &format!("{disk}/hwmon"),
        1,
        "drivetemp",
        "../../../0:0:0:0",
        &[("temp1_input", "31000\n")],
    );
    let p = hwmon_of(&sys, &block).expect("drivetemp's sensor");
    assert!(p.ends_with("hwmon1/temp1_input"), "{}", p.display());
    assert_eq!(Source::Hwmon(p).read().unwrap(), 31.0);
    // Another disk on the same controller has no sensor of its own.
    let other = sys
        .join("devices/pci0000:00/0000:00:17.0/ata2/host1/target1:0:0/1:0:0:0")
        .join("block/sdb");
    std::fs::create_dir_all(&other).unwrap();
    link(&other.join("device"), "../../../1:0:0:0");
    assert_eq!(hwmon_of(&sys, &other), None);
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn nvme_sensors_are_found_under_the_controller_or_its_pci_function() {
    for (n, under_pci) in [(2, false), (3, true)] {
        let root = tree(&format!("nvme{n}"));
        let sys = root.join("sys");
        let pci = "pci0000:00/0000:00:01.1/0000:01:00.0";
        let block = sys.join("devices").join(pci).join("nvme/nvme0/nvme0n1");
        std::fs::create_dir_all(&block).unwrap();
        link(&block.join("device"), "../../nvme0");
        let inputs = [("temp2_input", "51850\n"), ("temp1_input", "38850\n")];
        if under_pci {
            // Kernels before the sensor moved to the controller device.
            hwmon(
                &sys,
                &format!("{pci}/hwmon"),
                n,
                "nvme",
                "../../../0000:01:00.0",
                &inputs,
            );
        } else {
            hwmon(
                &sys,
                &format!("{pci}/nvme/nvme0"),
                n,
                "nvme",
                "../../nvme0",
                &inputs,
            );
        }
        let p = hwmon_of(&sys, &block).expect("the controller's sensor");
        // The composite temperature, temp1.
        assert!(p.ends_with("temp1_input"), "{}", p.display());
        assert!((Source::Hwmon(p).read().unwrap() - 38.85).abs() < 1e-9);
        std::fs::remove_dir_all(&root).unwrap();
    }
}

#[test]
fn the_poller_reads_no_faster_than_every_five_seconds() {
    let root = tree("poll");
    let f = root.join("temp1_input");
    write(&f, "30000\n");
    // Asked for every 10 ms: it still waits five seconds between readings. Stopped at 7.5 s, it
    // has read at 0 and 5 s: the second reading may come late on a busy machine (it has 2.5 s),
    // never early, and the third is not due before 10 s.
    let p = Poller::start(Ok(Source::Lab(f.clone())), Duration::from_millis(10));
    std::thread::sleep(Duration::from_millis(7500));
    let r = p.finish();
    assert_eq!(r.interval_s, MIN_INTERVAL.as_secs_f64());
    assert_eq!(r.points.len(), 2, "{:?}", r.points);
    assert!(
        r.points[0].0 < 0.5 && r.points[1].0 >= 5.0,
        "{:?}",
        r.points
    );
    assert_eq!(r.note, None);
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_source_that_fails_is_said_once() {
    let root = tree("gone");
    let f = root.join("temp1_input");
    write(&f, "not a number\n");
    let p = Poller::start(Ok(Source::Lab(f)), MIN_INTERVAL);
    std::thread::sleep(Duration::from_millis(5300));
    let r = p.finish();
    assert!(r.points.is_empty());
    let note = r.note.expect("a note");
    assert!(note.contains("no temperature in millidegrees"), "{note}");
    assert_eq!(note.matches("failed").count(), 1, "{note}");
    // No source at all: no thread, the reason as the note.
    let r = Poller::start(
        Err(drivescope_probe::temperature::TemperatureError::NoSource(
            "loop0 is a loop device over /x: no drive under it reports a temperature".into(),
        )),
        MIN_INTERVAL,
    )
    .finish();
    assert!(r.points.is_empty() && r.source.is_none());
    assert!(r
        .note
        .unwrap()
        .starts_with("no temperature could be read: loop0"));
    std::fs::remove_dir_all(&root).unwrap();
}
