//! `drivescope capacity`: how much of a drive keeps its data (counterfeit capacity), and what
//! happens past the real size. The same class and real size are stated by `lab truth` for a lab
//! disk that fakes its capacity.

use crate::header::Header;
use serde::{Deserialize, Serialize};

/// What a drive does with data written past its real capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CapacityClass {
    /// Every probed block keeps its own data: the real capacity is the nominal one.
    Genuine,
    /// Addresses wrap around: data written at `x` lands at `x mod modulus`, over earlier data.
    Wrap,
    /// Writes past the real size are acknowledged and thrown away.
    Drop,
    /// Writes past the real size land in a small cache ("limbo") that keeps only the most
    /// recent ones; older ones are gone.
    Limbo,
    /// Reads past the real size fail.
    ReadErrors,
}

impl CapacityClass {
    pub fn as_str(self) -> &'static str {
        match self {
            CapacityClass::Genuine => "genuine",
            CapacityClass::Wrap => "wrap",
            CapacityClass::Drop => "drop",
            CapacityClass::Limbo => "limbo",
            CapacityClass::ReadErrors => "read_errors",
        }
    }

    /// What happens past the real size, in words.
    pub fn describe(self) -> &'static str {
        match self {
            CapacityClass::Genuine => "every probed block keeps its data",
            CapacityClass::Wrap => "writes past it wrap around onto the start",
            CapacityClass::Drop => "writes past it are silently dropped",
            CapacityClass::Limbo => {
                "writes past it land in a small cache that keeps only the latest"
            }
            CapacityClass::ReadErrors => "reads past it fail",
        }
    }
}

impl std::fmt::Display for CapacityClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// What a lab disk that fakes its capacity really is (`lab truth`'s `capacity`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapacityTruth {
    /// The size the disk reports.
    pub nominal: u64,
    /// Bytes from offset 0 that keep their data.
    pub real: u64,
    pub class: CapacityClass,
    /// Wrap: the period of the address wrap-around (bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modulus: Option<u64>,
    /// Limbo: bytes of the most recent writes past `real` the cache keeps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<u64>,
}

/// One probed block that did not keep its data: the evidence behind the class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapacityObservation {
    /// Byte offset of the probed block.
    pub offset: u64,
    /// What reading it back gave: `misplaced` (the data written for `holds`), `lost` (zeros or
    /// what was there before), `wrong` (this run's data, corrupted), `read_error`,
    /// `write_error`.
    pub what: String,
    /// Misplaced: the offset whose data this block returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holds: Option<u64>,
}

/// What the probed device's commands cost, measured before the probe's rounds (ns).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct CapacityCosts {
    /// One probe block written, and read, far from the previous command.
    pub scattered_write_ns: u64,
    pub scattered_read_ns: u64,
    /// One MiB written, and read, continuing a sequential stream.
    pub seq_write_mib_ns: u64,
    pub seq_read_mib_ns: u64,
}

/// A capacity probe (`"kind": "capacity"`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CapacityRecord {
    #[serde(flatten)]
    pub header: Header,
    /// Bytes per probe block: the precision of `real_capacity`.
    pub block_size: u64,
    /// The size the device reports.
    pub nominal: u64,
    /// Bytes from offset 0 below which every probed block kept its own data. Absent when the
    /// probe stopped before it could say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real_capacity: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<CapacityClass>,
    /// Wrap: the period of the wrap-around (bytes); data written at `x` went to `x - modulus`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modulus: Option<u64>,
    /// Limbo: bytes of the latest writes past the real size that were still readable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<u64>,
    /// Bytes written between writing the probe blocks and reading them back, so that a cache
    /// up to this size could not keep them.
    pub flush_bytes: u64,
    /// Probe and flush blocks written (each once per round it took part in).
    pub blocks_written: u64,
    pub bytes_written: u64,
    pub bytes_read: u64,
    /// Write, flush and read-back rounds.
    pub rounds: u32,
    /// What the device's commands cost, as measured first (absent in older documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub costs: Option<CapacityCosts>,
    /// The first round's run at the start of the device, in blocks; also the distance between
    /// its single blocks (0 in older documents).
    #[serde(default)]
    pub run_blocks: u64,
    /// The first round's single blocks.
    #[serde(default)]
    pub scattered_blocks: u64,
    /// The modelled time of the probe on this device: a genuine drive, and the costliest fake
    /// (ns; 0 in older documents).
    #[serde(default)]
    pub modelled_genuine_ns: u64,
    #[serde(default)]
    pub modelled_worst_ns: u64,
    /// The blocks that did not keep their data (the lowest and most telling, at most 32).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<CapacityObservation>,
    /// Where the data the probe overwrote was saved (none with `--destructive`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
    /// The overwritten data was written back and read back equal.
    pub restored: bool,
    /// Blocks whose restored data read back different (a drive that drops writes returns
    /// zeros where the data was never kept; they are counted, not hidden).
    #[serde(default)]
    pub restore_mismatches: u64,
    /// `--destructive`: no backup, the probe blocks stay on the device.
    pub destructive: bool,
    /// Stopped (SIGINT/SIGTERM) before it finished; the data was restored all the same.
    pub interrupted: bool,
    pub duration_ns: u64,
}

impl CapacityRecord {
    /// The one sentence a person needs.
    pub fn verdict(&self) -> String {
        let iec = drivescope_units::format_size;
        match (self.class, self.real_capacity) {
            (Some(CapacityClass::Genuine), _) => {
                format!("all {} keep their data", iec(self.nominal))
            }
            (Some(class), Some(real)) => {
                let mut s = format!(
                    "counterfeit capacity: real {} of {}",
                    iec(real),
                    iec(self.nominal)
                );
                match class {
                    CapacityClass::Wrap => {
                        if let Some(m) = self.modulus {
                            s += &format!(", wraps every {}", iec(m));
                        }
                    }
                    CapacityClass::Limbo => {
                        if let Some(c) = self.cache {
                            s += &format!(
                                ", a cache keeps only the last {} written past it",
                                iec(c)
                            );
                        }
                    }
                    other => s += &format!(", {}", other.describe()),
                }
                s
            }
            _ => "the probe stopped before it could tell the real capacity".into(),
        }
    }
}
