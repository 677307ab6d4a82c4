//! The warm-up stream: sequential reads over a region, pass after pass, from the device's first command.
//!
//! Its settled part (the last third) gives the rate by position (the zones, and the media rate of any stretch);
//! the whole of it, normalised by that rate, shows a start slower than the settled rate.

use drivescope_record::{
    Confidence, Experiment, Finding, FindingCode, Outcome, PositionRate, StreamData, Verdict,
};

/// Positions the region is cut into for the rate-by-position curve.
pub const SLOTS: u64 = 64;
/// A stretch this far below the settled rate is slow.
const SLOW: f64 = 0.85;
/// Time bins the stream is judged in.
const BINS: usize = 60;
/// Fewest slow bins before the step that make a warm-up.
const MIN_BINS: usize = 3;

fn slot(region: u64, offset: u64) -> usize {
    ((offset as u128 * SLOTS as u128 / region.max(1) as u128) as u64).min(SLOTS - 1) as usize
}

use super::median;

/// The settled rate by position: per slot, the median rate of the stream's stretches there in its last third
/// (or the latest stretches there when the last third did not reach it). None where the stream never read.
pub fn curve(s: &StreamData) -> Vec<PositionRate> {
    let settled_from = s.duration_ns / 3 * 2;
    let width = s.region / SLOTS;
    (0..SLOTS as usize)
        .filter_map(|i| {
            let here: Vec<_> = s
                .points
                .iter()
                .filter(|p| slot(s.region, p.offset) == i && p.mb_per_s > 0.0)
                .collect();
            let settled: Vec<f64> = here
                .iter()
                .filter(|p| p.t_ns >= settled_from)
                .map(|p| p.mb_per_s)
                .collect();
            let rate = if settled.is_empty() {
                median(here.iter().rev().take(3).map(|p| p.mb_per_s).collect())
            } else {
                median(settled)
            }?;
            Some(PositionRate {
                offset: i as u64 * width,
                length: width,
                mb_per_s: rate,
            })
        })
        .collect()
}

/// The media rate of `[0, size)` from the curve: the time-weighted (harmonic) mean over the slots it covers.
pub fn media_rate(curve: &[PositionRate], size: u64) -> Option<f64> {
    media_rate_in(curve, 0, size)
}

/// [`media_rate`] of the `size` bytes from `from`.
pub fn media_rate_in(curve: &[PositionRate], from: u64, size: u64) -> Option<f64> {
    let end = from.saturating_add(size);
    let mut bytes = 0.0;
    let mut secs = 0.0;
    for p in curve {
        if p.offset >= end {
            break;
        }
        let b = (end.min(p.offset + p.length)).saturating_sub(from.max(p.offset)) as f64;
        if b > 0.0 {
            bytes += b;
            secs += b / (p.mb_per_s * 1e6);
        }
    }
    (secs > 0.0).then(|| bytes / secs / 1e6)
}

/// One time bin: its end, its length, and its rate relative to the settled rate at the same positions.
pub struct Bin {
    pub end_ns: u64,
    pub len_ns: u64,
    pub norm: f64,
}

/// The stream cut into [`BINS`] time bins, each's rate relative to `curve` at the positions it read.
pub fn bins(s: &StreamData, curve: &[PositionRate]) -> Vec<Bin> {
    let rate_at = |offset: u64| {
        let i = slot(s.region, offset);
        curve
            .iter()
            .find(|p| slot(s.region, p.offset) == i)
            .map(|p| p.mb_per_s)
    };
    let width = (s.duration_ns / BINS as u64).max(1);
    let mut out: Vec<Bin> = Vec::new();
    let (mut expected, mut actual, mut prev_t) = (0.0, 0u64, 0u64);
    let mut bin_start = 0u64;
    for p in &s.points {
        let dt = p.t_ns.saturating_sub(prev_t);
        prev_t = p.t_ns;
        if let Some(r) = rate_at(p.offset).filter(|r| *r > 0.0) {
            expected += p.bytes as f64 / (r * 1e6) * 1e9;
            actual += dt;
        }
        if p.t_ns >= bin_start + width {
            if actual > 0 {
                out.push(Bin {
                    end_ns: p.t_ns,
                    len_ns: p.t_ns - bin_start,
                    norm: expected / actual as f64,
                });
            }
            bin_start = p.t_ns;
            expected = 0.0;
            actual = 0;
        }
    }
    out
}

/// The end of the first pass over the region, if the stream got that far.
fn first_pass_end(s: &StreamData) -> Option<u64> {
    s.points.iter().find(|p| p.pass >= 1).map(|p| p.t_ns)
}

/// A start slower than the settled rate: a finding, an inconclusive one when the rate was still rising when the
/// stream ended, and the outcome line.
pub fn warm_up(s: &StreamData, curve: &[PositionRate]) -> (Option<Finding>, Outcome) {
    let outcome = |verdict, text: String| Outcome {
        experiment: Experiment::WarmUp,
        verdict,
        text,
    };
    let secs = s.duration_ns as f64 / 1e9;
    let b = bins(s, curve);
    if b.len() < 6 {
        return (
            None,
            outcome(
                Verdict::Inconclusive,
                format!("{secs:.0} s of reads were too few to judge a warm-up"),
            ),
        );
    }
    // The start's level: the first bins. A start near the settled rate is no warm-up.
    let start = median(b.iter().take(3).map(|x| x.norm).collect()).unwrap_or(1.0);
    // A bin is slow when it is nearer the start's level than the settled rate. The rate has settled from the
    // first bin after which three bins in a row, and nearly all the rest, are not slow; a dip later on (a host
    // stall) does not move it.
    let slow = if start < SLOW {
        (1.0 + start) / 2.0
    } else {
        SLOW
    };
    let settled_from = (0..b.len()).find(|&j| {
        let rest = &b[j..];
        rest.iter().take(3).all(|x| x.norm >= slow)
            && rest.iter().filter(|x| x.norm >= slow).count() as f64 >= 0.8 * rest.len() as f64
    });
    let last_slow = match settled_from {
        Some(0) => None,
        Some(j) => Some(j - 1),
        None => Some(b.len() - 1),
    };
    let Some(last_slow) = last_slow else {
        return (
            None,
            outcome(
                Verdict::NotFound,
                format!("none: the first {secs:.0} s ran at the settled rate"),
            ),
        );
    };
    let before: Vec<f64> = b[..last_slow.max(1)].iter().map(|x| x.norm).collect();
    let factor = median(before).unwrap_or(1.0);
    // A slow start shorter than a few bins (or a second) is the device and host settling, not a warm-up.
    if factor >= SLOW || last_slow < MIN_BINS || b[last_slow].end_ns < 1_000_000_000 {
        return (
            None,
            outcome(
                Verdict::NotFound,
                format!("none: the first {secs:.0} s ran at the settled rate (brief dips only)"),
            ),
        );
    }
    // Where in the last slow bin the rate stepped up: the share of it spent at the slow rate.
    let t = &b[last_slow];
    let x = if last_slow == 0 || factor >= 1.0 {
        1.0
    } else {
        ((1.0 - t.norm) / (1.0 - factor)).clamp(0.0, 1.0)
    };
    let step_ns = t.end_ns - t.len_ns + (x * t.len_ns as f64) as u64;
    let step_s = step_ns as f64 / 1e9;
    // The settled rate comes from the last third: a step up to three quarters in leaves most of it settled.
    if step_ns > s.duration_ns / 4 * 3 {
        let f = Finding::new(
            FindingCode::WarmUp,
            Confidence::Inconclusive,
            format!(
                "still at {factor:.2}× after {step_s:.0} s when the {secs:.0} s window ended: a longer run (--budget) \
                 would measure the warm-up"
            ),
            &[("factor", factor), ("window_s", secs)],
        );
        return (
            Some(f),
            outcome(Verdict::Inconclusive, "the rate was still rising".into()),
        );
    }
    if let Some(end) = first_pass_end(s) {
        let bin = s.duration_ns / BINS as u64;
        if step_ns.abs_diff(end) <= bin * 2 {
            return (
                None,
                outcome(
                    Verdict::Inconclusive,
                    format!(
                        "the rate rose {:.1}× when the region was read a second time ({step_s:.1} s): a read cache, \
                         not a warm-up",
                        1.0 / factor
                    ),
                ),
            );
        }
    }
    let settled = media_rate(curve, s.region).unwrap_or(0.0);
    let f = Finding::new(
        FindingCode::WarmUp,
        Confidence::High,
        format!(
            "first {step_s:.0} s at {factor:.2}× the steady rate ({:.0} then {:.0} MB/s)",
            settled * factor,
            settled
        ),
        &[
            ("warm_up_s", step_s),
            ("factor", factor),
            ("steady_mb_per_s", settled),
        ],
    );
    let text = f.claim.clone();
    (Some(f), outcome(Verdict::Found, text))
}
