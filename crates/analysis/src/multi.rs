//! A multi-rank run (`kind: "multi"`): the ranks' results merged per test, and whether one rank
//! held the aggregate back. Pure code: the MPI glue in the binary gathers the ranks' records
//! and hands them here.

use crate::middle::middle;
use drivescope_record::{
    Confidence, Finding, FindingCode, MultiRecord, MultiRun, MultiTest, RankRate, RankResult,
    RunWindow,
};
use drivescope_stats::{BandCount, Histogram};

/// A rank slower than this share of the median rank's rate holds the aggregate back.
pub const SLOW_RANK_SHARE: f64 = 0.7;

/// MB/s (10^6 B/s) of `bytes` over `ns`.
fn mb_per_s(bytes: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        bytes as f64 * 1e3 / ns as f64
    }
}

/// One measured run of every rank: earliest start to latest end, the ranks' bytes summed.
pub fn merge_run(windows: &[RunWindow]) -> Option<MultiRun> {
    let start = windows.iter().map(|w| w.start_ns).min()?;
    let end = windows.iter().map(|w| w.end_ns).max()?;
    let last_start = windows.iter().map(|w| w.start_ns).max()?;
    let bytes = windows.iter().map(|w| w.bytes).sum();
    let commands = windows.iter().map(|w| w.commands).sum();
    let ns = end.saturating_sub(start);
    Some(MultiRun {
        start_ns: start,
        end_ns: end,
        bytes,
        commands,
        mb_per_s: mb_per_s(bytes, ns),
        iops: if ns == 0 {
            0.0
        } else {
            commands as f64 * 1e9 / ns as f64
        },
        start_spread_ns: last_start - start,
    })
}

/// Bands summed label by label (the first rank's order).
fn add_bands(sum: &mut Vec<BandCount>, more: &[BandCount]) {
    for b in more {
        match sum.iter_mut().find(|s| s.label == b.label) {
            Some(s) => s.count += b.count,
            None => sum.push(b.clone()),
        }
    }
}

/// The aggregate of each test every rank with results ran (the first such rank's tests, in
/// order; a rank that ran fewer, stopped early, adds to the tests it has).
pub fn aggregate(ranks: &[RankResult]) -> Vec<MultiTest> {
    let with: Vec<_> = ranks
        .iter()
        .map(|r| (r, r.tests()))
        .filter(|(_, t)| !t.is_empty())
        .collect();
    let Some((_, first)) = with.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, t0) in first.iter().enumerate() {
        let mut rates = Vec::new();
        let mut hist = Histogram::new();
        let mut whole = true;
        let mut errors = 0;
        let mut bands = Vec::new();
        let mut slow = None;
        let mut per_run: Vec<Vec<RunWindow>> = Vec::new();
        for (r, tests) in &with {
            let Some(t) = tests.get(i).filter(|t| t.name == t0.name && t.rw == t0.rw) else {
                continue;
            };
            rates.push(RankRate {
                rank: r.rank,
                host: r.host.clone(),
                mb_per_s: t.mb_per_s,
                iops: t.iops,
            });
            match t.histogram {
                Some(h) => hist.merge(&Histogram::from_out(h)),
                None => whole = false,
            }
            errors += t.errors;
            add_bands(&mut bands, t.bands);
            if let Some(n) = t.slow {
                slow = Some(slow.unwrap_or(0) + n);
            }
            for (j, w) in r.windows.get(i).into_iter().flatten().enumerate() {
                if per_run.len() <= j {
                    per_run.push(Vec::new());
                }
                per_run[j].push(*w);
            }
        }
        let runs: Vec<MultiRun> = per_run.iter().filter_map(|w| merge_run(w)).collect();
        let n = runs.len().max(1) as f64;
        let best = runs.iter().max_by(|a, b| a.mb_per_s.total_cmp(&b.mb_per_s));
        let by_rate = |a: &&RankRate, b: &&RankRate| a.mb_per_s.total_cmp(&b.mb_per_s);
        let slowest = rates.iter().min_by(by_rate).cloned().expect("a rank");
        let fastest = rates.iter().max_by(by_rate).cloned().expect("a rank");
        out.push(MultiTest {
            name: t0.name.clone(),
            rw: t0.rw,
            read_pct: t0.read_pct,
            load: t0.load,
            ranks: rates.len() as u32,
            mb_per_s: best.map_or(0.0, |b| b.mb_per_s),
            iops: best.map_or(0.0, |b| b.iops),
            mean_mb_per_s: runs.iter().map(|r| r.mb_per_s).sum::<f64>() / n,
            mean_iops: runs.iter().map(|r| r.iops).sum::<f64>() / n,
            bytes: runs.iter().map(|r| r.bytes).sum(),
            commands: runs.iter().map(|r| r.commands).sum(),
            errors,
            start_spread_ns: runs.iter().map(|r| r.start_spread_ns).max().unwrap_or(0),
            latency: hist.summary(),
            histogram: whole.then(|| hist.to_out()),
            bands,
            slow_commands: slow,
            median_mb_per_s: middle(&rates.iter().map(|r| r.mb_per_s).collect::<Vec<_>>()),
            slowest,
            fastest,
            runs,
        });
    }
    out
}

/// A rank whose rate is below [`SLOW_RANK_SHARE`] of the median rank's, per test (the worst
/// test only, so one slow host makes one finding).
pub fn findings(r: &MultiRecord) -> Vec<Finding> {
    let worst = r
        .tests
        .iter()
        .filter(|t| t.ranks >= 2 && t.median_mb_per_s > 0.0)
        .map(|t| (t, t.slowest.mb_per_s / t.median_mb_per_s))
        .filter(|(_, share)| *share < SLOW_RANK_SHARE)
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let Some((t, share)) = worst else {
        return Vec::new();
    };
    let s = &t.slowest;
    vec![Finding::new(
        FindingCode::SlowRank,
        if t.ranks >= 3 {
            Confidence::High
        } else {
            Confidence::Medium
        },
        format!(
            "rank {} on {} reached {:.0} % of the median rank's rate in {} ({:.1} of {:.1} MB/s): \
             it holds the aggregate back",
            s.rank,
            s.host,
            share * 100.0,
            t.name,
            s.mb_per_s,
            t.median_mb_per_s
        ),
        &[
            ("rank", s.rank as f64),
            ("share_of_median", share),
            ("mb_per_s", s.mb_per_s),
            ("median_mb_per_s", t.median_mb_per_s),
        ],
    )]
}

/// What a multi-rank command asked for, beside the ranks' results.
pub struct Asked<'a> {
    pub command: &'a str,
    pub template: &'a str,
    pub stonewall: bool,
    pub profile: String,
    pub runs: u32,
    pub duration_ns: u64,
}

/// The one record of a multi-rank run: a header over all ranks (the template as its target, the
/// earliest start and latest end of the ranks, rank 0's host), the ranks merged per test, and each
/// rank's own result.
pub fn record(
    asked: Asked,
    ranks: u32,
    interrupted: bool,
    members: Vec<RankResult>,
) -> MultiRecord {
    use drivescope_record::{Header, Kind, TargetInfo, TargetType};
    let headers = || members.iter().filter_map(RankResult::header);
    let target = headers()
        .map(|h| TargetInfo {
            path: asked.template.to_string(),
            ..h.target.clone()
        })
        .next()
        .unwrap_or(TargetInfo {
            path: asked.template.to_string(),
            kind: TargetType::Null,
            size: 0,
            logical_block_size: 0,
        });
    let started = headers().map(|h| h.started_at.clone()).min();
    let ended = headers().map(|h| h.ended_at.clone()).max();
    let now = drivescope_record::now_rfc3339();
    let mut header = Header::new(
        Kind::Multi,
        target,
        members.first().map(|m| m.host.clone()).unwrap_or_default(),
        started.unwrap_or_else(|| now.clone()),
    );
    header.ended_at = ended.unwrap_or(now);
    MultiRecord {
        header,
        command: asked.command.into(),
        target_template: asked.template.into(),
        ranks,
        stonewall: asked.stonewall,
        interrupted,
        profile: asked.profile,
        runs: asked.runs,
        duration_ns: asked.duration_ns,
        tests: aggregate(&members),
        members,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::{
        BenchRecord, DataPattern, Header, Kind, MultiRecord, TargetInfo, TargetType, TestResult,
        Workload,
    };
    use drivescope_stats::Histogram;

    /// A rank's record: one test whose runs are the given windows, its latencies `lat_ns`.
    fn rank(rank: u32, windows: Vec<RunWindow>, lat_ns: &[u64]) -> RankResult {
        let mut h = Histogram::new();
        for &l in lat_ns {
            h.record(l);
        }
        let bytes: u64 = windows.iter().map(|w| w.bytes).sum();
        let ns: u64 = windows.iter().map(|w| w.end_ns - w.start_ns).sum();
        let rate = mb_per_s(bytes, ns);
        let target = TargetInfo {
            path: "null:1G".into(),
            kind: TargetType::Null,
            size: 1 << 30,
            logical_block_size: 4096,
        };
        let doc = BenchRecord {
            header: Header::new(
                Kind::Bench,
                target,
                "h".into(),
                "2026-11-23T00:00:00Z".into(),
            ),
            workload: Workload {
                size: 1 << 30,
                data: DataPattern::Random,
                direct: true,
                interrupted: false,
                test_file: None,
            },
            profile: "custom".into(),
            runs: windows.len() as u32,
            duration_ns: 1_000_000_000,
            pause_ns: 0,
            tests: Vec::new(),
        };
        let test = TestResult {
            name: "RND4K Q1T1".into(),
            rw: drivescope_record::Direction::Read,
            read_pct: None,
            load: drivescope_record::Load {
                block_size: 4096,
                queue_depth: 1,
                threads: 1,
                engine: drivescope_record::EngineKind::Null,
                reap: drivescope_record::Reap::Sleep,
            },
            mb_per_s: rate,
            iops: 0.0,
            mean_mb_per_s: rate,
            stddev_mb_per_s: 0.0,
            mean_iops: 0.0,
            latency: h.summary(),
            histogram: Some(h.to_out()),
            submit_latency: Histogram::new().summary(),
            completion_latency: None,
            cpu_ns_per_command: 0.0,
            errors: 0,
            runs: Vec::new(),
        };
        RankResult {
            windows: vec![windows],
            bench: Some(BenchRecord {
                tests: vec![test],
                ..doc
            }),
            ..RankResult::new(rank, format!("node{rank}"), "null:1G".into())
        }
    }

    fn w(start_ns: u64, end_ns: u64, bytes: u64) -> RunWindow {
        RunWindow {
            start_ns,
            end_ns,
            bytes,
            commands: bytes / 4096,
        }
    }

    #[test]
    fn the_aggregate_is_all_bytes_over_earliest_start_to_latest_end() {
        let s = 1_000_000_000_000;
        let ranks = vec![
            rank(0, vec![w(s, s + 1_000_000_000, 4096 * 1000)], &[100, 200]),
            rank(
                1,
                vec![w(s + 2_000, s + 1_500_000_000, 4096 * 3000)],
                &[300; 5],
            ),
            RankResult {
                error: Some("no such file".into()),
                bench: None,
                windows: Vec::new(),
                ..rank(2, vec![], &[])
            },
        ];
        let t = &aggregate(&ranks)[0];
        assert_eq!(t.ranks, 2);
        assert_eq!(t.bytes, 4096 * 4000);
        assert_eq!(t.commands, 4000);
        assert_eq!(t.start_spread_ns, 2_000);
        // 16.384 MB over 1.5 s, not the sum of the ranks' own rates.
        assert!(
            (t.mb_per_s - 4096.0 * 4000.0 / 1.5e6).abs() < 1e-9,
            "{}",
            t.mb_per_s
        );
        // The merged histogram holds every command of every rank: its p99 is theirs together.
        assert_eq!(t.latency.count, 7);
        assert_eq!(
            Histogram::from_out(t.histogram.as_ref().unwrap()).count(),
            7
        );
        let mut every = Histogram::new();
        for l in [100, 200, 300, 300, 300, 300, 300] {
            every.record(l);
        }
        let every = Histogram::from_out(&every.to_out());
        let merged = Histogram::from_out(t.histogram.as_ref().unwrap());
        assert_eq!(merged.quantile(0.99), every.quantile(0.99));
        assert_eq!(merged.quantile(0.2), every.quantile(0.2));
        assert_eq!((t.slowest.rank, t.fastest.rank), (0, 1));
        assert_eq!(t.slowest.host, "node0");
    }

    #[test]
    fn a_rank_far_below_the_median_is_a_finding_and_an_even_run_is_not() {
        let s = 1_000_000_000_000;
        let even: Vec<RankResult> = (0..3)
            .map(|r| rank(r, vec![w(s, s + 1_000_000_000, 4096 * 1000)], &[100]))
            .collect();
        let mut slow = even.clone();
        slow[2] = rank(2, vec![w(s, s + 1_000_000_000, 4096 * 600)], &[100]);
        let record = |ranks: Vec<RankResult>| MultiRecord {
            header: ranks[0].bench.clone().unwrap().header,
            command: "bench".into(),
            target_template: "null:1G".into(),
            ranks: 3,
            stonewall: false,
            interrupted: false,
            profile: "custom".into(),
            runs: 1,
            duration_ns: 1_000_000_000,
            tests: aggregate(&ranks),
            members: ranks,
        };
        assert!(findings(&record(even)).is_empty());
        let f = findings(&record(slow));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].code, FindingCode::SlowRank);
        assert_eq!(f[0].number("rank"), Some(2.0));
        assert!((f[0].number("share_of_median").unwrap() - 0.6).abs() < 1e-9);
    }

    #[test]
    fn the_record_spans_the_ranks_under_the_template() {
        let mut r0 = rank(0, vec![w(0, 1_000, 4096)], &[100]);
        let mut r1 = rank(1, vec![w(0, 1_000, 4096)], &[100]);
        let h0 = &mut r0.bench.as_mut().unwrap().header;
        (h0.started_at, h0.ended_at) =
            ("2026-11-23T00:00:02Z".into(), "2026-11-23T00:00:09Z".into());
        let h1 = &mut r1.bench.as_mut().unwrap().header;
        (h1.started_at, h1.ended_at) =
            ("2026-11-23T00:00:01Z".into(), "2026-11-23T00:00:05Z".into());
        let asked = Asked {
            command: "bench",
            template: "/mnt/{host}/f",
            stonewall: true,
            profile: "default".into(),
            runs: 5,
            duration_ns: 5_000_000_000,
        };
        let m = record(asked, 2, false, vec![r0, r1]);
        assert_eq!(m.header.kind, Kind::Multi);
        assert_eq!(m.header.target.path, "/mnt/{host}/f");
        assert_eq!(m.header.target.size, 1 << 30);
        assert_eq!(m.header.started_at, "2026-11-23T00:00:01Z");
        assert_eq!(m.header.ended_at, "2026-11-23T00:00:09Z");
        assert_eq!(m.header.host, "node0");
        assert_eq!((m.ranks, m.stonewall, m.runs), (2, true, 5));
        assert_eq!(m.tests.len(), 1);
        assert_eq!(m.members.len(), 2);
    }
}
