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

/// The flush verdict of a run. On memory (tmpfs, zram, a RAM disk) there is no media behind a
/// cache to reach: the rate the stream measured is the allocator's, and nothing is said.
pub fn verdict(r: &DurabilityRecord) -> FlushVerdict {
    if let Some(m) = r.header.memory() {
        return FlushVerdict::Inconclusive {
            reason: format!("the target is memory ({m}): no media lies behind a cache to reach"),
        };
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::durability::{DurabilityData, FlushPair, SustainedWrite};
    use drivescope_record::{Header, Kind, TargetInfo, TargetType};

    /// Pairs whose flushes take nothing after writes four times faster than the sustained rate.
    fn early_run(memory: Option<&str>) -> DurabilityRecord {
        let mut header = Header::now(
            Kind::Durability,
            TargetInfo {
                path: "/x".into(),
                kind: TargetType::File,
                size: 0,
                logical_block_size: 512,
            },
        );
        header.memory = memory.map(String::from);
        let rate = 100e6;
        let pairs = (0..3)
            .flat_map(|_| [1u64, 2, 4, 8])
            .map(|mib| {
                let bytes = mib << 20;
                FlushPair {
                    bytes,
                    write_ns: (bytes as f64 / (4.0 * rate) * 1e9) as u64,
                    flush_ns: 20_000,
                }
            })
            .collect();
        DurabilityRecord {
            header,
            on: "file".into(),
            data: DurabilityData::default(),
            cache: Default::default(),
            sustained: Some(SustainedWrite {
                bytes: 64 << 20,
                write_ns: 671_088_640,
                flush_ns: 1_000,
                tail_bytes_per_s: rate,
                bytes_per_s: rate,
            }),
            pairs,
            bytes_written: 0,
            flushes: 0,
            budget_ns: 1,
            duration_ns: 1,
            interrupted: false,
        }
    }

    #[test]
    fn early_flushes_are_found_on_a_disk_and_nothing_is_said_of_memory() {
        let mut disk = early_run(None);
        assess(&mut disk);
        let f = disk.data.flush_honesty.as_ref().unwrap();
        assert_eq!(
            f.verdict,
            drivescope_record::durability::FlushHonestyVerdict::Early
        );
        assert_eq!(disk.header.findings.len(), 1);
        assert_eq!(
            findings(&disk).len(),
            1,
            "the stored record gives the same finding"
        );
        let mut ram = early_run(Some("tmpfs"));
        assess(&mut ram);
        let f = ram.data.flush_honesty.as_ref().unwrap();
        assert_eq!(
            f.verdict,
            drivescope_record::durability::FlushHonestyVerdict::Inconclusive
        );
        assert!(f.reason.as_deref().unwrap().contains("memory (tmpfs)"));
        assert!(ram
            .header
            .findings
            .iter()
            .all(|f| f.confidence == drivescope_record::Confidence::Inconclusive));
    }
}
