//! A traced workload's I/O time predicted on another disk, from that disk's measured service times.
//!
//! The model: while the workload's requests were in flight they kept, on time average, `Q` of them in flight
//! (the fingerprint's mean queue depth while busy). By Little's law the busy time is the sum of the requests'
//! service times over `Q`. On another disk the workload issues the same requests at the same depths, so its
//! I/O time there is `Σ n_c · s'_c / Q`, where `s'_c` is the other disk's mean service time for class `c`'s
//! direction, pattern and block size at the depth that class was issued at, read off the other disk's
//! results ([`Point`]s from a bench, sweep or diagnose run) by interpolation over block size and depth.
//! The same sum over the service times measured here gives this disk's busy time back; where it does not
//! quite (flushes and discards, which no class holds), the prediction is scaled by the same factor.
//!
//! The rest of the traced wall time (CPU and think time) does not depend on the disk and is carried over.

use drivescope_record::{
    AccessPattern, BenchRecord, ClassPrediction, DiagnoseRecord, Direction, Document, Fingerprint,
    IoClass, IoDirection, Prediction, SweepRecord,
};

/// The smallest relative spread a result is taken to have (run-to-run noise of a short test).
pub const MIN_SPREAD: f64 = 0.05;
/// Added uncertainty per doubling a result is stretched over block size or depth.
pub const STRETCH_COST: f64 = 0.1;
/// Added uncertainty where a result of the other pattern or direction stands in.
pub const SUBSTITUTE_COST: f64 = 0.25;

/// One measured shape of the other disk: its mean service time at a depth.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub direction: IoDirection,
    pub pattern: AccessPattern,
    pub block_size: u64,
    /// Commands in flight on the device (queue depth × threads).
    pub depth: f64,
    /// Mean completion latency at that depth.
    pub service_ns: f64,
    /// Relative run-to-run spread (at least [`MIN_SPREAD`]).
    pub spread: f64,
    /// Where it comes from, e.g. `sweep run 7 RND4K`.
    pub source: String,
}

fn direction(d: Direction) -> Option<IoDirection> {
    match d {
        Direction::Read => Some(IoDirection::Read),
        Direction::Write => Some(IoDirection::Write),
        Direction::Mix => None,
    }
}

/// `SEQ…` or `RND…`, as test and pattern names start.
fn pattern_of(name: &str) -> Option<AccessPattern> {
    let n = name.trim().to_ascii_uppercase();
    if n.starts_with("SEQ") {
        Some(AccessPattern::Sequential)
    } else if n.starts_with("RND") {
        Some(AccessPattern::Random)
    } else {
        None
    }
}

fn run_name(kind: &str, run: Option<i64>) -> String {
    match run {
        Some(id) => format!("{kind} run {id}"),
        None => kind.to_string(),
    }
}

/// The tests of a bench: their mean latency at their depth.
pub fn points_of_bench(b: &BenchRecord, run: Option<i64>) -> Vec<Point> {
    b.tests
        .iter()
        .filter(|t| t.errors == 0 && t.latency.count > 0 && t.latency.mean_ns > 0)
        .filter_map(|t| {
            let spread = if t.mean_mb_per_s > 0.0 {
                t.stddev_mb_per_s / t.mean_mb_per_s
            } else {
                0.0
            };
            Some(Point {
                direction: direction(t.rw)?,
                pattern: pattern_of(&t.name)?,
                block_size: t.load.block_size,
                depth: f64::from(t.load.queue_depth.max(1) * t.load.threads.max(1)),
                service_ns: t.latency.mean_ns as f64,
                spread: spread.max(MIN_SPREAD),
                source: format!("{} {}", run_name("bench", run), t.name),
            })
        })
        .collect()
}

/// The cells of a sweep: mean latency from IOPS by Little's law (depth / IOPS).
pub fn points_of_sweep(s: &SweepRecord, run: Option<i64>) -> Vec<Point> {
    let (Some(dir), Some(pat)) = (direction(s.rw), pattern_of(&s.pattern)) else {
        return Vec::new();
    };
    s.cells
        .iter()
        .filter(|c| c.errors == 0 && c.iops > 0.0)
        .map(|c| {
            let depth = f64::from(c.queue_depth.max(1) * c.threads.max(1));
            // A cell keeps no mean latency. Little's law gives depth / IOPS, which also counts the
            // benchmark's own turnaround between a completion and the next submission (the device idles
            // then, most of all at depth 1); the median completion latency stands in where it is lower.
            let little = depth * 1e9 / c.iops;
            let median = c.p50_ns as f64;
            Point {
                direction: dir,
                pattern: pat,
                block_size: s.block_size,
                depth,
                service_ns: if median > 0.0 {
                    median.min(little)
                } else {
                    little
                },
                spread: MIN_SPREAD,
                source: format!("{} {}", run_name("sweep", run), s.pattern),
            }
        })
        .collect()
}

/// A diagnosis's random reads at depth 1 and deeper, and its sequential reads of several shapes.
pub fn points_of_diagnose(d: &DiagnoseRecord, run: Option<i64>) -> Vec<Point> {
    let name = run_name("diagnose", run);
    let mut out = Vec::new();
    if let Some(q) = &d.queueing {
        let rnd = |depth: f64, iops: f64, what: &str| Point {
            direction: IoDirection::Read,
            pattern: AccessPattern::Random,
            block_size: q.block_size,
            depth,
            service_ns: depth * 1e9 / iops,
            spread: MIN_SPREAD,
            source: format!("{name} queueing {what}"),
        };
        if q.q1_iops > 0.0 {
            out.push(rnd(1.0, q.q1_iops, "Q1"));
        }
        if q.deep_iops > 0.0 && q.queue_depth > 1 {
            out.push(rnd(f64::from(q.queue_depth), q.deep_iops, "deep"));
        }
    }
    if let Some(l) = &d.link {
        for s in l.shapes.iter().filter(|s| s.mb_per_s > 0.0) {
            let depth = f64::from(s.queue_depth.max(1));
            out.push(Point {
                direction: IoDirection::Read,
                pattern: AccessPattern::Sequential,
                block_size: s.block_size,
                depth,
                service_ns: depth * s.block_size as f64 * 1e3 / s.mb_per_s,
                spread: MIN_SPREAD,
                source: format!("{name} link"),
            });
        }
    }
    out
}

/// The points of any stored run that has them (bench, sweep, diagnose); none for other kinds.
pub fn points_of(doc: &Document, run: Option<i64>) -> Vec<Point> {
    match doc {
        Document::Bench(b) => points_of_bench(b, run),
        Document::Sweep(s) => points_of_sweep(s, run),
        Document::Diagnose(d) => points_of_diagnose(d, run),
        _ => Vec::new(),
    }
}

/// The other disk's service time for one shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    pub service_ns: f64,
    /// Relative uncertainty: the results' spread plus what stretching and substituting cost.
    pub uncertainty: f64,
    pub basis: String,
    pub size_stretch: f64,
    pub depth_stretch: f64,
    pub substituted: bool,
}

/// Linear interpolation of `y` over `x` at `at` between two points.
fn lerp(x0: f64, y0: f64, x1: f64, y1: f64, at: f64) -> f64 {
    if (x1 - x0).abs() < f64::EPSILON {
        return y0;
    }
    y0 + (y1 - y0) * (at - x0) / (x1 - x0)
}

/// Service time and spread at `depth` over one block size's points (sorted by depth): linear in
/// log(depth) between measured depths; beyond them, the growth between the last two (latency ∝ depth^k,
/// k in 0..=1: flat where commands overlap, linear where they wait in line), or flat from a single depth.
/// Returns (service, spread, stretch).
fn at_depth(pts: &[&Point], depth: f64) -> (f64, f64, f64) {
    let ln = |d: f64| d.max(1e-9).ln();
    let first = pts[0];
    let last = pts[pts.len() - 1];
    if pts.len() == 1 {
        return (first.service_ns, first.spread, depth / first.depth);
    }
    if depth <= first.depth || depth >= last.depth {
        let (a, b) = if depth <= first.depth {
            (pts[1], first)
        } else {
            (pts[pts.len() - 2], last)
        };
        let k =
            ((b.service_ns.ln() - a.service_ns.ln()) / (ln(b.depth) - ln(a.depth))).clamp(0.0, 1.0);
        let s = b.service_ns * (depth / b.depth).powf(k);
        return (s, b.spread, depth / b.depth);
    }
    let i = pts
        .iter()
        .position(|p| p.depth >= depth)
        .unwrap_or(1)
        .max(1);
    let (a, b) = (pts[i - 1], pts[i]);
    let s = lerp(
        ln(a.depth),
        a.service_ns,
        ln(b.depth),
        b.service_ns,
        ln(depth),
    );
    (s, a.spread.max(b.spread), 1.0)
}

/// The other disk's mean service time for `block_size` bytes of `pattern` in `dir` at `depth`, from
/// `points`; `None` when there are none at all, or when they cannot time requests that large (see
/// [`estimate_or_why`]).
pub fn estimate(
    points: &[Point],
    dir: IoDirection,
    pattern: AccessPattern,
    block_size: u64,
    depth: f64,
) -> Option<Estimate> {
    estimate_or_why(points, dir, pattern, block_size, depth).ok()
}

/// [`estimate`], or why the results cannot give it. A request much larger than every result costs
/// a positioning plus its bytes at the device's sequential rate, so it is timed from the
/// sequential results; a small request's latency is never scaled up by the bytes (a 4 KiB random
/// read's 117 µs × 256 is no 1 MiB read of a 480 MB/s disk). Without sequential results such a
/// request cannot be timed.
pub fn estimate_or_why(
    points: &[Point],
    dir: IoDirection,
    pattern: AccessPattern,
    block_size: u64,
    depth: f64,
) -> Result<Estimate, String> {
    if points.is_empty() {
        return Err("the other disk's results have no service times to read".into());
    }
    let of = |p: AccessPattern| {
        points
            .iter()
            .filter(move |x| x.direction == dir && x.pattern == p)
    };
    let largest = points.iter().map(|p| p.block_size).max().unwrap_or(0);
    let any_sequential = points
        .iter()
        .any(|p| p.pattern == AccessPattern::Sequential);
    if block_size > 2 * largest && !any_sequential {
        return Err(format!(
            "the other disk's results time no request larger than {} and hold no sequential \
             transfers to time the {} ones by (give a run with sequential reads, such as a \
             bench's SEQ1M)",
            drivescope_units::format_bytes(largest as f64),
            drivescope_units::format_bytes(block_size as f64),
        ));
    }
    let largest_random = of(AccessPattern::Random).map(|p| p.block_size).max();
    let sequential: Vec<Point> = points
        .iter()
        .filter(|p| p.pattern == AccessPattern::Sequential)
        .cloned()
        .collect();
    // A random request much larger than every random result: a random one's positioning, plus
    // its bytes at the sequential rate (of its direction where there is one, else of the other).
    let random_sizes = largest_random.or_else(|| {
        points
            .iter()
            .filter(|x| x.pattern == AccessPattern::Random)
            .map(|p| p.block_size)
            .max()
    });
    if let (AccessPattern::Random, Some(m), true) = (pattern, random_sizes, any_sequential) {
        if block_size > 2 * m {
            let none = || "no results".to_string();
            let pos =
                estimate_one(points, dir, AccessPattern::Random, m, depth).ok_or_else(none)?;
            let seq = estimate_one(
                &sequential,
                dir,
                AccessPattern::Sequential,
                block_size,
                depth,
            )
            .ok_or_else(none)?;
            let transfer = seq.service_ns * (1.0 - m as f64 / block_size as f64);
            return Ok(Estimate {
                service_ns: pos.service_ns + transfer,
                uncertainty: pos.uncertainty.max(seq.uncertainty)
                    + if pos.substituted || seq.substituted {
                        SUBSTITUTE_COST
                    } else {
                        0.0
                    },
                basis: format!("{} + transfer from {}", pos.basis, seq.basis),
                size_stretch: seq.size_stretch,
                depth_stretch: pos.depth_stretch,
                substituted: pos.substituted || seq.substituted,
            });
        }
    }
    let est = estimate_one(points, dir, pattern, block_size, depth)
        .ok_or_else(|| "the other disk's results have no service times to read".to_string())?;
    // Stood in by results of another pattern far smaller than the request: their latency says
    // nothing of moving its bytes; the sequential results do.
    if est.substituted && est.size_stretch > 2.0 && pattern == AccessPattern::Sequential {
        if let Some(e) = estimate_one(&sequential, dir, pattern, block_size, depth) {
            return Ok(e);
        }
    }
    Ok(est)
}

fn estimate_one(
    points: &[Point],
    dir: IoDirection,
    pattern: AccessPattern,
    block_size: u64,
    depth: f64,
) -> Option<Estimate> {
    let pick = |d: Option<IoDirection>, p: Option<AccessPattern>| -> Vec<&Point> {
        points
            .iter()
            .filter(|x| d.is_none_or(|d| x.direction == d) && p.is_none_or(|p| x.pattern == p))
            .collect()
    };
    let tries = [
        (Some(dir), Some(pattern), false),
        (Some(dir), None, true),
        (None, Some(pattern), true),
        (None, None, true),
    ];
    let (mut chosen, substituted) = tries
        .iter()
        .map(|&(d, p, sub)| (pick(d, p), sub))
        .find(|(v, _)| !v.is_empty())?;
    if substituted {
        // Prefer the class's pattern, then its direction, among what there is.
        chosen.sort_by_key(|p| (p.pattern != pattern, p.direction != dir));
        let (pat, d) = (chosen[0].pattern, chosen[0].direction);
        chosen.retain(|p| p.pattern == pat && p.direction == d);
    }
    let mut sizes: Vec<u64> = chosen.iter().map(|p| p.block_size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut per_size: Vec<(u64, f64, f64, f64)> = Vec::new(); // size, service, spread, depth stretch
    for &s in &sizes {
        let mut pts: Vec<&Point> = chosen
            .iter()
            .copied()
            .filter(|p| p.block_size == s)
            .collect();
        pts.sort_by(|a, b| a.depth.total_cmp(&b.depth));
        pts.dedup_by(|a, b| (a.depth - b.depth).abs() < 1e-9);
        let (svc, spread, stretch) = at_depth(&pts, depth);
        per_size.push((s, svc, spread, stretch));
    }
    let bs = block_size.max(1) as f64;
    let (service, spread, depth_stretch, size_stretch) = if per_size.len() == 1 {
        let (s, svc, spread, ds) = per_size[0];
        let s = s as f64;
        // One size: sequential service grows with the bytes moved; a random one is taken as its
        // position time, no shorter for fewer bytes.
        let scaled = match pattern {
            AccessPattern::Sequential => svc * bs / s,
            AccessPattern::Random if bs > s => svc * bs / s,
            AccessPattern::Random => svc,
        };
        (scaled, spread, ds, bs / s)
    } else {
        let i = per_size
            .iter()
            .position(|x| x.0 as f64 >= bs)
            .unwrap_or(per_size.len() - 1)
            .max(1);
        let (a, b) = (per_size[i - 1], per_size[i]);
        let svc = lerp(a.0 as f64, a.1, b.0 as f64, b.1, bs);
        // Never below the smaller size's time scaled down by bytes (a negative slope is noise).
        let svc = svc.max(a.1.min(b.1) * (bs / b.0 as f64).min(1.0));
        let near = if (bs - a.0 as f64).abs() <= (b.0 as f64 - bs).abs() {
            a
        } else {
            b
        };
        let stretch = if bs < per_size[0].0 as f64 || bs > per_size[per_size.len() - 1].0 as f64 {
            bs / near.0 as f64
        } else {
            1.0
        };
        let ds = if (a.3.ln()).abs() > (b.3.ln()).abs() {
            a.3
        } else {
            b.3
        };
        (svc, a.2.max(b.2), ds, stretch)
    };
    let doublings = |x: f64| x.max(1e-9).log2().abs();
    let uncertainty = spread
        + STRETCH_COST * (doublings(size_stretch) + doublings(depth_stretch))
        + if substituted { SUBSTITUTE_COST } else { 0.0 };
    let mut sources: Vec<&str> = chosen.iter().map(|p| p.source.as_str()).collect();
    sources.sort_unstable();
    sources.dedup();
    let depths = {
        let mut d: Vec<f64> = chosen.iter().map(|p| p.depth).collect();
        d.sort_by(f64::total_cmp);
        format!("Q{}..{}", d[0], d[d.len() - 1])
    };
    Some(Estimate {
        service_ns: service.max(0.0),
        uncertainty,
        basis: format!(
            "{} {} {} {}",
            sources.join(", "),
            chosen[0].direction.as_str(),
            chosen[0].pattern.as_str(),
            depths
        ),
        size_stretch,
        depth_stretch,
        substituted,
    })
}

/// Why nothing could be predicted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PredictError {
    #[error("the traced run saw no block requests with data; there is no I/O time to predict")]
    NoRequests,
    #[error("the other disk's results have no service times to read (give a bench, sweep or diagnose run)")]
    NoResults,
    /// The results cannot time one of the workload's classes; the line says which and what to give.
    #[error("{0}")]
    Cannot(String),
}

/// The size of a class's requests: their mean, or the class's bound when it has no bytes.
fn class_block_size(c: &IoClass) -> u64 {
    if c.requests > 0 && c.bytes > 0 {
        c.bytes / c.requests
    } else {
        c.size_max_bytes
    }
}

/// Ranges within which a model that reproduces this disk's busy time is taken as is.
const CALIBRATION_NOTE: f64 = 0.1;

/// The fingerprint's I/O time predicted on the disk `points` were measured on (`on` names it).
pub fn predict(fp: &Fingerprint, points: &[Point], on: &str) -> Result<Prediction, PredictError> {
    let classes: Vec<&IoClass> = fp.classes.iter().filter(|c| c.requests > 0).collect();
    if classes.is_empty() || fp.busy_ns == 0 {
        return Err(PredictError::NoRequests);
    }
    if points.is_empty() {
        return Err(PredictError::NoResults);
    }
    let q = fp.mean_queue_depth.max(1.0);
    let mut notes = Vec::new();
    let mut out = Vec::new();
    let mut model = 0.0;
    for c in &classes {
        let bs = class_block_size(c);
        let depth = c.queue_depth_mean.max(1.0);
        let e = estimate_or_why(points, c.direction, c.pattern, bs, depth)
            .map_err(PredictError::Cannot)?;
        let n = c.requests as f64;
        model += n * c.service_ns_mean / q;
        out.push((c, bs, depth, e));
    }
    let factor = if model > 0.0 {
        (fp.busy_ns as f64 / model).clamp(0.5, 2.0)
    } else {
        1.0
    };
    if (factor - 1.0).abs() > CALIBRATION_NOTE {
        notes.push(format!(
            "the service times measured here over the mean queue depth give {:.0} % of the busy time; \
             the prediction is scaled by the same factor",
            100.0 / factor
        ));
    }
    let mut predicted: Vec<ClassPrediction> = out
        .into_iter()
        .map(|(c, bs, depth, e)| {
            let io = c.requests as f64 * e.service_ns / q * factor;
            ClassPrediction {
                direction: c.direction,
                size_max_bytes: c.size_max_bytes,
                pattern: c.pattern,
                requests: c.requests,
                block_size: bs,
                queue_depth: depth,
                measured_service_ns: c.service_ns_mean,
                service_ns: e.service_ns,
                service_low_ns: e.service_ns * (1.0 - e.uncertainty).max(0.0),
                service_high_ns: e.service_ns * (1.0 + e.uncertainty),
                io_ns: io,
                share: 0.0,
                basis: e.basis,
                size_stretch: e.size_stretch,
                depth_stretch: e.depth_stretch,
                substituted: e.substituted,
            }
        })
        .collect();
    let io: f64 = predicted.iter().map(|c| c.io_ns).sum();
    let per_service = |c: &ClassPrediction, s: f64| c.requests as f64 * s / q * factor;
    let low: f64 = predicted
        .iter()
        .map(|c| per_service(c, c.service_low_ns))
        .sum();
    let high: f64 = predicted
        .iter()
        .map(|c| per_service(c, c.service_high_ns))
        .sum();
    let mut stood_in: Vec<String> = Vec::new();
    for c in &mut predicted {
        c.share = if io > 0.0 { c.io_ns / io } else { 0.0 };
        if c.substituted {
            let what = format!("{} {}", c.direction.as_str(), c.pattern.as_str());
            if !stood_in.contains(&what) {
                stood_in.push(what);
            }
        }
    }
    // One line for every class another shape stood in for, not one per class.
    if !stood_in.is_empty() {
        let n = predicted.iter().filter(|c| c.substituted).count() as u64;
        notes.push(format!(
            "no results of {} requests: {} timed by the nearest results there are (each class's \
             source is in its row)",
            stood_in.join(" or "),
            drivescope_units::count_as(n, "class", "classes")
        ));
    }
    let dominant = predicted
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.io_ns.total_cmp(&b.1.io_ns))
        .map(|(i, _)| i);
    let other = fp.wall_ns.saturating_sub(fp.busy_ns);
    Ok(Prediction {
        on: on.to_string(),
        device: None,
        runs: Vec::new(),
        classes: predicted,
        queue_depth: q,
        measured_io_ns: fp.busy_ns,
        model_io_ns: model,
        io_ns: io,
        io_low_ns: low,
        io_high_ns: high,
        other_ns: other,
        total_ns: io + other as f64,
        total_low_ns: low + other as f64,
        total_high_ns: high + other as f64,
        measured_total_ns: fp.wall_ns,
        dominant,
        notes,
    })
}

#[cfg(test)]
#[path = "predict_tests.rs"]
mod tests;
