//! Synthetic but realistic run records, built from the real record types (the same structs the commands
//! fill and print, see `docs/json.md`): for tests, demos and screenshots without a device. Deterministic for
//! a given seed. Nothing here is measured.
//!
//! Compiled for this crate's tests, and for other crates behind the `testing` feature:
//! `drivescope-report = { workspace = true, features = ["testing"] }` in `[dev-dependencies]`.

mod screen;

pub use screen::screen;

use drivescope_probe::{BlockInfo, BlockRole, Hardware, Identity, Transport};
use drivescope_record::{
    BenchRecord, DataPattern, Direction, EngineKind, Event, Header, Kind, Load, RateSummary, Reap,
    Region, RunValues, ScanRecord, SoakRecord, Step, SweepCell, SweepRecord, TargetInfo,
    TargetType, TestResult, Workload,
};
use drivescope_stats::{
    BandCount, Bands, CurvePoint, Histogram, HistogramOut, LatencySummary, SeriesPoint,
};

/// A small deterministic generator (xorshift64*), so samples need no dependency and repeat exactly.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// Uniform in [0, 1).
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A SATA hard disk `sdx` of `size` bytes: model `ACME HD400N`, serial `SAMPLE-NNNN`.
pub fn device(seed: u64, size: u64) -> Identity {
    let mut b = BlockInfo::new("sdx", "/dev/sdx".into(), BlockRole::Disk, Transport::Sata);
    b.size_bytes = Some(size);
    b.logical_sector_size = Some(512);
    b.rotational = Some(true);
    b.hardware = Some(Hardware {
        vendor: Some("ACME".into()),
        model: Some(format!("ACME HD{}", 4000 + seed % 10)),
        serial: Some(format!("SAMPLE-{seed:04}")),
        firmware: Some("01.01A01".into()),
        rotation_rate_rpm: Some(7200),
        ..Hardware::default()
    });
    Identity::of_block(b)
}

fn header(kind: Kind, seed: u64, size: u64) -> Header {
    let day = 1 + seed % 28;
    let mut h = Header::new(
        kind,
        TargetInfo {
            path: "/dev/sdx".into(),
            kind: TargetType::Block,
            size,
            logical_block_size: 512,
        },
        "testhost".into(),
        format!("2026-11-{day:02}T10:00:00Z"),
    );
    h.ended_at = format!("2026-11-{day:02}T10:05:00Z");
    h.device = Some(device(seed, size));
    h
}

fn workload(size: u64) -> Workload {
    Workload {
        size,
        data: DataPattern::Random,
        direct: true,
        interrupted: false,
        test_file: None,
    }
}

/// A log-normal latency distribution around `median_ns` with a long tail, recorded into the same histogram and
/// bands that runs use.
fn latency(
    rng: &mut Rng,
    commands: u64,
    median_ns: f64,
    failed: u64,
) -> (LatencySummary, Vec<BandCount>, HistogramOut) {
    let mut buckets = Vec::new();
    let mut weights = Vec::new();
    for group in 10..36u32 {
        let low = 1u64 << group;
        let width = low / 64;
        for sub in 0..64u64 {
            let lo = low + sub * width;
            let x = (lo as f64 / median_ns).ln();
            // A log-normal body plus a thin heavy tail (retries, remaps).
            let w = (-x * x / 0.08).exp() + 2e-4 * (-(x - 2.5).powi(2) / 1.5).exp();
            if w > 1e-7 {
                buckets.push((lo, lo + width));
                weights.push(w * (0.9 + 0.2 * rng.next()));
            }
        }
    }
    let total_w: f64 = weights.iter().sum();
    let ok = commands - failed;
    let mut counts: Vec<u64> = weights
        .iter()
        .map(|w| (w / total_w * ok as f64).floor() as u64)
        .collect();
    let short = ok - counts.iter().sum::<u64>();
    let peak = (0..counts.len()).max_by_key(|&i| counts[i]).unwrap_or(0);
    counts[peak] += short;
    let mut hist = Histogram::new();
    let mut bands = Bands::default();
    for (&(lo, hi), &c) in buckets.iter().zip(&counts) {
        let mid = lo + (hi - lo) / 2;
        hist.record_n(mid, c);
        bands.record_n(mid, c);
    }
    bands.record_failed_n(failed);
    (hist.summary(), bands.to_out(), hist.to_out())
}

fn scan_record(kind: Kind, seed: u64, size: u64, write: bool) -> ScanRecord {
    ScanRecord {
        header: header(kind, seed, size),
        engine: EngineKind::IoUring,
        reap: Reap::Sleep,
        block_size: 65536,
        queue_depth: 1,
        offset: 0,
        length: size,
        slow_threshold_ns: 50_000_000,
        dwell_ns: None,
        interrupted: false,
        covered: size,
        bytes: 0,
        commands: 0,
        failed_commands: 0,
        duration_ns: 0,
        mb_per_s: RateSummary {
            mean: 0.0,
            min: 0.0,
            max: 0.0,
            without_errors: None,
            error_ns: None,
        },
        zone_ratio: None,
        curve: Vec::new(),
        latency: Histogram::new().summary(),
        submit_latency: Histogram::new().summary(),
        bands: Vec::new(),
        histogram: Histogram::new().to_out(),
        slow: Vec::new(),
        slow_total: 0,
        failed: Vec::new(),
        failed_total: 0,
        failed_extents: Vec::new(),
        failed_extents_cut: None,
        slow_regions: Vec::new(),
        slow_regions_cut: None,
        untried_extents: Vec::new(),
        untried_extents_cut: None,
        surface: None,
        error_budget: None,
        retries: 0,
        series: Vec::new(),
        temperature: None,
        regions: None,
        write,
        points: 1000,
        interval_ns: 1_000_000_000,
        device_lost: None,
        lost_inconclusive: None,
        resumed_from: None,
        checkpoint: None,
        checkpoints: None,
        resume: None,
        verify: None,
    }
}

/// A full surface scan of a `size`-byte hard disk: `points` curve bins (rate falling from the outer to the inner
/// tracks, with a few weak spots), `slow` slow commands, `failed` failed ones, one series entry per second.
pub fn scan(
    seed: u64,
    size: u64,
    points: usize,
    slow: usize,
    failed: usize,
    rw: Direction,
) -> ScanRecord {
    let mut rng = Rng::new(seed);
    let block = 65536u64;
    let commands = size.div_ceil(block);
    let write = rw == Direction::Write;
    let (start_rate, end_rate) = if write { (190.0, 92.0) } else { (205.0, 98.0) };
    let bin = size / points as u64;
    let mut curve = Vec::with_capacity(points);
    let mut busy_ns = 0f64;
    for i in 0..points {
        let pos = i as f64 / points as f64;
        let mut rate =
            start_rate + (end_rate - start_rate) * pos.powf(1.3) + rng.next() * 4.0 - 2.0;
        if rng.next() < 0.01 {
            rate *= 0.4 + 0.4 * rng.next();
        }
        busy_ns += bin as f64 / rate * 1e3;
        let min_ns = (block as f64 / rate * 1e3 * 0.8) as u64;
        curve.push(CurvePoint {
            offset: i as u64 * bin,
            length: bin,
            mb_per_s: (rate * 10.0).round() / 10.0,
            min_ns,
            max_ns: min_ns * (3 + (rng.next() * 40.0) as u64),
            min_mb_per_s: rate * 0.97,
            max_mb_per_s: rate * 1.03,
        });
    }
    let rates: Vec<f64> = curve.iter().map(|c| c.mb_per_s).collect();
    let duration_ns = busy_ns as u64;
    let (summary, bands, histogram) = latency(
        &mut rng,
        commands,
        block as f64 / 150.0 * 1e3,
        failed as u64,
    );
    let slow_list: Vec<Event> = (0..slow)
        .map(|i| {
            let offset = (size / slow.max(1) as u64 * i as u64) / 4096 * 4096;
            Event {
                offset,
                lba: offset / 512,
                latency_ns: 50_000_000 + (rng.next() * 4e8) as u64,
                errno: None,
            }
        })
        .collect();
    let failed_list: Vec<Event> = (0..failed)
        .map(|i| {
            let offset = (size / 3 + i as u64 * 65536) / 4096 * 4096;
            Event {
                offset,
                lba: offset / 512,
                latency_ns: 2_000_000_000,
                errno: Some(5),
            }
        })
        .collect();
    let seconds = (duration_ns / 1_000_000_000).max(1);
    let series: Vec<SeriesPoint> = (1..=seconds)
        .map(|s| {
            let r = rates[((s - 1) * points as u64 / seconds) as usize];
            SeriesPoint {
                t_ns: s * 1_000_000_000,
                bytes: (r * 1e6) as u64,
                commands: (r * 1e6 / block as f64) as u64,
                mb_per_s: r,
                iops: r * 1e6 / block as f64,
                p99_ns: 900_000 + (rng.next() * 2e5) as u64,
            }
        })
        .collect();
    let n5 = (points / 20).max(1);
    let head: f64 = rates[..n5].iter().sum::<f64>() / n5 as f64;
    let tail: f64 = rates[points - n5..].iter().sum::<f64>() / n5 as f64;
    let mut r = scan_record(Kind::Scan, seed, size, write);
    r.points = points;
    r.bytes = size - failed as u64 * block;
    r.commands = commands;
    r.failed_commands = failed as u64;
    r.duration_ns = duration_ns;
    r.mb_per_s = RateSummary {
        mean: size as f64 / busy_ns * 1e3,
        min: rates.iter().cloned().fold(f64::MAX, f64::min),
        max: rates.iter().cloned().fold(0.0, f64::max),
        without_errors: None,
        error_ns: None,
    };
    r.zone_ratio = Some(tail / head);
    r.curve = curve;
    r.latency = summary;
    r.bands = bands;
    r.histogram = histogram;
    r.slow = slow_list;
    r.slow_total = slow as u64;
    r.failed = failed_list;
    r.failed_total = failed as u64;
    r.failed_extents = r.failed_extents_or_derived().into_owned();
    r.slow_regions = r.slow_regions_or_derived().into_owned();
    r.series = series;
    r
}

/// A quick scan: `regions` regions spread over the device, a short read at each.
pub fn quick_scan(seed: u64, size: u64, regions: usize) -> ScanRecord {
    let mut rng = Rng::new(seed);
    let list: Vec<Region> = (0..regions)
        .map(|i| {
            let pos = i as f64 / regions as f64;
            Region {
                index: i as u32,
                offset: size / regions as u64 * i as u64,
                bytes: 64 << 20,
                mb_per_s: 200.0 - 100.0 * pos + rng.next() * 6.0,
                first_ns: 4_000_000 + (rng.next() * 8e6) as u64,
            }
        })
        .collect();
    let commands = regions as u64 * 64;
    let (summary, bands, histogram) = latency(&mut rng, commands, 400_000.0, 0);
    let mut r = scan_record(Kind::QuickScan, seed, size, false);
    let rates: Vec<f64> = list.iter().map(|r| r.mb_per_s).collect();
    r.mb_per_s.mean = rates.iter().sum::<f64>() / rates.len().max(1) as f64;
    r.dwell_ns = Some(3_000_000_000);
    r.commands = commands;
    r.bytes = commands * 65536;
    r.regions = Some(list);
    r.latency = summary;
    r.bands = bands;
    r.histogram = histogram;
    r
}

/// A CrystalDiskMark-style bench: SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1, read and write.
pub fn bench(seed: u64) -> BenchRecord {
    let mut rng = Rng::new(seed);
    let mut tests = Vec::new();
    for (name, bs, qd, base) in [
        ("SEQ1M Q8T1", 1u64 << 20, 8u32, 3400.0),
        ("SEQ1M Q1T1", 1 << 20, 1, 2100.0),
        ("RND4K Q32T1", 4096, 32, 650.0),
        ("RND4K Q1T1", 4096, 1, 70.0),
    ] {
        for rw in [Direction::Read, Direction::Write] {
            let mb =
                base * if rw == Direction::Write { 0.8 } else { 1.0 } * (0.95 + 0.1 * rng.next());
            let (summary, _, histogram) = latency(
                &mut rng,
                100_000,
                8e9 / mb * qd as f64 / 8.0 * bs as f64 / 1e6,
                0,
            );
            let runs: Vec<RunValues> = (0..5)
                .map(|_| {
                    let m = mb * (0.97 + 0.06 * rng.next());
                    RunValues {
                        mb_per_s: m,
                        iops: m * 1e6 / bs as f64,
                        duration_ns: 5_000_000_000,
                        commands: (m * 5e6 / bs as f64) as u64,
                        errors: 0,
                        p50_ns: summary.percentiles_ns.get("50").copied().unwrap_or(0),
                        p99_ns: summary.percentiles_ns.get("99").copied().unwrap_or(0),
                        cpu_ns_per_command: 1500.0,
                    }
                })
                .collect();
            tests.push(TestResult {
                name: name.into(),
                rw,
                read_pct: None,
                load: Load {
                    block_size: bs,
                    queue_depth: qd,
                    threads: 1,
                    engine: EngineKind::IoUring,
                    reap: Reap::Sleep,
                },
                mb_per_s: mb,
                iops: mb * 1e6 / bs as f64,
                mean_mb_per_s: mb,
                stddev_mb_per_s: mb * 0.01,
                mean_iops: mb * 1e6 / bs as f64,
                latency: summary,
                histogram: Some(histogram),
                submit_latency: Histogram::new().summary(),
                completion_latency: None,
                cpu_ns_per_command: 1500.0,
                errors: 0,
                runs,
            });
        }
    }
    BenchRecord {
        header: header(Kind::Bench, seed, 1 << 40),
        workload: workload(1 << 30),
        profile: "default".into(),
        runs: 5,
        duration_ns: 5_000_000_000,
        pause_ns: 0,
        tests,
    }
}

/// A capacity probe of a device of `nominal` bytes that kept its data up to `real` (the whole
/// device when `real` is `nominal`; a fake that drops writes past it otherwise).
pub fn capacity(seed: u64, nominal: u64, real: u64) -> drivescope_record::CapacityRecord {
    use drivescope_record::CapacityClass;
    let class = if real >= nominal {
        CapacityClass::Genuine
    } else {
        CapacityClass::Drop
    };
    drivescope_record::CapacityRecord {
        header: header(Kind::Capacity, seed, nominal),
        block_size: 4096,
        nominal,
        real_capacity: Some(real.min(nominal)),
        class: Some(class),
        modulus: None,
        cache: None,
        flush_bytes: 64 << 20,
        blocks_written: 1200,
        bytes_written: 1200 * 4096,
        bytes_read: 1200 * 4096,
        rounds: 3,
        costs: None,
        run_blocks: 0,
        scattered_blocks: 0,
        modelled_genuine_ns: 0,
        modelled_worst_ns: 0,
        evidence: Vec::new(),
        backup: None,
        restored: true,
        restore_mismatches: 0,
        destructive: false,
        interrupted: false,
        duration_ns: 4_000_000_000,
    }
}

/// A steady-state run of the tracked cell whose rounds measured `values` (IOPS), steady over its
/// last five rounds.
pub fn steady(seed: u64, values: &[f64]) -> drivescope_record::SteadyRecord {
    use drivescope_record::{
        SteadyCell, SteadyCellSpec, SteadyPrecondition, SteadyPurge, SteadyRound, SteadyState,
        SteadyTest, SteadyVerdict, SteadyWindow,
    };
    let size = 64u64 << 20;
    let mut written = 2 * size;
    let rounds: Vec<SteadyRound> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let bytes = (v * 0.5) as u64 * 4096;
            written += bytes;
            SteadyRound {
                round: i as u32 + 1,
                cells: vec![SteadyCell {
                    read_pct: 0,
                    block_size: 4096,
                    iops: v,
                    mb_per_s: v * 4096.0 / 1e6,
                    mean_ns: 32e9 / v,
                    p99_ns: (64e9 / v) as u64,
                    p999_ns: (80e9 / v) as u64,
                    p9999_ns: (85e9 / v) as u64,
                    max_ns: (90e9 / v) as u64,
                    bytes_written: bytes,
                    errors: 0,
                }],
                tracked: v,
                total_bytes_written: written,
                duration_ns: 500_000_000,
            }
        })
        .collect();
    let n = values.len();
    let w = &values[n.saturating_sub(5)..];
    let average = w.iter().sum::<f64>() / w.len() as f64;
    let range =
        w.iter().cloned().fold(f64::MIN, f64::max) - w.iter().cloned().fold(f64::MAX, f64::min);
    drivescope_record::SteadyRecord {
        header: header(Kind::Steady, seed, size),
        workload: Workload {
            size,
            data: DataPattern::Random,
            direct: true,
            interrupted: false,
            test_file: None,
        },
        test: SteadyTest::Iops,
        conformant: false,
        not_conformant: vec!["a tracked-cell-only matrix".into()],
        purge: SteadyPurge {
            method: Some("discard".into()),
            ..SteadyPurge::default()
        },
        precondition: SteadyPrecondition {
            planned_bytes: 2 * size,
            written_bytes: 2 * size,
            block_size: 128 << 10,
            duration_ns: 2_000_000_000,
            mb_per_s: 67.1,
        },
        matrix: vec![SteadyCellSpec {
            read_pct: 0,
            block_size: 4096,
        }],
        tracked: "RND4K write IOPS".into(),
        round_time_ns: 500_000_000,
        queue_depth: 32,
        threads: 1,
        engine: drivescope_record::EngineKind::Auto,
        rounds,
        verdict: SteadyVerdict {
            state: SteadyState::Reached,
            round: Some(n as u32),
            window: Some(SteadyWindow {
                first_round: (n - w.len()) as u32 + 1,
                last_round: n as u32,
                values: w.to_vec(),
                average,
                range,
                slope: 0.0,
                excursion: 0.0,
                range_ratio: range / average,
                range_allowed: 0.2,
                excursion_ratio: 0.0,
                excursion_allowed: 0.1,
            }),
            why: format!("steady at round {n}"),
        },
        steady_value: Some(average),
        idle_recovery: None,
        write_amplification: None,
        duration_ns: 5_000_000_000,
        resume: None,
        checkpoint: None,
    }
}

/// A queue-depth × threads sweep of RND4K reads.
pub fn sweep(seed: u64) -> SweepRecord {
    let mut rng = Rng::new(seed);
    let mut cells = Vec::new();
    for threads in [1u32, 2, 4, 8] {
        for qd in [1u32, 2, 4, 8, 16, 32, 64] {
            let outstanding = (qd * threads) as f64;
            let iops =
                14_000.0 * outstanding / (1.0 + outstanding / 40.0) * (0.95 + 0.1 * rng.next());
            cells.push(SweepCell {
                queue_depth: qd,
                threads,
                engine: EngineKind::IoUring,
                reap: Reap::Sleep,
                iops,
                mb_per_s: iops * 4096.0 / 1e6,
                p50_ns: (outstanding / iops * 1e9) as u64,
                p99_ns: (outstanding / iops * 1e9 * 2.5) as u64,
                errors: 0,
            });
        }
    }
    let best = cells
        .iter()
        .max_by(|a, b| a.iops.total_cmp(&b.iops))
        .cloned();
    SweepRecord {
        header: header(Kind::Sweep, seed, 1 << 40),
        workload: workload(1 << 30),
        pattern: "RND4K".into(),
        rw: Direction::Read,
        block_size: 4096,
        duration_ns: 3_000_000_000,
        queueing_gain: Some(8.4),
        best,
        cells,
    }
}

/// A sustained-write soak: SLC cache runs out after a fifth of the run, `seconds` one-second samples.
pub fn soak(seed: u64, seconds: u64) -> SoakRecord {
    let mut rng = Rng::new(seed);
    let step_at = seconds / 5;
    let series: Vec<SeriesPoint> = (1..=seconds)
        .map(|s| {
            let base = if s <= step_at { 3100.0 } else { 980.0 };
            let mb = base * (0.96 + 0.08 * rng.next());
            SeriesPoint {
                t_ns: s * 1_000_000_000,
                bytes: (mb * 1e6) as u64,
                commands: mb as u64,
                mb_per_s: mb,
                iops: mb,
                p99_ns: (8e9 / mb * 30.0) as u64,
            }
        })
        .collect();
    let bytes: u64 = series.iter().map(|p| p.bytes).sum();
    SoakRecord {
        header: header(Kind::Soak, seed, 1 << 40),
        workload: workload(1 << 30),
        test: "SEQ1M Q8T1".into(),
        rw: Direction::Write,
        load: Load {
            block_size: 1 << 20,
            queue_depth: 8,
            threads: 1,
            engine: EngineKind::IoUring,
            reap: Reap::Sleep,
        },
        duration_ns: seconds * 1_000_000_000,
        interval_ns: 1_000_000_000,
        bytes,
        commands: bytes >> 20,
        errors: 0,
        mb_per_s: bytes as f64 / seconds as f64 / 1e6,
        iops: (bytes >> 20) as f64 / seconds as f64,
        latency: Histogram::new().summary(),
        series,
        temperature: None,
        steady_mb_per_s: 980.0,
        first_to_steady: Some(3100.0 / 980.0),
        steps: vec![Step {
            t_ns: step_at * 1_000_000_000,
            from_mb_per_s: 3100.0,
            to_mb_per_s: 980.0,
            change: Some(980.0 / 3100.0 - 1.0),
        }],
        resumed: vec![],
        resume: None,
        checkpoint: None,
    }
}

/// An extent of `sectors` failed 512-byte sectors from `first_lba` on, with EIO.
pub fn failed_extent(first_lba: u64, sectors: u64) -> drivescope_record::FailedExtent {
    drivescope_record::FailedExtent {
        offset: first_lba * 512,
        length: sectors * 512,
        first_lba,
        last_lba: first_lba + sectors - 1,
        errno: 5,
        count: sectors,
        ..Default::default()
    }
}

/// One run of every kind, as a demo report or a test of every chart shows them: a read and a write scan of one
/// disk and a scan of another, a quick scan, two benches, a sweep and a soak.
pub fn gallery() -> Vec<drivescope_record::Document> {
    vec![
        scan(1, 1 << 40, 1000, 200, 3, Direction::Read).into(),
        scan(1, 1 << 40, 1000, 20, 0, Direction::Write).into(),
        scan(2, 1 << 40, 1000, 5, 0, Direction::Read).into(),
        quick_scan(3, 1 << 40, 256).into(),
        bench(4).into(),
        bench(5).into(),
        sweep(6).into(),
        soak(7, 600).into(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_is_consistent() {
        let d = scan(1, 4 << 40, 1000, 100, 3, Direction::Read);
        assert_eq!(d.curve.len(), 1000);
        let bands: u64 = d.bands.iter().map(|b| b.count).sum();
        assert_eq!(bands, d.commands);
        let hist: u64 = d.histogram.buckets.iter().map(|b| b.count).sum();
        assert_eq!(hist + 3, d.commands);
        assert_eq!(d.slow.len(), 100);
        // A sample reads back through its document as the same kind of record.
        let doc = drivescope_record::Document::from(d);
        let back = drivescope_record::Document::from_value(doc.to_value()).unwrap();
        assert!(matches!(back, drivescope_record::Document::Scan(_)));
        assert_eq!(back.to_value(), doc.to_value());
    }
}
