//! The mapping from drivescope's records to fio's json+ shape: bins, percentile keys, units, jobs.

use super::latency::{bins, Lat, FIO_PERCENTILES, FIO_TOP_BIN_NS};
use super::section::{Io, Samples, Section};
use super::*;
use drivescope_record::{
    BenchRecord, DataPattern, Direction, EngineKind, InfoRecord, Reap, RunValues, SweepCell,
    SweepRecord, TargetInfo, TargetType, TestResult, Workload,
};
use drivescope_stats::Histogram;
use serde_json::Value;

/// Latencies spread over nine decades, a few above fio's top bin, in a fixed pseudo-random order.
fn spread() -> Vec<u64> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut v: Vec<u64> = (0..20_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // 10 ns .. ~10 s, log-uniform
            let e = (x % 9_000) as f64 / 1000.0;
            10f64.powf(1.0 + e) as u64
        })
        .collect();
    v.extend([20_000_000_000, 45_000_000_000, 61_000_000_000]);
    v
}

fn hist(values: &[u64]) -> Histogram {
    let mut h = Histogram::new();
    for &v in values {
        h.record(v);
    }
    h
}

/// The value at quantile q as a reader of the bins finds it: the first bin where the running count reaches
/// ceil(q * N).
fn reader_quantile(bins: &Ordered<u64>, q: f64) -> u64 {
    let n: u64 = bins.0.iter().map(|b| b.1).sum();
    let rank = ((q * n as f64).ceil() as u64).max(1);
    let mut seen = 0;
    for (k, c) in &bins.0 {
        seen += c;
        if seen >= rank {
            return k.parse().unwrap();
        }
    }
    panic!("rank {rank} beyond {n}");
}

#[test]
fn bins_hold_every_count_at_the_bucket_midpoints() {
    let values = spread();
    let h = hist(&values);
    let out = h.to_out();
    let b = bins(&out);
    assert_eq!(b.0.iter().map(|b| b.1).sum::<u64>(), h.count());
    let keys: Vec<u64> = b.0.iter().map(|(k, _)| k.parse().unwrap()).collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "increasing keys");
    assert_eq!(*keys.last().unwrap(), FIO_TOP_BIN_NS);
    let above = values.iter().filter(|&&v| v >= FIO_TOP_BIN_NS).count() as u64;
    assert!(
        b.0.last().unwrap().1 >= above,
        "larger values fold into the top bin"
    );
    // every other bin is its bucket's midpoint, with the bucket's count
    for (k, c) in &b.0[..b.0.len() - 1] {
        let k: u64 = k.parse().unwrap();
        let bucket = out
            .buckets
            .iter()
            .find(|x| (x.low_ns..x.high_ns).contains(&k))
            .expect("a bin lies in its bucket");
        let mid = bucket.low_ns + (bucket.high_ns - bucket.low_ns - 1) / 2;
        assert_eq!(k, mid, "the bucket's midpoint");
        assert_eq!(*c, bucket.count);
    }
}

#[test]
fn buckets_no_histogram_writes_give_bins() {
    use drivescope_stats::{BucketOut, HistogramOut};
    let b = |low_ns, high_ns, count| BucketOut {
        low_ns,
        high_ns,
        count,
    };
    // ending before they start, or holding more than u64 together (a damaged document)
    let out = HistogramOut {
        unit: "ns".into(),
        sub_buckets: 64,
        buckets: vec![b(5000, 10, 2), b(u64::MAX, 0, u64::MAX), b(u64::MAX, 1, 1)],
    };
    let got = bins(&out);
    assert_eq!(
        got.0,
        [("5000".into(), 2), (FIO_TOP_BIN_NS.to_string(), u64::MAX)]
    );
    let lat = Lat::with_histogram(&Histogram::from_out(&out).summary(), &out);
    assert!(lat.percentile.is_some());
}

#[test]
fn no_commands_no_bins() {
    let h = Histogram::new();
    let lat = serde_json::to_value(Lat::with_histogram(&h.summary(), &h.to_out())).unwrap();
    assert!(lat.get("bins").is_none(), "{lat}");
    assert_eq!(lat["N"], 0);
}

#[test]
fn percentiles_carry_fios_keys_and_our_values() {
    let values: Vec<u64> = spread()
        .into_iter()
        .filter(|&v| v < 10_000_000_000)
        .collect();
    let h = hist(&values);
    let s = h.summary();
    let lat = Lat::with_histogram(&s, &h.to_out());
    let pct = lat.percentile.as_ref().unwrap();
    let keys: Vec<&str> = pct.0.iter().map(|(k, _)| k.as_str()).collect();
    let fio: Vec<&str> = FIO_PERCENTILES.iter().map(|p| p.0).collect();
    assert_eq!(keys, fio);
    for (ours, fio) in [
        ("50", "50.000000"),
        ("90", "90.000000"),
        ("99", "99.000000"),
        ("99.9", "99.900000"),
        ("99.99", "99.990000"),
    ] {
        let v = pct.0.iter().find(|(k, _)| k == fio).unwrap().1;
        assert_eq!(v, s.percentiles_ns[ours], "p{ours}");
    }
    let mut sorted = values.clone();
    sorted.sort_unstable();
    let bins = lat.bins.as_ref().unwrap();
    for (key, q) in FIO_PERCENTILES {
        let exact = sorted[((q * sorted.len() as f64).ceil() as usize).max(1) - 1] as f64;
        let got = pct.0.iter().find(|(k, _)| k == key).unwrap().1 as f64;
        assert!(
            (got - exact).abs() <= exact / 128.0 + 0.5,
            "{key}: {got} vs {exact}"
        );
        // a reader of the bins finds the same value (ours may be clamped to the exact min and max)
        let read = reader_quantile(bins, q) as f64;
        if got > s.min_ns as f64 && got < s.max_ns as f64 {
            assert_eq!(read, got, "{key}");
        }
        assert!(
            (read - got).abs() <= got / 128.0 + 0.5,
            "{key}: bins say {read}, we say {got}"
        );
    }
    assert_eq!(
        (lat.n, lat.min, lat.max),
        (s.count, Some(s.min_ns), Some(s.max_ns))
    );
    // Without a histogram: the summary's own percentiles under fio's keys, in order, and no bins.
    let plain = Lat::summary(&s);
    let keys: Vec<&str> = plain
        .percentile
        .as_ref()
        .unwrap()
        .0
        .iter()
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(
        keys,
        [
            "50.000000",
            "90.000000",
            "99.000000",
            "99.900000",
            "99.990000"
        ]
    );
    assert!(plain.bins.is_none());
}

#[test]
fn rates_in_fios_units() {
    // 1000 commands of 10 000 bytes in 1.5 s
    let s = Section::measured(
        Io {
            bytes: 10_000_000,
            ios: 1000,
            duration_ns: 1_500_000_000,
        },
        None,
        Lat::zero(),
        None,
        Samples::from_rates(&[(1.024, 100.0), (2.048, 300.0)]),
    );
    assert_eq!(s.bw_bytes, 6_666_666);
    assert_eq!(s.bw, 6_666_666 / 1024, "bw is KiB/s");
    assert_eq!(s.io_kbytes, 9765);
    assert_eq!(s.runtime, 1500, "runtime is ms");
    assert!((s.iops - 1000.0 / 1.5).abs() < 1e-9);
    // 1.024 MB/s is 1000 KiB/s
    assert_eq!((s.samples.bw_min, s.samples.bw_max), (1000, 2000));
    assert!((s.samples.bw_mean - 1500.0).abs() < 1e-9);
    assert!((s.samples.bw_dev - 707.106_781).abs() < 1e-5, "sample sd");
    assert_eq!(
        (s.samples.iops_min, s.samples.iops_max, s.samples.bw_samples),
        (100, 300, 2)
    );
    let z = serde_json::to_value(Section::zero()).unwrap();
    for key in ["io_bytes", "bw", "bw_bytes", "runtime", "total_ios"] {
        assert_eq!(z[key], 0, "{key}");
    }
    for lat in ["slat_ns", "clat_ns", "lat_ns"] {
        assert_eq!(z[lat]["N"], 0, "{lat}");
    }
}

fn header(kind: Kind) -> drivescope_record::Header {
    let mut h = drivescope_record::Header::new(
        kind,
        TargetInfo {
            path: "/dev/loop7".into(),
            kind: TargetType::Block,
            size: 1 << 30,
            logical_block_size: 512,
        },
        "host".into(),
        "2026-11-23T11:09:25Z".into(),
    );
    h.ended_at = "2026-11-23T11:10:00Z".into();
    h
}

fn workload() -> Workload {
    Workload {
        size: 1 << 30,
        data: DataPattern::Random,
        direct: true,
        interrupted: false,
        test_file: None,
    }
}

fn test_result(name: &str, rw: Direction, values: &[u64], with_histogram: bool) -> TestResult {
    let h = hist(values);
    let runs: Vec<RunValues> = [0.4, 0.6]
        .iter()
        .map(|share| RunValues {
            mb_per_s: 100.0,
            iops: 10.0,
            duration_ns: 1_000_000_000,
            commands: (values.len() as f64 * share) as u64,
            errors: 0,
            p50_ns: 0,
            p99_ns: 0,
            cpu_ns_per_command: 0.0,
        })
        .collect();
    TestResult {
        name: name.into(),
        rw,
        read_pct: (rw == Direction::Mix).then_some(70),
        load: drivescope_record::Load {
            block_size: 4096,
            queue_depth: 8,
            threads: 1,
            engine: EngineKind::IoUring,
            reap: Reap::Sleep,
        },
        mb_per_s: 100.0,
        iops: 10.0,
        mean_mb_per_s: 100.0,
        stddev_mb_per_s: 0.0,
        mean_iops: 10.0,
        latency: h.summary(),
        histogram: with_histogram.then(|| h.to_out()),
        submit_latency: hist(&[100, 200]).summary(),
        completion_latency: None,
        cpu_ns_per_command: 0.0,
        errors: 0,
        runs,
    }
}

#[test]
fn one_job_per_bench_test_in_its_direction() {
    let values: Vec<u64> = (1..=1000).map(|i| i * 1000).collect();
    let b = BenchRecord {
        header: header(Kind::Bench),
        workload: workload(),
        profile: "custom".into(),
        runs: 2,
        duration_ns: 1_000_000_000,
        pause_ns: 0,
        tests: vec![
            test_result("SEQ1M Q8T1", Direction::Read, &values, true),
            test_result("RND4K Q8T1", Direction::Write, &values, true),
            test_result("RND4K Q8T1", Direction::Mix, &values, true),
            test_result("SEQ1M Q8T1", Direction::Read, &values, false),
        ],
    };
    let doc = Document::from(b);
    let fio = serde_json::to_value(document(&doc).unwrap()).unwrap();
    assert_eq!(fio["fio version"], "drivescope-0.1.0");
    assert_eq!(fio["timestamp"], 1_795_432_200u64);
    assert_eq!(fio["time"], "Mon Nov 23 11:10:00 2026");
    assert_eq!(fio["global options"]["filename"], "/dev/loop7");
    let jobs = fio["jobs"].as_array().unwrap();
    let names: Vec<&str> = jobs
        .iter()
        .map(|j| j["jobname"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "SEQ1M Q8T1 read",
            "RND4K Q8T1 write",
            "RND4K Q8T1 mix",
            "SEQ1M Q8T1 read"
        ]
    );
    let rw: Vec<&str> = jobs
        .iter()
        .map(|j| j["job options"]["rw"].as_str().unwrap())
        .collect();
    assert_eq!(rw, ["read", "randwrite", "randrw", "read"]);
    assert_eq!(jobs[2]["job options"]["rwmixread"], "70");
    let n = |j: &Value, d: &str| j[d]["clat_ns"]["N"].as_u64().unwrap();
    assert_eq!((n(&jobs[0], "read"), n(&jobs[0], "write")), (1000, 0));
    assert_eq!((n(&jobs[1], "read"), n(&jobs[1], "write")), (0, 1000));
    assert_eq!(
        (n(&jobs[2], "read"), n(&jobs[2], "write")),
        (1000, 0),
        "a mix is in read"
    );
    let read = &jobs[0]["read"];
    assert_eq!(read["total_ios"], 1000);
    assert_eq!(read["io_bytes"], 1000 * 4096);
    assert_eq!(read["runtime"], 2000, "both runs");
    assert_eq!(read["slat_ns"]["N"], 2);
    assert!(read.get("lat_ns").is_none(), "io_uring: lat not known");
    let bins: u64 = read["clat_ns"]["bins"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(bins, 1000);
    // a test stored before histograms: percentiles, no bins
    assert!(jobs[3]["read"]["clat_ns"].get("bins").is_none());
    let p99 = hist(&values).summary().percentiles_ns["99"];
    assert_eq!(jobs[3]["read"]["clat_ns"]["percentile"]["99.000000"], p99);
    for j in jobs {
        for d in ["read", "write", "trim"] {
            assert!(j[d].is_object(), "fio's readers need {d}");
        }
    }
}

#[test]
fn sweep_cells_have_rates_and_two_percentiles() {
    let cell = |qd, iops| SweepCell {
        queue_depth: qd,
        threads: 2,
        engine: EngineKind::IoUring,
        reap: Reap::Sleep,
        iops,
        mb_per_s: iops * 4096.0 / 1e6,
        p50_ns: 80_000,
        p99_ns: 200_000,
        errors: 0,
    };
    let s = SweepRecord {
        header: header(Kind::Sweep),
        workload: workload(),
        pattern: "RND4K".into(),
        rw: Direction::Read,
        block_size: 4096,
        duration_ns: 2_000_000_000,
        cells: vec![cell(1, 10_000.0), cell(16, 90_000.0)],
        queueing_gain: Some(9.0),
        best: None,
    };
    let fio = serde_json::to_value(document(&Document::from(s)).unwrap()).unwrap();
    let j = &fio["jobs"][1];
    assert_eq!(j["jobname"], "RND4K Q16T2 read");
    assert_eq!(j["groupid"], 1);
    assert_eq!(j["read"]["total_ios"], 180_000);
    assert_eq!(j["read"]["bw_bytes"], 90_000 * 4096);
    assert_eq!(j["read"]["clat_ns"]["percentile"]["99.000000"], 200_000);
    assert!(
        j["read"]["clat_ns"].get("mean").is_none(),
        "not kept by a sweep"
    );
}

#[test]
fn documents_without_jobs_are_refused() {
    let e = document(&Document::from(InfoRecord::of_devices(vec![]))).unwrap_err();
    assert_eq!(e.kind, Kind::Info);
}
