//! What `drivescope lab presets --json` and `lab serve --json` print: the emulated disks one can start,
//! and each one started (where its image and loop device are), so scripts and tests need not parse text.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// `lab presets --json`: every model the lab can serve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabPresets {
    /// `drivescope/1`.
    pub schema: String,
    /// `lab_presets`.
    pub kind: String,
    pub presets: Vec<LabPreset>,
}

/// One model: its name (what `lab serve` takes), what it emulates, its size in bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabPreset {
    pub name: String,
    pub summary: String,
    pub size: u64,
}

/// `lab serve --json`: one line per disk served, printed once it is up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabServed {
    /// `drivescope/1`.
    pub schema: String,
    /// `lab_serve`.
    pub kind: String,
    /// The preset (or file) the disk models.
    pub model: String,
    /// Size in bytes.
    pub size: u64,
    /// The FUSE file that is the disk.
    pub image: PathBuf,
    /// The loop device over the image (`--loop`), else null.
    pub loop_device: Option<PathBuf>,
    /// The rate of the bus the disks share (`--bus`), in MB/s; absent without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bus_mb_per_s: Option<f64>,
}

impl LabPresets {
    pub fn new(presets: Vec<LabPreset>) -> LabPresets {
        LabPresets {
            schema: crate::SCHEMA.into(),
            kind: "lab_presets".into(),
            presets,
        }
    }
}

impl LabServed {
    pub fn new(
        model: String,
        size: u64,
        image: PathBuf,
        loop_device: Option<PathBuf>,
        bus_mb_per_s: Option<f64>,
    ) -> LabServed {
        LabServed {
            schema: crate::SCHEMA.into(),
            kind: "lab_serve".into(),
            model,
            size,
            image,
            loop_device,
            bus_mb_per_s,
        }
    }
}
