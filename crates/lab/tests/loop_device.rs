//! The emulator through real loop devices: timing against the truth, errors, data, cleanup.
//! Needs root and FUSE; fails loudly without them.

mod common;

use common::*;
use drivescope_lab::truth::expected_range_mb_s;
use drivescope_lab::{serve, LabDevice, Model};
use std::os::unix::fs::FileExt;

fn within(measured: f64, expected: f64, tol: f64) -> bool {
    (measured / expected - 1.0).abs() <= tol
}

#[test]
fn sequential_rates_follow_the_zone_profile() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _serial = one_at_a_time();
    // Paced below a small VM's FUSE + loop round trip under load (see docs/lab.md, Accuracy).
    let model = Model::preset("hdd-7200").unwrap().paced(60.0).unwrap();
    let dev = start(&model);
    let path = dev.loop_device().unwrap().to_path_buf();
    let bs = 65536;
    let len = 8 << 20;
    best_of(3, || {
        let mut report = vec![];
        let mut worst: f64 = 0.0;
        // Positions chosen clear of the slow and bad spots.
        for offset in [0u64, 64 << 20, 100 << 20, 192 << 20, 246 << 20] {
            let expect = expected_range_mb_s(&model, offset, len, bs as u64, 1, 1.0);
            let got = timed_read(&path, offset, len, bs);
            worst = worst.max((got / expect - 1.0).abs());
            report.push(format!("{offset}: {got:.1} vs {expect:.1}"));
        }
        if worst <= 0.05 {
            Ok(())
        } else {
            Err(format!("measured vs modeled MB/s beyond 5 %: {report:?}"))
        }
    });
    let stats = dev.stats();
    // The loop driver passes 64 KiB direct reads through whole.
    assert_eq!(stats.request_sizes.keys().collect::<Vec<_>>(), vec![&65536]);
}

#[test]
fn interface_cap_and_serial_queue() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _serial = one_at_a_time();
    let model = Model::preset("usb-bridge-hdd").unwrap();
    let dev = start(&model);
    let path = dev.loop_device().unwrap().to_path_buf();
    let bs = 65536;
    let expect = expected_range_mb_s(&model, 16 << 20, 4 << 20, bs as u64, 1, 1.0);
    best_of(3, || {
        let qd1 = timed_read(&path, 16 << 20, 4 << 20, bs);
        let qd8 = timed_read_qd(&path, 32 << 20, 4 << 20, bs, 8);
        if !within(qd1, expect, 0.05) {
            return Err(format!("QD1 {qd1:.1} vs {expect:.1}"));
        }
        // Load only slows the disk, so the cap holds on any host; the two rates are timings of
        // their own, which a busy host can set apart: a try that fails there is retried.
        assert!(qd1 < 40.0 && qd8 < 40.0, "capped at 40 MB/s: {qd1} {qd8}");
        if qd8 >= qd1 * 1.05 {
            return Err(format!(
                "a serial device gains nothing from QD8: {qd1:.1} -> {qd8:.1}"
            ));
        }
        Ok(())
    });
}

#[test]
fn parallel_device_gains_from_queue_depth_serial_does_not() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _serial = one_at_a_time();
    // The same device twice, once able to overlap its 1 ms per-command latency (well above
    // the emulator's own round trip on a loaded 2-vCPU VM, so QD1 shows the model's latency).
    for (queue, gains) in [
        ("{ mode = 'parallel', depth = 8 }", true),
        ("{ mode = 'serial' }", false),
    ] {
        let text = format!(
            "name = 'q'\nsize = '64M'\nzones = {{ rates_mb_s = [240] }}\noverhead = '1ms'\nqueue = {queue}\n"
        );
        let model = Model::from_toml_str(&text, "test").unwrap();
        let dev = start(&model);
        let path = dev.loop_device().unwrap().to_path_buf();
        let bs = 65536;
        let expect1 = expected_range_mb_s(&model, 0, 8 << 20, bs as u64, 1, 1.0);
        let expect8 = expected_range_mb_s(&model, 0, 8 << 20, bs as u64, 8, 1.0);
        best_of(3, || {
            let qd1 = timed_read(&path, 0, 8 << 20, bs);
            let qd8 = timed_read_qd(&path, 16 << 20, 8 << 20, bs, 8);
            // QD8 may fall short of the model where the emulator's own per-command CPU cost
            // (about 6000 commands/s on a 2-core VM) is the limit; it must never beat it.
            if !within(qd1, expect1, 0.05) || qd8 > expect8 * 1.05 {
                return Err(format!(
                    "{queue}: QD1 {qd1:.1} vs {expect1:.1}, QD8 {qd8:.1} vs {expect8:.1}"
                ));
            }
            if (qd8 > qd1 * 2.0) != gains {
                return Err(format!("{queue}: QD1 {qd1:.1} -> QD8 {qd8:.1}"));
            }
            Ok(())
        });
    }
}

#[test]
fn data_reads_back_bad_spots_fail_lost_writes_vanish() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _serial = one_at_a_time();
    let text = r#"
name = "spots"
size = "16M"
zones = { rates_mb_s = [400] }
bad = [{ offset = "4M", length = "4K", read = true, write = false, latency = "1ms" },
       { offset = "6M", length = "4K", read = false, write = true, latency = "1ms" }]
lost_writes = [{ offset = "8M", length = "64K" }]
"#;
    let model = Model::from_toml_str(text, "test").unwrap();
    let dev = start(&model);
    let path = dev.loop_device().unwrap().to_path_buf();
    let f = open_direct(&path, true);
    let mut buf = Aligned::new(65536);
    for (i, b) in buf.as_mut().iter_mut().enumerate() {
        *b = (i % 251) as u8 + 1;
    }
    // Ordinary data reads back as written.
    f.write_all_at(buf.as_ref(), 1 << 20).unwrap();
    let mut back = Aligned::new(65536);
    f.read_exact_at(back.as_mut(), 1 << 20).unwrap();
    assert_eq!(buf.as_ref(), back.as_ref());
    // A read-bad spot fails reads with EIO but takes writes.
    let e = f.read_exact_at(back.as_mut(), 4 << 20).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EIO), "{e}");
    f.write_all_at(buf.as_ref(), 4 << 20).unwrap();
    // A write-bad spot fails writes and reads fine.
    let e = f.write_all_at(buf.as_ref(), 6 << 20).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EIO), "{e}");
    f.read_exact_at(back.as_mut(), 6 << 20).unwrap();
    // A lost write is acknowledged, yet the old (zero) data reads back.
    f.write_all_at(buf.as_ref(), 8 << 20).unwrap();
    f.read_exact_at(back.as_mut(), 8 << 20).unwrap();
    assert!(back.as_ref().iter().all(|b| *b == 0), "the write was lost");
    let s = dev.stats();
    assert!(s.errors >= 2 && s.writes >= 3, "{s:?}");
}

#[test]
fn cleanup_happens_even_when_a_test_panics() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _serial = one_at_a_time();
    let model = Model::preset("ssd-slc")
        .unwrap()
        .with_size(16 << 20)
        .unwrap();
    require_lab();
    let (tx, rx) = std::sync::mpsc::channel();
    let r = std::panic::catch_unwind(move || {
        let dev = LabDevice::start_temp(&model, true).unwrap();
        tx.send((
            dev.mountdir().to_path_buf(),
            dev.loop_device().unwrap().to_path_buf(),
        ))
        .unwrap();
        // Hold the device open while panicking, as a failing test would.
        let f = open_direct(dev.loop_device().unwrap(), false);
        let _keep = (dev, f);
        panic!("deliberate");
    });
    assert!(r.is_err());
    let (dir, loopdev) = rx.recv().unwrap();
    assert!(!serve::mounted(&dir), "{} still mounted", dir.display());
    let out = std::process::Command::new("losetup")
        .args(["--list", "--noheadings", "--output", "NAME,BACK-FILE"])
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(
        !list
            .lines()
            .any(|l| l.starts_with(&*loopdev.to_string_lossy())
                && l.contains(&*dir.to_string_lossy())),
        "{} still attached: {list}",
        loopdev.display()
    );
}
