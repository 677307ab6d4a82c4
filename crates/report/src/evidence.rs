//! Findings and the numbers behind them in words, for the rows and lines people read. Documents keep
//! the stable codes and names (`no_queueing`, `iops_deep`); only what is printed reads as words.

use drivescope_record::FindingCode;

/// The name of a finding as a person says it (`no queueing`, `write cache`).
pub(crate) fn finding_name(code: &FindingCode) -> String {
    match code {
        FindingCode::ReadCache => "read cache".into(),
        FindingCode::WriteBurst => "write cache".into(),
        FindingCode::NoQueueing => "no queueing".into(),
        FindingCode::LinkCap => "link cap".into(),
        FindingCode::Zones => "zones".into(),
        FindingCode::WarmUp => "warm-up".into(),
        FindingCode::ThermalThrottle => "throttle".into(),
        FindingCode::SharedPath => "shared path".into(),
        FindingCode::StorageBound => "storage-bound".into(),
        FindingCode::CpuBound => "CPU-bound".into(),
        FindingCode::MixedBound => "mixed".into(),
        FindingCode::LatencyBound => "latency-bound".into(),
        FindingCode::ThroughputBound => "throughput-bound".into(),
        FindingCode::SlowRank => "slow rank".into(),
        FindingCode::Smr => "SMR".into(),
        FindingCode::CounterfeitCapacity => "counterfeit capacity".into(),
        FindingCode::SlowMember => "slow member".into(),
        FindingCode::Degraded => "degraded".into(),
        FindingCode::ArrayWrites => "array writes".into(),
        FindingCode::BadSpots => "bad spots".into(),
        FindingCode::Other(s) => s.replace('_', " "),
    }
}

/// An evidence number of a finding in words (`iops_deep` → `IOPS at the deepest queue`).
fn number_words(name: &str) -> String {
    let words = match name {
        "gain" => "gain of the deeper queue",
        "queue_depth" => "deepest queue depth",
        "iops_q1" => "IOPS at queue depth 1",
        "iops_deep" => "IOPS at the deepest queue",
        "cache_bytes" => "cache size",
        "lower_bytes" => "cache size at least",
        "upper_bytes" => "cache size at most",
        "test_bytes" => "size tested",
        "cache_mb_per_s" => "rate from the cache",
        "media_mb_per_s" => "rate from the media",
        "burst_mb_per_s" => "burst rate",
        "sustained_mb_per_s" => "sustained rate",
        "steady_mb_per_s" => "steady rate",
        "ceiling_mb_per_s" => "link ceiling",
        "alone_mb_per_s" => "rate alone",
        "together_mb_per_s" => "rate together",
        "min_mb_per_s" => "slowest rate",
        "max_mb_per_s" => "fastest rate",
        "median_mb_per_s" => "median rate",
        "mb_per_s" => "rate",
        "written_before_step" => "written before the drop",
        "step_s" => "seconds to the drop",
        "warm_up_s" => "seconds to the steady rate",
        "media_cache_bytes" => "media cache size",
        "before_mb_per_s" => "random-write rate before the fall",
        "after_mb_per_s" => "random-write rate after the fall",
        "stalls" => "stalls after the fall",
        "stall_p99_s" => "99th percentile stall in seconds",
        "stall_max_s" => "longest stall in seconds",
        "idle_s" => "seconds idle",
        "restored_share" => "share of the media cache idle time restored",
        "drained_mb_per_s" => "rate idle time restored it at",
        "window_s" => "seconds watched",
        "time_to_throttle_s" => "seconds of sustained work to the throttle",
        "cooling_s" => "seconds of rest to cool",
        "fast_mb_per_s" => "rate before the throttle",
        "throttled_mb_per_s" => "rate throttled",
        "wall_s" => "wall time in seconds",
        "factor" => "rate factor",
        "ratio" => "rate ratio",
        "zone_ratio" => "inner to outer rate ratio",
        "falling_share" => "share of positions falling",
        "share_of_median" => "share of the median rate",
        "busy_share" => "share of time the disk was busy",
        "cpu_share" => "share of time on the CPU",
        "rank" => "rank",
        "member" => "member (its place in the member list, from 0)",
        "others_mb_per_s" => "other members' median rate alone",
        "share" => "share of the other members' rate",
        "serialized" => "members take turns (1) or share a wider cap (0)",
        "runs" => "runs",
        "drives" => "drives",
        other => return other.replace('_', " "),
    };
    words.to_string()
}

/// A row label for one evidence number of a finding: `No queueing: IOPS at the deepest queue`.
pub(crate) fn number_label(code: &FindingCode, name: &str) -> String {
    let finding = finding_name(code);
    let mut chars = finding.chars();
    let first = chars.next().map(|c| c.to_uppercase().collect::<String>());
    format!(
        "{}{}: {}",
        first.unwrap_or_default(),
        chars.as_str(),
        number_words(name)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_read_as_words() {
        let l = |c: FindingCode, n: &str| number_label(&c, n);
        assert_eq!(
            l(FindingCode::NoQueueing, "iops_deep"),
            "No queueing: IOPS at the deepest queue"
        );
        assert_eq!(
            l(FindingCode::ReadCache, "cache_bytes"),
            "Read cache: cache size"
        );
        assert_eq!(
            l(FindingCode::CpuBound, "cpu_share"),
            "CPU-bound: share of time on the CPU"
        );
        assert_eq!(
            l(FindingCode::Other("new_rule".into()), "some_number"),
            "New rule: some number"
        );
    }
}
