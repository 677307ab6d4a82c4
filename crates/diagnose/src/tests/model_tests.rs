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
        start: 0,
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
    assert_eq!((s.errors, s.bytes), (1, 7 * MIB));
    assert_eq!((seen.reads(), seen.failed()), (8, 1));
}

/// A command of `len` bytes at `offset` issued at device time `t`.
fn call(offset: u64, len: u64, write: bool, t: u64) -> Call {
    Call {
        offset,
        len: len as u32,
        write,
        attempt: 0,
        at_ns: t,
        device_ns: t,
    }
}

#[test]
fn zones_in_bands_step_from_outer_to_inner_with_one_rate_each() {
    // Four bands: 200, 166.7, 133.3 and 100 MB/s, each a quarter of the disk.
    let m = Model { zones: 4, ..hdd() };
    for (i, want) in [200.0, 200.0 * 5.0 / 6.0, 200.0 * 4.0 / 6.0, 100.0]
        .iter()
        .enumerate()
    {
        let start = GIB / 4 * i as u64;
        near("band start", m.rate_at(start), *want, 1e-9);
        near("band end", m.rate_at(start + GIB / 4 - 1), *want, 1e-9);
    }
    let (dev, _) = m.device();
    let s = read(&dev, GIB, MIB, 64 * MIB, GIB, false);
    for p in whole(&s) {
        let at = m_rate(p.offset, 4);
        near("stretch", p.mb_per_s, at, 0.02);
    }
}

fn m_rate(offset: u64, zones: u32) -> f64 {
    Model { zones, ..hdd() }.rate_at(offset)
}

#[test]
fn the_media_writes_at_its_write_factor_of_the_read_rate() {
    let m = Model {
        write_factor: 0.25,
        ..ssd()
    };
    let (dev, seen) = m.device();
    let s = read(&dev, GIB, MIB, 64 * MIB, 512 * MIB, true);
    near("writes", rate(&s), 125.0, 0.02);
    assert_eq!(seen.writes(), 512);
}

#[test]
fn an_smr_media_cache_takes_random_writes_then_stalls_per_band_and_drains_when_idle() {
    let smr = Smr {
        cache: 4 * MIB,
        rate: 200.0,
        band: MIB,
        stall_ns: 500_000_000,
        idle_after_ns: 1_000_000_000,
        drain: 100.0,
    };
    let (mut answer, _) = Model {
        smr: Some(smr),
        ..hdd()
    }
    .script();
    let bs = 64 << 10;
    let write_ns = (bs as f64 * 1e3 / 200.0).round() as u64;
    // 64 random writes fill the 4 MiB cache, each at the cache's rate with no access.
    let mut t = 0;
    for i in 0..64 {
        let r = answer(&call((i * 7 + 3) * 4 * MIB % GIB, bs, true, t));
        assert_eq!(r.latency_ns, write_ns, "write {i}");
        t += r.latency_ns;
    }
    // The next one waits for a band to be cleaned; the 15 after it fit in the band's room.
    let r = answer(&call(999 * MIB % GIB, bs, true, t));
    assert_eq!(r.latency_ns, 500_000_000 + write_ns);
    t += r.latency_ns;
    for i in 0..15 {
        let r = answer(&call((i * 11 + 5) * 4 * MIB % GIB, bs, true, t));
        assert_eq!(r.latency_ns, write_ns, "write {i} after the stall");
        t += r.latency_ns;
    }
    let r = answer(&call(17 * MIB, bs, true, t));
    assert_eq!(r.latency_ns, 500_000_000 + write_ns);
    t += r.latency_ns;
    // 1 s idle, then 1 s draining at 100 MB/s: the whole 4 MiB cache is free again.
    t += 2_000_000_000;
    for i in 0..64 {
        let r = answer(&call((i * 13 + 1) * 4 * MIB % GIB, bs, true, t));
        assert_eq!(r.latency_ns, write_ns, "write {i} after the drain");
        t += r.latency_ns;
    }
    // A write that continues the last one goes to its place on the media.
    let last = (63 * 13 + 1) * 4 * MIB % GIB + bs;
    let r = answer(&call(last, bs, true, t));
    near(
        "sequential",
        r.latency_ns as f64,
        bs as f64 * 1e3 / hdd().rate_at(last),
        0.01,
    );
}

#[test]
fn noise_makes_completions_late_by_up_to_its_jitter_and_its_slow_share_later_still() {
    let noise = Noise {
        seed: 7,
        jitter_ns: 100_000,
        slow_share: 0.01,
        slow_ns: 20_000_000,
    };
    let (mut quiet, _) = ssd().script();
    let (mut busy, _) = Model {
        noise: Some(noise),
        ..ssd()
    }
    .script();
    let (mut slow, mut late_sum) = (0, 0u64);
    let n = 20_000;
    for i in 0..n {
        // One command at a time, far apart: the device's own latency is the same for both.
        let c = call(i * MIB % GIB, 4096, false, i * 10_000_000);
        let (q, b) = (quiet(&c).latency_ns, busy(&c).latency_ns);
        let late = b - q;
        assert!(
            late < 100_000 || (20_000_000..20_100_000).contains(&late),
            "{late}"
        );
        slow += (late >= 20_000_000) as u64;
        late_sum += late % 20_000_000;
    }
    // About 1 % slow, and a mean jitter of about half its bound.
    assert!((120..=280).contains(&slow), "{slow}");
    near("mean jitter", late_sum as f64 / n as f64, 50_000.0, 0.05);
    // The same seed repeats the same lateness.
    let (mut again, _) = Model {
        noise: Some(noise),
        ..ssd()
    }
    .script();
    let (mut busy2, _) = Model {
        noise: Some(noise),
        ..ssd()
    }
    .script();
    for i in 0..100 {
        let c = call(i * MIB, 4096, false, i * 10_000_000);
        assert_eq!(again(&c), busy2(&c));
    }
}
