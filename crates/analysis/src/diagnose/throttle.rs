//! Thermal throttling: sustained work slows a device by a lasting step down, and rest restores it.
//!
//! The rule is one function over a rate-over-time series ([`lasting_fall`]): fast for a while, then a step down
//! that lasts to the end. What the rate is measured against decides what else could explain the fall, so each
//! caller normalises it first:
//! - diagnose's warm-up stream reads the same region pass after pass; each time bin's rate is taken relative to
//!   the rate at the same positions (as zones cannot explain a fall there), and the fall must come after a whole
//!   pass read fast (the same positions were fast before). Reads fill no write cache, and a warm-up is the
//!   opposite shape (slow, then fast). The throttle experiment then rests and reads the region again: a rate
//!   back at the fast level confirms it.
//! - a read soak repeats one workload over one region, so its series is already position-free;
//! - a scan moves inward as time goes on, so a fall over time may be the zones: it counts only on a device
//!   known not to rotate (no zones), or where the rate came back up later in the scan (zones never do).

use super::median;
use super::stream::{bins, Bin};
use drivescope_record::{
    Confidence, Experiment, Finding, FindingCode, Outcome, PositionRate, StreamData, ThrottleData,
    Verdict,
};

/// The rate after the step must be at most this share of the rate before it.
pub const FALL: f64 = 0.85;
/// Fewest bins before and after a step.
const MIN_BINS: usize = 3;
/// A step this early is the device or the host settling, not a throttle.
const MIN_STEP_NS: u64 = 1_000_000_000;
/// Share of the bins on each side that must lie on their side of the midpoint.
const HOLDS: f64 = 0.8;

/// One stretch of a rate-over-time series: where it ended, how long it was, and its rate (in any unit, as
/// long as the whole series uses one).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    pub end_ns: u64,
    pub len_ns: u64,
    pub rate: f64,
}

/// A lasting step down: the rate before and after, and when it fell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fall {
    pub before: f64,
    pub after: f64,
    pub step_ns: u64,
    /// How long the series ran after the step.
    pub lasted_ns: u64,
}

impl Fall {
    /// The rate after the step as a share of the rate before.
    pub fn factor(&self) -> f64 {
        self.after / self.before
    }
}

/// The lasting step down in a series, if it has one: fast over its first bins and most of the time before the
/// step, slow from the step on (its first bins and most of the rest) to the end, the slow level at most
/// [`FALL`] of the fast one. A dip that comes back up, a slow start, or a fall in the first second is none.
pub fn lasting_fall(levels: &[Level]) -> Option<Fall> {
    let n = levels.len();
    if n < 2 * MIN_BINS {
        return None;
    }
    let rates = |s: &[Level]| s.iter().map(|l| l.rate).collect::<Vec<_>>();
    let fast = median(rates(&levels[..MIN_BINS]))?;
    let slow = median(rates(&levels[n - (n / 3).max(MIN_BINS)..]))?;
    if fast.is_nan() || fast <= 0.0 || slow > FALL * fast {
        return None;
    }
    let mid = (fast + slow) / 2.0;
    let share = |s: &[Level], f: &dyn Fn(f64) -> bool| {
        s.iter().filter(|l| f(l.rate)).count() as f64 / s.len().max(1) as f64
    };
    let j = (MIN_BINS..=n - MIN_BINS).find(|&j| {
        let rest = &levels[j..];
        rest.iter().take(MIN_BINS).all(|l| l.rate < mid) && share(rest, &|r| r < mid) >= HOLDS
    })?;
    if share(&levels[..j], &|r| r >= mid) < HOLDS {
        return None;
    }
    let before = median(rates(&levels[..j]))?;
    let after = median(rates(&levels[j..]))?;
    if after > FALL * before {
        return None;
    }
    // The first slow bin may hold the step: the share of it spent at the fast rate.
    let b = levels[j];
    let x = ((b.rate - after) / (before - after)).clamp(0.0, 1.0);
    let step_ns = b.end_ns - b.len_ns + (x * b.len_ns as f64) as u64;
    if step_ns < MIN_STEP_NS {
        return None;
    }
    let end = levels[n - 1].end_ns;
    Some(Fall {
        before,
        after,
        step_ns,
        lasted_ns: end.saturating_sub(step_ns),
    })
}

fn levels(b: &[Bin]) -> Vec<Level> {
    b.iter()
        .map(|b| Level {
            end_ns: b.end_ns,
            len_ns: b.len_ns,
            rate: b.norm,
        })
        .collect()
}

/// The rate by position a throttle's fall is judged against: each slot's fastest stretch in the warm-up stream
/// (the middle of five neighbouring slots' fastest).
/// It takes the zones out of the rate over time as the settled curve does, but a throttle cannot make it: the
/// settled part of a stream that throttled mixes slots read before the fall with slots read after it, and the
/// stream's first seconds, over slots read fast since, then looked as slow as the throttled pass.
pub fn fastest_curve(s: &StreamData) -> Vec<PositionRate> {
    let width = s.region / super::stream::SLOTS;
    let slot_of = |offset: u64| {
        let slot = offset as u128 * super::stream::SLOTS as u128 / s.region.max(1) as u128;
        (slot as u64).min(super::stream::SLOTS - 1) as usize
    };
    // A busy host's late completion makes a stretch slow and the next ones fast, as the commands the device had
    // finished meanwhile complete at once: each stretch's rate is taken over it and the stretches before it in
    // the same pass, back to [`CATCH_UP_NS`] of reading (a pass's first stretches over what there is).
    let ns = |p: &drivescope_record::StreamPoint| p.bytes as f64 * 1e3 / p.mb_per_s;
    let usable: Vec<&drivescope_record::StreamPoint> = s
        .points
        .iter()
        .filter(|p| p.mb_per_s.is_finite() && p.mb_per_s > 0.0)
        .collect();
    let mut best = vec![0.0f64; super::stream::SLOTS as usize];
    for (k, p) in usable.iter().enumerate() {
        let (mut bytes, mut time) = (0u64, 0.0);
        for q in usable[..=k].iter().rev().take_while(|q| q.pass == p.pass) {
            bytes += q.bytes;
            time += ns(q);
            if time >= CATCH_UP_NS {
                break;
            }
        }
        let i = slot_of(p.offset);
        best[i] = best[i].max(bytes as f64 * 1e3 / time);
    }
    let fastest: Vec<PositionRate> = best
        .iter()
        .enumerate()
        .filter(|(_, r)| **r > 0.0)
        .map(|(i, r)| PositionRate {
            offset: i as u64 * width,
            length: width,
            mb_per_s: *r,
        })
        .collect();
    // What is left of a catch-up (one longer than a stretch): each slot takes the median of its own and its two
    // neighbours' on each side (zones change slowly with position).
    (0..fastest.len())
        .map(|i| {
            let near = &fastest[i.saturating_sub(2)..(i + 3).min(fastest.len())];
            PositionRate {
                mb_per_s: median(near.iter().map(|p| p.mb_per_s).collect()).unwrap_or(0.0),
                ..fastest[i]
            }
        })
        .collect()
}

/// The end of the first pass over the region, if the stream got that far.
fn first_pass_end(s: &StreamData) -> Option<u64> {
    s.points.iter().find(|p| p.pass >= 1).map(|p| p.t_ns)
}

/// The warm-up stream's lasting fall, judged against the rate at the same positions (`curve`: the stream's
/// [`fastest_curve`]). None unless the whole region was read once before the fall.
pub fn stream_fall(s: &StreamData, curve: &[PositionRate]) -> Option<Fall> {
    let f = lasting_fall(&levels(&bins(s, curve)))?;
    // The settled curve comes from the last third: a fall later than that is measured against its own start.
    if f.step_ns > s.duration_ns / 3 * 2 {
        return None;
    }
    (first_pass_end(s)? <= f.step_ns).then_some(f)
}

/// What the read after the rest showed, judged against the same curve as the warm-up stream.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recovery {
    /// The rate it started at, as a share of the warm-up stream's fast rate.
    pub recovered: f64,
    /// When it fell again, if it did.
    pub fell_after_ns: Option<u64>,
}

/// How the read after the rest compares with the warm-up stream's fall.
pub fn recovery(t: &ThrottleData, curve: &[PositionRate], fall: &Fall) -> Option<Recovery> {
    let s = StreamData {
        block_size: t.block_size,
        queue_depth: t.queue_depth,
        region: t.region,
        duration_ns: t.duration_ns,
        points: t.points.clone(),
    };
    let b = bins(&s, curve);
    let again = lasting_fall(&levels(&b));
    let start = median(b.iter().take(MIN_BINS).map(|b| b.norm).collect())?;
    // A fall within the first second is no lasting fall to [`lasting_fall`] (a device settling looks so), but a
    // read slow over most of its time after that second, for a second at least, fell all the same: at once (0).
    let mid = (fall.before + fall.after) / 2.0;
    let late: Vec<&Bin> = b.iter().filter(|x| x.end_ns > MIN_STEP_NS).collect();
    let ends_slow = late.last().is_some_and(|x| x.end_ns >= 2 * MIN_STEP_NS)
        && late.iter().filter(|x| x.norm < mid).count() as f64 >= HOLDS * late.len() as f64;
    Some(Recovery {
        recovered: start / fall.before,
        fell_after_ns: again.map(|f| f.step_ns).or(ends_slow.then_some(0)),
    })
}

/// How long a rate is taken over in [`fastest_curve`]: longer than a busy host holds a completion (the space of
/// devices tested draws up to 50 ms), so the catch-up after a late one is averaged with it.
const CATCH_UP_NS: f64 = 60e6;

/// A start back at this share of the fast rate is a recovery.
const RECOVERED: f64 = 0.9;

/// The throttle experiment's finding and outcome: the warm-up stream's fall, confirmed by the read after the
/// rest.
pub fn assess(s: &StreamData, t: Option<&ThrottleData>) -> (Option<Finding>, Outcome) {
    let curve = &fastest_curve(s)[..];
    let outcome = |verdict, text: String| Outcome {
        experiment: Experiment::Throttle,
        verdict,
        text,
    };
    let secs = s.duration_ns as f64 / 1e9;
    let Some(fall) = stream_fall(s, curve) else {
        return (
            None,
            outcome(
                Verdict::NotFound,
                format!("none: no lasting fall in {secs:.0} s of sustained reads"),
            ),
        );
    };
    let factor = fall.factor();
    let step_s = fall.step_ns as f64 / 1e9;
    // The rates people read: the median stretch before the step and after it (a flat device's rates; on a
    // zoned one, the mean over its zones at each level).
    let side = |keep: &dyn Fn(u64) -> bool| {
        median(
            s.points
                .iter()
                .filter(|p| keep(p.t_ns))
                .map(|p| p.mb_per_s)
                .collect(),
        )
        .unwrap_or(0.0)
    };
    let fast = side(&|t| t < fall.step_ns);
    let slow = side(&|t| t > fall.step_ns);
    let rates = format!("{fast:.0} then {slow:.0} MB/s");
    let numbers = |cooling: Option<f64>| {
        let mut n = vec![
            ("time_to_throttle_s", step_s),
            ("factor", factor),
            ("fast_mb_per_s", fast),
            ("throttled_mb_per_s", slow),
        ];
        n.extend(cooling.map(|c| ("cooling_s", c)));
        n
    };
    let r = t.and_then(|t| recovery(t, curve, &fall).map(|r| (t, r)));
    let (confidence, claim, cooling) = match r {
        None => (
            Confidence::Low,
            format!(
                "sustained reads fell to {factor:.2}× after {step_s:.0} s ({rates}) at positions read fast \
                 before; recovery after rest not tried"
            ),
            None,
        ),
        Some((t, r)) if r.recovered < RECOVERED => {
            let rest = t.idle_ns as f64 / 1e9;
            (
                Confidence::Inconclusive,
                format!(
                    "sustained reads fell to {factor:.2}× after {step_s:.0} s ({rates}) and read at {:.2}× the \
                     fast rate after {rest:.0} s of rest: a throttle that needs a longer rest, or a device that \
                     slowed for good",
                    r.recovered
                ),
                None,
            )
        }
        Some((t, r)) => {
            let rest = t.idle_ns as f64 / 1e9;
            // Heat is work not yet cooled off: a rest that bought `again` of fast work out of `step` cools the
            // whole in `rest × step / again`.
            let (cooling, how) = match r.fell_after_ns {
                // Too short to time: the rest bought less fast work than a second.
                Some(again) if again < MIN_STEP_NS => (
                    None,
                    format!(
                        "after {rest:.0} s of rest it read fast again for under a second: it cools in well over \
                         {rest:.0} s"
                    ),
                ),
                Some(again) if (again as f64) < 0.9 * fall.step_ns as f64 => {
                    let c = rest * fall.step_ns as f64 / again.max(1) as f64;
                    (
                        Some(c),
                        format!(
                            "after {rest:.0} s of rest it read fast again for {:.1} s: cools in ~{c:.0} s",
                            again as f64 / 1e9
                        ),
                    )
                }
                _ => (
                    Some(rest),
                    format!("{rest:.0} s of rest restored the full rate"),
                ),
            };
            (
                Confidence::High,
                format!(
                    "sustained reads fell to {factor:.2}× after {step_s:.0} s ({rates}) at positions read fast \
                     before; {how}"
                ),
                cooling,
            )
        }
    };
    let f = Finding::new(
        FindingCode::ThermalThrottle,
        confidence,
        claim,
        &numbers(cooling),
    );
    let verdict = if confidence == Confidence::Inconclusive {
        Verdict::Inconclusive
    } else {
        Verdict::Found
    };
    let text = f.claim.clone();
    (Some(f), outcome(verdict, text))
}

/// Whether a write step is the throttle seen on reads, not a write cache: its factor within 15 % of the
/// throttle's.
pub fn explains_write_step(
    throttle: &Finding,
    burst_mb_per_s: f64,
    sustained_mb_per_s: f64,
) -> bool {
    let Some(f) = throttle.number("factor") else {
        return false;
    };
    burst_mb_per_s > 0.0 && (sustained_mb_per_s / burst_mb_per_s / f - 1.0).abs() <= 0.15
}

/// A series of equal intervals as levels.
fn series_levels(series: &[drivescope_stats::SeriesPoint], interval_ns: u64) -> Vec<Level> {
    series
        .iter()
        .map(|p| Level {
            end_ns: p.t_ns,
            len_ns: interval_ns.min(p.t_ns),
            rate: p.mb_per_s,
        })
        .collect()
}

/// The finding of a lasting fall seen in a run's series (no rest in the run to confirm it by recovery).
fn of_series(fall: &Fall, what: &str) -> Finding {
    let factor = fall.factor();
    let step_s = fall.step_ns as f64 / 1e9;
    Finding::new(
        FindingCode::ThermalThrottle,
        Confidence::Medium,
        format!(
            "{what} fell to {factor:.2}× after {step_s:.0} s of sustained load ({:.0} then {:.0} MB/s) and stayed \
             there: the device throttles (the run has no rest to show it recover)",
            fall.before, fall.after
        ),
        &[
            ("time_to_throttle_s", step_s),
            ("factor", factor),
            ("fast_mb_per_s", fall.before),
            ("throttled_mb_per_s", fall.after),
        ],
    )
}

/// A read soak repeats one workload over one region, so a lasting fall in its rate over time is the device
/// slowing, not its positions. (A write soak's fall is a write cache filling: [`crate::soak`] says so.)
pub fn of_soak(s: &drivescope_record::SoakRecord) -> Option<Finding> {
    if s.rw != drivescope_record::Direction::Read || !s.resumed.is_empty() {
        return None;
    }
    let fall = lasting_fall(&series_levels(&s.series, s.interval_ns))?;
    Some(of_series(&fall, "reads"))
}

/// A full read scan moves inward as time goes on: a fall over time may be the zones. Only on a device known not
/// to rotate (no zones) is a lasting fall the device slowing.
pub fn of_scan(s: &drivescope_record::ScanRecord) -> Option<Finding> {
    if s.is_quick()
        || s.write
        || s.interrupted
        || s.resumed_from.is_some()
        || s.header.target.kind == drivescope_record::TargetType::File
        || crate::zones::rotational(s.header.device.as_ref()) != Some(false)
    {
        return None;
    }
    let fall = lasting_fall(&series_levels(&s.series, s.interval_ns))?;
    Some(of_series(&fall, "the scan's reads"))
}
