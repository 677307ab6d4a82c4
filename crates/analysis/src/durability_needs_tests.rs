//! The named needs over drawn commit costs: the rate need is said exactly when one committer's commits
//! into written blocks run below the rate asked, from that row and no other; etcd's from new files.

use super::*;
use drivescope_record::durability::{
    CommitCostRow, CommitInto, CommitModeName, DurabilityData, DurabilityRecord,
};
use proptest::prelude::*;

fn row(into: Option<CommitInto>, mean_ns: u64, p99_ns: u64, count: u64) -> CommitCostRow {
    CommitCostRow {
        mode: CommitModeName::Fdatasync,
        into,
        committers: 1,
        size: 4096,
        count,
        bytes: count * 4096,
        flushes: count,
        device_flushes: None,
        p50_ns: mean_ns,
        p99_ns,
        max_ns: p99_ns,
        mean_ns,
    }
}

/// A run on `on` with these commits and need, and nothing else measured.
fn record(on: &str, commits: Vec<CommitCostRow>, need: Option<f64>) -> DurabilityRecord {
    let mut r = super::tests::early_run(None);
    r.on = on.into();
    r.data = DurabilityData {
        commits,
        flush_honesty: None,
    };
    r.sustained = None;
    r.pairs.clear();
    r.need_commits_per_s = need;
    r
}

fn said<'a>(f: &'a [Finding], code: &str) -> Option<&'a Finding> {
    f.iter()
        .find(|f| matches!(&f.code, drivescope_record::FindingCode::Other(c) if c == code))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Commit latencies from 2 µs (memory) to 50 ms (a busy disk), needs from 1 to 100 000 commits/s.
    #[test]
    fn the_rate_need_is_said_exactly_when_written_commits_run_below_it(
        written_ns in 2_000u64..50_000_000,
        new_ns in 2_000u64..50_000_000,
        need in 1.0f64..100_000.0,
        count in 1u64..2000,
    ) {
        let r = record(
            "file",
            vec![
                row(Some(CommitInto::New), new_ns, 2 * new_ns, count),
                row(Some(CommitInto::Written), written_ns, 2 * written_ns, count),
            ],
            Some(need),
        );
        let f = needs(&r);
        let rate = 1e9 / written_ns as f64;
        let got = said(&f, "commit_rate");
        prop_assert_eq!(got.is_some(), count >= RATE_COMMITS && rate < need);
        if let Some(g) = got {
            prop_assert!((g.evidence.numbers["commits_per_s"] - rate).abs() < 1e-6 * rate);
            prop_assert!(g.claim.contains("into blocks already written"));
        }
        // etcd's need reads the new file's commits only.
        let etcd = said(&f, "commit_need");
        prop_assert_eq!(etcd.is_some(), count >= NEED_COMMITS && 2 * new_ns > ETCD_WAL_P99_NS);
        // No need asked: no rate finding, whatever the rate.
        let quiet = record("file", r.data.commits.clone(), None);
        prop_assert!(said(&needs(&quiet), "commit_rate").is_none());
    }

    /// On a device (no file state) and in records older than the written rows, the one row is judged.
    #[test]
    fn a_device_row_or_an_old_record_is_judged_from_its_one_row(
        ns in 2_000u64..50_000_000,
        need in 1.0f64..100_000.0,
        on_device in any::<bool>(),
    ) {
        let r = record(if on_device { "device" } else { "file" }, vec![row(None, ns, ns, 500)], Some(need));
        let got = needs(&r);
        let got = said(&got, "commit_rate");
        prop_assert_eq!(got.is_some(), 1e9 / (ns as f64) < need);
        if let Some(g) = got {
            prop_assert_eq!(g.claim.contains("into a new file"), !on_device);
        }
    }
}

#[test]
fn the_mean_is_the_rate_and_the_median_stands_in_for_old_records() {
    let mut r = row(Some(CommitInto::Written), 2_000_000, 9_000_000, 100);
    r.p50_ns = 1_000_000;
    assert_eq!(r.serial_rate(), Some(500.0), "1 / mean");
    r.mean_ns = 0;
    assert_eq!(r.serial_rate(), Some(1000.0), "1 / median without a mean");
    r.committers = 4;
    assert_eq!(
        r.serial_rate(),
        None,
        "several committers have no serial rate"
    );
}
