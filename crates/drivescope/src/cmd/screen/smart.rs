//! SMART around a screen's scans: each drive's reading before its scan (the one its identity took) and a
//! fresh one after, kept in the group's members for the verdict's SMART rules.

use drivescope_probe::{smart_drive, Identity, Smart};
use drivescope_record::Member;

/// Each target's SMART before the scans: the reading its identity took (read now when the identity holds
/// none). None for a target that is not a block device, or whose identity could not be read.
pub fn before(devices: &[Option<Identity>]) -> Vec<Option<Smart>> {
    devices
        .iter()
        .map(|d| smart_drive::read(d.as_ref()?, true))
        .collect()
}

/// The SMART of the drives just scanned (`scanned`, indices into `devices`), read now; None for the others.
pub fn after(devices: &[Option<Identity>], scanned: &[usize]) -> Vec<Option<Smart>> {
    (0..devices.len())
        .map(|i| {
            let d = devices[i].as_ref().filter(|_| scanned.contains(&i))?;
            smart_drive::read(d, false)
        })
        .collect()
}

/// Records the readings of the drives just scanned (`scanned`, indices into `members`). A resumed drive keeps
/// the reading from before its first scan, so growth over the whole scan shows.
pub fn fill(
    members: &mut [Member],
    scanned: &[usize],
    mut before: Vec<Option<Smart>>,
    mut after: Vec<Option<Smart>>,
) {
    for &i in scanned {
        let m = &mut members[i];
        if m.smart_before.is_none() {
            m.smart_before = before[i].take();
        }
        m.smart_after = after[i].take();
    }
}
