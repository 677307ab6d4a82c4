//! What every run record says about itself: the common header.

use crate::finding::Finding;
use crate::kind::Kind;
use drivescope_probe::Identity;
use serde::{Deserialize, Deserializer, Serialize};

/// The schema every document names.
pub const SCHEMA: &str = "drivescope/1";

/// Tool name and version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    pub name: String,
    pub version: String,
}

impl ToolInfo {
    pub fn current() -> Self {
        ToolInfo {
            name: "drivescope".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// The kind of target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetType {
    Block,
    File,
    Null,
}

impl TargetType {
    pub fn as_str(self) -> &'static str {
        match self {
            TargetType::Block => "block",
            TargetType::File => "file",
            TargetType::Null => "null",
        }
    }
}

/// The target as the run opened it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetInfo {
    pub path: String,
    #[serde(rename = "type")]
    pub kind: TargetType,
    pub size: u64,
    pub logical_block_size: u32,
}

/// Reads, writes or a mix of both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Read,
    Write,
    Mix,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Read => "read",
            Direction::Write => "write",
            Direction::Mix => "mix",
        }
    }
}

impl std::fmt::Display for Direction {
    /// Pads as a string does (`{:<5}`), so tables line up.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// The fields every run record starts with (flattened into each record).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Header {
    pub schema: String,
    pub kind: Kind,
    pub tool: ToolInfo,
    pub host: String,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub ended_at: String,
    pub target: TargetInfo,
    /// The target's identity as `drivescope info` reads it; `null` when it could not be read.
    #[serde(default, deserialize_with = "identity_or_none")]
    pub device: Option<Identity>,
    /// What the run's numbers show and why (see drivescope-analysis); none when nothing stands out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<Finding>,
    /// The target is memory, not a disk: what holds it (`tmpfs`, `ramfs`, `zram`, `ram`). Its
    /// rates are the memory's and the CPU's. Absent for a disk (and in older documents, where
    /// [`Header::memory`] reads it from `device`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
}

impl Header {
    /// Whether the run's offsets are positions on a medium, so that its rate by position can show zones;
    /// else why not (see [`Identity::positions`](drivescope_probe::Identity::positions)).
    pub fn positions(&self) -> Result<(), &'static str> {
        match self.target.kind {
            TargetType::File => Err("a file: its offsets are not the disk's positions"),
            TargetType::Null => Err("no device"),
            TargetType::Block => self.device.as_ref().map_or(Ok(()), |d| d.positions()),
        }
    }

    /// The header of a run of `kind` on `target` by this version on `host`, started (and, until it ends,
    /// ended) at `started_at`; the device is filled in by the caller.
    pub fn new(kind: Kind, target: TargetInfo, host: String, started_at: String) -> Header {
        Header {
            schema: SCHEMA.into(),
            kind,
            tool: ToolInfo::current(),
            host,
            ended_at: started_at.clone(),
            started_at,
            target,
            device: None,
            findings: Vec::new(),
            memory: None,
        }
    }

    /// What holds the target when it is memory rather than a disk (`tmpfs`, `zram`, …): the
    /// recorded field, or else what the identity shows.
    pub fn memory(&self) -> Option<String> {
        self.memory.clone().or_else(|| {
            self.device
                .as_ref()
                .and_then(|d| d.memory())
                .map(String::from)
        })
    }

    /// The note a run on memory prints under its numbers; `None` on a disk.
    pub fn memory_note(&self) -> Option<String> {
        self.memory().map(|m| {
            format!(
                "{} is memory ({m}), not a disk: these numbers are the RAM's and the CPU's, \
                 and say nothing of a drive",
                self.target.path
            )
        })
    }
}

/// A `device` that is not an identity this version can read (a newer shape) reads as unknown rather than
/// making the whole document unreadable.
fn identity_or_none<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Identity>, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    Ok(serde_json::from_value(v).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header_with(device: Option<Identity>) -> Header {
        let target = TargetInfo {
            path: "/".into(),
            kind: TargetType::File,
            size: 1,
            logical_block_size: 512,
        };
        let mut h = Header::new(
            Kind::Scan,
            target,
            "h".into(),
            "2026-11-23T10:00:00Z".into(),
        );
        h.device = device;
        h
    }

    #[test]
    fn directions_pad_in_tables() {
        assert_eq!(format!("[{:<5}]", Direction::Read), "[read ]");
        assert_eq!(format!("[{:>6}]", Direction::Mix), "[   mix]");
    }

    #[test]
    fn a_real_identity_reads_back_whole() {
        // The identity of this machine's root file system, as every run records it.
        let id = drivescope_probe::identify(
            std::path::Path::new("/"),
            &drivescope_probe::Roots::default(),
        )
        .unwrap();
        let h = header_with(Some(id.clone()));
        let back: Header = serde_json::from_value(serde_json::to_value(&h).unwrap()).unwrap();
        assert_eq!(back.device, Some(id));
    }

    #[test]
    fn a_device_in_a_shape_this_version_cannot_read_is_unknown() {
        let mut v = serde_json::to_value(header_with(None)).unwrap();
        v["device"] = serde_json::json!({"model": "X", "serial": "Y"});
        let back: Header = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(back.device, None);
        v.as_object_mut().unwrap().remove("device");
        let back: Header = serde_json::from_value(v).unwrap();
        assert_eq!(back.device, None);
    }
}
