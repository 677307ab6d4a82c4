//! A read cache: a working set read a second time runs far faster than the media while it fits, and at the
//! media rate once it does not.

use drivescope_record::{
    Confidence, Experiment, Finding, FindingCode, Outcome, Verdict, WorkingSetData, WorkingSetPoint,
};
use drivescope_units::{format_rate, format_size};

/// A re-read this much faster than the media is served from a cache.
pub const CACHED: f64 = 1.5;
/// The bracket around the cache size is refined until its ends are within this ratio.
pub const REFINED: f64 = 1.3;

/// Whether the second read of a working set came from a cache, among the working sets `all` measured: far
/// faster than the media, taken as the faster of the media rate from the earlier stream and the first read of the
/// smallest working set (nothing cached before it). The stream's rate can be stale: a warm-up not over then, a
/// throttle cooled since; the first reads then run as fast as the re-reads.
pub fn cached(p: &WorkingSetPoint, all: &[WorkingSetPoint]) -> bool {
    let curve = p.media_mb_per_s.unwrap_or(p.first_mb_per_s);
    let first = all
        .iter()
        .min_by_key(|q| q.size)
        .map_or(0.0, |q| q.first_mb_per_s);
    let base = curve.max(first);
    base > 0.0 && p.again_mb_per_s >= CACHED * base
}

/// A first read this many times the media rate, while the working sets still double, says the media's rate
/// changed since it was measured (each set's first read is at most half cached: the set before it, half its size,
/// so it runs at under twice the media's rate whatever the cache's).
const STALE: f64 = 2.2;

/// A working set, while they still double, whose first read ran far faster than the media can have served it: the
/// media rate the re-reads are judged against is stale (a warm-up that ended, a throttle that cooled since the
/// stream), and a fast re-read says nothing of a cache.
pub fn stale_media(all: &[WorkingSetPoint]) -> Option<&WorkingSetPoint> {
    let first = all
        .iter()
        .min_by_key(|q| q.size)
        .map_or(0.0, |q| q.first_mb_per_s);
    let doubling = 1 + all.windows(2).take_while(|w| w[1].size > w[0].size).count();
    all.iter().take(doubling).find(|p| {
        let base = p.media_mb_per_s.unwrap_or(p.first_mb_per_s).max(first);
        base > 0.0 && p.first_mb_per_s >= STALE * base
    })
}

/// The largest working set that was cached and the smallest larger one that was not.
pub fn bracket(points: &[WorkingSetPoint]) -> (Option<&WorkingSetPoint>, Option<&WorkingSetPoint>) {
    let lo = points
        .iter()
        .filter(|p| cached(p, points))
        .max_by_key(|p| p.size);
    let hi = points
        .iter()
        .filter(|p| !cached(p, points) && lo.is_none_or(|l| p.size > l.size))
        .min_by_key(|p| p.size);
    (lo, hi)
}

pub fn assess(d: &WorkingSetData) -> (Option<Finding>, Outcome) {
    let outcome = |verdict, text: String| Outcome {
        experiment: Experiment::ReadCache,
        verdict,
        text,
    };
    let (lo, hi) = bracket(&d.points);
    let cache_rate = super::median(
        d.points
            .iter()
            .filter(|p| cached(p, &d.points))
            .map(|p| p.again_mb_per_s)
            .collect(),
    )
    .unwrap_or(0.0);
    // Where every set up to the whole region looked cached, a stale media rate is the likelier reason.
    let whole = lo.is_some_and(|l| l.size >= d.limit) && hi.is_none();
    if let (Some(p), true) = (stale_media(&d.points), whole) {
        let base = p.media_mb_per_s.unwrap_or(0.0);
        let f = Finding::new(
            FindingCode::ReadCache,
            Confidence::Inconclusive,
            format!(
                "the first read of {} ran at {}, {:.1}× the media rate measured before ({}): the media's rate \
                 changed (a warm-up that ended, a throttle that cooled), so fast re-reads say nothing of a cache",
                format_size(p.size),
                format_rate(p.first_mb_per_s),
                p.first_mb_per_s / base.max(1e-9),
                format_rate(base)
            ),
            &[
                ("first_mb_per_s", p.first_mb_per_s),
                ("media_mb_per_s", base),
            ],
        );
        let text = f.claim.clone();
        return (Some(f), outcome(Verdict::Inconclusive, text));
    }
    match (lo, hi) {
        (None, None) => (
            None,
            outcome(Verdict::Inconclusive, "no working set was measured".into()),
        ),
        (None, Some(h)) => (
            None,
            outcome(
                Verdict::NotFound,
                format!(
                    "none: reading {} again ran at {} like the first time",
                    format_size(h.size),
                    format_rate(h.again_mb_per_s)
                ),
            ),
        ),
        (Some(l), None) => {
            let media = l.media_mb_per_s.unwrap_or(l.first_mb_per_s);
            let whole = l.size >= d.limit;
            let (confidence, claim) = if whole {
                (
                    Confidence::Low,
                    format!(
                        "re-reads of the whole {} region run at {}, media {}: a read cache of at least {}",
                        format_size(d.limit),
                        format_rate(cache_rate),
                        format_rate(media),
                        format_size(l.size)
                    ),
                )
            } else {
                (
                    Confidence::Inconclusive,
                    format!(
                        "re-reads still run at {} with {} (media {}): the budget ended before the cache's size was \
                         found",
                        format_rate(cache_rate),
                        format_size(l.size),
                        format_rate(media)
                    ),
                )
            };
            let f = Finding::new(
                FindingCode::ReadCache,
                confidence,
                claim,
                &[
                    ("cache_mb_per_s", cache_rate),
                    ("media_mb_per_s", media),
                    ("lower_bytes", l.size as f64),
                ],
            );
            let v = if whole {
                Verdict::Found
            } else {
                Verdict::Inconclusive
            };
            let text = f.claim.clone();
            (Some(f), outcome(v, text))
        }
        (Some(l), Some(h)) => {
            let size = ((l.size as f64) * (h.size as f64)).sqrt();
            let confidence = if h.size as f64 / l.size as f64 <= REFINED + 1e-9 {
                Confidence::High
            } else {
                Confidence::Medium
            };
            let media = h.again_mb_per_s;
            let f = Finding::new(
                FindingCode::ReadCache,
                confidence,
                format!(
                    "~{} at {} in front of ~{} media (working set {}: {}; {}: {})",
                    format_size(size as u64),
                    format_rate(cache_rate),
                    format_rate(media),
                    format_size(l.size),
                    format_rate(l.again_mb_per_s),
                    format_size(h.size),
                    format_rate(h.again_mb_per_s)
                ),
                &[
                    ("cache_bytes", size),
                    ("cache_mb_per_s", cache_rate),
                    ("media_mb_per_s", media),
                    ("lower_bytes", l.size as f64),
                    ("upper_bytes", h.size as f64),
                ],
            );
            let text = f.claim.clone();
            (Some(f), outcome(Verdict::Found, text))
        }
    }
}
