//! Durability: what a commit costs, and whether flushes reach the media.

use serde::{Deserialize, Serialize};

/// How a commit was made durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommitModeName {
    /// `write` then `fdatasync`.
    Fdatasync,
    /// `write` then `fsync`.
    Fsync,
    /// Writes to a file opened `O_DSYNC`.
    ODsync,
}

/// What a file's commits wrote into: blocks the file did not have yet, or blocks already written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommitInto {
    /// A new test file: each commit fills a hole, so the file system also allocates (an appended log,
    /// SQLite's WAL, etcd's preallocated WAL segments whose extents are not written yet).
    New,
    /// A test file written in full and made durable before the commits: they overwrite data, as a
    /// recycled log does (PostgreSQL's WAL segments, InnoDB's redo log, `pg_test_fsync`).
    Written,
}

impl CommitInto {
    pub fn as_str(self) -> &'static str {
        match self {
            CommitInto::New => "new",
            CommitInto::Written => "written",
        }
    }
}

/// Commits of one mode, size and committer count: how many, and their latency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitCostRow {
    pub mode: CommitModeName,
    /// In a directory: what the commits wrote into (absent on a device, and in records made before
    /// both were measured, whose file commits all went to new files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub into: Option<CommitInto>,
    /// Threads committing at once (1: one commit at a time).
    pub committers: u32,
    /// Bytes per commit.
    pub size: u64,
    /// Commits, all committers together.
    pub count: u64,
    pub bytes: u64,
    /// `fdatasync`/`fsync` calls issued.
    pub flushes: u64,
    /// Flush requests the block layer counted on the device under the target while these commits ran
    /// (`/sys/class/block/DEV/stat`); absent where the kernel does not count them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_flushes: Option<u64>,
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub max_ns: u64,
    /// Mean commit latency (ns); 0 in records made before it was kept.
    #[serde(default)]
    pub mean_ns: u64,
}

impl CommitCostRow {
    /// Commits per second one committer makes, one after another: 1 / mean latency (the median where
    /// the mean was not kept). None for several committers.
    pub fn serial_rate(&self) -> Option<f64> {
        if self.committers != 1 {
            return None;
        }
        let ns = if self.mean_ns > 0 {
            self.mean_ns
        } else {
            self.p50_ns
        };
        (ns > 0).then(|| 1e9 / ns as f64)
    }
}

/// What the flush rule concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlushHonestyVerdict {
    /// Flushes return before the data can have reached the media.
    Early,
    /// Flushes take what the pending bytes need at the media rate.
    Honest,
    /// Writes ran at or below the media rate: nothing was pending.
    NothingPending,
    /// Power-loss protection is declared.
    Protected,
    /// The samples could not settle it (`reason` says why).
    Inconclusive,
}

impl FlushHonestyVerdict {
    /// The name as documents write it.
    pub fn as_str(self) -> &'static str {
        match self {
            FlushHonestyVerdict::Early => "early",
            FlushHonestyVerdict::Honest => "honest",
            FlushHonestyVerdict::NothingPending => "nothing_pending",
            FlushHonestyVerdict::Protected => "protected",
            FlushHonestyVerdict::Inconclusive => "inconclusive",
        }
    }
}

/// Who returned the flushes early.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EarlyFlushBy {
    /// The device.
    Device,
    /// The kernel, which treats the cache as write-through and sends no flush.
    KernelWriteThrough,
    /// The file system, which sent no flush to the device (the block layer counted none): mounted with
    /// barriers off.
    NotSent,
}

/// One size's evidence: medians over its repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlushSizeRow {
    /// Bytes written since the last flush.
    pub bytes: u64,
    pub repeats: u32,
    pub write_ns: f64,
    pub flush_ns: f64,
    /// The least time an honest flush of what could still be pending takes.
    pub bound_ns: f64,
    /// Repeats whose flush was far below their bound.
    pub below: u32,
}

/// The flush rule's verdict with the evidence behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlushHonesty {
    pub verdict: FlushHonestyVerdict,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub early_by: Option<EarlyFlushBy>,
    /// The measured sustained media write rate the bound used (bytes/s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_bytes_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<FlushSizeRow>,
}

/// Durability measurements: commit costs (modes × committers × sizes) and the flush verdict.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DurabilityData {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commits: Vec<CommitCostRow>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_honesty: Option<FlushHonesty>,
}

/// What the storage says of its own cache: the kernel's queue settings, and a declared
/// power-loss protection where something declares it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheWord {
    /// `queue/write_cache`: `write back` (the kernel sends flushes) or `write through`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_cache: Option<String>,
    /// `queue/fua`: the device takes Force Unit Access writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fua: Option<bool>,
    /// Power-loss protection declared for the cache (a lab disk declares it beside its image).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_loss_protection: Option<bool>,
}

impl CacheWord {
    /// What the storage under a target says of its cache: the first block device's queue settings, and
    /// the power-loss protection any of them declares (none known without an identity).
    pub fn of(id: Option<&drivescope_probe::Identity>) -> CacheWord {
        let Some(id) = id else {
            return CacheWord::default();
        };
        let first = id.block_devices().next();
        CacheWord {
            write_cache: first.and_then(|b| b.write_cache.clone()),
            fua: first.and_then(|b| b.fua),
            power_loss_protection: id
                .block_devices()
                .find_map(|b| b.loop_dev.as_ref()?.power_loss_protection),
        }
    }
}

/// The sustained write rate the flush bound used, and how it was measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SustainedWrite {
    /// Bytes written in one sequential stream, then flushed.
    pub bytes: u64,
    /// Time of the writes (ns).
    pub write_ns: u64,
    /// Time of the flush after them (ns).
    pub flush_ns: u64,
    /// Rate over the stream's second half (bytes/s), the cache full by then if it is smaller.
    pub tail_bytes_per_s: f64,
    /// The rate the bound uses: the lower of the tail's and the whole stream's with its flush.
    pub bytes_per_s: f64,
}

/// One timed write-then-flush pair of the flush-honesty experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlushPair {
    pub bytes: u64,
    pub write_ns: u64,
    pub flush_ns: u64,
}

/// `drivescope durability` (`"kind": "durability"`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DurabilityRecord {
    #[serde(flatten)]
    pub header: crate::Header,
    /// `file` (test files made and removed in the directory the header names) or `device`.
    pub on: String,
    #[serde(flatten)]
    pub data: DurabilityData,
    #[serde(default)]
    pub cache: CacheWord,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sustained: Option<SustainedWrite>,
    /// Every write-then-flush pair, in the order they ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pairs: Vec<FlushPair>,
    /// Bytes written in all.
    pub bytes_written: u64,
    /// Flushes (`fdatasync`/`fsync` calls) issued in all.
    pub flushes: u64,
    /// Flush requests the block layer counted on the device under the target during the flush experiment;
    /// absent where the kernel does not count them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_flushes: Option<u64>,
    /// The time the run was allowed (ns), and the time it took.
    pub budget_ns: u64,
    pub duration_ns: u64,
    /// Stopped (SIGINT/SIGTERM) before it finished.
    #[serde(default)]
    pub interrupted: bool,
    /// `durability --verify`: the guided power-cut test's records checked after the cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_cut: Option<crate::power_cut::PowerCutCheck>,
    /// `--need-commits N`: the commits per second the user's workload needs at one committer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub need_commits_per_s: Option<f64>,
}

impl DurabilityRecord {
    /// A run on `on` (`file` or `device`) that has measured nothing yet: no commits, no flush experiment,
    /// nothing written; the fields a run fills are set over it.
    pub fn empty(header: crate::Header, on: &str) -> DurabilityRecord {
        DurabilityRecord {
            header,
            on: on.into(),
            data: DurabilityData::default(),
            cache: CacheWord::default(),
            sustained: None,
            pairs: Vec::new(),
            bytes_written: 0,
            flushes: 0,
            device_flushes: None,
            budget_ns: 0,
            duration_ns: 0,
            interrupted: false,
            power_cut: None,
            need_commits_per_s: None,
        }
    }

    /// The storage broke its promise: flushes return before the data can have reached the
    /// media, commits reached the device as no flush at all (`commits_unflushed`), or acknowledged
    /// records did not survive a power cut.
    pub fn broke_promise(&self) -> bool {
        self.data
            .flush_honesty
            .as_ref()
            .is_some_and(|f| f.verdict == FlushHonestyVerdict::Early)
            || self.power_cut.as_ref().is_some_and(|p| p.broken())
            || self.header.findings.iter().any(
                |f| matches!(&f.code, crate::FindingCode::Other(c) if c == "commits_unflushed"),
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> DurabilityData {
        DurabilityData {
            commits: vec![
                CommitCostRow {
                    mode: CommitModeName::Fdatasync,
                    committers: 1,
                    size: 4096,
                    count: 100,
                    bytes: 409_600,
                    flushes: 100,
                    device_flushes: None,
                    p50_ns: 1_200_000,
                    p99_ns: 4_100_000,
                    max_ns: 9_000_001,
                    into: None,
                    mean_ns: 0,
                },
                CommitCostRow {
                    mode: CommitModeName::ODsync,
                    committers: 8,
                    size: 16_384,
                    count: 800,
                    bytes: 13_107_200,
                    flushes: 0,
                    device_flushes: None,
                    p50_ns: 2_000_000,
                    p99_ns: 7_000_000,
                    max_ns: 11_000_000,
                    into: None,
                    mean_ns: 0,
                },
            ],
            flush_honesty: Some(FlushHonesty {
                verdict: FlushHonestyVerdict::Early,
                early_by: Some(EarlyFlushBy::KernelWriteThrough),
                media_bytes_per_s: Some(123.456e6),
                reason: None,
                sizes: vec![FlushSizeRow {
                    bytes: 64 << 20,
                    repeats: 3,
                    write_ns: 31_000_000.5,
                    flush_ns: 90_000.25,
                    bound_ns: 512_345_678.125,
                    below: 3,
                }],
            }),
        }
    }

    #[test]
    fn a_durability_record_reads_back_as_one_of_its_kind() {
        let info = crate::TargetInfo {
            path: "/dev/loop7".into(),
            kind: crate::TargetType::Block,
            size: 64 << 20,
            logical_block_size: 512,
        };
        let rec = DurabilityRecord {
            header: crate::Header::now(crate::Kind::Durability, info),
            on: "device".into(),
            data: sample(),
            cache: CacheWord {
                write_cache: Some("write back".into()),
                fua: Some(false),
                power_loss_protection: Some(true),
            },
            sustained: Some(SustainedWrite {
                bytes: 32 << 20,
                write_ns: 400_000_000,
                flush_ns: 1_000,
                tail_bytes_per_s: 80e6,
                bytes_per_s: 79.5e6,
            }),
            pairs: vec![FlushPair {
                bytes: 1 << 20,
                write_ns: 3_000_000,
                flush_ns: 90_000,
            }],
            bytes_written: 99 << 20,
            flushes: 1234,
            device_flushes: None,
            budget_ns: 5_000_000_000,
            duration_ns: 2_500_000_000,
            interrupted: false,
            power_cut: None,
            need_commits_per_s: None,
        };
        let text = serde_json::to_string(&rec).unwrap();
        assert!(text.contains("\"kind\":\"durability\""), "{text}");
        assert!(text.contains("\"commits\":["), "{text}");
        let doc: crate::Document = serde_json::from_str(&text).unwrap();
        assert_eq!(doc.kind(), crate::Kind::Durability);
        let crate::Document::Durability(back) = doc else {
            panic!("not typed: {text}")
        };
        assert_eq!(back.data, rec.data);
        assert_eq!((back.cache, back.sustained), (rec.cache, rec.sustained));
        assert_eq!(back.pairs, rec.pairs);
        assert_eq!(back.header.target.path, "/dev/loop7");
    }

    #[test]
    fn round_trips_through_json() {
        let d = sample();
        let text = serde_json::to_string(&d).unwrap();
        assert!(text.contains("\"mode\":\"o_dsync\""), "{text}");
        assert!(
            text.contains("\"early_by\":\"kernel_write_through\""),
            "{text}"
        );
        let back: DurabilityData = serde_json::from_str(&text).unwrap();
        assert_eq!(back, d);
    }

    #[test]
    fn an_inconclusive_verdict_writes_only_its_reason_and_older_documents_read() {
        let d = DurabilityData {
            commits: Vec::new(),
            flush_honesty: Some(FlushHonesty {
                verdict: FlushHonestyVerdict::Inconclusive,
                early_by: None,
                media_bytes_per_s: None,
                reason: Some("the media write rate is unknown".into()),
                sizes: Vec::new(),
            }),
        };
        let text = serde_json::to_string(&d).unwrap();
        assert_eq!(
            text,
            r#"{"flush_honesty":{"verdict":"inconclusive","reason":"the media write rate is unknown"}}"#
        );
        assert_eq!(serde_json::from_str::<DurabilityData>(&text).unwrap(), d);
        assert_eq!(
            serde_json::from_str::<DurabilityData>("{}").unwrap(),
            DurabilityData::default()
        );
    }
}
