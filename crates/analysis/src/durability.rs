//! Findings of a durability run, from its record alone: the flush-honesty rule over the run's
//! write-then-flush pairs, its sustained write rate and what the storage said of its cache.

use crate::flush_honesty::{self, FlushInput, FlushSample, FlushVerdict, KernelWriteCache};
use drivescope_record::durability::{CacheWord, DurabilityRecord, FlushPair, SustainedWrite};
use drivescope_record::{Finding, Header};

/// What the flush rule is given for a run.
pub fn input_of(r: &DurabilityRecord) -> FlushInput {
    input_from(&r.pairs, r.sustained.as_ref(), &r.cache, r.device_flushes)
}

/// What the flush rule is given for the flush experiment's `pairs` after its `sustained` write, with what the
/// storage said of its cache and the flush requests the block layer counted (`durability` and `diagnose`
/// alike).
pub fn input_from(
    pairs: &[FlushPair],
    sustained: Option<&SustainedWrite>,
    cache: &CacheWord,
    device_flushes: Option<u64>,
) -> FlushInput {
    FlushInput {
        samples: pairs
            .iter()
            .map(|p| FlushSample {
                bytes: p.bytes,
                write_ns: p.write_ns,
                flush_ns: p.flush_ns,
            })
            .collect(),
        media_bytes_per_s: sustained.map(|s| s.bytes_per_s),
        power_loss_protection: cache.power_loss_protection == Some(true),
        kernel_write_cache: cache
            .write_cache
            .as_deref()
            .and_then(KernelWriteCache::parse),
        device_flushes,
    }
}

/// The flush verdict of a run.
pub fn verdict(r: &DurabilityRecord) -> FlushVerdict {
    judged(&r.header, &input_of(r))
}

/// The flush verdict over `input`, measured on the target `header` describes. On memory (tmpfs, zram, a RAM
/// disk) there is no media behind a cache to reach: the rate the stream measured is the allocator's, and
/// nothing is said.
pub fn judged(header: &Header, input: &FlushInput) -> FlushVerdict {
    if let Some(m) = header.memory() {
        return FlushVerdict::Inconclusive {
            reason: format!("the target is memory ({m}): no media lies behind a cache to reach"),
        };
    }
    let verdict = flush_honesty::judge(input);
    match &verdict {
        FlushVerdict::Early {
            by: flush_honesty::EarlyBy::Device,
            media_bytes_per_s,
            sizes,
        } if header.device.as_ref().is_some_and(|d| d.solid_state_hardware()) => {
            FlushVerdict::Inconclusive {
                reason: format!(
                    "flushes returned before the data could have been written at the sustained {:.1} MB/s \
                     (at {} sizes), but on solid-state hardware that is also what a non-volatile fast tier \
                     (an SLC cache, durable once written) does, not only a volatile cache that loses them: \
                     timing cannot tell them apart; the power-cut test can (durability --power-cut)",
                    media_bytes_per_s / 1e6,
                    sizes.iter().filter(|s| s.early()).count()
                ),
            }
        }
        _ => verdict,
    }
}

/// etcd's guidance for the disk under its write-ahead log: the 99th percentile of its WAL fsync
/// durations below 10 ms (etcd documentation, "Hardware recommendations" and the FAQ on
/// `wal_fsync_duration_seconds`). A WAL append is a small write and an `fdatasync`.
pub const ETCD_WAL_P99_NS: u64 = 10_000_000;

/// Commits a percentile needs before the need is judged.
const NEED_COMMITS: u64 = 100;

/// Commits the mean needs before a rate is judged against the user's need.
const RATE_COMMITS: u64 = 16;

/// The named needs the commit costs miss: etcd's WAL fsync p99 and the commits per second the user
/// asked for (`--need-commits`); nothing for a need met or too few commits to say.
pub fn needs(r: &DurabilityRecord) -> Vec<Finding> {
    etcd_need(r).into_iter().chain(rate_need(r)).collect()
}

/// The 4 KiB `fdatasync` commits at one committer, into `into` where the run measured it so.
fn wal_row(
    r: &DurabilityRecord,
    into: drivescope_record::durability::CommitInto,
) -> Option<&drivescope_record::durability::CommitCostRow> {
    use drivescope_record::durability::CommitModeName;
    let rows = || {
        r.data
            .commits
            .iter()
            .filter(|c| c.mode == CommitModeName::Fdatasync && c.committers == 1 && c.size == 4096)
    };
    rows()
        .find(|c| c.into == Some(into))
        .or_else(|| rows().find(|c| c.into.is_none()))
}

/// etcd's WAL fsync p99, from commits into a new file: etcd preallocates its WAL segments, and the
/// extents it allocates are not yet written, so its commits make the file system record them as
/// written, as a new file's do.
fn etcd_need(r: &DurabilityRecord) -> Option<Finding> {
    use drivescope_record::durability::CommitInto;
    use drivescope_record::{Confidence, FindingCode};
    let c = wal_row(r, CommitInto::New)?;
    if c.count < NEED_COMMITS || c.p99_ns <= ETCD_WAL_P99_NS {
        return None;
    }
    Some(Finding::new(
        FindingCode::Other("commit_need".into()),
        Confidence::High,
        format!(
            "Commits are too slow for etcd's write-ahead log: a 4 KiB write + fdatasync took {:.1} ms \
             at the 99th percentile ({} commits), where etcd asks for under {:.0} ms.",
            c.p99_ns as f64 / 1e6,
            c.count,
            ETCD_WAL_P99_NS as f64 / 1e6
        ),
        &[
            ("p99_ms", c.p99_ns as f64 / 1e6),
            ("p50_ms", c.p50_ns as f64 / 1e6),
            ("commits", c.count as f64),
            ("need_p99_ms", ETCD_WAL_P99_NS as f64 / 1e6),
        ],
    ))
}

/// A database committing one transaction at a time makes at most one commit per commit latency: the
/// rate of the 4 KiB `fdatasync` commits at one committer into written blocks (a recycled log's, as
/// PostgreSQL's WAL and InnoDB's redo log are, and as `pg_test_fsync` measures), against the rate the
/// user said the workload needs.
fn rate_need(r: &DurabilityRecord) -> Option<Finding> {
    use drivescope_record::durability::CommitInto;
    use drivescope_record::{Confidence, FindingCode};
    let need = r.need_commits_per_s?;
    let c = wal_row(r, CommitInto::Written)?;
    let rate = c.serial_rate()?;
    if c.count < RATE_COMMITS || rate >= need {
        return None;
    }
    let into = match c.into {
        Some(CommitInto::Written) => " into blocks already written",
        Some(CommitInto::New) | None if r.on == "file" => " into a new file",
        _ => "",
    };
    Some(Finding::new(
        FindingCode::Other("commit_rate".into()),
        Confidence::High,
        format!(
            "Commits are too slow for the {need:.0} commits/s asked: one committer made {rate:.0} \
             commits/s (4 KiB write + fdatasync{into}, {} each on average, {} commits); \
             a database committing one transaction at a time gets no more.",
            drivescope_units::format_latency(1e9 / rate),
            c.count
        ),
        &[
            ("commits_per_s", rate),
            ("need_commits_per_s", need),
            ("mean_ms", 1e3 / rate),
            ("commits", c.count as f64),
        ],
    ))
}

/// The findings a run supports: flushes that return early (none where they are honest or
/// nothing was pending), and commits that miss a named need.
pub fn findings(r: &DurabilityRecord) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    if !(r.pairs.is_empty() && r.sustained.is_none()) {
        out.extend(flush_honesty::finding(&verdict(r)));
    }
    out.extend(needs(r));
    out.extend(crate::durability_unflushed::finding(r));
    out.extend(r.power_cut.as_ref().and_then(crate::power_cut::finding));
    out
}

/// Judges a fresh run: its flush verdict with the evidence, and its findings.
pub fn assess(r: &mut DurabilityRecord) {
    if !(r.pairs.is_empty() && r.sustained.is_none()) {
        r.data.flush_honesty = Some(flush_honesty::to_record(&verdict(r)));
    }
    r.header.findings = findings(r);
}

#[cfg(test)]
#[path = "durability_needs_tests.rs"]
mod needs_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::{Kind, TargetInfo, TargetType};

    /// Pairs whose flushes take nothing after writes four times faster than the sustained rate.
    pub(super) fn early_run(memory: Option<&str>) -> DurabilityRecord {
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
            sustained: Some(SustainedWrite {
                bytes: 64 << 20,
                write_ns: 671_088_640,
                flush_ns: 1_000,
                tail_bytes_per_s: rate,
                bytes_per_s: rate,
            }),
            pairs,
            budget_ns: 1,
            duration_ns: 1,
            ..DurabilityRecord::empty(header, "file")
        }
    }

    #[test]
    fn commits_slower_than_etcd_asks_are_named_with_the_source_numbers() {
        use drivescope_record::durability::{CommitCostRow, CommitModeName};
        let row = |p99_ns, count| CommitCostRow {
            mode: CommitModeName::Fdatasync,
            committers: 1,
            size: 4096,
            count,
            bytes: count * 4096,
            flushes: count,
            device_flushes: None,
            p50_ns: 2_000_000,
            p99_ns,
            max_ns: p99_ns,
            into: None,
            mean_ns: 0,
        };
        let mut r = early_run(Some("tmpfs"));
        for (p99, count, said) in [
            (25_000_000, 500, true),
            (ETCD_WAL_P99_NS, 500, false),
            (25_000_000, 99, false),
        ] {
            r.data.commits = vec![row(p99, count)];
            let f = needs(&r).pop();
            assert_eq!(f.is_some(), said, "{p99} {count}");
            if let Some(f) = f {
                assert!(f.claim.contains("25.0 ms") && f.claim.contains("under 10 ms"));
                assert_eq!(f.evidence.numbers["need_p99_ms"], 10.0);
            }
        }
        // Another mode or committer count is not what etcd's WAL does.
        r.data.commits = vec![CommitCostRow {
            committers: 4,
            ..row(25_000_000, 500)
        }];
        assert!(needs(&r).is_empty());
    }

    #[test]
    fn on_solid_state_hardware_early_flushes_are_inconclusive_as_an_slc_tier_does_the_same() {
        use drivescope_probe::{BlockInfo, BlockRole, Hardware, Identity, Transport};
        use drivescope_record::durability::FlushHonestyVerdict;
        let disk = |rotational: Option<bool>, transport: Transport, hardware: bool| {
            let mut b = BlockInfo::new("sda", "/dev/sda".into(), BlockRole::Disk, transport);
            b.rotational = rotational;
            b.hardware = hardware.then(Hardware::default);
            Identity::of_block(b)
        };
        for (id, early) in [
            (disk(Some(false), Transport::Nvme, true), false),
            (disk(Some(false), Transport::Sata, true), false),
            (disk(Some(false), Transport::Usb, true), false),
            // A rotating disk has no flash tier; a virtual disk's flag says nothing of the host's
            // storage; without hardware known, nothing is assumed.
            (disk(Some(true), Transport::Sata, true), true),
            (disk(None, Transport::Sata, true), true),
            (disk(Some(false), Transport::Virtio, true), true),
            (disk(Some(false), Transport::Sata, false), true),
        ] {
            let mut r = early_run(None);
            r.header.device = Some(id.clone());
            assess(&mut r);
            let f = r.data.flush_honesty.as_ref().unwrap();
            let want = if early {
                FlushHonestyVerdict::Early
            } else {
                FlushHonestyVerdict::Inconclusive
            };
            assert_eq!(f.verdict, want, "{:?}", id.block_devices().next());
            assert_eq!(r.broke_promise(), early);
            if !early {
                let why = f.reason.as_deref().unwrap();
                assert!(why.contains("SLC") && why.contains("--power-cut"), "{why}");
                assert!(
                    why.contains("100.0 MB/s") && why.contains("at 4 sizes"),
                    "{why}"
                );
            }
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
