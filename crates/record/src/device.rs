//! The device of a run in the few words a list or a legend shows, read from its identity.

use drivescope_probe::{BlockInfo, Identity};

/// Model, serial, firmware, capacity and transport of the device under a target.
///
/// The device is the first bottom device with hardware under the target (the disk under a file system, a
/// partition or a RAID member); a target with no hardware under it (a loop device over a file, zram) is
/// described by its own block device, which has a name, a capacity and a transport but no model or serial.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceSummary {
    /// Kernel name of the device described (`sda`, `nvme0n1`, `loop3`).
    pub name: Option<String>,
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    /// Bytes.
    pub capacity: Option<u64>,
    /// `sata`, `usb`, `nvme`, `virtio`, `loop`, …
    pub transport: Option<String>,
}

fn text(s: &Option<String>) -> Option<String> {
    s.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
}

impl DeviceSummary {
    pub fn of(id: &Identity) -> DeviceSummary {
        let dev: Option<&BlockInfo> = id
            .devices()
            .next()
            .or_else(|| id.target_block())
            .or_else(|| id.block_devices().next());
        let Some(dev) = dev else {
            return DeviceSummary::default();
        };
        let hw = dev.hardware.as_ref();
        DeviceSummary {
            name: text(&Some(dev.name.clone())),
            model: hw.and_then(|h| text(&h.model)),
            serial: hw.and_then(|h| text(&h.serial)),
            firmware: hw.and_then(|h| text(&h.firmware)),
            capacity: dev.size_bytes,
            transport: Some(dev.transport.as_str().to_string()),
        }
    }

    /// `MODEL (SERIAL)`, the model or the serial alone, else the kernel name; None when nothing is known.
    pub fn label(&self) -> Option<String> {
        match (&self.model, &self.serial) {
            (Some(m), Some(s)) => Some(format!("{m} ({s})")),
            (Some(m), None) => Some(m.clone()),
            (None, Some(s)) => Some(s.clone()),
            (None, None) => self.name.clone(),
        }
    }
}
