//! What bounds a timed workload, per mode: the disk (busy most of the wall time), the CPU (the command's
//! user and system time most of it), or neither alone.

use drivescope_record::{Confidence, Finding, FindingCode, ModeResult, TimeRecord};

/// The disk busy at least this share of the wall time makes a workload storage-bound.
pub const STORAGE_SHARE: f64 = 0.6;
/// CPU time at least this share of the wall time (and the disk not storage-bound) makes it CPU-bound.
pub const CPU_SHARE: f64 = 0.6;
/// Shorter runs cannot settle it: the kernel counts a device's busy time in ticks of 1 to 10 ms.
pub const MIN_WALL_NS: f64 = 100e6;

/// One finding per measured mode, then the traced run's (see [`crate::fingerprint`]).
pub fn findings(r: &TimeRecord) -> Vec<Finding> {
    let mut out: Vec<Finding> = r.modes.iter().filter_map(of_mode).collect();
    out.extend(r.fingerprint.as_ref().map(crate::fingerprint::finding));
    out
}

/// The verdict on one mode's summary.
pub fn of_mode(m: &ModeResult) -> Option<Finding> {
    let s = &m.summary;
    if s.count == 0 {
        return None;
    }
    let (busy, cpu) = (s.busy_share, s.cpu_share);
    let (code, what) = if busy >= STORAGE_SHARE {
        (FindingCode::StorageBound, "storage-bound")
    } else if cpu >= CPU_SHARE {
        (FindingCode::CpuBound, "CPU-bound")
    } else {
        (FindingCode::MixedBound, "mixed")
    };
    let wall_s = s.wall_ns.mean / 1e9;
    let spread = if s.wall_ns.mean > 0.0 {
        s.wall_ns.sd / s.wall_ns.mean
    } else {
        0.0
    };
    // How far the deciding share is from the line it was judged by.
    let margin = match code {
        FindingCode::StorageBound => busy - STORAGE_SHARE,
        FindingCode::CpuBound => (cpu - CPU_SHARE).min(STORAGE_SHARE - busy),
        _ => (STORAGE_SHARE - busy).min(CPU_SHARE - cpu),
    };
    let confidence = if s.wall_ns.mean < MIN_WALL_NS {
        Confidence::Inconclusive
    } else if s.count >= 3 && spread < 0.1 && margin >= 0.1 {
        Confidence::High
    } else if margin >= 0.05 {
        Confidence::Medium
    } else {
        Confidence::Low
    };
    let why = match code {
        FindingCode::StorageBound => "a faster disk shortens it",
        FindingCode::CpuBound => "a faster disk barely changes it",
        _ => "neither the disk nor the CPU alone was busy most of the time",
    };
    let short = if confidence == Confidence::Inconclusive {
        " — too short to tell (the disk's busy time is counted in ticks of milliseconds)"
    } else {
        ""
    };
    Some(Finding::new(
        code,
        confidence,
        format!(
            "{}: {what}: the disk was busy {:.0} % and the CPU {:.0} % of {} ({why}){short}",
            m.mode,
            busy * 100.0,
            cpu * 100.0,
            seconds(wall_s)
        ),
        &[
            ("busy_share", busy),
            ("cpu_share", cpu),
            ("wall_s", wall_s),
            ("runs", s.count as f64),
        ],
    ))
}

fn seconds(s: f64) -> String {
    if s >= 10.0 {
        format!("{s:.1} s")
    } else if s >= 0.1 {
        format!("{s:.2} s")
    } else {
        format!("{:.1} ms", s * 1e3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::{ModeSummary, Spread, TimeMode};

    fn mode(wall_s: f64, busy: f64, cpu: f64, count: u32) -> ModeResult {
        let spread = |v: f64| Spread {
            mean: v,
            sd: v * 0.02,
            median: v,
            min: v,
            max: v,
        };
        ModeResult {
            mode: TimeMode::Cold,
            runs: Vec::new(),
            summary: ModeSummary {
                count,
                wall_ns: spread(wall_s * 1e9),
                busy_share: busy,
                cpu_share: cpu,
                ..ModeSummary::default()
            },
        }
    }

    #[test]
    fn the_busier_resource_decides() {
        let f = of_mode(&mode(12.4, 0.79, 0.2, 5)).unwrap();
        assert_eq!(f.code, FindingCode::StorageBound);
        assert_eq!(f.confidence, Confidence::High);
        assert!(
            f.claim
                .starts_with("cold: storage-bound: the disk was busy 79 %"),
            "{}",
            f.claim
        );
        assert_eq!(
            of_mode(&mode(3.0, 0.02, 0.95, 5)).unwrap().code,
            FindingCode::CpuBound
        );
        let mixed = of_mode(&mode(3.0, 0.4, 0.4, 5)).unwrap();
        assert_eq!(mixed.code, FindingCode::MixedBound);
        // A disk busy most of the time bounds it even when the CPU is busy too.
        assert_eq!(
            of_mode(&mode(3.0, 0.7, 0.9, 5)).unwrap().code,
            FindingCode::StorageBound
        );
    }

    #[test]
    fn near_the_line_or_too_short_is_said_so() {
        assert_eq!(
            of_mode(&mode(3.0, 0.62, 0.1, 5)).unwrap().confidence,
            Confidence::Low
        );
        let short = of_mode(&mode(0.002, 0.0, 0.9, 5)).unwrap();
        assert_eq!(short.confidence, Confidence::Inconclusive);
        assert!(short.claim.contains("too short"), "{}", short.claim);
        assert!(of_mode(&mode(3.0, 0.9, 0.1, 0)).is_none());
    }
}
