//! Why a test name or profile name was refused.

use crate::units::UnitError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    #[error("'{0}' is not a test name: expected e.g. 'SEQ1M Q8T1' or 'RND4K Q32T1'")]
    NotATestName(String),
    #[error("'{text}': {error}")]
    Size { text: String, error: UnitError },
    #[error("'{0}': the block size must be a non-zero multiple of 512 bytes")]
    BlockSize(String),
    #[error("'{0}': queue depth must be 1..4096 and threads 1..256")]
    QueueOrThreads(String),
    #[error("unknown profile '{0}' (default, nvme, peak, realworld)")]
    UnknownProfile(String),
}
