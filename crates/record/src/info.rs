//! `drivescope info --json`: the identity of one target, or of every block device.

use crate::header::ToolInfo;
use crate::kind::Kind;
use drivescope_probe::Identity;
use serde::{Deserialize, Serialize};

/// An info document: `identity` for one target, `devices` for the listing.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct InfoRecord {
    pub schema: String,
    pub kind: Kind,
    pub tool: ToolInfo,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<Identity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub devices: Option<Vec<Identity>>,
}

impl InfoRecord {
    fn new(identity: Option<Identity>, devices: Option<Vec<Identity>>) -> InfoRecord {
        InfoRecord {
            schema: crate::SCHEMA.into(),
            kind: Kind::Info,
            tool: ToolInfo::current(),
            identity,
            devices,
        }
    }

    /// The document of `drivescope info TARGET`.
    pub fn of_target(identity: Identity) -> InfoRecord {
        InfoRecord::new(Some(identity), None)
    }

    /// The document of `drivescope info` without a target: every block device.
    pub fn of_devices(devices: Vec<Identity>) -> InfoRecord {
        InfoRecord::new(None, Some(devices))
    }
}
