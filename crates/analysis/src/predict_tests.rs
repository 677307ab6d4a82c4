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

/// A small deterministic generator for drawing disks (fixed seed: the same draws every run).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Log-uniform in lo..hi.
    fn log_between(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + (hi.ln() - lo.ln()) * self.next()).exp()
    }
}

/// Disks drawn from a wide range (a 4 KiB random read of 20 µs to 15 ms, a sequential rate of
/// 30 to 7000 MB/s), each measured with RND4K Q1 and SEQ1M Q1 only: a large request of the
/// workload costs a 4 KiB read's positioning plus its bytes at the sequential rate, never the
/// 4 KiB latency times its size.
#[test]
fn a_large_request_costs_a_positioning_plus_its_bytes_at_the_sequential_rate() {
    let mut rng = Lcg(0x5eed_2026_1127);
    for _ in 0..200 {
        let pos = rng.log_between(20e3, 15e6);
        let rate = rng.log_between(30.0, 7000.0); // MB/s = bytes per µs
        let seq1m = (1u64 << 20) as f64 * 1e3 / rate;
        let mut points = serial(Random, 4096, pos);
        points.extend(serial(Sequential, 1 << 20, seq1m));
        let bs = 1u64 << (16 + (rng.next() * 8.0) as u32); // 64 KiB .. 8 MiB
        for pattern in [Random, Sequential] {
            let e = estimate(&points, Read, pattern, bs, 1.0).unwrap();
            let transfer = bs as f64 * 1e3 / rate;
            let want = match pattern {
                Random if bs > 8192 => pos + transfer * (1.0 - 4096.0 / bs as f64),
                _ => transfer,
            };
            let ratio = e.service_ns / want;
            assert!(
                (0.9..=1.1).contains(&ratio),
                "{pattern:?} {bs} B on a disk of {pos:.0} ns positioning and {rate:.0} MB/s: \
                 {:.0} ns, want {want:.0}",
                e.service_ns
            );
            // Never the small request's latency scaled by the bytes, where that is far off.
            let scaled = pos * bs as f64 / 4096.0;
            if scaled > 2.0 * want {
                assert!(e.service_ns < scaled / 2.0);
            }
        }
    }
}

/// Results of 4 KiB random reads alone cannot time 1 MiB requests: the prediction says so in
/// one line, naming what to give, instead of scaling 4 KiB by 256.
#[test]
fn without_sequential_results_a_large_request_is_not_predicted_and_one_line_says_why() {
    let points = serial(Random, 4096, 117_000.0);
    let fp = fingerprint(
        &[
            (Read, 1 << 20, Random, 500, 2_300_000.0, 1.0),
            (Read, 1 << 20, Sequential, 500, 2_200_000.0, 1.0),
            (Read, 4096, Random, 100, 100_000.0, 1.0),
        ],
        1.0,
        0,
    );
    let e = predict(&fp, &points, "run 1").unwrap_err();
    let said = e.to_string();
    assert!(matches!(e, PredictError::Cannot(_)), "{said}");
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(said.contains("1.0 MiB") && said.contains("SEQ1M"), "{said}");
}

/// Classes another shape stands in for get one note between them, not one each.
#[test]
fn substitutions_are_one_note() {
    // Reads measured only; nine write classes of several sizes and patterns.
    let mut points = serial(Random, 4096, 100_000.0);
    points.extend(serial(Sequential, 1 << 20, 2_000_000.0));
    let mut classes = Vec::new();
    for (i, size) in [
        4096u64,
        8192,
        16384,
        65536,
        131072,
        262144,
        524288,
        1 << 20,
        2 << 20,
    ]
    .into_iter()
    .enumerate()
    {
        let pattern = if i % 2 == 0 { Random } else { Sequential };
        classes.push((IoDirection::Write, size, pattern, 100, 500_000.0, 1.0));
    }
    let fp = fingerprint(&classes, 1.0, 0);
    let p = predict(&fp, &points, "run 1").unwrap();
    let about: Vec<&String> = p
        .notes
        .iter()
        .filter(|n| n.contains("no results"))
        .collect();
    assert_eq!(about.len(), 1, "{:?}", p.notes);
    assert!(about[0].contains("9 classes"), "{}", about[0]);
}
