//! Several emulated disks behind one shared bus, through real loop devices: together they move
//! no more than the bus rate, each alone moves its own rate, and without the bus they add up.
//! Needs root and FUSE; fails loudly without them.

mod common;

use common::*;
use drivescope_lab::truth::{bus_aggregate_mb_s, expected_range_mb_s};
use drivescope_lab::{Bus, LabDevice, Model};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Per-disk media rate and the bus rate: four disks need twice the bus. The rates stay within
/// what a 2-core host's FUSE + loop path serves for four devices at once (1 MiB commands).
const DISK_MB_S: f64 = 60.0;
const BUS_MB_S: f64 = 120.0;
const DISKS: usize = 4;
const BS: usize = 1 << 20;

fn flat_model() -> Model {
    let text = format!(
        "name = 'flat'\nsize = '256M'\nzones = {{ rates_mb_s = [{DISK_MB_S}] }}\nlookahead = '50ms'\n"
    );
    Model::from_toml_str(&text, "test").unwrap()
}

fn start_all(model: &Model, bus: Option<&Arc<Bus>>) -> Vec<LabDevice> {
    require_lab();
    (0..DISKS)
        .map(|_| LabDevice::start_temp_on(model, true, bus.cloned()).expect("start lab device"))
        .collect()
}

fn loops(devs: &[LabDevice]) -> Vec<PathBuf> {
    devs.iter()
        .map(|d| d.loop_device().unwrap().to_path_buf())
        .collect()
}

/// Read each of `paths` in its own thread, sequentially in 1 MiB O_DIRECT commands from
/// `offset`, all starting together and counting what completed within `secs`. MB/s of each.
fn read_together(paths: &[PathBuf], offset: u64, secs: f64) -> Vec<f64> {
    let barrier = std::sync::Barrier::new(paths.len());
    let window = Duration::from_secs_f64(secs);
    std::thread::scope(|s| {
        let handles: Vec<_> = paths
            .iter()
            .map(|p| {
                let barrier = &barrier;
                s.spawn(move || read_for(p, offset, window, barrier))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

fn read_for(path: &Path, offset: u64, window: Duration, barrier: &std::sync::Barrier) -> f64 {
    drivescope_lab::fuse_fs::boost_current_thread();
    let f = open_direct(path, false);
    let mut buf = Aligned::new(BS);
    // One untimed command first, so the stream is under way when the window opens.
    f.read_exact_at(buf.as_mut(), offset).expect("priming read");
    barrier.wait();
    let t0 = Instant::now();
    let mut pos = offset + BS as u64;
    let mut bytes = 0u64;
    while t0.elapsed() < window {
        f.read_exact_at(buf.as_mut(), pos).expect("read");
        if t0.elapsed() <= window {
            bytes += BS as u64;
        }
        pos += BS as u64;
    }
    bytes as f64 * 1e3 / window.as_nanos() as f64
}

fn within(got: f64, want: f64, tol: f64) -> bool {
    (got / want - 1.0).abs() <= tol
}

/// The emulator's own path did not set the pace (see `host_bound` in docs/lab.md).
fn host_kept_up(devs: &[LabDevice]) -> Result<(), String> {
    for d in devs {
        let s = d.stats();
        if s.host_bound * 100 > s.reads {
            return Err(format!(
                "{}: {} of {} commands host-bound: the host cannot serve these rates",
                d.target().display(),
                s.host_bound,
                s.reads
            ));
        }
    }
    Ok(())
}

#[test]
fn four_disks_share_the_bus_one_alone_keeps_its_rate() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _serial = one_at_a_time();
    let model = flat_model();
    // A 1 MiB read reaches the device as two 512 KiB requests at once.
    let alone = expected_range_mb_s(&model, 0, 64 << 20, 512 << 10, 1, 1.0);
    let together = bus_aggregate_mb_s(&[alone; DISKS], BUS_MB_S);
    let bus = Bus::new(BUS_MB_S).unwrap();
    let devs = start_all(&model, Some(&bus));
    for d in &devs {
        assert_eq!(d.bus().map(|b| b.rate_mb_s()), Some(BUS_MB_S));
    }
    let paths = loops(&devs);
    let mut round = 0u64;
    best_of(3, || {
        // Each pass reads other ground than the last, inside the 256 MiB disks: 3 s from 64 MiB
        // at 60 MB/s ends near 236 MiB.
        let base = (round % 2) * (64 << 20);
        round += 1;
        let each = read_together(&paths, base, 3.0);
        let sum: f64 = each.iter().sum();
        let mut report = vec![format!("together: {each:.1?} = {sum:.1} vs {together:.1}")];
        let mut ok = within(sum, together, 0.10);
        for (d, p) in devs.iter().zip(&paths) {
            // What the bus still holds for the others (their drives' read-ahead reaches 50 ms
            // past their last command) is carried before this disk reads alone.
            std::thread::sleep(Duration::from_millis(200));
            let waits = d.stats().bus_waits;
            let r = read_together(std::slice::from_ref(p), base + (40 << 20), 1.0)[0];
            let waited = d.stats().bus_waits - waits;
            report.push(format!(
                "{} alone: {r:.1} vs {alone:.1}, {waited} bus waits",
                p.display()
            ));
            ok &= within(r, alone, 0.10) && waited == 0;
        }
        host_kept_up(&devs)?;
        eprintln!("{report:#?}");
        if ok {
            Ok(())
        } else {
            Err(format!("{report:#?}"))
        }
    });
    // The bus, not the disks, held them back: it carried what they served and made them wait.
    let carried = bus.stats();
    let served: u64 = devs.iter().map(|d| d.stats().bytes_read).sum();
    assert_eq!(carried.bytes, served);
    assert_eq!(carried.devices, DISKS as u64);
    assert!(carried.waited > 0, "{carried:?}");
    assert!(devs.iter().all(|d| d.stats().bus_waits > 0));
}

#[test]
fn four_disks_without_a_bus_add_up() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _serial = one_at_a_time();
    let model = flat_model();
    let alone = expected_range_mb_s(&model, 0, 64 << 20, 512 << 10, 1, 1.0);
    let devs = start_all(&model, None);
    assert!(devs.iter().all(|d| d.bus().is_none()));
    let paths = loops(&devs);
    let mut round = 0u64;
    best_of(3, || {
        let base = (round % 2) * (64 << 20);
        round += 1;
        let each = read_together(&paths, base, 3.0);
        let sum: f64 = each.iter().sum();
        host_kept_up(&devs)?;
        let want = alone * DISKS as f64;
        eprintln!("together: {each:.1?} = {sum:.1} vs {want:.1}");
        if within(sum, want, 0.10) {
            Ok(())
        } else {
            Err(format!("together: {each:.1?} = {sum:.1} vs {want:.1}"))
        }
    });
    assert!(devs.iter().all(|d| d.stats().bus_waits == 0));
}
