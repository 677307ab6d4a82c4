//! Commits that never reached the device as flushes: `fdatasync` returned, the device has a volatile write
//! cache the kernel would flush (`queue/write_cache` "write back"), and yet the block layer counted no flush
//! request on it while the commits ran. The file system above it did not send one (ext4 mounted
//! `barrier=0`/`nobarrier`, a file system that does not flush): every commit then sits in the device's volatile
//! cache, and a power cut loses it, whatever the cache does with a flush. Its twin, a file system that sends
//! flushes, is silent, as are a cache the kernel treats as write-through and a run whose flushes were not
//! counted.

use crate::flush_honesty::KernelWriteCache;
use drivescope_record::durability::{CommitModeName, DurabilityRecord};
use drivescope_record::{Confidence, Finding, FindingCode};

/// Commits at one committer the rule needs before it speaks: a handful could be served by a journal commit
/// that was already flushing.
pub const MIN_COMMITS: u64 = 16;

/// A file system that flushes sends at least one flush request for each commit at one committer (each writes
/// new data); under one for this many commits it does not flush them. The margin leaves room for a few flushes
/// other programs cause on the same device meanwhile.
pub const COMMITS_PER_FLUSH: u64 = 10;

/// The finding `commits_unflushed`, when the flushing commits (`fdatasync`, `fsync`) at one committer reached
/// the device as no flush at all.
pub fn finding(r: &DurabilityRecord) -> Option<Finding> {
    let write_back = r
        .cache
        .write_cache
        .as_deref()
        .and_then(KernelWriteCache::parse)
        == Some(KernelWriteCache::WriteBack);
    if !write_back {
        return None;
    }
    let rows: Vec<_> = r
        .data
        .commits
        .iter()
        .filter(|c| c.committers == 1 && c.mode != CommitModeName::ODsync)
        .filter(|c| c.device_flushes.is_some())
        .collect();
    let commits: u64 = rows.iter().map(|c| c.count).sum();
    let calls: u64 = rows.iter().map(|c| c.flushes).sum();
    let seen: u64 = rows.iter().filter_map(|c| c.device_flushes).sum();
    if commits < MIN_COMMITS || seen * COMMITS_PER_FLUSH >= commits {
        return None;
    }
    Some(Finding::new(
        FindingCode::Other("commits_unflushed".into()),
        Confidence::High,
        format!(
            "Commits do not reach the media: {commits} commits asked for {calls} flushes (fdatasync, fsync) \
             and the device, whose write cache is volatile (write back), was sent {seen} (the block layer's \
             count): the file system does not flush (mounted with barriers off: barrier=0, nobarrier), so \
             each commit sits in the device's cache and a power cut loses it."
        ),
        &[
            ("commits", commits as f64),
            ("flush_calls", calls as f64),
            ("device_flushes", seen as f64),
        ],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::durability::{CacheWord, CommitCostRow, DurabilityData};
    use drivescope_record::{Header, Kind, TargetInfo, TargetType};

    fn row(
        mode: CommitModeName,
        committers: u32,
        count: u64,
        device: Option<u64>,
    ) -> CommitCostRow {
        CommitCostRow {
            mode,
            committers,
            size: 4096,
            count,
            bytes: count * 4096,
            flushes: if mode == CommitModeName::ODsync {
                0
            } else {
                count
            },
            device_flushes: device,
            p50_ns: 100_000,
            p99_ns: 200_000,
            max_ns: 300_000,
            into: None,
            mean_ns: 0,
        }
    }

    fn run(cache: Option<&str>, rows: Vec<CommitCostRow>) -> DurabilityRecord {
        let header = Header::now(
            Kind::Durability,
            TargetInfo {
                path: "/mnt/db".into(),
                kind: TargetType::File,
                size: 0,
                logical_block_size: 512,
            },
        );
        DurabilityRecord {
            data: DurabilityData {
                commits: rows,
                flush_honesty: None,
            },
            cache: CacheWord {
                write_cache: cache.map(String::from),
                ..CacheWord::default()
            },
            ..DurabilityRecord::empty(header, "file")
        }
    }

    /// A small fixed-seed generator.
    fn draws(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut x = seed;
        move |n| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % n
        }
    }

    #[test]
    fn commits_the_device_saw_no_flush_for_are_found_and_its_twins_stay_silent() {
        use CommitModeName::*;
        let mut d = draws(43);
        for _ in 0..500 {
            let n1 = MIN_COMMITS + d(1000);
            let n2 = MIN_COMMITS + d(1000);
            let group = d(500);
            // Barriers off: no flush reached the device at one committer; group commits too.
            let off = vec![
                row(Fdatasync, 1, n1, Some(0)),
                row(Fsync, 1, n2, Some(0)),
                row(ODsync, 1, n1, Some(0)),
                row(Fdatasync, 4, group, Some(0)),
            ];
            let f = finding(&run(Some("write back"), off.clone())).expect("found");
            assert_eq!(f.number("commits"), Some((n1 + n2) as f64));
            assert_eq!(f.number("device_flushes"), Some(0.0));
            assert!(f.claim.contains("barrier=0"), "{}", f.claim);
            // A few flushes other programs caused on the device meanwhile change nothing.
            let stray = d((n1 + n2) / COMMITS_PER_FLUSH);
            let few = vec![
                row(Fdatasync, 1, n1, Some(stray)),
                row(Fsync, 1, n2, Some(0)),
            ];
            let f = finding(&run(Some("write back"), few)).expect("found beside stray flushes");
            assert_eq!(f.number("device_flushes"), Some(stray as f64));
            // Its twin: the file system flushes (one or more flush requests per commit at one committer).
            let seen = n1 + n2 + d(2 * (n1 + n2));
            let on = vec![
                row(Fdatasync, 1, n1, Some(seen)),
                row(Fsync, 1, n2, Some(0)),
                row(Fdatasync, 4, group, Some(d(group + 1))),
            ];
            assert!(finding(&run(Some("write back"), on)).is_none());
            // A write-through cache gets no flush by design; an unknown setting or an uncounted run: nothing.
            assert!(finding(&run(Some("write through"), off.clone())).is_none());
            assert!(finding(&run(None, off.clone())).is_none());
            let uncounted: Vec<_> = off
                .iter()
                .map(|r| CommitCostRow {
                    device_flushes: None,
                    ..r.clone()
                })
                .collect();
            assert!(finding(&run(Some("write back"), uncounted)).is_none());
        }
        // Too few commits to say.
        let few = vec![row(Fdatasync, 1, MIN_COMMITS - 1, Some(0))];
        assert!(finding(&run(Some("write back"), few)).is_none());
    }
}
