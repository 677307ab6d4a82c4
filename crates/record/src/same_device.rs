//! The one rule for "the same device": a run continues only on the device it ran on (`--resume`),
//! and a finding compares two runs only of one device (a bench against a stored diagnosis).
//!
//! A device is known by the serial numbers of every block device with hardware under its target,
//! top first (one for a disk, each member's for a RAID). Without serial numbers a kernel name says
//! little (`/dev/loop0` is whatever was attached last), so the facts of the target's block device
//! that both identities know must agree: its size, model, WWN, and a loop device's backing file
//! and offset. Any that differ say "not the same device"; where all agree or none is known, readers
//! with two headers compare the target paths.

use crate::Header;
use drivescope_probe::Identity;

/// What the serial numbers say of two devices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceMatch {
    /// The same serial numbers.
    Same,
    /// The earlier device had serial numbers and the later one has others (or none).
    Different { then: Vec<String>, now: Vec<String> },
    /// Neither had serial numbers, and a fact both identities know differs (the sentence says
    /// which: "backing file /a.img, now /b.img").
    Unlike(String),
    /// The earlier device had no serial numbers, and nothing both identities know differs.
    Untold,
}

impl DeviceMatch {
    /// Whether the device `now` is the one `then` was.
    pub fn of(then: Option<&Identity>, now: Option<&Identity>) -> DeviceMatch {
        let (then_id, now_id) = (then, now);
        let (then, now) = (serials(then), serials(now));
        if then.is_empty() {
            if !now.is_empty() {
                return DeviceMatch::Unlike(format!(
                    "a device without a serial number, now serial {}",
                    now.join(", ")
                ));
            }
            match unlike(then_id, now_id) {
                Some(why) => DeviceMatch::Unlike(why),
                None => DeviceMatch::Untold,
            }
        } else if then == now {
            DeviceMatch::Same
        } else {
            DeviceMatch::Different { then, now }
        }
    }

    /// Whether two runs ran on one device, so that one's finding may speak for the other: by the
    /// serial numbers when the earlier run's device had any; else by the target path and at least
    /// one fact both identities know (and agree on). Where nothing is known of either device, a
    /// path alone says nothing: not the same device when unsure.
    pub fn same_runs(then: &Header, now: &Header) -> bool {
        let (a, b) = (then.device.as_ref(), now.device.as_ref());
        match DeviceMatch::of(a, b) {
            DeviceMatch::Same => true,
            DeviceMatch::Different { .. } | DeviceMatch::Unlike(_) => false,
            DeviceMatch::Untold => {
                let known: Vec<&str> = facts(a).into_iter().map(|f| f.0).collect();
                then.target.path == now.target.path && facts(b).iter().any(|f| known.contains(&f.0))
            }
        }
    }
}

/// The first fact of the target's block device that both identities know and that differs.
fn unlike(then: Option<&Identity>, now: Option<&Identity>) -> Option<String> {
    let (a, b) = (then?.target_block()?, now?.target_block()?);
    let differs = |what: &str, x: Option<String>, y: Option<String>| match (x, y) {
        (Some(x), Some(y)) if x != y => Some(format!("{what} {x}, now {y}")),
        _ => None,
    };
    let size = |b: &drivescope_probe::BlockInfo| b.size_bytes.map(drivescope_units::format_size);
    let hw = |b: &drivescope_probe::BlockInfo,
              f: fn(&drivescope_probe::Hardware) -> Option<String>| {
        b.hardware.as_ref().and_then(f)
    };
    let backing = |b: &drivescope_probe::BlockInfo| {
        let l = b.loop_dev.as_ref()?;
        let file = l.backing_file.as_ref()?.display().to_string();
        Some(match l.offset {
            Some(o) if o > 0 => format!("{file} at offset {o}"),
            _ => file,
        })
    };
    differs("size", size(a), size(b))
        .or_else(|| {
            differs(
                "model",
                hw(a, |h| h.model.clone()),
                hw(b, |h| h.model.clone()),
            )
        })
        .or_else(|| differs("WWN", hw(a, |h| h.wwn.clone()), hw(b, |h| h.wwn.clone())))
        .or_else(|| differs("backing file", backing(a), backing(b)))
}

/// The facts of the target's block device that tell one serial-less device from another under
/// the same kernel name, as [`DeviceMatch`] compares them: size, model, WWN, a loop device's
/// backing file (and offset). Empty when none is known (a file, `null:`, no identity).
pub fn facts(id: Option<&Identity>) -> Vec<(&'static str, String)> {
    let Some(b) = id.and_then(Identity::target_block) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(l) = &b.loop_dev {
        if let Some(f) = &l.backing_file {
            let mut file = f.display().to_string();
            if let Some(o) = l.offset.filter(|o| *o > 0) {
                file += &format!(" at offset {o}");
            }
            out.push(("backing file", file));
        }
    }
    if let Some(h) = &b.hardware {
        if let Some(m) = &h.model {
            out.push(("model", m.clone()));
        }
        if let Some(w) = &h.wwn {
            out.push(("WWN", w.clone()));
        }
    }
    if let Some(s) = b.size_bytes {
        out.push(("size", drivescope_units::format_size(s)));
    }
    out
}

/// Which drive a run is of, as histories group runs: its serial numbers where its device has
/// any; else its target path, and for a block device the facts that tell devices under one
/// kernel name apart (`/dev/loop0` held whatever was attached last). Two runs have one key only
/// when nothing known says they ran on different devices; a fact one run knows and the other
/// does not makes two keys: not the same device when unsure.
pub fn drive_key(header: &Header) -> String {
    let s = serials(header.device.as_ref());
    if !s.is_empty() {
        return s.join("+");
    }
    let f = facts(header.device.as_ref());
    if f.is_empty() {
        return header.target.path.clone();
    }
    format!("{}#{:08x}", header.target.path, digest(&f))
}

/// The facts of a serial-less device for people (`/tmp/lab/hdd.img, 256.0 MiB`); `None` where
/// the key is a serial or a bare path.
pub fn drive_facts(header: &Header) -> Option<String> {
    if !serials(header.device.as_ref()).is_empty() {
        return None;
    }
    let f = facts(header.device.as_ref());
    if f.is_empty() {
        return None;
    }
    Some(
        f.iter()
            .map(|(what, v)| match *what {
                "WWN" => format!("WWN {v}"),
                _ => v.clone(),
            })
            .collect::<Vec<_>>()
            .join(", "),
    )
}

/// FNV-1a over the facts: a short, stable digest for a URL and a key (not a security measure).
fn digest(facts: &[(&str, String)]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for (k, v) in facts {
        for b in k.bytes().chain([0]).chain(v.bytes()).chain([0]) {
            h ^= b as u32;
            h = h.wrapping_mul(0x0100_0193);
        }
    }
    h
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

    /// A loop device over `file`, of `size` bytes, as a header of a run on /dev/loop0.
    fn on_loop0(file: Option<&str>, size: Option<u64>) -> Header {
        let mut b = BlockInfo::new(
            "loop0",
            "/dev/loop0".into(),
            BlockRole::Loop,
            Transport::Loop,
        );
        b.size_bytes = size;
        b.loop_dev = file.map(|f| drivescope_probe::LoopInfo {
            backing_file: Some(f.into()),
            backing_deleted: false,
            offset: Some(0),
            sizelimit: None,
            direct_io: None,
            autoclear: None,
            power_loss_protection: None,
        });
        header("/dev/loop0", Some(Identity::of_block(b)))
    }

    #[test]
    fn drive_keys_tell_devices_under_one_kernel_name_apart() {
        let a = on_loop0(Some("/tmp/a/disk.img"), Some(256 << 20));
        let a_again = on_loop0(Some("/tmp/a/disk.img"), Some(256 << 20));
        let b = on_loop0(Some("/tmp/b/disk.img"), Some(256 << 20));
        let c = on_loop0(Some("/tmp/a/disk.img"), Some(128 << 20));
        let unknown = on_loop0(None, None);
        assert_eq!(drive_key(&a), drive_key(&a_again));
        for other in [&b, &c] {
            assert_ne!(drive_key(&a), drive_key(other));
            assert!(!DeviceMatch::same_runs(&a, other));
        }
        // Unsure (nothing known of the device): a history of its own, not the same device.
        assert_ne!(drive_key(&a), drive_key(&unknown));
        assert!(drive_key(&a).starts_with("/dev/loop0#"));
        assert_eq!(drive_key(&unknown), "/dev/loop0");
        assert_eq!(
            drive_facts(&a).as_deref(),
            Some("/tmp/a/disk.img, 256.0 MiB")
        );
        // A serial number is the key wherever the device was found.
        let s = header("/dev/sdb", Some(disk("sdb", Some("S1"))));
        assert_eq!(drive_key(&s), "S1");
        assert_eq!(drive_facts(&s), None);
        // No identity: the path.
        assert_eq!(drive_key(&header("/mnt/x", None)), "/mnt/x");
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
        assert_eq!(
            DeviceMatch::of(Some(&none), Some(&a)),
            DeviceMatch::Unlike("a device without a serial number, now serial S1".into())
        );
        assert_eq!(
            DeviceMatch::of(Some(&none), Some(&none)),
            DeviceMatch::Untold
        );
        assert_eq!(DeviceMatch::of(None, None), DeviceMatch::Untold);
    }

    #[test]
    fn runs_without_serial_numbers_compare_their_target_paths_and_facts() {
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
        // Without them, the path and the facts both know do.
        let lo = || Some(looped("loop3", "/a.img", 1 << 30));
        assert!(DeviceMatch::same_runs(
            &header("/dev/loop3", lo()),
            &header("/dev/loop3", lo())
        ));
        assert!(!DeviceMatch::same_runs(
            &header("/dev/loop3", lo()),
            &header("/dev/loop3", Some(looped("loop3", "/b.img", 1 << 30)))
        ));
        assert!(!DeviceMatch::same_runs(
            &header("/dev/loop3", lo()),
            &header("/dev/loop3", s1())
        ));
        assert!(!DeviceMatch::same_runs(
            &header("/dev/loop3", lo()),
            &header("/dev/loop4", lo())
        ));
        // Nothing known of either device: a path alone is not the same device.
        assert!(!DeviceMatch::same_runs(
            &header("/mnt/f", None),
            &header("/mnt/f", None)
        ));
        assert!(!DeviceMatch::same_runs(
            &header("/dev/loop3", Some(disk("loop3", None))),
            &header("/dev/loop3", Some(disk("loop3", None)))
        ));
    }

    /// A loop device named `name` over `file`, `size` bytes.
    fn looped(name: &str, file: &str, size: u64) -> Identity {
        let mut b = BlockInfo::new(
            name,
            format!("/dev/{name}").into(),
            BlockRole::Loop,
            Transport::Loop,
        );
        b.size_bytes = Some(size);
        b.loop_dev = Some(drivescope_probe::LoopInfo {
            backing_file: Some(file.into()),
            ..Default::default()
        });
        Identity::of_block(b)
    }

    #[test]
    fn one_kernel_name_over_another_backing_file_is_another_device() {
        let a = looped("loop0", "/tmp/lab-1/disk.img", 256 << 20);
        let b = looped("loop0", "/tmp/lab-2/disk.img", 256 << 20);
        assert_eq!(
            DeviceMatch::of(Some(&a), Some(&b)),
            DeviceMatch::Unlike("backing file /tmp/lab-1/disk.img, now /tmp/lab-2/disk.img".into())
        );
        assert!(!DeviceMatch::same_runs(
            &header("/dev/loop0", Some(a.clone())),
            &header("/dev/loop0", Some(b))
        ));
        // The same file attached again is the same device.
        let again = looped("loop0", "/tmp/lab-1/disk.img", 256 << 20);
        assert_eq!(DeviceMatch::of(Some(&a), Some(&again)), DeviceMatch::Untold);
        assert!(DeviceMatch::same_runs(
            &header("/dev/loop0", Some(a)),
            &header("/dev/loop0", Some(again))
        ));
    }

    #[test]
    fn one_kernel_name_of_another_size_or_model_is_another_device() {
        let small = looped("loop0", "/f", 256 << 20);
        let big = looped("loop0", "/f", 512 << 20);
        assert_eq!(
            DeviceMatch::of(Some(&small), Some(&big)),
            DeviceMatch::Unlike("size 256.0 MiB, now 512.0 MiB".into())
        );
        let model = |m: &str| {
            let mut id = disk("sdb", None);
            if let Some(drivescope_probe::Node::Block(b)) =
                id.layers.first_mut().map(|l| &mut l.node)
            {
                b.hardware = Some(Hardware {
                    model: Some(m.into()),
                    ..Hardware::default()
                });
            }
            id
        };
        assert_eq!(
            DeviceMatch::of(Some(&model("A")), Some(&model("B"))),
            DeviceMatch::Unlike("model A, now B".into())
        );
        // What only one side knows does not tell them apart.
        let mut unknown = looped("loop0", "/f", 256 << 20);
        if let Some(drivescope_probe::Node::Block(b)) =
            unknown.layers.first_mut().map(|l| &mut l.node)
        {
            b.size_bytes = None;
            b.loop_dev = None;
        }
        assert_eq!(
            DeviceMatch::of(Some(&small), Some(&unknown)),
            DeviceMatch::Untold
        );
    }
}
