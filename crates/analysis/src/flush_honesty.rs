//! Does a flush empty the cache it claims to? A rule from physics, over timed (write, flush) pairs.
//!
//! The input is a series of samples at growing sizes X, each size repeated: X bytes written since the last
//! flush (taking `write_ns`), then one flush (taking `flush_ns`), with the device's measured sustained media
//! write rate R. A flush that truly moves a volatile cache to the media cannot return before the bytes still
//! pending have been written at R. The bound is conservative: of the X bytes, as many as R could have
//! drained during the writes themselves (R × `write_ns`) are assumed already on the media, so
//!
//! ```text
//!   bound = max(0, X / (R × 1.25) − write_time)
//! ```
//!
//! R is a measurement too, and a device's write rate varies with where and how it writes: the bound takes
//! the media 25 % faster than measured, so a rate measured up to a fifth low raises no alarm.
//! A flush far below that bound (under a quarter of it), at several sizes and at most of each size's
//! repeats, has returned before the data can have reached the media. Where the bound is under the timing
//! noise (1 ms) a sample says nothing; where writes ran at or below R nothing was pending (no cache, or a
//! write-through one) and flushes may be instant. A declared power-loss protection makes early flushes
//! honest: the cache survives a power cut. When the kernel treats the cache as write-through
//! (`queue/write_cache` = "write through") it sends no flush to the device at all, so an early return is
//! the kernel's doing, not the device's, and the verdict says so.

use crate::middle::middle;
use drivescope_record::durability::{
    EarlyFlushBy, FlushHonesty, FlushHonestyVerdict, FlushSizeRow,
};
use drivescope_record::{Confidence, Finding, FindingCode};

/// A bound under this (ns) is within the timing noise of one flush: the sample says nothing.
pub const NOISE_NS: f64 = 1_000_000.0;
/// A flush under this fraction of its bound is "far below" it.
pub const FAR_BELOW: f64 = 0.25;
/// The media rate is taken this much faster than measured (its measurement error).
pub const RATE_MARGIN: f64 = 1.25;
/// Sizes, each far below its bound, needed to say flushes return early.
pub const MIN_SIZES: usize = 3;
/// Repeats of one size needed to count it.
pub const MIN_REPEATS: usize = 2;

/// One write-then-flush pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlushSample {
    /// Bytes written since the last flush.
    pub bytes: u64,
    /// Time the writes of those bytes took (ns).
    pub write_ns: u64,
    /// Time the flush took (ns).
    pub flush_ns: u64,
}

/// The kernel's `queue/write_cache` value for the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelWriteCache {
    /// "write back": the kernel sends flushes to the device.
    WriteBack,
    /// "write through": the kernel sends no flush to the device.
    WriteThrough,
}

impl KernelWriteCache {
    /// From the sysfs text ("write back" / "write through"); anything else is unknown.
    pub fn parse(s: &str) -> Option<KernelWriteCache> {
        match s.trim() {
            "write back" => Some(KernelWriteCache::WriteBack),
            "write through" => Some(KernelWriteCache::WriteThrough),
            _ => None,
        }
    }
}

/// What the rule is given.
#[derive(Debug, Clone, PartialEq)]
pub struct FlushInput {
    pub samples: Vec<FlushSample>,
    /// Sustained media write rate (bytes/s); `None` where it was not measured.
    pub media_bytes_per_s: Option<f64>,
    /// The device declares power-loss protection for its cache.
    pub power_loss_protection: bool,
    pub kernel_write_cache: Option<KernelWriteCache>,
    /// Flush requests the block layer counted on the device during the experiment; none where not counted.
    pub device_flushes: Option<u64>,
}

/// One size's evidence: medians over its repeats.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SizeEvidence {
    pub bytes: u64,
    pub repeats: usize,
    pub write_ns: f64,
    pub flush_ns: f64,
    /// Least time an honest flush of what could still be pending takes (ns).
    pub bound_ns: f64,
    /// Repeats whose flush was far below their own bound.
    pub below: usize,
}

impl SizeEvidence {
    /// Most of this size's repeats flushed far below their bound.
    pub fn early(&self) -> bool {
        self.repeats >= MIN_REPEATS && self.below * 3 >= self.repeats * 2
    }
}

/// Who returns flushes early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EarlyBy {
    /// The kernel sends flushes to the device (or its setting is unknown): the device returns them early.
    Device,
    /// The kernel treats the cache as write-through and sends no flush to the device.
    KernelWriteThrough,
    /// The device saw no flush at all (the block layer counted none): the file system above it sent none.
    NotSent,
}

/// The rule's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum FlushVerdict {
    /// Flushes return before the data can have reached the media.
    Early {
        by: EarlyBy,
        media_bytes_per_s: f64,
        /// Every size whose bound is above the noise; `early()` marks those that returned early.
        sizes: Vec<SizeEvidence>,
    },
    /// Flushes take at least what the pending bytes need at the media rate (silent).
    Honest { sizes: Vec<SizeEvidence> },
    /// Writes ran at or below the media rate: nothing was pending, so an instant flush is honest (silent).
    NothingPending,
    /// Power-loss protection is declared: an early flush keeps the data (a note).
    Protected,
    /// The samples cannot settle it.
    Inconclusive { reason: String },
}

/// The bound for one sample at measured media rate `r` (bytes/s), in ns.
pub fn bound_ns(s: &FlushSample, r: f64) -> f64 {
    (s.bytes as f64 / (r * RATE_MARGIN) * 1e9 - s.write_ns as f64).max(0.0)
}

/// The verdict over the samples.
pub fn judge(input: &FlushInput) -> FlushVerdict {
    let r = match input.media_bytes_per_s {
        Some(r) if r.is_finite() && r > 0.0 => r,
        _ => {
            return FlushVerdict::Inconclusive {
                reason: "the media write rate is unknown".into(),
            }
        }
    };
    if input.power_loss_protection {
        return FlushVerdict::Protected;
    }
    let samples: Vec<&FlushSample> = input.samples.iter().filter(|s| s.bytes > 0).collect();
    if samples.is_empty() {
        return FlushVerdict::Inconclusive {
            reason: "no write-then-flush samples".into(),
        };
    }
    // Even had the writes been instant, X/R under the noise says nothing.
    if samples
        .iter()
        .all(|s| (s.bytes as f64) / r * 1e9 < NOISE_NS)
    {
        return FlushVerdict::Inconclusive {
            reason: format!(
                "every size drains in under {:.0} ms at the media rate: within the timing noise",
                NOISE_NS / 1e6
            ),
        };
    }
    let mut by_size: std::collections::BTreeMap<u64, Vec<&FlushSample>> = Default::default();
    for s in &samples {
        by_size.entry(s.bytes).or_default().push(s);
    }
    let sizes: Vec<SizeEvidence> = by_size
        .into_iter()
        .map(|(bytes, v)| SizeEvidence {
            bytes,
            repeats: v.len(),
            write_ns: middle(&v.iter().map(|s| s.write_ns as f64).collect::<Vec<_>>()),
            flush_ns: middle(&v.iter().map(|s| s.flush_ns as f64).collect::<Vec<_>>()),
            bound_ns: middle(&v.iter().map(|s| bound_ns(s, r)).collect::<Vec<_>>()),
            below: v
                .iter()
                .filter(|s| {
                    let b = bound_ns(s, r);
                    b >= NOISE_NS && (s.flush_ns as f64) < FAR_BELOW * b
                })
                .count(),
        })
        .filter(|e| e.bound_ns >= NOISE_NS)
        .collect();
    if sizes.is_empty() {
        return FlushVerdict::NothingPending;
    }
    let early = sizes.iter().filter(|e| e.early()).count();
    if early >= MIN_SIZES {
        let by = match input.kernel_write_cache {
            Some(KernelWriteCache::WriteThrough) => EarlyBy::KernelWriteThrough,
            _ if input.device_flushes == Some(0) => EarlyBy::NotSent,
            _ => EarlyBy::Device,
        };
        return FlushVerdict::Early {
            by,
            media_bytes_per_s: r,
            sizes,
        };
    }
    if early > 0 {
        return FlushVerdict::Inconclusive {
            reason: format!(
                "flushes far below the bound at {early} size(s); {MIN_SIZES} are needed to say so"
            ),
        };
    }
    let counted = sizes.iter().filter(|e| e.repeats >= MIN_REPEATS).count();
    if counted == 0 {
        return FlushVerdict::Inconclusive {
            reason: format!("no size above the noise was repeated {MIN_REPEATS} times"),
        };
    }
    FlushVerdict::Honest { sizes }
}

/// The finding a verdict supports: a claim for early flushes, a note for a protected cache, an
/// inconclusive one with its reason; nothing for honest or cache-less flushes.
pub fn finding(v: &FlushVerdict) -> Option<Finding> {
    let code = FindingCode::Other("flush_honesty".into());
    match v {
        FlushVerdict::Early {
            by,
            media_bytes_per_s,
            sizes,
        } => {
            let early: Vec<&SizeEvidence> = sizes.iter().filter(|e| e.early()).collect();
            let who = match by {
                EarlyBy::Device => "the device returns them",
                EarlyBy::NotSent => {
                    "the device was sent none: the block layer counted no flush, so the file system \
                     above it sends none (mounted with barriers off: nobarrier, barrier=0)"
                }
                EarlyBy::KernelWriteThrough => {
                    "the kernel treats the cache as write-through and sends no flush"
                }
            };
            let mut numbers = vec![
                ("media_mb_per_s", media_bytes_per_s / 1e6),
                ("early_sizes", early.len() as f64),
            ];
            let names: Vec<(String, f64)> = early
                .iter()
                .flat_map(|e| {
                    let mib = e.bytes as f64 / 1_048_576.0;
                    [
                        (format!("flush_ms_at_{mib:.1}_mib"), e.flush_ns / 1e6),
                        (format!("bound_ms_at_{mib:.1}_mib"), e.bound_ns / 1e6),
                    ]
                })
                .collect();
            for (k, v) in &names {
                numbers.push((k.as_str(), *v));
            }
            let largest = early.iter().max_by_key(|e| e.bytes)?;
            Some(Finding::new(
                code,
                Confidence::High,
                format!(
                    "Flushes return before the data can have reached the media ({who}): after {:.1} MiB \
                     a flush took {:.2} ms where writing what could still be pending even at {:.0} MB/s \
                     takes at least {:.1} ms, at {} sizes.",
                    largest.bytes as f64 / 1_048_576.0,
                    largest.flush_ns / 1e6,
                    media_bytes_per_s * RATE_MARGIN / 1e6,
                    largest.bound_ns / 1e6,
                    early.len()
                ),
                &numbers,
            ))
        }
        FlushVerdict::Protected => Some(Finding::new(
            code,
            Confidence::Low,
            "protected: power-loss protection declared".into(),
            &[],
        )),
        FlushVerdict::Inconclusive { reason } => Some(Finding::new(
            code,
            Confidence::Inconclusive,
            format!("Whether flushes reach the media is not settled: {reason}."),
            &[],
        )),
        FlushVerdict::Honest { .. } | FlushVerdict::NothingPending => None,
    }
}

/// The verdict as the durability record keeps it, with its evidence.
pub fn to_record(v: &FlushVerdict) -> FlushHonesty {
    let rows = |sizes: &[SizeEvidence]| {
        sizes
            .iter()
            .map(|e| FlushSizeRow {
                bytes: e.bytes,
                repeats: e.repeats as u32,
                write_ns: e.write_ns,
                flush_ns: e.flush_ns,
                bound_ns: e.bound_ns,
                below: e.below as u32,
            })
            .collect()
    };
    let mut out = FlushHonesty {
        verdict: FlushHonestyVerdict::Inconclusive,
        early_by: None,
        media_bytes_per_s: None,
        reason: None,
        sizes: Vec::new(),
    };
    match v {
        FlushVerdict::Early {
            by,
            media_bytes_per_s,
            sizes,
        } => {
            out.verdict = FlushHonestyVerdict::Early;
            out.early_by = Some(match by {
                EarlyBy::Device => EarlyFlushBy::Device,
                EarlyBy::KernelWriteThrough => EarlyFlushBy::KernelWriteThrough,
                EarlyBy::NotSent => EarlyFlushBy::NotSent,
            });
            out.media_bytes_per_s = Some(*media_bytes_per_s);
            out.sizes = rows(sizes);
        }
        FlushVerdict::Honest { sizes } => {
            out.verdict = FlushHonestyVerdict::Honest;
            out.sizes = rows(sizes);
        }
        FlushVerdict::NothingPending => out.verdict = FlushHonestyVerdict::NothingPending,
        FlushVerdict::Protected => out.verdict = FlushHonestyVerdict::Protected,
        FlushVerdict::Inconclusive { reason } => out.reason = Some(reason.clone()),
    }
    out
}

#[cfg(test)]
#[path = "flush_honesty_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "flush_honesty_space_tests.rs"]
mod space_tests;
