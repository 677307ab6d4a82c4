//! How a full scan dealt with the places that did not read (or write) in one go: what the first
//! pass skipped, what the later passes found, how much of the range is good, failed or never
//! tried, and the state `scan --resume` needs to continue those passes.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Time allowed for scraping (failed areas sector by sector) and retries after the first pass
/// and trimming (`scan --error-budget`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorBudget {
    /// A tenth of the first pass's time, and at least [`ErrorBudget::AUTO_MIN_NS`].
    #[default]
    Auto,
    /// No limit: every failed area is read sector by sector.
    Unlimited,
    /// At most this many nanoseconds (0: no scraping, no retries).
    Ns(u64),
}

impl ErrorBudget {
    /// The least time `Auto` allows.
    pub const AUTO_MIN_NS: u64 = 60_000_000_000;

    /// The budget in nanoseconds for a first pass that took `first_pass_ns`; `None` for no limit.
    pub fn resolve(self, first_pass_ns: u64) -> Option<u64> {
        match self {
            ErrorBudget::Auto => Some((first_pass_ns / 10).max(Self::AUTO_MIN_NS)),
            ErrorBudget::Unlimited => None,
            ErrorBudget::Ns(ns) => Some(ns),
        }
    }
}

/// In JSON: `"auto"`, `"none"` (no limit), or nanoseconds.
impl Serialize for ErrorBudget {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ErrorBudget::Auto => s.serialize_str("auto"),
            ErrorBudget::Unlimited => s.serialize_str("none"),
            ErrorBudget::Ns(ns) => s.serialize_u64(*ns),
        }
    }
}

impl<'de> Deserialize<'de> for ErrorBudget {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Ns(u64),
            Word(String),
        }
        match Raw::deserialize(d)? {
            Raw::Ns(ns) => Ok(ErrorBudget::Ns(ns)),
            Raw::Word(w) if w == "auto" => Ok(ErrorBudget::Auto),
            Raw::Word(w) if w == "none" => Ok(ErrorBudget::Unlimited),
            Raw::Word(w) => Err(serde::de::Error::custom(format!(
                "error_budget {w:?} is not \"auto\", \"none\" or nanoseconds"
            ))),
        }
    }
}

/// A stretch of the range that was never read (or written).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UntriedExtent {
    pub offset: u64,
    /// Bytes.
    pub length: u64,
    pub first_lba: u64,
    pub last_lba: u64,
}

/// The state of the range at the end of a full scan: how much of it is good, failed and never
/// tried, and the time the error handling took.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Surface {
    /// Bytes that read (or were written) fine.
    pub good: u64,
    /// Bytes that failed: sectors that failed on their own, and the rest of failed commands
    /// whose sectors were not each tried (`unscraped`).
    pub failed: u64,
    /// Part of `failed`: bytes in failed commands that were not read sector by sector.
    pub unscraped: u64,
    /// Bytes never read (or written): neither good nor failed, including `unreached`. `good + failed + untried`
    /// is the range's length.
    pub untried: u64,
    /// Part of `untried`: the end of the range the first pass never got to (a scan stopped or a device gone).
    /// Absent in older documents, whose `untried` left it out.
    #[serde(default)]
    pub unreached: u64,
    /// Time of the first pass over the range.
    pub first_pass_ns: u64,
    /// Time after the first pass: trimming, scraping and retries.
    pub error_handling_ns: u64,
    /// The budget scraping and retries had (`--error-budget` resolved); absent for no limit.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub budget_ns: Option<u64>,
    /// True when the budget ran out with scraping or retries left to do.
    pub budget_ran_out: bool,
}

/// What a stretch of the range in a [`PassState`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AreaKind {
    /// Never read.
    Untried,
    /// A command over it failed; its sectors were not each read yet.
    Failed,
    /// Sectors read one by one that failed.
    Bad,
}

/// One stretch of the range that is not known good.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Area {
    pub offset: u64,
    pub length: u64,
    pub kind: AreaKind,
    /// The errno of the failure (0 for untried).
    #[serde(default)]
    pub errno: i32,
    /// Latency of the failing command (failed areas).
    #[serde(default)]
    pub latency_ns: u64,
}

/// Which pass a scan is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pass {
    /// Over the whole range in commands, skipping ahead after failures.
    #[default]
    First,
    /// Untried stretches next to good ones in commands, failed commands' edges in sectors.
    Trim,
    /// Within the error budget: untried stretches between failures, then failed ones sector by
    /// sector.
    Scrape,
    /// Within the error budget: failed sectors read again.
    Retry,
    /// Nothing left to do.
    Done,
}

/// The passes' state an interrupted scan leaves for `scan --resume`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PassState {
    pub pass: Pass,
    /// Retry passes done (in the retry pass).
    #[serde(default)]
    pub retry: u32,
    /// The first pass's current skip, bytes.
    #[serde(default)]
    pub skip: u64,
    /// Where the last skip ended.
    #[serde(default)]
    pub skip_from: u64,
    /// Every stretch known not to be good, in position order.
    pub areas: Vec<Area>,
    /// Past this offset the areas are not kept (their number reached the cap): failures there
    /// are counted only.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cut: Option<u64>,
    /// Bytes of failed commands past `cut`.
    #[serde(default)]
    pub cut_failed: u64,
    /// Time spent so far in the first pass and after it.
    #[serde(default)]
    pub first_pass_ns: u64,
    #[serde(default)]
    pub error_handling_ns: u64,
    /// Budget resolved at the end of the first pass (`None` before, or for no limit).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub budget_ns: Option<u64>,
    /// Time spent so far within the budget.
    #[serde(default)]
    pub budget_used_ns: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_reads_back_as_written() {
        for b in [
            ErrorBudget::Auto,
            ErrorBudget::Unlimited,
            ErrorBudget::Ns(0),
        ] {
            let s = serde_json::to_string(&b).unwrap();
            assert_eq!(serde_json::from_str::<ErrorBudget>(&s).unwrap(), b, "{s}");
        }
        assert_eq!(
            serde_json::to_string(&ErrorBudget::Unlimited).unwrap(),
            "\"none\""
        );
        assert!(serde_json::from_str::<ErrorBudget>("\"soon\"").is_err());
    }

    #[test]
    fn auto_is_a_tenth_of_the_first_pass_and_at_least_a_minute() {
        assert_eq!(
            ErrorBudget::Auto.resolve(1_000_000_000),
            Some(60_000_000_000)
        );
        assert_eq!(
            ErrorBudget::Auto.resolve(3_600_000_000_000),
            Some(360_000_000_000)
        );
        assert_eq!(ErrorBudget::Unlimited.resolve(5), None);
        assert_eq!(ErrorBudget::Ns(0).resolve(5), Some(0));
    }
}
