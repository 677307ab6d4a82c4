//! The sequential stream the warm-up, working-set and write experiments share, on a device with a fixed
//! latency: its stretches, passes, failures and ends are exact.

use super::model::MIB;
use crate::stream::{stream_on, StreamSpec, Streamed};
use drivescope_core::engine::scripted::{Call, Reply, Scripted};
use drivescope_core::engine::{DataPattern, EngineKind};
use drivescope_core::target::Target;
use drivescope_record::StreamPoint;
use std::sync::atomic::AtomicBool;

/// 1 MiB commands one at a time over `region`, stretches of 4 MiB, on `dev`.
fn run<F: FnMut(&Call) -> Reply + Send>(
    dev: &Scripted<F>,
    region: u64,
    max_ns: u64,
    max_bytes: u64,
    enough: &mut dyn FnMut(&[StreamPoint]) -> bool,
) -> Streamed {
    try_run(dev, region, max_ns, max_bytes, enough).unwrap()
}

/// [`run`], or the error that ended the stream.
fn try_run<F: FnMut(&Call) -> Reply + Send>(
    dev: &Scripted<F>,
    region: u64,
    max_ns: u64,
    max_bytes: u64,
    enough: &mut dyn FnMut(&[StreamPoint]) -> bool,
) -> Result<Streamed, drivescope_core::engine::EngineError> {
    let spec = StreamSpec {
        region,
        start: 0,
        block_size: MIB,
        queue_depth: 1,
        write: false,
        stretch: 4 * MIB,
        max_ns,
        max_bytes,
    };
    let target = Target::open_read("null:1073741824").unwrap();
    let stop = AtomicBool::new(false);
    stream_on(
        dev,
        &target,
        EngineKind::Auto,
        DataPattern::Zero,
        spec,
        &stop,
        1_000_000,
        enough,
    )
}

/// Every command takes 1 ms.
fn one_ms(_: &Call) -> Reply {
    Reply::ok(1_000_000)
}

#[test]
fn stretches_close_at_the_next_stretch_s_first_completion_with_exact_times() {
    let dev = Scripted::new(one_ms);
    let s = run(&dev, 16 * MIB, u64::MAX, 16 * MIB, &mut |_| false);
    // A stretch closes when the first command of the next completes: 5 ms, then every 4 ms; the last at the
    // stream's end (16 ms).
    let t: Vec<u64> = s.points.iter().map(|p| p.t_ns).collect();
    assert_eq!(t, vec![5_000_000, 9_000_000, 13_000_000, 16_000_000]);
    let offsets: Vec<u64> = s.points.iter().map(|p| p.offset).collect();
    let mean = |first: u64| first * MIB + MIB * 3 / 2;
    assert_eq!(offsets, vec![mean(0), mean(4), mean(8), mean(12)]);
    assert!(s.points.iter().all(|p| p.bytes == 4 * MIB && p.pass == 0));
    let rate = 4.0 * MIB as f64 / 4e6 * 1e3;
    assert_eq!(s.points[1].mb_per_s, rate);
    assert_eq!(s.points[2].mb_per_s, rate);
    assert_eq!(
        (s.bytes, s.duration_ns, s.errors),
        (16 * MIB, 16_000_000, 0)
    );
}

#[test]
fn a_stream_wraps_into_passes_and_no_stretch_crosses_one() {
    let dev = Scripted::new(one_ms);
    // A 6 MiB region: stretches of 4 and 2 MiB per pass, three passes in 18 MiB.
    let s = run(&dev, 6 * MIB, u64::MAX, 18 * MIB, &mut |_| false);
    let got: Vec<(u32, u64)> = s.points.iter().map(|p| (p.pass, p.bytes / MIB)).collect();
    assert_eq!(got, vec![(0, 4), (0, 2), (1, 4), (1, 2), (2, 4), (2, 2)]);
    let offsets: Vec<u64> = dev.calls().iter().map(|c| c.offset / MIB).collect();
    assert_eq!(offsets, [0, 1, 2, 3, 4, 5].repeat(3));
}

#[test]
fn a_bad_block_is_counted_and_read_around() {
    let dev = Scripted::new(|c: &Call| {
        if c.offset == 2 * MIB {
            Reply::err(1_000_000, libc::EIO)
        } else {
            Reply::ok(1_000_000)
        }
    });
    let s = run(&dev, 16 * MIB, u64::MAX, 16 * MIB, &mut |_| false);
    assert_eq!((s.errors, s.bytes), (1, 15 * MIB));
    assert_eq!(s.points[0].bytes, 3 * MIB);
}

#[test]
fn an_errno_that_means_gone_ends_the_stream_at_once() {
    // Fine for 4 MiB, then every command fails as a device gone does.
    let dev = Scripted::new(|c: &Call| {
        if c.offset < 4 * MIB {
            Reply::ok(1_000_000)
        } else {
            Reply::err(1_000_000, libc::ENODEV)
        }
    });
    let err = try_run(&dev, 1 << 30, u64::MAX, 1 << 30, &mut |_| false).unwrap_err();
    assert!(
        err.to_string()
            .contains("the device is gone (No such device"),
        "{err}"
    );
    // One command at a time: the first that failed is the last issued.
    assert_eq!(dev.calls().len(), 5);
}

#[test]
fn failures_in_a_row_are_bad_spots_while_far_places_read() {
    // 64 MiB from 256 MiB fail (a bad area far larger than a stream's patience ever was); the rest reads.
    let dev = Scripted::new(|c: &Call| {
        if (256 * MIB..320 * MIB).contains(&c.offset) {
            Reply::err(1_000_000, libc::EIO)
        } else {
            Reply::ok(1_000_000)
        }
    });
    let s = run(&dev, 1 << 30, u64::MAX, 1 << 30, &mut |_| false);
    assert_eq!((s.errors, s.bytes), (64, (1 << 30) - 64 * MIB));
    // The first failure was probed far away (one sector); the others in its stretches stood without one.
    let probes = dev.calls().iter().filter(|c| c.len < MIB as u32).count();
    assert!((1..=64).contains(&probes), "{probes}");
}

#[test]
fn a_stream_ends_at_its_time_limit_or_when_enough_says_so() {
    let dev = Scripted::new(one_ms);
    // The time limit: no command is issued at or after 10 ms.
    let s = run(&dev, 1 << 30, 10_000_000, u64::MAX, &mut |_| false);
    assert_eq!((s.bytes, s.duration_ns), (10 * MIB, 10_000_000));
    // `enough`, asked every 1 ms, ends it once two stretches are in.
    let dev = Scripted::new(one_ms);
    let mut asked = 0;
    let s = run(&dev, 1 << 30, u64::MAX, u64::MAX, &mut |p| {
        asked += 1;
        p.len() >= 2
    });
    // Stretches close at 5 and 9 ms; asked at 1, 2, … 9 ms, it says enough at 9 ms, with nothing in flight.
    assert_eq!(asked, 9);
    assert_eq!((s.bytes, s.duration_ns), (9 * MIB, 9_000_000));
}
