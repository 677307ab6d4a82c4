//! The device model does what its docs say: each behaviour a test expects is first checked here, on the
//! model alone, with the workloads the experiments use.

use super::model::*;
use super::support::near;
use crate::stream::{stream_on, StreamSpec, Streamed};
use drivescope_core::bench::{run_once_on, Access, RunOptions, Rw, TestSpec};
use drivescope_core::engine::scripted::{Call, Reply, Scripted};
use drivescope_core::engine::{DataPattern, EngineKind, Reap};
use drivescope_core::target::Target;
use std::sync::atomic::AtomicBool;

fn target() -> Target {
    Target::open_read(&format!("null:{GIB}")).unwrap()
}

/// Stream `[0, region)` with `bs` at QD4 for up to `max_bytes`, stretches of `stretch`.
fn read<F: FnMut(&Call) -> Reply + Send>(
    dev: &Scripted<F>,
    region: u64,
    bs: u64,
    stretch: u64,
    max_bytes: u64,
    write: bool,
) -> Streamed {
    let spec = StreamSpec {
        region,
        block_size: bs,
        queue_depth: 4,
        write,
        stretch,
        max_ns: u64::MAX,
        max_bytes,
    };
    let stop = AtomicBool::new(false);
    let none = &mut |_: &[drivescope_record::StreamPoint]| false;
    stream_on(
        dev,
        &target(),
        EngineKind::Auto,
        DataPattern::Zero,
        spec,
        &stop,
        250_000_000,
        none,
    )
    .unwrap()
}

/// The stretches timed whole: a stream's first stretch also holds the time of the next one's first command
/// (and of the first access), and its last one lacks its own first command's.
fn whole(s: &Streamed) -> &[drivescope_record::StreamPoint] {
    &s.points[1..s.points.len() - 1]
}

/// Overall rate of a stream, MB/s.
fn rate(s: &Streamed) -> f64 {
    s.bytes as f64 * 1e3 / s.duration_ns as f64
}

/// RND4K IOPS at `qd` for 1 s.
fn iops<F: FnMut(&Call) -> Reply + Send>(dev: &Scripted<F>, qd: u32) -> f64 {
    let spec = TestSpec {
        access: Access::Rnd,
        block_size: 4096,
        queue_depth: qd,
        threads: 1,
    };
    let o = RunOptions {
        engine: EngineKind::Auto,
        reap: Reap::Auto,
        data: DataPattern::Zero,
        duration_ns: 1_000_000_000,
        region: GIB,
        series_interval_ns: None,
        seed: 1,
        watch: None,
    };
    run_once_on(dev, &target(), &spec, Rw::Read, &o, &AtomicBool::new(false))
        .unwrap()
        .iops()
}

#[test]
fn zones_the_rate_falls_from_outer_to_inner_and_a_flat_device_stays_flat() {
    // Stretches of 64 MiB over the whole hard disk: from ~200 MB/s at the outer edge to ~100 inside.
    let (dev, _) = hdd().device();
    let s = read(&dev, GIB, MIB, 64 * MIB, GIB, false);
    let w = whole(&s);
    near("outer", w[0].mb_per_s, hdd().rate_at(96 * MIB), 0.02);
    near(
        "inner",
        w[w.len() - 1].mb_per_s,
        hdd().rate_at(GIB - 96 * MIB),
        0.02,
    );
    assert!(w.windows(2).all(|w| w[1].mb_per_s < w[0].mb_per_s));
    let (dev, _) = ssd().device();
    let s = read(&dev, GIB, MIB, 64 * MIB, GIB, false);
    assert!(whole(&s)
        .iter()
        .all(|p| (p.mb_per_s / 500.0 - 1.0).abs() < 0.02));
}

#[test]
fn lanes_overlap_accesses_and_one_lane_serialises_them() {
    // 1 ms access + 8.2 µs transfer: ~992 IOPS at Q1; eight lanes give eight times that at Q32.
    let q1 = 1e9 / (1_000_000.0 + 4096.0 * 1e3 / 500.0);
    let (dev, _) = ssd().device();
    near("ssd Q1", iops(&dev, 1), q1, 0.01);
    near("ssd Q32", iops(&dev, 32), 8.0 * q1, 0.01);
    // The hard disk seeks 8 ms for each random command, at any depth.
    let (dev, _) = hdd().device();
    let one = iops(&dev, 1);
    near("hdd Q1", one, 1e9 / (8e6 + 4096.0 * 1e3 / 150.0), 0.02);
    near("hdd Q32", iops(&dev, 32), one, 0.02);
}

#[test]
fn a_link_caps_every_shape_at_its_rate() {
    let m = Model {
        link: Some(40.0),
        ..ssd()
    };
    for bs in [MIB, 256 << 10, 64 << 10] {
        let (dev, _) = m.clone().device();
        let s = read(&dev, GIB, bs, 16 * MIB, 64 * MIB, false);
        near(&format!("{bs} B"), rate(&s), 40.0, 0.01);
    }
}

#[test]
fn the_read_cache_serves_a_second_read_of_what_fits_and_nothing_of_what_does_not() {
    let m = Model {
        read_cache: Some((64 * MIB, 2000.0)),
        ..ssd()
    };
    let hit = hit_rate(MIB, 2000.0);
    for (size, again) in [(32 * MIB, hit), (64 * MIB, hit), (80 * MIB, 500.0)] {
        let (dev, _) = m.clone().device();
        let first = read(&dev, size, MIB, size, size, false);
        near("first read", rate(&first), 500.0, 0.05);
        let second = read(&dev, size, MIB, size, size, false);
        near(&format!("{size} B again"), rate(&second), again, 0.05);
    }
}

#[test]
fn the_write_cache_takes_a_burst_then_writes_at_the_rate_it_drains() {
    let m = Model {
        write_cache: Some((256 * MIB, 1000.0)),
        ..ssd()
    };
    let (dev, seen) = m.device();
    let s = read(&dev, GIB, MIB, 16 * MIB, 2 * GIB, true);
    // It fills at 1000 - 500 MB/s: 256 MiB in 0.54 s, 537 MB written by then.
    let fast: u64 = s
        .points
        .iter()
        .filter(|p| p.mb_per_s > 900.0)
        .map(|p| p.bytes)
        .sum();
    near("burst bytes", fast as f64, 256.0 * MIB as f64 * 2.0, 0.05);
    let w = whole(&s);
    near("burst", w[0].mb_per_s, 1000.0, 0.02);
    near("sustained", w[w.len() - 1].mb_per_s, 500.0, 0.02);
    assert_eq!(seen.writes(), 2048);
    assert_eq!(seen.reads(), 0);
}

#[test]
fn a_warm_up_slows_the_media_for_its_first_seconds() {
    let m = Model {
        warm_up: Some((2_000_000_000, 0.5)),
        ..ssd()
    };
    let (dev, _) = m.device();
    let s = read(&dev, GIB, MIB, 16 * MIB, 2 * GIB, false);
    // 250 MB/s for 2 s (500 MB), then 500 MB/s.
    let slow: Vec<_> = whole(&s)
        .iter()
        .filter(|p| p.t_ns < 1_900_000_000)
        .collect();
    let fast: Vec<_> = whole(&s)
        .iter()
        .filter(|p| p.t_ns > 2_100_000_000)
        .collect();
    assert!(slow.len() > 20 && fast.len() > 20);
    assert!(slow.iter().all(|p| (p.mb_per_s / 250.0 - 1.0).abs() < 0.02));
    assert!(fast.iter().all(|p| (p.mb_per_s / 500.0 - 1.0).abs() < 0.02));
    near(
        "duration",
        s.duration_ns as f64,
        2e9 + (2.0 * GIB as f64 - 5e8) / 500.0 * 1e3,
        0.01,
    );
}

#[test]
fn failures_are_answered_with_the_errno_chosen() {
    let m = Model {
        fail: Some(|c: &Call| (c.offset == 3 * MIB).then_some(libc::EIO)),
        ..ssd()
    };
    let (dev, seen) = m.device();
    let s = read(&dev, 8 * MIB, MIB, 8 * MIB, 8 * MIB, false);
    assert_eq!((s.errors, s.errno, s.bytes), (1, None, 7 * MIB));
    assert_eq!((seen.reads(), seen.failed()), (8, 1));
}
