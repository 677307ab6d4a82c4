//! What a sustained run shows over time: a write burst into a cache, a warm-up after a start.

use drivescope_record::{Confidence, Direction, Finding, FindingCode, SoakRecord};
use drivescope_units::format_size;

/// A change this large (to / from − 1) is a step worth a finding.
const STEP: f64 = 0.3;
/// Intervals after a step that make its new rate a sustained one.
const SETTLED: usize = 5;

/// Bytes moved up to `t_ns` from the start.
fn bytes_until(s: &SoakRecord, t_ns: u64) -> u64 {
    s.series
        .iter()
        .take_while(|p| p.t_ns <= t_ns)
        .fold(0u64, |sum, p| sum.saturating_add(p.bytes))
}

fn intervals_after(s: &SoakRecord, t_ns: u64) -> usize {
    s.series.iter().filter(|p| p.t_ns > t_ns).count()
}

/// A write soak whose rate drops by a step: the burst, how much it took, the sustained rate.
pub fn write_burst(s: &SoakRecord) -> Option<Finding> {
    if s.rw != Direction::Write {
        return None;
    }
    let step = s
        .steps
        .iter()
        .find(|st| st.change.is_some_and(|c| c <= -STEP))?;
    let written = bytes_until(s, step.t_ns);
    let after = intervals_after(s, step.t_ns);
    let confidence = if after >= SETTLED {
        Confidence::High
    } else {
        Confidence::Low
    };
    Some(Finding::new(
        FindingCode::WriteBurst,
        confidence,
        format!(
            "burst {:.0} MB/s for ~{}, then {:.0} MB/s sustained (step after {} written)",
            step.from_mb_per_s,
            format_size(written),
            step.to_mb_per_s,
            format_size(written)
        ),
        &[
            ("burst_mb_per_s", step.from_mb_per_s),
            ("sustained_mb_per_s", step.to_mb_per_s),
            ("written_before_step", written as f64),
            ("step_s", step.t_ns as f64 / 1e9),
        ],
    ))
}

/// A soak that starts slow and steps up to its steady rate in the first two thirds of the run.
pub fn warm_up(s: &SoakRecord) -> Option<Finding> {
    let end = s.series.last()?.t_ns;
    let step = s
        .steps
        .first()
        .filter(|st| st.change.is_none_or(|c| c >= STEP))?;
    // A warm-up leaves at least a third of the run at the steady rate.
    if step.t_ns > end * 2 / 3 || s.steady_mb_per_s <= 0.0 {
        return None;
    }
    // After the step the run must hold its steady rate (within 10 %), or it is not a warm-up.
    if (step.to_mb_per_s / s.steady_mb_per_s - 1.0).abs() > 0.1 {
        return None;
    }
    let factor = step.from_mb_per_s / s.steady_mb_per_s;
    let seconds = step.t_ns as f64 / 1e9;
    Some(Finding::new(
        FindingCode::WarmUp,
        Confidence::High,
        format!(
            "first {seconds:.0} s at {factor:.2}× the steady rate ({:.0} then {:.0} MB/s)",
            step.from_mb_per_s, s.steady_mb_per_s
        ),
        &[
            ("warm_up_s", seconds),
            ("factor", factor),
            ("steady_mb_per_s", s.steady_mb_per_s),
        ],
    ))
}
