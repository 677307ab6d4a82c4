//! A drive-managed SMR disk: random writes run fast while its media cache has room, then the rate falls and
//! band cleaning stalls the drive for hundreds of milliseconds at a time; idle time drains the cache, and writes
//! are fast again.
//!
//! A write-back or SLC cache also makes random writes fall after a burst, but to a steady rate: each write waits a
//! little for room, none waits hundreds of milliseconds. So the claim needs all of: a fall, stalls after it (and
//! not before), and stalls that hold the drive most of the time after the fall; idle time that restores the fast
//! writes makes it sure. What the kernel and the drive say (`queue/zoned`, TRIM on a rotational disk, the model
//! name) raise or lower the confidence, never make the claim alone.

use super::write::{step, WriteStep};
use drivescope_record::{
    Confidence, Experiment, Finding, FindingCode, Identity, Outcome, PositionRate, RandomWrites,
    SmrData, StreamPoint, Verdict, WriteData,
};
use drivescope_units::{format_rate, format_size, mb_per_s};

/// The rate after the fall is at most this share of the rate before.
pub const FALL: f64 = 0.5;
/// A stall is a command this long at least...
pub const STALL_MIN_NS: u64 = 100_000_000;
/// ...and this many times the time a write took before the fall.
const STALL_TIMES: f64 = 20.0;
/// Stalls after the fall that make the pattern (fewer could be a host's hiccup or a slow sector).
pub const MIN_STALLS: usize = 3;
/// The stalls take at least this share of the time after the fall.
const STALL_SHARE: f64 = 0.3;
/// Idle time restored at least this share of the media cache: it drained.
const RESTORED: f64 = 0.5;

/// What the first random writes showed: where the rate fell and the stalls after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Fall {
    pub step: WriteStep,
    /// Commands at least this long count as stalls.
    pub stall_ns: u64,
    /// The stalls after the fall, sorted by length.
    pub after: Vec<u64>,
    /// Stalls before it.
    pub before: usize,
    /// Share of the time after the fall the stalls took.
    pub share: f64,
    /// Bytes written before the first stall after the fall: what the media cache took.
    pub absorbed: u64,
}

impl Fall {
    /// The rate fell, and stalls after it (and not before it) hold the drive most of the time: band cleaning.
    pub fn stalls(&self) -> bool {
        self.step.sustained_mb_per_s <= FALL * self.step.burst_mb_per_s
            && self.after.len() >= MIN_STALLS
            && self.before <= (self.after.len() / 10).max(1)
            && self.share >= STALL_SHARE
    }

    fn percentile(&self, p: f64) -> u64 {
        let n = self.after.len();
        if n == 0 {
            return 0;
        }
        self.after[((n as f64 * p).ceil() as usize).clamp(1, n) - 1]
    }
    pub fn p99_ns(&self) -> u64 {
        self.percentile(0.99)
    }
    pub fn max_ns(&self) -> u64 {
        self.after.last().copied().unwrap_or(0)
    }
}

/// A run's stretches as a write the write-cache rule can fit (positions play no part: a flat curve).
fn as_write(w: &RandomWrites, block_size: u64) -> WriteData {
    WriteData {
        block_size,
        queue_depth: 1,
        region: 0,
        written: w.written,
        duration_ns: w.duration_ns,
        points: w
            .points
            .iter()
            .map(|p| StreamPoint {
                t_ns: p.t_ns,
                offset: 0,
                bytes: p.bytes,
                mb_per_s: p.mb_per_s,
                pass: 0,
            })
            .collect(),
    }
}

/// The fall in a run of random writes of `block_size`, with the stalls around it, if the rate fell at all.
pub fn fall(w: &RandomWrites, block_size: u64) -> Option<Fall> {
    let flat: [PositionRate; 0] = [];
    let step = step(&as_write(w, block_size), &flat)?;
    let per_write = block_size as f64 * 1e3 / step.burst_mb_per_s.max(1e-9);
    let stall_ns = STALL_MIN_NS.max((STALL_TIMES * per_write) as u64);
    // The stretch the step falls in may hold the first stall.
    let slack = w.points.iter().map(|p| p.bytes).max().unwrap_or(0);
    let mut after = Vec::new();
    let mut before = 0;
    let mut absorbed = None;
    for s in w.stalls.iter().filter(|s| s.latency_ns >= stall_ns) {
        if s.written + slack >= step.written_before {
            absorbed.get_or_insert(s.written);
            after.push(s.latency_ns);
        } else {
            before += 1;
        }
    }
    after.sort_unstable();
    let share = after.iter().sum::<u64>() as f64 / step.after_ns.max(1) as f64;
    Some(Fall {
        step,
        stall_ns,
        after,
        before,
        share: share.min(1.0),
        absorbed: absorbed.unwrap_or(step.written_before),
    })
}

/// Whether the first writes have shown enough to stop: band cleaning seen for a while after the fall.
pub fn settled(w: &RandomWrites, block_size: u64) -> bool {
    fall(w, block_size).is_some_and(|f| {
        f.stalls() && f.after.len() >= 2 * MIN_STALLS && f.step.after_ns >= 2_000_000_000
    })
}

/// Bytes the writes after the idle time took before their first stall of at least `stall_ns` (all they wrote
/// when none stalled).
pub fn absorbed(w: &RandomWrites, stall_ns: u64) -> u64 {
    w.stalls
        .iter()
        .find(|s| s.latency_ns >= stall_ns)
        .map_or(w.written, |s| s.written)
}

/// What the device's identity says for or against a shingled disk: (raise, lower) reasons.
fn facts(id: Option<&Identity>, hard_disk: bool) -> (Vec<String>, Vec<String>) {
    let (mut up, mut down) = (Vec::new(), Vec::new());
    let Some(dev) = id.and_then(|i| i.devices().next()) else {
        return (up, down);
    };
    if let Some(z) = dev.zoned.as_deref().filter(|z| *z != "none") {
        up.push(format!("the kernel sees it as zoned ({z})"));
    }
    let rotational = crate::zones::rotational(id);
    if rotational == Some(true) && dev.discard_max_bytes.is_some_and(|d| d > 0) {
        up.push("it takes TRIM though it rotates".into());
    }
    if let Some(m) = dev.hardware.as_ref().and_then(|h| h.model.as_deref()) {
        if known_dm_smr(m) {
            up.push(format!("{m} is a model sold as drive-managed SMR"));
        }
    }
    if rotational == Some(false) && !hard_disk {
        down.push(
            "the device says it does not rotate: flash that garbage-collects stalls alike".into(),
        );
    }
    (up, down)
}

/// Model numbers of drives their makers list as drive-managed SMR (WD Red EFAX, Seagate Barracuda ST…DM…,
/// Toshiba P300/DT02 of 4–6 TB).
pub fn known_dm_smr(model: &str) -> bool {
    let m = model.to_ascii_uppercase();
    let wd = m.contains("WD") && m.contains("EFAX");
    let seagate = m.starts_with("ST")
        && ["DM004", "DM005", "DM007", "DM008", "DM010"]
            .iter()
            .any(|s| m.contains(s));
    let toshiba = ["HDWD240", "HDWD260", "DT02ABA400", "DT02ABA600"]
        .iter()
        .any(|s| m.contains(s));
    wd || seagate || toshiba
}

fn raise(c: Confidence) -> Confidence {
    match c {
        Confidence::Low => Confidence::Medium,
        _ => Confidence::High,
    }
}

fn lower(c: Confidence) -> Confidence {
    match c {
        Confidence::High => Confidence::Medium,
        _ => Confidence::Low,
    }
}

/// The finding and the outcome of the SMR experiment. `hard_disk`: the read curve falls with position as a hard
/// disk's does.
pub fn assess(d: &SmrData, id: Option<&Identity>, hard_disk: bool) -> (Option<Finding>, Outcome) {
    let outcome = |verdict, text: String| Outcome {
        experiment: Experiment::Smr,
        verdict,
        text,
    };
    let w = &d.fill;
    let secs = w.duration_ns as f64 / 1e9;
    let rate = mb_per_s(w.written, w.duration_ns);
    let bs = format_size(d.block_size);
    let Some(f) =
        fall(w, d.block_size).filter(|f| f.step.sustained_mb_per_s <= FALL * f.step.burst_mb_per_s)
    else {
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
                    "none: random {bs} writes ran at {} for {} ({secs:.1} s) without a fall",
                    format_rate(rate),
                    format_size(w.written)
                ),
            ),
        );
    };
    let s = &f.step;
    let fell = format!(
        "random {bs} writes fell from {} to {} after {}",
        format_rate(s.burst_mb_per_s),
        format_rate(s.sustained_mb_per_s),
        format_size(f.absorbed)
    );
    if !f.stalls() {
        let longest = w.stalls.iter().map(|s| s.latency_ns).max().unwrap_or(0);
        let (verdict, why) = if f.before > (f.after.len() / 10).max(1) {
            (
                Verdict::Inconclusive,
                format!(
                    "stalls came before the fall as well ({} before, {} after)",
                    f.before,
                    f.after.len()
                ),
            )
        } else {
            (
                Verdict::NotFound,
                format!(
                    "{} stall{} of {:.0} ms or more after it, {:.0} % of the time (the longest write {:.0} ms): a write-back or SLC cache, not band cleaning",
                    f.after.len(),
                    if f.after.len() == 1 { "" } else { "s" },
                    f.stall_ns as f64 / 1e6,
                    f.share * 100.0,
                    longest as f64 / 1e6
                ),
            )
        };
        return (None, outcome(verdict, format!("none: {fell}, {why}")));
    }
    let idle_s = d.idle_ns.map(|n| n as f64 / 1e9);
    let restored = d
        .again
        .as_ref()
        .map(|a| absorbed(a, f.stall_ns).min(f.absorbed));
    let (mut confidence, idle_text) = match (idle_s, restored) {
        (Some(idle), Some(r)) => {
            let share = r as f64 / f.absorbed.max(1) as f64;
            let text = format!(
                "{idle:.0} s idle restored {:.0} % of it{}",
                share * 100.0,
                if share >= 0.99 {
                    ""
                } else {
                    " (drained in part)"
                }
            );
            if share >= RESTORED {
                (Confidence::High, text)
            } else {
                (
                    Confidence::Low,
                    format!("{text}: idle time did not drain it"),
                )
            }
        }
        _ => (
            Confidence::Medium,
            "no idle time was left to see it drain".into(),
        ),
    };
    let (up, down) = facts(id, hard_disk);
    if !up.is_empty() {
        confidence = raise(confidence);
    }
    if !down.is_empty() {
        confidence = lower(confidence);
    }
    let mut claim = format!(
        "drive-managed SMR: random {bs} writes ran at {} for {} (its media cache), then {} with {} stalls (p99 {:.0} ms, max {:.0} ms); {idle_text}",
        format_rate(s.burst_mb_per_s),
        format_size(f.absorbed),
        format_rate(s.sustained_mb_per_s),
        f.after.len(),
        f.p99_ns() as f64 / 1e6,
        f.max_ns() as f64 / 1e6,
    );
    for why in up.iter().chain(&down) {
        claim.push_str("; ");
        claim.push_str(why);
    }
    let mut numbers = vec![
        ("media_cache_bytes", f.absorbed as f64),
        ("before_mb_per_s", s.burst_mb_per_s),
        ("after_mb_per_s", s.sustained_mb_per_s),
        ("stalls", f.after.len() as f64),
        ("stall_p99_s", f.p99_ns() as f64 / 1e9),
        ("stall_max_s", f.max_ns() as f64 / 1e9),
    ];
    if let (Some(idle), Some(r)) = (idle_s, restored) {
        numbers.push(("idle_s", idle));
        numbers.push(("restored_share", r as f64 / f.absorbed.max(1) as f64));
        numbers.push(("drained_mb_per_s", r as f64 / idle / 1e6));
    }
    let f = Finding::new(FindingCode::Smr, confidence, claim, &numbers);
    let text = f.claim.clone();
    (Some(f), outcome(Verdict::Found, text))
}
