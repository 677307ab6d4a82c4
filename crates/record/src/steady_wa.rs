//! A steady run's write amplification from SMART: the drive's host and media write counters as
//! the measured rounds began (after preconditioning) and at the end of the run.

use drivescope_probe::smart_writes::{SmartWrites, WriteInterval};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SteadyWriteAmplification {
    /// The counters as the measured rounds began; a resumed run keeps its first part's.
    pub before: SmartWrites,
    /// The counters at the end of the run (absent until it ends).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<SmartWrites>,
    /// Host and media writes between the two, their ratio, the counters used; or why it is
    /// inconclusive (absent until the run ends).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<WriteInterval>,
}
