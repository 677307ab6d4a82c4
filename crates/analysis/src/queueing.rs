//! Whether the path queues commands: random reads at a deep queue against one at a time.

use drivescope_record::{BenchRecord, Confidence, Direction, Finding, FindingCode, SweepRecord};

/// The shallowest deep queue that says anything: NCQ and UAS gain well before it.
const DEEP: u32 = 8;
/// Below this gain a deeper queue gained nothing worth the name.
const NO_GAIN: f64 = 1.15;
/// Below this the answer is clear.
const CLEARLY_NONE: f64 = 1.08;

/// Random small commands only: sequential ones are served in order whatever the queue.
fn random_small(pattern_or_name: &str, block_size: u64) -> bool {
    pattern_or_name.starts_with("RND") && block_size <= 64 << 10
}

/// The finding for random `label` reads at QD1 (`q1` IOPS) and at `qd` (`deep` IOPS, `deep_mb_per_s`, one
/// thread). `top_mb_per_s` is the most any read of the run moved: a deep queue that reaches it (or a usual link
/// ceiling) was held back by bandwidth, which says nothing about queueing.
pub fn judge(
    label: &str,
    qd: u32,
    q1: f64,
    deep: f64,
    deep_mb_per_s: f64,
    top_mb_per_s: Option<f64>,
) -> Option<Finding> {
    if q1 <= 0.0 || qd < DEEP {
        return None;
    }
    let capped = top_mb_per_s.is_some_and(|top| deep_mb_per_s >= 0.85 * top)
        || crate::usual_ceiling(deep_mb_per_s).is_some();
    if capped {
        return None;
    }
    let gain = deep / q1;
    if gain >= NO_GAIN {
        return None;
    }
    let confidence = if gain < CLEARLY_NONE {
        Confidence::High
    } else {
        Confidence::Medium
    };
    Some(Finding::new(
        FindingCode::NoQueueing,
        confidence,
        format!(
            "{label} Q{qd} / Q1 = {gain:.2}: commands are served one at a time (no NCQ/UAS on this path)"
        ),
        &[
            ("gain", gain),
            ("queue_depth", qd as f64),
            ("iops_q1", q1),
            ("iops_deep", deep),
        ],
    ))
}

/// A sweep of random reads: its deepest single-thread cell against Q1T1.
pub fn of_sweep(s: &SweepRecord) -> Option<Finding> {
    if s.rw != Direction::Read || !random_small(&s.pattern, s.block_size) {
        return None;
    }
    let one_thread = || s.cells.iter().filter(|c| c.threads == 1 && c.errors == 0);
    let q1 = one_thread().find(|c| c.queue_depth == 1)?;
    let deep = one_thread().max_by_key(|c| c.queue_depth)?;
    judge(
        &s.pattern,
        deep.queue_depth,
        q1.iops,
        deep.iops,
        deep.mb_per_s,
        None,
    )
}

/// A bench with random reads at Q1T1 and at a deep queue of one thread of the same block size.
pub fn of_bench(b: &BenchRecord) -> Option<Finding> {
    let reads = || {
        b.tests.iter().filter(|t| {
            t.rw == Direction::Read
                && t.load.threads == 1
                && t.errors == 0
                && random_small(&t.name, t.load.block_size)
        })
    };
    let q1 = reads().find(|t| t.load.queue_depth == 1)?;
    let deep = reads()
        .filter(|t| t.load.block_size == q1.load.block_size)
        .max_by_key(|t| t.load.queue_depth)?;
    let label = q1.name.split(' ').next().unwrap_or("RND");
    // The most any other read test moved (the sequential ones): the bandwidth the path allows.
    let top = b
        .tests
        .iter()
        .filter(|t| t.rw == Direction::Read && !random_small(&t.name, t.load.block_size))
        .map(|t| t.mb_per_s)
        .reduce(f64::max);
    judge(
        label,
        deep.load.queue_depth,
        q1.iops,
        deep.iops,
        deep.mb_per_s,
        top,
    )
}
