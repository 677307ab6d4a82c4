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

/// Whether the kernel says the block device behind `file` takes discards (its queue's
/// `discard_max_bytes`, a partition's from its disk); None when sysfs does not say.
fn takes_discard(file: &std::fs::File) -> Option<bool> {
    use std::os::unix::fs::MetadataExt;
    let rdev = file.metadata().ok()?.rdev();
    let dir = format!("/sys/dev/block/{}:{}", libc::major(rdev), libc::minor(rdev));
    ["queue/discard_max_bytes", "../queue/discard_max_bytes"]
        .iter()
        .find_map(|f| std::fs::read_to_string(format!("{dir}/{f}")).ok())
        .and_then(|s| s.trim().parse::<u64>().ok())
        .map(|n| n > 0)
}

/// Discard the whole of `target` (a block device opened for writing).
pub fn discard_all(target: &Target) -> std::io::Result<()> {
    let file = target
        .file()
        .ok_or_else(|| std::io::Error::other("no device to discard"))?;
    if takes_discard(file) == Some(false) {
        return Err(std::io::Error::other(
            "the kernel says it takes no discard (TRIM)",
        ));
    }
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
                    why: format!("no whole-device discard: {e}"),
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
