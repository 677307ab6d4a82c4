//! One block request, issued and completed.

use serde::{Deserialize, Serialize};

/// What a request does, from the first letters of the tracepoint's `rwbs` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    Read,
    Write,
    /// A cache flush with no data (`F` alone); a write with a flush before or FUA is a `Write` with `sync`.
    Flush,
    /// Discard, secure erase or write-zeroes: no data moves.
    Discard,
}

impl Op {
    /// The code stored in a kept trace.
    pub fn code(self) -> u8 {
        match self {
            Op::Read => 0,
            Op::Write => 1,
            Op::Flush => 2,
            Op::Discard => 3,
        }
    }

    pub fn from_code(code: u8) -> Option<Op> {
        Some(match code {
            0 => Op::Read,
            1 => Op::Write,
            2 => Op::Flush,
            3 => Op::Discard,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Flush => "flush",
            Op::Discard => "discard",
        }
    }
}

/// One block request, matched from issue to completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// The device as the kernel numbers it: `major << 20 | minor` (the tracepoints' `dev_t`).
    pub dev: u32,
    /// First 512-byte sector.
    pub sector: u64,
    /// Bytes moved (0 for a flush).
    pub bytes: u32,
    pub op: Op,
    /// Synchronous (`S`), a preflush (`F` before the data) or forced unit access (`FUA`).
    pub sync: bool,
    /// Issued to the driver, in nanoseconds from the start of the trace.
    pub issue_ns: u64,
    /// Completed, in nanoseconds from the start of the trace (never before `issue_ns`).
    pub complete_ns: u64,
    /// The completion's error (0 for success, else a negative errno).
    pub error: i32,
}

impl Request {
    /// The device's service time: issue to completion.
    pub fn service_ns(&self) -> u64 {
        self.complete_ns.saturating_sub(self.issue_ns)
    }

    /// The sector just past this request's data.
    pub fn end_sector(&self) -> u64 {
        self.sector + u64::from(self.bytes / 512)
    }

    pub fn major(&self) -> u32 {
        self.dev >> 20
    }

    pub fn minor(&self) -> u32 {
        self.dev & ((1 << 20) - 1)
    }
}
