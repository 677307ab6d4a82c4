//! Purge before preconditioning: return the drive to its fresh state. drivescope uses a discard
//! of the whole device (BLKDISCARD), and names the methods it does not use and why.

use crate::target::Target;
use drivescope_record::{PurgeRefused, SteadyPurge};
use std::os::fd::AsRawFd;
use std::time::Instant;

/// `_IO(0x12, 119)`: discard a byte range of a block device.
const BLKDISCARD: libc::c_ulong = 0x1277;

/// What the device is, as far as purging goes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bus {
    pub nvme: bool,
    pub ata: bool,
}

/// The methods drivescope does not send, each with why, for a device on `bus`.
pub fn unavailable(bus: Bus) -> Vec<PurgeRefused> {
    let refuse = |method: &str, why: &str| PurgeRefused {
        method: method.into(),
        why: why.into(),
    };
    vec![
        refuse(
            "nvme_format",
            if bus.nvme {
                "drivescope does not send NVMe Format (it erases every namespace's data format)"
            } else {
                "not an NVMe device"
            },
        ),
        refuse(
            "nvme_sanitize",
            if bus.nvme {
                "drivescope does not send NVMe Sanitize (it cannot be stopped once started)"
            } else {
                "not an NVMe device"
            },
        ),
        refuse(
            "ata_secure_erase",
            if bus.ata {
                "drivescope does not send ATA Security Erase (it needs a password set first)"
            } else {
                "not an ATA device"
            },
        ),
    ]
}

/// Discard the whole of `target` (a block device opened for writing).
pub fn discard_all(target: &Target) -> std::io::Result<()> {
    let file = target
        .file()
        .ok_or_else(|| std::io::Error::other("no device to discard"))?;
    let range: [u64; 2] = [0, target.size];
    // SAFETY: a valid descriptor and a pointer to two u64s, as BLKDISCARD takes.
    let r = unsafe { libc::ioctl(file.as_raw_fd(), BLKDISCARD as _, range.as_ptr()) };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Purge `target` as well as drivescope can: a whole-device discard, else none (the record then
/// names why each method was not used).
pub fn purge(target: &Target, bus: Bus) -> SteadyPurge {
    let begin = Instant::now();
    let mut refused = unavailable(bus);
    let method = match discard_all(target) {
        Ok(()) => Some("discard".to_string()),
        Err(e) => {
            refused.insert(
                0,
                PurgeRefused {
                    method: "discard".into(),
                    why: format!("the device refused a whole-device discard ({e})"),
                },
            );
            None
        }
    };
    SteadyPurge {
        method,
        refused,
        skipped: false,
        duration_ns: begin.elapsed().as_nanos() as u64,
    }
}

/// The purge of a run whose user skipped it (`--no-purge`).
pub fn skipped() -> SteadyPurge {
    SteadyPurge {
        skipped: true,
        ..SteadyPurge::default()
    }
}
