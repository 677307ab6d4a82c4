//! What a traced workload's I/O is bound by, from its fingerprint: the disk's latency (small random
//! requests at a shallow queue), its transfer rate (sequential or large requests), or neither (the disk
//! idle most of the run: CPU and think time). One sentence a person reads, and the finding behind it.

use drivescope_record::{
    size_class_label, AccessPattern, Confidence, Finding, FindingCode, Fingerprint, IoClass,
};

/// The disk busy less than this share of the traced run: the run is bound by CPU and think time.
pub const IDLE_SHARE: f64 = 0.2;
/// Random requests at most this large are latency-bound; larger ones move enough to be rate-bound.
pub const SMALL_BYTES: u64 = 64 * 1024;
/// A class with at least this share of the device's service time is what the workload "mostly" is.
pub const MOSTLY: f64 = 0.5;

/// What bounds the traced I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// Small random requests at a shallow queue: latency at that depth decides.
    Latency,
    /// Sequential or large requests: the transfer rate decides.
    Throughput,
    /// The disk idle most of the run (or no I/O at all): CPU and think time decide.
    Think,
}

/// The class the device spent most service time on, and that share.
pub fn dominant(f: &Fingerprint) -> Option<(&IoClass, f64)> {
    let time = |c: &IoClass| c.requests as f64 * c.service_ns_mean;
    let total: f64 = f.classes.iter().map(time).sum();
    let top = f
        .classes
        .iter()
        .max_by(|a, b| time(a).total_cmp(&time(b)))?;
    Some((top, if total > 0.0 { time(top) / total } else { 1.0 }))
}

/// What bounds it (see [`Bound`]).
pub fn bound(f: &Fingerprint) -> Bound {
    match dominant(f) {
        None => Bound::Think,
        _ if f.busy_share() < IDLE_SHARE => Bound::Think,
        Some((c, _)) if c.pattern == AccessPattern::Random && c.size_max_bytes <= SMALL_BYTES => {
            Bound::Latency
        }
        Some(_) => Bound::Throughput,
    }
}

/// A queue depth as said: `1`, `4`, `1.6`.
fn depth(qd: f64) -> String {
    if (qd - qd.round()).abs() < 0.15 || qd >= 10.0 {
        format!("{:.0}", qd.round().max(1.0))
    } else {
        format!("{qd:.1}")
    }
}

/// `mostly 4 KiB random reads at queue depth 1`.
fn what(f: &Fingerprint, c: &IoClass, share: f64) -> String {
    format!(
        "{} {} {} {}s at queue depth {}",
        if share >= MOSTLY { "mostly" } else { "led by" },
        size_class_label(c.size_max_bytes),
        c.pattern.as_str(),
        c.direction.as_str(),
        depth(f.mean_queue_depth)
    )
}

/// The sentence: what the I/O mostly is, what bounds it, and what kind of disk would help.
pub fn sentence(f: &Fingerprint) -> String {
    let Some((c, share)) = dominant(f) else {
        return format!(
            "no block I/O reached {} during {}: another disk would not change its time",
            f.devices.join(", "),
            f.run_label()
        );
    };
    let what = what(f, c, share);
    match bound(f) {
        Bound::Think => format!(
            "{what}, but the disk was busy only {:.0} % of the run: CPU- and think-time-bound; a faster disk changes little",
            f.busy_share() * 100.0
        ),
        Bound::Latency => format!(
            "{what}: latency-bound; a disk with lower Q{:.0} latency helps, sequential rate does not",
            f.mean_queue_depth.round().max(1.0)
        ),
        Bound::Throughput => format!(
            "{what}: throughput-bound; a disk with a higher {} rate helps, lower latency does not",
            if c.pattern == AccessPattern::Sequential {
                "sequential"
            } else {
                "transfer"
            }
        ),
    }
}

/// The finding of a traced run: `latency_bound`, `throughput_bound`, or `cpu_bound` when the disk idled.
pub fn finding(f: &Fingerprint) -> Finding {
    let code = match bound(f) {
        Bound::Latency => FindingCode::LatencyBound,
        Bound::Throughput => FindingCode::ThroughputBound,
        Bound::Think => FindingCode::CpuBound,
    };
    let confidence = if f.requests < 10 {
        Confidence::Inconclusive
    } else if f.lost_events > 0 || f.requests < 100 {
        Confidence::Low
    } else if f.requests < 1000 {
        Confidence::Medium
    } else {
        Confidence::High
    };
    let share = dominant(f).map_or(0.0, |(_, s)| s);
    Finding::new(
        code,
        confidence,
        format!("I/O of {}: {}", f.run_label(), sentence(f)),
        &[
            ("requests", f.requests as f64),
            ("busy_share", f.busy_share()),
            ("dominant_share", share),
            ("queue_depth", f.mean_queue_depth),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::{IoDirection, ThinkTime, TimeMode};

    fn class(dir: IoDirection, size: u64, pattern: AccessPattern, n: u64, svc: f64) -> IoClass {
        IoClass {
            direction: dir,
            size_max_bytes: size,
            pattern,
            requests: n,
            bytes: n * size,
            service_ns_mean: svc,
            service_ns_p50: svc as u64,
            service_ns_p99: svc as u64 * 2,
            queue_depth_mean: 1.0,
        }
    }

    fn fp(classes: Vec<IoClass>, busy: f64, qd: f64) -> Fingerprint {
        Fingerprint {
            mode: TimeMode::Cold,
            run: 1,
            devices: vec!["loop0".into()],
            requests: classes.iter().map(|c| c.requests).sum(),
            unmatched: 0,
            lost_events: 0,
            wall_ns: 1_000_000_000,
            busy_ns: (busy * 1e9) as u64,
            classes,
            flushes: 0,
            discards: 0,
            sync_requests: 0,
            queue_depth: Vec::new(),
            mean_queue_depth: qd,
            think: ThinkTime::default(),
            timeline: Vec::new(),
            timeline_step_s: 0.01,
            notes: Vec::new(),
        }
    }

    use AccessPattern::{Random, Sequential};
    use IoDirection::{Read, Write};

    #[test]
    fn small_random_reads_at_depth_one_are_latency_bound() {
        let f = fp(
            vec![
                class(Read, 4096, Random, 9_500, 90_000.0),
                class(Read, 4096, Sequential, 500, 90_000.0),
            ],
            0.9,
            1.02,
        );
        assert_eq!(bound(&f), Bound::Latency);
        assert_eq!(
            sentence(&f),
            "mostly 4 KiB random reads at queue depth 1: latency-bound; a disk with lower Q1 latency \
             helps, sequential rate does not"
        );
        let x = finding(&f);
        assert_eq!(x.code, FindingCode::LatencyBound);
        assert_eq!(x.confidence, Confidence::High);
        assert!(
            x.claim.starts_with("I/O of cold run 1: mostly"),
            "{}",
            x.claim
        );
    }

    #[test]
    fn large_sequential_reads_are_throughput_bound() {
        let f = fp(
            vec![
                class(Read, 128 << 10, Sequential, 800, 400_000.0),
                // Many small writes, but little of the device's time.
                class(Write, 4096, Random, 1000, 20_000.0),
            ],
            0.95,
            1.6,
        );
        assert_eq!(bound(&f), Bound::Throughput);
        assert_eq!(
            sentence(&f),
            "mostly 128 KiB sequential reads at queue depth 1.6: throughput-bound; a disk with a higher \
             sequential rate helps, lower latency does not"
        );
    }

    #[test]
    fn an_idle_disk_or_no_io_leaves_it_to_the_cpu() {
        let f = fp(vec![class(Write, 4096, Random, 200, 50_000.0)], 0.05, 1.0);
        assert_eq!(bound(&f), Bound::Think);
        assert!(sentence(&f).contains("busy only 5 %"), "{}", sentence(&f));
        assert_eq!(finding(&f).code, FindingCode::CpuBound);
        let none = fp(Vec::new(), 0.0, 0.0);
        assert_eq!(bound(&none), Bound::Think);
        assert!(sentence(&none).starts_with("no block I/O reached loop0"));
        assert_eq!(finding(&none).confidence, Confidence::Inconclusive);
    }
}
