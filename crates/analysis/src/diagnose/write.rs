//! A write cache (a controller's write-back cache, an SSD's SLC cache): a sustained write runs fast for a while,
//! then steps down to the rate the media takes.
//!
//! The write's cumulative progress, each stretch weighted by the media rate at its position (so a hard disk's
//! zones do not look like a step), is fitted with two straight lines; the best break between them is the step.

use super::stream::media_rate;
use drivescope_record::{
    Confidence, Experiment, Finding, FindingCode, Outcome, PositionRate, Verdict, WriteData,
};
use drivescope_units::{format_rate, format_size};

/// A first line this much steeper than the second is a step.
const STEP: f64 = 1.3;
/// A burst whose second half reads at least this much slower than its first (and by a third of the step) is no
/// cache's.
const BURST_FLAT: f64 = 1.08;
/// Fewest stretches on each side of a break.
const MIN_POINTS: usize = 4;

/// A step down found in a sustained write.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WriteStep {
    pub burst_mb_per_s: f64,
    pub sustained_mb_per_s: f64,
    pub written_before: u64,
    pub step_ns: u64,
    /// How long the write ran after the step.
    pub after_ns: u64,
}

#[derive(Default, Clone, Copy)]
struct Sums {
    n: f64,
    x: f64,
    y: f64,
    xx: f64,
    xy: f64,
    yy: f64,
}

impl Sums {
    fn add(mut self, x: f64, y: f64) -> Sums {
        self.n += 1.0;
        self.x += x;
        self.y += y;
        self.xx += x * x;
        self.xy += x * y;
        self.yy += y * y;
        self
    }
    fn minus(self, o: Sums) -> Sums {
        Sums {
            n: self.n - o.n,
            x: self.x - o.x,
            y: self.y - o.y,
            xx: self.xx - o.xx,
            xy: self.xy - o.xy,
            yy: self.yy - o.yy,
        }
    }
    /// Least-squares slope and residual sum of squares.
    fn fit(self) -> (f64, f64) {
        let sxx = self.xx - self.x * self.x / self.n;
        let sxy = self.xy - self.x * self.y / self.n;
        let syy = self.yy - self.y * self.y / self.n;
        if sxx <= 0.0 {
            return (0.0, syy.max(0.0));
        }
        (sxy / sxx, (syy - sxy * sxy / sxx).max(0.0))
    }
}

/// The step down in a sustained write, if there is one.
pub fn step(d: &WriteData, curve: &[PositionRate]) -> Option<WriteStep> {
    let flat = media_rate(curve, d.region).unwrap_or(1.0);
    let rate_at = |offset: u64| {
        curve
            .iter()
            .find(|p| offset >= p.offset && offset < p.offset + p.length)
            .map_or(flat, |p| p.mb_per_s)
    };
    // (seconds, media-weighted progress) with the origin, and raw bytes so far.
    let mut xs = vec![(0.0, 0.0, 0u64)];
    for p in &d.points {
        let (_, e, b) = *xs.last().unwrap();
        xs.push((
            p.t_ns as f64 / 1e9,
            e + p.bytes as f64 / rate_at(p.offset),
            b + p.bytes,
        ));
    }
    if xs.len() < 2 * MIN_POINTS + 1 {
        return None;
    }
    let mut prefix = vec![Sums::default()];
    for &(x, y, _) in &xs {
        prefix.push(prefix.last().unwrap().add(x, y));
    }
    let all = *prefix.last().unwrap();
    let (mut best, mut best_sse) = (None, f64::INFINITY);
    for k in MIN_POINTS..xs.len() - MIN_POINTS {
        let left = prefix[k + 1];
        let right = all.minus(left);
        let (s1, e1) = left.fit();
        let (s2, e2) = right.fit();
        if e1 + e2 < best_sse {
            best_sse = e1 + e2;
            best = Some((k, s1, s2));
        }
    }
    let (k, s1, s2) = best?;
    if s2 <= 0.0 || s1 < STEP * s2 {
        return None;
    }
    let (tk, _, bk) = xs[k];
    let (tn, _, bn) = *xs.last().unwrap();
    if tk <= 0.0 || tn <= tk {
        return None;
    }
    // The rates are the slopes of the raw bytes over each side (the first command's start-up latency and the
    // break's own interval do not count), falling back to the plain averages on too few points.
    let raw = |lo: usize, hi: usize| {
        let s = xs[lo..hi]
            .iter()
            .fold(Sums::default(), |s, &(x, _, b)| s.add(x, b as f64));
        s.fit().0 / 1e6
    };
    // The burst is short (a fraction of a second): one stall of the host would pull a fit down, so it is the
    // median of its stretches' rates.
    let burst = super::median(d.points[..k].iter().map(|p| p.mb_per_s).collect()).unwrap_or(0.0);
    let sustained = raw(k + 1, xs.len());
    // A cache takes writes at its own rate wherever they land: a burst whose second half (past the start-up's
    // first stretches) falls from its first by a third of the step or more (on the log scale) is a staircase, the
    // media's zones stepping down, which a read curve taken through a cache did not show.
    let settled_burst = d.points.get(2..k).unwrap_or(&[]);
    if settled_burst.len() >= 4 && burst > 0.0 && sustained > 0.0 {
        let (first, second) = settled_burst.split_at(settled_burst.len() / 2);
        let mid = |r: &[drivescope_record::StreamPoint]| {
            super::median(r.iter().map(|p| p.mb_per_s).collect()).unwrap_or(0.0)
        };
        let within = mid(first) / mid(second);
        if within >= BURST_FLAT && within.ln() >= (burst / sustained).ln() / 3.0 {
            return None;
        }
    }
    // The break is found in progress weighted by the read curve; the bytes themselves must step down too (a
    // curve that is not the media's writes, read through a cache or while warming up, bends a steady write).
    if burst > 0.0 && sustained > 0.0 && burst < STEP * sustained {
        return None;
    }
    Some(WriteStep {
        burst_mb_per_s: if burst > 0.0 {
            burst
        } else {
            bk as f64 / tk / 1e6
        },
        sustained_mb_per_s: if sustained > 0.0 {
            sustained
        } else {
            (bn - bk) as f64 / (tn - tk) / 1e6
        },
        written_before: bk,
        step_ns: (tk * 1e9) as u64,
        after_ns: ((tn - tk) * 1e9) as u64,
    })
}

/// Whether the write has run long enough past a step to stop: the sustained rate seen for a while.
pub fn settled(s: &WriteStep) -> bool {
    s.after_ns >= 2_000_000_000 && s.after_ns >= s.step_ns
}

pub fn assess(d: &WriteData, curve: &[PositionRate]) -> (Option<Finding>, Outcome) {
    let outcome = |verdict, text: String| Outcome {
        experiment: Experiment::WriteCache,
        verdict,
        text,
    };
    let secs = d.duration_ns as f64 / 1e9;
    let Some(s) = step(d, curve) else {
        let rate = if d.duration_ns > 0 {
            d.written as f64 / secs / 1e6
        } else {
            0.0
        };
        let verdict = if secs >= 3.0 {
            Verdict::NotFound
        } else {
            Verdict::Inconclusive
        };
        return (
            None,
            outcome(
                verdict,
                format!(
                    "none: writes ran at {} for {} ({secs:.1} s) with no step",
                    format_rate(rate),
                    format_size(d.written)
                ),
            ),
        );
    };
    let confidence = if settled(&s) {
        Confidence::High
    } else if s.after_ns >= 500_000_000 {
        Confidence::Low
    } else {
        Confidence::Inconclusive
    };
    let f = Finding::new(
        FindingCode::WriteBurst,
        confidence,
        format!(
            "burst {} for ~{}, then {} sustained (step after {} written)",
            format_rate(s.burst_mb_per_s),
            format_size(s.written_before),
            format_rate(s.sustained_mb_per_s),
            format_size(s.written_before)
        ),
        &[
            ("burst_mb_per_s", s.burst_mb_per_s),
            ("sustained_mb_per_s", s.sustained_mb_per_s),
            ("written_before_step", s.written_before as f64),
            ("step_s", s.step_ns as f64 / 1e9),
        ],
    );
    let verdict = if confidence == Confidence::Inconclusive {
        Verdict::Inconclusive
    } else {
        Verdict::Found
    };
    let text = f.claim.clone();
    (Some(f), outcome(verdict, text))
}
