//! The findings of a diagnosis, computed from the measurements it keeps.

pub mod array;
pub mod flush;
pub mod fresh;
pub mod smr;
pub mod spots;
pub mod stream;
pub mod throttle;
pub mod working_set;
pub mod write;

use drivescope_record::{
    Confidence, DiagnoseRecord, Experiment, Finding, FindingCode, LinkData, Outcome, PositionRate,
    QueueingData, Verdict, WorkingSetData, ZoneData,
};
use drivescope_units::format_rate;

/// The middle value (the upper one of an even count), or None for no values.
pub fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied()
}

/// The curve a diagnosis measured the media rate by position with: the warm-up stream's settled part.
pub fn media_curve(d: &DiagnoseRecord) -> Vec<PositionRate> {
    d.warm_up.as_ref().map(stream::curve).unwrap_or_default()
}

/// The rate by position over the whole device: the zones' quick scan where one ran (the stream covered only
/// part of the device), else the stream's curve.
pub fn position_curve(d: &DiagnoseRecord) -> Vec<PositionRate> {
    match &d.zones {
        Some(z) if z.source == drivescope_record::CurveSource::QuickScan => z.curve.clone(),
        _ => media_curve(d),
    }
}

/// The top of a rate curve and the share of its positions within [`FLAT_WITHIN`] of it. The top is the median of the
/// fastest [`FLAT_SHARE`] of the positions, so neither a few fast stretches (noise) nor a fast outer zone alone
/// makes it.
pub fn flat_top(curve: &[PositionRate]) -> Option<(f64, f64)> {
    let mut rates: Vec<f64> = curve.iter().map(|p| p.mb_per_s).collect();
    if rates.is_empty() {
        return None;
    }
    rates.sort_by(|a, b| b.total_cmp(a));
    let fastest = ((rates.len() as f64 * FLAT_SHARE).ceil() as usize).clamp(1, rates.len());
    let top = rates[fastest / 2];
    let share = rates
        .iter()
        .filter(|r| (*r / top - 1.0).abs() <= FLAT_WITHIN)
        .count() as f64
        / rates.len() as f64;
    Some((top, share))
}

/// How close to the top a position's rate must be to count as on it (measurement noise of a stretch).
pub const FLAT_WITHIN: f64 = 0.05;

/// The flat top must cover this share of the positions before the link experiment runs.
pub const FLAT_SHARE: f64 = 0.3;

fn zones(z: &ZoneData, d: &DiagnoseRecord) -> (Option<Finding>, Outcome) {
    let rates: Vec<f64> = z.curve.iter().map(|p| p.mb_per_s).collect();
    let what = match z.source {
        drivescope_record::CurveSource::Stream => format!("{} positions", rates.len()),
        drivescope_record::CurveSource::QuickScan => format!("a {}-point quick scan", rates.len()),
    };
    let ratio = crate::zones::ratio(&rates);
    let f = ratio.and_then(|r| crate::zones::judge(r, &rates, &what, d.header.device.as_ref()));
    let text = match (&f, ratio) {
        (Some(f), _) => f.claim.clone(),
        (None, Some(r)) => format!("inner/outer {r:.2} over {what}: no zoned fall"),
        (None, None) => "too few positions to judge".into(),
    };
    let verdict = match (&f, ratio) {
        (Some(_), _) => Verdict::Found,
        (None, Some(_)) => Verdict::NotFound,
        (None, None) => Verdict::Inconclusive,
    };
    (
        f,
        Outcome {
            experiment: Experiment::Zones,
            verdict,
            text,
        },
    )
}

/// The rate falls inward of the flat top: the inner tenth of the positions reads under this share of the top.
const FALLS: f64 = 0.92;

/// The curve's inner tenth (by position) reads clearly under its top: the rate falls with position there, as a
/// hard disk's does toward its inner zones.
fn falls_inward(curve: &[PositionRate], top: f64) -> bool {
    let mut c = curve.to_vec();
    c.sort_by_key(|p| p.offset);
    if c.len() < 10 {
        return false;
    }
    let n = c.len() / 10;
    median(c[c.len() - n..].iter().map(|p| p.mb_per_s).collect()).is_some_and(|m| m <= FALLS * top)
}

/// How close to a hard disk's top a position must read to be held there by a ceiling: a ceiling holds its
/// positions flat within a stretch's noise, where a gently falling zone curve spreads over [`FLAT_WITHIN`].
const CAPPED_WITHIN: f64 = 0.02;

/// Why a hard disk's flat top may be its outer zone rather than a ceiling, if it may: too few positions read at the
/// top itself (the zones fall gently from it), or the top is no wider than the zone steps below it (an outer zone of
/// a disk with few zones is as flat as a ceiling, and reads the same whatever the shape).
fn zone_not_ceiling(positions: &[PositionRate], top: f64) -> Option<String> {
    let n = positions.len() as f64;
    let on_top = |r: f64| (r / top - 1.0).abs() <= CAPPED_WITHIN;
    let tight = positions.iter().filter(|p| on_top(p.mb_per_s)).count() as f64 / n;
    if tight < FLAT_SHARE {
        return Some(format!(
            "only {:.0} % of positions read within {:.0} % of {}: the rate falls gently from the top, as zones do",
            tight * 100.0,
            CAPPED_WITHIN * 100.0,
            format_rate(top)
        ));
    }
    // The widest level off the top: positions in bins of 3 % of rate.
    let mut bins = std::collections::HashMap::new();
    for p in positions
        .iter()
        .filter(|p| !on_top(p.mb_per_s) && p.mb_per_s > 0.0)
    {
        *bins
            .entry((p.mb_per_s.ln() / 1.03f64.ln()).floor() as i64)
            .or_insert(0usize) += 1;
    }
    let widest = bins.values().copied().max().unwrap_or(0) as f64 / n;
    (tight <= 1.5 * widest).then(|| {
        format!(
            "the top ({:.0} % of positions) is no wider than a level below it ({:.0} %): a disk's outer zone is as \
             flat as a ceiling",
            tight * 100.0,
            widest * 100.0
        )
    })
}

fn link(l: &LinkData, d: &DiagnoseRecord) -> (Option<Finding>, Outcome) {
    if l.shapes.is_empty() {
        return (
            None,
            Outcome {
                experiment: Experiment::Link,
                verdict: Verdict::NotFound,
                text: format!(
                    "none: the rate changes with position ({} top over only {:.0} % of positions)",
                    format_rate(l.top_mb_per_s),
                    l.top_share * 100.0
                ),
            },
        );
    }
    let mut rates: Vec<f64> = l.shapes.iter().map(|s| s.mb_per_s).collect();
    rates.push(l.top_mb_per_s);
    let mut sizes: Vec<u64> = l.shapes.iter().map(|s| s.block_size).collect();
    sizes.push(1 << 20);
    sizes.sort_unstable();
    sizes.dedup();
    let device = d.header.device.as_ref();
    let at = crate::link::Positions {
        top_share: l.top_share,
        hard_disk: crate::zones::rotational(device) == Some(true) || {
            let positions = position_curve(d);
            flat_top(&positions).is_some_and(|(top, _)| falls_inward(&positions, top))
        },
    };
    let f = crate::link::of_rates(&rates, sizes.len(), device, "reads", Some(at));
    // A hard disk's flat top that its zones may make: said so, not claimed. A link the identity knows to be at that
    // rate stands.
    let known = f
        .as_ref()
        .is_some_and(|f| f.number("link_mb_per_s").is_some());
    if at.hard_disk && f.is_some() && !known {
        if let Some(why) = zone_not_ceiling(&position_curve(d), l.top_mb_per_s) {
            return (
                None,
                Outcome {
                    experiment: Experiment::Link,
                    verdict: Verdict::Inconclusive,
                    text: format!(
                        "inconclusive: reads top out at {} whatever the shape, but {why}",
                        format_rate(l.top_mb_per_s)
                    ),
                },
            );
        }
    }
    let text = match &f {
        Some(f) => f.claim.clone(),
        None => {
            let shapes: Vec<String> = l
                .shapes
                .iter()
                .map(|s| {
                    format!(
                        "{} Q{}: {}",
                        drivescope_units::format_size(s.block_size),
                        s.queue_depth,
                        format_rate(s.mb_per_s)
                    )
                })
                .collect();
            if crate::link::is_flat(&rates) {
                format!(
                    "none: {} ({}) over only {:.0} % of positions, a rate no usual link delivers: the media's own",
                    format_rate(l.top_mb_per_s),
                    shapes.join(", "),
                    l.top_share * 100.0
                )
            } else {
                format!(
                    "none: the rate changes with the shape (the warm-up stream's top {}, {})",
                    format_rate(l.top_mb_per_s),
                    shapes.join(", ")
                )
            }
        }
    };
    let verdict = if f.is_some() {
        Verdict::Found
    } else {
        Verdict::NotFound
    };
    (
        f,
        Outcome {
            experiment: Experiment::Link,
            verdict,
            text,
        },
    )
}

fn queueing(q: &QueueingData, top: Option<f64>) -> (Option<Finding>, Outcome) {
    let f = crate::queueing::judge(
        "RND4K",
        q.queue_depth,
        q.q1_iops,
        q.deep_iops,
        q.deep_mb_per_s,
        top,
    );
    let gain = if q.q1_iops > 0.0 {
        q.deep_iops / q.q1_iops
    } else {
        0.0
    };
    let (verdict, text) = match &f {
        Some(f) => (Verdict::Found, f.claim.clone()),
        None => (
            Verdict::NotFound,
            format!(
                "RND4K Q{} / Q1 = {gain:.2} ({:.0} / {:.0} IOPS): the path keeps several commands in flight",
                q.queue_depth, q.deep_iops, q.q1_iops
            ),
        ),
    };
    (
        f,
        Outcome {
            experiment: Experiment::Queueing,
            verdict,
            text,
        },
    )
}

/// The thermal throttle found on reads, when it is more than inconclusive.
fn throttle_found(found: &[Finding]) -> Option<&Finding> {
    found
        .iter()
        .find(|t| t.code == FindingCode::ThermalThrottle && t.confidence > Confidence::Inconclusive)
}

/// On a device that throttles, the media rate measured hot is not the fastest the media reads: rest (the
/// queueing experiment's light load cools it too) brings back up to 1/factor of it. A working set counts as
/// cached only when its re-read beats the media's cool rate.
fn cool_media(w: &WorkingSetData, found: &[Finding]) -> WorkingSetData {
    let Some(factor) = throttle_found(found).and_then(|t| t.number("factor")) else {
        return w.clone();
    };
    let mut w = w.clone();
    for p in &mut w.points {
        p.media_mb_per_s = p.media_mb_per_s.map(|m| m / factor);
    }
    w
}

/// A ceiling measured while the device was throttled says so.
fn throttled_link(
    (f, o): (Option<Finding>, Outcome),
    found: &[Finding],
) -> (Option<Finding>, Outcome) {
    let factor = throttle_found(found).and_then(|t| t.number("factor"));
    let (Some(mut f), Some(factor)) = (f.clone(), factor) else {
        return (f, o);
    };
    f.claim.push_str(&format!(
        " — measured while the device was throttled ({factor:.2}×)"
    ));
    let o = Outcome {
        text: f.claim.clone(),
        ..o
    };
    (Some(f), o)
}

/// A write step whose fall matches the thermal throttle found on reads is the throttle (writes heat the device
/// as reads do), not a write cache.
fn not_the_throttle(
    (f, o): (Option<Finding>, Outcome),
    found: &[Finding],
) -> (Option<Finding>, Outcome) {
    match (&f, throttle_found(found)) {
        (Some(w), Some(t))
            if throttle::explains_write_step(
                t,
                w.number("burst_mb_per_s").unwrap_or(0.0),
                w.number("sustained_mb_per_s").unwrap_or(0.0),
            ) =>
        {
            let text = format!(
                "none: the writes fell to {:.2}×, as the reads did when the device throttled: the throttle, not a \
                 write cache",
                w.number("sustained_mb_per_s").unwrap_or(0.0) / w.number("burst_mb_per_s").unwrap_or(1.0)
            );
            (
                None,
                Outcome {
                    experiment: o.experiment,
                    verdict: Verdict::NotFound,
                    text,
                },
            )
        }
        _ => (f, o),
    }
}

/// The write experiment's outcome with [`fresh::note`] after it, where the drive is flash.
fn with_fresh_note(
    (f, mut o): (Option<Finding>, Outcome),
    d: &DiagnoseRecord,
) -> (Option<Finding>, Outcome) {
    if let Some(note) = fresh::note(d) {
        o.text = format!("{}; {note}", o.text);
    }
    (f, o)
}

/// Every finding a diagnosis supports and one outcome line per experiment, in the experiments' order.
pub fn assess(d: &DiagnoseRecord) -> (Vec<Finding>, Vec<Outcome>) {
    let curve = media_curve(d);
    let top = flat_top(&curve).map(|(t, _)| t);
    let mut found = Vec::new();
    let mut outcomes = Vec::new();
    if let Some(a) = &d.array {
        let (f, o) = array::assess(a);
        found.extend(f);
        outcomes.push(o);
    } else if let Some(s) = d.skipped.iter().find(|s| s.experiment == Experiment::Array) {
        outcomes.push(Outcome {
            experiment: Experiment::Array,
            verdict: Verdict::Skipped,
            text: s.why.clone(),
        });
    }
    for e in Experiment::ALL {
        let r = match e {
            Experiment::WarmUp => d.warm_up.as_ref().map(|s| stream::warm_up(s, &curve)),
            Experiment::Throttle => d
                .warm_up
                .as_ref()
                .map(|s| throttle::assess(s, d.throttle.as_ref())),
            Experiment::Zones => d.zones.as_ref().map(|z| zones(z, d)),
            Experiment::Link => d.link.as_ref().map(|l| throttled_link(link(l, d), &found)),
            Experiment::Queueing => d.queueing.as_ref().map(|q| queueing(q, top)),
            Experiment::ReadCache => d
                .read_cache
                .as_ref()
                .map(|w| working_set::assess(&cool_media(w, &found))),
            Experiment::WriteCache => d
                .write_cache
                .as_ref()
                .map(|w| with_fresh_note(not_the_throttle(write::assess(w, &curve), &found), d)),
            Experiment::Smr => d.smr.as_ref().map(|s| {
                let positions = position_curve(d);
                let hard_disk =
                    flat_top(&positions).is_some_and(|(t, _)| falls_inward(&positions, t));
                smr::assess(s, d.header.device.as_ref(), hard_disk)
            }),
            Experiment::FlushHonesty => d
                .flush_honesty
                .as_ref()
                .map(|f| flush::assess(f, &d.header)),
            Experiment::Array => None,
        };
        let mut take = |(f, o): (Option<Finding>, Outcome)| {
            found.extend(f);
            outcomes.push(o);
        };
        match r {
            Some(r) => take(r),
            None => {
                if let Some(s) = d.skipped.iter().find(|s| s.experiment == e) {
                    take((
                        None,
                        Outcome {
                            experiment: e,
                            verdict: Verdict::Skipped,
                            text: s.why.clone(),
                        },
                    ))
                }
            }
        }
    }
    found.extend(spots::assess(d));
    crate::temperature::annotate_with_outcomes(&mut found, &mut outcomes, d.temperature.as_ref());
    (found, outcomes)
}
