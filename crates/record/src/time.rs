//! `drivescope time`: a real workload (a command) timed several times, cold (caches dropped before each run)
//! and warm (after an untimed run), with the I/O it did on each block device under it.
//!
//! Every run keeps its wall time, the command's user and system CPU, and the kernel's own counters of each
//! device that was watched (`/proc/diskstats` deltas) and, where a cgroup of its own could be made, the
//! command's own I/O (`io.stat`). Summaries per mode are computed from the runs when the record is made.

use crate::header::Header;
use serde::{Deserialize, Serialize};

/// A timed workload (`"kind": "time"`). `target` is the working directory the command ran in.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TimeRecord {
    #[serde(flatten)]
    pub header: Header,
    /// The command and its arguments as run (with `--shell`: `sh -c CMD`).
    pub command: Vec<String>,
    /// The shell command line when given with `--shell`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell: Option<String>,
    /// Run (through `sh -c`) before every timed and warm-up run, untimed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prepare: Option<String>,
    /// Timed runs per mode.
    pub runs: u32,
    /// Untimed runs before the timed ones of each mode.
    pub warmup: u32,
    /// A failing command does not fail the measurement (`-i`).
    pub ignore_failure: bool,
    /// The block devices behind the working directory (as /proc/diskstats names them), whole disks and
    /// partitions; the first is the file system's own device, whose counters the summaries use.
    pub devices: Vec<String>,
    /// The members of a file system over several devices behind the working directory (btrfs): its own device
    /// (`devices[0]`) is one of them, so the summaries add the members' bytes and commands and take the
    /// busiest member's busy time. Absent otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<String>,
    /// Where the per-command I/O came from: `cgroup` (the command ran in a cgroup v2 of its own and
    /// `io.stat` counted its I/O) or `diskstats` (device counters only: other processes' I/O counts too).
    pub io_source: IoSource,
    /// Cold, then warm (each when measured).
    pub modes: Vec<ModeResult>,
    /// Things worth knowing: why there is no cgroup, why cold was not measured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// With `--trace`: the block requests of one run, reduced to what kind of I/O the workload does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<crate::fingerprint::Fingerprint>,
    /// With `--predict-on`: the fingerprint's I/O time predicted on another disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prediction: Option<crate::prediction::Prediction>,
    /// Stopped (SIGINT) before every run was done.
    pub interrupted: bool,
    pub duration_ns: u64,
}

/// Where a run's per-command I/O numbers come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IoSource {
    Cgroup,
    Diskstats,
}

/// Caches dropped before every run, or primed by a run before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeMode {
    Cold,
    Warm,
}

impl TimeMode {
    pub fn as_str(self) -> &'static str {
        match self {
            TimeMode::Cold => "cold",
            TimeMode::Warm => "warm",
        }
    }
}

impl std::fmt::Display for TimeMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// The timed runs of one mode and their summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModeResult {
    pub mode: TimeMode,
    pub runs: Vec<TimedRun>,
    /// Over the runs that finished (and, without `-i`, succeeded).
    pub summary: ModeSummary,
}

/// One timed run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimedRun {
    /// From 1, in the order run.
    pub index: u32,
    pub wall_ns: u64,
    /// CPU time of the command and every child it waited for.
    pub user_ns: u64,
    pub sys_ns: u64,
    /// The exit status; none when a signal ended it (`signal`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// The counters of each watched device and of every other device whose counters moved.
    pub devices: Vec<DeviceIo>,
    /// The command's own I/O per device (`io.stat` of its cgroup), when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup_io: Option<Vec<CgroupIo>>,
    /// Wall time far from the mode's median (beyond median ± 3 × 1.4826 × MAD, and 5 % of the median).
    pub outlier: bool,
}

impl TimedRun {
    /// The command exited 0.
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0)
    }

    /// The counters of the device `name`, when watched or moved.
    pub fn device(&self, name: &str) -> Option<&DeviceIo> {
        self.devices.iter().find(|d| d.name == name)
    }
}

/// What one device's `/proc/diskstats` counters say happened during a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceIo {
    /// As /proc/diskstats names it (`sda`, `sda2`, `loop3`, `dm-0`).
    pub name: String,
    pub read_bytes: u64,
    pub read_ios: u64,
    pub written_bytes: u64,
    pub write_ios: u64,
    /// Time the device had at least one command in flight (`io_ticks`), from anyone.
    pub busy_ns: u64,
}

/// One device's line of the command's `io.stat`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CgroupIo {
    /// `MAJ:MIN` and, when found, the device's name.
    pub device: String,
    pub read_bytes: u64,
    pub read_ios: u64,
    pub written_bytes: u64,
    pub write_ios: u64,
}

/// Mean, spread and extremes of one quantity over a mode's runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub mean: f64,
    /// Sample standard deviation (0 for one run).
    pub sd: f64,
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

/// A mode's summary: times in ns, bytes per run; the device numbers are of `devices[0]` (the file system's).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModeSummary {
    /// Runs summarised.
    pub count: u32,
    /// Runs whose command failed.
    pub failed: u32,
    pub outliers: u32,
    pub wall_ns: Spread,
    pub user_ns: Spread,
    pub sys_ns: Spread,
    pub busy_ns: Spread,
    pub read_bytes: Spread,
    pub written_bytes: Spread,
    /// Mean busy time over mean wall time (0..1).
    pub busy_share: f64,
    /// Mean user + system CPU over mean wall time (above 1 for a command that uses several CPUs).
    pub cpu_share: f64,
}

impl TimeRecord {
    /// The result of `mode`, when measured.
    pub fn mode(&self, mode: TimeMode) -> Option<&ModeResult> {
        self.modes.iter().find(|m| m.mode == mode)
    }

    /// The command as a person types it.
    pub fn command_line(&self) -> String {
        match &self.shell {
            Some(s) => s.clone(),
            None => self.command.join(" "),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_name_themselves_and_read_back() {
        for m in [TimeMode::Cold, TimeMode::Warm] {
            let v = serde_json::to_value(m).unwrap();
            assert_eq!(v, serde_json::Value::String(m.as_str().into()));
            assert_eq!(serde_json::from_value::<TimeMode>(v).unwrap(), m);
        }
    }
}
