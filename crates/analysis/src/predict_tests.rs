use super::*;
use drivescope_record::{DepthShare, ThinkTime, TimeMode};

/// A fingerprint with `classes` as (direction, size, pattern, requests, mean service, depth at issue),
/// its busy time the sum of service times over `depth` (Little's law) and `other` ns of think time.
fn fingerprint(
    classes: &[(IoDirection, u64, AccessPattern, u64, f64, f64)],
    depth: f64,
    other: u64,
) -> Fingerprint {
    let classes: Vec<IoClass> = classes
        .iter()
        .map(|&(direction, size, pattern, n, svc, qd)| IoClass {
            direction,
            size_max_bytes: size,
            pattern,
            requests: n,
            bytes: n * size,
            service_ns_mean: svc,
            service_ns_p50: svc as u64,
            service_ns_p99: svc as u64,
            queue_depth_mean: qd,
        })
        .collect();
    let busy = classes
        .iter()
        .map(|c| c.requests as f64 * c.service_ns_mean / depth)
        .sum::<f64>() as u64;
    Fingerprint {
        mode: TimeMode::Cold,
        run: 1,
        devices: vec!["loop0".into()],
        requests: classes.iter().map(|c| c.requests).sum(),
        unmatched: 0,
        lost_events: 0,
        wall_ns: busy + other,
        busy_ns: busy,
        classes,
        flushes: 0,
        discards: 0,
        sync_requests: 0,
        queue_depth: vec![DepthShare {
            depth: depth.round() as u32,
            share: 1.0,
        }],
        mean_queue_depth: depth,
        think: ThinkTime::default(),
        timeline: Vec::new(),
        timeline_step_s: 1.0,
        notes: Vec::new(),
    }
}

fn point(pattern: AccessPattern, bs: u64, depth: f64, service_ns: f64) -> Point {
    Point {
        direction: IoDirection::Read,
        pattern,
        block_size: bs,
        depth,
        service_ns,
        spread: MIN_SPREAD,
        source: "sweep run 1".into(),
    }
}

use AccessPattern::{Random, Sequential};
use IoDirection::Read;

/// A disk that serves one command at a time, each taking `t` ns: latency at depth d is d·t.
fn serial(pattern: AccessPattern, bs: u64, t: f64) -> Vec<Point> {
    [1.0, 2.0, 4.0, 8.0]
        .iter()
        .map(|&d| point(pattern, bs, d, d * t))
        .collect()
}

#[test]
fn queue_depth_one_random_reads_take_the_other_disks_q1_latency_each() {
    let fp = fingerprint(&[(Read, 4096, Random, 1000, 20_000.0, 1.0)], 1.0, 5_000_000);
    let p = predict(&fp, &serial(Random, 4096, 8e6), "run 1").unwrap();
    assert!((p.io_ns - 1000.0 * 8e6).abs() < 1.0, "{}", p.io_ns);
    assert_eq!(p.other_ns, 5_000_000);
    assert!((p.total_ns - (8e9 + 5e6)).abs() < 1.0);
    assert!(p.io_low_ns < p.io_ns && p.io_ns < p.io_high_ns);
    assert_eq!(p.dominant, Some(0));
    assert!((p.model_io_ns - fp.busy_ns as f64).abs() < 1.0);
    assert!(p.notes.is_empty(), "{:?}", p.notes);
}

#[test]
fn a_deep_workload_on_a_serial_disk_waits_in_line() {
    // Four in flight here, overlapping fully; the other disk serves them one by one, so the I/O time
    // there is the commands' count times one command's time, not a quarter of it.
    let fp = fingerprint(&[(Read, 4096, Random, 400, 50_000.0, 4.0)], 4.0, 0);
    let p = predict(&fp, &serial(Random, 4096, 1e6), "x").unwrap();
    assert!((p.io_ns / (400.0 * 1e6) - 1.0).abs() < 1e-6, "{}", p.io_ns);
    assert_eq!(p.classes[0].depth_stretch, 1.0);
}

#[test]
fn a_disk_that_overlaps_commands_finishes_a_deep_workload_sooner() {
    let fp = fingerprint(&[(Read, 4096, Random, 400, 50_000.0, 4.0)], 4.0, 0);
    let flat: Vec<Point> = [1.0, 4.0, 16.0]
        .iter()
        .map(|&d| point(Random, 4096, d, 100_000.0))
        .collect();
    let p = predict(&fp, &flat, "x").unwrap();
    assert!((p.io_ns / (400.0 * 100_000.0 / 4.0) - 1.0).abs() < 1e-6);
}

#[test]
fn depths_between_measured_ones_interpolate_and_beyond_follow_the_trend() {
    let pts = serial(Random, 4096, 1e6);
    let e = estimate(&pts, Read, Random, 4096, 3.0).unwrap();
    // Between Q2 (2 ms) and Q4 (4 ms) in log(depth).
    let want = 2e6 + 2e6 * (3f64.ln() - 2f64.ln()) / (4f64.ln() - 2f64.ln());
    assert!((e.service_ns - want).abs() < 1.0);
    let deep = estimate(&pts, Read, Random, 4096, 32.0).unwrap();
    assert!((deep.service_ns / 32e6 - 1.0).abs() < 1e-9);
    assert_eq!(deep.depth_stretch, 4.0);
    assert!(deep.uncertainty > e.uncertainty);
}

#[test]
fn block_sizes_between_measured_ones_interpolate_linearly() {
    let pts = vec![
        point(Sequential, 4096, 1.0, 100_000.0),
        point(Sequential, 1 << 20, 1.0, 5_100_000.0),
    ];
    let e = estimate(&pts, Read, Sequential, 131_072, 1.0).unwrap();
    let want = 100_000.0 + 5e6 * (131_072.0 - 4096.0) / ((1 << 20) as f64 - 4096.0);
    assert!((e.service_ns - want).abs() < 1.0, "{}", e.service_ns);
    assert_eq!(e.size_stretch, 1.0);
    assert!(!e.substituted);
}

#[test]
fn one_measured_size_scales_sequential_time_with_the_bytes() {
    let pts = vec![point(Sequential, 1 << 20, 1.0, 8e6)];
    let e = estimate(&pts, Read, Sequential, 131_072, 1.0).unwrap();
    assert!((e.service_ns - 1e6).abs() < 1.0);
    assert_eq!(e.size_stretch, 0.125);
    assert!((e.uncertainty - (MIN_SPREAD + 3.0 * STRETCH_COST)).abs() < 1e-9);
}

#[test]
fn the_other_pattern_stands_in_only_when_nothing_fits_and_says_so() {
    let fp = fingerprint(&[(Read, 131_072, Sequential, 100, 30_000.0, 1.0)], 1.0, 0);
    let pts = vec![
        point(Random, 4096, 1.0, 8e6),
        point(Sequential, 131_072, 1.0, 1e6),
    ];
    let p = predict(&fp, &pts, "x").unwrap();
    assert!(!p.classes[0].substituted);
    assert!((p.io_ns - 1e8).abs() < 1.0);
    let only_random = vec![point(Random, 131_072, 1.0, 9e6)];
    let p = predict(&fp, &only_random, "x").unwrap();
    assert!(p.classes[0].substituted);
    assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
    assert!(p.io_high_ns - p.io_ns > 0.25 * p.io_ns);
}

#[test]
fn the_dominant_class_is_the_one_with_most_predicted_time() {
    let fp = fingerprint(
        &[
            (Read, 131_072, Sequential, 1000, 30_000.0, 1.0),
            (Read, 4096, Random, 100, 20_000.0, 1.0),
        ],
        1.0,
        0,
    );
    // Here the sequential reads took most of the time; on a disk with slow seeks the few random ones do.
    let mut pts = serial(Random, 4096, 10e6);
    pts.extend(serial(Sequential, 131_072, 1e6));
    let p = predict(&fp, &pts, "x").unwrap();
    assert_eq!(p.dominant, Some(1));
    assert!((p.classes[1].share - 1e9 / (1e9 + 1e9)).abs() < 1e-9);
    let sum: f64 = p.classes.iter().map(|c| c.share).sum();
    assert!((sum - 1.0).abs() < 1e-9);
}

#[test]
fn faster_disks_rank_faster() {
    let fp = fingerprint(&[(Read, 4096, Random, 500, 20_000.0, 1.0)], 1.0, 1_000_000);
    let hdd = predict(&fp, &serial(Random, 4096, 8e6), "hdd").unwrap();
    let usb = predict(&fp, &serial(Random, 4096, 12e6), "usb").unwrap();
    let ssd = predict(&fp, &serial(Random, 4096, 80e3), "ssd").unwrap();
    assert!(ssd.total_ns < hdd.total_ns && hdd.total_ns < usb.total_ns);
}

#[test]
fn sweep_cells_give_latency_by_littles_law() {
    let s = drivescope_report::sample::sweep(3);
    let pts = points_of_sweep(&s, Some(4));
    assert_eq!(pts.len(), s.cells.iter().filter(|c| c.errors == 0).count());
    for (p, c) in pts.iter().zip(s.cells.iter().filter(|c| c.errors == 0)) {
        let depth = f64::from(c.queue_depth * c.threads);
        assert_eq!(p.depth, depth);
        let little = depth * 1e9 / c.iops;
        let want = if c.p50_ns > 0 {
            little.min(c.p50_ns as f64)
        } else {
            little
        };
        assert!((p.service_ns - want).abs() < 1e-6);
        assert!(p.source.starts_with("sweep run 4"));
    }
}

#[test]
fn nothing_to_predict_or_nothing_to_predict_from_is_said() {
    let fp = fingerprint(&[], 1.0, 10);
    assert_eq!(
        predict(&fp, &serial(Random, 4096, 1e6), "x").unwrap_err(),
        PredictError::NoRequests
    );
    let fp = fingerprint(&[(Read, 4096, Random, 1, 1.0, 1.0)], 1.0, 0);
    assert_eq!(predict(&fp, &[], "x").unwrap_err(), PredictError::NoResults);
}

#[test]
fn bench_tests_give_their_mean_latency_at_their_depth() {
    let b = drivescope_report::sample::bench(2);
    let pts = points_of_bench(&b, Some(9));
    let tests: Vec<_> = b
        .tests
        .iter()
        .filter(|t| t.errors == 0 && t.rw != Direction::Mix)
        .collect();
    assert_eq!(pts.len(), tests.len());
    for (p, t) in pts.iter().zip(tests) {
        assert!(p.source.ends_with(&t.name), "{}", p.source);
        assert_eq!(p.service_ns, t.latency.mean_ns as f64);
        assert_eq!(p.block_size, t.load.block_size);
        assert_eq!(p.depth, f64::from(t.load.queue_depth * t.load.threads));
        assert_eq!(p.pattern == Sequential, t.name.starts_with("SEQ"));
    }
}

#[test]
fn large_random_reads_are_a_seek_plus_the_transfer_of_their_bytes() {
    // 8 ms to position and read 4 KiB; sequential 512 KiB in 4 ms.
    let mut pts = vec![point(Random, 4096, 1.0, 8e6)];
    pts.push(point(Sequential, 524_288, 1.0, 4e6));
    let e = estimate(&pts, Read, Random, 1 << 20, 1.0).unwrap();
    let transfer = 8e6 * (1.0 - 4096.0 / (1 << 20) as f64);
    assert!(
        (e.service_ns - (8e6 + transfer)).abs() < 1.0,
        "{}",
        e.service_ns
    );
    assert_eq!(e.size_stretch, 2.0);
    assert!(!e.substituted);
    // Small random reads still come from the random results alone.
    let small = estimate(&pts, Read, Random, 4096, 1.0).unwrap();
    assert_eq!(small.service_ns, 8e6);
}
