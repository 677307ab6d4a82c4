//! Drive-managed SMR: the random writes a diagnosis runs to find a media cache, and a lab model's truth of one.

use serde::{Deserialize, Serialize};

/// Random writes, then idle time, then random writes again: a DM-SMR disk's media cache fills (the rate falls
/// and band cleaning stalls the drive) and drains while the drive idles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SmrData {
    pub block_size: u64,
    pub queue_depth: u32,
    /// The writes fall uniformly at random on whole blocks of `[0, region)`.
    pub region: u64,
    /// Commands at least this long are kept as stalls.
    pub stall_floor_ns: u64,
    /// The first writes: until the rate fell and stalls came, or their time ran out.
    pub fill: RandomWrites,
    /// The idle time after them, ns (absent when they showed no fall: there is nothing to drain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_ns: Option<u64>,
    /// The writes after the idle time: until they stall again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub again: Option<RandomWrites>,
}

/// One run of random writes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RandomWrites {
    pub written: u64,
    pub commands: u64,
    pub duration_ns: u64,
    /// Stretches of the run in the order written: when each ended (from the first command), its bytes and rate,
    /// and its longest command.
    pub points: Vec<WritePoint>,
    /// The commands that took at least the stall floor, in the order they ended (at most [`STALL_LIST_CAP`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stalls: Vec<Stall>,
}

/// The most stalls a run keeps.
pub const STALL_LIST_CAP: usize = 4096;

/// A stretch of random writes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WritePoint {
    pub t_ns: u64,
    pub bytes: u64,
    pub mb_per_s: f64,
    pub max_latency_ns: u64,
}

/// One command that held the device for long.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stall {
    /// When it completed, from the run's first command.
    pub t_ns: u64,
    /// Bytes the run had written before it completed.
    pub written: u64,
    pub latency_ns: u64,
}

/// What a lab model's DM-SMR section means for random writes (`lab truth`, `smr`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SmrTruth {
    /// Bytes of non-sequential writes the empty media cache takes before band cleaning starts.
    pub media_cache: u64,
    /// Rate of writes into the media cache (MB/s).
    pub cache_mb_per_s: f64,
    /// Media-cache bytes one band cleaning frees.
    pub band: u64,
    /// One band cleaning's stall, ns.
    pub stall_ns: u64,
    /// Idle time before the drive drains its media cache, ns.
    pub idle_after_ns: u64,
    /// Rate the idle drive drains the media cache (MB/s).
    pub drain_mb_per_s: f64,
    /// Idle time from the last command until a full media cache is empty, ns.
    pub drain_ns: u64,
    /// Random 64 KiB writes at queue depth 1 while the cache has room (MB/s).
    pub fill_mb_per_s: f64,
    /// The same once it is full: a stall per band (MB/s).
    pub full_mb_per_s: f64,
}

/// What a lab flash drive (a model with a `flash` section) is known to do under random writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlashTruth {
    /// The mapping unit: a write programs whole pages (a smaller one still programs a page).
    pub page: u64,
    /// The erase block.
    pub block: u64,
    /// Spare blocks as a fraction of user blocks (over-provisioning).
    pub spare: f64,
    /// Physical over user capacity.
    pub alpha: f64,
    /// Steady-state write amplification of uniform random writes, greedy collection, in the
    /// large-block limit (analytic).
    pub wa_analytic: f64,
    /// The same on this drive's own geometry: its simulation after a sequential precondition of
    /// twice the capacity and random page writes until it settles.
    pub wa_random: f64,
    /// Time to program one page at the outer rate, ns.
    pub page_program_ns: u64,
    /// Random 4 KiB writes per second a fresh (purged) drive takes, the queue kept full.
    pub rnd4k_fresh_write_iops: f64,
    /// The same in the garbage-collection steady state (`wa_random` programs per page written).
    pub rnd4k_steady_write_iops: f64,
    /// Idle time before the collector cleans in the background, ns.
    pub idle_after_ns: u64,
    /// Page programs slow by this fraction per second of the disk's clock, compounded (0: never;
    /// a drifting drive has no steady state, and its `rnd4k_steady_write_iops` holds at its first
    /// command only).
    #[serde(default)]
    pub drift: f64,
}
