//! A lab disk's temperature as its mount serves it: `temp1_input` beside `disk.img`, read-only,
//! rising under load and falling back when idle. Needs root and FUSE; fails loudly without them.

mod common;

use common::*;
use drivescope_lab::{LabDevice, Model};
use std::os::unix::fs::FileExt;
use std::time::{Duration, Instant};

fn read_c(dev: &LabDevice) -> f64 {
    let text = std::fs::read_to_string(dev.mountdir().join("temp1_input")).unwrap();
    assert!(text.ends_with('\n'), "{text:?}");
    text.trim().parse::<i64>().unwrap() as f64 / 1000.0
}

#[test]
fn the_mount_serves_a_temperature_that_follows_the_load() {
    if skip_without_root("serves FUSE lab disks") {
        return;
    }
    let _serial = one_at_a_time();
    let text = r#"
name = "warms"
size = "64M"
zones = { rates_mb_s = [40] }
temperature = { start_c = 20, idle_c = 20, busy_c = 60, time_constant = "1s" }
"#;
    let model = Model::from_toml_str(text, "test").unwrap();
    let dev = LabDevice::start_temp(&model, false).unwrap();
    let names: Vec<String> = std::fs::read_dir(dev.mountdir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.contains(&"temp1_input".to_string()), "{names:?}");
    let idle = read_c(&dev);
    assert!((idle - 20.0).abs() < 0.01, "{idle}");
    // Read-only, as hwmon's inputs are.
    let w = std::fs::OpenOptions::new()
        .write(true)
        .open(dev.mountdir().join("temp1_input"));
    assert!(w.is_err());
    // Two seconds of reads (two time constants) at 40 MB/s: 80 MB, however long the host takes
    // to send them. The disk heats while a command is in flight on the lab's clock and cools in
    // the gaps a busy host leaves between commands: no gaps give ~55 °C, gaps twice as long as
    // the reads still over 30 °C.
    let img = open_direct(dev.image(), false);
    let mut buf = Aligned::new(1 << 20);
    let start = Instant::now();
    let mut off = 0u64;
    let mut read = 0u64;
    while read < 80_000_000 {
        img.read_exact_at(buf.as_mut(), off).unwrap();
        off = (off + (1 << 20)) % (64 << 20);
        read += 1 << 20;
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "80 MB took over 60 s"
        );
    }
    let busy = read_c(&dev);
    assert!(busy > 30.0, "after 2 s of reads: {busy} °C");
    // Idle for two time constants (or longer, on a busy host): back most of the way.
    std::thread::sleep(Duration::from_secs(2));
    let cooled = read_c(&dev);
    assert!(
        cooled < busy - (busy - 20.0) * 0.75,
        "{busy} then {cooled} °C"
    );
    dev.stop().unwrap();
}

#[test]
fn a_disk_without_a_temperature_serves_no_file() {
    if skip_without_root("serves FUSE lab disks") {
        return;
    }
    let model = Model::preset("usb-bridge-hdd").unwrap();
    let dev = LabDevice::start_temp(&model, false).unwrap();
    assert!(!dev.mountdir().join("temp1_input").exists());
    assert!(dev.image().exists());
    dev.stop().unwrap();
}
