//! drivescope-units: sizes, rates and durations as drivescope reads and writes them.
//!
//! Sizes are binary (IEC): `64K`, `64KiB`, `1M`, `1G` all mean powers of 1024, and people
//! read them with one decimal in the largest unit that keeps the number at or above 1
//! (`64.0 KiB`, `1.0 GiB`, `3.6 TiB`), as `drivescope info` prints them; an offset is written
//! as the size from the start. Throughput is MB/s = 10^6 bytes per second, as CrystalDiskMark
//! and datasheets use (GB/s from 100 000 MB/s on). Counts and IOPS are grouped by thousands
//! (`531 550`). Durations are parsed by `humantime` (`3s`, `500ms`, `1h 30m`), and a bare
//! number is seconds; latencies and measured durations are written in ns, µs, ms or s.
//!
//! One formatter per quantity, used by every output: [`format_size`], [`format_offset`],
//! [`format_rate`], [`format_iops`], [`format_count`], [`format_latency`] / [`format_ns`],
//! [`format_elapsed`] (how long something took) and [`format_duration`] (a set duration, as
//! an argument spells it).
//!
//! A leaf crate: it depends on no other drivescope crate, so every one of them can use it.

mod count;
mod duration;
mod rate;
mod size;
mod words;

pub use count::{format_count, format_iops};
pub use duration::{format_duration, format_elapsed, format_latency, format_ns, parse_duration};
pub use rate::{format_rate, mb_per_s};
pub use size::{
    format_bytes, format_offset, format_size, parse_size, parse_size_or_percent, short_size,
    ShownSize, SizeOrPercent,
};
pub use words::{count, count_as};

/// Error for a size or duration that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnitError(pub String);
