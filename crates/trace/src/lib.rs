//! drivescope-trace: block requests as the kernel issued and completed them.
//!
//! A [`Request`] is one block request seen at `block:block_rq_issue` and matched with its
//! `block:block_rq_complete`: where on the device, how many bytes, what operation, and when (nanoseconds from the
//! start of the trace). [`Capture`] takes such a trace of chosen devices from the kernel's tracefs while a
//! command runs (root), in a tracing instance of its own; [`Reducer`] turns the requests into a workload's
//! [`Fingerprint`](drivescope_record::Fingerprint) as they come. A kept trace (`time --keep-trace FILE`, the
//! input of `replay`) is written with [`TraceWriter`] and read back with [`TraceReader`] in the format
//! described in [`file`].

mod capture;
pub mod devices;
mod error;
mod events;
pub mod file;
mod matcher;
mod reduce;
mod request;
mod ring;
mod tracefs;

pub use capture::{monotonic_ns, unavailable, Capture, CaptureStats, Sink};
pub use error::CaptureError;
pub use file::{TraceDevice, TraceHeader, TraceReader, TraceWriter, TRACE_MAGIC};
pub use reduce::{Reducer, TracedRun};
pub use request::{Op, Request};

/// What can go wrong reading or writing a kept trace.
#[derive(Debug, thiserror::Error)]
pub enum TraceFileError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("not a drivescope trace (it does not start with {TRACE_MAGIC:?})")]
    NotATrace,
    #[error("the trace's header is not valid: {0}")]
    Header(String),
    #[error("the trace ends inside request {index} (a torn last record)")]
    Torn { index: u64 },
    #[error("request {index} has an unknown operation code {code}")]
    BadOp { index: u64, code: u8 },
}
