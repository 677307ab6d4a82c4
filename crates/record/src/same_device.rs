//! The one rule for "the same device": a run continues only on the device it ran on (`--resume`),
//! and a finding compares two runs only of one device (a bench against a stored diagnosis).
//!
//! A device is known by the serial numbers of every block device with hardware under its target,
//! top first (one for a disk, each member's for a RAID). Without serial numbers the identities
//! cannot tell; readers with two headers then compare the target paths.

use crate::Header;
use drivescope_probe::Identity;

/// What the serial numbers say of two devices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceMatch {
    /// The same serial numbers.
    Same,
    /// The earlier device had serial numbers and the later one has others (or none).
    Different { then: Vec<String>, now: Vec<String> },
    /// The earlier device had no serial numbers: they cannot tell.
    Untold,
}

impl DeviceMatch {
    /// Whether the device `now` is the one `then` was.
    pub fn of(then: Option<&Identity>, now: Option<&Identity>) -> DeviceMatch {
        let (then, now) = (serials(then), serials(now));
        if then.is_empty() {
            DeviceMatch::Untold
        } else if then == now {
            DeviceMatch::Same
        } else {
            DeviceMatch::Different { then, now }
        }
    }

    /// Whether two runs ran on one device: by the serial numbers when the earlier run's device
    /// had any, else by the target path.
    pub fn same_runs(then: &Header, now: &Header) -> bool {
        match DeviceMatch::of(then.device.as_ref(), now.device.as_ref()) {
            DeviceMatch::Same => true,
            DeviceMatch::Different { .. } => false,
            DeviceMatch::Untold => then.target.path == now.target.path,
        }
    }
}

/// The serial numbers of every block device with hardware in the identity, top first.
pub fn serials(id: Option<&Identity>) -> Vec<String> {
    id.into_iter()
        .flat_map(|id| id.block_devices())
        .filter_map(|b| b.hardware.as_ref()?.serial.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Kind, TargetInfo, TargetType};
    use drivescope_probe::{BlockInfo, BlockRole, Hardware, Transport};

    /// A disk named `name`, with hardware of serial `serial` when given.
    fn disk(name: &str, serial: Option<&str>) -> Identity {
        let mut b = BlockInfo::new(
            name,
            format!("/dev/{name}").into(),
            BlockRole::Disk,
            Transport::Sata,
        );
        b.hardware = serial.map(|s| Hardware {
            serial: Some(s.into()),
            ..Hardware::default()
        });
        Identity::of_block(b)
    }

    fn header(path: &str, device: Option<Identity>) -> Header {
        let target = TargetInfo {
            path: path.into(),
            kind: TargetType::Block,
            size: 1 << 30,
            logical_block_size: 512,
        };
        let mut h = Header::new(
            Kind::Bench,
            target,
            "h".into(),
            "2026-11-25T10:00:00Z".into(),
        );
        h.device = device;
        h
    }

    #[test]
    fn serial_numbers_decide_when_the_earlier_device_had_any() {
        let a = disk("sdb", Some("S1"));
        let a_renamed = disk("sdc", Some("S1"));
        let b = disk("sdb", Some("S2"));
        let none = disk("loop3", None);
        assert_eq!(
            DeviceMatch::of(Some(&a), Some(&a_renamed)),
            DeviceMatch::Same
        );
        assert_eq!(
            DeviceMatch::of(Some(&a), Some(&b)),
            DeviceMatch::Different {
                then: vec!["S1".into()],
                now: vec!["S2".into()]
            }
        );
        assert_eq!(
            DeviceMatch::of(Some(&a), Some(&none)),
            DeviceMatch::Different {
                then: vec!["S1".into()],
                now: vec![]
            }
        );
        assert_eq!(
            DeviceMatch::of(Some(&a), None),
            DeviceMatch::Different {
                then: vec!["S1".into()],
                now: vec![]
            }
        );
        assert_eq!(DeviceMatch::of(Some(&none), Some(&a)), DeviceMatch::Untold);
        assert_eq!(DeviceMatch::of(None, None), DeviceMatch::Untold);
    }

    #[test]
    fn runs_without_serial_numbers_compare_their_target_paths() {
        let s1 = || Some(disk("sdb", Some("S1")));
        // Serial numbers decide, wherever the device was found.
        assert!(DeviceMatch::same_runs(
            &header("/dev/sdb", s1()),
            &header("/dev/sdc", s1())
        ));
        assert!(!DeviceMatch::same_runs(
            &header("/dev/sdb", s1()),
            &header("/dev/sdb", Some(disk("sdb", Some("S2"))))
        ));
        // Without them, the path does.
        let lo = || Some(disk("loop3", None));
        assert!(DeviceMatch::same_runs(
            &header("/dev/loop3", lo()),
            &header("/dev/loop3", s1())
        ));
        assert!(!DeviceMatch::same_runs(
            &header("/dev/loop3", lo()),
            &header("/dev/loop4", lo())
        ));
        assert!(DeviceMatch::same_runs(
            &header("/mnt/f", None),
            &header("/mnt/f", None)
        ));
    }
}
