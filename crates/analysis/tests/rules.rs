//! The rules over records built from the real record types: each finding where its evidence is, and none where
//! it is not.

use drivescope_analysis::findings;
use drivescope_record::{
    Confidence, Direction, Document, FindingCode, Step, SweepRecord, TargetType,
};
use drivescope_report::sample;

fn codes(doc: impl Into<Document>) -> Vec<(FindingCode, Confidence)> {
    findings(&doc.into())
        .into_iter()
        .map(|f| (f.code, f.confidence))
        .collect()
}

/// The sample sweep with every cell at 150 IOPS and a hair more per queue slot: no queueing gain.
fn flat_sweep() -> SweepRecord {
    let mut s = sample::sweep(1);
    for c in &mut s.cells {
        c.iops = 150.0 * (1.0 + c.queue_depth as f64 / 1000.0);
        c.mb_per_s = c.iops * 4096.0 / 1e6;
    }
    s
}

#[test]
fn a_sweep_that_gains_from_its_queue_says_nothing_one_that_does_not_says_so() {
    assert!(codes(sample::sweep(1)).is_empty(), "the sample gains 8×");
    let mut flat = flat_sweep();
    let f = findings(&flat.clone().into());
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].code, FindingCode::NoQueueing);
    assert_eq!(f[0].confidence, Confidence::High);
    assert!((f[0].number("gain").unwrap() - 1.064 / 1.001).abs() < 1e-3);
    assert!(
        f[0].claim.starts_with("RND4K Q64 / Q1 = 1.06"),
        "{}",
        f[0].claim
    );
    // Sequential sweeps are served in order whatever the queue: nothing to say.
    flat.pattern = "SEQ128K".into();
    flat.block_size = 128 << 10;
    assert!(codes(flat).is_empty());
}

#[test]
fn a_sweep_without_a_clean_q1_cell_says_nothing() {
    let mut s = flat_sweep();
    s.cells.retain(|c| c.queue_depth != 1);
    assert!(codes(s).is_empty());
    let mut s = flat_sweep();
    for c in s.cells.iter_mut().filter(|c| c.queue_depth == 1) {
        c.errors = 3;
    }
    assert!(codes(s).is_empty());
}

/// The sample bench with every test's rate set by `rate(name, queue_depth)`, MB/s.
fn bench_with(rate: impl Fn(&str, u32) -> f64) -> drivescope_record::BenchRecord {
    let mut b = sample::bench(1);
    for t in &mut b.tests {
        t.mb_per_s = rate(&t.name, t.load.queue_depth);
        t.iops = t.mb_per_s * 1e6 / t.load.block_size as f64;
    }
    b
}

#[test]
fn a_bench_on_a_queueing_ssd_has_no_findings() {
    assert!(codes(sample::bench(1)).is_empty());
}

#[test]
fn a_bench_whose_random_reads_gain_nothing_from_the_queue() {
    // A hard disk behind a bridge that cannot queue: sequential 95 (a rate no usual link delivers, so no link is
    // named), random 4K 0.4 MB/s at any depth.
    let b = bench_with(|name, _| if name.starts_with("SEQ") { 95.0 } else { 0.4 });
    assert_eq!(codes(b), vec![(FindingCode::NoQueueing, Confidence::High)]);
    // Random reads that reach the path's bandwidth at depth are held back by it, not by queueing.
    let b = bench_with(|name, qd| match (name.starts_with("SEQ"), qd) {
        (true, _) => 400.0,
        (false, 1) => 380.0,
        (false, _) => 395.0,
    });
    assert!(codes(b).iter().all(|c| c.0 != FindingCode::NoQueueing));
}

#[test]
fn a_flat_sequential_cap_is_named_after_the_usual_link_it_matches() {
    let b = bench_with(|name, qd| {
        if name.starts_with("SEQ") {
            117.5 + qd as f64 * 0.05
        } else {
            20.0 * qd as f64
        }
    });
    let f = findings(&b.into());
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].code, FindingCode::LinkCap);
    assert!(
        f[0].claim
            .contains("matches 1 GbE (105–123 MB/s in practice)"),
        "{}",
        f[0].claim
    );
    // The ceiling is the rate the reads reached; the link's range is beside it.
    let ceiling = f[0].number("ceiling_mb_per_s").unwrap();
    assert!((117.5..=118.0).contains(&ceiling), "{ceiling}");
    assert_eq!(f[0].number("link_low_mb_per_s"), Some(105.0));
    assert_eq!(f[0].number("link_high_mb_per_s"), Some(123.0));
    // Only one block size was tried: flat over queue depths alone is weak evidence.
    assert_eq!(f[0].confidence, Confidence::Low);
    // A flat rate no usual link delivers, read at a few positions only (an SSD's 480 MB/s): a bench cannot tell a
    // ceiling from the media's own rate there, so nothing is claimed.
    let b = bench_with(|name, qd| {
        if name.starts_with("SEQ") {
            480.0
        } else {
            20.0 * qd as f64
        }
    });
    assert!(codes(b).is_empty());
    // Rates that differ by queue depth are not capped, even when their mean is a usual ceiling.
    let b = bench_with(|name, qd| match (name.starts_with("SEQ"), qd) {
        (true, 1) => 106.0,
        (true, _) => 130.0,
        (false, _) => 20.0 * qd as f64,
    });
    assert!(codes(b).is_empty());
}

#[test]
fn zones_of_a_hard_disk_and_a_rotating_disk_without_them() {
    let hdd = sample::scan(1, 1 << 40, 1000, 0, 0, Direction::Read);
    let f = findings(&hdd.clone().into());
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].code, FindingCode::Zones);
    assert!(
        f[0].claim.contains("typical of a hard disk"),
        "{}",
        f[0].claim
    );
    let ratio = f[0].number("zone_ratio").unwrap();
    assert!((ratio - hdd.zone_ratio.unwrap()).abs() < 1e-12);

    let mut flat = hdd.clone();
    for p in &mut flat.curve {
        p.mb_per_s = 200.0;
    }
    flat.zone_ratio = Some(1.0);
    let f = findings(&flat.clone().into());
    assert_eq!(f.len(), 1, "the sample disk rotates: {f:?}");
    assert!(
        f[0].claim.contains("as fast as the outer"),
        "{}",
        f[0].claim
    );
    // The same curves scanned through a file say nothing: a file's offsets are not positions.
    let mut file = flat.clone();
    file.header.target.kind = TargetType::File;
    assert!(codes(file).is_empty());
    let mut file = hdd.clone();
    file.header.target.kind = TargetType::File;
    assert!(codes(file).is_empty());
    // The same flat curve on a device that does not rotate (or one not known to) says nothing.
    flat.header.device = None;
    assert!(codes(flat).is_empty());
    // Nor does a write scan or a quick scan.
    let mut w = hdd;
    w.write = true;
    assert!(codes(w).is_empty());
}

#[test]
fn a_write_soak_that_steps_down_is_a_write_burst() {
    let s = sample::soak(1, 300);
    let step_t = s.steps[0].t_ns;
    let written: u64 = s
        .series
        .iter()
        .filter(|p| p.t_ns <= step_t)
        .map(|p| p.bytes)
        .sum();
    let f = findings(&s.into());
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].code, FindingCode::WriteBurst);
    assert_eq!(f[0].confidence, Confidence::High);
    assert_eq!(f[0].number("burst_mb_per_s"), Some(3100.0));
    assert_eq!(f[0].number("sustained_mb_per_s"), Some(980.0));
    assert_eq!(f[0].number("written_before_step"), Some(written as f64));
}

#[test]
fn a_soak_that_starts_at_half_speed_is_a_warm_up_and_a_read_soak_has_no_burst() {
    let mut s = sample::soak(2, 120);
    s.rw = Direction::Read;
    for p in &mut s.series {
        p.mb_per_s = if p.t_ns <= 20_000_000_000 {
            100.0
        } else {
            200.0
        };
    }
    s.steady_mb_per_s = 200.0;
    s.steps = vec![Step {
        t_ns: 20_000_000_000,
        from_mb_per_s: 100.0,
        to_mb_per_s: 200.0,
        change: Some(1.0),
    }];
    let f = findings(&s.clone().into());
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].code, FindingCode::WarmUp);
    assert_eq!(f[0].number("warm_up_s"), Some(20.0));
    assert_eq!(f[0].number("factor"), Some(0.5));
    // A step up late in the run is no warm-up.
    s.steps[0].t_ns = 100_000_000_000;
    assert!(codes(s).is_empty());
}

/// The sample bench's disk behind a SATA link of `ceiling` MB/s.
fn behind_sata(
    mut b: drivescope_record::BenchRecord,
    ceiling: f64,
) -> drivescope_record::BenchRecord {
    let id = b.header.device.as_mut().unwrap();
    id.links = vec![drivescope_probe::Link {
        name: "ata1".into(),
        kind: "sata".into(),
        detail: "3.0 Gb/s".into(),
        ceiling_mb_per_s: Some(ceiling),
    }];
    b
}

#[test]
fn a_known_link_is_named_and_other_kinds_of_link_are_not_claimed() {
    let seq_at = |rate: f64| {
        bench_with(move |name, qd| {
            if name.starts_with("SEQ") {
                rate
            } else {
                20.0 * qd as f64
            }
        })
    };
    // Flat at the SATA link's own ceiling: that link, for sure.
    let f = findings(&behind_sata(seq_at(290.0), 300.0).into());
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].confidence, Confidence::High);
    assert!(
        f[0].claim.contains("the sata link ata1 (3.0 Gb/s)"),
        "{}",
        f[0].claim
    );
    // Flat at 118 MB/s on a local SATA path is not a network link: nothing claimed.
    assert!(codes(behind_sata(seq_at(118.0), 600.0)).is_empty());
}
