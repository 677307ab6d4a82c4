//! Findings of a durability run, from its record alone: the flush-honesty rule over the run's
//! write-then-flush pairs, its sustained write rate and what the storage said of its cache.

use crate::flush_honesty::{self, FlushInput, FlushSample, FlushVerdict, KernelWriteCache};
use drivescope_record::durability::DurabilityRecord;
use drivescope_record::Finding;

/// What the flush rule is given for a run.
pub fn input_of(r: &DurabilityRecord) -> FlushInput {
    FlushInput {
        samples: r
            .pairs
            .iter()
            .map(|p| FlushSample {
                bytes: p.bytes,
                write_ns: p.write_ns,
                flush_ns: p.flush_ns,
            })
            .collect(),
        media_bytes_per_s: r.sustained.as_ref().map(|s| s.bytes_per_s),
        power_loss_protection: r.cache.power_loss_protection == Some(true),
        kernel_write_cache: r
            .cache
            .write_cache
            .as_deref()
            .and_then(KernelWriteCache::parse),
    }
}

/// The flush verdict of a run.
pub fn verdict(r: &DurabilityRecord) -> FlushVerdict {
    flush_honesty::judge(&input_of(r))
}

/// The findings a run supports (none where flushes are honest or nothing was pending).
pub fn findings(r: &DurabilityRecord) -> Vec<Finding> {
    if r.pairs.is_empty() && r.sustained.is_none() {
        return Vec::new();
    }
    flush_honesty::finding(&verdict(r)).into_iter().collect()
}

/// Judges a fresh run: its flush verdict with the evidence, and its findings.
pub fn assess(r: &mut DurabilityRecord) {
    if r.pairs.is_empty() && r.sustained.is_none() {
        return;
    }
    let v = verdict(r);
    r.data.flush_honesty = Some(flush_honesty::to_record(&v));
    r.header.findings = flush_honesty::finding(&v).into_iter().collect();
}
