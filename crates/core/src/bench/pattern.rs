//! Test names as CrystalDiskMark writes them (`SEQ1M Q8T1`, `RND4K Q32T16`), profiles, and
//! the read/write mode.

use super::pattern_error::PatternError;
use crate::units::{parse_size, short_size};
use serde::{Deserialize, Serialize};

/// Sequential or random access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    Seq,
    Rnd,
}

/// One test: access, block size, queue depth per thread, threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TestSpec {
    pub access: Access,
    pub block_size: u64,
    pub queue_depth: u32,
    pub threads: u32,
}

/// What a test does with the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rw {
    Read,
    Write,
    /// Mixed: this percentage of commands are reads, the rest writes.
    Mix(u8),
}

impl Rw {
    pub fn label(&self) -> &'static str {
        match self {
            Rw::Read => "read",
            Rw::Write => "write",
            Rw::Mix(_) => "mix",
        }
    }

    pub fn writes(&self) -> bool {
        !matches!(self, Rw::Read)
    }
}

impl TestSpec {
    /// Parse `SEQ1M Q8T1`, `RND4K Q32T16`, `rnd16k q4t2` (the `QnTm` part may be left out:
    /// Q1T1).
    pub fn parse(text: &str) -> Result<TestSpec, PatternError> {
        let bad = || PatternError::NotATestName(text.to_string());
        let t = text.trim().to_ascii_uppercase();
        let mut parts = t.split_whitespace();
        let head = parts.next().ok_or_else(bad)?;
        let (access, size) = if let Some(s) = head.strip_prefix("SEQ") {
            (Access::Seq, s)
        } else if let Some(s) = head.strip_prefix("RND") {
            (Access::Rnd, s)
        } else {
            return Err(bad());
        };
        let block_size = parse_size(size).map_err(|error| PatternError::Size {
            text: text.to_string(),
            error,
        })?;
        if block_size == 0 || !block_size.is_multiple_of(512) {
            return Err(PatternError::BlockSize(text.to_string()));
        }
        let (mut qd, mut threads) = (1u32, 1u32);
        if let Some(qt) = parts.next() {
            let qt = qt.strip_prefix('Q').ok_or_else(bad)?;
            let (q, th) = qt.split_once('T').ok_or_else(bad)?;
            qd = q.parse().map_err(|_| bad())?;
            threads = th.parse().map_err(|_| bad())?;
        }
        if parts.next().is_some() {
            return Err(bad());
        }
        if !(1..=4096).contains(&qd) || !(1..=256).contains(&threads) {
            return Err(PatternError::QueueOrThreads(text.to_string()));
        }
        Ok(TestSpec {
            access,
            block_size,
            queue_depth: qd,
            threads,
        })
    }

    /// The CrystalDiskMark-style name.
    pub fn name(&self) -> String {
        format!(
            "{}{} Q{}T{}",
            match self.access {
                Access::Seq => "SEQ",
                Access::Rnd => "RND",
            },
            short_size(self.block_size),
            self.queue_depth,
            self.threads
        )
    }
}

/// The tests of a named profile.
pub fn profile(name: &str) -> Result<Vec<TestSpec>, PatternError> {
    let names: &[&str] = match name {
        "default" => &["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"],
        "nvme" => &["SEQ1M Q8T1", "SEQ128K Q32T1", "RND4K Q32T16", "RND4K Q1T1"],
        "peak" => &["SEQ1M Q8T1", "RND4K Q32T1"],
        "realworld" => &["SEQ1M Q1T1", "RND4K Q1T1"],
        other => return Err(PatternError::UnknownProfile(other.to_string())),
    };
    names.iter().map(|n| TestSpec::parse(n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for n in ["SEQ1M Q8T1", "RND4K Q32T16", "SEQ128K Q32T1", "RND16K Q4T2"] {
            assert_eq!(TestSpec::parse(n).unwrap().name(), n);
        }
        let t = TestSpec::parse("rnd4k").unwrap();
        assert_eq!((t.queue_depth, t.threads, t.block_size), (1, 1, 4096));
        assert_eq!(TestSpec::parse("SEQ1M Q8T1").unwrap().block_size, 1 << 20);
    }

    #[test]
    fn bad_names() {
        for n in [
            "",
            "FOO1M",
            "SEQ Q1T1",
            "SEQ1M Q0T1",
            "SEQ1M Q1",
            "SEQ1000 Q1T1",
            "SEQ1M Q1T1 x",
        ] {
            assert!(TestSpec::parse(n).is_err(), "{n}");
        }
    }

    #[test]
    fn profiles() {
        assert_eq!(profile("default").unwrap().len(), 4);
        assert_eq!(profile("nvme").unwrap()[2].threads, 16);
        assert!(profile("x").is_err());
    }

    #[test]
    fn refusals_keep_their_words() {
        let words = |t: &str| TestSpec::parse(t).unwrap_err().to_string();
        assert_eq!(
            words("FOO1M"),
            "'FOO1M' is not a test name: expected e.g. 'SEQ1M Q8T1' or 'RND4K Q32T1'"
        );
        assert_eq!(
            words("SEQ1000 Q1T1"),
            "'SEQ1000 Q1T1': the block size must be a non-zero multiple of 512 bytes"
        );
        assert_eq!(
            words("SEQ1M Q0T1"),
            "'SEQ1M Q0T1': queue depth must be 1..4096 and threads 1..256"
        );
        assert!(words("SEQ1Q Q1T1").starts_with("'SEQ1Q Q1T1': "));
        assert_eq!(
            profile("x").unwrap_err(),
            PatternError::UnknownProfile("x".into())
        );
        assert_eq!(
            profile("x").unwrap_err().to_string(),
            "unknown profile 'x' (default, nvme, peak, realworld)"
        );
    }
}
